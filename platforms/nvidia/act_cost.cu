/* act_cost.cu - what bounds an f32 activation's double path and a partial rotation on an
 * NVIDIA GPU (docs/performance.md, twenty-seventh session), against the same run's float4
 * copy, 1 GiB in and out, f32 in [-8, 8), event timing of 5 launches after one, two rounds:
 * (1) the FP64 ceiling: K dependent double fma per element (four elements a thread);
 * (2) gelu (erf) and silu whole, their double paths alone (rounded to float, no Ziv test),
 *     and gelu's double path with e^-z^2's quotient or erfcx's replaced by a cheap one
 *     (the shared division kept; the values then mean nothing: speed only);
 * (3) the partial rotation's memory pattern: of every row of R float4 the first K read and
 *     written in place (128 of 256 bytes: partial 64 of 128 bf16; 128 of 384: MLA's q_pe);
 * (4) silu's double path with the float -> double and double -> float conversions (F2F,
 *     a quarter of the FP64 rate on sm_90 per CUDA's throughput table) done by integer
 *     bit operations instead, each alone and both; their bits are compared with bicl_silu's
 *     over the whole buffer (mismatches printed).
 * Built by platforms/nvidia/math_bench.sh with BENCH=act_cost. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cl/bicl_math_f32.h"
#include "cuda_bench.cuh"

template <int K> __device__ float chain(float x)
{
    double d = (double)x, a = d;
#pragma unroll
    for (int j = 0; j < K; ++j)
        a = __fma_rn(a, 1.0000001, d); /* dependent chain */
    return (float)a;
}
/* gelu's double path with a stage replaced (S = 1: e^-z^2's quotient by (1 - s) / (1 + s),
 * S = 2: erfcx's by (1 - zh) / (1 + zh)); bicl_m_erfc_quot_d's steps, written out here so
 * that a stage can be swapped */
template <int S> __device__ float gelu_stage(float x)
{
    double zh, zl;
    bicl_m_gelu_z_d(x, &zh, &zl);
    double s = zh * zh;
    double sl = bicl_fma(zh, zh, -s) + 2.0 * zh * zl;
    bicl_m_exp_quot e;
    if (S == 1) {
        e.p = 1.0 - s;
        e.q = 1.0 + s;
    } else {
        e = bicl_m_exp_quot_d(-s);
    }
    double p = S == 2 ? 1.0 - zh : bicl_m_erfcx_p_d(zh);
    double q = S == 2 ? 1.0 + zh : bicl_m_erfcx_q_d(zh);
    double n = e.p * p;
    return (float)bicl_m_gelu_of_erfc_d(x, bicl_fma(-n, sl, n) / (e.q * q));
}
__device__ float dbl_only_gelu(float x)
{
    return (float)bicl_m_gelu_erf_dbl(x);
}
__device__ float dbl_only_silu(float x)
{
    return (float)bicl_m_silu_dbl(x);
}
__device__ float fast_gelu(float x)
{
    int ok;
    return bicl_gelu_erf_fast(x, &ok);
}

/* x -> double by bits, x a normal float: sign, exponent rebiased by 1023 - 127, mantissa
 * shifted by 29 */
__device__ double f2d_bits(float x)
{
    unsigned u = __float_as_uint(x);
    unsigned hi = (u & 0x80000000u) | (((u & 0x7fffffffu) >> 3) + 0x38000000u);
    return __hiloint2double((int)hi, (int)(u << 29));
}
/* round(y) by bits where the float is normal and y's 29 low bits are not a tie: the top 32
 * bits of (hi:lo) << 3, exponent rebiased modulo 2^32, the rounding bit added, sign kept */
__device__ float d2f_bits(double y)
{
    unsigned hi = (unsigned)__double2hiint(y), lo = (unsigned)__double2loint(y);
    unsigned m = __funnelshift_l(lo, hi, 3);
    unsigned f = (m + 0x40000000u + ((lo >> 28) & 1u)) & 0x7fffffffu;
    return __uint_as_float(f | (hi & 0x80000000u));
}
template <int IN, int OUT> __device__ float silu_cv(float x)
{
    int c = bicl_m_silu_common(x);
    float xx = c < 0 ? x : 1.0f;
    double xd = IN ? f2d_bits(xx) : (double)xx;
    double y = xd * bicl_m_sigmoid_fast_d(xd);
    float r;
    int ok = (c < 0) & bicl_m_round_test_normal_d(y, &r); /* r: the F2F rounding */
    if (OUT)
        r = d2f_bits(y);
    return ok ? r : bicl_silu(x);
}

#define ACT_KERNEL2(NAME, F)                                                                       \
    __global__ void NAME(const float4 *in, float4 *out, size_t n)                                  \
    {                                                                                              \
        const float2 *i2 = (const float2 *)in;                                                     \
        float2 *o2 = (float2 *)out;                                                                \
        GRID_STRIDE(i, 2 * n)                                                                      \
        {                                                                                          \
            float2 v = i2[i];                                                                      \
            v.x = F(v.x);                                                                          \
            v.y = F(v.y);                                                                          \
            o2[i] = v;                                                                             \
        }                                                                                          \
    }
