/* test_host.c - everything that needs no OpenCL device: options and the allow list,
 * the device-free view checks and the aliasing search (against brute force), the host
 * reference, the disk cache's file format, RoPE config validation, the per-thread
 * last error, the self-test's judgement and device specs over made-up devices. It makes no OpenCL
 * call, so it also runs in the ASan+UBSan sub-build and under valgrind (docs/reliability.md). */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* ------------------------------------------------------------ options */

static void options_refuse_and_keep_nothing(void **state)
{
    (void)state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, "-w -g"), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, "-g -cl-mad-enable"),
                     BICL_ERR_UNSAFE_OPTION);
    assert_string_equal(o->build_options, "-w -g"); /* the refused value left no trace */
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, "-O2"),
                     BICL_ERR_UNKNOWN_OPTION);
    char *long_dir = malloc(BICL_PATH_MAX + 16);
    assert_non_null(long_dir);
    memset(long_dir, 'd', BICL_PATH_MAX + 15);
    long_dir[BICL_PATH_MAX + 15] = '\0';
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_CACHE_DIR, "/tmp/x"), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_CACHE_DIR, long_dir),
                     BICL_ERR_INVALID_PARAMETER);
    assert_string_equal(o->cache_dir, "/tmp/x");
    free(long_dir);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_PROFILE, NULL), BICL_SUCCESS);
    assert_string_equal(o->profile, "auto");
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_DISK_CACHE, -1),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(o->disk_cache, 1);
    bicl_options_free(o);
    bicl_options_free(NULL);
}

/* ------------------------------------------------------- view checks */

/* A valid 2-d view [8, 8] of f32 at offset 16; the catalogue breaks one thing each. */
static bicl_tensor base_view(void)
{
    size_t shape[2] = {8, 8};
    return bicl_tensor_contiguous((cl_mem)NULL, BICL_F32, 16, 2, shape);
}

typedef struct view_case {
    const char *name;
    bicl_status want;
    bool output;
    void (*mutate)(bicl_tensor *);
} view_case;

static void v_rank0(bicl_tensor *t)
{
    t->rank = 0;
}
static void v_rank5(bicl_tensor *t)
{
    t->rank = 5;
}
static void v_zero(bicl_tensor *t)
{
    t->shape[1] = 0;
}
static void v_count(bicl_tensor *t)
{
    t->shape[0] = SIZE_MAX / 4;
    t->shape[1] = 8;
}
static void v_address(bicl_tensor *t)
{
    t->stride[0] = PTRDIFF_MAX;
}
static void v_offset(bicl_tensor *t)
{
    t->offset = SIZE_MAX - 4;
}
static void v_bytes(bicl_tensor *t)
{
    t->offset = SIZE_MAX / 4; /* elements fit, bytes do not */
}
static void v_negative(bicl_tensor *t)
{
    t->stride[1] = -1;
}
static void v_broadcast(bicl_tensor *t)
{
    t->stride[0] = 0;
}
static void v_self(bicl_tensor *t)
{
    t->stride[0] = 7;
}
static void v_dtype(bicl_tensor *t)
{
    t->dtype = (bicl_dtype)-3;
}
static void v_none(bicl_tensor *t)
{
    (void)t;
}

static const view_case view_cases[] = {
    {"rank 0", BICL_ERR_INVALID_RANK, false, v_rank0},
    {"rank 5", BICL_ERR_INVALID_RANK, false, v_rank5},
    {"zero extent", BICL_ERR_ZERO_EXTENT, false, v_zero},
    {"element count overflows", BICL_ERR_EXTENT_OVERFLOW, false, v_count},
    {"last address overflows", BICL_ERR_EXTENT_OVERFLOW, false, v_address},
    {"offset overflows", BICL_ERR_EXTENT_OVERFLOW, false, v_offset},
    {"byte size overflows", BICL_ERR_EXTENT_OVERFLOW, false, v_bytes},
    {"negative stride", BICL_ERR_INVALID_STRIDE, false, v_negative},
    {"broadcast output", BICL_ERR_INVALID_STRIDE, true, v_broadcast},
    {"broadcast input", BICL_SUCCESS, false, v_broadcast},
    {"output overlaps itself", BICL_ERR_OVERLAPPING_VIEW, true, v_self},
    {"overlapping input", BICL_SUCCESS, false, v_self},
    {"negative dtype", BICL_ERR_UNSUPPORTED_DTYPE, false, v_dtype},
    {"valid output", BICL_SUCCESS, true, v_none},
};

static void view_checks_give_their_status(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof view_cases / sizeof view_cases[0]; ++i) {
        bicl_tensor t = base_view();
        view_cases[i].mutate(&t);
        size_t bytes = 12345;
        bool out = view_cases[i].output; /* outputs never broadcast, as in every op */
        bicl_status st = bicl_view_check(&t, "t", out, !out, &bytes);
        if (st != view_cases[i].want)
            fail_msg("%s: %s, want %s (%s)", view_cases[i].name, bicl_status_string(st),
                     bicl_status_string(view_cases[i].want), bicl_last_error(NULL));
        if (st != BICL_SUCCESS)
            assert_int_equal(bytes, 12345); /* nothing written on failure */
    }
    bicl_tensor t = base_view();
    size_t bytes = 0;
    assert_int_equal(bicl_view_check(&t, "t", true, false, &bytes), BICL_SUCCESS);
    assert_int_equal(bytes, (16 + 64) * 4);
    assert_int_equal(bicl_view_check(NULL, "t", false, false, &bytes), BICL_ERR_NULL_POINTER);
}

