/* test_cast.c - bicl_cast: R (device == host reference, memcmp) for all 9 dtype pairs
 * over random inputs and every special class, and for every f16 and f32 input of the f16
 * casts in every f16 form; I over variants, offsets and strided views, and the
 * validation statuses with canary bands. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const bicl_dtype float_dtypes[3] = {BICL_F32, BICL_F16, BICL_BF16};

/* Random input bits for dtype dt: all 65536 patterns first for 16-bit types. */
static void *make_input(bicl_dtype dt, size_t n, uint64_t seed)
{
    void *p = malloc(n * bicl_dtype_size(dt));
    assert_non_null(p);
    if (dt == BICL_F32)
        test_fill_f32_bits(p, n, seed);
    else
        test_fill_u16_bits(p, n, seed);
    return p;
}

/* One bicl_cast of n elements from buffer x to y, the views xoff and yoff elements past
 * the payload's start. */
static void cast_buffers(test_env *env, bicl_dtype xd, const test_buf *x, size_t xoff,
                         bicl_dtype yd, const test_buf *y, size_t yoff, size_t n)
{
    size_t shape[1] = {n};
    bicl_tensor tx = test_view(x, xd, xoff, 1, shape), ty = test_view(y, yd, yoff, 1, shape);
    assert_int_equal(bicl_cast(env->ctx, env->queue, &tx, &ty, 0, NULL, NULL), BICL_SUCCESS);
}

static void run_cast_contiguous(test_env *env, bicl_dtype xd, bicl_dtype yd, const void *x,
                                size_t n, size_t xoff, size_t yoff, void *y_out)
{
    size_t xs = bicl_dtype_size(xd), ys = bicl_dtype_size(yd);
    unsigned char *xin = calloc(n + xoff, xs);
    assert_non_null(xin);
    memcpy(xin + xoff * xs, x, n * xs);
    test_buf bx = test_buf_new(env, xs, n + xoff, xin);
    test_buf by = test_buf_new(env, ys, n + yoff, NULL);
    cast_buffers(env, xd, &bx, xoff, yd, &by, yoff, n);
    unsigned char *all = malloc((n + yoff) * ys);
    assert_non_null(all);
    test_buf_read(env, &by, all);
    memcpy(y_out, all + yoff * ys, n * ys);
    test_buf_assert_canaries(env, &by);
    /* the elements before the view's offset are untouched */
    for (size_t i = 0; i < yoff * ys; ++i)
        assert_int_equal(all[i], CANARY_BYTE);
    free(all);
    free(xin);
    test_buf_free(&bx);
    test_buf_free(&by);
}

static void cast_matches_reference_all_pairs(void **state)
{
    test_env *env = *state;
    const size_t n = 70001;
    for (int a = 0; a < 3; ++a) {
        void *x = make_input(float_dtypes[a], n, 1234u + (unsigned)a);
        for (int b = 0; b < 3; ++b) {
            size_t ys = bicl_dtype_size(float_dtypes[b]);
            void *dev = malloc(n * ys), *ref = malloc(n * ys);
            assert_non_null(dev);
            assert_non_null(ref);
            run_cast_contiguous(env, float_dtypes[a], float_dtypes[b], x, n, 0, 0, dev);
            assert_int_equal(bicl_ref_cast(float_dtypes[a], x, float_dtypes[b], ref, n),
                             BICL_SUCCESS);
            char what[64];
            snprintf(what, sizeof what, "cast %s->%s", bicl_dtype_name(float_dtypes[a]),
                     bicl_dtype_name(float_dtypes[b]));
            test_assert_bits_equal(dev, ref, n, ys, what);
            free(dev);
            free(ref);
        }
        free(x);
    }
}

/* Known answers, so the reference itself is pinned (R alone could pass with a
 * reference that is wrong in the same way as the kernel). */
