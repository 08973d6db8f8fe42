// rope_nvcc.cu - cl/rope.cl compiled by nvcc (cl_cuda.h; rope_nvcc.sh makes rope_cl.h),
// the general kernel and the one specialised to the bench's layout, against
// rope_probe.cu's kernel A in the same run: bicl-bench's RoPE layout (131072 tokens, 32 q
// + 8 k heads x 128 bf16 in place, llama's table shape). First the outputs are compared
// with kernel A's (finite inputs: the same arithmetic, the NaN rule never acts), then
// each is timed. docs/performance.md, "RoPE kernels specialised to their layout".
#define main probe_main // rope_probe.cu's kernels and helpers, not its main
#include "rope_probe.cu"
#undef main
typedef float2 cuda_float2; // cl_cuda.h renames CUDA's vector types
typedef uint4 cuda_uint4;
#include "cl_cuda.h"
#include "rope_cl.h"
ROPE_KERNEL(bf16, bf16, 8)
ROPE_KERNEL(bf16, bf16, 4)
ROPE_KERNEL_SPEC(bf16, bf16, 8, 48, 64, 8, 0, 0, 0, 0, 32, 8)
ROPE_KERNEL_SPEC(bf16, bf16, 4, 48, 64, 16, 0, 0, 0, 0, 32, 8)
#define SPEC8 rope_bf16_bf16_v8_f48_h64_g8_l0_0_0_0_q32_k8
#define SPEC4 rope_bf16_bf16_v4_f48_h64_g16_l0_0_0_0_q32_k8

typedef void (*rope_fn)(const int *, ulong, ulong, ulong, ulong, ulong, const ushort *, ulong,
                        ocl_ulong4, ushort *, ulong, ocl_ulong4, uint, const ushort *, ulong,
                        ocl_ulong4, ushort *, ulong, ocl_ulong4, uint, uint, ocl_uint4, uint, uint,
                        uint, uint, const ocl_float2 *, const ulong *, const float *, ulong, float,
                        int, int *, uint);
// a specialised kernel's shorter list (cl/rope.cl, ROPE_PARAMS_SPEC): no hq, hk, half_r,
// lay, groups or flags
typedef void (*rope_spec_fn)(const int *, ulong, ulong, ulong, ulong, ulong, const ushort *,
                             ulong, ocl_ulong4, ushort *, ulong, ocl_ulong4, const ushort *, ulong,
                             ocl_ulong4, ushort *, ulong, ocl_ulong4, uint, uint,
                             const ocl_float2 *, const ulong *, const float *, ulong, float, int,
                             int *, uint);

