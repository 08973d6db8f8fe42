/* bicl_math_f64.h - deterministic binary64 math shared by OpenCL kernels and the host.
 *
 * Written once in the common subset of C11 and OpenCL C 1.2 (see bicl_portable.h).
 * Only correctly rounded IEEE operations are used: + - * /, bicl_fma, bicl_sqrt,
 * bicl_rint, exact conversions, comparisons and integer/bit operations. No libm or
 * OpenCL built-in transcendental is called, so every device with cl_khr_fp64 and
 * the host compute the same bits.
 *
 * Contents
 *   bicl_dd               a double-double (hi + lo, |lo| <= ulp(hi)/2 when normalised)
 *   bicl_log_dd(x)        log(x) as a double-double, relative error < 2^-62
 *   bicl_exp_dd(a)        exp(a.hi + a.lo) rounded to double
 *   bicl_exp_d, bicl_log_d, bicl_pow_d   the double entry points (pow: positive base)
 *   bicl_sincos_dd(hi, lo, &s, &c)       sin and cos of the exact real hi + lo
 *   bicl_f64_to_f32_rte(x)               the one double -> float rounding (RTE)
 *
 * Accuracy (measured by tools/bicl_rope_accuracy.c against MPFR; the bounds below
 * are the analysis, the tool's table is the evidence):
 *   exp, log: about 0.5 ulp plus < 2^-8 ulp (faithful, nearly always correctly
 *   rounded); pow(x, y) adds |y log x| * 2^-62 relative from the log. Results in the
 *   subnormal range of exp/pow are rounded twice (may be 1 ulp off).
 *   sincos: relative error about 2^-52 (about 1 ulp of double) for every finite
 *   double-double whose distance to the nearest multiple of pi/2 is >= 2^-130; see
 *   bicl_sincos_dd for the argument.
 *
 * Wrapped in BICL_HAVE_FP64: the host always defines it (bicl_portable.h); the
 * library defines it for devices that report cl_khr_fp64. */
#ifndef BICL_MATH_F64_H
#define BICL_MATH_F64_H

#include "bicl_portable.h"

#ifdef BICL_HAVE_FP64

/* ------------------------------------------------------------ bridge macros */
#ifdef BICL_OPENCL
/* Explicit _rte so that the rounding does not depend on reading the spec's default
 * (which is also round-to-nearest-even, OpenCL C 1.2 sections 6.2.3.2 and 7.1). */
#define bicl_f64_to_f32_raw(x) convert_float_rte((double)(x))
#define bicl_i32_to_f32_rte(x) convert_float_rte((int)(x))
#else
/* C casts round in the current rounding mode; the host never leaves
 * FE_TONEAREST, so these are round-to-nearest-even too. */
#define bicl_f64_to_f32_raw(x) ((float)(double)(x))
#define bicl_i32_to_f32_rte(x) ((float)(bicl_i32)(x))
#endif

#define BICL_F64_ABS_MASK  0x7fffffffffffffffUL
#define BICL_F64_EXP_MASK  0x7ff0000000000000UL
#define BICL_F64_MANT_MASK 0x000fffffffffffffUL
/* The one NaN the f64 functions return when they make one (quiet, positive). */
#define BICL_F64_CANONICAL_NAN_BITS 0x7ff8000000000000UL
#define BICL_F64_INF_BITS           0x7ff0000000000000UL

/* -------------------------------------------------------------- bit helpers */
BICL_FN int bicl_f64_is_finite(double x)
{
    return (bicl_f64_as_u64(x) & BICL_F64_EXP_MASK) != BICL_F64_EXP_MASK;
}
BICL_FN int bicl_f64_is_nan(double x)
{
    return (bicl_f64_as_u64(x) & BICL_F64_ABS_MASK) > BICL_F64_INF_BITS;
}
BICL_FN double bicl_f64_abs(double x)
{
    return bicl_u64_as_f64(bicl_f64_as_u64(x) & BICL_F64_ABS_MASK);
}
BICL_FN double bicl_f64_canonical_nan(void)
{
    return bicl_u64_as_f64(BICL_F64_CANONICAL_NAN_BITS);
}
BICL_FN double bicl_f64_inf(void)
{
    return bicl_u64_as_f64(BICL_F64_INF_BITS);
}
/* 2^k for -1022 <= k <= 1023, built from bits (exact, no ldexp). */
BICL_FN double bicl_f64_pow2(bicl_i32 k)
{
    return bicl_u64_as_f64((bicl_u64)(bicl_i64)(k + 1023) << 52);
}
/* floor and ceil from rint: rint is exact and correctly rounded, and the
 * correction step is exact for every |x| < 2^52 (larger x are integers). */
BICL_FN double bicl_floor_d(double x)
{
    double t = bicl_rint(x);
    return t > x ? t - 1.0 : t;
}
BICL_FN double bicl_ceil_d(double x)
{
    double t = bicl_rint(x);
    return t < x ? t + 1.0 : t;
}

