/* test_mrope.c - M-RoPE (bicl/mrope.h):
 *   - conformance with transformers 5 (tests/data/conformance/rope_mrope_reference.json,
 *     written by tools/conformance/gen_mrope_conformance.py from transformers' own
 *     classes for published configs): the parsed pair style, widths, pair -> row map,
 *     f32 inv_freq and cos/sin at 3-row positions; get_rope_index's position ids and
 *     deltas from the host reference and from the device builder;
 *   - text-only tokens (three equal rows, materialised or broadcast by a row stride of
 *     0) give the bits of bicl_rope_apply;
 *   - R: the device equals the host reference (dtypes, sources, inverse, in place,
 *     [3, T] and [3, B, S], GQA, partial rotary, GPT-J) under every variant;
 *   - I: a token's bits do not depend on its batch (alone, in a batch, in chunks);
 *     the builder's rows do not depend on their batch (alone vs batched, padding);
 *   - out-of-range positions: NaN, counted once per token, nothing read there;
 *   - bad configs and calls refused on the host with the field named, nothing written. */
#include "common.h"

#include <cjson/cJSON.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BICL_TEST_DATA_DIR
#error "BICL_TEST_DATA_DIR must name tests/data"
#endif

static cJSON *reference;

static int setup(void **state)
{
    char *text = harness_read_text(BICL_TEST_DATA_DIR "/conformance/rope_mrope_reference.json");
    if (!text)
        return -1;
    reference = cJSON_Parse(text);
    free(text);
    if (!reference)
        return -1;
    return test_env_setup(state);
}

static int teardown(void **state)
{
    cJSON_Delete(reference);
    return test_env_teardown(state);
}

static uint32_t hex_bits(const cJSON *s)
{
    return (uint32_t)strtoul(s->valuestring, NULL, 16);
}

static float bits_f32(uint32_t b)
{
    float f;
    memcpy(&f, &b, sizeof f);
    return f;
}

/* Distance in f32 ulps (same sign assumed near; both finite). */
static int64_t ulp_dist(float a, float b)
{
    int32_t ia, ib;
    memcpy(&ia, &a, 4);
    memcpy(&ib, &b, 4);
    if (ia < 0)
        ia = INT32_MIN - ia;
    if (ib < 0)
        ib = INT32_MIN - ib;
    return llabs((long long)ia - (long long)ib);
}

static const cJSON *ref_configs(void)
{
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(reference, "configs");
    assert_non_null(c);
    return c;
}

/* ------------------------------------------------------------ conformance */

/* The parser reads what transformers computes: style, widths, the pair -> row map. */
static void config_matches_transformers(void **state)
{
    (void)state;
    const cJSON *c;
    int n = 0;
    cJSON_ArrayForEach(c, ref_configs())
    {
        char *json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "config"));
        bicl_rope_config cfg;
        bicl_mrope_config m;
        bicl_mrope_vision v;
        bicl_status st = bicl_mrope_config_from_hf_json(json, NULL, &cfg, &m, &v);
        if (st != BICL_SUCCESS)
            fail_msg("%s: %s", c->string, bicl_last_error(NULL));
        const char *style = cJSON_GetObjectItemCaseSensitive(c, "style")->valuestring;
        assert_int_equal(cfg.style, strcmp(style, "gptj") == 0 ? BICL_ROPE_GPTJ : BICL_ROPE_NEOX);
        assert_int_equal(cfg.head_dim, cJSON_GetObjectItemCaseSensitive(c, "head_dim")->valueint);
        assert_int_equal(cfg.rotary_dim,
                         cJSON_GetObjectItemCaseSensitive(c, "rotary_dim")->valueint);
        const cJSON *rows = cJSON_GetObjectItemCaseSensitive(c, "rows");
        assert_int_equal(cJSON_GetArraySize(rows), cfg.rotary_dim / 2);
        int i = 0;
        const cJSON *r;
        cJSON_ArrayForEach(r, rows)
        {
            if (bicl_mrope_pair_row(&m, i) != r->valueint)
                fail_msg("%s: pair %d takes row %d, transformers' row %d", c->string, i,
                         bicl_mrope_pair_row(&m, i), r->valueint);
            ++i;
        }
        /* inv_freq of the hf mode: transformers' float32 steps (0-2 entries may differ
         * where torch's vectorised powf misrounds; docs/rope.md, "Conformance"). */
        int differ = 0;
        i = 0;
        cJSON_ArrayForEach(r, cJSON_GetObjectItemCaseSensitive(c, "inv_freq_hf"))
        {
            float f = 0.0f;
            assert_int_equal(bicl_rope_hf_inv_freq_f32(&cfg, i, &f), BICL_SUCCESS);
            uint32_t b;
            memcpy(&b, &f, 4);
            differ += b != hex_bits(r);
            ++i;
        }
        assert_true(differ <= 2);
        printf("# %s: style %s, rotary %d/%d, sections [%d, %d, %d] %s, inv_freq bits differ "
               "from torch's in %d entries\n",
               c->string, style, cfg.rotary_dim, cfg.head_dim, m.section[0], m.section[1],
               m.section[2], m.layout == BICL_MROPE_INTERLEAVED ? "interleaved" : "chunked",
               differ);
        cJSON_free(json);
        /* the same config as transformers 5 saves it (rope_parameters): the same result */
        json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "config_v5"));
        bicl_rope_config cfg5;
        bicl_mrope_config m5;
        bicl_mrope_vision v5;
        st = bicl_mrope_config_from_hf_json(json, NULL, &cfg5, &m5, &v5);
        if (st != BICL_SUCCESS)
            fail_msg("%s (transformers 5 layout): %s", c->string, bicl_last_error(NULL));
        cJSON_free(json);
        assert_int_equal(cfg5.head_dim, cfg.head_dim);
        assert_int_equal(cfg5.rotary_dim, cfg.rotary_dim);
        assert_int_equal(cfg5.style, cfg.style);
        assert_true(cfg5.theta == cfg.theta && cfg5.type == cfg.type);
        assert_memory_equal(m5.section, m.section, sizeof m.section);
        assert_int_equal(m5.layout, m.layout);
        assert_int_equal(v5.spatial_merge_size, v.spatial_merge_size);
        assert_int_equal(v5.tokens_per_second, v.tokens_per_second);
        assert_int_equal(v5.split_video_frames, v.split_video_frames);
        ++n;
    }
    assert_true(n >= 4);
}

/* cos/sin of each pair at 3-row positions: the hf angle mode (transformers' float32
 * angle) within 2 ulps of torch's cos/sin of it (torch's own rounding), for every pair
 * whose f32 inv_freq has torch's bits. A wrong row would be off by far more. */
static void cos_sin_match_transformers(void **state)
{
    test_env *env = *state;
    const cJSON *c;
    cJSON_ArrayForEach(c, ref_configs())
    {
        char *json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "config"));
        bicl_rope_config cfg;
        bicl_mrope_config m;
        assert_int_equal(bicl_mrope_config_from_hf_json(json, NULL, &cfg, &m, NULL), BICL_SUCCESS);
        cJSON_free(json);
        cfg.angle_mode = BICL_ROPE_ANGLE_HF;
        bicl_mrope_plan *plan = NULL;
        assert_int_equal(bicl_mrope_plan_create(env->ctx, &cfg, &m, 0, 0, &plan), BICL_SUCCESS);
        const cJSON *inv = cJSON_GetObjectItemCaseSensitive(c, "inv_freq_hf");
        int64_t worst = 0;
        const cJSON *p;
        cJSON_ArrayForEach(p, cJSON_GetObjectItemCaseSensitive(c, "probes"))
        {
            const cJSON *pos = cJSON_GetObjectItemCaseSensitive(p, "pos");
            int32_t p3[3];
            for (int a = 0; a < 3; ++a)
                p3[a] = cJSON_GetArrayItem(pos, a)->valueint;
            for (int i = 0; i < cfg.rotary_dim / 2; ++i) {
                float f = 0.0f;
                bicl_rope_hf_inv_freq_f32(&cfg, i, &f);
                uint32_t fb;
                memcpy(&fb, &f, 4);
                if (fb != hex_bits(cJSON_GetArrayItem(inv, i)))
                    continue;
                float cs = 0.0f, sn = 0.0f;
                int row = bicl_mrope_pair_row(&m, i);
                assert_int_equal(bicl_ref_rope_cos_sin(bicl_mrope_plan_rope(plan),
                                                       BICL_ROPE_SOURCE_INLINE, p3[row], i, &cs,
                                                       &sn),
                                 BICL_SUCCESS);
                float hc = bits_f32(
                    hex_bits(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "cos"), i)));
                float hs = bits_f32(
                    hex_bits(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(p, "sin"), i)));
                int64_t d =
                    ulp_dist(cs, hc) > ulp_dist(sn, hs) ? ulp_dist(cs, hc) : ulp_dist(sn, hs);
                if (d > 2)
                    fail_msg("%s pair %d at (%d, %d, %d): bicl (%a, %a), transformers (%a, %a)",
                             c->string, i, p3[0], p3[1], p3[2], (double)cs, (double)sn, (double)hc,
                             (double)hs);
                worst = d > worst ? d : worst;
            }
        }
        printf("# %s: cos/sin within %lld ulp of transformers' at its 3-row probes\n", c->string,
               (long long)worst);
        bicl_mrope_plan_free(plan);
    }
}

