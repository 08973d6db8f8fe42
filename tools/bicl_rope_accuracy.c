/* bicl_rope_accuracy - measures bicl's binary64 math and RoPE cos/sin against MPFR.
 *
 * Built by CMake as bicl-rope-accuracy (a developer tool: not installed); it links the
 * harness (harness/) for models.json and the rounding to f32.
 * Run:
 *   ./bicl_rope_accuracy [--models shared/models.json] [--sweep N] [--beyond N]
 *                        [--samples N] [--seed S] [--quick]
 *
 * It prints markdown tables:
 *  1. bicl_sincos_dd against MPFR, per class of angle (random doubles, the exact
 *     products pos * inv_freq, float angles, double-doubles and doubles next to
 *     multiples of pi/2, the whole double range): relative error, error in float
 *     ulps, and how many results round to a float other than the correctly rounded
 *     one.
 *  2. bicl_exp_d / bicl_log_d / bicl_pow_d against MPFR, in double ulps.
 *  3. inv_freq and the attention scaling of every model in models.json (plus
 *     synthetic linear, dynamic NTK and longrope configs) against the same formulas
 *     evaluated in MPFR at 256 bits, in double ulps.
 *  4. RoPE cos/sin, both angle modes, at the long-context positions of models.json,
 *     a sweep of positions up to 2^20 and a few up to 2^31 - 1, for every model,
 *     against: the exact real for bicl's double inv_freq (exact mode's contract), the
 *     exact real for the true inv_freq (MPFR), and, for hf mode, the exact cos/sin of
 *     its float angle times its float attention factor (hf mode's contract).
 * Errors in float ulps are |got - ref| / ulp(ref), ulp(v) = 2^(floor(log2|v|) - 23)
 * (2^-149 at the bottom). The exit status is 1 when a contract is broken: exact mode
 * worse than 0.5 + 2^-10 float ulp against its reference, sincos relative error
 * above 2^-50, or exp/log/pow above 1 double ulp. */
#include "bicl_rope_math.h"
#include "harness.h"

#include <mpfr.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define REF_PREC 256 /* bits of every MPFR reference value */

/* ------------------------------------------------------------------- random */
static bicl_u64 rng_state = 0x9e3779b97f4a7c15u;

static bicl_u64 rnd_u64(void)
{
    /* xorshift64*: fast, reproducible from the seed, good enough for sampling */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545f4914f6cdd1du;
}
/* uniform in [0, 1) with 53 random bits */
static double rnd_unit(void)
{
    return (double)(rnd_u64() >> 11) * 0x1p-53;
}
/* uniform integer in [0, n) for n > 0 (modulo bias is irrelevant here) */
static bicl_u64 rnd_below(bicl_u64 n)
{
    return rnd_u64() % n;
}
/* a double with a random 52-bit mantissa and binary exponent e: [2^e, 2^(e+1)) */
static double rnd_double_exp(int e)
{
    bicl_u64 bits = ((bicl_u64)(e + 1023) << 52) | (rnd_u64() & BICL_F64_MANT_MASK);
    return bicl_u64_as_f64(bits);
}
/* log-uniform magnitude in [2^lo, 2^hi) */
static double rnd_log_uniform(int lo, int hi)
{
    return rnd_double_exp(lo + (int)rnd_below((bicl_u64)(hi - lo)));
}

/* ------------------------------------------------------------- MPFR helpers */
static mpfr_t t_a, t_b, t_c, t_s, t_x; /* scratch, REF_PREC unless re-sized */

static void mp_init(void)
{
    mpfr_inits2(REF_PREC, t_a, t_b, t_c, t_s, (mpfr_ptr)0);
    mpfr_init2(t_x, 64);
}

/* Binary exponent of a nonzero double: 2^e <= |x| < 2^(e+1). */
static int exp_of(double x)
{
    int e = (int)((bicl_f64_as_u64(x) >> 52) & 0x7ff);
    if (e == 0) {
        return -1075 + 64 - 1; /* subnormals: only used as a lower bound here */
    }
    return e - 1023;
}

/* t_x := hi + lo exactly (t_x's precision is set to hold the sum). */
static void mp_set_dd(double hi, double lo)
{
    mpfr_prec_t prec = 64;
    if (hi != 0.0 && lo != 0.0) {
        int gap = exp_of(hi) - exp_of(lo);
        if (gap < 0) {
            gap = -gap;
        }
        prec = (mpfr_prec_t)(gap + 110);
    }
    mpfr_set_prec(t_x, prec);
    mpfr_set_d(t_x, hi, MPFR_RNDN);
    if (mpfr_add_d(t_x, t_x, lo, MPFR_RNDN) != 0) {
        fprintf(stderr, "internal error: inexact double-double\n");
        exit(2);
    }
}

/* |got - ref| in units of ulp(ref) for a format with p-bit significands whose
 * smallest exponent of an ulp is emin (float: 24, -149; double: 53, -1074). */
