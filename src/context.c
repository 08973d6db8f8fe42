/* context.c - context creation over engine-owned OpenCL objects, device selection by
 * spec, the numerics fingerprint. */
#include "context.h"
#include "selftest.h"
#include "program.h"
#include "context_state.h"
#include "device.h"
#include "options.h"
#include "profile.h"
#include "sources.h"
#include "status.h"

#include "bicl_math_version.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

bicl_status bicl_device_list(cl_device_id *devices, size_t max, size_t *count)
{
    bicl_clear_error();
    if (!count)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_device_list: count is NULL");
    *count = 0;
    cl_uint np = 0;
    cl_int err = clGetPlatformIDs(0, NULL, &np);
    if (err == -1001 /* CL_PLATFORM_NOT_FOUND_KHR */ || np == 0)
        return BICL_SUCCESS;
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clGetPlatformIDs");
    cl_platform_id plats[32];
    if (np > 32)
        np = 32;
    clGetPlatformIDs(np, plats, NULL);
    for (cl_uint p = 0; p < np; ++p) {
        cl_uint nd = 0;
        if (clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, 0, NULL, &nd) != CL_SUCCESS || !nd)
            continue;
        cl_device_id devs[64];
        if (nd > 64)
            nd = 64;
        clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, nd, devs, NULL);
        for (cl_uint d = 0; d < nd; ++d) {
            if (devices && *count < max)
                devices[*count] = devs[d];
            ++*count;
        }
    }
    return BICL_SUCCESS;
}

/* Resolves a device spec (see bicl_context_create_default) to a device. */
static bicl_status select_device(const char *spec, cl_device_id *out)
{
    cl_device_id devs[64];
    bicl_device_info infos[64];
    size_t n = 0;
    bicl_status st = bicl_device_list(devs, 64, &n);
    if (st != BICL_SUCCESS)
        return st;
    n = n < 64 ? n : 64;
    if (n == 0)
        return bicl_fail(BICL_ERR_DEVICE_NOT_FOUND, "no OpenCL platform or device is installed");
    for (size_t i = 0; i < n; ++i)
        if (bicl_device_query(devs[i], &infos[i]) != BICL_SUCCESS)
            memset(&infos[i], 0, sizeof infos[i]);
    size_t chosen = 0;
    if (*spec) { /* the device named; its suitability is the context's to judge */
        st = bicl_device_spec_resolve(spec, infos, n, &chosen);
    } else { /* no spec: the first device that passes the self-test */
        char why[1024] = "";
        st = BICL_ERR_DEVICE_UNSUITABLE;
        for (size_t i = 0; i < n && st != BICL_SUCCESS; ++i)
            if (bicl_device_check(devs[i], why[0] ? NULL : why, sizeof why) == BICL_SUCCESS) {
                chosen = i;
                st = BICL_SUCCESS;
            }
        if (st != BICL_SUCCESS)
            return bicl_fail(st, "no suitable device; the first: %s", why);
    }
    if (st == BICL_SUCCESS)
        *out = devs[chosen];
    return st;
}

static bicl_status device_in_context(cl_context c, cl_device_id d)
{
    cl_device_id devs[64];
    size_t bytes = 0;
    cl_int err = clGetContextInfo(c, CL_CONTEXT_DEVICES, sizeof devs, devs, &bytes);
    if (err != CL_SUCCESS)
        return bicl_fail(err == CL_INVALID_CONTEXT ? BICL_ERR_INVALID_HANDLE : BICL_ERR_OPENCL,
                         "clGetContextInfo(CL_CONTEXT_DEVICES): %s", bicl_cl_error_name(err));
    for (size_t i = 0; i < bytes / sizeof devs[0]; ++i)
        if (devs[i] == d)
            return BICL_SUCCESS;
    return bicl_fail(BICL_ERR_CONTEXT_MISMATCH, "the device is not a device of the cl_context");
}

