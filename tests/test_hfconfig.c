/* test_hfconfig.c - bicl_rope_config_from_hf_json: the five models of the standard
 * workload from their published config.json files (tests/data/), HF's key variants,
 * and every kind of malformed input. Needs no OpenCL device. */
#include "common.h"

#include <math.h>
#include <stddef.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifndef BICL_TEST_DATA_DIR
#error "BICL_TEST_DATA_DIR must name tests/data"
#endif

/* -------------------------------------------------------------- helpers */

static char *read_data_file(const char *name)
{
    char path[1024];
    snprintf(path, sizeof path, "%s/%s", BICL_TEST_DATA_DIR, name);
    FILE *f = fopen(path, "rb");
    if (!f)
        fail_msg("cannot open %s", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    char *text = malloc((size_t)n + 1);
    assert_non_null(text);
    assert_int_equal(fread(text, 1, (size_t)n, f), (size_t)n);
    text[n] = '\0';
    fclose(f);
    return text;
}

/* Bits, not ==, so that 0 and -0 or a NaN would not pass for each other. */
static void expect_double(const char *model, const char *field, double got, double want)
{
    if (memcmp(&got, &want, sizeof got) != 0)
        fail_msg("%s: %s is %.17g, expected %.17g", model, field, got, want);
}

static void expect_int(const char *model, const char *field, long got, long want)
{
    if (got != want)
        fail_msg("%s: %s is %ld, expected %ld", model, field, got, want);
}

static void expect_array(const char *model, const char *field, const double *got,
                         const double *want, int n)
{
    if (!got || !want) {
        if (got != want)
            fail_msg("%s: %s is %s, expected %s", model, field, got ? "set" : "NULL",
                     want ? "set" : "NULL");
        return;
    }
    for (int i = 0; i < n; ++i)
        if (got[i] != want[i])
            fail_msg("%s: %s[%d] is %.17g, expected %.17g", model, field, i, got[i], want[i]);
}

/* Every field of bicl_rope_config, each named on a mismatch. */
static void expect_config(const char *model, const bicl_rope_config *g, const bicl_rope_config *w)
{
    expect_int(model, "struct_size", (long)g->struct_size, (long)w->struct_size);
    expect_int(model, "head_dim", g->head_dim, w->head_dim);
    expect_int(model, "rotary_dim", g->rotary_dim, w->rotary_dim);
    expect_int(model, "style", g->style, w->style);
    expect_double(model, "theta", g->theta, w->theta);
    expect_int(model, "type", g->type, w->type);
    expect_double(model, "factor", g->factor, w->factor);
    expect_double(model, "low_freq_factor", g->low_freq_factor, w->low_freq_factor);
    expect_double(model, "high_freq_factor", g->high_freq_factor, w->high_freq_factor);
    expect_int(model, "original_max_position_embeddings", g->original_max_position_embeddings,
               w->original_max_position_embeddings);
    expect_int(model, "max_position_embeddings", g->max_position_embeddings,
               w->max_position_embeddings);
    expect_double(model, "beta_fast", g->beta_fast, w->beta_fast);
    expect_double(model, "beta_slow", g->beta_slow, w->beta_slow);
    expect_double(model, "mscale", g->mscale, w->mscale);
    expect_double(model, "mscale_all_dim", g->mscale_all_dim, w->mscale_all_dim);
    expect_double(model, "attention_factor", g->attention_factor, w->attention_factor);
    expect_int(model, "truncate", g->truncate, w->truncate);
    expect_int(model, "seq_len", g->seq_len, w->seq_len);
    expect_array(model, "long_factor", g->long_factor, w->long_factor, w->rotary_dim / 2);
    expect_array(model, "short_factor", g->short_factor, w->short_factor, w->rotary_dim / 2);
    expect_array(model, "freq_factors", g->freq_factors, w->freq_factors, w->rotary_dim / 2);
    expect_int(model, "angle_mode", g->angle_mode, w->angle_mode);
}

static void parse_file_and_expect(const char *file, const bicl_rope_config *want)
{
    char *text = read_data_file(file);
    bicl_rope_config got;
    bicl_status st = bicl_rope_config_from_hf_json(text, &got);
    if (st != BICL_SUCCESS)
        fail_msg("%s: %s: %s", file, bicl_status_string(st), bicl_last_error(NULL));
    expect_config(file, &got, want);
    assert_int_equal(bicl_rope_config_check(&got), BICL_SUCCESS);
    bicl_rope_config_release(&got);
    free(text);
}

static bicl_rope_config parse_ok(const char *json)
{
    bicl_rope_config c;
    bicl_status st = bicl_rope_config_from_hf_json(json, &c);
    if (st != BICL_SUCCESS)
        fail_msg("%s\n  -> %s: %s", json, bicl_status_string(st), bicl_last_error(NULL));
    return c;
}

/* ------------------------------------------- the five models (models.json) */

static void test_qwen3_8b(void **state)
{
    (void)state;
    bicl_rope_config w;
    bicl_rope_config_init(&w, 128, 128);
    w.theta = 1000000.0;
    w.max_position_embeddings = 40960;
    parse_file_and_expect("qwen3_8b.config.json", &w);
}

/* No head_dim key: 4096 / 32. */
static void test_llama3_1_8b(void **state)
{
    (void)state;
    bicl_rope_config w;
    bicl_rope_config_init(&w, 128, 128);
    w.theta = 500000.0;
    w.type = BICL_ROPE_LLAMA3;
    w.factor = 8.0;
    w.low_freq_factor = 1.0;
    w.high_freq_factor = 4.0;
    w.original_max_position_embeddings = 8192;
    w.max_position_embeddings = 131072;
    parse_file_and_expect("llama3_1_8b.config.json", &w);
}

/* head_dim 64 wins over hidden_size / heads (2880 / 64 = 45); truncate false. */
static void test_gpt_oss_20b(void **state)
{
    (void)state;
    bicl_rope_config w;
    bicl_rope_config_init(&w, 64, 64);
    w.theta = 150000.0;
    w.type = BICL_ROPE_YARN;
    w.factor = 32.0;
    w.beta_fast = 32.0;
    w.beta_slow = 1.0;
    w.original_max_position_embeddings = 4096;
    w.max_position_embeddings = 131072;
    w.truncate = 0;
    parse_file_and_expect("gpt_oss_20b.config.json", &w);
}

/* n_embd / n_head, n_positions, rotary_dim, interleaved style. */
static void test_gptj_6b(void **state)
{
    (void)state;
    bicl_rope_config w;
    bicl_rope_config_init(&w, 256, 64);
    w.style = BICL_ROPE_GPTJ;
    w.theta = 10000.0;
    w.max_position_embeddings = 2048;
    parse_file_and_expect("gptj_6b.config.json", &w);
}

/* 6144 / 64 = 96, int(96 * 0.25) = 24, rotary_emb_base. */
static void test_gpt_neox_20b(void **state)
{
    (void)state;
    bicl_rope_config w;
    bicl_rope_config_init(&w, 96, 24);
    w.theta = 10000.0;
    w.max_position_embeddings = 2048;
    parse_file_and_expect("gpt_neox_20b.config.json", &w);
}

/* ----------------------------------------------------------- HF variants */

static void test_key_variants(void **state)
{
    (void)state;
    /* Legacy "type", and a null head_dim falling back to hidden_size / heads. */
    bicl_rope_config c =
        parse_ok("{\"model_type\": \"llama\", \"hidden_size\": 2048, \"num_attention_heads\": 16, "
                 "\"head_dim\": null, \"rope_scaling\": {\"type\": \"linear\", "
                 "\"factor\": 4.0}}");
    assert_int_equal(c.head_dim, 128);
    assert_int_equal(c.type, BICL_ROPE_LINEAR);
    expect_double("linear", "factor", c.factor, 4.0);
    /* rope_type wins over type, as in HF. */
    c = parse_ok("{\"model_type\": \"llama\", \"head_dim\": 64, \"max_position_embeddings\": 4096, "
                 "\"rope_scaling\": "
                 "{\"type\": \"linear\", \"rope_type\": \"dynamic\", \"factor\": 2.0}}");
    assert_int_equal(c.type, BICL_ROPE_DYNAMIC_NTK);
    assert_int_equal(c.max_position_embeddings, 4096);
    assert_int_equal(c.seq_len, 0);
    /* GPT-NeoX's base name, and partial_rotary_factor (Phi-2: 80 * 0.4 = 32). */
    c = parse_ok("{\"model_type\": \"phi\", \"hidden_size\": 2560, \"num_attention_heads\": 32, "
                 "\"rotary_emb_base\": "
                 "20000, \"partial_rotary_factor\": 0.4}");
    expect_double("neox base", "theta", c.theta, 20000.0);
    assert_int_equal(c.rotary_dim, 32);
    /* Falcon-7B: RoPE when alibi is false (4544 / 71 = 64). */
    c = parse_ok("{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_attention_heads\": 71, "
                 "\"alibi\": false, \"position_embedding_type\": \"rotary\"}");
    assert_int_equal(c.head_dim, 64);
    assert_int_equal(c.style, BICL_ROPE_NEOX);
    /* rope_theta wins over rotary_emb_base. */
    c = parse_ok("{\"model_type\": \"gpt_neox\", \"head_dim\": 64, \"rope_theta\": 5e5, "
                 "\"rotary_emb_base\": 10000}");
    expect_double("theta", "theta", c.theta, 500000.0);
    /* Interleaved model types (transformers' apply_rotary_pos_emb rotates (2i, 2i+1)). */
    static const char *const interleaved[] = {"gptj",        "codegen",  "cohere",       "cohere2",
                                              "cohere2_moe", "glm",      "glm4",         "llama4",
                                              "llama4_text", "ernie4_5", "ernie4_5_moe", "helium"};
    for (size_t i = 0; i < sizeof interleaved / sizeof interleaved[0]; ++i) {
        char json[160];
        snprintf(json, sizeof json, "{\"head_dim\": 128, \"model_type\": \"%s\"}", interleaved[i]);
        c = parse_ok(json);
        if (c.style != BICL_ROPE_GPTJ)
            fail_msg("%s: style %d, expected interleaved", interleaved[i], (int)c.style);
    }
    c = parse_ok("{\"head_dim\": 128, \"model_type\": \"mistral\"}");
    assert_int_equal(c.style, BICL_ROPE_NEOX);
    /* yarn without truncate keeps HF's default (on) and leaves the betas unset. */
    c = parse_ok("{\"model_type\": \"qwen2\", \"head_dim\": 128, \"rope_theta\": 10000, "
                 "\"max_position_embeddings\": 32768, "
                 "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 4, \"mscale\": 0.707, "
                 "\"mscale_all_dim\": 1.0, \"attention_factor\": 1.25}}");
    assert_int_equal(c.truncate, 1);
    expect_double("yarn", "beta_fast", c.beta_fast, 0.0);
    expect_double("yarn", "mscale", c.mscale, 0.707);
    expect_double("yarn", "mscale_all_dim", c.mscale_all_dim, 1.0);
    expect_double("yarn", "attention_factor", c.attention_factor, 1.25);
    /* transformers 5 fills the original length from max_position_embeddings */
    assert_int_equal(c.original_max_position_embeddings, 32768);
}

/* Multimodal configs keep the language model in text_config; transformers >= 5 puts
 * rope_theta and the type in rope_parameters. */
#define LONGROPE_HEAD                                                                              \
    "{\"model_type\": \"phi3\", \"head_dim\": 8, \"max_position_embeddings\": 131072, "
#define LONGROPE_HEAD_SU                                                                           \
    LONGROPE_HEAD                                                                                  \
    "\"original_max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": "                    \
    "\"su\", \"original_max_position_embeddings\": 4096, \"long_factor\": [1, 2, 3, 4], "          \
    "\"short_factor\": [1, 1, 1, 1]}}"

static bicl_rope_config parse_layer(const char *json, const char *layer_type)
{
    bicl_rope_hf_options opt;
    bicl_rope_hf_options_init(&opt);
    opt.layer_type = layer_type;
    bicl_rope_config c;
    bicl_status st = bicl_rope_config_from_hf_json_ex(json, &opt, &c);
    if (st != BICL_SUCCESS)
        fail_msg("%s [%s]\n  -> %s: %s", json, layer_type ? layer_type : "NULL",
                 bicl_status_string(st), bicl_last_error(NULL));
    return c;
}

static void expect_refused(const char *json, const bicl_rope_hf_options *opt, const char *detail)
{
    bicl_rope_config c;
    bicl_status st = bicl_rope_config_from_hf_json_ex(json, opt, &c);
    if (st != BICL_ERR_INVALID_CONFIG || !strstr(bicl_last_error(NULL), detail))
        fail_msg("%s\n  -> %s (%s), expected BICL_ERR_INVALID_CONFIG with \"%s\"", json,
                 bicl_status_string(st), bicl_last_error(NULL), detail);
    assert_int_equal(c.head_dim, 0);
}

/* Gemma 3 (published config of gemma-3-27b-it, RoPE keys): the global layers use
 * rope_theta 1e6 and linear scaling 8, the sliding layers (5 of every 6)
 * rope_local_base_freq 10000 and no scaling. Two plans; the plain call refuses. */
#define GEMMA3_27B                                                                                 \
    "{\"model_type\": \"gemma3\", \"vision_config\": {\"hidden_size\": 1152, "                     \
    "\"num_attention_heads\": 16}, \"text_config\": {\"model_type\": \"gemma3_text\", "            \
    "\"head_dim\": 128, \"num_hidden_layers\": 62, \"rope_theta\": 1000000.0, "                    \
    "\"rope_local_base_freq\": 10000.0, \"sliding_window_pattern\": 6, "                           \
    "\"max_position_embeddings\": 131072, \"rope_scaling\": {\"factor\": 8.0, \"rope_type\": "     \
    "\"linear\"}}}"

static void test_nested_configs(void **state)
{
    (void)state;
    bicl_rope_config c = parse_layer(GEMMA3_27B, "full_attention");
    assert_int_equal(c.head_dim, 128);
    expect_double("gemma3 full", "theta", c.theta, 1000000.0);
    assert_int_equal(c.type, BICL_ROPE_LINEAR);
    expect_double("gemma3 full", "factor", c.factor, 8.0);
    c = parse_layer(GEMMA3_27B, "sliding_attention");
    expect_double("gemma3 sliding", "theta", c.theta, 10000.0);
    assert_int_equal(c.type, BICL_ROPE_DEFAULT);
    expect_refused(GEMMA3_27B, NULL, "need 2 different RoPE configs");
    bicl_rope_hf_options opt;
    bicl_rope_hf_options_init(&opt);
    opt.layer_type = "chunked_attention";
    expect_refused(GEMMA3_27B, &opt, "layer type \"chunked_attention\" is not one of");

    char names[64];
    int n_types = 0, n_plans = 0;
    assert_int_equal(
        bicl_rope_config_layer_types(GEMMA3_27B, names, sizeof names, &n_types, &n_plans),
        BICL_SUCCESS);
    assert_string_equal(names, "sliding_attention,full_attention");
    assert_int_equal(n_types, 2);
    assert_int_equal(n_plans, 2);
    char lt[32];
    assert_int_equal(bicl_rope_config_layer_type(GEMMA3_27B, 5, lt, sizeof lt), BICL_SUCCESS);
    assert_string_equal(lt, "full_attention");
    assert_int_equal(bicl_rope_config_layer_type(GEMMA3_27B, 6, lt, sizeof lt), BICL_SUCCESS);
    assert_string_equal(lt, "sliding_attention");
    assert_int_equal(bicl_rope_config_layer_type(GEMMA3_27B, 62, lt, sizeof lt),
                     BICL_ERR_INVALID_PARAMETER);

    /* transformers 5 writes the same as rope_parameters per layer type. */
    const char *v5 = "{\"model_type\": \"gemma3_text\", \"head_dim\": 128, \"layer_types\": "
                     "[\"sliding_attention\", \"full_attention\"], \"rope_parameters\": "
                     "{\"full_attention\": {\"rope_type\": \"linear\", \"factor\": 8.0, "
                     "\"rope_theta\": 1000000.0}, \"sliding_attention\": {\"rope_type\": "
                     "\"default\", \"rope_theta\": 10000.0}}}";
    c = parse_layer(v5, "full_attention");
    assert_int_equal(c.type, BICL_ROPE_LINEAR);
    expect_double("v5 full", "theta", c.theta, 1000000.0);
    c = parse_layer(v5, "sliding_attention");
    assert_int_equal(c.type, BICL_ROPE_DEFAULT);
    expect_double("v5 sliding", "theta", c.theta, 10000.0);

    /* Gemma 2: two layer types, one RoPE: the plain call reads it. */
    const char *g2 = "{\"model_type\": \"gemma2\", \"head_dim\": 256, \"rope_theta\": 10000.0, "
                     "\"layer_types\": [\"sliding_attention\", \"full_attention\"]}";
    assert_int_equal(bicl_rope_config_layer_types(g2, names, sizeof names, &n_types, &n_plans),
                     BICL_SUCCESS);
    assert_int_equal(n_types, 2);
    assert_int_equal(n_plans, 1);
    c = parse_ok(g2);
    expect_double("gemma2", "theta", c.theta, 10000.0);

    c = parse_ok("{\"model_type\": \"phi\", \"head_dim\": 128, \"rope_parameters\": "
                 "{\"rope_theta\": 1000000.0, \"rope_type\": \"default\", "
                 "\"partial_rotary_factor\": 0.5}}");
    expect_double("rope_parameters", "theta", c.theta, 1000000.0);
    assert_int_equal(c.type, BICL_ROPE_DEFAULT);
    assert_int_equal(c.rotary_dim, 64);
}

/* model_type decides the pair style: an unknown or missing one is refused unless the
 * engine passes the style; a partial-rotary key the model type does not read is refused. */
static void test_model_type(void **state)
{
    (void)state;
    const char *unknown = "{\"model_type\": \"my_llama\", \"head_dim\": 64}";
    expect_refused(unknown, NULL, "model_type \"my_llama\" is not a RoPE model type");
    expect_refused("{\"head_dim\": 64}", NULL, "model_type is missing");
    bicl_rope_hf_options opt;
    bicl_rope_hf_options_init(&opt);
    opt.explicit_style = 1;
    opt.style = BICL_ROPE_GPTJ;
    bicl_rope_config c;
    assert_int_equal(bicl_rope_config_from_hf_json_ex(unknown, &opt, &c), BICL_SUCCESS);
    assert_int_equal(c.style, BICL_ROPE_GPTJ);
    assert_int_equal(bicl_rope_config_from_hf_json_ex("{\"head_dim\": 64}", &opt, &c),
                     BICL_SUCCESS);
    /* explicit style overrides the table too */
    opt.style = BICL_ROPE_NEOX;
    assert_int_equal(bicl_rope_config_from_hf_json_ex("{\"model_type\": \"gptj\", \"head_dim\": "
                                                      "64}",
                                                      &opt, &c),
                     BICL_SUCCESS);
    assert_int_equal(c.style, BICL_ROPE_NEOX);
    opt.struct_size = 8;
    assert_int_equal(bicl_rope_config_from_hf_json_ex(unknown, &opt, &c),
                     BICL_ERR_INVALID_PARAMETER);
    expect_refused("{\"model_type\": \"llama\", \"head_dim\": 64, \"partial_rotary_factor\": 0.5}",
                   NULL, "partial_rotary_factor is not read by transformers' llama");
    /* 1.0 rotates the whole head either way */
    c = parse_ok("{\"model_type\": \"llama\", \"head_dim\": 64, \"partial_rotary_factor\": 1.0}");
    assert_int_equal(c.rotary_dim, 64);
    /* Gemma 3's default theta is 1e6 for its global layers */
    c = parse_layer("{\"model_type\": \"gemma3_text\", \"head_dim\": 256}", "full_attention");
    expect_double("gemma3 default", "theta", c.theta, 1000000.0);
}

/* Llama-4-Scout: llama3 with low_freq_factor == high_freq_factor (accepted as
 * transformers does); "su" (Phi-3) and "mrope" (Qwen2-VL, text-only positions). */
static void test_rope_type_variants(void **state)
{
    (void)state;
    bicl_rope_config c = parse_ok(
        "{\"model_type\": \"llama4\", \"text_config\": {\"model_type\": \"llama4_text\", "
        "\"head_dim\": 128, \"rope_theta\": 500000.0, \"max_position_embeddings\": 10485760, "
        "\"rope_scaling\": {\"factor\": 16.0, \"high_freq_factor\": 1.0, \"low_freq_factor\": "
        "1.0, \"original_max_position_embeddings\": 8192, \"rope_type\": \"llama3\"}}}");
    assert_int_equal(c.type, BICL_ROPE_LLAMA3);
    assert_int_equal(c.style, BICL_ROPE_GPTJ);
    expect_double("scout", "high_freq_factor", c.high_freq_factor, 1.0);
    c = parse_ok("{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": "
                 "28, \"rope_theta\": 1000000.0, \"rope_scaling\": {\"type\": \"mrope\", "
                 "\"mrope_section\": [16, 24, 24]}}");
    assert_int_equal(c.type, BICL_ROPE_DEFAULT);
    c = parse_ok(LONGROPE_HEAD_SU);
    assert_int_equal(c.type, BICL_ROPE_LONGROPE);
    bicl_rope_config_release(&c);
    /* transformers 5: a top-level original length is dropped by Llama's config class
     * (only classes with that attribute, Phi-3's, read it): rope_scaling's counts. */
    c = parse_ok("{\"model_type\": \"llama\", \"head_dim\": 64, \"max_position_embeddings\": "
                 "131072, \"original_max_position_embeddings\": 4096, \"rope_scaling\": "
                 "{\"rope_type\": \"llama3\", \"factor\": 8, \"low_freq_factor\": 1, "
                 "\"high_freq_factor\": 4, \"original_max_position_embeddings\": 8192}}");
    assert_int_equal(c.original_max_position_embeddings, 8192);
    /* ... and without it, max_position_embeddings is the original length. */
    c = parse_ok("{\"model_type\": \"llama\", \"head_dim\": 64, \"max_position_embeddings\": "
                 "8192, \"rope_scaling\": {\"rope_type\": \"llama3\", \"factor\": 8, "
                 "\"low_freq_factor\": 1, \"high_freq_factor\": 4}}");
    assert_int_equal(c.original_max_position_embeddings, 8192);
}

/* ---------------------------------------------------------------- longrope */

/* Phi-3: original_max_position_embeddings at the top level makes HF derive factor as
 * max / original (bicl: factor 0); the arrays are copied and released. */
static void test_longrope(void **state)
{
    (void)state;
    bicl_rope_config c = parse_ok(
        LONGROPE_HEAD "\"original_max_position_embeddings\": 4096, \"rope_scaling\": {\"type\": "
                      "\"longrope\", \"long_factor\": [1.0, 1.5, 2.25, 40], \"short_factor\": "
                      "[1, 1.0625, 1.125, 1.25]}}");
    const double lf[] = {1.0, 1.5, 2.25, 40.0}, sf[] = {1.0, 1.0625, 1.125, 1.25};
    assert_int_equal(c.type, BICL_ROPE_LONGROPE);
    expect_array("phi3", "long_factor", c.long_factor, lf, 4);
    expect_array("phi3", "short_factor", c.short_factor, sf, 4);
    expect_double("phi3", "factor", c.factor, 0.0);
    assert_int_equal(c.original_max_position_embeddings, 4096);
    bicl_rope_config_release(&c);
    assert_null(c.long_factor);
    assert_null(c.short_factor);
    bicl_rope_config_release(&c); /* twice is harmless */

    /* Without it, the original length is max_position_embeddings and factor is as given. */
    c = parse_ok(LONGROPE_HEAD "\"rope_scaling\": {\"rope_type\": \"longrope\", \"factor\": 2.0, "
                               "\"attention_factor\": 1.1, \"long_factor\": [1, 1, 1, 1], "
                               "\"short_factor\": [1, 1, 1, 1]}}");
    assert_int_equal(c.original_max_position_embeddings, 131072);
    expect_double("longrope", "factor", c.factor, 2.0);
    expect_double("longrope", "attention_factor", c.attention_factor, 1.1);
    bicl_rope_config_release(&c);
}

/* release frees only what the parser allocated: an engine's own arrays survive (freeing
 * a stack array here would abort the test), also while parsed arrays are alive. */
static void test_release_leaves_engine_arrays(void **state)
{
    (void)state;
    bicl_rope_config parsed =
        parse_ok(LONGROPE_HEAD "\"rope_scaling\": {\"rope_type\": \"longrope\", \"factor\": 2, "
                               "\"long_factor\": [1, 2, 3, 4], \"short_factor\": [4, 3, 2, 1]}}");
    double mine[2] = {1.0, 2.0};
    bicl_rope_config c;
    bicl_rope_config_init(&c, 4, 4);
    c.long_factor = mine;
    c.short_factor = mine;
    bicl_rope_config_release(&c);
    assert_null(c.long_factor);
    assert_null(c.short_factor);
    expect_double("engine", "mine[1]", mine[1], 2.0);
    /* The parsed arrays are intact and still released normally. */
    const double lf[] = {1, 2, 3, 4};
    expect_array("parsed", "long_factor", parsed.long_factor, lf, 4);
    bicl_rope_config_release(&parsed);
    bicl_rope_config_release(NULL);
}

/* ---------------------------------------------------------- malformed input */

typedef struct bad_case {
    const char *json;
    const char *detail; /* must appear in bicl_last_error() */
} bad_case;

static const bad_case bad_cases[] = {
    {"{\"head_dim\": 128,", "not valid JSON (line 1"},
    {"{\"head_dim\": 128}\n}", "not valid JSON (line 2"},
    {"[128]", "top level must be an object"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"type\": \"mrope\", "
     "\"mrope_section\": [16, 24]}}",
     "rope_scaling.type \"mrope\" is not supported"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": \"su\"}}",
     "rope_scaling.rope_type \"su\""},
    {LONGROPE_HEAD "\"rope_scaling\": {\"type\": \"su\", \"long_factor\": [1, 1, 1, 1], "
                   "\"short_factor\": [1, 1, 1, 1]}}",
     "rope_scaling.original_max_position_embeddings is required with this rope_type"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": 3}}",
     "rope_scaling.rope_type must be a string"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"factor\": 2.0}}",
     "rope_scaling.rope_type is missing"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": \"linear\"}",
     "rope_scaling must be an object"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_theta\": \"1e6\"}",
     "rope_theta must be a number"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_theta\": 1e999}",
     "rope_theta must be finite"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_theta\": -10000}",
     "rope_theta must be > 0"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_theta\": true}",
     "rope_theta must be a number"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": \"linear\", "
     "\"factor\": 0}}",
     "rope_scaling.factor must be > 0"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": "
     "\"linear\"}}",
     "rope_scaling.factor is required"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": \"llama3\", "
     "\"factor\": 8, "
     "\"low_freq_factor\": 1, \"original_max_position_embeddings\": 8192}}",
     "rope_scaling.high_freq_factor is required"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": \"llama3\", "
     "\"factor\": 8, "
     "\"low_freq_factor\": 4, \"high_freq_factor\": 1, \"original_max_position_embeddings\": "
     "8192}}",
     "high_freq_factor must be >= low_freq_factor"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_scaling\": {\"rope_type\": \"llama3\", "
     "\"factor\": 8, "
     "\"low_freq_factor\": 1, \"high_freq_factor\": 4}}",
     "rope_scaling.original_max_position_embeddings is required"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 0.5}}",
     "rope_scaling.factor must be >= 1 for yarn"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 32, "
     "\"truncate\": \"false\"}}",
     "rope_scaling.truncate must be true or false"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 32, "
     "\"beta_fast\": -1}}",
     "rope_scaling.beta_fast must be >= 0"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 32, "
     "\"attention_factor\": 0}}",
     "rope_scaling.attention_factor must be > 0"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 32, "
     "\"original_max_position_embeddings\": 4096.5}}",
     "rope_scaling.original_max_position_embeddings must be a whole number"},
    /* yarn needs a length: neither original_max_position_embeddings nor the max. */
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"yarn\", "
     "\"factor\": 32}}",
     "original_max_position_embeddings / max_position_embeddings"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_theta\": 1.0, "
     "\"max_position_embeddings\": 4096, "
     "\"rope_scaling\": {\"rope_type\": \"yarn\", \"factor\": 32}}",
     "theta"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_scaling\": {\"rope_type\": \"dynamic\", "
     "\"factor\": 2}}",
     "max_position_embeddings is required by dynamic"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"max_position_embeddings\": -1}",
     "max_position_embeddings must be a whole number"},
    {"{\"model_type\": \"llama\", \"head_dim\": 128, \"max_position_embeddings\": 3e9}",
     "max_position_embeddings must be a whole number"},
    {"{\"model_type\": \"llama\", \"rope_theta\": 10000}", "head_dim is absent"},
    {"{\"model_type\": \"llama\", \"hidden_size\": 4096}", "head_dim is absent"},
    {"{\"model_type\": \"llama\", \"hidden_size\": 4097, \"num_attention_heads\": 32}",
     "hidden_size is not a multiple of num_attention_heads"},
    {"{\"model_type\": \"llama\", \"head_dim\": \"128\"}", "head_dim must be a number"},
    {"{\"model_type\": \"gpt_neox\", \"head_dim\": 96, \"rotary_pct\": 1.5}",
     "rotary_pct must be in (0, 1]"},
    {"{\"model_type\": \"phi\", \"head_dim\": 96, \"partial_rotary_factor\": 0}",
     "partial_rotary_factor must be > 0"},
    {"{\"model_type\": \"phi\", \"head_dim\": 96, \"partial_rotary_factor\": 0.01}",
     "partial_rotary_factor gives rotary_dim 0"},
    {"{\"model_type\": \"gptj\", \"n_embd\": 4096, \"n_head\": 16, \"rotary_dim\": 63}",
     "rotary_dim gives rotary_dim 63"},
    {"{\"model_type\": \"gptj\", \"n_embd\": 4096, \"n_head\": 16, \"rotary_dim\": 512}",
     "rotary_dim gives rotary_dim 512"},
    {"{\"head_dim\": 128, \"model_type\": 7}", "model_type must be a string"},
    /* Not RoPE, or RoPE on a layout the config cannot express. */
    {"{\"model_type\": \"falcon\", \"hidden_size\": 4544, \"num_attention_heads\": 71, "
     "\"alibi\": true}",
     "alibi is true"},
    {"{\"hidden_size\": 768, \"num_attention_heads\": 12, \"position_embedding_type\": "
     "\"absolute\"}",
     "position_embedding_type is not rotary"},
    /* Multi-head latent attention: its keys are required, known model types only. */
    {"{\"model_type\": \"deepseek_v3\", \"hidden_size\": 7168, \"num_attention_heads\": 128, "
     "\"qk_rope_head_dim\": 64, \"rope_scaling\": {\"type\": \"yarn\", \"factor\": 40}}",
     "qk_nope_head_dim is required by multi-head latent attention"},
    {"{\"model_type\": \"deepseek_v3\", \"qk_nope_head_dim\": 128, \"num_attention_heads\": 128}",
     "qk_rope_head_dim is required by multi-head latent attention"},
    {"{\"model_type\": \"deepseek_v3\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 63}",
     "qk_rope_head_dim must be even"},
    {"{\"model_type\": \"deepseek_v3\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
     "\"rope_interleave\": 1}",
     "rope_interleave must be true or false"},
    {"{\"model_type\": \"glm4_moe_lite\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
     "\"head_dim\": 64}",
     "qk_rope_head_dim: multi-head latent attention of model type \"glm4_moe_lite\" is not one"},
    {"{\"model_type\": \"deepseek_v2\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
     "\"rope_interleave\": true}",
     "rope_interleave is not read by transformers' deepseek_v2"},
    {"{\"model_type\": \"kimi_k2\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64}",
     "model_type \"kimi_k2\" is not a RoPE model type"},
    {"{\"model_type\": \"llama\", \"head_dim\": 64, \"rope_interleave\": true}",
     "rope_interleave is not read by transformers' llama"},
    /* proportional (Gemma 4) */
    {"{\"model_type\": \"gemma4_text\", \"head_dim\": 256, \"rope_parameters\": {\"rope_type\": "
     "\"proportional\", \"partial_rotary_factor\": 1.5, \"rope_theta\": 1e6}}",
     "partial_rotary_factor must be in (0, 1]"},
    {"{\"model_type\": \"gemma4_text\", \"head_dim\": 256, \"per_layer_config\": {}}",
     "per_layer_config is not supported"},
    {"{\"model_type\": \"gemma4_text\", \"head_dim\": 256, \"rope_parameters\": {\"rope_type\": "
     "\"proportional\", \"factor\": -1}}",
     "factor must be > 0"},
    {"{\"model_type\": \"llama\", \"text_config\": [1]}", "text_config must be an object"},
    {"{\"model_type\": \"llama\", \"text_config\": {\"head_dim\": 64, \"rope_theta\": \"x\"}}",
     "text_config.rope_theta must be a number"},
    {LONGROPE_HEAD
     "\"rope_scaling\": {\"rope_type\": \"longrope\", \"long_factor\": [1, 1, 1, 1]}}",
     "rope_scaling.short_factor is required"},
    {LONGROPE_HEAD "\"rope_scaling\": {\"rope_type\": \"longrope\", \"long_factor\": [1, 1, 1], "
                   "\"short_factor\": [1, 1, 1, 1]}}",
     "rope_scaling.long_factor has 3 entries (rotary_dim / 2 = 4)"},
    {LONGROPE_HEAD "\"rope_scaling\": {\"rope_type\": \"longrope\", \"long_factor\": [1, 1, 1, 1], "
                   "\"short_factor\": [1, -1, 1, 1]}}",
     "rope_scaling.short_factor[1] must be a finite number > 0"},
    {LONGROPE_HEAD "\"rope_scaling\": {\"rope_type\": \"longrope\", \"long_factor\": {\"a\": 1}, "
                   "\"short_factor\": [1, 1, 1, 1]}}",
     "rope_scaling.long_factor must be an array"},
};