static double ulps_vs(double got, mpfr_srcptr ref, int p, int emin)
{
    long ue = emin;
    if (!mpfr_zero_p(ref)) {
        long e = (long)mpfr_get_exp(ref) - p; /* mpfr: ref = m 2^E, m in [0.5, 1) */
        ue = e > emin ? e : emin;
    }
    mpfr_set_d(t_c, got, MPFR_RNDN);
    mpfr_sub(t_c, t_c, ref, MPFR_RNDN);
    mpfr_mul_2si(t_c, t_c, -ue, MPFR_RNDN);
    double u = mpfr_get_d(t_c, MPFR_RNDN);
    return u < 0 ? -u : u;
}
static double ulps_f32(float got, mpfr_srcptr ref)
{
    return ulps_vs((double)got, ref, 24, -149);
}
static double ulps_f64(double got, mpfr_srcptr ref)
{
    return ulps_vs(got, ref, 53, -1074);
}
/* |got - ref| / |ref| (0 when both are 0) */
static double rel_err(double got, mpfr_srcptr ref)
{
    if (mpfr_zero_p(ref)) {
        return got == 0.0 ? 0.0 : 1.0;
    }
    mpfr_set_d(t_c, got, MPFR_RNDN);
    mpfr_sub(t_c, t_c, ref, MPFR_RNDN);
    mpfr_div(t_c, t_c, ref, MPFR_RNDN);
    double r = mpfr_get_d(t_c, MPFR_RNDN);
    return r < 0 ? -r : r;
}
/* 1 when f is not the correctly rounded float of ref (the harness's rounding) */
static int misrounded_f32(float f, mpfr_srcptr ref)
{
    return harness_round_to_bits(BICL_F32, ref) != bicl_f32_as_u32(f);
}
static int misrounded_f64(double d, mpfr_srcptr ref)
{
    return bicl_f64_as_u64(mpfr_get_d(ref, MPFR_RNDN)) != bicl_f64_as_u64(d);
}

/* --------------------------------------------------------------- statistics */
typedef struct {
    double max;
    double where_a, where_b; /* the inputs of the worst case */
    long count, bad;         /* samples, misrounded results */
} stat;

static void stat_add(stat *s, double err, double a, double b)
{
    if (err > s->max || s->count == 0) {
        s->max = err;
        s->where_a = a;
        s->where_b = b;
    }
    s->count++;
}

static int g_fail = 0;

/* ======================================================= 1. bicl_sincos_dd */
typedef enum {
    SC_RANDOM_DOUBLE,
    SC_PRODUCT,
    SC_FLOAT,
    SC_NEAR_PIO2_DD,
    SC_NEAR_PIO2_D,
    SC_WHOLE_RANGE,
    SC_NCLASS
} sc_class;

static const char *sc_name[SC_NCLASS] = {
    "random double, |x| in [2^-30, 2^32)", "pos*inv_freq as dd, pos < 2^31, inv in [2^-30, 1)",
    "float angle in [2^-30, 2^31)",        "dd within ~2^-70 rel. of k*pi/2, k < 2^32",
    "double nearest k*pi/2, k < 2^32",     "random double, whole range (to 2^1024)",
};

static void mp_pio2_multiple(bicl_u64 k)
{
    mpfr_const_pi(t_a, MPFR_RNDN);
    mpfr_mul_ui(t_a, t_a, (unsigned long)k, MPFR_RNDN);
    mpfr_div_2ui(t_a, t_a, 1, MPFR_RNDN);
}

static void sc_sample(sc_class c, double *hi, double *lo)
{
    *lo = 0.0;
    switch (c) {
    case SC_RANDOM_DOUBLE:
        *hi = rnd_log_uniform(-30, 32);
        break;
    case SC_PRODUCT: {
        double pos = (double)rnd_below((bicl_u64)1 << 31);
        bicl_dd p = bicl_dd_two_prod(pos, rnd_log_uniform(-30, 0));
        *hi = p.hi;
        *lo = p.lo;
        break;
    }
    case SC_FLOAT: {
        float f = (float)rnd_log_uniform(-30, 31);
        *hi = (double)f;
        break;
    }
    case SC_NEAR_PIO2_DD: {
        /* the double-double nearest to k*pi/2, then lo moved by a few ulps: the
         * distance to k*pi/2 is ~2^-75 .. 2^-100 absolute */
        mp_pio2_multiple(1 + rnd_below(((bicl_u64)1 << 32) - 1));
        *hi = mpfr_get_d(t_a, MPFR_RNDN);
        mpfr_sub_d(t_a, t_a, *hi, MPFR_RNDN);
        *lo = mpfr_get_d(t_a, MPFR_RNDN);
        double ulp_lo = bicl_f64_abs(*lo) * 0x1p-52;
        *lo += (double)((int)rnd_below(2001) - 1000) * ulp_lo;
        break;
    }
    case SC_NEAR_PIO2_D:
        mp_pio2_multiple(1 + rnd_below(((bicl_u64)1 << 32) - 1));
        *hi = mpfr_get_d(t_a, MPFR_RNDN);
        break;
    default: {
        bicl_u64 bits = rnd_u64() & 0x7fefffffffffffffu;
        *hi = bicl_u64_as_f64(bits) * ((rnd_u64() & 1) ? -1.0 : 1.0);
        break;
    }
    }
}

