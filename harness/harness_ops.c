/* harness_ops.c - the op adapters the harness runs, and their registry.
 *
 * Every public op that is batch-invariant per token has adapters here: casts, the unary
 * activations, the gated units (two tensors and fused), the binary family, scales and
 * biases, residual add, the mask fills, RoPE for every model of ../shared/models.json and
 * the position-id builders. One adapter is one dtype configuration of one op; the
 * registry (at the end) makes them from the tables of each family.
 *
 * Oracles (relation A) evaluate the formula of docs/numerics.md with MPFR at
 * HARNESS_ORACLE_PREC bits: every transcendental exactly, every rounding that the
 * formula itself writes (`round(...)`: to f32, or to a storage dtype) as a correct
 * rounding, then the harness rounds the value to the output's dtype. The value is first
 * rounded to f32 (oracle_finish): numerics.md defines every output as its f32 value
 * rounded to the storage dtype, so a narrow output is graded against the f32 formula.
 *
 * To add an op: write its run (the public API on a harness_call), reference (the
 * bicl_ref_* function on one token) and, when an exact value is known, oracle (MPFR)
 * functions, then add its configurations in the registry below. Then add its golden
 * hashes: bicl-check --golden tests/golden/golden.txt --op NAME. */
#include "harness.h"
#include "models.h"

#include "bicl_ops.def"

#include <math.h>
#include <stdlib.h>
#include <string.h>

/* Odd, so that rows end inside vectors and the scalar tail of a call crosses rows. */
#define FEATURES 37
#define PREC     HARNESS_ORACLE_PREC

/* ================================================================ helpers */

typedef struct dtype_pair {
    bicl_dtype in, out;
} dtype_pair;

static const bicl_dtype float_dtypes[3] = {BICL_F32, BICL_F16, BICL_BF16};

/* The configurations every op runs in: same-dtype storage and a bf16 model with f32
 * outputs. */
static const dtype_pair std_pairs[] = {
    {BICL_F32, BICL_F32}, {BICL_BF16, BICL_BF16}, {BICL_F16, BICL_F16}, {BICL_BF16, BICL_F32}};
#define N_STD_PAIRS (sizeof std_pairs / sizeof std_pairs[0])

/* The value of element e of a row of dtype (exact; NaN for NaNs). */
static double value_at(bicl_dtype dtype, const void *row, size_t e)
{
    size_t es = bicl_dtype_size(dtype);
    uint64_t bits = 0;
    memcpy(&bits, (const unsigned char *)row + e * es, es);
    return harness_decode(dtype, bits);
}

static void set_value(mpfr_ptr r, double v)
{
    if (isnan(v))
        mpfr_set_nan(r);
    else
        mpfr_set_d(r, v, MPFR_RNDN);
}

/* r = r correctly rounded to dtype (subnormals, overflow to inf): one `round` of a
 * formula. */
static void round_to(bicl_dtype dtype, mpfr_ptr r)
{
    set_value(r, harness_decode(dtype, harness_round_to_bits(dtype, r)));
}

/* The last step of every oracle: the f32 value that numerics.md defines the output from
 * (the harness then rounds it to the output's storage dtype). */
static int oracle_finish(mpfr_ptr exact)
{
    round_to(BICL_F32, exact);
    return 0;
}

static int oracle_nan(mpfr_ptr exact)
{
    mpfr_set_nan(exact);
    return 0;
}

/* Operand views. harness_view gives [rows, features]; some ops want a vector. */
static bicl_tensor in_view(const harness_op *op, const harness_call *call, int i)
{
    return harness_view(op, call, false, i);
}

static bicl_tensor out_view(const harness_op *op, const harness_call *call, int j)
{
    return harness_view(op, call, true, j);
}

/* [1, F] of a shared operand as the rank-1 vector [F]. */
static bicl_tensor shared_vector(bicl_tensor t)
{
    t.rank = 1;
    t.shape[0] = t.shape[1];
    t.stride[0] = t.stride[1];
    return t;
}

/* [rows, 1] of a one-feature operand as the rank-1 column [rows]. */
static bicl_tensor row_column(bicl_tensor t)
{
    t.rank = 1;
    return t;
}

/* A small device buffer holding host data, for index arrays an adapter derives from the
 * layout. The caller releases it after enqueueing (OpenCL keeps it while in use). */
static cl_mem host_buffer(const harness_call *call, const void *data, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(bicl_context_cl_context(call->ctx),
                              CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)data, &err);
    return err == CL_SUCCESS ? m : NULL;
}

/* ============================================================ exact formulas */

/* r = f(x) for a non-NaN x, exactly (to PREC bits), with the op's parameters p (its
 * registry row's p0..p3); r and x are distinct. The oracles of bicl_ops.def's ORACLE
 * column. A GLU of ORDER WHOLE gets its up operand as u (NULL otherwise). */
typedef void (*exact_fn)(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p);

/* r = x * g; an infinite x times a zero g is the limit, a signed zero (x sigmoid(a x) and
 * x Phi(x) at x = -inf, numerics.md). */
static void mul_limit(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr g)
{
    if (mpfr_inf_p(x) && mpfr_zero_p(g))
        mpfr_set_zero(r, mpfr_signbit(x) != mpfr_signbit(g) ? -1 : 1);
    else
        mpfr_mul(r, x, g, MPFR_RNDN);
}

