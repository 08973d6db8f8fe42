/* test_rope_mla.c - MLA's decoupled RoPE (a rotary slice at an offset inside each head,
 * k_pe as one k head of its own width, HF's rope_interleave) and proportional RoPE:
 *  - R: every variant (vector width x items per work-item x work-group size), both
 *    cos/sin sources, forward and inverse, equals the host reference bit for bit, on
 *    views that take the vector kernels and views that must fall back;
 *  - the host reference itself against an independent formulation: the slice equals the
 *    plain rotation of a head that is only the slice, the de-interleaving rotation equals
 *    the GPT-J rotation with its outputs moved, proportional's rotated pairs equal a
 *    default plan's and its other pairs are the rotation by angle 0 (not a copy);
 *  - I: a token's bits do not depend on the batch around it (alone vs in a batch);
 *  - bad input refused on the host with the field named, nothing written. */
#include "common.h"

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { TABLE_ROWS = 4096 };

typedef struct mla_case {
    const char *name;
    int D, R, off; /* q head, rotary width, q's rotary offset */
    int kd, koff;  /* k head (0 = D) and its rotary offset */
    bicl_rope_style style;
    bicl_rope_type type; /* default, yarn (DeepSeek's block) or proportional */
    int angles;          /* proportional */
    size_t T, hq, hk;
    bicl_dtype in, out;
    int in_place; /* q and k rotated in place (not for DEINTERLEAVE) */
    size_t lead;  /* extra elements before each view (unaligned views fall back) */
} mla_case;

static bicl_rope_config case_config(const mla_case *c, bicl_rope_angle_mode mode)
{
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, c->D, c->R);
    cfg.style = c->style;
    cfg.rotary_offset = c->off;
    cfg.k_head_dim = c->kd;
    cfg.k_rotary_offset = c->koff;
    cfg.angle_mode = mode;
    cfg.type = c->type;
    if (c->type == BICL_ROPE_YARN) { /* DeepSeek-V3's rope_scaling */
        cfg.factor = 40.0;
        cfg.beta_fast = 32.0;
        cfg.beta_slow = 1.0;
        cfg.mscale = 1.0;
        cfg.mscale_all_dim = 1.0;
        cfg.original_max_position_embeddings = 4096;
        cfg.max_position_embeddings = 163840;
    } else if (c->type == BICL_ROPE_PROPORTIONAL) {
        cfg.factor = 1.0;
        cfg.rope_angles = c->angles;
        cfg.theta = 1e6;
    }
    return cfg;
}

static size_t k_width(const mla_case *c)
{
    return (size_t)(c->kd ? c->kd : c->D);
}

/* Inputs with every special class (NaN payloads, infs, -0, denormals) mixed in. */
static void *random_heads(bicl_dtype dt, size_t n, uint64_t seed)
{
    void *v = malloc(n * bicl_dtype_size(dt) + 1);
    assert_non_null(v);
    if (dt == BICL_F32) {
        test_fill_f32_bits(v, n, seed);
    } else {
        test_fill_u16_bits(v, n, seed);
    }
    return v;
}

/* Reference of n_tok tokens x heads heads of width w (q or k). */
static void *reference(const bicl_rope_plan *plan, bicl_rope_source src, int inverse,
                       const int32_t *pos, size_t n_tok, size_t heads, size_t w, bicl_dtype in,
                       const void *x, bicl_dtype out, bool is_k)
{
    size_t ies = bicl_dtype_size(in), oes = bicl_dtype_size(out);
    unsigned char *r = malloc(n_tok * heads * w * oes + 1);
    assert_non_null(r);
    for (size_t t = 0; t < n_tok; ++t)
        for (size_t h = 0; h < heads; ++h) {
            size_t at = (t * heads + h) * w;
            const unsigned char *xi = (const unsigned char *)x + at * ies;
            bicl_status st =
                is_k ? bicl_ref_rope_k_head(plan, src, inverse, pos[t], in, xi, out, r + at * oes)
                     : bicl_ref_rope_head(plan, src, inverse, pos[t], in, xi, out, r + at * oes);
            /* out of range: the reference writes the device's NaNs and says so */
            if (st != BICL_SUCCESS && st != BICL_ERR_POSITION_OUT_OF_RANGE)
                fail_msg("reference: %s", bicl_status_string(st));
        }
    return r;
}

