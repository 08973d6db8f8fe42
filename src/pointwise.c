/* pointwise.c - the pointwise ops: validation (design rule 5) and dispatch to the
 * elementwise launcher. Each op checks everything before anything is enqueued. */
#include "cast.h"
#include "tables.h"
#include "launch.h"
#include "context.h"
#include "program.h"
#include "tensor.h"
#include "context_state.h"
#include "reference.h"
#include "ops.h"
#include "status.h"

#include "bicl_pointwise_ops.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Common start of every op: context, queue and wait list. */
static bicl_status begin(bicl_context *ctx, cl_command_queue q, cl_uint n_wait,
                         const cl_event *wait, const char *op)
{
    bicl_clear_error();
    if (!ctx)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: ctx is NULL", op);
    return bicl_queue_check(ctx, q, n_wait, wait);
}

/* An input view: float dtype (or the given mask), checked, broadcast to the output. */
static bicl_status check_input(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *t,
                               const char *name, unsigned dtypes, const bicl_tensor *y,
                               bicl_tensor *view)
{
    bicl_status st = bicl_dtype_check(t, name, dtypes);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, t, name, false, true);
    if (st == BICL_SUCCESS)
        st = bicl_broadcast_view(t, name, y, view);
    return st;
}

static bicl_status check_output(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *y,
                                const char *name)
{
    bicl_status st = bicl_dtype_check(y, name, BICL_FLOAT_DTYPES);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, y, name, true, false);
    return st;
}

static bool finite(float v)
{
    return isfinite(v);
}

/* The launch class of a unary op or gated unit of row info over the dtypes d (n_in inputs,
 * then the output): a costly op (its row's table column, or a correctly rounded one with a
 * fast form: softcap) computed from 32-bit inputs is bound by arithmetic and takes class
 * ACT32 (src/profile.h); the others (relu, swiglu_oai, ...) their dtypes' class. */
static bicl_vclass op_launch_class(const bicl_op_info *info, const bicl_dtype *d, int n_in)
{
    return info->table || info->fast ? bicl_vclass_of_act(d, n_in, d + n_in, 1, info->long_path)
                                     : bicl_vclass_of(d, n_in, d + n_in, 1);
}

/* ---------------------------------------------------------------- unary */

