/* bicl_math_glu_f32.h - the gated units as single functions of (gate, up), each
 * rounded once (math version 6), shared by the kernels and the host reference.
 *
 *   bicl_swiglu1(g, u)      round(silu(g) u), silu(g) = g sigmoid(g) unrounded
 *   bicl_geglu_tanh1(g, u)  round(gelu_tanh(g) u), gelu_tanh as in bicl_math_f32.h
 *   bicl_swiglu_oss(gate, up, alpha, limit)  gpt-oss's clamped SwiGLU,
 *                           round((clamp(up, -limit, limit) + 1) g sigmoid(alpha g)),
 *                           g = min(gate, limit), up + 1 and alpha g exact
 *
 * "round" is the correctly rounded f32 of the real value (normal, denormal on the
 * 2^-149 grid, +-0 or +-inf). Written as the one-argument functions of
 * bicl_math_f32.h are (BICL_M_CR): special cases, then a double value (fp64 devices
 * and the host) or a float-pair value (devices without fp64) with Ziv's rounding
 * test, then the integer fixed-point value (bicl_math_fx.h) where the test fails.
 *
 * Special values (the product of act(g), a real number, with u):
 *   NaN: the gate first, then up (bicl_swiglu_oss: gate, up, alpha, limit), quieted.
 *   g = +-0, g = +-inf, u = +-0 or u = +-inf: the IEEE product of act(g) and u, with
 *   act(+-0) = +-0, act(+inf) = +inf, act(-inf) = -0 (the limits) and act(g) standing
 *   for its sign (that of g) for every other g, since act(g) is then a nonzero real:
 *   so act(g) inf = +-inf even where round(act(g)) would underflow to 0; 0 inf is
 *   the canonical NaN.
 *
 * What decides each result, and what is proven (docs/accuracy.md):
 *   - the double value is within 2^-49 of the exact one (act's double value,
 *     2^-49.16 at most, times u: one more rounding), the float-pair value within 2^-28.9 (act's
 *     pair value, 2^-29, times u as an exact float pair: one float-pair product,
 *     2^-46), so whatever the tests decide is the correctly rounded result and both
 *     paths agree there;
 *   - the integer value is within 2^-58.5 of the exact one; both paths fall back to
 *     it where their test fails, so the double and the float-pair paths give the
 *     same bits on every input by construction;
 *   - the integer value is the correctly rounded result unless the exact value lies
 *     within 2^-58.5 (relative) of a rounding boundary. That was checked on every
 *     gate for a few fixed ups (bicl-accuracy --exhaustive); over all 2^64 pairs it
 *     is not proven: a product with a free 24-bit factor can come closer to a
 *     boundary than any fixed precision resolves (a worst-case search over 2^64
 *     pairs was not done). The structured cases where the exact value lies exactly
 *     on a boundary, or within a correction term too small for any fixed precision,
 *     are decided exactly in the special cases: the saturated gates (act(g) =
 *     g (1 - d) with d < 2^-57: the exact product g u nudged towards zero), the tiny
 *     gates (g u / 2 nudged by the sign of the next term), and silu's and
 *     swiglu_oss's exact leading terms where they are an exact midpoint
 *     (bicl_m_glu_tie). */
#ifndef BICL_MATH_GLU_F32_H
#define BICL_MATH_GLU_F32_H

#include "bicl_math_f32.h"

/* The float-pair test's bound: act's pair value (within 2^-29) times u (one float-pair
 * product, 2^-46). */
#define BICL_M_ZIV_REL_GLU1_F32 0x1p-28f

/* ------------------------------------------------------------ exact helpers */
/* a b for two normalized fixed-point values, truncated once (the high word of the
 * 128-bit product, >= 2^62: relative error below 2^-62). */
BICL_FN bicl_fx bicl_fx_mul(bicl_fx a, bicl_fx b)
{
    bicl_fx r;
    a = bicl_fx_norm(a);
    b = bicl_fx_norm(b);
    r.m = bicl_fx_mulhi(a.m, b.m);
    r.e = a.e + b.e + 64;
    return r;
}

