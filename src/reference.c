/* reference.c - the host reference: the math headers of cl/ compiled as C (with
 * -ffp-contract=off, no fast-math), applied to contiguous host arrays. */
#include "reference.h"
#include "status.h"

#include "bicl_convert.h"

static bool is_float_dtype(bicl_dtype d)
{
    return d < BICL_DTYPE_COUNT_ && ((1u << d) & BICL_FLOAT_DTYPES);
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

float bicl_ref_load(bicl_dtype dt, const void *p, size_t i)
{
    const unsigned char *b = p;
    if (dt == BICL_F32) {
        float v;
        memcpy(&v, b + i * 4, 4);
        return v;
    }
    uint16_t h;
    memcpy(&h, b + i * 2, 2);
    return dt == BICL_F16 ? bicl_f16_to_f32(h) : bicl_bf16_to_f32(h);
}

void bicl_ref_store(bicl_dtype dt, void *p, size_t i, float v)
{
    unsigned char *b = p;
    if (dt == BICL_F32) {
        memcpy(b + i * 4, &v, 4);
        return;
    }
    uint16_t h = dt == BICL_F16 ? bicl_f32_to_f16(v) : bicl_f32_to_bf16(v);
    memcpy(b + i * 2, &h, 2);
}

void bicl_ref_copy_elem(bicl_dtype in, const void *x, size_t i, bicl_dtype out, void *y, size_t j)
{
    if (in == out) { /* bits are copied, signalling NaN included */
        size_t es = bicl_dtype_size(in);
        memcpy((unsigned char *)y + j * es, (const unsigned char *)x + i * es, es);
        return;
    }
    bicl_ref_store(out, y, j, bicl_ref_load(in, x, i));
}

bicl_status bicl_ref_cast(bicl_dtype x_dtype, const void *x, bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    if (!x || !y)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_cast: NULL array");
    if (!is_float_dtype(x_dtype) || !is_float_dtype(y_dtype))
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "bicl_ref_cast: %s -> %s",
                         bicl_dtype_name(x_dtype), bicl_dtype_name(y_dtype));
    for (size_t i = 0; i < n; ++i)
        bicl_ref_copy_elem(x_dtype, x, i, y_dtype, y, i);
    return BICL_SUCCESS;
}