bicl_status bicl_unary(bicl_context *ctx, cl_command_queue queue, bicl_unary_op op,
                       const bicl_unary_params *params, const bicl_tensor *x, const bicl_tensor *y,
                       cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_unary");
    if (st != BICL_SUCCESS)
        return st;
    if ((int)op < 0 || op >= BICL_UNARY_COUNT_)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "bicl_unary: unknown op %d", (int)op);
    const bicl_op_info *info = bicl_unary_info((int)op); /* NULL: the identity */
    float p[BICL_OP_MAX_PARAMS];
    st = bicl_unary_params_gather((int)op, params, p, "bicl_unary", true);
    if (st != BICL_SUCCESS)
        return st;
    bicl_tensor xv;
    st = check_output(ctx, memo, y, "y");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, x, "x", BICL_FLOAT_DTYPES, y, &xv);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", x, "x", x->dtype == y->dtype);
    if (st != BICL_SUCCESS)
        return st;
    const bicl_tensor *ops[2] = {&xv, y};
    if (op == BICL_UNARY_IDENTITY) /* the cast kernels copy bits for equal dtypes */
        return bicl_launch_cast(ctx, memo, queue, ops, n_wait, wait, done);
    const char *ti = bicl_dtype_tag(x->dtype), *to = bicl_dtype_tag(y->dtype);
    bicl_names *n;
    if (ctx->act_tables != BICL_ACT_TABLES_OFF && bicl_dtype_is16(x->dtype) && info->table) {
        /* compact only for 16-bit results: an f32 entry has no rule by bits of the input */
        bool compact = ctx->act_tables == BICL_ACT_TABLES_COMPACT && bicl_dtype_is16(y->dtype);
        bicl_table_key k = {BICL_TABLE_UNARY, (int)op, x->dtype, y->dtype, compact};
        if (!bicl_names_of(BICL_FAMILY_UNARY,
                           BICL_NAMES_KEY(op, compact ? 4 : 1, x->dtype, y->dtype, 0), &n)) {
            bicl_name_format(n->base, sizeof n->base, "unary_table%s_%s_%s",
                             compact ? "_compact" : "", ti, to);
            bicl_name_format(n->instance, sizeof n->instance, "UNARY_TABLE%s(%s, %s)",
                             compact ? "_COMPACT" : "", ti, to);
        }
        return bicl_table_launch(ctx, memo, queue, BICL_FAMILY_UNARY, &k, n->instance, n->base, ops,
                                 2, n_wait, wait, done);
    }
    /* an op with a fast form in the fix-up kernel form where the profile wants it */
    bool fixup = ctx->act_fixup && info->fast;
    if (!bicl_names_of(BICL_FAMILY_UNARY, BICL_NAMES_KEY(op, 2 + fixup, x->dtype, y->dtype, 0),
                       &n)) {
        bicl_name_format(n->base, sizeof n->base, "unary_%s_%s_%s", info->kname, ti, to);
        bicl_name_format(n->instance, sizeof n->instance, "UNARY_PAIR(%s, %s, %d, %s, %s)",
                         info->kname, info->id, info->n_params, ti, to);
        if (fixup)
            bicl_name_format(n->fix_instance, sizeof n->fix_instance,
                             "UNARY_FIX(%s, %s, %d, %s, %s)", info->kname, info->id, info->n_params,
                             ti, to);
    }
    /* p0 always (cl/unary.cl: every kernel takes it), p1... as the op has them */
    bicl_kernel_arg extra[BICL_OP_MAX_PARAMS] = {BICL_SCALAR_ARG(p[0]), BICL_SCALAR_ARG(p[1]),
                                                 BICL_SCALAR_ARG(p[2]), BICL_SCALAR_ARG(p[3])};
    int n_extra = info->n_params > 1 ? info->n_params : 1;
    bicl_fix_form fix = {n->fix_instance, n->base};
    const bicl_dtype d[2] = {x->dtype, y->dtype};
    bicl_vclass cls = op_launch_class(info, d, 1);
    return bicl_launch_elementwise_as(ctx, memo, cls, queue, BICL_FAMILY_UNARY, n->instance,
                                      fixup ? &fix : NULL, n->base, ops, 2, extra, n_extra, n_wait,
                                      wait, done);
}

/* ------------------------------------------------------------------ glu */

