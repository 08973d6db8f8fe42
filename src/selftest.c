/* selftest.c - suitability by proof (design rule 3): at context creation every device
 * runs a known-answer test of exactly what bicl's math relies on (cl/bicl_selftest.h:
 * division, sqrt, fma and products with denormals, the conversions, the math headers'
 * own functions, fp64 where present). The host evaluates the same cases; the device
 * must give the same bits. A device that does not advertise correctly rounded
 * divide/sqrt or fp32 denormals gets them by this proof; a runtime that miscompiles
 * the math is refused, with the first failing operation named, before it can return
 * a wrong bit. Results are kept per process, keyed by the fingerprint, so the test
 * runs once per device, driver and build options. */
#include "selftest.h"
#include "program.h"
#include "context_state.h"
#include "device.h"
#include "status.h"

#include "bicl_selftest.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ cases */

typedef struct st_cases {
    bicl_u64 *v; /* 4 per case: op, a, b, c */
    size_t n, cap;
    uint64_t rng;
} st_cases;

static uint64_t st_rand(st_cases *g)
{
    uint64_t x = g->rng;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    g->rng = x;
    return x * 0x2545f4914f6cdd1dull;
}

static void st_add(st_cases *g, unsigned op, uint64_t a, uint64_t b, uint64_t c)
{
    if (g->n == g->cap)
        return; /* sized by st_count: never reached */
    bicl_u64 *k = g->v + 4 * g->n++;
    k[0] = op;
    k[1] = a;
    k[2] = b;
    k[3] = c;
}

/* A random f32 with biased exponent field in [elo, ehi] and a random sign. */
static uint32_t st_f32(st_cases *g, unsigned elo, unsigned ehi)
{
    uint64_t r = st_rand(g);
    uint32_t e = elo + (uint32_t)((r >> 40) % (ehi - elo + 1));
    return (uint32_t)(r & 0x807fffffu) | (e << 23);
}

static uint64_t st_f64(st_cases *g, unsigned elo, unsigned ehi)
{
    uint64_t r = st_rand(g);
    uint64_t e = elo + (st_rand(g) >> 20) % (ehi - elo + 1);
    return (r & 0x800fffffffffffffull) | (e << 52);
}

static float st_as_f(uint32_t u)
{
    return bicl_u32_as_f32(u);
}

static const uint32_t st_special[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffd23456u,
    0x7f800001u, 0x00000001u, 0x807fffffu, 0x00400000u, 0x00800000u, 0x7f7fffffu,
    0x3f800000u, 0xbf800000u, 0x40400000u, 0x3f7fffffu, 0x477ff000u, 0x33000000u,
};
#define ST_NSPECIAL (sizeof st_special / sizeof st_special[0])

/* Division and 1/x: special pairs, every exponent (overflow, denormal results),
 * ordinary quotients, and dividends one ulp around q*b, whose quotients sit next to
 * q's rounding boundaries. */
static void st_division(st_cases *g)
{
    for (size_t i = 0; i < ST_NSPECIAL; ++i)
        for (size_t j = 0; j < ST_NSPECIAL; j += 3)
            st_add(g, BICL_ST_DIV, st_special[i], st_special[j], 0);
    for (int i = 0; i < 300; ++i)
        st_add(g, BICL_ST_DIV, st_f32(g, 0, 254), st_f32(g, 0, 254), 0);
    for (int i = 0; i < 300; ++i)
        st_add(g, BICL_ST_DIV, st_f32(g, 110, 144), st_f32(g, 110, 144), 0);
    for (int i = 0; i < 300; ++i) {
        float q = st_as_f(st_f32(g, 120, 134)), b = st_as_f(st_f32(g, 120, 134));
        uint32_t a = bicl_f32_as_u32(q * b) + (uint32_t)(i % 3) - 1u;
        st_add(g, BICL_ST_DIV, a, bicl_f32_as_u32(b), 0);
    }
    for (int i = 0; i < 100; ++i) /* results in the denormal range */
        st_add(g, BICL_ST_DIV, st_f32(g, 1, 30), st_f32(g, 127, 150), 0);
    for (int i = 0; i < 256; ++i)
        st_add(g, BICL_ST_RECIP, i < (int)ST_NSPECIAL ? st_special[i] : st_f32(g, 0, 254), 0, 0);
}

