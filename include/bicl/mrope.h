/* bicl/mrope.h - multimodal RoPE (M-RoPE) of the vision-language models: Qwen2-VL,
 * Qwen2.5-VL, Qwen3-VL, GLM-4V. Included by bicl/bicl.h; do not include on its own.
 *
 * A token has three position ids (temporal, height, width). The rotary pairs are split
 * into three sections; pair i is rotated by the angle of its section's row with the
 * plan's inv_freq[i], exactly as 1-D RoPE would rotate it at that row's position. So a
 * text token (three equal rows) gets the bits of bicl_rope_apply at that position
 * (tested). Which pair takes which row is what transformers 5's rotary classes compute
 * (docs/rope.md, "M-RoPE"): chunked (Qwen2-VL, Qwen2.5-VL, GLM-4V: pairs [0, s0) row 0,
 * [s0, s0 + s1) row 1, the rest row 2) or interleaved (Qwen3-VL: pair i with i % 3 == 1
 * and i < 3 s1 row 1, i % 3 == 2 and i < 3 s2 row 2, every other pair row 0). */
#ifndef BICL_MROPE_H
#define BICL_MROPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* How mrope_section maps pairs to position rows. */
typedef enum bicl_mrope_layout {
    BICL_MROPE_CHUNKED = 0,    /* contiguous sections: Qwen2-VL, Qwen2.5-VL, GLM-4V */
    BICL_MROPE_INTERLEAVED = 1 /* t, h, w, t, h, w, ...: Qwen3-VL (mrope_interleaved) */
} bicl_mrope_layout;

/* The M-RoPE part of a model's RoPE; the frequencies, style and widths stay in
 * bicl_rope_config. Start from bicl_mrope_config_init(). */
typedef struct bicl_mrope_config {
    size_t struct_size;       /* sizeof(bicl_mrope_config), set by init */
    int section[3];           /* mrope_section: pairs of rows t, h, w; sum = rotary_dim / 2 */
    bicl_mrope_layout layout; /* chunked or interleaved */
} bicl_mrope_config;

/* Fills *m: chunked, sections {0, 0, 0} (to be set). */
#define bicl_mrope_config_init(m) bicl_mrope_config_init_sized((m), sizeof *(m))
BICL_API void bicl_mrope_config_init_sized(bicl_mrope_config *m, size_t struct_size);

/* BICL_SUCCESS, or BICL_ERR_INVALID_CONFIG naming the field: bicl_rope_config_check's
 * refusals of cfg; struct_size; an unknown layout; a negative section; sections whose
 * sum is not rotary_dim / 2 ("mrope_section [16, 24, 20] sums to 60, rotary_dim / 2 is
 * 64"); for the interleaved layout, a section whose pairs would not fit the head (3 s1 - 2
 * or 3 s2 - 1 beyond the last pair: transformers would silently rotate fewer). */
BICL_API bicl_status bicl_mrope_config_check(const bicl_rope_config *cfg,
                                             const bicl_mrope_config *m);

/* The row (0 temporal, 1 height, 2 width) whose position rotates pair i (0 <= i <
 * rotary_dim / 2) of a valid config; -1 for a pair index out of range. */
BICL_API int bicl_mrope_pair_row(const bicl_mrope_config *m, int pair);

/* What get_rope_index needs from config.json besides the token layout. */
typedef struct bicl_mrope_vision {
    int spatial_merge_size; /* vision_config.spatial_merge_size (HF's default 2) */
    /* vision_config.tokens_per_second (Qwen2.5-VL), else 0: the video temporal ids are
     * then spaced by 1; with it, by tokens_per_second * second_per_grid_ts[video] */
    int tokens_per_second;
    /* 1 for Qwen3-VL and GLM-4V: a video of t frames is t grids of one frame, each its
     * own run of video tokens (separated by timestamp text); 0 for Qwen2(.5)-VL */
    int split_video_frames;
} bicl_mrope_vision;