/* bicl_glu after its common start, with the call's memo (bicl_glu_fused shares its own). */
static bicl_status glu_run(bicl_context *ctx, bicl_memo *memo, cl_command_queue queue,
                           bicl_glu_act act, const bicl_glu_params *params, const bicl_tensor *gate,
                           const bicl_tensor *up, const bicl_tensor *y, cl_uint n_wait,
                           const cl_event *wait, cl_event *done)
{
    if ((int)act < 0 || act >= BICL_GLU_COUNT_)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "bicl_glu: unknown activation %d", (int)act);
    const bicl_op_info *info = bicl_glu_info((int)act);
    float p[BICL_OP_MAX_PARAMS];
    bicl_status st = bicl_glu_params_gather(info, params, p, "bicl_glu", true);
    if (st != BICL_SUCCESS)
        return st;
    int rounding = params ? params->rounding : BICL_GLU_ROUND_F32;
    st = bicl_glu_rounding_check(act, rounding, "bicl_glu");
    if (st != BICL_SUCCESS)
        return st;
    bool round_act = rounding == BICL_GLU_ROUND_ACT_TO_STORAGE;
    bicl_tensor gv, uv;
    st = check_output(ctx, memo, y, "y");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, gate, "gate", BICL_FLOAT_DTYPES, y, &gv);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, up, "up", BICL_FLOAT_DTYPES, y, &uv);
    if (st == BICL_SUCCESS && gate->dtype != up->dtype)
        st = bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "gate (%s) and up (%s) must share a dtype",
                       bicl_dtype_name(gate->dtype), bicl_dtype_name(up->dtype));
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", gate, "gate", gate->dtype == y->dtype);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", up, "up", up->dtype == y->dtype);
    if (st != BICL_SUCCESS)
        return st;
    const char *ti = bicl_dtype_tag(gate->dtype), *to = bicl_dtype_tag(y->dtype);
    bicl_names *n;
    bool up_first = info->order == BICL_GLU_ORDER_UP;
    /* a table holds act(gate) rounded, which the single-rounding mode must not use */
    if (ctx->act_tables != BICL_ACT_TABLES_OFF && bicl_dtype_is16(gate->dtype) && info->table &&
        rounding != BICL_GLU_ROUND_ONCE) {
        bool round = round_act != 0;
        bicl_table_key k = {BICL_TABLE_GLU, (int)act, gate->dtype, round ? gate->dtype : BICL_F32,
                            false};
        if (!bicl_names_of(BICL_FAMILY_GLU,
                           BICL_NAMES_KEY(act, 1 + round, gate->dtype, y->dtype, 0), &n)) {
            bicl_name_format(n->base, sizeof n->base, "glu_table%s%s_%s_%s", round ? "16" : "",
                             up_first ? "_up" : "", ti, to);
            bicl_name_format(n->instance, sizeof n->instance, "GLU_TABLE%s(%s, %s)",
                             up_first ? "_UP" : "", ti, to);
        }
        const bicl_tensor *tops[3] = {&gv, &uv, y};
        return bicl_table_launch(ctx, memo, queue, BICL_FAMILY_GLU, &k, n->instance, n->base, tops,
                                 3, n_wait, wait, done);
    }
    /* the single-rounding mode has kernels of its own (cl/glu.cl) */
    bool once = rounding == BICL_GLU_ROUND_ONCE;
    cl_int round_dt = (cl_int)bicl_glu_round_dt(rounding, gate->dtype);
    /* the two-rounding modes of an activation with a fast form in the fix-up kernel form
     * where the profile wants it (the single-rounding one has none) */
    bool fixup = ctx->act_fixup && !once && info->fast;
    if (!bicl_names_of(BICL_FAMILY_GLU,
                       BICL_NAMES_KEY(act, 4 + 2 * once + fixup, gate->dtype, y->dtype, round_dt),
                       &n)) {
        bicl_name_format(n->base, sizeof n->base, once ? "glu1_%s_%s_%s" : "glu_%s_%s_%s",
                         info->kname, ti, to);
        bicl_name_format(n->instance, sizeof n->instance,
                         once ? "GLU_PAIR_ONCE(%s, %s, %s, %s)" : "GLU_PAIR(%s, %s, %s, %s)",
                         info->kname, info->id, ti, to);
        if (fixup) { /* a program per rounding dtype, a constant there (cl/glu.cl) */
            bicl_name_format(n->fix_instance, sizeof n->fix_instance, "GLU_FIX(%s, %s, %s, %s, %d)",
                             info->kname, info->id, ti, to, (int)round_dt);
            bicl_name_format(n->fix_base, sizeof n->fix_base, "%s_rd%d", n->base, (int)round_dt);
        }
    }
    const bicl_tensor *ops[3] = {&gv, &uv, y};
    bicl_kernel_arg extra[3] = {BICL_SCALAR_ARG(p[0]), BICL_SCALAR_ARG(p[1]),
                                BICL_SCALAR_ARG(round_dt)};
    bicl_fix_form fix = {n->fix_instance, n->fix_base};
    const bicl_dtype d[3] = {gate->dtype, up->dtype, y->dtype};
    return bicl_launch_elementwise_as(ctx, memo, op_launch_class(info, d, 2), queue,
                                      BICL_FAMILY_GLU, n->instance, fixup ? &fix : NULL, n->base,
                                      ops, 3, extra, 3, n_wait, wait, done);
}

