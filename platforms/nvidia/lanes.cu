/* lanes.cu - whether an f32 activation's double path gains from other kernel shapes on an
 * NVIDIA GPU (docs/performance.md, twenty-ninth session), against the same run's float4
 * copy, 1 GiB in and out, f32 in [-8, 8) or normal (argument 1), event timing of 5
 * launches after one; bits compared with the library's form (mismatches printed):
 * (1) the library's per-lane form (the whole function for each float of a float4, as the
 *     rows_v kernels' unrolled lane loop calls it) against the fast form (BICL_M_CR_FAST1)
 *     on L lanes a thread first (L = 2, 4, 8) and the whole function for the lanes it
 *     declined after, for every activation with a fast form;
 * (2) gelu (erf) and silu on four lanes with their one division replaced by recip_nr, a
 *     division-free Newton reciprocal (the same straight-line code for the four lanes), and
 *     gelu in lockstep with its division kept (each stage over the four lanes before the
 *     next).
 * Built by platforms/nvidia/math_bench.sh with BENCH=lanes. */
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include "cl/bicl_math_f32.h"
#include "cuda_bench.cuh"

/* 1/w for a positive normal double w: a seed from w's bits (within 0.0508, relative), two
 * quartic Newton steps r (1 + e + e^2 + e^3), e = 1 - w r */
__device__ double recip_nr(double w)
{
    double r = __longlong_as_double(0x7fde600000000000LL - __double_as_longlong(w));
#pragma unroll
    for (int i = 0; i < 2; ++i) {
        double e = __fma_rn(-w, r, 1.0);
        r = __fma_rn(r, __fma_rn(__fma_rn(e, e, e), e, e), r);
    }
    return r;
}

/* gelu's double path (bicl_m_gelu_erf_dbl) with erfc's one division by recip_nr */
__device__ float gelu_fast_nr(float x, int *ok)
{
    int c = bicl_m_gelu_erf_common(x);
    float xx = c <= 0 ? x : 1.0f;
    double zh, zl;
    bicl_m_gelu_z_d(xx, &zh, &zl);
    bicl_m_exp_quot e = bicl_m_erfc_quot_d(zh, zl);
    return bicl_m_fast_accept(c, bicl_m_gelu_of_erfc_d(xx, e.p * recip_nr(e.q)), ok);
}
/* silu's double path (bicl_m_silu_dbl) with the reciprocal of q + p by recip_nr */
__device__ float silu_fast_nr(float x, int *ok)
{
    int c = bicl_m_silu_common(x);
    double xd = (double)(c <= 0 ? x : 1.0f);
    bicl_m_exp_quot e = bicl_m_exp_quot_d(-bicl_f64_abs(xd));
    double y = xd * ((xd >= 0.0 ? e.q : e.p) * recip_nr(e.q + e.p));
    return bicl_m_fast_accept(c, y, ok);
}
/* gelu's fast form on four lanes in lockstep, the division kept */
__device__ void gelu_fast_lockstep(const float *x, float *r, int *ok)
{
    int c[4];
    float xx[4];
    double zh[4], zl[4];
    bicl_m_exp_quot e[4];
#pragma unroll
    for (int j = 0; j < 4; ++j) {
        c[j] = bicl_m_gelu_erf_common(x[j]);
        xx[j] = c[j] <= 0 ? x[j] : 1.0f;
        bicl_m_gelu_z_d(xx[j], &zh[j], &zl[j]);
    }
#pragma unroll
    for (int j = 0; j < 4; ++j)
        e[j] = bicl_m_erfc_quot_d(zh[j], zl[j]);
#pragma unroll
    for (int j = 0; j < 4; ++j)
        r[j] = bicl_m_fast_accept(c[j], bicl_m_gelu_of_erfc_d(xx[j], e[j].p / e[j].q), &ok[j]);
}
__device__ float sc_fast(float x, int *ok)
{
    return bicl_softcap_fast(x, 30.0f, ok);
}
__device__ float sc_full(float x)
{
    return bicl_softcap(x, 30.0f);
}

/* L floats a thread, the fast form on all first, the whole function where one declined */
#define LANES(NAME, L, FAST, FULL)                                                                 \
    __global__ void NAME(const float4 *in4, float4 *out4, size_t n4)                               \
    {                                                                                              \
        const float *in = (const float *)in4;                                                      \
        float *out = (float *)out4;                                                                \
        GRID_STRIDE(i, n4 * 4 / L)                                                                 \
        {                                                                                          \
            float x[L], r[L];                                                                      \
            int ok[L];                                                                             \
            _Pragma("unroll") for (int j = 0; j < L; ++j) x[j] = in[i * L + j];                    \
            _Pragma("unroll") for (int j = 0; j < L; ++j) r[j] = FAST(x[j], &ok[j]);               \
            _Pragma("unroll") for (int j = 0; j < L; ++j) if (!ok[j]) r[j] = FULL(x[j]);           \
            _Pragma("unroll") for (int j = 0; j < L; ++j) out[i * L + j] = r[j];                   \
        }                                                                                          \
    }