/* The one double -> float rounding used by every f64 path: round to nearest even,
 * and a NaN becomes the canonical f32 NaN (hardware differs in how it narrows a
 * NaN payload, so the bits are fixed here instead). */
BICL_FN float bicl_f64_to_f32_rte(double x)
{
    if (bicl_f64_is_nan(x)) {
        return bicl_f32_canonical_nan();
    }
    return bicl_f64_to_f32_raw(x);
}

/* ------------------------------------------------------------ double-double */
typedef struct {
    double hi;
    double lo;
} bicl_dd;

BICL_FN bicl_dd bicl_dd_make(double hi, double lo)
{
    bicl_dd r;
    r.hi = hi;
    r.lo = lo;
    return r;
}
/* a + b exactly as hi + lo (Knuth's TwoSum, no ordering needed). */
BICL_FN bicl_dd bicl_dd_two_sum(double a, double b)
{
    double s = a + b;
    double bb = s - a;
    double e = (a - (s - bb)) + (b - bb);
    return bicl_dd_make(s, e);
}
/* a + b exactly, valid when exponent(a) >= exponent(b) (Dekker's FastTwoSum). */
BICL_FN bicl_dd bicl_dd_fast_two_sum(double a, double b)
{
    double s = a + b;
    double e = b - (s - a);
    return bicl_dd_make(s, e);
}
/* a * b exactly as hi + lo (the fma gives the rounding error of the product). */
BICL_FN bicl_dd bicl_dd_two_prod(double a, double b)
{
    double p = a * b;
    return bicl_dd_make(p, bicl_fma(a, b, -p));
}
/* a + b, relative error about 2^-105 unless the sum cancels. */
BICL_FN bicl_dd bicl_dd_add(bicl_dd a, bicl_dd b)
{
    bicl_dd s = bicl_dd_two_sum(a.hi, b.hi);
    bicl_dd t = bicl_dd_two_sum(a.lo, b.lo);
    s.lo += t.hi;
    s = bicl_dd_fast_two_sum(s.hi, s.lo);
    s.lo += t.lo;
    return bicl_dd_fast_two_sum(s.hi, s.lo);
}
/* a * b, relative error about 2^-104. */
BICL_FN bicl_dd bicl_dd_mul(bicl_dd a, bicl_dd b)
{
    bicl_dd p = bicl_dd_two_prod(a.hi, b.hi);
    p.lo += a.hi * b.lo + a.lo * b.hi;
    return bicl_dd_fast_two_sum(p.hi, p.lo);
}
/* a * b for a double b. */
BICL_FN bicl_dd bicl_dd_mul_d(bicl_dd a, double b)
{
    bicl_dd p = bicl_dd_two_prod(a.hi, b);
    p.lo += a.lo * b;
    return bicl_dd_fast_two_sum(p.hi, p.lo);
}
/* a / b for a double b: one correction step from the exact residual
 * a.hi - q*b (representable because q is a correctly rounded quotient). */
BICL_FN bicl_dd bicl_dd_div_d(bicl_dd a, double b)
{
    double q = a.hi / b;
    double r = bicl_fma(-q, b, a.hi) + a.lo;
    return bicl_dd_fast_two_sum(q, r / b);
}
BICL_FN bicl_dd bicl_dd_neg(bicl_dd a)
{
    return bicl_dd_make(-a.hi, -a.lo);
}
BICL_FN bicl_dd bicl_dd_sub(bicl_dd a, bicl_dd b)
{
    return bicl_dd_add(a, bicl_dd_neg(b));
}
/* a / b: two quotient digits, each from the exact-enough remainder a - q*b. */
BICL_FN bicl_dd bicl_dd_div(bicl_dd a, bicl_dd b)
{
    double q1 = a.hi / b.hi;
    bicl_dd r = bicl_dd_sub(a, bicl_dd_mul_d(b, q1));
    double q2 = r.hi / b.hi;
    r = bicl_dd_sub(r, bicl_dd_mul_d(b, q2));
    double q3 = r.hi / b.hi;
    bicl_dd q = bicl_dd_fast_two_sum(q1, q2);
    return bicl_dd_add(q, bicl_dd_make(q3, 0.0));
}
/* sqrt(a) for a >= 0: one Newton step from the correctly rounded sqrt(a.hi), with
 * the residual a - s^2 taken exactly by fma. */
