/* bicl_accuracy - measures the float32 math of cl/bicl_math_f32.h against a
 * correctly rounded oracle (design relation A).
 *
 *   bicl_accuracy --exhaustive [--threads N] [--only NAME] [--json]
 *   bicl_accuracy --sample N [--seed S] [--threads N] [--only NAME] [--json]
 *   bicl_accuracy --list
 *
 * --exhaustive runs every one of the 2^32 float inputs through each op. The
 * reference there is double precision (glibc exp, expm1, tanh, erf, erfc,
 * accurate to a few 2^-53), which measures ulp errors to ~1e-7 ulp; a result
 * whose double reference lies within 2^-40 (relative, i.e. under 2e-5 ulp)
 * of a rounding boundary is settled with MPFR at 200 bits. --sample takes N
 * random inputs per op (random bit patterns and uniform values around the
 * interesting range) plus a fixed list of special and edge inputs, and
 * checks every one directly against MPFR. Ops with parameters run the
 * exhaustive sweep over x with the parameters fixed (see the table), and
 * draw random parameters in --sample mode.
 *
 * ulp error = |computed - exact| / ulp(exact), ulp taken in the fp32 binade
 * of the exact value (2^-149 below 2^-126; 2^104 above FLT_MAX). Every
 * result is also compared bit for bit with the correctly rounded value: the
 * "not CR" column counts the differences. NaN, infinity and signed-zero
 * expectations (the semantics documented in bicl_math_f32.h) are checked
 * exactly; any miss is a "special" failure. Exit status 1 when an op exceeds
 * its ulp limit or has a special failure.
 *
 * Build: cc -std=c11 -O2 -ffp-contract=off [-mfma] -Icl
 *        tools/bicl_accuracy.c -lmpfr -lgmp -lm -lpthread */
#define _POSIX_C_SOURCE 200809L
#include "bicl_math_glu_f32.h"
#include "bicl_ops.def"

#include <errno.h>
#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define MP_PREC 200
/* Ambiguity window of the double reference, relative to the value. */
#define AMBIG_REL 0x1p-40

