/* bicl_rope_rotate.h - the rotation of one pair, shared by the RoPE kernel and the host
 * reference. f32 compute: each product rounded to f32, then the sum (FP_CONTRACT OFF,
 * no fma), which is how HF's q * cos + rotate_half(q) * sin rounds in f32:
 *   forward:  o0 = x0 * c - x1 * s,   o1 = x1 * c + x0 * s
 *   inverse:  o0 = x0 * c + x1 * s,   o1 = x1 * c - x0 * s   (rotation by -angle)
 * NaN rule: a NaN output takes its own element's NaN first (o0: x0 then x1; o1: x1
 * then x0), quieted; a NaN from non-NaN inputs (inf - inf) is the canonical NaN. */
#ifndef BICL_ROPE_ROTATE_H
#define BICL_ROPE_ROTATE_H
#include "bicl_portable.h"

/* The products and the sum alone, before the NaN rule (for a caller that applies the rule
 * on the stored words: cl/rope.cl's rope_rot_w16). */
BICL_FN float bicl_rope_rot0_raw(float x0, float x1, float c, float s, int inverse)
{
    float a = x0 * c;
    float b = x1 * s;
    return inverse ? a + b : a - b;
}

BICL_FN float bicl_rope_rot1_raw(float x0, float x1, float c, float s, int inverse)
{
    float a = x1 * c;
    float b = x0 * s;
    return inverse ? a - b : a + b;
}

BICL_FN float bicl_rope_rot0(float x0, float x1, float c, float s, int inverse)
{
    return bicl_f32_nan_fix2(bicl_rope_rot0_raw(x0, x1, c, s, inverse), x0, x1);
}

BICL_FN float bicl_rope_rot1(float x0, float x1, float c, float s, int inverse)
{
    return bicl_f32_nan_fix2(bicl_rope_rot1_raw(x0, x1, c, s, inverse), x1, x0);
}

#endif /* BICL_ROPE_ROTATE_H */
