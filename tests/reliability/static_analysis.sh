#!/bin/sh
# static_analysis.sh SOURCE_DIR - cppcheck and clang-tidy over the library (src/*.c),
# each run only when installed; any finding fails (docs/reliability.md). Exit 77
# (skipped) when neither tool is there.
set -u
src=$1
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
        "exec \"$tidy\" --quiet --config-file=\"$src/.clang-tidy\" \"\$0\" -- -std=c11 $defs $incs" \
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