/* sqrt: specials, every exponent (negative ones give NaN), denormals, and squares
 * one ulp apart, which sit next to rounding boundaries. */
static void st_sqrt(st_cases *g)
{
    for (size_t i = 0; i < ST_NSPECIAL; ++i)
        st_add(g, BICL_ST_SQRT, st_special[i], 0, 0);
    for (int i = 0; i < 400; ++i)
        st_add(g, BICL_ST_SQRT, st_f32(g, 0, 254) & (i % 8 ? 0x7fffffffu : ~0u), 0, 0);
    for (int i = 0; i < 200; ++i)
        st_add(g, BICL_ST_SQRT, st_f32(g, 0, 0) & 0x7fffffffu, 0, 0);
    for (int i = 0; i < 400; ++i) {
        float s = st_as_f(st_f32(g, 64, 190) & 0x7fffffffu);
        st_add(g, BICL_ST_SQRT, bicl_f32_as_u32(s * s) + (uint32_t)(i % 3) - 1u, 0, 0);
    }
}

/* fma, * and + with denormal operands and results (a device that flushes them, as
 * Mesa's llvmpipe does, fails here), exact product residuals, random operands. */
static void st_denormals(st_cases *g)
{
    st_add(g, BICL_ST_FMA, 0x00000003u, 0x40400000u, 0); /* 0x1.8p-148 * 3: Mesa gives 0 */
    for (int i = 0; i < 200; ++i)
        st_add(g, BICL_ST_FMA, st_f32(g, 0, 20), st_f32(g, 100, 140), st_f32(g, 0, 1));
    for (int i = 0; i < 150; ++i) {
        uint32_t a = st_f32(g, 100, 150), b = st_f32(g, 100, 150);
        float p = st_as_f(a) * st_as_f(b);
        st_add(g, BICL_ST_FMA, a, b, bicl_f32_as_u32(p) ^ 0x80000000u);
    }
    for (int i = 0; i < 160; ++i)
        st_add(g, BICL_ST_FMA, st_f32(g, 0, 254), st_f32(g, 0, 254), st_f32(g, 0, 254));
    for (int i = 0; i < 256; ++i)
        st_add(g, BICL_ST_MUL, st_f32(g, 0, 60), st_f32(g, 60, 127), 0);
    for (int i = 0; i < 128; ++i)
        st_add(g, BICL_ST_ADD, st_f32(g, 0, 0), st_f32(g, 0, 1), 0);
    for (int i = 0; i < 128; ++i) { /* nearby normals cancelling into denormals */
        uint32_t a = st_f32(g, 1, 3);
        st_add(g, BICL_ST_ADD, a, (a ^ 0x80000000u) + (uint32_t)(i % 5) - 2u, 0);
    }
}

/* The storage conversions (bit paths), rint and the integer conversions. */
static void st_conversions(st_cases *g)
{
    for (int i = 0; i < 256; ++i) {
        uint32_t x = i < (int)ST_NSPECIAL ? st_special[i]
                     : i % 2              ? st_f32(g, 100, 143)
                                          : (uint32_t)st_rand(g);
        st_add(g, BICL_ST_TO_F16, x, 0, 0);
        st_add(g, BICL_ST_TO_BF16, x ^ (uint32_t)(i % 3 == 0) << 15, 0, 0);
    }
    /* every f16 exponent field (the f16 widening's branches) with random mantissas */
    for (uint32_t h = 0; h < 65536; h += 256)
        st_add(g, BICL_ST_FROM_F16, h | (st_rand(g) & 0xffu), 0, 0);
    for (int i = 0; i < 128; ++i) {
        float k = (float)(int)(st_rand(g) % 20001) - 10000.0f;
        uint32_t x = i % 4 == 0 ? bicl_f32_as_u32(k + 0.5f) : st_f32(g, 0, 160);
        st_add(g, BICL_ST_RINT, x, 0, 0);
        st_add(g, BICL_ST_F2I, st_f32(g, 0, 157), 0, 0); /* |x| < 2^31 */
        st_add(g, BICL_ST_I2F, i % 8 ? (uint32_t)st_rand(g) : 0x01000001u + (uint32_t)i, 0, 0);
        st_add(g, BICL_ST_U2F, (uint32_t)st_rand(g), 0, 0);
    }
}