BICL_FN bicl_dd bicl_dd_sqrt(bicl_dd a)
{
    double s = bicl_sqrt(a.hi);
    if (s == 0.0) {
        return bicl_dd_make(s, 0.0);
    }
    double r = bicl_fma(-s, s, a.hi) + a.lo;
    return bicl_dd_fast_two_sum(s, r / (2.0 * s));
}
/* a < b for normalised double-doubles. */
BICL_FN int bicl_dd_lt(bicl_dd a, bicl_dd b)
{
    return a.hi < b.hi || (a.hi == b.hi && a.lo < b.lo);
}
BICL_FN int bicl_dd_eq(bicl_dd a, bicl_dd b)
{
    return a.hi == b.hi && a.lo == b.lo;
}
/* floor and ceil of a normalised double-double (|a| < 2^52). */
BICL_FN bicl_dd bicl_dd_floor(bicl_dd a)
{
    double f = bicl_floor_d(a.hi);
    if (f != a.hi) {
        return bicl_dd_make(f, 0.0);
    }
    return bicl_dd_fast_two_sum(f, bicl_floor_d(a.lo));
}
BICL_FN bicl_dd bicl_dd_ceil(bicl_dd a)
{
    double f = bicl_ceil_d(a.hi);
    if (f != a.hi) {
        return bicl_dd_make(f, 0.0);
    }
    return bicl_dd_fast_two_sum(f, bicl_ceil_d(a.lo));
}

/* ---------------------------------------------------------------- constants */
/* Hex literals of mpmath values at 2000 bits, each hi the nearest double and
 * each lo the nearest double to (value - hi):
 *   pi/2 = BICL_PIO2_HI + BICL_PIO2_LO    (error < 2^-107)
 *   ln 2 = BICL_LN2_HI + BICL_LN2_LO      (error < 2^-109) */
#define BICL_PIO2_HI 0x1.921fb54442d18p+0
#define BICL_PIO2_LO 0x1.1a62633145c07p-54
#define BICL_TWO_PI  0x1.921fb54442d18p+2 /* 2*pi rounded to double (= 2 * math.pi) */
/* 2 pi = 4 (BICL_PIO2_HI + BICL_PIO2_LO) exactly as a double-double */
#define BICL_TWO_PI_LO 0x1.1a62633145c07p-52
/* ln(2 pi) = BICL_LN_TWO_PI_HI + BICL_LN_TWO_PI_LO (error < 2^-107) */
#define BICL_LN_TWO_PI_HI 0x1.d67f1c864beb5p+0
#define BICL_LN_TWO_PI_LO -0x1.65b5a1b7ff5dfp-54
#define BICL_LN2_HI       0x1.62e42fefa39efp-1
#define BICL_LN2_LO       0x1.abc9e3b39803fp-56
#define BICL_INV_LN2      0x1.71547652b82fep+0
/* ln 2 split for exp's Cody-Waite step: BICL_LN2_CW_HI has 42 significant bits so
 * k * BICL_LN2_CW_HI is exact for |k| < 2^11; BICL_LN2_CW_LO = ln2 - CW_HI rounded. */
#define BICL_LN2_CW_HI 0x1.62e42fefa3800p-1
#define BICL_LN2_CW_LO 0x1.ef35793c7673p-45

/* ---------------------------------------------------------------------- log */
/* log(x) for finite x > 0 as a double-double.
 * x = 2^k m with m in [sqrt(1/2), sqrt(2)); f = (m-1)/(m+1) so |f| <= 0.1716 and
 * log m = 2 atanh f = 2f (1 + z/3 + z^2/5 + ... ), z = f^2 <= 0.02944.
 * f, z, z/3 and the products are double-double; the tail T = sum_{n>=2} z^n/(2n+1)
 * (<= 1.8e-4) is a double Horner polynomial up to z^12/25 (the first omitted term is
 * < 2^-71), so its rounding costs < 2^-64 relative. Coefficients 1/(2n+1) are the
 * doubles nearest to the exact rationals (mpmath). Then log x = k ln2 + log m with ln2
 * as a double-double; that sum cancels at most by a factor 2 (k = -1, m ~ sqrt 2).
 * Result: relative error < 2^-62. */
