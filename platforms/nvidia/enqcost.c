/* enqcost.c - what one enqueue of a given kernel costs on the host, against a 3-argument
 * copy kernel built in the same process: for telling apart what a kernel's program adds
 * to the driver's enqueue (its size, its program-scope constants, its build options) from
 * what its argument list adds (platforms/nvidia/argcost.c). docs/performance.md, "Host
 * overhead". Standalone (no bicl):
 *   gcc -O2 platforms/nvidia/enqcost.c -o enqcost -lOpenCL
 *   enqcost FILE.cl "OPTIONS" KERNEL ARGS [GLOBAL [LOCAL]]
 * ARGS: one letter per kernel argument, b a buffer, L a ulong, I a uint (values 0: the
 * kernel's work is not timed). Every enqueue sets the buffers again, as bicl does. */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

static const char *copy_src = "kernel void copy4(global const float4 *x, global float4 *y, ulong n)"
                              "{ size_t i = get_global_id(0); if (i < n) y[i] = x[i]; }\n";

static cl_program build(cl_context c, cl_device_id d, const char *src, const char *opts)
{
    cl_int e;
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    if (e != CL_SUCCESS || clBuildProgram(p, 1, &d, opts, NULL, NULL) != CL_SUCCESS) {
        static char log[65536];
        clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, sizeof log, log, NULL);
        fprintf(stderr, "build failed:\n%s\n", log);
        exit(1);
    }
    return p;
}

/* median over 9 batches of 200 enqueues, each setting the buffer arguments first */
static double time_enqueue(cl_command_queue q, cl_kernel k, const char *args, cl_mem *m, size_t g,
                           size_t l)
{
    double t[9];
    for (int r = 0; r < 9; ++r) {
        double t0 = now();
        for (int it = 0; it < 200; ++it) {
            int nb = 0;
            for (cl_uint a = 0; args[a]; ++a)
                if (args[a] == 'b')
                    clSetKernelArg(k, a, sizeof(cl_mem), &m[nb++]);
            if (clEnqueueNDRangeKernel(q, k, 1, NULL, &g, l ? &l : NULL, 0, NULL, NULL) !=
                CL_SUCCESS) {
                fprintf(stderr, "enqueue failed\n");
                exit(1);
            }
        }
        t[r] = (now() - t0) / 200 * 1e6;
        clFinish(q);
    }
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    return t[4];
}

int main(int argc, char **argv)
{
    if (argc < 5) {
        fprintf(stderr, "usage: enqcost FILE.cl OPTIONS KERNEL ARGS [GLOBAL [LOCAL]]\n");
        return 2;
    }
    FILE *f = fopen(argv[1], "rb");
    if (!f)
        return 2;
    fseek(f, 0, SEEK_END);
    long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *src = size > 0 ? calloc(1, (size_t)size + 1) : NULL;
    bool read = src && fread(src, 1, (size_t)size, f) == (size_t)size;
    fclose(f);
    if (!read)
        return 2;
    size_t g = argc > 5 ? strtoul(argv[5], NULL, 10) : 1024;
    size_t l = argc > 6 ? strtoul(argv[6], NULL, 10) : 0;
    cl_platform_id ps[8];
    cl_uint np;
    clGetPlatformIDs(8, ps, &np);
    cl_device_id d = NULL;
    for (cl_uint i = 0; i < np && !d; ++i)
        if (clGetDeviceIDs(ps[i], getenv("ENQCOST_ANY") ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU,
                           1, &d, NULL) != CL_SUCCESS)
            d = NULL;
    if (!d)
        return 1;
    cl_int e;
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    cl_command_queue q = clCreateCommandQueue(c, d, 0, &e);
    cl_mem m[16];
    for (int i = 0; i < 16; ++i)
        m[i] = clCreateBuffer(c, CL_MEM_READ_WRITE, 1 << 20, NULL, &e);
    cl_kernel copy = clCreateKernel(build(c, d, copy_src, argv[2]), "copy4", &e);
    cl_ulong n = 0;
    clSetKernelArg(copy, 2, sizeof n, &n);
    cl_kernel k = clCreateKernel(build(c, d, src, argv[2]), argv[3], &e);
    if (e != CL_SUCCESS) {
        fprintf(stderr, "no kernel %s\n", argv[3]);
        return 1;
    }
    cl_ulong zl = 0;
    cl_uint zi = 0;
    for (cl_uint a = 0; argv[4][a]; ++a)
        if (argv[4][a] == 'L')
            clSetKernelArg(k, a, sizeof zl, &zl);
        else if (argv[4][a] == 'I')
            clSetKernelArg(k, a, sizeof zi, &zi);
    for (int round = 0; round < 3; ++round)
        printf("%s %s: %.2f us per enqueue; copy4 (3 arguments) %.2f us\n", argv[3], argv[2],
               time_enqueue(q, k, argv[4], m, g, l), time_enqueue(q, copy, "bbL", m, 1024, 0));
    return 0;
}