/* One angle: returns the worst relative error of sin and cos, updates the stats. */
static void sc_check(double hi, double lo, stat *rel, stat *uf, stat *mis)
{
    double s, c;
    bicl_sincos_dd(hi, lo, &s, &c);
    mp_set_dd(hi, lo);
    mpfr_sin_cos(t_s, t_b, t_x, MPFR_RNDN);
    double r = rel_err(s, t_s);
    double r2 = rel_err(c, t_b);
    stat_add(rel, r > r2 ? r : r2, hi, lo);
    double us = ulps_vs(s, t_s, 24, -149);
    double uc = ulps_vs(c, t_b, 24, -149);
    stat_add(uf, us > uc ? us : uc, hi, lo);
    int m =
        misrounded_f32(bicl_f64_to_f32_rte(s), t_s) + misrounded_f32(bicl_f64_to_f32_rte(c), t_b);
    mis->bad += m;
    mis->count += 2;
}

static void report_sincos(long samples)
{
    printf("## bicl_sincos_dd against MPFR\n\n");
    printf("Relative error of the double results; their error in float ulps; results whose "
           "RTE rounding to float differs from the correctly rounded float.\n\n");
    printf("| angles | samples | max rel. error | (in 2^-53) | max float ulp | float "
           "misrounded | worst at (hi, lo) |\n");
    printf("|---|---:|---:|---:|---:|---:|---|\n");
    for (int c = 0; c < SC_NCLASS; c++) {
        stat rel = {0}, uf = {0}, mis = {0};
        for (long k = 0; k < samples; k++) {
            double hi, lo;
            sc_sample((sc_class)c, &hi, &lo);
            sc_check(hi, lo, &rel, &uf, &mis);
        }
        if (c == SC_NEAR_PIO2_D || c == SC_WHOLE_RANGE) {
            /* the double closest to a multiple of pi/2 (Muller's worst case) */
            double worst = 6381956970095103.0 * 0x1p797;
            sc_check(worst, 0.0, &rel, &uf, &mis);
            sc_check(-worst, 0.0, &rel, &uf, &mis);
        }
        printf("| %s | %ld | %.3g | %.3f | %.2e | %ld / %ld | (%a, %a) |\n", sc_name[c], rel.count,
               rel.max, rel.max * 0x1p53, uf.max, mis.bad, mis.count, rel.where_a, rel.where_b);
        if (rel.max > 0x1p-50) {
            g_fail = 1;
        }
    }
    printf("\n");
}

/* ==================================================== 2. exp / log / pow */
typedef enum { EL_EXP, EL_LOG, EL_POW } el_fn;

static void el_row(const char *name, el_fn fn, long samples, int dom)
{
    stat st = {0};
    long bad = 0;
    for (long k = 0; k < samples; k++) {
        double x = 0, y = 0, got;
        switch (fn) {
        case EL_EXP:
            x = dom == 0 ? -745.13 + rnd_unit() * (709.78 + 745.13) : (rnd_unit() - 0.5) * 4.0;
            got = bicl_exp_d(x);
            mpfr_set_d(t_a, x, MPFR_RNDN);
            mpfr_exp(t_s, t_a, MPFR_RNDN);
            break;
        case EL_LOG:
            if (dom == 0) {
                x = bicl_u64_as_f64(1 + rnd_below(0x7fefffffffffffffu));
            } else {
                x = 0.5 + rnd_unit() * 1.5;
            }
            got = bicl_log_d(x);
            mpfr_set_d(t_a, x, MPFR_RNDN);
            mpfr_log(t_s, t_a, MPFR_RNDN);
            break;
        default:
            if (dom == 0) {
                /* RoPE: theta^(-2i/d) */
                x = rnd_log_uniform(0, 24);
                y = -rnd_unit();
            } else {
                x = rnd_log_uniform(-100, 100);
                y = (rnd_unit() - 0.5) * 10.0;
            }
            got = bicl_pow_d(x, y);
            mpfr_set_d(t_a, x, MPFR_RNDN);
            mpfr_set_d(t_b, y, MPFR_RNDN);
            mpfr_pow(t_s, t_a, t_b, MPFR_RNDN);
            break;
        }
        stat_add(&st, ulps_f64(got, t_s), x, y);
        bad += misrounded_f64(got, t_s);
    }
    printf("| %s | %ld | %.4f | %.4f%% | (%a, %a) |\n", name, st.count, st.max,
           100.0 * (double)(st.count - bad) / (double)st.count, st.where_a, st.where_b);
    if (st.max > 1.0) {
        g_fail = 1;
    }
}

static void report_elementary(long samples)
{
    printf("## bicl_exp_d, bicl_log_d, bicl_pow_d against MPFR\n\n");
    printf("| function, domain | samples | max ulp (double) | correctly rounded | worst at "
           "(x, y) |\n");
    printf("|---|---:|---:|---:|---|\n");
    el_row("exp, x in [-745.13, 709.78] (incl. subnormal results)", EL_EXP, samples, 0);
    el_row("exp, x in [-2, 2]", EL_EXP, samples, 1);
    el_row("log, every positive finite double (random bits)", EL_LOG, samples, 0);
    el_row("log, x in [0.5, 2]", EL_LOG, samples, 1);
    el_row("pow, x in [1, 2^24], y in (-1, 0] (RoPE)", EL_POW, samples, 0);
    el_row("pow, x in [2^-100, 2^100], y in [-5, 5]", EL_POW, samples, 1);
    printf("\n");
}

/* ================================================================ models */
#define MAX_MODELS 16
#define MAX_HALF   256

