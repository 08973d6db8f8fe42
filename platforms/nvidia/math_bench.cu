/* math_bench.cu - the cost of bicl's correctly rounded f32 activations on an NVIDIA GPU,
 * measured on the math headers themselves (platforms/nvidia/math_bench.sh copies cl/ with
 * BICL_FN as a __device__ function): one float4 per thread, 1 GiB in and out, inputs
 * uniformly random in [-8, 8) (argument 0) or normal (1), event timing of 10 launches
 * after one warm-up, against the same run's float4 copy. The peer row is PyTorch's
 * formula in float (x / (1 + expf(-x)), not correctly rounded): the memory-bound ceiling.
 * Speed only: the bits of these functions are proven by bicl-math-identity and
 * bicl-accuracy, and checked on the device by bicl-check. */
#include <cstdio>
#include <cstdlib>
#include "cl/bicl_math_f32.h"
#include "cuda_bench.cuh"

__device__ float torch_silu(float x)
{
    return x / (1.0f + expf(-x));
}
ACT_KERNEL(k_torch, torch_silu)
ACT_KERNEL(k_silu, bicl_silu)
ACT_KERNEL(k_sigmoid, bicl_sigmoidf)
ACT_KERNEL(k_gelu_tanh, bicl_gelu_tanh)
ACT_KERNEL(k_gelu_erf, bicl_gelu_erf)
ACT_KERNEL(k_tanh, bicl_tanhf)
ACT_KERNEL(k_exp, bicl_expf)

typedef void (*kfn)(const float4 *, float4 *, size_t);

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

int main(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30, n = bytes / 16;
    float *h = (float *)malloc(bytes);
    fill(h, n * 4, argc > 1 && atoi(argv[1]) == 1);
    float4 *in, *out;
    cudaMalloc(&in, bytes);
    cudaMalloc(&out, bytes);
    cudaMemcpy(in, h, bytes, cudaMemcpyHostToDevice);
    struct {
        const char *name;
        kfn f;
    } ks[] = {{"copy", k_copy},           {"torch-like expf", k_torch},
              {"silu", k_silu},           {"sigmoid", k_sigmoid},
              {"gelu_tanh", k_gelu_tanh}, {"gelu_erf", k_gelu_erf},
              {"tanh", k_tanh},           {"exp", k_exp}};
    cudaEvent_t a, b;
    cudaEventCreate(&a);
    cudaEventCreate(&b);
    double copy_gbs = 0;
    int blocks = (int)((n + 255) / 256); /* one float4 per thread */
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; ++k) {
        ks[k].f<<<blocks, 256>>>(in, out, n);
        cudaEventRecord(a);
        for (int r = 0; r < 10; ++r)
            ks[k].f<<<blocks, 256>>>(in, out, n);
        cudaEventRecord(b);
        cudaEventSynchronize(b);
        float ms;
        cudaEventElapsedTime(&ms, a, b);
        double gbs = 2.0 * bytes * 10 / (ms * 1e-3) / 1e9;
        if (k == 0)
            copy_gbs = gbs;
        printf("%-16s %8.1f GB/s  %.3f of copy\n", ks[k].name, gbs, gbs / copy_gbs);
    }
    printf("status: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
