/* clprof.c - where a call's host time goes: an LD_PRELOAD shim that times every
 * clSetKernelArg, clEnqueueNDRangeKernel, clGetMemObjectInfo and clGetCommandQueueInfo
 * inside the runtime, per kernel (by its function name), and prints the totals at exit.
 * With `bicl-bench --latency` the bare enqueue's kernel (copy4) and bicl's kernels are
 * told apart, so that what bicl adds per call splits into the runtime's share (more
 * arguments, a different kernel) and bicl's own code (the call's time minus the runtime's):
 * docs/performance.md, "Host overhead". Standalone (no bicl), any OpenCL implementation:
 *   gcc -O2 -shared -fPIC platforms/nvidia/clprof.c -o clprof.so -ldl
 *   LD_PRELOAD=$PWD/clprof.so bicl-bench --device nvidia --latency --reps 9 */
#define _GNU_SOURCE
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#define MAX_KERNELS 256

typedef struct {
    cl_kernel k;
    char name[96];
    unsigned long set_n, enq_n;
    double set_s, enq_s;
} kernel_row;

static kernel_row rows[MAX_KERNELS];
static int n_rows;
static unsigned long mem_n, queue_n;
static double mem_s, queue_s;

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static void *real(const char *name)
{
    return dlsym(RTLD_NEXT, name);
}

/* single-threaded callers (the bench's latency part): no locking */
static kernel_row *row_of(cl_kernel k)
{
    for (int i = 0; i < n_rows; ++i)
        if (rows[i].k == k)
            return &rows[i];
    if (n_rows == MAX_KERNELS)
        return NULL;
    kernel_row *r = &rows[n_rows++];
    r->k = k;
    cl_int (*info)(cl_kernel, cl_kernel_info, size_t, void *, size_t *) =
        (cl_int(*)(cl_kernel, cl_kernel_info, size_t, void *, size_t *))real("clGetKernelInfo");
    if (!info || info(k, CL_KERNEL_FUNCTION_NAME, sizeof r->name, r->name, NULL) != CL_SUCCESS)
        snprintf(r->name, sizeof r->name, "?");
    return r;
}

CL_API_ENTRY cl_int CL_API_CALL clSetKernelArg(cl_kernel k, cl_uint i, size_t size,
                                               const void *value)
{
    static cl_int (*f)(cl_kernel, cl_uint, size_t, const void *);
    if (!f)
        f = (cl_int(*)(cl_kernel, cl_uint, size_t, const void *))real("clSetKernelArg");
    double t0 = now();
    cl_int err = f(k, i, size, value);
    double dt = now() - t0;
    kernel_row *r = row_of(k);
    if (r) {
        r->set_n++;
        r->set_s += dt;
    }
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k,
                                                       cl_uint dims, const size_t *offset,
                                                       const size_t *global, const size_t *local,
                                                       cl_uint n_wait, const cl_event *wait,
                                                       cl_event *done)
{
    typedef cl_int (*fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                         const size_t *, cl_uint, const cl_event *, cl_event *);
    static fn f;
    if (!f)
        f = (fn)real("clEnqueueNDRangeKernel");
    double t0 = now();
    cl_int err = f(q, k, dims, offset, global, local, n_wait, wait, done);
    double dt = now() - t0;
    kernel_row *r = row_of(k);
    if (r) {
        r->enq_n++;
        r->enq_s += dt;
    }
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info what, size_t size,
                                                   void *value, size_t *size_ret)
{
    typedef cl_int (*fn)(cl_mem, cl_mem_info, size_t, void *, size_t *);
    static fn f;
    if (!f)
        f = (fn)real("clGetMemObjectInfo");
    double t0 = now();
    cl_int err = f(m, what, size, value, size_ret);
    mem_s += now() - t0;
    mem_n++;
    return err;
}

CL_API_ENTRY cl_int CL_API_CALL clGetCommandQueueInfo(cl_command_queue q,
                                                      cl_command_queue_info what, size_t size,
                                                      void *value, size_t *size_ret)
{
    typedef cl_int (*fn)(cl_command_queue, cl_command_queue_info, size_t, void *, size_t *);
    static fn f;
    if (!f)
        f = (fn)real("clGetCommandQueueInfo");
    double t0 = now();
    cl_int err = f(q, what, size, value, size_ret);
    queue_s += now() - t0;
    queue_n++;
    return err;
}

__attribute__((destructor)) static void report(void)
{
    fprintf(stderr, "clprof: kernel: enqueues, us per enqueue; clSetKernelArg calls per "
                    "enqueue, us per enqueue\n");
    for (int i = 0; i < n_rows; ++i) {
        const kernel_row *r = &rows[i];
        if (r->enq_n < 100)
            continue;
        double n = (double)r->enq_n;
        fprintf(stderr, "clprof: %-48s %8lu %7.3f us %5.2f %7.3f us\n", r->name, r->enq_n,
                r->enq_s / n * 1e6, (double)r->set_n / n, r->set_s / n * 1e6);
    }
    fprintf(stderr,
            "clprof: clGetMemObjectInfo %lu calls, %.3f us each; clGetCommandQueueInfo "
            "%lu calls, %.3f us each\n",
            mem_n, mem_n ? mem_s / (double)mem_n * 1e6 : 0.0, queue_n,
            queue_n ? queue_s / (double)queue_n * 1e6 : 0.0);
}
