/* fuzz_validation.c - libFuzzer target for the device-free validation code
 * (docs/reliability.md). The first input byte picks a target; the rest is decoded:
 *   0  two tensor views: bicl_view_check and bicl_views_relate, against brute force
 *   1  a build-option string: bicl_check_build_options and the options setter
 *   2  a binary RoPE config: bicl_rope_config_check, then cos/sin of accepted ones
 *   3  a model's config.json text: bicl_rope_config_from_hf_json
 * Each target checks a property, not only "no crash": a view the check accepts really
 * fits in the bytes it reports, DISJOINT is never said of views that share a byte, an
 * accepted option string holds allow-listed options only, an accepted RoPE config
 * gives finite cos/sin, a parsed config.json passes bicl_rope_config_check. ASan and
 * UBSan catch the rest. Build: the fuzz sub-build (tests/reliability/subbuild.sh). */
#include "internal.h"

#include "bicl_rope_math.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* A failed property: print it and abort, so that libFuzzer saves the input. */
#define REQUIRE(cond, ...)                                                                         \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "property failed: %s: ", #cond);                                       \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fputc('\n', stderr);                                                                   \
            abort();                                                                               \
        }                                                                                          \
    } while (0)

typedef struct reader {
    const uint8_t *p;
    size_t n;
} reader;

static uint8_t byte(reader *r)
{
    if (!r->n)
        return 0;
    --r->n;
    return *r->p++;
}

static uint64_t word(reader *r)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; ++i)
        v |= (uint64_t)byte(r) << (8 * i);
    return v;
}

/* Mostly small values, with an escape to any 64-bit value (overflow edges). */
static uint64_t small_or_any(reader *r, unsigned mod)
{
    uint8_t b = byte(r);
    return b < 0xf0 ? b % mod : word(r);
}

/* ------------------------------------------------------------------ views */

#define ARENA     (1u << 16)
#define MAX_BRUTE 4096

static bicl_tensor read_view(reader *r)
{
    bicl_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = (bicl_dtype)(byte(r) % 6); /* 5 is not a dtype */
    t.rank = byte(r) % 6;                /* 0 and 5 are not ranks */
    t.offset = (size_t)small_or_any(r, 64);
    for (int d = 0; d < BICL_MAX_RANK; ++d) {
        t.shape[d] = (size_t)small_or_any(r, 6);
        uint8_t b = byte(r);
        t.stride[d] = b < 0xf0 ? (ptrdiff_t)(b % 18) - 2 : (ptrdiff_t)word(r);
    }
    return t;
}

/* Element offsets of every index of a checked view, or false if it is too large. */
static bool elements(const bicl_tensor *t, size_t *out, size_t *count)
{
    size_t n = bicl_tensor_numel(t);
    if (n > MAX_BRUTE)
        return false;
    for (size_t i = 0; i < n; ++i) {
        size_t rem = i, at = t->offset;
        for (int d = t->rank - 1; d >= 0; --d) {
            at += (rem % t->shape[d]) * (size_t)t->stride[d];
            rem /= t->shape[d];
        }
        out[i] = at;
    }
    *count = n;
    return true;
}

static size_t ea[MAX_BRUTE], eb[MAX_BRUTE];
static uint8_t arena[ARENA];

/* The reported size covers every element exactly (it is compared with CL_MEM_SIZE:
 * too small would let a kernel write past the buffer), and an accepted output view
 * never repeats an element. */
static void check_one_view(const bicl_tensor *t, bool output, size_t bytes, const size_t *el,
                           size_t n)
{
    size_t elem = bicl_dtype_size(t->dtype), top = 0;
    for (size_t i = 0; i < n; ++i)
        top = el[i] > top ? el[i] : top;
    REQUIRE((top + 1) * elem == bytes, "size %zu, last element %zu", bytes, top);
    if (!output || bytes > ARENA)
        return;
    memset(arena, 0, bytes);
    for (size_t i = 0; i < n; ++i) {
        REQUIRE(!arena[el[i] * elem], "output index %zu repeats element %zu", i, el[i]);
        arena[el[i] * elem] = 1;
    }
}

