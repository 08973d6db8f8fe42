/* bicl_math_f32.h - deterministic float32 math, shared by the OpenCL kernels
 * and the host reference (design rule 1: one source for the math).
 *
 * Written in the common subset of C11 and OpenCL C 1.2. Only correctly rounded
 * IEEE operations are used: + - * / on float, bicl_fmaf, bicl_rintf, exact
 * int <-> float conversions, comparisons and bit operations; double (same
 * operations) only under BICL_HAVE_FP64, and 64-bit integer fixed point
 * (bicl_math_fx.h). No libm, no OpenCL built-in math. The same source
 * therefore gives the same bits on every conforming device and on the host.
 *
 * Correctly rounded (math version 5, bicl_math_version.h): bicl_expf,
 * bicl_expm1f, bicl_tanhf, bicl_erff, bicl_sigmoidf, bicl_silu, bicl_gelu_erf,
 * bicl_gelu_quick, bicl_gelu_tanh and bicl_softcap (for every cap; proven for caps 30
 * and 50); 0 of 2^32 inputs misrounded, proven by tools/bicl_accuracy.c --exhaustive
 * and tools/bicl_math_identity.c (docs/accuracy.md). Each has three
 * implementations, _dbl (binary64, where the device has fp64: the default there and
 * on the host), _pair (float pairs, devices without fp64) and _int (integer fixed
 * point, the fallback of both): Ziv's strategy, written once by BICL_M_CR (see
 * "correctly rounded" below). bicl_swiglu_oss (gpt-oss's SwiGLU) and the gated units
 * rounded once are correctly rounded too since math version 6 (bicl_math_glu_f32.h);
 * relu is exact, relu2 one rounding.
 * Limits held by the tool: 0.5 for the correctly rounded ones, 1 ulp for the
 * other unary functions, 2 ulp for the other activations. Denormal inputs and outputs are
 * honoured (no flushing); overflow gives inf, underflow a correctly signed
 * zero or denormal.
 *
 * ---------------------------------------------------------------- semantics
 * NaN rule (every function): a NaN input is returned quieted, payload and sign
 * kept (bicl_f32_quiet); with two NaN operands the first one in argument
 * order wins. It is decided by bits, before any arithmetic, because hardware
 * differs in NaN propagation. A NaN made from non-NaN inputs is always
 * bicl_f32_canonical_nan() (0x7fc00000).
 *
 *   bicl_expf(x)     e^x. exp(+-0) = 1, exp(-inf) = +0, exp(+inf) = +inf.
 *   bicl_expm1f(x)   e^x - 1. expm1(+-0) = +-0, expm1(-inf) = -1, (+inf) = +inf.
 *   bicl_tanhf(x)    tanh(+-0) = +-0, tanh(+-inf) = +-1.
 *   bicl_erff(x)     erf(+-0) = +-0, erf(+-inf) = +-1.
 *   bicl_sigmoidf(x) 1/(1+e^-x). sigmoid(+-0) = 0.5, (-inf) = +0, (+inf) = 1.
 *
 * Activations. round(F) is F evaluated exactly and rounded once to float,
 * with the constants taken as the float values written here; that is what
 * the ulp bounds are measured against.
 *   bicl_relu(x)       x > 0 ? x : +0. relu(-0) = +0, relu(-inf) = +0. Exact.
 *   bicl_relu2(x)      round(relu(x)^2): one multiply, correctly rounded.
 *   bicl_silu(x)       round(x * sigmoid(x)). silu(+-0) = +-0, silu(+inf) = +inf,
 *                      silu(-inf) = -0 (the limit).
 *   bicl_gelu_erf(x)   round(x * Phi(x)), Phi(x) = (1 + erf(x/sqrt2))/2, with
 *                      x/sqrt2 the exact real quotient (no intermediate rounding
 *                      to float) and no cancellation (erfc for x/sqrt2 <= -0.75).
 *                      gelu(+-0) = +-0, gelu(+inf) = +inf, gelu(-inf) = -0.
 *   bicl_gelu_tanh(x)  round(0.5 x (1 + tanh(c (x + d x^3)))), c = 0.7978845608f,
 *                      d = 0.044715f, computed as x * sigmoid(2c (x + d x^3))
 *                      (an identity), so no cancellation for x < 0.
 *                      Same zero/inf rules as gelu_erf.
 *   bicl_gelu_quick(x) round(x * sigmoid(1.702f * x)), the product 1.702f * x
 *                      kept exact. Same zero/inf rules.
 *   bicl_softcap(x, cap)  round(c * tanh(x / c)), c = |cap|, with x / c the exact
 *                      real quotient (never the float one).
 *                      cap acts as |cap| (the formula is even in cap);
 *                      cap = +-0 gives the canonical NaN; cap = +-inf gives x
 *                      (the limit); x = +-inf gives +-|cap|; x = +-0 gives +-0.
 *   bicl_swiglu_oss(gate, up, alpha, limit)  (bicl_math_glu_f32.h) gpt-oss's clamped
 *                      SwiGLU element, correctly rounded since math version 6:
 *                      g = gate > limit ? limit : gate      (min(gate, limit))
 *                      u = min(max(up, -limit), limit)      (torch.clamp order)
 *                      out = round((u + 1) * g * sigmoid(alpha * g)), with u + 1
 *                      and alpha * g kept exact. NaN order: gate, up, alpha,
 *                      limit. When g or u + 1 is zero or infinite the result
 *                      is the IEEE product (u + 1) * G, u + 1 = -1 + 1 = +0,
 *                      G = +-0 (sign of g) if alpha * g = -inf and G = g
 *                      otherwise (sigmoid is 1, 1/2 or finite there); 0 * inf
 *                      gives the canonical NaN.
 *
 * How (the rounding order): every float-pair evaluation builds its value as an
 * unrounded float pair hi + lo (relative error about 2^-29 or better, see each
 * function), times 2^k where the value could leave the float range, and
 * rounds once at the end: round(hi + lo), or bicl_df_ldexp_round(), which
 * rounds 2^k (hi + lo) directly to a normal, denormal, zero or inf result.
 * The correctly rounded functions round that value only when Ziv's test decides it
 * (below).
 *   exp:      x = k/2 ln2 + r; 2^(k/2) (1 + expm1(r)).
 *   expm1:    expm1(r) itself for k = 0, else 2^(k/2) (1 + expm1(r)) - 1 as a pair.
 *   tanh:     -m / (2 + m), m = expm1(-2|x|), sign restored.
 *   sigmoid:  1 / (1 + e^-x) for x >= 0, e^x / (1 + e^x) for x < 0.
 *   erf:      x S(x^2) (Taylor) for |x| < 0.75; 1 - erfc(|x|) up to 3.92, erfc from
 *             a table at z0 = k/16 and the Hermite series of the integral from
 *             |x| to z0 (bicl_math_fx.h); +-1 beyond.
 *   silu, gelu_quick, gelu_tanh, swiglu: y * sigmoid(z), y and z exact pairs.
 *   gelu_erf: x (1/2 +- erf(z)/2), z = |x|/sqrt2 (exact enough as a pair) < 0.75;
 *             x (1 - erfc(z)/2) above, x erfc(z)/2 below, erfc as for erf (the
 *             float-pair and integer paths; the double path takes x (1 - erfc(z)/2)
 *             or x erfc(z)/2 for every z, erfc = e^(-z^2) erfcx(z): bicl_m_erfc_all_d).
 *   softcap:  |cap| tanh(y) with y = x/|cap| as an exact pair.
 * Fast paths: bicl_df_ldexp_round returns round(hi + lo) with k added to its
 * exponent field when that and the result are normal (every caller's common
 * case), and x * sigmoid for the one-argument activations skips the exact
 * no-op steps of the general product (bicl_m_mul_sigmoid_1). Each is an
 * identity, argued where it is written, and checked bit for bit against the
 * previous version of this file (commit 121a897's, read from git at configure time) by
 * tools/bicl_math_identity.c: all 2^32 inputs of every one-argument
 * function, samples and edge pairs for softcap and swiglu_oss.
 *
 * Fast forms (BICL_M_CR_FAST1, _FAST2): sigmoidf, silu, gelu_quick, tanhf, gelu_tanh and
 * gelu_erf also have NAME_fast(x, &ok), softcap NAME_fast(x, cap, &ok): their double path's common
 * case without a branch, which accepts (ok) exactly where that path returns by Ziv's
 * normal-case test, with the same value; the kernels' fix-up form (cl/bicl_kernel.h)
 * computes the rest with NAME.
 *
 * Naming: bicl_df_* and bicl_m_* are internal helpers (float pairs, range
 * reduction); only the functions listed above are meant to be called. */
#ifndef BICL_MATH_F32_H
#define BICL_MATH_F32_H

#include "bicl_portable.h"
#include "bicl_math_f64.h"
#include "bicl_math_fx.h"
#include "bicl_math_version.h"

/* ------------------------------------------------------------ float pairs */
/* An unevaluated sum hi + lo ("double-float"), |lo| small against |hi|. */
typedef struct {
    float hi;
    float lo;
} bicl_f32x2;

/* 2^k * (hi + lo): lets a result carry an exponent that a float cannot hold
 * (exp(-150) times a large x), so the final rounding happens only once. */
typedef struct {
    float hi;
    float lo;
    bicl_i32 k;
} bicl_f32x2e;

BICL_FN bicl_f32x2 bicl_df(float hi, float lo)
{
    bicl_f32x2 r;
    r.hi = hi;
    r.lo = lo;
    return r;
}

/* Exact a + b for |a| >= |b| (or a == 0). */
BICL_FN bicl_f32x2 bicl_df_fast_two_sum(float a, float b)
{
    float s = a + b;
    return bicl_df(s, b - (s - a));
}

/* Exact a + b, any order of magnitude (Knuth's TwoSum). */
BICL_FN bicl_f32x2 bicl_df_two_sum(float a, float b)
{
    float s = a + b;
    float bb = s - a;
    return bicl_df(s, (a - (s - bb)) + (b - bb));
}

/* Exact a * b while the product neither overflows nor underflows. */
BICL_FN bicl_f32x2 bicl_df_two_prod(float a, float b)
{
    float p = a * b;
    return bicl_df(p, bicl_fmaf(a, b, -p));
}

BICL_FN bicl_f32x2 bicl_df_mul_f(bicl_f32x2 a, float b)
{
    float p = a.hi * b;
    return bicl_df(p, bicl_fmaf(a.hi, b, -p) + a.lo * b);
}

BICL_FN bicl_f32x2 bicl_df_mul(bicl_f32x2 a, bicl_f32x2 b)
{
    float p = a.hi * b.hi;
    return bicl_df(p, bicl_fmaf(a.hi, b.hi, -p) + (a.hi * b.lo + a.lo * b.hi));
}

/* n / d to about 2^-44 relative: one correctly rounded reciprocal, the
 * remainder of the first quotient taken exactly with an fma. */
BICL_FN bicl_f32x2 bicl_df_div(bicl_f32x2 n, bicl_f32x2 d)
{
    float inv = 1.0f / d.hi;
    float q = n.hi * inv;
    float r = (bicl_fmaf(-q, d.hi, n.hi) + n.lo) - q * d.lo;
    return bicl_df(q, r * inv);
}

/* ------------------------------------------------------------ bit helpers */
/* 2^k for -126 <= k <= 127, built from bits. */
BICL_FN float bicl_m_pow2i(bicl_i32 k)
{
    return bicl_u32_as_f32((bicl_u32)(k + 127) << 23);
}

BICL_FN int bicl_m_is_inf(float x)
{
    return (bicl_f32_as_u32(x) & 0x7fffffffu) == 0x7f800000u;
}

/* Correctly rounded 2^k * (v.hi + v.lo) for a normal, finite v.hi and any k:
 * overflow gives +-inf, and a denormal result is rounded once, directly on
 * the 2^-149 grid (scaling a rounded float would round twice). */
BICL_FN float bicl_df_ldexp_round(bicl_f32x2 v, bicl_i32 k)
{
    bicl_u32 hb;
    bicl_i32 e;
    /* Fast path (every caller's common case): h = round(hi + lo) and the
     * result h 2^k are both normal. Then the general code below returns
     * exactly h 2^k: its first step makes v.hi = h, v.lo = l with h + l
     * exact and h = round(h + l); hn = h 2^-e and ln = l 2^-e (exact, or
     * below 2^-125 when l is tiny and only then rounded), so hn + ln =
     * 2^-e (h + l) rounds to hn (the scaling commutes with the rounding in
     * the normal range, ties included: h already is the tie's even
     * choice); kk = k + e is in [-126, 127], so y 2^kk = h 2^k is exact and
     * normal, which is h with k added to its exponent field. The two
     * biased-exponent tests below are exactly "h normal" and "kk in
     * [-126, 127]"; the sign bit is untouched because the field stays in
     * [1, 254]. Checked by tools/bicl_math_identity.c (all 2^32 inputs of
     * the one-argument callers). */
    hb = bicl_f32_as_u32(v.hi + v.lo);
    e = (bicl_i32)((hb >> 23) & 0xffu);
    if ((bicl_u32)(e - 1) < 254u && (bicl_u32)(e + k - 1) < 254u) {
        return bicl_u32_as_f32(hb + ((bicl_u32)k << 23));
    }
    /* |lo| <= ulp(hi)/2 from here on: the denormal rounding relies on it */
    v = bicl_df_fast_two_sum(v.hi, v.lo);
    hb = bicl_f32_as_u32(v.hi);
    e = (bicl_i32)((hb >> 23) & 0xffu) - 127;
    /* v / 2^e, so that 1 <= |hn| < 2; lo is scaled in two exact steps
     * because 2^-e alone may not be a float. */
    float hn = bicl_u32_as_f32((hb & 0x807fffffu) | 0x3f800000u);
    float ln = v.lo * bicl_m_pow2i(-e / 2) * bicl_m_pow2i(-e - (-e / 2));
    bicl_i32 kk = k + e;
    if (kk >= -126) {
        float y = hn + ln;
        if (kk > 127) {
            return y * 0x1p127f * 2.0f; /* |y| >= 1: the IEEE overflow to inf */
        }
        return y * bicl_m_pow2i(kk);
    }
    if (kk < -150) {
        return bicl_f32_copysign(0.0f, hn); /* |value| < 2^-150: rounds to 0 */
    }
    {
        /* Result = round(a + b) * 2^-149 with a + b the value in units of the
         * smallest denormal. rint(a) is right unless a is exactly halfway,
         * where the sign of b (|b| < ulp(a)) decides. */
        float s = bicl_m_pow2i(kk + 149);
        float a = hn * s;
        float b = ln * s;
        float i = bicl_rintf(a);
        float f = a - i;
        if (f == 0.5f && b > 0.0f) {
            i = i + 1.0f;
        } else if (f == -0.5f && b < 0.0f) {
            i = i - 1.0f;
        }
        return i * 0x1p-75f * 0x1p-74f; /* exact: i is an integer < 2^24 */
    }
}

