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
 * work-group limit to hold a row. qk_views: the q and k views the kernel takes, 4, or 2
 * for a specialised in-place kernel (cl/rope.cl's ROPE_PARAMS_SPEC_IP). Any output may
 * be NULL. */
bicl_status bicl_rope_launch_shape(bicl_context *ctx, const bicl_rope_plan *plan,
                                   bicl_rope_source source, const bicl_tensor *positions,
                                   const bicl_tensor *q_in, const bicl_tensor *q_out,
                                   const bicl_tensor *k_in, const bicl_tensor *k_out,
                                   unsigned *vector_width, unsigned *heads_per_unit,
                                   unsigned *items_per_thread, unsigned *qk_views);

/* The hf angle mode's float inv_freq[i] of a valid config (transformers' float32
 * arithmetic, src/rope.c): for tests/test_rope_conformance.c. */
bicl_status bicl_rope_hf_inv_freq_f32(const bicl_rope_config *cfg, int i, float *out);
/* The same for a config that bicl_rope_config_check accepted and an i in [0,
 * rotary_dim / 2), without checking it again (tests/fuzz: with a check per index the
 * fuzzer ran 21,837 inputs in 31 s, without it 356,118 in 61 s). */
float bicl_rope_hf_inv_freq_f32_unchecked(const bicl_rope_config *cfg, int i);
/* Under the same conditions, the exact mode's double inv_freq[i] and the attention scaling
 * as a plan computes them (tests/fuzz: one formula, the plan's). */
double bicl_rope_inv_freq_unchecked(const bicl_rope_config *cfg, int i);
double bicl_rope_attention_unchecked(const bicl_rope_config *cfg);

/* M-RoPE through RoPE's kernels (src/mrope.c): a token's positions are three rows of a
 * positions view, row_stride elements apart, and pair i rotates at the position of row
 * bicl_mrope_row(i, section..., mode == ROPE_M_INTERLEAVED) (cl/bicl_mrope.h). */
typedef struct bicl_rope_mrope {
    cl_uint mode; /* ROPE_M_CHUNKED or ROPE_M_INTERLEAVED (cl/bicl_rope_flags.h) */
    cl_uint section[3];
    cl_ulong row_stride;
} bicl_rope_mrope;
/* bicl_rope_apply after its queue check, with M-RoPE's positions: positions_row is row 0
 * (the token dims, checked as bicl_rope_apply checks its positions); the caller has checked
 * the other rows, the queue and the events, with memo. m NULL: 1-D RoPE (bicl_rope_apply
 * itself). */
bicl_status bicl_rope_apply_mrope(bicl_context *ctx, cl_command_queue queue, bicl_memo *memo,
                                  const bicl_rope_plan *plan, const bicl_rope_mrope *m,
                                  bicl_rope_source source, int inverse,
                                  const bicl_tensor *positions_row, const bicl_tensor *q_in,
                                  const bicl_tensor *q_out, const bicl_tensor *k_in,
                                  const bicl_tensor *k_out, cl_uint n_wait, const cl_event *wait,
                                  cl_event *done);
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