/* r = 1 / (1 + e^-z) */
static void sigmoid_of(mpfr_ptr r, mpfr_srcptr z)
{
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_neg(t, z, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_add_ui(t, t, 1, MPFR_RNDN);
    mpfr_ui_div(r, 1, t, MPFR_RNDN);
    mpfr_clear(t);
}

/* r = x * sigmoid(z) */
static void exact_x_sigmoid(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr z)
{
    mpfr_t s;
    mpfr_init2(s, PREC);
    sigmoid_of(s, z);
    mul_limit(r, x, s);
    mpfr_clear(s);
}

/* r = x * sigmoid(a x), a a float constant (the product a x exact). */
static void exact_x_sigmoid_ax(mpfr_ptr r, mpfr_srcptr x, float a)
{
    mpfr_t z;
    mpfr_init2(z, PREC);
    mpfr_mul_d(z, x, (double)a, MPFR_RNDN);
    exact_x_sigmoid(r, x, z);
    mpfr_clear(z);
}

static void exact_relu(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    if (mpfr_sgn(x) > 0)
        mpfr_set(r, x, MPFR_RNDN);
    else
        mpfr_set_zero(r, 1);
}

static void exact_relu2(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    exact_relu(r, x, u, p);
    mpfr_sqr(r, r, MPFR_RNDN);
}

static void exact_sigmoid(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    sigmoid_of(r, x);
}

static void exact_silu(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    exact_x_sigmoid_ax(r, x, 1.0f);
}

static void exact_gelu_quick(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    exact_x_sigmoid_ax(r, x, 1.702f);
}

static void exact_tanh(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    mpfr_tanh(r, x, MPFR_RNDN);
}

/* Below this, |x Phi(x)| < phi(x) < 2^-160 (Mills' ratio: Phi(x) < phi(x) / |x|), beyond
 * every format's smallest subnormal. */
#define GELU_TINY_BELOW (-15.0)

/* x Phi(x), Phi(x) = (1 + erf(x / sqrt 2)) / 2. For x < 0, 1 + erf(-t) = 1 - erf(t)
 * cancels about 1.45 t^2 bits (erfc(t) ~ e^-t^2): erf is evaluated with that many bits
 * more (MPFR's erfc is slower there). Below GELU_TINY_BELOW any value in (-2^-160, 0)
 * rounds alike in every format: -2^-200 stands for it (the limit -0 at x = -inf). */
static void exact_gelu(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *prm)
{
    (void)u;
    (void)prm;
    if (mpfr_cmp_d(x, GELU_TINY_BELOW) <= 0) {
        mpfr_set_si_2exp(r, -1, -200, MPFR_RNDN);
        return;
    }
    double t = mpfr_get_d(x, MPFR_RNDN) / sqrt(2.0); /* > -10.7 */
    mpfr_t p;
    mpfr_init2(p, PREC + (t < 0.0 ? (mpfr_prec_t)(1.45 * t * t) + 8 : 0));
    mpfr_sqrt_ui(p, 2, MPFR_RNDN);
    mpfr_div(p, x, p, MPFR_RNDN);
    mpfr_erf(p, p, MPFR_RNDN);
    mpfr_add_ui(p, p, 1, MPFR_RNDN);
    mpfr_div_2ui(p, p, 1, MPFR_RNDN);
    mpfr_mul(r, x, p, MPFR_RNDN);
    mpfr_clear(p);
}

/* 0.5 x (1 + tanh(c (x + d x^3))) = x sigmoid(2c (x + d x^3)), c and d the float values
 * 0.7978845608f and 0.044715f. */
static void exact_gelu_tanh(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    mpfr_t z;
    mpfr_init2(z, PREC);
    mpfr_pow_ui(z, x, 3, MPFR_RNDN);
    mpfr_mul_d(z, z, (double)0.044715f, MPFR_RNDN);
    mpfr_add(z, z, x, MPFR_RNDN);
    mpfr_mul_d(z, z, 2.0 * (double)0.7978845608f, MPFR_RNDN);
    exact_x_sigmoid(r, x, z);
    mpfr_clear(z);
}

/* cap tanh(x / cap), cap = p0 */
static void exact_softcap(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    mpfr_div_d(r, x, (double)p[0], MPFR_RNDN);
    mpfr_tanh(r, r, MPFR_RNDN);
    mpfr_mul_d(r, r, (double)p[0], MPFR_RNDN);
}

/* min(max(x, 0), 6), +0 for x <= 0 */
static void exact_relu6(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    if (mpfr_sgn(x) <= 0)
        mpfr_set_zero(r, 1);
    else if (mpfr_cmp_ui(x, 6) > 0)
        mpfr_set_ui(r, 6, MPFR_RNDN);
    else
        mpfr_set(r, x, MPFR_RNDN);
}

/* x > 0 ? x : x * slope, slope = p0 (the product is exact at PREC bits) */
static void exact_leaky_relu(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    if (mpfr_sgn(x) > 0)
        mpfr_set(r, x, MPFR_RNDN);
    else
        mpfr_mul_d(r, x, (double)p[0], MPFR_RNDN);
}

/* x > threshold ? x : +0, threshold = p0 */
static void exact_fatrelu(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    if (mpfr_cmp_d(x, (double)p[0]) > 0)
        mpfr_set(r, x, MPFR_RNDN);
    else
        mpfr_set_zero(r, 1);
}

/* x min(max(x + 3, 0), 6) / 6; the limit -0 at -inf (x * 0 with x < 0 below -3) */
static void exact_hardswish(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    if (mpfr_cmp_si(x, -3) <= 0) {
        mpfr_set_zero(r, -1);
        return;
    }
    if (mpfr_cmp_ui(x, 3) >= 0) {
        mpfr_set(r, x, MPFR_RNDN);
        return;
    }
    mpfr_add_ui(r, x, 3, MPFR_RNDN);
    mpfr_mul(r, r, x, MPFR_RNDN);
    mpfr_div_ui(r, r, 6, MPFR_RNDN);
}

/* log(1 + e^x), as x + log(1 + e^-x) for x > 0 (e^x of a large float overflows MPFR's
 * exponent range) */
static void exact_softplus(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_abs(t, x, MPFR_RNDN);
    mpfr_neg(t, t, MPFR_RNDN);
    mpfr_exp(t, t, MPFR_RNDN);
    mpfr_log1p(t, t, MPFR_RNDN);
    if (mpfr_sgn(x) > 0)
        mpfr_add(r, x, t, MPFR_RNDN);
    else
        mpfr_set(r, t, MPFR_RNDN);
    mpfr_clear(t);
}

/* x tanh(log(1 + e^x)); at -inf the limit -0 */
static void exact_mish(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    (void)p;
    mpfr_t t;
    mpfr_init2(t, PREC);
    exact_softplus(t, x, u, p);
    mpfr_tanh(t, t, MPFR_RNDN);
    mul_limit(r, x, t);
    mpfr_clear(t);
}

/* xIELU in transformers' order, every operation rounded to f32 (the formula of
 * bicl_math_act_f32.h), expm1 exact; p = (alpha_p, alpha_n, beta, eps). The last sum
 * is left to the harness's final rounding. */
static void exact_xielu(mpfr_ptr r, mpfr_srcptr x, mpfr_srcptr u, const float *p)
{
    (void)u;
    mpfr_t a, b;
    mpfr_inits2(PREC, a, b, (mpfr_ptr)0);
    mpfr_mul_d(b, x, (double)p[2], MPFR_RNDN); /* beta x */
    round_to(BICL_F32, b);
    if (mpfr_sgn(x) > 0) {
        mpfr_mul_d(a, x, (double)p[0], MPFR_RNDN);
        round_to(BICL_F32, a);
        mpfr_mul(a, a, x, MPFR_RNDN);
    } else {
        if (mpfr_cmp_d(x, (double)p[3]) < 0)
            mpfr_set(a, x, MPFR_RNDN);
        else
            mpfr_set_d(a, (double)p[3], MPFR_RNDN);
        mpfr_expm1(a, a, MPFR_RNDN);
        round_to(BICL_F32, a);
        mpfr_sub(a, a, x, MPFR_RNDN);
        round_to(BICL_F32, a);
        mpfr_mul_d(a, a, (double)p[1], MPFR_RNDN);
    }
    round_to(BICL_F32, a);
    mpfr_add(r, a, b, MPFR_RNDN);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

/* r = f(v) rounded to f32, NaN for a NaN v. */
static int oracle_apply(exact_fn f, double v, const float *p, mpfr_ptr exact)
{
    if (isnan(v))
        return oracle_nan(exact);
    mpfr_t x;
    mpfr_init2(x, PREC);
    set_value(x, v);
    f(exact, x, NULL, p);
    mpfr_clear(x);
    return oracle_finish(exact);
}

/* ===================================================================== cast */

static bicl_status cast_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor x = in_view(op, call, 0), y = out_view(op, call, 0);
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
    set_value(exact, value_at(op->in[0].dtype, in[0], element));
    return 0;
}

/* ==================================================================== unary */

static void exact_swiglu_oai(mpfr_ptr r, mpfr_srcptr gate, mpfr_srcptr up, const float *p);

/* A unary op: its registry row (src/ops.h) and MPFR oracle. */
typedef struct unary_def {
    const bicl_op_info *info;
    exact_fn exact;
} unary_def;

/* One per row of cl/bicl_ops.def, with the oracle its ORACLE column names. */
#define UNARY_DEF(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)            \
    {NULL, ORACLE},
static unary_def unary_defs[] = {BICL_UNARY_OPS(UNARY_DEF)};
#define N_UNARY_DEFS (sizeof unary_defs / sizeof unary_defs[0])

/* The op's parameters as the public struct, from the registry's example values. */
static bicl_unary_params unary_params(const unary_def *def)
{
    bicl_unary_params p = {0};
    bicl_unary_params_set(def->info, def->info->example, &p);
    return p;
}

static bicl_status unary_run(const harness_op *op, const harness_call *call)
{
    const unary_def *def = op->params;
    bicl_unary_params p = unary_params(def);
    bicl_tensor x = in_view(op, call, 0), y = out_view(op, call, 0);
    return bicl_unary(call->ctx, call->queue, (bicl_unary_op)def->info->code, &p, &x, &y, 0, NULL,
                      NULL);
}

static bicl_status unary_reference(const harness_op *op, void *state, int32_t position,
                                   const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    const unary_def *def = op->params;
    bicl_unary_params p = unary_params(def);
    return bicl_ref_unary((bicl_unary_op)def->info->code, &p, op->in[0].dtype, in[0],
                          op->out[0].dtype, out[0], op->in[0].features);
}

static int unary_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                        int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index;
    const unary_def *def = op->params;
    return oracle_apply(def->exact, value_at(op->in[0].dtype, in[0], element), def->info->example,
                        exact);
}

/* ====================================================================== glu */

/* A gated unit: its registry row, how gate and up are stored, the rounding of the
 * activation, and its oracle: act(gate), or the whole element for ORDER WHOLE. */
typedef struct glu_def {
    char name[40];
    const bicl_op_info *info;
    int round_act_to_storage;
    int fused; /* 0: gate and up are two tensors; 1: one tensor in `layout` */
    bicl_glu_layout layout;
    exact_fn exact;
} glu_def;

/* The oracles of the registry's rows, by code. */
#define GLU_ORACLE(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER)    \
    [code] = ORACLE,
static const exact_fn glu_oracles[BICL_GLU_COUNT_] = {BICL_GLU_OPS(GLU_ORACLE)};

/* Each registry row as two tensors (and, unless it is one formula, with the activation
 * rounded to the storage dtype: "_round"), then these fused layouts. */
static const struct {
    const char *act;
    bicl_glu_layout layout;
    const char *label;
} glu_fused[] = {
    {"swiglu", BICL_GLU_HALVES, "swiglu_halves"},
    {"swiglu", BICL_GLU_INTERLEAVED, "swiglu_interleaved"},
    {"swiglu_oai", BICL_GLU_INTERLEAVED, "swiglu_oai_interleaved"},
    {"mul_and_silu", BICL_GLU_HALVES, "mul_and_silu_halves"}, /* [up | gate] */
};
#define N_GLU_FUSED (sizeof glu_fused / sizeof glu_fused[0])
static glu_def glu_defs[2 * BICL_GLU_COUNT_ + N_GLU_FUSED];
static size_t n_glu_defs;

static void glu_def_add(const char *name, const bicl_op_info *info, int round, int fused,
                        bicl_glu_layout layout)
{
    glu_def *d = &glu_defs[n_glu_defs++];
    snprintf(d->name, sizeof d->name, "%s", name);
    d->info = info;
    d->round_act_to_storage = round;
    d->fused = fused;
    d->layout = layout;
    d->exact = glu_oracles[info->code];
}

static void glu_defs_build(void)
{
    char name[40];
    for (int a = 0; a < BICL_GLU_COUNT_; ++a) {
        const bicl_op_info *info = bicl_glu_info(a);
        glu_def_add(info->name, info, 0, 0, BICL_GLU_HALVES);
        if (info->order != BICL_GLU_ORDER_WHOLE) {
            snprintf(name, sizeof name, "%s_round", info->name);
            glu_def_add(name, info, 1, 0, BICL_GLU_HALVES);
        }
    }
    for (size_t i = 0; i < N_GLU_FUSED; ++i)
        glu_def_add(glu_fused[i].label, bicl_glu_find(glu_fused[i].act), 0, 1, glu_fused[i].layout);
}

static bicl_glu_params glu_params(const glu_def *def)
{
    bicl_glu_params p = {0};
    bicl_glu_params_set(def->info, def->info->example, &p);
    p.round_act_to_storage = def->round_act_to_storage;
    return p;
}

static bicl_status glu_run(const harness_op *op, const harness_call *call)
{
    const glu_def *def = op->params;
    bicl_glu_params p = glu_params(def);
    bicl_tensor y = out_view(op, call, 0), x = in_view(op, call, 0);
    bicl_glu_act act = (bicl_glu_act)def->info->code;
    if (def->fused)
        return bicl_glu_fused(call->ctx, call->queue, act, &p, def->layout, &x, &y, 0, NULL, NULL);
    bicl_tensor up = in_view(op, call, 1);
    return bicl_glu(call->ctx, call->queue, act, &p, &x, &up, &y, 0, NULL, NULL);
}

/* Element e of gate and of up in the inputs of one token (a fused tensor of an up-first
 * activation holds up first). */
static void glu_pair_index(const harness_op *op, size_t e, size_t *gate, size_t *up)
{
    const glu_def *def = op->params;
    size_t f = op->out[0].features;
    size_t first = !def->fused ? e : def->layout == BICL_GLU_HALVES ? e : 2 * e;
    size_t second = !def->fused ? e : def->layout == BICL_GLU_HALVES ? f + e : 2 * e + 1;
    bool swap = def->fused && def->info->order == BICL_GLU_ORDER_UP;
    *gate = swap ? second : first;
    *up = swap ? first : second;
}