/* The math headers' own functions: their structs carry int exponents by value. Since
 * exp, tanh and erf are correctly rounded, their double paths absorb small arithmetic
 * changes (Ziv's test); mish, an activation of plain float-pair code, is here too so
 * that relaxed float arithmetic still shows (test_core unsafe_math_fails_the_self_test). */
static void st_functions(st_cases *g)
{
    static const unsigned ops[4] = {BICL_ST_EXPF, BICL_ST_TANHF, BICL_ST_ERFF, BICL_ST_MISH};
    for (int f = 0; f < 4; ++f)
        for (int i = 0; i < 128; ++i) {
            uint32_t x = i < (int)ST_NSPECIAL ? st_special[i] : st_f32(g, 90, 133);
            if (f == 0 && i % 4 == 0) /* exp into the denormal range: 2^k scaling */
                x = bicl_f32_as_u32(-87.0f - (float)(st_rand(g) % 16000) / 1000.0f);
            st_add(g, ops[f], x, 0, 0);
        }
}

/* Double: division, sqrt, fma with denormals, narrowing, rint, long -> double, and the
 * sincos of RoPE's inline angles. */
static void st_doubles(st_cases *g)
{
    for (int i = 0; i < 256; ++i) {
        uint64_t b = st_f64(g, i % 4 ? 1000 : 0, i % 4 ? 1046 : 2046);
        uint64_t a = i % 3 ? st_f64(g, 900, 1100) : st_f64(g, 0, 2046);
        st_add(g, BICL_ST_DDIV, a, b, 0);
    }
    for (int i = 0; i < 128; ++i) {
        st_add(g, BICL_ST_DSQRT, st_f64(g, 0, 2046) & ~(1ull << 63), 0, 0);
        st_add(g, BICL_ST_DFMA, st_f64(g, 0, 40), st_f64(g, 900, 1100), st_f64(g, 0, 1));
        st_add(g, BICL_ST_D2F, st_f64(g, 850, 1200), 0, 0);
        st_add(g, BICL_ST_DRINT, st_f64(g, 1000, 1080), 0, 0);
        st_add(g, BICL_ST_L2D, st_rand(g), 0, 0);
    }
    for (int i = 0; i < 64; ++i) {
        uint64_t x = st_f64(g, 900, 1043) & ~(1ull << 63); /* up to 2^21 */
        st_add(g, BICL_ST_DSIN, x, 0, 0);
        st_add(g, BICL_ST_DCOS, x, 0, 0);
    }
}

static bicl_status st_make_cases(bool fp64, st_cases *g)
{
    g->cap = 8192;
    g->n = 0;
    g->rng = 0x5eed5e1f7e57ull;
    g->v = malloc(g->cap * 4 * sizeof *g->v);
    if (!g->v)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "self-test cases");
    st_division(g);
    st_sqrt(g);
    st_denormals(g);
    st_conversions(g);
    st_functions(g);
    if (fp64)
        st_doubles(g);
    return BICL_SUCCESS;
}

/* --------------------------------------------------------------- verdict */

static const char *const st_names[BICL_ST_COUNT] = {"f32 division a/b",
                                                    "f32 reciprocal 1/a",
                                                    "f32 sqrt",
                                                    "f32 fma with denormals",
                                                    "f32 multiply (denormal results)",
                                                    "f32 add (denormal results)",
                                                    "f32 -> f16 (the context's form)",
                                                    "f16 -> f32 (the context's form)",
                                                    "f32 -> bf16 (bit path)",
                                                    "f32 rint",
                                                    "f32 -> int conversion",
                                                    "int -> f32 conversion",
                                                    "uint -> f32 conversion",
                                                    "bicl_expf",
                                                    "bicl_tanhf",
                                                    "bicl_erff",
                                                    "bicl_mish",
                                                    "f64 division",
                                                    "f64 sqrt",
                                                    "f64 fma with denormals",
                                                    "f64 -> f32 rounding",
                                                    "f64 rint",
                                                    "long -> f64 conversion",
                                                    "f64 sin (bicl_sincos_dd)",
                                                    "f64 cos (bicl_sincos_dd)"};

/* Capability each failing op takes away: divide/sqrt, denormals, fp64, or the device
 * as a whole (0). */
static unsigned st_cap_of(unsigned op)
{
    if (op <= BICL_ST_SQRT)
        return BICL_CAP_CR_DIVIDE_SQRT;
    if (op <= BICL_ST_ADD)
        return BICL_CAP_DENORM;
    return op >= BICL_ST_F32_COUNT ? BICL_CAP_FP64 : 0u;
}

