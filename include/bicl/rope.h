/* bicl/rope.h - rotary position embeddings and position-id builders. Included by
 * bicl/bicl.h; do not include on its own.
 *
 * Every formula is written out in docs/rope.md. In short: a plan holds one model's
 * frequencies (inv_freq[i], computed on the host in double from the shared math
 * source, following HF transformers' rope initialisation) and, optionally, a cos/sin
 * table; bicl_rope_apply rotates q and k in one launch. A token's rotated values depend
 * only on its own elements, its position and the plan: never on the batch around it. */
#ifndef BICL_ROPE_H
#define BICL_ROPE_H

#ifdef __cplusplus
extern "C" {
#endif

/* Which elements form a rotation pair. */
typedef enum bicl_rope_style {
    BICL_ROPE_NEOX = 0, /* (i, i + rotary_dim/2): Llama, Qwen, NeoX, gpt-oss */
    BICL_ROPE_GPTJ = 1, /* (2i, 2i + 1), interleaved: GPT-J */
    /* HF's rope_interleave (DeepSeek-V3, Kimi-K2): pair i is read from (2i, 2i + 1) and
     * written to (i, i + rotary_dim/2), as transformers' apply_rotary_pos_emb_interleave
     * does (the inverse reads (i, i + rotary_dim/2) and writes (2i, 2i + 1)). An output
     * element is not where its input was, so the output may not overlap the input (no
     * in-place rotation). */
    BICL_ROPE_DEINTERLEAVE = 2
} bicl_rope_style;

/* HF's rope_type. */
typedef enum bicl_rope_type {
    BICL_ROPE_DEFAULT = 0,     /* inv_i = theta^(-2i/d) */
    BICL_ROPE_LINEAR = 1,      /* inv_i / factor */
    BICL_ROPE_LLAMA3 = 2,      /* factor, low/high_freq_factor, original_max_... */
    BICL_ROPE_YARN = 3,        /* factor, beta_fast/slow, mscale(_all_dim), attention_factor */
    BICL_ROPE_DYNAMIC_NTK = 4, /* factor, max_position_embeddings, seq_len */
    BICL_ROPE_LONGROPE = 5,    /* long/short_factor, original_max_..., seq_len */
    /* transformers 5's "proportional" (Gemma 4): inv_i = theta^(-2i/d) / factor for
     * i < rope_angles, 0 for the other pairs (rotated by angle 0, cos 1 and sin 0, like
     * transformers does: not a bit copy); d = rotary_dim is the whole head there. */
    BICL_ROPE_PROPORTIONAL = 6
} bicl_rope_type;

/* How the angle pos * inv_freq is formed before cos/sin. Both are deterministic. */
typedef enum bicl_rope_angle_mode {
    /* angle = pos * inv_freq exactly (double-double), cos/sin correctly rounded to f32
     * (times the attention scaling, in double, before that one rounding). Default. */
    BICL_ROPE_ANGLE_EXACT = 0,
    /* HF's float32 pipeline: inv_freq computed by transformers' float32 steps (with a
     * correctly rounded pow, docs/rope.md), pos rounded to f32, their product rounded to
     * f32, then cos/sin of that f32 angle (correctly rounded), times the attention
     * scaling in f32. inv_freq equals transformers' bits except where torch's
     * vectorised powf misrounds (0-2 entries per model in tests/test_rope_conformance.c);
     * the rest of the difference from HF is HF's own cos/sin rounding. */
    BICL_ROPE_ANGLE_HF = 1
} bicl_rope_angle_mode;

/* Where cos/sin come from at apply time. Both give the same bits (tested). */
typedef enum bicl_rope_source {
    BICL_ROPE_SOURCE_AUTO = 0,  /* the table when the plan has one, else inline */
    BICL_ROPE_SOURCE_TABLE = 1, /* f32 table [max_position][rotary_dim/2] built on the host */
    BICL_ROPE_SOURCE_INLINE = 2 /* computed in the kernel in fp64 (needs fp64) */
} bicl_rope_source;

/* One model's RoPE. Start from bicl_rope_config_init(), then set the fields the
 * model's config sets (names are HF's config keys). Zero means "unset" for the
 * optional scaling fields, as in HF. The fields stay in this order (grouped by HF's
 * keys) for the ABI of engines built against 0.1: 8 bytes of padding in a struct made
 * once per model cost nothing, so the analyzer's padding advice is declined. */
typedef struct bicl_rope_config { /* NOLINT(clang-analyzer-optin.performance.Padding) */
    size_t struct_size;           /* sizeof(bicl_rope_config), set by init */
    int head_dim;                 /* elements per head */
    int rotary_dim;               /* even, <= head_dim; the tail passes through */
    bicl_rope_style style;
    double theta; /* rope_theta */
    bicl_rope_type type;
    double factor;
    double low_freq_factor, high_freq_factor;            /* llama3 */
    int original_max_position_embeddings;                /* llama3, yarn, longrope */
    int max_position_embeddings;                         /* dynamic NTK, yarn default */
    double beta_fast, beta_slow, mscale, mscale_all_dim; /* yarn */
    double attention_factor; /* yarn, longrope: > 0 overrides the derived scaling */
    int truncate;            /* yarn: 1 (HF's default) or 0 (gpt-oss) */
    /* dynamic NTK and longrope: the length this plan scales for, given per sequence
     * (never derived from the batch: that would make a token's rotation depend on its
     * neighbours; docs/rope.md). A batch mixing lengths is applied per group. */
    int seq_len;
    const double *long_factor, *short_factor; /* longrope: rotary_dim/2 each */
    /* Optional extra per-dimension divisors applied after the scaling type:
     * inv_i = inv_i / freq_factors[i] (rotary_dim/2 values, > 0), or NULL. */
    const double *freq_factors;
    bicl_rope_angle_mode angle_mode;
    /* ---- Rotary slice inside a head (MLA's decoupled RoPE: DeepSeek-V2/V3, Kimi-K2,
     * MiniCPM3), and proportional RoPE. All zero (bicl_rope_config_init): the rotary
     * slice starts at element 0 and k heads have head_dim elements, as before. */
    int rotary_offset;   /* first rotated element of a q head (MLA: qk_nope_head_dim): elements
                          * [rotary_offset, rotary_offset + rotary_dim) rotate, all others of
                          * the head pass through; rotary_offset + rotary_dim <= head_dim */
    int k_head_dim;      /* elements per k head, 0 = head_dim (MLA's k_pe: qk_rope_head_dim,
                          * one head shared by all query heads) */
    int k_rotary_offset; /* first rotated element of a k head; + rotary_dim <= k head_dim */
    int rope_angles;     /* proportional: pairs with a nonzero frequency, 0..rotary_dim/2 */
} bicl_rope_config;

/* Fills *cfg with defaults: neox, theta 10000, default type, truncate 1, exact angles.
 * A macro passing the caller's sizeof (struct_size; docs/api.md, "Structs that grow"):
 * the library writes only that many bytes, so an engine built against an older or newer
 * header never has its memory overwritten. Writes nothing when cfg is NULL. */
#define bicl_rope_config_init(cfg, head_dim, rotary_dim)                                           \
    bicl_rope_config_init_sized((cfg), sizeof *(cfg), (head_dim), (rotary_dim))
BICL_API void bicl_rope_config_init_sized(bicl_rope_config *cfg, size_t struct_size, int head_dim,
                                          int rotary_dim);
/* BICL_SUCCESS or BICL_ERR_INVALID_CONFIG naming the field (struct_size not set by
 * bicl_rope_config_init, or a longer struct from a newer header setting fields this
 * library does not know; rotary_dim odd or >
 * head_dim, unknown type, factor < 1 for yarn, non-finite values...), or the first
 * inv_freq that is not finite in f32 (or whose f32 angle overflows at some i32
 * position), or an attention scaling that is not finite and > 0 in f32. */
BICL_API bicl_status bicl_rope_config_check(const bicl_rope_config *cfg);

/* Fills *cfg from the text of a model's Hugging Face config.json (the whole file, NUL
 * terminated), as transformers' rope initialisation reads it. Same as
 * bicl_rope_config_from_hf_json_ex with default options: the model_type must be one bicl
 * knows (its pair style and rotary-width keys come from a table derived from
 * transformers' own code), and the config must use one RoPE for all its layers. */
#define bicl_rope_config_from_hf_json(json_text, cfg)                                              \
    bicl_rope_config_from_hf_json_sized((json_text), NULL, (cfg), sizeof *(cfg))

/* Options of bicl_rope_config_from_hf_json_ex. Start from bicl_rope_hf_options_init(), then
 * set what you need (struct_size lets later versions add fields without breaking
 * engines built against this one). */
typedef struct bicl_rope_hf_options {
    size_t struct_size; /* sizeof(bicl_rope_hf_options), set by init */
    /* Nonzero: take the pair style from `style` and read every partial-rotary key
     * (rotary_dim, partial_rotary_factor, rotary_pct), whatever model_type says (a model
     * type bicl does not know, or no model_type at all). The engine vouches for it. */
    int explicit_style;
    bicl_rope_style style;
    /* The layer type to read ("full_attention", "sliding_attention", ... as listed by
     * bicl_rope_config_layer_types), or NULL: then every layer must share one RoPE. */
    const char *layer_type;
} bicl_rope_hf_options;

/* Fills *opt with the defaults: style from model_type, no layer type. A macro passing
 * the caller's sizeof, as bicl_rope_config_init. */
#define bicl_rope_hf_options_init(opt) bicl_rope_hf_options_init_sized((opt), sizeof *(opt))
BICL_API void bicl_rope_hf_options_init_sized(bicl_rope_hf_options *opt, size_t struct_size);

/* Fills *cfg from config.json text:
 *   head_dim        head_dim, else hidden_size / num_attention_heads (n_embd / n_head)
 *   rotary_dim      the keys the model type reads, of rotary_dim, int(head_dim *
 *                   partial_rotary_factor), int(head_dim * rotary_pct); else head_dim. A
 *                   key the model type does not read is refused (transformers would
 *                   not rotate that width)
 *   theta           rope_theta (in rope_parameters or at the top level), else
 *                   rotary_emb_base, else the model type's default (10000; Gemma 3:
 *                   1e6 global, rope_local_base_freq or 10000 on sliding layers)
 *   style           the model type's pair style (docs/rope.md has the table), or
 *                   opt->style when opt->explicit_style is set
 *   max_position_embeddings (n_positions), and rope_scaling / rope_parameters: rope_type
 *   (or type) of default, linear, llama3, yarn, dynamic, longrope or proportional (the
 *   whole head, rope_angles = int(partial_rotary_factor * head_dim // 2)) with that
 *   type's keys, by transformers 5's precedence rules (docs/api.md). Qwen2-VL's "mrope"
 *   is read as default (text-only positions: every axis has the same id; distinct axis
 *   positions: bicl/mrope.h), Phi-3's "su" as longrope.
 *   Multi-head latent attention (deepseek_v2, deepseek_v3, minicpm3; kimi_k2 whose
 *   architectures name DeepseekV3ForCausalLM): head_dim = qk_nope_head_dim +
 *   qk_rope_head_dim, rotary_offset = qk_nope_head_dim, k_head_dim = qk_rope_head_dim,
 *   style BICL_ROPE_DEINTERLEAVE for deepseek_v3's rope_interleave (default true).
 *   Gemma 4's full-attention layers: head_dim = global_head_dim (default 512).
 * text_config (multimodal models) is read in place of the top level; per-layer-type
 * rope_parameters ({"full_attention": {...}, "sliding_attention": {...}}) and Gemma 3's
 * rope_local_base_freq give one config per layer type (opt->layer_type). null counts as
 * absent. seq_len (dynamic, longrope) is not in config.json: set it per sequence before
 * bicl_rope_plan_create. The result passed bicl_rope_config_check.
 * Refused with BICL_ERR_INVALID_CONFIG and bicl_last_error() naming the key
 * ("config.json: rope_scaling.factor must be > 0"): a missing or unknown model_type
 * (unless opt->explicit_style), a model without RoPE (alibi true,
 * position_embedding_type not rotary), qk_rope_head_dim of a model type whose latent
 * attention bicl does not know, rope_interleave where the model type does not read it,
 * layers that need different RoPE when no layer_type is given, an
 * unknown layer type or rope type, a missing required key, a value of the wrong JSON
 * type, a non-finite or out-of-range value, or text that is not JSON. *cfg then holds
 * no allocations. For longrope, long_factor and short_factor point to arrays this call
 * allocated (HF's float32 values of the config's numbers): free them with
 * bicl_rope_config_release once the plans are made. opt may be NULL (defaults).
 * A config that needs fields the caller's (older) struct lacks, an MLA slice say, is
 * refused with BICL_ERR_INVALID_CONFIG, never cut short. Thread-safe. docs/api.md has
 * every rule. A macro over bicl_rope_config_from_hf_json_sized, which takes the
 * caller's sizeof *cfg. */
#define bicl_rope_config_from_hf_json_ex(json_text, opt, cfg)                                      \
    bicl_rope_config_from_hf_json_sized((json_text), (opt), (cfg), sizeof *(cfg))
BICL_API bicl_status bicl_rope_config_from_hf_json_sized(const char *json_text,
                                                         const bicl_rope_hf_options *opt,
                                                         bicl_rope_config *cfg,
                                                         size_t cfg_struct_size);

/* The layer types of a config.json and how many RoPE plans they need. names gets the
 * layer types, comma-separated in order of first use ("sliding_attention,full_attention"
 * for Gemma 3; "full_attention" for a model that declares none), NUL-terminated and
 * truncated to size (names may be NULL when size is 0). *n_types gets their count and
 * *n_plans the number of distinct RoPE configs among them (1 for Gemma 2, whose layer
 * types share one RoPE; 2 for Gemma 3). Either count pointer may be NULL. Read each
 * type's config with bicl_rope_config_from_hf_json_ex (opt->layer_type); which layer has
 * which type is config.json's layer_types (bicl_rope_config_layer_type gives it, also
 * for Gemma configs that only give sliding_window_pattern). Refuses what
 * bicl_rope_config_from_hf_json_ex would refuse for some layer type. */
BICL_API bicl_status bicl_rope_config_layer_types(const char *json_text, char *names, size_t size,
                                                  int *n_types, int *n_plans);

/* The layer type of layer `layer` (0-based, < num_hidden_layers) into name (size bytes,
 * NUL-terminated), as transformers assigns it: layer_types[layer], else Gemma 3's
 * sliding_window_pattern rule (every pattern-th layer full, default 6), else
 * "full_attention". */
BICL_API bicl_status bicl_rope_config_layer_type(const char *json_text, int layer, char *name,
                                                 size_t size);

/* Frees the long_factor / short_factor arrays that bicl_rope_config_from_hf_json
 * allocated and sets both pointers to NULL. Arrays an engine set itself are never
 * freed (only the parser's own allocations are), so it is safe on any config and on
 * NULL. Call it before reusing *cfg for another parse. */
BICL_API void bicl_rope_config_release(bicl_rope_config *cfg);

/* One model's RoPE on one context: its frequencies (and table) on the device. Opaque;
 * read-only after creation, so any number of threads may apply it at once. */
typedef struct bicl_rope_plan bicl_rope_plan;

/* Computes the frequencies on the host and uploads them. table_positions > 0 also
 * builds and uploads the cos/sin table for positions [0, table_positions); positions
 * at or beyond it are out of range for the table source. max_position bounds the
 * positions the inline source accepts (0 = 2^31 - 1). Blocks until the uploads are
 * done (a plan is made once per model). */
BICL_API bicl_status bicl_rope_plan_create(bicl_context *ctx, const bicl_rope_config *cfg,
                                           int table_positions, int max_position,
                                           bicl_rope_plan **out);
/* Frees the plan and its buffers (NULL is fine). Ops using it must have finished. */
BICL_API void bicl_rope_plan_free(bicl_rope_plan *plan);
/* inv_freq[i] (double) and the attention scaling of a plan, for inspection. */
BICL_API bicl_status bicl_rope_plan_inv_freq(const bicl_rope_plan *plan, double *inv_freq, size_t n,
                                             double *attention_scaling);

/* The softmax scale of multi-head latent attention (DeepSeek-V2/V3, Kimi-K2, MiniCPM3),
 * which the engine applies to q.k and which depends on the RoPE scaling, as transformers'
 * yarn_apply_mscale computes it in Python doubles:
 *   m = 0.1 * mscale_all_dim * ln(factor) + 1   (1 when factor <= 1)
 *   *mscale_squared = m * m,  *softmax_scale = head_dim^-0.5 * m * m  (left to right)
 * when type is not BICL_ROPE_DEFAULT and mscale_all_dim != 0; else m = 1, so
 * *mscale_squared = 1 and *softmax_scale = head_dim^-0.5. head_dim is the q head
 * (qk_nope_head_dim + qk_rope_head_dim for MLA). Other attention classes of transformers
 * (Llama with YaRN...) use head_dim^-0.5 alone: this is the MLA rule. Either output may
 * be NULL. tests/test_rope_conformance.c holds it to transformers' bits. */
BICL_API bicl_status bicl_rope_plan_softmax_scale(const bicl_rope_plan *plan,
                                                  double *mscale_squared, double *softmax_scale);

/* Rotates q (and k, if not NULL) in one launch.
 *   positions: i32, rank 1 [T] or rank 2 [B, S]
 *   q_in/q_out: rank 3 [T, Hq, head_dim] or rank 4 [B, S, Hq, head_dim] (any strides:
 *              BSHD, BHSD and packed THD are views); k likewise with its own Hk.
 *   Outputs equal to their inputs (same view) rotate in place; otherwise outputs must
 *   not overlap anything. f32/f16/bf16, input and output dtypes may differ; k's dtypes
 *   must equal q's. Compute is f32 with one rounding per output element:
 *     forward:  o0 = x0 * c - x1 * s,  o1 = x1 * c + x0 * s
 *     inverse:  o0 = x0 * c + x1 * s,  o1 = x1 * c - x0 * s   (the backward pass)
 *   each product rounded to f32, then the sum (no fma), as HF's q*cos + rot(q)*sin.
 * A position outside the plan's range is never read out of bounds: the token's rotary
 * elements are written as the quiet NaN 0x7fc00000 (pass-through elements as usual) and
 * the plan's error counter records it (bicl_rope_errors). */
BICL_API bicl_status bicl_rope_apply(bicl_context *ctx, cl_command_queue queue,
                                     const bicl_rope_plan *plan, bicl_rope_source source,
                                     int inverse, const bicl_tensor *positions,
                                     const bicl_tensor *q_in, const bicl_tensor *q_out,
                                     const bicl_tensor *k_in, const bicl_tensor *k_out,
                                     cl_uint n_wait, const cl_event *wait, cl_event *done);

/* Reads (blocking) how many out-of-range positions the plan's applies met and the
 * smallest bad position value seen, then resets the counter. It counts the applies
 * enqueued on `queue` before this call (a barrier orders it after them, on in-order and
 * out-of-order queues alike) and those the wait list names (applies on other queues).
 * The counter is taken and reset by atomic exchanges on the device: an apply that runs
 * at the same time (one not ordered before this call) is counted by this call or by the
 * next one, never lost. Calls for one plan must not overlap each other (they share the
 * place the take is read from): make them from one thread, or order them.
 * Returns BICL_ERR_POSITION_OUT_OF_RANGE when count > 0; BICL_ERR_CONTEXT_MISMATCH for
 * a plan of another (or a freed) context. */
BICL_API bicl_status bicl_rope_errors(bicl_context *ctx, cl_command_queue queue,
                                      bicl_rope_plan *plan, unsigned *count, int *first_bad,
                                      cl_uint n_wait, const cl_event *wait);

/* Position ids on the device.
 * Packed (THD): cu_seqlens i32 [B+1] (cumulative lengths, cu[0] = 0), optional start
 * i32 [B] (tokens already in the cache: decode / chunked prefill), positions i32 [T]:
 *   positions[t] = start[b] + (t - cu[b])   for cu[b] <= t < cu[b+1]
 * A token no sequence covers (cu_seqlens wrong on the device) gets -1, which
 * bicl_rope_apply reports as out of range. */
BICL_API bicl_status bicl_positions_packed(bicl_context *ctx, cl_command_queue queue,
                                           const bicl_tensor *cu_seqlens, const bicl_tensor *start,
                                           const bicl_tensor *positions, cl_uint n_wait,
                                           const cl_event *wait, cl_event *done);
/* Padded [B, S] from an attention mask (u8 or i32, nonzero = real token), left or right
 * padding alike: a real token's position is start[b] plus the number of real tokens
 * before it in its row; a pad gets position 0 (HF fills pads with 1; no value is used
 * for a pad's output, 0 is always in range). start may be NULL. */
BICL_API bicl_status bicl_positions_padded(bicl_context *ctx, cl_command_queue queue,
                                           const bicl_tensor *mask, const bicl_tensor *start,
                                           const bicl_tensor *positions, cl_uint n_wait,
                                           const cl_event *wait, cl_event *done);

/* Host reference of the rotation of one head vector x (head_dim floats, any storage
 * dtype given as bits) at position pos: out gets head_dim elements of out_dtype, the
 * bits bicl_rope_apply gives with the same plan and source (AUTO as there), NaN and
 * BICL_ERR_POSITION_OUT_OF_RANGE included for a position beyond that source's range.
 * The cos/sin come from the same math as the device (table and inline agree). */
BICL_API bicl_status bicl_ref_rope_head(const bicl_rope_plan *plan, bicl_rope_source source,
                                        int inverse, int pos, bicl_dtype in_dtype, const void *x,
                                        bicl_dtype out_dtype, void *out);
/* bicl_ref_rope_head for one k head (the config's k_head_dim and k_rotary_offset; the
 * same as bicl_ref_rope_head when they are 0). */
BICL_API bicl_status bicl_ref_rope_k_head(const bicl_rope_plan *plan, bicl_rope_source source,
                                          int inverse, int pos, bicl_dtype in_dtype, const void *x,
                                          bicl_dtype out_dtype, void *out);
/* Host reference cos/sin of (pos, i) for a plan and source (range as above). */
BICL_API bicl_status bicl_ref_rope_cos_sin(const bicl_rope_plan *plan, bicl_rope_source source,
                                           int pos, int i, float *c, float *s);
/* bicl_positions_packed on the host: cu_seqlens has batch + 1 entries, start batch
 * entries or NULL, positions gets `tokens` entries. */
BICL_API bicl_status bicl_ref_positions_packed(const int32_t *cu_seqlens, size_t batch,
                                               const int32_t *start, int32_t *positions,
                                               size_t tokens);
/* bicl_positions_padded on the host: mask is [batch, seq] of mask_dtype (u8 or i32). */
BICL_API bicl_status bicl_ref_positions_padded(const void *mask, bicl_dtype mask_dtype,
                                               size_t batch, size_t seq, const int32_t *start,
                                               int32_t *positions);

#ifdef __cplusplus
}
#endif

#endif /* BICL_ROPE_H */
