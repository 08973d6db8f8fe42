/* bicl/pointwise.h - activations, gated units, binary ops, scales, bias, masks. Included
 * by bicl/bicl.h; do not include on its own.
 *
 * Every op: storage f32, f16 or bf16 for each operand independently, compute in f32,
 * one documented rounding order (docs/numerics.md), NaN rule: a NaN result takes the
 * first NaN operand in the op's argument order, quieted (sign and payload kept); a NaN
 * made from non-NaN operands (inf - inf, 0 * inf) is 0x7fc00000. Shapes must be equal
 * unless an op says an operand broadcasts (numpy rules: dims of size 1, or missing
 * leading dims, repeat). Outputs may be the same view as an input of the same dtype
 * (in place); any other overlap is BICL_ERR_ALIASING. */
#ifndef BICL_POINTWISE_H
#define BICL_POINTWISE_H

#ifdef __cplusplus
extern "C" {
#endif

/* The function of bicl_unary. */
typedef enum bicl_unary_op {
    BICL_UNARY_IDENTITY = 0, /* y = x (a cast when dtypes differ) */
    BICL_UNARY_RELU = 1,     /* x > 0 ? x : +0 */
    BICL_UNARY_RELU2 = 2,    /* relu(x)^2 */
    BICL_UNARY_SILU = 3,     /* x * sigmoid(x) */
    BICL_UNARY_SIGMOID = 4,  /* 1 / (1 + e^-x) */
    BICL_UNARY_TANH = 5,
    BICL_UNARY_GELU = 6,        /* x * Phi(x), erf form */
    BICL_UNARY_GELU_TANH = 7,   /* 0.5 x (1 + tanh(0.7978845608 (x + 0.044715 x^3))) */
    BICL_UNARY_GELU_QUICK = 8,  /* x * sigmoid(1.702 x) */
    BICL_UNARY_SOFTCAP = 9,     /* cap * tanh(x / cap) */
    BICL_UNARY_RELU6 = 10,      /* min(max(x, 0), 6), +0 below 0 */
    BICL_UNARY_LEAKY_RELU = 11, /* x > 0 ? x : x * negative_slope */
    BICL_UNARY_HARDSWISH = 12,  /* x * min(max(x + 3, 0), 6) / 6 */
    BICL_UNARY_MISH = 13,       /* x * tanh(softplus(x)) */
    BICL_UNARY_XIELU = 14,      /* xIELU (Apertus), in transformers' rounding order:
                                   x > 0: alpha_p * x * x + beta * x,
                                   else (expm1(min(x, eps)) - x) * alpha_n + beta * x */
    BICL_UNARY_SOFTPLUS = 15,   /* log(1 + e^x) (torch's threshold 20 gives the same) */
    BICL_UNARY_COUNT_ = 16
} bicl_unary_op;

/* Parameters of bicl_unary: each op reads only its own fields (an engine built against
 * an older bicl_unary_params, with fewer fields, works with every op it knows). */
typedef struct bicl_unary_params {
    float softcap;        /* SOFTCAP: finite and > 0 */
    float negative_slope; /* LEAKY_RELU: finite (torch's default: 0.01) */
    /* XIELU, all finite: the effective alpha_p = softplus(alpha_p parameter), alpha_n =
     * beta + softplus(alpha_n parameter), beta and eps, as the layer holds them. */
    float alpha_p, alpha_n, beta, eps;
} bicl_unary_params;

/* y = op(x), each element rounded once to f32 (within the ulp bound of docs/accuracy.md;
 * XIELU: rounded after every operation, as written above) and then to y's dtype. Shapes
 * equal; x may broadcast. params may be NULL except for SOFTCAP, LEAKY_RELU and XIELU
 * (BICL_ERR_NULL_POINTER); a parameter out of its range is BICL_ERR_INVALID_PARAMETER. */
BICL_API bicl_status bicl_unary(bicl_context *ctx, cl_command_queue queue, bicl_unary_op op,
                                const bicl_unary_params *params, const bicl_tensor *x,
                                const bicl_tensor *y, cl_uint n_wait, const cl_event *wait,
                                cl_event *done);

/* The activation of the gate in bicl_glu and bicl_glu_fused. */
typedef enum bicl_glu_act {
    BICL_GLU_SWIGLU = 0,       /* silu(gate) * up */
    BICL_GLU_GEGLU = 1,        /* gelu(gate) * up (erf form) */
    BICL_GLU_GEGLU_TANH = 2,   /* gelu_tanh(gate) * up */
    BICL_GLU_REGLU = 3,        /* relu(gate) * up */
    BICL_GLU_SWIGLU_OAI = 4,   /* gpt-oss: (clamp(up, -limit, limit) + 1) * g * sigmoid(alpha g),
                                  g = min(gate, limit) */
    BICL_GLU_FATRELU = 5,      /* (gate > threshold ? gate : +0) * up (vLLM's FatreluAndMul,
                                  MiniCPM-S / ProSparse) */
    BICL_GLU_MUL_AND_SILU = 6, /* up * silu(gate): vLLM's MulAndSilu. The product's NaN rule
                                  is up first, and bicl_glu_fused reads up before gate
                                  ([up | gate], or u0 g0 u1 g1 interleaved) */
    BICL_GLU_COUNT_ = 7
} bicl_glu_act;

/* How a gated unit rounds (bicl_glu_params.rounding). Every mode ends with one rounding
 * of the f32 result to y's dtype. */
typedef enum bicl_glu_rounding {
    /* HF's and vLLM's order, the default: a = act(gate) rounded to f32, then a * up
     * rounded to f32 (two roundings; docs/accuracy.md bounds the error at 2 steps). */
    BICL_GLU_ROUND_F32 = 0,
    /* As BICL_GLU_ROUND_F32 with a also rounded to gate's storage dtype (f16, bf16)
     * before the multiply, as HF eager and vLLM do in 16-bit storage (three
     * roundings; no effect for an f32 gate). */
    BICL_GLU_ROUND_ACT_TO_STORAGE = 1,
    /* act(gate) * up evaluated as one real function and correctly rounded to f32 once
     * (math version 6): SWIGLU, GEGLU_TANH and MUL_AND_SILU; REGLU, FATRELU (exact
     * activations) and SWIGLU_OAI (one formula, always rounded once) give the same bits
     * as in BICL_GLU_ROUND_F32. GEGLU (erf form) has no such mode yet:
     * BICL_ERR_INVALID_PARAMETER. Zeros, infinities and NaN as in the other modes, except
     * that act(gate) is never rounded to 0 first: act(gate) * inf is +-inf for every
     * finite nonzero gate (0 * inf stays the canonical NaN). */
    BICL_GLU_ROUND_ONCE = 2
} bicl_glu_rounding;

/* Parameters of the gated units; NULL means all zero (SWIGLU_OAI and FATRELU need them:
 * BICL_ERR_NULL_POINTER). */
typedef struct bicl_glu_params {
    float alpha; /* SWIGLU_OAI: finite (gpt-oss: 1.702) */
    float limit; /* SWIGLU_OAI: finite, > 0 (gpt-oss: 7.0) */
    /* One int, two names (the same offset and size as before the modes existed):
     * rounding is a bicl_glu_rounding; round_act_to_storage is its older name, whose
     * values 0 and 1 are BICL_GLU_ROUND_F32 and BICL_GLU_ROUND_ACT_TO_STORAGE. Any
     * value other than 0, 1 and 2 is BICL_ERR_INVALID_PARAMETER, and so is
     * BICL_GLU_ROUND_ONCE with GEGLU; nothing is enqueued then. */
    union {
        int rounding;
        int round_act_to_storage;
    };
    /* Read only by the activation that uses it (an engine built against an older, shorter
     * struct works with every activation it knows). */
    float threshold; /* FATRELU: finite */
} bicl_glu_params;

/* y = act(gate) * up: act rounded to f32 (and to gate's dtype if asked), the product
 * rounded to f32, then to y's dtype; or, with BICL_GLU_ROUND_ONCE, act(gate) * up
 * correctly rounded to f32 once, then to y's dtype (bicl_glu_rounding). gate and up
 * have the same dtype and shape as y. */
BICL_API bicl_status bicl_glu(bicl_context *ctx, cl_command_queue queue, bicl_glu_act act,
                              const bicl_glu_params *params, const bicl_tensor *gate,
                              const bicl_tensor *up, const bicl_tensor *y, cl_uint n_wait,
                              const cl_event *wait, cl_event *done);

/* How gate and up sit inside one tensor x of last dim 2F. */
typedef enum bicl_glu_layout {
    BICL_GLU_HALVES = 0,     /* [gate (F) | up (F)] */
    BICL_GLU_INTERLEAVED = 1 /* g0 u0 g1 u1 ... (gpt-oss) */
} bicl_glu_layout;

/* bicl_glu on gate and up taken from one tensor x [..., 2F]; y is [..., F]. */
BICL_API bicl_status bicl_glu_fused(bicl_context *ctx, cl_command_queue queue, bicl_glu_act act,
                                    const bicl_glu_params *params, bicl_glu_layout layout,
                                    const bicl_tensor *x, const bicl_tensor *y, cl_uint n_wait,
                                    const cl_event *wait, cl_event *done);

/* The operation of bicl_binary. */
typedef enum bicl_binary_op {
    BICL_BINARY_ADD = 0, /* a + b */
    BICL_BINARY_SUB = 1, /* a - b */
    BICL_BINARY_MUL = 2, /* a * b */
    BICL_BINARY_COUNT_ = 3
} bicl_binary_op;

/* y = a op b, rounded once to f32, then to y's dtype. a and b broadcast to y's shape. */
BICL_API bicl_status bicl_binary(bicl_context *ctx, cl_command_queue queue, bicl_binary_op op,
                                 const bicl_tensor *a, const bicl_tensor *b, const bicl_tensor *y,
                                 cl_uint n_wait, const cl_event *wait, cl_event *done);

/* y = alpha * a + beta * b, evaluated as round(round(alpha * a) + round(beta * b)) in f32
 * (no fma), then rounded to y's dtype. alpha and beta finite. a and b broadcast. */
BICL_API bicl_status bicl_axpby(bicl_context *ctx, cl_command_queue queue, float alpha,
                                const bicl_tensor *a, float beta, const bicl_tensor *b,
                                const bicl_tensor *y, cl_uint n_wait, const cl_event *wait,
                                cl_event *done);

/* Residual add with two outputs: r = residual + x in f32 (one rounding); residual_out
 * (f32) gets r exactly, y gets r rounded to y's dtype (e.g. bf16 for the next layer).
 * residual and residual_out are f32 (they may be the same view); x any float dtype. */
BICL_API bicl_status bicl_residual_add(bicl_context *ctx, cl_command_queue queue,
                                       const bicl_tensor *residual, const bicl_tensor *x,
                                       const bicl_tensor *residual_out, const bicl_tensor *y,
                                       cl_uint n_wait, const cl_event *wait, cl_event *done);

/* y = x * scale (scale finite), one rounding to f32, then to y's dtype. */
BICL_API bicl_status bicl_scale(bicl_context *ctx, cl_command_queue queue, float scale,
                                const bicl_tensor *x, const bicl_tensor *y, cl_uint n_wait,
                                const cl_event *wait, cl_event *done);

/* y = x * s[c], s a vector of x's last-dim length C (rank 1), any float dtype. */
BICL_API bicl_status bicl_scale_channels(bicl_context *ctx, cl_command_queue queue,
                                         const bicl_tensor *x, const bicl_tensor *s,
                                         const bicl_tensor *y, cl_uint n_wait, const cl_event *wait,
                                         cl_event *done);

/* y = x + bias[c], bias a vector of x's last-dim length C (rank 1), any float dtype. */
BICL_API bicl_status bicl_bias_add(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                                   const bicl_tensor *bias, const bicl_tensor *y, cl_uint n_wait,
                                   const cl_event *wait, cl_event *done);

/* Mask fills. Unfilled elements are x converted as bicl_cast does (bits copied for the
 * same dtype, NaN included); filled ones are `fill` rounded to y's dtype, whatever x
 * holds (NaN included). */

/* y = mask != 0 ? fill : x. mask: u8 or i32, broadcast to x's shape. */
BICL_API bicl_status bicl_mask_fill(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                                    const bicl_tensor *mask, float fill, const bicl_tensor *y,
                                    cl_uint n_wait, const cl_event *wait, cl_event *done);

/* Padding: y[..., c] = c >= lengths[...] ? fill : x[..., c]. lengths: i32, broadcast to
 * x's shape without its last dim (e.g. [B] for scores [B, H, Sq, Sk] as [B, 1, 1]). */
BICL_API bicl_status bicl_mask_fill_lengths(bicl_context *ctx, cl_command_queue queue,
                                            const bicl_tensor *x, const bicl_tensor *lengths,
                                            float fill, const bicl_tensor *y, cl_uint n_wait,
                                            const cl_event *wait, cl_event *done);

/* Causal: x [..., R, C] (rank >= 2): y[..., r, c] = c > r + offset ? fill : x[..., r, c],
 * compared as mathematical integers for any offset (LONG_MAX fills nothing, LONG_MIN
 * every element). */
BICL_API bicl_status bicl_mask_fill_causal(bicl_context *ctx, cl_command_queue queue,
                                           const bicl_tensor *x, long offset, float fill,
                                           const bicl_tensor *y, cl_uint n_wait,
                                           const cl_event *wait, cl_event *done);

/* ------------------------------------------------------------ host reference */
/* Contiguous host arrays of n elements (b of the binary ops: n elements too, already
 * broadcast by the caller). Same math source as the kernels. */
/* bicl_unary. */
BICL_API bicl_status bicl_ref_unary(bicl_unary_op op, const bicl_unary_params *params,
                                    bicl_dtype x_dtype, const void *x, bicl_dtype y_dtype, void *y,
                                    size_t n);
/* bicl_glu (gate and up: n elements each, of in_dtype). */
BICL_API bicl_status bicl_ref_glu(bicl_glu_act act, const bicl_glu_params *params,
                                  bicl_dtype in_dtype, const void *gate, const void *up,
                                  bicl_dtype y_dtype, void *y, size_t n);
/* bicl_binary. */
BICL_API bicl_status bicl_ref_binary(bicl_binary_op op, bicl_dtype a_dtype, const void *a,
                                     bicl_dtype b_dtype, const void *b, bicl_dtype y_dtype, void *y,
                                     size_t n);
/* bicl_axpby. */
BICL_API bicl_status bicl_ref_axpby(float alpha, bicl_dtype a_dtype, const void *a, float beta,
                                    bicl_dtype b_dtype, const void *b, bicl_dtype y_dtype, void *y,
                                    size_t n);
/* bicl_residual_add: residual and residual_out are f32 (they may be the same array). */
BICL_API bicl_status bicl_ref_residual_add(const float *residual, bicl_dtype x_dtype, const void *x,
                                           float *residual_out, bicl_dtype y_dtype, void *y,
                                           size_t n);
/* bicl_scale. */
BICL_API bicl_status bicl_ref_scale(float scale, bicl_dtype x_dtype, const void *x,
                                    bicl_dtype y_dtype, void *y, size_t n);
/* y = select ? fill : x, select given per element (the caller evaluates the mask). */
BICL_API bicl_status bicl_ref_mask_fill(bicl_dtype x_dtype, const void *x, const uint8_t *select,
                                        float fill, bicl_dtype y_dtype, void *y, size_t n);
/* bicl_mask_fill_causal on contiguous [n / (rows cols), rows, cols] arrays (n a multiple
 * of rows * cols, else BICL_ERR_SHAPE_MISMATCH). */
BICL_API bicl_status bicl_ref_mask_fill_causal(bicl_dtype x_dtype, const void *x, size_t rows,
                                               size_t cols, long offset, float fill,
                                               bicl_dtype y_dtype, void *y, size_t n);

#ifdef __cplusplus
}
#endif

#endif /* BICL_POINTWISE_H */
