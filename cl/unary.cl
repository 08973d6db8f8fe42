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

/* Lookup-table kernels (BICL_OPTION_ACT_TABLES): for an f16/bf16 input and an op
 * without a parameter, the host computes the stored result of every one of the 65536
 * inputs once per context with the host reference (src/pointwise.c: table_values
 * calls bicl_ref_unary, the same math source as UNARY_ELEM), so an element is one
 * gather, y = tab[bits(x)], with the same bits as UNARY_ELEM by construction. The
 * loads and stores of x and y keep the template's vector moves; the gather is scalar.
 * One kernel set per dtype pair serves every op: the op is the table passed.
 *
 * The entry is y's storage type: f32 output -> the f32 bits of op(x) (256 KiB);
 * f16/bf16 output -> op(x) already rounded to y's dtype (128 KiB). The 16-bit entries
 * cost a table per output dtype instead of one per input dtype (tables are built only
 * when used), and buy (a) half the footprint, so the whole table fits a GPU's L1 /
 * texture cache (H200: 256 KB of L1 and local memory per SM, which a 256 KiB table
 * cannot share with anything), and (b) no f32 -> 16-bit rounding in the kernel: the element is
 * a pure gather, which is what keeps the kernel memory-bound. The table pointer is
 * const restrict (never written, aliases nothing), so that a driver may read it
 * through its read-only/texture cache path (NVIDIA: ld.global.nc). */
#define UNARY_TABLE_ELEM(TI, TO, a, tab) ((tab)[a])
#define UNARY_TABLE_XP_f32()             , global const uint *restrict tab
#define UNARY_TABLE_XP_f16()             , global const ushort *restrict tab
#define UNARY_TABLE_XP_bf16()            , global const ushort *restrict tab
#define UNARY_TABLE_XA()                 , tab
#define UNARY_TABLE(TI, TO)                                                                        \
    BICL_ALL_1_1(unary_table_##TI##_##TO, TI, TO, UNARY_TABLE_ELEM, UNARY_TABLE_XP_##TO,           \
                 UNARY_TABLE_XA)

#ifndef BICL_SELECTED /* else the host appends one "UNARY_PAIR(op, ti, to)" or
                       * "UNARY_TABLE(ti, to)" */
UNARY_KERNELS(relu, BICL_OP_RELU)
UNARY_KERNELS(relu2, BICL_OP_RELU2)
UNARY_KERNELS(silu, BICL_OP_SILU)
UNARY_KERNELS(sigmoid, BICL_OP_SIGMOID)
UNARY_KERNELS(tanh_op, BICL_OP_TANH) /* "tanh" is a macro in OpenCL headers */
UNARY_KERNELS(gelu, BICL_OP_GELU)
UNARY_KERNELS(gelu_tanh, BICL_OP_GELU_TANH)
UNARY_KERNELS(gelu_quick, BICL_OP_GELU_QUICK)
UNARY_KERNELS(softcap, BICL_OP_SOFTCAP)
UNARY_TABLE(f16, f32)
UNARY_TABLE(f16, f16)
UNARY_TABLE(f16, bf16)
UNARY_TABLE(bf16, f32)
UNARY_TABLE(bf16, f16)
UNARY_TABLE(bf16, bf16)
#endif