/* One layout of the reference as host arrays. */
typedef struct layout_case {
    size_t B, S, n_image, n_video;
    int32_t *types, *mask, *image_grid, *video_grid, *grid_start, *want_pos, *want_delta;
    float *spg;
} layout_case;

static int32_t *int_array(const cJSON *a, size_t *n, int depth)
{
    size_t total = 0, cap = 64;
    int32_t *out = malloc(cap * sizeof *out);
    assert_non_null(out);
    /* flatten up to three levels, row-major */
    const cJSON *stack[4] = {a ? a->child : NULL};
    int top = 0;
    while (top >= 0) {
        const cJSON *e = stack[top];
        if (!e) {
            if (--top >= 0)
                stack[top] = stack[top]->next;
            continue;
        }
        if (cJSON_IsArray(e) && top + 1 < depth) {
            stack[++top] = e->child;
            continue;
        }
        if (total == cap) {
            cap *= 2;
            out = realloc(out, cap * sizeof *out);
            assert_non_null(out);
        }
        out[total++] = (int32_t)e->valuedouble;
        stack[top] = e->next;
    }
    *n = total;
    return out;
}

static void layout_load(const cJSON *l, layout_case *c)
{
    size_t n = 0;
    memset(c, 0, sizeof *c);
    const cJSON *types = cJSON_GetObjectItemCaseSensitive(l, "types");
    c->B = (size_t)cJSON_GetArraySize(types);
    c->types = int_array(types, &n, 2);
    c->S = n / c->B;
    c->mask = int_array(cJSON_GetObjectItemCaseSensitive(l, "mask"), &n, 2);
    c->image_grid = int_array(cJSON_GetObjectItemCaseSensitive(l, "image_grid"), &n, 2);
    c->n_image = n / 3;
    c->video_grid = int_array(cJSON_GetObjectItemCaseSensitive(l, "video_grid"), &n, 2);
    c->n_video = n / 3;
    c->grid_start = int_array(cJSON_GetObjectItemCaseSensitive(l, "grid_start"), &n, 2);
    c->want_pos = int_array(cJSON_GetObjectItemCaseSensitive(l, "positions"), &n, 3);
    assert_int_equal(n, 3 * c->B * c->S);
    c->want_delta = int_array(cJSON_GetObjectItemCaseSensitive(l, "deltas"), &n, 1);
    const cJSON *spg = cJSON_GetObjectItemCaseSensitive(l, "second_per_grid");
    if (cJSON_IsArray(spg)) {
        c->spg = malloc(c->n_video * sizeof *c->spg);
        for (size_t i = 0; i < c->n_video; ++i)
            c->spg[i] = (float)cJSON_GetArrayItem(spg, (int)i)->valuedouble;
    }
}

static void layout_free(layout_case *c)
{
    free(c->types);
    free(c->mask);
    free(c->image_grid);
    free(c->video_grid);
    free(c->grid_start);
    free(c->want_pos);
    free(c->want_delta);
    free(c->spg);
}

static bicl_mrope_layout_host layout_host(const layout_case *c)
{
    bicl_mrope_layout_host h = {BICL_I32,   c->types,      c->mask,       c->B,
                                c->S,       c->image_grid, c->video_grid, c->n_image,
                                c->n_video, c->grid_start, c->spg,        NULL};
    return h;
}

/* Runs the device builder on rows [b0, b0 + nb) of a layout (a view of those rows),
 * with u8 or i32 types; positions [3, nb, S] and deltas [nb] back to the host. */
static void device_positions(test_env *env, const bicl_mrope_vision *v, const layout_case *c,
                             size_t b0, size_t nb, bicl_dtype tdt, int32_t *pos, int32_t *delta)
{
    size_t N = c->B * c->S, es = bicl_dtype_size(tdt);
    unsigned char *t8 = malloc(N * es), *m8 = malloc(N * es);
    for (size_t i = 0; i < N; ++i) {
        if (tdt == BICL_U8) {
            t8[i] = (unsigned char)c->types[i];
            m8[i] = (unsigned char)c->mask[i];
        } else {
            memcpy(t8 + 4 * i, &c->types[i], 4);
            memcpy(m8 + 4 * i, &c->mask[i], 4);
        }
    }
    test_buf bt = test_buf_new(env, es, N, t8), bm = test_buf_new(env, es, N, m8);
    int32_t dummy[3] = {0, 0, 0};
    test_buf bi =
        test_buf_new(env, 4, c->n_image ? 3 * c->n_image : 3, c->n_image ? c->image_grid : dummy);
    test_buf bv =
        test_buf_new(env, 4, c->n_video ? 3 * c->n_video : 3, c->n_video ? c->video_grid : dummy);
    test_buf bg = test_buf_new(env, 4, 2 * c->B, c->grid_start);
    test_buf bs = test_buf_new(env, 4, c->n_video ? c->n_video : 1, c->spg ? (void *)c->spg : NULL);
    test_buf bp = test_buf_new(env, 4, 3 * nb * c->S, NULL), bd = test_buf_new(env, 4, nb, NULL);
    size_t ts[2] = {nb, c->S}, is[2] = {c->n_image, 3}, vs[2] = {c->n_video, 3}, gs[2] = {nb, 2};
    size_t ss[1] = {c->n_video}, ps[3] = {3, nb, c->S}, ds[1] = {nb};
    bicl_tensor tt = test_view(&bt, tdt, b0 * c->S, 2, ts),
                tm = test_view(&bm, tdt, b0 * c->S, 2, ts);
    bicl_tensor ti = test_view(&bi, BICL_I32, 0, 2, is), tv = test_view(&bv, BICL_I32, 0, 2, vs);
    bicl_tensor tg = test_view(&bg, BICL_I32, 2 * b0, 2, gs),
                tsp = test_view(&bs, BICL_F32, 0, 1, ss);
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 3, ps), td = test_view(&bd, BICL_I32, 0, 1, ds);
    bicl_mrope_layout_args la = {
        &tt, &tm, c->n_image ? &ti : NULL, c->n_video ? &tv : NULL, &tg, c->spg ? &tsp : NULL,
        NULL};
    bicl_status st = bicl_mrope_positions(env->ctx, env->queue, v, &la, &tp, &td, 0, NULL, NULL);
    if (st != BICL_SUCCESS)
        fail_msg("bicl_mrope_positions: %s", bicl_last_error(NULL));
    test_buf_read(env, &bp, pos);
    test_buf_read(env, &bd, delta);
    test_buf_assert_canaries(env, &bp);
    test_buf_assert_canaries(env, &bd);
    test_buf *all[] = {&bt, &bm, &bi, &bv, &bg, &bs, &bp, &bd};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        test_buf_free(all[i]);
    free(t8);
    free(m8);
}

/* get_rope_index: the host reference and the device builder give transformers' ids and
 * deltas; each row built alone (its own view, its grid starts) gives its batch's bits. */