BICL_FN bicl_dd bicl_log_dd(double x)
{
    bicl_u64 bits = bicl_f64_as_u64(x);
    bicl_i32 k = 0;
    if ((bits & BICL_F64_EXP_MASK) == 0) {
        /* subnormal: scale into the normal range (exact) */
        x = x * 0x1p54;
        bits = bicl_f64_as_u64(x);
        k = -54;
    }
    k += (bicl_i32)((bits >> 52) & 0x7ff) - 1023;
    double m = bicl_u64_as_f64((bits & BICL_F64_MANT_MASK) | 0x3ff0000000000000UL);
    if (m > 0x1.6a09e667f3bcdp+0) {
        m = m * 0.5;
        k += 1;
    }
    /* f = (m - 1) / (m + 1): m - 1 is exact (Sterbenz), m + 1 is split exactly. */
    double num = m - 1.0;
    bicl_dd den = bicl_dd_fast_two_sum(1.0, m);
    double fh = num / den.hi;
    double fl = (bicl_fma(-fh, den.hi, num) - fh * den.lo) / den.hi;
    bicl_dd f = bicl_dd_fast_two_sum(fh, fl);
    bicl_dd z = bicl_dd_two_prod(f.hi, f.hi);
    z.lo += 2.0 * f.hi * f.lo;
    double zh = z.hi;
    double t = 0x1.47ae147ae147bp-5;           /* 1/25 */
    t = bicl_fma(t, zh, 0x1.642c8590b2164p-5); /* 1/23 */
    t = bicl_fma(t, zh, 0x1.8618618618618p-5); /* 1/21 */
    t = bicl_fma(t, zh, 0x1.af286bca1af28p-5); /* 1/19 */
    t = bicl_fma(t, zh, 0x1.e1e1e1e1e1e1ep-5); /* 1/17 */
    t = bicl_fma(t, zh, 0x1.1111111111111p-4); /* 1/15 */
    t = bicl_fma(t, zh, 0x1.3b13b13b13b14p-4); /* 1/13 */
    t = bicl_fma(t, zh, 0x1.745d1745d1746p-4); /* 1/11 */
    t = bicl_fma(t, zh, 0x1.c71c71c71c71cp-4); /* 1/9 */
    t = bicl_fma(t, zh, 0x1.2492492492492p-3); /* 1/7 */
    t = bicl_fma(t, zh, 0x1.999999999999ap-3); /* 1/5 */
    t = t * (zh * zh);
    bicl_dd z3 = bicl_dd_div_d(z, 3.0);
    bicl_dd s = bicl_dd_fast_two_sum(1.0, z3.hi);
    s.lo += z3.lo + t;
    s = bicl_dd_fast_two_sum(s.hi, s.lo);
    bicl_dd logm = bicl_dd_mul(f, s);
    logm.hi *= 2.0;
    logm.lo *= 2.0;
    if (k == 0) {
        return logm;
    }
    bicl_dd kln2 = bicl_dd_mul_d(bicl_dd_make(BICL_LN2_HI, BICL_LN2_LO), (double)k);
    return bicl_dd_add(kln2, logm);
}

/* log(a.hi + a.lo) for a > 0 (normalised): log(a.hi) + log(1 + a.lo/a.hi), the
 * second term to first order (its error (a.lo/a.hi)^2/2 < 2^-107). */
BICL_FN bicl_dd bicl_log_dd_dd(bicl_dd a)
{
    return bicl_dd_add(bicl_log_dd(a.hi), bicl_dd_make(a.lo / a.hi, 0.0));
}

/* ---------------------------------------------------------------------- exp */
/* exp(a.hi + a.lo) = y * 2^k with y a double-double in [0.70, 1.42] and relative
 * error < 2^-60, for |a.hi| <= 746 (callers handle the rest).
 * k = rint(a.hi / ln2), r = a - k ln2 with |r| <= 0.3466: k * CW_HI is exact and
 * a.hi - k*CW_HI is exact (Sterbenz); the CW_LO product and a.lo join in one small
 * correction (< 2^-32) that a TwoSum folds in, so |r.lo| <= ulp(r.hi).
 * exp(r) = 1 + r + r^2/2 + r^3 Q(r), Q(r) = sum_{n=3..15} r^(n-3)/n! (Taylor, the
 * first omitted term r^16/16! < 2^-68; coefficients are the doubles nearest to
 * 1/n!, from mpmath). 1 + r and r^2/2 are carried exactly; r^3 Q (< 0.007) and the
 * first-order r.lo term are doubles. */
BICL_FN bicl_dd bicl_exp_core(bicl_dd a, bicl_i32 *k_out)
{
    double x = a.hi;
    double kd = bicl_rint(x * BICL_INV_LN2);
    *k_out = (bicl_i32)kd;
    double t = x - kd * BICL_LN2_CW_HI;
    /* a.lo (up to 2^-45 for |a.hi| ~ 700) joins the small correction before the
     * TwoSum, so that |r.lo| <= ulp(r.hi) and the first-order r.lo term below holds */
    bicl_dd r = bicl_dd_two_sum(t, a.lo - kd * BICL_LN2_CW_LO);
    double rh = r.hi;
    double q = 0x1.ae7f3e733b81fp-41;           /* 1/15! */
    q = bicl_fma(q, rh, 0x1.93974a8c07c9dp-37); /* 1/14! */
    q = bicl_fma(q, rh, 0x1.6124613a86d09p-33); /* 1/13! */
    q = bicl_fma(q, rh, 0x1.1eed8eff8d898p-29); /* 1/12! */
    q = bicl_fma(q, rh, 0x1.ae64567f544e4p-26); /* 1/11! */
    q = bicl_fma(q, rh, 0x1.27e4fb7789f5cp-22); /* 1/10! */
    q = bicl_fma(q, rh, 0x1.71de3a556c734p-19); /* 1/9! */
    q = bicl_fma(q, rh, 0x1.a01a01a01a01ap-16); /* 1/8! */
    q = bicl_fma(q, rh, 0x1.a01a01a01a01ap-13); /* 1/7! */
    q = bicl_fma(q, rh, 0x1.6c16c16c16c17p-10); /* 1/6! */
    q = bicl_fma(q, rh, 0x1.1111111111111p-7);  /* 1/5! */
    q = bicl_fma(q, rh, 0x1.5555555555555p-5);  /* 1/4! */
    q = bicl_fma(q, rh, 0x1.5555555555555p-3);  /* 1/3! */
    bicl_dd h = bicl_dd_two_prod(rh, rh);
    h.hi *= 0.5;
    h.lo *= 0.5;
    bicl_dd s = bicl_dd_fast_two_sum(1.0, rh);
    bicl_dd u = bicl_dd_fast_two_sum(s.hi, h.hi);
    double small = ((rh * h.hi) * 2.0) * q + r.lo * (1.0 + rh);
    return bicl_dd_fast_two_sum(u.hi, u.lo + (s.lo + (h.lo + small)));
}

