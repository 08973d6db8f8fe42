/* test_rope.c - RoPE: R (device == host reference) for every model of
 * ../shared/models.json in both angle modes, both cos/sin sources and all storage
 * dtypes; table == inline; layouts (THD, BSHD, BHSD), GQA in one launch, in place,
 * partial rotary; every variant over views that take the vector kernels and views that
 * must fall back (with a check of which path is taken); out-of-range positions; the
 * position-id builders; A (cos/sin against MPFR); and the invalid configs and calls. */
#include "common.h"
#include "harness.h"
#include "models.h"

#include <limits.h>
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* -------------------------------------------------------- problem helpers */

typedef struct rope_problem {
    size_t T, hq, hk, D;
    bicl_dtype in_dt, out_dt;
    int32_t *pos;
    void *q, *k; /* host inputs, [T][H][D] */
} rope_problem;

static void problem_init(rope_problem *p, size_t T, size_t hq, size_t hk, size_t D,
                         bicl_dtype in_dt, bicl_dtype out_dt, uint64_t seed)
{
    p->T = T;
    p->hq = hq;
    p->hk = hk;
    p->D = D;
    p->in_dt = in_dt;
    p->out_dt = out_dt;
    p->pos = calloc(T, sizeof *p->pos);
    size_t es = bicl_dtype_size(in_dt);
    p->q = malloc(T * hq * D * es);
    p->k = malloc(T * (hk ? hk : 1) * D * es);
    assert_true(p->pos && p->q && p->k);
    uint64_t s = seed;
    for (size_t i = 0; i < T * hq * D; ++i)
        bicl_ref_store(in_dt, p->q, i, (float)((int64_t)(test_rand(&s) >> 40) - (1 << 23)) / 1e6f);
    for (size_t i = 0; i < T * hk * D; ++i)
        bicl_ref_store(in_dt, p->k, i, (float)((int64_t)(test_rand(&s) >> 40) - (1 << 23)) / 1e6f);
}

static void problem_free(rope_problem *p)
{
    free(p->pos);
    free(p->q);
    free(p->k);
}

/* Host reference of the whole problem: [T][H][D] of out_dt. */
static void *problem_reference(const rope_problem *p, const bicl_rope_plan *plan,
                               bicl_rope_source source, int inverse, const void *x, size_t heads)
{
    size_t ies = bicl_dtype_size(p->in_dt), oes = bicl_dtype_size(p->out_dt);
    unsigned char *out = malloc(p->T * heads * p->D * oes);
    assert_non_null(out);
    for (size_t t = 0; t < p->T; ++t)
        for (size_t h = 0; h < heads; ++h) {
            size_t at = (t * heads + h) * p->D;
            bicl_ref_rope_head(plan, source, inverse, p->pos[t], p->in_dt,
                               (const unsigned char *)x + at * ies, p->out_dt, out + at * oes);
        }
    return out;
}

/* Inline cos/sin needs fp64. On a device without it (or with BICL_HIDE_FP64=1, the
 * *_no_fp64 ctest entries) an inline case is not applicable: the call must be refused
 * with BICL_ERR_UNSUPPORTED and write nothing, which the callers assert; the cases are
 * counted and reported at the end. */
static unsigned inline_cases_not_applicable;

static bool inline_not_applicable(const test_env *env, bicl_rope_source source)
{
    return source == BICL_ROPE_SOURCE_INLINE && !bicl_context_has_fp64(env->ctx);
}

/* Asserts that no byte of the buffer, bands included, differs from its initial fill. */
static void assert_untouched(test_env *env, const test_buf *b, const void *payload)
{
    size_t total = b->payload + 2 * CANARY_BYTES;
    unsigned char *all = malloc(total);
    assert_non_null(all);
    test_buf_read_all(env, b, all);
    for (size_t i = 0; i < total; ++i) {
        bool in_payload = payload && i >= CANARY_BYTES && i < CANARY_BYTES + b->payload;
        unsigned char want =
            in_payload ? ((const unsigned char *)payload)[i - CANARY_BYTES] : CANARY_BYTE;
        if (all[i] != want)
            fail_msg("byte %zu of a buffer was written by a refused call", i);
    }
    free(all);
}

/* The status of an inline call on a device without fp64: refused, nothing written. */
static void assert_refused_without_fp64(test_env *env, bicl_status st, const test_buf *out,
                                        const void *out_init, const char *what)
{
    if (st != BICL_ERR_UNSUPPORTED)
        fail_msg("%s: inline without fp64 gave %s, want BICL_ERR_UNSUPPORTED", what,
                 bicl_status_string(st));
    clFinish(env->queue);
    assert_untouched(env, out, out_init);
    inline_cases_not_applicable++;
}

static void compare_outputs(test_env *env, const rope_problem *p, const bicl_rope_plan *plan,
                            bicl_rope_source source, int inverse, const test_buf *bqo,
                            const test_buf *bko, const char *what);

/* Runs the problem on the device as THD, out of place, and compares with the reference
 * (an inline case without fp64: asserts the refusal). */
static void run_and_compare(test_env *env, const rope_problem *p, bicl_rope_plan *plan,
                            bicl_rope_source source, int inverse, const char *what)
{
    size_t ies = bicl_dtype_size(p->in_dt), oes = bicl_dtype_size(p->out_dt);
    size_t nq = p->T * p->hq * p->D, nk = p->T * p->hk * p->D;
    test_buf bp = test_buf_new(env, 4, p->T, p->pos);
    test_buf bq = test_buf_new(env, ies, nq, p->q), bqo = test_buf_new(env, oes, nq, NULL);
    test_buf bk = test_buf_new(env, ies, nk, p->k), bko = test_buf_new(env, oes, nk, NULL);
    size_t ps[1] = {p->T}, qs[3] = {p->T, p->hq, p->D}, ks[3] = {p->T, p->hk, p->D};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
    bicl_tensor tq = test_view(&bq, p->in_dt, 0, 3, qs), tqo = test_view(&bqo, p->out_dt, 0, 3, qs);
    bicl_tensor tk = test_view(&bk, p->in_dt, 0, 3, ks), tko = test_view(&bko, p->out_dt, 0, 3, ks);
    bicl_status st = bicl_rope_apply(env->ctx, env->queue, plan, source, inverse, &tp, &tq, &tqo,
                                     &tk, &tko, 0, NULL, NULL);
    if (inline_not_applicable(env, source)) {
        assert_refused_without_fp64(env, st, &bqo, NULL, what);
        assert_untouched(env, &bko, NULL);
    } else if (st != BICL_SUCCESS) {
        fail_msg("%s: %s (%s)", what, bicl_status_string(st), bicl_last_error(NULL));
    } else {
        compare_outputs(env, p, plan, source, inverse, &bqo, &bko, what);
    }
    test_buf_free(&bp);
    test_buf_free(&bq);
    test_buf_free(&bqo);
    test_buf_free(&bk);
    test_buf_free(&bko);
}

static void compare_outputs(test_env *env, const rope_problem *p, const bicl_rope_plan *plan,
                            bicl_rope_source source, int inverse, const test_buf *bqo,
                            const test_buf *bko, const char *what)
{
    size_t oes = bicl_dtype_size(p->out_dt);
    size_t nq = p->T * p->hq * p->D, nk = p->T * p->hk * p->D;
    void *gq = malloc(nq * oes), *gk = malloc(nk * oes);
    assert_true(gq && gk);
    test_buf_read(env, bqo, gq);
    test_buf_read(env, bko, gk);
    test_buf_assert_canaries(env, bqo);
    test_buf_assert_canaries(env, bko);
    void *rq = problem_reference(p, plan, source, inverse, p->q, p->hq);
    void *rk = problem_reference(p, plan, source, inverse, p->k, p->hk);
    test_assert_bits_equal(gq, rq, nq, oes, what);
    test_assert_bits_equal(gk, rk, nk, oes, what);
    free(gq);
    free(gk);
    free(rq);
    free(rk);
}

