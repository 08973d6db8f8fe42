#!/bin/sh
# header_filter_test.sh SCRIPT WORK - the clang-tidy header filter of static_analysis.sh
# for checkouts at awkward paths: inside a folder named src, and with regex characters
# (. + [) in the path. The project's src/ and include/bicl/ headers must match, cl/ and
# the same names outside the checkout must not.
set -eu
script=$1 work=$2
fail=0
for dir in "$work/src/bicl" "$work/a.b+c[d]/src"; do
    mkdir -p "$dir"
    dir=$(cd "$dir" && pwd)
    filter=$(sh "$script" --header-filter "$dir")
    expect() { # expect yes|no PATH
        if printf '%s\n' "$2" | grep -Eq "$filter"; then got=yes; else got=no; fi
        if [ "$got" != "$1" ]; then
            echo "FAIL: filter '$filter' on $2: $got (want $1)"
            fail=1
        fi
    }
    expect yes "$dir/src/internal.h"
    expect yes "$dir/include/bicl/rope.h"
    expect no "$dir/cl/bicl_kernel.h"
    expect no "$dir/cl/src/x.h"
    expect no "$(dirname "$dir")/src/internal.h"
    expect no "/usr/include/CL/cl.h"
done
[ $fail = 0 ] && echo "header filter: ok"
exit $fail