/* |a b| exactly, for finite nonzero floats: two mantissas of at most 24 bits at the
 * top of their words, so the 48-bit product lies wholly in the high word. */
BICL_FN bicl_fx bicl_fx_mul_exact(float a, float b)
{
    return bicl_fx_norm(bicl_fx_mul(bicl_fx_of_f32(a), bicl_fx_of_f32(b)));
}

/* |h + l| for a float pair from TwoSum (h finite nonzero, |l| <= ulp(h)/2, l of
 * either sign), truncated once at 2^-63 relative: l joins h's mantissa word in h's
 * units (below 2^40 of them). */
BICL_FN bicl_fx bicl_fx_of_df(float h, float l)
{
    bicl_fx v = bicl_fx_of_f32(h);
    bicl_u64 lm = bicl_fx_from_f32(l, -v.e);
    int same = ((bicl_f32_as_u32(h) ^ bicl_f32_as_u32(l)) >> 31) == 0u;
    v.m = same ? v.m + lm : v.m - lm;
    return v;
}

/* The float nearest to (-1)^neg (v + eps) (up) or (-1)^neg (v - eps) (!up), eps an
 * infinitesimal > 0, for an exact v whose mantissa has at most 62 significant bits:
 * v.m +- 1 (v normalized) lies strictly between v and every other point of v's
 * grid, and bicl_fx_round's boundaries lie on that grid (40 or more bits below the
 * leading one), so only a v on a boundary is moved off it, to eps's side. */
BICL_FN float bicl_m_round_nudge(bicl_fx v, int up, int neg)
{
    v = bicl_fx_norm(v);
    v.m = up ? v.m + 1UL : v.m - 1UL;
    return bicl_fx_round(v, neg);
}

/* The odd part of a nonzero m and its number of bits; *e gains the zeros removed. */
BICL_FN bicl_u64 bicl_m_odd_part(bicl_u64 m, bicl_i32 *e, bicl_i32 *bits)
{
    bicl_i32 n = 0;
    bicl_u64 t;
    while ((m & 1UL) == 0UL) {
        m >>= 1;
        *e = *e + 1;
    }
    t = m;
    while (t != 0UL) {
        t >>= 1;
        n++;
    }
    *bits = n;
    return m;
}

/* A finite nonzero float as odd * 2^*e (the odd part of its mantissa). */
BICL_FN bicl_u64 bicl_m_f32_odd(float x, bicl_i32 *e, bicl_i32 *bits)
{
    bicl_u32 b = bicl_f32_as_u32(x) & 0x7fffffffu;
    bicl_i32 be = (bicl_i32)(b >> 23);
    bicl_u64 m = (bicl_u64)(b & 0x7fffffu);
    if (be != 0) {
        m |= 0x800000UL;
    } else {
        be = 1;
    }
    *e = be - 150;
    return bicl_m_odd_part(m, e, bits);
}

/* Is T = a b c 2^e (a, b, c odd, of na, nb, nc bits) exactly a rounding boundary of
 * f32 (a midpoint between two neighbours: 25 significant bits in the normal range, or
 * an odd multiple of 2^-150 below it)? Then *out = T rounded with an infinitesimal
 * push up (up) or down in magnitude, with the sign neg, and 1; else 0. A product of
 * odd numbers is odd and has at least na + nb + nc - 2 bits, so a longer one is no
 * boundary and is not multiplied out (nor can it overflow). */
BICL_FN int bicl_m_glu_tie(bicl_u64 a, bicl_i32 na, bicl_u64 b, bicl_i32 nb, bicl_u64 c,
                           bicl_i32 nc, bicl_i32 e, int up, int neg, float *out)
{
    bicl_u64 t;
    bicl_i32 n;
    bicl_i32 z = 0;
    bicl_fx v;
    if (na + nb + nc - 2 > 25) {
        return 0;
    }
    t = bicl_m_odd_part(a * b * c, &z, &n);
    if (!((n == 25 && e >= -150) || (e == -150 && n < 25))) {
        return 0;
    }
    v.m = t;
    v.e = e;
    *out = bicl_m_round_nudge(v, up, neg);
    return 1;
}

