/* bicl_math_fx.h - the accurate path of bicl's correctly rounded f32 functions, in
 * 64-bit integer fixed point.
 *
 * Every correctly rounded function of bicl_math_f32.h first evaluates cheaply (in
 * double where the device has fp64, in float pairs where it has not), with an error
 * bound, and rounds only when the whole error interval rounds to one float (Ziv's
 * strategy). The few inputs whose value lies too close to a rounding boundary come
 * here. This path uses integers only (+ - * >> and comparisons on 64-bit unsigned
 * words, exact everywhere), so it gives the same bits on every device, with or
 * without fp64, and on the host; its relative error is below 2^-59 (argued at each
 * step), far below what the fast paths leave undecided (2^-46 and 2^-27). That it
 * decides every f32 input correctly is not left to the argument: the exhaustive run
 * of src/tools/bicl_accuracy.c compares the functions with MPFR on all 2^32 inputs,
 * and src/tools/bicl_math_identity.c --fallback runs this path on every input.
 *
 * A value is an unsigned mantissa and a power of two: m * 2^e (bicl_fx). Only the
 * final rounding (bicl_fx_round) turns it into a float, once, on the f32 grid of
 * normals and denormals. */
#ifndef BICL_MATH_FX_H
#define BICL_MATH_FX_H

#include "bicl_portable.h"

typedef struct {
    bicl_u64 m;
    bicl_i32 e;
} bicl_fx;

#define BICL_FX_M32 0xffffffffUL

/* floor(a * b / 2^64): the high word of the exact 128-bit product. */
BICL_FN bicl_u64 bicl_fx_mulhi(bicl_u64 a, bicl_u64 b)
{
    bicl_u64 a0 = a & BICL_FX_M32;
    bicl_u64 a1 = a >> 32;
    bicl_u64 b0 = b & BICL_FX_M32;
    bicl_u64 b1 = b >> 32;
    bicl_u64 p01 = a0 * b1;
    bicl_u64 p10 = a1 * b0;
    bicl_u64 mid = ((a0 * b0) >> 32) + (p01 & BICL_FX_M32) + (p10 & BICL_FX_M32);
    return a1 * b1 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
}

/* floor(|f| 2^s) for a finite float with |f| 2^s < 2^63 (truncated below 1). */
BICL_FN bicl_u64 bicl_fx_from_f32(float f, bicl_i32 s)
{
    bicl_u32 b = bicl_f32_as_u32(f) & 0x7fffffffu;
    bicl_i32 be = (bicl_i32)(b >> 23);
    bicl_u64 m = (bicl_u64)(b & 0x7fffffu);
    bicl_i32 sh;
    if (be != 0) {
        m |= 0x800000UL;
    } else {
        be = 1;
    }
    sh = be - 150 + s; /* |f| = m 2^(be - 150) */
    if (sh >= 0) {
        return m << sh;
    }
    return sh > -64 ? m >> (-sh) : 0UL;
}

/* m 2^e with the leading bit of m at bit 63 (m != 0). */
BICL_FN bicl_fx bicl_fx_norm(bicl_fx v)
{
    if ((v.m >> 32) == 0UL) {
        v.m <<= 32;
        v.e -= 32;
    }
    if ((v.m >> 48) == 0UL) {
        v.m <<= 16;
        v.e -= 16;
    }
    if ((v.m >> 56) == 0UL) {
        v.m <<= 8;
        v.e -= 8;
    }
    if ((v.m >> 60) == 0UL) {
        v.m <<= 4;
        v.e -= 4;
    }
    if ((v.m >> 62) == 0UL) {
        v.m <<= 2;
        v.e -= 2;
    }
    if ((v.m >> 63) == 0UL) {
        v.m <<= 1;
        v.e -= 1;
    }
    return v;
}

/* The float nearest to (-1)^neg m 2^e (ties to even; m taken as exact), m != 0:
 * a normal, a denormal (rounded once on the 2^-149 grid), +-0 or +-inf. */