/* ------------------------------------------------------------- helpers */
static float f_of(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

static uint32_t b_of(float f)
{
    uint32_t b;
    memcpy(&b, &f, sizeof b);
    return b;
}

static int is_nan_f(float x)
{
    return (b_of(x) & 0x7fffffffu) > 0x7f800000u;
}

static float quiet_f(float x)
{
    return f_of(b_of(x) | 0x00400000u);
}

static const uint32_t CANON_NAN = 0x7fc00000u;

/* ulp of the fp32 binade holding |v|. */
static double ulp_of(double v)
{
    double a = fabs(v);
    int e;
    if (a < 0x1p-126) {
        return 0x1p-149;
    }
    if (a >= 0x1p128) {
        return 0x1p104;
    }
    (void)frexp(a, &e);
    return ldexp(1.0, e - 24);
}

/* Compares |v| with 2^e. */
static int cmpabs_pow2(const mpfr_t v, int e)
{
    mpfr_t t;
    int c;
    mpfr_init2(t, 8);
    mpfr_set_ui_2exp(t, 1, e, MPFR_RNDN);
    c = mpfr_cmpabs(v, t);
    mpfr_clear(t);
    return c;
}

/* Correctly rounded float of an MPFR value, denormals and overflow included. */
static float mp_to_float(const mpfr_t v)
{
    mpfr_t t;
    float r;
    if (mpfr_nan_p(v)) {
        return f_of(CANON_NAN);
    }
    if (mpfr_inf_p(v) || mpfr_zero_p(v)) {
        return (float)mpfr_get_d(v, MPFR_RNDN);
    }
    mpfr_init2(t, MP_PREC);
    if (cmpabs_pow2(v, -126) >= 0) {
        mpfr_set(t, v, MPFR_RNDN);
        mpfr_prec_round(t, 24, MPFR_RNDN);
        if (cmpabs_pow2(t, 128) >= 0) {
            r = mpfr_sgn(t) > 0 ? INFINITY : -INFINITY;
        } else {
            r = mpfr_get_flt(t, MPFR_RNDN); /* exact: 24 bits, normal range */
        }
    } else {
        /* round(v * 2^149) * 2^-149 */
        mpfr_mul_2si(t, v, 149, MPFR_RNDN);
        mpfr_rint(t, t, MPFR_RNDN);
        r = (float)ldexp(mpfr_get_d(t, MPFR_RNDN), -149);
        if (r == 0.0f && mpfr_sgn(v) < 0) {
            r = -0.0f;
        }
    }
    mpfr_clear(t);
    return r;
}

/* Is the exact value, known as double r to AMBIG_REL, possibly on the other
 * side of a rounding boundary of float? */
static int ambiguous(double r)
{
    float cr = (float)r;
    double nb;
    double mid;
    if (r == 0.0 || isnan(r) || isinf(r)) {
        return 0; /* an exact zero, or beyond double: far from any float boundary */
    }
    if (isinf(cr)) {
        mid = copysign(0x1p128 - 0x1p103, r);
    } else {
        if ((double)cr == r) {
            return 0;
        }
        if (fabsf(cr) == FLT_MAX && fabs(r) > FLT_MAX) {
            nb = copysign(0x1p128, r);
        } else {
            nb = r > (double)cr ? (double)nextafterf(cr, INFINITY)
                                : (double)nextafterf(cr, -INFINITY);
        }
        mid = ((double)cr + nb) / 2.0;
    }
    return fabs(r - mid) <= AMBIG_REL * fabs(r);
}

static double err_ulp(float y, double exact, float cr)
{
    if (isinf(cr)) {
        if (y == cr) {
            return 0.0;
        }
        if (isinf(y) || isinf(exact)) {
            return INFINITY;
        }
        return fabs((double)y - exact) / 0x1p104;
    }
    if (isinf(y) || isnan(y)) {
        return INFINITY;
    }
    return fabs((double)y - exact) / ulp_of(exact);
}

/* ---------------------------------------------------- reference formulas */
static double sig_d(double z)
{
    double e;
    if (z >= 0.0) {
        return 1.0 / (1.0 + exp(-z));
    }
    e = exp(z);
    return e / (1.0 + e);
}

static void sig_mp(mpfr_t r, const mpfr_t z)
{
    mpfr_t e;
    mpfr_init2(e, MP_PREC + 20);
    if (mpfr_sgn(z) >= 0) {
        mpfr_neg(e, z, MPFR_RNDN);
        mpfr_exp(e, e, MPFR_RNDN);
        mpfr_add_ui(e, e, 1, MPFR_RNDN);
        mpfr_ui_div(r, 1, e, MPFR_RNDN);
    } else {
        mpfr_exp(e, z, MPFR_RNDN);
        mpfr_add_ui(r, e, 1, MPFR_RNDN);
        mpfr_div(r, e, r, MPFR_RNDN);
    }
    mpfr_clear(e);
}

#define GT_C 0.7978845608f
#define GT_D 0.044715f
#define GQ_A 1.702f

/* The parameters an op takes besides x (softcap: cap; swiglu: up, alpha, limit). */
typedef struct {
    float p[3];
} params;

static double r_exp(float x, const params *p)
{
    (void)p;
    return exp((double)x);
}
static double r_expm1(float x, const params *p)
{
    (void)p;
    return expm1((double)x);
}
static double r_tanh(float x, const params *p)
{
    (void)p;
    return tanh((double)x);
}
static double r_erf(float x, const params *p)
{
    (void)p;
    return erf((double)x);
}
static double r_sigmoid(float x, const params *p)
{
    (void)p;
    return sig_d((double)x);
}
static double r_relu(float x, const params *p)
{
    (void)p;
    return x > 0.0f ? (double)x : 0.0;
}
static double r_relu2(float x, const params *p)
{
    double r = r_relu(x, p);
    return r * r;
}
static double r_silu(float x, const params *p)
{
    (void)p;
    return (double)x * sig_d((double)x);
}
static double r_gelu_erf(float x, const params *p)
{
    (void)p;
    return 0.5 * (double)x * erfc(-(double)x * 0.70710678118654752440);
}
static double r_gelu_tanh(float x, const params *p)
{
    double xd = (double)x;
    double z = 2.0 * (double)GT_C * (xd + (double)GT_D * xd * xd * xd);
    (void)p;
    return xd * sig_d(z);
}
static double r_gelu_quick(float x, const params *p)
{
    (void)p;
    return (double)x * sig_d((double)GQ_A * (double)x);
}
static double r_softcap(float x, const params *p)
{
    double c = fabs((double)p->p[0]);
    return c * tanh((double)x / c);
}
/* swiglu: x is the gate; p = {up, alpha, limit} */
static void swiglu_clamp(float gate, const params *p, float *g, float *u)
{
    float up = p->p[0], limit = p->p[2];
    float t;
    *g = gate > limit ? limit : gate;
    t = up < -limit ? -limit : up;
    *u = t > limit ? limit : t;
}
static double r_swiglu(float x, const params *p)
{
    float g, u;
    swiglu_clamp(x, p, &g, &u);
    return ((double)u + 1.0) * (double)g * sig_d((double)p->p[1] * (double)g);
}

/* The single-rounding gated units: x is the gate, p->p[0] up. */
static double r_swiglu1(float x, const params *p)
{
    return r_silu(x, p) * (double)p->p[0];
}
static double r_geglu_tanh1(float x, const params *p)
{
    return r_gelu_tanh(x, p) * (double)p->p[0];
}

/* MPFR references: r gets the exact value (to MP_PREC bits). */
static void m_exp(mpfr_t r, float x, const params *p)
{
    (void)p;
    mpfr_set_flt(r, x, MPFR_RNDN);
    mpfr_exp(r, r, MPFR_RNDN);
}
static void m_expm1(mpfr_t r, float x, const params *p)
{
    (void)p;
    mpfr_set_flt(r, x, MPFR_RNDN);
    mpfr_expm1(r, r, MPFR_RNDN);
}
static void m_tanh(mpfr_t r, float x, const params *p)
{
    (void)p;
    mpfr_set_flt(r, x, MPFR_RNDN);
    mpfr_tanh(r, r, MPFR_RNDN);
}
static void m_erf(mpfr_t r, float x, const params *p)
{
    (void)p;
    mpfr_set_flt(r, x, MPFR_RNDN);
    mpfr_erf(r, r, MPFR_RNDN);
}
static void m_sigmoid(mpfr_t r, float x, const params *p)
{
    mpfr_t z;
    (void)p;
    mpfr_init2(z, 32);
    mpfr_set_flt(z, x, MPFR_RNDN);
    sig_mp(r, z);
    mpfr_clear(z);
}
static void m_relu(mpfr_t r, float x, const params *p)
{
    (void)p;
    mpfr_set_flt(r, x > 0.0f ? x : 0.0f, MPFR_RNDN);
}
static void m_relu2(mpfr_t r, float x, const params *p)
{
    m_relu(r, x, p);
    mpfr_sqr(r, r, MPFR_RNDN);
}
/* r = x * sigmoid(a * x + 0) with a given exactly */
static void x_sig_ax(mpfr_t r, float x, float a)
{
    mpfr_t z, s;
    mpfr_inits2(MP_PREC + 20, z, s, (mpfr_ptr)0);
    mpfr_set_flt(z, x, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)a, MPFR_RNDN); /* exact at this precision */
    sig_mp(s, z);
    mpfr_mul_d(r, s, (double)x, MPFR_RNDN);
    mpfr_clears(z, s, (mpfr_ptr)0);
}
static void m_silu(mpfr_t r, float x, const params *p)
{
    (void)p;
    x_sig_ax(r, x, 1.0f);
}
static void m_gelu_quick(mpfr_t r, float x, const params *p)
{
    (void)p;
    x_sig_ax(r, x, GQ_A);
}
static void m_gelu_erf(mpfr_t r, float x, const params *p)
{
    mpfr_t t;
    (void)p;
    mpfr_init2(t, MP_PREC + 20);
    mpfr_set_ui(t, 2, MPFR_RNDN);
    mpfr_sqrt(t, t, MPFR_RNDN);
    mpfr_d_div(t, -(double)x, t, MPFR_RNDN);
    mpfr_erfc(t, t, MPFR_RNDN);
    mpfr_mul_d(t, t, (double)x, MPFR_RNDN);
    mpfr_div_2ui(r, t, 1, MPFR_RNDN);
    mpfr_clear(t);
}
static void m_gelu_tanh(mpfr_t r, float x, const params *p)
{
    /* 0.5 x (1 + tanh(y)) = x sigmoid(2y): an identity, and it avoids the
     * cancellation of 1 + tanh(y) that even 200 bits would not survive */
    mpfr_t z, s;
    (void)p;
    mpfr_inits2(MP_PREC + 20, z, s, (mpfr_ptr)0);
    mpfr_set_flt(z, x, MPFR_RNDN);
    mpfr_pow_ui(z, z, 3, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)GT_D, MPFR_RNDN);
    mpfr_add_d(z, z, (double)x, MPFR_RNDN);
    mpfr_mul_d(z, z, 2.0 * (double)GT_C, MPFR_RNDN);
    sig_mp(s, z);
    mpfr_mul_d(r, s, (double)x, MPFR_RNDN);
    mpfr_clears(z, s, (mpfr_ptr)0);
}
static void m_softcap(mpfr_t r, float x, const params *p)
{
    mpfr_t t;
    double c = fabs((double)p->p[0]);
    mpfr_init2(t, MP_PREC + 20);
    mpfr_set_flt(t, x, MPFR_RNDN);
    mpfr_div_d(t, t, c, MPFR_RNDN);
    mpfr_tanh(t, t, MPFR_RNDN);
    mpfr_mul_d(r, t, c, MPFR_RNDN);
    mpfr_clear(t);
}
static void mul_sig_below(mpfr_t r, const mpfr_t y, const mpfr_t z);
static void m_swiglu(mpfr_t r, float x, const params *p)
{
    float g, u;
    mpfr_t z, y;
    swiglu_clamp(x, p, &g, &u);
    mpfr_inits2(MP_PREC + 20, z, y, (mpfr_ptr)0);
    mpfr_set_flt(z, g, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)p->p[1], MPFR_RNDN); /* exact */
    mpfr_set_flt(y, u, MPFR_RNDN);
    mpfr_add_ui(y, y, 1, MPFR_RNDN);        /* exact: u >= 2^-149 needs 150 + 24 bits */
    mpfr_mul_d(y, y, (double)g, MPFR_RNDN); /* exact: 174 + 24 bits */
    mul_sig_below(r, y, z);
    mpfr_clears(z, y, (mpfr_ptr)0);
}