typedef struct st_outcome {
    size_t failed[BICL_ST_COUNT];
    size_t first[BICL_ST_COUNT]; /* case index of each op's first failure */
    size_t cases;
} st_outcome;

/* IEEE 754 leaves the payload of a NaN that +, -, *, /, sqrt, fma or rint return to
 * the hardware (x86 gives 0xffc00000 for 0/0 and keeps an input's payload; NVIDIA gives
 * 0x7fffffff for every NaN), and bicl's math never passes such a NaN on unexamined: every
 * op's NaN rule makes its own (cl/bicl_pointwise_ops.h, bicl_rope_rotate.h). So for these
 * operations any NaN answers a NaN; every bit path (conversions, the math functions)
 * must match exactly. */
static bool st_nan_is_free(unsigned op)
{
    return op <= BICL_ST_ADD || op == BICL_ST_RINT || op == BICL_ST_DDIV || op == BICL_ST_DSQRT ||
           op == BICL_ST_DFMA || op == BICL_ST_DRINT;
}

static bool st_is_nan(unsigned op, bicl_u64 v)
{
    if (op >= BICL_ST_F32_COUNT) /* a double */
        return (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
               (v & 0x000fffffffffffffull) != 0;
    return (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu) != 0;
}

static bool st_matches(unsigned op, bicl_u64 got, bicl_u64 want)
{
    return got == want || (st_nan_is_free(op) && st_is_nan(op, got) && st_is_nan(op, want));
}

static void st_judge(const st_cases *g, const bicl_u64 *got, st_outcome *o)
{
    memset(o, 0, sizeof *o);
    o->cases = g->n;
    for (size_t i = 0; i < g->n; ++i) {
        const bicl_u64 *k = g->v + 4 * i;
        unsigned op = (unsigned)k[0];
        if (st_matches(op, got[i], bicl_selftest_eval(op, k[1], k[2], k[3])))
            continue;
        if (o->failed[op]++ == 0)
            o->first[op] = i;
    }
}

/* "f32 division a/b: 0x... / 0x... gave 0x..., expected 0x... (12 of 1024 cases)" */
static void st_describe(const st_cases *g, const bicl_u64 *got, const st_outcome *o, unsigned op,
                        char *out, size_t n)
{
    size_t total = 0;
    for (size_t i = 0; i < g->n; ++i)
        total += g->v[4 * i] == op;
    const bicl_u64 *k = g->v + 4 * o->first[op];
    snprintf(out, n,
             "self-test: %s: inputs 0x%llx 0x%llx 0x%llx gave 0x%llx, the host 0x%llx (%zu of "
             "%zu cases differ)",
             st_names[op], (unsigned long long)k[1], (unsigned long long)k[2],
             (unsigned long long)k[3], (unsigned long long)got[o->first[op]],
             (unsigned long long)bicl_selftest_eval(op, k[1], k[2], k[3]), o->failed[op], total);
}

/* ------------------------------------------------------------ the run */

typedef struct st_run {
    cl_command_queue q;
    cl_mem in, out;
    cl_program prog;
    cl_kernel k;
} st_run;

static void st_release(st_run *r)
{
    if (r->k)
        clReleaseKernel(r->k);
    if (r->prog)
        clReleaseProgram(r->prog);
    if (r->in)
        clReleaseMemObject(r->in);
    if (r->out)
        clReleaseMemObject(r->out);
    if (r->q)
        clReleaseCommandQueue(r->q);
}

static bicl_status st_execute(bicl_context *ctx, const st_cases *g, bicl_u64 *got)
{
    st_run r = {0};
    char *text = NULL;
    size_t size = 0;
    /* Through the disk cache (keyed by the fingerprint before the test, the options and
     * the source), so that a warm start does not compile it again in every process. The
     * kernel still runs, and its results are judged, in every process. Not counted in
     * the context's op stats. */
    bicl_cache_stats uncounted = {0};
    bicl_status st = bicl_program_source(ctx, BICL_FAMILY_SELFTEST, NULL, &text, &size);
    if (st == BICL_SUCCESS)
        st = bicl_program_build(ctx, BICL_FAMILY_SELFTEST, text, size, &uncounted, &r.prog);
    free(text);
    cl_int err = CL_SUCCESS;
    const char *what = "clCreateKernel(bicl_selftest)";
    if (st == BICL_SUCCESS)
        r.k = clCreateKernel(r.prog, "bicl_selftest", &err);
    if (st == BICL_SUCCESS && err == CL_SUCCESS) {
        what = "clCreateCommandQueue";
        r.q = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
    }
    if (st == BICL_SUCCESS && err == CL_SUCCESS) {
        what = "clCreateBuffer";
        r.in = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR,
                              g->n * 4 * sizeof *g->v, g->v, &err);
    }
    if (st == BICL_SUCCESS && err == CL_SUCCESS)
        r.out = clCreateBuffer(ctx->cl_ctx, CL_MEM_WRITE_ONLY, g->n * sizeof *got, NULL, &err);
    cl_uint n = (cl_uint)g->n;
    size_t global = g->n;
    if (st == BICL_SUCCESS && err == CL_SUCCESS) {
        what = "the self-test kernel";
        err = clSetKernelArg(r.k, 0, sizeof r.in, &r.in);
        err |= clSetKernelArg(r.k, 1, sizeof r.out, &r.out);
        err |= clSetKernelArg(r.k, 2, sizeof n, &n);
    }
    if (st == BICL_SUCCESS && err == CL_SUCCESS)
        err = clEnqueueNDRangeKernel(r.q, r.k, 1, NULL, &global, NULL, 0, NULL, NULL);
    if (st == BICL_SUCCESS && err == CL_SUCCESS)
        err = clEnqueueReadBuffer(r.q, r.out, CL_TRUE, 0, g->n * sizeof *got, got, 0, NULL, NULL);
    if (st == BICL_SUCCESS && err != CL_SUCCESS)
        st = bicl_fail_cl(err, what);
    st_release(&r);
    return st;
}