BICL_FN float bicl_fx_round(bicl_fx v, int neg)
{
    bicl_u32 sign = neg ? 0x80000000u : 0u;
    bicl_i32 fe;
    bicl_i32 sh;
    bicl_u64 q;
    bicl_u64 rem;
    bicl_u64 hb;
    v = bicl_fx_norm(v);
    fe = v.e + 63; /* value in [2^fe, 2^(fe+1)) */
    if (fe > 127) {
        return bicl_u32_as_f32(sign | 0x7f800000u);
    }
    sh = fe >= -126 ? 40 : 40 + (-126 - fe); /* bits below the last kept one */
    if (sh > 64) {
        return bicl_u32_as_f32(sign); /* below 2^-150: rounds to zero */
    }
    q = sh == 64 ? 0UL : v.m >> sh;
    rem = sh == 64 ? v.m : v.m & ((1UL << sh) - 1UL);
    hb = 1UL << (sh - 1);
    if (rem > hb || (rem == hb && (q & 1UL) != 0UL)) {
        q += 1UL;
    }
    if (fe < -126) {
        return bicl_u32_as_f32(sign | (bicl_u32)q); /* q <= 2^23: denormal or 2^-126 */
    }
    /* q in [2^23, 2^24]: q = 2^24 carries into the exponent (up to inf) */
    return bicl_u32_as_f32(sign | (((bicl_u32)(fe + 126) << 23) + (bicl_u32)q));
}

/* ------------------------------------------------------------------- exp */
/* Horner's steps of sum r^n/(n+1)! 2^63 from n = 14 down to n = 0, for r = ru 2^-64
 * < 0.75 and p the sum from n = 14 up (2^63/15! plus the higher terms): 2^63/(n+1)!
 * to nearest plus the truncated product, each step < 1 unit of error. exp's
 * polynomial (from 2^63/15!) and expm1's (from 2^63/19!) share them. */
BICL_FN bicl_u64 bicl_fx_horner_15(bicl_u64 p, bicl_u64 ru)
{
    p = 0x64e5d2aUL + bicl_fx_mulhi(p, ru);
    p = 0x5849184fUL + bicl_fx_mulhi(p, ru);
    p = 0x47bb63bfeUL + bicl_fx_mulhi(p, ru);
    p = 0x35cc8acfebUL + bicl_fx_mulhi(p, ru);
    p = 0x24fc9f6ef14UL + bicl_fx_mulhi(p, ru);
    p = 0x171de3a556c7UL + bicl_fx_mulhi(p, ru);
    p = 0xd00d00d00d01UL + bicl_fx_mulhi(p, ru);
    p = 0x6806806806807UL + bicl_fx_mulhi(p, ru);
    p = 0x2d82d82d82d82eUL + bicl_fx_mulhi(p, ru);
    p = 0x111111111111111UL + bicl_fx_mulhi(p, ru);
    p = 0x555555555555555UL + bicl_fx_mulhi(p, ru);
    p = 0x1555555555555555UL + bicl_fx_mulhi(p, ru);
    p = 0x4000000000000000UL + bicl_fx_mulhi(p, ru);
    return 0x8000000000000000UL + bicl_fx_mulhi(p, ru);
}

/* exp(x) for a float x with -300 <= x <= 300, as m 2^e with relative error below
 * 2^-60.
 * x = k ln2/2 + r with 0 <= r < ln2/2 (+ a hair): k from the float estimate of
 * x 2/ln2, corrected by one step when r comes out negative. r is formed in fixed
 * point at 2^-64: r1 = x - k HI exactly in float (HI has 21 bits and |k| < 2^10,
 * the fma's difference is a multiple of 2^-26 below 0.25), and k (ln2/2 - HI)
 * from the 63-bit constant L = |ln2/2 - HI| 2^92 (error |k| 2^-92 from L and one
 * unit of 2^-64 from the truncations). exp(r) = sum r^n/n! for n = 0..15 by Horner
 * at 2^-63 (coefficients 2^63/n! to nearest, mpmath; the first omitted term is
 * r^16/16! < 2^-68; each Horner step truncates by < 1 unit, and r < 0.35 damps the
 * earlier ones, so < 3 units of 2^-63 in all on a value >= 1). An odd k multiplies
 * by sqrt2 (63 bits, one more truncation). */
#define BICL_FX_LN2H_HI 0x1.62e43p-2f
#define BICL_FX_LN2H_L  0x41718432a1b0e263UL /* |ln2/2 - HI| 2^92 */
#define BICL_FX_LN2H    0x58b90bfbe8e7bcd6UL /* ln2/2 2^64 */
#define BICL_FX_SQRT2   0xb504f333f9de6484UL /* sqrt2 2^63 */

/* f 2^64 truncated towards zero, signed, for a float |f| < 2^-1. */
BICL_FN bicl_i64 bicl_fx_i64_from_f32(float f)
{
    bicl_u64 u = bicl_fx_from_f32(f, 64);
    return f < 0.0f ? -(bicl_i64)u : (bicl_i64)u;
}

