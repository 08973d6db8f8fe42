/* rope.h - layer 9 (ops): what mrope.c and the tests use of rope.c. */
#ifndef BICL_SRC_ROPE_H
#define BICL_SRC_ROPE_H

#include "bicl/bicl.h"
#include "tensor.h"

#include <stdbool.h>

/* For tests (the vector RoPE kernels run exactly where the views allow them): the
 * vector width, heads per work unit and units per work-item bicl_rope_apply would
 * launch this call with, after the same validation (src/rope.c); vector width 0 is the
 * rows form (BICL_OPTION_ROPE_FORM: one pair per work-item, one head per row). It
 * builds the kernel, as the apply does, since the rows form also needs the kernel's
 * work-group limit to hold a row. */
bicl_status bicl_rope_launch_shape(bicl_context *ctx, const bicl_rope_plan *plan,
                                   bicl_rope_source source, const bicl_tensor *positions,
                                   const bicl_tensor *q_in, const bicl_tensor *q_out,
                                   const bicl_tensor *k_in, const bicl_tensor *k_out,
                                   unsigned *vector_width, unsigned *heads_per_unit,
                                   unsigned *items_per_thread);

/* The hf angle mode's float inv_freq[i] of a valid config (transformers' float32
 * arithmetic, src/rope.c): for tests/test_rope_conformance.c. */
bicl_status bicl_rope_hf_inv_freq_f32(const bicl_rope_config *cfg, int i, float *out);

/* What bicl_mrope_apply needs of a 1-D plan and of one validated call: src/rope.c
 * validates the q/k views against the token dims of one position row exactly as
 * bicl_rope_apply does, and hands out the plan's buffers. */
typedef struct bicl_rope_use {
    size_t B, S, T, hq, hk;
    bool q_in_place, k_in_place;
    bicl_rope_source source; /* AUTO resolved */
    int limit;               /* the largest valid position of that source */
    int half, pass;          /* rotary_dim / 2, head_dim - rotary_dim */
    bool gptj, hf;
    size_t min_items; /* work-items that keep the device busy */
    cl_mem table, inv, inv_f, err;
    double attn;
    float attn_f;
} bicl_rope_use;
/* bicl_rope_apply's checks of (plan, source, positions row, q, k) and the call's
 * shape; positions_row is a rank 1 or 2 view of one position row. */
bicl_status bicl_rope_check_use(bicl_context *ctx, bicl_memo *memo, const bicl_rope_plan *plan,
                                bicl_rope_source source, const bicl_tensor *positions_row,
                                const bicl_tensor *q_in, const bicl_tensor *q_out,
                                const bicl_tensor *k_in, const bicl_tensor *k_out,
                                bicl_rope_use *use);
/* The plan's resolved source and its limit, as bicl_ref_rope_head uses them. */
bicl_status bicl_rope_plan_limit(const bicl_rope_plan *plan, bicl_rope_source *source, int *limit);
/* The plan's pair style and head_dim. */
void bicl_rope_plan_layout(const bicl_rope_plan *plan, bicl_rope_style *style, int *head_dim);

/* ---- bicl_rope_config at this library's size (the rules of abi.h) */
/* bicl_rope_config_init's defaults at this library's size. */
void bicl_rope_config_defaults(bicl_rope_config *cfg, int head_dim, int rotary_dim);
/* *full = the caller's cfg at this library's size (bicl_abi_load; NULL refused). */
bicl_status bicl_rope_config_load(const bicl_rope_config *cfg, bicl_rope_config *full);
/* bicl_rope_config_check of a config c already at this library's size. */
bicl_status bicl_rope_config_check_loaded(const bicl_rope_config *c);
/* Writes *full into the caller's cfg of struct_size bytes (bicl_abi_store), or refuses
 * with BICL_ERR_INVALID_CONFIG when full needs fields past struct_size. */
bicl_status bicl_rope_config_store(const bicl_rope_config *full, bicl_rope_config *cfg,
                                   size_t struct_size);

#endif
