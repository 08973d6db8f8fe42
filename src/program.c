/* program.c - programs built with the library's fixed options (design rule 2), the
 * per-context memory cache, the disk cache path and the kernel pools. */
#include "program.h"
#include "context_state.h"
#include "diskcache.h"
#include "options.h"
#include "sources.h"
#include "status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const family_names[BICL_FAMILY_COUNT] = {"cast",   "rope", "unary",    "glu",
                                                            "binary", "mask", "selftest", "mrope"};

const char *bicl_family_name(bicl_family family)
{
    return family_names[family];
}

void bicl_build_options(const bicl_context *ctx, char *out, size_t n)
{
    if (ctx->opts.build_options[0])
        snprintf(out, n, "%s %s", BICL_FIXED_BUILD_OPTIONS, ctx->opts.build_options);
    else
        snprintf(out, n, "%s", BICL_FIXED_BUILD_OPTIONS);
}

void bicl_program_cache_key(const bicl_context *ctx, bicl_family family, const char *options,
                            const char *source, size_t source_size, char *key, size_t n)
{
    uint64_t src = bicl_fnv1a(BICL_FNV_OFFSET, source, source_size);
    snprintf(key, n, "%s\nfamily=%s\noptions=%s\nprogram=%016llx\n", ctx->fingerprint,
             bicl_family_name(family), options, (unsigned long long)src);
}

/* The source defines of a bicl_f16_form (cl/bicl_convert.h). */
static const char *f16_form_define(int f16_form)
{
    switch (f16_form) {
    case BICL_F16_DEVICE:
        return "#define BICL_F16_DEVICE 1\n";
    case BICL_F16_FLOAT16:
        return "#define BICL_F16_DEVICE 1\n#define BICL_F16_FLOAT16 1\n";
    default:
        return "";
    }
}

/* The source define of a lane-loop form (cl/bicl_kernel.h's BICL_FOR_LANES). */
static const char *lane_loop_define(int lane_loop)
{
    switch (lane_loop) {
    case BICL_LANE_LOOP_UNROLLED:
        return "#define BICL_UNROLL_LANES 1\n";
    case BICL_LANE_LOOP_ROLLED:
        return "#define BICL_ROLL_LANES 1\n";
    default:
        return "";
    }
}

bicl_status bicl_program_source(const bicl_context *ctx, bicl_family family, const char *instance,
                                char **text, size_t *size)
{
    const bicl_source *src = bicl_source_find(family_names[family]);
    if (!src)
        return bicl_fail(BICL_ERR_OPENCL, "no embedded source for family %s", family_names[family]);
    /* The pragma leads every program; internal switches are source text, so that the
     * build options stay exactly the fixed ones and callers cannot inject -D. */
    char prefix[224], suffix[BICL_INSTANCE_MAX + 2] = "";
    /* BICL_FIX_REDO_CALL: the fix-up form's second side a call not inlined, where the
     * profile takes that form (cl/bicl_kernel.h, BICL_ROWS_F_1_1 and _2_1), in the two
     * families that have it. The profile's choice, not the context's: a context forced to
     * the form (BICL_ACT_FORM) on a device whose compiler never built the attribute keeps
     * the plain function. */
    const bool fix_family = family == BICL_FAMILY_UNARY || family == BICL_FAMILY_GLU;
    int plen =
        snprintf(prefix, sizeof prefix, "#pragma OPENCL FP_CONTRACT OFF\n%s%s%s%s%s",
                 (ctx->info.caps & BICL_CAP_FP64) ? "#define BICL_HAVE_FP64 1\n" : "",
                 f16_form_define(ctx->f16_form), lane_loop_define(ctx->lane_loop),
                 ctx->profile->act_fixup && fix_family ? "#define BICL_FIX_REDO_CALL 1\n" : "",
                 instance ? "#define BICL_SELECTED 1\n" : "");
    if (instance)
        snprintf(suffix, sizeof suffix, "%s\n", instance);
    size_t slen = strlen(suffix), total = (size_t)plen + src->size + slen;
    char *buf = malloc(total + 1);
    if (!buf)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "program source");
    memcpy(buf, prefix, (size_t)plen);
    memcpy(buf + plen, src->text, src->size);
    memcpy(buf + (size_t)plen + src->size, suffix, slen);
    buf[total] = '\0';
    *text = buf;
    *size = total;
    return BICL_SUCCESS;
}