static void cast_known_answers(void **state)
{
    (void)state;
    static const struct {
        uint32_t f32;
        uint16_t f16, bf16;
    } cases[] = {
        {0x00000000u, 0x0000, 0x0000}, {0x80000000u, 0x8000, 0x8000}, {0x3f800000u, 0x3c00, 0x3f80},
        {0x7f800000u, 0x7c00, 0x7f80}, {0x477fe000u, 0x7bff, 0x4780}, /* 65504 */
        {0x477ff000u, 0x7c00, 0x4780}, /* 65520: f16 tie to even -> inf */
        {0x477fefffu, 0x7bff, 0x4780}, /* just below */
        {0x33800000u, 0x0001, 0x3380}, /* 2^-24: smallest f16 denormal */
        {0x33000000u, 0x0000, 0x3300}, /* 2^-25: tie to even -> 0 */
        {0x33000001u, 0x0001, 0x3300}, /* just above the tie */
        {0x33c00000u, 0x0002, 0x33c0}, /* 1.5 * 2^-24: tie -> 2 */
        {0x38800000u, 0x0400, 0x3880}, /* 2^-14: smallest f16 normal */
        {0x387fc000u, 0x03ff, 0x3880}, /* largest f16 denormal */
        {0x387fe000u, 0x0400, 0x3880}, /* 1023.5 * 2^-24: tie to even -> min normal */
        {0x3f801000u, 0x3c00, 0x3f80}, /* f16 tie, even below */
        {0x3f803000u, 0x3c02, 0x3f80}, /* f16 tie, odd below -> up */
        {0x3f808000u, 0x3c04, 0x3f80}, /* bf16 tie, even below */
        {0x3f818000u, 0x3c0c, 0x3f82}, /* bf16 tie, odd below -> up */
        {0x7f7f8000u, 0x7c00, 0x7f80}, /* bf16: rounds to inf */
        {0x7f7fffffu, 0x7c00, 0x7f80}, /* FLT_MAX */
        {0x00000001u, 0x0000, 0x0000}, /* f32 denormal */
        {0x7fc00000u, 0x7e00, 0x7fc0}, /* quiet NaN */
        {0x7f800001u, 0x7e00, 0x7fc0}, /* signalling NaN, payload in the low bits only */
        {0xffd23456u, 0xfe91, 0xffd2}, /* NaN with sign and payload */
        {0x7fa00000u, 0x7f00, 0x7fe0}, /* signalling NaN, top payload kept, quieted */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        float f;
        memcpy(&f, &cases[i].f32, 4);
        if (bicl_ref_f32_to_f16(f) != cases[i].f16)
            fail_msg("f32 0x%08x -> f16 0x%04x, want 0x%04x", cases[i].f32, bicl_ref_f32_to_f16(f),
                     cases[i].f16);
        if (bicl_ref_f32_to_bf16(f) != cases[i].bf16)
            fail_msg("f32 0x%08x -> bf16 0x%04x, want 0x%04x", cases[i].f32,
                     bicl_ref_f32_to_bf16(f), cases[i].bf16);
    }
    /* widening is exact and keeps NaN payloads and the signalling bit */
    float w = bicl_ref_f16_to_f32(0x7d01); /* signalling NaN, payload 0x101 */
    uint32_t wb;
    memcpy(&wb, &w, 4);
    assert_int_equal(wb, 0x7fa02000u);
    w = bicl_ref_f16_to_f32(0x0001);
    memcpy(&wb, &w, 4);
    assert_int_equal(wb, 0x33800000u);
    w = bicl_ref_f16_to_f32(0x8000);
    memcpy(&wb, &w, 4);
    assert_int_equal(wb, 0x80000000u);
    w = bicl_ref_bf16_to_f32(0xff81);
    memcpy(&wb, &w, 4);
    assert_int_equal(wb, 0xff810000u);
}

/* Every f16 value is exactly representable in f32: widening then narrowing returns the
 * same bits for all non-NaN patterns, and all 65536 patterns round-trip through bf16
 * when they fit. Checks the whole 16-bit space of both conversions on the host. */