/* One apply of the case on the device, compared with the reference. Returns the
 * vector width taken. */
static unsigned run_case(test_env *env, const mla_case *c, bicl_rope_plan *plan,
                         bicl_rope_source src, int inverse, const int32_t *pos, const void *q,
                         const void *k, const void *rq, const void *rk, const char *what)
{
    size_t ies = bicl_dtype_size(c->in), oes = bicl_dtype_size(c->out), kw = k_width(c);
    size_t nq = c->T * c->hq * (size_t)c->D, nk = c->T * c->hk * kw;
    test_buf bp = test_buf_new(env, 4, c->T, pos);
    test_buf bq = test_buf_new(env, ies, nq + c->lead, NULL);
    test_buf bk = test_buf_new(env, ies, nk + c->lead, NULL);
    cl_int err = clEnqueueWriteBuffer(env->queue, bq.mem, CL_TRUE, CANARY_BYTES + c->lead * ies,
                                      nq * ies, q, 0, NULL, NULL);
    err |= clEnqueueWriteBuffer(env->queue, bk.mem, CL_TRUE, CANARY_BYTES + c->lead * ies, nk * ies,
                                k, 0, NULL, NULL);
    assert_int_equal(err, CL_SUCCESS);
    test_buf bqo = bq, bko = bk;
    if (!c->in_place) {
        bqo = test_buf_new(env, oes, nq + c->lead, NULL);
        bko = test_buf_new(env, oes, nk + c->lead, NULL);
    }
    size_t ps[1] = {c->T}, qs[3] = {c->T, c->hq, (size_t)c->D}, ks[3] = {c->T, c->hk, kw};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
    bicl_tensor tq = test_view(&bq, c->in, c->lead, 3, qs),
                tk = test_view(&bk, c->in, c->lead, 3, ks);
    bicl_tensor tqo = test_view(&bqo, c->out, c->lead, 3, qs);
    bicl_tensor tko = test_view(&bko, c->out, c->lead, 3, ks);
    unsigned vw = 0;
    bicl_status st = bicl_rope_launch_shape(env->ctx, plan, src, &tp, &tq, &tqo, &tk, &tko, &vw,
                                            NULL, NULL, NULL);
    if (st == BICL_SUCCESS)
        st = bicl_rope_apply(env->ctx, env->queue, plan, src, inverse, &tp, &tq, &tqo, &tk, &tko, 0,
                             NULL, NULL);
    if (st != BICL_SUCCESS)
        fail_msg("%s: %s (%s)", what, bicl_status_string(st), bicl_last_error(NULL));
    unsigned char *g = malloc((nq + nk + 2 * c->lead) * oes);
    assert_non_null(g);
    err = clEnqueueReadBuffer(env->queue, bqo.mem, CL_TRUE, CANARY_BYTES + c->lead * oes, nq * oes,
                              g, 0, NULL, NULL);
    err |= clEnqueueReadBuffer(env->queue, bko.mem, CL_TRUE, CANARY_BYTES + c->lead * oes, nk * oes,
                               g + nq * oes, 0, NULL, NULL);
    assert_int_equal(err, CL_SUCCESS);
    test_buf_assert_canaries(env, &bqo);
    test_buf_assert_canaries(env, &bko);
    char w[200];
    snprintf(w, sizeof w, "%s: q (vw %u)", what, vw);
    test_assert_bits_equal(g, rq, nq, oes, w);
    snprintf(w, sizeof w, "%s: k (vw %u)", what, vw);
    test_assert_bits_equal(g + nq * oes, rk, nk, oes, w);
    free(g);
    test_buf_free(&bp);
    test_buf_free(&bq);
    test_buf_free(&bk);
    if (!c->in_place) {
        test_buf_free(&bqo);
        test_buf_free(&bko);
    }
    return vw;
}

