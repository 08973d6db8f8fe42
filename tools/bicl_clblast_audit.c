/* bicl-clblast-audit - CLBlast audited as a peer: does element (or row) r of a result
 * keep its bits as the batch grows?
 *
 * Level 1 (AXPY, SCAL, HAD, COPY, fp32): CLBlast picks one of up to three kernels per
 * call from n, the offsets and its tuning parameters VW, WGS, WPT (generic Xaxpy,
 * XaxpyFaster when n is a multiple of VW*WPT, XaxpyFastest when it is also a multiple
 * of WGS). Every element of every (n, offset) call is compared with the same element
 * computed by the generic kernel, and probes of it computed alone (n = 1). The kernel of
 * a call follows from CLBlast's documented rule; the parameters are the tuning
 * database's entry for the device (assumed: CLBlast's C API cannot report them), then
 * set by CLBlastOverrideParameters (exact).
 *
 * GEMM (fp32, row-major, all four transposes): CLBlast runs one "direct" kernel when
 * m*n*k < XGEMM_MIN_INDIRECT_SIZE^3 and the "indirect" pad/transpose + Xgemm kernels
 * above it. The switch is measured (gemm_probe: the indirect path writes a caller-owned
 * temp buffer, the direct one never does), then M grows from 1 past it with N and K
 * fixed, and every row of every M is compared (memcmp) with the row computed alone.
 *
 * CLBlastOverrideParameters then pins the routing (always indirect, always direct,
 * direct with fixed tiles), the sweep is repeated under each pin (the probe confirms
 * the pin took), and GEMM time is measured pinned against default, in interleaved
 * rounds. Controls show the inputs are sensitive: a reordered or fused computation would
 * change their bits. An override lasts for the process: routing can be set back (the
 * measured switch is CLBlast's own), tiles cannot, so the default runs first and the
 * tile override last. docs/audit-clblast.md has the method and the results. */
#define _GNU_SOURCE /* dladdr: which libclblast was loaded */
#include "bicl/bicl.h"
#include "tool_common.h"

#include <clblast_c.h>

#include <dlfcn.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define COUNT(a)        (sizeof(a) / sizeof((a)[0]))
#define MAX_SIZES       160
#define MAX_CONFIGS     4
#define N_TRANS         4
#define MAX_TIMINGS     8
#define L1_N_PATHS      3
#define L1_MAX_ALONE    48
#define L1_N_OFFSETS    3
#define GEMM_HUGE_MIN   (1u << 20) /* cubed: 2^60 > any m*n*k, so always direct */
#define SWITCH_MAX_SIDE 4096       /* largest cube side gemm_find_switch tries */

/* ================================================================ options */

typedef struct options {
    const char *device;
    const char *json;
    bool quick, help;
} options;

static void usage(FILE *f)
{
    fputs("usage: bicl-clblast-audit [--device SPEC] [--json FILE] [--quick]\n"
          "\n"
          "Audits CLBlast's fp32 AXPY, SCAL, HAD, COPY and GEMM for batch invariance: does\n"
          "element/row r keep its bits as n (level 1) or M (GEMM) grows, across the sizes\n"
          "where CLBlast switches kernels? Then pins GEMM's kernel choice with\n"
          "CLBlastOverrideParameters, repeats the sweep and measures what pinning costs.\n"
          "Prints markdown tables.\n"
          "\n"
          "  --device SPEC  device index or name text (default: $BICL_DEVICE, else the\n"
          "                 first suitable device)\n"
          "  --json FILE    also write the results as JSON\n"
          "  --quick        small sizes, two transposes, fewer timing repeats (CI, PoCL)\n"
          "\n"
          "Exit status: 0 the audit ran (whatever the verdicts), 1 an error stopped it,\n"
          "2 usage error.\n",
          f);
}

static int parse_args(int argc, char **argv, options *o)
{
    memset(o, 0, sizeof *o);
    for (int i = 1; i < argc; ++i) {
        const char *a = argv[i];
        if (strcmp(a, "--quick") == 0) {
            o->quick = true;
        } else if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            o->help = true;
        } else if (strcmp(a, "--device") == 0 || strcmp(a, "--json") == 0) {
            if (i + 1 >= argc) {
                fprintf(stderr, "bicl-clblast-audit: %s needs a value\n", a);
                return -1;
            }
            *(strcmp(a, "--device") == 0 ? &o->device : &o->json) = argv[++i];
        } else {
            fprintf(stderr, "bicl-clblast-audit: unknown argument '%s'\n", a);
            return -1;
        }
    }
    return 0;
}

/* ========================================================== small helpers */

static uint64_t rng_next(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

/* Values of both signs over 2^-8 .. 2^8: products and sums of these round in most
 * elements, so a kernel that fuses a multiply-add where another does not shows up. */
static void fill_wide(float *v, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = rng_next(&s);
        float m = 1.0f + (float)(r >> 41) / 8388608.0f; /* [1, 2) */
        int e = (int)((r >> 8) % 17) - 8;
        float p = 1.0f;
        for (int j = 0; j < (e < 0 ? -e : e); ++j)
            p *= 2.0f;
        v[i] = (r & 1u ? -m : m) * (e < 0 ? 1.0f / p : p);
    }
}

/* Uniform in (-1, 1): dot products of these cancel, so the order and fusion of the
 * accumulation decide the last bits. */
static void fill_unit(float *v, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i)
        v[i] = (float)((double)(int64_t)(rng_next(&s) >> 11) / 4503599627370496.0 - 1.0);
}

static uint64_t fnv1a(const void *p, size_t bytes)
{
    const unsigned char *b = p;
    uint64_t h = 1469598103934665603ull;
    for (size_t i = 0; i < bytes; ++i) {
        h ^= b[i];
        h *= 1099511628211ull;
    }
    return h;
}

