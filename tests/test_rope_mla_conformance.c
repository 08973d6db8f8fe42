/* test_rope_mla_conformance.c - MLA's decoupled RoPE and proportional RoPE against data
 * transformers itself computed (tests/data/conformance/rope_mla_reference.json, written by
 * tools/conformance/gen_rope_mla_conformance.py from the model types' own attention
 * modules; no Python needed here). Per case (a published config.json, a layer type):
 *   - bicl's parser gives the layout transformers' attention rotates: q head width,
 *     rotary offset and width, k_pe's width, the pairing (neox, gptj, deinterleave) and
 *     proportional's rope_angles;
 *   - the exact angle mode's q and k_pe are within 2 norm-ulps of the exact (200-bit)
 *     rotation, elements outside the slice keep their bits;
 *   - the hf mode's f32 inv_freq equals transformers' float32 pipeline with a correctly
 *     rounded pow in every entry, and its q and k_pe are within 3 norm-ulps of HF's own
 *     float32 output where inv_freq agrees (torch's cos/sin rounding is the rest);
 *   - bicl_rope_plan_softmax_scale equals the softmax scale the attention module passes
 *     (MLA), bit for bit;
 *   - the device gives the host reference's bits for q and k_pe in both angle modes. */
#include "common.h"

#include <cjson/cJSON.h>

#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BICL_TEST_DATA_DIR
#error "BICL_TEST_DATA_DIR must name tests/data"
#endif

static cJSON *reference;

static int setup(void **state)
{
    char *text = harness_read_text(BICL_TEST_DATA_DIR "/conformance/rope_mla_reference.json");
    if (!text)
        return -1;
    reference = cJSON_Parse(text);
    free(text);
    return reference ? test_env_setup(state) : -1;
}

static int teardown(void **state)
{
    cJSON_Delete(reference);
    return test_env_teardown(state);
}

static const cJSON *get(const cJSON *o, const char *key)
{
    return cJSON_GetObjectItemCaseSensitive(o, key);
}

static const char *str(const cJSON *o, const char *key)
{
    const cJSON *it = get(o, key);
    return cJSON_IsString(it) ? it->valuestring : "-";
}

static int num(const cJSON *o, const char *key)
{
    const cJSON *it = get(o, key);
    return cJSON_IsNumber(it) ? it->valueint : 0;
}

/* The generator's inputs: q[j] = x(j), k[j] = x(j + 3), exact in float. */
static float x_elem(int j)
{
    return (float)(((j * 37 + 11) % 64) - 32) / 16.0f;
}

static double ulp_f32(double v)
{
    int e = 0;
    frexp(fabs(v), &e);
    return ldexp(1.0, (e - 1) - 23 > -149 ? (e - 1) - 23 : -149);
}

static uint32_t hex_bits(const cJSON *arr, int i)
{
    return (uint32_t)strtoul(cJSON_GetArrayItem(arr, i)->valuestring, NULL, 16);
}

/* One head kind of a case: q or k_pe. */
typedef struct head_kind {
    const char *name; /* "q" or "k" */
    int width, off, shift;
    bool is_k;
} head_kind;

/* The input pair that output element j (inside the slice) comes from; returns its index. */
static int source_pair(const bicl_rope_config *c, int off, int j, int *j0, int *j1)
{
    int r = j - off, h = c->rotary_dim / 2;
    int i = c->style == BICL_ROPE_GPTJ ? r / 2 : r % h;
    bool gi = c->style != BICL_ROPE_NEOX;
    *j0 = off + (gi ? 2 * i : i);
    *j1 = off + (gi ? 2 * i + 1 : i + h);
    return i;
}

/* max norm-ulp distance of the reference head against the case's outputs (exact: decimal
 * strings; hf: bits), failing above `limit` on the pairs `held` marks (NULL: all);
 * elements outside the slice must be copied. */
