/* launch.c - variant selection and the shared elementwise launcher. Every pointwise
 * op goes through bicl_launch_elementwise, so that the way a kernel is chosen and
 * its arguments are laid out exists once. */
#include "launch.h"
#include "context.h"
#include "program.h"
#include "tensor.h"
#include "context_state.h"
#include "profile.h"
#include "status.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>

/* A 1-d launch whose size is a multiple of this keeps the implementation's group where
 * the variant leaves it open (profiles without fixed groups; see enqueue_2d). */
#define BICL_FLAT_GROUP_MULTIPLE 64

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

/* The kernel's own limit can be below the device's (register pressure). */
static size_t fit_work_group(bicl_context *ctx, bicl_kernel *k, size_t wg)
{
    size_t kmax = wg ? bicl_kernel_wg_max(ctx, k) : 0;
    if (kmax == 0)
        return wg;
    while (wg > kmax && wg > 1)
        wg /= 2;
    return wg;
}

/* The group of a 1-d launch of `units` on a profile with fixed groups: one of two sizes
 * whatever the size of the launch, so that PoCL, which compiles a kernel again for every
 * local size it meets, builds each kernel once or twice instead of once per size class
 * (an engine's growing decode batch, the tests' sizes). A variant's own group is kept. */
static size_t fixed_group(const bicl_context *ctx, size_t units, size_t wg)
{
    if (wg)
        return wg;
    size_t large = BICL_LARGE_WORK_GROUP;
    if (large <= ctx->info.max_work_group &&
        units / large >= (size_t)BICL_LARGE_GROUPS_PER_UNIT * ctx->info.compute_units)
        return large;
    return BICL_ROWS_WORK_GROUP;
}

/* Enqueues `units` work units in dim 0 (rounded up to the work-group size) times `rows`
 * in dim 1 (1 for a 1-d launch). */
static bicl_status enqueue_2d(bicl_context *ctx, cl_command_queue q, bicl_kernel *k, size_t units,
                              size_t rows, size_t wg, cl_uint n_wait, const cl_event *wait,
                              cl_event *done)
{
    /* A variant that leaves the group to the implementation (wg 0, PoCL's profile) still
     * gets one for a 2-d launch: PoCL's own choice for a rows kernel ran bias add (bf16,
     * rows of 4096) at 19 GB/s against 27-28 with groups of 512 of one row, while 1-d
     * launches ran 3-10 % faster left to PoCL (64 MiB, docs/performance.md).
     * A 1-d launch too where its size is not a multiple of 64: the implementation must
     * pick a divisor of the size (1 for a prime), and PoCL compiles a kernel again for
     * every new local size, so every odd size cost a build (67 per kernel in
     * test_pointwise's sizes 1..67) and a prime one ran in groups of one. Rounded up and
     * halved below, such a launch has one of four group sizes (64 to 512). */
    bool fixed = ctx->profile->fixed_groups && rows == 1;
    if (fixed)
        wg = fixed_group(ctx, units, wg);
    else if (wg == 0 && (rows > 1 || units % BICL_FLAT_GROUP_MULTIPLE != 0))
        wg = BICL_ROWS_WORK_GROUP;
    wg = fit_work_group(ctx, k, wg);
    size_t global[2] = {units ? units : 1, rows};
    /* A group wider than the units of dimension 0 only adds idle work-items (to every
     * row of a rows kernel: bias add has 128 units per 4096-wide bf16 row at 8 x 4 per
     * item; to a small flat launch): halve it while half still covers them. Applies to
     * every launch. Speed only: no kernel's values depend on the local size; the fix-up
     * form's local buffer, sized by the caller for wg, only ever gets a smaller group.
     * Not below 64 (or the variant's own group, if smaller): PoCL builds a kernel again
     * for every new local size, so halving down to 1 made every small size class its own
     * build (eight per kernel for test_pointwise's sizes 1..67, and the same in an engine
     * whose decode batch grows), while a group of 64 over a few units idles the rest of one
     * group only. Not at all for a fixed group: each new size is a build there, while the
     * idle items of a short group cost a CPU only bound checks (not timed). */
    size_t floor_wg = wg;
    if (!fixed && wg > BICL_FLAT_GROUP_MULTIPLE)
        floor_wg = BICL_FLAT_GROUP_MULTIPLE;
    while (wg > floor_wg && wg / 2 >= global[0])
        wg /= 2;
    if (wg)
        global[0] = round_up(global[0], wg);
    size_t local[2] = {wg, 1};
    cl_int err = clEnqueueNDRangeKernel(q, k->k, rows > 1 ? 2 : 1, NULL, global, wg ? local : NULL,
                                        n_wait, n_wait ? wait : NULL, done);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clEnqueueNDRangeKernel");
    return BICL_SUCCESS;
}