/* Each bad input: BICL_ERR_INVALID_CONFIG, the detail names the key, and *cfg holds no
 * allocation (a half-parsed longrope must not leak or leave dangling arrays). */
static void test_malformed(void **state)
{
    (void)state;
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; ++i) {
        bicl_rope_config c;
        bicl_status st = bicl_rope_config_from_hf_json(bad_cases[i].json, &c);
        const char *err = bicl_last_error(NULL);
        if (st != BICL_ERR_INVALID_CONFIG)
            fail_msg("case %zu %s\n  -> %s (%s), expected BICL_ERR_INVALID_CONFIG", i,
                     bad_cases[i].json, bicl_status_string(st), err);
        if (!strstr(err, bad_cases[i].detail))
            fail_msg("case %zu %s\n  -> detail \"%s\" lacks \"%s\"", i, bad_cases[i].json, err,
                     bad_cases[i].detail);
        assert_null(c.long_factor);
        assert_null(c.short_factor);
        assert_int_equal(c.head_dim, 0);
    }
}

static void test_null_arguments(void **state)
{
    (void)state;
    bicl_rope_config c;
    assert_int_equal(bicl_rope_config_from_hf_json(NULL, &c), BICL_ERR_NULL_POINTER);
    assert_int_equal(bicl_rope_config_from_hf_json_sized("{}", NULL, NULL, sizeof c),
                     BICL_ERR_NULL_POINTER);
}

