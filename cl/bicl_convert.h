/* bicl_convert.h - conversions between f32 and the 16-bit storage types.
 *
 * The host, and kernels by default, convert by integer bit work (and, for f16 subnormal
 * results, one f32 addition, correctly rounded to nearest even on every device), which
 * cannot depend on a device's half-precision hardware or on how it treats NaN bits.
 * Kernels built with BICL_F16_DEVICE (the profile's choice, src/program.c) convert f16 by
 * OpenCL's vload_half / vstore_half_rte instead, with NaN by the rule below: the same
 * bits, which tests/test_cast.c checks on every input.
 *
 *   widening (f16 -> f32, bf16 -> f32): exact for every input; a NaN keeps its
 *       sign, its payload (shifted to the top of the f32 payload) and its
 *       quiet/signalling bit.
 *   narrowing (f32 -> f16, f32 -> bf16): round to nearest, ties to even;
 *       overflow gives +-inf; results in the f16 subnormal range are exact or
 *       correctly rounded (never flushed); a NaN becomes a quiet NaN with the
 *       sign and the top payload bits kept (the low bits that do not fit are
 *       dropped), so a NaN never turns into an infinity.
 */
#ifndef BICL_CONVERT_H
#define BICL_CONVERT_H
#include "bicl_portable.h"

BICL_FN float bicl_bf16_to_f32(bicl_u16 h)
{
    return bicl_u32_as_f32((bicl_u32)h << 16);
}

