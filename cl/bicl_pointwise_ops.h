/* bicl_pointwise_ops.h - the per-element formulas of the pointwise ops, shared by the
 * kernels (cl/unary.cl, glu.cl, binary.cl, mask.cl) and the host reference
 * (src/pointwise_ref.c). Each takes and returns f32; storage conversions happen
 * around it (bicl_convert.h). The rounding order of every op is the one written here
 * and in docs/numerics.md. */
#ifndef BICL_POINTWISE_OPS_H
#define BICL_POINTWISE_OPS_H
#include "bicl_convert.h"
#include "bicl_math_f32.h"
#include "bicl_math_act_f32.h"
#include "bicl_math_glu_f32.h"
#include "bicl_ops.def"

/* Op codes, from the registry (bicl_ops.def; src/ops.c checks that the public enums of
 * include/bicl/pointwise.h have the same values). Enumerators, not macros: the registry
 * cannot define macros, and a kernel's op is a constant either way. */
#define BICL_X_UNARY_CODE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)    \
    BICL_OP_##ID = code,
#define BICL_X_GLU_CODE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR,      \
                        ORDER)                                                                     \
    BICL_GLU_OP_##ID = code,
enum { BICL_OP_IDENTITY = 0, BICL_UNARY_OPS(BICL_X_UNARY_CODE) };
enum { BICL_GLU_OPS(BICL_X_GLU_CODE) };

#define BICL_BIN_ADD   0
#define BICL_BIN_SUB   1
#define BICL_BIN_MUL   2
#define BICL_BIN_AXPBY 3
/* The binary ops with the kernel-name part of each: X(TA, TB, TO, name, code) per op, the
 * kernels' dtypes passed through (cl/binary.cl's BIN_PAIR; src/ops.c's names). */
#define BICL_BINARY_OPS(X, TA, TB, TO)                                                             \
    X(TA, TB, TO, add, BICL_BIN_ADD)                                                               \
    X(TA, TB, TO, sub, BICL_BIN_SUB)                                                               \
    X(TA, TB, TO, mul, BICL_BIN_MUL) X(TA, TB, TO, axpby, BICL_BIN_AXPBY)

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

/* BICL_CR1(f, a) and BICL_CR2(f, a, b) in a registry EXPR (bicl_ops.def) mark a correctly
 * rounded function of one or two arguments that has a fast form f_fast (bicl_math_f32.h,
 * BICL_M_CR_FAST1, _FAST2): a plain call here, f_fast in bicl_op_unary_fast below, which
 * redefines both for its own body and restores them (a macro expands where it is used).
 * One macro per arity: OpenCL C 1.2 has no variadic macros (NVIDIA's compiler refuses
 * them). BICL_CR1_LONG(f, a) is BICL_CR1 wherever it expands (the registry's mark of the
 * longest double paths, read by the host's launch class only: src/ops.c). */
#define BICL_CR1(f, a)      f(a)
#define BICL_CR2(f, a, b)   f(a, b)
#define BICL_CR1_LONG(f, a) BICL_CR1(f, a)

/* Unary ops: exact or within the ulp bound of their registry row (docs/accuracy.md).
 * p0..p3: the op's parameters (bicl_ops.def's PF column), unused ones 0. The identity
 * returns x itself (no arithmetic: a signalling NaN is not quieted). */
#define BICL_X_UNARY_CASE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)    \
    case BICL_OP_##ID:                                                                             \
        return EXPR;
BICL_FN float bicl_op_unary(int op, float x, float p0, float p1, float p2, float p3)
{
    (void)p1; /* not every registry has an op of four parameters */
    (void)p2;
    (void)p3;
    switch (op) {
        BICL_UNARY_OPS(BICL_X_UNARY_CASE)
    default:
        return x;
    }
}

/* The last step of a gated unit by its ORDER (bicl_ops.def): a is act(gate) in f32,
 * rounded to the gate's storage dtype when round_dt is not f32, then multiplied by up,
 * one rounding, with the NaN rule of the order. WHOLE: a is already the result. */
#define BICL_GLU_FINISH_ACT(a, up, round_dt)                                                       \
    ((a) = bicl_round_to_storage((a), (round_dt)), bicl_f32_nan_fix2((a) * (up), (a), (up)))
#define BICL_GLU_FINISH_UP(a, up, round_dt)                                                        \
    ((a) = bicl_round_to_storage((a), (round_dt)), bicl_f32_nan_fix2((up) * (a), (up), (a)))
#define BICL_GLU_FINISH_WHOLE(a, up, round_dt) (a)
#define BICL_X_GLU_CASE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR,      \
                        ORDER)                                                                     \
    case BICL_GLU_OP_##ID:                                                                         \
        a = EXPR;                                                                                  \
        return BICL_GLU_FINISH_##ORDER(a, u, round_dt);

/* round_dt of the single-rounding mode (BICL_GLU_ROUND_ONCE): act(g) u as one function,
 * rounded once to f32. */
#define BICL_GLU_RD_ONCE (-1)