static void positions_match_get_rope_index(void **state)
{
    test_env *env = *state;
    const cJSON *c;
    int n = 0;
    cJSON_ArrayForEach(c, ref_configs())
    {
        char *json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "config"));
        bicl_rope_config cfg;
        bicl_mrope_config m;
        bicl_mrope_vision v;
        assert_int_equal(bicl_mrope_config_from_hf_json(json, NULL, &cfg, &m, &v), BICL_SUCCESS);
        cJSON_free(json);
        const cJSON *l;
        cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(c, "layouts"))
        {
            layout_case lc;
            layout_load(l, &lc);
            size_t N = lc.B * lc.S;
            int32_t *pos = malloc(3 * N * sizeof *pos), *delta = malloc(lc.B * sizeof *delta);
            bicl_mrope_layout_host h = layout_host(&lc);
            assert_int_equal(bicl_ref_mrope_positions(&v, &h, pos, delta), BICL_SUCCESS);
            char what[160];
            snprintf(what, sizeof what, "%s %s host positions", c->string,
                     cJSON_GetObjectItemCaseSensitive(l, "name")->valuestring);
            test_assert_bits_equal(pos, lc.want_pos, 3 * N, 4, what);
            test_assert_bits_equal(delta, lc.want_delta, lc.B, 4, what);
            for (int dt = 0; dt < 2; ++dt) {
                memset(pos, 0x5a, 3 * N * sizeof *pos);
                device_positions(env, &v, &lc, 0, lc.B, dt ? BICL_U8 : BICL_I32, pos, delta);
                snprintf(what, sizeof what, "%s %s device positions (%s types)", c->string,
                         cJSON_GetObjectItemCaseSensitive(l, "name")->valuestring,
                         dt ? "u8" : "i32");
                test_assert_bits_equal(pos, lc.want_pos, 3 * N, 4, what);
                test_assert_bits_equal(delta, lc.want_delta, lc.B, 4, what);
            }
            /* I: each row alone */
            for (size_t b = 0; b < lc.B; ++b) {
                int32_t *one = malloc(3 * lc.S * sizeof *one), d1 = 0;
                device_positions(env, &v, &lc, b, 1, BICL_I32, one, &d1);
                for (int a = 0; a < 3; ++a)
                    test_assert_bits_equal(one + (size_t)a * lc.S,
                                           lc.want_pos + (size_t)a * N + b * lc.S, lc.S, 4,
                                           "a row built alone");
                assert_int_equal(d1, lc.want_delta[b]);
                free(one);
            }
            free(pos);
            free(delta);
            layout_free(&lc);
            ++n;
        }
    }
    assert_true(n >= 8);
}

/* Packed (THD): the real tokens of a reference layout's rows back to back with
 * cu_seqlens (and a tail no sequence covers) give transformers' ids of those tokens and
 * its deltas, host and device; the tail gets -1; an unusable cu_seqlens (decreasing, or
 * cu[0] < 0) gives -1 to every token and delta 0. */
static void packed_layouts_match_get_rope_index(void **state)
{
    test_env *env = *state;
    const cJSON *c;
    int n = 0;
    cJSON_ArrayForEach(c, ref_configs())
    {
        char *json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "config"));
        bicl_rope_config cfg;
        bicl_mrope_config m;
        bicl_mrope_vision v;
        assert_int_equal(bicl_mrope_config_from_hf_json(json, NULL, &cfg, &m, &v), BICL_SUCCESS);
        cJSON_free(json);
        const cJSON *l;
        cJSON_ArrayForEach(l, cJSON_GetObjectItemCaseSensitive(c, "layouts"))
        {
            layout_case lc;
            layout_load(l, &lc);
            size_t N = lc.B * lc.S, T = 0, tail = 3;
            int32_t *types = malloc((N + tail) * 4), *want = malloc(3 * (N + tail) * 4);
            int32_t cu[9] = {0}, bad_cu[9] = {0};
            for (size_t b = 0; b < lc.B; ++b) {
                for (size_t s = 0; s < lc.S; ++s)
                    if (lc.mask[b * lc.S + s]) {
                        types[T] = lc.types[b * lc.S + s];
                        for (int a = 0; a < 3; ++a)
                            want[(size_t)a * (N + tail) + T] =
                                lc.want_pos[(size_t)a * N + b * lc.S + s];
                        T++;
                    }
                cu[b + 1] = (int32_t)T;
            }
            for (size_t t = T; t < T + tail; ++t) {
                types[t] = 0;
                for (int a = 0; a < 3; ++a)
                    want[(size_t)a * (N + tail) + t] = -1;
            }
            size_t TT = T + tail;
            /* want was laid out with row stride N + tail: compact it to TT */
            int32_t *want_c = malloc(3 * TT * 4);
            for (int a = 0; a < 3; ++a)
                memcpy(want_c + (size_t)a * TT, want + (size_t)a * (N + tail), TT * 4);
            int32_t *got = malloc(3 * TT * 4), delta[8];
            bicl_mrope_layout_host h = {BICL_I32,   types,         NULL,          lc.B,
                                        TT,         lc.image_grid, lc.video_grid, lc.n_image,
                                        lc.n_video, lc.grid_start, lc.spg,        cu};
            assert_int_equal(bicl_ref_mrope_positions(&v, &h, got, delta), BICL_SUCCESS);
            test_assert_bits_equal(got, want_c, 3 * TT, 4, "packed host positions");
            test_assert_bits_equal(delta, lc.want_delta, lc.B, 4, "packed host deltas");
            /* device */
            int32_t dummy[3] = {0, 0, 0};
            test_buf bt = test_buf_new(env, 4, TT, types), bc = test_buf_new(env, 4, lc.B + 1, cu);
            test_buf bi = test_buf_new(env, 4, lc.n_image ? 3 * lc.n_image : 3,
                                       lc.n_image ? lc.image_grid : dummy);
            test_buf bv = test_buf_new(env, 4, lc.n_video ? 3 * lc.n_video : 3,
                                       lc.n_video ? lc.video_grid : dummy);
            test_buf bg = test_buf_new(env, 4, 2 * lc.B, lc.grid_start);
            test_buf bs =
                test_buf_new(env, 4, lc.n_video ? lc.n_video : 1, lc.spg ? (void *)lc.spg : NULL);
            test_buf bp = test_buf_new(env, 4, 3 * TT, NULL), bd = test_buf_new(env, 4, lc.B, NULL);
            size_t ts[1] = {TT}, cs[1] = {lc.B + 1}, is[2] = {lc.n_image, 3},
                   vs[2] = {lc.n_video, 3}, gs[2] = {lc.B, 2}, ss[1] = {lc.n_video},
                   ps[2] = {3, TT}, ds[1] = {lc.B};
            bicl_tensor tt = test_view(&bt, BICL_I32, 0, 1, ts),
                        tc = test_view(&bc, BICL_I32, 0, 1, cs);
            bicl_tensor ti = test_view(&bi, BICL_I32, 0, 2, is),
                        tv = test_view(&bv, BICL_I32, 0, 2, vs);
            bicl_tensor tg = test_view(&bg, BICL_I32, 0, 2, gs),
                        tsp = test_view(&bs, BICL_F32, 0, 1, ss);
            bicl_tensor tp = test_view(&bp, BICL_I32, 0, 2, ps),
                        td = test_view(&bd, BICL_I32, 0, 1, ds);
            bicl_mrope_layout_args la = {&tt,
                                         NULL,
                                         lc.n_image ? &ti : NULL,
                                         lc.n_video ? &tv : NULL,
                                         &tg,
                                         lc.spg ? &tsp : NULL,
                                         &tc};
            for (int k = 0; k < 2; ++k) {
                if (k == 1) { /* a decreasing cu_seqlens: every token -1 */
                    memcpy(bad_cu, cu, sizeof cu);
                    if (lc.B > 1)
                        bad_cu[1] = bad_cu[lc.B] + 1; /* decreasing */
                    else
                        bad_cu[0] = -1;
                    clEnqueueWriteBuffer(env->queue, bc.mem, CL_TRUE, bc.lead * 4, (lc.B + 1) * 4,
                                         bad_cu, 0, NULL, NULL);
                    for (size_t i = 0; i < 3 * TT; ++i)
                        want_c[i] = -1;
                    memset(lc.want_delta, 0, lc.B * 4);
                    h.cu_seqlens = bad_cu;
                    assert_int_equal(bicl_ref_mrope_positions(&v, &h, got, delta), BICL_SUCCESS);
                    test_assert_bits_equal(got, want_c, 3 * TT, 4, "bad cu: host");
                }
                assert_int_equal(
                    bicl_mrope_positions(env->ctx, env->queue, &v, &la, &tp, &td, 0, NULL, NULL),
                    BICL_SUCCESS);
                test_buf_read(env, &bp, got);
                test_buf_read(env, &bd, delta);
                test_assert_bits_equal(got, want_c, 3 * TT, 4, "packed device positions");
                test_assert_bits_equal(delta, lc.want_delta, lc.B, 4, "packed device deltas");
                test_buf_assert_canaries(env, &bp);
            }
            test_buf *all[] = {&bt, &bc, &bi, &bv, &bg, &bs, &bp, &bd};
            for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
                test_buf_free(all[i]);
            free(types);
            free(want);
            free(want_c);
            free(got);
            layout_free(&lc);
            ++n;
        }
    }
    assert_true(n >= 8);
}