/* exp(zh + zl 2^-64) for a float zh, |zh| <= 300, and an integer zl with
 * |zl 2^-64| <= 2^-14 (a float pair's low part, or a sum of several, in fixed
 * point): zl joins r. */
BICL_FN bicl_fx bicl_fx_exp_r(float zh, bicl_i64 zl)
{
    float kf = bicl_rintf(zh * 0x1.715476p+1f);
    float r1 = bicl_fmaf(-kf, BICL_FX_LN2H_HI, zh); /* exact */
    bicl_u64 r1x = bicl_fx_from_f32(r1, 64);
    bicl_i32 k = (bicl_i32)kf;
    bicl_u32 ak = (bicl_u32)(k < 0 ? -k : k);
    /* |k| L 2^-28 = |k (ln2/2 - HI)| 2^64, split so that no product overflows */
    bicl_u64 kl = (BICL_FX_LN2H_L >> 28) * ak + (((BICL_FX_LN2H_L & 0xfffffffUL) * ak) >> 28);
    bicl_i64 r =
        (r1 < 0.0f ? -(bicl_i64)r1x : (bicl_i64)r1x) + (k < 0 ? -(bicl_i64)kl : (bicl_i64)kl) + zl;
    bicl_u64 p;
    bicl_u64 ru;
    bicl_i32 j;
    bicl_fx out;
    if (r < 0) { /* the float estimate of k was one too large */
        r += (bicl_i64)BICL_FX_LN2H;
        k -= 1;
    }
    ru = (bicl_u64)r;
    p = bicl_fx_horner_15(0x6b9fd0UL, ru);           /* from 2^63/15! */
    p = 0x8000000000000000UL + bicl_fx_mulhi(p, ru); /* exp(r) 2^63, below 2^63 sqrt2 */
    j = (bicl_i32)((bicl_u32)k & 1u);
    out.m = p;
    out.e = (k - j) / 2 - 63; /* k - j is even: the division is exact */
    if (j != 0) {
        out.m = bicl_fx_mulhi(p, BICL_FX_SQRT2); /* exp(r) sqrt2 2^62 */
        out.e += 1;
    }
    return out;
}

/* exp(zh + zl) for a float pair, |zh| <= 300, |zl| <= ulp(zh) (zl = 0 for a float):
 * zl joins r in fixed point (truncated at 2^-64, one more unit). */
BICL_FN bicl_fx bicl_fx_exp_df(float zh, float zl)
{
    return bicl_fx_exp_r(zh, bicl_fx_i64_from_f32(zl));
}

BICL_FN bicl_fx bicl_fx_exp(float x)
{
    return bicl_fx_exp_df(x, 0.0f);
}

/* ------------------------------------------------------------- sigmoid */
/* floor(2^125 / d) for 2^62 <= d <= 2^63: 1/(d 2^-62) at 2^-63, by restoring
 * division (exact; 63 quotient bits). */
BICL_FN bicl_u64 bicl_fx_recip(bicl_u64 d)
{
    bicl_u64 rem = 0x4000000000000000UL;
    bicl_u64 q = 0UL;
    int i;
    if (d == rem) {
        return 0x8000000000000000UL;
    }
    for (i = 0; i < 63; i++) {
        rem <<= 1;
        q <<= 1;
        if (rem >= d) {
            rem -= d;
            q |= 1UL;
        }
    }
    return q;
}

/* sigmoid(x + xl 2^-64) = 1 / (1 + e^-x) for a float x, |x| <= 300, and an
 * integer xl as for bicl_fx_exp_r, relative error below 2^-59: e = exp(-|x|) <= 1,
 * d = 1 + e at 2^-62 (one truncation), q = 1/d at 2^-63 (truncated); x >= 0 gives
 * q, x < 0 gives e q (one more truncation of a product of two 60-bit words). */
BICL_FN bicl_fx bicl_fx_sigmoid_r(float x, bicl_i64 xl)
{
    bicl_fx e = x >= 0.0f ? bicl_fx_exp_r(-x, -xl) : bicl_fx_exp_r(x, xl);
    bicl_i32 sh = e.e + 62;
    bicl_u64 add = sh >= 0 ? e.m << sh : (sh > -64 ? e.m >> (-sh) : 0UL);
    bicl_u64 q = bicl_fx_recip(0x4000000000000000UL + add);
    bicl_fx out;
    if (x >= 0.0f) {
        out.m = q;
        out.e = -63;
    } else {
        out.m = bicl_fx_mulhi(e.m, q);
        out.e = e.e + 1;
    }
    return out;
}