/* The cases of every gated unit where a zero or an infinity decides: NaN first (g,
 * then u), then the IEEE product of gs and u, gs = -0 for g = -inf (act's limit) and g
 * otherwise (g itself where act(g) is +-0 or +inf, a nonzero of act(g)'s sign
 * elsewhere). */
BICL_FN int bicl_m_glu1_zero_inf(float g, float u, float *out)
{
    float gs;
    if (bicl_f32_is_nan(g)) {
        *out = bicl_f32_quiet(g);
        return 1;
    }
    if (bicl_f32_is_nan(u)) {
        *out = bicl_f32_quiet(u);
        return 1;
    }
    if (!(g == 0.0f || u == 0.0f || bicl_m_is_inf(g) || bicl_m_is_inf(u))) {
        return 0;
    }
    gs = (bicl_m_is_inf(g) && g < 0.0f) ? -0.0f : g;
    *out = bicl_f32_nan_fix2(gs * u, gs, u);
    return 1;
}

/* act(g) u for a saturated gate, act(g) = g (1 - d), 0 < d < 2^-48: the exact product
 * g u (48 bits) pushed towards zero (d g u is below one unit of its grid). */
BICL_FN float bicl_m_glu1_saturated(float g, float u)
{
    return bicl_m_round_nudge(bicl_fx_mul_exact(g, u), 0, (g < 0.0f) != (u < 0.0f));
}

/* act(g) u for a tiny gate, act(g) = (g/2) (1 + t), t of g's sign, |t| < 2^-48: the
 * exact g u / 2 pushed up in magnitude for g > 0, down for g < 0 (t g u / 2 is below
 * one unit of its 48-bit grid). */
BICL_FN float bicl_m_glu1_tiny(float g, float u)
{
    bicl_fx p = bicl_fx_mul_exact(g, u);
    p.e -= 1;
    return bicl_m_round_nudge(p, g > 0.0f, (g < 0.0f) != (u < 0.0f));
}

/* u as 2^k (hi + 0) with 1 <= |hi| < 2 and 2^k (hi + lo) v for a pair v: the product of
 * an activation's pair value with u, rounded once later. */
BICL_FN bicl_f32x2e bicl_m_glu1_times_u(bicl_f32x2e a, float u)
{
    bicl_f32x2e un = bicl_m_split_exp(u);
    bicl_f32x2 p = bicl_df_mul_f(bicl_df_fast_two_sum(a.hi, a.lo), un.hi);
    bicl_f32x2e out;
    out.hi = p.hi;
    out.lo = p.lo;
    out.k = a.k + un.k;
    return out;
}

/* ------------------------------------------------------------------ swiglu1 */
/* silu(g) u. Decided without evaluation: zeros, infinities and NaN
 * (bicl_m_glu1_zero_inf); g < -200 (|silu(g)| < 2^-280.9, |u| < 2^128: below 2^-150,
 * a zero of the product's sign); g > 34 (d = 1 - sigmoid(g) < e^-34 < 2^-49:
 * bicl_m_glu1_saturated; the integer path, 2^-58.5, would not see d next to a g u on
 * a boundary from g = 40 on); |g| < 2^-48 (silu(g) = (g/2)(1 + g/2 + ..):
 * bicl_m_glu1_tiny); and for 2^-48 <= |g| < 2^-12, the leading terms
 * T = u g (2 + g) / 4 when they are exactly a boundary: the value is T + u (-g^4/48 +
 * ..), pushed up in magnitude for g < 0, down for g > 0 (no fixed precision sees
 * g^4/48 next to T for the smallest such g). */