static double compare_head(const cJSON *c, const bicl_rope_plan *plan, const bicl_rope_config *cfg,
                           const head_kind *hk, const char *key, bool bits, double attn,
                           double limit, const bool *held)
{
    const cJSON *positions = get(c, "positions"), *outs = get(c, key);
    if (!outs)
        return 0.0;
    float *x = malloc((size_t)hk->width * sizeof *x), *o = malloc((size_t)hk->width * sizeof *o);
    assert_true(x && o);
    for (int j = 0; j < hk->width; ++j)
        x[j] = x_elem(j + hk->shift);
    double worst = 0.0;
    for (int p = 0; p < cJSON_GetArraySize(positions); ++p) {
        int pos = cJSON_GetArrayItem(positions, p)->valueint;
        const cJSON *want = cJSON_GetArrayItem(outs, p);
        assert_int_equal(cJSON_GetArraySize(want), hk->width);
        bicl_status st = hk->is_k ? bicl_ref_rope_k_head(plan, BICL_ROPE_SOURCE_INLINE, 0, pos,
                                                         BICL_F32, x, BICL_F32, o)
                                  : bicl_ref_rope_head(plan, BICL_ROPE_SOURCE_INLINE, 0, pos,
                                                       BICL_F32, x, BICL_F32, o);
        assert_int_equal(st, BICL_SUCCESS);
        for (int j = 0; j < hk->width; ++j) {
            double w;
            if (bits) {
                uint32_t b = hex_bits(want, j);
                float f;
                memcpy(&f, &b, sizeof f);
                w = f;
            } else {
                w = strtod(cJSON_GetArrayItem(want, j)->valuestring, NULL);
            }
            if (j < hk->off || j >= hk->off + cfg->rotary_dim) {
                if (memcmp(&o[j], &x[j], sizeof o[j]) != 0 || (bits && (double)x[j] != w))
                    fail_msg("%s %s: element %d outside the slice changed at position %d",
                             str(c, "name"), hk->name, j, pos);
                continue;
            }
            int j0, j1;
            int i = source_pair(cfg, hk->off, j, &j0, &j1);
            double err = fabs((double)o[j] - w) / ulp_f32(hypot(x[j0], x[j1]) * attn);
            if (err > worst)
                worst = err;
            if (err > limit && (!held || held[i]))
                fail_msg("%s [%s] %s (%s): element %d at position %d is %.9g, want %.11g: %.2f "
                         "norm-ulps (> %g)",
                         str(c, "name"), str(c, "layer_type"), hk->name, key, j, pos, (double)o[j],
                         w, err, limit);
        }
    }
    free(x);
    free(o);
    return worst;
}

/* Entries of the hf mode's f32 inv_freq that differ from the case's array `key`; same[i]
 * (when not NULL) says whether entry i agrees. */
static int inv_differences(const cJSON *c, const bicl_rope_config *cfg, const char *key, bool *same)
{
    int n = 0;
    for (int i = 0; i < cfg->rotary_dim / 2; ++i) {
        float got = 0.0f;
        assert_int_equal(bicl_rope_hf_inv_freq_f32(cfg, i, &got), BICL_SUCCESS);
        uint32_t b;
        memcpy(&b, &got, sizeof b);
        n += b != hex_bits(get(c, key), i);
        if (same)
            same[i] = b == hex_bits(get(c, key), i);
    }
    return n;
}

/* Device against the host reference: q [T, 1, head_dim] and k [T, 1, k_head_dim] at the
 * case's positions, out of place, inline cos/sin. */
static void check_device(test_env *env, const cJSON *c, const bicl_rope_plan *plan,
                         const head_kind hk[2])
{
    if (!bicl_context_has_fp64(env->ctx))
        return;
    const cJSON *positions = get(c, "positions");
    size_t T = (size_t)cJSON_GetArraySize(positions);
    int32_t *pos = malloc(T * sizeof *pos);
    assert_non_null(pos);
    for (size_t t = 0; t < T; ++t)
        pos[t] = cJSON_GetArrayItem(positions, (int)t)->valueint;
    test_buf bp = test_buf_new(env, 4, T, pos);
    size_t ps[1] = {T};
    bicl_tensor tp = test_view(&bp, BICL_I32, 0, 1, ps);
    test_buf bi[2], bo[2];
    bicl_tensor ti[2], to[2];
    float *x[2], *want[2];
    for (int h = 0; h < 2; ++h) {
        size_t w = (size_t)hk[h].width;
        x[h] = malloc(T * w * sizeof(float));
        want[h] = malloc(T * w * sizeof(float));
        assert_true(x[h] && want[h]);
        for (size_t t = 0; t < T; ++t) {
            for (size_t j = 0; j < w; ++j)
                x[h][t * w + j] = x_elem((int)(j + t) + hk[h].shift);
            bicl_status st =
                hk[h].is_k ? bicl_ref_rope_k_head(plan, BICL_ROPE_SOURCE_INLINE, 0, pos[t],
                                                  BICL_F32, x[h] + t * w, BICL_F32, want[h] + t * w)
                           : bicl_ref_rope_head(plan, BICL_ROPE_SOURCE_INLINE, 0, pos[t], BICL_F32,
                                                x[h] + t * w, BICL_F32, want[h] + t * w);
            assert_int_equal(st, BICL_SUCCESS);
        }
        bi[h] = test_buf_new(env, 4, T * w, x[h]);
        bo[h] = test_buf_new(env, 4, T * w, NULL);
        size_t s[3] = {T, 1, w};
        ti[h] = test_view(&bi[h], BICL_F32, 0, 3, s);
        to[h] = test_view(&bo[h], BICL_F32, 0, 3, s);
    }
    bicl_status st = bicl_rope_apply(env->ctx, env->queue, plan, BICL_ROPE_SOURCE_INLINE, 0, &tp,
                                     &ti[0], &to[0], &ti[1], &to[1], 0, NULL, NULL);
    if (st != BICL_SUCCESS)
        fail_msg("%s: %s (%s)", str(c, "name"), bicl_status_string(st), bicl_last_error(NULL));
    for (int h = 0; h < 2; ++h) {
        size_t n = T * (size_t)hk[h].width;
        float *got = malloc(n * sizeof *got);
        assert_non_null(got);
        test_buf_read(env, &bo[h], got);
        test_assert_bits_equal(got, want[h], n, 4, str(c, "name"));
        free(got);
        free(x[h]);
        free(want[h]);
        test_buf_free(&bi[h]);
        test_buf_free(&bo[h]);
    }
    test_buf_free(&bp);
    free(pos);
}