BICL_FN bicl_u16 bicl_f32_to_bf16(float x)
{
    bicl_u32 u = bicl_f32_as_u32(x);
    /* Adding 0x7fff plus the lowest kept bit rounds ties to even; a carry into the
     * exponent is the correct result, up to and including inf. Both results are
     * computed and one selected, so that vectorisers see no branch. */
    bicl_u32 rounded = (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
    bicl_u32 quiet_nan = (u >> 16) | 0x0040u;
    return (bicl_u16)(((u & 0x7fffffffu) > 0x7f800000u) ? quiet_nan : rounded);
}

/* f16 inf or NaN, em = its bits without the sign (>= 0x7c00), as f32 bits without the
 * sign: exponent all ones, the payload moved up (a NaN keeps its quiet bit). */
BICL_FN bicl_u32 bicl_f16_special_to_f32(bicl_u32 em)
{
    return (em << 13) + 0x70000000u;
}

/* An f32 NaN, a = its bits without the sign, as f16 bits without the sign: quiet, the top
 * 9 payload bits kept. */
BICL_FN bicl_u32 bicl_f32_nan_to_f16(bicl_u32 a)
{
    return 0x7e00u | ((a >> 13) & 0x1ffu);
}

#if defined(BICL_OPENCL) && defined(BICL_F16_DEVICE)
/* The device's own f16 conversions, where the profile finds them faster (NVIDIA: one
 * instruction each; src/profile.h). OpenCL 1.2 defines both exactly: vload_half widens
 * (exact for every f16), vstore_half_rte rounds to nearest even with overflow to inf and
 * f16 subnormal results kept; only NaN bits differ between devices, so NaN takes bicl's
 * rule by a select. The same bits as the integer forms below, which the host runs:
 * tests/test_cast.c compares every f16 and every f32 input on the device with the host's
 * in every form. bicl_f16_to_f32_loose: exact for a number, a NaN of the device's choosing
 * for a NaN (for a caller that takes a NaN's bits from its stored word: RoPE's 16-bit pairs);
 * the integer form below is bicl_f16_to_f32 itself. bicl_f32_to_f16_number: x's f16 bits for
 * a number x (a NaN's bits are the device's). */
#ifdef BICL_F16_FLOAT16
/* The compiler's _Float16 conversions (the profile's BICL_F16_FLOAT16: PoCL, whose LLVM
 * vectorises them where it left vload_half / vstore_half_rte scalar: x86's F16C, 8 at once in
 * the RoPE f16 kernel), also exact and correctly rounded to nearest even by IEEE 754's rules.
 * _Float16 is Clang's extension (15 and later on x86), not OpenCL C: a context whose
 * compiler refuses it, or whose self-test finds other bits, converts by bit work instead
 * (src/context.c). */
BICL_FN float bicl_f16_to_f32_loose(bicl_u16 h)
{
    return (float)__builtin_bit_cast(_Float16, h);
}

BICL_FN bicl_u16 bicl_f32_to_f16_number(float x)
{
    return __builtin_bit_cast(bicl_u16, (_Float16)x);
}
#else
BICL_FN float bicl_f16_to_f32_loose(bicl_u16 h)
{
    return vload_half(0, (const private half *)&h);
}

BICL_FN bicl_u16 bicl_f32_to_f16_number(float x)
{
    bicl_u16 h;
    vstore_half_rte(x, 0, (private half *)&h);
    return h;
}
#endif

BICL_FN float bicl_f16_to_f32(bicl_u16 h)
{
    bicl_u32 em = (bicl_u32)h & 0x7fffu;
    return em > 0x7c00u
               ? bicl_u32_as_f32((((bicl_u32)h & 0x8000u) << 16) | bicl_f16_special_to_f32(em))
               : bicl_f16_to_f32_loose(h);
}

BICL_FN bicl_u16 bicl_f32_to_f16(float x)
{
    bicl_u32 u = bicl_f32_as_u32(x);
    bicl_u32 a = u & 0x7fffffffu;
    bicl_u16 h = bicl_f32_to_f16_number(x);
    return a > 0x7f800000u ? (bicl_u16)(((u >> 16) & 0x8000u) | bicl_f32_nan_to_f16(a)) : h;
}
#else
BICL_FN float bicl_f16_to_f32(bicl_u16 h)
{
    bicl_u32 sign = ((bicl_u32)h & 0x8000u) << 16;
    bicl_u32 em = (bicl_u32)h & 0x7fffu;   /* exponent and significand */
    bicl_u32 r = (em << 13) + 0x38000000u; /* normal: rebias 15 -> 127 */
    /* One test for the rare cases (exponent 0 or all ones), so that the common path is
     * a few integer operations without a branch per case. */
    if (em - 0x0400u >= 0x7800u)
        r = em >= 0x7c00u ? bicl_f16_special_to_f32(em)
                          : bicl_f32_as_u32((float)em * 0x1p-24f); /* exact, a normal f32 */
    return bicl_u32_as_f32(sign | r);
}

BICL_FN float bicl_f16_to_f32_loose(bicl_u16 h)
{
    return bicl_f16_to_f32(h);
}

/* Narrowing to f16 with every case computed and one selected, no branch (PoCL
 * vectorises it; docs/performance.md). The f16 normal range [2^-14, 65520): rebias
 * 127 -> 15 and round (a carry into the exponent is the right encoding). Below 2^-14
 * (subnormals and zero): |x| + 0.5 rounds |x| to a multiple of 2^-24 once, ties to
 * even (0.5 is an even multiple), and the sum's low bits are that multiple (1024, the
 * smallest normal, is the right encoding); an f32 subnormal |x| rounds to zero there
 * whether or not the device flushes it. From 65520 (the tie goes to even): inf, and a
 * NaN quiet with the top 9 payload bits kept. */
BICL_FN bicl_u16 bicl_f32_to_f16(float x)
{
    bicl_u32 u = bicl_f32_as_u32(x);
    bicl_u32 sign = (u >> 16) & 0x8000u;
    bicl_u32 a = u & 0x7fffffffu;
    bicl_u32 n = a - 0x38000000u;
    bicl_u32 normal = (n + 0xfffu + ((n >> 13) & 1u)) >> 13;
    bicl_u32 small = bicl_f32_as_u32(bicl_u32_as_f32(a) + 0.5f) - 0x3f000000u;
    bicl_u32 big = a > 0x7f800000u ? bicl_f32_nan_to_f16(a) : 0x7c00u;
    bicl_u32 r = a < 0x38800000u ? small : normal;
    return (bicl_u16)(sign | (a >= 0x477ff000u ? big : r));
}

#endif

#endif /* BICL_CONVERT_H */