/* Positions of the standard workload: prefix positions, decode offsets and the long
 * context positions of models.json. */
static void fill_positions(int32_t *pos, size_t T)
{
    static const int32_t special[] = {0,      1,      4095,   4096,    8191,    32767,
                                      131071, 131072, 524287, 1048575, 1048576, 2097151};
    for (size_t t = 0; t < T; ++t)
        pos[t] = t < 12 ? special[t] : (int32_t)(t * 977 % 40000);
}

/* ------------------------------------------------------------------ tests */

/* R for every model and both angle modes, forward and inverse, through the inline source
 * (the table source: table_equals_inline and the tests below), on the Latin square of the
 * nine dtype pairs: model m's mode runs row s = 2 m + mode of harness_on_dtype_square,
 * every input and every output dtype once, so each model runs six pairs and the ten
 * slots every pair at least three times (asserted). Each pair is a kernel of its own per
 * model layout and direction: the nine pairs forward and the three same-dtype ones inverse,
 * 120 launches, were 65 s alone on a cold PoCL cache; the square's 60, 39 s. */
static void rope_matches_reference_every_model(void **state)
{
    test_env *env = *state;
    static const bicl_dtype dts[3] = {BICL_F32, BICL_F16, BICL_BF16};
    unsigned ran_pair[3][3] = {{0}};
    for (size_t m = 0; m < HARNESS_N_MODELS; ++m)
        for (int mode = 0; mode < 2; ++mode) {
            bicl_rope_config c =
                harness_model_config(&harness_models[m], (bicl_rope_angle_mode)mode);
            bicl_rope_plan *plan = NULL;
            assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &plan), BICL_SUCCESS);
            for (int a = 0; a < 3; ++a)
                for (int b = 0; b < 3; ++b) {
                    if (!harness_on_dtype_square(a, b, 2 * m + (size_t)mode))
                        continue;
                    ran_pair[a][b]++;
                    rope_problem p;
                    problem_init(&p, 19, 4, 2, (size_t)c.head_dim, dts[a], dts[b],
                                 m * 100 + (size_t)(a * 3 + b));
                    fill_positions(p.pos, p.T);
                    char what[128];
                    snprintf(what, sizeof what, "%.47s mode %d %s->%s", harness_models[m].name,
                             mode, bicl_dtype_name(dts[a]), bicl_dtype_name(dts[b]));
                    run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_INLINE, 0, what);
                    run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_INLINE, 1, what);
                    problem_free(&p);
                }
            bicl_rope_plan_free(plan);
        }
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b)
            assert_true(ran_pair[a][b] >= 3);
}

/* Table and inline sources give the same bits, up to position 2^20. */
static void table_equals_inline(void **state)
{
    test_env *env = *state;
    for (size_t m = 0; m < HARNESS_N_MODELS; ++m) {
        bicl_rope_config c = harness_model_config(&harness_models[m], BICL_ROPE_ANGLE_EXACT);
        bicl_rope_plan *plan = NULL;
        assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 4500, 0, &plan), BICL_SUCCESS);
        rope_problem p;
        problem_init(&p, 64, 3, 1, (size_t)c.head_dim, BICL_BF16, BICL_BF16, m);
        for (size_t t = 0; t < p.T; ++t)
            p.pos[t] = (int32_t)(t < 4 ? 4499 - t : t * 67);
        run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_TABLE, 0, harness_models[m].name);
        run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_INLINE, 0, harness_models[m].name);
        problem_free(&p);
        bicl_rope_plan_free(plan);
    }
    /* Long context: a narrow rotary so that a 2^20 + 1 row table stays small. */
    for (int mode = 0; mode < 2; ++mode) {
        bicl_rope_config c;
        bicl_rope_config_init(&c, 8, 8);
        c.theta = 500000.0;
        c.angle_mode = (bicl_rope_angle_mode)mode;
        bicl_rope_plan *plan = NULL;
        assert_int_equal(bicl_rope_plan_create(env->ctx, &c, (1 << 20) + 1, 0, &plan),
                         BICL_SUCCESS);
        rope_problem p;
        problem_init(&p, 40, 2, 2, 8, BICL_F32, BICL_F32, 5);
        for (size_t t = 0; t < p.T; ++t)
            p.pos[t] = (int32_t)((1 << 20) - t * 26843);
        run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_TABLE, 0, "long table");
        run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_INLINE, 0, "long inline");
        problem_free(&p);
        bicl_rope_plan_free(plan);
    }
}

/* The same tokens as THD, BSHD and BHSD views, q and k in one launch, in place: the
 * bits of each token's heads do not depend on the layout. */