/* ----------------------------------------------------------- aliasing */

/* A small random view: rank 1..3, extents 1..4, strides 0..9 (elements), offset 0..31. */
static bicl_tensor random_view(uint64_t *s, bicl_dtype dt)
{
    bicl_tensor t;
    memset(&t, 0, sizeof t);
    t.dtype = dt;
    t.rank = 1 + (int)(test_rand(s) % 3);
    t.offset = test_rand(s) % 32;
    for (int d = 0; d < t.rank; ++d) {
        t.shape[d] = 1 + test_rand(s) % 4;
        t.stride[d] = (ptrdiff_t)(test_rand(s) % 10);
    }
    return t;
}

#define ARENA 1024 /* bytes: every random view with its origin fits */

/* Marks (or tests, when mark is false) the bytes of every element of t; returns true
 * if some byte was already marked. */
static bool touch_bytes(const bicl_tensor *t, size_t origin, unsigned char *arena, bool mark)
{
    size_t elem = bicl_dtype_size(t->dtype), n = bicl_tensor_numel(t);
    bool hit = false;
    for (size_t i = 0; i < n; ++i) {
        size_t rem = i, at = t->offset;
        for (int d = t->rank - 1; d >= 0; --d) {
            at += (rem % t->shape[d]) * (size_t)t->stride[d];
            rem /= t->shape[d];
        }
        for (size_t b = 0; b < elem; ++b) {
            size_t byte = origin + at * elem + b;
            assert_true(byte < ARENA);
            hit |= arena[byte] != 0;
            if (mark)
                arena[byte] = 1;
        }
    }
    return hit;
}

static bool brute_overlap(const bicl_tensor *a, size_t ao, const bicl_tensor *b, size_t bo)
{
    unsigned char arena[ARENA];
    memset(arena, 0, sizeof arena);
    touch_bytes(a, ao, arena, true);
    return touch_bytes(b, bo, arena, false);
}

/* DISJOINT must never hide a shared byte; IDENTICAL must mean index-for-index equal.
 * OVERLAP may be conservative (counted, not failed). */
static void alias_search_never_misses_an_overlap(void **state)
{
    (void)state;
    uint64_t s = 2024;
    const bicl_dtype dts[3] = {BICL_F32, BICL_BF16, BICL_U8};
    unsigned long pairs = 0, overlaps = 0, conservative = 0;
    for (int i = 0; i < 40000; ++i) {
        bicl_tensor a = random_view(&s, dts[test_rand(&s) % 3]);
        bicl_tensor b = random_view(&s, test_rand(&s) % 2 ? a.dtype : dts[test_rand(&s) % 3]);
        if (test_rand(&s) % 2) { /* same strides where both move: the exact search */
            b.rank = a.rank;
            for (int d = 0; d < a.rank; ++d)
                b.stride[d] = a.shape[d] > 1 ? a.stride[d] : (ptrdiff_t)(test_rand(&s) % 10);
        }
        size_t ao = test_rand(&s) % 8, bo = test_rand(&s) % 8, bytes;
        if (bicl_view_check(&a, "a", false, true, &bytes) != BICL_SUCCESS ||
            bicl_view_check(&b, "b", false, true, &bytes) != BICL_SUCCESS)
            continue;
        ++pairs;
        bool truth = brute_overlap(&a, ao, &b, bo);
        bicl_view_relation r = bicl_views_relate(&a, ao, &b, bo);
        overlaps += truth;
        if (r == BICL_VIEWS_DISJOINT && truth)
            fail_msg("pair %d: a missed overlap (offsets %zu/%zu, origins %zu/%zu)", i, a.offset,
                     b.offset, ao, bo);
        if (r == BICL_VIEWS_OVERLAP && !truth)
            ++conservative;
        if (r == BICL_VIEWS_IDENTICAL) {
            assert_int_equal(bicl_dtype_size(a.dtype), bicl_dtype_size(b.dtype));
            assert_int_equal(a.offset * bicl_dtype_size(a.dtype) + ao,
                             b.offset * bicl_dtype_size(b.dtype) + bo);
            assert_int_equal(bicl_tensor_numel(&a), bicl_tensor_numel(&b));
        }
    }
    printf("alias search: %lu pairs, %lu overlapping, %lu refused conservatively\n", pairs,
           overlaps, conservative);
    assert_true(pairs > 20000 && overlaps > 1000);
}