BICL_FN int bicl_m_swiglu1_special(float g, float u, float *out)
{
    float ag = bicl_f32_abs(g);
    if (bicl_m_glu1_zero_inf(g, u, out)) {
        return 1;
    }
    if (g < -200.0f) {
        *out = -0.0f * u;
        return 1;
    }
    if (g > 34.0f) {
        *out = bicl_m_glu1_saturated(g, u);
        return 1;
    }
    if (ag < 0x1p-48f) {
        *out = bicl_m_glu1_tiny(g, u);
        return 1;
    }
    if (ag < 0x1p-12f) {
        /* g = mg 2^eg, 2 + g = k 2^eg with k = 2^(1 - eg) +- mg (odd: eg <= -13); a k
         * of more than 25 bits makes no boundary */
        bicl_i32 eg;
        bicl_i32 ng;
        bicl_i32 eu;
        bicl_i32 nu;
        bicl_i32 ek = 0;
        bicl_i32 nk;
        bicl_u64 mg = bicl_m_f32_odd(g, &eg, &ng);
        bicl_u64 mu;
        bicl_u64 k;
        if (eg < -24) {
            return 0;
        }
        mu = bicl_m_f32_odd(u, &eu, &nu);
        k = (1UL << (1 - eg));
        k = g > 0.0f ? k + mg : k - mg;
        k = bicl_m_odd_part(k, &ek, &nk);
        return bicl_m_glu_tie(mu, nu, mg, ng, k, nk, eu + eg + eg + ek - 2, g < 0.0f,
                              (g < 0.0f) != (u < 0.0f), out);
    }
    return 0;
}

/* silu(g) u in fixed point: sigmoid (2^-59) times g and u (two truncations). */
BICL_FN float bicl_m_swiglu1_fx(float g, float u)
{
    bicl_fx s = bicl_fx_mul(bicl_fx_sigmoid(g), bicl_fx_of_f32(g));
    return bicl_fx_round(bicl_fx_mul(s, bicl_fx_of_f32(u)), (g < 0.0f) != (u < 0.0f));
}

/* silu's pair value (normal g, -200 <= g <= 40) times u. */
BICL_FN bicl_f32x2e bicl_m_swiglu1_pair(float g, float u)
{
    return bicl_m_glu1_times_u(bicl_m_x_times_df(g, bicl_m_sigmoid_sat(g, 0.0f)), u);
}

#ifdef BICL_HAVE_FP64
/* silu's double value times u (the product of two normal doubles: |silu(g)| >=
 * 2^-281, |u| >= 2^-149). */
BICL_FN double bicl_m_swiglu1_dbl(float g, float u)
{
    return bicl_m_silu_dbl(g) * (double)u;
}
#endif

BICL_M_CR(bicl_swiglu1, (float g, float u), (g, u), bicl_m_swiglu1_special(g, u, &r),
          bicl_m_swiglu1_fx(g, u), bicl_m_swiglu1_pair(g, u), BICL_M_ZIV_REL_GLU1_F32,
          bicl_m_swiglu1_dbl(g, u))

/* ------------------------------------------------------------- geglu_tanh1 */
/* gelu_tanh(g) u. Decided without evaluation: zeros, infinities and NaN; g <= -13.5
 * (|gelu_tanh(g)| < 2^-280.6, |u| < 2^128: a zero); g >= 10 (1 - sigmoid(z) <
 * 2^-125: bicl_m_glu1_saturated); |g| < 2^-50 (gelu_tanh(g) = (g/2)(1 + c g + ..),
 * |c g| < 2^-50: bicl_m_glu1_tiny). The leading terms u g (1 + c g) / 2 are never a
 * boundary (c's odd 23-bit mantissa makes 1 + c g longer than 25 bits for |g| < 1),
 * so the bounded-error paths decide the rest. */
BICL_FN int bicl_m_geglu_tanh1_special(float g, float u, float *out)
{
    if (bicl_m_glu1_zero_inf(g, u, out)) {
        return 1;
    }
    if (g <= -13.5f) {
        *out = -0.0f * u;
        return 1;
    }
    if (g >= 10.0f) {
        *out = bicl_m_glu1_saturated(g, u);
        return 1;
    }
    if (bicl_f32_abs(g) < 0x1p-50f) {
        *out = bicl_m_glu1_tiny(g, u);
        return 1;
    }
    return 0;
}

/* gelu_tanh(g) in fixed point (bicl_m_gelu_tanh_fxv: valid to |g| <= 15, see there)
 * times u, one more truncation. */
BICL_FN float bicl_m_geglu_tanh1_fx(float g, float u)
{
    return bicl_fx_round(bicl_fx_mul(bicl_m_gelu_tanh_fxv(g), bicl_fx_of_f32(u)),
                         (g < 0.0f) != (u < 0.0f));
}