/* The float nearest to v, rounded once (no intermediate precision): normal range by
 * mpfr_set at 24 bits, below 2^-126 by rint on the 2^-149 grid at v's precision. */
static float mp_to_float_once(const mpfr_t v)
{
    mpfr_t t;
    float r;
    if (mpfr_zero_p(v)) {
        return (float)mpfr_get_d(v, MPFR_RNDN);
    }
    if (cmpabs_pow2(v, -126) >= 0) {
        mpfr_init2(t, 24);
        mpfr_set(t, v, MPFR_RNDN);
        r = cmpabs_pow2(t, 128) >= 0 ? (mpfr_sgn(t) > 0 ? INFINITY : -INFINITY)
                                     : mpfr_get_flt(t, MPFR_RNDN);
    } else {
        mpfr_init2(t, mpfr_get_prec(v));
        mpfr_mul_2si(t, v, 149, MPFR_RNDN); /* exact */
        mpfr_rint(t, t, MPFR_RNDN);
        r = (float)ldexp(mpfr_get_d(t, MPFR_RNDN), -149);
        if (r == 0.0f && mpfr_sgn(v) < 0) {
            r = -0.0f;
        }
    }
    mpfr_clear(t);
    return r;
}

/* sigmoid(z) bounded below (lo) and above (hi) at precision p, z != 0 or z = 0
 * (exactly 1/2). sigmoid(z) = 1/(1 + e^-z) = e^z/(1 + e^z) rises with e^z, so directed
 * roundings of each step give the bounds; where e^-z underflows MPFR's range for z > 0
 * the upper bound is the float below 1 at p bits (sigmoid < 1: what matters for the
 * rounding is only that the value lies below 1, p far exceeding y's bits). */
static void sig_bounds(mpfr_t lo, mpfr_t hi, const mpfr_t z, mpfr_prec_t p)
{
    mpfr_t e, d;
    mpfr_inits2(p, e, d, (mpfr_ptr)0);
    if (mpfr_sgn(z) >= 0) {
        mpfr_neg(d, z, MPFR_RNDN); /* exact: p exceeds z's 24 bits */
        mpfr_exp(e, d, MPFR_RNDU);
        if (mpfr_zero_p(e)) {
            mpfr_nextabove(e);
        }
        mpfr_add_ui(d, e, 1, MPFR_RNDU);
        mpfr_ui_div(lo, 1, d, MPFR_RNDD);
        mpfr_neg(d, z, MPFR_RNDN);
        mpfr_exp(e, d, MPFR_RNDD);
        mpfr_add_ui(d, e, 1, MPFR_RNDD);
        mpfr_ui_div(hi, 1, d, MPFR_RNDU);
        if (mpfr_sgn(z) > 0 && mpfr_cmp_ui(hi, 1) >= 0) {
            mpfr_set_ui(hi, 1, MPFR_RNDN);
            mpfr_nextbelow(hi);
        }
    } else {
        mpfr_exp(e, z, MPFR_RNDD);
        mpfr_add_ui(d, e, 1, MPFR_RNDU);
        mpfr_div(lo, e, d, MPFR_RNDD);
        mpfr_exp(e, z, MPFR_RNDU);
        mpfr_add_ui(d, e, 1, MPFR_RNDD);
        mpfr_div(hi, e, d, MPFR_RNDU);
    }
    mpfr_clears(e, d, (mpfr_ptr)0);
}

/* r = y sigmoid(z) for an exact y, for the products with a free factor (the gated
 * units): y may lie exactly on a rounding boundary of f32 (y = g up, 48 bits) while
 * sigmoid(z) differs from 1 or 1/2 by less than any fixed precision sees, so the value
 * is bracketed (sig_bounds, exact products) at 240, 480, ... bits until both
 * ends round to the same float (Ziv's strategy). r gets the lower end rounded to
 * MP_PREC bits to odd (towards zero, then the last bit set if inexact), which
 * mp_to_float rounds to that same float (round-to-odd keeps the final rounding right
 * with 2 or more spare bits). */
static void mul_sig_below(mpfr_t r, const mpfr_t y, const mpfr_t z)
{
    mpfr_prec_t p;
    mpfr_t slo, shi, vlo, vhi;
    for (p = 240;; p *= 2) {
        int inex;
        mpfr_inits2(p, slo, shi, (mpfr_ptr)0);
        /* products exact: the bounds' gap to 1 or 1/2 survives */
        mpfr_inits2(p + mpfr_get_prec(y), vlo, vhi, (mpfr_ptr)0);
        sig_bounds(slo, shi, z, p);
        if (mpfr_sgn(y) >= 0) {
            mpfr_mul(vlo, y, slo, MPFR_RNDD);
            mpfr_mul(vhi, y, shi, MPFR_RNDU);
        } else {
            mpfr_mul(vlo, y, shi, MPFR_RNDD);
            mpfr_mul(vhi, y, slo, MPFR_RNDU);
        }
        if (b_of(mp_to_float_once(vlo)) == b_of(mp_to_float_once(vhi)) || p > 8000) {
            inex = mpfr_set(r, vlo, MPFR_RNDZ);
            if (inex != 0 && mpfr_min_prec(r) < mpfr_get_prec(r)) {
                if (mpfr_sgn(r) > 0) {
                    mpfr_nextabove(r);
                } else {
                    mpfr_nextbelow(r);
                }
            }
            mpfr_clears(slo, shi, vlo, vhi, (mpfr_ptr)0);
            return;
        }
        mpfr_clears(slo, shi, vlo, vhi, (mpfr_ptr)0);
    }
}
static void m_swiglu1(mpfr_t r, float x, const params *p)
{
    mpfr_t y, z;
    mpfr_inits2(MP_PREC + 20, y, z, (mpfr_ptr)0);
    mpfr_set_flt(z, x, MPFR_RNDN);
    mpfr_mul_d(y, z, (double)p->p[0], MPFR_RNDN); /* exact */
    mul_sig_below(r, y, z);
    mpfr_clears(y, z, (mpfr_ptr)0);
}
static void m_geglu_tanh1(mpfr_t r, float x, const params *p)
{
    mpfr_t y, z;
    mpfr_inits2(MP_PREC + 20, y, z, (mpfr_ptr)0);
    mpfr_set_flt(z, x, MPFR_RNDN);
    mpfr_pow_ui(z, z, 3, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)GT_D, MPFR_RNDN);
    mpfr_add_d(z, z, (double)x, MPFR_RNDN);
    mpfr_mul_d(z, z, 2.0 * (double)GT_C, MPFR_RNDN);
    mpfr_set_flt(y, x, MPFR_RNDN);
    mpfr_mul_d(y, y, (double)p->p[0], MPFR_RNDN); /* exact */
    mul_sig_below(r, y, z);
    mpfr_clears(y, z, (mpfr_ptr)0);
}
/* ----------------------------------------------- special-value semantics */
/* Returns 1 and the exact expected bits when x (with p) is a special case of
 * the documented semantics; 0 when the result is a number to be measured. */