/* sigmoid(x + xl) for a float pair, |x| <= 300, |xl| <= ulp(x). */
BICL_FN bicl_fx bicl_fx_sigmoid_df(float x, float xl)
{
    return bicl_fx_sigmoid_r(x, bicl_fx_i64_from_f32(xl));
}

BICL_FN bicl_fx bicl_fx_sigmoid(float x)
{
    return bicl_fx_sigmoid_df(x, 0.0f);
}

/* ------------------------------------------------------------------ tanh */
/* P(t) 2^63 = sum t^n/(n+1)! 2^63 for n = 0..18 (expm1(t) = t P(t)), t = ru 2^-64 <
 * 0.75, by Horner (coefficients 2^63/(n+1)! to nearest; the first omitted term is
 * below 2^-69; each step truncates by < 1 unit). P < 1.49. */
BICL_FN bicl_u64 bicl_fx_expm1_p(bicl_u64 ru)
{
    bicl_u64 p = 0x4cUL; /* 2^63/19! */
    p = 0x5a1UL + bicl_fx_mulhi(p, ru);
    p = 0x654bUL + bicl_fx_mulhi(p, ru);
    p = 0x6b9fdUL + bicl_fx_mulhi(p, ru);
    return bicl_fx_horner_15(0x6b9fd0UL + bicl_fx_mulhi(p, ru), ru);
}

/* tanh(y) for y = m 2^(eh - 62) > 0 given in fixed point, 2^62 <= m < 2^63 (62 bits
 * after the leading one), 2^-60 <= y < 9.2, relative error below 2^-59 plus that of m:
 * - t = 2y < 0.75: tanh = E / (2 + E), E = expm1(t) = t P(t), P(t) = sum t^n/(n+1)!
 *   for n = 0..18 by Horner at 2^-63 (coefficients 2^63/(n+1)! to nearest; the
 *   first omitted term is below 2^-69; t enters P truncated at 2^-64, P >= 1) and
 *   t itself enters the product with all of m's bits, so tiny arguments lose
 *   nothing. 1/(1 + E/2) by the exact restoring division.
 * - t >= 0.75: tanh = (1 - e) / (1 + e), e = exp(-t) <= 0.473 (bicl_fx_exp_r with
 *   -2y as the float of m's leading 24 bits plus the rest at 2^-64, exact),
 *   relative error 2^-60: 1 - e >= 0.527 keeps the subtraction's error below
 *   2^-60 relative. */
BICL_FN bicl_fx bicl_fx_tanh_y(bicl_u64 y, bicl_i32 eh)
{
    bicl_fx out;
    bicl_u64 q;
    if (eh < -2 || (eh == -2 && y < 0x6000000000000000UL)) { /* y < 0.375 */
        bicl_u64 ru;
        bicl_u64 p;
        bicl_u64 em;
        bicl_i32 sh = eh + 3; /* t 2^64 = y 2^(eh + 3), eh <= -2 */
        ru = sh >= 0 ? y << sh : (sh > -64 ? y >> (-sh) : 0UL);
        p = bicl_fx_expm1_p(ru); /* P 2^63, below 1.49 2^63 */
        /* E = t P = em 2^(eh - 61), em >= 2^62; E 2^61 = em 2^eh added to 2^62 */
        em = bicl_fx_mulhi(y << 1, p);
        q = bicl_fx_recip(0x4000000000000000UL + (em >> (-eh)));
        out.m = bicl_fx_mulhi(em, q); /* E/2 / (1 + E/2) */
        out.e = eh - 61;
        return out;
    }
    {
        /* -2y = -2 (yh + yr): yh = m's leading 24 bits as a float (exact), yr = the
         * rest, below 2^39 units of 2^(eh - 62), at 2^-64: shifted by eh + 3 in [1, 6] */
        float yh =
            bicl_u32_as_f32(((bicl_u32)(eh + 127) << 23) | ((bicl_u32)(y >> 39) & 0x7fffffu));
        bicl_u64 yr = y & 0x7fffffffffUL;
        bicl_fx e = bicl_fx_exp_r(-2.0f * yh, -(bicl_i64)(yr << (eh + 3)));
        bicl_i32 sh = e.e + 63;
        bicl_u64 ex = sh >= 0 ? e.m << sh : (sh > -64 ? e.m >> (-sh) : 0UL); /* e 2^63 */
        q = bicl_fx_recip(0x4000000000000000UL + (ex >> 1));                 /* 1/(1 + e) */
        out.m = bicl_fx_mulhi(0x8000000000000000UL - ex, q);
        out.e = -62;
        return out;
    }
}