static void layouts_on(test_env *env, bool table)
{
    const harness_model *m = &harness_models[1]; /* llama3 */
    bicl_rope_config c = harness_model_config(m, BICL_ROPE_ANGLE_EXACT);
    bicl_rope_plan *plan = NULL;
    /* the automatic source: inline with fp64, else a table (positions up to 204); or the
     * table (`table`: the rows form's source) */
    int rows = table || !bicl_context_has_fp64(env->ctx) ? 256 : 0;
    bicl_rope_source src = table ? BICL_ROPE_SOURCE_TABLE : BICL_ROPE_SOURCE_AUTO;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, rows, 0, &plan), BICL_SUCCESS);
    const size_t B = 3, S = 5, H = 4, HK = 2, D = 128, T = B * S;
    rope_problem p;
    problem_init(&p, T, H, HK, D, BICL_BF16, BICL_BF16, 77);
    for (size_t t = 0; t < T; ++t)
        p.pos[t] = (int32_t)(t % S + 100 * (t / S));
    void *rq = problem_reference(&p, plan, src, 0, p.q, H);
    void *rk = problem_reference(&p, plan, src, 0, p.k, HK);
    /* BHSD copies of the inputs: [B][H][S][D] */
    uint16_t *qb = malloc(T * H * D * 2), *kb = malloc(T * HK * D * 2);
    assert_true(qb && kb);
    for (size_t b = 0; b < B; ++b)
        for (size_t s = 0; s < S; ++s)
            for (size_t h = 0; h < H; ++h)
                memcpy(qb + ((b * H + h) * S + s) * D, (uint16_t *)p.q + ((b * S + s) * H + h) * D,
                       D * 2);
    for (size_t b = 0; b < B; ++b)
        for (size_t s = 0; s < S; ++s)
            for (size_t h = 0; h < HK; ++h)
                memcpy(kb + ((b * HK + h) * S + s) * D,
                       (uint16_t *)p.k + ((b * S + s) * HK + h) * D, D * 2);
    test_buf bp = test_buf_new(env, 4, T, p.pos);
    test_buf bq = test_buf_new(env, 2, T * H * D, qb), bk = test_buf_new(env, 2, T * HK * D, kb);
    size_t ps[2] = {B, S};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 2, ps);
    bicl_tensor tq = {bq.mem,       bq.lead,
                      BICL_BF16,    4,
                      {B, S, H, D}, {(ptrdiff_t)(H * S * D), (ptrdiff_t)D, (ptrdiff_t)(S * D), 1}};
    bicl_tensor tk = {
        bk.mem, bk.lead,       BICL_BF16,
        4,      {B, S, HK, D}, {(ptrdiff_t)(HK * S * D), (ptrdiff_t)D, (ptrdiff_t)(S * D), 1}};
    /* in place, BHSD */
    assert_int_equal(
        bicl_rope_apply(env->ctx, env->queue, plan, src, 0, &tp, &tq, &tq, &tk, &tk, 0, NULL, NULL),
        BICL_SUCCESS);
    test_buf_read(env, &bq, qb);
    test_buf_read(env, &bk, kb);
    for (size_t b = 0; b < B; ++b)
        for (size_t s = 0; s < S; ++s) {
            for (size_t h = 0; h < H; ++h)
                test_assert_bits_equal(qb + ((b * H + h) * S + s) * D,
                                       (uint16_t *)rq + ((b * S + s) * H + h) * D, D, 2, "BHSD q");
            for (size_t h = 0; h < HK; ++h)
                test_assert_bits_equal(kb + ((b * HK + h) * S + s) * D,
                                       (uint16_t *)rk + ((b * S + s) * HK + h) * D, D, 2, "BHSD k");
        }
    test_buf_assert_canaries(env, &bq);
    test_buf_free(&bq);
    test_buf_free(&bk);
    /* q and k inside one fused qkv buffer [T][(H + 2 HK) D], in place, THD */
    size_t row = (H + 2 * HK) * D;
    uint16_t *qkv = malloc(T * row * 2);
    assert_non_null(qkv);
    for (size_t t = 0; t < T; ++t) {
        memcpy(qkv + t * row, (uint16_t *)p.q + t * H * D, H * D * 2);
        memcpy(qkv + t * row + H * D, (uint16_t *)p.k + t * HK * D, HK * D * 2);
        memset(qkv + t * row + (H + HK) * D, 0x7f, HK * D * 2); /* v stays as it is */
    }
    test_buf bf = test_buf_new(env, 2, T * row, qkv);
    size_t ps1[1] = {T};
    bicl_tensor tp1 = test_view(&bp, BICL_I32, 0, 1, ps1);
    bicl_tensor fq = {bf.mem, bf.lead, BICL_BF16, 3, {T, H, D}, {(ptrdiff_t)row, (ptrdiff_t)D, 1}};
    bicl_tensor fk = fq;
    fk.offset += H * D;
    fk.shape[1] = HK;
    assert_int_equal(bicl_rope_apply(env->ctx, env->queue, plan, src, 0, &tp1, &fq, &fq, &fk, &fk,
                                     0, NULL, NULL),
                     BICL_SUCCESS);
    uint16_t *got = malloc(T * row * 2);
    assert_non_null(got);
    test_buf_read(env, &bf, got);
    for (size_t t = 0; t < T; ++t) {
        test_assert_bits_equal(got + t * row, (uint16_t *)rq + t * H * D, H * D, 2, "fused q");
        test_assert_bits_equal(got + t * row + H * D, (uint16_t *)rk + t * HK * D, HK * D, 2,
                               "fused k");
        test_assert_bits_equal(got + t * row + (H + HK) * D, qkv + t * row + (H + HK) * D, HK * D,
                               2, "v untouched");
    }
    free(got);
    free(qkv);
    free(qb);
    free(kb);
    free(rq);
    free(rk);
    test_buf_free(&bf);
    test_buf_free(&bp);
    problem_free(&p);
    bicl_rope_plan_free(plan);
}

static void layouts_and_in_place(void **state)
{
    layouts_on(*state, false);
}

/* Every variant gives the reference bits (gpt-neox: partial rotary with pass-through). */
static void variants_on(test_env *env)
{
    static const bicl_variant vs[] = {{1, 1, 0}, {1, 3, 0}, {4, 1, 64}, {8, 2, 32}, {1, 7, 128}};
    for (size_t m = 3; m < HARNESS_N_MODELS; ++m) {
        bicl_rope_config c = harness_model_config(&harness_models[m], BICL_ROPE_ANGLE_EXACT);
        bicl_rope_plan *plan = NULL;
        assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 2048, 0, &plan), BICL_SUCCESS);
        rope_problem p;
        problem_init(&p, 23, 3, 2, (size_t)c.head_dim, BICL_F16, BICL_F32, 9);
        for (size_t t = 0; t < p.T; ++t)
            p.pos[t] = (int32_t)(t * 89);
        for (size_t v = 0; v < sizeof vs / sizeof vs[0]; ++v) {
            assert_int_equal(bicl_context_set_variant(env->ctx, &vs[v]), BICL_SUCCESS);
            run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_TABLE, 0, harness_models[m].name);
            run_and_compare(env, &p, plan, BICL_ROPE_SOURCE_INLINE, 1, harness_models[m].name);
        }
        assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
        problem_free(&p);
        bicl_rope_plan_free(plan);
    }
}

static void variants_give_the_same_bits(void **state)
{
    variants_on(*state);
}

/* The general kernel (BICL_OPTION_ROPE_SPECIALISE 0: the layout passed as arguments) of
 * the units form gives the reference bits too, on the layouts and variants the tests above run with
 * the default, kernels specialised to each layout; the option takes 0 or 1 only. */
static void general_kernel_gives_the_same_bits(void **state)
{
    test_env *env = *state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_ROPE_SPECIALISE, 2),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ROPE_SPECIALISE, "0"),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_ROPE_SPECIALISE, 0), BICL_SUCCESS);
    bicl_options_free(o);
    test_env g = test_env_with_rope_form(env, "units", 0);
    layouts_on(&g, false);
    variants_on(&g);
    bicl_context_free(g.ctx);
}

/* An out-of-range position is counted and its rotary outputs are NaN; pass-through
 * elements are still copied; other tokens are unaffected. */
static void out_of_range_positions_are_reported(void **state)
{
    test_env *env = *state;
    bicl_rope_config c =
        harness_model_config(&harness_models[4], BICL_ROPE_ANGLE_EXACT); /* partial rotary */
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 100, 1000, &plan), BICL_SUCCESS);
    rope_problem p;
    problem_init(&p, 6, 2, 1, 96, BICL_F32, BICL_F32, 3);
    int32_t pos[6] = {5, -1, 99, 100, INT_MAX, 7};
    memcpy(p.pos, pos, sizeof pos);
    for (int src = BICL_ROPE_SOURCE_TABLE; src <= BICL_ROPE_SOURCE_INLINE; ++src) {
        test_buf bp = test_buf_new(env, 4, 6, p.pos);
        test_buf bq = test_buf_new(env, 4, 6 * 2 * 96, p.q),
                 bo = test_buf_new(env, 4, 6 * 2 * 96, NULL);
        size_t ps[1] = {6}, qs[3] = {6, 2, 96};
        bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
        bicl_tensor tq = test_view(&bq, BICL_F32, 0, 3, qs),
                    to = test_view(&bo, BICL_F32, 0, 3, qs);
        bicl_status st = bicl_rope_apply(env->ctx, env->queue, plan, (bicl_rope_source)src, 0, &tp,
                                         &tq, &to, NULL, NULL, 0, NULL, NULL);
        if (inline_not_applicable(env, (bicl_rope_source)src)) {
            assert_refused_without_fp64(env, st, &bo, NULL, "out of range, inline");
            test_buf_free(&bp);
            test_buf_free(&bq);
            test_buf_free(&bo);
            continue;
        }
        assert_int_equal(st, BICL_SUCCESS);
        unsigned count = 0;
        int first = 0;
        assert_int_equal(bicl_rope_errors(env->ctx, env->queue, plan, &count, &first, 0, NULL),
                         BICL_ERR_POSITION_OUT_OF_RANGE);
        bool table = src == BICL_ROPE_SOURCE_TABLE;
        assert_int_equal(count, table ? 3 : 2); /* -1, (100 for the table), INT_MAX */
        assert_int_equal(first, -1);
        assert_int_equal(bicl_rope_errors(env->ctx, env->queue, plan, &count, &first, 0, NULL),
                         BICL_SUCCESS); /* reset */
        assert_int_equal(count, 0);
        float *out = malloc(6 * 2 * 96 * 4);
        assert_non_null(out);
        test_buf_read(env, &bo, out);
        test_buf_assert_canaries(env, &bo);
        for (int t = 0; t < 6; ++t) {
            bool bad = pos[t] < 0 || pos[t] > (table ? 99 : 1000);
            for (int h = 0; h < 2; ++h) {
                float *o = out + (t * 2 + h) * 96, *x = (float *)p.q + (t * 2 + h) * 96;
                uint32_t b0;
                memcpy(&b0, &o[0], 4);
                if (bad)
                    assert_int_equal(b0, 0x7fc00000u);
                else
                    assert_false(isnan(o[0]));
                assert_memory_equal(o + 24, x + 24, (96 - 24) * 4); /* pass-through */
            }
        }
        free(out);
        test_buf_free(&bp);
        test_buf_free(&bq);
        test_buf_free(&bo);
    }
    problem_free(&p);
    bicl_rope_plan_free(plan);
}

