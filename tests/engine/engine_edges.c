/* engine_edges.c - calls at the edges an engine can reach: offsets and shapes near
 * SIZE_MAX, zero extents, strided outputs that interleave without overlapping, causal
 * offsets of any long, buffers whose access flags forbid the use, and the RoPE range of
 * each cos/sin source on the host and the device alike. A refused call must write
 * nothing (a canary fills every output). */
#include "engine.h"

#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NBUF     256
#define CANARY_F 0x7f5a5a5au

static cl_mem buffer(const engine *e, cl_mem_flags flags, const void *init, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m =
        clCreateBuffer(e->cl, flags | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes, (void *)init, &err);
    ENGINE_CL(err);
    return m;
}

static cl_mem canary_buffer(const engine *e)
{
    uint32_t c[NBUF];
    for (size_t i = 0; i < NBUF; ++i)
        c[i] = CANARY_F;
    return buffer(e, CL_MEM_READ_WRITE, c, sizeof c);
}

static void assert_untouched(const engine *e, cl_mem m, const char *what)
{
    uint32_t c[NBUF];
    engine_read(e, m, 0, sizeof c, c);
    for (size_t i = 0; i < NBUF; ++i)
        if (c[i] != CANARY_F)
            fail_msg("%s: a refused call wrote element %zu", what, i);
}

/* A scale of x into y with y's view given: the status, and y untouched unless success. */
static bicl_status scale_into(const engine *e, cl_mem x, const bicl_tensor *yv)
{
    bicl_tensor xv = *yv;
    xv.mem = x;
    memset(xv.stride, 0, sizeof xv.stride); /* x broadcasts: one element */
    xv.offset = 0;
    return bicl_scale(e->bicl, e->queue, 2.0f, &xv, yv, 0, NULL, NULL);
}

static void overflowing_views_are_refused(void **state)
{
    engine *e = *state;
    float one = 1.0f;
    cl_mem x = buffer(e, CL_MEM_READ_ONLY, &one, sizeof one), y = canary_buffer(e);
    size_t sh1[1] = {4};
    struct {
        const char *what;
        size_t offset;
        int rank;
        size_t shape[2];
        ptrdiff_t stride[2];
        bicl_status want;
    } cases[] = {
        {"offset SIZE_MAX", SIZE_MAX, 1, {1}, {1}, BICL_ERR_EXTENT_OVERFLOW},
        {"offset * 4 wraps", SIZE_MAX / 4 + 1, 1, {1}, {1}, BICL_ERR_EXTENT_OVERFLOW},
        {"offset + extent wraps", SIZE_MAX - 2, 1, {4}, {1}, BICL_ERR_EXTENT_OVERFLOW},
        {"element count wraps", 0, 2, {SIZE_MAX / 2 + 1, 2}, {2, 1}, BICL_ERR_EXTENT_OVERFLOW},
        {"stride * extent wraps", 0, 2, {2, 2}, {PTRDIFF_MAX, 1}, BICL_ERR_EXTENT_OVERFLOW},
        {"one past the end", NBUF - 3, 1, {4}, {1}, BICL_ERR_OUT_OF_BOUNDS},
        {"zero extent, contiguous strides", 0, 2, {0, 8}, {8, 1}, BICL_ERR_ZERO_EXTENT},
        {"zero extent inside", 0, 2, {4, 0}, {0, 1}, BICL_ERR_ZERO_EXTENT},
        {"negative stride", 8, 1, {4}, {-1}, BICL_ERR_INVALID_STRIDE},
        {"interleaved strides that collide", 0, 2, {3, 3}, {1, 2}, BICL_ERR_OVERLAPPING_VIEW},
        {"equal strides", 0, 2, {2, 2}, {1, 1}, BICL_ERR_OVERLAPPING_VIEW},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bicl_tensor yv = engine_view(y, BICL_F32, cases[i].offset, cases[i].rank, sh1);
        for (int d = 0; d < cases[i].rank; ++d) {
            yv.shape[d] = cases[i].shape[d];
            yv.stride[d] = cases[i].stride[d];
        }
        bicl_status st = scale_into(e, x, &yv);
        if (st != cases[i].want)
            fail_msg("%s: %s (want %s): %s", cases[i].what, bicl_status_string(st),
                     bicl_status_string(cases[i].want), bicl_last_error(NULL));
        assert_untouched(e, y, cases[i].what);
    }
    /* The last element exactly at the end is fine. */
    bicl_tensor end = engine_view(y, BICL_F32, NBUF - 4, 1, sh1);
    ENGINE_OK(scale_into(e, x, &end));
    clReleaseMemObject(x);
    clReleaseMemObject(y);
}