static const void *glu_up_row(const harness_op *op, const void *const *in)
{
    const glu_def *def = op->params;
    return def->fused ? in[0] : in[1];
}

/* gate and up gathered into two rows (undoing a fused layout), then bicl_ref_glu. */
static bicl_status glu_reference(const harness_op *op, void *state, int32_t position,
                                 const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    const glu_def *def = op->params;
    bicl_glu_params p = glu_params(def);
    bicl_dtype dt = op->in[0].dtype;
    size_t f = op->out[0].features, es = bicl_dtype_size(dt);
    unsigned char *gate = malloc(f * es), *up = malloc(f * es);
    bicl_status st = BICL_ERR_OUT_OF_HOST_MEMORY;
    if (gate && up) {
        for (size_t e = 0; e < f; ++e) {
            size_t g, u;
            glu_pair_index(op, e, &g, &u);
            memcpy(gate + e * es, (const unsigned char *)in[0] + g * es, es);
            memcpy(up + e * es, (const unsigned char *)glu_up_row(op, in) + u * es, es);
        }
        st = bicl_ref_glu((bicl_glu_act)def->info->code, &p, dt, gate, up, op->out[0].dtype, out[0],
                          f);
    }
    free(gate);
    free(up);
    return st;
}

/* gpt-oss: (clamp(up, -limit, limit) + 1) * g * sigmoid(alpha g), g = min(gate, limit),
 * rounded once; alpha = p0, limit = p1. */
static void exact_swiglu_oai(mpfr_ptr r, mpfr_srcptr gate, mpfr_srcptr up, const float *p)
{
    double limit = (double)p[1];
    mpfr_t g, u;
    mpfr_inits2(PREC, g, u, (mpfr_ptr)0);
    mpfr_set(g, gate, MPFR_RNDN);
    if (mpfr_cmp_d(g, limit) > 0)
        mpfr_set_d(g, limit, MPFR_RNDN);
    mpfr_set(u, up, MPFR_RNDN);
    if (mpfr_cmp_d(u, -limit) < 0)
        mpfr_set_d(u, -limit, MPFR_RNDN);
    if (mpfr_cmp_d(u, limit) > 0)
        mpfr_set_d(u, limit, MPFR_RNDN);
    mpfr_add_ui(u, u, 1, MPFR_RNDN);
    exact_x_sigmoid_ax(r, g, p[0]);
    mpfr_mul(r, u, r, MPFR_RNDN);
    mpfr_clears(g, u, (mpfr_ptr)0);
}

/* a = round(act(gate)) (to f32, then to gate's dtype when asked), then round(a * up); or
 * the one formula of ORDER WHOLE. */
static void exact_glu(const harness_op *op, mpfr_ptr r, mpfr_srcptr gate, mpfr_srcptr up)
{
    const glu_def *def = op->params;
    const float *p = def->info->example;
    if (def->info->order == BICL_GLU_ORDER_WHOLE) {
        def->exact(r, gate, up, p);
        return;
    }
    mpfr_t a;
    mpfr_init2(a, PREC);
    def->exact(a, gate, NULL, p);
    round_to(BICL_F32, a);
    if (def->round_act_to_storage)
        round_to(op->in[0].dtype, a);
    mpfr_mul(r, a, up, MPFR_RNDN);
    mpfr_clear(a);
}

static int glu_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                      int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index;
    size_t gi, ui;
    glu_pair_index(op, element, &gi, &ui);
    double g = value_at(op->in[0].dtype, in[0], gi);
    double u = value_at(op->in[0].dtype, glu_up_row(op, in), ui);
    if (isnan(g) || isnan(u))
        return oracle_nan(exact);
    mpfr_t gate, up;
    mpfr_inits2(PREC, gate, up, (mpfr_ptr)0);
    set_value(gate, g);
    set_value(up, u);
    exact_glu(op, exact, gate, up);
    mpfr_clears(gate, up, (mpfr_ptr)0);
    return oracle_finish(exact);
}

/* =================================================================== binary */

#define AXPBY_ALPHA 0.5f
#define AXPBY_BETA  -2.0f
#define SCALE       0.125f

enum { BIN_AXPBY = BICL_BINARY_COUNT_ }; /* after add, sub, mul */

/* y = a op b: add, sub, mul, axpby on full shapes; bias_add and scale_channels with b a
 * per-feature vector (one row for the whole batch, a `shared` operand). */
typedef struct binary_def {
    const char *name;
    int code; /* bicl_binary_op or BIN_AXPBY */
    bool shared_b;
    bicl_status (*call)(const harness_call *call, int code, const bicl_tensor *a,
                        const bicl_tensor *b, const bicl_tensor *y);
} binary_def;

static bicl_status call_binary(const harness_call *c, int code, const bicl_tensor *a,
                               const bicl_tensor *b, const bicl_tensor *y)
{
    return bicl_binary(c->ctx, c->queue, (bicl_binary_op)code, a, b, y, 0, NULL, NULL);
}

static bicl_status call_axpby(const harness_call *c, int code, const bicl_tensor *a,
                              const bicl_tensor *b, const bicl_tensor *y)
{
    (void)code;
    return bicl_axpby(c->ctx, c->queue, AXPBY_ALPHA, a, AXPBY_BETA, b, y, 0, NULL, NULL);
}

static bicl_status call_bias_add(const harness_call *c, int code, const bicl_tensor *a,
                                 const bicl_tensor *b, const bicl_tensor *y)
{
    (void)code;
    bicl_tensor bias = shared_vector(*b);
    return bicl_bias_add(c->ctx, c->queue, a, &bias, y, 0, NULL, NULL);
}

static bicl_status call_scale_channels(const harness_call *c, int code, const bicl_tensor *a,
                                       const bicl_tensor *b, const bicl_tensor *y)
{
    (void)code;
    bicl_tensor s = shared_vector(*b);
    return bicl_scale_channels(c->ctx, c->queue, a, &s, y, 0, NULL, NULL);
}

static const binary_def binary_defs[] = {
    {"add", BICL_BINARY_ADD, false, call_binary},
    {"sub", BICL_BINARY_SUB, false, call_binary},
    {"mul", BICL_BINARY_MUL, false, call_binary},
    {"axpby", BIN_AXPBY, false, call_axpby},
    {"bias_add", BICL_BINARY_ADD, true, call_bias_add},
    {"scale_channels", BICL_BINARY_MUL, true, call_scale_channels},
};

static bicl_status binary_run(const harness_op *op, const harness_call *call)
{
    const binary_def *def = op->params;
    bicl_tensor a = in_view(op, call, 0), b = in_view(op, call, 1), y = out_view(op, call, 0);
    return def->call(call, def->code, &a, &b, &y);
}

static bicl_status binary_reference(const harness_op *op, void *state, int32_t position,
                                    const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    const binary_def *def = op->params;
    bicl_dtype a = op->in[0].dtype, b = op->in[1].dtype, y = op->out[0].dtype;
    size_t n = op->out[0].features;
    if (def->code == BIN_AXPBY)
        return bicl_ref_axpby(AXPBY_ALPHA, a, in[0], AXPBY_BETA, b, in[1], y, out[0], n);
    return bicl_ref_binary((bicl_binary_op)def->code, a, in[0], b, in[1], y, out[0], n);
}

/* axpby: round(round(alpha a) + round(beta b)). */
static void exact_axpby(mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b)
{
    mpfr_t t;
    mpfr_init2(t, PREC);
    mpfr_mul_d(t, b, (double)AXPBY_BETA, MPFR_RNDN);
    round_to(BICL_F32, t);
    mpfr_mul_d(r, a, (double)AXPBY_ALPHA, MPFR_RNDN);
    round_to(BICL_F32, r);
    mpfr_add(r, r, t, MPFR_RNDN);
    mpfr_clear(t);
}

static void exact_binary(int code, mpfr_ptr r, mpfr_srcptr a, mpfr_srcptr b)
{
    switch (code) {
    case BICL_BINARY_ADD:
        mpfr_add(r, a, b, MPFR_RNDN);
        break;
    case BICL_BINARY_SUB:
        mpfr_sub(r, a, b, MPFR_RNDN);
        break;
    case BICL_BINARY_MUL:
        mpfr_mul(r, a, b, MPFR_RNDN);
        break;
    default:
        exact_axpby(r, a, b);
    }
}

/* r = a op b of two values, NaN when either is NaN (inf - inf, 0 * inf: MPFR's NaN). */
static int oracle_binary(int code, double av, double bv, mpfr_ptr exact)
{
    if (isnan(av) || isnan(bv))
        return oracle_nan(exact);
    mpfr_t a, b;
    mpfr_inits2(PREC, a, b, (mpfr_ptr)0);
    set_value(a, av);
    set_value(b, bv);
    exact_binary(code, exact, a, b);
    mpfr_clears(a, b, (mpfr_ptr)0);
    return oracle_finish(exact);
}

static int binary_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                         int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index;
    const binary_def *def = op->params;
    return oracle_binary(def->code, value_at(op->in[0].dtype, in[0], element),
                         value_at(op->in[1].dtype, in[1], element), exact);
}

/* ---------------------------------------------------------------- scale */

static bicl_status scale_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor x = in_view(op, call, 0), y = out_view(op, call, 0);
    return bicl_scale(call->ctx, call->queue, SCALE, &x, &y, 0, NULL, NULL);
}

static bicl_status scale_reference(const harness_op *op, void *state, int32_t position,
                                   const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    return bicl_ref_scale(SCALE, op->in[0].dtype, in[0], op->out[0].dtype, out[0],
                          op->out[0].features);
}

static int scale_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                        int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index;
    return oracle_binary(BICL_BINARY_MUL, value_at(op->in[0].dtype, in[0], element), (double)SCALE,
                         exact);
}

/* --------------------------------------------------------- residual add */

/* Inputs residual (f32), x; outputs residual_out (f32) = round(residual + x) and y, the
 * same value in y's dtype. */
static bicl_status residual_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor r = in_view(op, call, 0), x = in_view(op, call, 1);
    bicl_tensor ro = out_view(op, call, 0), y = out_view(op, call, 1);
    return bicl_residual_add(call->ctx, call->queue, &r, &x, &ro, &y, 0, NULL, NULL);
}

