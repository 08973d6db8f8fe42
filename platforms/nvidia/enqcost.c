/* enqcost.c - what one enqueue of a given kernel costs on the host, against a 3-argument
 * copy kernel built in the same process: for telling apart what a kernel's program adds
 * to the driver's enqueue (its size, its program-scope constants, its build options) from
 * what its argument list adds (platforms/nvidia/argcost.c). docs/performance.md, "Host
 * overhead". Standalone (no bicl):
 *   gcc -O2 platforms/nvidia/enqcost.c -o enqcost -lOpenCL
 *   enqcost FILE.cl "OPTIONS" KERNEL ARGS [GLOBAL [LOCAL]]
 * ARGS: one letter per kernel argument, b a buffer, L a ulong, I a uint (values 0: the
 * kernel's work is not timed). Every enqueue sets the buffers again, as bicl does.
 * What bicl does around its enqueue, in the kernel's loop only (copy4's stays bare), from
 * the environment: ENQCOST_QUERIES=k, k clGetMemObjectInfo and one clGetCommandQueueInfo
 * per enqueue (bicl's validation); ENQCOST_TOUCH=KiB, that much host memory read and
 * written per enqueue (the caches a library's own code and data take from the driver's);
 * ENQCOST_TABLE=1, the last buffer argument a 128 KiB CL_MEM_READ_ONLY |
 * CL_MEM_COPY_HOST_PTR buffer (bicl's lookup tables; 2 read-only filled by a write, 3
 * read-write with CL_MEM_COPY_HOST_PTR, 4 read-write filled by a write). The enqueue call alone is timed
 * too. */
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

static int env_int(const char *name)
{
    const char *v = getenv(name);
    return v ? atoi(v) : 0;
}

/* bicl's work around an enqueue (see the head comment); returns a checksum so that the
 * touch is not optimised away */
static unsigned perturb(cl_command_queue q, cl_mem *m, int queries, volatile unsigned char *touch,
                        size_t touch_bytes)
{
    unsigned sum = 0;
    for (int i = 0; i < queries; ++i) {
        size_t size = 0;
        clGetMemObjectInfo(m[i % 3], CL_MEM_SIZE, sizeof size, &size, NULL);
        sum += (unsigned)size;
    }
    if (queries) {
        cl_context c = NULL;
        clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof c, &c, NULL);
    }
    for (size_t i = 0; i < touch_bytes; i += 64)
        sum += touch[i]++;
    return sum;
}

static double enqueue_us_median; /* the enqueue call alone, of the last time_enqueue */

/* the median of t[9], sorting it */
static double median9(double *t)
{
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    return t[4];
}

/* median over 9 batches of 200 enqueues, each setting the buffer arguments first */
static double time_enqueue(cl_command_queue q, cl_kernel k, const char *args, cl_mem *m, size_t g,
                           size_t l, bool perturbed)
{
    static volatile unsigned char touch[64 << 20];
    static unsigned sink;
    int queries = perturbed ? env_int("ENQCOST_QUERIES") : 0;
    size_t touch_bytes = perturbed ? (size_t)env_int("ENQCOST_TOUCH") << 10 : 0;
    if (touch_bytes > sizeof touch)
        touch_bytes = sizeof touch;
    double t[9], te[9];
    for (int r = 0; r < 9; ++r) {
        double t0 = now();
        te[r] = 0;
        for (int it = 0; it < 200; ++it) {
            sink += perturb(q, m, queries, touch, touch_bytes);
            int nb = 0;
            for (cl_uint a = 0; args[a]; ++a)
                if (args[a] == 'b')
                    clSetKernelArg(k, a, sizeof(cl_mem), &m[nb++]);
            double e0 = now();
            if (clEnqueueNDRangeKernel(q, k, 1, NULL, &g, l ? &l : NULL, 0, NULL, NULL) !=
                CL_SUCCESS) {
                fprintf(stderr, "enqueue failed\n");
                exit(1);
            }
            te[r] += now() - e0;
        }
        t[r] = (now() - t0) / 200 * 1e6;
        te[r] = te[r] / 200 * 1e6;
        clFinish(q);
    }
    enqueue_us_median = median9(te);
    return median9(t);
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
    if (env_int("ENQCOST_TABLE")) {
        static unsigned table[32768];
        int last = 0;
        for (int a = 0; argv[4][a]; ++a)
            last += argv[4][a] == 'b';
        if (last == 0 || last > 16) {
            fprintf(stderr, "ENQCOST_TABLE needs 1 to 16 buffer arguments\n");
            return 2;
        }
        /* 1: as bicl's tables; 2: read-only, filled by a write; 3: read-write with
         * COPY_HOST_PTR; 4: read-write, filled by a write (which flag costs the enqueue) */
        int how = env_int("ENQCOST_TABLE");
        cl_mem_flags flags = how <= 2 ? CL_MEM_READ_ONLY : CL_MEM_READ_WRITE;
        bool copy = how == 1 || how == 3;
        clReleaseMemObject(m[last - 1]);
        m[last - 1] = clCreateBuffer(c, flags | (copy ? CL_MEM_COPY_HOST_PTR : 0), sizeof table,
                                     copy ? table : NULL, &e);
        if (!copy)
            clEnqueueWriteBuffer(q, m[last - 1], CL_TRUE, 0, sizeof table, table, 0, NULL, NULL);
    }
    printf("queries %d, touch %d KiB, table %d\n", env_int("ENQCOST_QUERIES"),
           env_int("ENQCOST_TOUCH"), env_int("ENQCOST_TABLE"));
    for (int round = 0; round < 3; ++round) {
        double tk = time_enqueue(q, k, argv[4], m, g, l, true), ek = enqueue_us_median;
        double tc = time_enqueue(q, copy, "bbL", m, 1024, 0, false), ec = enqueue_us_median;
        printf("%s %s: %.2f us per call (enqueue alone %.2f); copy4 (3 arguments) %.2f (%.2f)\n",
               argv[3], argv[2], tk, ek, tc, ec);
    }
    return 0;
}
