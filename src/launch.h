/* launch.h - layer 7: setting kernel arguments and enqueueing with the
 * context's variant geometry (launch.c). */
#ifndef BICL_SRC_LAUNCH_H
#define BICL_SRC_LAUNCH_H

#include "profile.h"
#include "program.h"
#include "sources.h"
#include "tensor.h"

#include <stdbool.h>

/* Sets kernel arguments in order; the first failure is kept in err. */
typedef struct bicl_args {
    bicl_kernel *k;
    cl_uint index;
    cl_int err;
} bicl_args;
/* Any argument (buffers: always through this one). */
void bicl_arg(bicl_args *a, size_t size, const void *value);
/* A scalar or vector argument (never a cl_mem): not set again when the kernel object
 * holds the same bytes from its last launch (program.h's bicl_kernel). */
void bicl_arg_scalar(bicl_args *a, size_t size, const void *value);
/* A view's buffer and element offset (two arguments). */
void bicl_arg_view(bicl_args *a, const bicl_tensor *t);
/* A view's buffer, element offset and its first n_strides strides (ulong each). */
void bicl_arg_view_strides(bicl_args *a, const bicl_tensor *t, int n_strides);
/* Ends a launch whose arguments are set: enqueues `units` work units (1-d), or reports
 * the first argument that failed, and gives the kernel back to its pool either way. */
bicl_status bicl_args_launch(bicl_context *ctx, cl_command_queue q, bicl_args *a, size_t units,
                             size_t wg, cl_uint n_wait, const cl_event *wait, cl_event *done);
/* The same for a 2-d launch of `rows` work-groups of exactly `width` work-items (dim 0 is
 * one group: the kernel may take get_local_id(0) for get_global_id(0)); the caller
 * checks `width` against the kernel's limit (bicl_kernel_wg_max). */
bicl_status bicl_args_launch_groups(bicl_context *ctx, cl_command_queue q, bicl_args *a,
                                    size_t width, size_t rows, cl_uint n_wait, const cl_event *wait,
                                    cl_event *done);

/* Kernel and program names: snprintf for %s, %d, %u and %% only, without the cost of
 * stdio's formatting on every launch (the host overhead, docs/performance.md). */
void bicl_name_format(char *buf, size_t size, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 3, 4)))
#endif
    ;

/* A call's program and kernel names, kept per thread and family for the next call with
 * the same key: an engine's calls repeat a few ops, and formatting the names took about
 * 780 of the 10,350 instructions of a silu call on PoCL (callgrind, docs/performance.md). key:
 * every value the names are formatted from (BICL_NAMES_KEY), never 0. */
typedef struct bicl_names {
    unsigned long long key; /* the names' key; 0: none yet */
    char base[64];
    char instance[BICL_INSTANCE_MAX];
    char fix_base[64];
    char fix_instance[BICL_INSTANCE_MAX];
} bicl_names;
/* A key from an op's number (below 2^24), a path of the call (below 2^8: a table, a mode,
 * a rounding) and up to three small values (dtypes, a rounding dtype), each taken as its
 * low byte: a negative value (BICL_GLU_RD_ONCE) must not fill the other fields' bits. */
#define BICL_NAMES_KEY(op, path, d0, d1, d2)                                                       \
    (1ull << 63 | ((unsigned long long)(op)&0xffffffull) << 32 |                                   \
     ((unsigned long long)(path)&0xffull) << 24 | ((unsigned long long)(d0)&0xffull) << 16 |       \
     ((unsigned long long)(d1)&0xffull) << 8 | ((unsigned long long)(d2)&0xffull))
/* The calling thread's names of family. true: they are key's; false: the caller formats
 * them now (the entry already carries key: nothing may return between this call and the
 * formatting). */
bool bicl_names_of(bicl_family family, unsigned long long key, bicl_names **names);

/* Extra arguments of an op, appended after the standard ones; scalar: not a cl_mem
 * (bicl_arg_scalar). */
typedef struct bicl_kernel_arg {
    size_t size;
    const void *value;
    bool scalar;
} bicl_kernel_arg;
#define BICL_SCALAR_ARG(v)                                                                         \
    {                                                                                              \
        sizeof(v), &(v), true                                                                      \
    }

/* Launches an elementwise kernel over operands of equal shape, choosing its shape from
 * the merged iteration space: "<base>_rows_v<VW>" (2 dims, inner contiguous everywhere,
 * or one contiguous dim as one row) or "<base>_strided".
 * Standard arguments, in order:
 *   rows:    (mem, ulong off, ulong row_stride) per operand, ulong cols, uint ipt, extras
 *            (one row: row strides 0, cols = n, a 1-d launch)
 *   strided: (mem, ulong off, ulong4 stride) per operand, ulong4 shape, ulong n,
 *            uint items_per_thread, extras...
 * Operands must be validated by the caller. */
bicl_status bicl_launch_elementwise(bicl_context *ctx, bicl_memo *memo, cl_command_queue q,
                                    bicl_family family, const char *instance, const char *base,
                                    const bicl_tensor *const *ops, int n_ops,
                                    const bicl_kernel_arg *extra, int n_extra, cl_uint n_wait,
                                    const cl_event *wait, cl_event *done);
/* A fix-up form (cl/bicl_kernel.h, BICL_ROWS_F_1_1): kernel "<base>_rows_f" of program
 * instance. */
typedef struct bicl_fix_form {
    const char *instance;
    const char *base;
} bicl_fix_form;

/* The same with the variant of launch class cls (src/profile.h) instead of the class of
 * the operands' dtypes, and, where fix is not NULL, its fix-up kernel in place of
 * "<base>_rows_s" (one element per work-item: the variant's vw and ipt are 1), with more
 * arguments after the extras: for two inputs uint hold_b (1 where y is the second input's
 * view, cl/bicl_kernel.h, BICL_ROWS_F_2_1), then a byte of local memory per work-item of
 * the group. */
bicl_status bicl_launch_elementwise_as(bicl_context *ctx, bicl_memo *memo, bicl_vclass cls,
                                       cl_command_queue q, bicl_family family, const char *instance,
                                       const bicl_fix_form *fix, const char *base,
                                       const bicl_tensor *const *ops, int n_ops,
                                       const bicl_kernel_arg *extra, int n_extra, cl_uint n_wait,
                                       const cl_event *wait, cl_event *done);

/* How many launches ran a fix-up kernel (bicl_launch_elementwise_as) in ctx: tests. */
unsigned long bicl_fixup_launches(bicl_context *ctx);

/* Enqueues a prepared kernel with the context's variant geometry for `units` work
 * units (work-items before rounding to the work-group size). */
bicl_status bicl_enqueue(bicl_context *ctx, cl_command_queue q, bicl_kernel *k, size_t units,
                         size_t wg, cl_uint n_wait, const cl_event *wait, cl_event *done);

#endif
