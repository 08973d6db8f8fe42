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
 * of tools/bicl_accuracy.c compares the functions with MPFR on all 2^32 inputs,
 * and tools/bicl_math_identity.c --fallback runs this path on every input.
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

/* ---------------------------------------------------------- erf and erfc */
/* The accurate pieces of erf and gelu (erf) (bicl_math_f32.h, math version 5), for
 * z = |x| or |x| / sqrt2, z >= 0:
 * - z < 0.75: erf(z) = z S(z^2), S(u) = (2/sqrt(pi)) sum (-1)^n u^n / (n! (2n + 1)),
 *   an alternating series with decreasing terms (each at most 1/3 of the one
 *   before, as u < 0.5625), so every partial Horner value is positive.
 * - z >= 0.75: erfc(z) = e^(-z0^2) (R(z0) + (2/sqrt(pi)) h T), z0 = k/16 on a grid
 *   just above z (k = floor(16 z) + 1), h = z0 - z in (0, 1/16], R(z0) =
 *   e^(z0^2) erfc(z0) from a table (mpmath, 300 bits, rounded to 64 bits), and
 *   T = (1/h) int_0^h e^(2 z0 s - s^2) ds = sum_n b_n / (n + 1) with b_n =
 *   H_n(z0) h^n / n! (Hermite: e^(2 z0 s - s^2) = sum H_n(z0) s^n / n!), so
 *   b_0 = 1, b_1 = A, b_n = (A b_(n-1) - B b_(n-2)) / n, A = 2 z0 h <= 1.29,
 *   B = 2 h^2. Everything inside the bracket is positive (the integral of a
 *   positive function from z to z0 added to erfc(z0)): no cancellation, so erfc
 *   keeps its relative accuracy down to the smallest result (z = 10.25, erfc =
 *   e^-105). |b_n| < 1.29 and T < 2.04; the bracket lies in [0.05, 0.73].
 * The three paths of bicl_erff and bicl_gelu_erf evaluate these same formulas, each
 * in its own arithmetic. */