static bicl_rope_style style_of(const char *s)
{
    if (strcmp(s, "gptj") == 0)
        return BICL_ROPE_GPTJ;
    if (strcmp(s, "deinterleave") == 0)
        return BICL_ROPE_DEINTERLEAVE;
    return BICL_ROPE_NEOX;
}

static void check_layout(const cJSON *c, const bicl_rope_config *cfg)
{
    int kd = cfg->k_head_dim ? cfg->k_head_dim : cfg->head_dim;
    if (cfg->style != style_of(str(c, "style")) || cfg->head_dim != num(c, "head_dim") ||
        cfg->rotary_offset != num(c, "rotary_offset") || cfg->rotary_dim != num(c, "rotary_dim") ||
        kd != num(c, "k_head_dim") || cfg->k_rotary_offset != num(c, "k_rotary_offset") ||
        cfg->rope_angles != num(c, "rope_angles"))
        fail_msg("%s [%s]: bicl reads style %d, q %d+%d/%d, k %d+%d, angles %d; transformers "
                 "rotates %s, q %d+%d/%d, k %d+%d, angles %d",
                 str(c, "name"), str(c, "layer_type"), (int)cfg->style, cfg->rotary_offset,
                 cfg->rotary_dim, cfg->head_dim, cfg->k_rotary_offset, kd, cfg->rope_angles,
                 str(c, "style"), num(c, "rotary_offset"), num(c, "rotary_dim"), num(c, "head_dim"),
                 num(c, "k_rotary_offset"), num(c, "k_head_dim"), num(c, "rope_angles"));
}

