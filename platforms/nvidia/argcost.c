/* argcost.c - what one enqueue costs on the host against the kernel's argument count
 * and kind (buffers, scalars, one struct by value), and what the queries bicl's
 * validation makes (clGetMemObjectInfo, clGetCommandQueueInfo) cost: the measurement
 * behind the next step on host overhead (docs/performance.md, "Host overhead").
 * Standalone (no bicl): gcc -O2 platforms/nvidia/argcost.c -o argcost -lOpenCL; it
 * takes the first GPU (ARGCOST_ANY=1: the first device of any type). */
#define CL_TARGET_OPENCL_VERSION 120
#include <CL/cl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec * 1e-9;
}
static const char *src =
    "typedef struct { uint v[32]; } pack32;\n"
    "#define S1 uint s0\n"
    "#define S8 S1, uint s1, uint s2, uint s3, uint s4, uint s5, uint s6, uint s7\n"
    "#define S32 S8, uint t0,uint t1,uint t2,uint t3,uint t4,uint t5,uint t6,uint t7,uint u0,uint "
    "u1,uint u2,uint u3,uint u4,uint u5,uint u6,uint u7,uint w0,uint w1,uint w2,uint w3,uint "
    "w4,uint w5,uint w6,uint w7\n"
    "kernel void ks1(global float *a, global float *b, S1){ size_t i=get_global_id(0); "
    "b[i]=a[i]+s0; }\n"
    "kernel void ks8(global float *a, global float *b, S8){ size_t i=get_global_id(0); "
    "b[i]=a[i]+s0+s7; }\n"
    "kernel void ks32(global float *a, global float *b, S32){ size_t i=get_global_id(0); "
    "b[i]=a[i]+s0+w7; }\n"
    "kernel void kstruct(global float *a, global float *b, pack32 p){ size_t i=get_global_id(0); "
    "b[i]=a[i]+p.v[0]+p.v[31]; }\n"
    "kernel void kb6(global float *a, global float *b, global float *c, global float *d, global "
    "float *e, global float *f, S1){ size_t i=get_global_id(0); b[i]=a[i]+s0; "
    "if(i==1u<<30){c[0]=d[0]+e[0]+f[0];} }\n"
    "kernel void kb3s6(global float *a, global float *b, global float *c, uint s0, uint s1, uint "
    "s2, uint s3, uint s4, uint s5){ size_t i=get_global_id(0); b[i]=a[i]+c[s0&1]+s1+s2+s3+s4+s5; "
    "}\n"
    "kernel void kb2s6(global float *a, global float *b, uint s0, uint s1, uint s2, uint s3, uint "
    "s4, uint s5){ size_t i=get_global_id(0); b[i]=a[i]+s0+s1+s2+s3+s4+s5; }\n"
    "kernel void kb3s1(global float *a, global float *b, global float *c, uint s0){ size_t "
    "i=get_global_id(0); b[i]=a[i]+c[s0&1]; }\n"
    "kernel void kb10(global float *a, global float *b, global float *c, global float *d, global "
    "float *e, global float *f, global float *g, global float *h, global float *k, global float "
    "*l, S1){ size_t i=get_global_id(0); b[i]=a[i]+s0; "
    "if(i==1u<<30){c[0]=d[0]+e[0]+f[0]+g[0]+h[0]+k[0]+l[0];} }\n";
static cl_command_queue q;
static cl_mem m[10];
/* k's arguments: nbuf buffers, then nscal zero scalars or one struct of 32 zeros */
static void set_args(cl_kernel k, int nbuf, int nscal, int structarg)
{
    cl_uint z = 0;
    unsigned pk[32] = {0};
    for (int i = 0; i < nbuf; ++i)
        clSetKernelArg(k, i, sizeof(cl_mem), &m[i]);
    for (int i = 0; i < nscal; ++i)
        clSetKernelArg(k, nbuf + i, sizeof z, &z);
    if (structarg)
        clSetKernelArg(k, nbuf, sizeof pk, pk);
}