static void position_builders_match_reference(void **state)
{
    test_env *env = *state;
    /* packed: the workload's lengths 11/16/13/19 = 59 tokens, with decode offsets */
    int32_t cu[5] = {0, 11, 27, 40, 59}, start[4] = {0, 1, 4095, 131071};
    int32_t got[59], want[59];
    test_buf bc = test_buf_new(env, 4, 5, cu), bs = test_buf_new(env, 4, 4, start);
    test_buf bo = test_buf_new(env, 4, 59, NULL);
    size_t n5[1] = {5}, n4[1] = {4}, n59[1] = {59};
    bicl_tensor tc = test_view(&bc, BICL_I32, 0, 1, n5), ts = test_view(&bs, BICL_I32, 0, 1, n4);
    bicl_tensor to = test_view(&bo, BICL_I32, 0, 1, n59);
    for (int with_start = 0; with_start < 2; ++with_start) {
        assert_int_equal(bicl_positions_packed(env->ctx, env->queue, &tc, with_start ? &ts : NULL,
                                               &to, 0, NULL, NULL),
                         BICL_SUCCESS);
        test_buf_read(env, &bo, got);
        bicl_ref_positions_packed(cu, 4, with_start ? start : NULL, want, 59);
        assert_memory_equal(got, want, sizeof got);
        assert_int_equal(got[11], with_start ? 1 : 0); /* resets at a boundary */
        assert_int_equal(got[58], with_start ? 131071 + 18 : 18);
    }
    /* a wrong cu_seqlens on the device: uncovered tokens get -1 */
    int32_t bad_cu[5] = {0, 11, 27, 40, 50};
    test_buf bbc = test_buf_new(env, 4, 5, bad_cu);
    bicl_tensor tbc = test_view(&bbc, BICL_I32, 0, 1, n5);
    assert_int_equal(bicl_positions_packed(env->ctx, env->queue, &tbc, NULL, &to, 0, NULL, NULL),
                     BICL_SUCCESS);
    test_buf_read(env, &bo, got);
    assert_int_equal(got[49], 9);
    assert_int_equal(got[50], -1);
    assert_int_equal(got[58], -1);
    /* padded [4][20], left and right, u8 and i32 masks */
    const int lens[4] = {11, 16, 13, 19};
    for (int left = 0; left < 2; ++left) {
        uint8_t m8[80];
        int32_t m32[80], pg[80], pw[80];
        for (int b = 0; b < 4; ++b)
            for (int s = 0; s < 20; ++s) {
                int real = left ? s >= 20 - lens[b] : s < lens[b];
                m8[b * 20 + s] = (uint8_t)(real ? 1 + s : 0);
                m32[b * 20 + s] = real ? -5 : 0;
            }
        test_buf bm8 = test_buf_new(env, 1, 80, m8), bm32 = test_buf_new(env, 4, 80, m32);
        test_buf bp = test_buf_new(env, 4, 80, NULL);
        size_t sh[2] = {4, 20};
        bicl_tensor tm8 = test_view(&bm8, BICL_U8, 0, 2, sh),
                    tm32 = test_view(&bm32, BICL_I32, 0, 2, sh);
        bicl_tensor tp = test_view(&bp, BICL_I32, 0, 2, sh);
        for (int w = 0; w < 2; ++w) {
            assert_int_equal(bicl_positions_padded(env->ctx, env->queue, w ? &tm32 : &tm8, &ts, &tp,
                                                   0, NULL, NULL),
                             BICL_SUCCESS);
            test_buf_read(env, &bp, pg);
            bicl_ref_positions_padded(w ? (const void *)m32 : (const void *)m8,
                                      w ? BICL_I32 : BICL_U8, 4, 20, start, pw);
            assert_memory_equal(pg, pw, sizeof pg);
            /* a real token's position does not depend on the padding side */
            int first_real = left ? 20 - lens[2] : 0;
            assert_int_equal(pg[2 * 20 + first_real], 4095);
            assert_int_equal(pg[2 * 20 + first_real + 12], 4095 + 12);
        }
        test_buf_free(&bm8);
        test_buf_free(&bm32);
        test_buf_free(&bp);
    }
    test_buf_free(&bc);
    test_buf_free(&bs);
    test_buf_free(&bo);
    test_buf_free(&bbc);
}

/* A: exact-mode cos/sin are the correctly rounded f32 of cos/sin(pos * inv_freq) *
 * attention scaling (MPFR, 256 bits), on samples of every model up to 2^20. */
static void exact_cos_sin_are_correctly_rounded(void **state)
{
    test_env *env = *state;
    mpfr_t a, r;
    mpfr_inits2(256, a, r, (mpfr_ptr)0);
    uint64_t seed = 42;
    for (size_t m = 0; m < HARNESS_N_MODELS; ++m) {
        bicl_rope_config c = harness_model_config(&harness_models[m], BICL_ROPE_ANGLE_EXACT);
        bicl_rope_plan *plan = NULL;
        assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &plan), BICL_SUCCESS);
        double inv[128], attn = 0;
        assert_int_equal(bicl_rope_plan_inv_freq(plan, inv, 128, &attn), BICL_SUCCESS);
        for (int k = 0; k < 2000; ++k) {
            int i = (int)(test_rand(&seed) % (uint64_t)(c.rotary_dim / 2));
            int pos = (int)(test_rand(&seed) % (1u << 20));
            float cs, sn;
            assert_int_equal(bicl_ref_rope_cos_sin(plan, BICL_ROPE_SOURCE_AUTO, pos, i, &cs, &sn),
                             BICL_SUCCESS);
            for (int which = 0; which < 2; ++which) {
                mpfr_set_d(a, inv[i], MPFR_RNDN);
                mpfr_mul_si(a, a, pos, MPFR_RNDN); /* exact at 256 bits */
                if (which)
                    mpfr_sin(r, a, MPFR_RNDN);
                else
                    mpfr_cos(r, a, MPFR_RNDN);
                mpfr_mul_d(r, r, attn, MPFR_RNDN);
                float want = mpfr_get_flt(r, MPFR_RNDN);
                float got = which ? sn : cs;
                if (memcmp(&want, &got, 4) != 0)
                    fail_msg("%s pos %d i %d %s: %.9g, correctly rounded %.9g",
                             harness_models[m].name, pos, i, which ? "sin" : "cos", (double)got,
                             (double)want);
            }
        }
        bicl_rope_plan_free(plan);
    }
    mpfr_clears(a, r, (mpfr_ptr)0);
}