static void cast_f16_round_trip_exhaustive(void **state)
{
    (void)state;
    for (uint32_t h = 0; h < 65536; ++h) {
        uint16_t u = (uint16_t)h;
        bool nan = (u & 0x7c00) == 0x7c00 && (u & 0x3ff);
        uint16_t back = bicl_ref_f32_to_f16(bicl_ref_f16_to_f32(u));
        if (!nan && back != u)
            fail_msg("f16 0x%04x -> f32 -> f16 gives 0x%04x", u, back);
        if (nan && back != (u | 0x0200))
            fail_msg("f16 NaN 0x%04x -> f32 -> f16 gives 0x%04x (want it quieted)", u, back);
        bool bnan = (u & 0x7f80) == 0x7f80 && (u & 0x7f);
        uint16_t bback = bicl_ref_f32_to_bf16(bicl_ref_bf16_to_f32(u));
        if (bback != (bnan ? (u | 0x40) : u))
            fail_msg("bf16 0x%04x -> f32 -> bf16 gives 0x%04x", u, bback);
    }
}

/* A context on env's device whose kernels convert f16 by `form` ("bits", "device" or
 * "float16": $BICL_F16_CONVERT, read when a context is created). */
static test_env env_with_f16_form(const test_env *env, const char *form)
{
    return test_env_with_var(env, "BICL_F16_CONVERT", form, NULL);
}

/* Where the device's output differs from the reference, the input and both outputs. */
static void assert_f16_chunk(const uint32_t *x, const uint16_t *dev, const uint16_t *ref, size_t n,
                             const char *form)
{
    if (memcmp(dev, ref, n * 2) == 0)
        return;
    for (size_t i = 0; i < n; ++i)
        if (dev[i] != ref[i])
            fail_msg("f32 0x%08x -> f16: device 0x%04x, reference 0x%04x (f16 form %s)", x[i],
                     dev[i], ref[i], form);
}

/* Whether a context asked for f16 form `form` (a bicl_f16_form) runs it. Only the _Float16
 * form may fall back to bit work (its compiler may not build it), and not on a device whose
 * profile takes it: there the form is the default and must hold. */
static bool f16_form_runs(const test_env *g, int form)
{
    if (g->ctx->f16_form == form)
        return true;
    assert_int_equal(form, BICL_F16_FLOAT16);
    assert_int_equal(g->ctx->f16_form, BICL_F16_BITS);
    assert_int_not_equal(g->ctx->profile->f16_form, BICL_F16_FLOAT16);
    printf("f16 form float16 not run on this device: %s\n", g->ctx->selftest_note);
    return false;
}

/* Every f16 input widened and every one of the 2^32 f32 inputs narrowed on the device
 * give the host's bits, in every f16 form: integer bit work, the device's half
 * conversions and the compiler's _Float16 casts (cl/bicl_convert.h). This is what lets a
 * profile pick any of them. */
static void cast_f16_every_input_every_form(void **state)
{
    const test_env *env = *state;
    enum { FORMS = 3 };
    static const char *const forms[FORMS] = {
        [BICL_F16_BITS] = "bits", [BICL_F16_DEVICE] = "device", [BICL_F16_FLOAT16] = "float16"};
    const size_t chunk = (size_t)1 << 22;
    uint32_t *x = malloc(chunk * 4), *wide = malloc(65536 * 4), *wide_ref = malloc(65536 * 4);
    uint16_t *dev = malloc(chunk * 2), *ref = malloc(chunk * 2), *h = malloc(65536 * 2);
    assert_true(x && wide && wide_ref && dev && ref && h);
    for (uint32_t i = 0; i < 65536; ++i)
        h[i] = (uint16_t)i;
    assert_int_equal(bicl_ref_cast(BICL_F16, h, BICL_F32, wide_ref, 65536), BICL_SUCCESS);
    test_env g[FORMS];
    test_buf bx[FORMS], by[FORMS];
    bool runs[FORMS];
    for (int f = 0; f < FORMS; ++f) {
        g[f] = env_with_f16_form(env, forms[f]);
        runs[f] = f16_form_runs(&g[f], f);
        test_buf hb = test_buf_new(&g[f], 2, 65536, h), wb = test_buf_new(&g[f], 4, 65536, NULL);
        cast_buffers(&g[f], BICL_F16, &hb, 0, BICL_F32, &wb, 0, 65536);
        test_buf_read(&g[f], &wb, wide);
        test_assert_bits_equal(wide, wide_ref, 65536, 4, forms[f]);
        test_buf_free(&hb);
        test_buf_free(&wb);
        bx[f] = test_buf_new(&g[f], 4, chunk, NULL);
        by[f] = test_buf_new(&g[f], 2, chunk, NULL);
    }
    for (uint64_t base = 0; base < ((uint64_t)1 << 32); base += chunk) {
        for (size_t i = 0; i < chunk; ++i)
            x[i] = (uint32_t)(base + i);
        assert_int_equal(bicl_ref_cast(BICL_F32, x, BICL_F16, ref, chunk), BICL_SUCCESS);
        for (int f = 0; f < FORMS; ++f) {
            if (!runs[f])
                continue;
            assert_int_equal(clEnqueueWriteBuffer(g[f].queue, bx[f].mem, CL_FALSE, CANARY_BYTES,
                                                  chunk * 4, x, 0, NULL, NULL),
                             CL_SUCCESS);
            cast_buffers(&g[f], BICL_F32, &bx[f], 0, BICL_F16, &by[f], 0, chunk);
            test_buf_read(&g[f], &by[f], dev);
            assert_f16_chunk(x, dev, ref, chunk, forms[f]);
        }
    }
    for (int f = 0; f < FORMS; ++f) {
        test_buf_assert_canaries(&g[f], &by[f]);
        test_buf_free(&bx[f]);
        test_buf_free(&by[f]);
        bicl_context_free(g[f].ctx);
    }
    free(x);
    free(wide);
    free(wide_ref);
    free(dev);
    free(ref);
    free(h);
}

