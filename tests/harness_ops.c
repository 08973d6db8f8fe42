/* harness_ops.c - the op adapters the harness runs, and their registry.
 *
 * To add an op: write its run (the public API on a harness_call), reference (the
 * bicl_ref_* function on one token) and, when an exact value is known, oracle (MPFR)
 * functions, then list one adapter per dtype configuration in `ops` below. Then add
 * its golden hashes: bicl-check --golden tests/golden/golden.txt --op NAME. */
#include "harness.h"

#include <math.h>
#include <string.h>

/* ===================================================================== cast */

/* Odd, so that rows end inside vectors and the scalar tail of a call crosses rows. */
#define CAST_FEATURES 37

static bicl_status cast_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor x = harness_view(op, call, false, 0);
    bicl_tensor y = harness_view(op, call, true, 0);
    return bicl_cast(call->ctx, call->queue, &x, &y, 0, NULL, NULL);
}

static bicl_status cast_reference(const harness_op *op, void *state, int32_t position,
                                  const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    return bicl_ref_cast(op->in[0].dtype, in[0], op->out[0].dtype, out[0], op->in[0].features);
}

/* A cast's exact result is its input's value: every f32, f16 and bf16 is a double. */
static int cast_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                       int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index;
    size_t es = bicl_dtype_size(op->in[0].dtype);
    uint64_t bits = 0;
    memcpy(&bits, (const unsigned char *)in[0] + element * es, es);
    double v = harness_decode(op->in[0].dtype, bits);
    if (isnan(v))
        mpfr_set_nan(exact);
    else
        mpfr_set_d(exact, v, MPFR_RNDN);
    return 0;
}

#define CAST_OP(X, Y, LABEL)                                                                       \
    {                                                                                              \
        .name = "cast", .dtype = LABEL, .n_in = 1, .n_out = 1,                                     \
        .in = {{"x", X, CAST_FEATURES, false}}, .out = {{"y", Y, CAST_FEATURES, false}},           \
        .run = cast_run, .reference = cast_reference, .oracle = cast_oracle, .ulp_limit = 0,       \
    }

/* ================================================================ registry */

static const harness_op ops[] = {
    CAST_OP(BICL_F32, BICL_F32, "f32->f32"),     CAST_OP(BICL_F32, BICL_F16, "f32->f16"),
    CAST_OP(BICL_F32, BICL_BF16, "f32->bf16"),   CAST_OP(BICL_F16, BICL_F32, "f16->f32"),
    CAST_OP(BICL_F16, BICL_F16, "f16->f16"),     CAST_OP(BICL_F16, BICL_BF16, "f16->bf16"),
    CAST_OP(BICL_BF16, BICL_F32, "bf16->f32"),   CAST_OP(BICL_BF16, BICL_F16, "bf16->f16"),
    CAST_OP(BICL_BF16, BICL_BF16, "bf16->bf16"),
};

size_t harness_op_count(void)
{
    return sizeof ops / sizeof ops[0];
}

const harness_op *harness_op_at(size_t i)
{
    return i < harness_op_count() ? &ops[i] : NULL;
}