bicl_status bicl_enqueue(bicl_context *ctx, cl_command_queue q, bicl_kernel *k, size_t units,
                         size_t wg, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    return enqueue_2d(ctx, q, k, units, 1, wg, n_wait, wait, done);
}

void bicl_arg_view_strides(bicl_args *a, const bicl_tensor *t, int n_strides)
{
    bicl_arg_view(a, t);
    for (int d = 0; d < n_strides; ++d) {
        cl_ulong st = (cl_ulong)t->stride[d];
        bicl_arg_scalar(a, sizeof st, &st);
    }
}

bicl_status bicl_args_launch(bicl_context *ctx, cl_command_queue q, bicl_args *a, size_t units,
                             size_t wg, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_status st = a->err == CL_SUCCESS
                         ? enqueue_2d(ctx, q, a->k, units, 1, wg, n_wait, wait, done)
                         : bicl_fail_cl(a->err, "clSetKernelArg");
    bicl_kernel_release(ctx, a->k);
    return st;
}

bicl_status bicl_args_launch_groups(bicl_context *ctx, cl_command_queue q, bicl_args *a,
                                    size_t width, size_t rows, cl_uint n_wait, const cl_event *wait,
                                    cl_event *done)
{
    bicl_status st = BICL_SUCCESS;
    if (a->err != CL_SUCCESS) {
        st = bicl_fail_cl(a->err, "clSetKernelArg");
    } else {
        size_t global[2] = {width, rows}, local[2] = {width, 1};
        cl_int err = clEnqueueNDRangeKernel(q, a->k->k, 2, NULL, global, local, n_wait,
                                            n_wait ? wait : NULL, done);
        if (err != CL_SUCCESS)
            st = bicl_fail_cl(err, "clEnqueueNDRangeKernel");
    }
    bicl_kernel_release(ctx, a->k);
    return st;
}

/* The three iteration shapes of an elementwise op; flat and rows run the same kernel
 * template (see cl/bicl_kernel.h), a flat iteration as one row. */
typedef enum shape_kind { SHAPE_FLAT, SHAPE_ROWS, SHAPE_STRIDED } shape_kind;

static shape_kind classify(const bicl_iter *it)
{
    if (it->flat)
        return SHAPE_FLAT;
    bool rows = it->rank == 2;
    for (int o = 0; rows && o < it->n_operands; ++o)
        rows = it->stride[o][1] == 1;
    return rows ? SHAPE_ROWS : SHAPE_STRIDED;
}

/* Vector loads need every operand's start (and row start) on a multiple of vw, and its
 * buffer's device address aligned to a whole vector. */
static bool aligned(const bicl_context *ctx, bicl_memo *memo, const bicl_iter *it,
                    const bicl_tensor *const *ops, int n_ops, shape_kind k, unsigned vw)
{
    if (vw <= 1)
        return true;
    for (int o = 0; o < n_ops; ++o) {
        if (ops[o]->offset % vw != 0)
            return false;
        if (k == SHAPE_ROWS && it->stride[o][0] % vw != 0)
            return false;
        if (bicl_mem_align(ctx, memo, ops[o]->mem) % (vw * bicl_dtype_size(ops[o]->dtype)) != 0)
            return false;
    }
    return true;
}