static void build_fingerprint(bicl_context *ctx)
{
    char opts[768];
    bicl_build_options(ctx, opts, sizeof opts);
    const bicl_device_info *i = &ctx->info;
    char proven[64] = ""; /* capabilities known by the self-test, not advertised */
    if (ctx->selftested && ctx->caps_advertised != i->caps)
        snprintf(proven, sizeof proven, " advertised=0x%03x", ctx->caps_advertised);
    snprintf(ctx->fingerprint, sizeof ctx->fingerprint,
             "bicl=%s math=%s src=%016llx opts='%s' platform='%s' platform_version='%s' "
             "device='%s' vendor='%s' driver='%s' caps=0x%03x%s%s",
             BICL_VERSION_STRING, BICL_MATH_VERSION, (unsigned long long)bicl_sources_hash(), opts,
             i->platform_name, i->platform_version, i->device_name, i->vendor, i->driver_version,
             i->caps, ctx->selftested ? " self-tested" : "", proven);
    ctx->fingerprint_hash = bicl_fnv1a(BICL_FNV_OFFSET, ctx->fingerprint, strlen(ctx->fingerprint));
}

static void resolve_cache_dir(bicl_context *ctx)
{
    ctx->cache_dir[0] = '\0';
    if (!ctx->opts.disk_cache)
        return;
    const char *dir = ctx->opts.cache_dir[0] ? ctx->opts.cache_dir : getenv("BICL_CACHE_DIR");
    if (dir && *dir)
        snprintf(ctx->cache_dir, sizeof ctx->cache_dir, "%s", dir);
}

/* Tables and their form change speed, never bits: they are not part of the fingerprint.
 * An unknown value of $BICL_ACT_TABLES is ignored (auto), like an unset one. Auto is the
 * full form on every device: the compact one is only asked for (measured slower on PoCL,
 * not yet on a GPU; docs/performance.md). */
static void resolve_act_tables(bicl_context *ctx)
{
    int v = ctx->opts.act_tables;
    if (v == BICL_ACT_TABLES_UNSET)
        v = bicl_act_tables_parse(getenv("BICL_ACT_TABLES"));
    ctx->act_tables =
        v == BICL_ACT_TABLES_OFF || v == BICL_ACT_TABLES_COMPACT ? v : BICL_ACT_TABLES_FULL;
}

/* RoPE's form changes speed, never bits (not in the fingerprint either). An unknown value
 * of $BICL_ROPE_FORM is ignored (the profile's form), like an unset one. */
static void resolve_rope_form(bicl_context *ctx)
{
    int v = ctx->opts.rope_form;
    if (v == BICL_ROPE_FORM_UNSET)
        v = bicl_rope_form_parse(getenv("BICL_ROPE_FORM"));
    if (v != BICL_ROPE_FORM_UNITS && v != BICL_ROPE_FORM_ROWS)
        v = ctx->profile->rope_form;
    ctx->rope_rows = v == BICL_ROPE_FORM_ROWS;
}

/* A kernel form chosen by environment variable `var` (for benchmarks and tests): the index
 * of its value in names[n] (form i is the profile field's value i), any other value or
 * none the profile's choice. Forms change speed, never bits. */
static int env_form(const char *var, const char *const *names, int n, int profile_choice)
{
    const char *v = getenv(var);
    for (int i = 0; v && i < n; ++i)
        if (strcmp(v, names[i]) == 0)
            return i;
    return profile_choice;
}

/* How kernels convert f16 ($BICL_F16_CONVERT "bits", "device" or "float16"), the computed
 * activations' one-element form ($BICL_ACT_FORM "plain" or "fixup") and the vector
 * kernels' lane loop ($BICL_LANE_LOOP "loop", "unrolled" or "rolled": a bicl_lane_loop). */
static void resolve_env_forms(bicl_context *ctx)
{
    static const char *const f16[] = {
        [BICL_F16_BITS] = "bits", [BICL_F16_DEVICE] = "device", [BICL_F16_FLOAT16] = "float16"};
    static const char *const act[] = {"plain", "fixup"};
    static const char *const lanes[] = {[BICL_LANE_LOOP_COMPILER] = "loop",
                                        [BICL_LANE_LOOP_UNROLLED] = "unrolled",
                                        [BICL_LANE_LOOP_ROLLED] = "rolled"};
    ctx->f16_form = env_form("BICL_F16_CONVERT", f16, 3, ctx->profile->f16_form);
    ctx->act_fixup = env_form("BICL_ACT_FORM", act, 2, ctx->profile->act_fixup) != 0;
    ctx->lane_loop = env_form("BICL_LANE_LOOP", lanes, 3, ctx->profile->lane_loop);
}

/* The self-test; where the kernels would convert f16 by the compiler's _Float16 casts and
 * the test fails (a compiler that does not build them, a conversion that lowers to a missing
 * library call, or bits that differ), bit work and the test again: the form changes speed
 * only. The note says why, after anything the second test notes. The self-test remembers
 * either failure, so that a later context of the device does not build the form again. */