typedef struct {
    char name[64];
    bicl_rope_freq_params p;
    double long_f[MAX_HALF], short_f[MAX_HALF];
    double inv[MAX_HALF]; /* bicl's inv_freq */
    double attn;          /* bicl's attention scaling */
    mpfr_t inv_true[MAX_HALF];
    mpfr_t attn_true;
} model;

static model g_models[MAX_MODELS];
static int g_nmodels;
static long g_long_pos[16];
static int g_nlong;

static model *model_new(const char *name, int rotary_dim, double theta)
{
    if (g_nmodels == MAX_MODELS || rotary_dim / 2 > MAX_HALF) {
        fprintf(stderr, "too many models or rotary_dim too large\n");
        exit(2);
    }
    model *m = &g_models[g_nmodels++];
    snprintf(m->name, sizeof m->name, "%s", name);
    m->p = bicl_rope_freq_params_default(rotary_dim, theta);
    return m;
}

/* The models and long-context positions of models.json, through the harness's reader
 * (harness/models.c). */
static void load_models(const char *path)
{
    harness_model ms[MAX_MODELS];
    harness_workload w;
    char err[256];
    int n = harness_models_read(path, ms, MAX_MODELS, &w, err, sizeof err);
    if (n < 0) {
        fprintf(stderr, "%s (use --models PATH)\n", err);
        exit(2);
    }
    for (int k = 0; k < w.n_long; k++) {
        g_long_pos[g_nlong++] = (long)w.long_context_positions[k];
    }
    for (int k = 0; k < n; k++) {
        const harness_model *hm = &ms[k];
        model *m = model_new(hm->name, hm->rotary_dim, hm->theta);
        bicl_rope_freq_params *p = &m->p;
        p->max_position_embeddings = (bicl_i64)hm->max_pos;
        if (hm->type == BICL_ROPE_DEFAULT) {
            continue;
        }
        p->factor = hm->factor;
        p->original_max_position_embeddings = (bicl_i64)hm->original_max;
        if (hm->type == BICL_ROPE_LINEAR) {
            p->scaling = BICL_ROPE_SCALING_LINEAR;
        } else if (hm->type == BICL_ROPE_LLAMA3) {
            p->scaling = BICL_ROPE_SCALING_LLAMA3;
            p->low_freq_factor = hm->low;
            p->high_freq_factor = hm->high;
        } else if (hm->type == BICL_ROPE_YARN) {
            p->scaling = BICL_ROPE_SCALING_YARN;
            p->beta_fast = hm->beta_fast;
            p->beta_slow = hm->beta_slow;
            p->truncate = (bicl_i32)hm->truncate;
        } else {
            fprintf(stderr, "%s: its rope_type is not measured by this tool\n", m->name);
            g_nmodels--;
        }
    }
}

/* Synthetic configs for the scaling types no model in models.json uses. */
static void add_synthetic_models(void)
{
    model *m = model_new("synthetic_linear", 128, 10000.0);
    m->p.scaling = BICL_ROPE_SCALING_LINEAR;
    m->p.factor = 4.0;
    m = model_new("synthetic_dynamic_ntk", 128, 10000.0);
    m->p.scaling = BICL_ROPE_SCALING_DYNAMIC_NTK;
    m->p.factor = 2.0;
    m->p.max_position_embeddings = 4096;
    m->p.seq_len = 10000;
    m = model_new("synthetic_longrope", 96, 10000.0);
    m->p.scaling = BICL_ROPE_SCALING_LONGROPE;
    m->p.factor = 0.0;
    m->p.original_max_position_embeddings = 4096;
    m->p.max_position_embeddings = 131072;
    m->p.seq_len = 8192;
    for (int i = 0; i < 48; i++) {
        /* Phi-3-like shapes: ~1 for high frequencies, growing for low ones */
        m->long_f[i] = 1.0 + 0.03125 * (double)(i * i);
        m->short_f[i] = 1.0 + 0.0078125 * (double)i;
    }
    m->p.long_factor = m->long_f;
    m->p.short_factor = m->short_f;
    m = model_new("synthetic_yarn_mscale", 64, 10000.0);
    m->p.scaling = BICL_ROPE_SCALING_YARN;
    m->p.factor = 40.0;
    m->p.original_max_position_embeddings = 4096;
    m->p.mscale = 1.0;
    m->p.mscale_all_dim = 0.707;
}

/* The formulas of bicl_rope_math.h evaluated in MPFR at REF_PREC bits (the
 * comparisons and floor/ceil are taken on those values, so a case exactly at a band
 * edge could classify differently; none of the configs here is). */