typedef int (*special_fn)(float x, const params *p, float *want);

static int sp_unary(float x, float want_pinf, float want_minf, int zero_keeps_sign, float want_zero,
                    float *want)
{
    if (is_nan_f(x)) {
        *want = quiet_f(x);
        return 1;
    }
    if (isinf(x)) {
        *want = x > 0 ? want_pinf : want_minf;
        return 1;
    }
    if (x == 0.0f) {
        *want = zero_keeps_sign ? x : want_zero;
        return 1;
    }
    return 0;
}
static int s_exp(float x, const params *p, float *w)
{
    (void)p;
    return sp_unary(x, INFINITY, 0.0f, 0, 1.0f, w);
}
static int s_expm1(float x, const params *p, float *w)
{
    (void)p;
    return sp_unary(x, INFINITY, -1.0f, 1, 0.0f, w);
}
static int s_tanh(float x, const params *p, float *w)
{
    (void)p;
    return sp_unary(x, 1.0f, -1.0f, 1, 0.0f, w);
}
static int s_sigmoid(float x, const params *p, float *w)
{
    (void)p;
    return sp_unary(x, 1.0f, 0.0f, 0, 0.5f, w);
}
static int s_relu(float x, const params *p, float *w)
{
    (void)p;
    return sp_unary(x, INFINITY, 0.0f, 0, 0.0f, w);
}
/* silu, gelu_*: x * (something in (0, 1)): +inf -> +inf, -inf -> -0, +-0 -> +-0 */
static int s_gate(float x, const params *p, float *w)
{
    (void)p;
    return sp_unary(x, INFINITY, -0.0f, 1, 0.0f, w);
}
static int s_softcap(float x, const params *p, float *w)
{
    float cap = p->p[0];
    float c = fabsf(cap);
    if (is_nan_f(x)) {
        *w = quiet_f(x);
        return 1;
    }
    if (is_nan_f(cap)) {
        *w = quiet_f(cap);
        return 1;
    }
    if (c == 0.0f) {
        *w = f_of(CANON_NAN);
        return 1;
    }
    if (isinf(c) || x == 0.0f) {
        *w = x;
        return 1;
    }
    if (isinf(x)) {
        *w = copysignf(c, x);
        return 1;
    }
    return 0;
}
static int s_swiglu(float x, const params *p, float *w)
{
    float up = p->p[0], alpha = p->p[1], limit = p->p[2];
    float g, u, one_u, zh, gs, r;
    if (is_nan_f(x) || is_nan_f(up) || is_nan_f(alpha) || is_nan_f(limit)) {
        *w = quiet_f(is_nan_f(x) ? x : is_nan_f(up) ? up : is_nan_f(alpha) ? alpha : limit);
        return 1;
    }
    swiglu_clamp(x, p, &g, &u);
    one_u = u + 1.0f; /* only used when it is +0 (u = -1) or +-inf */
    if (!(g == 0.0f || one_u == 0.0f || isinf(g) || isinf(u))) {
        return 0;
    }
    zh = alpha * g;
    gs = (isinf(zh) && zh < 0.0f) ? copysignf(0.0f, g) : g;
    r = one_u * gs;
    *w = is_nan_f(r) ? f_of(CANON_NAN) : r;
    return 1;
}

/* The single-rounding gated units (cl/bicl_math_glu_f32.h): NaN gate, then NaN up,
 * quieted; a zero or infinite gate or up: the IEEE product of act(g) with up, act(g)
 * standing for its sign (a nonzero real) for a finite nonzero gate, -0 for g = -inf. */
static int s_glu1(float x, const params *p, float *w)
{
    float u = p->p[0];
    float gs, r;
    if (is_nan_f(x) || is_nan_f(u)) {
        *w = quiet_f(is_nan_f(x) ? x : u);
        return 1;
    }
    if (!(x == 0.0f || u == 0.0f || isinf(x) || isinf(u))) {
        return 0;
    }
    gs = (isinf(x) && x < 0.0f) ? -0.0f : x;
    r = gs * u;
    *w = is_nan_f(r) ? f_of(CANON_NAN) : r;
    return 1;
}
/* --------------------------------------------------------- op table */
typedef float (*op_fn)(float x, const params *p);
typedef double (*ref_d_fn)(float x, const params *p);
typedef void (*ref_m_fn)(mpfr_t r, float x, const params *p);
typedef void (*param_gen)(uint64_t *rng, params *p);

/* The correctly rounded functions computed by three paths (cl/bicl_math_f32.h,
 * BICL_M_CR): one row each. The op NAME checks the default path (the double one on
 * the host); NAME_pair and NAME_int, generated from the row, check the float-pair
 * and the integer path alone against the same oracle, which must find them
 * correctly rounded too.
 *   X(NAME, FN, ARGS, FORMULA, REF_D, REF_M, SPECIAL, FIXED, GEN, SPAN, ROW): FN ARGS
 *   calls the header's function (FN_pair ARGS, FN_int ARGS its paths) with x and
 *   the parameters p; the other columns as in op_desc. */
#define P_NONE                                                                                     \
    {                                                                                              \
        {                                                                                          \
            0                                                                                      \
        }                                                                                          \
    }
#define P_CAP30                                                                                    \
    {                                                                                              \
        {                                                                                          \
            30.0f, 0, 0                                                                            \
        }                                                                                          \
    }
#define P_UP03                                                                                     \
    {                                                                                              \
        {                                                                                          \
            0.3f, 0, 0                                                                             \
        }                                                                                          \
    }
#define P_CAP50                                                                                    \
    {                                                                                              \
        {                                                                                          \
            50.0f, 0, 0                                                                            \
        }                                                                                          \
    }
#define P_UP17                                                                                     \
    {                                                                                              \
        {                                                                                          \
            1.7f, 0, 0                                                                             \
        }                                                                                          \
    }
#define P_UPM                                                                                      \
    {                                                                                              \
        {                                                                                          \
            -3.1e-3f, 0, 0                                                                         \
        }                                                                                          \
    }
#define P_OSS                                                                                      \
    {                                                                                              \
        {                                                                                          \
            0.3f, 1.702f, 7.0f                                                                     \
        }                                                                                          \
    }
