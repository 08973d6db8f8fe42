/* faultinject.c - a shim preloaded into test_faults (LD_PRELOAD, tests/reliability.cmake)
 * that makes chosen OpenCL entry points fail on demand, so that device faults, which a
 * healthy PoCL never produces, can be tested: allocation failures, CL_OUT_OF_RESOURCES,
 * CL_OUT_OF_HOST_MEMORY. Every call is forwarded to the real OpenCL (dlsym RTLD_NEXT)
 * unless the test armed a fault for that entry point with bicl_fault_arm().
 *
 * It also counts buffers created and released, so that a test can see that a failing
 * call released what it had already allocated, and the calls of clGetMemObjectInfo, so
 * that a test can see how often a call asks about its buffers (host overhead), and the
 * local size of the last kernel enqueue (work-group sizes, which PoCL compiles for). */
#define _GNU_SOURCE
#include <dlfcn.h>

#include "faultinject.h"

#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct fault {
    const char *entry;
    _Atomic int skip;  /* calls to let through first */
    _Atomic int count; /* calls to fail after that */
    _Atomic cl_int err;
    _Atomic int hits; /* calls failed so far */
} fault;

enum { F_ENQUEUE_KERNEL, F_CREATE_BUFFER, F_CREATE_KERNEL, F_BUILD, F_READ, F_COUNT };
static fault faults[F_COUNT] = {
    {"clEnqueueNDRangeKernel", 0, 0, 0, 0}, {"clCreateBuffer", 0, 0, 0, 0},
    {"clCreateKernel", 0, 0, 0, 0},         {"clBuildProgram", 0, 0, 0, 0},
    {"clEnqueueReadBuffer", 0, 0, 0, 0},
};
static _Atomic long buffers_live;
static _Atomic long mem_queries;
static _Atomic long last_local; /* dim 0 of the last kernel enqueue's local size, 0 for NULL */

static fault *find(const char *entry)
{
    for (int i = 0; i < F_COUNT; ++i)
        if (strcmp(faults[i].entry, entry) == 0)
            return &faults[i];
    return NULL;
}

int bicl_fault_arm(const char *entry, cl_int err, int skip, int count)
{
    fault *f = find(entry);
    if (!f)
        return -1;
    atomic_store(&f->count, 0);
    atomic_store(&f->err, err);
    atomic_store(&f->skip, skip);
    atomic_store(&f->hits, 0);
    atomic_store(&f->count, count);
    return 0;
}

int bicl_fault_hits(const char *entry)
{
    fault *f = find(entry);
    return f ? atomic_load(&f->hits) : -1;
}

long bicl_fault_buffers_live(void)
{
    return atomic_load(&buffers_live);
}

long bicl_fault_calls(const char *entry)
{
    return strcmp(entry, "clGetMemObjectInfo") == 0 ? atomic_load(&mem_queries) : -1;
}

long bicl_fault_last_local_size(void)
{
    return atomic_load(&last_local);
}

/* The error to return for this call, or CL_SUCCESS to forward it. */
static cl_int take(fault *f)
{
    if (atomic_load(&f->count) <= 0)
        return CL_SUCCESS;
    if (atomic_fetch_sub(&f->skip, 1) > 0)
        return CL_SUCCESS;
    if (atomic_fetch_sub(&f->count, 1) <= 0)
        return CL_SUCCESS;
    atomic_fetch_add(&f->hits, 1);
    return atomic_load(&f->err);
}

/* The real entry points this shim forwards to, each looked up once (dlsym on every call
 * cost a symbol search per OpenCL call of the tests that preload it); a missing one is a
 * broken setup, not a test result. */
#define REAL_FNS(X)                                                                                \
    X(clEnqueueNDRangeKernel)                                                                      \
    X(clCreateBuffer)                                                                              \
    X(clGetMemObjectInfo)                                                                          \
    X(clReleaseMemObject)                                                                          \
    X(clCreateKernel)                                                                              \
    X(clBuildProgram)                                                                              \
    X(clEnqueueReadBuffer)
#define REAL_SLOT(name) static _Atomic(void *) real_##name;
REAL_FNS(REAL_SLOT)

static void *real(_Atomic(void *) *slot, const char *name)
{
    void *p = atomic_load(slot);
    if (p)
        return p;
    p = dlsym(RTLD_NEXT, name);
    if (!p) {
        fprintf(stderr, "faultinject: no real %s\n", name);
        abort();
    }
    atomic_store(slot, p); /* every thread that races here stores the same address */
    return p;
}

#define REAL(type, name) ((type)real(&real_##name, #name))

