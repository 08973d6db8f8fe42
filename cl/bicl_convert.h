/* bicl_convert.h - conversions between f32 and the 16-bit storage types.
 *
 * All conversions are integer bit work, so they cannot depend on a device's
 * rounding of half-precision hardware or on how it treats NaN bits.
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

BICL_FN float bicl_f16_to_f32(bicl_u16 h)
{
    bicl_u32 sign = ((bicl_u32)h & 0x8000u) << 16;
    bicl_u32 em = (bicl_u32)h & 0x7fffu; /* exponent and significand */
    bicl_u32 r = (em << 13) + 0x38000000u; /* normal: rebias 15 -> 127 */
    /* One test for the rare cases (exponent 0 or all ones), so that the common path is
     * a few integer operations without a branch per case. */
    if (em - 0x0400u >= 0x7800u)
        r = em >= 0x7c00u ? r + 0x38000000u /* inf, NaN: exponent all ones, payload up */
                          : bicl_f32_as_u32((float)em * 0x1p-24f); /* exact, a normal f32 */
    return bicl_u32_as_f32(sign | r);
}

/* Round the 24-bit significand `mant` right by `shift` bits (1..24), ties to
 * even. */
BICL_FN bicl_u32 bicl_shift_round_even(bicl_u32 mant, bicl_u32 shift)
{
    bicl_u32 kept = mant >> shift;
    bicl_u32 rest = mant & ((1u << shift) - 1u);
    bicl_u32 tie = 1u << (shift - 1u);
    if (rest > tie || (rest == tie && (kept & 1u)))
        kept += 1u;
    return kept;
}

/* The cases outside the f16 normal range (bicl_f32_to_f16): a = |x|'s bits. */
BICL_FN bicl_u32 bicl_f32_to_f16_rare(bicl_u32 a)
{
    if (a > 0x7f800000u) /* NaN: quiet, top 9 payload bits kept */
        return 0x7e00u | ((a >> 13) & 0x1ffu);
    if (a >= 0x477ff000u) /* >= 65520 rounds to inf (the tie goes to even) */
        return 0x7c00u;
    if (a <= 0x33000000u) /* <= 2^-25: rounds to zero (2^-25 is a tie to 0) */
        return 0u;
    /* f16 subnormal: value = m * 2^-24 with m = mant * 2^(exp - 126). A carry
     * into bit 10 yields the smallest normal, which is the right encoding. */
    bicl_u32 e = a >> 23;
    bicl_u32 mant = (a & 0x7fffffu) | 0x800000u;
    return bicl_shift_round_even(mant, 126u - e);
}

BICL_FN bicl_u16 bicl_f32_to_f16(float x)
{
    bicl_u32 u = bicl_f32_as_u32(x);
    bicl_u32 sign = (u >> 16) & 0x8000u;
    bicl_u32 a = u & 0x7fffffffu;
    /* f16 normal range [2^-14, 65520): rebias 127 -> 15 and round (a carry into the
     * exponent is the right encoding); one test sends the rest to the rare cases. */
    bicl_u32 n = a - 0x38000000u;
    bicl_u32 r = (n + 0xfffu + ((n >> 13) & 1u)) >> 13;
    if (a - 0x38800000u >= 0x477ff000u - 0x38800000u)
        r = bicl_f32_to_f16_rare(a);
    return (bicl_u16)(sign | r);
}

#endif /* BICL_CONVERT_H */