#define BICL_FX_ERF_K0 12 /* first k of the table: z0 = 12/16 (the grid uses k >= 13) */
BICL_TABLE bicl_u64 bicl_fx_erfcx_tab[154] = {
    0x81c6aa751ec19c28UL, 0x7c1c8ffd6b37e3a1UL, 0x76dd1fb9026b12aaUL, 0x71fe04e09c87bbfbUL,
    0x6d761e03e55ac861UL, 0x693d54317c6a6391UL, 0x654c7826c526d395UL, 0x619d248f181785c2UL,
    0x5e29a484e1d9e803UL, 0x5aecddaa4e433591UL, 0x57e23d4bcf1dab24UL, 0x5505a81658786fbaUL,
    0x52536bfe8ab5a13aUL, 0x4fc83405fcd4c0b5UL, 0x4d60fd9910c9ea77UL, 0x4b1b0f4ab18444e7UL,
    0x48f3f0bc771f809eUL, 0x46e963894636cbf6UL, 0x44f95d0ed81201caUL, 0x432200f7ea4ac96cUL,
    0x41619c6d4b1dd7b1UL, 0x3fb6a1d7b9259c30UL, 0x3e1fa51fb84156a3UL, 0x3c9b585b2b061c6fUL,
    0x3b2888dac4f26396UL, 0x39c61c8b56c928e2UL, 0x38730fa09a172f08UL, 0x372e728086a9d8b6UL,
    0x35f767e76e687598UL, 0x34cd233e21ab250cUL, 0x33aee71c3e9b6e3dUL, 0x329c03f18f0ce31eUL,
    0x3193d6d1fe4fad22UL, 0x3095c8603fc165f0UL, 0x2fa14bd3baae208fUL, 0x2eb5de16bb416b02UL,
    0x2dd304fa453a599cUL, 0x2cf84e7d35d5688dUL, 0x2c255024a8a37ab4UL, 0x2b59a663d044a8e6UL,
    0x2a94f411a97689f5UL, 0x29d6e1eb1da7d450UL, 0x291f1e205336e22cUL, 0x286d5bec0d6c6dacUL,
    0x27c153341dd227e7UL, 0x271ac0320447e7e2UL, 0x26796322f3afebfdUL, 0x25dcfffe869f73d5UL,
    0x25455e3382925f03UL, 0x24b2486a18ff5907UL, 0x24238c4b249c6719UL, 0x2398fa4bee66149aUL,
    0x2312657e11c2a885UL, 0x228fa36321948bdfUL, 0x22108bc3b963344dUL, 0x2194f889ae1340b7UL,
    0x211cc59d19135912UL, 0x20a7d0c3ff8655b4UL, 0x2035f9845ce37020UL, 0x1fc721085dd722bfUL,
    0x1f5b2a049cf4c581UL, 0x1ef1f8a0371196deUL, 0x1e8b725e90fb8d5bUL, 0x1e277e0aabb531abUL,
    0x1dc603a3e77e9ac5UL, 0x1d66ec4c18c3eedeUL, 0x1d0a2236d493e9ccUL, 0x1caf9099dc8c4670UL,
    0x1c57239e943d19deUL, 0x1c00c8546be509b9UL, 0x1bac6ca42e1bfb28UL, 0x1b59ff441f8cffe4UL,
    0x1b096face146fe33UL, 0x1abaae0f07717e23UL, 0x1a6dab49575b6d07UL, 0x1a2258dfa0e7710bUL,
    0x19d8a8f2284f2ba9UL, 0x19908e359616de9eUL, 0x1949fbeb63d7613dUL, 0x1904e5dabd3f11e6UL,
    0x18c14049cd551ddfUL, 0x187efff770a69a4cUL, 0x183e1a154593d59bUL, 0x17fe844214773967UL,
    0x17c0348489d72173UL, 0x178321463d42329cUL, 0x1747414effdadfccUL, 0x170c8bc06df3b96aUL,
    0x16d2f811bf739760UL, 0x169a7e0bd3074ed4UL, 0x166315c5706f0b3dUL, 0x162cb79fbe7818caUL,
    0x15f75c42e9717098UL, 0x15c2fc9af7221802UL, 0x158f91d4c57cc9b2UL, 0x155d155b317cc6fdUL,
    0x152b80d463c46f83UL, 0x14face1f40bfa108UL, 0x14caf750fa3230f6UL, 0x149bf6b2c03e4bd3UL,
    0x146dc6bf900f67ccUL, 0x144062221e74f3c4UL, 0x1413c3b2dcd434d6UL, 0x13e7e67616f30577UL,
    0x13bcc59a28358c29UL, 0x13925c75c6ffa944UL, 0x1368a68664ffedcdUL, 0x133f9f6ea33d8824UL,
    0x131742f4d8d4d2c1UL, 0x12ef8d01ab5f3010UL, 0x12c8799eb812b47dUL, 0x12a204f54cb4e33fUL,
    0x127c2b4d2f8987cdUL, 0x1256e90b75738fd7UL, 0x12323ab16589c93eUL, 0x120e1cdb696c9cf2UL,
    0x11ea8c4009b4593dUL, 0x11c785aef5d96952UL, 0x11a5061017010199UL, 0x11830a62ad215b1dUL,
    0x11618fbc75f8a019UL, 0x11409348dd59309eUL, 0x112012483654f2baUL, 0x11000a0efcd7fd00UL,
    0x10e078051f491d05UL, 0x10c159a54fcc8c17UL, 0x10a2ac7c5cca9a31UL, 0x10846e28906137a5UL,
    0x10669c59166c1735UL, 0x104934cd68d3a959UL, 0x102c3554c1d77354UL, 0x100f9bcd940c45eaUL,
    0x0ff3662507ca9c39UL, 0x0fd792567dccf75eUL, 0x0fbc1e6b16c162e9UL, 0x0fa108793f9473c5UL,
    0x0f864ea4423f0aacUL, 0x0f6bef1bdae2ef23UL, 0x0f51e81bd104fb3fUL, 0x0f3837eb94b60d74UL,
    0x0f1edcdddf7e4f0cUL, 0x0f05d55058e09570UL, 0x0eed1fab3e4dbcc5UL, 0x0ed4ba610e61d4bcUL,
    0x0ebca3ee3746d76eUL, 0x0ea4dad8c81a668dUL, 0x0e8d5db02535b779UL, 0x0e762b0cbf386b9eUL,
    0x0e5f418fccb891e1UL, 0x0e489fe3067b78b3UL, 0x0e3244b8661c4fe6UL, 0x0e1c2ec9e706def5UL,
    0x0e065cd949adc8c6UL, 0x0df0cdafd8e4fa40UL};