static bicl_status build_failed(cl_program p, cl_device_id d, cl_int err, const char *family)
{
    size_t len = 0;
    clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 0, NULL, &len);
    char *log = malloc(len + 1);
    if (log) {
        log[0] = '\0';
        clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, len, log, NULL);
        log[len] = '\0';
    }
    bicl_status st = bicl_fail(BICL_ERR_BUILD_FAILED, "building '%s' failed (%s): %s", family,
                               bicl_cl_error_name(err), log ? log : "(no log)");
    free(log);
    return st;
}

static cl_program build_from_binary(bicl_context *ctx, const unsigned char *bin, size_t size,
                                    const char *options)
{
    cl_int err = CL_SUCCESS, bin_status = CL_SUCCESS;
    cl_program p =
        clCreateProgramWithBinary(ctx->cl_ctx, 1, &ctx->device, &size, &bin, &bin_status, &err);
    if (err != CL_SUCCESS || bin_status != CL_SUCCESS) {
        if (p)
            clReleaseProgram(p);
        return NULL;
    }
    if (clBuildProgram(p, 1, &ctx->device, options, NULL, NULL) != CL_SUCCESS) {
        clReleaseProgram(p);
        return NULL;
    }
    return p;
}

static void store_binary(const bicl_context *ctx, cl_program p, const char *key,
                         bicl_cache_stats *stats)
{
    size_t size = 0;
    if (clGetProgramInfo(p, CL_PROGRAM_BINARY_SIZES, sizeof size, &size, NULL) != CL_SUCCESS ||
        size == 0) {
        stats->disk_write_fail++;
        return;
    }
    unsigned char *bin = malloc(size);
    if (!bin) {
        stats->disk_write_fail++;
        return;
    }
    if (clGetProgramInfo(p, CL_PROGRAM_BINARIES, sizeof bin, &bin, NULL) == CL_SUCCESS &&
        bicl_cache_store(ctx->cache_dir, key, bin, size) == 0)
        stats->disk_writes++;
    else
        stats->disk_write_fail++;
    free(bin);
}

bicl_status bicl_program_compile(bicl_context *ctx, const char *what, const char *text, size_t size,
                                 cl_program *out)
{
    char options[768];
    bicl_build_options(ctx, options, sizeof options);
    cl_int err = CL_SUCCESS;
    cl_program p = clCreateProgramWithSource(ctx->cl_ctx, 1, &text, &size, &err);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clCreateProgramWithSource");
    err = clBuildProgram(p, 1, &ctx->device, options, NULL, NULL);
    if (err == CL_OUT_OF_HOST_MEMORY || err == CL_OUT_OF_RESOURCES) {
        /* The driver ran out of memory: a resource status the engine can act on, not a
         * fault in the source (which would be BICL_ERR_BUILD_FAILED). */
        clReleaseProgram(p);
        return bicl_fail_cl(err, "clBuildProgram");
    }
    if (err != CL_SUCCESS) {
        bicl_status st = build_failed(p, ctx->device, err, what);
        clReleaseProgram(p);
        return st;
    }
    *out = p;
    return BICL_SUCCESS;
}

bicl_status bicl_program_build(bicl_context *ctx, bicl_family family, const char *text, size_t size,
                               bicl_cache_stats *stats, cl_program *out)
{
    char options[768];
    bicl_build_options(ctx, options, sizeof options);
    char key[4096];
    key[0] = '\0';
    if (ctx->cache_dir[0]) {
        bicl_program_cache_key(ctx, family, options, text, size, key, sizeof key);
        unsigned char *bin = NULL;
        size_t bin_size = 0;
        int r = bicl_cache_load(ctx->cache_dir, key, &bin, &bin_size);
        if (r == 1) {
            cl_program p = build_from_binary(ctx, bin, bin_size, options);
            free(bin);
            if (p) {
                stats->disk_hits++;
                *out = p;
                return BICL_SUCCESS;
            }
        }
        if (r != 0)
            stats->disk_rejected++;
    }
    cl_program p = NULL;
    bicl_status st = bicl_program_compile(ctx, family_names[family], text, size, &p);
    if (st != BICL_SUCCESS)
        return st;
    stats->programs_built++;
    if (key[0])
        store_binary(ctx, p, key, stats);
    *out = p;
    return BICL_SUCCESS;
}