static void mp_base_freq(mpfr_ptr out, const bicl_rope_freq_params *p, int i)
{
    mpfr_set_d(t_a, p->theta, MPFR_RNDN);
    mpfr_log(t_a, t_a, MPFR_RNDN);
    mpfr_mul_si(t_a, t_a, -2 * i, MPFR_RNDN);
    mpfr_div_si(t_a, t_a, p->rotary_dim, MPFR_RNDN);
    if (p->scaling == BICL_ROPE_SCALING_DYNAMIC_NTK) {
        double lmax = (double)p->max_position_embeddings;
        double len = (double)(p->seq_len > p->max_position_embeddings ? p->seq_len
                                                                      : p->max_position_embeddings);
        /* g = (F * L / Lmax) - (F - 1), in exact arithmetic */
        mpfr_set_d(t_b, p->factor, MPFR_RNDN);
        mpfr_mul_d(t_b, t_b, len, MPFR_RNDN);
        mpfr_div_d(t_b, t_b, lmax, MPFR_RNDN);
        mpfr_sub_d(t_b, t_b, p->factor, MPFR_RNDN);
        mpfr_add_ui(t_b, t_b, 1, MPFR_RNDN);
        mpfr_log(t_b, t_b, MPFR_RNDN);
        mpfr_mul_si(t_b, t_b, -2 * i, MPFR_RNDN);
        mpfr_div_si(t_b, t_b, p->rotary_dim - 2, MPFR_RNDN);
        mpfr_add(t_a, t_a, t_b, MPFR_RNDN);
    }
    mpfr_exp(out, t_a, MPFR_RNDN);
}

static void mp_model_truth(model *m)
{
    const bicl_rope_freq_params *p = &m->p;
    int half = p->rotary_dim / 2;
    mpfr_t base, f, two_pi, tmp, low, high;
    mpfr_inits2(REF_PREC, base, f, two_pi, tmp, low, high, (mpfr_ptr)0);
    mpfr_const_pi(two_pi, MPFR_RNDN);
    mpfr_mul_2ui(two_pi, two_pi, 1, MPFR_RNDN);
    double fd = bicl_rope_effective_factor(p);
    mpfr_set_d(f, p->factor, MPFR_RNDN);
    if (fd != p->factor) {
        mpfr_set_d(f, (double)p->max_position_embeddings, MPFR_RNDN);
        mpfr_div_d(f, f, (double)p->original_max_position_embeddings, MPFR_RNDN);
    }
    if (p->scaling == BICL_ROPE_SCALING_YARN) {
        /* cd(n) = d ln(L0 / (n 2 pi)) / (2 ln theta) */
        double l0 = bicl_rope_yarn_original_len(p);
        double beta[2] = {p->beta_fast != 0.0 ? p->beta_fast : 32.0,
                          p->beta_slow != 0.0 ? p->beta_slow : 1.0};
        mpfr_ptr lh[2] = {low, high};
        for (int k = 0; k < 2; k++) {
            mpfr_mul_d(tmp, two_pi, beta[k], MPFR_RNDN);
            mpfr_d_div(tmp, l0, tmp, MPFR_RNDN);
            mpfr_log(tmp, tmp, MPFR_RNDN);
            mpfr_mul_si(tmp, tmp, p->rotary_dim, MPFR_RNDN);
            mpfr_set_d(lh[k], p->theta, MPFR_RNDN);
            mpfr_log(lh[k], lh[k], MPFR_RNDN);
            mpfr_mul_2ui(lh[k], lh[k], 1, MPFR_RNDN);
            mpfr_div(lh[k], tmp, lh[k], MPFR_RNDN);
        }
        if (p->truncate) {
            mpfr_floor(low, low);
            mpfr_ceil(high, high);
        }
        if (mpfr_sgn(low) < 0) {
            mpfr_set_zero(low, 1);
        }
        if (mpfr_cmp_si(high, p->rotary_dim - 1) > 0) {
            mpfr_set_si(high, p->rotary_dim - 1, MPFR_RNDN);
        }
        if (mpfr_equal_p(low, high)) {
            mpfr_add_d(high, high, 0.001, MPFR_RNDN);
        }
    }
    for (int i = 0; i < half; i++) {
        mpfr_ptr out = m->inv_true[i];
        mpfr_init2(out, REF_PREC);
        mp_base_freq(base, p, i);
        switch (p->scaling) {
        case BICL_ROPE_SCALING_LINEAR:
            mpfr_div(out, base, f, MPFR_RNDN);
            break;
        case BICL_ROPE_SCALING_LLAMA3: {
            /* wl = 2 pi / base; bands against L0 / high and L0 / low */
            double l0 = (double)p->original_max_position_embeddings;
            mpfr_div(tmp, two_pi, base, MPFR_RNDN);
            if (mpfr_cmp_d(tmp, l0 / p->high_freq_factor) < 0) {
                mpfr_set(out, base, MPFR_RNDN);
            } else if (mpfr_cmp_d(tmp, l0 / p->low_freq_factor) > 0) {
                mpfr_div(out, base, f, MPFR_RNDN);
            } else {
                /* s = (L0 / wl - low) / (high - low); inv = (1 - s) base / F + s base */
                mpfr_d_div(tmp, l0, tmp, MPFR_RNDN);
                mpfr_sub_d(tmp, tmp, p->low_freq_factor, MPFR_RNDN);
                mpfr_div_d(tmp, tmp, p->high_freq_factor - p->low_freq_factor, MPFR_RNDN);
                mpfr_div(out, base, f, MPFR_RNDN);
                mpfr_ui_sub(low, 1, tmp, MPFR_RNDN); /* low is free for llama3 */
                mpfr_mul(out, out, low, MPFR_RNDN);
                mpfr_mul(tmp, tmp, base, MPFR_RNDN);
                mpfr_add(out, out, tmp, MPFR_RNDN);
            }
            break;
        }
        case BICL_ROPE_SCALING_YARN: {
            /* ramp = clamp((i - low) / (high - low)); inv = base/F * ramp + base (1 - ramp) */
            mpfr_sub(tmp, high, low, MPFR_RNDN);
            mpfr_si_sub(out, i, low, MPFR_RNDN);
            mpfr_div(tmp, out, tmp, MPFR_RNDN);
            if (mpfr_sgn(tmp) < 0) {
                mpfr_set_zero(tmp, 1);
            }
            if (mpfr_cmp_ui(tmp, 1) > 0) {
                mpfr_set_ui(tmp, 1, MPFR_RNDN);
            }
            mpfr_div(out, base, f, MPFR_RNDN);
            mpfr_mul(out, out, tmp, MPFR_RNDN);
            mpfr_ui_sub(tmp, 1, tmp, MPFR_RNDN);
            mpfr_mul(tmp, tmp, base, MPFR_RNDN);
            mpfr_add(out, out, tmp, MPFR_RNDN);
            break;
        }
        case BICL_ROPE_SCALING_LONGROPE: {
            int use_long = p->seq_len > p->original_max_position_embeddings;
            mpfr_div_d(out, base, use_long ? p->long_factor[i] : p->short_factor[i], MPFR_RNDN);
            break;
        }
        default:
            mpfr_set(out, base, MPFR_RNDN);
            break;
        }
    }
    /* attention scaling */
    mpfr_init2(m->attn_true, REF_PREC);
    mpfr_set_ui(m->attn_true, 1, MPFR_RNDN);
    if (p->attention_factor > 0.0) {
        mpfr_set_d(m->attn_true, p->attention_factor, MPFR_RNDN);
    } else if (p->scaling == BICL_ROPE_SCALING_YARN && mpfr_cmp_ui(f, 1) > 0) {
        /* m(F, k) = 0.1 k ln F + 1; m(F, mscale) / m(F, mscale_all_dim) when both are set */
        int both = p->mscale != 0.0 && p->mscale_all_dim != 0.0;
        mpfr_log(tmp, f, MPFR_RNDN);
        mpfr_mul_d(low, tmp, both ? p->mscale : 1.0, MPFR_RNDN);
        mpfr_div_ui(low, low, 10, MPFR_RNDN);
        mpfr_add_ui(m->attn_true, low, 1, MPFR_RNDN);
        if (both) {
            mpfr_mul_d(high, tmp, p->mscale_all_dim, MPFR_RNDN);
            mpfr_div_ui(high, high, 10, MPFR_RNDN);
            mpfr_add_ui(high, high, 1, MPFR_RNDN);
            mpfr_div(m->attn_true, m->attn_true, high, MPFR_RNDN);
        }
    } else if (p->scaling == BICL_ROPE_SCALING_LONGROPE && mpfr_cmp_ui(f, 1) > 0) {
        /* sqrt(1 + ln F / ln L0) */
        mpfr_log(tmp, f, MPFR_RNDN);
        mpfr_set_d(low, (double)p->original_max_position_embeddings, MPFR_RNDN);
        mpfr_log(low, low, MPFR_RNDN);
        mpfr_div(tmp, tmp, low, MPFR_RNDN);
        mpfr_add_ui(tmp, tmp, 1, MPFR_RNDN);
        mpfr_sqrt(m->attn_true, tmp, MPFR_RNDN);
    }
    mpfr_clears(base, f, two_pi, tmp, low, high, (mpfr_ptr)0);
}