static uint32_t bits_of(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

/* Index of the first element whose bits differ, or n. */
static size_t first_diff(const float *a, const float *b, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (bits_of(a[i]) != bits_of(b[i]))
            return i;
    return n;
}

static const char *clblast_status_name(CLBlastStatusCode s)
{
    switch (s) {
    case CLBlastSuccess:
        return "CLBlastSuccess";
    case CLBlastInvalidOverrideKernel:
        return "CLBlastInvalidOverrideKernel";
    case CLBlastMissingOverrideParameter:
        return "CLBlastMissingOverrideParameter";
    case CLBlastInvalidLocalMemUsage:
        return "CLBlastInvalidLocalMemUsage";
    case CLBlastDatabaseError:
        return "CLBlastDatabaseError";
    case CLBlastUnknownError:
        return "CLBlastUnknownError";
    case CLBlastUnexpectedError:
        return "CLBlastUnexpectedError";
    default:
        return "CLBlast error (see clblast_c.h)";
    }
}

/* ================================================================ device */

/* What CLBlast's tuning database holds for this device, as far as the audit can tell
 * without a C call that reports it (CLBlast 1.5: database/kernels/xaxpy, gemm_routine;
 * the PoCL device name and the H200's architecture are not in it, so the vendor's
 * default entry applies). Only used to label paths and to place the GEMM sweep. */
typedef struct clblast_guess {
    const char *entry;
    unsigned vw, wgs, wpt; /* Xaxpy: also SCAL, COPY, HAD */
    unsigned min_indirect; /* GemmRoutine: XGEMM_MIN_INDIRECT_SIZE */
} clblast_guess;

typedef struct audit {
    bicl_context *bctx;
    cl_context ctx;
    cl_device_id dev;
    cl_command_queue queue;
    bool quick;
    char device_name[256], vendor[128], driver[128], platform[128];
    char clblast_version[32], clblast_path[PATH_MAX];
    clblast_guess guess;
} audit;

static clblast_guess guess_database(const char *vendor, cl_device_type type)
{
    bool intel = strstr(vendor, "Intel") != NULL; /* "GenuineIntel", "Intel(R) Corporation" */
    if (intel && (type & CL_DEVICE_TYPE_CPU))
        return (clblast_guess){"Intel CPU default", 8, 512, 1, 320};
    if (strstr(vendor, "NVIDIA") && (type & CL_DEVICE_TYPE_GPU))
        return (clblast_guess){"NVIDIA GPU default", 4, 64, 1, 1472};
    if (strstr(vendor, "Advanced Micro Devices") && (type & CL_DEVICE_TYPE_GPU))
        return (clblast_guess){"AMD GPU default", 2, 128, 1, 704};
    return (clblast_guess){"all-devices default", 4, 64, 1, 704};
}

/* The libclblast actually loaded (an engine's process may differ from the build's
 * headers): its path, and the version from its file name (libclblast.so.1.5.3). */
static void clblast_identify(audit *a)
{
    Dl_info info;
    snprintf(a->clblast_version, sizeof a->clblast_version, "?");
    snprintf(a->clblast_path, sizeof a->clblast_path, "?");
    if (!dladdr((void *)CLBlastSgemm, &info) || !info.dli_fname)
        return;
    if (!realpath(info.dli_fname, a->clblast_path))
        snprintf(a->clblast_path, sizeof a->clblast_path, "%s", info.dli_fname);
    const char *so = strstr(a->clblast_path, ".so.");
    if (so)
        snprintf(a->clblast_version, sizeof a->clblast_version, "%s", so + 4);
}

static void device_string(cl_device_id dev, cl_device_info what, char *out, size_t size)
{
    out[0] = 0;
    if (clGetDeviceInfo(dev, what, size, out, NULL) != CL_SUCCESS)
        snprintf(out, size, "?");
    out[size - 1] = 0;
}

static int audit_open(audit *a, const options *o)
{
    memset(a, 0, sizeof *a);
    a->quick = o->quick;
    bicl_status st = bicl_context_create_default(o->device, NULL, &a->bctx);
    if (st != BICL_SUCCESS) {
        fprintf(stderr, "bicl-clblast-audit: no device '%s': %s\n  %s\n",
                o->device ? o->device : "(default)", bicl_status_string(st), bicl_last_error(NULL));
        return -1;
    }
    a->ctx = bicl_context_cl_context(a->bctx);
    a->dev = bicl_context_device(a->bctx);
    cl_int err = CL_SUCCESS;
    a->queue = clCreateCommandQueue(a->ctx, a->dev, 0, &err);
    if (err != CL_SUCCESS) {
        fprintf(stderr, "bicl-clblast-audit: clCreateCommandQueue: %d\n", err);
        bicl_context_free(a->bctx);
        return -1;
    }
    device_string(a->dev, CL_DEVICE_NAME, a->device_name, sizeof a->device_name);
    device_string(a->dev, CL_DEVICE_VENDOR, a->vendor, sizeof a->vendor);
    device_string(a->dev, CL_DRIVER_VERSION, a->driver, sizeof a->driver);
    cl_platform_id plat = NULL;
    cl_device_type type = 0;
    clGetDeviceInfo(a->dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    clGetDeviceInfo(a->dev, CL_DEVICE_TYPE, sizeof type, &type, NULL);
    a->platform[0] = 0;
    if (plat)
        clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof a->platform, a->platform, NULL);
    a->platform[sizeof a->platform - 1] = 0;
    a->guess = guess_database(a->vendor, type);
    clblast_identify(a);
    return 0;
}

static void audit_close(audit *a)
{
    if (a->queue) {
        clFinish(a->queue);
        clReleaseCommandQueue(a->queue);
    }
    bicl_context_free(a->bctx);
}

static cl_mem new_buffer(const audit *a, size_t bytes, const void *init)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(a->ctx, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
    return err == CL_SUCCESS ? m : NULL;
}

static int read_floats(const audit *a, cl_mem m, size_t offset, size_t n, float *out)
{
    return clEnqueueReadBuffer(a->queue, m, CL_TRUE, offset * sizeof(float), n * sizeof(float), out,
                               0, NULL, NULL) == CL_SUCCESS
               ? 0
               : -1;
}

/* ============================================================ overrides */

/* One CLBlastOverrideParameters call: the kernel's complete parameter set (CLBlast
 * refuses a partial one with CLBlastMissingOverrideParameter). */
typedef struct override {
    const char *kernel;
    size_t n;
    const char *names[16];
    size_t values[16];
} override;

typedef struct override_log {
    char what[96];
    CLBlastStatusCode status;
} override_log;

/* A configuration of the audit: overrides applied on top of the previous ones. */
typedef struct config {
    const char *name;
    const char *detail;
    size_t n_overrides;
    override ov[2];
} config;

static const override pin_direct = {"GemmRoutine", 1, {"XGEMM_MIN_INDIRECT_SIZE"}, {GEMM_HUGE_MIN}};
static const override pin_indirect = {"GemmRoutine", 1, {"XGEMM_MIN_INDIRECT_SIZE"}, {0}};
/* CLBlast's own generic XgemmDirect defaults, spelled out so that every device runs
 * the same tiles (and so the same code) whatever its tuning database says. */
static const override direct_tiles = {
    "XgemmDirect",
    10,
    {"KWID", "MDIMAD", "MDIMCD", "NDIMBD", "NDIMCD", "PADA", "PADB", "VWMD", "VWND", "WGD"},
    {2, 8, 8, 8, 8, 1, 1, 1, 1, 32}};
static const override axpy_known = {"Xaxpy", 3, {"VW", "WGS", "WPT"}, {4, 64, 1}};

/* GEMM configurations, in the only order that works (an override cannot be undone). */
static const config gemm_configs[MAX_CONFIGS] = {
    {"default", "CLBlast's routing and tuning database", 0, {{0}}},
    {"pin-indirect",
     "GemmRoutine XGEMM_MIN_INDIRECT_SIZE=0: indirect Xgemm for every size",
     1,
     {pin_indirect}},
    {"pin-direct",
     "GemmRoutine XGEMM_MIN_INDIRECT_SIZE=2^20: XgemmDirect for every size",
     1,
     {pin_direct}},
    {"pin-direct-tiles",
     "pin-direct plus XgemmDirect WGD=32 MDIMCD=NDIMCD=MDIMAD=NDIMBD=8 KWID=2 VWMD=VWND=1 "
     "PADA=PADB=1",
     2,
     {pin_direct, direct_tiles}},
};

typedef struct overrides_seen {
    override_log log[8];
    size_t n;
} overrides_seen;

/* Applies a configuration's overrides and clears CLBlast's program cache: HAD is not in
 * CLBlast's list of routines an Xaxpy override invalidates, and a stale program would
 * run with the new launch parameters. Returns 0 when every override was accepted. */
static int apply_config(const audit *a, const config *c, overrides_seen *seen)
{
    int rc = 0;
    for (size_t i = 0; i < c->n_overrides; ++i) {
        const override *o = &c->ov[i];
        CLBlastStatusCode s = CLBlastOverrideParameters(a->dev, o->kernel, CLBlastPrecisionSingle,
                                                        o->n, (const char **)o->names, o->values);
        if (seen->n < COUNT(seen->log)) {
            override_log *l = &seen->log[seen->n++];
            snprintf(l->what, sizeof l->what, "%s: %s (%zu parameters)", c->name, o->kernel, o->n);
            l->status = s;
        }
        rc |= s != CLBlastSuccess;
    }
    CLBlastClearCache();
    return rc ? -1 : 0;
}

/* ================================================================ level 1 */

typedef enum l1_routine { L1_AXPY, L1_SCAL, L1_HAD, L1_COPY, L1_COUNT } l1_routine;

static const char *const l1_names[L1_COUNT] = {"AXPY", "SCAL", "HAD", "COPY"};
/* CLBlast's kernels per routine: generic, "faster" (offsets 0, n a multiple of VW*WPT),
 * "fastest" (also a multiple of WGS*VW*WPT). SCAL and COPY have no middle one. */
static const char *const l1_kernels[L1_COUNT][L1_N_PATHS] = {
    {"Xaxpy", "XaxpyFaster", "XaxpyFastest"},
    {"Xscal", NULL, "XscalFast"},
    {"Xhad", "XhadFaster", "XhadFastest"},
    {"Xcopy", NULL, "XcopyFast"},
};

typedef struct l1_params {
    unsigned vw, wgs, wpt;
    bool exact; /* set by an override, not assumed */
} l1_params;

static int l1_path(l1_routine r, const l1_params *p, size_t n, size_t off)
{
    if (off != 0)
        return 0;
    if (n % ((size_t)p->wgs * p->wpt * p->vw) == 0)
        return 2;
    if (l1_kernels[r][1] && n % ((size_t)p->vw * p->wpt) == 0)
        return 1;
    return 0;
}

typedef struct l1_result {
    const char *routine;
    char config[64];
    l1_params params;
    size_t cases, mismatching;
    size_t path_cases[L1_N_PATHS], path_bad[L1_N_PATHS];
    size_t alone_cases, alone_bad; /* n = 1 probes */
    bool have_first;
    size_t first_n, first_off, first_elem;
    int first_path;
    uint32_t got, want;
    char error[160];
} l1_result;

/* Device and host data of the level-1 audit: three inputs and the work buffer that
 * the routine updates, reset before every call. */
typedef struct l1_data {
    size_t total;
    float *hx, *hy, *hz, *ref, *got;
    cl_mem x, y, z, w;
} l1_data;

static void l1_data_free(l1_data *d)
{
    free(d->hx);
    free(d->hy);
    free(d->hz);
    free(d->ref);
    free(d->got);
    cl_mem m[] = {d->x, d->y, d->z, d->w};
    for (size_t i = 0; i < COUNT(m); ++i)
        if (m[i])
            clReleaseMemObject(m[i]);
}

static int l1_data_init(const audit *a, l1_data *d, size_t total)
{
    memset(d, 0, sizeof *d);
    d->total = total;
    size_t bytes = total * sizeof(float);
    d->hx = malloc(bytes);
    d->hy = malloc(bytes);
    d->hz = malloc(bytes);
    d->ref = malloc(bytes);
    d->got = malloc(bytes);
    if (!d->hx || !d->hy || !d->hz || !d->ref || !d->got)
        return -1;
    fill_wide(d->hx, total, 0x61786179ull);
    fill_wide(d->hy, total, 0x79797979ull);
    fill_wide(d->hz, total, 0x7a7a7a7aull);
    d->x = new_buffer(a, bytes, d->hx);
    d->y = new_buffer(a, bytes, d->hy);
    d->z = new_buffer(a, bytes, d->hz);
    d->w = new_buffer(a, bytes, NULL);
    return d->x && d->y && d->z && d->w ? 0 : -1;
}

static const float l1_alpha = 1.3f, l1_beta = 0.7f;

/* One call of routine r on n elements at offset off (every operand), the work buffer
 * first reset to the routine's initial in/out operand. */
static CLBlastStatusCode l1_call(const audit *a, const l1_data *d, l1_routine r, size_t n,
                                 size_t off)
{
    cl_mem init = r == L1_SCAL ? d->x : r == L1_HAD ? d->z : d->y;
    cl_command_queue q = a->queue;
    if (clEnqueueCopyBuffer(q, init, d->w, 0, 0, d->total * sizeof(float), 0, NULL, NULL) !=
        CL_SUCCESS)
        return CLBlastUnknownError;
    switch (r) {
    case L1_AXPY:
        return CLBlastSaxpy(n, l1_alpha, d->x, off, 1, d->w, off, 1, &q, NULL);
    case L1_SCAL:
        return CLBlastSscal(n, l1_alpha, d->w, off, 1, &q, NULL);
    case L1_HAD:
        return CLBlastShad(n, l1_alpha, d->x, off, 1, d->y, off, 1, l1_beta, d->w, off, 1, &q,
                           NULL);
    default:
        return CLBlastScopy(n, d->x, off, 1, d->w, off, 1, &q, NULL);
    }
}

/* The reference: every element from the generic kernel (offset 1 forces it; element 0
 * alone). The n = 1 probes of l1_check_alone hold it against single-element calls. */
static int l1_reference(const audit *a, l1_data *d, l1_routine r, l1_result *res)
{
    CLBlastStatusCode s = l1_call(a, d, r, 1, 0);
    if (s == CLBlastSuccess && read_floats(a, d->w, 0, 1, d->ref) != 0)
        s = CLBlastUnknownError;
    if (s == CLBlastSuccess)
        s = l1_call(a, d, r, d->total - 1, 1);
    if (s == CLBlastSuccess && read_floats(a, d->w, 1, d->total - 1, d->ref + 1) != 0)
        s = CLBlastUnknownError;
    if (s != CLBlastSuccess)
        snprintf(res->error, sizeof res->error, "reference call: %s (%d)", clblast_status_name(s),
                 (int)s);
    return s == CLBlastSuccess ? 0 : -1;
}

static void l1_note(l1_result *res, size_t n, size_t off, int path, size_t elem, float got,
                    float want)
{
    res->mismatching++;
    if (!res->have_first) {
        res->have_first = true;
        res->first_n = n;
        res->first_off = off;
        res->first_path = path;
        res->first_elem = elem;
        res->got = bits_of(got);
        res->want = bits_of(want);
    }
}

/* n = 1 at probe elements: the element computed alone against the reference. */
static int l1_check_alone(const audit *a, l1_data *d, l1_routine r, l1_result *res)
{
    size_t probes[L1_MAX_ALONE], np = 0;
    for (size_t i = 0; i < 8; ++i)
        probes[np++] = i;
    for (size_t step = d->total / 16, i = step; i < d->total && np < L1_MAX_ALONE - 8; i += step)
        probes[np++] = i;
    for (size_t i = 1; i <= 8; ++i)
        probes[np++] = d->total - i;
    for (size_t i = 0; i < np; ++i) {
        CLBlastStatusCode s = l1_call(a, d, r, 1, probes[i]);
        float v;
        if (s != CLBlastSuccess || read_floats(a, d->w, probes[i], 1, &v) != 0) {
            snprintf(res->error, sizeof res->error, "n=1 at %zu: %s", probes[i],
                     clblast_status_name(s));
            return -1;
        }
        res->alone_cases++;
        if (bits_of(v) != bits_of(d->ref[probes[i]])) {
            res->alone_bad++;
            l1_note(res, 1, probes[i], 0, probes[i], v, d->ref[probes[i]]);
        }
    }
    return 0;
}

/* The n values: small ones, then 2^j - 1, 2^j, 2^j + 1 (every VW, VW*WPT and
 * WGS*VW*WPT of the database is a power of two), up to max. */
static size_t l1_sizes(size_t max, size_t *out)
{
    size_t k = 0;
    for (size_t n = 1; n <= 9 && n <= max; ++n)
        out[k++] = n;
    for (size_t p = 16; p <= max + 1 && k + 3 <= MAX_SIZES; p *= 2)
        for (size_t n = p - 1; n <= p + 1; ++n)
            if (n <= max)
                out[k++] = n;
    return k;
}

static int l1_sweep(const audit *a, l1_data *d, l1_routine r, l1_result *res)
{
    static const size_t offsets[L1_N_OFFSETS] = {0, 1, 5};
    size_t sizes[MAX_SIZES];
    size_t ns = l1_sizes(d->total - offsets[L1_N_OFFSETS - 1], sizes);
    for (size_t i = 0; i < ns; ++i) {
        for (size_t j = 0; j < L1_N_OFFSETS; ++j) {
            size_t n = sizes[i], off = offsets[j];
            int path = l1_path(r, &res->params, n, off);
            CLBlastStatusCode s = l1_call(a, d, r, n, off);
            if (s != CLBlastSuccess || read_floats(a, d->w, off, n, d->got) != 0) {
                snprintf(res->error, sizeof res->error, "n=%zu offset=%zu: %s (%d)", n, off,
                         clblast_status_name(s), (int)s);
                return -1;
            }
            res->cases++;
            res->path_cases[path]++;
            size_t e = first_diff(d->got, d->ref + off, n);
            if (e < n) {
                res->path_bad[path]++;
                l1_note(res, n, off, path, off + e, d->got[e], d->ref[off + e]);
            }
        }
    }
    return 0;
}

static void l1_audit_routine(const audit *a, l1_data *d, l1_routine r, const l1_params *p,
                             const char *config_name, l1_result *res)
{
    memset(res, 0, sizeof *res);
    res->routine = l1_names[r];
    snprintf(res->config, sizeof res->config, "%s", config_name);
    res->params = *p;
    if (l1_reference(a, d, r, res) == 0 && l1_check_alone(a, d, r, res) == 0)
        l1_sweep(a, d, r, res);
}

/* ==================================================================== GEMM */

typedef struct trans_case {
    const char *name;
    CLBlastTranspose ta, tb;
} trans_case;

/* Names as op(A) op(B) in row-major storage: "NT" is a linear layer x W^T with the
 * weight stored [N, K]. */
static const trans_case trans_cases[N_TRANS] = {
    {"NN", CLBlastTransposeNo, CLBlastTransposeNo},
    {"NT", CLBlastTransposeNo, CLBlastTransposeYes},
    {"TN", CLBlastTransposeYes, CLBlastTransposeNo},
    {"TT", CLBlastTransposeYes, CLBlastTransposeYes},
};

/* Which path a call of this shape takes: 1 indirect, 0 direct, -1 error. The indirect
 * path copies A into the temp buffer when A's offset is not 0 (CLBlast's NoTempBuffer
 * rule) and the direct path never touches it, so a caller-owned temp buffer filled
 * with a marker tells the two apart exactly, whatever the tuning database says. */
static int gemm_probe(const audit *a, const trans_case *t, size_t m, size_t n, size_t k)
{
    bool at = t->ta == CLBlastTransposeYes, bt = t->tb == CLBlastTransposeYes;
    size_t lda = at ? m : k, ldb = bt ? k : n, need = 0;
    cl_command_queue q = a->queue;
    if (CLBlastSGemmTempBufferSize(CLBlastLayoutRowMajor, t->ta, t->tb, m, n, k, 1, lda, 0, ldb, 0,
                                   n, &q, &need) != CLBlastSuccess)
        return -1;
    /* Counted in elements or in bytes depending on the version: allocating for elements
     * covers both. */
    size_t tmp_bytes = (need + 64) * sizeof(float);
    const uint32_t marker = 0x7fbadbadu;
    const float one = 1.0f;
    cl_mem ma = new_buffer(a, (m * k + 1) * sizeof(float), NULL);
    cl_mem mb = new_buffer(a, k * n * sizeof(float), NULL);
    cl_mem mc = new_buffer(a, m * n * sizeof(float), NULL);
    cl_mem mt = new_buffer(a, tmp_bytes, NULL);
    uint32_t *host = malloc(tmp_bytes);
    int rc = -1;
    if (ma && mb && mc && mt && host &&
        clEnqueueFillBuffer(q, ma, &one, 4, 0, (m * k + 1) * 4, 0, NULL, NULL) == CL_SUCCESS &&
        clEnqueueFillBuffer(q, mb, &one, 4, 0, k * n * 4, 0, NULL, NULL) == CL_SUCCESS &&
        clEnqueueFillBuffer(q, mt, &marker, 4, 0, tmp_bytes, 0, NULL, NULL) == CL_SUCCESS &&
        CLBlastSgemmWithTempBuffer(CLBlastLayoutRowMajor, t->ta, t->tb, m, n, k, 1.0f, ma, 1, lda,
                                   mb, 0, ldb, 0.0f, mc, 0, n, &q, NULL, mt) == CLBlastSuccess &&
        clEnqueueReadBuffer(q, mt, CL_TRUE, 0, tmp_bytes, host, 0, NULL, NULL) == CL_SUCCESS) {
        rc = 0;
        for (size_t i = 0; i < tmp_bytes / 4 && rc == 0; ++i)
            rc = host[i] != marker;
    }
    cl_mem all[] = {ma, mb, mc, mt};
    for (size_t i = 0; i < COUNT(all); ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(host);
    return rc;
}

/* CLBlast runs the direct kernel when m*n*k < T^3 (T = XGEMM_MIN_INDIRECT_SIZE), so
 * on cubes the first side that goes indirect is T itself: doubling, then bisection.
 * Returns T, 0 when no cube up to SWITCH_MAX_SIDE went indirect, or -1 on error. */
static long gemm_find_switch(const audit *a)
{
    const trans_case *nn = &trans_cases[0];
    size_t lo = 1, hi = 16; /* lo: direct */
    int r;
    while ((r = gemm_probe(a, nn, hi, hi, hi)) == 0) {
        lo = hi;
        if (hi >= SWITCH_MAX_SIDE)
            return 0;
        hi *= 2;
    }
    if (r < 0)
        return -1;
    while (hi - lo > 1) { /* lo direct, hi indirect */
        size_t mid = lo + (hi - lo) / 2;
        r = gemm_probe(a, nn, mid, mid, mid);
        if (r < 0)
            return -1;
        *(r ? &hi : &lo) = mid;
    }
    return (long)hi;
}

typedef struct gemm_plan {
    unsigned long t; /* XGEMM_MIN_INDIRECT_SIZE the plan is built on */
    bool t_measured; /* t from gemm_find_switch, not the database guess */
    size_t n, k;     /* N = K */
    size_t m_max;    /* M runs 1..m_max */
    size_t m_switch; /* first indirect M for this N and K (0: beyond m_max) */
    size_t m[MAX_SIZES], n_m;
    size_t n_trans;
} gemm_plan;

static int cmp_size(const void *a, const void *b)
{
    size_t x = *(const size_t *)a, y = *(const size_t *)b;
    return (x > y) - (x < y);
}

static void sort_unique(size_t *v, size_t *n)
{
    qsort(v, *n, sizeof *v, cmp_size);
    size_t u = 0;
    for (size_t i = 0; i < *n; ++i)
        if (u == 0 || v[i] != v[u - 1])
            v[u++] = v[i];
    *n = u;
}

/* N = K = S, the largest power of two (<= 4096) that puts the switch at M >= 64, so
 * that M crosses it; M runs to twice the switch (capped). */
static void gemm_plan_make(const audit *a, unsigned long t, bool measured, gemm_plan *p)
{
    memset(p, 0, sizeof *p);
    p->t = t;
    p->t_measured = measured;
    unsigned long long t3 = (unsigned long long)t * t * t;
    size_t s = 4096;
    while (s > 64 && t3 / ((unsigned long long)s * s) < 64)
        s /= 2;
    p->n = p->k = s;
    size_t cap = a->quick ? 512 : 1024;
    unsigned long long ss = (unsigned long long)s * s;
    unsigned long long sw = t ? (t3 + ss - 1) / ss : 0;
    p->m_switch = sw && sw <= cap ? (size_t)sw : 0;
    p->m_max = p->m_switch ? 2 * p->m_switch : cap;
    p->m_max = p->m_max < 64 ? 64 : p->m_max > cap ? cap : p->m_max;
    p->n_trans = a->quick ? 2 : N_TRANS;
    static const size_t full[] = {1,   2,   3,   4,   5,   7,   8,   9,    15,   16,  17,
                                  31,  32,  33,  63,  64,  65,  127, 128,  129,  255, 256,
                                  257, 511, 512, 513, 767, 768, 769, 1000, 1023, 1024};
    static const size_t quick[] = {1, 2, 3, 8, 9, 16, 17, 33, 64, 65, 127, 129, 256, 257, 511};
    const size_t *list = a->quick ? quick : full;
    size_t nl = a->quick ? COUNT(quick) : COUNT(full);
    for (size_t i = 0; i < nl; ++i)
        if (list[i] <= p->m_max)
            p->m[p->n_m++] = list[i];
    p->m[p->n_m++] = p->m_max;
    if (p->m_switch) {
        p->m[p->n_m++] = p->m_switch - 1 ? p->m_switch - 1 : 1;
        p->m[p->n_m++] = p->m_switch;
        if (p->m_switch < p->m_max)
            p->m[p->n_m++] = p->m_switch + 1;
    }
    sort_unique(p->m, &p->n_m);
}

typedef struct gemm_result {
    size_t cases, mismatching, bad_rows;
    bool have_first;
    size_t first_m, first_row, first_col;
    uint32_t got, want;
    size_t rows_bad_at[MAX_SIZES]; /* per M of the plan */
    uint64_t hash[MAX_SIZES];      /* of the whole C of each M */
    signed char path[MAX_SIZES];   /* gemm_probe of each M: 1 indirect, 0 direct, -1 ? */
    char error[160];
} gemm_result;

typedef struct gemm_data {
    float *ha, *hb, *ref, *got;
    cl_mem a, b, c;
} gemm_data;

static void gemm_data_free(gemm_data *g)
{
    free(g->ha);
    free(g->hb);
    free(g->ref);
    free(g->got);
    cl_mem m[] = {g->a, g->b, g->c};
    for (size_t i = 0; i < COUNT(m); ++i)
        if (m[i])
            clReleaseMemObject(m[i]);
}

static int gemm_data_init(const audit *a, const gemm_plan *p, gemm_data *g)
{
    memset(g, 0, sizeof *g);
    size_t na = p->m_max * p->k, nb = p->k * p->n, nc = p->m_max * p->n;
    g->ha = malloc(na * sizeof(float));
    g->hb = malloc(nb * sizeof(float));
    g->ref = malloc(nc * sizeof(float));
    g->got = malloc(nc * sizeof(float));
    if (!g->ha || !g->hb || !g->ref || !g->got)
        return -1;
    fill_unit(g->ha, na, 0x41414141ull);
    fill_unit(g->hb, nb, 0x42424242ull);
    g->a = new_buffer(a, na * sizeof(float), g->ha);
    g->b = new_buffer(a, nb * sizeof(float), g->hb);
    g->c = new_buffer(a, nc * sizeof(float), NULL);
    return g->a && g->b && g->c ? 0 : -1;
}

/* Rows row0 .. row0+M-1 of C = op(A) op(B), written from row c_row0 of C. A is stored
 * for the largest M, so a transposed A keeps its leading dimension m_max whatever M. */
static CLBlastStatusCode gemm_call(const audit *a, const gemm_plan *p, const gemm_data *g,
                                   const trans_case *t, size_t m, size_t row0, size_t c_row0)
{
    bool at = t->ta == CLBlastTransposeYes, bt = t->tb == CLBlastTransposeYes;
    size_t a_off = at ? row0 : row0 * p->k, lda = at ? p->m_max : p->k;
    size_t ldb = bt ? p->k : p->n;
    cl_command_queue q = a->queue;
    return CLBlastSgemm(CLBlastLayoutRowMajor, t->ta, t->tb, m, p->n, p->k, 1.0f, g->a, a_off, lda,
                        g->b, 0, ldb, 0.0f, g->c, c_row0 * p->n, p->n, &q, NULL);
}

static int gemm_clear_c(const audit *a, const gemm_plan *p, const gemm_data *g)
{
    const float zero = 0.0f;
    return clEnqueueFillBuffer(a->queue, g->c, &zero, sizeof zero, 0,
                               p->m_max * p->n * sizeof(float), 0, NULL, NULL) == CL_SUCCESS
               ? 0
               : -1;
}

/* Every row computed alone (M = 1), into g->ref. */
static int gemm_reference(const audit *a, const gemm_plan *p, gemm_data *g, const trans_case *t,
                          gemm_result *res)
{
    if (gemm_clear_c(a, p, g) != 0)
        return -1;
    for (size_t r = 0; r < p->m_max; ++r) {
        CLBlastStatusCode s = gemm_call(a, p, g, t, 1, r, r);
        if (s != CLBlastSuccess) {
            snprintf(res->error, sizeof res->error, "M=1 row %zu: %s (%d)", r,
                     clblast_status_name(s), (int)s);
            return -1;
        }
    }
    return read_floats(a, g->c, 0, p->m_max * p->n, g->ref);
}

static void gemm_compare(const gemm_plan *p, const gemm_data *g, size_t mi, gemm_result *res)
{
    size_t m = p->m[mi];
    for (size_t r = 0; r < m; ++r) {
        size_t e = first_diff(g->got + r * p->n, g->ref + r * p->n, p->n);
        if (e == p->n)
            continue;
        res->rows_bad_at[mi]++;
        res->bad_rows++;
        if (!res->have_first) {
            res->have_first = true;
            res->first_m = m;
            res->first_row = r;
            res->first_col = e;
            res->got = bits_of(g->got[r * p->n + e]);
            res->want = bits_of(g->ref[r * p->n + e]);
        }
    }
    res->cases++;
    res->mismatching += res->rows_bad_at[mi] > 0;
}

static int gemm_sweep(const audit *a, const gemm_plan *p, gemm_data *g, const trans_case *t,
                      gemm_result *res)
{
    if (gemm_reference(a, p, g, t, res) != 0)
        return -1;
    for (size_t mi = 0; mi < p->n_m; ++mi) {
        size_t m = p->m[mi];
        CLBlastStatusCode s =
            gemm_clear_c(a, p, g) == 0 ? gemm_call(a, p, g, t, m, 0, 0) : CLBlastUnknownError;
        if (s != CLBlastSuccess || read_floats(a, g->c, 0, m * p->n, g->got) != 0) {
            snprintf(res->error, sizeof res->error, "M=%zu: %s (%d)", m, clblast_status_name(s),
                     (int)s);
            return -1;
        }
        res->hash[mi] = fnv1a(g->got, m * p->n * sizeof(float));
        res->path[mi] = (signed char)gemm_probe(a, t, m, p->n, p->k);
        gemm_compare(p, g, mi, res);
    }
    return 0;
}

/* ================================================================ timing */

/* Index of pin-indirect timed a second time, after the tile override (see run_timing). */
#define T_INDIRECT_AGAIN MAX_CONFIGS
#define N_TIMED          (MAX_CONFIGS + 1)

typedef struct timing {
    size_t m, n, k;
    int default_path;       /* gemm_probe under the default routing */
    double ms[N_TIMED];     /* median of the calls, per config; 0: failed */
    double min_ms[N_TIMED]; /* fastest call: robust to other work on a shared host */
    double raw_tiles[2];    /* pin-direct-tiles median, fastest before normalising */
    double samples[N_TIMED][64];
    size_t n_samples[N_TIMED];
} timing;

typedef struct timing_plan {
    size_t n_shapes, rounds, per_round;
    timing t[MAX_TIMINGS];
} timing_plan;

/* M from decode (1) to prefill sizes, around the switch, N = K of the sweep. */
static void timing_plan_make(const audit *a, const gemm_plan *p, timing_plan *tp)
{
    size_t ms[MAX_TIMINGS], n = 0;
    ms[n++] = 1;
    ms[n++] = 16;
    if (p->m_switch) {
        ms[n++] = p->m_switch > 1 ? p->m_switch - 1 : 1;
        ms[n++] = p->m_switch;
    }
    ms[n++] = a->quick ? 128 : 256;
    if (!a->quick)
        ms[n++] = 1024;
    sort_unique(ms, &n);
    memset(tp, 0, sizeof *tp);
    tp->rounds = a->quick ? 2 : 3;
    tp->per_round = a->quick ? 3 : 7;
    for (size_t i = 0; i < n; ++i) {
        tp->t[i].m = ms[i];
        tp->t[i].n = p->n;
        tp->t[i].k = p->k;
        tp->t[i].default_path = -1;
    }
    tp->n_shapes = n;
}

/* One warm-up call (it absorbs a rebuild after an override), then per_round timed calls
 * of C = A B^T (the linear layer) appended to the config's samples. Host clock around
 * the call and clFinish: the indirect path enqueues several kernels and returns only the
 * last one's event. */
static int time_calls(const audit *a, const gemm_plan *p, const gemm_data *g, timing *t,
                      size_t slot, size_t per_round)
{
    for (size_t r = 0; r <= per_round; ++r) {
        clFinish(a->queue);
        double t0 = tool_now_s();
        if (gemm_call(a, p, g, &trans_cases[1], t->m, 0, 0) != CLBlastSuccess)
            return -1;
        clFinish(a->queue);
        if (r > 0 && t->n_samples[slot] < COUNT(t->samples[slot]))
            t->samples[slot][t->n_samples[slot]++] = (tool_now_s() - t0) * 1e3;
    }
    return 0;
}

/* Only the routing changes here, so it can be set back: XGEMM_MIN_INDIRECT_SIZE = the
 * measured switch is CLBlast's own routing. */
static int set_routing(const audit *a, size_t min_indirect)
{
    const char *names[1] = {"XGEMM_MIN_INDIRECT_SIZE"};
    size_t values[1] = {min_indirect};
    CLBlastStatusCode s =
        CLBlastOverrideParameters(a->dev, "GemmRoutine", CLBlastPrecisionSingle, 1, names, values);
    CLBlastClearCache();
    return s == CLBlastSuccess ? 0 : -1;
}

/* Rounds of every config in turn, so that a change of load on the host hits all of them
 * alike. slots[i] gets the samples of routing[i]. */
static int time_rounds(const audit *a, timing_plan *tp, const gemm_plan *p, const gemm_data *g,
                       const size_t *routing, const size_t *slots, size_t n)
{
    for (size_t round = 0; round < tp->rounds; ++round)
        for (size_t c = 0; c < n; ++c) {
            if (set_routing(a, routing[c]) != 0)
                return -1;
            for (size_t i = 0; i < tp->n_shapes; ++i)
                if (time_calls(a, p, g, &tp->t[i], slots[c], tp->per_round) != 0)
                    return -1;
        }
    return 0;
}

static void timing_summarise(timing_plan *tp)
{
    for (size_t i = 0; i < tp->n_shapes; ++i) {
        timing *t = &tp->t[i];
        for (size_t c = 0; c < N_TIMED; ++c) {
            if (!t->n_samples[c])
                continue;
            t->ms[c] = tool_median(t->samples[c], t->n_samples[c]); /* sorts */
            t->min_ms[c] = t->samples[c][0];
        }
        /* pin-direct-tiles ran after the tile override, beside a second pin-indirect:
         * scale it by pin-indirect's drift between the two blocks. */
        size_t d = MAX_CONFIGS - 1;
        t->raw_tiles[0] = t->ms[d];
        t->raw_tiles[1] = t->min_ms[d];
        if (t->ms[T_INDIRECT_AGAIN] > 0 && t->min_ms[T_INDIRECT_AGAIN] > 0) {
            t->ms[d] *= t->ms[1] / t->ms[T_INDIRECT_AGAIN];
            t->min_ms[d] *= t->min_ms[1] / t->min_ms[T_INDIRECT_AGAIN];
        }
    }
}

/* ================================================================ report */

typedef struct report {
    l1_result l1[2 * L1_COUNT];
    size_t n_l1;
    long t_found; /* gemm_find_switch */
    gemm_plan plan;
    gemm_result gemm[MAX_CONFIGS][N_TRANS];
    bool config_ok[MAX_CONFIGS];
    timing_plan timing;
    bool timing_ok;
    overrides_seen ov;
    size_t ctl_fma_changed, ctl_fma_total, ctl_rows_changed, ctl_rows_total;
    char date[32];
} report;

static const char *yes_no(bool b)
{
    return b ? "yes" : "**no**";
}

static const char *path_name(int path)
{
    return path == 1 ? "indirect" : path == 0 ? "direct" : "?";
}

static l1_routine l1_index(const char *name)
{
    for (int i = 0; i < L1_COUNT; ++i)
        if (strcmp(l1_names[i], name) == 0)
            return (l1_routine)i;
    return L1_AXPY;
}

static void l1_paths_text(const l1_result *r, char *out, size_t size)
{
    l1_routine w = l1_index(r->routine);
    size_t len = 0;
    out[0] = 0;
    for (int p = 0; p < L1_N_PATHS && len < size; ++p)
        if (r->path_cases[p] && l1_kernels[w][p])
            len += (size_t)snprintf(out + len, size - len, "%s%s %zu/%zu", len ? ", " : "",
                                    l1_kernels[w][p], r->path_bad[p], r->path_cases[p]);
}

static bool l1_invariant(const l1_result *r)
{
    return !r->error[0] && r->mismatching == 0;
}

static void print_l1(FILE *f, const report *rep)
{
    fputs("\n## Level 1: element r as n grows (fp32)\n\n"
          "Every (n, offset) call against the generic kernel's bits for the same element; "
          "\"alone\": n = 1 at probe elements. Kernel per call from CLBlast's documented "
          "rule and the parameters shown (assumed: the tuning database entry; pinned: set by "
          "CLBlastOverrideParameters, so exact). Paths: calls with a mismatch / calls.\n\n"
          "| routine | config | VW WGS WPT | invariant | first change (n, offset, [element]: "
          "got vs want) | alone | paths |\n|---|---|---|---|---|---|---|\n",
          f);
    for (size_t i = 0; i < rep->n_l1; ++i) {
        const l1_result *r = &rep->l1[i];
        char paths[256], first[200]; /* room for "error: " + error */
        l1_paths_text(r, paths, sizeof paths);
        if (r->error[0])
            snprintf(first, sizeof first, "error: %s", r->error);
        else if (r->have_first)
            snprintf(first, sizeof first, "n=%zu off=%zu [%zu] (%s): 0x%08x vs 0x%08x", r->first_n,
                     r->first_off, r->first_elem, l1_kernels[l1_index(r->routine)][r->first_path],
                     r->got, r->want);
        else
            snprintf(first, sizeof first, "none");
        fprintf(f, "| %s | %s | %u %u %u (%s) | %s | %s | %zu/%zu | %s |\n", r->routine, r->config,
                r->params.vw, r->params.wgs, r->params.wpt, r->params.exact ? "pinned" : "assumed",
                yes_no(l1_invariant(r)), first, r->alone_bad, r->alone_cases, paths);
    }
}

static void paths_seen(const gemm_plan *p, const gemm_result *r, char *out, size_t size)
{
    size_t n[3] = {0, 0, 0};
    for (size_t mi = 0; mi < p->n_m; ++mi)
        n[r->path[mi] == 1 ? 1 : r->path[mi] == 0 ? 0 : 2]++;
    snprintf(out, size, "direct %zu, indirect %zu%s", n[0], n[1], n[2] ? ", ? some" : "");
}

static bool gemm_invariant(const report *rep, size_t c, size_t t)
{
    const gemm_result *r = &rep->gemm[c][t];
    return rep->config_ok[c] && !r->error[0] && r->mismatching == 0;
}

static void print_gemm_verdicts(FILE *f, const report *rep, const audit *a)
{
    const gemm_plan *p = &rep->plan;
    fprintf(f, "\n## GEMM: row r as M grows (fp32, row-major, N = K = %zu, M = 1..%zu)\n\n", p->n,
            p->m_max);
    if (rep->t_found > 0)
        fprintf(f,
                "Switch measured: the first cube m = n = k that ran the indirect path is "
                "%ld, i.e. XGEMM_MIN_INDIRECT_SIZE = %ld (database guess: %u). ",
                rep->t_found, rep->t_found, a->guess.min_indirect);
    else
        fprintf(f, "Switch not found on cubes up to %d (database guess used: %u). ",
                SWITCH_MAX_SIDE, a->guess.min_indirect);
    if (p->m_switch)
        fprintf(f, "For this N and K: direct below M = %zu, indirect from it.\n\n", p->m_switch);
    else
        fputs("For this N and K the switch lies beyond the sweep.\n\n", f);
    fputs("Every row of C for each M against the same row computed alone (M = 1), memcmp. "
          "Paths: per M, found by gemm_probe (the indirect path writes a caller-owned temp "
          "buffer, the direct one does not).\n\n"
          "| config | op(A) op(B) | invariant | first change (M, row, col: got vs want) | "
          "M with drift | rows with drift | paths seen |\n|---|---|---|---|---|---|---|\n",
          f);
    for (size_t c = 0; c < MAX_CONFIGS; ++c) {
        for (size_t t = 0; t < p->n_trans; ++t) {
            const gemm_result *r = &rep->gemm[c][t];
            char first[200], seen[64] = "";
            if (!rep->config_ok[c])
                snprintf(first, sizeof first, "not run: override refused");
            else if (r->error[0])
                snprintf(first, sizeof first, "error: %s", r->error);
            else if (r->have_first)
                snprintf(first, sizeof first, "M=%zu row %zu col %zu: 0x%08x vs 0x%08x", r->first_m,
                         r->first_row, r->first_col, r->got, r->want);
            else
                snprintf(first, sizeof first, "none");
            if (rep->config_ok[c])
                paths_seen(p, r, seen, sizeof seen);
            fprintf(f, "| %s | %s | %s | %s | %zu/%zu | %zu | %s |\n", gemm_configs[c].name,
                    trans_cases[t].name,
                    rep->config_ok[c] ? yes_no(gemm_invariant(rep, c, t)) : "n/a", first,
                    r->mismatching, r->cases, r->bad_rows, seen);
        }
    }
}

/* Whether the default's whole C equals the always-direct run's (D), the
 * always-indirect run's (I), both (D=I) or neither. */
static const char *bits_match(const report *rep, size_t t, size_t mi)
{
    if (!rep->config_ok[1] || !rep->config_ok[2])
        return "?";
    uint64_t h = rep->gemm[0][t].hash[mi];
    bool d = h == rep->gemm[2][t].hash[mi], i = h == rep->gemm[1][t].hash[mi];
    return d && i ? "D=I" : d ? "D" : i ? "I" : "neither";
}

static void print_gemm_paths(FILE *f, const report *rep)
{
    const gemm_plan *p = &rep->plan;
    fputs("\n### GEMM default config, per M\n\n"
          "Cells: rows differing from M = 1 / M; the path the probe saw; whose bits the "
          "default's C equals (D: pin-direct, I: pin-indirect, D=I: both, which then agree "
          "with each other).\n\n| M |",
          f);
    for (size_t t = 0; t < p->n_trans; ++t)
        fprintf(f, " %s |", trans_cases[t].name);
    fputs("\n|---|", f);
    for (size_t t = 0; t < p->n_trans; ++t)
        fputs("---|", f);
    fputc('\n', f);
    for (size_t mi = 0; mi < p->n_m; ++mi) {
        fprintf(f, "| %zu |", p->m[mi]);
        for (size_t t = 0; t < p->n_trans; ++t)
            fprintf(f, " %zu/%zu %s %s |", rep->gemm[0][t].rows_bad_at[mi], p->m[mi],
                    path_name(rep->gemm[0][t].path[mi]), bits_match(rep, t, mi));
        fputc('\n', f);
    }
}

static void print_overrides(FILE *f, const report *rep)
{
    fputs("\n## CLBlastOverrideParameters\n\n| configuration: kernel | status |\n|---|---|\n", f);
    for (size_t i = 0; i < rep->ov.n; ++i)
        fprintf(f, "| %s | %s (%d) |\n", rep->ov.log[i].what,
                clblast_status_name(rep->ov.log[i].status), (int)rep->ov.log[i].status);
    fputc('\n', f);
    for (size_t c = 0; c < MAX_CONFIGS; ++c)
        fprintf(f, "- `%s`: %s\n", gemm_configs[c].name, gemm_configs[c].detail);
}

static void print_timing(FILE *f, const report *rep)
{
    const timing_plan *tp = &rep->timing;
    fprintf(f,
            "\n## GEMM time, pinned against default\n\nC = A B^T (NT), %zu rounds of %zu "
            "calls per config after a warm-up, the configs in turn within each round (the "
            "routing override is set back and forth; default = the measured switch), host "
            "clock around the call and clFinish (the indirect path enqueues several kernels). "
            "pin-direct-tiles comes after its irreversible tile override, timed in rounds "
            "with pin-indirect and scaled by pin-indirect's drift between the two blocks. "
            "Cells: median / fastest call in ms, then the ratios pinned / default of both "
            "(the fastest call is the robust one on a shared host).\n\n"
            "| M x N x K | default path | default ms |",
            tp->rounds, tp->per_round);
    for (size_t c = 1; c < MAX_CONFIGS; ++c)
        fprintf(f, " %s ms (ratios) |", gemm_configs[c].name);
    fputs("\n|---|---|---|", f);
    for (size_t c = 1; c < MAX_CONFIGS; ++c)
        fputs("---|", f);
    fputc('\n', f);
    for (size_t i = 0; i < tp->n_shapes; ++i) {
        const timing *t = &tp->t[i];
        fprintf(f, "| %zu x %zu x %zu | %s | %.3f / %.3f |", t->m, t->n, t->k,
                path_name(t->default_path), t->ms[0], t->min_ms[0]);
        for (size_t c = 1; c < MAX_CONFIGS; ++c) {
            if (t->ms[c] > 0 && t->ms[0] > 0 && t->min_ms[0] > 0)
                fprintf(f, " %.3f / %.3f (%.2f, %.2f) |", t->ms[c], t->min_ms[c],
                        t->ms[c] / t->ms[0], t->min_ms[c] / t->min_ms[0]);
            else
                fputs(" n/a |", f);
        }
        fputc('\n', f);
    }
}

static void print_controls(FILE *f, const report *rep)
{
    fprintf(f,
            "\n## Controls: would the sweep see a change?\n\n"
            "- AXPY inputs: a fused multiply-add instead of a rounded product and sum changes "
            "%zu of %zu elements (host).\n"
            "- GEMM inputs: the same product with K summed in reverse order (A's columns and "
            "B's rows reversed, default config) changes %zu of %zu rows.\n",
            rep->ctl_fma_changed, rep->ctl_fma_total, rep->ctl_rows_changed, rep->ctl_rows_total);
}

/* Last, so that a log's tail (the NVIDIA rig keeps 40 lines) holds the verdicts. */
static void print_summary(FILE *f, const report *rep, const audit *a)
{
    fprintf(f, "\n## Summary (CLBlast %s on %s)\n\n", a->clblast_version, a->device_name);
    for (size_t i = 0; i < rep->n_l1; ++i) {
        const l1_result *r = &rep->l1[i];
        fprintf(f, "- %s, %s: invariant %s", r->routine, r->config, l1_invariant(r) ? "yes" : "NO");
        if (r->have_first)
            fprintf(f, " (first change n=%zu offset %zu)", r->first_n, r->first_off);
        fputc('\n', f);
    }
    fprintf(f, "- GEMM switch: XGEMM_MIN_INDIRECT_SIZE %s %ld; N = K = %zu, M = 1..%zu\n",
            rep->t_found > 0 ? "measured" : "not found, assumed",
            rep->t_found > 0 ? rep->t_found : (long)a->guess.min_indirect, rep->plan.n,
            rep->plan.m_max);
    for (size_t c = 0; c < MAX_CONFIGS; ++c) {
        fprintf(f, "- GEMM %s:", gemm_configs[c].name);
        for (size_t t = 0; t < rep->plan.n_trans; ++t) {
            const gemm_result *r = &rep->gemm[c][t];
            fprintf(f, " %s %s", trans_cases[t].name,
                    !rep->config_ok[c]          ? "n/a"
                    : gemm_invariant(rep, c, t) ? "invariant"
                                                : "DRIFT");
            if (rep->config_ok[c] && r->have_first)
                fprintf(f, " (first M=%zu)", r->first_m);
        }
        fputc('\n', f);
    }
    for (size_t i = 0; i < rep->timing.n_shapes; ++i) {
        const timing *t = &rep->timing.t[i];
        fprintf(f, "- time %zux%zux%zu (default %s), fastest-call ratio pinned/default:", t->m,
                t->n, t->k, path_name(t->default_path));
        for (size_t c = 1; c < MAX_CONFIGS; ++c)
            fprintf(f, " %s %.2f", gemm_configs[c].name,
                    t->min_ms[0] > 0 ? t->min_ms[c] / t->min_ms[0] : 0.0);
        fputc('\n', f);
    }
}

static void print_report(FILE *f, const report *rep, const audit *a)
{
    fprintf(f,
            "# CLBlast %s: batch-invariance audit\n\n"
            "- library: %s\n- date: %s\n- device: %s (%s), platform %s, driver %s\n- mode: %s\n"
            "- CLBlast database entry assumed for level-1 paths: %s (Xaxpy VW=%u WGS=%u "
            "WPT=%u, XGEMM_MIN_INDIRECT_SIZE=%u)\n",
            a->clblast_version, a->clblast_path, rep->date, a->device_name, a->vendor, a->platform,
            a->driver, a->quick ? "--quick" : "full", a->guess.entry, a->guess.vw, a->guess.wgs,
            a->guess.wpt, a->guess.min_indirect);
    print_l1(f, rep);
    print_gemm_verdicts(f, rep, a);
    print_gemm_paths(f, rep);
    print_overrides(f, rep);
    print_timing(f, rep);
    print_controls(f, rep);
    print_summary(f, rep, a);
}

/* ------------------------------------------------------------------ JSON */

static void json_str(FILE *f, const char *s)
{
    fputc('"', f);
    for (; *s; ++s) {
        if (*s == '"' || *s == '\\')
            fprintf(f, "\\%c", *s);
        else if ((unsigned char)*s < 0x20)
            fprintf(f, "\\u%04x", (unsigned)(unsigned char)*s);
        else
            fputc(*s, f);
    }
    fputc('"', f);
}

static void json_l1_one(FILE *f, const l1_result *r)
{
    l1_routine w = l1_index(r->routine);
    fprintf(f, "{\"routine\": \"%s\", \"config\": ", r->routine);
    json_str(f, r->config);
    fprintf(f,
            ", \"vw\": %u, \"wgs\": %u, \"wpt\": %u, \"params_exact\": %s, \"invariant\": %s, "
            "\"cases\": %zu, \"mismatching\": %zu, \"alone_cases\": %zu, "
            "\"alone_mismatching\": %zu, \"paths\": {",
            r->params.vw, r->params.wgs, r->params.wpt, r->params.exact ? "true" : "false",
            l1_invariant(r) ? "true" : "false", r->cases, r->mismatching, r->alone_cases,
            r->alone_bad);
    const char *sep = "";
    for (int p = 0; p < L1_N_PATHS; ++p) {
        if (!l1_kernels[w][p])
            continue;
        fprintf(f, "%s\"%s\": [%zu, %zu]", sep, l1_kernels[w][p], r->path_bad[p], r->path_cases[p]);
        sep = ", ";
    }
    fputs("}, \"first_change\": ", f);
    if (r->have_first)
        fprintf(f,
                "{\"n\": %zu, \"offset\": %zu, \"element\": %zu, \"kernel\": \"%s\", "
                "\"got\": \"0x%08x\", \"want\": \"0x%08x\"}",
                r->first_n, r->first_off, r->first_elem, l1_kernels[w][r->first_path], r->got,
                r->want);
    else
        fputs("null", f);
    fputs(", \"error\": ", f);
    json_str(f, r->error);
    fputc('}', f);
}

static void json_gemm_one(FILE *f, const report *rep, size_t c, size_t t)
{
    const gemm_plan *p = &rep->plan;
    const gemm_result *r = &rep->gemm[c][t];
    fprintf(f,
            "{\"config\": \"%s\", \"trans\": \"%s\", \"ran\": %s, \"invariant\": %s, "
            "\"m_with_drift\": %zu, \"cases\": %zu, \"rows_with_drift\": %zu, \"per_m\": [",
            gemm_configs[c].name, trans_cases[t].name, rep->config_ok[c] ? "true" : "false",
            gemm_invariant(rep, c, t) ? "true" : "false", r->mismatching, r->cases, r->bad_rows);
    for (size_t mi = 0; mi < p->n_m && rep->config_ok[c]; ++mi)
        fprintf(f, "%s{\"m\": %zu, \"rows_bad\": %zu, \"path\": \"%s\", \"bits\": \"%s\"}",
                mi ? ", " : "", p->m[mi], r->rows_bad_at[mi], path_name(r->path[mi]),
                c == 0 ? bits_match(rep, t, mi) : "");
    fputs("], \"first_change\": ", f);
    if (r->have_first)
        fprintf(f,
                "{\"m\": %zu, \"row\": %zu, \"col\": %zu, \"got\": \"0x%08x\", \"want\": "
                "\"0x%08x\"}",
                r->first_m, r->first_row, r->first_col, r->got, r->want);
    else
        fputs("null", f);
    fputs(", \"error\": ", f);
    json_str(f, r->error);
    fputc('}', f);
}

static void json_timing(FILE *f, const report *rep)
{
    fputs("  \"timing\": [", f);
    for (size_t i = 0; i < rep->timing.n_shapes; ++i) {
        const timing *t = &rep->timing.t[i];
        fprintf(f,
                "%s\n    {\"m\": %zu, \"n\": %zu, \"k\": %zu, \"calls\": %zu, "
                "\"default_path\": \"%s\", \"tiles_raw_ms\": [%.6f, %.6f], "
                "\"indirect_again_ms\": [%.6f, %.6f], \"median_ms\": {",
                i ? "," : "", t->m, t->n, t->k, t->n_samples[0], path_name(t->default_path),
                t->raw_tiles[0], t->raw_tiles[1], t->ms[T_INDIRECT_AGAIN],
                t->min_ms[T_INDIRECT_AGAIN]);
        for (size_t c = 0; c < MAX_CONFIGS; ++c)
            fprintf(f, "%s\"%s\": %.6f", c ? ", " : "", gemm_configs[c].name, t->ms[c]);
        fputs("}, \"min_ms\": {", f);
        for (size_t c = 0; c < MAX_CONFIGS; ++c)
            fprintf(f, "%s\"%s\": %.6f", c ? ", " : "", gemm_configs[c].name, t->min_ms[c]);
        fputs("}}", f);
    }
    fputs("\n  ],\n", f);
}

static void json_header(FILE *f, const report *rep, const audit *a)
{
    fputs("{\n  \"tool\": \"bicl-clblast-audit\",\n  \"clblast\": ", f);
    json_str(f, a->clblast_version);
    fputs(",\n  \"library\": ", f);
    json_str(f, a->clblast_path);
    fprintf(f, ",\n  \"date\": \"%s\",\n  \"quick\": %s,\n  \"device\": ", rep->date,
            a->quick ? "true" : "false");
    json_str(f, a->device_name);
    fputs(",\n  \"vendor\": ", f);
    json_str(f, a->vendor);
    fputs(",\n  \"platform\": ", f);
    json_str(f, a->platform);
    fputs(",\n  \"driver\": ", f);
    json_str(f, a->driver);
    fprintf(f,
            ",\n  \"assumed_database\": {\"entry\": \"%s\", \"vw\": %u, \"wgs\": %u, \"wpt\": "
            "%u, \"xgemm_min_indirect_size\": %u},\n  \"measured_min_indirect_size\": %ld,\n",
            a->guess.entry, a->guess.vw, a->guess.wgs, a->guess.wpt, a->guess.min_indirect,
            rep->t_found);
    fprintf(f,
            "  \"controls\": {\"axpy_fma_changes\": [%zu, %zu], "
            "\"gemm_reversed_k_changes_rows\": [%zu, %zu]},\n",
            rep->ctl_fma_changed, rep->ctl_fma_total, rep->ctl_rows_changed, rep->ctl_rows_total);
}

static int write_json(const char *path, const report *rep, const audit *a)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "bicl-clblast-audit: cannot write %s\n", path);
        return -1;
    }
    json_header(f, rep, a);
    fputs("  \"level1\": [", f);
    for (size_t i = 0; i < rep->n_l1; ++i) {
        fputs(i ? ",\n    " : "\n    ", f);
        json_l1_one(f, &rep->l1[i]);
    }
    const gemm_plan *p = &rep->plan;
    fprintf(f,
            "\n  ],\n  \"gemm\": {\"n\": %zu, \"k\": %zu, \"m_max\": %zu, \"switch_m\": %zu, "
            "\"results\": [",
            p->n, p->k, p->m_max, p->m_switch);
    const char *sep = "\n    ";
    for (size_t c = 0; c < MAX_CONFIGS; ++c)
        for (size_t t = 0; t < p->n_trans; ++t, sep = ",\n    ") {
            fputs(sep, f);
            json_gemm_one(f, rep, c, t);
        }
    fputs("\n  ]},\n", f);
    json_timing(f, rep);
    fputs("  \"overrides\": [", f);
    for (size_t i = 0; i < rep->ov.n; ++i) {
        fprintf(f, "%s\n    {\"what\": ", i ? "," : "");
        json_str(f, rep->ov.log[i].what);
        fprintf(f, ", \"status\": %d}", (int)rep->ov.log[i].status);
    }
    fputs("\n  ]\n}\n", f);
    return fclose(f) == 0 ? 0 : -1;
}