/* exp(a.hi + a.lo) rounded to double (a.lo may be 0): about 0.5 ulp + 2^-8 ulp.
 * Scaling by 2^k is exact for normal results; subnormal results are rounded a
 * second time. */
BICL_FN double bicl_exp_dd(bicl_dd a)
{
    double x = a.hi;
    if (bicl_f64_is_nan(x)) {
        return bicl_f64_canonical_nan();
    }
    if (x > 709.79) {
        return bicl_f64_inf(); /* also x = +inf */
    }
    if (x < -745.14) {
        return 0.0; /* also x = -inf */
    }
    bicl_i32 k;
    bicl_dd yd = bicl_exp_core(a, &k);
    double y = yd.hi + yd.lo;
    if (k > 1020) {
        return (y * bicl_f64_pow2(k - 60)) * 0x1p60;
    }
    if (k < -1020) {
        return (y * bicl_f64_pow2(k + 60)) * 0x1p-60;
    }
    return y * bicl_f64_pow2(k);
}

/* exp(a) as a double-double (relative error < 2^-60) for results in the normal
 * range (|a.hi| <= 707); elsewhere the double result with lo = 0. */
BICL_FN bicl_dd bicl_exp_dd_dd(bicl_dd a)
{
    if (!(bicl_f64_abs(a.hi) <= 707.0)) {
        return bicl_dd_make(bicl_exp_dd(a), 0.0);
    }
    bicl_i32 k;
    bicl_dd y = bicl_exp_core(a, &k);
    double sc = bicl_f64_pow2(k);
    return bicl_dd_make(y.hi * sc, y.lo * sc);
}

/* exp(x) rounded to double. */
BICL_FN double bicl_exp_d(double x)
{
    return bicl_exp_dd(bicl_dd_make(x, 0.0));
}

/* log(x) rounded to double: -inf at +-0, NaN (canonical) below 0 or at NaN, +inf at
 * +inf. */
BICL_FN double bicl_log_d(double x)
{
    if (bicl_f64_is_nan(x) || x < 0.0) {
        return bicl_f64_canonical_nan();
    }
    if (x == 0.0) {
        return -bicl_f64_inf();
    }
    if (!bicl_f64_is_finite(x)) {
        return x;
    }
    bicl_dd l = bicl_log_dd(x);
    return l.hi + l.lo;
}

/* exp(y * log(x)) for double-double y*log(x), used by pow and by callers that
 * need x^(a/b) without rounding the exponent a/b (see bicl_rope_math.h). */
BICL_FN double bicl_exp_mul_log(bicl_dd y, double x)
{
    bicl_dd l = bicl_log_dd(x);
    bicl_dd p = bicl_dd_mul(y, l);
    if (!bicl_f64_is_finite(p.hi)) {
        p.lo = 0.0;
    }
    return bicl_exp_dd(p);
}

/* x^y for a positive base (the only case bicl needs). x = 1 or y = 0 give 1 (also
 * for NaN y or x as in C pow); x < 0 gives the canonical NaN; x = 0 gives +0 for y >
 * 0 and +inf for y < 0; x = +inf gives +inf for y > 0 and +0 for y < 0. */
BICL_FN double bicl_pow_d(double x, double y)
{
    if (x == 1.0 || y == 0.0) {
        return 1.0;
    }
    if (bicl_f64_is_nan(x) || bicl_f64_is_nan(y) || x < 0.0) {
        return bicl_f64_canonical_nan();
    }
    if (x == 0.0 || !bicl_f64_is_finite(x)) {
        int big = x > 1.0;
        return (y > 0.0) == big ? bicl_f64_inf() : 0.0;
    }
    if (!bicl_f64_is_finite(y)) {
        int grow = (x > 1.0) == (y > 0.0);
        return grow ? bicl_f64_inf() : 0.0;
    }
    return bicl_exp_mul_log(bicl_dd_make(y, 0.0), x);
}

/* ----------------------------------------------------- sin/cos: reduction */
/* 2/pi = sum_{j>=1} BICL_2OPI[j-1] * 2^(-32 j): 39 digits = 1248 bits, enough for
 * every finite double (computed with mpmath at 2000 bits). */
