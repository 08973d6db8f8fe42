/* bicl_selftest.h - one case of the device self-test (src/selftest.c, cl/selftest.cl).
 *
 * What bicl's math relies on, one operation per case: correctly rounded f32 division
 * and sqrt, fma/mul/add with denormal operands and results, the conversions of the
 * math and storage headers (f32 <-> f16/bf16 bit paths, rint, int <-> float), the math
 * headers' own functions (their structs passed by value carry an int exponent: a
 * runtime that loses it, as Intel's 2021.2 did, breaks every transcendental), and the
 * same for double where the device has fp64 (RoPE's inline angles).
 *
 * The kernel and the host evaluate this same function; the host's answer is correctly
 * rounded (IEEE hardware, no contraction), so any difference is the device's.
 * Operands and the result are bit patterns; f32 ones live in the low 32 bits. */
#ifndef BICL_SELFTEST_H
#define BICL_SELFTEST_H
#include "bicl_convert.h"
#include "bicl_math_f32.h"
#include "bicl_math_act_f32.h"
#include "bicl_math_f64.h"

/* Case kinds. The f64 ones exist only where the device has fp64. */
#define BICL_ST_DIV       0u  /* a / b */
#define BICL_ST_RECIP     1u  /* 1 / a */
#define BICL_ST_SQRT      2u  /* sqrt(a) */
#define BICL_ST_FMA       3u  /* fma(a, b, c) */
#define BICL_ST_MUL       4u  /* a * b */
#define BICL_ST_ADD       5u  /* a + b */
#define BICL_ST_TO_F16    6u  /* bicl_f32_to_f16(a) */
#define BICL_ST_FROM_F16  7u  /* bicl_f16_to_f32(low 16 bits of a) */
#define BICL_ST_TO_BF16   8u  /* bicl_f32_to_bf16(a) */
#define BICL_ST_RINT      9u  /* rint(a) */
#define BICL_ST_F2I       10u /* (int)a, a in int range */
#define BICL_ST_I2F       11u /* (float)(int)a */
#define BICL_ST_U2F       12u /* (float)(uint)a */
#define BICL_ST_EXPF      13u /* bicl_expf(a) */
#define BICL_ST_TANHF     14u /* bicl_tanhf(a) */
#define BICL_ST_ERFF      15u /* bicl_erff(a) */
#define BICL_ST_MISH      16u /* bicl_mish(a) */
#define BICL_ST_F32_COUNT 17u
#define BICL_ST_DDIV      17u /* a / b in double */
#define BICL_ST_DSQRT     18u /* sqrt(a) in double */
#define BICL_ST_DFMA      19u /* fma(a, b, c) in double */
#define BICL_ST_D2F       20u /* bicl_f64_to_f32_rte(a) */
#define BICL_ST_DRINT     21u /* rint(a) in double */
#define BICL_ST_L2D       22u /* (double)(long)a */
#define BICL_ST_DSIN      23u /* sin of bicl_sincos_dd(a, 0) */
#define BICL_ST_DCOS      24u /* cos of bicl_sincos_dd(a, 0) */
#define BICL_ST_COUNT     25u

/* The answer to an unknown op: never the host's answer. Spelled without a "ull"
 * suffix, which means a 128-bit long long in OpenCL C. */
#define BICL_ST_UNKNOWN ((bicl_u64)0xdeadbeefu)

BICL_FN bicl_u64 bicl_st_f32(float x)
{
    return (bicl_u64)bicl_f32_as_u32(x);
}

BICL_FN float bicl_st_arg(bicl_u64 a)
{
    return bicl_u32_as_f32((bicl_u32)a);
}

BICL_FN bicl_u64 bicl_selftest_f32(bicl_u32 op, bicl_u64 a, bicl_u64 b, bicl_u64 c)
{
    float x = bicl_st_arg(a), y = bicl_st_arg(b), z = bicl_st_arg(c);
    if (op == BICL_ST_DIV)
        return bicl_st_f32(x / y);
    if (op == BICL_ST_RECIP)
        return bicl_st_f32(1.0f / x);
    if (op == BICL_ST_SQRT)
        return bicl_st_f32(bicl_sqrtf(x));
    if (op == BICL_ST_FMA)
        return bicl_st_f32(bicl_fmaf(x, y, z));
    if (op == BICL_ST_MUL)
        return bicl_st_f32(x * y);
    if (op == BICL_ST_ADD)
        return bicl_st_f32(x + y);
    if (op == BICL_ST_TO_F16)
        return (bicl_u64)bicl_f32_to_f16(x);
    if (op == BICL_ST_FROM_F16)
        return bicl_st_f32(bicl_f16_to_f32((bicl_u16)(a & 0xffffu)));
    if (op == BICL_ST_TO_BF16)
        return (bicl_u64)bicl_f32_to_bf16(x);
    if (op == BICL_ST_RINT)
        return bicl_st_f32(bicl_rintf(x));
    if (op == BICL_ST_F2I)
        return (bicl_u64)(bicl_u32)(bicl_i32)x;
    if (op == BICL_ST_I2F)
        return bicl_st_f32((float)(bicl_i32)(bicl_u32)a);
    if (op == BICL_ST_U2F)
        return bicl_st_f32((float)(bicl_u32)a);
    if (op == BICL_ST_EXPF)
        return bicl_st_f32(bicl_expf(x));
    if (op == BICL_ST_TANHF)
        return bicl_st_f32(bicl_tanhf(x));
    if (op == BICL_ST_ERFF)
        return bicl_st_f32(bicl_erff(x));
    if (op == BICL_ST_MISH)
        return bicl_st_f32(bicl_mish(x));
    return BICL_ST_UNKNOWN;
}

#ifdef BICL_HAVE_FP64
BICL_FN bicl_u64 bicl_selftest_f64(bicl_u32 op, bicl_u64 a, bicl_u64 b, bicl_u64 c)
{
    double x = bicl_u64_as_f64(a), y = bicl_u64_as_f64(b), z = bicl_u64_as_f64(c);
    double s = 0.0, co = 0.0;
    if (op == BICL_ST_DDIV)
        return bicl_f64_as_u64(x / y);
    if (op == BICL_ST_DSQRT)
        return bicl_f64_as_u64(bicl_sqrt(x));
    if (op == BICL_ST_DFMA)
        return bicl_f64_as_u64(bicl_fma(x, y, z));
    if (op == BICL_ST_D2F)
        return bicl_st_f32(bicl_f64_to_f32_rte(x));
    if (op == BICL_ST_DRINT)
        return bicl_f64_as_u64(bicl_rint(x));
    if (op == BICL_ST_L2D)
        return bicl_f64_as_u64((double)(bicl_i64)a);
    bicl_sincos_dd(x, 0.0, &s, &co);
    return bicl_f64_as_u64(op == BICL_ST_DSIN ? s : co);
}
#endif

BICL_FN bicl_u64 bicl_selftest_eval(bicl_u32 op, bicl_u64 a, bicl_u64 b, bicl_u64 c)
{
#ifdef BICL_HAVE_FP64
    if (op >= BICL_ST_F32_COUNT)
        return op < BICL_ST_COUNT ? bicl_selftest_f64(op, a, b, c) : BICL_ST_UNKNOWN;
#endif
    return bicl_selftest_f32(op, a, b, c);
}

#endif /* BICL_SELFTEST_H */