/* A layout whose runs do not match its grids gets -1 in every real token of that row
 * and delta 0 (the apply then reports them); the other rows are unaffected. */
static void mismatched_layouts_give_minus_one(void **state)
{
    test_env *env = *state;
    bicl_mrope_vision v = {2, 0, 0};
    /* row 0: text 2, image (grid 1x4x4 -> 4 tokens) but only 3 image tokens; row 1 fine */
    int32_t types[2 * 6] = {0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0};
    int32_t mask[2 * 6] = {1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1};
    int32_t grid[2 * 3] = {1, 4, 4, 1, 4, 4}, starts[4] = {0, 0, 1, 0};
    int32_t unknown_types[2 * 6] = {0, 3, 3, 0, 0, 0, 0, 1, 1, 1, 1, 0};
    layout_case lc = {2, 6, 2, 0, types, mask, grid, NULL, starts, NULL, NULL, NULL};
    for (int k = 0; k < 2; ++k) {
        lc.types = k ? unknown_types : types;
        int32_t pos[3 * 12], delta[2], hpos[3 * 12], hdelta[2];
        bicl_mrope_layout_host h = layout_host(&lc);
        assert_int_equal(bicl_ref_mrope_positions(&v, &h, hpos, hdelta), BICL_SUCCESS);
        device_positions(env, &v, &lc, 0, 2, BICL_I32, pos, delta);
        test_assert_bits_equal(pos, hpos, 36, 4, "mismatch: device vs host");
        test_assert_bits_equal(delta, hdelta, 2, 4, "mismatch deltas: device vs host");
        for (int a = 0; a < 3; ++a)
            for (int s = 0; s < 6; ++s)
                assert_int_equal(pos[a * 12 + s], -1);
        assert_int_equal(delta[0], 0);
        /* row 1: text 1, image 4 (ids 1 + (0,y,x)), text 1 at 1 + 2 */
        static const int32_t want1[3][6] = {
            {0, 1, 1, 1, 1, 3}, {0, 1, 1, 2, 2, 3}, {0, 1, 2, 1, 2, 3}};
        for (int a = 0; a < 3; ++a)
            test_assert_bits_equal(pos + a * 12 + 6, want1[a], 6, 4, "the good row");
        assert_int_equal(delta[1], 4 - 6);
    }
}

/* ---------------------------------------------------------- rotation tests */

typedef struct mcase {
    const char *name;
    int head_dim, rotary_dim;
    bicl_rope_style style;
    bicl_mrope_layout layout;
    int section[3];
} mcase;

static const mcase cases[] = {
    {"qwen2-vl (chunked, neox)", 128, 128, BICL_ROPE_NEOX, BICL_MROPE_CHUNKED, {16, 24, 24}},
    {"qwen3-vl (interleaved)", 128, 128, BICL_ROPE_NEOX, BICL_MROPE_INTERLEAVED, {24, 20, 20}},
    {"glm-4v (chunked, gptj, partial)", 128, 64, BICL_ROPE_GPTJ, BICL_MROPE_CHUNKED, {8, 12, 12}},
    {"small odd sections (partial)", 20, 12, BICL_ROPE_NEOX, BICL_MROPE_INTERLEAVED, {2, 2, 2}},
};

static bicl_mrope_plan *case_plan(test_env *env, const mcase *mc, bicl_rope_angle_mode mode,
                                  int table_positions)
{
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, mc->head_dim, mc->rotary_dim);
    cfg.style = mc->style;
    cfg.theta = 1000000.0;
    cfg.angle_mode = mode;
    bicl_mrope_config m;
    bicl_mrope_config_init(&m);
    m.layout = mc->layout;
    memcpy(m.section, mc->section, sizeof m.section);
    bicl_mrope_plan *p = NULL;
    bicl_status st = bicl_mrope_plan_create(env->ctx, &cfg, &m, table_positions, 0, &p);
    if (st != BICL_SUCCESS)
        fail_msg("%s: %s", mc->name, bicl_last_error(NULL));
    return p;
}

static void fill_x(void *x, bicl_dtype dt, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i)
        bicl_ref_store(dt, x, i, (float)((int64_t)(test_rand(&s) >> 40) - (1 << 23)) / 1e6f);
}

/* One apply of [T] tokens with q [T, hq, D] and k [T, hk, D] (THD); positions rows of
 * stride row_stride (0: one row broadcast) at pos[0..]. Returns the device outputs. */
typedef struct run_io {
    size_t T, hq, hk, D;
    bicl_dtype in, out;
    const void *q, *k;
    void *qo, *ko;
} run_io;

static bicl_status run_mrope(test_env *env, const bicl_mrope_plan *plan, bicl_rope_source src,
                             int inverse, const int32_t *pos, size_t pos_n, ptrdiff_t row_stride,
                             run_io *io)
{
    size_t ies = bicl_dtype_size(io->in), oes = bicl_dtype_size(io->out);
    size_t nq = io->T * io->hq * io->D, nk = io->T * io->hk * io->D;
    test_buf bp = test_buf_new(env, 4, pos_n, pos);
    test_buf bq = test_buf_new(env, ies, nq, io->q), bqo = test_buf_new(env, oes, nq, NULL);
    test_buf bk = test_buf_new(env, ies, nk ? nk : 1, io->k),
             bko = test_buf_new(env, oes, nk ? nk : 1, NULL);
    size_t ps[2] = {3, io->T}, qs[3] = {io->T, io->hq, io->D}, ks[3] = {io->T, io->hk, io->D};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 2, ps);
    tp.stride[0] = row_stride;
    bicl_tensor tq = test_view(&bq, io->in, 0, 3, qs), tqo = test_view(&bqo, io->out, 0, 3, qs);
    bicl_tensor tk = test_view(&bk, io->in, 0, 3, ks), tko = test_view(&bko, io->out, 0, 3, ks);
    bicl_status st = bicl_mrope_apply(env->ctx, env->queue, plan, src, inverse, &tp, &tq, &tqo,
                                      io->hk ? &tk : NULL, io->hk ? &tko : NULL, 0, NULL, NULL);
    if (st == BICL_SUCCESS) {
        test_buf_read(env, &bqo, io->qo);
        if (io->hk)
            test_buf_read(env, &bko, io->ko);
        test_buf_assert_canaries(env, &bqo);
        test_buf_assert_canaries(env, &bko);
    }
    test_buf *all[] = {&bp, &bq, &bqo, &bk, &bko};
    for (size_t i = 0; i < 5; ++i)
        test_buf_free(all[i]);
    return st;
}

static bicl_status run_rope1(test_env *env, const bicl_rope_plan *plan, bicl_rope_source src,
                             int inverse, const int32_t *pos, run_io *io)
{
    size_t ies = bicl_dtype_size(io->in), oes = bicl_dtype_size(io->out);
    size_t nq = io->T * io->hq * io->D, nk = io->T * io->hk * io->D;
    test_buf bp = test_buf_new(env, 4, io->T, pos);
    test_buf bq = test_buf_new(env, ies, nq, io->q), bqo = test_buf_new(env, oes, nq, NULL);
    test_buf bk = test_buf_new(env, ies, nk, io->k), bko = test_buf_new(env, oes, nk, NULL);
    size_t ps[1] = {io->T}, qs[3] = {io->T, io->hq, io->D}, ks[3] = {io->T, io->hk, io->D};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
    bicl_tensor tq = test_view(&bq, io->in, 0, 3, qs), tqo = test_view(&bqo, io->out, 0, 3, qs);
    bicl_tensor tk = test_view(&bk, io->in, 0, 3, ks), tko = test_view(&bko, io->out, 0, 3, ks);
    bicl_status st = bicl_rope_apply(env->ctx, env->queue, plan, src, inverse, &tp, &tq, &tqo, &tk,
                                     &tko, 0, NULL, NULL);
    if (st == BICL_SUCCESS) {
        test_buf_read(env, &bqo, io->qo);
        test_buf_read(env, &bko, io->ko);
    }
    test_buf *all[] = {&bp, &bq, &bqo, &bk, &bko};
    for (size_t i = 0; i < 5; ++i)
        test_buf_free(all[i]);
    return st;
}