static void prepare_models(void)
{
    for (int k = 0; k < g_nmodels; k++) {
        model *m = &g_models[k];
        int st = bicl_rope_freq_params_check(&m->p);
        if (st != BICL_ROPE_PARAMS_OK) {
            fprintf(stderr, "%s: invalid rope parameters (code %d)\n", m->name, st);
            exit(2);
        }
        for (int i = 0; i < m->p.rotary_dim / 2; i++) {
            m->inv[i] = bicl_rope_inv_freq(&m->p, i);
        }
        m->attn = bicl_rope_attention_scaling(&m->p);
        mp_model_truth(m);
    }
}

static const char *scaling_name(bicl_rope_scaling s)
{
    static const char *names[] = {"none", "linear", "llama3", "yarn", "dynamic_ntk", "longrope"};
    return (int)s >= 0 && (int)s < 6 ? names[s] : "?";
}

static void report_freqs(void)
{
    printf("## inv_freq and attention scaling against MPFR (same formulas, 256 bits)\n\n");
    printf("| model | scaling | rotary_dim | theta | max ulp inv_freq (double) | at i | "
           "attention scaling | ulp |\n");
    printf("|---|---|---:|---:|---:|---:|---:|---:|\n");
    for (int k = 0; k < g_nmodels; k++) {
        model *m = &g_models[k];
        stat st = {0};
        for (int i = 0; i < m->p.rotary_dim / 2; i++) {
            stat_add(&st, ulps_f64(m->inv[i], m->inv_true[i]), (double)i, 0);
        }
        printf("| %s | %s | %d | %g | %.3f | %d | %.17g | %.3f |\n", m->name,
               scaling_name(m->p.scaling), m->p.rotary_dim, m->p.theta, st.max, (int)st.where_a,
               m->attn, ulps_f64(m->attn, m->attn_true));
        if (st.max > 1.0) {
            g_fail = 1;
        }
    }
    printf("\n");
}

