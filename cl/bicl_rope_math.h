/* bicl_rope_math.h - RoPE frequencies, attention scaling and cos/sin, in binary64.
 *
 * Shared by OpenCL kernels (devices with cl_khr_fp64) and the host reference / table
 * builder; written in the common subset of C11 and OpenCL C 1.2 on top of
 * bicl_math_f64.h. The frequency formulas follow Hugging Face transformers'
 * modeling_rope_utils.py (the _compute_*_parameters functions), evaluated in
 * double-double with bicl's own exp/log instead of torch's float32 arithmetic.
 *
 * ===================================================================== formulas
 * Notation: d = rotary_dim (even), i in [0, d/2), theta = rope_theta, F = factor,
 * L0 = original_max_position_embeddings, Lmax = max_position_embeddings,
 * ln = natural log, 2pi = the real 2*pi, 0.1 = the real 1/10, 0.001 = the double
 * 0.001 (HF's constants).
 *
 * How it is evaluated: each formula is the real-number expression of the config's
 * double values, evaluated in double-double arithmetic (bicl_log_dd, bicl_exp_dd_dd,
 * bicl_dd_*: relative error below ~2^-57 before the last step) and rounded once to
 * double, so inv_freq and attn are within ~0.51 ulp of the real value of the formula
 * (measured: <= 0.501 ulp, tools/bicl_rope_accuracy.c). Band decisions (llama3's
 * wavelength tests, YaRN's floor/ceil/clamps and its low == high test) are taken on
 * the double-double values. F derived from Lmax / L0 is that quotient rounded to
 * double. HF evaluates the same formulas in float32 tensors and Python doubles; the
 * real value is the common target, so bicl rounds it instead of imitating either.
 *
 * Base frequency (all types):
 *   base_i = theta^(-2i/d) = exp(-(2i * ln theta) / d) (the exponent 2i/d is never
 *   rounded: ln theta, the product by 2i and the division by d are double-double)
 *
 * none (HF "default"):  inv_i = base_i;                       attn = 1
 * linear:               inv_i = base_i / F;                   attn = 1
 * llama3:               wl_i = 2pi / base_i
 *                       wl_lo = L0 / low_freq_factor,  wl_hi = L0 / high_freq_factor
 *                       (high_freq_factor >= low_freq_factor; equal ones leave no
 *                       middle band: Llama-4-Scout)
 *                       wl_i < wl_hi:   inv_i = base_i
 *                       wl_i > wl_lo:   inv_i = base_i / F
 *                       otherwise:      s = (L0 / wl_i - low_freq_factor)
 *                                           / (high_freq_factor - low_freq_factor)
 *                                       inv_i = (1 - s) * (base_i / F) + s * base_i
 *                       attn = 1
 * yarn:                 F = factor, or Lmax / L0 when factor == 0
 *                       L0 = original_max_position_embeddings, or Lmax when it is 0
 *                       bf = beta_fast (32 when 0), bs = beta_slow (1 when 0)
 *                       cd(n) = (d * ln(L0 / (n * 2pi))) / (2 * ln theta)
 *                       low = cd(bf), high = cd(bs)
 *                       truncate != 0: low = floor(low), high = ceil(high)
 *                       low = max(low, 0), high = min(high, d - 1)
 *                       low == high: high = high + 0.001
 *                       ramp_i = clamp((i - low) / (high - low), 0, 1)
 *                       e_i = 1 - ramp_i
 *                       inv_i = (base_i / F) * (1 - e_i) + base_i * e_i
 *                       attn = attention_factor                      if > 0, else
 *                              m(F, mscale) / m(F, mscale_all_dim)   if both != 0, else
 *                              m(F, 1),
 *                       with m(s, k) = 1 for s <= 1, 0.1 * k * ln(s) + 1 otherwise
 * dynamic_ntk:          L = max(seq_len, Lmax)
 *                       g = (F * L / Lmax) - (F - 1)
 *                       inv_i = (theta * g^(d/(d-2)))^(-2i/d)
 *                             = exp(-(2i * ln theta) / d - (2i * ln g) / (d - 2)),
 *                       (g is the real value of that expression)
 *                       attn = 1
 * longrope:             F = factor, or Lmax / L0 when factor == 0
 *                       ext_i = long_factor[i] if seq_len > L0, else short_factor[i]
 *                       inv_i = base_i / ext_i
 *                       attn = attention_factor                      if > 0, else
 *                              1                                     if F <= 1, else
 *                              sqrt(1 + ln(F) / ln(L0))
 * proportional:         (transformers 5's _compute_proportional_rope_parameters, Gemma 4;
 *                       d is the whole head_dim there, A = rope_angles =
 *                       int(partial_rotary_factor * head_dim // 2))
 *                       inv_i = base_i / F for i < A, 0 for i >= A (those pairs rotate
 *                       by angle 0: cos 1, sin 0, computed like any other pair)
 *                       attn = 1
 *
 * Where HF is ambiguous or batch-dependent, and what bicl does:
 *  - HF computes inv_freq in float32 (torch pow/div/where on float32 tensors, the
 *    YaRN ramp and the llama3 wavelength tests in float32). bicl computes in double.
 *    The hf angle mode rounds bicl's double inv_freq to float (RTE), so it can differ
 *    from a given torch build by 1 float ulp in some inv_freq entries (torch's powf is
 *    not correctly rounded and differs between CPU and CUDA).
 *  - YaRN factor: transformers 4.4x-4.5x replaced `factor` by Lmax / L0 whenever
 *    original_max_position_embeddings was present; later versions use `factor` and
 *    derive it only when missing. bicl uses `factor` and derives it only when 0.
 *  - YaRN `truncate` defaults to true in HF; bicl_rope_freq_params_default sets 1, a
 *    zeroed struct means 0 (gpt-oss sets false).
 *  - YaRN beta_fast / beta_slow of 0 mean "unset" (HF: `or 32`, `or 1`); mscale and
 *    mscale_all_dim of 0 mean unset (HF tests their truthiness).
 *  - dynamic NTK: HF derives the length from the batch (max(position_ids) + 1), keeps
 *    the largest length seen, and resets below the original length. That makes a
 *    token's rotation depend on its neighbours, so bicl takes seq_len explicitly per
 *    sequence and never derives it from the batch. HF's formula uses
 *    max_position_embeddings (not the original one); so does bicl.
 *  - longrope: HF picks the long factors when seq_len > L0 (seq_len = max(position_ids)
 *    + 1 of the batch at run time); bicl takes seq_len per sequence. HF stores the
 *    factors as float32; bicl uses the doubles given (pass (double)(float)v for HF's
 *    values).
 *  - attention scaling is returned as a double; HF multiplies cos/sin (float32) by
 *    the Python float, which torch rounds to float32 first: that is what the hf mode
 *    does, the exact mode multiplies in double.
 *
 * ============================================================ cos/sin, two modes
 * exact mode, bicl_rope_cos_sin_exact(pos, inv_freq, attn):
 *   angle = pos * inv_freq as the exact double-double two_prod(pos, inv_freq) (pos is
 *   an integer with |pos| < 2^31, so the 84-bit product is exact as long as its low
 *   part does not underflow, i.e. for |pos * inv_freq| >= 2^-968 or = 0);
 *   c = RTE_f32(cos(angle) * attn), s = RTE_f32(sin(angle) * attn), where cos/sin come
 *   from bicl_sincos_dd (relative error ~2^-52) and "* attn" is one double multiply
 *   (exact when attn == 1). One rounding to float, so c and s are the correctly
 *   rounded float values of the real cos/sin(pos * inv_freq) * attn except when that
 *   real lies within ~2^-27 float ulp of a rounding midpoint (none seen in the tool's
 *   ~10^6 samples).
 * hf mode, bicl_rope_cos_sin_hf(pos, inv_freq_f32, attn_f32):
 *   p = RTE_f32(pos) (torch's position_ids.float()), a = p * inv_freq_f32 in float
 *   (one float product: HF's float32 matmul with K = 1, autocast off), then
 *   c = RTE_f32(cos(a)) * attn_f32 and s = RTE_f32(sin(a)) * attn_f32 in float, with
 *   cos/sin of the float angle a computed exactly by bicl_sincos_dd(a, 0). Inputs:
 *   inv_freq_f32 = bicl_f64_to_f32_rte(inv_i), attn_f32 = bicl_f64_to_f32_rte(attn).
 *   This is HF's float32 pipeline with correctly rounded cos/sin (torch's are not).
 *   Its angle a carries the rounding of inv_freq and of one float product, up to
 *   ~2^-24 |a| ~ pos * inv * 2^-24 radians, which is why hf mode drifts from the
 *   exact values at long context (the tool measures it).
 * RTE_f32 is round-to-nearest-even (bicl_f64_to_f32_rte: convert_float_rte in
 * OpenCL, a C cast on the host, which never leaves FE_TONEAREST; round to nearest
 * even is also OpenCL C 1.2's default for conversions and casts to floating point, see
 * its sections 6.2.3.2 and 7.1, but the explicit _rte removes any doubt). A NaN
 * result becomes the canonical float NaN 0x7fc00000. */