BICL_FN float bicl_df_round(bicl_f32x2 v)
{
    return v.hi + v.lo;
}

/* x / 2 rounded to nearest with ties towards +inf: the correctly rounded
 * value of x/2 + (tiny positive), which is what x * sigmoid(a x) is for
 * |x| < 2^-60 and a > 0. Only a denormal half can be a tie; denormals and the
 * lowest binade share one linear encoding, so halving there is a shift. */
BICL_FN float bicl_m_half_tie_up(float x)
{
    bicl_u32 b = bicl_f32_as_u32(x);
    bicl_u32 mag = b & 0x7fffffffu;
    if (mag < 0x01000000u) {
        bicl_u32 up = (b >> 31) == 0u ? 1u : 0u;
        return bicl_u32_as_f32((b & 0x80000000u) | ((mag + up) >> 1));
    }
    return x * 0.5f;
}

/* ------------------------------------------------------------------- exp */
/* Range reduction: z = k2 * ln2/2 + r, |r| <= ln2/4 (+ a hair for the rounded
 * k2). ln2/2 is split so that k2 * LN2H_HI is exact in the fma and
 * zh - k2 * LN2H_HI is representable (Sterbenz-like: both are multiples of
 * 2^-26 and the difference is below 0.25), so r1 is exact. The half-step
 * (rather than ln2) shrinks |r| to 0.173, which lets a degree-4 correction
 * polynomial reach ~2^-30 relative error; 2^(1/2) is applied afterwards as a
 * float pair. exp(z) = 2^(k2/2) * (1 + m), m = expm1(r) kept as a pair. */
typedef struct {
    bicl_f32x2 m;
    bicl_i32 k2;
} bicl_m_exp_red;

#define BICL_M_2_LN2   0x1.715476p+1f /* 2/ln2 rounded */
#define BICL_M_LN2H_HI 0x1.62e43p-2f  /* ln2/2 = HI + LO + O(2^-56) */
#define BICL_M_LN2H_LO -0x1.05c61p-30f
#define BICL_M_SQRT2HI 0x1.6a09e6p+0f /* sqrt2 = HI + LO + O(2^-50) */
#define BICL_M_SQRT2LO 0x1.9fcef4p-26f

/* exp(zh + zl) for |zh| <= 300, |zl| <= ulp(zh). k2 then has at most 10 bits,
 * so k2 * LN2H_HI is exact inside the fma. */
BICL_FN bicl_m_exp_red bicl_m_exp_reduce(float zh, float zl)
{
    bicl_m_exp_red out;
    float kf = bicl_rintf(zh * BICL_M_2_LN2);
    float r1 = bicl_fmaf(-kf, BICL_M_LN2H_HI, zh);
    float rl = bicl_fmaf(-kf, BICL_M_LN2H_LO, zl);
    bicl_f32x2 r = bicl_df_two_sum(r1, rl);
    /* expm1(r) = r + r^2/2 + r^3 P(r); r^2/2 is kept exactly as a pair.
     * P: (expm1(r) - r - r^2/2)/r^3 on |r| <= 0.17335, degree 4, fitted by
     * Lawson's weighted least squares (relative error, mpmath reference),
     * coefficients rounded to float one at a time with the rest refitted;
     * approximation error 2^-25 relative to P, i.e. ~2^-32.6 relative to m. */
    float x = r.hi;
    float p = x * x;
    float pe = bicl_fmaf(x, x, -p);
    float poly = bicl_fmaf(x, 0x1.efc31cp-13f, 0x1.6c277ep-10f);
    poly = bicl_fmaf(x, poly, 0x1.1106cap-7f);
    poly = bicl_fmaf(x, poly, 0x1.555556p-5f);
    poly = bicl_fmaf(x, poly, 0x1.555556p-3f);
    {
        bicl_f32x2 s = bicl_df_fast_two_sum(x, 0.5f * p); /* |x| >= x^2/2 */
        /* exp(r.hi + r.lo) = exp(r.hi) (1 + r.lo + ...): (1 + m)(1 + r.lo). */
        float lo = s.lo + (bicl_fmaf(r.lo, x, r.lo) + (0.5f * pe + (x * p) * poly));
        out.m = bicl_df_fast_two_sum(s.hi, lo);
    }
    out.k2 = (bicl_i32)kf;
    return out;
}

/* exp as 2^k (hi + lo), hi + lo in [0.70, 1.42]. */
BICL_FN bicl_f32x2e bicl_m_exp_expand(bicl_m_exp_red red)
{
    bicl_f32x2e out;
    bicl_i32 j = (bicl_i32)((bicl_u32)red.k2 & 1u);
    bicl_f32x2 e = bicl_df_fast_two_sum(1.0f, red.m.hi);
    bicl_f32x2 s = bicl_df(j != 0 ? BICL_M_SQRT2HI : 1.0f, j != 0 ? BICL_M_SQRT2LO : 0.0f);
    e.lo = e.lo + red.m.lo;
    e = bicl_df_mul(e, s);
    out.hi = e.hi;
    out.lo = e.lo;
    /* (k2 - j) / 2 = floor(k2 / 2), as an unsigned shift of k2 made
     * positive (|k2| < 2^15 for |z| <= 300): no signed division. */
    out.k = (bicl_i32)(((bicl_u32)(red.k2 + 0x10000)) >> 1) - 0x8000;
    return out;
}

/* exp(zh + zl) = 2^k (hi + lo) for |zh| <= 300. */
BICL_FN bicl_f32x2e bicl_m_exp_df(float zh, float zl)
{
    return bicl_m_exp_expand(bicl_m_exp_reduce(zh, zl));
}

/* ------------------------------------------- correctly rounded: Ziv tests */
/* The relative error bounds of the fast evaluations, with margin: the float-pair
 * values 2^k (hi + lo) of exp, sigmoid and x sigmoid(x) are within 2^-29 of the
 * exact value (analysis of the steps above: about 2^-30; measured maximum
 * documented in docs/accuracy.md), the double ones within 2^-49 (each function's
 * double evaluation states its bound). A result is returned only when the whole interval
 * value (1 +- bound) rounds to one float; otherwise the integer path decides. */
#define BICL_M_ZIV_REL_F32 0x1p-29f
#define BICL_M_ZIV_REL_F64 0x1p-48

/* Ziv's rounding test on a float pair: 1, and *out = round(2^k (v.hi + v.lo)),
 * when every value within rel |v.hi| of v.hi + v.lo rounds to the same float and
 * that float is normal; 0 otherwise. With s = round(hi + lo) and t the exact
 * remainder (FastTwoSum), the nearest rounding boundary is s +- ulp(s)/2 on t's
 * side, or s - ulp(s)/4 below a power of two; ||t| - that boundary| is computed
 * exactly (Sterbenz) whenever it is small. */
BICL_FN int bicl_df_round_test(bicl_f32x2 v, bicl_i32 k, float rel, float *out)
{
    bicl_f32x2 s = bicl_df_fast_two_sum(v.hi, v.lo);
    bicl_u32 hb = bicl_f32_as_u32(s.hi);
    bicl_i32 e = (bicl_i32)((hb >> 23) & 0xffu);
    float bnd;
    float t;
    if ((bicl_u32)(e - 26) >= 228u || (bicl_u32)(e + k - 1) >= 254u) {
        return 0; /* s or the result outside the normal range: the integer path */
    }
    bnd = bicl_u32_as_f32((bicl_u32)(e - 24) << 23); /* ulp(s) / 2 */
    t = bicl_f32_abs(s.lo);
    if ((hb & 0x7fffffu) == 0u && s.lo != 0.0f && ((bicl_f32_as_u32(s.lo) ^ hb) >> 31) != 0u) {
        bnd = bnd * 0.5f; /* below a power of two the ulp halves */
    }
    if (bicl_f32_abs(t - bnd) <= bicl_f32_abs(s.hi) * rel) {
        return 0;
    }
    *out = bicl_u32_as_f32(hb + ((bicl_u32)k << 23));
    return 1;
}

/* round(s + t + tail) for a normal s = round(s + t) (t exact, as from TwoSum) and a
 * small correction tail (|t + tail| < ulp(s)): the result is s or one of its
 * neighbours, decided by comparing t + tail with the two rounding boundaries
 * (ulp(s)/2 away from zero, ulp(s)/2 or, below a power of two, ulp(s)/4 towards
 * it). Each comparison is (t - boundary) + tail: the difference is exact
 * (Sterbenz) where it is small, so only an error in tail itself, when it nearly
 * cancels that difference, could decide wrongly. The small-argument paths of
 * sigmoid and silu use it where the value lies within a hair of a midpoint by
 * construction (1/2 + x/4 and x/2 + x^2/4 are exact, and often exact midpoints). */
BICL_FN float bicl_m_round_near(float s, float t, float tail)
{
    bicl_u32 hb = bicl_f32_as_u32(s);
    float bnd = bicl_u32_as_f32((((hb >> 23) & 0xffu) - 24u) << 23); /* ulp(s) / 2 */
    float tp = (hb >> 31) != 0u ? -t : t;                            /* positive: away from zero */
    float gp = (hb >> 31) != 0u ? -tail : tail;
    if ((tp - bnd) + gp > 0.0f) {
        return bicl_u32_as_f32(hb + 1u);
    }
    if ((hb & 0x7fffffu) == 0u) {
        bnd = bnd * 0.5f;
    }
    if ((tp + bnd) + gp < 0.0f) {
        return bicl_u32_as_f32(hb - 1u);
    }
    return s;
}

#ifdef BICL_HAVE_FP64
/* The normal case alone, for a caller that knows y's float is normal (2^-126 <= |y| <
 * 2^128): the normal branch of bicl_m_round_test_d (below). Skipping that
 * test's exponent check made silu about a tenth faster in a CUDA micro-benchmark on the
 * H200 (docs/performance.md, "Ziv's test without its exponent check"). */
BICL_FN int bicl_m_round_test_normal_d(double y, float *out)
{
    /* no branch (*out is written either way): the kernels' fast form (BICL_M_CR_FAST1)
     * computes it for every element */
    *out = bicl_f64_to_f32_raw(y);
    return ((bicl_u32)bicl_f64_as_u64(y) & 0x1fffffffu) - (0x10000000u - 64u) >= 128u;
}

/* 1 when y's float is normal or y rounds past the largest float: 2^-126 <= |y| < 2^128,
 * y's exponent field in [897, 1150] (bicl_m_round_test_d's first case). */
BICL_FN int bicl_m_f64_float_normal(double y)
{
    return ((bicl_u32)(bicl_f64_as_u64(y) >> 52) & 0x7ffu) - 897u <= 253u;
}

/* Ziv's rounding test on a double y within BICL_M_ZIV_REL_F64 |y| = 2^-48 |y| of
 * the exact value: 1 and *out = round(y) when the exact value rounds to the same
 * float. Where that float is normal (y's exponent in [-126, 127]), by bits: the
 * float's rounding midpoints in y's binade are the doubles whose 29 low mantissa
 * bits m are 2^28; 2^-48 |y| is below 32 ulps of y, so the exact value and y round
 * alike unless |m - 2^28| < 64 (the margin doubles the bound). No other midpoint
 * is near: the binade's ends are floats (a y that rounds past the largest float
 * overflows to infinity here, as the exact value then does). Elsewhere (denormal or
 * zero results, and y infinite or NaN) y -+ d, d = 2^-48 |y| (a rounding that the
 * margin covers), must round to the same float; IEEE's conversion decides those. */
BICL_FN int bicl_m_round_test_d(double y, float *out)
{
    double d;
    float a;
    float b;
    if (bicl_m_f64_float_normal(y)) {
        return bicl_m_round_test_normal_d(y, out);
    }
    d = bicl_f64_abs(y) * BICL_M_ZIV_REL_F64;
    a = bicl_f64_to_f32_raw(y - d);
    b = bicl_f64_to_f32_raw(y + d);
    if (bicl_f32_as_u32(a) != bicl_f32_as_u32(b)) {
        return 0;
    }
    *out = a;
    return 1;
}

/* exp(x) / 2^k for a double x, |x| <= 745, relative error below 2^-51 (the
 * reduction and the polynomial as two functions, which expm1 shares):
 * k = rint(x / ln2) as the exact product rounded once to an integer, by adding and
 * subtracting 1.5 * 2^52 (the sum's low word is k: no rint and no conversion, which
 * the SASS of the former form had per element, docs/performance.md); r = x - k ln2 with
 * |r| <= 0.3466 (the k CW_HI product is exact and x - k CW_HI rounds once, exact
 * when x is a float by Sterbenz; the CW_LO term adds 2^-54 of r); then
 * e^r = 1 + r P(r), P of degree 10 (below). */
