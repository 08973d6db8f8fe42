/* bicl_math_act_f32.h - the activations added through the registry (bicl_ops.def),
 * built from the primitives of bicl_math_f32.h under the same rules. */
#ifndef BICL_MATH_ACT_F32_H
#define BICL_MATH_ACT_F32_H

#include "bicl_math_f32.h"

#endif /* BICL_MATH_ACT_F32_H */