/* I: every variant and offsets 0..7 give the bits of the reference; sizes from 1 to
 * 67 and one large size cover vector bodies, scalar tails and multi-item threads. */
static void cast_invariant_over_variants_and_offsets(void **state)
{
    test_env *env = *state;
    static const unsigned widths[] = {1, 4, 8};
    static const unsigned ipts[] = {1, 3};
    static const size_t wgs[] = {0, 64};
    static const size_t sizes[] = {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33, 63, 64, 65, 67, 4099};
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            bicl_dtype xd = float_dtypes[a], yd = float_dtypes[b];
            size_t ys = bicl_dtype_size(yd);
            const size_t nmax = 4099;
            void *x = make_input(xd, nmax, 99u + (unsigned)(a * 3 + b));
            void *ref = malloc(nmax * ys), *dev = malloc(nmax * ys);
            assert_non_null(ref);
            assert_non_null(dev);
            assert_int_equal(bicl_ref_cast(xd, x, yd, ref, nmax), BICL_SUCCESS);
            for (size_t w = 0; w < 3; ++w)
                for (size_t p = 0; p < 2; ++p)
                    for (size_t g = 0; g < 2; ++g) {
                        bicl_variant v = {widths[w], ipts[p], wgs[g]};
                        assert_int_equal(bicl_context_set_variant(env->ctx, &v), BICL_SUCCESS);
                        size_t off = (w * 4 + p * 2 + g) % 8; /* offsets 0..7 */
                        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s) {
                            size_t n = sizes[s];
                            run_cast_contiguous(env, xd, yd, x, n, off, (off * 3) % 8, dev);
                            test_assert_bits_equal(dev, ref, n, ys, "cast variant");
                        }
                    }
            free(x);
            free(ref);
            free(dev);
        }
    assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
}