static bicl_status residual_reference(const harness_op *op, void *state, int32_t position,
                                      const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    return bicl_ref_residual_add(in[0], op->in[1].dtype, in[1], out[0], op->out[1].dtype, out[1],
                                 op->out[0].features);
}

static int residual_oracle(const harness_op *op, void *state, int32_t position,
                           const void *const *in, int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index; /* both outputs hold round(residual + x) */
    return oracle_binary(BICL_BINARY_ADD, value_at(BICL_F32, in[0], element),
                         value_at(op->in[1].dtype, in[1], element), exact);
}

/* ==================================================================== masks */

#define MASK_FILL    (-INFINITY)
#define LENGTHS_FILL (-10000.123f) /* rounds in f16 and bf16 */

/* y = mask != 0 ? fill : x, mask [rows, F] of u8 or i32 (in[1]). */
static bicl_status mask_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor x = in_view(op, call, 0), m = in_view(op, call, 1), y = out_view(op, call, 0);
    return bicl_mask_fill(call->ctx, call->queue, &x, &m, MASK_FILL, &y, 0, NULL, NULL);
}

/* y[c] = c >= length ? fill : x[c], one i32 length per token (in[1], [rows]). */
static bicl_status lengths_run(const harness_op *op, const harness_call *call)
{
    bicl_tensor x = in_view(op, call, 0), y = out_view(op, call, 0);
    bicl_tensor len = row_column(in_view(op, call, 1));
    return bicl_mask_fill_lengths(call->ctx, call->queue, &x, &len, LENGTHS_FILL, &y, 0, NULL,
                                  NULL);
}

/* Whether element e of a token is filled, by the mask or by the length. */
static bool mask_selects(const harness_op *op, const void *const *in, size_t e)
{
    bool lengths = op->in[1].features == 1;
    double m = value_at(op->in[1].dtype, in[1], lengths ? 0 : e);
    return lengths ? (double)e >= m : m != 0.0;
}

static float mask_fill_value(const harness_op *op)
{
    return op->in[1].features == 1 ? LENGTHS_FILL : MASK_FILL;
}

static bicl_status mask_reference(const harness_op *op, void *state, int32_t position,
                                  const void *const *in, void *const *out)
{
    (void)state;
    (void)position;
    size_t n = op->out[0].features;
    uint8_t select[FEATURES];
    if (n > FEATURES)
        return BICL_ERR_SHAPE_MISMATCH;
    for (size_t e = 0; e < n; ++e)
        select[e] = mask_selects(op, in, e);
    return bicl_ref_mask_fill(op->in[0].dtype, in[0], select, mask_fill_value(op), op->out[0].dtype,
                              out[0], n);
}

/* The fill value, or x's value (a NaN stays a NaN). */
static int mask_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                       int out_index, size_t element, mpfr_ptr exact)
{
    (void)state;
    (void)position;
    (void)out_index;
    bool filled = mask_selects(op, in, element);
    set_value(exact,
              filled ? (double)mask_fill_value(op) : value_at(op->in[0].dtype, in[0], element));
    return oracle_finish(exact);
}

/* Element i of a stream of random words (splitmix64's finaliser). */
static uint32_t random_word(uint64_t seed, size_t i)
{
    uint64_t x = seed + 0x9e3779b97f4a7c15ull * (i + 1);
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((x ^ (x >> 31)) >> 32);
}

/* x: the default inputs; u8 masks too (zeros, ones and any byte); i32 masks: half zeros,
 * half any word; lengths: -2 .. FEATURES + 2 (none, some and all elements filled). */
static void mask_input_fill(const harness_op *op, int operand, int32_t position, void *out,
                            size_t n, uint64_t seed)
{
    (void)position;
    bicl_dtype dt = op->in[operand].dtype;
    if (dt != BICL_I32) {
        harness_fill_default(dt, out, n, seed);
        return;
    }
    for (size_t i = 0; i < n; ++i) {
        uint32_t r = random_word(seed, i);
        int32_t v = op->in[operand].features == 1 ? (int32_t)(r % (FEATURES + 5)) - 2
                    : (r & 1u)                    ? 0
                                                  : (int32_t)r;
        memcpy((char *)out + 4 * i, &v, 4);
    }
}

/* ===================================================================== rope */

/* Heads in the harness: a GQA model as 4 q + 2 k, an MHA model as 2 + 2. */
static int harness_q_heads(const harness_model *m)
{
    return m->n_kv_heads < m->n_heads ? 4 : 2;
}

/* Positions the table source covers: the prompts and decode steps up to 131071; the
 * long-context tokens beyond it run with the inline source only. */
#define ROPE_TABLE_POSITIONS 131072

/* One RoPE configuration the harness runs: a model of models.json, or a model read from
 * a config.json (bicl-check --hf-config). cfg.angle_mode is the mode under test. */
typedef struct rope_def {
    char name[48];
    bicl_rope_config cfg;
    int hq, hk;
    bicl_rope_source source;
    bool in_place; /* q and k rotated in place (their output views), as engines do */
} rope_def;

#define MAX_HALF 256 /* Gemma 4's global layers: head_dim 512 */

typedef struct rope_state {
    bicl_rope_plan *plan;
    double inv[MAX_HALF], attn;
    float inv_f[MAX_HALF]; /* the hf mode's float inv_freq (transformers' float32 steps) */
    int32_t cached;        /* position of c[] and s[], -1: none */
    float c[MAX_HALF], s[MAX_HALF];
} rope_state;

static bicl_status rope_setup(const harness_op *op, bicl_context *ctx, void **state)
{
    const rope_def *def = op->params;
    if (!ctx)
        return BICL_ERR_NULL_POINTER; /* a plan lives in a context */
    if (def->cfg.rotary_dim / 2 > MAX_HALF)
        return BICL_ERR_INVALID_CONFIG;
    rope_state *s = calloc(1, sizeof *s);
    if (!s)
        return BICL_ERR_OUT_OF_HOST_MEMORY;
    bicl_rope_config c = def->cfg;
    int table = def->source == BICL_ROPE_SOURCE_TABLE ? ROPE_TABLE_POSITIONS : 0;
    bicl_status st = bicl_rope_plan_create(ctx, &c, table, 0, &s->plan);
    if (st == BICL_SUCCESS)
        st = bicl_rope_plan_inv_freq(s->plan, s->inv, (size_t)c.rotary_dim / 2, &s->attn);
    for (int i = 0; st == BICL_SUCCESS && i < c.rotary_dim / 2; ++i)
        st = bicl_rope_hf_inv_freq_f32(&c, i, &s->inv_f[i]);
    if (st != BICL_SUCCESS) {
        bicl_rope_plan_free(s->plan);
        free(s);
        return st;
    }
    s->cached = -1;
    *state = s;
    return BICL_SUCCESS;
}

static void rope_teardown(const harness_op *op, void *state)
{
    (void)op;
    rope_state *s = state;
    if (s)
        bicl_rope_plan_free(s->plan);
    free(s);
}

/* Operand `index` as [B, S, H, head_dim] (rank 4) for a padded batch, or
 * [T, H, head_dim] (rank 3) for a single row of tokens. */
/* The head width of operand 0 (q) or 1 (k): MLA's k_pe heads have their own. */
static size_t slice_width(const rope_def *def, int operand)
{
    const bicl_rope_config *c = &def->cfg;
    return (size_t)(operand == 1 && c->k_head_dim ? c->k_head_dim : c->head_dim);
}

static bicl_tensor head_view(const harness_op *op, const harness_call *call, bool output, int index)
{
    const rope_def *def = op->params;
    bicl_tensor v = harness_view(op, call, output, index);
    size_t d = slice_width(def, index), h = v.shape[1] / d;
    ptrdiff_t row = v.stride[0];
    if (call->batch > 1) {
        v.rank = 4;
        v.shape[0] = call->batch;
        v.shape[1] = call->seq;
        v.shape[2] = h;
        v.shape[3] = d;
        v.stride[0] = row * (ptrdiff_t)call->seq;
        v.stride[1] = row;
    } else {
        v.rank = 3;
        v.shape[1] = h;
        v.shape[2] = d;
    }
    v.stride[v.rank - 2] = (ptrdiff_t)d;
    v.stride[v.rank - 1] = 1;
    return v;
}

/* The layout's positions: [B, S] or [T], matching head_view. */
static bicl_tensor positions_view(const harness_call *call)
{
    size_t shape[2] = {call->batch, call->seq};
    if (call->batch > 1)
        return bicl_tensor_contiguous(call->positions_mem, BICL_I32, 0, 2, shape);
    return bicl_tensor_contiguous(call->positions_mem, BICL_I32, 0, 1, &call->rows);
}

/* Operand i's rows copied from its input buffer into its output buffer, at the output
 * view's offset and row pitch: where an in-place rotation starts. */
static cl_int copy_rows_to_output(const harness_op *op, const harness_call *call, int i,
                                  cl_event *done)
{
    size_t es = bicl_dtype_size(op->in[i].dtype), width = op->in[i].features * es;
    const harness_buffer *src = &call->in[i], *dst = &call->out[i];
    size_t src_origin[3] = {src->offset * es, 0, 0}, dst_origin[3] = {dst->offset * es, 0, 0};
    size_t region[3] = {width, call->rows, 1};
    size_t src_pitch = src->row_stride * es > width ? src->row_stride * es : width;
    size_t dst_pitch = dst->row_stride * es > width ? dst->row_stride * es : width;
    return clEnqueueCopyBufferRect(call->queue, src->mem, dst->mem, src_origin, dst_origin, region,
                                   src_pitch, 0, dst_pitch, 0, 0, NULL, done);
}

/* q and k in one launch (in place: on their output views, after the inputs are copied
 * there), then the plan's out-of-range counter must be clear. */