#ifndef BICL_ROPE_MATH_H
#define BICL_ROPE_MATH_H

#include "bicl_math_f64.h"

#ifdef BICL_HAVE_FP64

typedef enum {
    BICL_ROPE_SCALING_NONE = 0,
    BICL_ROPE_SCALING_LINEAR = 1,
    BICL_ROPE_SCALING_LLAMA3 = 2,
    BICL_ROPE_SCALING_YARN = 3,
    BICL_ROPE_SCALING_DYNAMIC_NTK = 4,
    BICL_ROPE_SCALING_LONGROPE = 5,
    BICL_ROPE_SCALING_PROPORTIONAL = 6
} bicl_rope_scaling;

/* The frequency parameters of one model (and, for dynamic NTK / longrope, one
 * sequence). Start from bicl_rope_freq_params_default() and set what the model's
 * config sets. Field meanings are HF's config keys of the same names. */
typedef struct {
    bicl_i32 rotary_dim;       /* d: even, 2..65536 (4.. for dynamic_ntk) */
    double theta;              /* rope_theta: finite, > 0 (> 1 for yarn) */
    bicl_rope_scaling scaling; /* rope_type */
    double factor;             /* linear/llama3/dynamic_ntk: > 0; yarn/longrope: 0 = derive */
    double low_freq_factor;    /* llama3 */
    double high_freq_factor;   /* llama3: >= low_freq_factor */
    bicl_i64 original_max_position_embeddings; /* llama3, yarn, longrope (L0) */
    bicl_i64 max_position_embeddings;          /* dynamic_ntk; factor derivation (Lmax) */
    double beta_fast;                          /* yarn: 0 = 32 */
    double beta_slow;                          /* yarn: 0 = 1 */
    double mscale;                             /* yarn: 0 = unset */
    double mscale_all_dim;                     /* yarn: 0 = unset */
    double attention_factor;                   /* yarn/longrope: 0 = derive */
    bicl_i32 truncate;          /* yarn: floor/ceil the correction range (HF default 1) */
    bicl_i64 seq_len;           /* dynamic_ntk/longrope: this sequence's length, >= 0 */
    const double *long_factor;  /* longrope: d/2 factors, > 0 */
    const double *short_factor; /* longrope: d/2 factors, > 0 */
    bicl_i32 rope_angles;       /* proportional: pairs with a nonzero frequency, 0..d/2 */
} bicl_rope_freq_params;