// clang-format off (each macro defines a kernel: no semicolons for clang-format to see)
ACT_KERNEL(k_c0, chain<0>)
ACT_KERNEL(k_c8, chain<8>)
ACT_KERNEL(k_c16, chain<16>)
ACT_KERNEL(k_c24, chain<24>)
ACT_KERNEL(k_c32, chain<32>)
ACT_KERNEL(k_c48, chain<48>)
ACT_KERNEL(k_c64, chain<64>)
ACT_KERNEL(k_c96, chain<96>)
ACT_KERNEL(k_silu, bicl_silu)
ACT_KERNEL(k_silu_d, dbl_only_silu)
ACT_KERNEL(k_gelu, bicl_gelu_erf)
ACT_KERNEL2(k_gelu2, bicl_gelu_erf)
ACT_KERNEL(k_gelu_fast, fast_gelu)
ACT_KERNEL(k_gelu_d, dbl_only_gelu)
ACT_KERNEL(k_g0, gelu_stage<0>)
ACT_KERNEL(k_g1, gelu_stage<1>)
ACT_KERNEL(k_g2, gelu_stage<2>)
ACT_KERNEL(k_gelu_tanh, bicl_gelu_tanh)
ACT_KERNEL(k_tanh, bicl_tanhf)
ACT_KERNEL(k_silu_cv00, (silu_cv<0, 0>))
ACT_KERNEL(k_silu_cv10, (silu_cv<1, 0>))
ACT_KERNEL(k_silu_cv01, (silu_cv<0, 1>))
ACT_KERNEL(k_silu_cv11, (silu_cv<1, 1>))
// clang-format on

/* the partial rotation's memory pattern: of every row of R float4s (16 bytes each) the
 * first K are read and written back (in place: 128 of 256 bytes for partial 64 of 128
 * bf16, 128 of 384 for MLA's q_pe), one float4 a thread */
template <int K, int R> __global__ void k_part(const float4 *in, float4 *out, size_t n)
{
    GRID_STRIDE(i, n / R * K)
    {
        size_t row = i / K, j = i % K;
        float4 v = out[row * R + j];
        v.x += 1.0f;
        out[row * R + j] = v;
    }
}
int main()
{
    size_t bytes = (size_t)1 << 30, n = bytes / 16;
    float4 *in, *out;
    device_buffers(bytes, 0, &in, &out);
    named_kernel ks[] = {{"copy", k_copy},
              {"dfma chain 0", k_c0},
              {"dfma chain 8", k_c8},
              {"dfma chain 16", k_c16},
              {"dfma chain 24", k_c24},
              {"dfma chain 32", k_c32},
              {"dfma chain 48", k_c48},
              {"dfma chain 64", k_c64},
              {"dfma chain 96", k_c96},
              {"silu", k_silu},
              {"silu dbl only", k_silu_d},
              {"gelu", k_gelu},
              {"gelu 2/thread", k_gelu2},
              {"gelu fast form", k_gelu_fast},
              {"gelu dbl only", k_gelu_d},
              {"gelu stages all", k_g0},
              {"gelu exp replaced", k_g1},
              {"gelu erfcx replaced", k_g2},

              {"gelu_tanh", k_gelu_tanh},
              {"tanh", k_tanh},
              {"part 8 of 16 (x2)", k_part<8, 16>},
              {"part 8 of 24 (x3)", k_part<8, 24>},
              {"part 16 of 32 (x2)", k_part<16, 32>},
              {"silu cvt F2F both", k_silu_cv00},
              {"silu cvt bits in", k_silu_cv10},
              {"silu cvt bits out", k_silu_cv01},
              {"silu cvt bits both", k_silu_cv11}};
    for (int round = 0; round < 2; ++round) {
        double copy_gbs = 0;
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; ++k) {
            double gbs = time_gbs(ks[k].f, in, out, n, bytes, 5);
            if (!strncmp(ks[k].name, "part", 4)) /* bytes moved: the rows' read and written part */
                gbs /= strstr(ks[k].name, "x3") ? 3.0 : 2.0;
            if (k == 0)
                copy_gbs = gbs;
            printf("round %d %-18s %8.1f GB/s  %.3f of copy\n", round, ks[k].name, gbs,
                   gbs / copy_gbs);
        }
    }
    /* the conversion variants' bits against bicl_silu's */
    float *ref = (float *)malloc(bytes), *got = (float *)malloc(bytes);
    int blocks = (int)((n + 255) / 256);
    k_silu<<<blocks, 256>>>(in, out, n);
    cudaMemcpy(ref, out, bytes, cudaMemcpyDeviceToHost);
    kfn cv[] = {k_silu_cv00, k_silu_cv10, k_silu_cv01, k_silu_cv11};
    for (int v = 0; v < 4; ++v) {
        cv[v]<<<blocks, 256>>>(in, out, n);
        cudaMemcpy(got, out, bytes, cudaMemcpyDeviceToHost);
        size_t bad = 0;
        for (size_t i = 0; i < n * 4; ++i)
            bad += memcmp(&ref[i], &got[i], 4) != 0;
        printf("silu cvt variant %d%d: %zu of %zu differ from bicl_silu\n", v & 1, v >> 1, bad,
               n * 4);
    }
    printf("status: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