/* ----------------------------------------------------------------- expm1 */
/* |expm1(x)| for a float x with 2^-25 <= |x|, -18 <= x <= 89, relative error
 * below 2^-59:
 * - |x| < 0.6875 (below ln2): E = expm1(|x|) = |x| P(|x|) (bicl_fx_expm1_p, |x|
 *   exact in the product); x < 0 gives E / (1 + E) (e^-a - 1 = -E/(1 + E), no
 *   cancellation; 1 + E < 2, the exact restoring division).
 * - x >= 0.6875: e^x - 1 with e^x >= 1.98 from bicl_fx_exp (2^-60): the
 *   subtraction at most doubles the relative error; x <= -0.6875: 1 - e^x with
 *   e^x <= 0.503, the subtraction at 2^-63 at most doubles it. */
BICL_FN bicl_fx bicl_fx_expm1_abs(float x)
{
    bicl_fx out;
    bicl_u32 b = bicl_f32_as_u32(x) & 0x7fffffffu;
    if (b < 0x3f300000u) {                       /* |x| < 0.6875: normal, as |x| >= 2^-25 */
        bicl_i32 et = (bicl_i32)(b >> 23) - 127; /* |x| = t 2^(et - 63), et <= -1 */
        bicl_u64 t = ((bicl_u64)(b & 0x7fffffu) | 0x800000UL) << 40;
        bicl_i32 sh = -(et + 1); /* |x| 2^64 = t 2^(et + 1) */
        bicl_u64 em = bicl_fx_mulhi(t, bicl_fx_expm1_p(sh < 64 ? t >> sh : 0UL));
        /* E = em 2^(et - 62), em >= 2^62 */
        if (x > 0.0f) {
            out.m = em;
            out.e = et - 62;
            return out;
        }
        /* 1 + E at 2^-62: E 2^62 = em 2^et */
        out.m = bicl_fx_mulhi(em, bicl_fx_recip(0x4000000000000000UL + (em >> (-et))));
        out.e = et - 61;
        return out;
    }
    {
        bicl_fx e = bicl_fx_exp(x);
        bicl_i32 sh = e.e + 63;
        if (x > 0.0f) {
            /* e >= 1.98 and e.m < 2^64: e.e >= -63; 1 = 2^(-e.e) units */
            out.m = e.e <= 0 ? e.m - (1UL << (-e.e)) : e.m;
            out.e = e.e;
            return out;
        }
        out.m = 0x8000000000000000UL - (sh >= 0 ? e.m << sh : (sh > -64 ? e.m >> (-sh) : 0UL));
        out.e = -63;
        return out;
    }
}

/* |f| as m 2^e with the leading bit of m at bit 63, for a finite nonzero float
 * (denormals too). Exact. */
BICL_FN bicl_fx bicl_fx_of_f32(float f)
{
    bicl_u32 b = bicl_f32_as_u32(f) & 0x7fffffffu;
    bicl_i32 be = (bicl_i32)(b >> 23);
    bicl_fx v;
    v.m = (bicl_u64)(b & 0x7fffffu);
    if (be != 0) {
        v.m |= 0x800000UL;
    } else {
        be = 1;
    }
    v.e = be - 150;
    return bicl_fx_norm(v);
}

/* y * v for a finite nonzero float y: v's mantissa times y's 24-bit one, the low
 * 24 bits of the 88-bit product dropped (v.m >= 2^59 keeps >= 58 bits). */
BICL_FN bicl_fx bicl_fx_mul_f32(bicl_fx v, float y)
{
    bicl_u32 b = bicl_f32_as_u32(y) & 0x7fffffffu;
    bicl_i32 be = (bicl_i32)(b >> 23);
    bicl_u64 my = (bicl_u64)(b & 0x7fffffu);
    if (be != 0) {
        my |= 0x800000UL;
    } else {
        be = 1;
    }
    v = bicl_fx_norm(v);
    v.m = bicl_fx_mulhi(v.m, my << 40);
    v.e = v.e + be - 150 + 24;
    return v;
}

#endif /* BICL_MATH_FX_H */