/* Reads a VL model's config.json (text_config for the language model, vision_config
 * for get_rope_index's keys), transformers 5 and older layouts alike:
 *   cfg     as bicl_rope_config_from_hf_json_ex reads it (head_dim, partial rotary,
 *           theta, rope_type "mrope" or "default"); GLM-4V's pair style (GPT-J) and
 *           partial_rotary_factor come from its model type
 *   m       mrope_section of rope_scaling / rope_parameters (else the model type's
 *           default, as transformers: qwen2(_5)_vl [16, 24, 24], qwen3_vl [24, 20, 20],
 *           glm4v [8, 12, 12]); the layout from the model type (interleaved for
 *           qwen3_vl*: a config's mrope_interleaved that contradicts it is refused)
 *   vision  may be NULL.
 * Model types: qwen2_vl, qwen2_5_vl, qwen3_vl, qwen3_vl_moe, glm4v, glm4v_moe and their
 * _text configs. Refused with BICL_ERR_INVALID_CONFIG naming the key: another model
 * type, a section that is not three whole numbers >= 0 or does not fit (see
 * bicl_mrope_config_check), a scaling rope_type (transformers' M-RoPE classes apply
 * mrope on top of "default" only in these configs), and what
 * bicl_rope_config_from_hf_json_ex refuses. opt as there (layer_type; explicit_style is
 * refused: the model type decides the layout). */
#define bicl_mrope_config_from_hf_json(json_text, opt, cfg, m, vision)                             \
    bicl_mrope_config_from_hf_json_sized((json_text), (opt), (cfg), sizeof *(cfg), (m),            \
                                         sizeof *(m), (vision))
BICL_API bicl_status bicl_mrope_config_from_hf_json_sized(
    const char *json_text, const bicl_rope_hf_options *opt, bicl_rope_config *cfg,
    size_t cfg_struct_size, bicl_mrope_config *m, size_t m_struct_size, bicl_mrope_vision *vision);

/* A RoPE plan with its M-RoPE sections. Opaque, read-only after creation. */
typedef struct bicl_mrope_plan bicl_mrope_plan;

/* As bicl_rope_plan_create, plus the sections (bicl_mrope_config_check first). */
BICL_API bicl_status bicl_mrope_plan_create(bicl_context *ctx, const bicl_rope_config *cfg,
                                            const bicl_mrope_config *m, int table_positions,
                                            int max_position, bicl_mrope_plan **out);
BICL_API void bicl_mrope_plan_free(bicl_mrope_plan *plan);
/* The plan's 1-D RoPE plan (owned by the M-RoPE plan): for bicl_rope_errors (M-RoPE
 * applies count their out-of-range tokens there), bicl_rope_plan_inv_freq, and
 * bicl_rope_apply of text-only batches. */
BICL_API bicl_rope_plan *bicl_mrope_plan_rope(const bicl_mrope_plan *plan);

/* Rotates q (and k) as bicl_rope_apply does, pair i by its row's position:
 *   positions: i32, rank 2 [3, T] or rank 3 [3, B, S] (rows t, h, w). Any strides: a
 *              row stride of 0 broadcasts one row of 1-D ids (text-only tokens, decode
 *              continuation: HF's position_ids.expand(3, ...)).
 *   q, k: as bicl_rope_apply with the token dims of positions without the row dim.
 * A token with any of its three positions outside the source's range gets NaN rotary
 * elements and is counted once in the plan's error counter (the smallest bad value of
 * its rows recorded), as in 1-D RoPE. Refused on the host (nothing written): positions
 * whose first dim is not 3 (BICL_ERR_SHAPE_MISMATCH naming positions), and everything
 * bicl_rope_apply refuses. */
BICL_API bicl_status bicl_mrope_apply(bicl_context *ctx, cl_command_queue queue,
                                      const bicl_mrope_plan *plan, bicl_rope_source source,
                                      int inverse, const bicl_tensor *positions,
                                      const bicl_tensor *q_in, const bicl_tensor *q_out,
                                      const bicl_tensor *k_in, const bicl_tensor *k_out,
                                      cl_uint n_wait, const cl_event *wait, cl_event *done);

/* Host reference of one head at positions pos[3] (t, h, w): the bits bicl_mrope_apply
 * writes (NaN and BICL_ERR_POSITION_OUT_OF_RANGE for a position out of range). */
BICL_API bicl_status bicl_ref_mrope_head(const bicl_mrope_plan *plan, bicl_rope_source source,
                                         int inverse, const int32_t pos[3], bicl_dtype in_dtype,
                                         const void *x, bicl_dtype out_dtype, void *out);

/* ------------------------------------------------------- 3-row position ids */