static void forget_arg(bicl_kernel *k, cl_uint index)
{
    if (index < BICL_ARG_CACHE_MAX)
        k->arg_size[index] = 0;
}

void bicl_arg(bicl_args *a, size_t size, const void *value)
{
    if (a->err == CL_SUCCESS) {
        forget_arg(a->k, a->index);
        a->err = clSetKernelArg(a->k->k, a->index, size, value);
    }
    a->index++;
}

void bicl_arg_scalar(bicl_args *a, size_t size, const void *value)
{
    bicl_kernel *k = a->k;
    cl_uint i = a->index;
    bool cacheable = i < BICL_ARG_CACHE_MAX && size <= BICL_ARG_CACHE_BYTES;
    if (a->err == CL_SUCCESS && cacheable && k->arg_size[i] == size &&
        memcmp(k->arg[i], value, size) == 0) {
        a->index++;
        return;
    }
    bicl_arg(a, size, value);
    if (a->err == CL_SUCCESS && cacheable) {
        memcpy(k->arg[i], value, size);
        k->arg_size[i] = (unsigned char)size;
    }
}

void bicl_arg_view(bicl_args *a, const bicl_tensor *t)
{
    cl_ulong off = t->offset;
    bicl_arg(a, sizeof(cl_mem), &t->mem);
    bicl_arg_scalar(a, sizeof off, &off);
}

/* v in decimal into out (at least 21 bytes) */
static void decimal(char *out, long long v)
{
    char rev[21];
    int n = 0;
    unsigned long long u = v < 0 ? 0ull - (unsigned long long)v : (unsigned long long)v;
    do {
        rev[n++] = (char)('0' + u % 10);
        u /= 10;
    } while (u);
    if (v < 0)
        *out++ = '-';
    while (n)
        *out++ = rev[--n];
    *out = '\0';
}

/* Appends len bytes of piece to buf (size bytes, *n used), as many as fit. */
static void append(char *buf, size_t size, size_t *n, const char *piece, size_t len)
{
    size_t room = size - 1 - *n;
    if (len > room)
        len = room;
    memcpy(buf + *n, piece, len);
    *n += len;
}

void bicl_name_format(char *buf, size_t size, const char *fmt, ...)
{
    if (size == 0)
        return;
    va_list ap;
    va_start(ap, fmt);
    size_t n = 0;
    char digits[24];
    for (const char *f = fmt; *f;) {
        const char *pct = strchr(f, '%');
        if (!pct) {
            append(buf, size, &n, f, strlen(f));
            break;
        }
        append(buf, size, &n, f, (size_t)(pct - f));
        const char *piece = digits;
        size_t used = 2; /* the conversion's characters */
        if (pct[1] == 's') {
            piece = va_arg(ap, const char *);
        } else if (pct[1] == 'd' || pct[1] == 'u') {
            long long v = pct[1] == 'd' ? (long long)va_arg(ap, int) : va_arg(ap, unsigned);
            decimal(digits, v);
        } else { /* "%%", or a conversion this does not support: the '%' as text */
            piece = "%";
            used = pct[1] == '%' ? 2 : 1;
        }
        append(buf, size, &n, piece, strlen(piece));
        f = pct + used;
    }
    buf[n] = '\0';
    va_end(ap);
}

bool bicl_names_of(bicl_family family, unsigned long long key, bicl_names **names)
{
    static _Thread_local bicl_names kept[BICL_FAMILY_COUNT];
    bicl_names *n = &kept[family];
    *names = n;
    if (n->key == key)
        return true;
    n->key = key;
    return false;
}