/* ------------------------------------------------------- per-process memo */

typedef struct st_memo {
    uint64_t key;
    bicl_status status; /* BICL_SUCCESS or BICL_ERR_DEVICE_UNSUITABLE */
    unsigned caps;      /* caps after the test */
    char why[512];
} st_memo;

#define ST_MEMO_MAX 32
static st_memo st_memos[ST_MEMO_MAX];
static size_t st_memo_n;
static pthread_mutex_t st_lock = PTHREAD_MUTEX_INITIALIZER;

/* Caps after the proof, or the reason the device is refused. */
static bicl_status st_verdict(unsigned caps, const st_cases *g, const bicl_u64 *got, st_memo *m)
{
    st_outcome o;
    st_judge(g, got, &o);
    m->caps = caps | BICL_CAPS_PROVABLE;
    m->status = BICL_SUCCESS;
    m->why[0] = '\0';
    for (unsigned op = 0; op < BICL_ST_COUNT; ++op) {
        if (!o.failed[op])
            continue;
        char d[400];
        st_describe(g, got, &o, op, d, sizeof d);
        if (st_cap_of(op) == BICL_CAP_FP64) { /* f32 ops stand: only fp64 is dropped */
            if (m->caps & BICL_CAP_FP64)
                snprintf(m->why, sizeof m->why, "fp64 not used: %s", d);
            m->caps &= ~(unsigned)BICL_CAP_FP64;
            continue;
        }
        const char *cap = st_cap_of(op) == BICL_CAP_CR_DIVIDE_SQRT ? "correctly rounded fp32 "
                                                                     "divide and sqrt: "
                          : st_cap_of(op) == BICL_CAP_DENORM       ? "fp32 denormals: "
                                                                   : "";
        snprintf(m->why, sizeof m->why, "%s%s%s", cap[0] ? "missing " : "", cap, d);
        m->status = BICL_ERR_DEVICE_UNSUITABLE;
        return m->status;
    }
    return BICL_SUCCESS;
}

size_t bicl_selftest_cases(bool fp64, uint64_t **cases)
{
    st_cases g;
    *cases = NULL;
    if (st_make_cases(fp64, &g) != BICL_SUCCESS)
        return 0;
    *cases = g.v;
    return g.n;
}

uint64_t bicl_selftest_expect(const uint64_t *k)
{
    return bicl_selftest_eval((bicl_u32)k[0], k[1], k[2], k[3]);
}

