/* cast.cl - bicl_cast: f32, f16, bf16 to each other. Pure bit work (bicl_convert.h):
 * the same dtype copies bits, widening is exact, narrowing rounds to nearest even. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"

#define CAST_ELEM(E, TI, TO, a) BICL_CONV(TI, TO, a)

/* One op and dtype combination (the host appends e.g. "CAST_PAIR(f32, bf16)"). */
#define CAST_PAIR(TI, TO) BICL_ALL_1_1(cast_##TI##_##TO, TI, TO, CAST_ELEM, _, BICL_NONE, BICL_NONE)

#ifndef BICL_SELECTED
BICL_FOR_DTYPE_PAIRS(CAST_PAIR)
#endif