int main()
{
    size_t qn = (size_t)T * HQ * D, kn = (size_t)T * HK * D;
    ushort *q, *k, *q2, *k2, *scratch;
    ocl_float2 *table;
    int *pos, *err;
    CK(cudaMalloc(&q, qn * 2));
    CK(cudaMalloc(&k, kn * 2));
    CK(cudaMalloc(&q2, qn * 2));
    CK(cudaMalloc(&k2, kn * 2));
    CK(cudaMalloc(&scratch, qn * 2));
    CK(cudaMalloc(&table, (size_t)ROWS * HALF * 8));
    CK(cudaMalloc(&pos, T * 4));
    CK(cudaMalloc(&err, 16));
    CK(cudaMemset(err, 0, 16));
    std::vector<int> hp(T);
    for (int t = 0; t < T; ++t)
        hp[t] = t % ROWS;
    CK(cudaMemcpy(pos, hp.data(), T * 4, cudaMemcpyHostToDevice));
    std::vector<float> ht((size_t)ROWS * HALF * 2);
    for (size_t i = 0; i < ht.size(); ++i)
        ht[i] = 0.25f + (float)(i % 97) / 128.0f;
    CK(cudaMemcpy(table, ht.data(), ht.size() * 4, cudaMemcpyHostToDevice));
    std::vector<ushort> hq(qn), hk(kn);
    for (size_t i = 0; i < qn; ++i)
        hq[i] = (ushort)(0x3c00 + (i * 2654435761u >> 20) % 0x600);
    for (size_t i = 0; i < kn; ++i)
        hk[i] = (ushort)(0x3c00 + (i * 40503u >> 8) % 0x600);
    ocl_ulong4 qst = {0, (ulong)HQ * D, (ulong)D, 1}, kst = {0, (ulong)HK * D, (ulong)D, 1};
    ocl_uint4 lay = {0, 0, 0, 0};
    const unsigned flags = 16u | 32u; // NeoX, table, q and k in place
    struct rope_case { // not "kernel": cl_cuda.h defines that word
        const char *name;
        rope_fn f;       // a general kernel, or
        rope_spec_fn fs; // a specialised one
        int vw;
    } ks[] = {{"general v8", rope_bf16_bf16_v8, nullptr, 8},
              {"general v4", rope_bf16_bf16_v4, nullptr, 4},
              {"specialised v8", nullptr, SPEC8, 8},
              {"specialised v4", nullptr, SPEC4, 4}};
    auto launch = [&](const rope_case &kk, int wg) {
        unsigned groups = HALF / kk.vw;
        size_t units = (size_t)T * groups;
        unsigned blocks = (unsigned)((units + wg - 1) / wg);
        if (kk.f)
            kk.f<<<blocks, wg>>>(pos, 0, 0, 1, (ulong)T, (ulong)T, q, 0, qst, q, 0, qst, HQ, k, 0,
                                 kst, k, 0, kst, HK, HALF, lay, groups, 40, 1, flags, table,
                                 nullptr, nullptr, 0, 0.0f, ROWS - 1, err, 1);
        else
            kk.fs<<<blocks, wg>>>(pos, 0, 0, 1, (ulong)T, (ulong)T, q, 0, qst, q, 0, qst, k, 0, kst,
                                  k, 0, kst, 40, 1, table, nullptr, nullptr, 0, 0.0f, ROWS - 1,
                                  err, 1);
    };
    std::vector<ushort> a(qn), b(qn);
    for (auto &kk : ks) { // each against kernel A, from the same inputs
        CK(cudaMemcpy(q, hq.data(), qn * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(k, hk.data(), kn * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(q2, hq.data(), qn * 2, cudaMemcpyHostToDevice));
        CK(cudaMemcpy(k2, hk.data(), kn * 2, cudaMemcpyHostToDevice));
        launch(kk, 128);
        k_bicl<<<(unsigned)((size_t)T * 8 / 128), 128>>>(q2, k2, (const cuda_float2 *)table, pos,
                                                          1);
        CK(cudaDeviceSynchronize());
        CK(cudaMemcpy(a.data(), q, qn * 2, cudaMemcpyDeviceToHost));
        CK(cudaMemcpy(b.data(), q2, qn * 2, cudaMemcpyDeviceToHost));
        size_t diff = 0;
        for (size_t i = 0; i < qn; ++i)
            diff += a[i] != b[i];
        printf("%-15s q elements differing from kernel A: %zu of %zu\n", kk.name, diff, qn);
    }
    double moved = (double)(qn + kn) * 2 * 2 + (double)T * 4;
    size_t n16 = qn * 2 / 16;
    double copy = time_ms([&] {
        k_copy<<<(unsigned)((n16 + 255) / 256), 256>>>((const cuda_uint4 *)q, (cuda_uint4 *)scratch,
                                                       n16);
    });
    double copy_gbs = (double)qn * 2 * 2 / copy * 1e-6;
    printf("copy 16 B/thread: %.1f GB/s\n", copy_gbs);
    for (int wg : {128, 256}) {
        double ta = time_ms([&] {
            k_bicl<<<(unsigned)((size_t)T * 8 / wg), wg>>>(q2, k2, (const cuda_float2 *)table,
                                                           pos, 1);
        });
        printf("wg %d: kernel A %.1f GB/s (%.2f)", wg, moved / ta * 1e-6,
               moved / ta * 1e-6 / copy_gbs);
        for (auto &kk : ks) {
            double t = time_ms([&] { launch(kk, wg); });
            printf("; %s %.1f (%.2f)", kk.name, moved / t * 1e-6, moved / t * 1e-6 / copy_gbs);
        }
        printf("\n");
    }
    for (auto &kk : ks) {
        cudaFuncAttributes fa;
        CK(cudaFuncGetAttributes(&fa, kk.f ? (const void *)kk.f : (const void *)kk.fs));
        printf("%s: %d registers, %zu bytes local\n", kk.name, fa.numRegs, fa.localSizeBytes);
    }
    return 0;
}