/* Status of bicl_rope_freq_params_check. */
#define BICL_ROPE_PARAMS_OK               0
#define BICL_ROPE_PARAMS_BAD_DIM          1  /* rotary_dim odd, < 2 (< 4 dynamic), > 65536 */
#define BICL_ROPE_PARAMS_BAD_THETA        2  /* theta not finite or <= 0 (<= 1 for yarn) */
#define BICL_ROPE_PARAMS_BAD_SCALING      3  /* unknown scaling type */
#define BICL_ROPE_PARAMS_BAD_FACTOR       4  /* factor not finite, <= 0 where required */
#define BICL_ROPE_PARAMS_BAD_FREQ_FACTORS 5  /* llama3 low/high_freq_factor (high < low) */
#define BICL_ROPE_PARAMS_BAD_MAX_POS      6  /* original/max positions missing or <= 0 */
#define BICL_ROPE_PARAMS_BAD_YARN         7  /* beta, mscale or attention_factor */
#define BICL_ROPE_PARAMS_BAD_SEQ_LEN      8  /* seq_len < 0 */
#define BICL_ROPE_PARAMS_BAD_DIM_FACTORS  9  /* longrope factor arrays missing or <= 0 */
#define BICL_ROPE_PARAMS_BAD_ANGLES       10 /* proportional rope_angles outside 0..d/2 */

/* Defaults matching HF's: no scaling, factor 1, llama3 factors 1 / 4, YaRN betas
 * 32 / 1 and truncate on, everything else unset. */
BICL_FN bicl_rope_freq_params bicl_rope_freq_params_default(bicl_i32 rotary_dim, double theta)
{
    bicl_rope_freq_params p;
    p.rotary_dim = rotary_dim;
    p.theta = theta;
    p.scaling = BICL_ROPE_SCALING_NONE;
    p.factor = 1.0;
    p.low_freq_factor = 1.0;
    p.high_freq_factor = 4.0;
    p.original_max_position_embeddings = 0;
    p.max_position_embeddings = 0;
    p.beta_fast = 32.0;
    p.beta_slow = 1.0;
    p.mscale = 0.0;
    p.mscale_all_dim = 0.0;
    p.attention_factor = 0.0;
    p.truncate = 1;
    p.seq_len = 0;
    p.long_factor = 0;
    p.short_factor = 0;
    p.rope_angles = 0;
    return p;
}

BICL_FN int bicl_rope_pos_finite(double x)
{
    return bicl_f64_is_finite(x) && x > 0.0;
}

/* The factor F of yarn/longrope (derived from the position counts when 0) and of
 * the other types (as given). */
BICL_FN double bicl_rope_effective_factor(const bicl_rope_freq_params *p)
{
    int derivable =
        p->scaling == BICL_ROPE_SCALING_YARN || p->scaling == BICL_ROPE_SCALING_LONGROPE;
    if (derivable && p->factor == 0.0 && p->original_max_position_embeddings > 0) {
        return (double)p->max_position_embeddings / (double)p->original_max_position_embeddings;
    }
    return p->factor;
}

/* L0 for yarn (falls back to max_position_embeddings, like older HF). */
BICL_FN double bicl_rope_yarn_original_len(const bicl_rope_freq_params *p)
{
    bicl_i64 l0 = p->original_max_position_embeddings;
    return (double)(l0 > 0 ? l0 : p->max_position_embeddings);
}