static bool share_a_byte(const bicl_tensor *a, size_t ao, size_t na, const bicl_tensor *b,
                         size_t bo, size_t nb)
{
    size_t sa = bicl_dtype_size(a->dtype), sb = bicl_dtype_size(b->dtype);
    memset(arena, 0, ARENA);
    for (size_t i = 0; i < na; ++i)
        for (size_t k = 0; k < sa; ++k)
            arena[ao + ea[i] * sa + k] = 1;
    for (size_t i = 0; i < nb; ++i)
        for (size_t k = 0; k < sb; ++k)
            if (arena[bo + eb[i] * sb + k])
                return true;
    return false;
}

static void fuzz_views(reader *r)
{
    bicl_tensor a = read_view(r), b = read_view(r);
    uint8_t flags = byte(r);
    bool a_out = flags & 1, b_out = flags & 2;
    size_t ao = byte(r) % 16, bo = byte(r) % 16;
    if (flags & 4) { /* same strides: the exact search */
        b.rank = a.rank;
        memcpy(b.stride, a.stride, sizeof b.stride);
    }
    size_t bytes_a = 0, bytes_b = 0, na = 0, nb = 0;
    bicl_status sa = bicl_view_check(&a, "a", a_out, !a_out, &bytes_a);
    bicl_status sb = bicl_view_check(&b, "b", b_out, !b_out, &bytes_b);
    REQUIRE(sa < BICL_STATUS_COUNT_ && sb < BICL_STATUS_COUNT_, "status %d %d", sa, sb);
    bool small_a = sa == BICL_SUCCESS && elements(&a, ea, &na);
    bool small_b = sb == BICL_SUCCESS && elements(&b, eb, &nb);
    if (small_a)
        check_one_view(&a, a_out, bytes_a, ea, na);
    if (small_b)
        check_one_view(&b, b_out, bytes_b, eb, nb);
    if (sa != BICL_SUCCESS || sb != BICL_SUCCESS)
        return;
    bicl_view_relation rel = bicl_views_relate(&a, ao, &b, bo);
    REQUIRE(rel == bicl_views_relate(&b, bo, &a, ao), "relation not symmetric");
    /* bytes_a may be near SIZE_MAX (a view's last byte at the top of the address range is
     * valid here; CL_MEM_SIZE rejects it later): compare without overflowing */
    if (!small_a || !small_b || bytes_a > ARENA - ao || bytes_b > ARENA - bo)
        return;
    bool truth = share_a_byte(&a, ao, na, &b, bo, nb);
    REQUIRE(!(rel == BICL_VIEWS_DISJOINT && truth), "DISJOINT views share a byte");
    if (rel == BICL_VIEWS_IDENTICAL) {
        REQUIRE(na == nb, "IDENTICAL views of %zu and %zu elements", na, nb);
        size_t s = bicl_dtype_size(a.dtype);
        for (size_t i = 0; i < na; ++i)
            REQUIRE(ao + ea[i] * s == bo + eb[i] * s, "IDENTICAL views differ at %zu", i);
    }
}

/* ---------------------------------------------------------- build options */

static const char *const allowed[] = {"-w",
                                      "-Werror",
                                      "-cl-kernel-arg-info",
                                      "-cl-opt-disable",
                                      "-g",
                                      "-cl-fp32-correctly-rounded-divide-sqrt"};

static bool token_allowed(const char *t, size_t n)
{
    for (size_t i = 0; i < sizeof allowed / sizeof allowed[0]; ++i)
        if (strlen(allowed[i]) == n && memcmp(allowed[i], t, n) == 0)
            return true;
    return false;
}

static void fuzz_options(const uint8_t *data, size_t n)
{
    char *text = malloc(n + 1);
    if (!text)
        return;
    memcpy(text, data, n);
    text[n] = '\0';
    bicl_status st = bicl_check_build_options(text);
    REQUIRE(st == BICL_SUCCESS || st == BICL_ERR_UNSAFE_OPTION || st == BICL_ERR_UNKNOWN_OPTION,
            "status %d", st);
    if (st == BICL_SUCCESS) { /* every token is on the allow list */
        const char *p = text;
        while (*p) {
            while (*p == ' ' || (*p >= '\t' && *p <= '\r'))
                ++p;
            const char *s = p;
            while (*p && !(*p == ' ' || (*p >= '\t' && *p <= '\r')))
                ++p;
            REQUIRE(p == s || token_allowed(s, (size_t)(p - s)), "accepted '%.*s'", (int)(p - s),
                    s);
        }
    }
    bicl_options *o = NULL;
    if (bicl_options_create(&o) == BICL_SUCCESS) {
        bicl_status set = bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, text);
        REQUIRE(set == st || (st == BICL_SUCCESS && set == BICL_ERR_INVALID_PARAMETER),
                "setter %d, check %d", set, st);
        REQUIRE(set == BICL_SUCCESS || o->build_options[0] == '\0', "refused value kept");
        bicl_options_free(o);
    }
    free(text);
}

