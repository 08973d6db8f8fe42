/* unary.cl - bicl_unary: y = op(x) for every op and pair of storage dtypes. The op is
 * a compile-time constant of each kernel, so bicl_op_unary's switch folds away. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_pointwise_ops.h"

/* The identity op is served by bicl_cast (cast.cl); the element of the other ops:
 * load to f32, apply, store. An op of NP parameters gets them as kernel arguments p0...;
 * one without any still takes p0 (the host passes 0), so every kernel of one arity has the
 * same argument list. */
#define UNARY_XP_0() , float p0
#define UNARY_XA_0() , p0
#define UNARY_XP_1() , float p0
#define UNARY_XA_1() , p0
#define UNARY_XP_2() , float p0, float p1
#define UNARY_XA_2() , p0, p1
#define UNARY_XP_4() , float p0, float p1, float p2, float p3
#define UNARY_XA_4() , p0, p1, p2, p3
#define UNARY_ELEM(OP, TI, TO, a, p0, p1, p2, p3)                                                  \
    BICL_SV_##TO(bicl_op_unary((OP), BICL_LD_##TI(a), p0, p1, p2, p3))
#define UNARY_ELEM_0(OP, TI, TO, a, p0)             UNARY_ELEM(OP, TI, TO, a, p0, 0.0f, 0.0f, 0.0f)
#define UNARY_ELEM_1(OP, TI, TO, a, p0)             UNARY_ELEM(OP, TI, TO, a, p0, 0.0f, 0.0f, 0.0f)
#define UNARY_ELEM_2(OP, TI, TO, a, p0, p1)         UNARY_ELEM(OP, TI, TO, a, p0, p1, 0.0f, 0.0f)
#define UNARY_ELEM_4(OP, TI, TO, a, p0, p1, p2, p3) UNARY_ELEM(OP, TI, TO, a, p0, p1, p2, p3)

/* The kernels of one op (kernel-name part KN, registry ID, NP parameters) and dtype pair:
 * the host appends e.g. "UNARY_PAIR(silu, SILU, 0, bf16, bf16)" (src/pointwise.c). */
#define UNARY_PAIR(KN, ID, NP, TI, TO)                                                             \
    BICL_ALL_1_1(unary_##KN##_##TI##_##TO, TI, TO, UNARY_ELEM_##NP, BICL_OP_##ID, UNARY_XP_##NP,   \
                 UNARY_XA_##NP)
/* The fix-up form (BICL_ROWS_F_1_1) of one op and dtype pair, a program of its own: the
 * host appends "UNARY_FIX(silu, SILU, 0, f32, f32)" where the profile wants it for an op
 * whose EXPR has a fast form (src/pointwise.c). */
#define UNARY_FAST(OP, TI, TO, a, okp, p0, p1, p2, p3)                                             \
    BICL_SV_##TO(bicl_op_unary_fast((OP), BICL_LD_##TI(a), p0, p1, p2, p3, okp))
#define UNARY_FAST_0(OP, TI, TO, a, okp, p0)                                                       \
    UNARY_FAST(OP, TI, TO, a, okp, p0, 0.0f, 0.0f, 0.0f)
#define UNARY_FAST_1(OP, TI, TO, a, okp, p0)                                                       \
    UNARY_FAST(OP, TI, TO, a, okp, p0, 0.0f, 0.0f, 0.0f)
#define UNARY_FAST_2(OP, TI, TO, a, okp, p0, p1) UNARY_FAST(OP, TI, TO, a, okp, p0, p1, 0.0f, 0.0f)
#define UNARY_FAST_4(OP, TI, TO, a, okp, p0, p1, p2, p3)                                           \
    UNARY_FAST(OP, TI, TO, a, okp, p0, p1, p2, p3)
#define UNARY_FIX(KN, ID, NP, TI, TO)                                                              \
    BICL_ROWS_F_1_1(unary_##KN##_##TI##_##TO, TI, TO, UNARY_FAST_##NP, UNARY_ELEM_##NP,            \
                    BICL_OP_##ID, UNARY_XP_##NP, UNARY_XA_##NP)

#define UNARY_X_KERNELS(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)      \
    BICL_FOR_DTYPE_PAIRS_3(UNARY_PAIR, kname, ID, BICL_NP_##PF)

/* Lookup-table kernels (BICL_OPTION_ACT_TABLES): for an f16/bf16 input and an op
 * without a parameter, the host computes the stored result of every one of the 65536
 * inputs once per context with the host reference (src/pointwise.c: table_values
 * calls bicl_ref_unary, the same math source as UNARY_ELEM), so an element is one
 * gather, y = tab[bits(x)], with the same bits as UNARY_ELEM by construction. The
 * loads and stores of x and y keep the template's vector moves; the gather is scalar
 * (a 16-bit entry read as its 32-bit word, bicl_table16_at).
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
#define UNARY_TABLE_AT_f32(tab, a)          ((tab)[a])
#define UNARY_TABLE_AT_f16(tab, a)          bicl_table16_at(tab, a)
#define UNARY_TABLE_AT_bf16(tab, a)         bicl_table16_at(tab, a)
#define UNARY_TABLE_ELEM(E, TI, TO, a, tab) UNARY_TABLE_AT_##TO(tab, a)
#define UNARY_TABLE_XP()                    , global const uint *restrict tab
#define UNARY_TABLE_XA()                    , tab
#define UNARY_TABLE(TI, TO)                                                                        \
    BICL_ALL_1_1(unary_table_##TI##_##TO, TI, TO, UNARY_TABLE_ELEM, _, UNARY_TABLE_XP,             \
                 UNARY_TABLE_XA)
/* The compact form of a 16-bit output's table (BICL_OPTION_ACT_TABLES "compact":
 * src/act_tables.c builds it, cl/bicl_table_compact.h): "UNARY_TABLE_COMPACT(ti, to)", to
 * f16 or bf16. */
#define UNARY_TABLE_COMPACT_ELEM(E, TI, TO, a, tab) bicl_table16_compact_at(tab, a)
#define UNARY_TABLE_COMPACT(TI, TO)                                                                \
    BICL_ALL_1_1(unary_table_compact_##TI##_##TO, TI, TO, UNARY_TABLE_COMPACT_ELEM, _,             \
                 UNARY_TABLE_XP, UNARY_TABLE_XA)

#ifndef BICL_SELECTED /* else the host appends one "UNARY_PAIR(...)" or a table instance */
BICL_UNARY_OPS(UNARY_X_KERNELS)
BICL_FOR_16BIT_DTYPE_PAIRS(UNARY_TABLE)
UNARY_TABLE_COMPACT(f16, f16)
UNARY_TABLE_COMPACT(f16, bf16)
UNARY_TABLE_COMPACT(bf16, f16)
UNARY_TABLE_COMPACT(bf16, bf16)
#endif
