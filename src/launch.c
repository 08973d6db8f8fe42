/* launch.c - variant selection and the shared elementwise launcher. Every pointwise
 * op goes through bicl_launch_elementwise, so that the way a kernel is chosen and
 * its arguments are laid out exists once. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static size_t round_up(size_t x, size_t m)
{
    return (x + m - 1) / m * m;
}

/* The kernel's own limit can be below the device's (register pressure). */
static size_t fit_work_group(cl_kernel k, cl_device_id dev, size_t wg)
{
    size_t kmax = 0;
    if (wg == 0 || clGetKernelWorkGroupInfo(k, dev, CL_KERNEL_WORK_GROUP_SIZE, sizeof kmax, &kmax,
                                            NULL) != CL_SUCCESS)
        return wg;
    while (wg > kmax && wg > 1)
        wg /= 2;
    return wg;
}

bicl_status bicl_enqueue(bicl_context *ctx, cl_command_queue q, cl_kernel k, size_t units,
                         size_t wg, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    wg = fit_work_group(k, ctx->device, wg);
    size_t global = units ? units : 1;
    if (wg)
        global = round_up(global, wg);
    cl_int err = clEnqueueNDRangeKernel(q, k, 1, NULL, &global, wg ? &wg : NULL, n_wait,
                                        n_wait ? wait : NULL, done);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clEnqueueNDRangeKernel");
    return BICL_SUCCESS;
}

static bool flat_aligned(const bicl_tensor *const *ops, int n_ops, unsigned vw)
{
    for (int o = 0; o < n_ops; ++o)
        if (ops[o]->offset % vw != 0)
            return false;
    return true;
}

void bicl_arg(bicl_args *a, size_t size, const void *value)
{
    if (a->err == CL_SUCCESS)
        a->err = clSetKernelArg(a->k, a->index, size, value);
    a->index++;
}

void bicl_arg_view(bicl_args *a, const bicl_tensor *t)
{
    cl_ulong off = t->offset;
    bicl_arg(a, sizeof(cl_mem), &t->mem);
    bicl_arg(a, sizeof off, &off);
}

static void put_standard_args(bicl_args *w, const bicl_iter *it, const bicl_tensor *const *ops,
                              int n_ops, cl_uint ipt)
{
    for (int o = 0; o < n_ops; ++o) {
        bicl_arg_view(w, ops[o]);
        if (!it->flat) {
            /* Dims are right-aligned: the innermost iteration dim is .s3. */
            cl_ulong4 st = {{0, 0, 0, 0}};
            for (int d = 0; d < it->rank; ++d)
                st.s[4 - it->rank + d] = it->stride[o][d];
            bicl_arg(w, sizeof st, &st);
        }
    }
    if (!it->flat) {
        cl_ulong4 shape = {{1, 1, 1, 1}};
        for (int d = 0; d < it->rank; ++d)
            shape.s[4 - it->rank + d] = it->shape[d];
        bicl_arg(w, sizeof shape, &shape);
    }
    cl_ulong n = it->n;
    bicl_arg(w, sizeof n, &n);
    bicl_arg(w, sizeof ipt, &ipt);
}

bicl_status bicl_launch_elementwise(bicl_context *ctx, cl_command_queue q, bicl_family family,
                                    const char *base, const bicl_tensor *const *ops, int n_ops,
                                    const bicl_kernel_arg *extra, int n_extra, cl_uint n_wait,
                                    const cl_event *wait, cl_event *done)
{
    bicl_iter it;
    bicl_iter_build(&it, ops, n_ops);
    bicl_variant v = bicl_context_variant_snapshot(ctx);
    unsigned vw = it.flat && flat_aligned(ops, n_ops, v.vector_width) ? v.vector_width : 1;
    char name[96];
    if (it.flat)
        snprintf(name, sizeof name, "%s_flat_v%u", base, vw);
    else
        snprintf(name, sizeof name, "%s_strided", base);
    cl_kernel k = NULL;
    bicl_status st = bicl_kernel_acquire(ctx, family, name, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_args w = {k, 0, CL_SUCCESS};
    cl_uint ipt = v.items_per_thread;
    put_standard_args(&w, &it, ops, n_ops, ipt);
    for (int e = 0; e < n_extra; ++e)
        bicl_arg(&w, extra[e].size, extra[e].value);
    if (w.err != CL_SUCCESS) {
        bicl_kernel_release(ctx, name, k);
        return bicl_fail_cl(w.err, "clSetKernelArg");
    }
    size_t units;
    if (it.flat) {
        size_t nvec = it.n / vw, tail = it.n % vw;
        units = (nvec + ipt - 1) / ipt;
        if (units < tail)
            units = tail;
    } else {
        units = (it.n + ipt - 1) / ipt;
    }
    st = bicl_enqueue(ctx, q, k, units, v.work_group_size, n_wait, wait, done);
    bicl_kernel_release(ctx, name, k);
    return st;
}