BICL_FN bicl_f32x2e bicl_m_geglu_tanh1_pair(float g, float u)
{
    return bicl_m_glu1_times_u(bicl_m_gelu_tanh_pair(g), u);
}

#ifdef BICL_HAVE_FP64
BICL_FN double bicl_m_geglu_tanh1_dbl(float g, float u)
{
    return bicl_m_gelu_tanh_dbl(g) * (double)u;
}
#endif

BICL_M_CR(bicl_geglu_tanh1, (float g, float u), (g, u), bicl_m_geglu_tanh1_special(g, u, &r),
          bicl_m_geglu_tanh1_fx(g, u), bicl_m_geglu_tanh1_pair(g, u), BICL_M_ZIV_REL_GLU1_F32,
          bicl_m_geglu_tanh1_dbl(g, u))

/* -------------------------------------------------------------- swiglu_oss */
/* gpt-oss's operands: g = min(gate, limit), u = clamp(up, -limit, limit) (torch's
 * order), 1 + u as the exact pair (h, l) and alpha g as the exact pair (zh, zl)
 * (zl = 0 where zh is infinite). */
typedef struct {
    float g;
    float h;
    float l;
    float zh;
    float zl;
} bicl_m_oss_args;

BICL_FN bicl_m_oss_args bicl_m_oss_prepare(float gate, float up, float alpha, float limit)
{
    bicl_m_oss_args a;
    float t = up < -limit ? -limit : up;
    bicl_f32x2 one_u = bicl_df_two_sum(t > limit ? limit : t, 1.0f);
    a.g = gate > limit ? limit : gate;
    a.h = one_u.hi;
    a.l = one_u.lo;
    a.zh = alpha * a.g;
    a.zl = bicl_m_is_inf(a.zh) ? 0.0f : bicl_fmaf(alpha, a.g, -a.zh);
    return a;
}

/* W = (1 + u) g as odd factors for bicl_m_glu_tie: 1 + u = k 2^ek exactly, or 0 when
 * k would need more than 40 bits (then it has more than 25 and W is no boundary). */
BICL_FN int bicl_m_oss_tie(float g, float up, float limit, bicl_i32 shift, int up_dir, int neg,
                           float *out)
{
    float t = up < -limit ? -limit : up;
    float u = t > limit ? limit : t;
    bicl_i32 eg;
    bicl_i32 ng;
    bicl_i32 eu;
    bicl_i32 nu;
    bicl_i32 ek;
    bicl_i32 nk;
    bicl_u64 mg = bicl_m_f32_odd(g, &eg, &ng);
    bicl_u64 k;
    bicl_i32 lo;
    if (u == 0.0f) {
        return bicl_m_glu_tie(1UL, 1, mg, ng, 1UL, 1, eg + shift, up_dir, neg, out);
    }
    {
        bicl_u64 mu = bicl_m_f32_odd(u, &eu, &nu);
        lo = eu < 0 ? eu : 0; /* 1 + u = (2^-lo + mu 2^(eu - lo)) 2^lo */
        if (-lo > 40 || eu - lo + nu > 40) {
            return 0;
        }
        k = mu << (eu - lo);
        /* |1 + u| in units 2^lo (u's sign: 1 + u < 0 only for u < -1) */
        if (u > 0.0f) {
            k = (1UL << (-lo)) + k;
        } else {
            k = k > (1UL << (-lo)) ? k - (1UL << (-lo)) : (1UL << (-lo)) - k;
        }
        ek = lo;
        k = bicl_m_odd_part(k, &ek, &nk);
        return bicl_m_glu_tie(1UL, 1, mg, ng, k, nk, eg + ek + shift, up_dir, neg, out);
    }
}

