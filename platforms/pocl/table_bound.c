/* table_bound.c - what bounds the 16-bit lookup tables on uniformly random inputs on a CPU,
 * in plain C without OpenCL: the same memory traffic as bicl's table kernels (bf16 in, bf16
 * out; swiglu: gate and up in), against a copy of as many bytes, in one run.
 *   lookup, scalar / AVX2 gather: y = table[x] from a 128 KiB table (one entry per input);
 *   swiglu-like: y = bf16(table[gate] * up), the product in f32 as bicl's glu_table16 kernel
 *   (gathered entry, widened bf16 up, one vmulps), with MXCSR as it comes (gradual
 *   underflow, as OpenCL requires), with flush-to-zero and denormals-are-zero set (not a
 *   form bicl may use: it only shows what underflowing products cost), and with both
 *   operands forced into [1, 2) (no product underflows).
 * Build and run (the machine's cores as OpenMP threads; docs/performance.md):
 *   gcc -O2 -mavx2 -fopenmp platforms/pocl/table_bound.c -o table_bound && ./table_bound */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define N     ((size_t)1 << 27) /* 128 Mi elements: 256 MiB per bf16 array */
#define REPS  5
#define TABLE 65536

enum { COPY, LOOKUP_SCALAR, LOOKUP_GATHER, SWIGLU, SWIGLU_FTZ, SWIGLU_NORMAL, KINDS };
static const char *const names[KINDS] = {"copy (uint16, 4 bytes an element)",
                                         "lookup, scalar loads",
                                         "lookup, AVX2 gather",
                                         "swiglu-like, MXCSR as it comes",
                                         "swiglu-like, FTZ and DAZ set",
                                         "swiglu-like, operands in [1, 2)"};

static double now_s(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec * 1e-9;
}

/* bicl_table16_at: the 16-bit entry g of a table of 32-bit words, 8 lanes */
static __m256i entries(const uint32_t *table, __m128i g16)
{
    __m256i g = _mm256_cvtepu16_epi32(g16);
    __m256i w = _mm256_i32gather_epi32((const int *)table, _mm256_srli_epi32(g, 1), 4);
    __m256i shift = _mm256_slli_epi32(_mm256_and_si256(g, _mm256_set1_epi32(1)), 4);
    return _mm256_and_si256(_mm256_srlv_epi32(w, shift), _mm256_set1_epi32(0xffff));
}

static __m256 widen_bf16(__m256i h, int normal)
{
    if (normal) /* sign and top 7 significand bits kept, exponent of [1, 2) */
        h = _mm256_or_si256(_mm256_and_si256(h, _mm256_set1_epi32(0x807f)),
                            _mm256_set1_epi32(0x3f80));
    return _mm256_castsi256_ps(_mm256_slli_epi32(h, 16));
}

/* f32 -> bf16 by truncation: the rounding's cost is not what is measured here */
static __m128i narrow_bf16(__m256 y)
{
    __m256i t = _mm256_srli_epi32(_mm256_castps_si256(y), 16);
    return _mm_packus_epi32(_mm256_castsi256_si128(t), _mm256_extracti128_si256(t, 1));
}

static void run(int kind, const uint16_t *x, const uint16_t *up, uint16_t *y, const uint32_t *tab)
{
    const uint16_t *t16 = (const uint16_t *)tab;
#pragma omp parallel
    {
        if (kind == SWIGLU_FTZ)
            _mm_setcsr(_mm_getcsr() | 0x8040u);
#pragma omp for schedule(static)
        for (size_t i = 0; i < N; i += 8) {
            __m128i g = _mm_load_si128((const __m128i *)(x + i)), r;
            if (kind == COPY) {
                r = g;
            } else if (kind == LOOKUP_SCALAR) {
                for (int l = 0; l < 8; ++l)
                    y[i + l] = t16[x[i + l]];
                continue;
            } else if (kind == LOOKUP_GATHER) {
                __m256i e = entries(tab, g);
                r = _mm_packus_epi32(_mm256_castsi256_si128(e), _mm256_extracti128_si256(e, 1));
            } else {
                int normal = kind == SWIGLU_NORMAL;
                __m256 a = widen_bf16(entries(tab, g), normal);
                __m256 u = widen_bf16(
                    _mm256_cvtepu16_epi32(_mm_load_si128((const __m128i *)(up + i))), normal);
                r = narrow_bf16(_mm256_mul_ps(a, u));
            }
            _mm_store_si128((__m128i *)(y + i), r);
        }
        if (kind == SWIGLU_FTZ)
            _mm_setcsr(_mm_getcsr() & ~0x8040u);
    }
}

int main(void)
{
    uint16_t *x = aligned_alloc(64, N * 2), *up = aligned_alloc(64, N * 2);
    uint16_t *y = aligned_alloc(64, N * 2);
    uint32_t *tab = aligned_alloc(64, TABLE * 2);
    if (!x || !up || !y || !tab)
        return 1;
    uint64_t s = 88172645463325252ull; /* xorshift64: uniformly random 16-bit patterns */
    for (size_t i = 0; i < N; ++i) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        x[i] = (uint16_t)s;
        up[i] = (uint16_t)(s >> 16);
        y[i] = 0;
    }
    for (uint32_t i = 0; i < TABLE / 2; ++i) /* entries: random 16-bit patterns as well */
        tab[i] = i * 2654435761u;
    double copy = 0;
    for (int k = 0; k < KINDS; ++k) {
        double best = 1e30;
        for (int r = 0; r < REPS; ++r) {
            double t0 = now_s();
            run(k, x, up, y, tab);
            double t = now_s() - t0;
            best = t < best ? t : best;
        }
        double bytes = (k >= SWIGLU ? 6.0 : 4.0) * (double)N, gbs = bytes / best * 1e-9;
        if (k == COPY)
            copy = gbs;
        printf("%-36s %6.1f GB/s  %.2f of copy  %.2f G elements/s  (y[7] = %04x)\n", names[k], gbs,
               gbs / copy, (double)N / best * 1e-9, y[7]);
    }
    return 0;
}
