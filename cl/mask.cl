/* mask.cl - mask fills. Unfilled elements are converted as bicl_cast does (bits copied
 * for equal dtypes); filled ones get `fill` in the output dtype. The lengths and
 * causal forms need element coordinates, so they run on the un-merged 4-d shape. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_pointwise_ops.h"

#define FILL_XP()                            , float fill
#define FILL_XA()                            , fill
#define MASK_ELEM(E, TA, TB, TO, x, m, fill) ((m) != 0 ? BICL_SV_##TO(fill) : BICL_CONV(TA, TO, x))

/* x and y with 4-d strides over the right-aligned shape; c.s3 is the column, c.s2 the
 * row. lengths: i32 with 4-d strides (0 on the column dim). */
#define MASK_POSITIONAL(TI, TO)                                                                    \
    kernel void mask_lengths_##TI##_##TO(global const BICL_ST_##TI *x, ulong xo, ulong4 xs,        \
                                         global BICL_ST_##TO *y, ulong yo, ulong4 ys,              \
                                         global const int *len, ulong lo, ulong4 ls, ulong4 shape, \
                                         ulong n, uint ipt, float fill)                            \
    {                                                                                              \
        BICL_FOR_UNITS(l, n, ipt)                                                                  \
        {                                                                                          \
            ulong4 c = bicl_unravel(l, shape);                                                     \
            long limit = len[lo + bicl_dot(c, ls)];                                                \
            BICL_ST_##TI v = x[xo + bicl_dot(c, xs)];                                              \
            y[yo + bicl_dot(c, ys)] =                                                              \
                (long)c.s3 >= limit ? BICL_SV_##TO(fill) : BICL_CONV(TI, TO, v);                   \
        }                                                                                          \
    }                                                                                              \
    kernel void mask_causal_##TI##_##TO(global const BICL_ST_##TI *x, ulong xo, ulong4 xs,         \
                                        global BICL_ST_##TO *y, ulong yo, ulong4 ys, ulong4 shape, \
                                        ulong n, uint ipt, long offset, float fill)                \
    {                                                                                              \
        BICL_FOR_UNITS(l, n, ipt)                                                                  \
        {                                                                                          \
            ulong4 c = bicl_unravel(l, shape);                                                     \
            BICL_ST_##TI v = x[xo + bicl_dot(c, xs)];                                              \
            y[yo + bicl_dot(c, ys)] = bicl_causal_filled((long)c.s3, (long)c.s2, offset)           \
                                          ? BICL_SV_##TO(fill)                                     \
                                          : BICL_CONV(TI, TO, v);                                  \
        }                                                                                          \
    }

/* Instances the host appends: "MASK_TENSOR(mt, ti, to)" (mt: u8 or i32) and
 * "MASK_POSITIONAL(ti, to)". */
#define MASK_TENSOR(MT, TI, TO)                                                                    \
    BICL_ALL_2_1(mask_##MT##_##TI##_##TO, TI, MT, TO, MASK_ELEM, _, FILL_XP, FILL_XA)
#define MASK_PAIR(TI, TO) MASK_TENSOR(u8, TI, TO) MASK_TENSOR(i32, TI, TO) MASK_POSITIONAL(TI, TO)
#ifndef BICL_SELECTED
BICL_FOR_DTYPE_PAIRS(MASK_PAIR)
#endif