BICL_FN int bicl_rope_check_dim_factors(const double *f, bicl_i32 n)
{
    if (f == 0) {
        return 0;
    }
    for (bicl_i32 i = 0; i < n; i++) {
        if (!bicl_rope_pos_finite(f[i])) {
            return 0;
        }
    }
    return 1;
}

/* Validates p: returns BICL_ROPE_PARAMS_OK or the first problem found. Every other
 * function here assumes a valid p. */
BICL_FN int bicl_rope_freq_params_check(const bicl_rope_freq_params *p)
{
    bicl_rope_scaling t = p->scaling;
    if (p->rotary_dim < 2 || p->rotary_dim > 65536 || (p->rotary_dim & 1) != 0 ||
        (t == BICL_ROPE_SCALING_DYNAMIC_NTK && p->rotary_dim < 4)) {
        return BICL_ROPE_PARAMS_BAD_DIM;
    }
    if (!bicl_rope_pos_finite(p->theta) || (t == BICL_ROPE_SCALING_YARN && p->theta <= 1.0)) {
        return BICL_ROPE_PARAMS_BAD_THETA;
    }
    if (p->seq_len < 0) {
        return BICL_ROPE_PARAMS_BAD_SEQ_LEN;
    }
    if (t == BICL_ROPE_SCALING_NONE) {
        return BICL_ROPE_PARAMS_OK;
    }
    if (t != BICL_ROPE_SCALING_LINEAR && t != BICL_ROPE_SCALING_LLAMA3 &&
        t != BICL_ROPE_SCALING_YARN && t != BICL_ROPE_SCALING_DYNAMIC_NTK &&
        t != BICL_ROPE_SCALING_LONGROPE && t != BICL_ROPE_SCALING_PROPORTIONAL) {
        return BICL_ROPE_PARAMS_BAD_SCALING;
    }
    if (t == BICL_ROPE_SCALING_PROPORTIONAL &&
        (p->rope_angles < 0 || p->rope_angles > p->rotary_dim / 2)) {
        return BICL_ROPE_PARAMS_BAD_ANGLES;
    }
    bicl_i64 l0 = p->original_max_position_embeddings;
    bicl_i64 lmax = p->max_position_embeddings;
    int derive =
        (t == BICL_ROPE_SCALING_YARN || t == BICL_ROPE_SCALING_LONGROPE) && p->factor == 0.0;
    if (derive) {
        if (l0 <= 0 || lmax <= 0) {
            return BICL_ROPE_PARAMS_BAD_MAX_POS;
        }
    } else if (!bicl_rope_pos_finite(p->factor)) {
        return BICL_ROPE_PARAMS_BAD_FACTOR;
    }
    if (t == BICL_ROPE_SCALING_LLAMA3) {
        if (l0 <= 0) {
            return BICL_ROPE_PARAMS_BAD_MAX_POS;
        }
        if (!bicl_rope_pos_finite(p->low_freq_factor) ||
            !bicl_rope_pos_finite(p->high_freq_factor) ||
            !(p->high_freq_factor >= p->low_freq_factor)) {
            return BICL_ROPE_PARAMS_BAD_FREQ_FACTORS;
        }
    }
    if (t == BICL_ROPE_SCALING_YARN) {
        if (l0 <= 0 && lmax <= 0) {
            return BICL_ROPE_PARAMS_BAD_MAX_POS;
        }
        if (!(p->beta_fast >= 0.0) || !(p->beta_slow >= 0.0) || !(p->mscale >= 0.0) ||
            !(p->mscale_all_dim >= 0.0) || !(p->attention_factor >= 0.0) ||
            !bicl_f64_is_finite(p->beta_fast) || !bicl_f64_is_finite(p->beta_slow) ||
            !bicl_f64_is_finite(p->mscale) || !bicl_f64_is_finite(p->mscale_all_dim) ||
            !bicl_f64_is_finite(p->attention_factor)) {
            return BICL_ROPE_PARAMS_BAD_YARN;
        }
    }
    if (t == BICL_ROPE_SCALING_DYNAMIC_NTK && lmax <= 0) {
        return BICL_ROPE_PARAMS_BAD_MAX_POS;
    }
    if (t == BICL_ROPE_SCALING_LONGROPE) {
        if (l0 <= 0) {
            return BICL_ROPE_PARAMS_BAD_MAX_POS;
        }
        if (!(p->attention_factor >= 0.0) || !bicl_f64_is_finite(p->attention_factor)) {
            return BICL_ROPE_PARAMS_BAD_FACTOR;
        }
        bicl_i32 n_freq = p->rotary_dim / 2;
        if (!bicl_rope_check_dim_factors(p->long_factor, n_freq) ||
            !bicl_rope_check_dim_factors(p->short_factor, n_freq)) {
            return BICL_ROPE_PARAMS_BAD_DIM_FACTORS;
        }
    }
    return BICL_ROPE_PARAMS_OK;
}

