#!/bin/sh
# check_cl_portable.sh BICL_INFO [CLANG] - every kernel family's program text (the self-test
# included), and the instances the whole-family text does not expand (the fix-up forms,
# the specialised RoPE kernels), parse as strict OpenCL C 1.2: clang -cl-std=CL1.2
# -Werror=pedantic; twice: with the test device's profile, its f16 conversions by integer bit
# work, and with NVIDIA's forms (the f16 conversions by the device, BICL_F16_DEVICE; the lane
# loop unrolled, BICL_UNROLL_LANES);
# and the one-input template's family (unary) with the lane loop kept a loop
# (BICL_ROLL_LANES) and bit work, the generic profile's forms (Intel's CPU runtime). PoCL
# accepts Clang's extensions (variadic macros among them) that NVIDIA's compiler refuses
# ("variadic macros not supported in OpenCL": the unary, glu, binary and mask programs of
# 102c85b..fe342fb failed to build on the H200), so CI, which has no NVIDIA device,
# checks the text here. The f16 conversions by _Float16 casts (PoCL's profile,
# BICL_F16_FLOAT16) are not OpenCL C but an extension of Clang 15 and later on x86: a context
# whose compiler refuses them, or whose self-test finds other bits, falls back to bit work
# (src/context.c), and test_cast runs them wherever a profile takes them.
# Exit 77 (skipped) without clang.
set -u
info=$1
cc=${2:-clang}
command -v "$cc" >/dev/null 2>&1 || { echo "no $cc: skipped"; exit 77; }
dev=${BICL_TEST_DEVICE:-${BICL_DEVICE:-pocl}}
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
status=0
check() { # FAMILY [INSTANCE]
    name="$1${2:+ $2}${BICL_F16_CONVERT:+ (f16 $BICL_F16_CONVERT)}${BICL_LANE_LOOP:+ (lanes $BICL_LANE_LOOP)}"
    if ! "$info" --device "$dev" --source "$@" >"$dir/p.cl" 2>"$dir/err.txt"; then
        echo "FAIL $name: bicl-info: $(cat "$dir/err.txt")"; status=1; return
    fi
    if "$cc" -x cl -cl-std=CL1.2 -fsyntax-only -Xclang -finclude-default-header \
        -Werror=pedantic "$dir/p.cl" >"$dir/log.txt" 2>&1; then
        echo "ok   $name"
    else
        echo "FAIL $name"; grep -m 5 'error' "$dir/log.txt"; status=1
    fi
}
check_all() {
    for f in selftest unary glu binary cast mask rope mrope; do
        check "$f"
    done
    check unary 'UNARY_FIX(softcap, SOFTCAP, 1, f32, f32)'
    check glu 'GLU_FIX(swiglu, SWIGLU, bf16, bf16, 2)'
    check rope 'ROPE_KERNEL_SPEC(bf16, bf16, 8, 48, 64, 8, 0, 0, 0, 0, 32, 8)'
    check rope 'ROPE_ROWS_SPEC(bf16, bf16, 48, 64, 0, 0, 0, 0, 32, 8)'
    check rope 'ROPE_MKERNEL_SPEC(bf16, bf16, 8, 48, 64, 8, 0, 0, 0, 0, 32, 8, 1, 16, 24, 24)'
    check rope 'ROPE_MROWS_SPEC(bf16, bf16, 48, 64, 0, 0, 0, 0, 32, 8, 2, 24, 20, 20)'
    check rope 'ROPE_KERNEL_SPEC_IP(f16, f16, 8, 176, 64, 8, 0, 0, 0, 0, 32, 8)'
    check rope 'ROPE_ROWS_SPEC_IP(bf16, bf16, 48, 64, 0, 0, 0, 0, 32, 8)'
    check rope 'ROPE_MKERNEL_SPEC_IP(bf16, bf16, 4, 176, 64, 8, 0, 0, 0, 0, 32, 8, 1, 16, 24, 24)'
    check rope 'ROPE_MROWS_SPEC_IP(f16, f16, 48, 64, 0, 0, 0, 0, 32, 8, 2, 24, 20, 20)'
}
BICL_F16_CONVERT=bits check_all
BICL_F16_CONVERT=device BICL_LANE_LOOP=unrolled
export BICL_F16_CONVERT BICL_LANE_LOOP
check_all
BICL_F16_CONVERT=bits BICL_LANE_LOOP=rolled
check unary
grep -q '^#define BICL_ROLL_LANES 1$' "$dir/p.cl" || { echo "FAIL unary (lanes rolled): no BICL_ROLL_LANES"; status=1; }
exit $status
