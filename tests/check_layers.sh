#!/bin/sh
# check_layers.sh SOURCE_DIR - the host library's modules form layers without cycles
# (docs/internals.md). Each src/ header has a layer; a header includes only headers of
# lower layers; a .c file includes its own header (the one it implements) and headers
# of lower layers only; no library file includes the umbrella internal.h (that is for
# tests and tools). Since every internal call needs a declaration from an included
# header (-Werror=implicit-function-declaration), calls then go down the layers only,
# and no two modules can call each other. Public bicl_* functions are the exception:
# a module must not call the public API of a higher layer (reviewed, and
# nm-checked when this was set up).
set -u
src=$1/src
layer() { # layer of a header
    case $1 in
    status.h) echo 0 ;;
    device.h | profile.h | sources.h | diskcache.h | ops.h | abi.h) echo 1 ;;
    options.h | reference.h) echo 2 ;;
    context_state.h) echo 3 ;;
    tensor.h | program.h) echo 4 ;;
    selftest.h) echo 5 ;;
    context.h) echo 6 ;;
    launch.h) echo 7 ;;
    tables.h) echo 8 ;;
    cast.h | rope.h) echo 9 ;;
    hf_rope_table.h) echo 10 ;;
    *) echo unknown ;;
    esac
}
own() { # the header a .c file implements (none: the top layer)
    case $1 in
    act_tables.c) echo tables.h ;;
    pointwise_ref.c) echo reference.h ;;
    hfconfig.c) echo hf_rope_table.h ;;
    *) [ -f "$src/${1%.c}.h" ] && echo "${1%.c}.h" ;;
    esac
}
fail=0
for f in "$src"/*.h "$src"/*.c; do
    name=$(basename "$f")
    [ "$name" = internal.h ] && continue
    case $name in
    *.h) mine=$name; top=$(layer "$name") ;;
    *.c) mine=$(own "$name"); if [ -n "$mine" ]; then top=$(layer "$mine"); else top=10; fi ;;
    esac
    if [ "$top" = unknown ]; then
        echo "FAIL: $name has no layer in check_layers.sh"; fail=1; continue
    fi
    for inc in $(sed -n 's/^#include "\([^"/]*\)".*/\1/p' "$f"); do
        [ -f "$src/$inc" ] || continue # cl/ headers, generated files
        [ "$inc" = "$mine" ] && continue
        l=$(layer "$inc")
        if [ "$inc" = internal.h ] || [ "$l" = unknown ] || [ "$l" -ge "$top" ]; then
            echo "FAIL: $name (layer $top) includes $inc (layer $l)"
            fail=1
        fi
    done
done
[ $fail = 0 ] && echo "layers: ok ($(ls "$src"/*.h "$src"/*.c | wc -l) files)"
exit $fail