/* An output view the check accepts never maps two indices to one element. */
static void accepted_output_views_are_one_to_one(void **state)
{
    (void)state;
    uint64_t s = 77;
    unsigned long accepted = 0, refused = 0;
    for (int i = 0; i < 20000; ++i) {
        bicl_tensor t = random_view(&s, BICL_F32);
        size_t bytes;
        bicl_status st = bicl_view_check(&t, "y", true, false, &bytes);
        bool overlap_refused = st == BICL_ERR_OVERLAPPING_VIEW;
        if (st != BICL_SUCCESS && !overlap_refused)
            continue;
        unsigned char arena[ARENA];
        memset(arena, 0, sizeof arena);
        size_t n = bicl_tensor_numel(&t);
        bool repeats = false;
        for (size_t e = 0; e < n && !repeats; ++e) { /* each index alone */
            bicl_tensor one = t;
            size_t rem = e;
            for (int d = t.rank - 1; d >= 0; --d) {
                one.offset += (rem % t.shape[d]) * (size_t)t.stride[d];
                rem /= t.shape[d];
                one.shape[d] = 1;
            }
            repeats = touch_bytes(&one, 0, arena, true);
        }
        /* Both ways: an accepted view is one to one, a refused one really repeats an
         * element (the search is exact on views this small). */
        if (repeats != overlap_refused)
            fail_msg("view %d %s as an output, but its indices %s", i,
                     overlap_refused ? "refused" : "accepted",
                     repeats ? "repeat an element" : "are one to one");
        accepted += !overlap_refused;
        refused += overlap_refused;
    }
    assert_true(accepted > 1000);
    assert_true(refused > 100);
    /* [2, 3] with strides [3, 2]: 0 2 4 3 5 7, interleaved and one to one. */
    bicl_tensor inter = {NULL, 0, BICL_F32, 2, {2, 3, 0, 0}, {3, 2, 0, 0}};
    size_t bytes;
    assert_int_equal(bicl_view_check(&inter, "y", true, false, &bytes), BICL_SUCCESS);
    inter.shape[1] = 4; /* 0 2 4 6 3 5 7 9: still one to one */
    assert_int_equal(bicl_view_check(&inter, "y", true, false, &bytes), BICL_SUCCESS);
    inter.stride[0] = 4; /* 0 2 4 6 / 4 6 8 10: repeats */
    assert_int_equal(bicl_view_check(&inter, "y", true, false, &bytes), BICL_ERR_OVERLAPPING_VIEW);
}

/* Cases found by reading or fuzzing the search, kept as regressions. */
static void alias_known_cases(void **state)
{
    (void)state;
    /* fused qkv [T=4, 10 heads, D=8], token stride 80: q = heads 0..7, k = head 8 */
    bicl_tensor q = {NULL, 0, BICL_F32, 3, {4, 8, 8, 0}, {80, 8, 1, 0}};
    bicl_tensor k = {NULL, 64, BICL_F32, 3, {4, 1, 8, 0}, {80, 0, 1, 0}};
    assert_int_equal(bicl_views_relate(&k, 0, &q, 0), BICL_VIEWS_DISJOINT);
    /* k placed over q's third head: a dim of extent 1 in k (stride 0) must still let
     * q's head index move; the search once skipped it and answered DISJOINT. */
    k.offset = 16;
    assert_int_equal(bicl_views_relate(&k, 0, &q, 0), BICL_VIEWS_OVERLAP);
    assert_int_equal(bicl_views_relate(&q, 0, &k, 0), BICL_VIEWS_OVERLAP);
    /* even and odd elements of one buffer */
    bicl_tensor ev = {NULL, 0, BICL_F32, 2, {4, 8, 0, 0}, {16, 2, 0, 0}}, od = ev;
    od.offset = 1;
    assert_int_equal(bicl_views_relate(&ev, 0, &od, 0), BICL_VIEWS_DISJOINT);
    /* a sub-buffer starting one element later puts ev exactly on od */
    assert_int_equal(bicl_views_relate(&ev, 4, &od, 0), BICL_VIEWS_IDENTICAL);
    assert_int_equal(bicl_views_relate(&ev, 8, &ev, 0), BICL_VIEWS_OVERLAP);
    assert_int_equal(bicl_views_relate(&ev, 0, &ev, 0), BICL_VIEWS_IDENTICAL);
    assert_int_equal(bicl_views_relate(&ev, 2, &od, 0), BICL_VIEWS_OVERLAP); /* unaligned */
    /* huge strides and extents never overflow the search: the answer is conservative */
    bicl_tensor big = {NULL, 0, BICL_U8, 2, {2, 2, 0, 0}, {PTRDIFF_MAX / 2, 1, 0, 0}};
    bicl_tensor big2 = big;
    big2.offset = 1;
    assert_int_equal(bicl_views_relate(&big, 0, &big2, 0), BICL_VIEWS_OVERLAP);
    assert_int_equal(bicl_views_relate(&big, SIZE_MAX - 2, &big2, 0), BICL_VIEWS_OVERLAP);
}

/* ----------------------------------------------------- host reference */

static void f16_and_bf16_round_trips_are_exact(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; ++h) {
        float f = bicl_ref_f16_to_f32((uint16_t)h);
        uint16_t back = bicl_ref_f32_to_f16(f);
        bool nan = (h & 0x7c00u) == 0x7c00u && (h & 0x03ffu);
        uint16_t want = nan ? (uint16_t)(h | 0x0200u) : (uint16_t)h; /* NaN: quieted */
        if (back != want)
            fail_msg("f16 0x%04x -> %a -> 0x%04x", h, (double)f, back);
        float g = bicl_ref_bf16_to_f32((uint16_t)h);
        uint16_t gb = bicl_ref_f32_to_bf16(g);
        nan = (h & 0x7f80u) == 0x7f80u && (h & 0x007fu);
        want = nan ? (uint16_t)(h | 0x0040u) : (uint16_t)h;
        if (gb != want)
            fail_msg("bf16 0x%04x -> 0x%04x", h, gb);
    }
}