#define BICL_2OPI_NDIG 39
BICL_TABLE bicl_u32 bicl_two_over_pi_digits[BICL_2OPI_NDIG] = {
    0xa2f9836eu, 0x4e441529u, 0xfc2757d1u, 0xf534ddc0u, 0xdb629599u, 0x3c439041u, 0xfe5163abu,
    0xdebbc561u, 0xb7246e3au, 0x424dd2e0u, 0x06492eeau, 0x09d1921cu, 0xfe1deb1cu, 0xb129a73eu,
    0xe88235f5u, 0x2ebb4484u, 0xe99c7026u, 0xb45f7e41u, 0x3991d639u, 0x835339f4u, 0x9c845f8bu,
    0xbdf9283bu, 0x1ff897ffu, 0xde05980fu, 0xef2f118bu, 0x5a0a6d1fu, 0x6d367ecfu, 0x27cb09b7u,
    0x4f463f66u, 0x9e5fea2du, 0x7527bac7u, 0xebe5f17bu, 0x3d0739f7u, 0x8a5292eau, 0x6bfb5fb1u,
    0x1f8d5d08u, 0x56033046u, 0xfc7b6babu, 0xf0cfbc20u};

/* Fixed-point accumulator of x * 2/pi modulo 2^32 (which is a multiple of 4, so the
 * quadrant is kept): digit 0 is the integer part, digits 1..6 the fraction, 32 bits
 * each, 192 fraction bits in all. Digits are held in 64-bit words between carries. */
#define BICL_RED_ND 7
#define BICL_M32    0xffffffffUL

/* Propagate carries so that every digit is < 2^32 (digit 0 wraps modulo 2^32). */
BICL_FN void bicl_red_normalize(bicl_u64 *d)
{
    for (int n = BICL_RED_ND - 1; n > 0; n--) {
        d[n - 1] += d[n] >> 32;
        d[n] &= BICL_M32;
    }
    d[0] &= BICL_M32;
}

/* d := -d modulo 2^(32*BICL_RED_ND) (two's complement over the digits). */
BICL_FN void bicl_red_negate(bicl_u64 *d)
{
    for (int n = 0; n < BICL_RED_ND; n++) {
        d[n] = ~d[n] & BICL_M32;
    }
    d[BICL_RED_ND - 1] += 1;
    bicl_red_normalize(d);
}

/* acc += x * 2/pi (mod 4, fixed point), for any finite double x.
 * x = m 2^e with m < 2^53. Write e = 32 q + t, 0 <= t < 32, and m 2^t as three
 * 32-bit digits d0 d1 d2. Then x*2/pi = sum_{i,j} d_i P_j 2^(32 (q + i - j)): every
 * 32x32-bit product is exact in 64 bits and lands at digit position k = q + i - j.
 * Products at k >= 1 are multiples of 2^32 and skipped (this is the Payne-Hanek
 * idea: a huge x never needs the leading bits of 2/pi). Products are added while
 * they reach digit 6: the part dropped below it is < 6.01 units of 2^-192, one-sided.
 * So the accumulated value is exact up to < 2^-189 per call.
 * The products kept are d_i P_(q+i+n) for n = 0 .. 7 (digits of 2/pi outside 1 .. 39
 * are 0): the ten digits P_q .. P_(q+9) are loaded first and every index below is a
 * constant, so a GPU keeps p[] in registers rather than in local memory, and a CPU's
 * vectoriser sees no loop of variable length. The sums are the same integers. */
BICL_FN void bicl_red_accumulate(double x, bicl_u64 *acc)
{
    bicl_u64 bits = bicl_f64_as_u64(x);
    bicl_i32 bexp = (bicl_i32)((bits >> 52) & 0x7ff);
    bicl_u64 m = bits & BICL_F64_MANT_MASK;
    bicl_i32 e = -1074;
    if (bexp != 0) {
        m |= (bicl_u64)1 << 52;
        e = bexp - 1075;
    }
    if (m == 0) {
        return;
    }
    /* floor division written for positive operands (e + 1088 >= 14) */
    bicl_i32 q = (e + 1088) / 32 - 34;
    bicl_i32 t = e - 32 * q;
    bicl_u64 a = (m & BICL_M32) << t;
    bicl_u64 b = (m >> 32) << t;
    bicl_u64 mid = (a >> 32) + (b & BICL_M32);
    bicl_u32 dig[3]; /* each < 2^32: b >> 32 < 2^21 and mid >> 32 <= 1 */
    dig[0] = (bicl_u32)(a & BICL_M32);
    dig[1] = (bicl_u32)(mid & BICL_M32);
    dig[2] = (bicl_u32)((b >> 32) + (mid >> 32));
    bicl_u32 pd[BICL_RED_ND + 3]; /* pd[c] = digit q + c of 2/pi, 0 outside 1 .. 39 */
    for (bicl_i32 c = 0; c < BICL_RED_ND + 3; c++) {
        bicl_i32 j = q + c;
        pd[c] = j >= 1 && j <= BICL_2OPI_NDIG ? bicl_two_over_pi_digits[j - 1] : 0u;
    }
    bicl_u64 p[BICL_RED_ND] = {0, 0, 0, 0, 0, 0, 0};
    for (bicl_i32 i = 0; i < 3; i++) {
        for (bicl_i32 n = 0; n <= BICL_RED_ND; n++) { /* lands at digit k = -n */
            bicl_u64 prod = (bicl_u64)dig[i] * pd[i + n];
            if (n < BICL_RED_ND) {
                p[n] += prod & BICL_M32;
            }
            if (n > 0) {
                p[n - 1] += prod >> 32;
            }
        }
    }
    bicl_red_normalize(p);
    if (x < 0.0) {
        bicl_red_negate(p);
    }
    for (int n = 0; n < BICL_RED_ND; n++) {
        acc[n] += p[n];
    }
    bicl_red_normalize(acc);
}