/* Known inv_freq values: Qwen3's theta^(-2i/d) checked against MPFR, and llama3's
 * bands (high frequencies kept, low frequencies divided by the factor). */
static void frequencies_follow_the_formulas(void **state)
{
    test_env *env = *state;
    bicl_rope_config c = harness_model_config(&harness_models[0], BICL_ROPE_ANGLE_EXACT);
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &plan), BICL_SUCCESS);
    double inv[64], attn;
    bicl_rope_plan_inv_freq(plan, inv, 64, &attn);
    assert_true(attn == 1.0);
    mpfr_t x;
    mpfr_init2(x, 200);
    for (int i = 0; i < 64; ++i) {
        mpfr_set_d(x, 1e6, MPFR_RNDN);
        mpfr_t e;
        mpfr_init2(e, 200);
        mpfr_set_si(e, -2 * i, MPFR_RNDN);
        mpfr_div_si(e, e, 128, MPFR_RNDN);
        mpfr_pow(x, x, e, MPFR_RNDN);
        double want = mpfr_get_d(x, MPFR_RNDN);
        mpfr_clear(e);
        assert_true(fabs(inv[i] - want) <= 0.5000001 * (nextafter(want, 1e300) - want));
    }
    mpfr_clear(x);
    bicl_rope_plan_free(plan);
    double base[64], scaled[64];
    c = harness_model_config(&harness_models[1], BICL_ROPE_ANGLE_EXACT);
    bicl_rope_config plain = c;
    plain.type = BICL_ROPE_DEFAULT;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &plain, 0, 0, &plan), BICL_SUCCESS);
    bicl_rope_plan_inv_freq(plan, base, 64, NULL);
    bicl_rope_plan_free(plan);
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &plan), BICL_SUCCESS);
    bicl_rope_plan_inv_freq(plan, scaled, 64, NULL);
    bicl_rope_plan_free(plan);
    assert_true(scaled[0] == base[0]);         /* wavelength 2pi: high frequency, kept */
    assert_true(scaled[63] == base[63] / 8.0); /* longest wavelengths: divided by 8 */
    /* gpt-oss YaRN: attention scaling 0.1 ln(32) + 1 */
    c = harness_model_config(&harness_models[2], BICL_ROPE_ANGLE_EXACT);
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &plan), BICL_SUCCESS);
    bicl_rope_plan_inv_freq(plan, NULL, 0, &attn);
    assert_true(fabs(attn - (0.1 * log(32.0) + 1.0)) < 1e-15);
    bicl_rope_plan_free(plan);
}

static void invalid_configs_are_refused(void **state)
{
    test_env *env = *state;
    bicl_rope_config base = harness_model_config(&harness_models[2], BICL_ROPE_ANGLE_EXACT), c;
    bicl_rope_plan *plan = NULL;
#define BAD(stmt, field)                                                                           \
    do {                                                                                           \
        c = base;                                                                                  \
        stmt;                                                                                      \
        assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &plan),                         \
                         BICL_ERR_INVALID_CONFIG);                                                 \
        assert_null(plan);                                                                         \
        assert_non_null(strstr(bicl_last_error(NULL), field));                                     \
    } while (0)
    BAD(c.rotary_dim = 63, "rotary_dim");
    BAD(c.rotary_dim = 66, "rotary_dim");
    BAD(c.rotary_dim = 0, "rotary_dim");
    BAD(c.type = (bicl_rope_type)17, "type");
    BAD(c.factor = 0.5, "factor");
    BAD(c.factor = NAN, "factor");
    BAD(c.theta = -1.0, "theta");
    BAD(c.theta = INFINITY, "theta");
    BAD(c.style = (bicl_rope_style)5, "style");
    BAD(c.struct_size = 8, "struct_size");
    BAD((c.type = BICL_ROPE_LLAMA3, c.low_freq_factor = 4.0, c.high_freq_factor = 1.0),
        "freq_factor");
    BAD((c.type = BICL_ROPE_LINEAR, c.factor = -2.0), "factor");
    BAD((c.type = BICL_ROPE_LONGROPE, c.long_factor = NULL), "long_factor");
    BAD(c.angle_mode = (bicl_rope_angle_mode)9, "angle_mode");
#undef BAD
    assert_int_equal(bicl_rope_plan_create(env->ctx, &base, -1, 0, &plan),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_rope_plan_create(env->ctx, NULL, 0, 0, &plan), BICL_ERR_NULL_POINTER);
}

/* Bad apply calls: each its own status, nothing written. */
static void invalid_applies_write_nothing(void **state)
{
    test_env *env = *state;
    bicl_rope_config c = harness_model_config(&harness_models[0], BICL_ROPE_ANGLE_EXACT);
    /* the automatic source of `plan` runs (inline with fp64, else its table); `bare` has
     * no table */
    bicl_rope_plan *plan = NULL, *bare = NULL;
    assert_int_equal(
        bicl_rope_plan_create(env->ctx, &c, bicl_context_has_fp64(env->ctx) ? 0 : 8, 0, &plan),
        BICL_SUCCESS);
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 0, 0, &bare), BICL_SUCCESS);
    const size_t T = 4, H = 2, D = 128;
    int32_t pos[4] = {0, 1, 2, 3};
    test_buf bp = test_buf_new(env, 4, T, pos), bq = test_buf_new(env, 4, T * H * D, NULL);
    test_buf bo = test_buf_new(env, 4, T * H * D, NULL);
    size_t ps[1] = {T}, qs[3] = {T, H, D};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
    bicl_tensor tq = test_view(&bq, BICL_F32, 0, 3, qs), to = test_view(&bo, BICL_F32, 0, 3, qs);
    unsigned char *before = malloc(bo.payload + 2 * CANARY_BYTES),
                  *after = malloc(bo.payload + 2 * CANARY_BYTES);
    assert_true(before && after);
    test_buf_read_all(env, &bo, before);
    bicl_tensor short_pos = tp, wrong_d = tq, wrong_heads = to, half_k = tq, pos_f32 = tp;
    short_pos.shape[0] = 3;
    wrong_d.shape[2] = 64;
    wrong_heads.shape[1] = 1;
    pos_f32.dtype = BICL_F32;
    bicl_tensor overlap = to;
    overlap.mem = bp.mem;
    overlap.offset = bp.lead;
    struct {
        const char *what;
        bicl_status want;
        const bicl_tensor *p, *qi, *qo, *ki, *ko;
        bicl_rope_source src;
    } cases[] = {
        {"positions too short", BICL_ERR_SHAPE_MISMATCH, &short_pos, &tq, &to, NULL, NULL, 0},
        {"head_dim differs", BICL_ERR_SHAPE_MISMATCH, &tp, &wrong_d, &to, NULL, NULL, 0},
        {"head counts differ", BICL_ERR_SHAPE_MISMATCH, &tp, &tq, &wrong_heads, NULL, NULL, 0},
        {"k_in without k_out", BICL_ERR_NULL_POINTER, &tp, &tq, &to, &half_k, NULL, 0},
        {"positions not i32", BICL_ERR_UNSUPPORTED_DTYPE, &pos_f32, &tq, &to, NULL, NULL, 0},
        {"no table", BICL_ERR_INVALID_PARAMETER, &tp, &tq, &to, NULL, NULL, BICL_ROPE_SOURCE_TABLE},
        {"output over positions", BICL_ERR_OUT_OF_BOUNDS, &tp, &tq, &overlap, NULL, NULL, 0},
        {"q_out is k_out", BICL_ERR_ALIASING, &tp, &tq, &to, &tq, &to, 0},
        {"unknown source", BICL_ERR_INVALID_ENUM, &tp, &tq, &to, NULL, NULL, (bicl_rope_source)7},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bicl_rope_plan *pl = cases[i].src == BICL_ROPE_SOURCE_TABLE ? bare : plan;
        bicl_status st =
            bicl_rope_apply(env->ctx, env->queue, pl, cases[i].src, 0, cases[i].p, cases[i].qi,
                            cases[i].qo, cases[i].ki, cases[i].ko, 0, NULL, NULL);
        if (st != cases[i].want)
            fail_msg("%s: %s, want %s (%s)", cases[i].what, bicl_status_string(st),
                     bicl_status_string(cases[i].want), bicl_last_error(NULL));
        clFinish(env->queue);
        test_buf_read_all(env, &bo, after);
        assert_memory_equal(before, after, bo.payload + 2 * CANARY_BYTES);
    }
    assert_int_equal(
        bicl_rope_apply(env->ctx, env->queue, NULL, 0, 0, &tp, &tq, &to, NULL, NULL, 0, NULL, NULL),
        BICL_ERR_NULL_POINTER);
    free(before);
    free(after);
    test_buf_free(&bp);
    test_buf_free(&bq);
    test_buf_free(&bo);
    bicl_rope_plan_free(plan);
}