/* ------------------------------------------------------------ rope config */

static double read_double(reader *r)
{
    static const double pick[] = {0.0,  1.0,    -1.0,   0.5,      2.0,    8.0,  32.0,
                                  1e4,  5e5,    1e-300, 1e300,    1e-310, NAN,  INFINITY,
                                  -0.0, 1.0001, 4096.0, 131072.0, 0.1,    1e38, 1e39};
    uint8_t b = byte(r);
    if (b < 0xe0)
        return pick[b % (sizeof pick / sizeof pick[0])];
    uint64_t bits = word(r);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static int read_int(reader *r)
{
    static const int pick[] = {0, 1, 2, 4, 8, 64, 96, 128, 256, 4096, 8192, -1, 65536, 65538};
    uint8_t b = byte(r);
    if (b < 0xe0)
        return pick[b % (sizeof pick / sizeof pick[0])];
    return (int)(uint32_t)word(r);
}

static double *read_factors(reader *r, int rotary_dim)
{
    if (rotary_dim < 2 || rotary_dim > 8192 || byte(r) % 4 == 0)
        return NULL;
    size_t n = (size_t)rotary_dim / 2;
    double *f = malloc(n * sizeof *f), first = read_double(r), step = read_double(r);
    if (!f)
        return NULL;
    for (size_t i = 0; i < n; ++i)
        f[i] = i % 7 == 3 ? step : first;
    return f;
}

/* An accepted config gives finite cos/sin, at most the attention scaling in size, in
 * both angle modes, at the first and the last positions a plan accepts. */
static void check_accepted(const bicl_rope_config *c)
{
    double attn = bicl_rope_attention_unchecked(c);
    float attn_f = bicl_f64_to_f32_rte(attn);
    static const int positions[] = {0, 1, 4095, 65536, 2147483647};
    /* inv_freq and the scaling as a plan computes them (src/rope.c): the hf mode's is
     * transformers' f32 arithmetic, not the double one rounded (for a config the fuzzer
     * found, theta 3e-33 and factor 4e252, they were 0 and 3e30) */
    for (int i = 0; i < c->rotary_dim / 2; i += 1 + c->rotary_dim / 16) {
        double inv = bicl_rope_inv_freq_unchecked(c, i);
        float inv_hf = bicl_rope_hf_inv_freq_f32_unchecked(c, i);
        for (size_t k = 0; k < sizeof positions / sizeof positions[0]; ++k) {
            float cs, sn, hc, hs;
            bicl_rope_cos_sin_exact(positions[k], inv, attn, &cs, &sn);
            bicl_rope_cos_sin_hf(positions[k], inv_hf, attn_f, &hc, &hs);
            REQUIRE(isfinite(cs) && isfinite(sn) && isfinite(hc) && isfinite(hs),
                    "pos %d pair %d: cos %g sin %g (hf %g %g), inv %g (hf %g) attn %g",
                    positions[k], i, (double)cs, (double)sn, (double)hc, (double)hs, inv,
                    (double)inv_hf, attn);
            double bound = attn * 1.000001 + 2e-38; /* f32 rounding, denormals */
            REQUIRE(fabs(cs) <= bound && fabs(sn) <= bound, "|cos| or |sin| > attn %g", attn);
        }
    }
}

static void fuzz_rope_config(reader *r)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, read_int(r), read_int(r));
    uint8_t b = byte(r);
    c.style = (bicl_rope_style)(b % 3);
    c.type = (bicl_rope_type)((b >> 2) % 7);
    c.angle_mode = (bicl_rope_angle_mode)((b >> 5) % 3);
    if (byte(r) & 1)
        c.theta = read_double(r);
    c.factor = read_double(r);
    c.low_freq_factor = read_double(r);
    c.high_freq_factor = read_double(r);
    c.original_max_position_embeddings = read_int(r);
    c.max_position_embeddings = read_int(r);
    c.beta_fast = read_double(r);
    c.beta_slow = read_double(r);
    c.mscale = read_double(r);
    c.mscale_all_dim = read_double(r);
    c.attention_factor = read_double(r);
    c.truncate = byte(r) % 3;
    c.seq_len = read_int(r);
    double *lf = read_factors(r, c.rotary_dim), *sf = read_factors(r, c.rotary_dim);
    double *ff = read_factors(r, c.rotary_dim);
    c.long_factor = lf;
    c.short_factor = sf;
    c.freq_factors = ff;
    if (byte(r) == 0xff)
        c.struct_size = 8;
    bicl_status st = bicl_rope_config_check(&c);
    REQUIRE(st == BICL_SUCCESS || st == BICL_ERR_INVALID_CONFIG, "status %d", st);
    REQUIRE(st == BICL_SUCCESS || bicl_last_error(NULL)[0], "no detail for a refusal");
    if (st == BICL_SUCCESS)
        check_accepted(&c);
    free(lf);
    free(sf);
    free(ff);
}