/* Everything below evaluates the formulas at the top of this file as real-number
 * expressions of the configuration's doubles, in double-double arithmetic (relative
 * error < 2^-57 before the final rounding), and rounds once to double. Band
 * decisions (llama3's wavelength tests, YaRN's floor/ceil/clamps/equality) are taken
 * on the double-double values. */

BICL_FN bicl_dd bicl_rope_dd(double x)
{
    return bicl_dd_make(x, 0.0);
}

/* HF's get_mscale: m(s, k) = 1 for s <= 1, else 0.1 * k * ln(s) + 1 (0.1 = 1/10). */
BICL_FN bicl_dd bicl_rope_yarn_mscale(double s, double k)
{
    if (s <= 1.0) {
        return bicl_rope_dd(1.0);
    }
    bicl_dd t = bicl_dd_div_d(bicl_dd_mul_d(bicl_log_dd(s), k), 10.0);
    return bicl_dd_add(t, bicl_rope_dd(1.0));
}

/* The factor HF returns next to inv_freq ("attention_factor"), which multiplies
 * cos and sin: 1 except for yarn and longrope. */
BICL_FN double bicl_rope_attention_scaling(const bicl_rope_freq_params *p)
{
    double f = bicl_rope_effective_factor(p);
    bicl_dd a = bicl_rope_dd(1.0);
    if (p->scaling == BICL_ROPE_SCALING_YARN) {
        if (p->attention_factor > 0.0) {
            return p->attention_factor;
        }
        if (p->mscale != 0.0 && p->mscale_all_dim != 0.0) {
            a = bicl_dd_div(bicl_rope_yarn_mscale(f, p->mscale),
                            bicl_rope_yarn_mscale(f, p->mscale_all_dim));
        } else {
            a = bicl_rope_yarn_mscale(f, 1.0);
        }
    } else if (p->scaling == BICL_ROPE_SCALING_LONGROPE) {
        if (p->attention_factor > 0.0) {
            return p->attention_factor;
        }
        if (f > 1.0) {
            double l0 = (double)p->original_max_position_embeddings;
            bicl_dd q = bicl_dd_div(bicl_log_dd(f), bicl_log_dd(l0));
            a = bicl_dd_sqrt(bicl_dd_add(q, bicl_rope_dd(1.0)));
        }
    }
    return a.hi + a.lo;
}

/* YaRN's cd(n) = d * ln(L0 / (n 2pi)) / (2 ln theta), with the real 2 pi. */
BICL_FN bicl_dd bicl_rope_yarn_corr_dim(const bicl_rope_freq_params *p, double n)
{
    bicl_dd l = bicl_dd_sub(bicl_log_dd(bicl_rope_yarn_original_len(p)), bicl_log_dd(n));
    l = bicl_dd_sub(l, bicl_dd_make(BICL_LN_TWO_PI_HI, BICL_LN_TWO_PI_LO));
    bicl_dd two_ln_theta = bicl_dd_mul_d(bicl_log_dd(p->theta), 2.0);
    return bicl_dd_div(bicl_dd_mul_d(l, (double)p->rotary_dim), two_ln_theta);
}

/* YaRN's correction range [low, high] in units of the frequency index i, after
 * truncation, clamping and the 0.001 widening. */
BICL_FN void bicl_rope_yarn_range_dd(const bicl_rope_freq_params *p, bicl_dd *low, bicl_dd *high)
{
    bicl_dd lo = bicl_rope_yarn_corr_dim(p, p->beta_fast != 0.0 ? p->beta_fast : 32.0);
    bicl_dd hi = bicl_rope_yarn_corr_dim(p, p->beta_slow != 0.0 ? p->beta_slow : 1.0);
    if (p->truncate != 0) {
        lo = bicl_dd_floor(lo);
        hi = bicl_dd_ceil(hi);
    }
    bicl_dd zero = bicl_rope_dd(0.0);
    bicl_dd top = bicl_rope_dd((double)(p->rotary_dim - 1));
    if (bicl_dd_lt(lo, zero)) {
        lo = zero;
    }
    if (bicl_dd_lt(top, hi)) {
        hi = top;
    }
    if (bicl_dd_eq(lo, hi)) {
        hi = bicl_dd_add(hi, bicl_rope_dd(0.001));
    }
    *low = lo;
    *high = hi;
}

/* The same range rounded to doubles (for reports and tests). */
BICL_FN void bicl_rope_yarn_range(const bicl_rope_freq_params *p, double *low, double *high)
{
    bicl_dd lo, hi;
    bicl_rope_yarn_range_dd(p, &lo, &hi);
    *low = lo.hi + lo.lo;
    *high = hi.hi + hi.lo;
}

/* theta^(-2i/d), and for dynamic NTK times g^(-2i/(d-2)), as a double-double: the
 * exponent is carried in double-double so that 2i/d is never rounded. */