/* ================================================================ running */

static void progress(const char *what)
{
    fprintf(stderr, "bicl-clblast-audit: %s\n", what);
}

/* How many AXPY elements a fused multiply-add would change (host): if none did, the
 * sweep could not tell a fused kernel from an unfused one. */
static void l1_control(const l1_data *d, report *rep)
{
    for (size_t i = 0; i < d->total; ++i) {
        volatile float product = l1_alpha * d->hx[i];
        float unfused = product + d->hy[i];
        rep->ctl_fma_changed += bits_of(unfused) != bits_of(fmaf(l1_alpha, d->hx[i], d->hy[i]));
    }
    rep->ctl_fma_total = d->total;
}

/* Level 1 under the database's parameters, then under known ones (exact labels). */
static int run_level1(const audit *a, report *rep)
{
    l1_data d;
    size_t total = a->quick ? 16384 + 8 : (1u << 20) + 8;
    if (l1_data_init(a, &d, total) != 0) {
        l1_data_free(&d);
        return -1;
    }
    l1_control(&d, rep);
    l1_params assumed = {a->guess.vw, a->guess.wgs, a->guess.wpt, false};
    for (int r = 0; r < L1_COUNT; ++r) {
        progress(l1_names[r]);
        l1_audit_routine(a, &d, (l1_routine)r, &assumed, "default", &rep->l1[rep->n_l1++]);
    }
    config known = {"Xaxpy pinned", "", 1, {axpy_known}};
    if (apply_config(a, &known, &rep->ov) == 0) {
        l1_params exact = {(unsigned)axpy_known.values[0], (unsigned)axpy_known.values[1],
                           (unsigned)axpy_known.values[2], true};
        for (int r = 0; r < L1_COUNT; ++r) {
            progress(l1_names[r]);
            l1_audit_routine(a, &d, (l1_routine)r, &exact, "Xaxpy pinned", &rep->l1[rep->n_l1++]);
        }
    }
    l1_data_free(&d);
    return 0;
}