CL_API_ENTRY cl_int CL_API_CALL clEnqueueNDRangeKernel(cl_command_queue q, cl_kernel k, cl_uint dim,
                                                       const size_t *offset, const size_t *global,
                                                       const size_t *local, cl_uint n_wait,
                                                       const cl_event *wait, cl_event *ev)
{
    typedef cl_int (*fn)(cl_command_queue, cl_kernel, cl_uint, const size_t *, const size_t *,
                         const size_t *, cl_uint, const cl_event *, cl_event *);
    cl_int err = take(&faults[F_ENQUEUE_KERNEL]);
    if (err != CL_SUCCESS)
        return err;
    atomic_store(&last_local, local ? (long)local[0] : 0);
    return REAL(fn, clEnqueueNDRangeKernel)(q, k, dim, offset, global, local, n_wait, wait, ev);
}

CL_API_ENTRY cl_mem CL_API_CALL clCreateBuffer(cl_context c, cl_mem_flags flags, size_t size,
                                               void *host, cl_int *errcode)
{
    typedef cl_mem (*fn)(cl_context, cl_mem_flags, size_t, void *, cl_int *);
    cl_int err = take(&faults[F_CREATE_BUFFER]);
    if (err != CL_SUCCESS) {
        if (errcode)
            *errcode = err;
        return NULL;
    }
    cl_mem m = REAL(fn, clCreateBuffer)(c, flags, size, host, errcode);
    if (m)
        atomic_fetch_add(&buffers_live, 1);
    return m;
}

typedef cl_int (*mem_info_fn)(cl_mem, cl_mem_info, size_t, void *, size_t *);

CL_API_ENTRY cl_int CL_API_CALL clGetMemObjectInfo(cl_mem m, cl_mem_info what, size_t size,
                                                   void *value, size_t *size_ret)
{
    atomic_fetch_add(&mem_queries, 1);
    return REAL(mem_info_fn, clGetMemObjectInfo)(m, what, size, value, size_ret);
}

CL_API_ENTRY cl_int CL_API_CALL clReleaseMemObject(cl_mem m)
{
    typedef cl_int (*fn)(cl_mem);
    mem_info_fn info = REAL(mem_info_fn, clGetMemObjectInfo); /* not counted: the shim's own */
    cl_mem_object_type type = 0;
    cl_uint refs = 0;
    /* Only the last release of a buffer (not a sub-buffer) ends it. */
    if (info(m, CL_MEM_TYPE, sizeof type, &type, NULL) == CL_SUCCESS &&
        info(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL) == CL_SUCCESS) {
        cl_mem parent = NULL;
        info(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL);
        if (type == CL_MEM_OBJECT_BUFFER && !parent && refs == 1)
            atomic_fetch_sub(&buffers_live, 1);
    }
    return REAL(fn, clReleaseMemObject)(m);
}

CL_API_ENTRY cl_kernel CL_API_CALL clCreateKernel(cl_program p, const char *name, cl_int *errcode)
{
    typedef cl_kernel (*fn)(cl_program, const char *, cl_int *);
    cl_int err = take(&faults[F_CREATE_KERNEL]);
    if (err != CL_SUCCESS) {
        if (errcode)
            *errcode = err;
        return NULL;
    }
    return REAL(fn, clCreateKernel)(p, name, errcode);
}

CL_API_ENTRY cl_int CL_API_CALL clBuildProgram(cl_program p, cl_uint n, const cl_device_id *devs,
                                               const char *options,
                                               void(CL_CALLBACK *notify)(cl_program, void *),
                                               void *user)
{
    typedef cl_int (*fn)(cl_program, cl_uint, const cl_device_id *, const char *,
                         void(CL_CALLBACK *)(cl_program, void *), void *);
    cl_int err = take(&faults[F_BUILD]);
    if (err != CL_SUCCESS)
        return err;
    return REAL(fn, clBuildProgram)(p, n, devs, options, notify, user);
}

CL_API_ENTRY cl_int CL_API_CALL clEnqueueReadBuffer(cl_command_queue q, cl_mem m, cl_bool block,
                                                    size_t offset, size_t size, void *ptr,
                                                    cl_uint n_wait, const cl_event *wait,
                                                    cl_event *ev)
{
    typedef cl_int (*fn)(cl_command_queue, cl_mem, cl_bool, size_t, size_t, void *, cl_uint,
                         const cl_event *, cl_event *);
    cl_int err = take(&faults[F_READ]);
    if (err != CL_SUCCESS)
        return err;
    return REAL(fn, clEnqueueReadBuffer)(q, m, block, offset, size, ptr, n_wait, wait, ev);
}
