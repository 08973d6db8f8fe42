/* bicl_math_identity - proves that the implementations of bicl's correctly
 * rounded functions give the same bits (the float-pair and integer paths
 * against the double one: expf, expm1f, sigmoidf, silu, gelu_quick, tanhf, gelu_tanh,
 * erff, gelu_erf (CR_FNS), softcap, and the gated units rounded once: swiglu_oss, swiglu1,
 * geglu_tanh1; the kernels' fast forms of sigmoidf, silu, gelu_quick, tanhf, gelu_tanh
 * and gelu_erf (FAST_FNS) and of softcap where they accept), and that every other
 * function of cl/bicl_math_f32.h gives the same bits as the header of a baseline commit (CMake's
 * BICL_MATH_BASELINE, read from git at configure time and renamed bicl_* -> bicl_v1_* into
 * <build>/math_baseline/bicl_math_f32_v1.h); times them.
 *
 *   --function NAME  only the checks whose name starts with NAME
 *   --fallback       also the integer paths alone (slow: bit-serial division)
 *
 * The fast paths added to the header (normal-range ldexp rounding, the
 * x * sigmoid product without the mantissa/exponent split of 1, the ordered
 * TwoSum in expm1 for tanh, the shift in the exp expansion) are meant to
 * change speed, never a single output bit. This tool checks that claim by
 * comparing bit patterns (NaN payloads and the sign of zero included):
 *
 *   --exhaustive   every one of the 2^32 float inputs of expf, expm1f, tanhf,
 *                  sigmoidf, erff, silu, gelu_erf, gelu_tanh, gelu_quick;
 *                  softcap(x, cap) (pair and, with --fallback, integer path
 *                  against the double one) for every x and the caps 30 and 50, and
 *                  2^24 random x for each of 24 more caps (tiny, denormal, huge,
 *                  inf, zero, NaN, negative); swiglu_oss(gate, up, 1.702, 7),
 *                  swiglu1 and geglu_tanh1 (pair and, with --fallback, integer
 *                  path against the double one) for every gate against the ups
 *                  0.3 and -1 + 2^-24 and every up against the gates 1.5 and -1.5,
 *                  2^26 random ones for each of 8 more ups and gates, 2^28 random
 *                  pairs, and (swiglu_oss) other alpha/limit values on random and
 *                  edge pairs.
 *                  26 minutes on 2 shared cores when built with
 *                  -march=native (hardware fma: the same correctly rounded
 *                  results as libm's fmaf, which the portable build calls,
 *                  about 2.5x slower); so it is not a ctest test.
 *   --sample N     the same families on N random bit patterns each (plus
 *                  all edge classes): a quick check, seconds.
 *   --bench        ns per call of the old and the new header on this CPU.
 *   --threads T    worker threads (default 2).
 *
 * Every run also checks the normal ranges of sigmoid, silu and gelu_quick (where their
 * double path skips Ziv's exponent check): check_normal_ranges; and that the fast forms
 * accept nearly all of three binades of their common ranges (check_fast_accepts) and
 * agree with the double path on every input of the binade where their results leave the
 * normal range (check_fast_tails).
 *
 * Exit status 0 only when no mismatch was found. Build: the bicl-math-identity
 * CMake target, with the library's FP flags (-ffp-contract=off, no fast-math),
 * which the host reference needs to mean anything. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bicl_math_glu_f32.h"
#include "bicl_math_f32_v1.h"

typedef float (*fn1)(float);
typedef struct {
    const char *name;
    fn1 new_fn;
    fn1 old_fn;
    int fallback; /* 1: only with --fallback (the integer path alone, slow) */
} pair1;

/* The correctly rounded functions computed by three paths (cl/bicl_math_f32.h,
 * BICL_M_CR1), by the NAME of bicl_NAME: one row each; the checks and timings of
 * their paths are generated from it. */
#define CR_FNS(X)                                                                                  \
    X(expf) X(expm1f) X(sigmoidf) X(silu) X(gelu_quick) X(tanhf) X(gelu_tanh) X(erff) X(gelu_erf)

/* The correctly rounded functions: each path against the double one (all three are
 * correctly rounded, so their bits must agree; bicl-accuracy --exhaustive proves
 * the double one against MPFR). The others: the header against the baseline. */