/* ------------------------------------------------- structs that grow (abi) */

/* A caller's struct of `size` bytes followed by guard bytes that no call may touch. */
typedef struct sized_buf {
    unsigned char *p;
    size_t size;
} sized_buf;

enum { GUARD = 64 };

static sized_buf sized_alloc(size_t size)
{
    sized_buf b = {malloc(size + GUARD), size};
    assert_non_null(b.p);
    memset(b.p, 0xa5, size + GUARD);
    return b;
}

static void assert_guard_intact(sized_buf b)
{
    for (size_t i = 0; i < GUARD; ++i)
        assert_int_equal(b.p[b.size + i], 0xa5);
}

static size_t struct_size_of(sized_buf b)
{
    size_t n;
    memcpy(&n, b.p, sizeof n);
    return n;
}

static const char llama_json[] =
    "{\"model_type\": \"llama\", \"head_dim\": 128, \"rope_theta\": 500000.0}";
static const char deepseek_json[] =
    "{\"model_type\": \"deepseek_v3\", \"qk_nope_head_dim\": 128, \"qk_rope_head_dim\": 64, "
    "\"num_attention_heads\": 128}";

/* An engine built against bicl 0.1's header (the config up to angle_mode, no MLA or
 * proportional fields): init, parse and check never write past its struct; a config
 * that needs the newer fields is refused, not cut short. */
