/* cuda_bench.cuh - what platforms/nvidia/math_bench.cu and act_cost.cu share: a grid-stride
 * loop, the float4 copy they are measured against, a kernel applying F to each float of a
 * float4 per thread, the inputs on the device, and the event timing of a kernel. */
#ifndef BICL_CUDA_BENCH_CUH
#define BICL_CUDA_BENCH_CUH

#define GRID_STRIDE(i, n)                                                                          \
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < (n);                        \
         i += (size_t)gridDim.x * blockDim.x)

__global__ void k_copy(const float4 *in, float4 *out, size_t n)
{
    GRID_STRIDE(i, n) out[i] = in[i];
}
#define ACT_KERNEL(NAME, F)                                                                        \
    __global__ void NAME(const float4 *in, float4 *out, size_t n)                                  \
    {                                                                                              \
        GRID_STRIDE(i, n)                                                                          \
        {                                                                                          \
            float4 v = in[i];                                                                      \
            v.x = F(v.x);                                                                          \
            v.y = F(v.y);                                                                          \
            v.z = F(v.z);                                                                          \
            v.w = F(v.w);                                                                          \
            out[i] = v;                                                                            \
        }                                                                                          \
    }
/* The inputs: uniform in [-8, 8), or normal (normal = 1), from a fixed LCG. */
static void fill(float *h, size_t count, int normal)
{
    unsigned s = 12345;
    for (size_t i = 0; i < count; ++i) {
        s = s * 1664525u + 1013904223u;
        float u1 = ((s >> 8) + 1) / 16777217.0f;
        if (!normal) {
            h[i] = u1 * 16.0f - 8.0f;
            continue;
        }
        s = s * 1664525u + 1013904223u;
        h[i] = sqrtf(-2 * logf(u1)) * cosf(6.2831853f * ((s >> 8) / 16777216.0f));
    }
}

typedef void (*kfn)(const float4 *, float4 *, size_t);
typedef struct {
    const char *name;
    kfn f;
} named_kernel;

/* bytes of inputs filled (fill) and copied to the device, and bytes for the outputs */
static void device_buffers(size_t bytes, int normal, float4 **in, float4 **out)
{
    float *h = (float *)malloc(bytes);
    fill(h, bytes / 4, normal);
    cudaMalloc(in, bytes);
    cudaMalloc(out, bytes);
    cudaMemcpy(*in, h, bytes, cudaMemcpyHostToDevice);
    free(h);
}

/* GB/s of f over n float4 in and out (bytes each way), timed by events over reps launches
 * after one. */
static double time_gbs(kfn f, const float4 *in, float4 *out, size_t n, size_t bytes, int reps)
{
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    int blocks = (int)((n + 255) / 256); /* one float4 per thread */
    f<<<blocks, 256>>>(in, out, n);
    cudaEventRecord(a);
    for (int r = 0; r < reps; ++r)
        f<<<blocks, 256>>>(in, out, n);
    cudaEventRecord(b);
    cudaEventSynchronize(b);
    float ms;
    cudaEventElapsedTime(&ms, a, b);
    cudaEventDestroy(a);
    cudaEventDestroy(b);
    return 2.0 * bytes * reps / (ms * 1e-3) / 1e9;
}
#endif