/* Called with ctx->lock held. */
static bicl_status build_program(bicl_context *ctx, bicl_family family, const char *instance,
                                 cl_program *out)
{
    char *text = NULL;
    size_t size = 0;
    bicl_status st = bicl_program_source(ctx, family, instance, &text, &size);
    if (st == BICL_SUCCESS)
        st = bicl_program_build(ctx, family, text, size, &ctx->stats, out);
    free(text);
    return st;
}

static bicl_program_entry *find_program(bicl_context *ctx, bicl_family family, const char *instance)
{
    const char *key = instance ? instance : "";
    for (bicl_program_entry *e = ctx->programs; e; e = e->next)
        if (e->family == family && strcmp(e->instance, key) == 0)
            return e;
    return NULL;
}

bicl_status bicl_program_get(bicl_context *ctx, bicl_family family, const char *instance,
                             cl_program *out)
{
    if (instance && strlen(instance) >= BICL_INSTANCE_MAX)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "instance '%s' is too long", instance);
    bicl_status st = BICL_SUCCESS;
    pthread_mutex_lock(&ctx->lock);
    bicl_program_entry *e = find_program(ctx, family, instance);
    if (!e) {
        cl_program p = NULL;
        st = build_program(ctx, family, instance, &p);
        e = st == BICL_SUCCESS ? calloc(1, sizeof *e) : NULL;
        if (e) {
            e->family = family;
            snprintf(e->instance, sizeof e->instance, "%s", instance ? instance : "");
            e->program = p;
            e->next = ctx->programs;
            ctx->programs = e;
        } else if (p) {
            clReleaseProgram(p);
            st = bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "program list");
        }
    }
    *out = e ? e->program : NULL;
    pthread_mutex_unlock(&ctx->lock);
    return st;
}

void bicl_programs_free(bicl_context *ctx)
{
    bicl_program_entry *e = ctx->programs;
    while (e) {
        bicl_program_entry *next = e->next;
        clReleaseProgram(e->program);
        free(e);
        e = next;
    }
    ctx->programs = NULL;
}

/* ------------------------------------------------------------ kernel pools */

struct bicl_kernel_pool {
    char name[96];
    uint32_t hash; /* of name: the lookup compares it before the name (hot path) */
    size_t wg_max; /* CL_KERNEL_WORK_GROUP_SIZE of this kernel, 0 until first asked */
    bicl_kernel **free;
    size_t n, cap;
    bicl_kernel_pool *next; /* in its bucket's chain */
};

/* FNV-1a */
static uint32_t name_hash(const char *name)
{
    uint32_t h = 2166136261u;
    for (const unsigned char *c = (const unsigned char *)name; *c; ++c)
        h = (h ^ *c) * 16777619u;
    return h;
}

static bicl_kernel_pool **pool_bucket(bicl_context *ctx, uint32_t h)
{
    return &ctx->pools[h % BICL_POOL_BUCKETS];
}

static bicl_kernel_pool *lookup_pool(bicl_context *ctx, const char *name, uint32_t h)
{
    for (bicl_kernel_pool *p = *pool_bucket(ctx, h); p; p = p->next)
        if (p->hash == h && strcmp(p->name, name) == 0)
            return p;
    return NULL;
}

static bicl_kernel_pool *find_pool(bicl_context *ctx, const char *name)
{
    uint32_t h = name_hash(name);
    bicl_kernel_pool *found = lookup_pool(ctx, name, h);
    if (found)
        return found;
    bicl_kernel_pool *p = calloc(1, sizeof *p);
    if (!p)
        return NULL;
    snprintf(p->name, sizeof p->name, "%s", name);
    p->hash = h;
    bicl_kernel_pool **bucket = pool_bucket(ctx, h);
    p->next = *bucket;
    *bucket = p;
    return p;
}