static void test_abi_older_caller(void **state)
{
    (void)state;
    size_t old = offsetof(bicl_rope_config, rotary_offset);
    sized_buf b = sized_alloc(old);
    bicl_rope_config *c = (bicl_rope_config *)b.p;
    bicl_rope_config_init_sized(c, old, 128, 64);
    assert_guard_intact(b);
    assert_int_equal(struct_size_of(b), old);
    assert_int_equal(c->rotary_dim, 64);
    assert_int_equal(bicl_rope_config_check(c), BICL_SUCCESS);
    assert_int_equal(bicl_rope_config_from_hf_json_sized(llama_json, NULL, c, old), BICL_SUCCESS);
    assert_guard_intact(b);
    assert_true(c->theta == 500000.0);
    assert_int_equal(bicl_rope_config_check(c), BICL_SUCCESS);
    assert_int_equal(bicl_rope_config_from_hf_json_sized(deepseek_json, NULL, c, old),
                     BICL_ERR_INVALID_CONFIG);
    assert_non_null(strstr(bicl_last_error(NULL), "past the caller's"));
    assert_guard_intact(b);
    assert_int_equal(struct_size_of(b), old);
    /* below the first layout: not set by an init */
    assert_int_equal(bicl_rope_config_from_hf_json_sized(llama_json, NULL, c, 8),
                     BICL_ERR_INVALID_CONFIG);
    c->struct_size = 8;
    assert_int_equal(bicl_rope_config_check(c), BICL_ERR_INVALID_CONFIG);
    assert_non_null(strstr(bicl_last_error(NULL), "struct_size 8"));
    free(b.p);
}