/* ------------------------------------------- variants over layouts and views */

/* A q/k problem in THD views whose heads are es elements apart element to element and
 * pad elements apart head to head, starting off elements past the canary band. */
typedef struct view_case {
    const char *name;
    int D, R;
    bicl_rope_style style;
    bicl_rope_angle_mode mode;
    size_t T, hq, hk;
    bicl_dtype in_dt, out_dt;
    int in_place; /* 0: out of place, 1: q and k in place, 2: q only (needs in == out) */
    size_t es, pad, off;
    size_t bad; /* the first `bad` tokens get out-of-range positions */
} view_case;

#define VIEW_TABLE_ROWS 600 /* plan limit: positions 0..599 for both sources */

/* One operand (q or k) of a view_case: host images of the input and output buffers
 * (payload only) and the expected output image. */
typedef struct view_operand {
    size_t H, n;            /* heads, payload elements */
    void *in, *out0, *want; /* input, output before the call, output expected after */
} view_operand;

static bool view_in_place(const view_case *c, int operand)
{
    return c->in_place == 1 || (c->in_place == 2 && operand == 0);
}

static size_t view_head_stride(const view_case *c)
{
    return c->es * (size_t)c->D + c->pad;
}

/* The vector width the library should pick for the case (the rules of cl/rope.cl):
 * element stride 1, rotary_dim / 2, offsets and the strides of dims of extent > 1
 * multiples of vw; 8 falls back to 4, then 1. */
static unsigned view_expected_vw(const view_case *c, unsigned vw, size_t lead_in, size_t lead_out)
{
    size_t hs = view_head_stride(c);
    for (; vw >= 4; vw /= 2) {
        bool ok = c->es == 1 && (size_t)(c->R / 2) % vw == 0 && (lead_in + c->off) % vw == 0 &&
                  (lead_out + c->off) % vw == 0;
        size_t heads[2] = {c->hq, c->hk};
        for (int o = 0; o < 2 && ok; ++o) {
            if (heads[o] > 1 && hs % vw != 0)
                ok = false;
            if (c->T > 1 && (heads[o] * hs) % vw != 0)
                ok = false;
        }
        if (ok)
            return vw;
    }
    return 1;
}

static void view_operand_init(const view_case *c, view_operand *o, int operand, uint64_t seed)
{
    size_t H = operand ? c->hk : c->hq;
    size_t ies = bicl_dtype_size(c->in_dt), oes = bicl_dtype_size(c->out_dt);
    o->H = H;
    o->n = c->off + c->T * H * view_head_stride(c);
    o->in = malloc(o->n * ies);
    o->out0 = malloc(o->n * oes);
    o->want = malloc(o->n * oes);
    assert_true(o->in && o->out0 && o->want);
    /* every special class (NaNs with payloads, infs, denormals) as input */
    if (ies == 4)
        test_fill_f32_bits(o->in, o->n, seed);
    else
        test_fill_u16_bits(o->in, o->n, seed);
    if (view_in_place(c, operand))
        memcpy(o->out0, o->in, o->n * ies);
    else
        memset(o->out0, 0x5a, o->n * oes);
}

/* want = out0 with the reference written at every view element. */
static void view_operand_reference(const view_case *c, view_operand *o, const bicl_rope_plan *plan,
                                   const int32_t *pos, int inverse)
{
    size_t ies = bicl_dtype_size(c->in_dt), oes = bicl_dtype_size(c->out_dt);
    size_t D = (size_t)c->D, hs = view_head_stride(c);
    unsigned char *x = malloc(D * ies), *y = malloc(D * oes);
    assert_true(x && y);
    memcpy(o->want, o->out0, o->n * oes);
    for (size_t t = 0; t < c->T; ++t)
        for (size_t h = 0; h < o->H; ++h) {
            size_t at = c->off + (t * o->H + h) * hs;
            for (size_t e = 0; e < D; ++e)
                memcpy(x + e * ies, (unsigned char *)o->in + (at + e * c->es) * ies, ies);
            bicl_ref_rope_head(plan, BICL_ROPE_SOURCE_AUTO, inverse, pos[t], c->in_dt, x, c->out_dt,
                               y);
            for (size_t e = 0; e < D; ++e)
                memcpy((unsigned char *)o->want + (at + e * c->es) * oes, y + e * oes, oes);
        }
    free(x);
    free(y);
}

static void view_operand_free(view_operand *o)
{
    free(o->in);
    free(o->out0);
    free(o->want);
}

static bicl_tensor view_tensor(const view_case *c, const test_buf *b, bicl_dtype dt, size_t H)
{
    size_t hs = view_head_stride(c);
    bicl_tensor t = {
        b->mem, b->lead + c->off,        dt,
        3,      {c->T, H, (size_t)c->D}, {(ptrdiff_t)(H * hs), (ptrdiff_t)hs, (ptrdiff_t)c->es}};
    return t;
}

/* Runs the case once under the context's current variant and checks: the launch shape
 * (the vector path is taken exactly where the views allow it), every byte of both
 * output buffers (view elements equal the reference, the rest untouched, canaries
 * intact), and the count of out-of-range positions. Returns the launch shape used. */
typedef struct view_shape {
    unsigned vw, hpu, ipt;
} view_shape;

static void view_buffers_free(const view_case *c, test_buf *bp, test_buf *bqi, test_buf *bki,
                              test_buf *bqo, test_buf *bko)
{
    test_buf_free(bp);
    test_buf_free(bqi);
    test_buf_free(bki);
    if (!view_in_place(c, 0))
        test_buf_free(bqo);
    if (!view_in_place(c, 1))
        test_buf_free(bko);
}