BICL_FN bicl_dd bicl_rope_base_freq(const bicl_rope_freq_params *p, bicl_i32 i)
{
    double two_i = 2.0 * (double)i;
    bicl_i32 d = p->rotary_dim;
    bicl_dd e = bicl_dd_div_d(bicl_dd_mul_d(bicl_log_dd(p->theta), two_i), (double)d);
    if (p->scaling == BICL_ROPE_SCALING_DYNAMIC_NTK) {
        /* g = (F * L / Lmax) - (F - 1), L = max(seq_len, Lmax), as a real number */
        double f = p->factor;
        double lmax = (double)p->max_position_embeddings;
        double len = (double)(p->seq_len > p->max_position_embeddings ? p->seq_len
                                                                      : p->max_position_embeddings);
        bicl_dd g = bicl_dd_div_d(bicl_dd_two_prod(f, len), lmax);
        g = bicl_dd_sub(g, bicl_dd_two_sum(f, -1.0));
        bicl_dd lg = bicl_dd_div_d(bicl_dd_mul_d(bicl_log_dd_dd(g), two_i), (double)(d - 2));
        e = bicl_dd_add(e, lg);
    }
    return bicl_exp_dd_dd(bicl_dd_neg(e));
}

/* llama3's band weight: inv = base * w, w = 1, 1/F or (1 - s)/F + s. */
BICL_FN bicl_dd bicl_rope_llama3_weight(const bicl_rope_freq_params *p, bicl_dd base, double f)
{
    bicl_dd two_pi = bicl_dd_make(BICL_TWO_PI, BICL_TWO_PI_LO);
    bicl_dd l0 = bicl_rope_dd((double)p->original_max_position_embeddings);
    bicl_dd wl = bicl_dd_div(two_pi, base);
    if (bicl_dd_lt(wl, bicl_dd_div_d(l0, p->high_freq_factor))) {
        return bicl_rope_dd(1.0);
    }
    if (bicl_dd_lt(bicl_dd_div_d(l0, p->low_freq_factor), wl)) {
        return bicl_dd_div(bicl_rope_dd(1.0), bicl_rope_dd(f));
    }
    /* wl is exactly L0 / low_freq_factor == L0 / high_freq_factor (equal factors, as
     * Llama-4-Scout's): no band between them (HF would divide 0 by 0 here); keep base. */
    if (p->high_freq_factor == p->low_freq_factor) {
        return bicl_rope_dd(1.0);
    }
    /* s = (L0 / wl - low) / (high - low) */
    bicl_dd num = bicl_dd_sub(bicl_dd_div(l0, wl), bicl_rope_dd(p->low_freq_factor));
    bicl_dd s = bicl_dd_div(num, bicl_dd_two_sum(p->high_freq_factor, -p->low_freq_factor));
    bicl_dd one_minus_s = bicl_dd_sub(bicl_rope_dd(1.0), s);
    return bicl_dd_add(bicl_dd_div_d(one_minus_s, f), s);
}

/* YaRN's weight: inv = base * w, w = ramp / F + (1 - ramp). Computing 1 - ramp in
 * double-double matters: in double it cancels (17 ulp for gpt-oss at i = 17). */
BICL_FN bicl_dd bicl_rope_yarn_weight(const bicl_rope_freq_params *p, bicl_i32 i, double f)
{
    bicl_dd low, high;
    bicl_rope_yarn_range_dd(p, &low, &high);
    bicl_dd ramp = bicl_dd_div(bicl_dd_sub(bicl_rope_dd((double)i), low), bicl_dd_sub(high, low));
    if (ramp.hi < 0.0) {
        ramp = bicl_rope_dd(0.0);
    }
    if (bicl_dd_lt(bicl_rope_dd(1.0), ramp)) {
        ramp = bicl_rope_dd(1.0);
    }
    bicl_dd keep = bicl_dd_sub(bicl_rope_dd(1.0), ramp); /* HF's inv_freq_extrapolation_factor */
    return bicl_dd_add(bicl_dd_div_d(ramp, f), keep);
}

/* inv_freq[i] for 0 <= i < rotary_dim/2 (formulas at the top of this file), within
 * about 0.51 ulp of the real value of the formula. */
BICL_FN double bicl_rope_inv_freq(const bicl_rope_freq_params *p, bicl_i32 i)
{
    bicl_rope_scaling t = p->scaling;
    double f = bicl_rope_effective_factor(p);
    bicl_dd base = bicl_rope_base_freq(p, i);
    bicl_dd inv = base; /* none, dynamic_ntk */
    if (t == BICL_ROPE_SCALING_LINEAR) {
        inv = bicl_dd_div_d(base, f);
    } else if (t == BICL_ROPE_SCALING_LLAMA3) {
        inv = bicl_dd_mul(base, bicl_rope_llama3_weight(p, base, f));
    } else if (t == BICL_ROPE_SCALING_YARN) {
        inv = bicl_dd_mul(base, bicl_rope_yarn_weight(p, i, f));
    } else if (t == BICL_ROPE_SCALING_LONGROPE) {
        int use_long = p->seq_len > p->original_max_position_embeddings;
        inv = bicl_dd_div_d(base, use_long ? p->long_factor[i] : p->short_factor[i]);
    } else if (t == BICL_ROPE_SCALING_PROPORTIONAL) {
        inv = i < p->rope_angles ? bicl_dd_div_d(base, f) : bicl_rope_dd(0.0);
    }
    return inv.hi + inv.lo;
}