/* get_rope_index of transformers 5 (qwen2_vl, qwen2_5_vl, qwen3_vl, glm4v), on the
 * device, one sequence per work unit:
 *   types      i32 or u8, [B, S] (padded), or [T] (packed) with cu_seqlens: HF's
 *              mm_token_type_ids, 0 text, 1 image, 2 video. A run of equal nonzero
 *              types is one image or video and takes the next grid of its kind. Left or
 *              right padding alike (with mask).
 *   mask       optional u8 or i32, types' shape: 0 = pad (skipped, as HF skips it; its
 *              ids are 0), else a real token. NULL: all real.
 *   cu_seqlens optional i32 [B + 1] (packed): sequence b is tokens [cu[b], cu[b + 1]).
 *              A token no sequence covers gets -1 in all rows, and so does every token
 *              when cu is not usable (cu[0] < 0, decreasing, or cu[B] > T).
 *   image_grid, video_grid  i32 [N, 3] (t, h, w) in patches, as the processor gives
 *              image_grid_thw / video_grid_thw; either may be NULL when unused.
 *   grid_start optional i32 [B, 2]: the index of row b's first image and first video
 *              (frames, for split_video_frames) grid. HF consumes the grids across the
 *              batch in order, so row b starts after the grids of rows < b: pass those
 *              counts (a row's ids then never depend on another row). NULL: 0 for all.
 *   second_per_grid  optional f32 [Nv] (Qwen2.5-VL's second_per_grid_ts): a video's
 *              temporal ids are start + (int)(f32(k) * f32(tokens_per_second * s)),
 *              HF's float32 product truncated; NULL: 1 second per grid.
 *   positions  i32 out, [3, B, S] (padded) or [3, T] (packed).
 *   deltas     optional i32 out [B]: HF's mrope_position_deltas, max id + 1 - real
 *              tokens; decode continues at 1-D position (cache length + delta) in all
 *              three rows (bicl_positions_packed with start, broadcast by a row stride
 *              of 0 in bicl_mrope_apply).
 * Per token: text runs count on from the running position p; an image or video run of
 * grid (t, h, w) after the merge (h' = h / m, w' = w / m) gives token k = (f h' + y) w' + x
 * the ids (p + temporal(f), p + y, p + x), then p += max(h, w) / m. A row whose runs do
 * not match its grids (a run's length is not t h' w', a grid index out of range, a grid
 * dim < 1, an unknown type, an id beyond 2^31 - 1) gets -1 in all three rows of its real
 * tokens and delta 0: bicl_mrope_apply reports them as out of range. */
typedef struct bicl_mrope_layout_args {
    const bicl_tensor *types, *mask;
    const bicl_tensor *image_grid, *video_grid, *grid_start, *second_per_grid;
    const bicl_tensor *cu_seqlens; /* NULL: padded [B, S] */
} bicl_mrope_layout_args;

BICL_API bicl_status bicl_mrope_positions(bicl_context *ctx, cl_command_queue queue,
                                          const bicl_mrope_vision *vision,
                                          const bicl_mrope_layout_args *layout,
                                          const bicl_tensor *positions, const bicl_tensor *deltas,
                                          cl_uint n_wait, const cl_event *wait, cl_event *done);

/* bicl_mrope_positions on the host, for contiguous arrays: types and mask (mask may be
 * NULL) of types_dtype (u8 or i32), [batch, seq], or with cu_seqlens [batch + 1] packed
 * [seq] (seq = all tokens); grids [n, 3]; grid_start [batch, 2] or NULL;
 * second_per_grid [n_video] or NULL; positions [3, batch, seq] or [3, seq]; deltas
 * [batch] or NULL. */
typedef struct bicl_mrope_layout_host {
    bicl_dtype types_dtype;
    const void *types, *mask;
    size_t batch, seq;
    const int32_t *image_grid, *video_grid;
    size_t n_image, n_video;
    const int32_t *grid_start;
    const float *second_per_grid;
    const int32_t *cu_seqlens; /* NULL: padded */
} bicl_mrope_layout_host;

BICL_API bicl_status bicl_ref_mrope_positions(const bicl_mrope_vision *vision,
                                              const bicl_mrope_layout_host *layout,
                                              int32_t *positions, int32_t *deltas);

#ifdef __cplusplus
}
#endif

#endif /* BICL_MROPE_H */