#define DI BICL_ROPE_DEINTERLEAVE
#define GJ BICL_ROPE_GPTJ
#define NX BICL_ROPE_NEOX
static const mla_case cases[] = {
    /* name, D, R, off, kd, koff, style, type, angles, T, hq, hk, in, out, in place, lead */
    {"deepseek-v3: rope_interleave, yarn", 192, 64, 128, 64, 0, DI, BICL_ROPE_YARN, 0, 9, 4, 1,
     BICL_BF16, BICL_BF16, 0, 0},
    {"deepseek-v2: gptj slice, in place", 192, 64, 128, 64, 0, GJ, BICL_ROPE_YARN, 0, 7, 3, 1,
     BICL_F32, BICL_F32, 1, 0},
    {"minicpm3: neox slice", 96, 32, 64, 32, 0, NX, BICL_ROPE_DEFAULT, 0, 6, 5, 1, BICL_F16,
     BICL_F32, 0, 0},
    {"slice at offset 6 (no vector path)", 30, 16, 6, 24, 4, DI, BICL_ROPE_DEFAULT, 0, 5, 2, 1,
     BICL_F32, BICL_BF16, 0, 0},
    {"slice with a tail, k at offset 8", 104, 32, 64, 48, 8, NX, BICL_ROPE_DEFAULT, 0, 4, 3, 2,
     BICL_BF16, BICL_BF16, 1, 0},
    {"slice with a tail, out of place", 104, 32, 64, 48, 8, GJ, BICL_ROPE_DEFAULT, 0, 4, 3, 2,
     BICL_BF16, BICL_F16, 0, 0},
    {"deinterleave, unaligned views", 192, 64, 128, 64, 0, DI, BICL_ROPE_YARN, 0, 3, 2, 1, BICL_F16,
     BICL_F16, 0, 3},
    {"decode, deinterleave", 192, 64, 128, 64, 0, DI, BICL_ROPE_YARN, 0, 1, 16, 1, BICL_BF16,
     BICL_BF16, 0, 0},
    {"proportional (gemma 4 global)", 64, 64, 0, 0, 0, NX, BICL_ROPE_PROPORTIONAL, 8, 6, 3, 2,
     BICL_F32, BICL_F32, 0, 0},
    {"proportional, in place", 64, 64, 0, 0, 0, NX, BICL_ROPE_PROPORTIONAL, 8, 5, 2, 1, BICL_BF16,
     BICL_BF16, 1, 0},
};
#undef DI
#undef GJ
#undef NX
#define N_CASES (sizeof cases / sizeof cases[0])

/* Which variants every_variant_on runs. EVERY_VARIANT: of the three vector widths the one
 * that the case, angle mode, direction and source choose (`width`: each case runs every
 * width over its eight combinations, each combination every width over the cases; a
 * specialised kernel is built per width, so a case's 24 kernels became 8: this test 103 ->
 * 61 s in a clean-clone CI, docs/performance.md), with both items-per-work-item counts, under the
 * group `tied` (0 or 64) that the case, direction and source choose (PoCL's specialised work-group
 * functions compile again per size), while every width runs under both groups over the cases
 * (asserted). ONE_PER_WIDTH: one per vector width (with ipt 3 and groups of 64 among them: the
 * units form's general kernel, which MLA takes only without specialisation). FIRST_VARIANT: the
 * first only (the rows form: the table source takes it whatever the variant). */
typedef enum variant_set { EVERY_VARIANT, ONE_PER_WIDTH, FIRST_VARIANT } variant_set;

static bool variant_in(variant_set set, size_t v, size_t p, size_t g, size_t width, size_t tied)
{
    if (set == FIRST_VARIANT)
        return v + p + g == 0;
    if (set == EVERY_VARIANT)
        return v == width && g == tied;
    return p == (v == 1) && g == (v >= 1);
}

