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

#ifndef BICL_SELECTED /* else the host appends one "GLU_PAIR(act, ti, to)" */
GLU_KERNELS(swiglu)
GLU_KERNELS(geglu)
GLU_KERNELS(geglu_tanh)
GLU_KERNELS(reglu)
GLU_KERNELS(swiglu_oai)
#endif