#define CR_PATHS(X)                                                                                \
    X(expf, bicl_expf, (x), "e^x", r_exp, m_exp, s_exp, P_NONE, NULL, 110.0f, NULL)                \
    X(expm1f, bicl_expm1f, (x), "e^x - 1", r_expm1, m_expm1, s_expm1, P_NONE, NULL, 20.0f, NULL)   \
    X(tanhf, bicl_tanhf, (x), "tanh x", r_tanh, m_tanh, s_tanh, P_NONE, NULL, 10.0f, "tanh")       \
    X(erff, bicl_erff, (x), "erf x", r_erf, m_erf, s_tanh, P_NONE, NULL, 4.5f, NULL)               \
    X(gelu_erf, bicl_gelu_erf, (x), "x/2 (1 + erf(x/sqrt2))", r_gelu_erf, m_gelu_erf, s_gate,      \
      P_NONE, NULL, 16.0f, "gelu")                                                                 \
    X(sigmoidf, bicl_sigmoidf, (x), "1/(1+e^-x)", r_sigmoid, m_sigmoid, s_sigmoid, P_NONE, NULL,   \
      110.0f, "sigmoid")                                                                           \
    X(silu, bicl_silu, (x), "x sigmoid(x)", r_silu, m_silu, s_gate, P_NONE, NULL, 120.0f, "silu")  \
    X(gelu_quick, bicl_gelu_quick, (x), "x sigmoid(1.702 x)", r_gelu_quick, m_gelu_quick, s_gate,  \
      P_NONE, NULL, 80.0f, "gelu_quick")                                                           \
    X(gelu_tanh, bicl_gelu_tanh, (x), "x/2 (1 + tanh(c(x + d x^3)))", r_gelu_tanh, m_gelu_tanh,    \
      s_gate, P_NONE, NULL, 16.0f, "gelu_tanh")                                                    \
    X(softcap, bicl_softcap, (x, p->p[0]), "cap tanh(x/cap), exhaustive: cap=30", r_softcap,       \
      m_softcap, s_softcap, P_CAP30, gen_softcap, 300.0f, "softcap")                               \
    X(swiglu1, bicl_swiglu1, (x, p->p[0]), "silu(g) up rounded once, exhaustive: up=0.3",          \
      r_swiglu1, m_swiglu1, s_glu1, P_UP03, gen_up, 250.0f, NULL)                                  \
    X(geglu_tanh1, bicl_geglu_tanh1, (x, p->p[0]),                                                 \
      "gelu_tanh(g) up rounded once, exhaustive: up=0.3", r_geglu_tanh1, m_geglu_tanh1, s_glu1,    \
      P_UP03, gen_up, 20.0f, NULL)                                                                 \
    X(swiglu_oss, bicl_swiglu_oss, (x, p->p[0], p->p[1], p->p[2]),                                 \
      "(clamp(up)+1) g sigmoid(1.702 g), g=min(x,7); exhaustive: up=0.3", r_swiglu, m_swiglu,      \
      s_swiglu, P_OSS, gen_swiglu, 80.0f, "swiglu_oai")

#define CR_PATH_FNS(NAME, FN, ARGS, ...)                                                           \
    static float o_##NAME(float x, const params *p)                                                \
    {                                                                                              \
        (void)x;                                                                                   \
        (void)p;                                                                                   \
        return FN ARGS;                                                                            \
    }                                                                                              \
    static float o_##NAME##_pair(float x, const params *p)                                         \
    {                                                                                              \
        (void)x;                                                                                   \
        (void)p;                                                                                   \
        return FN##_pair ARGS;                                                                     \
    }                                                                                              \
    static float o_##NAME##_int(float x, const params *p)                                          \
    {                                                                                              \
        (void)x;                                                                                   \
        (void)p;                                                                                   \
        return FN##_int ARGS;                                                                      \
    }
CR_PATHS(CR_PATH_FNS)

static float o_relu(float x, const params *p)
{
    (void)p;
    return bicl_relu(x);
}
static float o_relu2(float x, const params *p)
{
    (void)p;
    return bicl_relu2(x);
}

static uint64_t rng_next(uint64_t *s)
{
    /* splitmix64 */
    uint64_t z = (*s += 0x9e3779b97f4a7c15u);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    return z ^ (z >> 31);
}

/* A float that is either any bit pattern or a value uniform in [-w, w]. */
static float rng_float(uint64_t *s, float w)
{
    uint64_t r = rng_next(s);
    if (r & 1u) {
        return f_of((uint32_t)(r >> 32));
    }
    return (float)(((double)(r >> 11) * 0x1p-53 * 2.0 - 1.0) * (double)w);
}

static void gen_softcap(uint64_t *s, params *p)
{
    static const float caps[] = {30.0f, 50.0f, 15.0f, 1.0f, 0.5f, 1e-3f, 1e30f, -30.0f, 0x1p-140f};
    uint64_t r = rng_next(s);
    if (r % 4u == 0u) {
        p->p[0] = f_of((uint32_t)(r >> 32));
    } else {
        p->p[0] = caps[(r >> 8) % (sizeof caps / sizeof caps[0])];
    }
}

static void gen_swiglu(uint64_t *s, params *p)
{
    static const float limits[] = {7.0f, 7.0f, 7.0f, INFINITY, 1e30f, 0.5f};
    static const float alphas[] = {1.702f, 1.702f, 1.702f, 1.0f, -1.5f, 0.0f, 1e-30f};
    uint64_t r = rng_next(s);
    p->p[0] = rng_float(s, 10.0f);
    p->p[1] = alphas[(r >> 8) % (sizeof alphas / sizeof alphas[0])];
    p->p[2] = limits[(r >> 20) % (sizeof limits / sizeof limits[0])];
    if ((r >> 40) % 8u == 0u) { /* odd parameters too: any bits, negative limits */
        p->p[1] = f_of((uint32_t)rng_next(s));
        p->p[2] = f_of((uint32_t)rng_next(s));
    }
}

/* up of the single-rounding gated units: any bit pattern (tiny, huge, inf, NaN) or
 * uniform in [-10, 10] */
static void gen_up(uint64_t *s, params *p)
{
    p->p[0] = rng_float(s, 10.0f);
}

typedef struct {
    const char *name;
    const char *formula;
    double limit; /* max ulp allowed */
    op_fn fn;
    ref_d_fn ref_d;
    ref_m_fn ref_m;
    special_fn special;
    params fixed;      /* parameters of the exhaustive sweep */
    param_gen gen;     /* parameters of --sample, or NULL */
    float sample_span; /* uniform samples in [-span, span] */
    /* The registry row (cl/bicl_ops.def) whose ulp bound is this op's limit, or NULL
     * (the functions that are not ops: exp, expm1, erf; the paths) for `limit`. */
    const char *row;
    int cr; /* 1: must be correctly rounded (every "not CR" is a failure) */
} op_desc;