static view_shape view_case_run(test_env *env, bool rows, const view_case *c, bicl_rope_plan *plan,
                                bicl_rope_source source, int inverse, const int32_t *pos,
                                view_operand *q, view_operand *k, const char *what)
{
    size_t ies = bicl_dtype_size(c->in_dt), oes = bicl_dtype_size(c->out_dt);
    test_buf bp = test_buf_new(env, 4, c->T, pos);
    test_buf bqi = test_buf_new(env, ies, q->n, q->in), bki = test_buf_new(env, ies, k->n, k->in);
    test_buf bqo = bqi, bko = bki;
    if (!view_in_place(c, 0))
        bqo = test_buf_new(env, oes, q->n, q->out0);
    if (!view_in_place(c, 1))
        bko = test_buf_new(env, oes, k->n, k->out0);
    size_t ps[1] = {c->T};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
    bicl_tensor tqi = view_tensor(c, &bqi, c->in_dt, c->hq),
                tki = view_tensor(c, &bki, c->in_dt, c->hk);
    bicl_tensor tqo = view_tensor(c, &bqo, c->out_dt, c->hq),
                tko = view_tensor(c, &bko, c->out_dt, c->hk);
    bicl_variant var;
    assert_int_equal(bicl_context_get_variant(env->ctx, &var), BICL_SUCCESS);
    unsigned vw = 0, hpu = 0, ipt = 0, views = 0;
    if (inline_not_applicable(env, source)) {
        bicl_status st = bicl_rope_apply(env->ctx, env->queue, plan, source, inverse, &tp, &tqi,
                                         &tqo, &tki, &tko, 0, NULL, NULL);
        assert_refused_without_fp64(env, st, &bqo, q->out0, what);
        view_buffers_free(c, &bp, &bqi, &bki, &bqo, &bko);
        return (view_shape){0, 0, 0};
    }
    assert_int_equal(bicl_rope_launch_shape(env->ctx, plan, source, &tp, &tqi, &tqo, &tki, &tko,
                                            &vw, &hpu, &ipt, &views),
                     BICL_SUCCESS);
    /* (every_view_on's contexts specialise) the in-place kernels take one view of q and
     * one of k: rotated from the table, q in place, k in place or absent */
    bool ip = source == BICL_ROPE_SOURCE_TABLE && view_in_place(c, 0) &&
              (view_in_place(c, 1) || c->hk == 0) && c->style != BICL_ROPE_DEINTERLEAVE;
    if (views != (ip ? 2u : 4u))
        fail_msg("%s: the kernel takes %u q/k views, expected %u", what, views, ip ? 2u : 4u);
    /* the rows form (vector width 0) takes every table-source call of a rows context */
    unsigned want_vw = rows && source == BICL_ROPE_SOURCE_TABLE
                           ? 0
                           : view_expected_vw(c, var.vector_width, bqi.lead, bqo.lead);
    if (vw != want_vw)
        fail_msg("%s: vector width %u, expected %u", what, vw, want_vw);
    if (ipt < 1 || ipt > var.items_per_thread || hpu < 1 || hpu > c->hq + c->hk)
        fail_msg("%s: launch shape ipt %u hpu %u", what, ipt, hpu);
    bicl_status st = bicl_rope_apply(env->ctx, env->queue, plan, source, inverse, &tp, &tqi, &tqo,
                                     &tki, &tko, 0, NULL, NULL);
    if (st != BICL_SUCCESS)
        fail_msg("%s: %s (%s)", what, bicl_status_string(st), bicl_last_error(NULL));
    unsigned count = 0;
    int first = 0;
    st = bicl_rope_errors(env->ctx, env->queue, plan, &count, &first, 0, NULL);
    assert_int_equal(st, c->bad ? BICL_ERR_POSITION_OUT_OF_RANGE : BICL_SUCCESS);
    if (count != c->bad)
        fail_msg("%s: %u out-of-range positions counted, %zu expected", what, count, c->bad);
    view_operand *ops[2] = {q, k};
    test_buf *outs[2] = {&bqo, &bko};
    for (int o = 0; o < 2; ++o) {
        void *got = malloc(ops[o]->n * oes);
        assert_non_null(got);
        test_buf_read(env, outs[o], got);
        test_buf_assert_canaries(env, outs[o]);
        char w[192];
        snprintf(w, sizeof w, "%s (%s, vw %u hpu %u ipt %u)", what, o ? "k" : "q", vw, hpu, ipt);
        test_assert_bits_equal(got, ops[o]->want, ops[o]->n, oes, w);
        free(got);
    }
    view_buffers_free(c, &bp, &bqi, &bki, &bqo, &bko);
    view_shape sh = {vw, hpu, ipt};
    return sh;
}

/* Design rule 4 for RoPE: every variant (vector width x items per work-item x
 * work-group size) gives the reference bits, for both layouts, full and partial rotary,
 * in and out of place, views that allow the vector kernels and views that must fall
 * back (element stride 2, unaligned offsets, rotary pairs or head_dim not divisible by
 * the width), padded heads with a partial pass-through group, decode, a prefill large
 * enough for several units per work-item, and out-of-range positions; both cos/sin
 * sources. Each configuration checks that the vector path is taken exactly where its
 * views allow it, and the sweep that both vector widths ran. With `rows` (a context of
 * BICL_OPTION_ROPE_FORM "rows"), the same views under the first and last variant: the
 * table source must take the rows form whatever the variant, the inline source the
 * units form. */