static bool inline_ok(test_env *env, bicl_rope_source s)
{
    return s != BICL_ROPE_SOURCE_INLINE || bicl_context_has_fp64(env->ctx);
}

/* Text-only tokens: three equal rows (materialised, or one row with row stride 0) give
 * exactly bicl_rope_apply's bits at that position, forward and inverse, both sources,
 * every case (chunked, interleaved, GPT-J, partial rotary). */
/* Runs fn(context, form) in a context of each of RoPE's forms (M-RoPE runs RoPE's
 * kernels): form 0 units, 1 rows (BICL_OPTION_ROPE_FORM), with kernels specialised to the
 * layout or general ones (BICL_OPTION_ROPE_SPECIALISE). */
static void on_each_form(void **state, int specialise, void (*fn)(test_env *, int))
{
    static const char *const forms[] = {"units", "rows"};
    for (int f = 0; f < 2; ++f) {
        test_env g = test_env_with_rope_form(*state, forms[f], specialise);
        fn(&g, f);
        bicl_context_free(g.ctx);
    }
}

/* form 0 (units): both angle modes and both sources; 1 (rows): the exact mode and the
 * table source (the angle modes differ in cos/sin values only; the rows form runs the
 * table source only). */
static void text_only_on(test_env *env, int form)
{
    const int angle_modes = form == 0 ? 2 : 1, sources = form == 0 ? 2 : 1;
    const size_t T = 37, hq = 4, hk = 2;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
        const mcase *mc = &cases[ci];
        for (int mode = 0; mode < angle_modes; ++mode) {
            bicl_mrope_plan *plan = case_plan(env, mc, (bicl_rope_angle_mode)mode, 5000);
            size_t D = (size_t)mc->head_dim;
            run_io io = {T, hq, hk, D, BICL_BF16, BICL_F32, NULL, NULL, NULL, NULL};
            void *q = malloc(T * hq * D * 2), *k = malloc(T * hk * D * 2);
            fill_x(q, BICL_BF16, T * hq * D, 7 + ci);
            fill_x(k, BICL_BF16, T * hk * D, 9 + ci);
            io.q = q;
            io.k = k;
            int32_t pos1[37], pos3[3 * 37];
            for (size_t t = 0; t < T; ++t) {
                pos1[t] = (int32_t)((t * 131) % 4999);
                pos3[t] = pos3[T + t] = pos3[2 * T + t] = pos1[t];
            }
            float *q1 = malloc(T * hq * D * 4), *k1 = malloc(T * hk * D * 4);
            float *q3 = malloc(T * hq * D * 4), *k3 = malloc(T * hk * D * 4);
            for (int src = 1; src <= sources; ++src) {
                if (!inline_ok(env, (bicl_rope_source)src)) {
                    /* no fp64 (BICL_HIDE_FP64=1: test_mrope_no_fp64): refused */
                    io.qo = q3;
                    io.ko = k3;
                    assert_int_equal(
                        run_mrope(env, plan, (bicl_rope_source)src, 0, pos1, T, 0, &io),
                        BICL_ERR_UNSUPPORTED);
                    continue;
                }
                for (int inv = 0; inv < 2; ++inv) {
                    io.qo = q1;
                    io.ko = k1;
                    assert_int_equal(run_rope1(env, bicl_mrope_plan_rope(plan),
                                               (bicl_rope_source)src, inv, pos1, &io),
                                     BICL_SUCCESS);
                    io.qo = q3;
                    io.ko = k3;
                    assert_int_equal(run_mrope(env, plan, (bicl_rope_source)src, inv, pos3, 3 * T,
                                               (ptrdiff_t)T, &io),
                                     BICL_SUCCESS);
                    test_assert_bits_equal(q3, q1, T * hq * D, 4, mc->name);
                    test_assert_bits_equal(k3, k1, T * hk * D, 4, mc->name);
                    memset(q3, 0, T * hq * D * 4);
                    assert_int_equal(
                        run_mrope(env, plan, (bicl_rope_source)src, inv, pos1, T, 0, &io),
                        BICL_SUCCESS);
                    test_assert_bits_equal(q3, q1, T * hq * D, 4, "row stride 0");
                    test_assert_bits_equal(k3, k1, T * hk * D, 4, "row stride 0");
                }
            }
            free(q);
            free(k);
            free(q1);
            free(k1);
            free(q3);
            free(k3);
            bicl_mrope_plan_free(plan);
        }
    }
}

/* ... in both of RoPE's forms (a row stride of 0 too). */
static void text_only_equals_1d_rope(void **state)
{
    on_each_form(state, 1, text_only_on);
}

/* Host reference of a THD problem with 3-row positions [3][T]. */
static void reference_thd(const bicl_mrope_plan *plan, bicl_rope_source src, int inverse,
                          const int32_t *pos, size_t T, size_t H, size_t D, bicl_dtype in,
                          const void *x, bicl_dtype out, void *y)
{
    size_t ies = bicl_dtype_size(in), oes = bicl_dtype_size(out);
    for (size_t t = 0; t < T; ++t) {
        int32_t p3[3] = {pos[t], pos[T + t], pos[2 * T + t]};
        for (size_t h = 0; h < H; ++h) {
            size_t at = (t * H + h) * D;
            bicl_ref_mrope_head(plan, src, inverse, p3, in, (const unsigned char *)x + at * ies,
                                out, (unsigned char *)y + at * oes);
        }
    }
}

/* R and design rule 4: the device equals the host reference for every case, dtype pair,
 * source and direction, under several variants (work-group size, units per item);
 * distinct rows, so a pair that took the wrong row would differ. */
static void device_equals_reference_on(test_env *env, size_t n_variants, size_t n_dtypes)
{
    static const bicl_variant vs[] = {{1, 1, 0}, {1, 3, 0}, {4, 1, 64}, {8, 2, 32}, {1, 7, 128}};
    static const bicl_dtype dts[][2] = {
        {BICL_F32, BICL_F32}, {BICL_BF16, BICL_BF16}, {BICL_F16, BICL_F32}, {BICL_F32, BICL_BF16}};
    const size_t T = 29, hq = 3, hk = 1;
    for (size_t ci = 0; ci < sizeof cases / sizeof cases[0]; ++ci) {
        const mcase *mc = &cases[ci];
        bicl_mrope_plan *plan = case_plan(env, mc, BICL_ROPE_ANGLE_EXACT, 9000);
        size_t D = (size_t)mc->head_dim;
        int32_t pos[3 * 29];
        uint64_t s = 99 + ci;
        for (size_t i = 0; i < 3 * T; ++i)
            pos[i] = (int32_t)(test_rand(&s) % 9000);
        for (size_t d = 0; d < n_dtypes && d < sizeof dts / sizeof dts[0]; ++d) {
            bicl_dtype in = dts[d][0], out = dts[d][1];
            size_t ies = bicl_dtype_size(in), oes = bicl_dtype_size(out);
            void *q = malloc(T * hq * D * ies), *k = malloc(T * hk * D * ies);
            fill_x(q, in, T * hq * D, 3 + d);
            fill_x(k, in, T * hk * D, 5 + d);
            void *qo = malloc(T * hq * D * oes), *ko = malloc(T * hk * D * oes);
            void *qr = malloc(T * hq * D * oes), *kr = malloc(T * hk * D * oes);
            run_io io = {T, hq, hk, D, in, out, q, k, qo, ko};
            for (size_t vi = 0; vi < n_variants && vi < sizeof vs / sizeof vs[0]; ++vi) {
                assert_int_equal(bicl_context_set_variant(env->ctx, &vs[vi]), BICL_SUCCESS);
                int src = 1 + (int)((vi + d) % 2), inv = (int)(vi % 2);
                if (!inline_ok(env, (bicl_rope_source)src))
                    src = 1;
                reference_thd(plan, (bicl_rope_source)src, inv, pos, T, hq, D, in, q, out, qr);
                reference_thd(plan, (bicl_rope_source)src, inv, pos, T, hk, D, in, k, out, kr);
                assert_int_equal(
                    run_mrope(env, plan, (bicl_rope_source)src, inv, pos, 3 * T, (ptrdiff_t)T, &io),
                    BICL_SUCCESS);
                char what[128];
                snprintf(what, sizeof what, "%s, dtypes %d/%d, variant %zu", mc->name, (int)in,
                         (int)out, vi);
                test_assert_bits_equal(qo, qr, T * hq * D, oes, what);
                test_assert_bits_equal(ko, kr, T * hk * D, oes, what);
            }
            assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
            free(q);
            free(k);
            free(qo);
            free(ko);
            free(qr);
            free(kr);
        }
        bicl_mrope_plan_free(plan);
    }
}

