/* cast.h - layer 9 (ops): the cast launch that other ops reuse
 * (cast.c). */
#ifndef BICL_SRC_CAST_H
#define BICL_SRC_CAST_H

#include "bicl/bicl.h"
#include "tensor.h"

/* The cast kernels over validated views {x, y} (bicl_cast, the identity op). */
bicl_status bicl_launch_cast(bicl_context *ctx, bicl_memo *memo, cl_command_queue queue,
                             const bicl_tensor *const *ops, cl_uint n_wait, const cl_event *wait,
                             cl_event *done);

#endif