static bicl_status rope_run(const harness_op *op, const harness_call *call)
{
    const rope_def *def = op->params;
    rope_state *s = call->state;
    bicl_tensor pos = positions_view(call);
    bicl_tensor qi = head_view(op, call, false, 0), ki = head_view(op, call, false, 1);
    bicl_tensor qo = head_view(op, call, true, 0), ko = head_view(op, call, true, 1);
    cl_event copied[2] = {NULL, NULL};
    cl_uint n_wait = 0;
    bicl_status st = BICL_SUCCESS;
    if (def->in_place) {
        if (copy_rows_to_output(op, call, 0, &copied[0]) != CL_SUCCESS ||
            copy_rows_to_output(op, call, 1, &copied[1]) != CL_SUCCESS)
            st = BICL_ERR_OPENCL;
        qi = qo;
        ki = ko;
        n_wait = 2;
    }
    if (st == BICL_SUCCESS)
        st = bicl_rope_apply(call->ctx, call->queue, s->plan, def->source, 0, &pos, &qi, &qo, &ki,
                             &ko, n_wait, n_wait ? copied : NULL, NULL);
    for (int i = 0; i < 2; ++i)
        if (copied[i])
            clReleaseEvent(copied[i]);
    unsigned bad = 0;
    int first_bad = 0;
    if (st == BICL_SUCCESS)
        st = bicl_rope_errors(call->ctx, call->queue, s->plan, &bad, &first_bad, 0, NULL);
    return st;
}

static bicl_status rope_reference(const harness_op *op, void *state, int32_t position,
                                  const void *const *in, void *const *out)
{
    const rope_def *def = op->params;
    rope_state *s = state;
    size_t d = (size_t)def->cfg.head_dim;
    bicl_dtype it = op->in[0].dtype, ot = op->out[0].dtype;
    bicl_status st = BICL_SUCCESS;
    for (int j = 0; j < 2 && st == BICL_SUCCESS; ++j)
        for (size_t h = 0; h < op->in[j].features / d && st == BICL_SUCCESS; ++h)
            st = bicl_ref_rope_head(s->plan, def->source, 0, position, it,
                                    (const unsigned char *)in[j] + h * d * bicl_dtype_size(it), ot,
                                    (unsigned char *)out[j] + h * d * bicl_dtype_size(ot));
    return st;
}

/* f32 value of v (round to nearest even). */
static float round_f32(mpfr_ptr v)
{
    round_to(BICL_F32, v);
    return (float)mpfr_get_d(v, MPFR_RNDN);
}

/* The oracle's cos/sin of every pair at `position`, correctly rounded (MPFR):
 *   exact mode: RN(cos(pos * inv) * attn), the product pos * inv exact;
 *   hf mode: a = RN(RN(pos) * inv_f) in f32 (inv_f: transformers' float32 inv_freq,
 *   bicl_rope_inv_freq_hf), RN(cos(a)) * RN(attn) in f32. */
static void rope_cos_sin(const rope_def *def, rope_state *s, int32_t position)
{
    if (s->cached == position)
        return;
    bool hf = def->cfg.angle_mode == BICL_ROPE_ANGLE_HF;
    float attn_f = (float)s->attn;
    mpfr_t a, c, sn;
    mpfr_inits2(PREC, a, c, sn, (mpfr_ptr)0);
    for (int i = 0; i < def->cfg.rotary_dim / 2; ++i) {
        if (hf) {
            mpfr_set_flt(a, (float)position * s->inv_f[i], MPFR_RNDN);
        } else {
            mpfr_set_d(a, s->inv[i], MPFR_RNDN);
            mpfr_mul_si(a, a, position, MPFR_RNDN); /* exact */
        }
        mpfr_sin_cos(sn, c, a, MPFR_RNDN);
        if (hf) {
            s->c[i] = round_f32(c) * attn_f;
            s->s[i] = round_f32(sn) * attn_f;
        } else {
            mpfr_mul_d(c, c, s->attn, MPFR_RNDN);
            mpfr_mul_d(sn, sn, s->attn, MPFR_RNDN);
            s->c[i] = round_f32(c);
            s->s[i] = round_f32(sn);
        }
    }
    mpfr_clears(a, c, sn, (mpfr_ptr)0);
    s->cached = position;
}

/* The rotation as numerics.md writes it, for the element `own` of a pair whose other
 * element is `other`: o0 = round(x0 c) - round(x1 s) for the first element,
 * o1 = round(x1 c) + round(x0 s) for the second; so round(own c) -/+ round(other s). */
static void exact_rotation(mpfr_ptr r, double own, double other, float c, float s, bool first)
{
    mpfr_t q;
    mpfr_init2(q, PREC);
    set_value(r, own);
    mpfr_mul_d(r, r, (double)c, MPFR_RNDN);
    round_to(BICL_F32, r);
    set_value(q, other);
    mpfr_mul_d(q, q, (double)s, MPFR_RNDN);
    round_to(BICL_F32, q);
    if (first)
        mpfr_sub(r, r, q, MPFR_RNDN);
    else
        mpfr_add(r, r, q, MPFR_RNDN);
    mpfr_clear(q);
}

/* The correctly rounded cos and sin of pair `pair` at a token's position (rope_cos_sin):
 * the adapter's own, or, for M-RoPE, those of the position row the pair belongs to. */
typedef void (*pair_cos_sin_fn)(const harness_op *op, void *state, int32_t position, size_t pair,
                                float *c, float *s);

/* A of every rotary adapter (rope, rope_slice, mrope): output element e of a head of
 * width d comes from pair i read at (j0, j1) of the input (GPT-J or NeoX places;
 * DEINTERLEAVE reads GPT-J's and writes NeoX's), as the first or second element of the
 * rotation. Elements outside the rotary slice pass through. */
static int rotary_oracle(const harness_op *op, const bicl_rope_config *c, size_t d, void *state,
                         int32_t position, const void *const *in, int out_index, size_t element,
                         pair_cos_sin_fn cos_sin, mpfr_ptr exact)
{
    size_t half = (size_t)c->rotary_dim / 2;
    size_t off = (size_t)(out_index ? c->k_rotary_offset : c->rotary_offset);
    size_t base = element / d * d, e = element % d;
    bicl_dtype dt = op->in[0].dtype;
    const void *row = in[out_index];
    if (e < off || e >= off + 2 * half) {
        set_value(exact, value_at(dt, row, element));
        return oracle_finish(exact);
    }
    size_t r = e - off;
    bool gptj_out = c->style == BICL_ROPE_GPTJ, gptj_in = c->style != BICL_ROPE_NEOX;
    size_t pair = gptj_out ? r / 2 : r % half;
    bool first = gptj_out ? r % 2 == 0 : r < half;
    size_t j0 = off + (gptj_in ? 2 * pair : pair),
           j1 = off + (gptj_in ? 2 * pair + 1 : pair + half);
    double own = value_at(dt, row, base + (first ? j0 : j1));
    double other = value_at(dt, row, base + (first ? j1 : j0));
    if (isnan(own) || isnan(other))
        return oracle_nan(exact);
    float cv, sv;
    cos_sin(op, state, position, pair, &cv, &sv);
    exact_rotation(exact, own, other, cv, sv, first);
    return oracle_finish(exact);
}

static void rope_pair_cos_sin(const harness_op *op, void *state, int32_t position, size_t pair,
                              float *c, float *s)
{
    rope_state *st = state;
    rope_cos_sin(op->params, st, position);
    *c = st->c[pair];
    *s = st->s[pair];
}

/* The oracle of the rope and rope_slice adapters (q and k heads of their own widths). */
static int rope_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                       int out_index, size_t element, mpfr_ptr exact)
{
    const rope_def *def = op->params;
    return rotary_oracle(op, &def->cfg, slice_width(def, out_index), state, position, in, out_index,
                         element, rope_pair_cos_sin, exact);
}

/* ======================================== rope slices (MLA, proportional: issue 19) */

/* The rope adapter for plans whose rotary slice sits at an offset inside each head, whose
 * k heads have their own width (MLA's k_pe), whose pairs move (BICL_ROPE_DEINTERLEAVE) or
 * whose pairs past rope_angles rotate by angle 0 (proportional). It shares rope_def,
 * rope_setup / rope_teardown, rope_run, head_view (which gives each operand its own head
 * width), positions_view and the MPFR cos/sin with the rope adapter. */

static bicl_status slice_reference(const harness_op *op, void *state, int32_t position,
                                   const void *const *in, void *const *out)
{
    const rope_def *def = op->params;
    rope_state *s = state;
    bicl_dtype it = op->in[0].dtype, ot = op->out[0].dtype;
    bicl_status st = BICL_SUCCESS;
    for (int j = 0; j < 2 && st == BICL_SUCCESS; ++j) {
        size_t d = slice_width(def, j);
        for (size_t h = 0; h < op->in[j].features / d && st == BICL_SUCCESS; ++h) {
            const unsigned char *x = (const unsigned char *)in[j] + h * d * bicl_dtype_size(it);
            unsigned char *y = (unsigned char *)out[j] + h * d * bicl_dtype_size(ot);
            st = j ? bicl_ref_rope_k_head(s->plan, def->source, 0, position, it, x, ot, y)
                   : bicl_ref_rope_head(s->plan, def->source, 0, position, it, x, ot, y);
        }
    }
    return st;
}

/* ================================================================ mrope */

/* M-RoPE (bicl/mrope.h) on the standard workload. The layouts give one position per
 * token; the adapter spreads it over three distinct rows, a fixed function of it alone
 * (t = p, h = p / 3, w = p mod 1021; a negative p stays in all rows), so that every
 * pair's row matters and a token's rows never depend on its batch. The reference and
 * the oracle rotate pair i at its row's position (bicl_mrope_pair_row). */
typedef struct mrope_def {
    rope_def base; /* first: head_view and the rope helpers read it */
    bicl_mrope_config m;
} mrope_def;

typedef struct mrope_state {
    bicl_mrope_plan *plan;
    rope_state rows[3]; /* the oracle's cos/sin per row (their plans unused) */
} mrope_state;

static void mrope_rows(int32_t p, int32_t r[3])
{
    r[0] = p;
    r[1] = p >= 0 ? p / 3 : p;
    r[2] = p >= 0 ? p % 1021 : p;
}

