/* bicl_math_act_f32.h - the activations added through the registry (bicl_ops.def),
 * built from the primitives of bicl_math_f32.h under the same rules: the common subset
 * of C and OpenCL C, only correctly rounded IEEE operations (+ - * / fma, comparisons,
 * bit operations), no libm and no OpenCL built-in math; a NaN input is returned quieted
 * (payload and sign kept); a NaN made from non-NaN inputs is the canonical NaN.
 *
 * round(F) is F evaluated exactly and rounded once to f32, as in bicl_math_f32.h; the
 * bound of each function (its registry row, in f32 steps from the correctly rounded
 * value) is held by the harness's relation A against MPFR (harness/harness_ops.c).
 *
 *   bicl_relu6(x)            min(max(x, 0), 6): x > 0 ? min(x, 6) : +0. Exact.
 *   bicl_leaky_relu(x, s)    x > 0 ? x : round(x * s). One IEEE multiply: exact
 *                            rounding. leaky_relu(-0) = -0 for s >= 0 (torch's too).
 *   bicl_fatrelu(x, t)       x > t ? x : +0 (torch.nn.functional.threshold(x, t, 0),
 *                            MiniCPM's FATReLU). Exact.
 *   bicl_hardswish(x)        round(x * min(max(x + 3, 0), 6) / 6): x for x >= 3, -0 for
 *                            x <= -3 (and at -inf: the limit, where torch's x * 0 gives
 *                            NaN), else x (x + 3) / 6 from exact pairs.
 *   bicl_softplus(x)         round(log(1 + e^x)): x for x > 20 (torch's threshold: the
 *                            value rounds to x there anyway), e^x below -40, its series
 *                            in t = e^x below -8; between, log of the pair 1 + e^x (2
 *                            atanh of an exact-pair quotient).
 *                            softplus(-inf) = +0, softplus(+inf) = +inf.
 *   bicl_mish(x)             round(x tanh(softplus(x))), evaluated as x n / (n + 2) with
 *                            n = e^x (e^x + 2) (an identity: tanh(log(1 + e^x))); x for
 *                            x > 12 (+inf too), -0 for x < -120 (-inf too: the limit).
 *   bicl_xielu(x, ap, an, b, eps)  xIELU (Apertus; transformers' XIELUActivation) in the
 *                            order transformers writes it, every operation an f32
 *                            rounding:  x > 0: (ap * x) * x + b * x;
 *                            else (expm1(min(x, eps)) - x) * an + b * x.
 *                            ap, an are the effective alpha_p, alpha_n (after
 *                            softplus, and beta + softplus for an). A NaN from infinite
 *                            x (inf - inf) is the canonical NaN, as in torch. */
#ifndef BICL_MATH_ACT_F32_H
#define BICL_MATH_ACT_F32_H

#include "bicl_math_f32.h"

BICL_FN float bicl_relu6(float x)
{
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    return x > 0.0f ? (x < 6.0f ? x : 6.0f) : 0.0f;
}

BICL_FN float bicl_leaky_relu(float x, float slope)
{
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    if (x > 0.0f) {
        return x;
    }
    return bicl_f32_nan_fix2(x * slope, x, slope);
}

BICL_FN float bicl_fatrelu(float x, float threshold)
{
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    return x > threshold ? x : 0.0f;
}

BICL_FN float bicl_hardswish(float x)
{
    bicl_f32x2 t;
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    if (x >= 3.0f) { /* x * 6 / 6 */
        return x;
    }
    if (x <= -3.0f) { /* x * +0 with x < 0 */
        return -0.0f;
    }
    if (x == 0.0f) {
        return x;
    }
    if (bicl_f32_abs(x) < 0x1p-60f) { /* x/2 + x^2/6: a tie of x/2 goes up */
        return bicl_m_half_tie_up(x);
    }
    t = bicl_df_two_sum(x, 3.0f); /* x + 3, exact */
    t = bicl_df_mul_f(t, x);      /* x (x + 3), |value| < 18, >= 2^-61 */
    return bicl_df_round(bicl_df_div(t, bicl_df(6.0f, 0.0f)));
}

/* log(w) for a pair w = hi + lo, hi >= 1 normal, |lo| <= ulp(hi): w = 2^m f with f in
 * [sqrt(1/2), sqrt(2)); log f = 2 atanh(s), s = (f - 1) / (f + 1) as an exact-pair
 * quotient, |s| < 0.172, the series to s^15 (truncation < 2^-33 relative); about 2^-30
 * relative in all. */
