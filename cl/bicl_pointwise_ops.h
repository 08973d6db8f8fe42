/* bicl_pointwise_ops.h - the per-element formulas of the pointwise ops, shared by the
 * kernels (cl/unary.cl, glu.cl, binary.cl, mask.cl) and the host reference
 * (src/pointwise_ref.c). Each takes and returns f32; storage conversions happen
 * around it (bicl_convert.h). The rounding order of every op is the one written here
 * and in docs/numerics.md. */
#ifndef BICL_POINTWISE_OPS_H
#define BICL_POINTWISE_OPS_H
#include "bicl_convert.h"
#include "bicl_math_f32.h"

/* Op codes shared with the host (include/bicl/pointwise.h uses the same values). */
#define BICL_OP_IDENTITY   0
#define BICL_OP_RELU       1
#define BICL_OP_RELU2      2
#define BICL_OP_SILU       3
#define BICL_OP_SIGMOID    4
#define BICL_OP_TANH       5
#define BICL_OP_GELU       6
#define BICL_OP_GELU_TANH  7
#define BICL_OP_GELU_QUICK 8
#define BICL_OP_SOFTCAP    9

#define BICL_GLU_OP_SWIGLU     0
#define BICL_GLU_OP_GEGLU      1
#define BICL_GLU_OP_GEGLU_TANH 2
#define BICL_GLU_OP_REGLU      3
#define BICL_GLU_OP_SWIGLU_OAI 4

#define BICL_BIN_ADD   0
#define BICL_BIN_SUB   1
#define BICL_BIN_MUL   2
#define BICL_BIN_AXPBY 3

/* Storage dtype codes (bicl_dtype's values). */
#define BICL_DT_F32  0
#define BICL_DT_F16  1
#define BICL_DT_BF16 2

/* The value x takes when stored in dtype dt and read back. */
BICL_FN float bicl_round_to_storage(float x, int dt)
{
    if (dt == BICL_DT_F16)
        return bicl_f16_to_f32(bicl_f32_to_f16(x));
    if (dt == BICL_DT_BF16)
        return bicl_bf16_to_f32(bicl_f32_to_bf16(x));
    return x;
}

/* Unary ops: exact or within the bounds of docs/accuracy.md (bicl_math_f32.h). The
 * identity returns x itself (no arithmetic: a signalling NaN is not quieted). */
BICL_FN float bicl_op_unary(int op, float x, float cap)
{
    switch (op) {
    case BICL_OP_RELU:
        return bicl_relu(x);
    case BICL_OP_RELU2:
        return bicl_relu2(x);
    case BICL_OP_SILU:
        return bicl_silu(x);
    case BICL_OP_SIGMOID:
        return bicl_sigmoidf(x);
    case BICL_OP_TANH:
        return bicl_tanhf(x);
    case BICL_OP_GELU:
        return bicl_gelu_erf(x);
    case BICL_OP_GELU_TANH:
        return bicl_gelu_tanh(x);
    case BICL_OP_GELU_QUICK:
        return bicl_gelu_quick(x);
    case BICL_OP_SOFTCAP:
        return bicl_softcap(x, cap);
    default:
        return x;
    }
}

/* Gated unit: act(gate) rounded to f32 (and to the gate's storage dtype when
 * round_dt is not f32), times up rounded to f32. The product's NaN rule: the
 * activation first, then up. gpt-oss's clamped SwiGLU is one formula, rounded once. */
BICL_FN float bicl_op_glu(int act, float gate, float up, float alpha, float limit, int round_dt)
{
    float a;
    switch (act) {
    case BICL_GLU_OP_SWIGLU_OAI:
        return bicl_swiglu_oss(gate, up, alpha, limit);
    case BICL_GLU_OP_GEGLU:
        a = bicl_gelu_erf(gate);
        break;
    case BICL_GLU_OP_GEGLU_TANH:
        a = bicl_gelu_tanh(gate);
        break;
    case BICL_GLU_OP_REGLU:
        a = bicl_relu(gate);
        break;
    default:
        a = bicl_silu(gate);
        break;
    }
    a = bicl_round_to_storage(a, round_dt);
    return bicl_f32_nan_fix2(a * up, a, up);
}

/* Binary ops, each rounded once: a + b, a - b, a * b; axpby is
 * round(round(alpha * a) + round(beta * b)). NaN rule: a first, then b. */
BICL_FN float bicl_op_binary(int op, float a, float b, float alpha, float beta)
{
    float r;
    switch (op) {
    case BICL_BIN_SUB:
        r = a - b;
        break;
    case BICL_BIN_MUL:
        r = a * b;
        break;
    case BICL_BIN_AXPBY: {
        float pa = alpha * a;
        float pb = beta * b;
        r = pa + pb;
        break;
    }
    default:
        r = a + b;
        break;
    }
    return bicl_f32_nan_fix2(r, a, b);
}

/* x * s, one rounding (s is a finite parameter). */
BICL_FN float bicl_op_scale(float x, float s)
{
    return bicl_f32_nan_fix2(x * s, x, s);
}

/* Causal mask: is column col of row row filled (col > row + offset)? The host clamps
 * offset to [-rows, cols - 1] first (bicl_mask_causal_offset; nothing in a rows x cols
 * matrix can tell the clamped offset from the original), so row + offset never
 * overflows: an offset of LONG_MAX fills nothing, LONG_MIN everything. */
BICL_FN int bicl_causal_filled(bicl_i64 col, bicl_i64 row, bicl_i64 offset)
{
    return col > row + offset;
}

#endif /* BICL_POINTWISE_OPS_H */