/* The ulp bounds of the registry: the one place they are written. */
#define ULP_ROW(ID, name, code, kname, PF, PCHECK, table, ulp, ...) {#name, ulp},
static const struct {
    const char *name;
    unsigned ulp;
} registry_ulps[] = {BICL_UNARY_OPS(ULP_ROW) BICL_GLU_OPS(ULP_ROW)};

/* The limit of op as this tool measures errors (|computed - exact| / ulp, continuous): a
 * registry bound of k steps from the correctly rounded value is k, and 0 steps
 * (correctly rounded) is 0.5. */
static double op_limit(const op_desc *op)
{
    if (!op->row)
        return op->limit;
    for (size_t i = 0; i < sizeof registry_ulps / sizeof registry_ulps[0]; ++i)
        if (strcmp(registry_ulps[i].name, op->row) == 0)
            return registry_ulps[i].ulp == 0 ? 0.5 : (double)registry_ulps[i].ulp;
    fprintf(stderr, "bicl-accuracy: no registry row '%s'\n", op->row);
    exit(2);
}

/* A row of CR_PATHS at another fixed parameter: FN's function and oracles, named NAME. */
#define CR_AT(NAME, FN, FORMULA, SPECIAL, FIXED, SPAN, ROW)                                        \
    {                                                                                              \
        NAME, FORMULA, 0.5, o_##FN, r_##FN, m_##FN, SPECIAL, FIXED, NULL, SPAN, ROW, 1             \
    }
