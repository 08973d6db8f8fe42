/* bicl_portable.h - the spelling bridge between C11 and OpenCL C 1.2.
 *
 * Every math header in cl/ is written in the common subset of the two languages
 * and includes this file first. The bridge only renames things; it never
 * changes what an operation computes. Allowed operations (design rule 1):
 * + - * / on float and double, bicl_fmaf/bicl_fma, bicl_sqrtf/bicl_sqrt,
 * bicl_rintf/bicl_rint, conversions between integer and floating types of
 * in-range values, comparisons and bit operations. No libm or OpenCL built-in
 * transcendental function may be called from cl/.
 *
 * The host side must be compiled with -ffp-contract=off and without fast-math;
 * the OpenCL side starts every program with "#pragma OPENCL FP_CONTRACT OFF". */
#ifndef BICL_PORTABLE_H
#define BICL_PORTABLE_H

#ifdef __OPENCL_C_VERSION__
/* ---------------------------------------------------------------- OpenCL C */
#pragma OPENCL FP_CONTRACT OFF
#define BICL_OPENCL 1
#define BICL_FN     static inline
/* A function whose caller PoCL must vectorise: its work-item loop stays scalar around a
 * call, and LLVM's inliner left the fix-up form's fast dispatcher of swiglu bf16 a call
 * (0.8 GB/s against 5.1-5.5 inlined, docs/performance.md). Forced only in the programs of
 * the fix-up form (the host's BICL_FIX_REDO_CALL, cl/bicl_kernel.h); speed only. */
#if defined(BICL_FIX_REDO_CALL)
#define BICL_FN_INLINED BICL_FN __attribute__((always_inline))
#else
#define BICL_FN_INLINED BICL_FN
#endif
/* Program-scope tables live in the constant address space in OpenCL C 1.2. */
#define BICL_TABLE constant
typedef uchar bicl_u8;
typedef ushort bicl_u16;
typedef int bicl_i32;
typedef uint bicl_u32;
typedef long bicl_i64;
typedef ulong bicl_u64;

#define bicl_f32_as_u32(x) as_uint(x)
#define bicl_u32_as_f32(x) as_float(x)
#define bicl_fmaf(a, b, c) fma((float)(a), (float)(b), (float)(c))
#define bicl_sqrtf(x)      sqrt((float)(x))
#define bicl_rintf(x)      rint((float)(x))

#ifdef BICL_HAVE_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#define bicl_f64_as_u64(x) as_ulong(x)
#define bicl_u64_as_f64(x) as_double(x)
#define bicl_fma(a, b, c)  fma((double)(a), (double)(b), (double)(c))
#define bicl_sqrt(x)       sqrt((double)(x))
#define bicl_rint(x)       rint((double)(x))
#endif

#else
/* ----------------------------------------------------------------------- C */
#include <float.h>
#include <math.h>
#include <stdint.h>
#include <string.h>

#if !defined(FLT_EVAL_METHOD) || FLT_EVAL_METHOD != 0
#error                                                                                             \
    "bicl's host reference needs FLT_EVAL_METHOD == 0 (SSE2 or equivalent, no x87 excess precision)"
#endif
#if defined(__FAST_MATH__)
#error "bicl's host reference must not be compiled with -ffast-math"
#endif

#define BICL_FN            static inline
#define BICL_FN_INLINED    BICL_FN
#define BICL_TABLE         static const
typedef uint8_t bicl_u8;
typedef uint16_t bicl_u16;
typedef int32_t bicl_i32;
typedef uint32_t bicl_u32;
typedef int64_t bicl_i64;
typedef uint64_t bicl_u64;

BICL_FN bicl_u32 bicl_f32_as_u32(float x)
{
    bicl_u32 u;
    memcpy(&u, &x, sizeof u);
    return u;
}
BICL_FN float bicl_u32_as_f32(bicl_u32 u)
{
    float x;
    memcpy(&x, &u, sizeof x);
    return x;
}
#define bicl_fmaf(a, b, c) fmaf((float)(a), (float)(b), (float)(c))
#define bicl_sqrtf(x)      sqrtf((float)(x))
#define bicl_rintf(x)      rintf((float)(x))

/* The host always has IEEE binary64. */
#define BICL_HAVE_FP64     1
BICL_FN bicl_u64 bicl_f64_as_u64(double x)
{
    bicl_u64 u;
    memcpy(&u, &x, sizeof u);
    return u;
}
BICL_FN double bicl_u64_as_f64(bicl_u64 u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}
#define bicl_fma(a, b, c)  fma((double)(a), (double)(b), (double)(c))
#define bicl_sqrt(x)       sqrt((double)(x))
#define bicl_rint(x)       rint((double)(x))
#endif

/* ------------------------------------------------ shared bit-level helpers */
/* NaN tests are bit tests: comparisons with NaN are fine in IEEE, but a bit
 * test cannot be optimised away by a compiler that assumes finite math. */
BICL_FN int bicl_f32_is_nan(float x)
{
    return (bicl_f32_as_u32(x) & 0x7fffffffu) > 0x7f800000u;
}
/* A NaN made quiet with its sign and payload kept: the rule every op uses when
 * a NaN input decides the output (documented in docs/numerics.md). */
BICL_FN float bicl_f32_quiet(float x)
{
    return bicl_u32_as_f32(bicl_f32_as_u32(x) | 0x00400000u);
}
/* The one NaN an op returns when its inputs hold no NaN but the arithmetic
 * makes one (inf - inf, 0 * inf): hardware differs here (x86 gives 0xffc00000,
 * NVIDIA 0x7fffffff), so the result is fixed by bits. */
#define BICL_F32_CANONICAL_NAN_BITS 0x7fc00000u
BICL_FN float bicl_f32_canonical_nan(void)
{
    return bicl_u32_as_f32(BICL_F32_CANONICAL_NAN_BITS);
}
BICL_FN float bicl_f32_abs(float x)
{
    return bicl_u32_as_f32(bicl_f32_as_u32(x) & 0x7fffffffu);
}
BICL_FN float bicl_f32_copysign(float mag, float sgn)
{
    return bicl_u32_as_f32((bicl_f32_as_u32(mag) & 0x7fffffffu) |
                           (bicl_f32_as_u32(sgn) & 0x80000000u));
}

/* NaN rule of bicl's arithmetic ops: a NaN result takes the first NaN operand (in
 * the op's documented order), quieted; a NaN made from non-NaN operands is the
 * canonical NaN. Applied after the arithmetic, by bits, so that hardware NaN
 * propagation (which differs between vendors) never reaches an output. */
BICL_FN float bicl_f32_nan_fix2(float r, float a, float b)
{
    if (!bicl_f32_is_nan(r))
        return r;
    if (bicl_f32_is_nan(a))
        return bicl_f32_quiet(a);
    if (bicl_f32_is_nan(b))
        return bicl_f32_quiet(b);
    return bicl_f32_canonical_nan();
}

#endif /* BICL_PORTABLE_H */