/* Reduced argument: x = r + quadrant * pi/2 (mod 2 pi), r a double-double. */
typedef struct {
    bicl_dd r;
    bicl_u32 quadrant;
} bicl_reduced;

/* Exact range reduction of the real hi + lo (any finite doubles).
 * Small arguments (|hi| < 0.78125 and |lo| < 2^-20) are already reduced. Otherwise
 * y = (hi + lo) * 2/pi is formed in the 192-bit fixed-point accumulator (both parts,
 * each with absolute error < 2^-189), rounded to the nearest integer n (the
 * quadrant n mod 4) and the signed fraction f = y - n in [-1/2, 1/2] is converted to a
 * double-double from its leading nonzero digit and up to three more (>= 97 bits
 * while |f| >= 2^-96; below that every digit down to 2^-192 is used) and multiplied
 * by pi/2 (double-double, relative 2^-104). So |r - r_true| <= 2^-96 |r| + 2^-188:
 * relative error <= 2^-96 whenever |r| >= 2^-92, and still <= 2^-58 at |r| = 2^-130. Doubles never
 * come closer than 2^-61 to a multiple of pi/2 (Muller, "Elementary Functions", worst case
 * 6381956970095103 * 2^797), and the products position * inv_freq used by RoPE have 84-bit
 * significands. */
BICL_FN bicl_reduced bicl_reduce_pio2_dd(double hi, double lo)
{
    bicl_reduced out;
    if (bicl_f64_abs(hi) < 0.78125 && bicl_f64_abs(lo) < 0x1p-20) {
        out.r = bicl_dd_two_sum(hi, lo);
        out.quadrant = 0;
        return out;
    }
    bicl_u64 acc[BICL_RED_ND] = {0, 0, 0, 0, 0, 0, 0};
    bicl_red_accumulate(hi, acc);
    if (lo != 0.0) {
        bicl_red_accumulate(lo, acc);
    }
    bicl_u64 up = acc[1] >> 31; /* fraction >= 1/2: round the quadrant up */
    out.quadrant = (bicl_u32)((acc[0] + up) & 3);
    acc[0] = 0;
    if (up != 0) {
        bicl_red_negate(acc); /* |f| = 1 - fraction */
    }
    /* z = the first nonzero fraction digit; w[0 ..] = acc[z ..], zeros past the end.
     * Shifted by a fixed number of steps so that no index depends on the data. */
    int z = 1;
    bicl_u64 w[BICL_RED_ND - 1];
    for (int n = 0; n < BICL_RED_ND - 1; n++) {
        w[n] = acc[n + 1];
    }
    for (int step = 0; step < BICL_RED_ND - 1; step++) {
        if (w[0] == 0) {
            for (int n = 0; n < BICL_RED_ND - 2; n++) {
                w[n] = w[n + 1];
            }
            w[BICL_RED_ND - 2] = 0;
            z++;
        }
    }
    if (z == BICL_RED_ND) {
        out.r = bicl_dd_make(0.0, 0.0);
        return out;
    }
    /* digits z..z+3 (missing ones are 0) as exact doubles, summed as a double-double:
     * a holds the leading nonzero digit, so a >= 2^-32z > b and the FastTwoSum is
     * exact; c + d < 2^-64 a only adds its own rounding (< 2^-117 a). */
    double sc = bicl_f64_pow2(-32 * z);
    double a = (double)w[0] * sc;
    double b = (double)w[1] * (sc * 0x1p-32);
    double c = (double)w[2] * (sc * 0x1p-64);
    double d = (double)w[3] * (sc * 0x1p-96);
    bicl_dd f = bicl_dd_fast_two_sum(a, b);
    f.lo += c + d;
    f = bicl_dd_fast_two_sum(f.hi, f.lo);
    bicl_dd r = bicl_dd_mul(f, bicl_dd_make(BICL_PIO2_HI, BICL_PIO2_LO));
    out.r = up != 0 ? bicl_dd_neg(r) : r;
    return out;
}