/* The kernel of a launch: "<base><suffix>", suffix one of "_strided", "_rows_f",
 * "_rows_s" and "_rows_v<vw>", kept per thread for the next launch of the same base and
 * suffix (comparing the base costs less than formatting the name). */
static const char *kernel_name(const char *base, const char *suffix, unsigned vw)
{
    static _Thread_local struct {
        char base[64];
        const char *suffix;
        unsigned vw;
        char name[96];
    } last;
    if (last.suffix == suffix && last.vw == vw && strcmp(last.base, base) == 0)
        return last.name;
    size_t len = strlen(base);
    bool keep = len < sizeof last.base; /* always for bicl's names */
    if (keep)
        memcpy(last.base, base, len + 1);
    last.suffix = keep ? suffix : NULL;
    last.vw = vw;
    if (vw)
        bicl_name_format(last.name, sizeof last.name, "%s%s%u", base, suffix, vw);
    else
        bicl_name_format(last.name, sizeof last.name, "%s%s", base, suffix);
    return last.name;
}

static void put_standard_args(bicl_args *w, const bicl_iter *it, shape_kind kind,
                              const bicl_tensor *const *ops, int n_ops, cl_uint ipt)
{
    for (int o = 0; o < n_ops; ++o) {
        bicl_arg_view(w, ops[o]);
        if (kind != SHAPE_STRIDED) { /* a flat iteration is one row: its stride is unused */
            cl_ulong row_stride = kind == SHAPE_ROWS ? it->stride[o][0] : 0;
            bicl_arg_scalar(w, sizeof row_stride, &row_stride);
        } else {
            /* Dims are right-aligned: the innermost iteration dim is .s3. */
            cl_ulong4 st = {{0, 0, 0, 0}};
            for (int d = 0; d < it->rank; ++d)
                st.s[4 - it->rank + d] = it->stride[o][d];
            bicl_arg_scalar(w, sizeof st, &st);
        }
    }
    if (kind == SHAPE_STRIDED) {
        cl_ulong4 shape = {{1, 1, 1, 1}};
        for (int d = 0; d < it->rank; ++d)
            shape.s[4 - it->rank + d] = it->shape[d];
        bicl_arg_scalar(w, sizeof shape, &shape);
    }
    cl_ulong n = kind == SHAPE_ROWS ? it->shape[1] : it->n;
    bicl_arg_scalar(w, sizeof n, &n);
    bicl_arg_scalar(w, sizeof ipt, &ipt);
}

/* Work units of dim 0: vectors per item, plus the scalar tail's work-items. */
static size_t vector_units(size_t n, unsigned vw, unsigned ipt)
{
    size_t nvec = n / vw, tail = n % vw;
    size_t units = (nvec + ipt - 1) / ipt;
    return units < tail ? tail : units;
}

/* The launch class (bicl_vclass_of) of an elementwise op: the last operand is the
 * output y. (The residual add's residual_out, third of four, counts as an input here:
 * it is f32, as wide as anything, so it cannot change the class.) */
static bicl_vclass launch_class(const bicl_tensor *const *ops, int n_ops)
{
    bicl_dtype d[BICL_MAX_OPERANDS];
    for (int o = 0; o < n_ops && o < BICL_MAX_OPERANDS; ++o)
        d[o] = ops[o]->dtype;
    return bicl_vclass_of(d, n_ops - 1, d + n_ops - 1, 1);
}

bicl_status bicl_launch_elementwise(bicl_context *ctx, bicl_memo *memo, cl_command_queue q,
                                    bicl_family family, const char *instance, const char *base,
                                    const bicl_tensor *const *ops, int n_ops,
                                    const bicl_kernel_arg *extra, int n_extra, cl_uint n_wait,
                                    const cl_event *wait, cl_event *done)
{
    return bicl_launch_elementwise_as(ctx, memo, launch_class(ops, n_ops), q, family, instance,
                                      NULL, base, ops, n_ops, extra, n_extra, n_wait, wait, done);
}