/* R over the variants of `set`, every source and direction; the vector paths ran where
 * allowed. */
static void every_variant_on(test_env *env, variant_set set)
{
    const bool rows = set == FIRST_VARIANT;
    static const unsigned vws[] = {1, 4, 8}, ipts[] = {1, 3};
    static const size_t wgs[] = {0, 64};
    unsigned ran[9] = {0}, ran_group[9][2] = {{0}};
    for (size_t ci = 0; ci < N_CASES; ++ci) {
        const mla_case *c = &cases[ci];
        for (int mode = 0; mode < 2; ++mode) {
            bicl_rope_config cfg = case_config(c, (bicl_rope_angle_mode)mode);
            bicl_rope_plan *plan = NULL;
            if (bicl_rope_plan_create(env->ctx, &cfg, TABLE_ROWS, TABLE_ROWS - 1, &plan) !=
                BICL_SUCCESS)
                fail_msg("%s: %s", c->name, bicl_last_error(NULL));
            int32_t *pos = malloc(c->T * sizeof *pos);
            assert_non_null(pos);
            for (size_t t = 0; t < c->T; ++t)
                pos[t] = (int32_t)((t * 1237 + 3) % TABLE_ROWS);
            size_t kw = k_width(c);
            void *q = random_heads(c->in, c->T * c->hq * (size_t)c->D, 100 + ci);
            void *k = random_heads(c->in, c->T * c->hk * kw, 200 + ci);
            for (int inverse = 0; inverse < 2; ++inverse)
                for (int src = BICL_ROPE_SOURCE_TABLE; src <= BICL_ROPE_SOURCE_INLINE; ++src) {
                    if (src == BICL_ROPE_SOURCE_INLINE && !bicl_context_has_fp64(env->ctx))
                        continue;
                    bicl_rope_source s = (bicl_rope_source)src;
                    void *rq = reference(plan, s, inverse, pos, c->T, c->hq, (size_t)c->D, c->in, q,
                                         c->out, false);
                    void *rk =
                        reference(plan, s, inverse, pos, c->T, c->hk, kw, c->in, k, c->out, true);
                    size_t width = (ci + (size_t)mode + 2 * (size_t)inverse + (size_t)src) % 3;
                    for (size_t v = 0; v < 3; ++v)
                        for (size_t p = 0; p < 2; ++p)
                            for (size_t g = 0; g < 2; ++g) {
                                if (!variant_in(set, v, p, g, width, (v + ci + inverse + src) % 2))
                                    continue;
                                bicl_variant var = {vws[v], ipts[p], wgs[g]};
                                assert_int_equal(bicl_context_set_variant(env->ctx, &var),
                                                 BICL_SUCCESS);
                                char what[160];
                                snprintf(what, sizeof what, "%s, %s, variant %u/%u/%zu, %s%s",
                                         c->name, mode ? "hf" : "exact", vws[v], ipts[p], wgs[g],
                                         src == BICL_ROPE_SOURCE_INLINE ? "inline" : "table",
                                         inverse ? ", inverse" : "");
                                unsigned path =
                                    run_case(env, c, plan, s, inverse, pos, q, k, rq, rk, what);
                                ran[path]++;
                                ran_group[path][g]++;
                            }
                    free(rq);
                    free(rk);
                }
            assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
            free(q);
            free(k);
            free(pos);
            bicl_rope_plan_free(plan);
        }
    }
    if (rows)
        assert_true(ran[0] > 0);
    else
        assert_true(ran[0] == 0 && ran[1] > 0 && ran[4] > 0 && ran[8] > 0);
    for (size_t v = 0; set == EVERY_VARIANT && v < 3; ++v)
        if (ran_group[vws[v]][0] == 0 || ran_group[vws[v]][1] == 0)
            fail_msg("vector width %u ran under groups 0/64: %u/%u times", vws[v],
                     ran_group[vws[v]][0], ran_group[vws[v]][1]);
    print_message("mla launches: rows/vw 1/4/8: %u/%u/%u/%u\n", ran[0], ran[1], ran[4], ran[8]);
}