/* 2/sqrt(pi) 2^63 and 1/sqrt2 2^64, to nearest */
#define BICL_FX_ERF_C0 0x906eba8214db688dUL
#define BICL_FX_ISQ2   0xb504f333f9de6484UL

/* floor(v 2^s) for v = m 2^e < 2^(64 - s). */
BICL_FN bicl_u64 bicl_fx_to_fixed(bicl_fx v, bicl_i32 s)
{
    bicl_i32 sh = v.e + s;
    return sh >= 0 ? v.m << sh : (sh > -64 ? v.m >> (-sh) : 0UL);
}

/* erf(z) for z = m 2^e with 2^63 <= m (normalized), z < 0.7501: z S(z^2). u = z^2 at
 * 2^-64 (truncated); S at 2^-62 by Horner from n = 18 (c0 / (n! (2n + 1)) 2^62 to
 * nearest; the first omitted term is below 2^-68), p = a_n - u p, each step < 1 unit
 * of error; S >= 0.84 2^62, so the relative error is below 2^-59; z enters the
 * product with all of m's bits, so tiny z lose nothing. */
BICL_FN bicl_fx bicl_fx_erf_small(bicl_fx z)
{
    bicl_i32 sh = 2 * z.e + 128; /* u 2^64 = mulhi(m, m) 2^sh, sh <= 0 */
    bicl_u64 mm = bicl_fx_mulhi(z.m, z.m);
    bicl_u64 u = sh > -64 ? mm >> (-sh) : 0UL;
    bicl_u64 p = 0x16UL;
    bicl_fx out;
    p = 0x1a2UL - bicl_fx_mulhi(p, u);
    p = 0x1d71UL - bicl_fx_mulhi(p, u);
    p = 0x1f56fUL - bicl_fx_mulhi(p, u);
    p = 0x1f683bUL - bicl_fx_mulhi(p, u);
    p = 0x1d8453dUL - bicl_fx_mulhi(p, u);
    p = 0x19e6ad5eUL - bicl_fx_mulhi(p, u);
    p = 0x151d7181cUL - bicl_fx_mulhi(p, u);
    p = 0xfe62b9031UL - bicl_fx_mulhi(p, u);
    p = 0xafba17621fUL - bicl_fx_mulhi(p, u);
    p = 0x6e79b277194UL - bicl_fx_mulhi(p, u);
    p = 0x3e9a4b87c186UL - bicl_fx_mulhi(p, u);
    p = 0x1f9a326f9b89bUL - bicl_fx_mulhi(p, u);
    p = 0xe016da00205c3UL - bicl_fx_mulhi(p, u);
    p = 0x5596f3439a94fcUL - bicl_fx_mulhi(p, u);
    p = 0x1b82ce31288b50eUL - bicl_fx_mulhi(p, u);
    p = 0x738bc86810af86dUL - bicl_fx_mulhi(p, u);
    p = 0x1812746b0379e6c2UL - bicl_fx_mulhi(p, u);
    p = 0x48375d410a6db447UL - bicl_fx_mulhi(p, u);
    out.m = bicl_fx_mulhi(z.m, p);
    out.e = z.e + 2;
    return out;
}

/* m * |b| 2^-64 with b's sign, for an unsigned m and a signed b. */
BICL_FN bicl_i64 bicl_fx_smul(bicl_u64 m, bicl_i64 b)
{
    bicl_u64 p = bicl_fx_mulhi(m, (bicl_u64)(b < 0 ? -b : b));
    return b < 0 ? -(bicl_i64)p : (bicl_i64)p;
}