static bicl_status mrope_setup(const harness_op *op, bicl_context *ctx, void **state)
{
    const mrope_def *def = op->params;
    const bicl_rope_config *c = &def->base.cfg;
    if (!ctx)
        return BICL_ERR_NULL_POINTER;
    if (c->rotary_dim / 2 > MAX_HALF)
        return BICL_ERR_INVALID_CONFIG;
    mrope_state *s = calloc(1, sizeof *s);
    if (!s)
        return BICL_ERR_OUT_OF_HOST_MEMORY;
    int table = def->base.source == BICL_ROPE_SOURCE_TABLE ? ROPE_TABLE_POSITIONS : 0;
    bicl_status st = bicl_mrope_plan_create(ctx, c, &def->m, table, 0, &s->plan);
    for (int r = 0; r < 3 && st == BICL_SUCCESS; ++r) {
        st = bicl_rope_plan_inv_freq(bicl_mrope_plan_rope(s->plan), s->rows[r].inv,
                                     (size_t)c->rotary_dim / 2, &s->rows[r].attn);
        for (int i = 0; st == BICL_SUCCESS && i < c->rotary_dim / 2; ++i)
            st = bicl_rope_hf_inv_freq_f32(c, i, &s->rows[r].inv_f[i]);
        s->rows[r].cached = -1;
    }
    if (st != BICL_SUCCESS) {
        bicl_mrope_plan_free(s->plan);
        free(s);
        return st;
    }
    *state = s;
    return BICL_SUCCESS;
}

static void mrope_teardown(const harness_op *op, void *state)
{
    (void)op;
    mrope_state *s = state;
    if (s)
        bicl_mrope_plan_free(s->plan);
    free(s);
}

/* The layout's positions as [3, B, S] or [3, T] in a buffer of the call's. */
static bicl_status mrope_run(const harness_op *op, const harness_call *call)
{
    const mrope_def *def = op->params;
    mrope_state *s = call->state;
    int32_t *rows = malloc(3 * call->rows * sizeof *rows);
    if (!rows)
        return BICL_ERR_OUT_OF_HOST_MEMORY;
    for (size_t t = 0; t < call->rows; ++t) {
        int32_t r[3];
        mrope_rows(call->positions[t], r);
        for (int a = 0; a < 3; ++a)
            rows[(size_t)a * call->rows + t] = r[a];
    }
    cl_mem pm = host_buffer(call, rows, 3 * call->rows * sizeof *rows);
    free(rows);
    if (!pm)
        return BICL_ERR_OUT_OF_DEVICE_MEMORY;
    size_t shape[3] = {3, call->batch, call->seq}, flat[2] = {3, call->rows};
    bicl_tensor pos = call->batch > 1 ? bicl_tensor_contiguous(pm, BICL_I32, 0, 3, shape)
                                      : bicl_tensor_contiguous(pm, BICL_I32, 0, 2, flat);
    bicl_tensor qi = head_view(op, call, false, 0), ki = head_view(op, call, false, 1);
    bicl_tensor qo = head_view(op, call, true, 0), ko = head_view(op, call, true, 1);
    bicl_status st = bicl_mrope_apply(call->ctx, call->queue, s->plan, def->base.source, 0, &pos,
                                      &qi, &qo, &ki, &ko, 0, NULL, NULL);
    unsigned bad = 0;
    int first_bad = 0;
    if (st == BICL_SUCCESS)
        st = bicl_rope_errors(call->ctx, call->queue, bicl_mrope_plan_rope(s->plan), &bad,
                              &first_bad, 0, NULL);
    clFinish(call->queue); /* the positions buffer is released next */
    clReleaseMemObject(pm);
    return st;
}

static bicl_status mrope_reference(const harness_op *op, void *state, int32_t position,
                                   const void *const *in, void *const *out)
{
    const mrope_def *def = op->params;
    mrope_state *s = state;
    size_t d = (size_t)def->base.cfg.head_dim;
    bicl_dtype it = op->in[0].dtype, ot = op->out[0].dtype;
    int32_t r[3];
    mrope_rows(position, r);
    bicl_status st = BICL_SUCCESS;
    for (int j = 0; j < 2 && st == BICL_SUCCESS; ++j)
        for (size_t h = 0; h < op->in[j].features / d && st == BICL_SUCCESS; ++h)
            st = bicl_ref_mrope_head(s->plan, def->base.source, 0, r, it,
                                     (const unsigned char *)in[j] + h * d * bicl_dtype_size(it), ot,
                                     (unsigned char *)out[j] + h * d * bicl_dtype_size(ot));
    return st;
}

/* The cos/sin of a pair: those of its position row (bicl_mrope_pair_row) at that row's
 * position. */
static void mrope_pair_cos_sin(const harness_op *op, void *state, int32_t position, size_t pair,
                               float *c, float *s)
{
    const mrope_def *def = op->params;
    mrope_state *st = state;
    int32_t r[3];
    mrope_rows(position, r);
    int a = bicl_mrope_pair_row(&def->m, (int)pair);
    rope_cos_sin(&def->base, &st->rows[a], r[a]);
    *c = st->rows[a].c[pair];
    *s = st->rows[a].s[pair];
}

/* rope_oracle's rotation with the cos/sin of the pair's row at that row's position. */
static int mrope_oracle(const harness_op *op, void *state, int32_t position, const void *const *in,
                        int out_index, size_t element, mpfr_ptr exact)
{
    const mrope_def *def = op->params;
    return rotary_oracle(op, &def->base.cfg, (size_t)def->base.cfg.head_dim, state, position, in,
                         out_index, element, mrope_pair_cos_sin, exact);
}

/* ================================================================ positions */

/* The builders write one i32 per token; they have no inputs: what they read (cu_seqlens,
 * start offsets, the attention mask) is derived from the layout, as an engine derives
 * it from its batch. Relation I: a token's position is the same in every layout. */

/* A run of rows holding consecutive tokens of one sample (or padding: start 0). */
typedef struct row_run {
    size_t first, count;
    int32_t start;
} row_run;

static bool continues_run(const harness_call *call, size_t r)
{
    harness_token a = call->tokens[r - 1], b = call->tokens[r];
    return a.sample == b.sample && (a.sample < 0 || b.token == a.token + 1);
}

/* Splits rows [first, first + n) into runs; returns their number. */
static size_t row_runs(const harness_call *call, size_t first, size_t n, row_run *runs)
{
    size_t k = 0;
    for (size_t r = first; r < first + n; ++r) {
        if (r > first && continues_run(call, r)) {
            runs[k - 1].count++;
            continue;
        }
        int32_t t = call->tokens[r].sample < 0 ? 0 : call->tokens[r].token;
        runs[k++] = (row_run){r, 1, t};
    }
    return k;
}

/* [rows, 1] of the output as [b, s] from row `first` on. */
static bicl_tensor positions_out(const harness_op *op, const harness_call *call, size_t first,
                                 size_t b, size_t s)
{
    bicl_tensor v = out_view(op, call, 0);
    ptrdiff_t rs = v.stride[0];
    v.offset += first * (size_t)rs;
    v.shape[0] = b;
    v.shape[1] = s;
    v.stride[0] = rs * (ptrdiff_t)s;
    v.stride[1] = rs;
    return v;
}

/* bicl_positions_packed over the whole call: one sequence per run of rows. */
static bicl_status packed_run(const harness_op *op, const harness_call *call)
{
    row_run runs[HARNESS_MAX_ROWS];
    int32_t cu[HARNESS_MAX_ROWS + 1] = {0}, start[HARNESS_MAX_ROWS];
    size_t n = row_runs(call, 0, call->rows, runs), ncu = n + 1;
    for (size_t k = 0; k < n; ++k) {
        cu[k + 1] = cu[k] + (int32_t)runs[k].count;
        start[k] = runs[k].start;
    }
    cl_mem cm = host_buffer(call, cu, ncu * sizeof *cu),
           sm = host_buffer(call, start, n * sizeof *start);
    bicl_status st = BICL_ERR_OUT_OF_DEVICE_MEMORY;
    if (cm && sm) {
        bicl_tensor tc = bicl_tensor_contiguous(cm, BICL_I32, 0, 1, &ncu);
        bicl_tensor ts = bicl_tensor_contiguous(sm, BICL_I32, 0, 1, &n);
        bicl_tensor pos = row_column(out_view(op, call, 0));
        st = bicl_positions_packed(call->ctx, call->queue, &tc, &ts, &pos, 0, NULL, NULL);
    }
    if (cm)
        clReleaseMemObject(cm);
    if (sm)
        clReleaseMemObject(sm);
    return st;
}

/* bicl_positions_padded on rows [first, first + b * s) as [b, s], the mask being the
 * layout's valid flags, start[i] the first token of batch row i. */
static bicl_status padded_call(const harness_op *op, const harness_call *call, size_t first,
                               size_t b, size_t s, const int32_t *start)
{
    size_t shape[2] = {b, s};
    cl_mem sm = host_buffer(call, start, b * sizeof *start);
    if (!sm)
        return BICL_ERR_OUT_OF_DEVICE_MEMORY;
    bicl_tensor mask = bicl_tensor_contiguous(call->valid_mem, BICL_U8, first, 2, shape);
    bicl_tensor ts = bicl_tensor_contiguous(sm, BICL_I32, 0, 1, &b);
    bicl_tensor pos = positions_out(op, call, first, b, s);
    bicl_status st = bicl_positions_padded(call->ctx, call->queue, &mask, &ts, &pos, 0, NULL, NULL);
    clReleaseMemObject(sm);
    return st;
}

/* The first token of each batch row; false when a row holds more than one sample (a
 * packed row, which an engine would not give the padded builder). */
static bool batch_row_starts(const harness_call *call, int32_t *start)
{
    for (size_t b = 0; b < call->batch; ++b) {
        row_run runs[HARNESS_MAX_ROWS];
        size_t n = row_runs(call, b * call->seq, call->seq, runs), real = 0;
        start[b] = 0;
        for (size_t k = 0; k < n; ++k)
            if (call->tokens[runs[k].first].sample >= 0) {
                start[b] = runs[k].start;
                real++;
            }
        if (real > 1)
            return false;
    }
    return true;
}

/* One call on the [B, S] batch; a packed row is split into one [1, len] call per run. */
static bicl_status padded_run(const harness_op *op, const harness_call *call)
{
    int32_t start[HARNESS_MAX_ROWS];
    if (batch_row_starts(call, start))
        return padded_call(op, call, 0, call->batch, call->seq, start);
    row_run runs[HARNESS_MAX_ROWS];
    size_t n = row_runs(call, 0, call->rows, runs);
    bicl_status st = BICL_SUCCESS;
    for (size_t k = 0; k < n && st == BICL_SUCCESS; ++k)
        st = padded_call(op, call, runs[k].first, 1, runs[k].count, &runs[k].start);
    return st;
}