/* The units form's specialised and general kernels (MLA takes the specialised one since
 * the twentieth session; the general one serves BICL_OPTION_ROPE_SPECIALISE 0), then rows. */
static void every_variant_gives_the_reference_bits(void **state)
{
    for (int specialise = 1; specialise >= 0; --specialise) {
        test_env g = test_env_with_rope_form(*state, "units", specialise);
        every_variant_on(&g, specialise ? EVERY_VARIANT : ONE_PER_WIDTH);
        bicl_context_free(g.ctx);
    }
    test_env g = test_env_with_rope_form(*state, "rows", 1);
    every_variant_on(&g, FIRST_VARIANT);
    bicl_context_free(g.ctx);
}

/* The reference's slice and de-interleaving against plain plans' references: the slice of
 * a q head rotates like a head that is only the slice (offset 0, head_dim = rotary_dim),
 * elements outside it are copied, and DEINTERLEAVE writes GPT-J's pair i to (i, i + d/2). */
static void reference_matches_plain_rotation(void **state)
{
    test_env *env = *state;
    enum { D = 192, R = 64, OFF = 128 };
    for (int style = 0; style < 3; ++style)
        for (int inverse = 0; inverse < 2; ++inverse) {
            bicl_rope_config mla;
            bicl_rope_config_init(&mla, D, R);
            mla.rotary_offset = OFF;
            mla.style = (bicl_rope_style)style;
            bicl_rope_config plain;
            bicl_rope_config_init(&plain, R, R);
            plain.style = style == BICL_ROPE_NEOX ? BICL_ROPE_NEOX : BICL_ROPE_GPTJ;
            if (style == BICL_ROPE_DEINTERLEAVE && inverse)
                plain.style = BICL_ROPE_NEOX; /* the inverse reads NeoX pairs */
            bicl_rope_plan *pm = NULL, *pp = NULL;
            assert_int_equal(bicl_rope_plan_create(env->ctx, &mla, 64, 0, &pm), BICL_SUCCESS);
            assert_int_equal(bicl_rope_plan_create(env->ctx, &plain, 64, 0, &pp), BICL_SUCCESS);
            uint32_t x[D], got[D], want[R];
            test_fill_f32_bits(x, D, 7 + (uint64_t)style);
            for (int pos = 0; pos < 64; pos += 7) {
                assert_int_equal(bicl_ref_rope_head(pm, BICL_ROPE_SOURCE_TABLE, inverse, pos,
                                                    BICL_F32, x, BICL_F32, got),
                                 BICL_SUCCESS);
                assert_int_equal(bicl_ref_rope_head(pp, BICL_ROPE_SOURCE_TABLE, inverse, pos,
                                                    BICL_F32, x + OFF, BICL_F32, want),
                                 BICL_SUCCESS);
                test_assert_bits_equal(got, x, OFF, 4, "elements before the slice");
                for (int i = 0; i < R / 2; ++i) {
                    int a = i, b = i + R / 2; /* where pair i lands */
                    int pa = a, pb = b;       /* where the plain plan put it */
                    if (style == BICL_ROPE_GPTJ) {
                        a = pa = 2 * i;
                        b = pb = 2 * i + 1;
                    } else if (style == BICL_ROPE_DEINTERLEAVE) {
                        pa = inverse ? i : 2 * i;
                        pb = inverse ? i + R / 2 : 2 * i + 1;
                        a = inverse ? 2 * i : i;
                        b = inverse ? 2 * i + 1 : i + R / 2;
                    }
                    if (got[OFF + a] != want[pa] || got[OFF + b] != want[pb])
                        fail_msg("style %d inverse %d pos %d pair %d moved wrongly", style, inverse,
                                 pos, i);
                }
            }
            bicl_rope_plan_free(pm);
            bicl_rope_plan_free(pp);
        }
}