static void reference_functions_validate_arguments(void **state)
{
    (void)state;
    float x[4] = {-0.0f, -1.0f, 2.0f, NAN}, y[4];
    assert_int_equal(bicl_ref_unary(BICL_UNARY_RELU, NULL, BICL_F32, x, BICL_F32, y, 4),
                     BICL_SUCCESS);
    uint32_t b0;
    memcpy(&b0, &y[0], 4);
    assert_int_equal(b0, 0); /* relu(-0) = +0 */
    assert_true(y[1] == 0.0f && y[2] == 2.0f && isnan(y[3]));
    assert_int_equal(bicl_ref_unary((bicl_unary_op)99, NULL, BICL_F32, x, BICL_F32, y, 4),
                     BICL_ERR_INVALID_ENUM);
    assert_int_equal(bicl_ref_unary(BICL_UNARY_RELU, NULL, BICL_I32, x, BICL_F32, y, 4),
                     BICL_ERR_UNSUPPORTED_DTYPE);
    assert_int_equal(bicl_ref_binary((bicl_binary_op)-1, BICL_F32, x, BICL_F32, x, BICL_F32, y, 4),
                     BICL_ERR_INVALID_ENUM);
    assert_int_equal(bicl_ref_glu((bicl_glu_act)7, NULL, BICL_F32, x, x, BICL_F32, y, 4),
                     BICL_ERR_INVALID_ENUM);
    assert_int_equal(bicl_ref_cast(BICL_F32, NULL, BICL_F16, y, 4), BICL_ERR_NULL_POINTER);
    assert_int_equal(bicl_ref_cast(BICL_U8, x, BICL_F16, y, 4), BICL_ERR_UNSUPPORTED_DTYPE);
    assert_int_equal(bicl_ref_residual_add(NULL, BICL_F32, x, y, BICL_F32, y, 4),
                     BICL_ERR_NULL_POINTER);
}

static void position_references_known_answers(void **state)
{
    (void)state;
    int32_t cu[3] = {0, 3, 5}, start[2] = {10, 0}, pos[6];
    assert_int_equal(bicl_ref_positions_packed(cu, 2, start, pos, 6), BICL_SUCCESS);
    const int32_t want[6] = {10, 11, 12, 0, 1, -1}; /* token 5 is in no sequence */
    assert_memory_equal(pos, want, sizeof want);
    uint8_t mask[8] = {0, 0, 1, 1, 1, 1, 1, 0}; /* [2, 4]: left, then right padding */
    int32_t pp[8];
    assert_int_equal(bicl_ref_positions_padded(mask, BICL_U8, 2, 4, NULL, pp), BICL_SUCCESS);
    const int32_t wp[8] = {0, 0, 0, 1, 0, 1, 2, 0};
    assert_memory_equal(pp, wp, sizeof wp);
    int32_t big[1] = {INT32_MAX};
    int32_t cu1[2] = {0, 2}, p2[2];
    assert_int_equal(bicl_ref_positions_packed(cu1, 1, big, p2, 2), BICL_SUCCESS);
    assert_int_equal(p2[0], INT32_MAX);
    assert_int_equal(p2[1], -1); /* would overflow int32: marked out of range */
    assert_int_equal(bicl_ref_positions_padded(mask, BICL_F32, 2, 4, NULL, pp),
                     BICL_ERR_UNSUPPORTED_DTYPE);
}

/* --------------------------------------------------------- disk cache */

static char cache_dir[64];

static long size_of(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

static int count_files(const char *dir)
{
    char cmd[256];
    snprintf(cmd, sizeof cmd, "ls -A '%s' | wc -l", dir);
    FILE *p = popen(cmd, "r");
    int n = -1;
    if (p) {
        if (fscanf(p, "%d", &n) != 1)
            n = -1;
        pclose(p);
    }
    return n;
}

static int load(const char *key, size_t *n)
{
    unsigned char *bin = NULL;
    int r = bicl_cache_load(cache_dir, key, &bin, n);
    assert_true(r == 1 || bin == NULL);
    free(bin);
    return r;
}

static void cache_file_format_survives_damage(void **state)
{
    (void)state;
    snprintf(cache_dir, sizeof cache_dir, "/tmp/bicl-host-cache-XXXXXX");
    assert_non_null(mkdtemp(cache_dir));
    unsigned char bin[300];
    for (size_t i = 0; i < sizeof bin; ++i)
        bin[i] = (unsigned char)(i * 31 + 7);
    const char *key = "bicl=test device='host'\nfamily=cast\nprogram=1\n";
    char path[512];
    bicl_cache_path(cache_dir, key, path, sizeof path);
    size_t n = 0;
    assert_int_equal(load(key, &n), 0); /* miss */
    assert_int_equal(bicl_cache_store(cache_dir, key, bin, sizeof bin), 0);
    assert_int_equal(count_files(cache_dir), 1); /* no temp file left behind */
    assert_int_equal(load(key, &n), 1);
    assert_int_equal(n, sizeof bin);
    long full = size_of(path);
    /* every truncation of a valid entry is rejected, never read past its end */
    for (long len = 0; len < full; len += (len < 64 ? 1 : 37)) {
        assert_int_equal(bicl_cache_store(cache_dir, key, bin, sizeof bin), 0);
        assert_int_equal(truncate(path, len), 0);
        if (load(key, &n) != -1)
            fail_msg("entry truncated to %ld of %ld bytes was not rejected", len, full);
    }
    /* a flipped byte anywhere: header, key or binary */
    for (long at = 0; at < full; at += 13) {
        assert_int_equal(bicl_cache_store(cache_dir, key, bin, sizeof bin), 0);
        FILE *f = fopen(path, "r+b");
        assert_non_null(f);
        fseek(f, at, SEEK_SET);
        int c = fgetc(f);
        fseek(f, at, SEEK_SET);
        fputc(c ^ 0x40, f);
        fclose(f);
        if (load(key, &n) != -1)
            fail_msg("entry with byte %ld flipped was not rejected", at);
    }
    /* an entry written for another key, renamed into this key's place */
    const char *other = "bicl=0.0.0 device='elsewhere'\nfamily=cast\nprogram=1\n";
    char other_path[512];
    assert_int_equal(bicl_cache_store(cache_dir, other, bin, sizeof bin), 0);
    bicl_cache_path(cache_dir, other, other_path, sizeof other_path);
    assert_int_equal(rename(other_path, path), 0);
    assert_int_equal(load(key, &n), -1);
    /* nothing to store, and a directory that cannot exist (its parent is a file) */
    assert_int_equal(bicl_cache_store(cache_dir, key, bin, 0), -1);
    char blocked[600];
    snprintf(blocked, sizeof blocked, "%s/sub", path);
    assert_int_equal(bicl_cache_store(blocked, key, bin, sizeof bin), -1);
    char cmd[128];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_dir);
    assert_int_equal(system(cmd), 0);
}