/* ... in both of RoPE's forms (M-RoPE runs RoPE's kernels: units and rows,
 * BICL_OPTION_ROPE_FORM), each with kernels specialised to the layout and sections and with
 * the general ones (BICL_OPTION_ROPE_SPECIALISE). Every variant in the units form (NVIDIA's),
 * one in the rows form (which has no variants); two dtype pairs, all four in the rows form
 * specialised (PoCL's): the conversions are 1-D RoPE's (test_rope's), and more would only
 * repeat builds, which are most of the test's time. */
static void device_equals_reference_every_variant(void **state)
{
    static const struct {
        const char *form;
        int specialise;
        size_t variants, dtypes;
    } runs[] = {{"units", 1, 5, 2}, {"units", 0, 5, 2}, {"rows", 1, 1, 4}, {"rows", 0, 1, 2}};
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        test_env g = test_env_with_rope_form(*state, runs[r].form, runs[r].specialise);
        device_equals_reference_on(&g, runs[r].variants, runs[r].dtypes);
        bicl_context_free(g.ctx);
    }
}

/* I: [3, B, S] padded with BHSD q (strided view), in place, against each token applied
 * alone and against chunks of the sequence; decode (one token) too. dt: q's dtype (a 16-bit
 * one runs the in-place kernels' 16-bit pair). */
static void batch_and_chunks_of(test_env *env, bicl_dtype dt)
{
    const mcase *mc = &cases[1];
    bicl_mrope_plan *plan = case_plan(env, mc, BICL_ROPE_ANGLE_EXACT, 4096);
    const size_t B = 3, S = 11, H = 2, D = 128, es = bicl_dtype_size(dt);
    size_t n = B * H * S * D;
    unsigned char *x = malloc(n * es), *y = malloc(n * es), *one = malloc(H * D * es);
    fill_x(x, dt, n, 42);
    int32_t pos[3 * 3 * 11];
    uint64_t s = 5;
    for (size_t i = 0; i < 3 * B * S; ++i)
        pos[i] = (int32_t)(test_rand(&s) % 4096);
    /* batch, BHSD in place: strides (b, s, h, e) = (H S D, D, S D, 1) */
    test_buf bp = test_buf_new(env, 4, 3 * B * S, pos), bx = test_buf_new(env, es, n, x);
    size_t ps[3] = {3, B, S}, xs[4] = {B, S, H, D};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 3, ps), tx = test_view(&bx, dt, 0, 4, xs);
    tx.stride[0] = (ptrdiff_t)(H * S * D);
    tx.stride[1] = (ptrdiff_t)D;
    tx.stride[2] = (ptrdiff_t)(S * D);
    tx.stride[3] = 1;
    assert_int_equal(bicl_mrope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0, &tp,
                                      &tx, &tx, NULL, NULL, 0, NULL, NULL),
                     BICL_SUCCESS);
    test_buf_read(env, &bx, y);
    test_buf_free(&bx);
    test_buf_free(&bp);
    /* each token alone: [3, 1] positions, [1, H, D] q */
    for (size_t b = 0; b < B; ++b)
        for (size_t t = 0; t < S; ++t) {
            unsigned char xin[2 * 128 * 4];
            for (size_t h = 0; h < H; ++h)
                memcpy(xin + h * D * es, x + ((b * H + h) * S + t) * D * es, D * es);
            int32_t p1[3];
            for (int a = 0; a < 3; ++a)
                p1[a] = pos[(size_t)a * B * S + b * S + t];
            run_io io = {1, H, 0, D, dt, dt, xin, NULL, one, NULL};
            assert_int_equal(run_mrope(env, plan, BICL_ROPE_SOURCE_TABLE, 0, p1, 3, 1, &io),
                             BICL_SUCCESS);
            for (size_t h = 0; h < H; ++h)
                test_assert_bits_equal(one + h * D * es, y + ((b * H + h) * S + t) * D * es, D, es,
                                       "a token alone vs in its batch");
        }
    /* chunks of row 1: tokens [0, 4), [4, 11) as views of the same positions */
    for (size_t c0 = 0; c0 < S; c0 += 4) {
        size_t len = c0 + 4 <= S ? 4 : S - c0;
        unsigned char *xin = malloc(len * H * D * es), *out = malloc(len * H * D * es);
        int32_t *p = malloc(3 * len * 4);
        for (size_t t = 0; t < len; ++t) {
            for (size_t h = 0; h < H; ++h)
                memcpy(xin + (t * H + h) * D * es, x + ((1 * H + h) * S + c0 + t) * D * es, D * es);
            for (int a = 0; a < 3; ++a)
                p[(size_t)a * len + t] = pos[(size_t)a * B * S + 1 * S + c0 + t];
        }
        run_io io = {len, H, 0, D, dt, dt, xin, NULL, out, NULL};
        assert_int_equal(
            run_mrope(env, plan, BICL_ROPE_SOURCE_TABLE, 0, p, 3 * len, (ptrdiff_t)len, &io),
            BICL_SUCCESS);
        for (size_t t = 0; t < len; ++t)
            for (size_t h = 0; h < H; ++h)
                test_assert_bits_equal(out + (t * H + h) * D * es,
                                       y + ((1 * H + h) * S + c0 + t) * D * es, D, es,
                                       "a chunk vs the whole prompt");
        free(xin);
        free(out);
        free(p);
    }
    free(x);
    free(y);
    free(one);
    bicl_mrope_plan_free(plan);
}

static void batch_and_chunks_on(test_env *env, int form)
{
    (void)form; /* the same problem in each */
    batch_and_chunks_of(env, BICL_F32);
    batch_and_chunks_of(env, BICL_BF16);
}

/* ... in both forms ([3, B, S] positions and a strided view, in place, in each; f32 and
 * bf16). */
static void batch_and_chunks_do_not_change_bits(void **state)
{
    on_each_form(state, 1, batch_and_chunks_on);
}

/* An out-of-range position in any row: NaN rotary elements, pass-through copied,
 * counted once per token with the smallest bad value; other tokens unaffected. */
/* Checks head y (input x, head_dim D, rotary_dim R) of token t (of T) against the
 * reference at positions pos. */
static void check_head_out_of_range(const bicl_mrope_plan *plan, const int32_t *pos, size_t T,
                                    size_t t, const float *x, const float *y, size_t D, size_t R)
{
    float want[128];
    int32_t p3[3] = {pos[t], pos[T + t], pos[2 * T + t]};
    bicl_status st =
        bicl_ref_mrope_head(plan, BICL_ROPE_SOURCE_TABLE, 0, p3, BICL_F32, x, BICL_F32, want);
    assert_int_equal(st, (t == 1 || t == 2) ? BICL_ERR_POSITION_OUT_OF_RANGE : BICL_SUCCESS);
    test_assert_bits_equal(y, want, D, 4, "out of range");
    if (t == 1) /* rotary NaN; pass-through copied */
        assert_true(isnan(y[0]) && isnan(y[R - 1]) && (R == D || y[D - 1] == x[D - 1]));
}

