/* pointwise_ref.c - host reference of the pointwise ops: the formulas of
 * cl/bicl_pointwise_ops.h compiled as C, over contiguous host arrays. */
#include "reference.h"
#include "ops.h"
#include "status.h"

#include "bicl_pointwise_ops.h"

#include <limits.h>
#include <math.h>

static bool is_float(bicl_dtype d)
{
    return (int)d >= 0 && d < BICL_DTYPE_COUNT_ && ((1u << d) & BICL_FLOAT_DTYPES);
}

static bicl_status check_arrays(const void *a, const void *b, const void *y, bicl_dtype da,
                                bicl_dtype db, bicl_dtype dy, const char *op)
{
    if (!a || !b || !y)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: NULL array", op);
    if (!is_float(da) || !is_float(db) || !is_float(dy))
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "%s: f32, f16 and bf16 only", op);
    return BICL_SUCCESS;
}

bicl_status bicl_ref_unary(bicl_unary_op op, const bicl_unary_params *params, bicl_dtype x_dtype,
                           const void *x, bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    bicl_status st = check_arrays(x, x, y, x_dtype, x_dtype, y_dtype, "bicl_ref_unary");
    if (st != BICL_SUCCESS)
        return st;
    if ((int)op < 0 || op >= BICL_UNARY_COUNT_)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "bicl_ref_unary: op %d", (int)op);
    float p[BICL_OP_MAX_PARAMS];
    st = bicl_unary_params_gather((int)op, params, p, "bicl_ref_unary", false);
    if (st != BICL_SUCCESS)
        return st;
    for (size_t i = 0; i < n; ++i) {
        if (op == BICL_UNARY_IDENTITY)
            bicl_ref_copy_elem(x_dtype, x, i, y_dtype, y, i);
        else
            bicl_ref_store(
                y_dtype, y, i,
                bicl_op_unary((int)op, bicl_ref_load(x_dtype, x, i), p[0], p[1], p[2], p[3]));
    }
    return BICL_SUCCESS;
}

bicl_status bicl_ref_glu(bicl_glu_act act, const bicl_glu_params *params, bicl_dtype in_dtype,
                         const void *gate, const void *up, bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    bicl_status st = check_arrays(gate, up, y, in_dtype, in_dtype, y_dtype, "bicl_ref_glu");
    if (st != BICL_SUCCESS)
        return st;
    if ((int)act < 0 || act >= BICL_GLU_COUNT_)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "bicl_ref_glu: activation %d", (int)act);
    float p[BICL_OP_MAX_PARAMS];
    st = bicl_glu_params_gather(bicl_glu_info((int)act), params, p, "bicl_ref_glu", false);
    if (st != BICL_SUCCESS)
        return st;
    int rounding = params ? params->rounding : BICL_GLU_ROUND_F32;
    st = bicl_glu_rounding_check(act, rounding, "bicl_ref_glu");
    if (st != BICL_SUCCESS)
        return st;
    int round_dt = bicl_glu_round_dt(rounding, in_dtype);
    for (size_t i = 0; i < n; ++i) {
        float g = bicl_ref_load(in_dtype, gate, i), u = bicl_ref_load(in_dtype, up, i);
        bicl_ref_store(y_dtype, y, i, bicl_op_glu((int)act, g, u, p[0], p[1], round_dt));
    }
    return BICL_SUCCESS;
}

static bicl_status ref_binary(int op, float alpha, float beta, bicl_dtype a_dtype, const void *a,
                              bicl_dtype b_dtype, const void *b, bicl_dtype y_dtype, void *y,
                              size_t n)
{
    bicl_status st = check_arrays(a, b, y, a_dtype, b_dtype, y_dtype, "bicl_ref_binary");
    if (st != BICL_SUCCESS)
        return st;
    for (size_t i = 0; i < n; ++i) {
        float r = bicl_op_binary(op, bicl_ref_load(a_dtype, a, i), bicl_ref_load(b_dtype, b, i),
                                 alpha, beta);
        bicl_ref_store(y_dtype, y, i, r);
    }
    return BICL_SUCCESS;
}