/* An engine built against a newer header: the fields this library does not know are
 * zeroed by init and must stay zero. */
static void test_abi_newer_caller(void **state)
{
    (void)state;
    size_t big = sizeof(bicl_rope_config) + 16;
    sized_buf b = sized_alloc(big);
    bicl_rope_config *c = (bicl_rope_config *)b.p;
    bicl_rope_config_init_sized(c, big, 128, 128);
    assert_guard_intact(b);
    assert_int_equal(struct_size_of(b), big);
    for (size_t i = sizeof(bicl_rope_config); i < big; ++i)
        assert_int_equal(b.p[i], 0);
    assert_int_equal(bicl_rope_config_check(c), BICL_SUCCESS);
    assert_int_equal(bicl_rope_config_from_hf_json_sized(deepseek_json, NULL, c, big),
                     BICL_SUCCESS);
    assert_guard_intact(b);
    assert_int_equal(c->rotary_offset, 128);
    b.p[big - 1] = 1; /* a field this library does not know, set */
    assert_int_equal(bicl_rope_config_check(c), BICL_ERR_INVALID_CONFIG);
    assert_non_null(strstr(bicl_last_error(NULL), "does not know"));
    free(b.p);

    sized_buf o = sized_alloc(sizeof(bicl_rope_hf_options) + 8);
    bicl_rope_hf_options_init_sized((bicl_rope_hf_options *)o.p, o.size);
    assert_guard_intact(o);
    assert_int_equal(struct_size_of(o), o.size);
    bicl_rope_config cfg;
    assert_int_equal(
        bicl_rope_config_from_hf_json_ex(llama_json, (bicl_rope_hf_options *)o.p, &cfg),
        BICL_SUCCESS);
    free(o.p);
}