/* The host builders on a one-token batch at `position` (packed: one sequence starting
 * there; padded: a pad, then the token). */
static bicl_status packed_reference(const harness_op *op, void *state, int32_t position,
                                    const void *const *in, void *const *out)
{
    (void)op;
    (void)state;
    (void)in;
    const int32_t cu[2] = {0, 1};
    return bicl_ref_positions_packed(cu, 1, &position, out[0], 1);
}

static bicl_status padded_reference(const harness_op *op, void *state, int32_t position,
                                    const void *const *in, void *const *out)
{
    (void)op;
    (void)state;
    (void)in;
    const uint8_t mask[2] = {0, 1};
    int32_t pos[2];
    bicl_status st = bicl_ref_positions_padded(mask, BICL_U8, 1, 2, &position, pos);
    memcpy(out[0], &pos[1], sizeof pos[1]);
    return st;
}

/* A token's position is its index in its sample (docs/contract.md). */
static int positions_oracle(const harness_op *op, void *state, int32_t position,
                            const void *const *in, int out_index, size_t element, mpfr_ptr exact)
{
    (void)op;
    (void)state;
    (void)in;
    (void)out_index;
    (void)element;
    mpfr_set_si(exact, position, MPFR_RNDN);
    return 0;
}

/* ================================================================ registry */

#define MAX_OPS 512 /* 321 configurations today (bicl-check --list); add_op aborts past this */
static harness_op registry[MAX_OPS];
static char registry_labels[MAX_OPS][96];
static size_t registry_n;

static void add_op(harness_op op, const char *label)
{
    if (registry_n == MAX_OPS) {
        fprintf(stderr, "harness: more than %d op configurations\n", MAX_OPS);
        abort();
    }
    size_t cap = sizeof registry_labels[0];
    if (strlen(label) >= cap) {
        fprintf(stderr, "harness: label '%s' is longer than %zu\n", label, cap - 1);
        abort();
    }
    memcpy(registry_labels[registry_n], label, strlen(label) + 1);
    op.dtype = registry_labels[registry_n];
    registry[registry_n++] = op;
}

static const char *pair_label(char *buf, size_t n, bicl_dtype in, bicl_dtype out)
{
    snprintf(buf, n, "%s->%s", bicl_dtype_name(in), bicl_dtype_name(out));
    return buf;
}

/* Which configurations run every kernel variant on the profile's layouts: of each kernel
 * template (cast, unary, glu, binary), the first op in its f32 and bf16 pairs (every
 * combination of 4- and 2-byte loads and stores; f16 moves like bf16); of the ops with a
 * template of their own, bf16. The others share a template with one of these and run
 * with HARNESS_OP_FEW_VARIANTS (harness.h), which keeps bicl-check in its time budget. */
static bool storage_widths(dtype_pair p)
{
    return p.in != BICL_F16 && p.out != BICL_F16;
}

static bool is_bf16(dtype_pair p)
{
    return p.in == BICL_BF16 && p.out == BICL_BF16;
}

static unsigned variant_flags(bool primary)
{
    return primary ? 0u : HARNESS_OP_FEW_VARIANTS;
}

static harness_operand operand(const char *name, bicl_dtype dtype, size_t features)
{
    return (harness_operand){name, dtype, features, false};
}

/* An op with one input and one output of FEATURES elements. */
static harness_op one_to_one(const char *name, dtype_pair p)
{
    harness_op op = {.name = name, .n_in = 1, .n_out = 1};
    op.in[0] = operand("x", p.in, FEATURES);
    op.out[0] = operand("y", p.out, FEATURES);
    return op;
}

static void add_casts(void)
{
    char label[32];
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            dtype_pair p = {float_dtypes[a], float_dtypes[b]};
            harness_op op = one_to_one("cast", p);
            op.run = cast_run;
            op.reference = cast_reference;
            op.oracle = cast_oracle;
            op.flags = variant_flags(storage_widths(p));
            add_op(op, pair_label(label, sizeof label, p.in, p.out));
        }
}

static void add_unary(void)
{
    char label[32];
    for (size_t d = 0; d < N_UNARY_DEFS; ++d) {
        unary_def *def = &unary_defs[d];
        def->info = bicl_unary_info((int)d + 1); /* the rows follow the identity, in order */
        for (int a = 0; a < 3; ++a)
            for (int b = 0; b < 3; ++b) {
                dtype_pair p = {float_dtypes[a], float_dtypes[b]};
                harness_op op = one_to_one(def->info->name, p);
                op.params = def;
                op.run = unary_run;
                op.reference = unary_reference;
                op.oracle = unary_oracle;
                op.ulp_limit = def->info->ulp;
                op.flags = variant_flags(def->info->code == BICL_UNARY_SILU && storage_widths(p));
                add_op(op, pair_label(label, sizeof label, p.in, p.out));
            }
    }
}

static void add_glu(void)
{
    char label[32];
    glu_defs_build();
    for (size_t d = 0; d < n_glu_defs; ++d)
        for (size_t k = 0; k < N_STD_PAIRS; ++k) {
            const glu_def *def = &glu_defs[d];
            dtype_pair p = std_pairs[k];
            harness_op op = one_to_one(def->name, p);
            op.n_in = def->fused ? 1 : 2;
            op.in[0] =
                def->fused ? operand("x", p.in, 2 * FEATURES) : operand("gate", p.in, FEATURES);
            op.in[1] = operand("up", p.in, FEATURES);
            op.params = def;
            op.run = glu_run;
            op.reference = glu_reference;
            op.oracle = glu_oracle;
            op.ulp_limit = def->info->ulp;
            op.flags = variant_flags(d == 0 && storage_widths(p));
            add_op(op, pair_label(label, sizeof label, p.in, p.out));
        }
}

static void add_binary(void)
{
    char label[32];
    for (size_t d = 0; d < sizeof binary_defs / sizeof binary_defs[0]; ++d)
        for (size_t k = 0; k < N_STD_PAIRS; ++k) {
            const binary_def *def = &binary_defs[d];
            dtype_pair p = std_pairs[k];
            harness_op op = one_to_one(def->name, p);
            op.n_in = 2;
            op.in[0] = operand(def->shared_b ? "x" : "a", p.in, FEATURES);
            op.in[1] = operand(def->code == BICL_BINARY_ADD && def->shared_b ? "bias"
                               : def->shared_b                               ? "s"
                                                                             : "b",
                               p.in, FEATURES);
            op.in[1].shared = def->shared_b;
            op.params = def;
            op.run = binary_run;
            op.reference = binary_reference;
            op.oracle = binary_oracle;
            op.flags = variant_flags(d == 0 && storage_widths(p));
            add_op(op, pair_label(label, sizeof label, p.in, p.out));
        }
}

static void add_scale_and_residual(void)
{
    char label[32];
    for (size_t k = 0; k < N_STD_PAIRS; ++k) {
        dtype_pair p = std_pairs[k];
        harness_op op = one_to_one("scale", p);
        op.run = scale_run;
        op.reference = scale_reference;
        op.oracle = scale_oracle;
        op.flags = variant_flags(is_bf16(p));
        add_op(op, pair_label(label, sizeof label, p.in, p.out));
    }
    for (size_t k = 0; k < N_STD_PAIRS; ++k) { /* the label is x->y; residuals are f32 */
        dtype_pair p = std_pairs[k];
        harness_op op = {.name = "residual_add", .n_in = 2, .n_out = 2};
        op.in[0] = operand("residual", BICL_F32, FEATURES);
        op.in[1] = operand("x", p.in, FEATURES);
        op.out[0] = operand("residual_out", BICL_F32, FEATURES);
        op.out[1] = operand("y", p.out, FEATURES);
        op.run = residual_run;
        op.reference = residual_reference;
        op.oracle = residual_oracle;
        op.flags = variant_flags(is_bf16(p));
        add_op(op, pair_label(label, sizeof label, p.in, p.out));
    }
}

static void add_mask(const char *name, dtype_pair p, harness_operand select, const char *label)
{
    harness_op op = one_to_one(name, p);
    op.n_in = 2;
    op.in[1] = select;
    op.run = select.features == 1 ? lengths_run : mask_run;
    op.reference = mask_reference;
    op.oracle = mask_oracle;
    op.fill = mask_input_fill;
    op.flags = variant_flags(is_bf16(p));
    add_op(op, label);
}

static void add_masks(void)
{
    char label[32];
    for (size_t k = 0; k < N_STD_PAIRS; ++k) {
        dtype_pair p = std_pairs[k];
        bicl_dtype m = k % 2 ? BICL_I32 : BICL_U8;
        snprintf(label, sizeof label, "%s,%s->%s", bicl_dtype_name(p.in), bicl_dtype_name(m),
                 bicl_dtype_name(p.out));
        add_mask("mask_fill", p, operand("mask", m, FEATURES), label);
    }
    for (size_t k = 0; k < N_STD_PAIRS; ++k) {
        dtype_pair p = std_pairs[k];
        add_mask("mask_fill_lengths", p, operand("lengths", BICL_I32, 1),
                 pair_label(label, sizeof label, p.in, p.out));
    }
}

/* A RoPE adapter family: "rope" (the models of models.json) or "rope_slice" (MLA's and
 * proportional slices, below), each with room for its built-in configurations and one
 * --hf-config model, 4 (mode, source) each. */
typedef struct rope_family {
    const char *op_name;
    rope_def *defs;
    size_t cap, n;
    bicl_status (*reference)(const harness_op *, void *, int32_t, const void *const *,
                             void *const *);
    int (*oracle)(const harness_op *, void *, int32_t, const void *const *, int, size_t, mpfr_ptr);
} rope_family;

static rope_def rope_defs[(HARNESS_N_MODELS + 1) * 4];
static rope_family rope_models = {"rope", rope_defs,      sizeof rope_defs / sizeof rope_defs[0],
                                  0,      rope_reference, rope_oracle};