bicl_status bicl_glu(bicl_context *ctx, cl_command_queue queue, bicl_glu_act act,
                     const bicl_glu_params *params, const bicl_tensor *gate, const bicl_tensor *up,
                     const bicl_tensor *y, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_memo memo;
    bicl_memo_start(&memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_glu");
    if (st != BICL_SUCCESS)
        return st;
    return glu_run(ctx, &memo, queue, act, params, gate, up, y, n_wait, wait, done);
}

bicl_status bicl_glu_fused(bicl_context *ctx, cl_command_queue queue, bicl_glu_act act,
                           const bicl_glu_params *params, bicl_glu_layout layout,
                           const bicl_tensor *x, const bicl_tensor *y, cl_uint n_wait,
                           const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_glu_fused");
    if (st != BICL_SUCCESS)
        return st;
    if (layout != BICL_GLU_HALVES && layout != BICL_GLU_INTERLEAVED)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "unknown glu layout %d", (int)layout);
    st = bicl_dtype_check(x, "x", BICL_FLOAT_DTYPES);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, x, "x", false, false);
    if (st == BICL_SUCCESS && !y)
        st = bicl_fail(BICL_ERR_NULL_POINTER, "y: tensor pointer is NULL");
    if (st != BICL_SUCCESS)
        return st;
    int last = x->rank - 1;
    if (y->rank != x->rank || x->shape[last] % 2 != 0 || y->shape[last] * 2 != x->shape[last])
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH,
                         "x's last dim (%zu) must be even and twice y's, with equal ranks",
                         x->shape[last]);
    /* first and second operand of x: gate then up, or up then gate for an up-first
     * activation (vLLM's MulAndSilu: x[..., :F] * silu(x[..., F:])) */
    bicl_tensor first = *x, second = *x;
    size_t f = x->shape[last] / 2;
    first.shape[last] = second.shape[last] = f;
    if (layout == BICL_GLU_HALVES) {
        second.offset += f * (size_t)x->stride[last];
    } else {
        first.stride[last] = second.stride[last] = 2 * x->stride[last];
        second.offset += (size_t)x->stride[last];
    }
    const bicl_op_info *info = bicl_glu_info((int)act);
    if (info && info->order == BICL_GLU_ORDER_UP)
        return glu_run(ctx, memo, queue, act, params, &second, &first, y, n_wait, wait, done);
    return glu_run(ctx, memo, queue, act, params, &first, &second, y, n_wait, wait, done);
}

/* --------------------------------------------------------------- binary */

static bicl_status binary_launch(bicl_context *ctx, cl_command_queue queue, int op, float alpha,
                                 float beta, const bicl_tensor *a, const bicl_tensor *b,
                                 const bicl_tensor *y, cl_uint n_wait, const cl_event *wait,
                                 cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_tensor av, bv;
    bicl_status st = check_output(ctx, memo, y, "y");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, a, "a", BICL_FLOAT_DTYPES, y, &av);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, b, "b", BICL_FLOAT_DTYPES, y, &bv);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", a, "a", a->dtype == y->dtype);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", b, "b", b->dtype == y->dtype);
    if (st != BICL_SUCCESS)
        return st;
    bicl_names *n;
    if (!bicl_names_of(BICL_FAMILY_BINARY, BICL_NAMES_KEY(op, 0, a->dtype, b->dtype, y->dtype),
                       &n)) {
        const char *ta = bicl_dtype_tag(a->dtype), *tb = bicl_dtype_tag(b->dtype),
                   *to = bicl_dtype_tag(y->dtype);
        bicl_name_format(n->base, sizeof n->base, "binary_%s_%s_%s_%s", bicl_binary_kname(op), ta,
                         tb, to);
        bicl_name_format(n->instance, sizeof n->instance, "BIN_PAIR(%s, %s, %s)", ta, tb, to);
    }
    const bicl_tensor *ops[3] = {&av, &bv, y};
    bicl_kernel_arg extra[2] = {BICL_SCALAR_ARG(alpha), BICL_SCALAR_ARG(beta)};
    return bicl_launch_elementwise(ctx, memo, queue, BICL_FAMILY_BINARY, n->instance, n->base, ops,
                                   3, extra, 2, n_wait, wait, done);
}

bicl_status bicl_binary(bicl_context *ctx, cl_command_queue queue, bicl_binary_op op,
                        const bicl_tensor *a, const bicl_tensor *b, const bicl_tensor *y,
                        cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_binary");
    if (st != BICL_SUCCESS)
        return st;
    if ((int)op < 0 || op >= BICL_BINARY_COUNT_)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "bicl_binary: unknown op %d", (int)op);
    return binary_launch(ctx, queue, (int)op, 0.0f, 0.0f, a, b, y, n_wait, wait, done);
}