/* M-RoPE's config and the options follow the same rules. */
static void test_abi_mrope(void **state)
{
    (void)state;
    static const char qwen2_vl[] =
        "{\"model_type\": \"qwen2_vl\", \"hidden_size\": 3584, \"num_attention_heads\": 28, "
        "\"rope_theta\": 1000000.0, \"rope_scaling\": {\"type\": \"mrope\", "
        "\"mrope_section\": [16, 24, 24]}}";
    size_t old = offsetof(bicl_rope_config, rotary_offset);
    sized_buf b = sized_alloc(old), m = sized_alloc(sizeof(bicl_mrope_config));
    assert_int_equal(bicl_mrope_config_from_hf_json_sized(qwen2_vl, NULL, (bicl_rope_config *)b.p,
                                                          old, (bicl_mrope_config *)m.p, m.size,
                                                          NULL),
                     BICL_SUCCESS);
    assert_guard_intact(b);
    assert_guard_intact(m);
    assert_int_equal(((bicl_mrope_config *)m.p)->section[2], 24);
    assert_int_equal(bicl_mrope_config_check((bicl_rope_config *)b.p, (bicl_mrope_config *)m.p),
                     BICL_SUCCESS);
    /* an M-RoPE config shorter than any layout is refused, and nothing past it written */
    sized_buf s = sized_alloc(sizeof(size_t) + 4);
    assert_int_equal(bicl_mrope_config_from_hf_json_sized(qwen2_vl, NULL, (bicl_rope_config *)b.p,
                                                          old, (bicl_mrope_config *)s.p, s.size,
                                                          NULL),
                     BICL_ERR_INVALID_CONFIG);
    assert_guard_intact(s);
    assert_guard_intact(b);
    bicl_mrope_config_init_sized((bicl_mrope_config *)s.p, s.size);
    assert_guard_intact(s);
    assert_int_equal(bicl_mrope_config_check((bicl_rope_config *)b.p, (bicl_mrope_config *)s.p),
                     BICL_ERR_INVALID_CONFIG);
    free(b.p);
    free(m.p);
    free(s.p);
}