#define BICL_M_RINT_MAGIC_D 0x1.8p52
BICL_FN double bicl_m_exp_reduce_d(double x, bicl_i32 *k)
{
    double t = bicl_fma(x, BICL_INV_LN2, BICL_M_RINT_MAGIC_D);
    double kd = t - BICL_M_RINT_MAGIC_D;
    *k = (bicl_i32)(bicl_u32)bicl_f64_as_u64(t); /* two's complement wrap, as everywhere here */
    return bicl_fma(-kd, BICL_LN2_CW_LO, bicl_fma(-kd, BICL_LN2_CW_HI, x));
}

/* P(r) ~ expm1(r) / r on |r| <= 0.3466: Sollya's fpminimax of degree 10 with the
 * constant term 1, double coefficients, by Horner. Sollya's supnorm (rigorous):
 * 1 + r P(r) is within 2^-56.9 of e^r and r P(r) within 2^-55.5 of expm1(r),
 * relative (the 13-term Taylor series it replaces: 2^-56; two fewer fma). */
BICL_FN double bicl_m_expm1_p_d(double r)
{
    double p = 0x1.ae9050a53a8d4p-26;
    p = bicl_fma(p, r, 0x1.28a284b006632p-22);
    p = bicl_fma(p, r, 0x1.71de715f96f57p-19);
    p = bicl_fma(p, r, 0x1.a019a6ac2e7bdp-16);
    p = bicl_fma(p, r, 0x1.a01a017eecbc4p-13);
    p = bicl_fma(p, r, 0x1.6c16c17f2ba41p-10);
    p = bicl_fma(p, r, 0x1.11111111173c7p-7);
    p = bicl_fma(p, r, 0x1.5555555552117p-5);
    p = bicl_fma(p, r, 0x1.555555555554p-3);
    p = bicl_fma(p, r, 0x1.0000000000005p-1);
    return bicl_fma(p, r, 1.0);
}

BICL_FN double bicl_m_exp_fast_d(double x, bicl_i32 *k)
{
    double r = bicl_m_exp_reduce_d(x, k);
    return bicl_fma(bicl_m_expm1_p_d(r), r, 1.0);
}

/* e^z for a double z <= 0, |z| <= 700, as a quotient p / q that sigmoid's own quotient
 * absorbs (one reciprocal for both): with k and r from bicl_m_exp_reduce_d,
 * e^r = (E + r O) / (E - r O), E and O quadratics in s = r^2 (a rational of degree 5
 * over 5 whose form keeps e^r e^-r = 1: r O / E stands for tanh(r/2)). Its four
 * coefficients come from a Nelder-Mead search, started at Pade's [5/5], of the relative
 * error of r O / E against tanh(r/2) over 0 < r <= ln2/2 (1 + 2^-20), in mpmath at 120
 * bits on 400 points: 2^-51.7 (Pade: 2^-48.5), so that tanh can use them too; e^r's
 * relative error is then 2^-53.2 (Pade: 2^-50.0);
 * p = 2^k (E + r O) by adding k to the exponent (E + r O lies in [0.82, 1.19], so p
 * is normal for k >= -1010), q = E - r O in [0.82, 1.19]. Against the degree-10 polynomial,
 * a product and the separate 1 + e go: in a CUDA micro-benchmark of these headers on
 * the H200, silu's double path ran at 0.69 of copy against 0.58 in the same run
 * (docs/performance.md, "A quotient for e^r"). */
typedef struct {
    double e;  /* E(r^2), in [1, 1.02] */
    double ro; /* r O(r^2), |r O| < 0.18 */
} bicl_m_exp_eo;

BICL_FN bicl_m_exp_eo bicl_m_exp_eo_d(double r)
{
    double s = r * r;
    bicl_m_exp_eo out;
    out.e = bicl_fma(bicl_fma(0x1.0410410d068bfp-10, s, 0x1.c71c71c731509p-4), s, 1.0);
    out.ro = r * bicl_fma(bicl_fma(0x1.1566ac31b215fp-15, s, 0x1.c71c71c7713a4p-7), s, 0.5);
    return out;
}

typedef struct {
    double p;
    double q;
} bicl_m_exp_quot;

BICL_FN bicl_m_exp_quot bicl_m_exp_quot_d(double z)
{
    bicl_i32 k;
    bicl_m_exp_eo v = bicl_m_exp_eo_d(bicl_m_exp_reduce_d(z, &k));
    bicl_m_exp_quot out;
    out.p = bicl_u64_as_f64(bicl_f64_as_u64(v.e + v.ro) + ((bicl_u64)(bicl_i64)k << 52));
    out.q = v.e - v.ro;
    return out;
}

/* sigmoid(x) for |x| <= 700 in double, relative error below 2^-49.5: with
 * e^-|x| = p / q (bicl_m_exp_quot_d), q / (q + p) for x >= 0 and p / (q + p) below.
 * The quotient's error (2^-53.2) and the reduction's (2^-54) count once; the roundings
 * of E and O (2^-53 each, the terms beyond 1 and 1/2 being below 0.02 and 0.003), r O,
 * p and q (3 * 2^-53 each at most), q + p, the reciprocal and the product add at most
 * 9 * 2^-53 (2^-49.8). Measured against MPFR on 300,000 random x in [-200, 30]:
 * 2^-51.0 (sigmoid), 2^-50.8 (x sigmoid(x)). A reciprocal, not a quotient: in nvcc's SASS for
 * sm_90, 1/d is three double operations shorter than n/d (docs/performance.md). */
BICL_FN double bicl_m_sigmoid_of_quot_d(bicl_m_exp_quot e, int x_nonneg)
{
    double d = 1.0 / (e.q + e.p);
    return (x_nonneg ? e.q : e.p) * d;
}

BICL_FN double bicl_m_sigmoid_fast_d(double x)
{
    return bicl_m_sigmoid_of_quot_d(bicl_m_exp_quot_d(-bicl_f64_abs(x)), x >= 0.0);
}
#endif

/* ------------------------------- correctly rounded: the three paths, once */
/* BICL_M_CR(NAME, PARAMS, ARGS, SP, FX, PAIR, PREL, DBL) defines the correctly
 * rounded function NAME PARAMS (say NAME(float x, float cap); ARGS = (x, cap)) and
 * its three implementations (Ziv's strategy). SP, FX, PAIR and DBL are expressions
 * of the parameters; SP may also use the float r.
 * NAME_int: SP (1 with r set for the inputs decided without evaluation: NaN, the
 * saturated ranges, zero and the tiny arguments; 0 otherwise, or -1 where the result
 * is known to be a normal float), else FX, the integer path (bicl_math_fx.h).
 * NAME_pair: SP, else the float-pair value PAIR, a bicl_f32x2e within PREL of
 * the exact value (relative; BICL_M_ZIV_REL_F32 or wider), when
 * bicl_df_round_test decides it, else FX.
 * NAME_dbl, BICL_HAVE_FP64 only: SP, else the double value DBL, within
 * BICL_M_ZIV_REL_F64, when bicl_m_round_test_d (bicl_m_round_test_normal_d where SP
 * is -1) decides it, else FX.
 * NAME: NAME_dbl where the device has fp64 (and on the host), else NAME_pair.
 * BICL_M_CR1(NAME, SPECIAL, FX, PAIR, PREL, DBL) is the one-argument case, with
 * SPECIAL(x, &r), FX(x), PAIR(x) and DBL(x). */
#define BICL_M_CR_INT_BODY(SP, FX)                                                                 \
    {                                                                                              \
        float r;                                                                                   \
        if ((SP) > 0) {                                                                            \
            return r;                                                                              \
        }                                                                                          \
        return FX;                                                                                 \
    }
#define BICL_M_CR_PAIR_BODY(SP, FX, PAIR, PREL)                                                    \
    {                                                                                              \
        bicl_f32x2e v;                                                                             \
        float r;                                                                                   \
        if ((SP) > 0) {                                                                            \
            return r;                                                                              \
        }                                                                                          \
        v = PAIR;                                                                                  \
        if (bicl_df_round_test(bicl_df(v.hi, v.lo), v.k, PREL, &r)) {                              \
            return r;                                                                              \
        }                                                                                          \
        return FX;                                                                                 \
    }
#ifdef BICL_HAVE_FP64
#define BICL_M_CR_DBL_AND_PICK(NAME, PARAMS, ARGS, SP, FX, DBL)                                    \
    BICL_FN float NAME##_dbl PARAMS                                                                \
    {                                                                                              \
        float r;                                                                                   \
        double y;                                                                                  \
        int sp = (SP);                                                                             \
        if (sp > 0) {                                                                              \
            return r;                                                                              \
        }                                                                                          \
        y = DBL;                                                                                   \
        if (sp < 0 ? bicl_m_round_test_normal_d(y, &r) : bicl_m_round_test_d(y, &r)) {             \
            return r;                                                                              \
        }                                                                                          \
        return FX;                                                                                 \
    }                                                                                              \
    BICL_FN float NAME PARAMS                                                                      \
    {                                                                                              \
        return NAME##_dbl ARGS;                                                                    \
    }
#else
#define BICL_M_CR_DBL_AND_PICK(NAME, PARAMS, ARGS, SP, FX, DBL)                                    \
    BICL_FN float NAME PARAMS                                                                      \
    {                                                                                              \
        return NAME##_pair ARGS;                                                                   \
    }
#endif
#define BICL_M_CR(NAME, PARAMS, ARGS, SP, FX, PAIR, PREL, DBL)                                     \
    BICL_FN float NAME##_int PARAMS BICL_M_CR_INT_BODY(SP, FX)                                     \
    BICL_FN float NAME##_pair PARAMS BICL_M_CR_PAIR_BODY(SP, FX, PAIR, PREL)                       \
        BICL_M_CR_DBL_AND_PICK(NAME, PARAMS, ARGS, SP, FX, DBL)
#define BICL_M_CR1(NAME, SPECIAL, FX, PAIR, PREL, DBL)                                             \
    BICL_M_CR(NAME, (float x), (x), SPECIAL(x, &r), FX(x), PAIR(x), PREL, DBL(x))

/* BICL_M_CR_FAST1(NAME, COMMON, DBL) defines NAME_fast(x, &ok), the fast form of the
 * one-argument NAME for the kernels' fix-up form (cl/bicl_kernel.h, BICL_ROWS_F_1_1):
 * NAME_dbl's common case without a branch, so that a compiler that vectorises across
 * work-items (PoCL) keeps it in vector registers. COMMON(x) is -1 (x in NAME's common
 * range, result a normal float), 0 (in the range) or 1 (outside it, NaN included), and
 * NAME's SPECIAL begins by returning COMMON(x) where that is -1 or 0, so there NAME_dbl
 * evaluates DBL(x) and applies Ziv's test. ok = 1 where that test's normal case decides:
 * the value returned is then NAME(x), the same operations on the same operands; ok = 0
 * otherwise (the value means nothing: the caller computes NAME(x)). DBL is evaluated at
 * 1 outside the range, a point of every COMMON's range, so that no input reaches it that
 * NAME_dbl would not give it. Without fp64: NAME itself, ok = 1. */
#ifdef BICL_HAVE_FP64
/* Every fast form's last step, from COMMON's c and DBL's y: *ok and the float of y. */
BICL_FN float bicl_m_fast_accept(int c, double y, int *ok)
{
    float r;
    int pass = bicl_m_round_test_normal_d(y, &r);
    *ok = (c <= 0) & ((c < 0) | bicl_m_f64_float_normal(y)) & pass;
    return r;
}

#define BICL_M_CR_FAST1(NAME, COMMON, DBL)                                                         \
    BICL_FN float NAME##_fast(float x, int *ok)                                                    \
    {                                                                                              \
        int c = COMMON(x);                                                                         \
        return bicl_m_fast_accept(c, DBL(c <= 0 ? x : 1.0f), ok);                                  \
    }
/* The same for a function of x and one parameter p (softcap's cap): DBL is evaluated at
 * (1, 1) outside the range (softcap's common range holds it). */
#define BICL_M_CR_FAST2(NAME, COMMON, DBL)                                                         \
    BICL_FN float NAME##_fast(float x, float p, int *ok)                                           \
    {                                                                                              \
        int c = COMMON(x, p);                                                                      \
        return bicl_m_fast_accept(c, DBL(c <= 0 ? x : 1.0f, c <= 0 ? p : 1.0f), ok);               \
    }
#else
#define BICL_M_CR_FAST1(NAME, COMMON, DBL)                                                         \
    BICL_FN float NAME##_fast(float x, int *ok)                                                    \
    {                                                                                              \
        *ok = 1;                                                                                   \
        return NAME(x);                                                                            \
    }
#define BICL_M_CR_FAST2(NAME, COMMON, DBL)                                                         \
    BICL_FN float NAME##_fast(float x, float p, int *ok)                                           \
    {                                                                                              \
        *ok = 1;                                                                                   \
        return NAME(x, p);                                                                         \
    }
#endif

/* ------------------------------------------------------------------- exp */
/* exp: x > 89 overflows (the threshold is 88.72283935546875), e^-104 < 2^-150
 * rounds to +0. */
/* NaN (quieted) and x > 89 (+inf; also x = +inf): the first cases of exp and expm1. */
BICL_FN int bicl_m_nan_or_overflow(float x, float *out)
{
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (x > 89.0f) {
        *out = bicl_u32_as_f32(0x7f800000u);
        return 1;
    }
    return 0;
}

