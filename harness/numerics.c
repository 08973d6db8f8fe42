/* numerics.c - the harness's numerics (harness.h): a float bit pattern's value, the
 * correct rounding of an MPFR value to a storage format, and the ulp distance. Every
 * oracle rounds through harness_round_to_bits and every ulp figure of relation A is a
 * harness_ulp_distance: one of each. */
#include "harness.h"

#include <math.h>
#include <string.h>

typedef struct float_format {
    mpfr_prec_t prec;
    mpfr_exp_t emin, emax; /* MPFR's convention: x = m * 2^e, 0.5 <= m < 1 */
    unsigned width;        /* bits */
} float_format;

static bool format_of(bicl_dtype d, float_format *f)
{
    switch (d) {
    case BICL_F32:
        *f = (float_format){24, -148, 128, 32};
        return true;
    case BICL_F16:
        *f = (float_format){11, -23, 16, 16};
        return true;
    case BICL_BF16:
        *f = (float_format){8, -132, 128, 16};
        return true;
    default:
        return false;
    }
}

double harness_decode(bicl_dtype dtype, uint64_t bits)
{
    float f;
    uint32_t b32;
    switch (dtype) {
    case BICL_F32:
        b32 = (uint32_t)bits;
        memcpy(&f, &b32, 4);
        return f;
    case BICL_BF16:
        b32 = (uint32_t)(bits & 0xffffu) << 16;
        memcpy(&f, &b32, 4);
        return f;
    case BICL_F16: {
        unsigned e = (unsigned)(bits >> 10) & 31u, m = (unsigned)bits & 1023u;
        double mag = e == 31  ? (m ? NAN : INFINITY)
                     : e == 0 ? ldexp(m, -24)
                              : ldexp(1024 + m, (int)e - 25);
        return (bits & 0x8000u) ? -mag : mag;
    }
    case BICL_I32:
        return (double)(int32_t)(uint32_t)bits;
    default:
        return (double)(uint8_t)bits;
    }
}

/* Bits of a value that dtype represents exactly. Written without the library's
 * conversions, so that A does not grade the reference with itself. */
static uint64_t encode_exact(bicl_dtype dtype, double v)
{
    uint64_t sign = signbit(v) ? 1u : 0u;
    if (dtype != BICL_F16) {
        float f = (float)v; /* exact */
        uint32_t b;
        memcpy(&b, &f, 4);
        return dtype == BICL_F32 ? b : b >> 16;
    }
    double a = fabs(v);
    if (isinf(a))
        return sign << 15 | 0x7c00u;
    if (a < 0x1p-14) /* zero or subnormal: a multiple of 2^-24 */
        return sign << 15 | (uint64_t)ldexp(a, 24);
    int e;
    frexp(a, &e); /* a = m * 2^e, 0.5 <= m < 1 */
    uint64_t mant = (uint64_t)(ldexp(a, 11 - e) - 1024.0);
    return sign << 15 | (uint64_t)(e - 1 + 15) << 10 | mant;
}

static uint64_t default_nan(bicl_dtype dtype)
{
    return dtype == BICL_F32 ? 0x7fc00000u : dtype == BICL_F16 ? 0x7e00u : 0x7fc0u;
}

uint64_t harness_round_to_bits(bicl_dtype dtype, mpfr_srcptr exact)
{
    float_format f;
    if (!format_of(dtype, &f)) /* integers: round to nearest */
        return (uint64_t)mpfr_get_si(exact, MPFR_RNDN);
    if (mpfr_nan_p(exact))
        return default_nan(dtype);
    /* Round to the precision in MPFR's wide exponent range, then let check_range and
     * subnormalize apply the format's range with the ternary value: no double
     * rounding at the subnormal and overflow edges. */
    mpfr_t r;
    mpfr_init2(r, f.prec);
    int t = mpfr_set(r, exact, MPFR_RNDN);
    mpfr_exp_t old_emin = mpfr_get_emin(), old_emax = mpfr_get_emax();
    mpfr_set_emin(f.emin);
    mpfr_set_emax(f.emax);
    t = mpfr_check_range(r, t, MPFR_RNDN);
    mpfr_subnormalize(r, t, MPFR_RNDN);
    mpfr_set_emin(old_emin);
    mpfr_set_emax(old_emax);
    uint64_t bits = encode_exact(dtype, mpfr_get_d(r, MPFR_RNDN));
    mpfr_clear(r);
    return bits;
}

static bool is_nan_bits(bicl_dtype dtype, uint64_t b)
{
    float_format f;
    return format_of(dtype, &f) && isnan(harness_decode(dtype, b));
}

/* Bits mapped to integers in value order; -0 sits one below +0. */
static int64_t ordinal(bicl_dtype dtype, uint64_t b)
{
    float_format f;
    if (!format_of(dtype, &f))
        return (int64_t)harness_decode(dtype, b);
    uint64_t sign = 1ull << (f.width - 1);
    int64_t mag = (int64_t)(b & (sign - 1));
    return (b & sign) ? -mag - 1 : mag;
}

uint64_t harness_ulp_distance(bicl_dtype dtype, uint64_t a, uint64_t b)
{
    bool na = is_nan_bits(dtype, a), nb = is_nan_bits(dtype, b);
    if (na || nb)
        return na && nb ? 0 : UINT64_MAX;
    int64_t oa = ordinal(dtype, a), ob = ordinal(dtype, b);
    return oa > ob ? (uint64_t)(oa - ob) : (uint64_t)(ob - oa);
}