#define CR_OPS(NAME, FN, ARGS, FORMULA, REF_D, REF_M, SPECIAL, FIXED, GEN, SPAN, ROW)              \
    {#NAME, FORMULA, 0.5, o_##NAME, REF_D, REF_M, SPECIAL, FIXED, GEN, SPAN, ROW, 1},
static const op_desc OPS[] = {
    CR_PATHS(CR_OPS) /* the correctly rounded functions, a row each */
    {"relu", "max(x, +0)", 0.0, o_relu, r_relu, m_relu, s_relu, {{0}}, NULL, 10.0f, "relu", 0},
    {"relu2", "relu(x)^2", 0.0, o_relu2, r_relu2, m_relu2, s_relu, {{0}}, NULL, 10.0f, "relu2", 0},
    CR_AT("softcap50", softcap, "cap tanh(x/cap), cap=50", s_softcap, P_CAP50, 500.0f, "softcap"),
    /* the single-rounding gated units (BICL_GLU_ROUND_ONCE): exhaustive over the gate at
     * fixed ups, sampled over both */
    CR_AT("swiglu1_u1.7", swiglu1, "silu(g) up rounded once, up=1.7", s_glu1, P_UP17, 250.0f, NULL),
    CR_AT("swiglu1_u-3.1e-3", swiglu1, "silu(g) up rounded once, up=-3.1e-3", s_glu1, P_UPM, 250.0f,
          NULL),
    CR_AT("geglu_tanh1_u1.7", geglu_tanh1, "gelu_tanh(g) up rounded once, up=1.7", s_glu1, P_UP17,
          20.0f, NULL),
    CR_AT("geglu_tanh1_u-3.1e-3", geglu_tanh1, "gelu_tanh(g) up rounded once, up=-3.1e-3", s_glu1,
          P_UPM, 20.0f, NULL),
#define CR_PATH_OPS(NAME, FN, ARGS, FORMULA, REF_D, REF_M, SPECIAL, FIXED, GEN, SPAN, ROW)         \
    {#NAME "_pair", FORMULA ", float-pair path",                                                   \
     0.5,           o_##NAME##_pair,                                                               \
     REF_D,         REF_M,                                                                         \
     SPECIAL,       FIXED,                                                                         \
     GEN,           SPAN,                                                                          \
     ROW,           1},                                                                            \
        {#NAME "_int", FORMULA ", integer path",                                                   \
         0.5,          o_##NAME##_int,                                                             \
         REF_D,        REF_M,                                                                      \
         SPECIAL,      FIXED,                                                                      \
         GEN,          SPAN,                                                                       \
         ROW,          1},
    CR_PATHS(CR_PATH_OPS)};
#define N_OPS (sizeof OPS / sizeof OPS[0])

/* ------------------------------------------------------------- results */
typedef struct {
    double max_err;
    uint32_t arg; /* bits of x at max_err */
    params arg_p; /* and its parameters */
    uint64_t n;   /* inputs checked */
    uint64_t not_cr;
    uint64_t special_fail;
    uint32_t first_special_fail;
    params first_special_p;
    uint64_t mpfr_calls;
} stats;

static void stats_init(stats *s)
{
    memset(s, 0, sizeof *s);
    s->max_err = -1.0;
}

static void stats_merge(stats *a, const stats *b)
{
    if (b->max_err > a->max_err) {
        a->max_err = b->max_err;
        a->arg = b->arg;
        a->arg_p = b->arg_p;
    }
    if (a->special_fail == 0 && b->special_fail != 0) {
        a->first_special_fail = b->first_special_fail;
        a->first_special_p = b->first_special_p;
    }
    a->n += b->n;
    a->not_cr += b->not_cr;
    a->special_fail += b->special_fail;
    a->mpfr_calls += b->mpfr_calls;
}

/* Check one input; use_mpfr forces the MPFR reference. */
static void check_one(const op_desc *op, float x, const params *p, int use_mpfr, mpfr_t m,
                      stats *st)
{
    float y = op->fn(x, p);
    float want;
    double exact;
    float cr;
    double err;
    st->n++;
    if (op->special(x, p, &want)) {
        if (b_of(y) != b_of(want)) {
            if (st->special_fail == 0) {
                st->first_special_fail = b_of(x);
                st->first_special_p = *p;
            }
            st->special_fail++;
        }
        return;
    }
    exact = use_mpfr ? NAN : op->ref_d(x, p);
    if (use_mpfr || ambiguous(exact) || isnan(exact)) {
        op->ref_m(m, x, p);
        st->mpfr_calls++;
        cr = mp_to_float(m);
        exact = mpfr_get_d(m, MPFR_RNDN);
    } else {
        cr = (float)exact;
    }
    if (is_nan_f(y)) {
        err = INFINITY;
    } else {
        err = err_ulp(y, exact, cr);
    }
    if (b_of(y) != b_of(cr)) {
        st->not_cr++;
        if (getenv("BICL_ACCURACY_VERBOSE")) /* each result not correctly rounded */
            fprintf(stderr, "%s: x=%a p=(%a, %a, %a) got %a, correctly rounded %a\n", op->name,
                    (double)x, (double)p->p[0], (double)p->p[1], (double)p->p[2], (double)y,
                    (double)cr);
        /* a wrongly signed zero is a semantic error, not an ulp one */
        if (y == 0.0f && cr == 0.0f) {
            if (st->special_fail == 0) {
                st->first_special_fail = b_of(x);
                st->first_special_p = *p;
            }
            st->special_fail++;
        }
    }
    if (err > st->max_err) {
        st->max_err = err;
        st->arg = b_of(x);
        st->arg_p = *p;
    }
}

/* -------------------------------------------------------- exhaustive run */
#define CHUNK_BITS 20
typedef struct {
    const op_desc *op;
    uint64_t lo, hi; /* input bit range [lo, hi) */
    atomic_uint_fast64_t next;
    atomic_uint_fast64_t done;
} sweep;

typedef struct {
    sweep *sw;
    stats st;
} worker;

static void *sweep_worker(void *arg)
{
    worker *w = arg;
    sweep *sw = w->sw;
    mpfr_t m;
    mpfr_init2(m, MP_PREC);
    stats_init(&w->st);
    for (;;) {
        uint64_t c = atomic_fetch_add(&sw->next, 1);
        uint64_t a = sw->lo + (c << CHUNK_BITS);
        uint64_t b;
        if (a >= sw->hi) {
            break;
        }
        b = a + (1u << CHUNK_BITS);
        if (b > sw->hi) {
            b = sw->hi;
        }
        for (uint64_t i = a; i < b; i++) {
            check_one(sw->op, f_of((uint32_t)i), &sw->op->fixed, 0, m, &w->st);
        }
        atomic_fetch_add(&sw->done, b - a);
    }
    mpfr_clear(m);
    mpfr_free_cache();
    return NULL;
}

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void run_exhaustive(const op_desc *op, int threads, uint64_t lo, uint64_t hi, stats *out)
{
    sweep sw;
    worker *ws = calloc((size_t)threads, sizeof *ws);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    double t0 = now_s();
    int i;
    if (ws == NULL || tid == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    sw.op = op;
    sw.lo = lo;
    sw.hi = hi;
    atomic_init(&sw.next, 0);
    atomic_init(&sw.done, 0);
    for (i = 0; i < threads; i++) {
        ws[i].sw = &sw;
        if (pthread_create(&tid[i], NULL, sweep_worker, &ws[i]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
    }
    while (atomic_load(&sw.done) < hi - lo) {
        double done = (double)atomic_load(&sw.done);
        double el = now_s() - t0;
        double frac = done / (double)(hi - lo);
        fprintf(stderr, "\r%-12s %5.1f%%  %6.0f s elapsed, ~%6.0f s left   ", op->name,
                100.0 * frac, el, frac > 0 ? el / frac - el : 0.0);
        fflush(stderr);
        struct timespec ts = {0, 250000000};
        nanosleep(&ts, NULL);
    }
    stats_init(out);
    for (i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        stats_merge(out, &ws[i].st);
    }
    fprintf(stderr, "\r%-12s done in %.1f s%40s\n", op->name, now_s() - t0, "");
    free(ws);
    free(tid);
}

/* ------------------------------------------------------------ sample run */
static void special_inputs(float **out, size_t *n)
{
    static const float base[] = {0.0f,       0x1p-149f,
                                 0x1p-148f,  0x1.fffffcp-127f,
                                 0x1p-126f,  0x1p-125f,
                                 0x1p-100f,  0x1p-61f,
                                 0x1p-60f,   0x1p-30f,
                                 0x1p-25f,   0x1p-24f,
                                 0x1p-13f,   1e-3f,
                                 0.1f,       0.17328679f,
                                 0.25f,      0.34657359f,
                                 0.5f,       0.75f,
                                 1.0f,       1.5f,
                                 2.0f,       2.96f,
                                 3.0f,       3.92f,
                                 4.0f,       5.5f,
                                 6.0f,       7.0f,
                                 9.0f,       9.1f,
                                 10.0f,      14.5f,
                                 16.0f,      17.328679f,
                                 18.0f,      30.0f,
                                 64.0f,      87.33655f,
                                 88.0f,      88.72283935546875f,
                                 89.0f,      100.0f,
                                 103.97208f, 104.0f,
                                 110.0f,     200.0f,
                                 1e10f,      1e30f,
                                 FLT_MAX,    INFINITY};
    size_t nb = sizeof base / sizeof base[0];
    float *v = malloc(sizeof *v * (nb * 6 + 16));
    size_t k = 0;
    static const uint32_t nans[] = {0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff800001u,
                                    0x7fa5a5a5u, 0xffbfffffu, 0x7fffffffu, 0xfff00001u};
    if (v == NULL) {
        exit(2);
    }
    for (size_t i = 0; i < nb; i++) {
        float b = base[i];
        float c[3] = {b, nextafterf(b, 0.0f), nextafterf(b, INFINITY)};
        for (int j = 0; j < 3; j++) {
            v[k++] = c[j];
            v[k++] = -c[j];
        }
    }
    for (size_t i = 0; i < sizeof nans / sizeof nans[0]; i++) {
        v[k++] = f_of(nans[i]);
    }
    *out = v;
    *n = k;
}

typedef struct {
    const op_desc *op;
    const float *xs;
    const params *ps;
    size_t n;
    atomic_size_t next;
} sample_job;

typedef struct {
    sample_job *job;
    stats st;
} sample_worker_t;

static void *sample_worker(void *arg)
{
    sample_worker_t *w = arg;
    sample_job *j = w->job;
    mpfr_t m;
    mpfr_init2(m, MP_PREC);
    stats_init(&w->st);
    for (;;) {
        size_t i = atomic_fetch_add(&j->next, 1);
        if (i >= j->n) {
            break;
        }
        check_one(j->op, j->xs[i], &j->ps[i], 1, m, &w->st);
    }
    mpfr_clear(m);
    mpfr_free_cache();
    return NULL;
}

static void run_sample(const op_desc *op, int threads, uint64_t n, uint64_t seed, stats *out)
{
    float *sp;
    size_t nsp;
    size_t total;
    float *xs;
    params *ps;
    uint64_t rng = seed ^ (uint64_t)(uintptr_t)op->name[0] * 0x100000001b3u;
    sample_job job;
    sample_worker_t *ws = calloc((size_t)threads, sizeof *ws);
    pthread_t *tid = calloc((size_t)threads, sizeof *tid);
    size_t k = 0;
    double t0 = now_s();
    special_inputs(&sp, &nsp);
    /* specials with the fixed parameters, specials with drawn ones, randoms */
    total = nsp * (op->gen ? 2 : 1) + (size_t)n;
    xs = malloc(sizeof *xs * total);
    ps = malloc(sizeof *ps * total);
    if (ws == NULL || tid == NULL || xs == NULL || ps == NULL) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    for (size_t i = 0; i < nsp; i++, k++) {
        xs[k] = sp[i];
        ps[k] = op->fixed;
    }
    if (op->gen) {
        for (size_t i = 0; i < nsp; i++, k++) {
            xs[k] = sp[(i * 7u) % nsp];
            ps[k] = op->fixed;
            /* special parameters on the gated/softcap ops */
            ps[k].p[0] = sp[i];
            if (op->gen == gen_swiglu && (i & 1u)) {
                ps[k] = op->fixed;
                ps[k].p[(i >> 1) % 3u] = sp[i];
            }
        }
    }
    for (uint64_t i = 0; i < n; i++, k++) {
        xs[k] = rng_float(&rng, op->sample_span);
        ps[k] = op->fixed;
        if (op->gen) {
            op->gen(&rng, &ps[k]);
        }
    }
    job.op = op;
    job.xs = xs;
    job.ps = ps;
    job.n = k;
    atomic_init(&job.next, 0);
    for (int i = 0; i < threads; i++) {
        ws[i].job = &job;
        if (pthread_create(&tid[i], NULL, sample_worker, &ws[i]) != 0) {
            exit(2);
        }
    }
    stats_init(out);
    for (int i = 0; i < threads; i++) {
        pthread_join(tid[i], NULL);
        stats_merge(out, &ws[i].st);
    }
    fprintf(stderr, "%-12s %zu inputs in %.1f s\n", op->name, k, now_s() - t0);
    free(sp);
    free(xs);
    free(ps);
    free(ws);
    free(tid);
}

/* ----------------------------------------------------------------- main */
static void usage(FILE *f)
{
    fprintf(f,
            "usage: bicl_accuracy (--exhaustive | --sample N [--seed S] | --list)\n"
            "                     [--threads N] [--only NAME] [--json]\n"
            "                     [--range LO HI]   (exhaustive over input bits LO..HI-1, hex)\n");
}

static void fmt_params(char *buf, size_t n, const op_desc *op, const params *p)
{
    if (op->gen == gen_softcap) {
        snprintf(buf, n, ", cap=%.9g", (double)p->p[0]);
    } else if (op->gen == gen_swiglu) {
        snprintf(buf, n, ", up=%.9g alpha=%.9g limit=%.9g", (double)p->p[0], (double)p->p[1],
                 (double)p->p[2]);
    } else if (op->gen == gen_up || strncmp(op->name, "swiglu1", 7) == 0 ||
               strncmp(op->name, "geglu_tanh1", 11) == 0) {
        snprintf(buf, n, ", up=%.9g", (double)p->p[0]);
    } else {
        buf[0] = '\0';
    }
}

int main(int argc, char **argv)
{
    int exhaustive = 0, json = 0, list = 0;
    uint64_t sample_n = 0, seed = 1, lo = 0, hi = (uint64_t)1 << 32;
    long threads = sysconf(_SC_NPROCESSORS_ONLN);
    const char *only = NULL;
    int failed = 0;
    int first = 1;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--exhaustive")) {
            exhaustive = 1;
        } else if (!strcmp(argv[i], "--sample") && i + 1 < argc) {
            sample_n = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--seed") && i + 1 < argc) {
            seed = strtoull(argv[++i], NULL, 0);
        } else if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
            threads = strtol(argv[++i], NULL, 0);
        } else if ((!strcmp(argv[i], "--only") || !strcmp(argv[i], "--function")) && i + 1 < argc) {
            only = argv[++i];
        } else if (!strcmp(argv[i], "--range") && i + 2 < argc) {
            lo = strtoull(argv[++i], NULL, 16);
            hi = strtoull(argv[++i], NULL, 16);
            exhaustive = 1;
        } else if (!strcmp(argv[i], "--json")) {
            json = 1;
        } else if (!strcmp(argv[i], "--list")) {
            list = 1;
        } else if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
            usage(stdout);
            return 0;
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (threads < 1) {
        threads = 1;
    }
    if (list) {
        for (size_t i = 0; i < N_OPS; i++) {
            printf("%-12s limit %.1f ulp  %s\n", OPS[i].name, op_limit(&OPS[i]), OPS[i].formula);
        }
        return 0;
    }
    if (!exhaustive && sample_n == 0) {
        usage(stderr);
        return 2;
    }
    if (hi > ((uint64_t)1 << 32) || lo >= hi) {
        fprintf(stderr, "bad --range\n");
        return 2;
    }
    if (json) {
        printf("[\n");
    } else {
        printf("mode: %s", exhaustive ? "exhaustive" : "sample");
        if (exhaustive) {
            printf(" (inputs 0x%08" PRIx64 "..0x%08" PRIx64 ")", lo, hi - 1);
        } else {
            printf(" (%" PRIu64 " random + special inputs per op, seed %" PRIu64 ")", sample_n,
                   seed);
        }
        printf(", reference: %s\n\n",
               exhaustive ? "double, MPFR 200 bits near rounding boundaries" : "MPFR 200 bits");
        printf("| op | formula | limit (ulp) | max ulp | at x (bits) | at x | not CR | special "
               "fails | inputs | MPFR calls | verdict |\n");
        printf("|---|---|---|---|---|---|---|---|---|---|---|\n");
    }
    for (size_t i = 0; i < N_OPS; i++) {
        const op_desc *op = &OPS[i];
        stats st;
        int ok;
        char pbuf[96];
        if (only != NULL && strcmp(only, op->name) != 0) {
            continue;
        }
        if (exhaustive) {
            run_exhaustive(op, (int)threads, lo, hi, &st);
        } else {
            run_sample(op, (int)threads, sample_n, seed, &st);
        }
        ok = st.max_err <= op_limit(op) && st.special_fail == 0 && (!op->cr || st.not_cr == 0);
        failed |= !ok;
        fmt_params(pbuf, sizeof pbuf, op, &st.arg_p);
        if (json) {
            printf("%s  {\"op\": \"%s\", \"limit_ulp\": %.3f, \"max_ulp\": %.6f, "
                   "\"arg_bits\": \"0x%08" PRIx32 "\", \"arg\": \"%.9g%s\", \"not_cr\": %" PRIu64
                   ", \"special_fail\": %" PRIu64 ", \"inputs\": %" PRIu64
                   ", \"mpfr_calls\": %" PRIu64 ", \"ok\": %s}",
                   first ? "" : ",\n", op->name, op_limit(op), st.max_err < 0 ? 0.0 : st.max_err,
                   st.arg, (double)f_of(st.arg), pbuf, st.not_cr, st.special_fail, st.n,
                   st.mpfr_calls, ok ? "true" : "false");
        } else {
            printf("| %s | %s | %.1f | %.4f | 0x%08" PRIx32 " | %.9g%s | %" PRIu64 " | %" PRIu64
                   " | %" PRIu64 " | %" PRIu64 " | %s |\n",
                   op->name, op->formula, op_limit(op), st.max_err < 0 ? 0.0 : st.max_err, st.arg,
                   (double)f_of(st.arg), pbuf, st.not_cr, st.special_fail, st.n, st.mpfr_calls,
                   ok ? "ok" : "FAIL");
        }
        if (st.special_fail != 0) {
            char qbuf[96];
            fmt_params(qbuf, sizeof qbuf, op, &st.first_special_p);
            fprintf(stderr, "%s: first special failure at x = 0x%08" PRIx32 " (%.9g%s)\n", op->name,
                    st.first_special_fail, (double)f_of(st.first_special_fail), qbuf);
        }
        fflush(stdout);
        first = 0;
    }
    if (json) {
        printf("\n]\n");
    }
    return failed ? 1 : 0;
}