static void every_view_on(test_env *env, bool rows)
{
#define NX BICL_ROPE_NEOX
#define GJ BICL_ROPE_GPTJ
#define EX BICL_ROPE_ANGLE_EXACT
#define HF BICL_ROPE_ANGLE_HF
    static const view_case cases[] = {
        /* name, D, R, style, angle mode, T, hq, hk, in, out, in place, es, pad, off, bad */
        {"neox full, in place", 128, 128, NX, EX, 7, 4, 2, BICL_BF16, BICL_BF16, 1, 1, 0, 0, 2},
        {"gptj partial, out of place", 80, 32, GJ, HF, 5, 3, 1, BICL_F16, BICL_F32, 0, 1, 0, 0, 1},
        {"gpt-neox 25%: 12 pairs", 96, 24, NX, EX, 6, 2, 2, BICL_F32, BICL_BF16, 0, 1, 0, 0, 1},
        {"padded heads, partial pass group", 90, 32, NX, HF, 4, 3, 1, BICL_BF16, BICL_BF16, 0, 1, 6,
         0, 0},
        {"gptj padded heads, in place", 90, 32, GJ, EX, 4, 3, 1, BICL_F32, BICL_F32, 1, 1, 6, 0, 1},
        {"odd rotary pairs (3)", 10, 6, GJ, EX, 5, 2, 1, BICL_F32, BICL_F16, 0, 1, 0, 0, 1},
        {"odd head_dim (7)", 7, 4, NX, HF, 3, 2, 2, BICL_BF16, BICL_F32, 0, 1, 0, 0, 0},
        {"element stride 2", 64, 64, NX, EX, 4, 2, 1, BICL_F16, BICL_F16, 0, 2, 0, 0, 1},
        {"element stride 2, in place", 64, 48, GJ, EX, 3, 2, 1, BICL_BF16, BICL_BF16, 1, 2, 0, 0,
         0},
        {"offset 4", 64, 32, NX, EX, 4, 2, 2, BICL_BF16, BICL_BF16, 0, 1, 0, 4, 0},
        {"offset 1", 64, 32, GJ, EX, 4, 2, 2, BICL_F32, BICL_F32, 0, 1, 0, 1, 1},
        {"head stride 68", 64, 64, NX, EX, 3, 2, 1, BICL_F16, BICL_F16, 1, 1, 4, 0, 0},
        {"decode", 128, 128, NX, EX, 1, 32, 8, BICL_BF16, BICL_BF16, 1, 1, 0, 0, 0},
        {"decode, bad position", 128, 128, NX, EX, 1, 32, 8, BICL_BF16, BICL_BF16, 1, 1, 0, 0, 1},
        {"gptj partial, q in place", 80, 32, GJ, EX, 5, 3, 2, BICL_BF16, BICL_BF16, 2, 1, 0, 0, 1},
        {"decode gptj partial", 256, 64, GJ, EX, 1, 16, 16, BICL_F16, BICL_F16, 0, 1, 0, 0, 0},
        {"prefill", 128, 128, NX, EX, 160, 4, 2, BICL_BF16, BICL_BF16, 1, 1, 0, 0, 3},
        /* out of place with 4 dividing both head counts: the rows form's specialised kernel
         * gives a work-group 4 heads of a token (ROPE_ROWS_HEADS4) */
        {"4 heads to a rows group, out of place", 128, 128, NX, EX, 9, 8, 4, BICL_BF16, BICL_BF16,
         0, 1, 0, 0, 2},
        {"4 heads to a rows group, partial", 128, 64, GJ, EX, 6, 4, 4, BICL_F16, BICL_F16, 0, 1, 0,
         0, 1},
        /* q holds every f16 value (test_fill_u16_bits: the first 65536 elements hold each once),
         * so that f16 NaNs, infinities and subnormals reach the f16 -> f16 paths */
        {"prefill f16", 128, 128, NX, EX, 128, 4, 2, BICL_F16, BICL_F16, 1, 1, 0, 0, 3},
    };
#undef NX
#undef GJ
#undef EX
#undef HF
    static const unsigned vws[] = {1, 4, 8}, ipts[] = {1, 3, 8};
    static const size_t wgs[] = {0, 64};
    static const int32_t bad_pos[] = {-1, VIEW_TABLE_ROWS, INT_MAX, INT_MIN, -7};
    unsigned ran_vw[9] = {0}, ran_ipt = 0, ran_hpu = 0;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
        const view_case *c = &cases[ci];
        bicl_rope_config cfg;
        bicl_rope_config_init(&cfg, c->D, c->R);
        cfg.style = c->style;
        cfg.angle_mode = c->mode;
        cfg.theta = 500000.0;
        bicl_rope_plan *plan = NULL;
        assert_int_equal(
            bicl_rope_plan_create(env->ctx, &cfg, VIEW_TABLE_ROWS, VIEW_TABLE_ROWS - 1, &plan),
            BICL_SUCCESS);
        int32_t *pos = malloc(c->T * sizeof *pos);
        assert_non_null(pos);
        for (size_t t = 0; t < c->T; ++t)
            pos[t] = t < c->bad ? bad_pos[t % 5] : (int32_t)((t * 131 + 17) % VIEW_TABLE_ROWS);
        if (c->T == 1 && !c->bad)
            pos[0] = VIEW_TABLE_ROWS - 1; /* decode at the last valid position */
        view_operand q, k;
        view_operand_init(c, &q, 0, 1000 + ci);
        view_operand_init(c, &k, 1, 2000 + ci);
        for (int inverse = 0; inverse < 2; ++inverse) {
            view_operand_reference(c, &q, plan, pos, inverse);
            view_operand_reference(c, &k, plan, pos, inverse);
            /* the table forward, inline inverse, and both for one variant */
            for (size_t v = 0; v < 3; ++v)
                for (size_t p = 0; p < 3; ++p)
                    for (size_t g = 0; g < 2; ++g) {
                        if (rows && !(v + p + g == 0 || (v == 2 && p == 2 && g == 1)))
                            continue;
                        bicl_variant var = {vws[v], ipts[p], wgs[g]};
                        assert_int_equal(bicl_context_set_variant(env->ctx, &var), BICL_SUCCESS);
                        for (int src = BICL_ROPE_SOURCE_TABLE; src <= BICL_ROPE_SOURCE_INLINE;
                             ++src) {
                            bool inline_src = src == BICL_ROPE_SOURCE_INLINE;
                            if (inline_src != (inverse == 1) && !(p == 0 && g == 0))
                                continue;
                            char what[160];
                            snprintf(what, sizeof what, "%s, variant %u/%u/%zu, %s%s", c->name,
                                     vws[v], ipts[p], wgs[g], inline_src ? "inline" : "table",
                                     inverse ? ", inverse" : "");
                            view_shape sh = view_case_run(env, rows, c, plan, (bicl_rope_source)src,
                                                          inverse, pos, &q, &k, what);
                            if (!inline_not_applicable(env, (bicl_rope_source)src))
                                ran_vw[sh.vw]++;
                            ran_ipt += sh.ipt > 1;
                            ran_hpu += sh.hpu > 1;
                        }
                    }
        }
        assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
        view_operand_free(&q);
        view_operand_free(&k);
        free(pos);
        bicl_rope_plan_free(plan);
    }
    /* the sweep exercised the general path and both vector widths (the rows form too
     * in a rows context, never in the other); how often several units per work-item or
     * heads per unit ran depends on the device's size */
    bool units_ran = ran_vw[1] > 0 && ran_vw[4] > 0 && ran_vw[8] > 0;
    if (rows) /* only the inline source takes the units form there */
        assert_true(ran_vw[0] > 0 && (units_ran || !bicl_context_has_fp64(env->ctx)));
    else
        assert_true(units_ran && ran_vw[0] == 0);
    print_message("rope launches: rows/vw 1/4/8: %u/%u/%u/%u; ipt > 1: %u; heads per unit > 1: "
                  "%u\n",
                  ran_vw[0], ran_vw[1], ran_vw[4], ran_vw[8], ran_ipt, ran_hpu);
}

static void every_variant_every_view_gives_the_reference_bits(void **state)
{
    test_env g = test_env_with_rope_form(*state, "units", 1);
    every_view_on(&g, false);
    bicl_context_free(g.ctx);
}

/* The rows form (BICL_OPTION_ROPE_FORM "rows", the PoCL profile's choice) gives the
 * reference bits on every view of the sweep above, specialised to each layout, and on
 * the models and layouts of the tests above with the general rows kernel; the option
 * takes "auto", "units" and "rows" only. */
static void rows_form_gives_the_same_bits(void **state)
{
    test_env *env = *state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ROPE_FORM, "columns"),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_ROPE_FORM, 1), BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ROPE_FORM, "auto"), BICL_SUCCESS);
    bicl_options_free(o);
    test_env g = test_env_with_rope_form(env, "rows", 1);
    every_view_on(&g, true);
    layouts_on(&g, true);
    bicl_context_free(g.ctx);
    g = test_env_with_rope_form(env, "rows", 0);
    layouts_on(&g, true);
    variants_on(&g);
    bicl_context_free(g.ctx);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(frequencies_follow_the_formulas),
        cmocka_unit_test(exact_cos_sin_are_correctly_rounded),
        cmocka_unit_test(rope_matches_reference_every_model),
        cmocka_unit_test(table_equals_inline),
        cmocka_unit_test(layouts_and_in_place),
        cmocka_unit_test(variants_give_the_same_bits),
        cmocka_unit_test(general_kernel_gives_the_same_bits),
        cmocka_unit_test(every_variant_every_view_gives_the_reference_bits),
        cmocka_unit_test(rows_form_gives_the_same_bits),
        cmocka_unit_test(out_of_range_positions_are_reported),
        cmocka_unit_test(position_builders_match_reference),
        cmocka_unit_test(invalid_configs_are_refused),
        cmocka_unit_test(invalid_applies_write_nothing),
    };
    int failed = test_run_tests("rope", tests, test_env_setup, test_env_teardown);
    if (inline_cases_not_applicable)
        printf("rope: %u inline cos/sin cases not applicable (no fp64): each refused with "
               "BICL_ERR_UNSUPPORTED, nothing written\n",
               inline_cases_not_applicable);
    return failed;
}