/* Strided views: x is a [4][5][6] window of a padded buffer, y a transposed layout. */
static void cast_strided_views(void **state)
{
    test_env *env = *state;
    const size_t D0 = 4, D1 = 5, D2 = 6, XS0 = 80, XS1 = 13, XS2 = 2;
    const size_t xn = 3 + (D0 - 1) * XS0 + (D1 - 1) * XS1 + (D2 - 1) * XS2 + 1;
    uint32_t *xbits = malloc(xn * 4);
    assert_non_null(xbits);
    test_fill_f32_bits(xbits, xn, 7);
    test_buf bx = test_buf_new(env, 4, xn, xbits);
    test_buf by = test_buf_new(env, 2, D0 * D1 * D2, NULL);
    bicl_tensor tx = {bx.mem, bx.lead + 3,     BICL_F32,
                      3,      {D0, D1, D2, 0}, {(ptrdiff_t)XS0, (ptrdiff_t)XS1, (ptrdiff_t)XS2, 0}};
    /* y[i][j][k] at k*D0*D1 + j*D0 + i */
    bicl_tensor ty = {by.mem, by.lead,         BICL_BF16,
                      3,      {D0, D1, D2, 0}, {1, (ptrdiff_t)D0, (ptrdiff_t)(D0 * D1), 0}};
    assert_int_equal(bicl_cast(env->ctx, env->queue, &tx, &ty, 0, NULL, NULL), BICL_SUCCESS);
    uint16_t *y = malloc(D0 * D1 * D2 * 2);
    assert_non_null(y);
    test_buf_read(env, &by, y);
    test_buf_assert_canaries(env, &by);
    for (size_t i = 0; i < D0; ++i)
        for (size_t j = 0; j < D1; ++j)
            for (size_t k = 0; k < D2; ++k) {
                float v;
                memcpy(&v, &xbits[3 + i * XS0 + j * XS1 + k * XS2], 4);
                uint16_t want = bicl_ref_f32_to_bf16(v);
                uint16_t got = y[k * D0 * D1 + j * D0 + i];
                if (want != got)
                    fail_msg("strided cast [%zu][%zu][%zu]: 0x%04x, want 0x%04x", i, j, k, got,
                             want);
            }
    free(xbits);
    free(y);
    test_buf_free(&bx);
    test_buf_free(&by);
}

/* A row broadcast (stride 0) input is allowed; the output gets the row in every row. */
static void cast_broadcast_input(void **state)
{
    test_env *env = *state;
    uint32_t row[9];
    test_fill_f32_bits(row, 9, 3);
    test_buf bx = test_buf_new(env, 4, 9, row);
    test_buf by = test_buf_new(env, 2, 5 * 9, NULL);
    bicl_tensor tx = {bx.mem, bx.lead, BICL_F32, 2, {5, 9, 0, 0}, {0, 1, 0, 0}};
    size_t shape[2] = {5, 9};
    bicl_tensor ty = test_view(&by, BICL_F16, 0, 2, shape);
    assert_int_equal(bicl_cast(env->ctx, env->queue, &tx, &ty, 0, NULL, NULL), BICL_SUCCESS);
    uint16_t y[45];
    test_buf_read(env, &by, y);
    for (size_t r = 0; r < 5; ++r)
        for (size_t c = 0; c < 9; ++c) {
            float v;
            memcpy(&v, &row[c], 4);
            assert_int_equal(y[r * 9 + c], bicl_ref_f32_to_f16(v));
        }
    test_buf_free(&bx);
    test_buf_free(&by);
}

/* Same dtype in place is a copy of bits (signalling NaN kept); events chain. */
static void cast_in_place_and_events(void **state)
{
    test_env *env = *state;
    const uint32_t *sp;
    size_t n = test_special_f32(&sp);
    test_buf b = test_buf_new(env, 4, n, sp);
    size_t shape[1] = {n};
    bicl_tensor t = test_view(&b, BICL_F32, 0, 1, shape);
    cl_event e1 = NULL, e2 = NULL;
    assert_int_equal(bicl_cast(env->ctx, env->queue, &t, &t, 0, NULL, &e1), BICL_SUCCESS);
    assert_non_null(e1);
    assert_int_equal(bicl_cast(env->ctx, env->queue, &t, &t, 1, &e1, &e2), BICL_SUCCESS);
    assert_int_equal(clWaitForEvents(1, &e2), CL_SUCCESS);
    uint32_t *out = malloc(n * 4);
    assert_non_null(out);
    test_buf_read(env, &b, out);
    test_assert_bits_equal(out, sp, n, 4, "in-place f32 copy");
    clReleaseEvent(e1);
    clReleaseEvent(e2);
    free(out);
    test_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(cast_known_answers),
        cmocka_unit_test(cast_f16_round_trip_exhaustive),
        cmocka_unit_test(cast_matches_reference_all_pairs),
        cmocka_unit_test(cast_f16_every_input_every_form),
        cmocka_unit_test(cast_invariant_over_variants_and_offsets),
        cmocka_unit_test(cast_strided_views),
        cmocka_unit_test(cast_broadcast_input),
        cmocka_unit_test(cast_in_place_and_events),
    };
    return cmocka_run_group_tests_name("cast", tests, test_env_setup, test_env_teardown);
}