BICL_FN bicl_f32x2 bicl_m_log_df(bicl_f32x2 w)
{
    bicl_u32 hb = bicl_f32_as_u32(w.hi);
    bicl_i32 m = (bicl_i32)((hb >> 23) & 0xffu) - 127;
    float f = bicl_u32_as_f32((hb & 0x007fffffu) | 0x3f800000u); /* [1, 2) */
    float lo;
    float s2;
    float poly;
    bicl_f32x2 num;
    bicl_f32x2 den;
    bicl_f32x2 sq;
    bicl_f32x2 ml;
    bicl_f32x2 r;
    if (f > BICL_M_SQRT2HI) {
        f = f * 0.5f;
        m = m + 1;
    }
    lo = w.lo * bicl_m_pow2i(-m);        /* exact: w.lo is far above the denormals */
    num = bicl_df_two_sum(f - 1.0f, lo); /* f - 1 exact (Sterbenz) */
    den = bicl_df_two_sum(f, 1.0f);
    den.lo = den.lo + lo;
    sq = bicl_df_div(num, den); /* s */
    s2 = sq.hi * sq.hi;
    poly = bicl_fmaf(s2, 1.0f / 15.0f, 1.0f / 13.0f);
    poly = bicl_fmaf(s2, poly, 1.0f / 11.0f);
    poly = bicl_fmaf(s2, poly, 1.0f / 9.0f);
    poly = bicl_fmaf(s2, poly, 1.0f / 7.0f);
    poly = bicl_fmaf(s2, poly, 1.0f / 5.0f);
    poly = bicl_fmaf(s2, poly, 1.0f / 3.0f);
    poly = poly * s2; /* atanh(s)/s - 1 */
    /* log w = m ln2 + 2 s (1 + poly); ln2 = 2 (LN2H_HI + LN2H_LO) */
    ml = bicl_df_mul_f(bicl_df(2.0f * BICL_M_LN2H_HI, 2.0f * BICL_M_LN2H_LO), (float)m);
    r = bicl_df_two_sum(ml.hi, 2.0f * sq.hi);
    r.lo = r.lo + (ml.lo + (2.0f * sq.lo + 2.0f * sq.hi * poly));
    return r;
}

BICL_FN float bicl_softplus(float x)
{
    bicl_f32x2e e;
    bicl_f32x2 w;
    float s;
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    if (x > 20.0f) { /* log(1 + e^x) - x < e^-20 < ulp(x)/2 */
        return x;
    }
    if (x < -150.0f) { /* e^x < 2^-216 (also -inf) */
        return 0.0f;
    }
    e = bicl_m_exp_df(x, 0.0f);
    if (x < -40.0f) { /* log(1 + t) = t (1 - t/2 ...), t = e^x < 2^-57 */
        return bicl_df_ldexp_round(bicl_df(e.hi, e.lo), e.k);
    }
    s = bicl_m_pow2i(e.k); /* -58 <= e.k <= 29 */
    if (x < -8.0f) {
        /* t = e^x < 2^-11.5: log(1 + t) = t - t^2/2 + t^3/3 - t^4/4 (next term below
         * 2^-46 t), the correction added to the pair's low part: forming 1 + t would
         * round t's low part away where the result is t itself. */
        float t = e.hi * s;
        float c = t * t * (-0.5f + t * (1.0f / 3.0f - t * 0.25f));
        return bicl_df_round(bicl_df_fast_two_sum(t, e.lo * s + c));
    }
    w = bicl_df_two_sum(1.0f, e.hi * s);
    w.lo = w.lo + e.lo * s;
    w = bicl_df_fast_two_sum(w.hi, w.lo);
    return bicl_df_round(bicl_m_log_df(w));
}

BICL_FN float bicl_mish(float x)
{
    bicl_f32x2e e;
    bicl_f32x2 t;
    float xs = x;
    bicl_i32 k = 0;
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    if (x == 0.0f) {
        return x;
    }
    if (x > 12.0f) { /* 1 - tanh(softplus(x)) = 2/(n + 2) < 2^-33 */
        return x;
    }
    if (x < -120.0f) { /* |x e^x| < 2^-160 */
        return -0.0f;
    }
    if (bicl_f32_abs(x) < 0x1p-60f) { /* keep the product x t out of the denormals */
        xs = x * 0x1p64f;
        k = -64;
    }
    e = bicl_m_exp_df(x, 0.0f); /* e^x = 2^e.k (hi + lo) */
    if (x < -40.0f) {
        /* t = n / (n + 2) = e^x (1 + O(e^x)), e^x < 2^-57: t is e^x to the pair's
         * accuracy, kept scaled (it may be below the float range). */
        t = bicl_df(e.hi, e.lo);
        k = k + e.k;
    } else {
        bicl_f32x2 ex;
        bicl_f32x2 n;
        bicl_f32x2 d;
        float s = bicl_m_pow2i(e.k); /* -58 <= e.k <= 18 */
        ex = bicl_df(e.hi * s, e.lo * s);
        n = bicl_df_two_sum(ex.hi, 2.0f); /* e^x + 2 */
        n.lo = n.lo + ex.lo;
        n = bicl_df_mul(ex, n); /* n = e^x (e^x + 2) */
        n = bicl_df_fast_two_sum(n.hi, n.lo);
        d = bicl_df_two_sum(n.hi, 2.0f); /* n + 2 */
        d.lo = d.lo + n.lo;
        t = bicl_df_div(n, d);
    }
    return bicl_df_ldexp_round(bicl_df_mul_f(t, xs), k);
}

BICL_FN float bicl_xielu(float x, float alpha_p, float alpha_n, float beta, float eps)
{
    float r;
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    if (x > 0.0f) {
        float q = alpha_p * x;
        r = q * x + beta * x;
    } else {
        float m = x < eps ? x : eps;
        float a = bicl_expm1f(m) - x;
        r = a * alpha_n + beta * x;
    }
    return bicl_f32_is_nan(r) ? bicl_f32_canonical_nan() : r;
}

#endif /* BICL_MATH_ACT_F32_H */
