/* models.h - the standard workload and the RoPE models of tests/data/models.json (the
 * project's copy of ../shared/models.json), compiled in, and the one reader of that
 * file.
 *
 * Compiled in because the harness runs where no data file is (an installed bicl-check,
 * a GPU rig); test_harness reads tests/data/models.json with harness_models_read and
 * checks that it gives exactly this table and workload. */
#ifndef BICL_HARNESS_MODELS_H
#define BICL_HARNESS_MODELS_H

#include "bicl/bicl.h"

#include <stddef.h>
#include <stdint.h>

/* The "workload" of models.json. */
typedef struct harness_workload {
    int n_samples;
    int32_t sample_lengths[4];
    int32_t chunk_size;
    int batch_permutation[4];
    int32_t padded_length;
    int32_t packed_tokens;
    int n_decode;
    int32_t decode_past_lengths[4];
    int n_long;
    int32_t long_context_positions[5];
} harness_workload;
extern const harness_workload harness_standard_workload;

/* One model of models.json: its published config values. */
typedef struct harness_model {
    char name[48];
    int head_dim, rotary_dim, n_heads, n_kv_heads;
    bicl_rope_style style;
    double theta;
    bicl_rope_type type;
    double factor, low, high, beta_fast, beta_slow;
    int original_max, max_pos, truncate;
} harness_model;

#define HARNESS_N_MODELS 5
extern const harness_model harness_models[HARNESS_N_MODELS];

/* The bicl_rope_config of a model, in the given angle mode. */
bicl_rope_config harness_model_config(const harness_model *m, bicl_rope_angle_mode mode);

/* Reads a models.json: up to `max` models into `models` (in the file's order) and, when
 * `workload` is not NULL, its workload. Returns the number of models, or -1 with the
 * reason in err: an unreadable file, malformed JSON, a missing or mistyped key, a style
 * or rope_type this struct cannot hold, more than max models. */
int harness_models_read(const char *path, harness_model *models, int max,
                        harness_workload *workload, char *err, size_t err_size);

/* The whole of a text file, NUL-terminated (free it), or NULL. */
char *harness_read_text(const char *path);

#endif