/* sigmoid(alpha g) ~ 1/2 (|alpha g| < 2^-50) and |u| < 2^-26, where W/2 = g (1 + u) / 2
 * was no boundary: the value is (g/2)(1 + e), 2 sigmoid(z) = 1 + z/2 - z^3/24 + .., so
 * e = u + alpha g / 2 + u alpha g / 2 + O((alpha g)^3), |e| < 2^-25.9. g/2 can still be
 * a boundary, as an odd multiple of 2^-150 (g = odd 2^-149, |g| < 2^-125), 2^-150 from
 * the next one, which (g/2) e (< 2^-151) cannot reach; then e's sign pushes it: u's
 * where u and alpha g agree in sign (or alpha = 0), else that of the larger of |2u| and
 * |alpha g|, compared exactly in fixed point (a nonzero difference is at least
 * |alpha g| 2^-50, above the second-order term |alpha g|^2 / 4), and for 2u = -alpha g
 * exactly, e = -(alpha g)^2 / 4 + .. < 0. */
BICL_FN int bicl_m_oss_tiny_u(bicl_m_oss_args a, float alpha, int neg, float *out)
{
    bicl_u32 b = bicl_f32_as_u32(a.g) & 0x7fffffffu;
    float u = (a.h - 1.0f) + a.l; /* exact: u itself, a.h - 1 by Sterbenz */
    int zpos = (alpha > 0.0f) == (a.g > 0.0f);
    int up_dir;
    bicl_fx v;
    if (b >= 0x01000000u || (b & 1u) == 0u || u == 0.0f || bicl_f32_abs(u) >= 0x1p-26f) {
        return 0;
    }
    if (alpha == 0.0f || (u > 0.0f) == zpos) {
        up_dir = u > 0.0f;
    } else {
        bicl_fx z = bicl_fx_mul_exact(alpha, a.g); /* |alpha g| */
        bicl_fx w = bicl_fx_of_f32(u);             /* |2u| after the exponent step */
        w.e += 1;
        if (w.e != z.e || w.m != z.m) {
            up_dir = (w.e > z.e || (w.e == z.e && w.m > z.m)) ? u > 0.0f : zpos;
        } else {
            up_dir = 0;
        }
    }
    v = bicl_fx_of_f32(a.g);
    v.e -= 1;
    *out = bicl_m_round_nudge(v, up_dir, neg);
    return 1;
}

/* Decided without evaluation: NaN (gate, up, alpha, limit); a zero or an infinite g
 * or 1 + u (the IEEE product of 1 + u and gs, gs = +-0 of g's sign where alpha g =
 * -inf, g otherwise; 0 inf: the canonical NaN); alpha g < -300 (sigmoid < 2^-432,
 * |(1 + u) g| < 2^256: a zero of the product's sign); and the exact boundaries: for
 * alpha g > 20 (1 - sigmoid < 2^-28.8, far below the 2^-25 that separates a boundary
 * from the next) W = (1 + u) g on a boundary is pushed towards zero; for alpha = 0 the value is W/2
 * exactly (a boundary W/2 rounds to even, as bicl_fx_round does); for 0 < |alpha g| < 2^-50 the
 * value is (W/2)(1 + alpha g/2 +
 * ..), a boundary W/2 pushed by alpha g's sign. */
BICL_FN int bicl_m_oss_special(float gate, float up, float alpha, float limit, float *out)
{
    bicl_m_oss_args a;
    int neg;
    if (bicl_f32_is_nan(gate)) {
        *out = bicl_f32_quiet(gate);
        return 1;
    }
    if (bicl_f32_is_nan(up)) {
        *out = bicl_f32_quiet(up);
        return 1;
    }
    if (bicl_f32_is_nan(alpha)) {
        *out = bicl_f32_quiet(alpha);
        return 1;
    }
    if (bicl_f32_is_nan(limit)) {
        *out = bicl_f32_quiet(limit);
        return 1;
    }
    a = bicl_m_oss_prepare(gate, up, alpha, limit);
    if (a.g == 0.0f || a.h == 0.0f || bicl_m_is_inf(a.g) || bicl_m_is_inf(a.h)) {
        float gs = (bicl_m_is_inf(a.zh) && a.zh < 0.0f) ? bicl_f32_copysign(0.0f, a.g) : a.g;
        float r = a.h * gs;
        *out = bicl_f32_is_nan(r) ? bicl_f32_canonical_nan() : r;
        return 1;
    }
    if (a.zh < -300.0f) {
        *out = bicl_f32_copysign(0.0f, a.g) * a.h;
        return 1;
    }
    neg = (a.g < 0.0f) != (a.h < 0.0f);
    if (a.zh > 20.0f) {
        return bicl_m_oss_tie(a.g, up, limit, 0, 0, neg, out);
    }
    if (alpha == 0.0f) {
        bicl_fx w;
        if (!bicl_m_oss_tie(a.g, up, limit, -1, 0, neg, out)) {
            return bicl_m_oss_tiny_u(a, 0.0f, neg, out);
        }
        /* a boundary: W/2 exact, rounded to even */
        w = bicl_fx_mul(bicl_fx_of_df(a.h, a.l), bicl_fx_of_f32(a.g));
        w.e -= 1;
        *out = bicl_fx_round(w, neg);
        return 1;
    }
    if (bicl_f32_abs(a.zh) < 0x1p-50f) {
        return bicl_m_oss_tie(a.g, up, limit, -1, (alpha < 0.0f) == (a.g < 0.0f), neg, out) ||
               bicl_m_oss_tiny_u(a, alpha, neg, out);
    }
    return 0;
}