bicl_status bicl_axpby(bicl_context *ctx, cl_command_queue queue, float alpha, const bicl_tensor *a,
                       float beta, const bicl_tensor *b, const bicl_tensor *y, cl_uint n_wait,
                       const cl_event *wait, cl_event *done)
{
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_axpby");
    if (st != BICL_SUCCESS)
        return st;
    if (!finite(alpha) || !finite(beta))
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "axpby: alpha %g and beta %g must be finite",
                         (double)alpha, (double)beta);
    return binary_launch(ctx, queue, BICL_BIN_AXPBY, alpha, beta, a, b, y, n_wait, wait, done);
}

/* A per-channel vector must be rank 1 with x's last extent. */
static bicl_status check_channel_vector(const bicl_tensor *v, const char *name,
                                        const bicl_tensor *x)
{
    if (!v || !x)
        return BICL_SUCCESS; /* reported by the full checks */
    if (v->rank != 1)
        return bicl_fail(BICL_ERR_INVALID_RANK, "%s must be a vector (rank 1), not rank %d", name,
                         v->rank);
    if (x->rank >= 1 && x->rank <= BICL_MAX_RANK && v->shape[0] != x->shape[x->rank - 1])
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s has %zu elements, x's last dim is %zu", name,
                         v->shape[0], x->shape[x->rank - 1]);
    return BICL_SUCCESS;
}

bicl_status bicl_scale_channels(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                                const bicl_tensor *s, const bicl_tensor *y, cl_uint n_wait,
                                const cl_event *wait, cl_event *done)
{
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_scale_channels");
    if (st == BICL_SUCCESS)
        st = check_channel_vector(s, "s", x);
    if (st != BICL_SUCCESS)
        return st;
    return binary_launch(ctx, queue, BICL_BIN_MUL, 0.0f, 0.0f, x, s, y, n_wait, wait, done);
}

bicl_status bicl_bias_add(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                          const bicl_tensor *bias, const bicl_tensor *y, cl_uint n_wait,
                          const cl_event *wait, cl_event *done)
{
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_bias_add");
    if (st == BICL_SUCCESS)
        st = check_channel_vector(bias, "bias", x);
    if (st != BICL_SUCCESS)
        return st;
    return binary_launch(ctx, queue, BICL_BIN_ADD, 0.0f, 0.0f, x, bias, y, n_wait, wait, done);
}

bicl_status bicl_scale(bicl_context *ctx, cl_command_queue queue, float scale, const bicl_tensor *x,
                       const bicl_tensor *y, cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_scale");
    if (st != BICL_SUCCESS)
        return st;
    if (!finite(scale))
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "scale %g must be finite", (double)scale);
    bicl_tensor xv;
    st = check_output(ctx, memo, y, "y");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, x, "x", BICL_FLOAT_DTYPES, y, &xv);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", x, "x", x->dtype == y->dtype);
    if (st != BICL_SUCCESS)
        return st;
    const char *ti = bicl_dtype_tag(x->dtype), *to = bicl_dtype_tag(y->dtype);
    char base[48], instance[BICL_INSTANCE_MAX];
    bicl_name_format(base, sizeof base, "scale_%s_%s", ti, to);
    bicl_name_format(instance, sizeof instance, "SCALE_PAIR(%s, %s)", ti, to);
    const bicl_tensor *ops[2] = {&xv, y};
    bicl_kernel_arg extra[1] = {BICL_SCALAR_ARG(scale)};
    return bicl_launch_elementwise(ctx, memo, queue, BICL_FAMILY_BINARY, instance, base, ops, 2,
                                   extra, 1, n_wait, wait, done);
}