static void test_mla_conformance(void **state)
{
    test_env *env = *state;
    const cJSON *cases = get(reference, "cases"), *configs = get(reference, "configs");
    int n_cases = cJSON_GetArraySize(cases);
    assert_true(n_cases >= 7);
    printf("transformers %s, torch %s (%s)\n", str(reference, "transformers"),
           str(reference, "torch"), str(reference, "cpu_capability"));
    printf("| case | layer type | rope_type | style | q slice | k head | exact q / k, norm-ulps "
           "| hf inv_freq != torch | hf q / k vs HF, norm-ulps | softmax scale |\n"
           "|---|---|---|---|---|---|---|---|---|---|\n");
    for (int n = 0; n < n_cases; ++n) {
        const cJSON *c = cJSON_GetArrayItem(cases, n);
        char *json = cJSON_PrintUnformatted(get(configs, str(c, "name")));
        assert_non_null(json);
        bicl_rope_hf_options opt;
        bicl_rope_hf_options_init(&opt);
        opt.layer_type = cJSON_IsString(get(c, "layer_type")) ? str(c, "layer_type") : NULL;
        bicl_rope_config cfg;
        bicl_status st = bicl_rope_config_from_hf_json_ex(json, &opt, &cfg);
        free(json);
        if (st != BICL_SUCCESS)
            fail_msg("%s: %s", str(c, "name"), bicl_last_error(NULL));
        check_layout(c, &cfg);
        head_kind hk[2] = {{"q", cfg.head_dim, cfg.rotary_offset, 0, false},
                           {"k", num(c, "k_head_dim"), cfg.k_rotary_offset, 3, true}};
        bool has_k = get(c, "hf_k_out") != NULL;
        double ex_attn = get(c, "attention_scaling_exact")->valuedouble;
        double hf_attn = get(c, "attention_scaling")->valuedouble;
        bicl_rope_plan *plan = NULL, *hplan = NULL;
        assert_int_equal(bicl_rope_plan_create(env->ctx, &cfg, 0, 0, &plan), BICL_SUCCESS);
        double ex[2] = {0, 0}, hf[2] = {0, 0};
        for (int h = 0; h < 1 + has_k; ++h)
            ex[h] = compare_head(c, plan, &cfg, &hk[h], h ? "exact_k_out" : "exact_q_out", false,
                                 ex_attn, 2.0, NULL);
        check_device(env, c, plan, hk);
        bool *same = malloc((size_t)cfg.rotary_dim / 2 * sizeof *same);
        assert_non_null(same);
        int d_hf = inv_differences(c, &cfg, "inv_freq_hf", same);
        int d_cr = inv_differences(c, &cfg, "inv_freq_crpow", NULL);
        if (d_cr != 0)
            fail_msg("%s: %d hf-mode inv_freq entries differ from HF's float32 pipeline",
                     str(c, "name"), d_cr);
        bicl_rope_config hcfg = cfg;
        hcfg.angle_mode = BICL_ROPE_ANGLE_HF;
        assert_int_equal(bicl_rope_plan_create(env->ctx, &hcfg, 0, 0, &hplan), BICL_SUCCESS);
        /* where inv_freq has torch's bits the rest is torch's cos/sin: <= 3 norm-ulps (a
         * pair whose inv_freq torch misrounded drifts with the position: reported only) */
        for (int h = 0; h < 1 + has_k; ++h)
            hf[h] = compare_head(c, hplan, &hcfg, &hk[h], h ? "hf_k_out" : "hf_q_out", true,
                                 hf_attn, 3.0, same);
        free(same);
        check_device(env, c, hplan, hk);
        char soft[64] = "-";
        const cJSON *want_scale = get(c, "softmax_scale");
        if (cJSON_IsNumber(want_scale)) {
            double m2 = 0.0, scale = 0.0;
            assert_int_equal(bicl_rope_plan_softmax_scale(plan, &m2, &scale), BICL_SUCCESS);
            if (memcmp(&scale, &want_scale->valuedouble, sizeof scale) != 0)
                fail_msg("%s: softmax scale %.17g, transformers' %.17g", str(c, "name"), scale,
                         want_scale->valuedouble);
            snprintf(soft, sizeof soft, "%.17g (mscale^2 %.17g)", scale, m2);
        }
        printf("| %s | %s | %s | %s | %d+%d/%d | %d | %.3f / %.3f | %d | %.2f / %.2f | %s |\n",
               str(c, "name"), str(c, "layer_type"), str(c, "rope_type"), str(c, "style"),
               cfg.rotary_offset, cfg.rotary_dim, cfg.head_dim, hk[1].width, ex[0], ex[1], d_hf,
               hf[0], hf[1], soft);
        bicl_rope_plan_free(plan);
        bicl_rope_plan_free(hplan);
        bicl_rope_config_release(&cfg);
    }
}

/* The layer type of every layer of the Gemma 4 configs without layer_types, as
 * transformers' config class assigns them. */
static void test_gemma4_layer_types(void **state)
{
    (void)state;
    const cJSON *all = get(reference, "layer_types"), *configs = get(reference, "configs");
    assert_true(cJSON_GetArraySize(all) >= 2);
    for (const cJSON *lt = all->child; lt; lt = lt->next) {
        char *json = cJSON_PrintUnformatted(get(configs, lt->string));
        assert_non_null(json);
        for (int l = 0; l < cJSON_GetArraySize(lt); ++l) {
            char name[64];
            assert_int_equal(bicl_rope_config_layer_type(json, l, name, sizeof name), BICL_SUCCESS);
            if (strcmp(name, cJSON_GetArrayItem(lt, l)->valuestring) != 0)
                fail_msg("%s layer %d: %s, transformers %s", lt->string, l, name,
                         cJSON_GetArrayItem(lt, l)->valuestring);
        }
        free(json);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_gemma4_layer_types),
        cmocka_unit_test(test_mla_conformance),
    };
    return cmocka_run_group_tests(tests, setup, teardown);
}
