/* models.h - the RoPE configurations of ../shared/models.json (the project's copy is
 * tests/data/models.json), shared by the tests and the harness. Header-only: each user
 * gets its own copy of the small table. */
#ifndef BICL_TEST_MODELS_H
#define BICL_TEST_MODELS_H

#include "bicl/bicl.h"

typedef struct test_model {
    const char *name;
    int head_dim, rotary_dim, n_heads, n_kv_heads;
    bicl_rope_style style;
    double theta;
    bicl_rope_type type;
    double factor, low, high, beta_fast, beta_slow;
    int original_max, max_pos, truncate;
} test_model;

/* The models' published config values. */
static const test_model test_models[] = {
    {"qwen3_8b", 128, 128, 32, 8, BICL_ROPE_NEOX, 1000000.0, BICL_ROPE_DEFAULT, 0, 0, 0, 0, 0, 0,
     40960, 1},
    {"llama3_1_8b", 128, 128, 32, 8, BICL_ROPE_NEOX, 500000.0, BICL_ROPE_LLAMA3, 8.0, 1.0, 4.0, 0,
     0, 8192, 131072, 1},
    {"gpt_oss_20b", 64, 64, 64, 8, BICL_ROPE_NEOX, 150000.0, BICL_ROPE_YARN, 32.0, 0, 0, 32.0, 1.0,
     4096, 131072, 0},
    {"gptj_6b", 256, 64, 16, 16, BICL_ROPE_GPTJ, 10000.0, BICL_ROPE_DEFAULT, 0, 0, 0, 0, 0, 0, 2048,
     1},
    {"gpt_neox_20b", 96, 24, 64, 64, BICL_ROPE_NEOX, 10000.0, BICL_ROPE_DEFAULT, 0, 0, 0, 0, 0, 0,
     2048, 1},
};
#define N_TEST_MODELS (sizeof test_models / sizeof test_models[0])

/* The bicl_rope_config of a model, in the given angle mode. */
static inline bicl_rope_config test_model_config(const test_model *m, bicl_rope_angle_mode mode)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, m->head_dim, m->rotary_dim);
    c.style = m->style;
    c.theta = m->theta;
    c.type = m->type;
    c.factor = m->factor;
    c.low_freq_factor = m->low;
    c.high_freq_factor = m->high;
    c.beta_fast = m->beta_fast;
    c.beta_slow = m->beta_slow;
    c.original_max_position_embeddings = m->original_max;
    c.max_position_embeddings = m->max_pos;
    c.truncate = m->truncate;
    c.angle_mode = mode;
    return c;
}

#endif