bicl_status bicl_residual_add(bicl_context *ctx, cl_command_queue queue,
                              const bicl_tensor *residual, const bicl_tensor *x,
                              const bicl_tensor *residual_out, const bicl_tensor *y, cl_uint n_wait,
                              const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_residual_add");
    if (st != BICL_SUCCESS)
        return st;
    const unsigned f32 = 1u << BICL_F32;
    bicl_tensor rv, xv;
    st = bicl_dtype_check(residual_out, "residual_out", f32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, residual_out, "residual_out", true, false);
    if (st == BICL_SUCCESS)
        st = check_output(ctx, memo, y, "y");
    if (st == BICL_SUCCESS)
        st = bicl_shapes_equal(residual_out, "residual_out", y, "y");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, residual, "residual", f32, y, &rv);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, x, "x", BICL_FLOAT_DTYPES, y, &xv);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, residual_out, "residual_out", residual, "residual", true);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, residual_out, "residual_out", x, "x", false);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", residual, "residual", false);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", x, "x", x->dtype == y->dtype);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", residual_out, "residual_out", false);
    if (st != BICL_SUCCESS)
        return st;
    const char *tx = bicl_dtype_tag(x->dtype), *ty = bicl_dtype_tag(y->dtype);
    char base[48], instance[BICL_INSTANCE_MAX];
    bicl_name_format(base, sizeof base, "residual_%s_%s", tx, ty);
    bicl_name_format(instance, sizeof instance, "RESIDUAL_PAIR(%s, %s)", tx, ty);
    const bicl_tensor *ops[4] = {&rv, &xv, residual_out, y};
    return bicl_launch_elementwise(ctx, memo, queue, BICL_FAMILY_BINARY, instance, base, ops, 4,
                                   NULL, 0, n_wait, wait, done);
}

/* ---------------------------------------------------------------- masks */

static bicl_status check_fill_pair(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *x,
                                   const bicl_tensor *y)
{
    bicl_tensor xv;
    bicl_status st = check_output(ctx, memo, y, "y");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, x, "x", BICL_FLOAT_DTYPES, y, &xv);
    if (st == BICL_SUCCESS)
        st = bicl_shapes_equal(x, "x", y, "y");
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", x, "x", x->dtype == y->dtype);
    return st;
}

bicl_status bicl_mask_fill(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                           const bicl_tensor *mask, float fill, const bicl_tensor *y,
                           cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_mask_fill");
    bicl_tensor mv;
    if (st == BICL_SUCCESS)
        st = check_fill_pair(ctx, memo, x, y);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, mask, "mask", (1u << BICL_U8) | (1u << BICL_I32), y, &mv);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", mask, "mask", false);
    if (st != BICL_SUCCESS)
        return st;
    const char *tm = bicl_dtype_tag(mask->dtype), *ti = bicl_dtype_tag(x->dtype),
               *to = bicl_dtype_tag(y->dtype);
    char base[48], instance[BICL_INSTANCE_MAX];
    bicl_name_format(base, sizeof base, "mask_%s_%s_%s", tm, ti, to);
    bicl_name_format(instance, sizeof instance, "MASK_TENSOR(%s, %s, %s)", tm, ti, to);
    const bicl_tensor *ops[3] = {x, &mv, y};
    bicl_kernel_arg extra[1] = {BICL_SCALAR_ARG(fill)};
    return bicl_launch_elementwise(ctx, memo, queue, BICL_FAMILY_MASK, instance, base, ops, 3,
                                   extra, 1, n_wait, wait, done);
}

/* 4-d right-aligned strides of a view (leading dims of extent 1, stride 0). */
static cl_ulong4 strides4(const bicl_tensor *t)
{
    cl_ulong4 s = {{0, 0, 0, 0}};
    for (int d = 0; d < t->rank; ++d)
        s.s[4 - t->rank + d] = (cl_ulong)t->stride[d];
    return s;
}

static cl_ulong4 shape4(const bicl_tensor *t)
{
    cl_ulong4 s = {{1, 1, 1, 1}};
    for (int d = 0; d < t->rank; ++d)
        s.s[4 - t->rank + d] = t->shape[d];
    return s;
}

