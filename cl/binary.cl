/* binary.cl - bicl_binary / bicl_axpby (a op b, any three dtypes; the op is an
 * argument: one uniform branch), bicl_scale (x * s) and bicl_residual_add (f32 residual
 * plus x, two outputs). */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_pointwise_ops.h"

/* E: the op's code, a constant of the kernel (binary_<op>_<ta>_<tb>_<to>_...). */
#define BIN_XP() , float alpha, float beta
#define BIN_XA() , alpha, beta
#define BIN_ELEM(E, TA, TB, TO, a, b, alpha, beta)                                                 \
    BICL_SV_##TO(bicl_op_binary(E, BICL_LD_##TA(a), BICL_LD_##TB(b), alpha, beta))
#define BIN_OP(TA, TB, TO, NAME, CODE)                                                             \
    BICL_ALL_2_1(binary_##NAME##_##TA##_##TB##_##TO, TA, TB, TO, BIN_ELEM, CODE, BIN_XP, BIN_XA)

/* Instances the host appends: "BIN_PAIR(ta, tb, to)", "SCALE_PAIR(ti, to)",
 * "RESIDUAL_PAIR(tx, ty)". BIN_PAIR's program has every op's kernels, each with its op a
 * constant (one kernel for every op computed all four forms: NVIDIA's PTX of bf16 rows_v8
 * 1070 lines, the add kernel now 407; docs/performance.md); PoCL builds the four ops'
 * program in about the time of one op's (0.71 against 0.63 s), so one program per dtype
 * triple stays. */
#define BIN_PAIR(TA, TB, TO) BICL_BINARY_OPS(BIN_OP, TA, TB, TO)
#define BIN_B(TA, TB) BIN_PAIR(TA, TB, f32) BIN_PAIR(TA, TB, f16) BIN_PAIR(TA, TB, bf16)

#define SCALE_XP()                  , float s
#define SCALE_XA()                  , s
#define SCALE_ELEM(E, TI, TO, x, s) BICL_SV_##TO(bicl_op_scale(BICL_LD_##TI(x), s))
#define SCALE_PAIR(TI, TO)                                                                         \
    BICL_ALL_1_1(scale_##TI##_##TO, TI, TO, SCALE_ELEM, _, SCALE_XP, SCALE_XA)

/* r = residual + x, one rounding; residual_out = r, y = r in y's dtype. */
#define RESIDUAL_ELEM(TA, TB, TO, TP, res, x, ro, y)                                               \
    do {                                                                                           \
        float r_ = bicl_op_binary(BICL_BIN_ADD, BICL_LD_##TA(res), BICL_LD_##TB(x), 0.0f, 0.0f);   \
        (ro) = BICL_SV_##TO(r_);                                                                   \
        (y) = BICL_SV_##TP(r_);                                                                    \
    } while (0)
#define RESIDUAL_PAIR(TX, TY)                                                                      \
    BICL_ALL_2_2(residual_##TX##_##TY, f32, TX, f32, TY, RESIDUAL_ELEM, BICL_NONE, BICL_NONE)

#ifndef BICL_SELECTED
BICL_FOR_DTYPE_PAIRS(BIN_B)
BICL_FOR_DTYPE_PAIRS(SCALE_PAIR)
BICL_FOR_DTYPE_PAIRS(RESIDUAL_PAIR)
#endif