/* ------------------------------------------------- sin/cos: polynomials */
/* sin(r) for the double-double r, |r| <= pi/4 + 2^-60.
 * sin(rh + rl) = sin(rh) + rl cos(rh) + O(rl^2); cos(rh) ~ 1 - rh^2/2 is enough for
 * the rl term (|rl| <= 2^-53 |rh|). sin(rh) = rh + rh^3 P(rh^2), P the Taylor
 * polynomial with coefficients (-1)^n/(2n+3)! for r^3 .. r^17 (doubles nearest the
 * exact rationals, mpmath): the series alternates, so the truncation error is below
 * the first omitted term r^19/19! < 2^-63 |sin r|. Rounding: < 1 ulp of double. */
BICL_FN double bicl_sin_poly(bicl_dd r)
{
    double rh = r.hi;
    double z = rh * rh;
    double p = 0x1.952c77030ad4ap-49;           /* +1/17! */
    p = bicl_fma(p, z, -0x1.ae7f3e733b81fp-41); /* -1/15! */
    p = bicl_fma(p, z, 0x1.6124613a86d09p-33);  /* +1/13! */
    p = bicl_fma(p, z, -0x1.ae64567f544e4p-26); /* -1/11! */
    p = bicl_fma(p, z, 0x1.71de3a556c734p-19);  /* +1/9! */
    p = bicl_fma(p, z, -0x1.a01a01a01a01ap-13); /* -1/7! */
    p = bicl_fma(p, z, 0x1.1111111111111p-7);   /* +1/5! */
    p = bicl_fma(p, z, -0x1.5555555555555p-3);  /* -1/3! */
    return rh + ((rh * z) * p + r.lo * (1.0 - 0.5 * z));
}

/* cos(r) for |r| <= pi/4 + 2^-60. cos(rh + rl) = cos(rh) - rl sin(rh) ~ cos(rh) - rl
 * rh. cos(rh) = 1 - rh^2/2 + rh^4 P(rh^2), P the Taylor polynomial for r^4 .. r^18
 * (first omitted term r^20/20! < 2^-68). rh^2 is split exactly and 1 - rh^2/2 keeps
 * its rounding error ((1 - h) - w is exact), so the result is within about 0.5 ulp. */
BICL_FN double bicl_cos_poly(bicl_dd r)
{
    double rh = r.hi;
    bicl_dd z = bicl_dd_two_prod(rh, rh);
    double p = -0x1.6827863b97d97p-53;             /* -1/18! */
    p = bicl_fma(p, z.hi, 0x1.ae7f3e733b81fp-45);  /* +1/16! */
    p = bicl_fma(p, z.hi, -0x1.93974a8c07c9dp-37); /* -1/14! */
    p = bicl_fma(p, z.hi, 0x1.1eed8eff8d898p-29);  /* +1/12! */
    p = bicl_fma(p, z.hi, -0x1.27e4fb7789f5cp-22); /* -1/10! */
    p = bicl_fma(p, z.hi, 0x1.a01a01a01a01ap-16);  /* +1/8! */
    p = bicl_fma(p, z.hi, -0x1.6c16c16c16c17p-10); /* -1/6! */
    p = bicl_fma(p, z.hi, 0x1.5555555555555p-5);   /* +1/4! */
    double w = 0.5 * z.hi;
    double h = 1.0 - w;
    double tail = ((1.0 - h) - w) - 0.5 * z.lo;
    return h + (tail + ((z.hi * z.hi) * p - rh * r.lo));
}

/* sin and cos of the exact real hi + lo, for any finite doubles hi and lo (they need
 * not be a normalised double-double). A non-finite input gives the canonical NaN in
 * both outputs. Accuracy: see bicl_reduce_pio2_dd; for every argument whose distance
 * to the nearest multiple of pi/2 is >= 2^-130 (every double, every RoPE angle
 * position*inv_freq in practice) both results have relative error ~2^-52, about 1
 * ulp of double, i.e. ~2^-29 ulp of float. The result for -x mirrors the one for x
 * bit for bit (sin odd, cos even) because the reduction negates exactly; the only
 * exception would be a 192-bit fraction of exactly 1/2, which pi's irrationality
 * rules out short of a truncation accident. */
BICL_FN void bicl_sincos_dd(double hi, double lo, double *s, double *c)
{
    if (!bicl_f64_is_finite(hi) || !bicl_f64_is_finite(lo)) {
        *s = bicl_f64_canonical_nan();
        *c = bicl_f64_canonical_nan();
        return;
    }
    if (hi == 0.0 && lo == 0.0) {
        /* sin(+-0) = +-0 (the sign of hi), which the TwoSum below would lose */
        *s = hi;
        *c = 1.0;
        return;
    }
    bicl_reduced red = bicl_reduce_pio2_dd(hi, lo);
    double sr = bicl_sin_poly(red.r);
    double cr = bicl_cos_poly(red.r);
    switch (red.quadrant) {
    case 0:
        *s = sr;
        *c = cr;
        break;
    case 1:
        *s = cr;
        *c = -sr;
        break;
    case 2:
        *s = -sr;
        *c = -cr;
        break;
    default:
        *s = -cr;
        *c = sr;
        break;
    }
}

#endif /* BICL_HAVE_FP64 */
#endif /* BICL_MATH_F64_H */