/* ------------------------------------------------------- RoPE configs */

static void rope_configs_valid_and_invalid(void **state)
{
    (void)state;
    bicl_rope_config c;
    bicl_rope_config_init(&c, 128, 128);
    assert_int_equal(bicl_rope_config_check(&c), BICL_SUCCESS);
    c.type = BICL_ROPE_LLAMA3;
    c.factor = 8.0;
    c.low_freq_factor = 1.0;
    c.high_freq_factor = 4.0;
    c.original_max_position_embeddings = 8192;
    c.theta = 500000.0;
    assert_int_equal(bicl_rope_config_check(&c), BICL_SUCCESS);
    /* each field in range, but the frequencies overflow: refused since the fuzzer
     * found them (NaN outputs otherwise) */
    double tiny[64], ones[64];
    for (int i = 0; i < 64; ++i) {
        tiny[i] = i == 3 ? 1e-310 : 1.0;
        ones[i] = 1.0;
    }
    bicl_rope_config_init(&c, 128, 128);
    c.type = BICL_ROPE_LONGROPE;
    c.original_max_position_embeddings = 4096;
    c.max_position_embeddings = 131072;
    c.long_factor = tiny;
    c.short_factor = ones;
    c.seq_len = 8192;
    assert_int_equal(bicl_rope_config_check(&c), BICL_ERR_INVALID_CONFIG);
    assert_non_null(strstr(bicl_last_error(NULL), "inv_freq[3]"));
    c.seq_len = 100; /* the short factors are used: fine */
    assert_int_equal(bicl_rope_config_check(&c), BICL_SUCCESS);
    bicl_rope_config_init(&c, 64, 64);
    c.type = BICL_ROPE_DYNAMIC_NTK;
    c.factor = 1e308;
    c.max_position_embeddings = 2048;
    c.seq_len = 4096;
    assert_int_equal(bicl_rope_config_check(&c), BICL_ERR_INVALID_CONFIG);
    bicl_rope_config_init(&c, 64, 64);
    c.theta = 1e-300; /* theta^(2i/d) for large i overflows f32 */
    assert_int_equal(bicl_rope_config_check(&c), BICL_ERR_INVALID_CONFIG);
    bicl_rope_config_init(&c, 64, 64);
    c.freq_factors = tiny;
    assert_int_equal(bicl_rope_config_check(&c), BICL_ERR_INVALID_CONFIG);
    bicl_rope_config_init(&c, 64, 64);
    c.type = BICL_ROPE_YARN;
    c.factor = 32.0;
    c.original_max_position_embeddings = 4096;
    c.attention_factor = INFINITY;
    assert_int_equal(bicl_rope_config_check(&c), BICL_ERR_INVALID_CONFIG);
    c.attention_factor = 1e39; /* finite in double, not in f32 */
    assert_int_equal(bicl_rope_config_check(&c), BICL_ERR_INVALID_CONFIG);
    c.attention_factor = 0.0;
    assert_int_equal(bicl_rope_config_check(&c), BICL_SUCCESS);
    assert_int_equal(bicl_rope_config_check(NULL), BICL_ERR_NULL_POINTER);
}

/* --------------------------------------------------- per-thread errors */

static void *fail_in_thread(void *arg)
{
    char *seen = arg;
    bicl_check_build_options("-O2");
    snprintf(seen, 256, "%s", bicl_last_error(NULL));
    return NULL;
}

static void last_error_is_per_thread(void **state)
{
    (void)state;
    assert_int_equal(bicl_check_build_options("-O3"), BICL_ERR_UNKNOWN_OPTION);
    char seen[256] = "";
    pthread_t th;
    assert_int_equal(pthread_create(&th, NULL, fail_in_thread, seen), 0);
    assert_int_equal(pthread_join(th, NULL), 0);
    assert_non_null(strstr(seen, "-O2"));
    assert_non_null(strstr(bicl_last_error(NULL), "-O3")); /* not overwritten */
    assert_int_equal(bicl_check_build_options("-w"), BICL_SUCCESS);
    assert_string_equal(bicl_last_error(NULL), ""); /* a public call starts clean */
}

/* ------------------------------------------------------------ self-test */

/* Index of the first case of op, or n. */
/* The first case of op whose answer is a number (a NaN's payload is free for the IEEE
 * operations, so a flipped bit there is no wrong answer). */
static size_t first_case(const uint64_t *cases, size_t n, unsigned op)
{
    for (size_t i = 0; i < n; ++i) {
        if (cases[4 * i] != op)
            continue;
        uint64_t v = bicl_selftest_expect(cases + 4 * i);
        bool nan32 = (v & 0x7f800000u) == 0x7f800000u && (v & 0x007fffffu) != 0 && v <= 0xffffffffu;
        bool nan64 = (v & 0x7ff0000000000000ull) == 0x7ff0000000000000ull &&
                     (v & 0x000fffffffffffffull) != 0;
        if (!(op < 16 ? nan32 : nan64))
            return i;
    }
    return n;
}