/* Proportional: pairs below rope_angles rotate like a default plan over the same width
 * (theta^(-2i/head_dim)), the others by angle 0 in f32: x0 * 1 - x1 * 0, which is not a
 * copy (-0 - +0 = -0, but -0 - -0 = +0; inf * 0 = NaN), as transformers computes it. */
static void proportional_rotates_the_rest_by_zero(void **state)
{
    test_env *env = *state;
    enum { D = 64, A = 8 };
    bicl_rope_config pc, dc;
    bicl_rope_config_init(&pc, D, D);
    pc.type = BICL_ROPE_PROPORTIONAL;
    pc.factor = 1.0;
    pc.rope_angles = A;
    pc.theta = 1e6;
    bicl_rope_config_init(&dc, D, D);
    dc.theta = 1e6;
    bicl_rope_plan *pp = NULL, *pd = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &pc, 0, 0, &pp), BICL_SUCCESS);
    assert_int_equal(bicl_rope_plan_create(env->ctx, &dc, 0, 0, &pd), BICL_SUCCESS);
    double inv_p[D / 2], inv_d[D / 2];
    bicl_rope_plan_inv_freq(pp, inv_p, D / 2, NULL);
    bicl_rope_plan_inv_freq(pd, inv_d, D / 2, NULL);
    for (int i = 0; i < D / 2; ++i)
        if (inv_p[i] != (i < A ? inv_d[i] : 0.0))
            fail_msg("inv_freq[%d] = %a (default %a)", i, inv_p[i], inv_d[i]);
    if (!bicl_context_has_fp64(env->ctx)) {
        bicl_rope_plan_free(pp);
        bicl_rope_plan_free(pd);
        return;
    }
    float x[D], got[D];
    for (int j = 0; j < D; ++j)
        x[j] = (float)((j * 37 + 11) % 64 - 32) / 16.0f;
    x[A + 1] = -0.0f; /* pair A + 1, x0 = x1 = -0: -0 * 1 - (-0 * 0) = -0 - -0 = +0 */
    x[A + 1 + D / 2] = -0.0f;
    x[A + 2 + D / 2] = INFINITY; /* pair A + 2: x0 - inf * 0 = NaN */
    assert_int_equal(
        bicl_ref_rope_head(pp, BICL_ROPE_SOURCE_INLINE, 0, 12345, BICL_F32, x, BICL_F32, got),
        BICL_SUCCESS);
    for (int i = A; i < D / 2; ++i) {
        float x0 = x[i], x1 = x[i + D / 2];
        float w[2] = {x0 * 1.0f - x1 * 0.0f, x1 * 1.0f + x0 * 0.0f};
        float g[2] = {got[i], got[i + D / 2]};
        for (int j = 0; j < 2; ++j)
            if (!(isnan(g[j]) && isnan(w[j])) && memcmp(&g[j], &w[j], 4) != 0)
                fail_msg("pair %d element %d: %a, want %a", i, j, g[j], w[j]);
    }
    uint32_t zb;
    memcpy(&zb, &got[A + 1], 4);
    assert_int_equal(zb, 0u); /* +0: the rotation, not a copy of -0 */
    assert_true(isnan(got[A + 2]));
    bicl_rope_plan_free(pp);
    bicl_rope_plan_free(pd);
}