static bicl_status context_selftest(bicl_context *ctx)
{
    bicl_status st = bicl_context_selftest(ctx);
    if (st == BICL_SUCCESS || ctx->f16_form != BICL_F16_FLOAT16)
        return st;
    char why[200];
    snprintf(why, sizeof why, "%s", bicl_last_error(NULL));
    ctx->f16_form = BICL_F16_BITS;
    st = bicl_context_selftest(ctx);
    if (st != BICL_SUCCESS)
        return st;
    bicl_clear_error();
    size_t used = strlen(ctx->selftest_note);
    snprintf(ctx->selftest_note + used, sizeof ctx->selftest_note - used,
             "%sf16 by bit work, not _Float16 casts: %s", used ? "; " : "", why);
    return BICL_SUCCESS;
}

bicl_status bicl_context_create(cl_context cl_ctx, cl_device_id device, const bicl_options *opts,
                                bicl_context **out)
{
    bicl_clear_error();
    if (!out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_context_create: out is NULL");
    *out = NULL;
    if (!cl_ctx || !device)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "bicl_context_create: %s is NULL",
                         cl_ctx ? "device" : "cl_context");
    bicl_status st = device_in_context(cl_ctx, device);
    if (st != BICL_SUCCESS)
        return st;
    bicl_context *ctx = calloc(1, sizeof *ctx);
    if (!ctx)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "bicl_context_create");
    static _Atomic uint64_t next_generation = 1;
    ctx->generation = atomic_fetch_add(&next_generation, 1);
    st = bicl_device_query(device, &ctx->info);
    if (st != BICL_SUCCESS) {
        free(ctx);
        return st;
    }
    char why[1024]; /* what can be proven is left to the self-test below */
    if (bicl_device_suitability(&ctx->info, why, sizeof why) != BICL_SUCCESS) {
        st = bicl_fail(BICL_ERR_DEVICE_UNSUITABLE, "%s: %s", ctx->info.device_name, why);
        free(ctx);
        return st;
    }
    if (opts) {
        ctx->opts = *opts;
        st = bicl_check_build_options(ctx->opts.build_options);
        if (st != BICL_SUCCESS) {
            free(ctx);
            return st;
        }
    } else {
        bicl_options_defaults(&ctx->opts);
    }
    if (strcmp(ctx->opts.profile, "auto") == 0 || ctx->opts.profile[0] == '\0')
        ctx->profile = bicl_profile_for_device(ctx->info.platform_name, ctx->info.vendor,
                                               ctx->info.device_name);
    else
        ctx->profile = bicl_profile_by_name(ctx->opts.profile);
    resolve_rope_form(ctx);
    resolve_env_forms(ctx);
    for (int c = 0; c < BICL_VCLASS_COUNT; ++c) {
        ctx->variants[c] = ctx->profile->variants[c];
        if (ctx->variants[c].work_group_size > ctx->info.max_work_group)
            ctx->variants[c].work_group_size = 0;
    }
    if (pthread_mutex_init(&ctx->lock, NULL) != 0) {
        free(ctx);
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "pthread_mutex_init");
    }
    clRetainContext(cl_ctx);
    clRetainDevice(device);
    ctx->cl_ctx = cl_ctx;
    ctx->device = device;
    resolve_cache_dir(ctx);
    resolve_act_tables(ctx);
    build_fingerprint(ctx); /* the key of the self-test's verdict */
    st = context_selftest(ctx);
    if (st != BICL_SUCCESS) {
        bicl_context_free(ctx);
        return st;
    }
    ctx->selftested = true;
    build_fingerprint(ctx);
    *out = ctx;
    return BICL_SUCCESS;
}