/* The same product with K summed in reverse (A's columns and B's rows reversed): how
 * many of the first rows change bits. If none did, a kernel that reorders the sum
 * would go unseen by the sweep. */
static int gemm_control(const audit *a, const gemm_plan *p, gemm_data *g, report *rep)
{
    size_t m = p->m_max < 64 ? p->m_max : 64, n = p->n, k = p->k;
    float *ra = malloc(m * k * sizeof *ra), *rb = malloc(k * n * sizeof *rb);
    float *c1 = malloc(m * n * sizeof *c1);
    int rc = -1;
    cl_mem ba = NULL, bb = NULL, bc = NULL;
    if (ra && rb && c1) {
        for (size_t r = 0; r < m; ++r)
            for (size_t j = 0; j < k; ++j)
                ra[r * k + j] = g->ha[r * k + (k - 1 - j)];
        for (size_t j = 0; j < k; ++j)
            memcpy(rb + j * n, g->hb + (k - 1 - j) * n, n * sizeof *rb);
        ba = new_buffer(a, m * k * sizeof *ra, ra);
        bb = new_buffer(a, k * n * sizeof *rb, rb);
        bc = new_buffer(a, m * n * sizeof *c1, NULL);
    }
    cl_command_queue q = a->queue;
    if (ba && bb && bc && gemm_clear_c(a, p, g) == 0 &&
        gemm_call(a, p, g, &trans_cases[0], m, 0, 0) == CLBlastSuccess &&
        read_floats(a, g->c, 0, m * n, g->got) == 0 &&
        CLBlastSgemm(CLBlastLayoutRowMajor, CLBlastTransposeNo, CLBlastTransposeNo, m, n, k, 1.0f,
                     ba, 0, k, bb, 0, n, 0.0f, bc, 0, n, &q, NULL) == CLBlastSuccess &&
        read_floats(a, bc, 0, m * n, c1) == 0) {
        rc = 0;
        for (size_t r = 0; r < m; ++r)
            rep->ctl_rows_changed += first_diff(g->got + r * n, c1 + r * n, n) < n;
        rep->ctl_rows_total = m;
    }
    cl_mem all[] = {ba, bb, bc};
    for (size_t i = 0; i < COUNT(all); ++i)
        if (all[i])
            clReleaseMemObject(all[i]);
    free(ra);
    free(rb);
    free(c1);
    return rc;
}

