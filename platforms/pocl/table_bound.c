/* table_bound.c - what bounds the 16-bit lookup tables on uniformly random inputs on a CPU,
 * in plain C without OpenCL: the same memory traffic as bicl's table kernels (bf16 in, bf16
 * out; swiglu: gate and up in), against a copy of as many bytes, in one run.
 *   lookup, scalar / AVX2 gather: y = table[x] from a 128 KiB table (one entry per input);
 *   swiglu-like: y = bf16(table[gate] * up), the product in f32 as bicl's glu_table16 kernel
 *   (gathered entry, widened bf16 up, one vmulps), with MXCSR as it comes (gradual
 *   underflow, as OpenCL requires), with flush-to-zero and denormals-are-zero set (not a
 *   form bicl may use: it only shows what underflowing products cost), and with both
 *   operands forced into [1, 2) (no product underflows), and with a product that never
 *   underflows and still rounds once (mul_no_underflow; its bits are checked against the plain
 *   product's on every element of the run).
 * Build and run (the machine's cores as OpenMP threads; docs/performance.md):
 *   gcc -O2 -mavx2 -mfma -fopenmp platforms/pocl/table_bound.c -o table_bound && ./table_bound */
#include <immintrin.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define N     ((size_t)1 << 27) /* 128 Mi elements: 256 MiB per bf16 array */
#define REPS  5
#define TABLE 65536

enum { COPY, LOOKUP_SCALAR, LOOKUP_GATHER, SWIGLU, SWIGLU_FTZ, SWIGLU_NORMAL, SWIGLU_NOUF, KINDS };
static const char *const names[KINDS] = {"copy (uint16, 4 bytes an element)",
                                         "lookup, scalar loads",
                                         "lookup, AVX2 gather",
                                         "swiglu-like, MXCSR as it comes",
                                         "swiglu-like, FTZ and DAZ set",
                                         "swiglu-like, operands in [1, 2)",
                                         "swiglu-like, product without underflow"};

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

/* floor(log2 |x|) for finite x (-191 for zero), 128 for inf and NaN: from |x| 2^64 below 2^64 */
static __m256i exponent_of(__m256 ax, __m256 axs)
{
    __m256i f = _mm256_srli_epi32(_mm256_castps_si256(ax), 23);
    __m256i fs = _mm256_srli_epi32(_mm256_castps_si256(axs), 23);
    __m256i big = _mm256_cmpgt_epi32(f, _mm256_set1_epi32(190));
    return _mm256_blendv_epi8(_mm256_sub_epi32(fs, _mm256_set1_epi32(191)),
                              _mm256_sub_epi32(f, _mm256_set1_epi32(127)), big);
}

/* a * b rounded once with no multiply whose result is below 2^-126 (bicl's
 * bicl_f32_mul_no_underflow, cl/bicl_portable.h): where the exponents put the product below
 * 2^-126, fma(|a| 2^64, |b|, 2^-62) rounds it once on the subnormal grid */
static __m256 mul_no_underflow(__m256 a, __m256 b)
{
    const __m256 abs_mask = _mm256_castsi256_ps(_mm256_set1_epi32(0x7fffffff));
    __m256 aa = _mm256_and_ps(a, abs_mask), ab = _mm256_and_ps(b, abs_mask);
    __m256 aas = _mm256_mul_ps(aa, _mm256_set1_ps(0x1p64f));
    __m256 abs_ = _mm256_mul_ps(ab, _mm256_set1_ps(0x1p64f));
    __m256i k = _mm256_add_epi32(exponent_of(aa, aas), exponent_of(ab, abs_));
    __m256 tiny = _mm256_castsi256_ps(_mm256_cmpgt_epi32(_mm256_set1_epi32(-127), k));
    __m256 t = _mm256_fmadd_ps(aas, ab, _mm256_set1_ps(0x1p-62f));
    __m256i tb = _mm256_sub_epi32(_mm256_castps_si256(t), _mm256_set1_epi32(0x20800000));
    __m256i sign = _mm256_and_si256(_mm256_castps_si256(_mm256_xor_ps(a, b)),
                                    _mm256_set1_epi32((int)0x80000000u));
    __m256 rt = _mm256_castsi256_ps(_mm256_or_si256(tb, sign));
    __m256 rn = _mm256_mul_ps(_mm256_andnot_ps(tiny, a), b);
    return _mm256_blendv_ps(rn, rt, tiny);
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
                r = narrow_bf16(kind == SWIGLU_NOUF ? mul_no_underflow(a, u) : _mm256_mul_ps(a, u));
            }
            _mm_store_si128((__m128i *)(y + i), r);
        }
        if (kind == SWIGLU_FTZ)
            _mm_setcsr(_mm_getcsr() & ~0x8040u);
    }
}

/* mul_no_underflow against the plain product on n random f32 bit patterns and n products of
 * random bf16 patterns (a NaN matches any NaN): the number that differ */
static size_t check_no_underflow(size_t n)
{
    size_t bad = 0;
    uint64_t s = 0x9e3779b97f4a7c15ull;
    for (size_t i = 0; i < 2 * n; i += 8) {
        uint32_t wa[8], wb[8];
        for (int l = 0; l < 8; ++l) {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            wa[l] = i < n ? (uint32_t)s : (uint32_t)s & 0xffff0000u;
            wb[l] = i < n ? (uint32_t)(s >> 32) : (uint32_t)(s >> 16) << 16;
        }
        __m256 a = _mm256_loadu_ps((const float *)wa), b = _mm256_loadu_ps((const float *)wb);
        float p[8], q[8];
        _mm256_storeu_ps(p, _mm256_mul_ps(a, b));
        _mm256_storeu_ps(q, mul_no_underflow(a, b));
        for (int l = 0; l < 8; ++l) {
            uint32_t x, y;
            memcpy(&x, &p[l], 4);
            memcpy(&y, &q[l], 4);
            bad += x != y && !(p[l] != p[l] && q[l] != q[l]);
        }
    }
    return bad;
}

int main(void)
{
    printf("mul_no_underflow against the product: %zu of 2^25 differ\n",
           check_no_underflow((size_t)1 << 24));
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