/* The 8 adapters of one configuration: exact/hf x table/inline x bf16/f32. `variants`
 * marks the configuration whose kernels run every variant on every layout. The exact
 * mode's run in place where the style allows it (not MLA's de-interleaving), the hf
 * mode's out of place: both kernel forms on every device, with the same bits. */
static void add_rope_config(rope_family *f, const char *name, const bicl_rope_config *cfg, int hq,
                            int hk, bool variants)
{
    static const bicl_dtype dts[2] = {BICL_BF16, BICL_F32};
    static const bicl_rope_source sources[2] = {BICL_ROPE_SOURCE_TABLE, BICL_ROPE_SOURCE_INLINE};
    size_t model = f->n / 4; /* the model's ordinal in its family (4 defs each) */
    for (int mode = 0; mode < 2; ++mode)
        for (int src = 0; src < 2; ++src) {
            if (f->n == f->cap)
                return;
            rope_def *def = &f->defs[f->n++];
            snprintf(def->name, sizeof def->name, "%.40s", name);
            def->cfg = *cfg;
            def->cfg.angle_mode = (bicl_rope_angle_mode)mode;
            def->hq = hq;
            def->hk = hk;
            def->source = sources[src];
            def->in_place = mode == 0 && cfg->style != BICL_ROPE_DEINTERLEAVE;
            for (int k = 0; k < 2; ++k) {
                char label[96];
                size_t dq = slice_width(def, 0), dk = slice_width(def, 1);
                harness_op op = {.name = f->op_name, .n_in = 2, .n_out = 2, .params = def};
                op.in[0] = operand("q", dts[k], (size_t)hq * dq);
                op.in[1] = operand("k", dts[k], (size_t)hk * dk);
                op.out[0] = operand("q_out", dts[k], (size_t)hq * dq);
                op.out[1] = operand("k_out", dts[k], (size_t)hk * dk);
                op.max_position = src == 0 ? ROPE_TABLE_POSITIONS - 1 : 0;
                op.run = rope_run;
                op.reference = f->reference;
                op.oracle = f->oracle;
                op.setup = rope_setup;
                op.teardown = rope_teardown;
                /* both cos/sin sources are paths of one kernel: each runs every variant */
                op.flags = variant_flags(variants && mode == 0 && k == 0) |
                           (src == 1 ? HARNESS_OP_NEEDS_FP64 : 0u);
                if ((op.flags & HARNESS_OP_FEW_VARIANTS) && (mode + src + k + model) % 2)
                    op.flags |= HARNESS_OP_OFF_HALF;
                snprintf(label, sizeof label, "%s/%s/%s/%s", def->name, mode ? "hf" : "exact",
                         src ? "inline" : "table", bicl_dtype_name(dts[k]));
                add_op(op, label);
            }
        }
}

/* Every model, angle mode and cos/sin source, in bf16 and f32 storage. */
static void add_rope(void)
{
    for (size_t m = 0; m < HARNESS_N_MODELS; ++m) {
        const harness_model *tm = &harness_models[m];
        bicl_rope_config c = harness_model_config(tm, BICL_ROPE_ANGLE_EXACT);
        add_rope_config(&rope_models, tm->name, &c, harness_q_heads(tm), 2, m == 0);
    }
}

/* ---- rope slices (issue 19): DeepSeek-V3 (MLA, rope_interleave, YaRN with mscale),
 * MiniCPM3 (MLA, NeoX pairs) and Gemma 4's global layers (proportional), each as
 * exact/hf x table/inline x bf16/f32; 4 q heads and 1 k_pe (MLA) or 2 k heads. */
static rope_def slice_defs[(3 + 1) * 4]; /* 3 built in, one --hf-config model */
static rope_family rope_slices = {
    "rope_slice",    slice_defs, sizeof slice_defs / sizeof slice_defs[0], 0,
    slice_reference, rope_oracle};

static void add_rope_slices(void)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, 192, 64); /* DeepSeek-V3's config.json */
    c.rotary_offset = 128;
    c.k_head_dim = 64;
    c.style = BICL_ROPE_DEINTERLEAVE;
    c.type = BICL_ROPE_YARN;
    c.factor = 40.0;
    c.beta_fast = 32.0;
    c.beta_slow = 1.0;
    c.mscale = 1.0;
    c.mscale_all_dim = 1.0;
    c.original_max_position_embeddings = 4096;
    c.max_position_embeddings = 163840;
    add_rope_config(&rope_slices, "deepseek_v3", &c, 4, 1, true);
    bicl_rope_config_init(&c, 96, 32); /* MiniCPM3-4B's MLA widths, NeoX pairs */
    c.rotary_offset = 64;
    c.k_head_dim = 32;
    add_rope_config(&rope_slices, "minicpm3", &c, 4, 1, false);
    bicl_rope_config_init(&c, 512, 512); /* Gemma 4's global layers (transformers' defaults) */
    c.type = BICL_ROPE_PROPORTIONAL;
    c.factor = 1.0;
    c.rope_angles = 64;
    c.theta = 1e6;
    add_rope_config(&rope_slices, "gemma4_global", &c, 4, 2, false);
}
/* ---- end of rope slices ---- */

/* M-RoPE: Qwen2-VL's chunked sections (every variant), Qwen3-VL's interleaved ones and
 * GLM-4V's GPT-J pairs with partial rotary (hf angles, inline cos/sin). */
static mrope_def mrope_defs[3];

static void add_mrope(void)
{
    static const struct {
        const char *name;
        int head_dim, rotary_dim;
        bicl_rope_style style;
        double theta;
        bicl_mrope_layout layout;
        int section[3];
        bicl_rope_angle_mode mode;
        bicl_rope_source source;
        bicl_dtype dt;
    } cfgs[3] = {
        {"qwen2_vl_7b",
         128,
         128,
         BICL_ROPE_NEOX,
         1e6,
         BICL_MROPE_CHUNKED,
         {16, 24, 24},
         BICL_ROPE_ANGLE_EXACT,
         BICL_ROPE_SOURCE_TABLE,
         BICL_BF16},
        {"qwen3_vl_8b",
         128,
         128,
         BICL_ROPE_NEOX,
         5e6,
         BICL_MROPE_INTERLEAVED,
         {24, 20, 20},
         BICL_ROPE_ANGLE_EXACT,
         BICL_ROPE_SOURCE_TABLE,
         BICL_BF16},
        {"glm4_1v_9b",
         128,
         64,
         BICL_ROPE_GPTJ,
         1e4,
         BICL_MROPE_CHUNKED,
         {8, 12, 12},
         BICL_ROPE_ANGLE_HF,
         BICL_ROPE_SOURCE_INLINE,
         BICL_F32},
    };
    for (int k = 0; k < 3; ++k) {
        mrope_def *def = &mrope_defs[k];
        snprintf(def->base.name, sizeof def->base.name, "%s", cfgs[k].name);
        bicl_rope_config_init(&def->base.cfg, cfgs[k].head_dim, cfgs[k].rotary_dim);
        def->base.cfg.style = cfgs[k].style;
        def->base.cfg.theta = cfgs[k].theta;
        def->base.cfg.angle_mode = cfgs[k].mode;
        def->base.hq = 4;
        def->base.hk = 2;
        def->base.source = cfgs[k].source;
        bicl_mrope_config_init(&def->m);
        def->m.layout = cfgs[k].layout;
        memcpy(def->m.section, cfgs[k].section, sizeof def->m.section);
        size_t d = (size_t)cfgs[k].head_dim;
        bicl_dtype dt = cfgs[k].dt;
        harness_op op = {.name = "mrope", .n_in = 2, .n_out = 2, .params = def};
        op.in[0] = operand("q", dt, 4 * d);
        op.in[1] = operand("k", dt, 2 * d);
        op.out[0] = operand("q_out", dt, 4 * d);
        op.out[1] = operand("k_out", dt, 2 * d);
        bool inl = cfgs[k].source == BICL_ROPE_SOURCE_INLINE;
        op.max_position = inl ? 0 : ROPE_TABLE_POSITIONS - 1;
        op.run = mrope_run;
        op.reference = mrope_reference;
        op.oracle = mrope_oracle;
        op.setup = mrope_setup;
        op.teardown = mrope_teardown;
        op.flags = variant_flags(k == 0) | (inl ? HARNESS_OP_NEEDS_FP64 : 0u);
        char label[96];
        snprintf(label, sizeof label, "%s/%s/%s/%s", cfgs[k].name,
                 cfgs[k].mode == BICL_ROPE_ANGLE_HF ? "hf" : "exact", inl ? "inline" : "table",
                 bicl_dtype_name(dt));
        add_op(op, label);
    }
}

static void add_positions(void)
{
    harness_op op = {.name = "positions_packed", .n_in = 0, .n_out = 1};
    op.out[0] = operand("positions", BICL_I32, 1);
    op.run = packed_run;
    op.reference = packed_reference;
    op.oracle = positions_oracle;
    add_op(op, "i32");
    op.name = "positions_padded";
    op.run = padded_run;
    op.reference = padded_reference;
    add_op(op, "u8->i32");
}

static void build_registry(void)
{
    if (registry_n)
        return;
    add_casts();
    add_unary();
    add_glu();
    add_binary();
    add_scale_and_residual();
    add_masks();
    add_rope();
    add_rope_slices();
    add_positions();
    add_mrope();
}

size_t harness_op_count(void)
{
    build_registry();
    return registry_n;
}

size_t harness_add_rope_config(const char *name, const bicl_rope_config *cfg)
{
    build_registry();
    size_t first = registry_n;
    /* 4 q heads and 2 k heads keep a GQA shape at harness size; a rotary slice or
     * proportional RoPE runs through the rope_slice adapter (MLA: 1 k_pe head) */
    if (cfg->rotary_offset || cfg->k_head_dim || cfg->k_rotary_offset ||
        cfg->style == BICL_ROPE_DEINTERLEAVE || cfg->type == BICL_ROPE_PROPORTIONAL)
        add_rope_config(&rope_slices, name, cfg, 4, cfg->k_head_dim ? 1 : 2, true);
    else
        add_rope_config(&rope_models, name, cfg, 4, 2, true);
    return first;
}

const harness_op *harness_op_at(size_t i)
{
    return i < harness_op_count() ? &registry[i] : NULL;
}
