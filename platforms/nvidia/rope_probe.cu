// rope_probe.cu - what limits a RoPE kernel of bicl's layout on an NVIDIA GPU: CUDA
// kernels that each leave one part of the work out, timed against copies in one run
// (docs/performance.md, "RoPE on the H200"). A diagnostic, not bicl's math: the
// rotation here has no NaN rule and its bits are not checked.
// Layout of bicl-bench's RoPE row: 131072 tokens, q 32 heads x 128 and k 8 heads x 128
// bf16 (separate buffers), in place; llama's table of (cos, sin) float2 [8192][64];
// positions t % 8192. Bytes counted as bicl-bench counts them: q and k read and written,
// and the positions.
// build: nvcc -arch=sm_90 -O3 -fmad=false -o rope_probe platforms/nvidia/rope_probe.cu
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <vector>
#include <algorithm>
#include <cuda_runtime.h>

#define CK(x)                                                                                      \
    do {                                                                                           \
        cudaError_t e_ = (x);                                                                      \
        if (e_ != cudaSuccess) {                                                                   \
            printf("%s: %s\n", #x, cudaGetErrorString(e_));                                        \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static const int T = 131072, HQ = 32, HK = 8, D = 128, HALF = 64, ROWS = 8192;

__device__ __forceinline__ float ld_bf16(uint32_t b) { return __uint_as_float(b << 16); }
__device__ __forceinline__ uint32_t st_bf16(float f)
{
    uint32_t u = __float_as_uint(f);
    return (u + 0x7fffu + ((u >> 16) & 1u)) >> 16;
}

// 8 pairs (NeoX: elements i..i+8 and 64+i..64+i+8) of one head, in place
__device__ __forceinline__ void rot8(uint16_t *head, int g, const float *cs)
{
    uint4 a = *(const uint4 *)(head + g * 8), b = *(const uint4 *)(head + HALF + g * 8);
    uint32_t aw[4] = {a.x, a.y, a.z, a.w}, bw[4] = {b.x, b.y, b.z, b.w}, ow[4], pw[4];
#pragma unroll
    for (int w = 0; w < 4; ++w) {
        uint32_t lo0 = 0, lo1 = 0;
#pragma unroll
        for (int h = 0; h < 2; ++h) {
            int l = 2 * w + h;
            float x0 = ld_bf16((aw[w] >> (16 * h)) & 0xffffu);
            float x1 = ld_bf16((bw[w] >> (16 * h)) & 0xffffu);
            float c = cs[2 * l], s = cs[2 * l + 1];
            float p0 = __fmul_rn(x0, c), p1 = __fmul_rn(x1, s);
            float p2 = __fmul_rn(x1, c), p3 = __fmul_rn(x0, s);
            lo0 |= st_bf16(__fsub_rn(p0, p1)) << (16 * h);
            lo1 |= st_bf16(__fadd_rn(p2, p3)) << (16 * h);
        }
        ow[w] = lo0;
        pw[w] = lo1;
    }
    *(uint4 *)(head + g * 8) = make_uint4(ow[0], ow[1], ow[2], ow[3]);
    *(uint4 *)(head + HALF + g * 8) = make_uint4(pw[0], pw[1], pw[2], pw[3]);
}

__device__ __forceinline__ void load_cs(const float2 *table, int p, int g, float *cs)
{
    const float4 *t4 = (const float4 *)(table + (size_t)p * HALF + g * 8);
#pragma unroll
    for (int i = 0; i < 4; ++i) {
        float4 v = t4[i];
        cs[4 * i] = v.x, cs[4 * i + 1] = v.y, cs[4 * i + 2] = v.z, cs[4 * i + 3] = v.w;
    }
}

// A: bicl's mapping: a thread is (token, group of 8 pairs) and walks the token's 40 heads
__global__ void k_bicl(uint16_t *q, uint16_t *k, const float2 *table, const int *pos, int use_table)
{
    size_t u = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (u >= (size_t)T * 8)
        return;
    int t = (int)(u / 8), g = (int)(u % 8), p = pos[t];
    float cs[16];
    if (use_table)
        load_cs(table, p, g, cs);
    else
        for (int i = 0; i < 16; ++i)
            cs[i] = (i & 1) ? 0.5f : (float)(p & 7);
    for (int h = 0; h < HQ; ++h)
        rot8(q + ((size_t)t * HQ + h) * D, g, cs);
    for (int h = 0; h < HK; ++h)
        rot8(k + ((size_t)t * HK + h) * D, g, cs);
}

// B: one head per thread, (token, head, group) with the group fastest; table per thread
__global__ void k_flat(uint16_t *q, uint16_t *k, const float2 *table, const int *pos)
{
    size_t u = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (u >= (size_t)T * 40 * 8)
        return;
    int g = (int)(u % 8), h = (int)((u / 8) % 40), t = (int)(u / 320);
    float cs[16];
    load_cs(table, pos[t], g, cs);
    uint16_t *head = h < HQ ? q + ((size_t)t * HQ + h) * D : k + ((size_t)t * HK + h - HQ) * D;
    rot8(head, g, cs);
}

// C: bicl's mapping moving the bits only (each head's two 16-byte spans read and
// written back unchanged, through the same dependence)
__global__ void k_move(uint16_t *q, uint16_t *k, const int *pos)
{
    size_t u = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (u >= (size_t)T * 8)
        return;
    int t = (int)(u / 8), g = (int)(u % 8);
    uint32_t x = (uint32_t)pos[t] & 0x8000u; // 0: keeps the bits, but the stores wait for pos
    for (int h = 0; h < 40; ++h) {
        uint16_t *head = h < HQ ? q + ((size_t)t * HQ + h) * D : k + ((size_t)t * HK + h - HQ) * D;
        uint4 a = *(uint4 *)(head + g * 8), b = *(uint4 *)(head + HALF + g * 8);
        a.x ^= x, b.x ^= x;
        *(uint4 *)(head + g * 8) = a;
        *(uint4 *)(head + HALF + g * 8) = b;
    }
}

// D: 16-byte copies, flat: in place (x ^= 0) and out of place
__global__ void k_inplace(uint4 *a, size_t n, uint32_t x)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n) {
        uint4 v = a[i];
        v.x ^= x;
        a[i] = v;
    }
}
__global__ void k_copy(const uint4 *a, uint4 *b, size_t n)
{
    size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x;
    if (i < n)
        b[i] = a[i];
}

template <class F> static double time_ms(F launch)
{
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    launch();
    launch();
    CK(cudaDeviceSynchronize());
    std::vector<float> ms;
    for (int r = 0; r < 11; ++r) {
        CK(cudaEventRecord(e0));
        launch();
        CK(cudaEventRecord(e1));
        CK(cudaEventSynchronize(e1));
        float m;
        CK(cudaEventElapsedTime(&m, e0, e1));
        ms.push_back(m);
    }
    std::sort(ms.begin(), ms.end());
    return ms[5];
}

int main()
{
    size_t qn = (size_t)T * HQ * D, kn = (size_t)T * HK * D;
    uint16_t *q, *k, *scratch;
    float2 *table;
    int *pos;
    CK(cudaMalloc(&q, qn * 2));
    CK(cudaMalloc(&k, kn * 2));
    CK(cudaMalloc(&scratch, qn * 2));
    CK(cudaMalloc(&table, (size_t)ROWS * HALF * sizeof(float2)));
    CK(cudaMalloc(&pos, T * sizeof(int)));
    std::vector<int> hp(T);
    for (int t = 0; t < T; ++t)
        hp[t] = t % ROWS;
    CK(cudaMemcpy(pos, hp.data(), T * sizeof(int), cudaMemcpyHostToDevice));
    std::vector<float2> ht((size_t)ROWS * HALF);
    for (size_t i = 0; i < ht.size(); ++i)
        ht[i] = make_float2(0.75f, 0.5f);
    CK(cudaMemcpy(table, ht.data(), ht.size() * sizeof(float2), cudaMemcpyHostToDevice));
    CK(cudaMemset(q, 0x3f, qn * 2));
    CK(cudaMemset(k, 0x3f, kn * 2));
    double moved = (double)(qn + kn) * 2 * 2 + (double)T * 4; // bytes, as bicl-bench counts
    size_t n16 = qn * 2 / 16;
    double copy =
        time_ms([&] { k_copy<<<(n16 + 255) / 256, 256>>>((uint4 *)q, (uint4 *)scratch, n16); });
    double copy_gbs = (double)qn * 2 * 2 / copy * 1e-6;
    printf("copy 16 B/thread (q to scratch, %zu MiB)   %7.1f GB/s\n", qn * 2 >> 20, copy_gbs);
    double inpl = time_ms([&] { k_inplace<<<(n16 + 255) / 256, 256>>>((uint4 *)q, n16, 0u); });
    printf("in place 16 B/thread (q)                   %7.1f GB/s  %.2f of copy\n",
           (double)qn * 2 * 2 / inpl * 1e-6, (double)qn * 2 * 2 / inpl * 1e-6 / copy_gbs);
    for (int wg : {128, 256}) {
        unsigned nb = (unsigned)(((size_t)T * 8 + wg - 1) / wg);
        double a = time_ms([&] { k_bicl<<<nb, wg>>>(q, k, table, pos, 1); });
        double a0 = time_ms([&] { k_bicl<<<nb, wg>>>(q, k, table, pos, 0); });
        double c = time_ms([&] { k_move<<<nb, wg>>>(q, k, pos); });
        unsigned nbf = (unsigned)(((size_t)T * 320 + wg - 1) / wg);
        double b = time_ms([&] { k_flat<<<nbf, wg>>>(q, k, table, pos); });
        double gb[4] = {moved / a * 1e-6, moved / a0 * 1e-6, moved / c * 1e-6, moved / b * 1e-6};
        printf("wg %d: A bicl's mapping %7.1f GB/s (%.2f of copy);"
               " A without the table %7.1f (%.2f);"
               " C moving bits only %7.1f (%.2f); B one head per thread %7.1f (%.2f)\n",
               wg, gb[0], gb[0] / copy_gbs, gb[1], gb[1] / copy_gbs, gb[2], gb[2] / copy_gbs, gb[3],
               gb[3] / copy_gbs);
    }
    int regs[4];
    cudaFuncAttributes fa;
    CK(cudaFuncGetAttributes(&fa, k_bicl));
    regs[0] = fa.numRegs;
    CK(cudaFuncGetAttributes(&fa, k_flat));
    regs[1] = fa.numRegs;
    CK(cudaFuncGetAttributes(&fa, k_move));
    regs[2] = fa.numRegs;
    printf("registers: A %d, B %d, C %d\n", regs[0], regs[1], regs[2]);
    return 0;
}