#define FNS(X)                                                                                     \
    X(silu, bicl_silu_fast, bicl_silu)                                                             \
    X(sigmoid, bicl_sigmoidf_fast, bicl_sigmoidf)                                                  \
    X(gelu_quick, bicl_gelu_quick_fast, bicl_gelu_quick)                                           \
    X(tanh, bicl_tanhf_fast, bicl_tanhf)                                                           \
    X(gelu_tanh, bicl_gelu_tanh_fast, bicl_gelu_tanh)                                              \
    X(softcap30, sc_fast, sc_full)                                                                 \
    X(gelu_erf, bicl_gelu_erf_fast, bicl_gelu_erf)
#define KERNELS(N, FAST, FULL)                                                                     \
    ACT_KERNEL(k_##N, FULL)                                                                        \
    LANES(k_##N##_f2, 2, FAST, FULL)                                                               \
    LANES(k_##N##_f4, 4, FAST, FULL)                                                               \
    LANES(k_##N##_f8, 8, FAST, FULL)
// clang-format off (each macro defines kernels: no semicolons for clang-format to see)
FNS(KERNELS)
LANES(k_gelu_nr, 4, gelu_fast_nr, bicl_gelu_erf)
LANES(k_silu_nr, 4, silu_fast_nr, bicl_silu)
// clang-format on
__global__ void k_gelu_lockstep(const float4 *in, float4 *out, size_t n)
{
    GRID_STRIDE(i, n)
    {
        float4 v = in[i];
        float x[4] = {v.x, v.y, v.z, v.w}, r[4];
        int ok[4];
        gelu_fast_lockstep(x, r, ok);
#pragma unroll
        for (int j = 0; j < 4; ++j)
            if (!ok[j])
                r[j] = bicl_gelu_erf(x[j]);
        out[i] = make_float4(r[0], r[1], r[2], r[3]);
    }
}

/* elements where f's output differs from ref's */
static size_t differ(kfn ref, kfn f, const float4 *in, float4 *out, size_t n, size_t bytes,
                     float *a, float *b)
{
    int blocks = (int)((n + 255) / 256);
    ref<<<blocks, 256>>>(in, out, n);
    cudaMemcpy(a, out, bytes, cudaMemcpyDeviceToHost);
    f<<<blocks, 256>>>(in, out, n);
    cudaMemcpy(b, out, bytes, cudaMemcpyDeviceToHost);
    size_t bad = 0;
    for (size_t i = 0; i < n * 4; ++i)
        bad += memcmp(&a[i], &b[i], 4) != 0;
    return bad;
}
/* the index of "<first word of ks[k]'s name> per lane" in ks (k itself if none) */
static size_t per_lane_of(const named_kernel *ks, size_t k)
{
    char want[64];
    snprintf(want, sizeof want, "%.*s per lane", (int)strcspn(ks[k].name, " "), ks[k].name);
    for (size_t r = 0; r < k; ++r)
        if (strcmp(ks[r].name, want) == 0)
            return r;
    return k;
}
int main(int argc, char **argv)
{
    size_t bytes = (size_t)1 << 30, n = bytes / 16;
    int normal = argc > 1 && atoi(argv[1]) == 1;
    float4 *in, *out;
    device_buffers(bytes, normal, &in, &out);
#define ENTRY(N, FAST, FULL)                                                                       \
    {#N " per lane", k_##N}, {#N " fast x2", k_##N##_f2}, {#N " fast x4", k_##N##_f4},             \
        {#N " fast x8", k_##N##_f8},
    /* each activation's per-lane form first, the kernels compared with it after it: the
     * per-lane kernel of the name's first word */
    named_kernel ks[] = {{"copy", k_copy},
                         FNS(ENTRY){"gelu_erf newton x4", k_gelu_nr},
                         {"gelu_erf lockstep x4", k_gelu_lockstep},
                         {"silu newton x4", k_silu_nr}};
    float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
    for (int round = 0; round < 2; ++round) {
        double copy_gbs = 0;
        for (size_t k = 0; k < sizeof ks / sizeof ks[0]; ++k) {
            double gbs = time_gbs(ks[k].f, in, out, n, bytes, 5);
            if (k == 0)
                copy_gbs = gbs;
            printf("%s round %d %-22s %8.1f GB/s  %.3f of copy", normal ? "normal" : "uniform",
                   round, ks[k].name, gbs, gbs / copy_gbs);
            size_t ref = per_lane_of(ks, k);
            if (round == 0 && k > 0 && k != ref)
                printf("  bits differing from %s: %zu", ks[ref].name,
                       differ(ks[ref].f, ks[k].f, in, out, n, bytes, a, b));
            printf("\n");
        }
    }
    printf("status: %s\n", cudaGetErrorString(cudaGetLastError()));
    return 0;
}