/* The coordinate-aware mask kernels: x, y, [lengths], shape, n, ipt, then extras. */
static bicl_status positional_launch(bicl_context *ctx, cl_command_queue queue, const char *name,
                                     const bicl_tensor *x, const bicl_tensor *y,
                                     const bicl_tensor *lengths, const bicl_kernel_arg *extra,
                                     int n_extra, cl_uint n_wait, const cl_event *wait,
                                     cl_event *done)
{
    char instance[BICL_INSTANCE_MAX];
    bicl_name_format(instance, sizeof instance, "MASK_POSITIONAL(%s, %s)", bicl_dtype_tag(x->dtype),
                     bicl_dtype_tag(y->dtype));
    bicl_kernel *k = NULL;
    bicl_status st = bicl_kernel_acquire(ctx, BICL_FAMILY_MASK, instance, name, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_variant var = bicl_context_variant_snapshot(ctx);
    bicl_args a = {k, 0, CL_SUCCESS};
    const bicl_tensor *views[3] = {x, y, lengths};
    for (int i = 0; i < 3 && views[i]; ++i) {
        cl_ulong4 s = strides4(views[i]);
        bicl_arg_view(&a, views[i]);
        bicl_arg_scalar(&a, sizeof s, &s);
    }
    cl_ulong4 shape = shape4(y);
    cl_ulong n = bicl_tensor_numel(y);
    cl_uint ipt = var.items_per_thread;
    bicl_arg_scalar(&a, sizeof shape, &shape);
    bicl_arg_scalar(&a, sizeof n, &n);
    bicl_arg_scalar(&a, sizeof ipt, &ipt);
    for (int e = 0; e < n_extra; ++e)
        (extra[e].scalar ? bicl_arg_scalar : bicl_arg)(&a, extra[e].size, extra[e].value);
    return bicl_args_launch(ctx, queue, &a, ((size_t)n + ipt - 1) / ipt, var.work_group_size,
                            n_wait, wait, done);
}

bicl_status bicl_mask_fill_lengths(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                                   const bicl_tensor *lengths, float fill, const bicl_tensor *y,
                                   cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_mask_fill_lengths");
    if (st == BICL_SUCCESS)
        st = check_fill_pair(ctx, memo, x, y);
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(lengths, "lengths", 1u << BICL_I32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, lengths, "lengths", false, true);
    if (st != BICL_SUCCESS)
        return st;
    /* lengths broadcast to y's shape without its last dim, then a column dim of stride 0 */
    bicl_tensor rows = *y, lv;
    rows.rank = y->rank - 1;
    if (rows.rank == 0) {
        rows.rank = 1;
        rows.shape[0] = 1;
    }
    st = bicl_broadcast_view(lengths, "lengths", &rows, &lv);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, y, "y", lengths, "lengths", false);
    if (st != BICL_SUCCESS)
        return st;
    if (y->rank == 1) {
        lv.shape[0] = y->shape[0];
        lv.stride[0] = 0;
    } else {
        lv.rank = y->rank;
        lv.shape[y->rank - 1] = y->shape[y->rank - 1];
        lv.stride[y->rank - 1] = 0;
    }
    char name[48];
    bicl_name_format(name, sizeof name, "mask_lengths_%s_%s", bicl_dtype_tag(x->dtype),
                     bicl_dtype_tag(y->dtype));
    bicl_kernel_arg extra[1] = {BICL_SCALAR_ARG(fill)};
    return positional_launch(ctx, queue, name, x, y, &lv, extra, 1, n_wait, wait, done);
}

bicl_status bicl_mask_fill_causal(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                                  long offset, float fill, const bicl_tensor *y, cl_uint n_wait,
                                  const cl_event *wait, cl_event *done)
{
    bicl_memo call_memo, *memo = bicl_memo_start(&call_memo);
    bicl_status st = begin(ctx, queue, n_wait, wait, "bicl_mask_fill_causal");
    if (st == BICL_SUCCESS)
        st = check_fill_pair(ctx, memo, x, y);
    if (st == BICL_SUCCESS && y->rank < 2)
        st = bicl_fail(BICL_ERR_INVALID_RANK, "causal masks need rank >= 2 ([..., R, C])");
    if (st != BICL_SUCCESS)
        return st;
    char name[48];
    bicl_name_format(name, sizeof name, "mask_causal_%s_%s", bicl_dtype_tag(x->dtype),
                     bicl_dtype_tag(y->dtype));
    cl_long off = bicl_mask_causal_offset(offset, y->shape[y->rank - 2], y->shape[y->rank - 1]);
    bicl_kernel_arg extra[2] = {BICL_SCALAR_ARG(off), BICL_SCALAR_ARG(fill)};
    return positional_launch(ctx, queue, name, x, y, NULL, extra, 2, n_wait, wait, done);
}
