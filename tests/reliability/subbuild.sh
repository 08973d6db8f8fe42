#!/bin/sh
# subbuild.sh MODE SOURCE_DIR BUILD_DIR C_COMPILER [SECONDS]
#
# Run by ctest from the main build (tests/reliability.cmake, docs/reliability.md). Each
# mode configures a host-only sub-build of this source tree (BICL_HOST_ONLY: the library
# and the tests that need no OpenCL device, nothing else), builds only its target and
# runs it, so that it costs seconds, not a second CI build.
#   sanitize  ASan + UBSan with the main build's compiler; runs test_host (and
#             test_hfconfig, the config.json reader's device-free test, where present).
#   fuzz      clang with libFuzzer, ASan and UBSan; runs fuzz_validation for SECONDS
#             (default 60) over tests/fuzz/corpus. Exit 77 (skipped) without clang.
set -eu
mode=$1 src=$2 bin=$3 cc=$4 secs=${5:-60}

case $mode in
sanitize)
    build_type=Debug flags= fuzz=OFF target=test_host
    if [ -f "$src/tests/test_hfconfig.c" ]; then target="$target test_hfconfig"; fi
    ;;
fuzz)
    cc=$(command -v clang || command -v clang-14 || true)
    if [ -z "$cc" ]; then
        echo "fuzz: no clang on PATH: skipped"
        exit 77
    fi
    probe=$(mktemp -d)
    printf 'int LLVMFuzzerTestOneInput(const char *d, unsigned long n) { return 0; }\n' \
        >"$probe/p.c"
    if ! "$cc" -fsanitize=fuzzer,address,undefined "$probe/p.c" -o "$probe/p" 2>/dev/null; then
        rm -rf "$probe"
        echo "fuzz: $cc cannot link -fsanitize=fuzzer (libclang-rt-*-dev missing): skipped"
        exit 77
    fi
    rm -rf "$probe"
    # -O2 for executions per second; the sanitizers stay on.
    build_type=RelWithDebInfo flags=-fsanitize=fuzzer-no-link fuzz=ON target=fuzz_validation
    ;;
*)
    echo "usage: $0 sanitize|fuzz SOURCE_DIR BUILD_DIR C_COMPILER [SECONDS]" >&2
    exit 2
    ;;
esac

mkdir -p "$bin"
if [ ! -f "$bin/CMakeCache.txt" ]; then
    if ! cmake -S "$src" -B "$bin" -DCMAKE_BUILD_TYPE=$build_type -DCMAKE_C_COMPILER="$cc" \
        -DCMAKE_C_FLAGS="$flags" -DBICL_SANITIZE=ON -DBICL_HOST_ONLY=ON -DBICL_FUZZ=$fuzz \
        -DBICL_BUILD_TOOLS=OFF -DCMAKE_PREFIX_PATH="${BICL_PREFIX_PATH:-}" \
        >"$bin/configure.log" 2>&1; then
        cat "$bin/configure.log"
        exit 1
    fi
fi
if ! cmake --build "$bin" --target $target -j 2 >"$bin/build.log" 2>&1; then
    cat "$bin/build.log"
    exit 1
fi
echo "$mode: built $target with $cc (ASan + UBSan) in $bin"

# Any report is an error: leaks included, and UBSan stops at its first finding.
export ASAN_OPTIONS=detect_leaks=1:halt_on_error=1:strict_string_checks=1
export UBSAN_OPTIONS=halt_on_error=1:print_stacktrace=1

case $mode in
sanitize)
    for t in $target; do
        "$bin/tests/$t" || exit 1
    done
    ;;
fuzz)
    # New inputs go to the first directory (in the build tree); the committed corpus
    # is only read.
    mkdir -p "$bin/corpus"
    # libFuzzer's own failure code is 77, which ctest would take for "skipped". A fixed
    # seed makes CI's run repeatable; BICL_FUZZ_SEED explores elsewhere.
    exec "$bin/tests/fuzz_validation" -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 \
        -error_exitcode=1 -timeout_exitcode=1 -seed="${BICL_FUZZ_SEED:-1}" \
        -print_final_stats=1 -artifact_prefix="$bin/" -dict="$src/tests/fuzz/hf.dict" \
        "$bin/corpus" "$src/tests/fuzz/corpus"
    ;;
esac