/* [2, 3] with strides [3, 2] reaches 0 2 4 3 5 7: distinct, so a valid output. */
static void interleaved_output_without_overlap(void **state)
{
    engine *e = *state;
    float xs[6] = {1, 2, 3, 4, 5, 6};
    size_t sh[2] = {2, 3};
    cl_mem x = buffer(e, CL_MEM_READ_ONLY, xs, sizeof xs), y = canary_buffer(e);
    bicl_tensor xv = engine_view(x, BICL_F32, 0, 2, sh), yv = engine_view(y, BICL_F32, 0, 2, sh);
    yv.stride[0] = 3;
    yv.stride[1] = 2;
    ENGINE_OK(bicl_scale(e->bicl, e->queue, 2.0f, &xv, &yv, 0, NULL, NULL));
    uint32_t got[8];
    engine_read(e, y, 0, sizeof got, got);
    const int at[6] = {0, 2, 4, 3, 5, 7};
    for (int i = 0; i < 6; ++i) {
        float v;
        memcpy(&v, &got[at[i]], sizeof v);
        assert_true(v == 2.0f * xs[i]);
    }
    assert_int_equal(got[1], CANARY_F);
    assert_int_equal(got[6], CANARY_F);
    clReleaseMemObject(x);
    clReleaseMemObject(y);
}

/* c > r + offset as integers for any long: device and host reference agree. */
static void causal_offsets_of_any_size(void **state)
{
    engine *e = *state;
    enum { R = 7, C = 9, N = 2 * R * C };
    float xs[N], want[N], got[N];
    engine_fill(BICL_F32, xs, N, 3);
    size_t sh[3] = {2, R, C};
    cl_mem x = buffer(e, CL_MEM_READ_ONLY, xs, sizeof xs), y = canary_buffer(e);
    bicl_tensor xv = engine_view(x, BICL_F32, 0, 3, sh), yv = engine_view(y, BICL_F32, 0, 3, sh);
    const long offsets[] = {
        LONG_MAX, LONG_MAX - 1, LONG_MIN, LONG_MIN + 1,  -R - 1,          -R, -R + 1, -1, 0, 1,
        C - 2,    C - 1,        C,        (long)1 << 40, -((long)1 << 40)};
    for (size_t i = 0; i < sizeof offsets / sizeof offsets[0]; ++i) {
        long off = offsets[i];
        ENGINE_OK(
            bicl_mask_fill_causal(e->bicl, e->queue, &xv, off, -INFINITY, &yv, 0, NULL, NULL));
        ENGINE_OK(bicl_ref_mask_fill_causal(BICL_F32, xs, R, C, off, -INFINITY, BICL_F32, want, N));
        engine_read(e, y, 0, sizeof got, got);
        char what[64];
        snprintf(what, sizeof what, "causal offset %ld", off);
        engine_assert_bits(got, want, N, 4, what);
        /* and the reference is the definition */
        for (size_t k = 0; k < N; ++k) {
            long r = (long)(k / C % R), c = (long)(k % C);
            bool fill = off >= 0 ? c > r && c - r > off : c - r > off; /* no overflow */
            assert_true(fill ? isinf(want[k]) : memcmp(&want[k], &xs[k], 4) == 0);
        }
    }
    clReleaseMemObject(x);
    clReleaseMemObject(y);
}

/* Access flags: an output in a READ_ONLY buffer and an input in a WRITE_ONLY one are
 * refused (a kernel may not do either); a plan of another context in rope_errors too. */