/* The self-test's verdict on answers with one wrong bit: each names its operation
 * (the run on a device gives the host's answers and passes, tests/test_core.c). */
static void selftest_verdict_names_the_failing_operation(void **state)
{
    (void)state;
    uint64_t *cases = NULL, *f32_cases = NULL;
    size_t n = bicl_selftest_cases(true, &cases);
    assert_true(n > 5000 && n < 8192);                       /* "a few thousand" */
    assert_true(bicl_selftest_cases(false, &f32_cases) < n); /* fp64 cases only with fp64 */
    free(f32_cases);
    uint64_t *got = malloc(n * sizeof *got);
    assert_non_null(got);
    for (size_t i = 0; i < n; ++i)
        got[i] = bicl_selftest_expect(cases + 4 * i);
    const unsigned all = 0x1ffu, advertised = all & ~(unsigned)BICL_CAPS_PROVABLE;
    unsigned caps = 0;
    char why[512];
    /* right answers prove what was not advertised */
    assert_int_equal(bicl_selftest_judge(cases, n, got, advertised, &caps, why, sizeof why),
                     BICL_SUCCESS);
    assert_int_equal(caps, all);
    assert_string_equal(why, "");
    static const struct {
        unsigned op;
        bicl_status status;
        const char *says;
        unsigned caps;
    } planted[] = {
        {0 /* BICL_ST_DIV */, BICL_ERR_DEVICE_UNSUITABLE,
         "divide and sqrt: self-test: f32 division", 0},
        {2 /* BICL_ST_SQRT */, BICL_ERR_DEVICE_UNSUITABLE, "divide and sqrt: self-test: f32 sqrt",
         0},
        {3 /* BICL_ST_FMA */, BICL_ERR_DEVICE_UNSUITABLE, "fp32 denormals: self-test: f32 fma", 0},
        {7 /* BICL_ST_FROM_F16 */, BICL_ERR_DEVICE_UNSUITABLE, "f16 -> f32", 0},
        {13 /* BICL_ST_EXPF */, BICL_ERR_DEVICE_UNSUITABLE, "self-test: bicl_expf", 0},
        {16 /* BICL_ST_MISH */, BICL_ERR_DEVICE_UNSUITABLE, "self-test: bicl_mish", 0},
        {23 /* BICL_ST_DSIN */, BICL_SUCCESS, "fp64 not used: self-test: f64 sin", 0x1dfu},
    };
    for (size_t p = 0; p < sizeof planted / sizeof planted[0]; ++p) {
        size_t i = first_case(cases, n, planted[p].op);
        assert_true(i < n);
        got[i] ^= 1u; /* one bit of one answer */
        assert_int_equal(bicl_selftest_judge(cases, n, got, all, &caps, why, sizeof why),
                         planted[p].status);
        assert_non_null(strstr(why, planted[p].says));
        assert_non_null(strstr(why, "1 of "));
        if (planted[p].status == BICL_SUCCESS)
            assert_int_equal(caps, planted[p].caps);
        got[i] ^= 1u;
    }
    /* A NaN from division may have any payload (NVIDIA answers 0x7fffffff for 0/0, x86
     * 0xffc00000); a non-NaN for a NaN, or another payload from a bit path, fails. */
    size_t nan_case = n;
    for (size_t i = 0; i < n && nan_case == n; ++i)
        if (cases[4 * i] == 0 /* BICL_ST_DIV */ && (got[i] & 0x7f800000u) == 0x7f800000u &&
            (got[i] & 0x007fffffu) != 0)
            nan_case = i;
    assert_true(nan_case < n);
    uint64_t was = got[nan_case];
    got[nan_case] = 0x7fffffffu;
    assert_int_equal(bicl_selftest_judge(cases, n, got, all, &caps, why, sizeof why), BICL_SUCCESS);
    got[nan_case] = 0x7f800000u; /* inf is no NaN */
    assert_int_equal(bicl_selftest_judge(cases, n, got, all, &caps, why, sizeof why),
                     BICL_ERR_DEVICE_UNSUITABLE);
    got[nan_case] = was;
    size_t conv = first_case(cases, n, 8 /* BICL_ST_TO_BF16 */);
    for (size_t i = conv; i < n; ++i)
        if (cases[4 * i] == 8 && (got[i] & 0x7f80u) == 0x7f80u && (got[i] & 0x7fu) != 0) {
            got[i] ^= 1u; /* another bf16 NaN payload: a bit path must match exactly */
            assert_int_equal(bicl_selftest_judge(cases, n, got, all, &caps, why, sizeof why),
                             BICL_ERR_DEVICE_UNSUITABLE);
            got[i] ^= 1u;
            break;
        }
    free(got);
    free(cases);
}

/* The Mesa llvmpipe fact the self-test must catch: fma(0x1.8p-148, 3, 0) is the
 * denormal 0x1.2p-146, not 0 (its answer). */
static void selftest_knows_the_denormal_fma(void **state)
{
    (void)state;
    const uint64_t k[4] = {3 /* BICL_ST_FMA */, 0x00000003u, 0x40400000u, 0};
    assert_int_equal(bicl_selftest_expect(k), 0x00000009u);
}

/* ---------------------------------------------------------- device specs */