bicl_status bicl_launch_elementwise_as(bicl_context *ctx, bicl_memo *memo, bicl_vclass cls,
                                       cl_command_queue q, bicl_family family, const char *instance,
                                       const bicl_fix_form *fix_form, const char *base,
                                       const bicl_tensor *const *ops, int n_ops,
                                       const bicl_kernel_arg *extra, int n_extra, cl_uint n_wait,
                                       const cl_event *wait, cl_event *done)
{
    bicl_iter it;
    bicl_iter_build(&it, ops, n_ops);
    shape_kind kind = classify(&it);
    bicl_variant v = bicl_context_variant_for(ctx, cls);
    /* vector_width is 1, 4 or 8 (bicl_variant_check); 1 whenever it cannot be used */
    unsigned vw = v.vector_width > 1 && kind != SHAPE_STRIDED &&
                          aligned(ctx, memo, &it, ops, n_ops, kind, v.vector_width)
                      ? v.vector_width
                      : 1;
    /* Flat and rows iterations run the rows kernel (a flat one as one row); its loop-free
     * form where one element per work-item is all it does (bicl_kernel.h). */
    const char *name;
    const bicl_fix_form *fix = NULL; /* fix_form, where it replaces _rows_s */
    if (kind == SHAPE_STRIDED) {
        name = kernel_name(base, "_strided", 0);
    } else if (vw == 1 && v.items_per_thread == 1) {
        fix = fix_form;
        name = fix ? kernel_name(fix->base, "_rows_f", 0) : kernel_name(base, "_rows_s", 0);
    } else {
        name = kernel_name(base, "_rows_v", vw);
    }
    bicl_kernel *k = NULL;
    bicl_status st = bicl_kernel_acquire(ctx, family, fix ? fix->instance : instance, name, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_args w = {k, 0, CL_SUCCESS};
    cl_uint ipt = v.items_per_thread;
    put_standard_args(&w, &it, kind, ops, n_ops, ipt);
    for (int e = 0; e < n_extra; ++e)
        (extra[e].scalar ? bicl_arg_scalar : bicl_arg)(&w, extra[e].size, extra[e].value);
    size_t wg = v.work_group_size;
    if (fix) { /* the kernel's marks need a group of a known size */
        if (n_ops == 3) { /* BICL_ROWS_F_2_1: which input a declined element keeps in y */
            cl_uint hold_b = ops[2]->mem == ops[1]->mem && ops[2]->offset == ops[1]->offset;
            bicl_arg_scalar(&w, sizeof hold_b, &hold_b);
        }
        wg = fit_work_group(ctx, k, wg ? wg : BICL_ROWS_WORK_GROUP);
        bicl_arg(&w, wg, NULL);
    }
    if (w.err != CL_SUCCESS) {
        bicl_kernel_release(ctx, k);
        return bicl_fail_cl(w.err, "clSetKernelArg");
    }
    if (kind == SHAPE_ROWS)
        st = enqueue_2d(ctx, q, k, vector_units(it.shape[1], vw, ipt), it.shape[0], wg, n_wait,
                        wait, done);
    else if (kind == SHAPE_FLAT)
        st = bicl_enqueue(ctx, q, k, vector_units(it.n, vw, ipt), wg, n_wait, wait, done);
    else
        st = bicl_enqueue(ctx, q, k, (it.n + ipt - 1) / ipt, wg, n_wait, wait, done);
    bicl_kernel_release(ctx, k);
    if (fix && st == BICL_SUCCESS)
        atomic_fetch_add_explicit(&ctx->fixup_launches, 1ul, memory_order_relaxed);
    return st;
}

unsigned long bicl_fixup_launches(bicl_context *ctx)
{
    return atomic_load_explicit(&ctx->fixup_launches, memory_order_relaxed);
}
