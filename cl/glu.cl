/* glu.cl - bicl_glu: y = act(gate) * up for every activation, gate/up dtype and output
 * dtype. The activation is a compile-time constant of each kernel; alpha, limit and the
 * rounding of the activation to the storage dtype are arguments. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_pointwise_ops.h"

/* Every GLU kernel takes two float parameters p0, p1 (the registry's PF column; zero
 * when the activation has fewer) and round_dt, the dtype act(gate) is rounded to. */
#define GLU_XP() , float p0, float p1, int round_dt
#define GLU_XA() , p0, p1, round_dt
/* The rounding modes that round act(gate) first (round_dt f32 or the gate's dtype), and
 * the single-rounding mode in kernels of its own (glu1_*, round_dt unused): a kernel
 * that could take either would carry both modes' code and registers. */
#define GLU_ELEM(ACT, TA, TB, TO, g, u, p0, p1, round_dt)                                          \
    BICL_SV_##TO(bicl_op_glu_twice((ACT), BICL_LD_##TA(g), BICL_LD_##TB(u), p0, p1, round_dt))
#define GLU_ELEM_ONCE(ACT, TA, TB, TO, g, u, p0, p1, round_dt)                                     \
    BICL_SV_##TO(bicl_op_glu((ACT), BICL_LD_##TA(g), BICL_LD_##TB(u), p0, p1, BICL_GLU_RD_ONCE))

/* The kernels of one activation (kernel-name part KN, registry ID) and dtype pair: the
 * host appends e.g. "GLU_PAIR(swiglu, SWIGLU, bf16, bf16)", or "GLU_PAIR_ONCE(...)" for
 * BICL_GLU_ROUND_ONCE (src/pointwise.c). */
#define GLU_PAIR(KN, ID, TI, TO)                                                                   \
    BICL_ALL_2_1(glu_##KN##_##TI##_##TO, TI, TI, TO, GLU_ELEM, BICL_GLU_OP_##ID, GLU_XP, GLU_XA)
#define GLU_PAIR_ONCE(KN, ID, TI, TO)                                                              \
    BICL_ALL_2_1(glu1_##KN##_##TI##_##TO, TI, TI, TO, GLU_ELEM_ONCE, BICL_GLU_OP_##ID, GLU_XP,     \
                 GLU_XA)
/* The fix-up form (BICL_ROWS_F_2_1) of the two-rounding kernels, a program of its own
 * per rounding dtype RD (BICL_DT_*: the round_dt the host passes, a constant of the fast
 * side, whose switch on it kept PoCL's work-item loop scalar: swiglu f32 3.5 GB/s
 * against 9.9 with the constant, docs/performance.md): "GLU_FIX(swiglu, SWIGLU, f32, f32,
 * 0)" where the profile wants it for an activation whose EXPR has a fast form
 * (src/pointwise.c). */
#define GLU_FAST_AT(RD, ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)                              \
    BICL_SV_##TO(bicl_op_glu_twice_fast((ACT), BICL_LD_##TA(g), BICL_LD_##TB(u), p0, p1, (RD), okp))
/* one per rounding dtype, the arguments spelt out: OpenCL C 1.2 has no variadic macros */
#define GLU_FAST_0(ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)                                   \
    GLU_FAST_AT(BICL_DT_F32, ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)
#define GLU_FAST_1(ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)                                   \
    GLU_FAST_AT(BICL_DT_F16, ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)
#define GLU_FAST_2(ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)                                   \
    GLU_FAST_AT(BICL_DT_BF16, ACT, TA, TB, TO, g, u, okp, p0, p1, round_dt)
#define GLU_FIX(KN, ID, TI, TO, RD)                                                                \
    BICL_ROWS_F_2_1(glu_##KN##_##TI##_##TO##_rd##RD, TI, TI, TO, GLU_FAST_##RD, GLU_ELEM,          \
                    BICL_GLU_OP_##ID, GLU_XP, GLU_XA)
#define GLU_PAIR_3(KN, ID, UNUSED, TI, TO)      GLU_PAIR(KN, ID, TI, TO)
#define GLU_PAIR_ONCE_3(KN, ID, UNUSED, TI, TO) GLU_PAIR_ONCE(KN, ID, TI, TO)
#define GLU_X_KERNELS(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER) \
    BICL_FOR_DTYPE_PAIRS_3(GLU_PAIR_3, kname, ID, _)                                               \
    BICL_FOR_DTYPE_PAIRS_3(GLU_PAIR_ONCE_3, kname, ID, _)

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
#define GLU_TABLE_XA()   , tab
/* The product by the activation's ORDER (bicl_ops.def), passed as the template's E. */
#define GLU_TABLE_MUL_ACT(TB, TO, a, u)                                                            \
    BICL_SV_##TO(bicl_op_binary(BICL_BIN_MUL, (a), BICL_LD_##TB(u), 0.0f, 0.0f))
#define GLU_TABLE_MUL_UP(TB, TO, a, u)                                                             \
    BICL_SV_##TO(bicl_op_binary(BICL_BIN_MUL, BICL_LD_##TB(u), (a), 0.0f, 0.0f))
#define GLU_TABLE_ELEM(ORD, TA, TB, TO, g, u, tab)                                                 \
    GLU_TABLE_MUL_##ORD(TB, TO, as_float((tab)[g]), u)
#define GLU_TABLE16_ELEM(ORD, TA, TB, TO, g, u, tab)                                               \
    GLU_TABLE_MUL_##ORD(TB, TO, BICL_LD_##TA(bicl_table16_at(tab, g)), u)
#define GLU_TABLES(PFX, ORD, TI, TO)                                                               \
    BICL_ALL_2_1(glu_table##PFX##_##TI##_##TO, TI, TI, TO, GLU_TABLE_ELEM, ORD, GLU_TABLE_XP,      \
                 GLU_TABLE_XA)                                                                     \
    BICL_ALL_2_1(glu_table16##PFX##_##TI##_##TO, TI, TI, TO, GLU_TABLE16_ELEM, ORD, GLU_TABLE_XP,  \
                 GLU_TABLE_XA)
/* Instances the host appends: "GLU_TABLE(ti, to)" (order ACT), "GLU_TABLE_UP(ti, to)". */
#define GLU_TABLE(TI, TO)      GLU_TABLES(, ACT, TI, TO)
#define GLU_TABLE_UP(TI, TO)   GLU_TABLES(_up, UP, TI, TO)
#define GLU_TABLE_BOTH(TI, TO) GLU_TABLE(TI, TO) GLU_TABLE_UP(TI, TO)

#ifndef BICL_SELECTED /* else the host appends one "GLU_PAIR(...)" or a table instance */
BICL_GLU_OPS(GLU_X_KERNELS)
BICL_FOR_16BIT_DTYPE_PAIRS(GLU_TABLE_BOTH)
#endif