static double run(cl_kernel k, int nbuf, int nscal, int structarg, int setall, int nolocal)
{
    double best[9];
    size_t g = 4096, l = 128;
    set_args(k, nbuf, nscal, structarg);
    for (int r = 0; r < 9; ++r) {
        double t0 = now();
        for (int it = 0; it < 200; ++it) {
            if (setall)
                set_args(k, nbuf, nscal, structarg);
            if (clEnqueueNDRangeKernel(q, k, 1, NULL, &g, nolocal ? NULL : &l, 0, NULL, NULL) !=
                CL_SUCCESS) {
                puts("enqueue failed");
                exit(1);
            }
        }
        best[r] = (now() - t0) / 200 * 1e6;
        clFinish(q);
    }
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            if (best[j] < best[i]) {
                double x = best[i];
                best[i] = best[j];
                best[j] = x;
            }
    return best[4];
}
int main(void)
{
    cl_platform_id ps[8];
    cl_uint np;
    clGetPlatformIDs(8, ps, &np);
    cl_device_id d = NULL;
    for (cl_uint i = 0; i < np && !d; ++i)
        if (clGetDeviceIDs(ps[i], getenv("ARGCOST_ANY") ? CL_DEVICE_TYPE_ALL : CL_DEVICE_TYPE_GPU,
                           1, &d, NULL) != CL_SUCCESS)
            d = NULL;
    if (!d) {
        puts("no gpu");
        return 1;
    }
    cl_int e;
    cl_context c = clCreateContext(NULL, 1, &d, NULL, NULL, &e);
    q = clCreateCommandQueue(c, d, 0, &e);
    for (int i = 0; i < 10; ++i)
        m[i] = clCreateBuffer(c, CL_MEM_READ_WRITE, 1 << 20, NULL, &e);
    cl_program p = clCreateProgramWithSource(c, 1, &src, NULL, &e);
    if (clBuildProgram(p, 1, &d, "", NULL, NULL)) {
        char log[8000];
        clGetProgramBuildInfo(p, d, CL_PROGRAM_BUILD_LOG, 8000, log, NULL);
        puts(log);
        return 1;
    }
    /* kb3s6: the shape of bicl's unary table kernel (x, xo, xr, y, yo, yr, n, ipt, table: 3
     * buffers, 6 scalars); local NULL: what bicl-bench's bare enqueue passes. The
     * configurations interleave over five rounds (a GPU host's timings drift between
     * passes). */
    struct {
        const char *n;
        int nb, ns, st, nolocal;
    } K[] = {{"ks1", 2, 1, 0, 0},   {"ks1", 2, 1, 0, 1},     {"ks8", 2, 8, 0, 0},
             {"ks32", 2, 32, 0, 0}, {"kstruct", 2, 0, 1, 0}, {"kb6", 6, 1, 0, 0},
             {"kb10", 10, 1, 0, 0}, {"kb3s6", 3, 6, 0, 0},   {"kb3s6", 3, 6, 0, 1},
             {"kb2s6", 2, 6, 0, 0}, {"kb3s1", 3, 1, 0, 0}};
    for (int rep = 0; rep < 5; ++rep)
        for (size_t i = 0; i < sizeof K / sizeof K[0]; ++i) {
            cl_kernel k = clCreateKernel(p, K[i].n, &e);
            if (e != CL_SUCCESS) {
                printf("kernel %s: %d\n", K[i].n, e);
                return 1;
            }
            double a = run(k, K[i].nb, K[i].ns, K[i].st, 1, K[i].nolocal),
                   b = run(k, K[i].nb, K[i].ns, K[i].st, 0, K[i].nolocal);
            printf("round %d %-8s buffers %2d scalars %2d struct %d local %s: set all + enqueue "
                   "%.2f us, enqueue only %.2f us\n",
                   rep, K[i].n, K[i].nb, K[i].ns, K[i].st, K[i].nolocal ? "NULL" : "128", a, b);
            clReleaseKernel(k);
        }
    double t[9];
    for (int r = 0; r < 9; ++r) {
        double t0 = now();
        for (int it = 0; it < 200; ++it) {
            size_t sz;
            cl_mem_flags fl;
            cl_context mc;
            cl_mem par;
            clGetMemObjectInfo(m[0], CL_MEM_CONTEXT, sizeof mc, &mc, NULL);
            clGetMemObjectInfo(m[0], CL_MEM_SIZE, sizeof sz, &sz, NULL);
            clGetMemObjectInfo(m[0], CL_MEM_FLAGS, sizeof fl, &fl, NULL);
            clGetMemObjectInfo(m[0], CL_MEM_ASSOCIATED_MEMOBJECT, sizeof par, &par, NULL);
        }
        t[r] = (now() - t0) / 800 * 1e6;
    }
    for (int i = 0; i < 9; ++i)
        for (int j = i + 1; j < 9; ++j)
            if (t[j] < t[i]) {
                double x = t[i];
                t[i] = t[j];
                t[j] = x;
            }
    printf("clGetMemObjectInfo: %.3f us per call\n", t[4]);
    return 0;
}