static bicl_device_info fake_device(const char *platform, const char *version, const char *vendor,
                                    const char *name)
{
    bicl_device_info d;
    memset(&d, 0, sizeof d);
    snprintf(d.platform_name, sizeof d.platform_name, "%s", platform);
    snprintf(d.platform_version, sizeof d.platform_version, "%s", version);
    snprintf(d.vendor, sizeof d.vendor, "%s", vendor);
    snprintf(d.device_name, sizeof d.device_name, "%s", name);
    return d;
}

/* An Intel host with PoCL and Intel's runtime: "intel" matches both (PoCL's vendor is
 * GenuineIntel) and must say so; "pocl" and the platform name are unique. */
static void ambiguous_device_specs_are_errors(void **state)
{
    (void)state;
    const bicl_device_info devs[3] = {
        fake_device("Portable Computing Language", "OpenCL 3.0 PoCL 3.1+debian", "GenuineIntel",
                    "pthread-skylake-avx512-Intel(R) Xeon(R)"),
        fake_device("Intel(R) OpenCL", "OpenCL 3.1 LINUX", "Intel(R) Corporation",
                    "Intel(R) Xeon(R)"),
        fake_device("NVIDIA CUDA", "OpenCL 3.0 CUDA", "NVIDIA Corporation", "NVIDIA H200"),
    };
    size_t chosen = 99;
    assert_int_equal(bicl_device_spec_resolve("intel", devs, 3, &chosen),
                     BICL_ERR_DEVICE_AMBIGUOUS);
    assert_int_equal(chosen, 99);
    const char *e = bicl_last_error(NULL);
    assert_non_null(strstr(e, "[0] Portable Computing Language"));
    assert_non_null(strstr(e, "[1] Intel(R) OpenCL"));
    assert_null(strstr(e, "NVIDIA"));
    assert_int_equal(bicl_device_spec_resolve("intel:1", devs, 3, &chosen), BICL_SUCCESS);
    assert_int_equal(chosen, 1);
    assert_int_equal(bicl_device_spec_resolve("intel:2", devs, 3, &chosen),
                     BICL_ERR_DEVICE_NOT_FOUND);
    assert_int_equal(bicl_device_spec_resolve("pocl", devs, 3, &chosen), BICL_SUCCESS);
    assert_int_equal(chosen, 0);
    assert_int_equal(bicl_device_spec_resolve("Intel(R) OpenCL", devs, 3, &chosen), BICL_SUCCESS);
    assert_int_equal(chosen, 1);
    assert_int_equal(bicl_device_spec_resolve("NVIDIA", devs, 3, &chosen), BICL_SUCCESS);
    assert_int_equal(chosen, 2);
    assert_int_equal(bicl_device_spec_resolve("2", devs, 3, &chosen), BICL_SUCCESS);
    assert_int_equal(bicl_device_spec_resolve("3", devs, 3, &chosen), BICL_ERR_DEVICE_NOT_FOUND);
    assert_int_equal(bicl_device_spec_resolve("amd", devs, 3, &chosen), BICL_ERR_DEVICE_NOT_FOUND);
    size_t idx[4];
    assert_int_equal(bicl_device_spec_matches("xeon", devs, 3, idx, 4), 2);
    assert_int_equal(idx[1], 1);
}

/* The launch path's name formatter agrees with snprintf on what it supports,
 * truncation included (a kernel name cut differently would miss its pool). */
static void name_format_matches_snprintf(void **state)
{
    (void)state;
    static const size_t sizes[] = {1, 2, 5, 12, 13, 14, 96};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; ++i) {
        char got[96], want[96];
        size_t n = sizes[i];
        bicl_name_format(got, n, "UNARY_PAIR(%s, %s, %d, %s, %s)", "silu", "SILU", -12, "bf16",
                         "f32");
        snprintf(want, n, "UNARY_PAIR(%s, %s, %d, %s, %s)", "silu", "SILU", -12, "bf16", "f32");
        assert_string_equal(got, want);
        bicl_name_format(got, n, "%s_rows_v%u", "glu_swiglu_f16_f16", 4294967295u);
        snprintf(want, n, "%s_rows_v%u", "glu_swiglu_f16_f16", 4294967295u);
        assert_string_equal(got, want);
        bicl_name_format(got, n, "%d%%x%s", 0, "");
        snprintf(want, n, "%d%%x%s", 0, "");
        assert_string_equal(got, want);
    }
}

/* Launch classes pick each profile's default variant (src/profile.h): a wrong class
 * gives the same bits but the wrong speed, which no bit test would see. */