/* I: a token rotated alone gives the bits it gets inside a batch (MLA layout). */
static void token_bits_do_not_depend_on_the_batch(void **state)
{
    test_env *env = *state;
    const mla_case *c = &cases[0];
    bicl_rope_config cfg = case_config(c, BICL_ROPE_ANGLE_EXACT);
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &cfg, TABLE_ROWS, 0, &plan), BICL_SUCCESS);
    enum { T = 33, HQ = 4 };
    size_t nq = T * HQ * 192, nk = T * 64;
    void *q = random_heads(BICL_BF16, nq, 5), *k = random_heads(BICL_BF16, nk, 6);
    int32_t pos[T];
    for (int t = 0; t < T; ++t)
        pos[t] = (t * 613) % TABLE_ROWS;
    void *rq =
        reference(plan, BICL_ROPE_SOURCE_TABLE, 0, pos, T, HQ, 192, BICL_BF16, q, BICL_BF16, false);
    void *rk =
        reference(plan, BICL_ROPE_SOURCE_TABLE, 0, pos, T, 1, 64, BICL_BF16, k, BICL_BF16, true);
    mla_case all = *c;
    all.T = T;
    all.hq = HQ;
    run_case(env, &all, plan, BICL_ROPE_SOURCE_TABLE, 0, pos, q, k, rq, rk, "batch of 33");
    mla_case one = all;
    one.T = 1;
    for (int t = 0; t < T; t += 8)
        run_case(env, &one, plan, BICL_ROPE_SOURCE_TABLE, 0, pos + t,
                 (uint16_t *)q + (size_t)t * HQ * 192, (uint16_t *)k + (size_t)t * 64,
                 (uint16_t *)rq + (size_t)t * HQ * 192, (uint16_t *)rk + (size_t)t * 64,
                 "one token alone");
    free(q);
    free(k);
    free(rq);
    free(rk);
    bicl_rope_plan_free(plan);
}

/* Out-of-range positions on the device: counted, the token's slice is NaN in q and
 * k_pe, the nope part is still copied, nothing is read at that position. */
static void out_of_range_positions_are_reported(void **state)
{
    test_env *env = *state;
    const mla_case *c = &cases[0];
    bicl_rope_config cfg = case_config(c, BICL_ROPE_ANGLE_EXACT);
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &cfg, TABLE_ROWS, 0, &plan), BICL_SUCCESS);
    int32_t pos[5] = {-1, 5, TABLE_ROWS, 7, INT_MAX};
    mla_case m = *c;
    m.T = 5;
    size_t nq = 5 * m.hq * 192, nk = 5 * 64;
    void *q = random_heads(BICL_BF16, nq, 11), *k = random_heads(BICL_BF16, nk, 12);
    void *rq = reference(plan, BICL_ROPE_SOURCE_TABLE, 0, pos, 5, m.hq, 192, BICL_BF16, q,
                         BICL_BF16, false);
    void *rk =
        reference(plan, BICL_ROPE_SOURCE_TABLE, 0, pos, 5, 1, 64, BICL_BF16, k, BICL_BF16, true);
    /* the reference's bad tokens: NaN slice, copied nope part */
    const uint16_t *r16 = rq, *q16 = q;
    assert_int_equal(r16[128], 0x7fc0);
    assert_int_equal(r16[0], q16[0]);
    run_case(env, &m, plan, BICL_ROPE_SOURCE_TABLE, 0, pos, q, k, rq, rk, "out of range");
    unsigned count = 0;
    int first = 0;
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, plan, &count, &first, 0, NULL),
                     BICL_ERR_POSITION_OUT_OF_RANGE);
    assert_int_equal(count, 3);
    assert_int_equal(first, -1);
    free(q);
    free(k);
    free(rq);
    free(rk);
    bicl_rope_plan_free(plan);
}

static void expect_config_refused(bicl_rope_config *cfg, const char *field)
{
    assert_int_equal(bicl_rope_config_check(cfg), BICL_ERR_INVALID_CONFIG);
    const char *msg = bicl_last_error(NULL);
    if (!strstr(msg, field))
        fail_msg("refusal \"%s\" does not name %s", msg, field);
}

/* Bad slices and proportional fields are refused naming the field; bad applies
 * (k of the wrong width, de-interleaving in place) write nothing. */