static void sweep_config(const audit *a, report *rep, gemm_data *g, size_t c)
{
    rep->config_ok[c] = apply_config(a, &gemm_configs[c], &rep->ov) == 0;
    for (size_t t = 0; t < rep->plan.n_trans && rep->config_ok[c]; ++t) {
        char what[64];
        snprintf(what, sizeof what, "GEMM %s %s", gemm_configs[c].name, trans_cases[t].name);
        progress(what);
        gemm_sweep(a, &rep->plan, g, &trans_cases[t], &rep->gemm[c][t]);
    }
}

/* Timing needs its own buffers: M up to the largest timed shape. */
static int timing_data(const audit *a, const report *rep, gemm_plan *tpl, gemm_data *tg)
{
    memset(tpl, 0, sizeof *tpl);
    tpl->n = rep->plan.n;
    tpl->k = rep->plan.k;
    for (size_t i = 0; i < rep->timing.n_shapes; ++i)
        tpl->m_max = rep->timing.t[i].m > tpl->m_max ? rep->timing.t[i].m : tpl->m_max;
    return gemm_data_init(a, tpl, tg);
}

/* The switch first (no override may be active); then the sweeps of the three routing
 * configs, their timing in rounds (routing alone can be set back), and last the
 * irreversible tile override: its sweep and its timing beside pin-indirect. */
