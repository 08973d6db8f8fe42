/* glu.cl - bicl_glu: y = act(gate) * up for every activation, gate/up dtype and output
 * dtype. The activation is a compile-time constant of each kernel; alpha, limit and the
 * rounding of the activation to the storage dtype are arguments. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_pointwise_ops.h"

#define GLU_XP() , float alpha, float limit, int round_dt
#define GLU_XA() , alpha, limit, round_dt
#define GLU_ELEM(TA, TB, TO, g, u, ACT, alpha, limit, round_dt)                                \
    BICL_SV_##TO(bicl_op_glu((ACT), BICL_LD_##TA(g), BICL_LD_##TB(u), alpha, limit, round_dt))

#define GLU_ELEM_swiglu(TA, TB, TO, g, u, al, li, rd)                                          \
    GLU_ELEM(TA, TB, TO, g, u, BICL_GLU_OP_SWIGLU, al, li, rd)
#define GLU_ELEM_geglu(TA, TB, TO, g, u, al, li, rd)                                           \
    GLU_ELEM(TA, TB, TO, g, u, BICL_GLU_OP_GEGLU, al, li, rd)
#define GLU_ELEM_geglu_tanh(TA, TB, TO, g, u, al, li, rd)                                      \
    GLU_ELEM(TA, TB, TO, g, u, BICL_GLU_OP_GEGLU_TANH, al, li, rd)
#define GLU_ELEM_reglu(TA, TB, TO, g, u, al, li, rd)                                           \
    GLU_ELEM(TA, TB, TO, g, u, BICL_GLU_OP_REGLU, al, li, rd)
#define GLU_ELEM_swiglu_oai(TA, TB, TO, g, u, al, li, rd)                                      \
    GLU_ELEM(TA, TB, TO, g, u, BICL_GLU_OP_SWIGLU_OAI, al, li, rd)

#define GLU_PAIR(ACT, TI, TO)                                                                  \
    BICL_ALL_2_1(glu_##ACT##_##TI##_##TO, TI, TI, TO, GLU_ELEM_##ACT, GLU_XP, GLU_XA)
#define GLU_KERNELS(ACT)                                                                       \
    GLU_PAIR(ACT, f32, f32)                                                                    \
    GLU_PAIR(ACT, f32, f16)                                                                    \
    GLU_PAIR(ACT, f32, bf16)                                                                   \
    GLU_PAIR(ACT, f16, f32)                                                                    \
    GLU_PAIR(ACT, f16, f16)                                                                    \
    GLU_PAIR(ACT, f16, bf16)                                                                   \
    GLU_PAIR(ACT, bf16, f32)                                                                   \
    GLU_PAIR(ACT, bf16, f16)                                                                   \
    GLU_PAIR(ACT, bf16, bf16)

/* Lookup-table kernels (BICL_OPTION_ACT_TABLES) for a 16-bit gate and an activation
 * without a parameter: the host stores a = bicl_op_glu(act, gate, 1, ...) for every
 * one of the 65536 gates (src/pointwise.c: table_values calls bicl_ref_glu with up = 1;
 * a * 1 is exact, so that is act(gate) rounded to f32, or to the gate's dtype when
 * round_dt says so; a NaN a becomes quiet(a), which the product's NaN rule makes of it
 * anyway). The kernel then does
 * bicl_op_glu's last step, a * up with the NaN rule activation first, then up: that
 * is bicl_op_binary's MUL exactly (bicl_f32_nan_fix2(a * up, a, up)), so the shared
 * source is used rather than a copy. tests/test_pointwise.c compares both paths over
 * all 65536 gates.
 *   glu_table_*:   round_dt f32: 32-bit entries, the f32 bits of a (256 KiB).
 *   glu_table16_*: round_dt = the gate's dtype: a is a value of that 16-bit dtype, so
 *                  the entry is its 16 bits (128 KiB, the footprint argument of
 *                  unary.cl) and the kernel widens it exactly (bicl_convert.h's
 *                  widening, which inverts the narrowing on every value it produced,
 *                  NaNs included). */
#define GLU_TABLE_XP()   , global const uint *restrict tab
#define GLU_TABLE16_XP() , global const ushort *restrict tab
#define GLU_TABLE_XA()   , tab
#define GLU_TABLE_MUL(TB, TO, a, u)                                                                \
    BICL_SV_##TO(bicl_op_binary(BICL_BIN_MUL, (a), BICL_LD_##TB(u), 0.0f, 0.0f))
#define GLU_TABLE_ELEM(TA, TB, TO, g, u, tab)   GLU_TABLE_MUL(TB, TO, as_float((tab)[g]), u)
#define GLU_TABLE16_ELEM(TA, TB, TO, g, u, tab) GLU_TABLE_MUL(TB, TO, BICL_LD_##TA((tab)[g]), u)
#define GLU_TABLE(TI, TO)                                                                          \
    BICL_ALL_2_1(glu_table_##TI##_##TO, TI, TI, TO, GLU_TABLE_ELEM, GLU_TABLE_XP, GLU_TABLE_XA)    \
    BICL_ALL_2_1(glu_table16_##TI##_##TO, TI, TI, TO, GLU_TABLE16_ELEM, GLU_TABLE16_XP,            \
                 GLU_TABLE_XA)

#ifndef BICL_SELECTED /* else the host appends one "GLU_PAIR(act, ti, to)" or
                       * "GLU_TABLE(ti, to)" */
GLU_KERNELS(swiglu)
GLU_KERNELS(geglu)
GLU_KERNELS(geglu_tanh)
GLU_KERNELS(reglu)
GLU_KERNELS(swiglu_oai)
GLU_TABLE(f16, f32)
GLU_TABLE(f16, f16)
GLU_TABLE(f16, bf16)
GLU_TABLE(bf16, f32)
GLU_TABLE(bf16, f16)
GLU_TABLE(bf16, bf16)
#endif
