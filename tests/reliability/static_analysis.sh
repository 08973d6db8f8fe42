#!/bin/sh
# static_analysis.sh SOURCE_DIR - cppcheck and clang-tidy over the library (src/*.c),
# each run only when installed; any finding fails (docs/reliability.md). Exit 77
# (skipped) when neither tool is there.
# static_analysis.sh --header-filter SOURCE_DIR prints the regex of the headers
# clang-tidy reports on (tested by static_analysis_header_filter).
set -u
print_filter=0
if [ "$1" = --header-filter ]; then print_filter=1; shift; fi
# Absolute, and the same string in -I and in the filter, which clang-tidy matches against
# the header paths it opened.
src=$(cd "$1" && pwd)
# The project's own headers only, anchored at the checkout: a checkout inside a folder
# named src (~/src/bicl) must not pull cl/ or system headers in.
esc=$(printf '%s' "$src" | sed 's/[][\\.*^$+?(){}|]/\\&/g')
header_filter="^$esc/(src|include/bicl)/"
if [ $print_filter = 1 ]; then
    printf '%s\n' "$header_filter"
    exit 0
fi
ran=0 failed=0
files=$(ls "$src"/src/*.c)
# The flags the library is built with (CMakeLists.txt), for both tools.
defs="-D_POSIX_C_SOURCE=200809L -DCL_TARGET_OPENCL_VERSION=120"
incs="-I$src/include -I$src/src -I$src/cl"

if command -v cppcheck >/dev/null; then
    ran=1
    # --library=posix knows pthreads and the POSIX calls; missingIncludeSystem: the
    # system headers are not analysed, only the project's.
    # FLT_EVAL_METHOD is float.h's, which cppcheck does not read (cl/bicl_portable.h
    # refuses to build without it).
    if cppcheck --quiet --error-exitcode=1 --std=c11 --enable=warning,performance,portability \
        --inline-suppr --library=posix --suppress=missingIncludeSystem -DFLT_EVAL_METHOD=0 \
        $defs $incs \
        -j 2 $files; then
        echo "cppcheck: clean ($(echo $files | wc -w) files)"
    else
        failed=1
    fi
fi

tidy=$(command -v clang-tidy || command -v clang-tidy-14 || true)
if [ -n "$tidy" ]; then
    ran=1
    out=$(mktemp)
    # One file per process, two at a time; -std and the flags as the build has them.
    if echo $files | tr ' ' '\n' | xargs -P 2 -n 1 sh -c \
        "exec \"$tidy\" --quiet --config-file=\"$src/.clang-tidy\" --header-filter='$header_filter' \"\$0\" -- -std=c11 $defs $incs" \
        >"$out" 2>&1; then
        echo "clang-tidy: clean ($(echo $files | wc -w) files)"
    else
        grep -v "warnings generated\|^Suppressed\|^Use -header-filter\|NOLINT" "$out"
        failed=1
    fi
    rm -f "$out"
fi

if [ $ran = 0 ]; then
    echo "neither cppcheck nor clang-tidy is installed: skipped"
    exit 77
fi
exit $failed