/* sigmoid(alpha g) (alpha g clamped to 300: beyond, 1 - sigmoid < 2^-432 is far below
 * the 2^-59 of this path) times g and 1 + u, three truncations. */
BICL_FN float bicl_m_oss_fx(float gate, float up, float alpha, float limit)
{
    bicl_m_oss_args a = bicl_m_oss_prepare(gate, up, alpha, limit);
    bicl_fx s = a.zh > 300.0f ? bicl_fx_sigmoid(300.0f) : bicl_fx_sigmoid_df(a.zh, a.zl);
    bicl_fx v = bicl_fx_mul(bicl_fx_mul(s, bicl_fx_of_f32(a.g)), bicl_fx_of_df(a.h, a.l));
    return bicl_fx_round(v, (a.g < 0.0f) != (a.h < 0.0f));
}

/* math version 1's evaluation (bicl_m_mul_sigmoid) before its rounding. */
BICL_FN bicl_f32x2e bicl_m_oss_pair(float gate, float up, float alpha, float limit)
{
    bicl_m_oss_args a = bicl_m_oss_prepare(gate, up, alpha, limit);
    bicl_f32x2e s = bicl_m_sigmoid_sat(a.zh, a.zl);
    bicl_f32x2e gn = bicl_m_split_exp(a.g);
    bicl_f32x2e un = bicl_m_split_exp(a.h);
    float ul = a.l * bicl_m_pow2i(-un.k / 2) * bicl_m_pow2i(-un.k - (-un.k / 2));
    bicl_f32x2 p = bicl_df_mul(bicl_df_mul_f(bicl_df(un.hi, ul), gn.hi), bicl_df(s.hi, s.lo));
    bicl_f32x2e out;
    out.hi = p.hi;
    out.lo = p.lo;
    out.k = gn.k + un.k + s.k;
    return out;
}

#ifdef BICL_HAVE_FP64
/* ((h + l) g) sigmoid(alpha g) in double: alpha g exact, clamped to 700 (1 - sigmoid
 * < 2^-1000 beyond); h + l and the two products rounded (2^-53 each), sigmoid within
 * 2^-49.5: 2^-49.16 in all. */
BICL_FN double bicl_m_oss_dbl(float gate, float up, float alpha, float limit)
{
    bicl_m_oss_args a = bicl_m_oss_prepare(gate, up, alpha, limit);
    double z = (double)alpha * (double)a.g;
    double w = ((double)a.h + (double)a.l) * (double)a.g;
    return w * bicl_m_sigmoid_fast_d(z > 700.0 ? 700.0 : z);
}
#endif

BICL_M_CR(bicl_swiglu_oss, (float gate, float up, float alpha, float limit),
          (gate, up, alpha, limit), bicl_m_oss_special(gate, up, alpha, limit, &r),
          bicl_m_oss_fx(gate, up, alpha, limit), bicl_m_oss_pair(gate, up, alpha, limit),
          BICL_M_ZIV_REL_GLU1_F32, bicl_m_oss_dbl(gate, up, alpha, limit))

#endif /* BICL_MATH_GLU_F32_H */