static void bad_input_is_refused(void **state)
{
    test_env *env = *state;
    bicl_rope_config c;
    bicl_rope_config_init(&c, 192, 64);
    c.rotary_offset = 130;
    expect_config_refused(&c, "rotary_offset");
    c.rotary_offset = -2;
    expect_config_refused(&c, "rotary_offset");
    c.rotary_offset = 128;
    c.k_head_dim = 32;
    expect_config_refused(&c, "k_head_dim");
    c.k_head_dim = 64;
    c.k_rotary_offset = 2;
    expect_config_refused(&c, "k_rotary_offset");
    c.k_rotary_offset = 0;
    c.rope_angles = 3;
    expect_config_refused(&c, "rope_angles");
    c.type = BICL_ROPE_PROPORTIONAL;
    c.factor = 1.0;
    c.rope_angles = 33;
    expect_config_refused(&c, "rope_angles");
    c.rope_angles = 32;
    assert_int_equal(bicl_rope_config_check(&c), BICL_SUCCESS);
    c.factor = 0.0;
    expect_config_refused(&c, "factor");
    c.factor = 1.0;
    c.style = (bicl_rope_style)3;
    expect_config_refused(&c, "style");
    c.style = BICL_ROPE_DEINTERLEAVE;
    c.type = BICL_ROPE_DEFAULT;
    c.rope_angles = 0;
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 16, 0, &plan), BICL_SUCCESS);
    int32_t pos[2] = {1, 2};
    size_t nq = 2 * 2 * 192;
    test_buf bp = test_buf_new(env, 4, 2, pos), bq = test_buf_new(env, 4, nq, NULL);
    test_buf bk = test_buf_new(env, 4, 2 * 192, NULL), bko = test_buf_new(env, 4, 2 * 192, NULL);
    size_t ps[1] = {2}, qs[3] = {2, 2, 192}, kwrong[3] = {2, 1, 192};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps), tq = test_view(&bq, BICL_F32, 0, 3, qs);
    bicl_tensor tk = test_view(&bk, BICL_F32, 0, 3, kwrong),
                tko = test_view(&bko, BICL_F32, 0, 3, kwrong);
    /* de-interleaving in place */
    assert_int_not_equal(bicl_rope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0, &tp,
                                         &tq, &tq, NULL, NULL, 0, NULL, NULL),
                         BICL_SUCCESS);
    /* k of q's width where the plan's k heads have 64 elements */
    test_buf bqo = test_buf_new(env, 4, nq, NULL);
    bicl_tensor tqo = test_view(&bqo, BICL_F32, 0, 3, qs);
    assert_int_equal(bicl_rope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0, &tp,
                                     &tq, &tqo, &tk, &tko, 0, NULL, NULL),
                     BICL_ERR_SHAPE_MISMATCH);
    if (!strstr(bicl_last_error(NULL), "k_head_dim"))
        fail_msg("refusal \"%s\" does not name k_head_dim", bicl_last_error(NULL));
    clFinish(env->queue);
    /* nothing was written: the buffers still hold their fill */
    unsigned char *all = malloc(bqo.payload + 2 * CANARY_BYTES);
    assert_non_null(all);
    test_buf *outs[3] = {&bq, &bqo, &bko};
    for (int o = 0; o < 3; ++o) {
        unsigned char *b = realloc(all, outs[o]->payload + 2 * CANARY_BYTES);
        assert_non_null(b);
        all = b;
        test_buf_read_all(env, outs[o], all);
        for (size_t i = 0; i < outs[o]->payload + 2 * CANARY_BYTES; ++i)
            if (all[i] != CANARY_BYTE &&
                (o != 0 || i < CANARY_BYTES || i >= CANARY_BYTES + outs[o]->payload))
                fail_msg("buffer %d byte %zu written by a refused call", o, i);
    }
    free(all);
    test_buf_free(&bp);
    test_buf_free(&bq);
    test_buf_free(&bqo);
    test_buf_free(&bk);
    test_buf_free(&bko);
    bicl_rope_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(reference_matches_plain_rotation),
        cmocka_unit_test(proportional_rotates_the_rest_by_zero),
        cmocka_unit_test(every_variant_gives_the_reference_bits),
        cmocka_unit_test(token_bits_do_not_depend_on_the_batch),
        cmocka_unit_test(out_of_range_positions_are_reported),
        cmocka_unit_test(bad_input_is_refused),
    };
    return test_run_tests("rope_mla", tests, test_env_setup, test_env_teardown);
}