/* ------------------------------------------ HF's float32 inv_freq (hf mode) */
/* transformers 5 computes inv_freq in float32 torch tensors with Python doubles as
 * scalars; the hf angle mode reproduces that arithmetic step by step (every step below
 * is one IEEE operation in the type written, so the result is deterministic), with one
 * difference: torch's float32 `base ** exponent` is Sleef's vectorised powf (1 ulp) on
 * most of the tensor, bicl's is correctly rounded (bicl_rope_powf). Python's math.log,
 * ** on doubles and the like are taken as correctly rounded (glibc's are, on every
 * value the suite meets). A Python float used with a float32 tensor is rounded to
 * float32 first (torch's wrapped scalars): that is what RN32 marks. */

/* Round a double-double (positive, normal in float) to the nearest float, ties to even:
 * (float)hi rounds hi, and lo decides only when hi sits on a midpoint. */
BICL_FN float bicl_rope_dd_to_f32(bicl_dd r)
{
    float f = bicl_f64_to_f32_rte(r.hi);
    double t = (r.hi - (double)f) + r.lo; /* r - f, exact to the last bits */
    bicl_u32 u = bicl_f32_as_u32(f);
    double h = ((double)bicl_u32_as_f32(u + 1u) - (double)f) * 0.5;
    if (t > h || (t == h && (u & 1u) != 0u)) {
        return bicl_u32_as_f32(u + 1u);
    }
    h = ((double)f - (double)bicl_u32_as_f32(u - 1u)) * 0.5;
    if (-t > h || (-t == h && (u & 1u) != 0u)) {
        return bicl_u32_as_f32(u - 1u);
    }
    return f;
}

/* b^e for float b > 0, rounded once to float: exp(e ln b) in double-double (relative
 * error ~2^-57 before the rounding, so it is the correctly rounded powf except within
 * ~2^-33 ulp of a midpoint; the conformance test holds it to transformers' bits). */
BICL_FN float bicl_rope_powf(float b, float e)
{
    bicl_dd l = bicl_dd_mul_d(bicl_log_dd((double)b), (double)e);
    return bicl_rope_dd_to_f32(bicl_exp_dd_dd(l));
}

/* Python's math.log, taken as correctly rounded. */
BICL_FN double bicl_rope_log_py(double x)
{
    bicl_dd l = bicl_log_dd(x);
    return l.hi + l.lo;
}

/* HF's find_correction_dim in Python doubles:
 * (dim * log(L0 / (n * 2 * pi))) / (2 * log(base)). */
BICL_FN double bicl_rope_yarn_corr_dim_py(const bicl_rope_freq_params *p, double n)
{
    double l0 = bicl_rope_yarn_original_len(p);
    double num = (double)p->rotary_dim * bicl_rope_log_py(l0 / ((n * 2.0) * BICL_TWO_PI * 0.5));
    return num / (2.0 * bicl_rope_log_py(p->theta));
}

/* The exponent RN32(2i) / RN32(d) and theta^exponent in float, as every type starts. */
BICL_FN float bicl_rope_pos_freq_f32(double theta, bicl_i32 i, bicl_i32 d)
{
    float e = (float)(2 * i) / (float)d;
    return bicl_rope_powf(bicl_f64_to_f32_rte(theta), e);
}

/* dynamic NTK's new base, in Python doubles:
 * base * ((F * L / Lmax) - (F - 1)) ** (d / (d - 2)). */
BICL_FN double bicl_rope_dynamic_base_py(const bicl_rope_freq_params *p)
{
    double lmax = (double)p->max_position_embeddings;
    double len =
        (double)(p->seq_len > p->max_position_embeddings ? p->seq_len : p->max_position_embeddings);
    double g = ((p->factor * len) / lmax) - (p->factor - 1.0);
    double y = (double)p->rotary_dim / (double)(p->rotary_dim - 2);
    bicl_dd r = bicl_exp_dd_dd(bicl_dd_mul_d(bicl_log_dd(g), y));
    return p->theta * (r.hi + r.lo);
}

