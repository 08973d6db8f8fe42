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

int main(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30, n = bytes / 16;
    float4 *in, *out;
    device_buffers(bytes, argc > 1 && atoi(argv[1]) == 1, &in, &out);
    named_kernel ks[] = {{"copy", k_copy},           {"torch-like expf", k_torch},
              {"silu", k_silu},           {"sigmoid", k_sigmoid},
              {"gelu_tanh", k_gelu_tanh}, {"gelu_erf", k_gelu_erf},
              {"tanh", k_tanh},           {"exp", k_exp}};
    double copy_gbs = 0;
    for (size_t k = 0; k < sizeof ks / sizeof ks[0]; ++k) {
        double gbs = time_gbs(ks[k].f, in, out, n, bytes, 10);
        if (k == 0)
            copy_gbs = gbs;
        printf("%-16s %8.1f GB/s  %.3f of copy\n", ks[k].name, gbs, gbs / copy_gbs);
    }
    printf("status: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
