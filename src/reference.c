/* reference.c - the host reference: the math headers of cl/ compiled as C (with
 * -ffp-contract=off, no fast-math), applied to contiguous host arrays. */
#include "internal.h"

#include "bicl_convert.h"

static bool is_float_dtype(bicl_dtype d)
{
    return d == BICL_F32 || d == BICL_F16 || d == BICL_BF16;
}

float bicl_ref_f16_to_f32(uint16_t h)
{
    return bicl_f16_to_f32(h);
}

uint16_t bicl_ref_f32_to_f16(float x)
{
    return bicl_f32_to_f16(x);
}

float bicl_ref_bf16_to_f32(uint16_t h)
{
    return bicl_bf16_to_f32(h);
}

uint16_t bicl_ref_f32_to_bf16(float x)
{
    return bicl_f32_to_bf16(x);
}

bicl_status bicl_ref_cast(bicl_dtype x_dtype, const void *x, bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    if (!x || !y)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_cast: NULL array");
    if (!is_float_dtype(x_dtype) || !is_float_dtype(y_dtype))
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "bicl_ref_cast: %s -> %s",
                         bicl_dtype_name(x_dtype), bicl_dtype_name(y_dtype));
    size_t xs = bicl_dtype_size(x_dtype), ys = bicl_dtype_size(y_dtype);
    const unsigned char *xb = x;
    unsigned char *yb = y;
    for (size_t i = 0; i < n; ++i) {
        if (x_dtype == y_dtype) { /* bits are copied, signalling NaN included */
            memcpy(yb + i * ys, xb + i * xs, xs);
            continue;
        }
        float v;
        if (x_dtype == BICL_F32) {
            memcpy(&v, xb + i * 4, 4);
        } else {
            uint16_t h;
            memcpy(&h, xb + i * 2, 2);
            v = x_dtype == BICL_F16 ? bicl_f16_to_f32(h) : bicl_bf16_to_f32(h);
        }
        if (y_dtype == BICL_F32) {
            memcpy(yb + i * 4, &v, 4);
        } else {
            uint16_t h = y_dtype == BICL_F16 ? bicl_f32_to_f16(v) : bicl_f32_to_bf16(v);
            memcpy(yb + i * 2, &h, 2);
        }
    }
    return BICL_SUCCESS;
}