bicl_status bicl_selftest_judge(const uint64_t *cases, size_t n, const uint64_t *got, unsigned caps,
                                unsigned *caps_out, char *why, size_t why_n)
{
    st_cases g = {(bicl_u64 *)cases, n, n, 0};
    st_memo m;
    bicl_status st = st_verdict(caps, &g, got, &m);
    *caps_out = m.caps;
    if (why_n)
        snprintf(why, why_n, "%s", m.why);
    return st;
}

/* The host's answers are the reference only when this process keeps denormals (an
 * engine linked with -ffast-math, or one that set FTZ/DAZ, does not): then neither
 * the self-test nor the host reference can be trusted, and the caller is told why. */
static bicl_status st_host_keeps_denormals(void)
{
    volatile float tiny = 0x1p-149f, three = 3.0f;
    /* compared as bits: under DAZ a comparison with a denormal sees zero too */
    if (bicl_f32_as_u32(tiny * three) == 3u)
        return BICL_SUCCESS;
    return bicl_fail(BICL_ERR_UNSUPPORTED,
                     "this process flushes fp32 denormals (FTZ/DAZ): the host reference and the "
                     "device self-test need them");
}

static bicl_status st_run_test(bicl_context *ctx, st_memo *m)
{
    bicl_status hs = st_host_keeps_denormals();
    if (hs != BICL_SUCCESS)
        return hs;
    st_cases g;
    bicl_status st = st_make_cases((ctx->info.caps & BICL_CAP_FP64) != 0, &g);
    if (st != BICL_SUCCESS)
        return st;
    bicl_u64 *got = calloc(g.n, sizeof *got);
    st = got ? st_execute(ctx, &g, got)
             : bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "self-test results");
    if (st == BICL_SUCCESS)
        st_verdict(ctx->info.caps, &g, got, m);
    free(got);
    free(g.v);
    return st;
}

bicl_status bicl_context_selftest(bicl_context *ctx)
{
    /* the f16 form is a source define, not in the fingerprint (it changes no bit), but the
     * test proves the conversions of the form it was built with */
    const unsigned char form = (unsigned char)ctx->f16_form;
    uint64_t key = bicl_fnv1a(ctx->fingerprint_hash, &form, 1);
    pthread_mutex_lock(&st_lock);
    st_memo m = {0};
    bool known = false;
    for (size_t i = 0; i < st_memo_n && !known; ++i)
        if (st_memos[i].key == key) {
            m = st_memos[i];
            known = true;
        }
    bicl_status st = BICL_SUCCESS;
    if (!known) {
        m.key = key;
        /* a resource failure is not a verdict: it is returned and not remembered; a compiler
         * that refuses the _Float16 form refuses it every time, which is one */
        st = st_run_test(ctx, &m);
        if (st == BICL_ERR_BUILD_FAILED && ctx->f16_form == BICL_F16_FLOAT16) {
            m.status = st;
            m.caps = ctx->info.caps;
            snprintf(m.why, sizeof m.why, "%s", bicl_last_error(NULL));
            st = BICL_SUCCESS;
        }
        if (st == BICL_SUCCESS && st_memo_n < ST_MEMO_MAX)
            st_memos[st_memo_n++] = m;
    }
    pthread_mutex_unlock(&st_lock);
    if (st != BICL_SUCCESS)
        return st;
    if (m.status != BICL_SUCCESS) /* ctx as it was: a caller may test another form */
        return bicl_fail(m.status, "%s: %s", ctx->info.device_name, m.why);
    ctx->caps_advertised = ctx->info.caps;
    ctx->info.caps = m.caps;
    snprintf(ctx->selftest_note, sizeof ctx->selftest_note, "%s", m.why);
    return BICL_SUCCESS;
}

void bicl_context_verdict(const bicl_context *ctx, char *out, size_t n)
{
    unsigned proven = ctx->info.caps & ~ctx->caps_advertised & BICL_CAPS_PROVABLE;
    snprintf(out, n, "suitable (%s), self-tested%s%s%s%s%s",
             (ctx->info.caps & BICL_CAP_FP64) ? "fp64" : "no fp64",
             proven ? "; proven by it, not advertised:" : "",
             (proven & BICL_CAP_CR_DIVIDE_SQRT) ? " correctly rounded divide and sqrt" : "",
             (proven & BICL_CAP_DENORM) ? " fp32 denormals" : "", ctx->selftest_note[0] ? "; " : "",
             ctx->selftest_note);
}