static void launch_classes_of_dtypes(void **state)
{
    (void)state;
    const bicl_dtype f32 = BICL_F32, bf16 = BICL_BF16;
    const bicl_dtype two32[2] = {BICL_F32, BICL_F32}, mixed[2] = {BICL_BF16, BICL_F32};
    const bicl_dtype masked[2] = {BICL_F32, BICL_U8}, two16[2] = {BICL_BF16, BICL_BF16};
    assert_int_equal(bicl_vclass_of(&f32, 1, &bf16, 1), BICL_VCLASS_32);
    assert_int_equal(bicl_vclass_of(two32, 2, &f32, 1), BICL_VCLASS_32X2);
    assert_int_equal(bicl_vclass_of(masked, 2, &f32, 1), BICL_VCLASS_32); /* a mask is no input */
    assert_int_equal(bicl_vclass_of(mixed, 2, &f32, 1), BICL_VCLASS_MIXED);
    assert_int_equal(bicl_vclass_of(&bf16, 1, &f32, 1), BICL_VCLASS_MIXED);
    assert_int_equal(bicl_vclass_of(two16, 2, &bf16, 1), BICL_VCLASS_16);
    assert_int_equal(bicl_vclass_of_rope(BICL_BF16, BICL_BF16), BICL_VCLASS_ROPE16);
    assert_int_equal(bicl_vclass_of_rope(BICL_F32, BICL_F32), BICL_VCLASS_ROPE32);
    assert_int_equal(bicl_vclass_of_rope(BICL_F32, BICL_BF16), BICL_VCLASS_ROPE32);
    assert_int_equal(bicl_vclass_of_rope(BICL_BF16, BICL_F32), BICL_VCLASS_MIXED);
    /* computed activations: 32-bit inputs (one, or a gated unit's two) get their own class */
    for (int lp = 0; lp < 2; ++lp) {
        bicl_vclass act = lp ? BICL_VCLASS_ACT32L : BICL_VCLASS_ACT32;
        bicl_vclass gated = lp ? BICL_VCLASS_GLU32L : BICL_VCLASS_ACT32;
        assert_int_equal(bicl_vclass_of_act(&f32, 1, &f32, 1, lp), act);
        assert_int_equal(bicl_vclass_of_act(&f32, 1, &bf16, 1, lp), act);
        assert_int_equal(bicl_vclass_of_act(two32, 2, &f32, 1, lp), gated);
        assert_int_equal(bicl_vclass_of_act(mixed, 2, &f32, 1, lp), BICL_VCLASS_MIXED);
        assert_int_equal(bicl_vclass_of_act(two16, 2, &bf16, 1, lp), BICL_VCLASS_16);
    }
}

/* The registry's fast flag, computed from each row's EXPR by the preprocessor (src/ops.c,
 * FAST_CHECK), against the EXPR's text: a flag lost would put no op in the fix-up form or
 * ACT32's launch (the same bits, a slower launch), a flag on an op without a fast form
 * would name a kernel that its program does not hold. */
static void fast_forms_follow_the_registry(void **state)
{
    (void)state;
    int fast = 0;
    for (int k = 0; k < 2; ++k) {
        int n = k ? BICL_GLU_COUNT_ : BICL_UNARY_COUNT_;
        for (int code = 0; code < n; ++code) {
            const bicl_op_info *info = k ? bicl_glu_info(code) : bicl_unary_info(code);
            if (!info)
                continue;
            bool long_path = strncmp(info->expr, "BICL_CR1_LONG(", 14) == 0;
            bool cr = strncmp(info->expr, "BICL_CR1(", 9) == 0 ||
                      strncmp(info->expr, "BICL_CR2(", 9) == 0 || long_path;
            assert_int_equal(bicl_op_has_fast(info), cr);
            assert_int_equal(info->long_path, long_path);
            fast += cr;
        }
    }
    assert_true(bicl_op_has_fast(bicl_unary_info(BICL_UNARY_SILU)));
    assert_true(bicl_op_has_fast(bicl_unary_info(BICL_UNARY_SOFTCAP))); /* BICL_CR2 */
    assert_true(bicl_op_has_fast(bicl_glu_info(BICL_GLU_GEGLU)));
    assert_false(bicl_op_has_fast(bicl_unary_info(BICL_UNARY_RELU)));
    assert_false(bicl_op_has_fast(bicl_glu_info(BICL_GLU_REGLU)));
    assert_false(bicl_op_has_fast(NULL));
    assert_true(fast > 5);
    /* the longest double path: gelu (erf) and its gated unit, nothing else of silu's kind */
    assert_true(bicl_unary_info(BICL_UNARY_GELU)->long_path);
    assert_true(bicl_glu_info(BICL_GLU_GEGLU)->long_path);
    assert_false(bicl_unary_info(BICL_UNARY_SILU)->long_path);
    assert_false(bicl_unary_info(BICL_UNARY_GELU_TANH)->long_path);
    assert_false(bicl_glu_info(BICL_GLU_SWIGLU)->long_path);
}

static void statuses_and_dtypes(void **state)
{
    (void)state;
    for (int i = 0; i < BICL_STATUS_COUNT_; ++i)
        assert_true(strncmp(bicl_status_string((bicl_status)i), "BICL_", 5) == 0);
    assert_int_equal(bicl_dtype_size((bicl_dtype)BICL_DTYPE_COUNT_), 0);
    assert_string_equal(bicl_dtype_name((bicl_dtype)-1), "?");
    assert_int_equal(bicl_version_number(), BICL_VERSION_NUMBER);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(options_refuse_and_keep_nothing),
        cmocka_unit_test(name_format_matches_snprintf),
        cmocka_unit_test(launch_classes_of_dtypes),
        cmocka_unit_test(fast_forms_follow_the_registry),
        cmocka_unit_test(view_checks_give_their_status),
        cmocka_unit_test(alias_known_cases),
        cmocka_unit_test(alias_search_never_misses_an_overlap),
        cmocka_unit_test(accepted_output_views_are_one_to_one),
        cmocka_unit_test(f16_and_bf16_round_trips_are_exact),
        cmocka_unit_test(reference_functions_validate_arguments),
        cmocka_unit_test(position_references_known_answers),
        cmocka_unit_test(cache_file_format_survives_damage),
        cmocka_unit_test(rope_configs_valid_and_invalid),
        cmocka_unit_test(last_error_is_per_thread),
        cmocka_unit_test(selftest_verdict_names_the_failing_operation),
        cmocka_unit_test(selftest_knows_the_denormal_fma),
        cmocka_unit_test(ambiguous_device_specs_are_errors),
        cmocka_unit_test(statuses_and_dtypes),
    };
    return cmocka_run_group_tests_name("host", tests, NULL, NULL);
}