/* erfc(z) for z = p + rl 2^-66: a float p >= 0.75 (so k >= 13), and an integer rl
 * with |rl 2^-66| < ulp(p) (a sum of exact low parts), z <= 10.26; relative error
 * below 2^-59. z0 - p is an exact float (Sterbenz) and a multiple of 2^-25, and
 * z < z0 (z0 - p >= ulp(p) > |z - p|), so h 2^66 = (z0 - p) 2^66 - rl is exact and
 * positive, below 2^62 + 2^46. A 2^63 = k h 2^60 (exact floor), B 2^64 = 2 h^2 2^64
 * (two truncations), b_n at 2^-62 (signed; the truncations of the products and
 * of the division by n are each < 1 unit, and the division damps the earlier ones),
 * T at 2^-62 (b_n / (n + 1) truncated; the terms from n = 23 on are below 2^-66),
 * c0 h T at 2^-64, e^(-z0^2) from bicl_fx_exp_r (z0^2 = k^2/256 is an exact float,
 * 2^-60). */
BICL_FN bicl_fx bicl_fx_erfc(float p, bicl_i64 rl)
{
    float v = 16.0f * p;
    float kf = bicl_rintf(v);
    bicl_i32 k;
    bicl_u64 h;
    bicl_u64 a;
    bicl_u64 b2;
    bicl_u64 h67;
    bicl_i64 bp = (bicl_i64)0x4000000000000000UL; /* b_0 = 1 */
    bicl_i64 bc;
    bicl_u64 t;
    bicl_i64 n;
    bicl_fx e;
    bicl_fx out;
    kf = (kf > v ? kf - 1.0f : kf) + 1.0f; /* floor(16 p) + 1 */
    k = (bicl_i32)kf;
    h = (bicl_u64)((bicl_i64)bicl_fx_from_f32(kf * 0.0625f - p, 66) - rl);
    a = (bicl_u64)k * (h >> 6) + (((bicl_u64)k * (h & 0x3fUL)) >> 6);
    h67 = h << 1;
    b2 = bicl_fx_mulhi(h67, h67) >> 5;
    bc = (bicl_i64)(a >> 1); /* b_1 = A at 2^-62 */
    t = 0x4000000000000000UL + (bicl_u64)(bc / 2);
    for (n = 2; n <= 24; n++) {
        bicl_i64 bn = (bicl_fx_smul(a, bc) * 2 - bicl_fx_smul(b2, bp)) / n;
        bp = bc;
        bc = bn;
        t += (bicl_u64)(bn / (n + 1));
    }
    e = bicl_fx_exp_r(-(kf * kf) * 0x1p-8f, 0);
    out.m = bicl_fx_mulhi(e.m, bicl_fx_erfcx_tab[k - BICL_FX_ERF_K0] +
                                   bicl_fx_mulhi(bicl_fx_mulhi(BICL_FX_ERF_C0, h67), t));
    out.e = e.e;
    return out;
}

/* |x| / sqrt2 = p + rl 2^-66 for a float |x| <= 14.5: p = |x| s1 rounded and the
 * exact low parts of |x| (s1 + s2 + s3) (1/sqrt2 split into three floats, 72 bits:
 * s1 + s2 + s3 - 1/sqrt2 < 2^-78), each truncated at 2^-66; error below 2^-64. */
#define BICL_M_ISQ2_1 0x1.6a09e6p-1f
#define BICL_M_ISQ2_2 0x1.9fcef4p-27f
#define BICL_M_ISQ2_3 -0x1.b7ba68p-52f
BICL_FN bicl_i64 bicl_fx_div_sqrt2_low(float t, float p)
{
    float q = t * BICL_M_ISQ2_2;
    return (bicl_i64)(bicl_fx_i64_from_f32(bicl_fmaf(t, BICL_M_ISQ2_1, -p) * 0x1p2f) +
                      bicl_fx_i64_from_f32(q * 0x1p2f) +
                      bicl_fx_i64_from_f32(bicl_fmaf(t, BICL_M_ISQ2_2, -q) * 0x1p2f) +
                      bicl_fx_i64_from_f32(t * BICL_M_ISQ2_3 * 0x1p2f));
}

#endif /* BICL_MATH_FX_H */