bicl_status bicl_context_create_default(const char *device_spec, const bicl_options *opts,
                                        bicl_context **out)
{
    bicl_clear_error();
    if (!out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_context_create_default: out is NULL");
    *out = NULL;
    const char *spec = device_spec;
    if (!spec || !*spec)
        spec = getenv("BICL_DEVICE");
    if (!spec)
        spec = "";
    cl_device_id dev = NULL;
    bicl_status st = select_device(spec, &dev);
    if (st != BICL_SUCCESS)
        return st;
    cl_int err = CL_SUCCESS;
    cl_context c = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clCreateContext");
    st = bicl_context_create(c, dev, opts, out);
    clReleaseContext(c); /* the bicl_context holds its own reference */
    return st;
}

/* Creating a context is the whole check: what the device advertises, then the
 * self-test (here, not in device.c, which is below the context). */
bicl_status bicl_device_check(cl_device_id device, char *why, size_t why_size)
{
    bicl_clear_error();
    if (why && why_size)
        why[0] = '\0';
    if (!device)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "device is NULL");
    cl_int err = CL_SUCCESS;
    cl_context c = clCreateContext(NULL, 1, &device, NULL, NULL, &err);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clCreateContext");
    bicl_context *ctx = NULL;
    bicl_status st = bicl_context_create(c, device, NULL, &ctx);
    clReleaseContext(c);
    if (why && why_size && st == BICL_SUCCESS)
        bicl_context_verdict(ctx, why, why_size);
    else if (why && why_size)
        snprintf(why, why_size, "%s", bicl_last_error(NULL));
    bicl_context_free(ctx);
    return st;
}

void bicl_context_free(bicl_context *ctx)
{
    if (!ctx)
        return;
    bicl_kernel_pools_free(ctx);
    bicl_programs_free(ctx);
    if (ctx->tables_free) /* act_tables.c, a higher layer, set it with its first table */
        ctx->tables_free(ctx);
    pthread_mutex_destroy(&ctx->lock);
    clReleaseDevice(ctx->device);
    clReleaseContext(ctx->cl_ctx);
    free(ctx);
}

cl_context bicl_context_cl_context(const bicl_context *ctx)
{
    return ctx ? ctx->cl_ctx : NULL;
}

cl_device_id bicl_context_device(const bicl_context *ctx)
{
    return ctx ? ctx->device : NULL;
}

int bicl_context_has_fp64(const bicl_context *ctx)
{
    return ctx && (ctx->info.caps & BICL_CAP_FP64) ? 1 : 0;
}

const char *bicl_fingerprint(const bicl_context *ctx)
{
    return ctx ? ctx->fingerprint : "";
}

uint64_t bicl_fingerprint_hash(const bicl_context *ctx)
{
    return ctx ? ctx->fingerprint_hash : 0;
}

bicl_status bicl_context_cache_stats(const bicl_context *ctx, bicl_cache_stats *out)
{
    bicl_clear_error();
    if (!ctx || !out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_context_cache_stats: NULL argument");
    bicl_context *c = (bicl_context *)ctx;
    pthread_mutex_lock(&c->lock);
    *out = c->stats;
    pthread_mutex_unlock(&c->lock);
    return BICL_SUCCESS;
}

bicl_status bicl_context_set_variant(bicl_context *ctx, const bicl_variant *variant)
{
    bicl_clear_error();
    if (!ctx)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_context_set_variant: ctx is NULL");
    bicl_variant v[BICL_VCLASS_COUNT];
    for (int c = 0; c < BICL_VCLASS_COUNT; ++c) {
        v[c] = variant ? *variant : ctx->profile->variants[c];
        if (!variant && v[c].work_group_size > ctx->info.max_work_group)
            v[c].work_group_size = 0;
    }
    bicl_status st = bicl_variant_check(&v[0], ctx->info.max_work_group);
    if (st != BICL_SUCCESS)
        return st;
    pthread_mutex_lock(&ctx->lock);
    memcpy(ctx->variants, v, sizeof v);
    pthread_mutex_unlock(&ctx->lock);
    return BICL_SUCCESS;
}

bicl_status bicl_context_get_variant(const bicl_context *ctx, bicl_variant *out)
{
    bicl_clear_error();
    if (!ctx || !out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_context_get_variant: NULL argument");
    *out = bicl_context_variant_snapshot((bicl_context *)ctx);
    return BICL_SUCCESS;
}

bicl_variant bicl_context_variant_for(bicl_context *ctx, bicl_vclass c)
{
    pthread_mutex_lock(&ctx->lock);
    bicl_variant v = ctx->variants[c];
    pthread_mutex_unlock(&ctx->lock);
    return v;
}

bicl_variant bicl_context_variant_snapshot(bicl_context *ctx)
{
    return bicl_context_variant_for(ctx, BICL_VCLASS_32);
}

const char *bicl_context_profile(const bicl_context *ctx)
{
    return ctx ? ctx->profile->name : "";
}
