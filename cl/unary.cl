/* unary.cl - bicl_unary: y = op(x) for every op and pair of storage dtypes. The op is
 * a compile-time constant of each kernel, so bicl_op_unary's switch folds away. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_pointwise_ops.h"

/* The identity op is served by bicl_cast (cast.cl); the element of the other ops:
 * load to f32, apply, store. */
#define UNARY_ELEM(TI, TO, a, OP, cap) BICL_SV_##TO(bicl_op_unary((OP), BICL_LD_##TI(a), cap))

#define UNARY_KERNELS(OPNAME, OP)                                                              \
    UNARY_PAIR(OPNAME, f32, f32)                                                           \
    UNARY_PAIR(OPNAME, f32, f16)                                                           \
    UNARY_PAIR(OPNAME, f32, bf16)                                                          \
    UNARY_PAIR(OPNAME, f16, f32)                                                           \
    UNARY_PAIR(OPNAME, f16, f16)                                                           \
    UNARY_PAIR(OPNAME, f16, bf16)                                                          \
    UNARY_PAIR(OPNAME, bf16, f32)                                                          \
    UNARY_PAIR(OPNAME, bf16, f16)                                                          \
    UNARY_PAIR(OPNAME, bf16, bf16)

#define UNARY_PAIR(OPNAME, TI, TO)                                                         \
    BICL_ALL_1_1(unary_##OPNAME##_##TI##_##TO, TI, TO, UNARY_ELEM_##OPNAME, BICL_XP_CAP,       \
                 BICL_XA_CAP)
#define BICL_XP_CAP() , float cap
#define BICL_XA_CAP() , cap

#define UNARY_ELEM_relu(TI, TO, a, cap)       UNARY_ELEM(TI, TO, a, BICL_OP_RELU, cap)
#define UNARY_ELEM_relu2(TI, TO, a, cap)      UNARY_ELEM(TI, TO, a, BICL_OP_RELU2, cap)
#define UNARY_ELEM_silu(TI, TO, a, cap)       UNARY_ELEM(TI, TO, a, BICL_OP_SILU, cap)
#define UNARY_ELEM_sigmoid(TI, TO, a, cap)    UNARY_ELEM(TI, TO, a, BICL_OP_SIGMOID, cap)
#define UNARY_ELEM_tanh_op(TI, TO, a, cap)      UNARY_ELEM(TI, TO, a, BICL_OP_TANH, cap)
#define UNARY_ELEM_gelu(TI, TO, a, cap)       UNARY_ELEM(TI, TO, a, BICL_OP_GELU, cap)
#define UNARY_ELEM_gelu_tanh(TI, TO, a, cap)  UNARY_ELEM(TI, TO, a, BICL_OP_GELU_TANH, cap)
#define UNARY_ELEM_gelu_quick(TI, TO, a, cap) UNARY_ELEM(TI, TO, a, BICL_OP_GELU_QUICK, cap)
#define UNARY_ELEM_softcap(TI, TO, a, cap)    UNARY_ELEM(TI, TO, a, BICL_OP_SOFTCAP, cap)

#ifndef BICL_SELECTED /* else the host appends one "UNARY_PAIR(op, ti, to)" */
UNARY_KERNELS(relu, BICL_OP_RELU)
UNARY_KERNELS(relu2, BICL_OP_RELU2)
UNARY_KERNELS(silu, BICL_OP_SILU)
UNARY_KERNELS(sigmoid, BICL_OP_SIGMOID)
UNARY_KERNELS(tanh_op, BICL_OP_TANH) /* "tanh" is a macro in OpenCL headers */
UNARY_KERNELS(gelu, BICL_OP_GELU)
UNARY_KERNELS(gelu_tanh, BICL_OP_GELU_TANH)
UNARY_KERNELS(gelu_quick, BICL_OP_GELU_QUICK)
UNARY_KERNELS(softcap, BICL_OP_SOFTCAP)
#endif
