/* cast.c - bicl_cast: f32, f16 and bf16 to each other over strided views. */
#include "cast.h"
#include "launch.h"
#include "program.h"
#include "tensor.h"
#include "status.h"

#include <stdio.h>

bicl_status bicl_launch_cast(bicl_context *ctx, bicl_memo *memo, cl_command_queue queue,
                             const bicl_tensor *const *ops, cl_uint n_wait, const cl_event *wait,
                             cl_event *done)
{
    bicl_names *n;
    if (!bicl_names_of(BICL_FAMILY_CAST, BICL_NAMES_KEY(0, 0, ops[0]->dtype, ops[1]->dtype, 0),
                       &n)) {
        const char *ti = bicl_dtype_tag(ops[0]->dtype), *to = bicl_dtype_tag(ops[1]->dtype);
        bicl_name_format(n->base, sizeof n->base, "cast_%s_%s", ti, to);
        bicl_name_format(n->instance, sizeof n->instance, "CAST_PAIR(%s, %s)", ti, to);
    }
    return bicl_launch_elementwise(ctx, memo, queue, BICL_FAMILY_CAST, n->instance, n->base, ops, 2,
                                   NULL, 0, n_wait, wait, done);
}

bicl_status bicl_cast(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                      const bicl_tensor *y, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_clear_error();
    if (!ctx)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_cast: ctx is NULL");
    bicl_status st = bicl_queue_check(ctx, queue, n_wait, wait);
    bicl_memo memo;
    bicl_memo_start(&memo);
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(x, "x", BICL_FLOAT_DTYPES);
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(y, "y", BICL_FLOAT_DTYPES);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, &memo, x, "x", false, true);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, &memo, y, "y", true, false);
    if (st != BICL_SUCCESS)
        return st;
    st = bicl_shapes_equal(x, "x", y, "y");
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(&memo, y, "y", x, "x", x->dtype == y->dtype);
    if (st != BICL_SUCCESS)
        return st;
    const bicl_tensor *ops[2] = {x, y};
    return bicl_launch_cast(ctx, &memo, queue, ops, n_wait, wait, done);
}