#define CR_CHECKS(N)                                                                               \
    {#N " pair=dbl", bicl_##N##_pair, bicl_##N##_dbl, 0},                                          \
        {#N " int=dbl", bicl_##N##_int, bicl_##N##_dbl, 1},
/* The kernels' fast forms (BICL_M_CR_FAST1; cl/bicl_kernel.h's fix-up form), by the
 * NAME of bicl_NAME_fast: where one accepts (ok), its value must be the double path's;
 * fast_or_NAME is that value, or the double path's where it declines. */
#define FAST_FNS(X) X(sigmoidf) X(silu) X(gelu_quick) X(tanhf) X(gelu_tanh) X(gelu_erf)
#define FAST_OR(N)                                                                                 \
    static float fast_or_##N(float x)                                                              \
    {                                                                                              \
        int ok;                                                                                    \
        float r = bicl_##N##_fast(x, &ok);                                                         \
        return ok ? r : bicl_##N##_dbl(x);                                                         \
    }
FAST_FNS(FAST_OR)
#define FAST_CHECKS(N) {#N " fast=dbl", fast_or_##N, bicl_##N##_dbl, 0},
static const pair1 k_fns1[] = {
    CR_FNS(CR_CHECKS) FAST_FNS(FAST_CHECKS){"relu", bicl_relu, bicl_v1_relu, 0},
    {"relu2", bicl_relu2, bicl_v1_relu2, 0},
};
#define N_FNS1 ((int)(sizeof k_fns1 / sizeof k_fns1[0]))

/* Timing: the baseline against the paths of the new header. */
#define CR_BENCH(N)                                                                                \
    {#N " dbl", bicl_##N##_dbl, bicl_v1_##N, 0}, {#N " pair", bicl_##N##_pair, bicl_v1_##N, 0},    \
        {#N " int", bicl_##N##_int, bicl_v1_##N, 0},
static const pair1 k_bench[] = {CR_FNS(CR_BENCH)};
#define N_BENCH ((int)(sizeof k_bench / sizeof k_bench[0]))

/* --function NAME: only the checks whose name starts with NAME; --fallback adds
 * the integer paths. */
static const char *g_only = NULL;
static int g_fallback = 0;
static int g_on[N_FNS1];

static int name_selected(const char *name)
{
    return g_only == NULL || strncmp(name, g_only, strlen(g_only)) == 0;
}

static uint64_t splitmix(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* ------------------------------------------------------------ bookkeeping */
#define MAX_SHOW 5
typedef struct {
    uint64_t checked;
    uint64_t mismatches;
    int shown;
} tally;

static pthread_mutex_t g_lock = PTHREAD_MUTEX_INITIALIZER;

static void report_mismatch(tally *t, const char *name, const char *args, uint32_t got,
                            uint32_t want)
{
    pthread_mutex_lock(&g_lock);
    t->mismatches++;
    if (t->shown < MAX_SHOW) {
        t->shown++;
        fprintf(stderr, "MISMATCH %s(%s): new 0x%08" PRIx32 " old 0x%08" PRIx32 "\n", name, args,
                got, want);
    }
    pthread_mutex_unlock(&g_lock);
}

/* ------------------------------------------------------ one-argument sweep */
typedef struct {
    uint64_t begin;
    uint64_t end;
    uint64_t stride; /* 1 = every pattern; sampled mode uses random ones */
    int random;
    uint64_t seed;
    int threads;
    int id;
    uint64_t local_mis[N_FNS1];
} job1;

static tally g_t1[N_FNS1];

static void *run1(void *arg)
{
    job1 *j = (job1 *)arg;
    uint64_t s = j->seed + (uint64_t)j->id * 0x1234567ull;
    uint64_t n = 0;
    uint64_t total = j->end - j->begin;
    uint64_t i;
    for (i = j->begin + (uint64_t)j->id; i < j->end; i += (uint64_t)j->threads) {
        uint32_t b = j->random ? (uint32_t)splitmix(&s) : (uint32_t)i;
        float x = bicl_u32_as_f32(b);
        int f;
        for (f = 0; f < N_FNS1; f++) {
            uint32_t a;
            uint32_t o;
            if (!g_on[f]) {
                continue;
            }
            a = bicl_f32_as_u32(k_fns1[f].new_fn(x));
            o = bicl_f32_as_u32(k_fns1[f].old_fn(x));
            if (a != o) {
                char buf[64];
                snprintf(buf, sizeof buf, "0x%08" PRIx32 " = %.9g", b, (double)x);
                report_mismatch(&g_t1[f], k_fns1[f].name, buf, a, o);
            }
        }
        n++;
        if (j->id == 0 && (n & 0x3ffffffull) == 0) {
            fprintf(stderr, "  one-argument sweep: %.1f%%\n",
                    100.0 * (double)(n * (uint64_t)j->threads) / (double)total);
        }
    }
    pthread_mutex_lock(&g_lock);
    for (i = 0; i < (uint64_t)N_FNS1; i++) {
        if (g_on[i]) {
            g_t1[i].checked += n;
        }
    }
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

static void sweep1(uint64_t count, int random, int threads)
{
    pthread_t th[64];
    job1 jobs[64];
    int t;
    for (t = 0; t < threads; t++) {
        memset(&jobs[t], 0, sizeof jobs[t]);
        jobs[t].begin = 0;
        jobs[t].end = count;
        jobs[t].random = random;
        jobs[t].seed = 0x5eed0001ull;
        jobs[t].threads = threads;
        jobs[t].id = t;
        pthread_create(&th[t], NULL, run1, &jobs[t]);
    }
    for (t = 0; t < threads; t++) {
        pthread_join(th[t], NULL);
    }
}

/* ------------------------------------------------------ two-argument sweeps */
/* Edge values shared by the two-argument checks. */
static const uint32_t k_edges[] = {
    0x00000000u, 0x80000000u, 0x00000001u, 0x80000001u, 0x00000002u, 0x007fffffu, 0x807fffffu,
    0x00800000u, 0x80800000u, 0x00800001u, 0x0d800000u, 0x1f800000u, 0x20000000u, 0x33800000u,
    0x34000000u, 0x39000000u, 0x3e800000u, 0x3f000000u, 0x3f7fffffu, 0x3f800000u, 0xbf800000u,
    0xbf7fffffu, 0xbf800001u, 0x3f800001u, 0x3fd9db23u, 0x40000000u, 0xc0000000u, 0x40e00000u,
    0xc0e00000u, 0x40e00001u, 0xc0e00001u, 0x40dfffffu, 0x41000000u, 0x41200000u, 0x41f00000u,
    0x42480000u, 0x42c80000u, 0x43960000u, 0x5f800000u, 0x7e800000u, 0x7f000000u, 0x7f7fffffu,
    0xff7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u, 0xffc00000u, 0x7f800001u, 0xff812345u,
    0x7fbfffffu, 0x3dcccccdu, 0xbdcccccdu, 0x41100000u, 0xc1100000u, 0x3a83126fu, 0xba83126fu,
};
#define N_EDGES ((int)(sizeof k_edges / sizeof k_edges[0]))

/* FAM_SOFTCAP, FAM_SOFTCAP_INT: softcap's float-pair / integer path against its double one
 * (it is correctly rounded); FAM_SOFTCAP_COMMON: its common-range test by exact products
 * against the float quotient's (bicl_m_softcap_common_q, the form without fp64); the swiglu
 * families (how the gate and up are swept): the float-pair or integer path (g_glu_path) of a gated
 * unit rounded once (g_glu_fn: swiglu_oss, swiglu1, geglu_tanh1; math version 6) against its double
 * one. */
typedef enum {
    FAM_SOFTCAP,
    FAM_SOFTCAP_FAST,
    FAM_SOFTCAP_COMMON,
    FAM_SOFTCAP_INT,
    FAM_SWIGLU_GATE,
    FAM_SWIGLU_UP,
    FAM_SWIGLU_RANDOM
} family;

typedef struct {
    family fam;
    float p0; /* softcap: cap; swiglu sweeps: the fixed operand */
    float alpha;
    float limit;
    uint64_t count; /* 2^32: every pattern of the swept operand */
    int random;
    uint64_t seed;
    int threads;
    int id;
    tally *t;
    const char *name;
} job2;

/* The gated unit and path the swiglu families check (set before each sweep). */
enum { GLU_OSS, GLU_SWIGLU1, GLU_GEGLU_TANH1 };
static int g_glu_fn = GLU_OSS;
static int g_glu_path = 0; /* 0: float pair, 1: integer */

static uint32_t glu_path_bits(int fn, int path, float x, float y, float alpha, float limit)
{
    float r;
    if (fn == GLU_SWIGLU1)
        r = path < 0 ? bicl_swiglu1_dbl(x, y)
            : path   ? bicl_swiglu1_int(x, y)
                     : bicl_swiglu1_pair(x, y);
    else if (fn == GLU_GEGLU_TANH1)
        r = path < 0 ? bicl_geglu_tanh1_dbl(x, y)
            : path   ? bicl_geglu_tanh1_int(x, y)
                     : bicl_geglu_tanh1_pair(x, y);
    else
        r = path < 0 ? bicl_swiglu_oss_dbl(x, y, alpha, limit)
            : path   ? bicl_swiglu_oss_int(x, y, alpha, limit)
                     : bicl_swiglu_oss_pair(x, y, alpha, limit);
    return bicl_f32_as_u32(r);
}

static void check2(const job2 *j, uint32_t b, uint32_t c)
{
    float x = bicl_u32_as_f32(b);
    float y = bicl_u32_as_f32(c);
    uint32_t a;
    uint32_t o;
    char buf[160];
    switch (j->fam) {
    case FAM_SOFTCAP:
        a = bicl_f32_as_u32(bicl_softcap_pair(x, y));
        o = bicl_f32_as_u32(bicl_softcap_dbl(x, y));
        break;
    case FAM_SOFTCAP_FAST: { /* the fast form where it accepts, else the double path */
        int ok;
        float r = bicl_softcap_fast(x, y, &ok);
        a = bicl_f32_as_u32(ok ? r : bicl_softcap_dbl(x, y));
        o = bicl_f32_as_u32(bicl_softcap_dbl(x, y));
        break;
    }
    case FAM_SOFTCAP_COMMON:
        a = (uint32_t)bicl_m_softcap_common(x, y);
        o = (uint32_t)bicl_m_softcap_common_q(x, y);
        break;
    case FAM_SOFTCAP_INT:
        a = bicl_f32_as_u32(bicl_softcap_int(x, y));
        o = bicl_f32_as_u32(bicl_softcap_dbl(x, y));
        break;
    default:
        a = glu_path_bits(g_glu_fn, g_glu_path, x, y, j->alpha, j->limit);
        o = glu_path_bits(g_glu_fn, -1, x, y, j->alpha, j->limit);
        break;
    }
    if (a != o) {
        snprintf(buf, sizeof buf, "0x%08" PRIx32 ", 0x%08" PRIx32 "; alpha %g limit %g", b, c,
                 (double)j->alpha, (double)j->limit);
        report_mismatch(j->t, j->name, buf, a, o);
    }
}

static void *run2(void *arg)
{
    job2 *j = (job2 *)arg;
    uint64_t s = j->seed + (uint64_t)j->id * 0x9876543ull;
    uint64_t n = 0;
    uint64_t i;
    uint32_t fixed = bicl_f32_as_u32(j->p0);
    for (i = (uint64_t)j->id; i < j->count; i += (uint64_t)j->threads) {
        uint32_t v = j->random ? (uint32_t)splitmix(&s) : (uint32_t)i;
        switch (j->fam) {
        case FAM_SOFTCAP:
        case FAM_SOFTCAP_FAST:
        case FAM_SOFTCAP_COMMON:
        case FAM_SOFTCAP_INT:
        case FAM_SWIGLU_UP: /* fixed second operand: x or gate swept */
            check2(j, v, fixed);
            break;
        case FAM_SWIGLU_GATE: /* fixed gate, every up */
            check2(j, fixed, v);
            break;
        case FAM_SWIGLU_RANDOM: {
            uint64_t r = splitmix(&s);
            /* half the pairs in the working range, half any bits */
            if ((r & 1u) != 0u) {
                float g = (float)((int64_t)(r >> 8 & 0xffffff) - 0x800000) * 0x1p-20f;
                float u = (float)((int64_t)(r >> 32 & 0xffffff) - 0x800000) * 0x1p-20f;
                check2(j, bicl_f32_as_u32(g), bicl_f32_as_u32(u));
            } else {
                check2(j, v, (uint32_t)(r >> 32));
            }
            break;
        }
        }
        n++;
    }
    pthread_mutex_lock(&g_lock);
    j->t->checked += n;
    pthread_mutex_unlock(&g_lock);
    return NULL;
}

static void sweep2(family fam, const char *name, tally *t, float p0, float alpha, float limit,
                   uint64_t count, int random, uint64_t seed, int threads)
{
    pthread_t th[64];
    job2 jobs[64];
    int k;
    for (k = 0; k < threads; k++) {
        jobs[k].fam = fam;
        jobs[k].p0 = p0;
        jobs[k].alpha = alpha;
        jobs[k].limit = limit;
        jobs[k].count = count;
        jobs[k].random = random;
        jobs[k].seed = seed;
        jobs[k].threads = threads;
        jobs[k].id = k;
        jobs[k].t = t;
        jobs[k].name = name;
        pthread_create(&th[k], NULL, run2, &jobs[k]);
    }
    for (k = 0; k < threads; k++) {
        pthread_join(th[k], NULL);
    }
}

/* sweep2 with each of n fixed values in turn: the first two over every pattern in
 * exhaustive mode, the others over `part` random ones (n2 random ones when sampling). */
static void sweep_fixed(family fam, const char *name, tally *t, const uint32_t *fixed, int n,
                        float alpha, float limit, int exhaustive, uint64_t part, uint64_t n2,
                        uint64_t seed, int threads)
{
    for (int i = 0; i < n; i++) {
        int full = exhaustive && i < 2;
        sweep2(fam, name, t, bicl_u32_as_f32(fixed[i]), alpha, limit,
               full ? (1ull << 32) : (exhaustive ? part : n2), !full, seed + (uint64_t)i, threads);
    }
}

/* Every pair of edge values. */
static void check_edge_pairs(family fam, const char *name, tally *t, float alpha, float limit)
{
    job2 j;
    memset(&j, 0, sizeof j);
    j.fam = fam;
    j.t = t;
    j.name = name;
    j.alpha = alpha;
    j.limit = limit;
    for (int a = 0; a < N_EDGES; a++) {
        for (int b = 0; b < N_EDGES; b++) {
            check2(&j, k_edges[a], k_edges[b]);
            t->checked++;
        }
    }
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------------ bench */
#define BENCH_N (1u << 16)
static float g_in[BENCH_N];

static double bench_one(fn1 f, int reps)
{
    volatile uint32_t sink;
    uint32_t acc = 0;
    double t0;
    double best = 1e30;
    int r;
    for (r = 0; r < reps; r++) {
        unsigned i;
        t0 = now_s();
        for (i = 0; i < BENCH_N; i++) {
            acc ^= bicl_f32_as_u32(f(g_in[i]));
        }
        t0 = now_s() - t0;
        if (t0 < best) {
            best = t0;
        }
    }
    sink = acc;
    (void)sink;
    return best * 1e9 / BENCH_N;
}

/* The common ranges where sigmoid, silu and gelu_quick skip Ziv's exponent check (their
 * special cases return -1) must hold normal results only. |f| is smallest at a range's
 * ends (cl/bicl_math_f32.h), so the ends decide: the special case returns -1 at the
 * lowest x of the range and not below it, and f is normal there and at the smallest |x|. */
typedef struct {
    const char *name;
    int (*special)(float, float *);
    float (*fn)(float);
    float lo;    /* the range's lower end, of a x */
    float a;     /* the argument's factor (gelu_quick: 1.702f) */
    float small; /* the range's smallest |x| */
} normal_range;

static uint64_t check_normal_ranges(void)
{
    static const normal_range k[] = {
        {"sigmoidf", bicl_m_sigmoid_special, bicl_sigmoidf, BICL_M_SIGMOID_NORMAL_LO, 1.0f,
         0x1p-12f},
        {"silu", bicl_m_silu_special, bicl_silu, BICL_M_SILU_NORMAL_LO, 1.0f, 0x1p-12f},
        {"gelu_quick", bicl_m_gelu_quick_special, bicl_gelu_quick, BICL_M_GELU_QUICK_NORMAL_LO,
         BICL_M_GELU_QUICK_A, 0x1p-60f}};
    uint64_t bad = 0;
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; i++) {
        float x = k[i].lo / k[i].a;
        float r;
        float ends[3];
        int e;
        while (k[i].a * x < k[i].lo) {
            x = nextafterf(x, 0.0f);
        }
        while (k[i].a * nextafterf(x, -INFINITY) >= k[i].lo) {
            x = nextafterf(x, -INFINITY);
        }
        if (k[i].special(x, &r) != -1 || k[i].special(nextafterf(x, -INFINITY), &r) == -1) {
            fprintf(stderr, "%s: the normal range does not start at %a\n", k[i].name, (double)x);
            bad++;
        }
        ends[0] = x;
        ends[1] = k[i].small;
        ends[2] = -k[i].small;
        for (e = 0; e < 3; e++) {
            float y = k[i].fn(ends[e]);
            if (!(fabsf(y) >= 0x1p-126f) || k[i].special(ends[e], &r) != -1) {
                fprintf(stderr, "%s(%a) = %a: not a normal result of the normal range\n", k[i].name,
                        (double)ends[e], (double)y);
                bad++;
            }
        }
    }
    fprintf(stderr, "normal ranges of the rounding test: %" PRIu64 " problems\n", bad);
    return bad;
}

/* The fast forms must accept (ok) nearly every x of their common ranges, or the fix-up
 * kernels would compute most elements twice: of the f32 in [1, 2), (-8, -4] and [4, 8) (a
 * binade each, counted up from the bits of 1, -4 and 4; for gelu (erf), whose range ends at
 * 5.5, [2, 4) instead of [4, 8)) at most one in 2^16 may be declined (2 to 11 of these
 * 25,165,824 were, docs/performance.md). */
static float fast_top_binade(const char *name)
{
    return strcmp(name, "gelu_erf") == 0 ? 2.0f : 4.0f;
}

typedef float (*fast_fn)(float, int *);
static float softcap30_fast(float x, int *ok)
{
    return bicl_softcap_fast(x, 30.0f, ok);
}

static uint64_t check_fast_accepts(void)
{
    static const struct {
        const char *name;
        fast_fn fn;
    } k[] = {
#define FAST_ROW(N) {#N, bicl_##N##_fast},
        FAST_FNS(FAST_ROW)
#undef FAST_ROW
            {"softcap (cap 30): softcap", softcap30_fast}};
    uint64_t bad = 0;
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; i++) {
        const float lo[] = {1.0f, -4.0f, fast_top_binade(k[i].name)};
        uint64_t declined = 0;
        uint64_t total = 0;
        size_t r;
        for (r = 0; r < sizeof lo / sizeof lo[0]; r++) {
            uint32_t b0 = bicl_f32_as_u32(lo[r]);
            uint32_t b;
            for (b = b0; b < b0 + 0x800000u; b++) { /* one binade */
                int ok;
                (void)k[i].fn(bicl_u32_as_f32(b), &ok);
                declined += ok == 0;
                total++;
            }
        }
        if (declined * 65536u > total) {
            fprintf(stderr, "%s_fast declines %" PRIu64 " of %" PRIu64 " common inputs\n",
                    k[i].name, declined, total);
            bad++;
        }
    }
    fprintf(stderr, "fast forms' acceptance: %" PRIu64 " problems\n", bad);
    return bad;
}

/* softcap's common-range test by products against the quotient form, on the x next to
 * the range's bounds (where a product form could misjudge a rounding): for each cap c
 * and each of 2^16 random caps, the 129 floats of either sign around 9.1 c and 2^-13 c. */
static void check_softcap_bounds(tally *t, const uint32_t *caps, int ncaps)
{
    uint64_t s = 0x5ca9ull;
    int k;
    for (k = 0; k < ncaps + 65536; k++) {
        uint32_t cb = k < ncaps ? caps[k] : (uint32_t)splitmix(&s);
        float c = bicl_u32_as_f32(cb);
        float bound[2];
        int b;
        bound[0] = bicl_f32_abs(c) * BICL_M_SOFTCAP_HI;
        bound[1] = bicl_f32_abs(c) * BICL_M_SOFTCAP_LO;
        for (b = 0; b < 2; b++) {
            uint32_t xb = bicl_f32_as_u32(bound[b]) & 0x7fffffffu;
            int d;
            for (d = -64; d <= 64; d++) {
                uint32_t x = xb + (uint32_t)d;
                int sign;
                for (sign = 0; sign < 2; sign++) {
                    float xf = bicl_u32_as_f32(sign ? x | 0x80000000u : x);
                    int a = bicl_m_softcap_common(xf, c);
                    int o = bicl_m_softcap_common_q(xf, c);
                    t->checked++;
                    if (a != o) {
                        char buf[96];
                        snprintf(buf, sizeof buf, "0x%08" PRIx32 ", 0x%08" PRIx32,
                                 bicl_f32_as_u32(xf), cb);
                        report_mismatch(t, "softcap common=quotient", buf, (uint32_t)a,
                                        (uint32_t)o);
                    }
                }
            }
        }
    }
}

/* Where the fast forms' results leave the normal range, Ziv's normal-case test alone would
 * misjudge: every f32 of the binade whose results become denormal (bits counted up from
 * lo: (-128, -64] for sigmoid and silu, (-64, -32] for gelu_quick, (-16, -8] for
 * gelu_tanh and gelu (erf); tanh's results are normal) against the double path. */
static uint64_t check_fast_tails(void)
{
    static const struct {
        const char *name;
        fn1 fast_or;
        fn1 dbl;
        float lo;
    } k[] = {{"sigmoidf", fast_or_sigmoidf, bicl_sigmoidf_dbl, -64.0f},
             {"silu", fast_or_silu, bicl_silu_dbl, -64.0f},
             {"gelu_quick", fast_or_gelu_quick, bicl_gelu_quick_dbl, -32.0f},
             {"gelu_tanh", fast_or_gelu_tanh, bicl_gelu_tanh_dbl, -8.0f},
             {"gelu_erf", fast_or_gelu_erf, bicl_gelu_erf_dbl, -8.0f}};
    uint64_t bad = 0;
    size_t i;
    for (i = 0; i < sizeof k / sizeof k[0]; i++) {
        uint32_t b0 = bicl_f32_as_u32(k[i].lo);
        uint32_t b;
        for (b = b0; b < b0 + 0x800000u; b++) {
            float x = bicl_u32_as_f32(b);
            uint32_t got = bicl_f32_as_u32(k[i].fast_or(x));
            uint32_t want = bicl_f32_as_u32(k[i].dbl(x));
            if (got != want && bad++ < MAX_SHOW) {
                fprintf(stderr, "MISMATCH %s fast(%a) = 0x%08" PRIx32 ", dbl 0x%08" PRIx32 "\n",
                        k[i].name, (double)x, got, want);
            }
        }
    }
    fprintf(stderr, "fast forms where results leave the normal range: %" PRIu64 " mismatches\n",
            bad);
    return bad;
}

static void bench(void)
{
    uint64_t s = 42;
    unsigned i;
    int f;
    /* the common case of a model's activations: |x| log-uniform in [2^-20, 20]
     * with a random sign, and half of them uniform in [-6, 6] */
    for (i = 0; i < BENCH_N; i++) {
        uint64_t r = splitmix(&s);
        double u = (double)(r >> 11) * 0x1p-53;
        float x;
        if ((i & 1u) != 0u) {
            x = (float)(12.0 * u - 6.0);
        } else {
            x = (float)(0x1p-20 * (double)bicl_u32_as_f32(0x3f800000u) *
                        exp(u * log(20.0 * 0x1p20)));
            if ((r & 1u) != 0u) {
                x = -x;
            }
        }
        g_in[i] = x;
    }
    printf("%-14s %9s %9s %7s\n", "function", "old ns", "new ns", "ratio");
    for (f = 0; f < N_BENCH; f++) {
        double o;
        double n;
        int r;
        (void)bench_one(k_bench[f].old_fn, 3); /* warm up */
        o = 1e30;
        n = 1e30;
        for (r = 0; r < 8; r++) { /* interleaved, best of all: the CPU is shared */
            double a = bench_one(k_bench[f].old_fn, 5);
            double b = bench_one(k_bench[f].new_fn, 5);
            o = a < o ? a : o;
            n = b < n ? b : n;
        }
        printf("%-14s %9.2f %9.2f %7.3f\n", k_bench[f].name, o, n, n / o);
    }
}

/* ------------------------------------------------------------------- main */
int main(int argc, char **argv)
{
    int exhaustive = 0;
    int do_bench = 0;
    uint64_t sample = 0;
    int threads = 2;
    uint64_t total_mis = 0;
    uint64_t n1;
    uint64_t n2;
    uint64_t nr;
    int i;
    double t0 = now_s();
    tally t_softcap = {0, 0, 0};
    tally t_softcap_int = {0, 0, 0};
    tally t_softcap_fast = {0, 0, 0};
    tally t_softcap_common = {0, 0, 0};
    tally t_swiglu[3][2] = {{{0, 0, 0}}};
    /* caps: the models' 30 and 50, small and large, the denormal and
     * overflow edges, negative, zero, inf and NaN */
    static const uint32_t caps_all[] = {
        0x41f00000u, 0x42480000u, 0x3f800000u, 0x3f000000u, 0x40000000u, 0x41200000u, 0x3dcccccdu,
        0xc1f00000u, 0x00000001u, 0x00000003u, 0x00400000u, 0x007fffffu, 0x00800000u, 0x1d800000u,
        0x21800000u, 0x2e000000u, 0x5e800000u, 0x7e000000u, 0x7f7fffffu, 0x7f800000u, 0x00000000u,
        0x80000000u, 0x7fc00000u, 0xff800001u, 0x47c35000u, 0x38d1b717u};
    /* swiglu: fixed ups (every gate swept) and fixed gates (every up swept) */
    static const uint32_t ups[] = {0x3e99999au, 0xbf7fffffu, 0xbf800000u, 0x00000000u, 0x40e00000u,
                                   0xc1000000u, 0x3a83126fu, 0x00000001u, 0x40400000u, 0xbf000000u};
    static const uint32_t gates[] = {0x3fc00000u, 0xbfc00000u, 0x40e00000u, 0x41000000u,
                                     0xc1200000u, 0x3a83126fu, 0x00000001u, 0x80000000u,
                                     0xc3000000u, 0x3dcccccdu};

    for (i = 1; i < argc; i++) {
        if (strcmp(argv[i], "--exhaustive") == 0) {
            exhaustive = 1;
        } else if (strcmp(argv[i], "--bench") == 0) {
            do_bench = 1;
        } else if (strcmp(argv[i], "--sample") == 0 && i + 1 < argc) {
            sample = strtoull(argv[++i], NULL, 0);
        } else if (strcmp(argv[i], "--threads") == 0 && i + 1 < argc) {
            threads = atoi(argv[++i]);
        } else if (strcmp(argv[i], "--function") == 0 && i + 1 < argc) {
            g_only = argv[++i];
        } else if (strcmp(argv[i], "--fallback") == 0) {
            g_fallback = 1;
        } else {
            fprintf(stderr,
                    "usage: %s [--exhaustive | --sample N] [--bench] [--threads T]\n"
                    "          [--function NAME] [--fallback]\n",
                    argv[0]);
            return 2;
        }
    }
    if (threads < 1 || threads > 64) {
        threads = 2;
    }
    for (i = 0; i < N_FNS1; i++) {
        g_on[i] = name_selected(k_fns1[i].name) && (g_fallback || !k_fns1[i].fallback);
    }
    if (do_bench) {
        bench();
        if (!exhaustive && sample == 0) {
            return 0;
        }
    }
    if (!exhaustive && sample == 0) {
        sample = 1u << 24;
    }
    n1 = exhaustive ? (1ull << 32) : sample;
    n2 = exhaustive ? (1ull << 32) : sample / 16;
    nr = exhaustive ? (1ull << 28) : sample / 4;

    total_mis += check_normal_ranges();
    total_mis += check_fast_accepts();
    total_mis += check_fast_tails();
    /* 1. one-argument functions (none selected, as for --function geglu_tanh1: no sweep of
     * every input that checks nothing) */
    int any1 = 0;
    for (i = 0; i < N_FNS1; i++)
        any1 |= g_on[i];
    if (any1) {
        fprintf(stderr, "one-argument functions: %s %" PRIu64 " inputs\n",
                exhaustive ? "all" : "random", n1);
        sweep1(n1, !exhaustive, threads);
    }
    {
        /* the edge classes, also in sampled mode */
        int e;
        for (e = 0; e < N_EDGES; e++) {
            float x = bicl_u32_as_f32(k_edges[e]);
            int f;
            for (f = 0; f < N_FNS1; f++) {
                uint32_t a;
                uint32_t o;
                if (!g_on[f]) {
                    continue;
                }
                a = bicl_f32_as_u32(k_fns1[f].new_fn(x));
                o = bicl_f32_as_u32(k_fns1[f].old_fn(x));
                g_t1[f].checked++;
                if (a != o) {
                    char buf[32];
                    snprintf(buf, sizeof buf, "0x%08" PRIx32, k_edges[e]);
                    report_mismatch(&g_t1[f], k_fns1[f].name, buf, a, o);
                }
            }
        }
    }
    for (i = 0; i < N_FNS1; i++) {
        if (!g_on[i]) {
            continue;
        }
        printf("%-18s checked %12" PRIu64 "  mismatches %" PRIu64 "\n", k_fns1[i].name,
               g_t1[i].checked, g_t1[i].mismatches);
        total_mis += g_t1[i].mismatches;
    }
    fflush(stdout);

    {
        /* 2. softcap: every x for caps 30 and 50 (exhaustive mode), a sample of x
         * for every cap, and every edge pair; the float-pair path, the kernels' fast form
         * where it accepts (BICL_M_CR_FAST2), the common-range test (and the x next to its
         * bounds: check_softcap_bounds) and (--fallback) the integer path */
        static const family fams[] = {FAM_SOFTCAP, FAM_SOFTCAP_FAST, FAM_SOFTCAP_COMMON,
                                      FAM_SOFTCAP_INT};
        static const char *const names[] = {"softcap pair=dbl", "softcap fast=dbl",
                                            "softcap common=quotient", "softcap int=dbl"};
        tally *tallies[] = {&t_softcap, &t_softcap_fast, &t_softcap_common, &t_softcap_int};
        int f;
        for (f = 0; f < (g_fallback ? 4 : 3); f++) {
            tally *t = tallies[f];
            if (!name_selected(names[f]))
                continue;
            sweep_fixed(fams[f], names[f], t, caps_all, (int)(sizeof caps_all / sizeof caps_all[0]),
                        0.0f, 0.0f, exhaustive, 1ull << 24, n2, 0xca9ull, threads);
            check_edge_pairs(fams[f], names[f], t, 0.0f, 0.0f);
            if (fams[f] == FAM_SOFTCAP_COMMON) {
                check_softcap_bounds(t, caps_all, (int)(sizeof caps_all / sizeof caps_all[0]));
            }
            printf("%-18s checked %12" PRIu64 "  mismatches %" PRIu64 "\n", names[f], t->checked,
                   t->mismatches);
            total_mis += t->mismatches;
            fflush(stdout);
        }
    }
    for (int fn = GLU_OSS; fn <= GLU_GEGLU_TANH1; fn++) {
        for (int path = 0; path < (g_fallback ? 2 : 1); path++) {
            /* 3. the gated units rounded once, each path against the double one: every gate
             * against the fixed ups and every up against the fixed gates (exhaustive mode;
             * random ones otherwise), random pairs; swiglu_oss with gpt-oss's alpha 1.702
             * and limit 7, and other alpha/limit on random and edge pairs */
            static const char *const names[3][2] = {
                {"swiglu_oss pair=dbl", "swiglu_oss int=dbl"},
                {"swiglu1 pair=dbl", "swiglu1 int=dbl"},
                {"geglu_tanh1 pair=dbl", "geglu_tanh1 int=dbl"}};
            const char *name = names[fn][path];
            tally *t = &t_swiglu[fn][path];
            if (!name_selected(name))
                continue;
            g_glu_fn = fn;
            g_glu_path = path;
            sweep_fixed(FAM_SWIGLU_UP, name, t, ups, (int)(sizeof ups / sizeof ups[0]), 1.702f,
                        7.0f, exhaustive, 1ull << 26, n2, 0x5a1ull, threads);
            sweep_fixed(FAM_SWIGLU_GATE, name, t, gates, (int)(sizeof gates / sizeof gates[0]),
                        1.702f, 7.0f, exhaustive, 1ull << 26, n2, 0x6a1ull, threads);
            sweep2(FAM_SWIGLU_RANDOM, name, t, 0.0f, 1.702f, 7.0f, nr, 1, 0x7a1ull, threads);
            if (fn == GLU_OSS) {
                static const float alphas[] = {1.702f, 1.0f, 0.5f, 1e-30f, 1e30f, 0.0f, -1.0f};
                static const float limits[] = {7.0f, 1.0f, 1e-40f, 3e38f, 0.0f, -1.0f};
                sweep2(FAM_SWIGLU_RANDOM, name, t, 0.0f, 1.0f, 10.0f, nr / 4, 1, 0x8a1ull, threads);
                sweep2(FAM_SWIGLU_RANDOM, name, t, 0.0f, 0x1p-100f, 1e30f, nr / 4, 1, 0x9a1ull,
                       threads);
                sweep2(FAM_SWIGLU_RANDOM, name, t, 0.0f, 1e30f, 3e38f, nr / 4, 1, 0xaa1ull,
                       threads);
                for (size_t al = 0; al < sizeof alphas / sizeof alphas[0]; al++)
                    for (size_t li = 0; li < sizeof limits / sizeof limits[0]; li++)
                        check_edge_pairs(FAM_SWIGLU_RANDOM, name, t, alphas[al], limits[li]);
            } else {
                check_edge_pairs(FAM_SWIGLU_RANDOM, name, t, 0.0f, 0.0f);
            }
            printf("%-20s checked %12" PRIu64 "  mismatches %" PRIu64 "\n", name, t->checked,
                   t->mismatches);
            total_mis += t->mismatches;
            fflush(stdout);
        }
    }

    printf("%s: %" PRIu64 " mismatches in total, %.1f s\n", exhaustive ? "exhaustive" : "sampled",
           total_mis, now_s() - t0);
    return total_mis == 0 ? 0 : 1;
}