static void access_flags_and_owners(void **state)
{
    engine *e = *state;
    size_t sh[1] = {16};
    cl_mem wo = buffer(e, CL_MEM_WRITE_ONLY, NULL, 64), ro = buffer(e, CL_MEM_READ_ONLY, NULL, 64),
           y = canary_buffer(e);
    bicl_tensor twy = engine_view(wo, BICL_F32, 0, 1, sh),
                tro = engine_view(ro, BICL_F32, 0, 1, sh), ty = engine_view(y, BICL_F32, 0, 1, sh);
    assert_int_equal(bicl_scale(e->bicl, e->queue, 2.0f, &twy, &ty, 0, NULL, NULL),
                     BICL_ERR_INVALID_HANDLE);
    assert_non_null(strstr(bicl_last_error(NULL), "WRITE_ONLY"));
    assert_untouched(e, y, "input in a WRITE_ONLY buffer");
    assert_int_equal(bicl_scale(e->bicl, e->queue, 2.0f, &ty, &tro, 0, NULL, NULL),
                     BICL_ERR_INVALID_HANDLE);
    bicl_context *other = engine_bicl_context(e->cl, e->dev);
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, 8, 8);
    bicl_rope_plan *plan = NULL;
    ENGINE_OK(bicl_rope_plan_create(other, &cfg, 4, 0, &plan));
    unsigned count = 0;
    int first = 0;
    assert_int_equal(bicl_rope_errors(e->bicl, e->queue, plan, &count, &first, 0, NULL),
                     BICL_ERR_CONTEXT_MISMATCH);
    bicl_rope_plan_free(plan);
    bicl_context_free(other);
    clReleaseMemObject(wo);
    clReleaseMemObject(ro);
    clReleaseMemObject(y);
}

/* A plan with a 16-row table and no inline limit: position 20 is out of range for the
 * table source and in range inline; the reference says the same as the device. */
static void rope_range_follows_the_source(void **state)
{
    engine *e = *state;
    enum { D = 8, T = 3 };
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, D, D);
    bicl_rope_plan *plan = NULL;
    ENGINE_OK(bicl_rope_plan_create(e->bicl, &cfg, 16, 0, &plan));
    int32_t pos[T] = {3, 20, 15};
    float x[T * D], want[T * D], got[T * D];
    engine_fill(BICL_F32, x, T * D, 5);
    size_t ps[1] = {T}, xs[3] = {T, 1, D};
    cl_mem mp = buffer(e, CL_MEM_READ_ONLY, pos, sizeof pos),
           mx = buffer(e, CL_MEM_READ_ONLY, x, sizeof x),
           my = buffer(e, CL_MEM_READ_WRITE, NULL, sizeof x);
    bicl_tensor tp = engine_view(mp, BICL_I32, 0, 1, ps), tx = engine_view(mx, BICL_F32, 0, 3, xs),
                ty = engine_view(my, BICL_F32, 0, 3, xs);
    int sources = bicl_context_has_fp64(e->bicl) ? 3 : 2;
    const bicl_rope_source src[3] = {BICL_ROPE_SOURCE_AUTO, BICL_ROPE_SOURCE_TABLE,
                                     BICL_ROPE_SOURCE_INLINE};
    for (int s = 0; s < sources; ++s) {
        bool table = src[s] != BICL_ROPE_SOURCE_INLINE;
        for (int t = 0; t < T; ++t) {
            bicl_status st = bicl_ref_rope_head(plan, src[s], 0, pos[t], BICL_F32, x + t * D,
                                                BICL_F32, want + t * D);
            bool in_range = !(table && pos[t] >= 16);
            assert_int_equal(st, in_range ? BICL_SUCCESS : BICL_ERR_POSITION_OUT_OF_RANGE);
            assert_true(in_range == !isnan(want[t * D]));
        }
        ENGINE_OK(bicl_rope_apply(e->bicl, e->queue, plan, src[s], 0, &tp, &tx, &ty, NULL, NULL, 0,
                                  NULL, NULL));
        engine_read(e, my, 0, sizeof got, got);
        engine_assert_bits(got, want, T * D, 4, table ? "table source" : "inline source");
        unsigned count = 0;
        int first = 0;
        assert_int_equal(bicl_rope_errors(e->bicl, e->queue, plan, &count, &first, 0, NULL),
                         table ? BICL_ERR_POSITION_OUT_OF_RANGE : BICL_SUCCESS);
        assert_int_equal(count, table ? 1 : 0);
        float c = 0, sn = 0;
        assert_int_equal(bicl_ref_rope_cos_sin(plan, src[s], 20, 0, &c, &sn),
                         table ? BICL_ERR_POSITION_OUT_OF_RANGE : BICL_SUCCESS);
    }
    clReleaseMemObject(mp);
    clReleaseMemObject(mx);
    clReleaseMemObject(my);
    bicl_rope_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(overflowing_views_are_refused),
        cmocka_unit_test(interleaved_output_without_overlap),
        cmocka_unit_test(causal_offsets_of_any_size),
        cmocka_unit_test(access_flags_and_owners),
        cmocka_unit_test(rope_range_follows_the_source),
    };
    return cmocka_run_group_tests_name("engine_edges", tests, engine_setup, engine_teardown);
}