static void out_of_range_on(test_env *env, const mcase *mc, size_t H, size_t HK)
{
    bicl_mrope_plan *plan = case_plan(env, mc, BICL_ROPE_ANGLE_EXACT, 100);
    const size_t T = 4, D = (size_t)mc->head_dim, R = (size_t)mc->rotary_dim;
    float *x = malloc(T * H * D * 4), *y = malloc(T * H * D * 4);
    float *kx = malloc(T * HK * D * 4), *ky = malloc(T * HK * D * 4);
    fill_x(x, BICL_F32, T * H * D, 1);
    fill_x(kx, BICL_F32, T * HK * D, 2);
    /* token 1: w row 100 (limit 99); token 2: h row -7 and t row 500; tokens 0, 3 fine */
    int32_t pos[3 * 4] = {1, 2, 500, 3, /* t */ 1, 2, -7, 3, /* h */ 1, 100, 2, 3 /* w */};
    run_io io = {T, H, HK, D, BICL_F32, BICL_F32, x, kx, y, ky};
    bicl_rope_plan *rp = bicl_mrope_plan_rope(plan);
    assert_int_equal(run_mrope(env, plan, BICL_ROPE_SOURCE_TABLE, 0, pos, 12, 4, &io),
                     BICL_SUCCESS);
    unsigned count = 0;
    int first = 0;
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, rp, &count, &first, 0, NULL),
                     BICL_ERR_POSITION_OUT_OF_RANGE);
    assert_int_equal(count, 2);
    assert_int_equal(first, -7);
    for (size_t t = 0; t < T; ++t) {
        for (size_t h = 0; h < H; ++h)
            check_head_out_of_range(plan, pos, T, t, x + (t * H + h) * D, y + (t * H + h) * D, D,
                                    R);
        for (size_t h = 0; h < HK; ++h)
            check_head_out_of_range(plan, pos, T, t, kx + (t * HK + h) * D, ky + (t * HK + h) * D,
                                    D, R);
    }
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, rp, &count, &first, 0, NULL),
                     BICL_SUCCESS);
    free(x);
    free(y);
    free(kx);
    free(ky);
    bicl_mrope_plan_free(plan);
}

/* ... for a partial interleaved case (pass-through elements; 6 pairs: one per vector
 * group) and Qwen2-VL's chunked sections (64 pairs: the units form's groups of 8, variant
 * 8/1/0, each read with one vector load); 2 q and 1 k heads, and 4 and 4 (the rows form's
 * specialised kernel then gives a work-group 4 heads of a token, ROPE_ROWS_HEADS4, and counts
 * a token's position once per 4 heads' group). */
static void out_of_range_cases_on(test_env *env, int form)
{
    (void)form; /* the same cases in each */
    static const bicl_variant eight = {8, 1, 0};
    assert_int_equal(bicl_context_set_variant(env->ctx, &eight), BICL_SUCCESS);
    out_of_range_on(env, &cases[3], 2, 1);
    out_of_range_on(env, &cases[0], 2, 1);
    out_of_range_on(env, &cases[3], 4, 4);
    out_of_range_on(env, &cases[0], 4, 4);
}

/* ... in both forms, specialised and general (the rows form counts after a barrier). */
static void out_of_range_positions_are_reported(void **state)
{
    on_each_form(state, 1, out_of_range_cases_on);
    on_each_form(state, 0, out_of_range_cases_on);
}

/* Decode continuation, as transformers' compute_3d_position_ids: after a prompt whose
 * builder gave delta, the token at cache length L has position L + delta in all three
 * rows. bicl_positions_packed with start = L + delta builds it on the device; a row
 * stride of 0 broadcasts it to [3, T]; the bits equal the reference at (p, p, p). */
static void decode_continues_with_deltas(void **state)
{
    test_env *env = *state;
    const cJSON *c = cJSON_GetObjectItemCaseSensitive(ref_configs(), "qwen2_5_vl_7b");
    assert_non_null(c);
    char *json = cJSON_PrintUnformatted(cJSON_GetObjectItemCaseSensitive(c, "config"));
    bicl_rope_config cfg;
    bicl_mrope_config m;
    bicl_mrope_vision v;
    assert_int_equal(bicl_mrope_config_from_hf_json(json, NULL, &cfg, &m, &v), BICL_SUCCESS);
    cJSON_free(json);
    bicl_mrope_plan *plan = NULL;
    assert_int_equal(bicl_mrope_plan_create(env->ctx, &cfg, &m, 4096, 0, &plan), BICL_SUCCESS);
    layout_case lc;
    layout_load(cJSON_GetArrayItem(cJSON_GetObjectItemCaseSensitive(c, "layouts"), 0), &lc);
    int32_t *pos = malloc(3 * lc.B * lc.S * sizeof *pos), delta[8];
    device_positions(env, &v, &lc, 0, lc.B, BICL_I32, pos, delta);
    /* one decode step per row: L = real tokens so far (the prompt), packed THD */
    size_t B = lc.B, H = 2, D = (size_t)cfg.head_dim;
    int32_t cu[9], start[8], want[8];
    cu[0] = 0;
    for (size_t b = 0; b < B; ++b) {
        int32_t L = 0;
        for (size_t s = 0; s < lc.S; ++s)
            L += lc.mask[b * lc.S + s] != 0;
        start[b] = L + delta[b];
        want[b] = start[b];
        cu[b + 1] = (int32_t)(b + 1);
    }
    test_buf bc = test_buf_new(env, 4, B + 1, cu), bs = test_buf_new(env, 4, B, start);
    test_buf bp = test_buf_new(env, 4, B, NULL);
    size_t cs[1] = {B + 1}, ss[1] = {B};
    bicl_tensor tc = test_view(&bc, BICL_I32, 0, 1, cs), ts = test_view(&bs, BICL_I32, 0, 1, ss);
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ss);
    assert_int_equal(bicl_positions_packed(env->ctx, env->queue, &tc, &ts, &tp, 0, NULL, NULL),
                     BICL_SUCCESS);
    int32_t got[8];
    test_buf_read(env, &bp, got);
    test_assert_bits_equal(got, want, B, 4, "decode positions");
    float *x = malloc(B * H * D * 4), *y = malloc(B * H * D * 4), ref[128];
    fill_x(x, BICL_F32, B * H * D, 77);
    test_buf bx = test_buf_new(env, 4, B * H * D, x), by = test_buf_new(env, 4, B * H * D, NULL);
    size_t p3[2] = {3, B}, qs[3] = {B, H, D};
    bicl_tensor t3 = test_view(&bp, BICL_I32, 0, 2, p3);
    t3.stride[0] = 0;
    bicl_tensor tx = test_view(&bx, BICL_F32, 0, 3, qs), ty = test_view(&by, BICL_F32, 0, 3, qs);
    assert_int_equal(bicl_mrope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0, &t3,
                                      &tx, &ty, NULL, NULL, 0, NULL, NULL),
                     BICL_SUCCESS);
    test_buf_read(env, &by, y);
    for (size_t b = 0; b < B; ++b)
        for (size_t h = 0; h < H; ++h) {
            int32_t pp[3] = {want[b], want[b], want[b]};
            assert_int_equal(bicl_ref_mrope_head(plan, BICL_ROPE_SOURCE_TABLE, 0, pp, BICL_F32,
                                                 x + (b * H + h) * D, BICL_F32, ref),
                             BICL_SUCCESS);
            test_assert_bits_equal(y + (b * H + h) * D, ref, D, 4, "decode token");
        }
    test_buf *all[] = {&bc, &bs, &bp, &bx, &by};
    for (size_t i = 0; i < 5; ++i)
        test_buf_free(all[i]);
    free(x);
    free(y);
    free(pos);
    layout_free(&lc);
    bicl_mrope_plan_free(plan);
}

/* ---------------------------------------------------------------- refusals */

static void expect_config_error(const char *json, const char *needle)
{
    bicl_rope_config cfg;
    bicl_mrope_config m;
    bicl_status st = bicl_mrope_config_from_hf_json(json, NULL, &cfg, &m, NULL);
    if (st != BICL_ERR_INVALID_CONFIG)
        fail_msg("accepted: %s", json);
    if (!strstr(bicl_last_error(NULL), needle))
        fail_msg("error \"%s\" does not name \"%s\"", bicl_last_error(NULL), needle);
    assert_int_equal(cfg.head_dim, 0);
}