bicl_status bicl_ref_binary(bicl_binary_op op, bicl_dtype a_dtype, const void *a,
                            bicl_dtype b_dtype, const void *b, bicl_dtype y_dtype, void *y,
                            size_t n)
{
    bicl_clear_error();
    if ((int)op < 0 || op >= BICL_BINARY_COUNT_)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "bicl_ref_binary: op %d", (int)op);
    return ref_binary((int)op, 0.0f, 0.0f, a_dtype, a, b_dtype, b, y_dtype, y, n);
}

bicl_status bicl_ref_axpby(float alpha, bicl_dtype a_dtype, const void *a, float beta,
                           bicl_dtype b_dtype, const void *b, bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    return ref_binary(BICL_BIN_AXPBY, alpha, beta, a_dtype, a, b_dtype, b, y_dtype, y, n);
}

bicl_status bicl_ref_residual_add(const float *residual, bicl_dtype x_dtype, const void *x,
                                  float *residual_out, bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    bicl_status st = check_arrays(residual, x, y, BICL_F32, x_dtype, y_dtype, "residual_add");
    if (st == BICL_SUCCESS && !residual_out)
        st = bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_residual_add: NULL array");
    if (st != BICL_SUCCESS)
        return st;
    for (size_t i = 0; i < n; ++i) {
        float r =
            bicl_op_binary(BICL_BIN_ADD, residual[i], bicl_ref_load(x_dtype, x, i), 0.0f, 0.0f);
        residual_out[i] = r;
        bicl_ref_store(y_dtype, y, i, r);
    }
    return BICL_SUCCESS;
}

bicl_status bicl_ref_scale(float scale, bicl_dtype x_dtype, const void *x, bicl_dtype y_dtype,
                           void *y, size_t n)
{
    bicl_clear_error();
    bicl_status st = check_arrays(x, x, y, x_dtype, x_dtype, y_dtype, "bicl_ref_scale");
    if (st != BICL_SUCCESS)
        return st;
    for (size_t i = 0; i < n; ++i)
        bicl_ref_store(y_dtype, y, i, bicl_op_scale(bicl_ref_load(x_dtype, x, i), scale));
    return BICL_SUCCESS;
}

bicl_status bicl_ref_mask_fill(bicl_dtype x_dtype, const void *x, const uint8_t *select, float fill,
                               bicl_dtype y_dtype, void *y, size_t n)
{
    bicl_clear_error();
    bicl_status st = check_arrays(x, select, y, x_dtype, x_dtype, y_dtype, "bicl_ref_mask_fill");
    if (st != BICL_SUCCESS)
        return st;
    for (size_t i = 0; i < n; ++i) {
        if (select[i])
            bicl_ref_store(y_dtype, y, i, fill);
        else
            bicl_ref_copy_elem(x_dtype, x, i, y_dtype, y, i);
    }
    return BICL_SUCCESS;
}

long bicl_mask_causal_offset(long offset, size_t rows, size_t cols)
{
    long lo = rows > (size_t)LONG_MAX ? LONG_MIN : -(long)rows;
    long hi = cols - 1 > (size_t)LONG_MAX ? LONG_MAX : (long)(cols - 1);
    return offset < lo ? lo : offset > hi ? hi : offset;
}

bicl_status bicl_ref_mask_fill_causal(bicl_dtype x_dtype, const void *x, size_t rows, size_t cols,
                                      long offset, float fill, bicl_dtype y_dtype, void *y,
                                      size_t n)
{
    bicl_clear_error();
    bicl_status st = check_arrays(x, x, y, x_dtype, x_dtype, y_dtype, "bicl_ref_mask_fill_causal");
    if (st != BICL_SUCCESS)
        return st;
    if (rows == 0 || cols == 0 || n % rows != 0 || (n / rows) % cols != 0)
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "n = %zu is not a multiple of rows x cols", n);
    long off = bicl_mask_causal_offset(offset, rows, cols);
    for (size_t i = 0; i < n; ++i) {
        size_t c = i % cols, r = i / cols % rows;
        if (bicl_causal_filled((bicl_i64)c, (bicl_i64)r, off))
            bicl_ref_store(y_dtype, y, i, fill);
        else
            bicl_ref_copy_elem(x_dtype, x, i, y_dtype, y, i);
    }
    return BICL_SUCCESS;
}