/* ======================================================= 4. RoPE cos/sin */
typedef enum { R_EXACT_D, R_EXACT_TRUE, R_HF_SELF, R_HF_TRUE, R_NREF } rope_ref;

static const char *ref_mode[R_NREF] = {"exact", "exact", "hf", "hf"};
static const char *ref_name[R_NREF] = {
    "real cos/sin(pos*inv_d)*attn_d",
    "real cos/sin(pos*inv_true)*attn_true",
    "real cos/sin(a_f32)*attn_f32",
    "real cos/sin(pos*inv_true)*attn_true",
};

typedef struct {
    stat cos, sin;
    double max_abs; /* max |got - ref| over cos and sin */
    long misrounded, n;
} rope_stat;

/* |got - ref| as a double */
static double abs_err(float got, mpfr_srcptr ref)
{
    mpfr_set_d(t_c, (double)got, MPFR_RNDN);
    mpfr_sub(t_c, t_c, ref, MPFR_RNDN);
    double e = mpfr_get_d(t_c, MPFR_RNDN);
    return e < 0 ? -e : e;
}

static void rope_add(rope_stat *rs, float c, float s, mpfr_srcptr rc, mpfr_srcptr rsn, long pos,
                     int i)
{
    stat_add(&rs->cos, ulps_f32(c, rc), (double)pos, (double)i);
    stat_add(&rs->sin, ulps_f32(s, rsn), (double)pos, (double)i);
    double ea = abs_err(c, rc), eb = abs_err(s, rsn);
    ea = ea > eb ? ea : eb;
    rs->max_abs = ea > rs->max_abs ? ea : rs->max_abs;
    rs->misrounded += misrounded_f32(c, rc) + misrounded_f32(s, rsn);
    rs->n += 2;
}

/* the real cos/sin of t_x times attn into (rc, rs) */
static void mp_cos_sin_scaled(mpfr_ptr rc, mpfr_ptr rsn, mpfr_srcptr attn)
{
    mpfr_sin_cos(rsn, rc, t_x, MPFR_RNDN);
    mpfr_mul(rc, rc, attn, MPFR_RNDN);
    mpfr_mul(rsn, rsn, attn, MPFR_RNDN);
}

static void rope_point(const model *m, long pos, rope_stat *rs, mpfr_ptr rc, mpfr_ptr rsn,
                       mpfr_ptr attn)
{
    float attn_f = bicl_f64_to_f32_rte(m->attn);
    for (int i = 0; i < m->p.rotary_dim / 2; i++) {
        double inv = m->inv[i];
        float c, s, hc, hs;
        bicl_rope_cos_sin_exact((bicl_i32)pos, inv, m->attn, &c, &s);
        float inv_f = bicl_f64_to_f32_rte(inv);
        bicl_rope_cos_sin_hf((bicl_i32)pos, inv_f, attn_f, &hc, &hs);
        /* exact mode's contract: the real pos * inv_d */
        bicl_dd a = bicl_dd_two_prod((double)pos, inv);
        mp_set_dd(a.hi, a.lo);
        mpfr_set_d(attn, m->attn, MPFR_RNDN);
        mp_cos_sin_scaled(rc, rsn, attn);
        rope_add(&rs[R_EXACT_D], c, s, rc, rsn, pos, i);
        /* both modes against the true frequencies */
        mpfr_set_prec(t_x, REF_PREC + 64);
        mpfr_mul_si(t_x, m->inv_true[i], pos, MPFR_RNDN);
        mp_cos_sin_scaled(rc, rsn, m->attn_true);
        rope_add(&rs[R_EXACT_TRUE], c, s, rc, rsn, pos, i);
        rope_add(&rs[R_HF_TRUE], hc, hs, rc, rsn, pos, i);
        /* hf mode's contract: its own float angle and float attention factor */
        float af = bicl_i32_to_f32_rte((bicl_i32)pos) * inv_f;
        mp_set_dd((double)af, 0.0);
        mpfr_set_d(attn, (double)attn_f, MPFR_RNDN);
        mp_cos_sin_scaled(rc, rsn, attn);
        rope_add(&rs[R_HF_SELF], hc, hs, rc, rsn, pos, i);
    }
}

static void rope_rows(const model *m, const char *range, const long *pos, long n)
{
    rope_stat rs[R_NREF];
    memset(rs, 0, sizeof rs);
    mpfr_t rc, rsn, attn;
    mpfr_inits2(REF_PREC, rc, rsn, attn, (mpfr_ptr)0);
    for (long k = 0; k < n; k++) {
        rope_point(m, pos[k], rs, rc, rsn, attn);
    }
    mpfr_clears(rc, rsn, attn, (mpfr_ptr)0);
    for (int r = 0; r < R_NREF; r++) {
        printf("| %s | %s | %s | %s | %.4f | %.4f | %.2e | pos %.0f, i %.0f | %ld / %ld |\n",
               m->name, ref_mode[r], ref_name[r], range, rs[r].cos.max, rs[r].sin.max,
               rs[r].max_abs,
               rs[r].cos.max >= rs[r].sin.max ? rs[r].cos.where_a : rs[r].sin.where_a,
               rs[r].cos.max >= rs[r].sin.max ? rs[r].cos.where_b : rs[r].sin.where_b,
               rs[r].misrounded, rs[r].n);
    }
    if (rs[R_EXACT_D].cos.max > 0.5 + 0x1p-10 || rs[R_EXACT_D].sin.max > 0.5 + 0x1p-10) {
        g_fail = 1;
    }
}