/* The gated unit's element for round_dt other than BICL_GLU_RD_ONCE: round(act(g)),
 * then the product by the ORDER. The kernels of those modes call it (cl/glu.cl), so that
 * they do not carry the single-rounding functions as well: in a scratch CUDA copy of the
 * 4-wide swiglu kernel, 31 registers against 60 with bicl_op_glu and a run-time round_dt
 * (docs/performance.md). */
BICL_FN float bicl_op_glu_twice(int act, float g, float u, float p0, float p1, int round_dt)
{
    float a;
    switch (act) {
        BICL_GLU_OPS(BICL_X_GLU_CASE)
    default:
        return bicl_f32_canonical_nan();
    }
}

/* The fast forms of the unary ops and of the gated units' two-rounding element, for the
 * kernels' fix-up form (cl/unary.cl UNARY_FIX, cl/glu.cl GLU_FIX): where the op's EXPR
 * calls a function through BICL_CR1 / BICL_CR2, that function's fast form, with *ok = 1 where the
 * value is bicl_op_unary's (bicl_op_glu_twice's) and 0 where the caller must compute
 * that itself; any other op's EXPR, with *ok = 1. */
#undef BICL_CR1
#undef BICL_CR2
#define BICL_CR1(f, a)    f##_fast(a, &ok_)
#define BICL_CR2(f, a, b) f##_fast(a, b, &ok_)
#define BICL_X_UNARY_FAST_CASE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE,     \
                               EXPR)                                                               \
    case BICL_OP_##ID:                                                                             \
        v = EXPR;                                                                                  \
        break;
BICL_FN_INLINED float bicl_op_unary_fast(int op, float x, float p0, float p1, float p2, float p3,
                                         int *ok)
{
    int ok_ = 1;
    float v;
    (void)p1;
    (void)p2;
    (void)p3;
    switch (op) {
        BICL_UNARY_OPS(BICL_X_UNARY_FAST_CASE)
    default:
        v = x;
    }
    *ok = ok_;
    return v;
}

#define BICL_X_GLU_FAST_CASE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, \
                             ORDER)                                                                \
    case BICL_GLU_OP_##ID:                                                                         \
        a = EXPR;                                                                                  \
        v = BICL_GLU_FINISH_##ORDER(a, u, round_dt);                                               \
        break;
BICL_FN_INLINED float bicl_op_glu_twice_fast(int act, float g, float u, float p0, float p1,
                                             int round_dt, int *ok)
{
    int ok_ = 1;
    float a;
    float v;
    switch (act) {
        BICL_GLU_OPS(BICL_X_GLU_FAST_CASE)
    default:
        v = bicl_f32_canonical_nan();
    }
    *ok = ok_;
    return v;
}
#undef BICL_CR1
#undef BICL_CR2
#define BICL_CR1(f, a)    f(a)
#define BICL_CR2(f, a, b) f(a, b)

/* Gated unit: the element of gate g and up u (bicl_ops.def's ORDER says how act(g) and u
 * combine). gpt-oss's clamped SwiGLU is one formula, rounded once. With round_dt =
 * BICL_GLU_RD_ONCE, silu and gelu_tanh times up are correctly rounded as one function
 * of (g, u) (bicl_math_glu_f32.h; NaN rule by the ORDER column: mul_and_silu's up
 * first); the exact activations (reglu, fatrelu) and swiglu_oai already round once, so
 * they take their usual path with round_dt = f32. GEGLU has no single-rounding form
 * (the host refuses it) and would get the two-rounding value here. */
BICL_FN float bicl_op_glu(int act, float g, float u, float p0, float p1, int round_dt)
{
    if (round_dt == BICL_GLU_RD_ONCE) {
        if (act == BICL_GLU_OP_SWIGLU) {
            return bicl_swiglu1(g, u);
        }
        if (act == BICL_GLU_OP_GEGLU_TANH) {
            return bicl_geglu_tanh1(g, u);
        }
        if (act == BICL_GLU_OP_MUL_AND_SILU) {
            return bicl_f32_is_nan(u) ? bicl_f32_quiet(u) : bicl_swiglu1(g, u);
        }
        round_dt = BICL_DT_F32;
    }
    return bicl_op_glu_twice(act, g, u, p0, p1, round_dt);
}

/* Binary ops, each rounded once: a + b, a - b, a * b; axpby is
 * round(round(alpha * a) + round(beta * b)). NaN rule: a first, then b.
 * The op is chosen by selects, not a switch (a loop with a switch is one PoCL's vectoriser
 * refuses; docs/performance.md); the kernels pass a constant op (cl/binary.cl), so the
 * other forms and the selects fold away. */
BICL_FN float bicl_op_binary(int op, float a, float b, float alpha, float beta)
{
    float sum = a + b;
    float diff = a - b;
    float prod = a * b;
    float pa = alpha * a;
    float pb = beta * b;
    float axpby = pa + pb;
    float r = op == BICL_BIN_SUB ? diff : sum;
    r = op == BICL_BIN_MUL ? prod : r;
    r = op == BICL_BIN_AXPBY ? axpby : r;
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