static int run_gemm(const audit *a, report *rep)
{
    progress("GEMM: locating the direct/indirect switch");
    rep->t_found = gemm_find_switch(a);
    bool measured = rep->t_found > 0;
    gemm_plan_make(a, measured ? (unsigned long)rep->t_found : a->guess.min_indirect, measured,
                   &rep->plan);
    timing_plan_make(a, &rep->plan, &rep->timing);
    gemm_data g, tg;
    gemm_plan tpl;
    memset(&g, 0, sizeof g); /* both are freed below, whichever init failed */
    memset(&tg, 0, sizeof tg);
    int rc = gemm_data_init(a, &rep->plan, &g) == 0 && timing_data(a, rep, &tpl, &tg) == 0 ? 0 : -1;
    if (rc == 0) {
        gemm_control(a, &rep->plan, &g, rep);
        timing_plan *tp = &rep->timing;
        for (size_t i = 0; i < tp->n_shapes; ++i)
            tp->t[i].default_path =
                gemm_probe(a, &trans_cases[1], tp->t[i].m, tp->t[i].n, tp->t[i].k);
        for (size_t c = 0; c < MAX_CONFIGS - 1; ++c)
            sweep_config(a, rep, &g, c);
        progress("GEMM timing: default, pin-indirect, pin-direct");
        const size_t routing[3] = {measured ? (size_t)rep->t_found : GEMM_HUGE_MIN, 0,
                                   GEMM_HUGE_MIN};
        const size_t slots_a[3] = {0, 1, 2}, slots_b[2] = {MAX_CONFIGS - 1, T_INDIRECT_AGAIN};
        if (rep->config_ok[1] && rep->config_ok[2])
            rep->timing_ok = time_rounds(a, tp, &tpl, &tg, routing, slots_a, 3) == 0;
        sweep_config(a, rep, &g, MAX_CONFIGS - 1);
        progress("GEMM timing: pin-direct-tiles beside pin-indirect");
        const size_t routing_b[2] = {GEMM_HUGE_MIN, 0};
        if (rep->timing_ok && rep->config_ok[MAX_CONFIGS - 1])
            rep->timing_ok = time_rounds(a, tp, &tpl, &tg, routing_b, slots_b, 2) == 0;
        timing_summarise(tp);
    }
    gemm_data_free(&g);
    gemm_data_free(&tg);
    return rc;
}

static void utc_date(char *out, size_t size)
{
    time_t now = time(NULL);
    struct tm tm;
    gmtime_r(&now, &tm);
    strftime(out, size, "%Y-%m-%d %H:%M UTC", &tm);
}

int main(int argc, char **argv)
{
    options o;
    if (parse_args(argc, argv, &o) != 0) {
        usage(stderr);
        return 2;
    }
    if (o.help) {
        usage(stdout);
        return 0;
    }
    audit a;
    if (audit_open(&a, &o) != 0)
        return 1;
    report *rep = calloc(1, sizeof *rep);
    if (!rep) {
        audit_close(&a);
        return 1;
    }
    utc_date(rep->date, sizeof rep->date);
    int rc = run_level1(&a, rep);
    if (rc == 0)
        rc = run_gemm(&a, rep);
    if (rc == 0) {
        print_report(stdout, rep, &a);
        if (o.json)
            rc = write_json(o.json, rep, &a);
    } else {
        fprintf(stderr, "bicl-clblast-audit: out of host or device memory\n");
    }
    free(rep);
    audit_close(&a);
    return rc == 0 ? 0 : 1;
}
