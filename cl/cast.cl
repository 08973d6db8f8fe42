/* cast.cl - bicl_cast: f32, f16, bf16 to each other. Pure bit work (bicl_convert.h):
 * the same dtype copies bits, widening is exact, narrowing rounds to nearest even. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"

#define CAST_ELEM(TI, TO, a) BICL_CONV(TI, TO, a)

BICL_ALL_1_1(cast_f32_f32, f32, f32, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_f32_f16, f32, f16, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_f32_bf16, f32, bf16, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_f16_f32, f16, f32, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_f16_f16, f16, f16, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_f16_bf16, f16, bf16, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_bf16_f32, bf16, f32, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_bf16_f16, bf16, f16, CAST_ELEM, BICL_NONE, BICL_NONE)
BICL_ALL_1_1(cast_bf16_bf16, bf16, bf16, CAST_ELEM, BICL_NONE, BICL_NONE)
