/* cuda_bench.cuh - what platforms/nvidia/math_bench.cu and act_cost.cu share: a grid-stride
 * loop, the float4 copy they are measured against, and a kernel applying F to each float
 * of a float4 per thread. */
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
#endif