/* --------------------------------------------------------------- HF JSON */

static void fuzz_hf_json(const uint8_t *data, size_t n)
{
    char *text = malloc(n + 1);
    if (!text)
        return;
    memcpy(text, data, n);
    text[n] = '\0';
    bicl_rope_config c;
    memset(&c, 0x5a, sizeof c); /* garbage in: the parser must not trust it */
    bicl_status st = bicl_rope_config_from_hf_json(text, &c);
    REQUIRE(st == BICL_SUCCESS || st == BICL_ERR_INVALID_CONFIG ||
                st == BICL_ERR_OUT_OF_HOST_MEMORY,
            "status %d", st);
    if (st == BICL_SUCCESS) {
        bicl_status chk = bicl_rope_config_check(&c);
        REQUIRE(chk == BICL_SUCCESS, "parsed config refused: %s", bicl_last_error(NULL));
        check_accepted(&c);
        bicl_rope_config_release(&c); /* LeakSanitizer checks the rest */
    }
    /* The M-RoPE reader on the same text: an accepted config passes the checks, every
     * pair has a row and the rows get exactly the sections' pair counts. */
    bicl_mrope_config m;
    bicl_mrope_vision v;
    memset(&m, 0x5a, sizeof m);
    memset(&c, 0x5a, sizeof c);
    st = bicl_mrope_config_from_hf_json(text, NULL, &c, &m, &v);
    REQUIRE(st == BICL_SUCCESS || st == BICL_ERR_INVALID_CONFIG ||
                st == BICL_ERR_OUT_OF_HOST_MEMORY,
            "mrope status %d", st);
    if (st == BICL_SUCCESS) {
        bicl_status chk = bicl_mrope_config_check(&c, &m);
        REQUIRE(chk == BICL_SUCCESS, "parsed mrope config refused: %s", bicl_last_error(NULL));
        int counts[3] = {0, 0, 0};
        for (int i = 0; i < c.rotary_dim / 2; ++i) {
            int row = bicl_mrope_pair_row(&m, i);
            REQUIRE(row >= 0 && row <= 2, "pair %d row %d", i, row);
            counts[row]++;
        }
        for (int a = 0; a < 3; ++a)
            REQUIRE(counts[a] == m.section[a], "row %d: %d pairs, section %d", a, counts[a],
                    m.section[a]);
        REQUIRE(v.spatial_merge_size >= 1 && v.tokens_per_second >= 0, "vision %d %d",
                v.spatial_merge_size, v.tokens_per_second);
        check_accepted(&c);
    }
    free(text);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0)
        return 0;
    reader r = {data + 1, size - 1};
    switch (data[0] % 4) {
    case 0:
        fuzz_views(&r);
        break;
    case 1:
        fuzz_options(data + 1, size - 1);
        break;
    case 2:
        fuzz_rope_config(&r);
        break;
    default:
        fuzz_hf_json(data + 1, size - 1);
        break;
    }
    return 0;
}