static bicl_status kernel_create(bicl_context *ctx, bicl_family family, const char *instance,
                                 bicl_kernel_pool *pool, bicl_kernel **out)
{
    cl_program prog = NULL;
    bicl_status st = bicl_program_get(ctx, family, instance, &prog);
    if (st != BICL_SUCCESS)
        return st;
    bicl_kernel *k = calloc(1, sizeof *k);
    if (!k)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "kernel %s", pool->name);
    cl_int err = CL_SUCCESS;
    k->k = clCreateKernel(prog, pool->name, &err);
    if (err != CL_SUCCESS) {
        free(k);
        return bicl_fail_cl(err, pool->name);
    }
    k->pool = pool;
    pthread_mutex_lock(&ctx->lock);
    ctx->kernels_live++;
    pthread_mutex_unlock(&ctx->lock);
    *out = k;
    return BICL_SUCCESS;
}

bool bicl_kernel_take(bicl_context *ctx, const char *name, bicl_kernel **out)
{
    pthread_mutex_lock(&ctx->lock);
    bicl_kernel_pool *pool = lookup_pool(ctx, name, name_hash(name));
    bool found = pool && pool->n > 0;
    if (found)
        *out = pool->free[--pool->n];
    pthread_mutex_unlock(&ctx->lock);
    return found;
}

bicl_status bicl_kernel_acquire(bicl_context *ctx, bicl_family family, const char *instance,
                                const char *name, bicl_kernel **out)
{
    if (bicl_kernel_take(ctx, name, out))
        return BICL_SUCCESS;
    pthread_mutex_lock(&ctx->lock);
    bicl_kernel_pool *pool = find_pool(ctx, name);
    pthread_mutex_unlock(&ctx->lock);
    if (!pool)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "kernel pool %s", name);
    return kernel_create(ctx, family, instance, pool, out);
}

static void kernel_free(bicl_kernel *k)
{
    clReleaseKernel(k->k);
    free(k);
}

void bicl_kernel_release(bicl_context *ctx, bicl_kernel *k)
{
    bicl_kernel_pool *pool = k->pool;
    pthread_mutex_lock(&ctx->lock);
    if (pool->n == pool->cap) {
        size_t cap = pool->cap ? pool->cap * 2 : 4;
        bicl_kernel **grown = realloc(pool->free, cap * sizeof *grown);
        if (grown) {
            pool->free = grown;
            pool->cap = cap;
        }
    }
    if (pool->n < pool->cap) {
        pool->free[pool->n++] = k;
        k = NULL;
    } else {
        ctx->kernels_live--; /* no room in the pool: released below */
    }
    pthread_mutex_unlock(&ctx->lock);
    if (k)
        kernel_free(k);
}

size_t bicl_kernel_wg_max(bicl_context *ctx, bicl_kernel *k)
{
    pthread_mutex_lock(&ctx->lock);
    size_t wg = k->pool->wg_max;
    pthread_mutex_unlock(&ctx->lock);
    if (wg)
        return wg;
    if (clGetKernelWorkGroupInfo(k->k, ctx->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg,
                                 NULL) != CL_SUCCESS)
        return 0;
    pthread_mutex_lock(&ctx->lock);
    k->pool->wg_max = wg;
    pthread_mutex_unlock(&ctx->lock);
    return wg;
}

void bicl_kernel_counts(bicl_context *ctx, size_t *live, size_t *pooled)
{
    pthread_mutex_lock(&ctx->lock);
    size_t n = 0;
    for (size_t b = 0; b < BICL_POOL_BUCKETS; ++b)
        for (const bicl_kernel_pool *p = ctx->pools[b]; p; p = p->next)
            n += p->n;
    *live = ctx->kernels_live;
    *pooled = n;
    pthread_mutex_unlock(&ctx->lock);
}

void bicl_kernel_pools_free(bicl_context *ctx)
{
    for (size_t b = 0; b < BICL_POOL_BUCKETS; ++b) {
        bicl_kernel_pool *p = ctx->pools[b];
        while (p) {
            bicl_kernel_pool *next = p->next;
            for (size_t i = 0; i < p->n; ++i)
                kernel_free(p->free[i]);
            free(p->free);
            free(p);
            p = next;
        }
        ctx->pools[b] = NULL;
    }
}