static void bad_configs_are_refused(void **state)
{
    (void)state;
    expect_config_error("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, "
                        "\"num_attention_heads\": 28, \"rope_scaling\": {\"type\": \"mrope\", "
                        "\"mrope_section\": [16, 24, 20]}}",
                        "mrope_section [16, 24, 20] sums to 60");
    expect_config_error("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, "
                        "\"num_attention_heads\": 28, \"rope_scaling\": {\"type\": \"mrope\", "
                        "\"mrope_section\": [16, 48]}}",
                        "rope_scaling.mrope_section");
    expect_config_error("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, "
                        "\"num_attention_heads\": 28, \"rope_scaling\": {\"type\": \"mrope\", "
                        "\"mrope_section\": [16, 24, 24], \"mrope_interleaved\": true}}",
                        "mrope_interleaved");
    expect_config_error("{\"model_type\": \"qwen3_vl\", \"text_config\": {\"model_type\": "
                        "\"qwen3_vl_text\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": "
                        "\"default\", \"mrope_section\": [4, 40, 20]}}}",
                        "interleaved layout");
    expect_config_error("{\"model_type\": \"llama\", \"hidden_size\": 4096, "
                        "\"num_attention_heads\": 32}",
                        "M-RoPE model type");
    expect_config_error("{\"model_type\": \"qwen2_5_vl\", \"hidden_size\": 3584, "
                        "\"num_attention_heads\": 28, \"rope_scaling\": {\"type\": \"linear\", "
                        "\"factor\": 2.0, \"mrope_section\": [16, 24, 24]}}",
                        "rope_type");
    expect_config_error("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, "
                        "\"num_attention_heads\": 28, \"vision_config\": {\"spatial_merge_size\": "
                        "0}}",
                        "vision_config.spatial_merge_size");
    /* defaults: a config without mrope_section takes the class's */
    bicl_rope_config cfg;
    bicl_mrope_config m;
    assert_int_equal(bicl_mrope_config_from_hf_json("{\"model_type\": \"qwen2_vl\", "
                                                    "\"hidden_size\": 3584, "
                                                    "\"num_attention_heads\": 28}",
                                                    NULL, &cfg, &m, NULL),
                     BICL_SUCCESS);
    assert_int_equal(m.section[1], 24);
    /* hand-made configs */
    bicl_rope_config_init(&cfg, 128, 128);
    bicl_mrope_config_init(&m);
    m.section[0] = 16;
    m.section[1] = 24;
    m.section[2] = 25;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_ERR_INVALID_CONFIG);
    assert_non_null(strstr(bicl_last_error(NULL), "mrope_section"));
    m.section[2] = -1;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_ERR_INVALID_CONFIG);
    m.section[2] = 24;
    m.layout = (bicl_mrope_layout)7;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_ERR_INVALID_CONFIG);
    m.layout = BICL_MROPE_CHUNKED;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_SUCCESS);
    /* MLA's and proportional RoPE's pair layouts and slices are not M-RoPE's */
    cfg.style = BICL_ROPE_DEINTERLEAVE;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_ERR_INVALID_CONFIG);
    cfg.style = BICL_ROPE_NEOX;
    cfg.type = BICL_ROPE_PROPORTIONAL;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_ERR_INVALID_CONFIG);
    cfg.type = BICL_ROPE_DEFAULT;
    /* a rotary slice that 1-D RoPE accepts (64 of 128 elements, at an offset) */
    bicl_rope_config_init(&cfg, 128, 64);
    m.section[0] = 16;
    m.section[1] = 8;
    m.section[2] = 8;
    assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_SUCCESS);
    int *slice_fields[] = {&cfg.rotary_offset, &cfg.k_head_dim, &cfg.k_rotary_offset};
    int values[] = {8, 96, 8};
    for (size_t i = 0; i < sizeof slice_fields / sizeof slice_fields[0]; ++i) {
        *slice_fields[i] = values[i];
        assert_int_equal(bicl_rope_config_check(&cfg), BICL_SUCCESS);
        assert_int_equal(bicl_mrope_config_check(&cfg, &m), BICL_ERR_INVALID_CONFIG);
        assert_non_null(strstr(bicl_last_error(NULL), "plain rotary prefix"));
        *slice_fields[i] = 0;
    }
}

/* Calls refused on the host: nothing written to any output (canaries and payload). */
static void bad_calls_write_nothing(void **state)
{
    test_env *env = *state;
    bicl_mrope_plan *plan = case_plan(env, &cases[0], BICL_ROPE_ANGLE_EXACT, 64);
    const size_t T = 5, H = 2, D = 128;
    float x[5 * 2 * 128], init[5 * 2 * 128];
    fill_x(x, BICL_F32, T * H * D, 3);
    for (size_t i = 0; i < T * H * D; ++i)
        init[i] = 7.0f;
    int32_t pos[4 * 5] = {0};
    test_buf bp = test_buf_new(env, 4, 20, pos), bx = test_buf_new(env, 4, T * H * D, x);
    test_buf by = test_buf_new(env, 4, T * H * D, init);
    size_t qs[3] = {T, H, D}, p2[2] = {2, T}, p4[2] = {4, T}, p1[1] = {T}, p3b[3] = {3, 1, T};
    bicl_tensor tx = test_view(&bx, BICL_F32, 0, 3, qs), ty = test_view(&by, BICL_F32, 0, 3, qs);
    struct {
        bicl_tensor pos;
        bicl_status want;
        const char *needle;
    } bad[] = {
        {test_view(&bp, BICL_I32, 0, 2, p2), BICL_ERR_SHAPE_MISMATCH, "positions has 2 rows"},
        {test_view(&bp, BICL_I32, 0, 2, p4), BICL_ERR_SHAPE_MISMATCH, "positions has 4 rows"},
        {test_view(&bp, BICL_I32, 0, 1, p1), BICL_ERR_INVALID_RANK, "positions rank 1"},
        {test_view(&bp, BICL_I32, 0, 3, p3b), BICL_ERR_INVALID_RANK, "q_in has rank 3"},
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i) {
        bicl_status st = bicl_mrope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0,
                                          &bad[i].pos, &tx, &ty, NULL, NULL, 0, NULL, NULL);
        assert_int_equal(st, bad[i].want);
        if (!strstr(bicl_last_error(NULL), bad[i].needle))
            fail_msg("\"%s\" does not say \"%s\"", bicl_last_error(NULL), bad[i].needle);
    }
    /* positions of 3 rows that do not fit the buffer (rows stride past its end) */
    size_t p3[2] = {3, T};
    bicl_tensor far = test_view(&bp, BICL_I32, 0, 2, p3);
    far.stride[0] = 100;
    assert_int_equal(bicl_mrope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0, &far,
                                      &tx, &ty, NULL, NULL, 0, NULL, NULL),
                     BICL_ERR_OUT_OF_BOUNDS);
    /* an output overlapping row 2 of the positions (row 0 alone would not overlap) */
    test_buf bz = test_buf_new(env, 4, 4 * T * H * D, NULL);
    size_t big[2] = {3, T};
    bicl_tensor pz = test_view(&bz, BICL_I32, 0, 2, big);
    pz.stride[0] = (ptrdiff_t)(T * H * D);
    bicl_tensor oz = test_view(&bz, BICL_F32, 2 * T * H * D, 3, qs);
    assert_int_equal(bicl_mrope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_TABLE, 0, &pz,
                                      &tx, &oz, NULL, NULL, 0, NULL, NULL),
                     BICL_ERR_ALIASING);
    clFinish(env->queue);
    float back[5 * 2 * 128];
    test_buf_read(env, &by, back);
    test_assert_bits_equal(back, init, T * H * D, 4, "a refused call wrote its output");
    test_buf_assert_canaries(env, &by);
    test_buf_free(&bz);
    test_buf_free(&bp);
    test_buf_free(&bx);
    test_buf_free(&by);
    bicl_mrope_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(config_matches_transformers),
        cmocka_unit_test(cos_sin_match_transformers),
        cmocka_unit_test(positions_match_get_rope_index),
        cmocka_unit_test(packed_layouts_match_get_rope_index),
        cmocka_unit_test(mismatched_layouts_give_minus_one),
        cmocka_unit_test(text_only_equals_1d_rope),
        cmocka_unit_test(device_equals_reference_every_variant),
        cmocka_unit_test(batch_and_chunks_do_not_change_bits),
        cmocka_unit_test(out_of_range_positions_are_reported),
        cmocka_unit_test(decode_continues_with_deltas),
        cmocka_unit_test(bad_configs_are_refused),
        cmocka_unit_test(bad_calls_write_nothing),
    };
    return test_run_tests("mrope", tests, setup, teardown);
}