/* ------------------------------------------------------------ threads */

/* Parses from several threads at once: every thread gets its own result and its own
 * last-error detail, and the list of parser-owned arrays stays consistent. */
static void *parse_many(void *arg)
{
    long id = (long)(intptr_t)arg;
    for (int i = 0; i < 300; ++i) {
        bicl_rope_config c;
        if ((i + id) % 2) {
            bicl_status st = bicl_rope_config_from_hf_json(
                LONGROPE_HEAD "\"rope_scaling\": {\"rope_type\": \"longrope\", \"factor\": 2, "
                              "\"long_factor\": [1, 2, 3, 4], \"short_factor\": [4, 3, 2, 1]}}",
                &c);
            if (st != BICL_SUCCESS || c.long_factor[3] != 4.0 || c.short_factor[0] != 4.0)
                return (void *)1;
            bicl_rope_config_release(&c);
        } else {
            bicl_status st = bicl_rope_config_from_hf_json("{\"head_dim\": ", &c);
            if (st != BICL_ERR_INVALID_CONFIG || !strstr(bicl_last_error(NULL), "not valid JSON"))
                return (void *)1;
        }
    }
    return NULL;
}

static void test_threads(void **state)
{
    (void)state;
    pthread_t t[4];
    for (long i = 0; i < 4; ++i)
        assert_int_equal(pthread_create(&t[i], NULL, parse_many, (void *)(intptr_t)i), 0);
    for (int i = 0; i < 4; ++i) {
        void *r = NULL;
        pthread_join(t[i], &r);
        assert_null(r);
    }
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_qwen3_8b),
        cmocka_unit_test(test_llama3_1_8b),
        cmocka_unit_test(test_gpt_oss_20b),
        cmocka_unit_test(test_gptj_6b),
        cmocka_unit_test(test_gpt_neox_20b),
        cmocka_unit_test(test_key_variants),
        cmocka_unit_test(test_nested_configs),
        cmocka_unit_test(test_model_type),
        cmocka_unit_test(test_rope_type_variants),
        cmocka_unit_test(test_longrope),
        cmocka_unit_test(test_release_leaves_engine_arrays),
        cmocka_unit_test(test_malformed),
        cmocka_unit_test(test_null_arguments),
        cmocka_unit_test(test_abi_older_caller),
        cmocka_unit_test(test_abi_newer_caller),
        cmocka_unit_test(test_abi_mrope),
        cmocka_unit_test(test_threads),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