BICL_FN int bicl_m_exp_special(float x, float *out)
{
    if (bicl_m_nan_or_overflow(x, out)) {
        return 1;
    }
    if (x < -104.0f) {
        *out = 0.0f;
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_exp_fx(float x)
{
    return bicl_fx_round(bicl_fx_exp(x), 0);
}

BICL_FN bicl_f32x2e bicl_m_exp_pair(float x)
{
    return bicl_m_exp_df(x, 0.0f);
}

#ifdef BICL_HAVE_FP64
BICL_FN double bicl_m_exp_dbl(float x)
{
    bicl_i32 k;
    double y = bicl_m_exp_fast_d((double)x, &k);
    return y * bicl_f64_pow2(k);
}
#endif

BICL_M_CR1(bicl_expf, bicl_m_exp_special, bicl_m_exp_fx, bicl_m_exp_pair, BICL_M_ZIV_REL_F32,
           bicl_m_exp_dbl)

/* expm1(zh + zl) as a pair for -18.5 <= zh <= 0. */
BICL_FN bicl_f32x2 bicl_m_expm1_df_neg(float zh, float zl)
{
    bicl_m_exp_red red = bicl_m_exp_reduce(zh, zl);
    bicl_f32x2e e;
    float s;
    bicl_f32x2 r;
    if (red.k2 == 0) {
        return red.m; /* no cancellation: m is expm1 itself */
    }
    e = bicl_m_exp_expand(red);
    s = bicl_m_pow2i(e.k);
    /* k2 <= -1 here, so e^z < 0.85 and |e.hi s| < 1: the sum with -1 is
     * exact by the fast (ordered) TwoSum, the same value as TwoSum's. */
    r = bicl_df_fast_two_sum(-1.0f, e.hi * s);
    r.lo = r.lo + e.lo * s;
    return r;
}

/* ------------------------------------------------------------------ tanh */
/* tanh(y) = -expm1(-2y) / (2 + expm1(-2y)) for 0 < y < 9.1, y = yh + yl:
 * expm1 has no cancellation and neither has 2 + expm1 (>= 1). */
BICL_FN bicl_f32x2 bicl_m_tanh_df(float yh, float yl)
{
    bicl_f32x2 m = bicl_m_expm1_df_neg(-2.0f * yh, -2.0f * yl);
    bicl_f32x2 den = bicl_df_fast_two_sum(2.0f, m.hi);
    den.lo = den.lo + m.lo;
    return bicl_df_div(bicl_df(-m.hi, -m.lo), den);
}

/* tanh: correctly rounded, three implementations (BICL_M_CR1). |x| >= 9.1:
 * 1 - tanh < 2^-25.3, below the boundary 1 - 2^-25, so +-1; |x| < 2^-60: x^3/3
 * is far below half an ulp of x (and x - x^3/3 never lands near a boundary in
 * between: x itself is a float), so x (keeps -0). tanh of a nonzero float is
 * transcendental, never a midpoint: Ziv's test always ends. */
BICL_FN int bicl_m_tanh_common(float x)
{
    float ax = bicl_f32_abs(x);
    return ((ax < 9.1f) & (ax >= 0x1p-60f)) ? 0 : 1;
}

BICL_FN int bicl_m_tanh_special(float x, float *out)
{
    float ax = bicl_f32_abs(x);
    if (bicl_m_tanh_common(x) <= 0) {
        return 0;
    }
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (ax >= 9.1f) { /* also +-inf */
        *out = bicl_f32_copysign(1.0f, x);
        return 1;
    }
    if (ax < 0x1p-60f) {
        *out = x;
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_tanh_fx(float x)
{
    float ax = bicl_f32_abs(x); /* normal: 2^-60 <= ax < 9.1 */
    bicl_i32 e = (bicl_i32)(bicl_f32_as_u32(ax) >> 23) - 127;
    return bicl_fx_round(bicl_fx_tanh_y(bicl_fx_from_f32(ax, 62 - e), e), x < 0.0f);
}

/* The float-pair value of math version 1 (bicl_m_tanh_df), sign restored. Its
 * relative error is larger than exp's (the quotient -m / (2 + m) doubles that of
 * m near 0; sampled maximum 2^-30.05, docs/accuracy.md), so its test is wider. */
#define BICL_M_ZIV_REL_TANH_F32 0x1p-28f
/* expm1's float-pair value: sampled relative error in docs/accuracy.md. */
#define BICL_M_ZIV_REL_EXPM1_F32 0x1p-28f
BICL_FN bicl_f32x2e bicl_m_tanh_pair(float x)
{
    bicl_f32x2 t = bicl_m_tanh_df(bicl_f32_abs(x), 0.0f);
    bicl_f32x2e out;
    out.hi = x < 0.0f ? -t.hi : t.hi;
    out.lo = x < 0.0f ? -t.lo : t.lo;
    out.k = 0;
    return out;
}

#ifdef BICL_HAVE_FP64
/* expm1(z) for a double -745 <= z <= 700, relative error below 2^-50: k =
 * rint(z/ln2), r = z - k ln2 (as bicl_m_exp_fast_d, exact for a float z or a
 * float's double; r = z exactly when k = 0), expm1(r) = r P(r) with P the
 * polynomial of exp_fast_d without its last step (within 2^-55.5 relative), then
 * 2^k expm1(r) + (2^k - 1): both terms exact (2^k - 1 to 2^-53 for k > 53), one
 * rounding; k <= -1: 1 - 2^k >= 1/2 dominates, k >= 1: the sum is at least 0.41
 * against terms up to 1.3 times it. */
BICL_FN double bicl_m_expm1_fast_d(double z)
{
    bicl_i32 k;
    double r = bicl_m_exp_reduce_d(z, &k);
    double p = bicl_m_expm1_p_d(r);
    double s;
    if (k == 0) {
        return p * r;
    }
    s = bicl_f64_pow2(k);
    return bicl_fma(p * r, s, s - 1.0);
}

/* tanh(y) for a double 0 < y < 10: with e^-2y = 2^k (E + r O) / (E - r O)
 * (bicl_m_exp_eo_d), tanh(y) = (1 - e^-2y) / (1 + e^-2y) = (E a - r O b) / (E b - r O a),
 * a = 1 - 2^k and b = 1 + 2^k exact (-29 <= k <= 0). For k = 0 that is -r O / E with no
 * cancellation (a = 0: the fma's are exact), whose error is the fit's 2^-51.7 against
 * tanh(r/2) and four roundings: 2^-50.2. For k <= -1 the numerator is at least 0.23 with
 * terms up to 1.27 (errors amplified 5.5 times: 2^-50), e^-2y's own 2^-53.2 counts at
 * most 1/sinh(ln2/2) = 2.9 times, the denominator, the reciprocal and the product add
 * 2^-51.4: relative error below 2^-49.2. */
BICL_FN double bicl_m_tanh_fast_d(double y)
{
    bicl_i32 k;
    bicl_m_exp_eo v = bicl_m_exp_eo_d(bicl_m_exp_reduce_d(-2.0 * y, &k));
    double t = bicl_f64_pow2(k);
    double a = 1.0 - t;
    double b = 1.0 + t;
    return bicl_fma(v.e, a, -(v.ro * b)) * (1.0 / bicl_fma(v.e, b, -(v.ro * a)));
}

BICL_FN double bicl_m_tanh_dbl(float x)
{
    double t = bicl_m_tanh_fast_d(bicl_f64_abs((double)x));
    return x < 0.0f ? -t : t;
}
#endif

BICL_M_CR1(bicl_tanhf, bicl_m_tanh_special, bicl_m_tanh_fx, bicl_m_tanh_pair,
           BICL_M_ZIV_REL_TANH_F32, bicl_m_tanh_dbl)
BICL_M_CR_FAST1(bicl_tanhf, bicl_m_tanh_common, bicl_m_tanh_dbl)

/* ----------------------------------------------------------------- expm1 */
/* expm1: correctly rounded, three implementations (BICL_M_CR1). |x| < 2^-25: x
 * (x^2/2 is below a quarter of x's ulp; keeps -0); x > 89 overflows (also +inf);
 * x < -18: e^x < 2^-25.9 is lost against -1 (also -inf). e^x - 1 of a nonzero
 * float is transcendental: never a midpoint. */
BICL_FN int bicl_m_expm1_special(float x, float *out)
{
    if (bicl_m_nan_or_overflow(x, out)) {
        return 1;
    }
    if (bicl_f32_abs(x) < 0x1p-25f) {
        *out = x;
        return 1;
    }
    if (x < -18.0f) {
        *out = -1.0f;
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_expm1_fx(float x)
{
    return bicl_fx_round(bicl_fx_expm1_abs(x), x < 0.0f);
}

/* The float-pair value of math version 1: expm1(r) itself for k = 0, else
 * 2^k E - 1 = 2^k (E - 2^-k), the subtraction exact as a pair and the scaling left
 * to the final rounding (for k > 60, 2^-k no longer matters). */
BICL_FN bicl_f32x2e bicl_m_expm1_pair(float x)
{
    bicl_m_exp_red red = bicl_m_exp_reduce(x, 0.0f);
    bicl_f32x2e e;
    bicl_f32x2 r;
    if (red.k2 == 0) {
        e.hi = red.m.hi;
        e.lo = red.m.lo;
        e.k = 0;
        return e;
    }
    e = bicl_m_exp_expand(red);
    r = bicl_df_two_sum(e.hi, -(e.k > 60 ? 0.0f : bicl_m_pow2i(-e.k)));
    e.hi = r.hi;
    e.lo = r.lo + e.lo;
    return e;
}

#ifdef BICL_HAVE_FP64
BICL_FN double bicl_m_expm1_dbl(float x)
{
    return bicl_m_expm1_fast_d((double)x);
}
#endif

BICL_M_CR1(bicl_expm1f, bicl_m_expm1_special, bicl_m_expm1_fx, bicl_m_expm1_pair,
           BICL_M_ZIV_REL_EXPM1_F32, bicl_m_expm1_dbl)

/* --------------------------------------------------------------- sigmoid */
/* sigmoid(zh + zl) = 2^k (hi + lo) for -300 <= z <= 30, with hi + lo in
 * [0.35, 1.42]. With e = exp(-|z|): z >= 0 gives 1 / (1 + e), z < 0 gives
 * e / (1 + e), the exponent of e kept aside so that tiny results are
 * rounded once, at the end. */
BICL_FN bicl_f32x2e bicl_m_sigmoid_df(float zh, float zl)
{
    int pos = zh >= 0.0f;
    bicl_f32x2e e = bicl_m_exp_df(pos ? -zh : zh, pos ? -zl : zl);
    bicl_f32x2 t = bicl_df(0.0f, 0.0f);
    bicl_f32x2 d;
    bicl_f32x2 q;
    bicl_f32x2e out;
    if (e.k >= -60) { /* below, e < 2^-59 is lost against 1 anyway */
        float s = bicl_m_pow2i(e.k);
        t = bicl_df(e.hi * s, e.lo * s);
    }
    d = bicl_df_fast_two_sum(1.0f, t.hi);
    d.lo = d.lo + t.lo;
    q = bicl_df_div(pos ? bicl_df(1.0f, 0.0f) : bicl_df(e.hi, e.lo), d);
    out.hi = q.hi;
    out.lo = q.lo;
    out.k = pos ? 0 : e.k;
    return out;
}

/* The lower ends of the common ranges where sigmoid, silu and gelu_quick (of 1.702 x)
 * know their result to be a normal float (their special cases return -1 there; checked
 * by bicl-math-identity, which every test run calls). */
#define BICL_M_SIGMOID_NORMAL_LO    (-86.0f)
#define BICL_M_SILU_NORMAL_LO       (-80.0f)
#define BICL_M_GELU_QUICK_NORMAL_LO (-80.0f)

/* sigmoid: correctly rounded, three implementations as for exp. x > 18: 1 - e^-x
 * lies above 1 - 2^-25, the boundary below 1, so the result is 1; x < -104:
 * below 2^-150, +0. */
/* The common range, in one branch-free test (false for NaN): on GPUs the instructions
 * issued per element set the speed (docs/performance.md). Down to -86 the result is a
 * normal float (sigmoid(-86) > e^-86 / 2 > 2^-125). */
BICL_FN int bicl_m_sigmoid_common(float x)
{
    if ((x <= 18.0f) & (x >= -104.0f) & (bicl_f32_abs(x) >= 0x1p-12f)) {
        return x >= BICL_M_SIGMOID_NORMAL_LO ? -1 : 0;
    }
    return 1;
}

BICL_FN int bicl_m_sigmoid_special(float x, float *out)
{
    int c = bicl_m_sigmoid_common(x);
    if (c <= 0) {
        return c;
    }
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (x > 18.0f) { /* also +inf */
        *out = 1.0f;
        return 1;
    }
    if (x < -104.0f) { /* also -inf */
        *out = 0.0f;
        return 1;
    }
    if (bicl_f32_abs(x) < 0x1p-12f) {
        /* 1/2 + x/4 - x^3/48 + ...: 1/2 + x/4 is exact (and often a midpoint);
         * it lies on a grid of ulp(x)/4, finer than the float grid near 1/2, so
         * a boundary it misses is at least ulp(x)/4 > |x|^3/48 away. Below
         * 2^-26 the value is within 2^-28 of 1/2. */
        bicl_f32x2 t = bicl_df_fast_two_sum(0.5f, 0.25f * x);
        *out =
            bicl_f32_abs(x) < 0x1p-26f ? 0.5f : bicl_m_round_near(t.hi, t.lo, -(x * x * x) / 48.0f);
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_sigmoid_fx(float x)
{
    return bicl_fx_round(bicl_fx_sigmoid(x), 0);
}

BICL_FN bicl_f32x2e bicl_m_sigmoid_pair(float x)
{
    return bicl_m_sigmoid_df(x, 0.0f);
}

#ifdef BICL_HAVE_FP64
BICL_FN double bicl_m_sigmoid_dbl(float x)
{
    return bicl_m_sigmoid_fast_d((double)x);
}
#endif

BICL_M_CR1(bicl_sigmoidf, bicl_m_sigmoid_special, bicl_m_sigmoid_fx, bicl_m_sigmoid_pair,
           BICL_M_ZIV_REL_F32, bicl_m_sigmoid_dbl)
BICL_M_CR_FAST1(bicl_sigmoidf, bicl_m_sigmoid_common, bicl_m_sigmoid_dbl)

/* x = hi * 2^k with 1 <= |hi| < 2, for finite nonzero x (denormals too). */
BICL_FN bicl_f32x2e bicl_m_split_exp(float x)
{
    bicl_f32x2e out;
    bicl_u32 b;
    out.k = 0;
    if (bicl_f32_abs(x) < 0x1p-126f) {
        x = x * 0x1p64f;
        out.k = -64;
    }
    b = bicl_f32_as_u32(x);
    out.k = out.k + (bicl_i32)((b >> 23) & 0xffu) - 127;
    out.hi = bicl_u32_as_f32((b & 0x807fffffu) | 0x3f800000u);
    out.lo = 0.0f;
    return out;
}

/* sigmoid(zh + zl) for -300 <= zh, as bicl_m_sigmoid_df up to 30 and exactly 1
 * above (1 - e^-z with e^-z < 2^-43: 1 is exact enough for the products below). */
BICL_FN bicl_f32x2e bicl_m_sigmoid_sat(float zh, float zl)
{
    bicl_f32x2e one;
    if (!(zh > 30.0f)) {
        return bicl_m_sigmoid_df(zh, zl);
    }
    one.hi = 1.0f;
    one.lo = 0.0f;
    one.k = 0;
    return one;
}

/* round(y * sigmoid(z)) with y = g * (uh + ul): g, uh finite and nonzero,
 * z = zh + zl (zh may be +-inf, then zl is ignored). g and u are split into
 * mantissa and exponent, so no intermediate overflows or underflows
 * whatever their size; the exponents meet again in the single final
 * rounding. */
BICL_FN float bicl_m_mul_sigmoid(float g, bicl_f32x2 u, float zh, float zl)
{
    bicl_f32x2e s;
    bicl_f32x2e gn;
    bicl_f32x2e un;
    float ul;
    bicl_f32x2 p;
    if (zh < -300.0f) { /* sigmoid < 2^-432 and |y| < 2^256: rounds to 0 */
        return bicl_f32_copysign(0.0f, g) * u.hi;
    }
    s = bicl_m_sigmoid_sat(zh, zl);
    gn = bicl_m_split_exp(g);
    un = bicl_m_split_exp(u.hi);
    ul = u.lo * bicl_m_pow2i(-un.k / 2) * bicl_m_pow2i(-un.k - (-un.k / 2));
    p = bicl_df_mul(bicl_df_mul_f(bicl_df(un.hi, ul), gn.hi), bicl_df(s.hi, s.lo));
    return bicl_df_ldexp_round(p, gn.k + un.k + s.k);
}

/* bicl_m_mul_sigmoid(g, (1, 0), zh, zl) bit for bit, for a normal finite g
 * (2^-126 <= |g| < inf), the one-argument activations' case. What is left
 * out is exact: split_exp of a normal g is its bits (no denormal scaling),
 * split_exp(1) = 1 * 2^0, ul = +0, and df_mul_f((1, +0), G) = (G, +0)
 * (fma(1, G, -G) = +0, +0 + +-0 = +0); in df_mul((G, +0), s) the term
 * +0 * s.hi is +0 (s.hi > 0) and adding it changes only the sign of a zero
 * lo, which no later step can see (fma(G, s.hi, -p) is never -0). */
BICL_FN float bicl_m_mul_sigmoid_1(float g, float zh, float zl)
{
    bicl_f32x2e s;
    bicl_u32 b;
    float gh;
    float p;
    if (zh < -300.0f) {
        return bicl_f32_copysign(0.0f, g);
    }
    s = bicl_m_sigmoid_sat(zh, zl);
    b = bicl_f32_as_u32(g);
    gh = bicl_u32_as_f32((b & 0x807fffffu) | 0x3f800000u);
    p = gh * s.hi;
    return bicl_df_ldexp_round(bicl_df(p, bicl_fmaf(gh, s.hi, -p) + gh * s.lo),
                               (bicl_i32)((b >> 23) & 0xffu) - 127 + s.k);
}

/* x * s as a pair times 2^k, for a normal x and s = sigmoid(..) = 2^s.k (s.hi + s.lo):
 * the pair of bicl_m_mul_sigmoid_1 before its rounding. */
BICL_FN bicl_f32x2e bicl_m_x_times_df(float x, bicl_f32x2e s)
{
    bicl_f32x2e out;
    bicl_u32 b = bicl_f32_as_u32(x);
    float gh = bicl_u32_as_f32((b & 0x807fffffu) | 0x3f800000u);
    float p = gh * s.hi;
    out.hi = p;
    out.lo = bicl_fmaf(gh, s.hi, -p) + gh * s.lo;
    out.k = (bicl_i32)((b >> 23) & 0xffu) - 127 + s.k;
    return out;
}

/* The common range of gelu (erf) and gelu_tanh, (lo, hi) without |x| < 2^-60 (NaN
 * excluded): 0 there, 1 elsewhere. */
BICL_FN int bicl_m_gelu_common(float x, float hi, float lo)
{
    return ((x < hi) & (x > lo) & (bicl_f32_abs(x) >= 0x1p-60f)) ? 0 : 1;
}

/* The special cases of the gelu family, x Phi(x) with Phi rising from 0 to 1: NaN
 * (quieted), +-0 and x >= hi give x (hi: where 1 - Phi is below half an ulp of x),
 * x <= lo gives -0 (lo: where |x| Phi(x) is below 2^-150), |x| < 2^-60 gives x/2 with
 * ties up (the x^2 term is positive and only a tie sees it). */
BICL_FN int bicl_m_gelu_special(float x, float hi, float lo, float *out)
{
    if (bicl_m_gelu_common(x, hi, lo) <= 0) {
        return 0;
    }
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (x == 0.0f || x >= hi) {
        *out = x;
        return 1;
    }
    if (x <= lo) {
        *out = -0.0f;
        return 1;
    }
    if (bicl_f32_abs(x) < 0x1p-60f) {
        *out = bicl_m_half_tie_up(x);
        return 1;
    }
    return 0;
}

/* ---------------------------------------------------------- erf and Phi */
/* erf and gelu (erf), correctly rounded (math version 5): the formulas of
 * bicl_math_fx.h ("erf and erfc": z S(z^2) for z < 0.75, the table and Hermite series
 * of erfc above), evaluated in double, in float pairs and in integers; gelu's double
 * path has one formula for every z since 2026-12-06 (bicl_m_erfc_all_d). */
#define BICL_M_ERF_C0H 0x1.20dd76p+0f /* 2/sqrt(pi) = C0H + C0L + O(2^-50) */
#define BICL_M_ERF_C0L -0x1.f7ac92p-25f

/* a + b for float pairs (no ordering needed; relative error about 2^-44 where the
 * sum does not cancel). */
BICL_FN bicl_f32x2 bicl_df_add(bicl_f32x2 a, bicl_f32x2 b)
{
    bicl_f32x2 s = bicl_df_two_sum(a.hi, b.hi);
    return bicl_df_fast_two_sum(s.hi, s.lo + (a.lo + b.lo));
}

/* S(u) = erf(z) / z for u = z^2 < 0.5626 as a float pair: Horner in float for the
 * terms n = 13..6 (their sum is below 2^-18 of S, so float's rounding stays below
 * 2^-42 of it), in pairs for n = 5..0 (coefficients split in two floats); the first
 * omitted term is below 2^-52 of S. */
BICL_FN bicl_f32x2 bicl_m_erf_s_df(bicl_f32x2 u)
{
    float p = bicl_fmaf(u.hi, -0x1.d8453cp-38f, 0x1.9e6ad6p-34f);
    bicl_f32x2 q;
    p = bicl_fmaf(u.hi, p, -0x1.51d718p-30f);
    p = bicl_fmaf(u.hi, p, 0x1.fcc572p-27f);
    p = bicl_fmaf(u.hi, p, -0x1.5f742ep-23f);
    p = bicl_fmaf(u.hi, p, 0x1.b9e6cap-20f);
    p = bicl_fmaf(u.hi, p, -0x1.f4d25cp-17f);
    p = bicl_fmaf(u.hi, p, 0x1.f9a326p-14f);
    q = bicl_df_add(bicl_df(-0x1.c02db4p-11f, -0x1.02e162p-45f), bicl_df_mul_f(u, p));
    q = bicl_df_add(bicl_df(0x1.565bcep-8f, -0x1.e32b58p-33f), bicl_df_mul(u, q));
    q = bicl_df_add(bicl_df(-0x1.b82ce4p-6f, 0x1.daee96p-31f), bicl_df_mul(u, q));
    q = bicl_df_add(bicl_df(0x1.ce2f22p-4f, -0x1.7ef508p-30f), bicl_df_mul(u, q));
    q = bicl_df_add(bicl_df(-0x1.812746p-2f, -0x1.606f3cp-27f), bicl_df_mul(u, q));
    return bicl_df_add(bicl_df(BICL_M_ERF_C0H, BICL_M_ERF_C0L), bicl_df_mul(u, q));
}

/* floor(16 p) + 1 for a float 0 <= p < 2^19: the grid index k of z0 = k/16. */
BICL_FN float bicl_m_erf_grid(float p)
{
    float v = 16.0f * p;
    float kf = bicl_rintf(v);
    return (kf > v ? kf - 1.0f : kf) + 1.0f;
}

/* erfc(p + pl) as 2^k (hi + lo) for a float p >= 0.75 and |pl| < ulp(p)/2 + ulp(p)/4
 * (then z < z0 as in bicl_fx_erfc): the bracket R + c0 h T in pairs (R from the
 * table's leading 48 bits, truncated: 2^-43; b_n, T in pairs, n <= 18: the first
 * omitted term is below 2^-46), times e^(-z0^2) from bicl_m_exp_df (about 2^-30,
 * the largest error of this path). */
BICL_FN bicl_f32x2e bicl_m_erfc_df(float p, float pl)
{
    float kf = bicl_m_erf_grid(p);
    bicl_f32x2 h = bicl_df_two_sum(kf * 0.0625f - p, -pl); /* the difference is exact */
    bicl_f32x2 a = bicl_df_mul_f(h, 0.125f * kf);          /* A = 2 z0 h */
    bicl_f32x2 b2 = bicl_df_mul(h, h);
    bicl_f32x2 bp = bicl_df(1.0f, 0.0f);
    bicl_f32x2 bc = a;
    bicl_f32x2 t = bicl_df_add(bp, bicl_df(0.5f * a.hi, 0.5f * a.lo));
    bicl_u64 r = bicl_fx_erfcx_tab[(bicl_i32)kf - BICL_FX_ERF_K0];
    bicl_f32x2e e;
    bicl_f32x2e out;
    bicl_f32x2 q;
    bicl_i32 n;
    b2 = bicl_df(2.0f * b2.hi, 2.0f * b2.lo);
    for (n = 2; n <= 18; n++) {
        bicl_f32x2 m = bicl_df_mul(b2, bp);
        bicl_f32x2 bn = bicl_df_add(bicl_df_mul(a, bc), bicl_df(-m.hi, -m.lo));
        bn = bicl_df_div(bn, bicl_df((float)n, 0.0f));
        bp = bc;
        bc = bn;
        t = bicl_df_add(t, bicl_df_div(bn, bicl_df((float)(n + 1), 0.0f)));
    }
    q = bicl_df_mul(bicl_df_mul(bicl_df(BICL_M_ERF_C0H, BICL_M_ERF_C0L), h), t);
    q = bicl_df_add(bicl_df((float)(bicl_u32)(r >> 40) * 0x1p-24f,
                            (float)(bicl_u32)((r >> 16) & 0xffffffUL) * 0x1p-48f),
                    q);
    e = bicl_m_exp_df(-(kf * kf) * 0x1p-8f, 0.0f);
    q = bicl_df_mul(bicl_df(e.hi, e.lo), q);
    out.hi = q.hi;
    out.lo = q.lo;
    out.k = e.k;
    return out;
}

#ifdef BICL_HAVE_FP64
#define BICL_M_ERF_C0_D 0x1.20dd750429b6dp+0 /* 2/sqrt(pi) */
#define BICL_M_ISQ2_D   0x1.6a09e667f3bcdp-1 /* 1/sqrt2 = ISQ2_D + ISQ2_DL + O(2^-108) */
#define BICL_M_ISQ2_DL  -0x1.bdd3413b26456p-55

/* S(u) = erf(z) / z for u = z^2 < 0.5626, in double: Horner from n = 15
 * (coefficients rounded to double; the first omitted term is below 2^-62),
 * relative error about 2^-52. */
BICL_FN double bicl_m_erf_s_d(double u)
{
    double p = bicl_fma(u, -0x1.f56f071a885cfp-46, 0x1.f683ae4a97007p-42);
    p = bicl_fma(u, p, -0x1.d8453cb0c46eap-38);
    p = bicl_fma(u, p, 0x1.9e6ad5e55a730p-34);
    p = bicl_fma(u, p, -0x1.51d7181c5d36dp-30);
    p = bicl_fma(u, p, 0x1.fcc5720624c1cp-27);
    p = bicl_fma(u, p, -0x1.5f742ec43e71ap-23);
    p = bicl_fma(u, p, 0x1.b9e6c9dc651a3p-20);
    p = bicl_fma(u, p, -0x1.f4d25c3e0c2ebp-17);
    p = bicl_fma(u, p, 0x1.f9a326f9b89b7p-14);
    p = bicl_fma(u, p, -0x1.c02db40040b86p-11);
    p = bicl_fma(u, p, 0x1.565bcd0e6a53fp-8);
    p = bicl_fma(u, p, -0x1.b82ce31288b51p-6);
    p = bicl_fma(u, p, 0x1.ce2f21a042be2p-4);
    p = bicl_fma(u, p, -0x1.812746b0379e7p-2);
    return bicl_fma(u, p, BICL_M_ERF_C0_D);
}

/* 1/n rounded to double, n = 2..21 (0 and 1 unused): bicl_m_erfc_d multiplies by
 * them instead of dividing (a double division is a call-sized sequence on GPUs, 38 of
 * them per element made gelu (erf) f32 run at 0.05 of the copy bandwidth on the H200);
 * the extra rounding, 2^-53 relative per term, stays within the bound below. */
/* clang-format off */
BICL_TABLE double bicl_m_recip_int_d[22] = {
    0.0, 0.0, 0x1.0000000000000p-1,
    0x1.5555555555555p-2, 0x1.0000000000000p-2, 0x1.999999999999ap-3,
    0x1.5555555555555p-3, 0x1.2492492492492p-3, 0x1.0000000000000p-3,
    0x1.c71c71c71c71cp-4, 0x1.999999999999ap-4, 0x1.745d1745d1746p-4,
    0x1.5555555555555p-4, 0x1.3b13b13b13b14p-4, 0x1.2492492492492p-4,
    0x1.1111111111111p-4, 0x1.0000000000000p-4, 0x1.e1e1e1e1e1e1ep-5,
    0x1.c71c71c71c71cp-5, 0x1.af286bca1af28p-5, 0x1.999999999999ap-5,
    0x1.8618618618618p-5,
};
/* clang-format on */

/* erfc(zh + zl) for doubles 0.75 <= zh <= 10.26, |zl| <= ulp(zh): the formulas of
 * bicl_fx_erfc in double (n <= 20: the first omitted term is below 2^-56; R to
 * double from its 64 bits in two exact conversions), e^(-z0^2) by
 * bicl_m_exp_fast_d; relative error below 2^-50. h may come out a hair below 0
 * (zl > 0 and zh on the grid): the series holds for either sign. */
BICL_FN double bicl_m_erfc_d(double zh, double zl)
{
    double k = bicl_floor_d(16.0 * zh) + 1.0;
    double z0 = 0.0625 * k;
    double h = (z0 - zh) - zl; /* z0 - zh is exact (Sterbenz) */
    double a = 0.125 * k * h;  /* 2 z0 h */
    double b2 = 2.0 * h * h;
    double bp = 1.0;
    double bc = a;
    double t = 1.0 + 0.5 * a;
    bicl_u64 r = bicl_fx_erfcx_tab[(bicl_i32)k - BICL_FX_ERF_K0];
    bicl_i32 n;
    bicl_i32 ke;
    double e;
    for (n = 2; n <= 20; n++) {
        double bn = (a * bc - b2 * bp) * bicl_m_recip_int_d[n];
        bp = bc;
        bc = bn;
        t = t + bn * bicl_m_recip_int_d[n + 1];
    }
    e = bicl_m_exp_fast_d(-(z0 * z0), &ke);
    return e *
           (((double)(bicl_i64)(r >> 11) * 0x1p-53 + (double)(bicl_i64)(r & 0x7ffUL) * 0x1p-64) +
            BICL_M_ERF_C0_D * (h * t)) *
           bicl_f64_pow2(ke);
}
#endif

/* erf: correctly rounded, three implementations (BICL_M_CR1). Decided without
 * evaluation: NaN, +-0, |x| >= 3.92 (erfc(3.92) < 2^-25.9, below the boundary
 * 1 - 2^-25: +-1; also +-inf). erf of a nonzero float is transcendental, never a
 * midpoint. Below 0.75: x S(x^2) (x^2 exact); above: 1 - erfc(|x|), erfc <= 0.29. */
BICL_FN int bicl_m_erf_special(float x, float *out)
{
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (bicl_f32_abs(x) >= 3.92f) {
        *out = bicl_f32_copysign(1.0f, x);
        return 1;
    }
    if (x == 0.0f) {
        *out = x;
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_erf_fx(float x)
{
    float ax = bicl_f32_abs(x);
    bicl_fx v;
    if (ax < 0.75f) {
        v = bicl_fx_erf_small(bicl_fx_of_f32(x));
    } else {
        v.m = 0x8000000000000000UL - bicl_fx_to_fixed(bicl_fx_erfc(ax, 0), 63);
        v.e = -63;
    }
    return bicl_fx_round(v, x < 0.0f);
}

/* Tiny |x| (< 2^-80) is scaled by 2^64 so that no product underflows. */
BICL_FN bicl_f32x2e bicl_m_erf_pair(float x)
{
    float ax = bicl_f32_abs(x);
    bicl_f32x2e out;
    bicl_f32x2 v;
    out.k = 0;
    if (ax < 0.75f) {
        float xs = ax;
        if (ax < 0x1p-80f) {
            xs = ax * 0x1p64f;
            out.k = -64;
        }
        v = bicl_df_mul_f(bicl_m_erf_s_df(bicl_df_two_prod(ax, ax)), xs);
    } else {
        bicl_f32x2e c = bicl_m_erfc_df(ax, 0.0f);
        float s = bicl_m_pow2i(c.k); /* erfc >= 2^-27: normal */
        v = bicl_df_fast_two_sum(1.0f, -c.hi * s);
        v.lo = v.lo - c.lo * s;
    }
    out.hi = x < 0.0f ? -v.hi : v.hi;
    out.lo = x < 0.0f ? -v.lo : v.lo;
    return out;
}

#ifdef BICL_HAVE_FP64
BICL_FN double bicl_m_erf_dbl(float x)
{
    double ax = bicl_f64_abs((double)x);
    double r = ax < 0.75 ? ax * bicl_m_erf_s_d(ax * ax) : 1.0 - bicl_m_erfc_d(ax, 0.0);
    return x < 0.0f ? -r : r;
}
#endif

#define BICL_M_ZIV_REL_ERF_F32 0x1p-28f
BICL_M_CR1(bicl_erff, bicl_m_erf_special, bicl_m_erf_fx, bicl_m_erf_pair, BICL_M_ZIV_REL_ERF_F32,
           bicl_m_erf_dbl)

/* gelu (erf): x Phi(x), Phi(x) = (1 + erf(z))/2 = erfc(-z)/2, z = x / sqrt2 the exact
 * real quotient, correctly rounded as one function; three implementations
 * (BICL_M_CR1). With z = |x| / sqrt2, in the float-pair and integer paths: below 0.75,
 * Phi = 1/2 +- erf(z)/2 (erf <= 0.72: no cancellation to speak of); above, Phi = 1 -
 * erfc(z)/2 for x > 0 and erfc(z)/2 for x < 0, where erfc keeps its relative accuracy
 * down to the subnormal results; the double path takes the latter for every z.
 * Decided without evaluation: NaN, +-0; x >= 5.5 (Q(5.5) < 2^-25.6, below half an
 * ulp of x relative: rounds to x; also +inf); x <= -14.5 (|gelu| < 14.5 Q(14.5) <
 * 2^-153: -0; also -inf); |x| < 2^-60 (x/2 + x^2/sqrt(2 pi): only a tie sees the x^2
 * term, which is positive). x/2 + c x^2 with c irrational is never a midpoint for a
 * larger x, nor is gelu of a nonzero float elsewhere. */
#define BICL_M_GELU_ERF_HI 5.5f
#define BICL_M_GELU_ERF_LO (-14.5f)
BICL_FN int bicl_m_gelu_erf_common(float x)
{
    return bicl_m_gelu_common(x, BICL_M_GELU_ERF_HI, BICL_M_GELU_ERF_LO);
}

BICL_FN int bicl_m_gelu_erf_special(float x, float *out)
{
    return bicl_m_gelu_special(x, BICL_M_GELU_ERF_HI, BICL_M_GELU_ERF_LO, out);
}

/* The integer path: z = |x| / sqrt2 from 1/sqrt2 at 64 bits below 0.75 (erf's
 * sensitivity to z is at most 1), and as p + rl 2^-66 from three exact products
 * above (erfc's is 2z: z to 2^-64 absolute). */
BICL_FN float bicl_m_gelu_erf_fx(float x)
{
    float t = bicl_f32_abs(x);
    float p = t * BICL_M_ISQ2_1;
    bicl_fx phi;
    if (p < 0.75f) {
        bicl_fx z = bicl_fx_of_f32(t);
        bicl_u64 e;
        z.m = bicl_fx_mulhi(z.m, BICL_FX_ISQ2);
        e = bicl_fx_to_fixed(bicl_fx_erf_small(bicl_fx_norm(z)), 63);
        phi.m = x < 0.0f ? 0x8000000000000000UL - e : 0x8000000000000000UL + e;
        phi.e = -64;
    } else {
        bicl_fx c = bicl_fx_erfc(p, bicl_fx_div_sqrt2_low(t, p));
        if (x < 0.0f) {
            phi.m = c.m;
            phi.e = c.e - 1;
        } else {
            phi.m = 0x8000000000000000UL - bicl_fx_to_fixed(c, 62);
            phi.e = -63;
        }
    }
    return bicl_fx_round(bicl_fx_mul_f32(phi, x), x < 0.0f);
}

/* The float-pair path: z = p + pl, p = |x| s1 rounded, pl its exact remainder plus
 * |x| s2 (2^-48 relative). */
BICL_FN bicl_f32x2e bicl_m_gelu_erf_pair(float x)
{
    float t = bicl_f32_abs(x);
    float p = t * BICL_M_ISQ2_1;
    float pl = bicl_fmaf(t, BICL_M_ISQ2_1, -p) + t * BICL_M_ISQ2_2;
    bicl_f32x2e phi;
    phi.k = 0;
    if (p < 0.75f) {
        bicl_f32x2 z = bicl_df_fast_two_sum(p, pl);
        bicl_f32x2 u = bicl_df_two_prod(z.hi, z.hi); /* z^2 = u + 2 z.hi z.lo + ... */
        bicl_f32x2 e;
        u.lo = u.lo + 2.0f * z.hi * z.lo;
        e = bicl_df_mul(bicl_m_erf_s_df(u), z);
        float s = x < 0.0f ? -0.5f : 0.5f;
        bicl_f32x2 f = bicl_df_fast_two_sum(0.5f, s * e.hi);
        phi.hi = f.hi;
        phi.lo = f.lo + s * e.lo;
    } else {
        bicl_f32x2e c = bicl_m_erfc_df(p, pl);
        if (x < 0.0f) {
            phi = c;
            phi.k = c.k - 1;
        } else {
            float s = bicl_m_pow2i(c.k - 1); /* erfc >= 2^-27: normal */
            bicl_f32x2 f = bicl_df_fast_two_sum(1.0f, -c.hi * s);
            phi.hi = f.hi;
            phi.lo = f.lo - c.lo * s;
        }
    }
    return bicl_m_x_times_df(x, phi);
}

#ifdef BICL_HAVE_FP64
/* erfcx(z) = e^(z^2) erfc(z) for a double 0 <= z <= 10.27 as a quotient P(z) / Q(z) of two
 * polynomials of degree 9 (P(0) = Q(0) = 1, erfcx(0)): a rational fit of erfcx's relative
 * error over z in [0, 10.27] in mpmath (tools/fit_erfcx.py: linearised least squares with
 * Lawson's reweighting towards the minimax, Q rounded to double and P fitted again against
 * it, then rounded). The rounded quotient is within 2^-53.25 of erfcx, relative (mpmath,
 * 4001 points of [0, 10.27]: sampled, not a proven bound). Every coefficient of Q and all
 * but P's last (-2^-44.5, whose term is below 2^-30.7 of P's value) are positive, so
 * Horner's sums do not cancel for z >= 0: each polynomial is within a few roundings of its
 * value. */
BICL_FN double bicl_m_erfcx_p_d(double z)
{
    double p = -0x1.6fe37e23cb418p-45;
    p = bicl_fma(p, z, 0x1.354e78a0f0b2dp-13);
    p = bicl_fma(p, z, 0x1.5a1039a2ac51bp-9);
    p = bicl_fma(p, z, 0x1.7334bbe99d2cfp-6);
    p = bicl_fma(p, z, 0x1.ed745bec386d1p-4);
    p = bicl_fma(p, z, 0x1.ba9501ac5dc0ap-2);
    p = bicl_fma(p, z, 0x1.12450e7e9655dp+0);
    p = bicl_fma(p, z, 0x1.cd2454b66c4b4p+0);
    p = bicl_fma(p, z, 0x1.e703ad3d6e5dbp+0);
    return bicl_fma(p, z, 1.0);
}

BICL_FN double bicl_m_erfcx_q_d(double z)
{
    double p = 0x1.121da2e9c803dp-12;
    p = bicl_fma(p, z, 0x1.32b0d1bd4b835p-8);
    p = bicl_fma(p, z, 0x1.4a0b2055b24dfp-5);
    p = bicl_fma(p, z, 0x1.ba1add364d987p-3);
    p = bicl_fma(p, z, 0x1.9270e14c994eap-1);
    p = bicl_fma(p, z, 0x1.006ef7e7ab47bp+1);
    p = bicl_fma(p, z, 0x1.c729a28090b41p+1);
    p = bicl_fma(p, z, 0x1.0e2832d053028p+2);
    p = bicl_fma(p, z, 0x1.83f09120cc0bap+1);
    return bicl_fma(p, z, 1.0);
}

/* erfc(zh + zl) = p / q for doubles 0 <= zh <= 10.27, |zl| <= 2^-52 zh, as e^(-z^2)
 * erfcx(z) with both quotients under one division: z^2 = s + sl, s = zh^2 rounded and sl
 * its exact remainder plus 2 zh zl (|sl| < 2^-43); e^-s = pe / qe (bicl_m_exp_quot_d,
 * 2^k folded into pe); e^(-z^2) = e^-s (1 - sl) to 2^-86; erfcx at zh (its relative change
 * over zl is below 2^-52); p = pe P(zh) (1 - sl), q = qe Q(zh). The polynomial of degree
 * 20 in t = (z - 4) / (z + 4) it replaces had one division too (t's), and e^-s by the
 * degree-10 exp polynomial: 45 double operations in erfc then, 38 now (counted in the
 * source), and three independent chains of about 9 (P, Q, the exp quotient) where a
 * division fed 20 dependent fma (docs/performance.md). Error, as a sum of worst cases:
 * the exp quotient's 2^-53.2 and its reduction's 2^-54, erfcx's 2^-53.25 and its
 * evaluation at zh (2^-52), and roundings of 2^-53: pe and qe (3 each, as sigmoid
 * counts them), P and Q (9 each at most: Horner over positive terms), the two products
 * and the correction (1 each), then the caller's division and gelu's two steps: about
 * 2^-47.9. Ziv's test (2^-48) keeps a factor 2 of margin where the result is a normal
 * float (bicl_m_round_test_normal_d), not for gelu's subnormal results (x in (-14.5,
 * -13.15)); there correct rounding rests on the exhaustive runs (docs/accuracy.md), as
 * it does everywhere. Against MPFR on three samples of 300,000 inputs of gelu's range:
 * erfc within 2^-49.91 to 2^-50.03, gelu within 2^-49.92 to 2^-50.00 (the former path
 * 2^-50.39 to 2^-50.46 and 2^-50.31 to 2^-50.35; docs/results/gelu-erfc-error-session31.txt). */
BICL_FN bicl_m_exp_quot bicl_m_erfc_quot_d(double zh, double zl)
{
    double s = zh * zh;
    double sl = bicl_fma(zh, zh, -s) + 2.0 * zh * zl;
    bicl_m_exp_quot e = bicl_m_exp_quot_d(-s);
    bicl_m_exp_quot out;
    double n = e.p * bicl_m_erfcx_p_d(zh);
    out.p = bicl_fma(-n, sl, n);
    out.q = e.q * bicl_m_erfcx_q_d(zh);
    return out;
}

/* erfc(zh + zl) for doubles 0 <= zh <= 10.27, |zl| <= 2^-52 zh (bicl_m_erfc_quot_d),
 * without a branch and without a table (the grid and series of bicl_m_erfc_d take 19
 * terms and a table read per element, and gelu's two paths below and above z = 0.75
 * diverged in a warp: gelu (erf) f32 ran at 0.12-0.18 of copy on normal inputs,
 * docs/performance.md). Its error: bicl_m_erfc_quot_d; gelu's correct rounding is proven
 * exhaustively (docs/accuracy.md). */
BICL_FN double bicl_m_erfc_all_d(double zh, double zl)
{
    bicl_m_exp_quot c = bicl_m_erfc_quot_d(zh, zl);
    return c.p / c.q;
}

/* The double path: z = |x| / sqrt2 as a double-double (|x| times 1/sqrt2's double
 * by an exact fma remainder, plus |x| times its low part): relative error 2^-106
 * (bicl_m_gelu_z_d); Phi = erfc(z) / 2 for x < 0 and 1 - erfc(z) / 2 above (at least
 * 1/2: erfc's relative error counts at most once), and x Phi (bicl_m_gelu_of_erfc_d);
 * erfc by bicl_m_erfc_all_d on the whole range, one path for every x. */
BICL_FN void bicl_m_gelu_z_d(float x, double *zh, double *zl)
{
    double t = bicl_f64_abs((double)x);
    *zh = t * BICL_M_ISQ2_D;
    *zl = bicl_fma(t, BICL_M_ISQ2_D, -*zh) + t * BICL_M_ISQ2_DL;
}

BICL_FN double bicl_m_gelu_of_erfc_d(float x, double c)
{
    double phi = x < 0.0f ? 0.5 * c : 1.0 - 0.5 * c;
    return (double)x * phi;
}

BICL_FN double bicl_m_gelu_erf_dbl(float x)
{
    double zh;
    double zl;
    bicl_m_gelu_z_d(x, &zh, &zl);
    return bicl_m_gelu_of_erfc_d(x, bicl_m_erfc_all_d(zh, zl));
}
#endif

BICL_M_CR1(bicl_gelu_erf, bicl_m_gelu_erf_special, bicl_m_gelu_erf_fx, bicl_m_gelu_erf_pair,
           BICL_M_ZIV_REL_ERF_F32, bicl_m_gelu_erf_dbl)
/* a fast form since its double path has one branch-free path (2026-12-06) */
BICL_M_CR_FAST1(bicl_gelu_erf, bicl_m_gelu_erf_common, bicl_m_gelu_erf_dbl)

/* ------------------------------------------------------------- activations */
BICL_FN float bicl_relu(float x)
{
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x);
    }
    return x > 0.0f ? x : 0.0f;
}

BICL_FN float bicl_relu2(float x)
{
    float r;
    if (bicl_f32_is_nan(x)) {
        return bicl_f32_quiet(x); /* not r * r: hardware may rewrite NaN bits */
    }
    r = x > 0.0f ? x : 0.0f;
    return r * r;
}

/* round(x * sigmoid(a x)) for non-NaN x and finite a > 0 (the callers'
 * constants). */
BICL_FN float bicl_m_x_sigmoid_ax(float x, float a)
{
    float zh;
    if (x == 0.0f) {
        return x;
    }
    if (bicl_f32_abs(x) < 0x1p-60f) {
        return bicl_m_half_tie_up(x);
    }
    zh = a * x;
    if (zh > 30.0f) { /* also x = +inf */
        return x;
    }
    if (zh < -200.0f) { /* also x = -inf */
        return -0.0f;
    }
    return bicl_m_mul_sigmoid_1(x, zh, bicl_fmaf(a, x, -zh)); /* |x| >= 2^-60 */
}

/* silu(x) = x sigmoid(x), correctly rounded as one function; three implementations
 * as for exp. The cases decided without evaluation are those of
 * bicl_m_x_sigmoid_ax: +-0, |x| < 2^-60 (x/2 + x^2/4: only a tie sees x^2),
 * x > 30 (x (1 - e^-x) rounds to x) and x < -200 (below 2^-150: -0). */
/* the common range (as bicl_m_sigmoid_common); down to -80 the result is normal
 * (|silu(-80)| > 80 e^-80 / 2 > 2^-110) */
BICL_FN int bicl_m_silu_common(float x)
{
    if ((x <= 30.0f) & (x >= -200.0f) & (bicl_f32_abs(x) >= 0x1p-12f)) {
        return x >= BICL_M_SILU_NORMAL_LO ? -1 : 0;
    }
    return 1;
}

BICL_FN int bicl_m_silu_special(float x, float *out)
{
    int c = bicl_m_silu_common(x);
    if (c <= 0) {
        return c;
    }
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (x == 0.0f) {
        *out = x;
        return 1;
    }
    if (bicl_f32_abs(x) < 0x1p-60f) {
        *out = bicl_m_half_tie_up(x);
        return 1;
    }
    if (x > 30.0f) { /* also +inf */
        *out = x;
        return 1;
    }
    if (x < -200.0f) { /* also -inf */
        *out = -0.0f;
        return 1;
    }
    if (bicl_f32_abs(x) < 0x1p-12f) {
        /* x/2 + x^2/4 - x^4/48 + ...: x/2 + x^2/4 is exact as x/2 + (p + q)/4,
         * p + q = x^2 (TwoProd), on a grid of ulp(x^2)/4 that the correction
         * x^4/48 cannot jump (|x| < 2^-12); q/4 joins the correction (it is
         * below half that grid step). For |x| < 2^-40 the result is x/2. */
        bicl_f32x2 p = bicl_df_two_prod(x, x);
        bicl_f32x2 t = bicl_df_two_sum(0.5f * x, 0.25f * p.hi);
        *out = bicl_m_round_near(t.hi, t.lo, 0.25f * p.lo - (p.hi * p.hi) / 48.0f);
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_silu_fx(float x)
{
    return bicl_fx_round(bicl_fx_mul_f32(bicl_fx_sigmoid(x), x), x < 0.0f);
}

BICL_FN bicl_f32x2e bicl_m_silu_pair(float x)
{
    return bicl_m_x_times_df(x, bicl_m_sigmoid_df(x, 0.0f));
}

#ifdef BICL_HAVE_FP64
BICL_FN double bicl_m_silu_dbl(float x)
{
    return (double)x * bicl_m_sigmoid_fast_d((double)x);
}
#endif

BICL_M_CR1(bicl_silu, bicl_m_silu_special, bicl_m_silu_fx, bicl_m_silu_pair, BICL_M_ZIV_REL_F32,
           bicl_m_silu_dbl)
BICL_M_CR_FAST1(bicl_silu, bicl_m_silu_common, bicl_m_silu_dbl)

/* gelu_quick(x) = x sigmoid(a x), a = 1.702f, correctly rounded as one function
 * (the product a x is an exact pair); three implementations as for silu. The
 * cases decided without evaluation are those of bicl_m_x_sigmoid_ax. Near zero
 * x/2 + a x^2/4 is never an exact midpoint (a's odd 24-bit mantissa keeps the low
 * bits of a x^2), so the bounded-error paths decide there too. */
#define BICL_M_GELU_QUICK_A 1.702f
/* the common range (as bicl_m_sigmoid_common); where a x >= -80 the result is normal
 * (|x| sigmoid(a x) is smallest at the ends: 47 e^-80 / 2 > 2^-111 and about |x| / 2 >=
 * 2^-61) */
BICL_FN int bicl_m_gelu_quick_common(float x)
{
    float zh = BICL_M_GELU_QUICK_A * x;
    if ((zh <= 30.0f) & (zh >= -200.0f) & (bicl_f32_abs(x) >= 0x1p-60f)) {
        return zh >= BICL_M_GELU_QUICK_NORMAL_LO ? -1 : 0;
    }
    return 1;
}

BICL_FN int bicl_m_gelu_quick_special(float x, float *out)
{
    float zh = BICL_M_GELU_QUICK_A * x;
    int c = bicl_m_gelu_quick_common(x);
    if (c <= 0) {
        return c;
    }
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (x == 0.0f) {
        *out = x;
        return 1;
    }
    if (bicl_f32_abs(x) < 0x1p-60f) {
        *out = bicl_m_half_tie_up(x);
        return 1;
    }
    if (zh > 30.0f) { /* also x = +inf */
        *out = x;
        return 1;
    }
    if (zh < -200.0f) { /* also x = -inf */
        *out = -0.0f;
        return 1;
    }
    return 0;
}

BICL_FN float bicl_m_gelu_quick_fx(float x)
{
    float zh = BICL_M_GELU_QUICK_A * x;
    bicl_fx s = bicl_fx_sigmoid_df(zh, bicl_fmaf(BICL_M_GELU_QUICK_A, x, -zh));
    return bicl_fx_round(bicl_fx_mul_f32(s, x), x < 0.0f);
}

BICL_FN bicl_f32x2e bicl_m_gelu_quick_pair(float x)
{
    float zh = BICL_M_GELU_QUICK_A * x;
    return bicl_m_x_times_df(x, bicl_m_sigmoid_df(zh, bicl_fmaf(BICL_M_GELU_QUICK_A, x, -zh)));
}

#ifdef BICL_HAVE_FP64
/* a x is exact in double (two 24-bit mantissas) */
BICL_FN double bicl_m_gelu_quick_dbl(float x)
{
    return (double)x * bicl_m_sigmoid_fast_d((double)BICL_M_GELU_QUICK_A * (double)x);
}
#endif

BICL_M_CR1(bicl_gelu_quick, bicl_m_gelu_quick_special, bicl_m_gelu_quick_fx, bicl_m_gelu_quick_pair,
           BICL_M_ZIV_REL_F32, bicl_m_gelu_quick_dbl)
BICL_M_CR_FAST1(bicl_gelu_quick, bicl_m_gelu_quick_common, bicl_m_gelu_quick_dbl)

/* gelu_tanh(x) = 0.5 x (1 + tanh(u)), u = c (x + d x^3) taken exactly with the
 * constants c = 0.7978845608f and d = 0.044715f, correctly rounded as one
 * function; computed as x sigmoid(z), z = 2u (an identity: no cancellation for
 * x < 0), three implementations (BICL_M_CR1). Decided without evaluation: NaN,
 * +-0; x >= 10 (z >= 87.3, so 1 - sigmoid(z) < 2^-125 and the result rounds to
 * x; also +inf); x <= -11 (z <= -112.5, |x| sigmoid(z) < 11 e^-112.5 < 2^-158
 * over [-16, -11] and smaller beyond: -0; also -inf); |x| < 2^-60 (x/2 + c x^2/2:
 * only a tie sees the x^2 term). Elsewhere z's error is multiplied by up to |z|
 * in the result, so each path forms z more exactly than its own bound. */
#define BICL_M_GELU_TANH_C2 (2.0f * 0.7978845608f) /* exact doubling */
#define BICL_M_GELU_TANH_D  0.044715f

#define BICL_M_GELU_TANH_HI 10.0f
#define BICL_M_GELU_TANH_LO (-11.0f)
BICL_FN int bicl_m_gelu_tanh_common(float x)
{
    return bicl_m_gelu_common(x, BICL_M_GELU_TANH_HI, BICL_M_GELU_TANH_LO);
}

BICL_FN int bicl_m_gelu_tanh_special(float x, float *out)
{
    return bicl_m_gelu_special(x, BICL_M_GELU_TANH_HI, BICL_M_GELU_TANH_LO, out);
}

/* The integer path: z = c2 x + (c2 d) x^3 as a float zh plus a fixed-point low
 * part at 2^-64. c2 x, c2 d, x^2 = p + q and x^3 = x p + x q are split exactly
 * (TwoProd), and so are the products of (c2 d) with x^3's parts that reach above
 * 2^-64; every part except the two leading ones is below 2^-16 and enters the
 * fixed-point sum truncated (one unit each), the leading two through an exact
 * TwoSum. |x| <= 13.5 (gelu_tanh: 11; bicl_geglu_tanh1: 13.5), so |zh| < 200 and every
 * low part stays below 2^-16 (bicl_fx_exp_r: |zh| <= 300). Products that
 * underflow lie far below 2^-64. Error of z below 2^-60 absolute, which is the
 * relative error it adds to the result. */
BICL_FN bicl_fx bicl_m_gelu_tanh_fxv(float x)
{
    bicl_f32x2 cd = bicl_df_two_prod(BICL_M_GELU_TANH_C2, BICL_M_GELU_TANH_D);
    bicl_f32x2 a = bicl_df_two_prod(BICL_M_GELU_TANH_C2, x);
    bicl_f32x2 x2 = bicl_df_two_prod(x, x);
    bicl_f32x2 b = bicl_df_two_prod(x, x2.hi);
    bicl_f32x2 bq = bicl_df_two_prod(x, x2.lo);
    bicl_f32x2 e1 = bicl_df_two_prod(cd.hi, b.hi);
    bicl_f32x2 e3 = bicl_df_two_prod(cd.hi, b.lo);
    bicl_f32x2 e5 = bicl_df_two_prod(cd.hi, bq.hi);
    bicl_f32x2 e8 = bicl_df_two_prod(cd.lo, b.hi);
    bicl_f32x2 z = bicl_df_two_sum(a.hi, e1.hi);
    bicl_i64 zl = bicl_fx_i64_from_f32(z.lo) + bicl_fx_i64_from_f32(a.lo) +
                  bicl_fx_i64_from_f32(e1.lo) + bicl_fx_i64_from_f32(e3.hi) +
                  bicl_fx_i64_from_f32(e3.lo) + bicl_fx_i64_from_f32(e5.hi) +
                  bicl_fx_i64_from_f32(e5.lo) + bicl_fx_i64_from_f32(cd.hi * bq.lo) +
                  bicl_fx_i64_from_f32(e8.hi) + bicl_fx_i64_from_f32(e8.lo) +
                  bicl_fx_i64_from_f32(cd.lo * b.lo) + bicl_fx_i64_from_f32(cd.lo * bq.hi);
    return bicl_fx_mul_f32(bicl_fx_sigmoid_r(z.hi, zl), x);
}

BICL_FN float bicl_m_gelu_tanh_fx(float x)
{
    return bicl_fx_round(bicl_m_gelu_tanh_fxv(x), x < 0.0f);
}

/* The float-pair path: math version 3's evaluation (z as a pair, relative error
 * about 2^-44, so at most 2^-36 absolute for |z| < 128; sigmoid as for silu). */
BICL_FN bicl_f32x2e bicl_m_gelu_tanh_pair(float x)
{
    bicl_f32x2 w = bicl_df_mul_f(bicl_df_two_prod(x, x), BICL_M_GELU_TANH_D); /* d x^2 */
    bicl_f32x2 y = bicl_df_two_sum(1.0f, w.hi);                               /* 1 + d x^2 */
    y.lo = y.lo + w.lo;
    y = bicl_df_mul_f(bicl_df_mul_f(y, x), BICL_M_GELU_TANH_C2); /* 2c (x + d x^3) */
    y = bicl_df_fast_two_sum(y.hi, y.lo);
    return bicl_m_x_times_df(x, bicl_m_sigmoid_sat(y.hi, y.lo));
}

#ifdef BICL_HAVE_FP64
/* sigmoid(zh + zl) for doubles, |zh| <= 700, |zl| <= 2^-40 |zh|: as
 * bicl_m_sigmoid_fast_d, with e^-|z| corrected by the factor 1 -+ zl (the
 * omitted zl^2/2 is below 2^-80 relative; the correction's product and sum round
 * twice). Relative error below 2^-49.27. */
BICL_FN double bicl_m_sigmoid_fast_dd(double zh, double zl)
{
    bicl_m_exp_quot e = bicl_m_exp_quot_d(-bicl_f64_abs(zh));
    e.p = e.p + e.p * (zh >= 0.0 ? -zl : zl);
    return bicl_m_sigmoid_of_quot_d(e, zh >= 0.0);
}

/* The double path: z = c2 x (1 + d x^2) as a pair zh + zl within 2^-103 |z|: c2 x and
 * x^2 are exact in double; v = 1 + d x^2 rounds once (v - 1 is then exact, v < 2^53)
 * and e = d x^2 - (v - 1), its residual below half an ulp of v, by one fma within
 * 2^-106 v; zh = c2x v and its exact remainder (fma), plus c2x e rounded once. Eight
 * double operations where the double-double z of products and sums took fifteen
 * (docs/performance.md, "gelu_tanh's z and softcap's quotient"). */
BICL_FN double bicl_m_gelu_tanh_dbl(float x)
{
    double xd = (double)x;
    double x2 = xd * xd;
    double v = bicl_fma((double)BICL_M_GELU_TANH_D, x2, 1.0);
    double e = bicl_fma((double)BICL_M_GELU_TANH_D, x2, -(v - 1.0));
    double c2x = (double)BICL_M_GELU_TANH_C2 * xd;
    double zh = c2x * v;
    return xd * bicl_m_sigmoid_fast_dd(zh, bicl_fma(c2x, e, bicl_fma(c2x, v, -zh)));
}
#endif

BICL_M_CR1(bicl_gelu_tanh, bicl_m_gelu_tanh_special, bicl_m_gelu_tanh_fx, bicl_m_gelu_tanh_pair,
           BICL_M_ZIV_REL_F32, bicl_m_gelu_tanh_dbl)
BICL_M_CR_FAST1(bicl_gelu_tanh, bicl_m_gelu_tanh_common, bicl_m_gelu_tanh_dbl)

/* softcap(x, cap) = c tanh(x / c), c = |cap| (the formula is even in cap), with
 * the quotient x / c taken as the exact real number (not the float quotient),
 * correctly rounded as one function of x for each cap; three implementations
 * (BICL_M_CR). Decided without evaluation, from the float quotient yh = |x| / c
 * (within half an ulp of y = |x| / c): NaN (x first, then cap); c = 0 gives the
 * canonical NaN; c = inf gives x (the limit) and so does x = +-0; yh >= 9.1
 * (y >= 9.1 (1 - 2^-24), 1 - tanh(y) < 2^-25.2: rounds to c, with x's sign;
 * also x = +-inf and an overflowing quotient); yh < 2^-13 (c tanh(y) = x (1 - d),
 * 0 < d < y^2/3 < 2^-27.5: rounds to x; also an underflowing quotient). tanh of
 * a nonzero rational is transcendental: never a midpoint. */
/* softcap's common range: 0 < |cap| and 2^-13 <= |x| / |cap| < 9.1 (the float quotient,
 * as below), which excludes every other case below (a NaN, a zero or infinite cap, x =
 * 0). With fp64 it is decided without the division, by two exact products: the float
 * quotient is below 9.1f exactly when the real one is below the midpoint M_HI = 9.1f -
 * 2^-21 between 9.1f and its predecessor (a tie rounds to 9.1f, whose mantissa is even),
 * and at least 2^-13 exactly when the real one is at least M_LO = 2^-13 - 2^-38 (a tie
 * rounds to 2^-13; no quotient of two floats lies that close below a power of two
 * anyway); M_HI c and M_LO c have 49 bits, no double overflows or underflows, and NaN,
 * zero and infinite operands fail a comparison where they fail the quotient's tests. A
 * float division is a call-sized sequence on NVIDIA's GPUs (softcap f32 ran at 0.54 of
 * copy on the H100 with it and the double quotient below, 0.72 with neither;
 * docs/performance.md). Without fp64 the quotient's divisor is
 * 1 where |cap| is not positive (zero or NaN), so that no host evaluation divides by zero
 * (it lies outside the range then anyway), and |cap| is a select, not a second bit mask:
 * PoCL's SLP pass packed the two masks and the quotient into a <2 x float> vector, which
 * kept its work-item loop scalar (softcap f32 1.7 GB/s against 6.7, docs/performance.md).
 * bicl_m_softcap_common_q is that quotient form, which bicl-math-identity compares with
 * this one (every x at caps 30 and 50, samples at 24 more caps, the x next to the bounds). */
#define BICL_M_SOFTCAP_HI 9.1f
#define BICL_M_SOFTCAP_LO 0x1p-13f
BICL_FN int bicl_m_softcap_common_q(float x, float cap)
{
    float c = cap < 0.0f ? -cap : cap;
    float yh = bicl_f32_abs(x) / (c > 0.0f ? c : 1.0f);
    return ((c > 0.0f) & (yh < BICL_M_SOFTCAP_HI) & (yh >= BICL_M_SOFTCAP_LO)) ? 0 : 1;
}

#ifdef BICL_HAVE_FP64
#define BICL_M_SOFTCAP_MID_HI ((double)BICL_M_SOFTCAP_HI - 0x1p-21)
#define BICL_M_SOFTCAP_MID_LO ((double)BICL_M_SOFTCAP_LO - 0x1p-38)
BICL_FN int bicl_m_softcap_common(float x, float cap)
{
    double c = bicl_f64_abs((double)cap);
    double ax = bicl_f64_abs((double)x);
    int in = (c > 0.0) & (ax < BICL_M_SOFTCAP_MID_HI * c) & (ax >= BICL_M_SOFTCAP_MID_LO * c);
    return in ? 0 : 1;
}
#else
BICL_FN int bicl_m_softcap_common(float x, float cap)
{
    return bicl_m_softcap_common_q(x, cap);
}
#endif

BICL_FN int bicl_m_softcap_special(float x, float cap, float *out)
{
    float c = bicl_f32_abs(cap);
    float yh;
    if (bicl_m_softcap_common(x, cap) <= 0) {
        return 0;
    }
    if (bicl_f32_is_nan(x)) {
        *out = bicl_f32_quiet(x);
        return 1;
    }
    if (bicl_f32_is_nan(cap)) {
        *out = bicl_f32_quiet(cap);
        return 1;
    }
    if (c == 0.0f) {
        *out = bicl_f32_canonical_nan();
        return 1;
    }
    if (bicl_m_is_inf(c) || x == 0.0f) {
        *out = x;
        return 1;
    }
    yh = bicl_f32_abs(x) / c;
    if (yh >= BICL_M_SOFTCAP_HI) {
        *out = bicl_f32_copysign(c, x);
        return 1;
    }
    if (yh < BICL_M_SOFTCAP_LO) {
        *out = x;
        return 1;
    }
    return 0;
}

/* The integer path: y = |x| / c in fixed point from the exact reciprocal of c's
 * mantissa (bicl_fx_recip, truncated: 2^-62) times |x|'s (one more truncation),
 * 61 or more correct bits; tanh(y) by bicl_fx_tanh_y; times c; rounded once. */
BICL_FN float bicl_m_softcap_fx(float x, float cap)
{
    bicl_fx a = bicl_fx_of_f32(x);
    bicl_fx c = bicl_fx_of_f32(cap);
    bicl_u64 y = bicl_fx_mulhi(a.m, bicl_fx_recip(c.m >> 1)); /* (a.m / c.m) 2^62 */
    bicl_i32 eh = a.e - c.e;                                  /* y 2^(eh - 62) = |x| / c */
    if (y < 0x4000000000000000UL) {
        y <<= 1;
        eh -= 1;
    }
    return bicl_fx_round(bicl_fx_mul_f32(bicl_fx_tanh_y(y, eh), cap), x < 0.0f);
}

/* The float-pair path: math version 3's evaluation. y = |x| / c as a pair (the
 * remainder of the division is exact, once a tiny cap, and so x < 9.1 cap, is
 * scaled up out of the denormals; the pair's relative error is about 2^-47), then
 * c tanh(y) as for tanhf. Sampled relative error up to 2^-29.2 (caps 30, 50, 1,
 * 0.1, 7.5, 1e-30, 1e30, 3e38; docs/accuracy.md), so the test is wider still. */
#define BICL_M_ZIV_REL_SOFTCAP_F32 0x1p-27f
BICL_FN bicl_f32x2e bicl_m_softcap_pair(float x, float cap)
{
    float c = bicl_f32_abs(cap);
    float ax = bicl_f32_abs(x);
    float yh = ax / c;
    float cs = c;
    bicl_f32x2 t;
    bicl_f32x2e out;
    out.k = 0;
    if (c < 0x1p-60f) {
        cs = c * 0x1p64f;
        ax = ax * 0x1p64f;
        out.k = -64;
    }
    t = bicl_df_mul_f(bicl_m_tanh_df(yh, bicl_fmaf(-yh, cs, ax) / cs), cs);
    out.hi = x < 0.0f ? -t.hi : t.hi;
    out.lo = x < 0.0f ? -t.lo : t.lo;
    return out;
}

#ifdef BICL_HAVE_FP64
/* The double path: y = |x| (1 / c), the reciprocal and the product rounded to double
 * (relative error 2^-52, which tanh's sensitivity, y (1 - tanh^2) / tanh <= 1, does not
 * amplify; NVIDIA's compiler computes the reciprocal once per work-item, where each
 * element's quotient was a double division), then c tanh(y) as for tanhf: relative error
 * below 2^-49.2 + 2^-52 + 2^-53 = 2^-48.92. */
BICL_FN double bicl_m_softcap_dbl(float x, float cap)
{
    double c = bicl_f64_abs((double)cap);
    double t = c * bicl_m_tanh_fast_d(bicl_f64_abs((double)x) * (1.0 / c));
    return x < 0.0f ? -t : t;
}
#endif

BICL_M_CR(bicl_softcap, (float x, float cap), (x, cap), bicl_m_softcap_special(x, cap, &r),
          bicl_m_softcap_fx(x, cap), bicl_m_softcap_pair(x, cap), BICL_M_ZIV_REL_SOFTCAP_F32,
          bicl_m_softcap_dbl(x, cap))
BICL_M_CR_FAST2(bicl_softcap, bicl_m_softcap_common, bicl_m_softcap_dbl)

/* bicl_swiglu_oss (correctly rounded since math version 6) and the gated units rounded
 * once: bicl_math_glu_f32.h. */

#endif /* BICL_MATH_F32_H */