static int cmp_long(const void *a, const void *b)
{
    long x = *(const long *)a, y = *(const long *)b;
    return (x > y) - (x < y);
}

static void report_rope(long sweep, long beyond)
{
    long *sw = malloc(sizeof(long) * (size_t)(sweep + 8));
    long *bey = malloc(sizeof(long) * (size_t)(beyond + 8));
    long ns = 0, nb = 0;
    /* sweep: every position below 256, then random positions up to 2^20 */
    for (long p = 0; p < 256 && ns < sweep; p++) {
        sw[ns++] = p;
    }
    while (ns < sweep) {
        sw[ns++] = 256 + (long)rnd_below((1u << 20) - 255);
    }
    qsort(sw, (size_t)ns, sizeof(long), cmp_long);
    const long fixed[] = {(1L << 24) - 1, (1L << 24) + 1, (1L << 28) + 3, 2147483647L};
    for (int k = 0; k < 4; k++) {
        bey[nb++] = fixed[k];
    }
    while (nb < beyond + 4) {
        bey[nb++] = (1L << 20) + 1 + (long)rnd_below(2147483647UL - (1UL << 20));
    }
    qsort(bey, (size_t)nb, sizeof(long), cmp_long);
    char lc_range[128] = "long-context:";
    for (int k = 0; k < g_nlong; k++) {
        char buf[24];
        snprintf(buf, sizeof buf, "%s%ld", k ? "," : " ", g_long_pos[k]);
        strncat(lc_range, buf, sizeof lc_range - strlen(lc_range) - 1);
    }
    char sw_range[64], bey_range[64];
    snprintf(sw_range, sizeof sw_range, "sweep [0, 2^20]: %ld positions", ns);
    snprintf(bey_range, sizeof bey_range, "(2^20, 2^31-1]: %ld positions", nb);

    printf("## RoPE cos/sin in float, both angle modes, against MPFR\n\n");
    printf("Error in float ulps of the reference; 'misrounded' counts results that are not "
           "the correctly rounded float of that reference (cos and sin both counted).\n\n");
    printf("| model | mode | reference | positions | max ulp cos | max ulp sin | max abs "
           "error | worst (ulp) at | misrounded |\n");
    printf("|---|---|---|---|---:|---:|---:|---|---:|\n");
    for (int k = 0; k < g_nmodels; k++) {
        const model *m = &g_models[k];
        if (strncmp(m->name, "synthetic", 9) == 0) {
            continue;
        }
        rope_rows(m, lc_range, g_long_pos, g_nlong);
        rope_rows(m, sw_range, sw, ns);
        rope_rows(m, bey_range, bey, nb);
    }
    printf("\n");
    free(sw);
    free(bey);
}

/* ==================================================================== main */
static long arg_long(const char *s)
{
    char *end;
    long v = strtol(s, &end, 10);
    if (*end != 0 || v < 0) {
        fprintf(stderr, "bad number: %s\n", s);
        exit(2);
    }
    return v;
}

int main(int argc, char **argv)
{
    const char *models = NULL;
    long sweep = 4096, beyond = 128, samples = 200000;
    for (int k = 1; k < argc; k++) {
        if (strcmp(argv[k], "--models") == 0 && k + 1 < argc) {
            models = argv[++k];
        } else if (strcmp(argv[k], "--sweep") == 0 && k + 1 < argc) {
            sweep = arg_long(argv[++k]);
        } else if (strcmp(argv[k], "--beyond") == 0 && k + 1 < argc) {
            beyond = arg_long(argv[++k]);
        } else if (strcmp(argv[k], "--samples") == 0 && k + 1 < argc) {
            samples = arg_long(argv[++k]);
        } else if (strcmp(argv[k], "--seed") == 0 && k + 1 < argc) {
            rng_state = (bicl_u64)arg_long(argv[++k]) * 0x9e3779b97f4a7c15u + 1;
        } else if (strcmp(argv[k], "--quick") == 0) {
            sweep = 300;
            beyond = 16;
            samples = 5000;
        } else {
            fprintf(stderr,
                    "usage: %s [--models PATH] [--sweep N] [--beyond N] [--samples N] [--seed S] "
                    "[--quick]\n",
                    argv[0]);
            return 2;
        }
    }
    if (models == NULL) {
        /* the project's copy first (tests/data), then the steering repo's */
        FILE *f = fopen("tests/data/models.json", "rb");
        models = f ? "tests/data/models.json" : "../shared/models.json";
        if (f) {
            fclose(f);
        }
    }
    mp_init();
    printf("# bicl RoPE / f64 math accuracy (MPFR %s, models %s, seed-dependent samples)\n\n",
           mpfr_get_version(), models);
    report_sincos(samples);
    report_elementary(samples);
    load_models(models);
    add_synthetic_models();
    prepare_models();
    report_freqs();
    report_rope(sweep, beyond);
    printf("result: %s\n", g_fail ? "FAIL (a contract bound was exceeded)" : "PASS");
    return g_fail;
}