/* llama3 in float32 (modeling_rope_utils._compute_llama3_parameters). */
BICL_FN float bicl_rope_llama3_f32(const bicl_rope_freq_params *p, float inv)
{
    double l0 = (double)p->original_max_position_embeddings;
    float f = bicl_f64_to_f32_rte(p->factor);
    float lo = bicl_f64_to_f32_rte(p->low_freq_factor);
    float wl_lo = bicl_f64_to_f32_rte(l0 / p->low_freq_factor);
    float wl_hi = bicl_f64_to_f32_rte(l0 / p->high_freq_factor);
    float wl = bicl_f64_to_f32_rte(BICL_TWO_PI) / inv;
    float llama = wl > wl_lo ? inv / f : inv;
    if (wl < wl_hi || wl > wl_lo) {
        return llama;
    }
    float s = (bicl_f64_to_f32_rte(l0) / wl - lo) /
              bicl_f64_to_f32_rte(p->high_freq_factor - p->low_freq_factor);
    return (1.0f - s) * llama / f + s * llama;
}

/* yarn in float32 (modeling_rope_utils._compute_yarn_parameters). */
BICL_FN float bicl_rope_yarn_f32(const bicl_rope_freq_params *p, bicl_i32 i, float pos, double f)
{
    float extrap = 1.0f / pos;
    float interp = 1.0f / (bicl_f64_to_f32_rte(f) * pos);
    double low = bicl_rope_yarn_corr_dim_py(p, p->beta_fast != 0.0 ? p->beta_fast : 32.0);
    double high = bicl_rope_yarn_corr_dim_py(p, p->beta_slow != 0.0 ? p->beta_slow : 1.0);
    if (p->truncate != 0) {
        low = bicl_floor_d(low);
        high = bicl_ceil_d(high);
    }
    low = low > 0.0 ? low : 0.0;
    high = high < (double)(p->rotary_dim - 1) ? high : (double)(p->rotary_dim - 1);
    if (low == high) {
        high += 0.001;
    }
    float ramp = ((float)i - bicl_f64_to_f32_rte(low)) / bicl_f64_to_f32_rte(high - low);
    ramp = ramp < 0.0f ? 0.0f : (ramp > 1.0f ? 1.0f : ramp);
    float ext = 1.0f - ramp;
    return interp * (1.0f - ext) + extrap * ext;
}

/* inv_freq[i] as transformers computes it in float32 (see above). */
BICL_FN float bicl_rope_inv_freq_hf(const bicl_rope_freq_params *p, bicl_i32 i)
{
    bicl_rope_scaling t = p->scaling;
    bicl_i32 d = p->rotary_dim;
    double theta = t == BICL_ROPE_SCALING_DYNAMIC_NTK ? bicl_rope_dynamic_base_py(p) : p->theta;
    float pos = bicl_rope_pos_freq_f32(theta, i, d);
    if (t == BICL_ROPE_SCALING_YARN) {
        return bicl_rope_yarn_f32(p, i, pos, bicl_rope_effective_factor(p));
    }
    if (t == BICL_ROPE_SCALING_LONGROPE) {
        int use_long = p->seq_len > p->original_max_position_embeddings;
        double ext = use_long ? p->long_factor[i] : p->short_factor[i];
        return 1.0f / (bicl_f64_to_f32_rte(ext) * pos);
    }
    float inv = 1.0f / pos;
    if (t == BICL_ROPE_SCALING_LINEAR) {
        return inv / bicl_f64_to_f32_rte(p->factor);
    }
    if (t == BICL_ROPE_SCALING_PROPORTIONAL) {
        /* the pairs past rope_angles are float zeros before the division by factor */
        return (i < p->rope_angles ? inv : 0.0f) / bicl_f64_to_f32_rte(p->factor);
    }
    if (t == BICL_ROPE_SCALING_LLAMA3) {
        return bicl_rope_llama3_f32(p, inv);
    }
    return inv;
}

/* --------------------------------------------------------------- cos / sin */
/* Exact mode (see the top of this file): cos and sin of the real pos * inv_freq,
 * times attn_scale in double, each rounded once to float. */
BICL_FN void bicl_rope_cos_sin_exact(bicl_i32 pos, double inv_freq, double attn_scale, float *c,
                                     float *s)
{
    bicl_dd angle = bicl_dd_two_prod((double)pos, inv_freq);
    double sd, cd;
    bicl_sincos_dd(angle.hi, angle.lo, &sd, &cd);
    *c = bicl_f64_to_f32_rte(cd * attn_scale);
    *s = bicl_f64_to_f32_rte(sd * attn_scale);
}

/* hf mode (see the top of this file): HF's float32 pipeline with exact cos/sin of
 * the float angle. inv_freq and attn_scale are the float values HF would hold:
 * bicl_f64_to_f32_rte of the double ones. */
BICL_FN void bicl_rope_cos_sin_hf(bicl_i32 pos, float inv_freq, float attn_scale, float *c,
                                  float *s)
{
    float angle = bicl_i32_to_f32_rte(pos) * inv_freq;
    double sd, cd;
    bicl_sincos_dd((double)angle, 0.0, &sd, &cd);
    *c = bicl_f64_to_f32_rte(cd) * attn_scale;
    *s = bicl_f64_to_f32_rte(sd) * attn_scale;
}

#endif /* BICL_HAVE_FP64 */
#endif /* BICL_ROPE_MATH_H */
