/* bicl-bench - speed of bicl's ops as ratios measured in one run: achieved GB/s (bytes
 * the op must move, read + write, each once) against a float4 copy kernel and, where
 * one exists, against CLBlast's routine; decode-sized latency against an empty kernel;
 * host overhead per call; cold and warm start to the first finished op.
 *
 * Event timing (CL_QUEUE_PROFILING_ENABLE), warm-up launches, the median of repeats,
 * and inputs rotated over several buffer sets so that caches do not flatter. */
#include "internal.h"
#include "tool_common.h"

#ifdef BICL_HAVE_CLBLAST
#include <clblast_c.h>
#endif

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_SETS  3
#define MAX_BUFS  4
#define MAX_SIZES 16
#define MAX_ROWS  256

static void die(const char *what, bicl_status st)
{
    fprintf(stderr, "bicl-bench: %s: %s\n  %s\n", what, bicl_status_string(st),
            bicl_last_error(NULL));
    exit(1);
}

/* --op TEXT: only the bandwidth table's rows whose "op dtype" contains TEXT (the copy row
 * always runs: it is every ratio's denominator); --sweep-op TEXT: only the sweeps whose
 * label contains TEXT. NULL: everything. */
static const char *row_filter, *sweep_filter;

static bool label_wanted(const char *filter, const char *label)
{
    return !filter || strstr(label, filter) != NULL;
}

static bool row_wanted(const char *op, const char *dtype)
{
    char label[96];
    snprintf(label, sizeof label, "%s %s", op, dtype);
    return label_wanted(row_filter, label);
}

/* ------------------------------------------------------------- the bench */

typedef struct bench {
    bicl_context *ctx;
    bicl_context *ctx_computed; /* same cl_context, activation tables off */
    bicl_context *op_ctx;       /* the one run_op uses: ctx unless a row says otherwise */
    cl_context cl;
    cl_device_id dev;
    cl_command_queue q;
    cl_kernel copy4, empty;
    int reps;
    cl_mem sets[MAX_SETS][MAX_BUFS];
    size_t set_bytes;
    int n_sets;
} bench;

static const char *copy_source =
    "kernel void copy4(global const float4 *a, global float4 *b, ulong n)\n"
    "{ ulong i = get_global_id(0); if (i < n) b[i] = a[i]; }\n"
    "kernel void empty(void) {}\n";

static void bench_open(bench *b, const char *spec)
{
    memset(b, 0, sizeof *b);
    bicl_status st = bicl_context_create_default(spec, NULL, &b->ctx);
    if (st != BICL_SUCCESS)
        die("context", st);
    b->cl = bicl_context_cl_context(b->ctx);
    b->dev = bicl_context_device(b->ctx);
    b->op_ctx = b->ctx;
    bicl_options *off = NULL;
    if (bicl_options_create(&off) != BICL_SUCCESS ||
        bicl_options_set_string(off, BICL_OPTION_ACT_TABLES, "off") != BICL_SUCCESS ||
        bicl_context_create(b->cl, b->dev, off, &b->ctx_computed) != BICL_SUCCESS)
        die("context without activation tables", BICL_ERR_INVALID_PARAMETER);
    bicl_options_free(off);
    cl_int err;
    b->q = clCreateCommandQueue(b->cl, b->dev, CL_QUEUE_PROFILING_ENABLE, &err);
    cl_program p = clCreateProgramWithSource(b->cl, 1, &copy_source, NULL, &err);
    if (clBuildProgram(p, 1, &b->dev, BICL_FIXED_BUILD_OPTIONS, NULL, NULL) != CL_SUCCESS) {
        fprintf(stderr, "bicl-bench: copy kernel did not build\n");
        exit(1);
    }
    b->copy4 = clCreateKernel(p, "copy4", &err);
    b->empty = clCreateKernel(p, "empty", &err);
    clReleaseProgram(p);
}

/* The standard input: every 16-bit unit is a moderate finite value both as f16 and as
 * bf16 (0x3c00..0x3f83), and pairs of them are moderate finite f32 values, so no op takes
 * its NaN or overflow path. NULL when out of memory. */
static unsigned char *standard_fill(size_t bytes)
{
    unsigned char *fill = malloc(bytes);
    for (size_t i = 0; fill && i + 2 <= bytes; i += 2) {
        uint16_t v = (uint16_t)(0x3c00u + (i / 2) % 900u);
        memcpy(fill + i, &v, 2);
    }
    return fill;
}

/* Buffer sets of `bytes` each, holding the standard input. The same bits in every set:
 * only addresses rotate. */
static int bench_alloc(bench *b, size_t bytes, int sets)
{
    for (int s = 0; s < b->n_sets; ++s)
        for (int i = 0; i < MAX_BUFS; ++i)
            clReleaseMemObject(b->sets[s][i]);
    b->n_sets = 0;
    unsigned char *fill = standard_fill(bytes);
    if (!fill)
        return -1;
    for (int s = 0; s < sets; ++s)
        for (int i = 0; i < MAX_BUFS; ++i) {
            cl_int err;
            b->sets[s][i] =
                clCreateBuffer(b->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, fill, &err);
            if (err != CL_SUCCESS) {
                free(fill);
                for (int j = 0; j < i; ++j)
                    clReleaseMemObject(b->sets[s][j]);
                return -1;
            }
        }
    free(fill);
    b->n_sets = sets;
    b->set_bytes = bytes;
    return 0;
}

/* bytes of h into the input buffers (0 and 1) of every set. */
static void write_inputs(bench *b, size_t bytes, const void *h)
{
    for (int s = 0; s < b->n_sets; ++s)
        for (int i = 0; i < 2; ++i)
            clEnqueueWriteBuffer(b->q, b->sets[s][i], CL_TRUE, 0, bytes, h, 0, NULL, NULL);
}

/* The standard input again: the RoPE rows rotate buffers 0 and 1 in place, as bf16, f16
 * and f32, which leaves bit patterns (zeros, tiny, huge, NaN as bf16) that an
 * activation's fast form declines; the rows after them must not time those (a computed
 * silu bf16 ran 0.7 GB/s on them against 3.3 on the standard input). */
static void refill_standard(bench *b, size_t bytes)
{
    unsigned char *fill = standard_fill(bytes);
    if (fill)
        write_inputs(b, bytes, fill);
    free(fill);
}

typedef bicl_status (*op_fn)(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev);

/* Median device time (s) of an op over the rotated sets. */
static double time_op(bench *b, op_fn fn, size_t n, void *arg)
{
    double t[64];
    int reps = b->reps < 64 ? b->reps : 64;
    for (int i = -2; i < reps; ++i) {
        cl_event ev = NULL;
        bicl_status st = fn(b, b->sets[(i + 2) % b->n_sets], n, arg, &ev);
        if (st != BICL_SUCCESS)
            die("op", st);
        clWaitForEvents(1, &ev);
        cl_ulong s = 0, e = 0;
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_START, sizeof s, &s, NULL);
        clGetEventProfilingInfo(ev, CL_PROFILING_COMMAND_END, sizeof e, &e, NULL);
        clReleaseEvent(ev);
        if (i >= 0)
            t[i] = (double)(e - s) * 1e-9;
    }
    return tool_median(t, (size_t)reps);
}

/* ------------------------------------------------------------------ ops */

static bicl_tensor vec(cl_mem m, bicl_dtype dt, size_t n)
{
    size_t shape[1] = {n};
    return bicl_tensor_contiguous(m, dt, 0, 1, shape);
}

static bicl_status run_copy4(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    (void)arg;
    cl_ulong n4 = n / 4;
    clSetKernelArg(b->copy4, 0, sizeof(cl_mem), &buf[0]);
    clSetKernelArg(b->copy4, 1, sizeof(cl_mem), &buf[1]);
    clSetKernelArg(b->copy4, 2, sizeof n4, &n4);
    size_t local = 256, global = (n4 + 255) / 256 * 256;
    cl_int err = clEnqueueNDRangeKernel(b->q, b->copy4, 1, NULL, &global, &local, 0, NULL, ev);
    return err == CL_SUCCESS ? BICL_SUCCESS : bicl_fail_cl(err, "copy4");
}

typedef struct op_spec {
    const char *name;
    bicl_dtype in, out;
    int kind;
    int code;
} op_spec;

enum { OP_CAST, OP_UNARY, OP_GLU, OP_BINARY, OP_SCALE, OP_RESIDUAL, OP_BIAS, OP_MASK };

static bicl_status run_op(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    const op_spec *o = arg;
    bicl_context *c = b->op_ctx;
    bicl_tensor x = vec(buf[0], o->in, n), x2 = vec(buf[1], o->in, n);
    bicl_tensor y = vec(buf[2], o->out, n), y2 = vec(buf[3], o->out, n);
    switch (o->kind) {
    case OP_CAST:
        return bicl_cast(c, b->q, &x, &y, 0, NULL, ev);
    case OP_UNARY: { /* the registry's example parameters (cl/bicl_ops.def) */
        bicl_unary_params p = {0};
        const bicl_op_info *info = bicl_unary_info(o->code);
        if (info)
            bicl_unary_params_set(info, info->example, &p);
        return bicl_unary(c, b->q, (bicl_unary_op)o->code, &p, &x, &y, 0, NULL, ev);
    }
    case OP_GLU: {
        bicl_glu_params p = {.round_act_to_storage = 1};
        bicl_glu_params_set(bicl_glu_info(o->code), bicl_glu_info(o->code)->example, &p);
        return bicl_glu(c, b->q, (bicl_glu_act)o->code, &p, &x, &x2, &y, 0, NULL, ev);
    }
    case OP_BINARY:
        return bicl_binary(c, b->q, (bicl_binary_op)o->code, &x, &x2, &y, 0, NULL, ev);
    case OP_SCALE:
        return bicl_scale(c, b->q, 0.125f, &x, &y, 0, NULL, ev);
    case OP_RESIDUAL: {
        bicl_tensor r = vec(buf[0], BICL_F32, n), ro = vec(buf[2], BICL_F32, n);
        bicl_tensor dx = vec(buf[1], o->in, n), yy = vec(buf[3], o->out, n);
        return bicl_residual_add(c, b->q, &r, &dx, &ro, &yy, 0, NULL, ev);
    }
    case OP_BIAS: { /* rows of 4096 channels, bias broadcast */
        size_t cols = 4096, rows = n / cols, sh[2] = {rows, cols};
        bicl_tensor xm = bicl_tensor_contiguous(buf[0], o->in, 0, 2, sh);
        bicl_tensor ym = bicl_tensor_contiguous(buf[2], o->out, 0, 2, sh);
        bicl_tensor bias = vec(buf[1], o->in, cols);
        return bicl_bias_add(c, b->q, &xm, &bias, &ym, 0, NULL, ev);
    }
    default: { /* mask fill with a u8 mask */
        bicl_tensor m = vec(buf[1], BICL_U8, n);
        (void)y2;
        return bicl_mask_fill(c, b->q, &x, &m, -INFINITY, &y, 0, NULL, ev);
    }
    }
}

/* Bytes an op must move for n elements: each operand read or written once. */
static double op_bytes(const op_spec *o, size_t n)
{
    double in = (double)bicl_dtype_size(o->in), out = (double)bicl_dtype_size(o->out);
    switch (o->kind) {
    case OP_GLU:
    case OP_BINARY:
        return (double)n * (2 * in + out);
    case OP_RESIDUAL:
        return (double)n * (4 + in + 4 + out);
    case OP_BIAS:
        return (double)n * (in + out) + 4096.0 * in;
    case OP_MASK:
        return (double)n * (in + 1 + out);
    default:
        return (double)n * (in + out);
    }
}

static const op_spec ops[] = {
    {"cast", BICL_F32, BICL_BF16, OP_CAST, 0},
    {"cast", BICL_BF16, BICL_F32, OP_CAST, 0},
    {"cast", BICL_F32, BICL_F16, OP_CAST, 0},
    {"cast", BICL_F16, BICL_F32, OP_CAST, 0},
    {"silu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SILU},
    {"sigmoid", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SIGMOID},
    {"tanh", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_TANH},
    {"softcap", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SOFTCAP}, /* cap 30: Gemma's logits */
    {"silu", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_SILU},
    {"silu", BICL_F16, BICL_F16, OP_UNARY, BICL_UNARY_SILU},
    {"gelu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_GELU},
    {"gelu", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_GELU},
    {"gelu_tanh", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_GELU_TANH},
    {"gelu_tanh", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_GELU_TANH},
    {"relu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_RELU},
    {"swiglu", BICL_BF16, BICL_BF16, OP_GLU, BICL_GLU_SWIGLU},
    {"swiglu", BICL_F32, BICL_F32, OP_GLU, BICL_GLU_SWIGLU},
    {"geglu", BICL_F32, BICL_F32, OP_GLU, BICL_GLU_GEGLU},
    {"add", BICL_F32, BICL_F32, OP_BINARY, BICL_BINARY_ADD},
    {"add", BICL_BF16, BICL_BF16, OP_BINARY, BICL_BINARY_ADD},
    {"mul", BICL_F32, BICL_F32, OP_BINARY, BICL_BINARY_MUL},
    {"scale", BICL_F32, BICL_F32, OP_SCALE, 0},
    {"scale", BICL_BF16, BICL_BF16, OP_SCALE, 0},
    {"residual_add", BICL_BF16, BICL_BF16, OP_RESIDUAL, 0},
    {"bias_add", BICL_BF16, BICL_BF16, OP_BIAS, 0},
    {"mask_fill", BICL_F32, BICL_F32, OP_MASK, 0},
};
#define N_OPS (sizeof ops / sizeof ops[0])

/* The activations that read tables on 16-bit inputs, timed again (a) computed (tables
 * off, same run) and, at the largest size, (b) with tables on inputs of uniformly random
 * finite 16-bit patterns: the standard fill holds 900 distinct values, which keeps a
 * table's working set small; random patterns touch all of it (the worst case). */
static const op_spec table_ops[] = {
    {"silu", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_SILU},
    {"silu", BICL_F16, BICL_F16, OP_UNARY, BICL_UNARY_SILU},
    {"gelu", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_GELU},
    {"gelu_tanh", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_GELU_TANH},
    {"swiglu", BICL_BF16, BICL_BF16, OP_GLU, BICL_GLU_SWIGLU},
};

static void add_row(const char *op, const char *dtype, size_t bytes, double gbs, double copy_gbs,
                    const char *peer, double peer_gbs);

static void fill_random16(bench *b, size_t bytes)
{
    uint16_t *h = malloc(bytes);
    if (!h)
        return;
    uint32_t state = 12345u;
    for (size_t i = 0; i < bytes / 2; ++i) {
        uint16_t v;
        do {
            state = state * 1664525u + 1013904223u;
            v = (uint16_t)(state >> 16);
        } while ((v & 0x7c00u) == 0x7c00u); /* finite as f16 (and so as bf16) */
        h[i] = v;
    }
    write_inputs(b, bytes, h);
    free(h);
}

/* The computed f32 activations and gated unit, timed again at the largest size on inputs
 * drawn from a normal distribution (mean 0, standard deviation 2, the scale of a model's
 * pre-activations; softcap's cap is 30): the standard fill's f32 values are positive and
 * in [2^-7, 1.03], where a function's cost may differ from a model's (gelu (erf) took its
 * erf series alone there, never erfc, until it got one path; softcap a tiny quotient). */
static const op_spec normal_ops[] = {
    {"silu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SILU},
    {"sigmoid", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SIGMOID},
    {"tanh", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_TANH},
    {"softcap", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SOFTCAP},
    {"gelu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_GELU},
    {"gelu_tanh", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_GELU_TANH},
    {"swiglu", BICL_F32, BICL_F32, OP_GLU, BICL_GLU_SWIGLU},
    {"geglu", BICL_F32, BICL_F32, OP_GLU, BICL_GLU_GEGLU},
};

static void fill_normal32(bench *b, size_t bytes)
{
    float *h = malloc(bytes);
    if (!h)
        return;
    uint32_t state = 12345u;
    for (size_t i = 0; i < bytes / 4; i += 2) { /* Box-Muller: a pair per two uniforms */
        double u[2];
        for (int k = 0; k < 2; ++k) {
            state = state * 1664525u + 1013904223u;
            u[k] = ((state >> 8) + 1.0) / 16777217.0; /* (0, 1) */
        }
        double r = 2.0 * sqrt(-2.0 * log(u[0]));
        h[i] = (float)(r * cos(6.283185307179586 * u[1]));
        if (i + 1 < bytes / 4)
            h[i + 1] = (float)(r * sin(6.283185307179586 * u[1]));
    }
    write_inputs(b, bytes, h);
    free(h);
}

/* Whether --op keeps the row of ops[o] of kind `what`; its dtype column into dt[48]. */
static bool spec_row_wanted(const op_spec *ops_, size_t o, const char *what, char *dt)
{
    const op_spec *op = &ops_[o];
    snprintf(dt, 48, "%s->%s %s", bicl_dtype_name(op->in), bicl_dtype_name(op->out), what);
    return row_wanted(op->name, dt);
}

/* One row per op of ops_[0..count), run on context c, its dtype column suffixed with
 * `what`. */
static void spec_rows(bench *b, bicl_context *c, const op_spec *ops_, size_t count,
                      const char *what, size_t bytes, double copy_gbs)
{
    size_t n = bytes / 4;
    b->op_ctx = c;
    for (size_t o = 0; o < count; ++o) {
        const op_spec *op = &ops_[o];
        char dt[48];
        if (!spec_row_wanted(ops_, o, what, dt))
            continue;
        double t = time_op(b, run_op, n, (void *)op);
        add_row(op->name, dt, bytes, op_bytes(op, n) / t * 1e-9, copy_gbs, NULL, 0);
    }
    b->op_ctx = b->ctx;
}

/* Whether --op keeps some row of ops_ of kind `what`. */
static bool spec_rows_wanted(const op_spec *ops_, size_t count, const char *what)
{
    char dt[48];
    for (size_t o = 0; o < count; ++o)
        if (spec_row_wanted(ops_, o, what, dt))
            return true;
    return false;
}

#define N_TABLE_OPS  (sizeof table_ops / sizeof table_ops[0])
#define N_NORMAL_OPS (sizeof normal_ops / sizeof normal_ops[0])

/* The rows after the main ones: the table ops computed; at the largest size (last), the
 * table ops on random 16-bit inputs and the f32 activations on normal inputs. The refills
 * write every set's inputs: only for rows that run; the buffers are refilled for the next
 * size. */
static void extra_rows(bench *b, size_t bytes, double copy_gbs, bool last)
{
    if (spec_rows_wanted(table_ops, N_TABLE_OPS, "computed"))
        refill_standard(b, bytes);
    spec_rows(b, b->ctx_computed, table_ops, N_TABLE_OPS, "computed", bytes, copy_gbs);
    if (!last)
        return;
    if (spec_rows_wanted(table_ops, N_TABLE_OPS, "random inputs")) {
        fill_random16(b, bytes);
        spec_rows(b, b->ctx, table_ops, N_TABLE_OPS, "random inputs", bytes, copy_gbs);
    }
    if (spec_rows_wanted(normal_ops, N_NORMAL_OPS, "normal inputs")) {
        fill_normal32(b, bytes);
        spec_rows(b, b->ctx, normal_ops, N_NORMAL_OPS, "normal inputs", bytes, copy_gbs);
    }
}

/* ------------------------------------------------------------ CLBlast peers */

#ifdef BICL_HAVE_CLBLAST
static bicl_status run_blas(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    const char *which = arg;
    CLBlastStatusCode s;
    if (strcmp(which, "axpy") == 0)
        s = CLBlastSaxpy(n, 0.5f, buf[0], 0, 1, buf[1], 0, 1, &b->q, ev);
    else if (strcmp(which, "scal") == 0)
        s = CLBlastSscal(n, 0.125f, buf[0], 0, 1, &b->q, ev);
    else if (strcmp(which, "had") == 0)
        s = CLBlastShad(n, 1.0f, buf[0], 0, 1, buf[1], 0, 1, 0.0f, buf[2], 0, 1, &b->q, ev);
    else
        s = CLBlastScopy(n, buf[0], 0, 1, buf[1], 0, 1, &b->q, ev);
    return s == CLBlastSuccess ? BICL_SUCCESS
                               : bicl_fail(BICL_ERR_OPENCL, "CLBlast %s: %d", which, (int)s);
}

static const struct {
    const char *name, *peer_of;
    double bytes_per_elem;
} blas[] = {
    {"axpy", "add f32 (y = a x + y)", 12.0},
    {"scal", "scale f32 (in place)", 8.0},
    {"had", "mul f32 (z = x * y)", 12.0},
    {"copy", "copy f32", 8.0},
};
#endif

/* ------------------------------------------------------------------ RoPE */

/* The RoPE forms of the bandwidth table and the sweep: each of issue 18's targets (dtypes,
 * styles, sources, partial rotary, fused QKV) on llama3's table, 32 q + 8 k heads x 128. */
typedef struct rope_form {
    const char *label; /* the row's dtype column */
    bicl_dtype dt;
    bicl_rope_style style;
    int rotary_dim;
    bicl_rope_source source;
    bool out_of_place; /* q, k to buffers 2 and 3, as HF's apply_rotary_pos_emb and the
                          torch.compile peer run it */
    bool fused;        /* q and k: views of one [T, 32 + 8 + 8, 128] QKV buffer */
} rope_form;

#define ROPE_TABLE  BICL_ROPE_SOURCE_TABLE
#define ROPE_INLINE BICL_ROPE_SOURCE_INLINE
static const rope_form rope_forms[] = {
    {"bf16 table", BICL_BF16, BICL_ROPE_NEOX, 128, ROPE_TABLE, false, false},
    {"bf16 table out of place", BICL_BF16, BICL_ROPE_NEOX, 128, ROPE_TABLE, true, false},
    {"f16 table", BICL_F16, BICL_ROPE_NEOX, 128, ROPE_TABLE, false, false},
    {"f32 table", BICL_F32, BICL_ROPE_NEOX, 128, ROPE_TABLE, false, false},
    {"bf16 table gptj", BICL_BF16, BICL_ROPE_GPTJ, 128, ROPE_TABLE, false, false},
    {"bf16 inline", BICL_BF16, BICL_ROPE_NEOX, 128, ROPE_INLINE, false, false},
    {"bf16 table partial 64", BICL_BF16, BICL_ROPE_NEOX, 64, ROPE_TABLE, false, false},
    {"bf16 table partial 64 out of place", BICL_BF16, BICL_ROPE_NEOX, 64, ROPE_TABLE, true, false},
    {"bf16 table fused qkv", BICL_BF16, BICL_ROPE_NEOX, 128, ROPE_TABLE, false, true},
};
#define N_ROPE_FORMS (sizeof rope_forms / sizeof rope_forms[0])

typedef struct rope_arg {
    bicl_rope_plan *plan;
    size_t tokens;
    cl_mem pos;
    const rope_form *form; /* NULL: MLA's row (run_rope_mla) */
} rope_arg;

/* q and k views of one form: separate [T, heads, 128] buffers, or the q and k heads of a
 * fused [T, 48, 128] buffer (token stride 48 x 128) */
static void rope_views_of(const rope_arg *r, cl_mem qb, cl_mem kb, bicl_tensor *q, bicl_tensor *k)
{
    const rope_form *f = r->form;
    if (!f->fused) {
        size_t qs[3] = {r->tokens, 32, 128}, ks[3] = {r->tokens, 8, 128};
        *q = bicl_tensor_contiguous(qb, f->dt, 0, 3, qs);
        *k = bicl_tensor_contiguous(kb, f->dt, 0, 3, ks);
        return;
    }
    size_t fs[3] = {r->tokens, 48, 128};
    *q = bicl_tensor_contiguous(qb, f->dt, 0, 3, fs);
    *k = *q;
    q->shape[1] = 32;
    k->shape[1] = 8;
    k->offset = 32 * 128;
}

static bicl_status run_rope(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    (void)n;
    rope_arg *r = arg;
    size_t ps[1] = {r->tokens};
    int o = r->form->out_of_place ? 2 : 0;
    bicl_tensor q, k, qo, ko;
    rope_views_of(r, buf[0], buf[1], &q, &k);
    rope_views_of(r, buf[o], buf[o + 1], &qo, &ko);
    bicl_tensor p = bicl_tensor_contiguous(r->pos, BICL_I32, 0, 1, ps);
    return bicl_rope_apply(b->ctx, b->q, r->plan, r->form->source, 0, &p, &q, &qo, &k, &ko, 0, NULL,
                           ev);
}

static bicl_rope_plan *llama_plan(bench *b, int table_rows, const rope_form *f)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, 128, f->rotary_dim);
    c.style = f->style;
    c.theta = 500000.0;
    c.type = BICL_ROPE_LLAMA3;
    c.factor = 8.0;
    c.low_freq_factor = 1.0;
    c.high_freq_factor = 4.0;
    c.original_max_position_embeddings = 8192;
    c.max_position_embeddings = 131072;
    bicl_rope_plan *plan = NULL;
    bicl_status st = bicl_rope_plan_create(b->ctx, &c, table_rows, 0, &plan);
    if (st != BICL_SUCCESS)
        die("rope plan", st);
    return plan;
}

/* ---- MLA's decoupled RoPE (issue 19): DeepSeek-V3's slice with rope_interleave, 16 q
 * heads x 192 (128 heads over 8 devices) and k_pe, bf16 out of place (a de-interleaving
 * rotation cannot run in place). */
#define MLA_HEADS 16

static bicl_status run_rope_mla(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    (void)n;
    rope_arg *r = arg;
    size_t qs[3] = {r->tokens, MLA_HEADS, 192}, ks[3] = {r->tokens, 1, 64}, ps[1] = {r->tokens};
    bicl_tensor q = bicl_tensor_contiguous(buf[0], BICL_BF16, 0, 3, qs);
    bicl_tensor k = bicl_tensor_contiguous(buf[1], BICL_BF16, 0, 3, ks);
    bicl_tensor qo = bicl_tensor_contiguous(buf[2], BICL_BF16, 0, 3, qs);
    bicl_tensor ko = bicl_tensor_contiguous(buf[3], BICL_BF16, 0, 3, ks);
    bicl_tensor p = bicl_tensor_contiguous(r->pos, BICL_I32, 0, 1, ps);
    return bicl_rope_apply(b->ctx, b->q, r->plan, BICL_ROPE_SOURCE_TABLE, 0, &p, &q, &qo, &k, &ko,
                           0, NULL, ev);
}

static bicl_rope_plan *deepseek_plan(bench *b, int table_rows)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, 192, 64);
    c.rotary_offset = 128;
    c.k_head_dim = 64;
    c.style = BICL_ROPE_DEINTERLEAVE;
    c.type = BICL_ROPE_YARN;
    c.factor = 40.0;
    c.mscale = 1.0;
    c.mscale_all_dim = 1.0;
    c.original_max_position_embeddings = 4096;
    c.max_position_embeddings = 163840;
    bicl_rope_plan *plan = NULL;
    bicl_status st = bicl_rope_plan_create(b->ctx, &c, table_rows, 0, &plan);
    if (st != BICL_SUCCESS)
        die("rope mla plan", st);
    return plan;
}

/* bytes read and written by run_rope_mla for `tokens` tokens (positions included) */
static double mla_moved(size_t tokens)
{
    return (double)tokens * (MLA_HEADS * 192 + 64) * 2 * 2 + (double)tokens * 4;
}
/* ---- end of MLA */

static cl_mem positions(bench *b, size_t tokens, int rows)
{
    int32_t *p = malloc(tokens * sizeof *p);
    for (size_t t = 0; t < tokens; ++t)
        p[t] = (int32_t)(t % (size_t)rows);
    cl_int err;
    cl_mem m = clCreateBuffer(b->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, tokens * 4, p, &err);
    free(p);
    return m;
}

/* A RoPE row of the bandwidth table and the sweep, for buffers of `bytes`; *moved: the
 * bytes an apply must read and write: the rotary elements of q and k (every element
 * when out of place), one position per token. */
static rope_arg llama_setup(bench *b, size_t bytes, const rope_form *f, double *moved)
{
    size_t es = bicl_dtype_size(f->dt);
    size_t tokens = bytes / ((f->fused ? 48 : 32) * 128 * es);
    rope_arg r = {llama_plan(b, 8192, f), tokens, positions(b, tokens, 8192), f};
    size_t per_head = f->out_of_place ? 128 : (size_t)f->rotary_dim;
    *moved = (double)tokens * 40 * (double)(per_head * es * 2) + (double)tokens * 4;
    return r;
}

/* MLA's row (run_rope_mla): DeepSeek-V3's slice, MLA_HEADS q heads x 192 and k_pe. */
static rope_arg deepseek_setup(bench *b, size_t bytes, double *moved)
{
    size_t tokens = bytes / (MLA_HEADS * 192 * 2);
    rope_arg r = {deepseek_plan(b, 8192), tokens, positions(b, tokens, 8192), NULL};
    *moved = mla_moved(tokens);
    return r;
}

static void rope_arg_free(rope_arg *r)
{
    clReleaseMemObject(r->pos);
    bicl_rope_plan_free(r->plan);
}

/* M-RoPE as the RoPE row (32 q + 8 k heads x 128, bf16 in place, table): Qwen2-VL's
 * chunked sections, positions [3, T] with three distinct rows. */
typedef struct mrope_arg {
    bicl_mrope_plan *plan;
    size_t tokens;
    cl_mem pos;
} mrope_arg;

static bicl_status run_mrope(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    (void)n;
    mrope_arg *r = arg;
    size_t qs[3] = {r->tokens, 32, 128}, ks[3] = {r->tokens, 8, 128}, ps[2] = {3, r->tokens};
    bicl_tensor q = bicl_tensor_contiguous(buf[0], BICL_BF16, 0, 3, qs);
    bicl_tensor k = bicl_tensor_contiguous(buf[1], BICL_BF16, 0, 3, ks);
    bicl_tensor p = bicl_tensor_contiguous(r->pos, BICL_I32, 0, 2, ps);
    return bicl_mrope_apply(b->ctx, b->q, r->plan, BICL_ROPE_SOURCE_TABLE, 0, &p, &q, &q, &k, &k, 0,
                            NULL, ev);
}

static mrope_arg mrope_setup(bench *b, size_t tokens, int table_rows)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, 128, 128);
    c.theta = 1000000.0;
    bicl_mrope_config m;
    bicl_mrope_config_init(&m);
    m.section[0] = 16;
    m.section[1] = 24;
    m.section[2] = 24;
    mrope_arg r = {NULL, tokens, NULL};
    bicl_status st = bicl_mrope_plan_create(b->ctx, &c, &m, table_rows, 0, &r.plan);
    if (st != BICL_SUCCESS)
        die("mrope plan", st);
    int32_t *p = malloc(3 * tokens * sizeof *p);
    for (size_t t = 0; t < tokens; ++t) {
        p[t] = (int32_t)(t % (size_t)table_rows);
        p[tokens + t] = (int32_t)((t / 7) % (size_t)table_rows);
        p[2 * tokens + t] = (int32_t)((t % 13) % (size_t)table_rows);
    }
    cl_int err;
    r.pos = clCreateBuffer(b->cl, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, 3 * tokens * 4, p, &err);
    free(p);
    return r;
}

/* ------------------------------------------------------------ reporting */

typedef struct row {
    char op[32], dtype[48], peer[40];
    size_t bytes;
    double gbs, copy_gbs, peer_gbs;
} row;

static row rows[MAX_ROWS];
static int n_rows;

static void add_row(const char *op, const char *dtype, size_t bytes, double gbs, double copy_gbs,
                    const char *peer, double peer_gbs)
{
    if (n_rows == MAX_ROWS)
        return;
    row *r = &rows[n_rows++];
    snprintf(r->op, sizeof r->op, "%.31s", op);
    snprintf(r->dtype, sizeof r->dtype, "%.47s", dtype);
    snprintf(r->peer, sizeof r->peer, "%.39s", peer ? peer : "");
    r->bytes = bytes;
    r->gbs = gbs;
    r->copy_gbs = copy_gbs;
    r->peer_gbs = peer_gbs;
}

/* The CLBlast routine measured beside a bicl op, if any. */
static const row *peer_of(const row *r)
{
    static const char *const pairs[][3] = {{"add", "f32->f32", "clblast_axpy"},
                                           {"scale", "f32->f32", "clblast_scal"},
                                           {"mul", "f32->f32", "clblast_had"},
                                           {"copy4", "f32", "clblast_copy"}};
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; ++i) {
        if (strcmp(r->op, pairs[i][0]) || strcmp(r->dtype, pairs[i][1]))
            continue;
        for (int j = 0; j < n_rows; ++j)
            if (rows[j].bytes == r->bytes && !strcmp(rows[j].op, pairs[i][2]))
                return &rows[j];
    }
    return NULL;
}

static void print_rows(void)
{
    printf("\n| op | dtype | buffer MiB | GB/s | copy GB/s | vs copy | CLBlast peer | peer GB/s | "
           "vs peer |\n|---|---|---|---|---|---|---|---|---|\n");
    for (int i = 0; i < n_rows; ++i) {
        row *r = &rows[i];
        const row *p = peer_of(r);
        printf("| %s | %s | %.0f | %.1f | %.1f | %.2f | ", r->op, r->dtype,
               (double)r->bytes / 1048576.0, r->gbs, r->copy_gbs, r->gbs / r->copy_gbs);
        if (p)
            printf("%s | %.1f | %.2f |\n", p->op, p->gbs, r->gbs / p->gbs);
        else
            printf("%s | - | - |\n", r->peer[0] ? r->peer : "-");
    }
}

static void write_json(FILE *f, const char *device, const char *fp, double lat_op, double lat_empty,
                       double lat_rope, double host_us, double host_rope_us, double bare_us)
{
    fprintf(f, "{\n  \"device\": \"%s\",\n  \"fingerprint_hash\": \"%s\",\n  \"results\": [\n",
            device, fp);
    for (int i = 0; i < n_rows; ++i) {
        row *r = &rows[i];
        fprintf(
            f,
            "    {\"op\": \"%s\", \"dtype\": \"%s\", \"buffer_bytes\": %zu, \"gbs\": %.3f, "
            "\"copy_gbs\": %.3f, \"ratio_copy\": %.4f, \"peer\": \"%s\", \"peer_gbs\": %.3f}%s\n",
            r->op, r->dtype, r->bytes, r->gbs, r->copy_gbs, r->gbs / r->copy_gbs, r->peer,
            r->peer_gbs, i + 1 < n_rows ? "," : "");
    }
    fprintf(f,
            "  ],\n  \"latency_us\": {\"silu_1x4096\": %.3f, \"rope_1_token\": %.3f, \"empty\": "
            "%.3f},\n  \"host_overhead_us_per_call\": %.3f,\n  \"host_overhead_rope_us_per_call\": "
            "%.3f,\n  \"bare_enqueue_us_per_call\": %.3f\n}\n",
            lat_op * 1e6, lat_rope * 1e6, lat_empty * 1e6, host_us, host_rope_us, bare_us);
}

/* GB/s vs buffer size for each op against the copy line. */
static void write_svg(const char *path, const size_t *sizes, int n_sizes)
{
    FILE *f = fopen(path, "w");
    if (!f)
        return;
    const int W = 900, H = 520, L = 70, B = 60;
    double gmax = 1;
    for (int i = 0; i < n_rows; ++i)
        gmax = fmax(gmax, fmax(rows[i].gbs, rows[i].copy_gbs));
    fprintf(f,
            "<svg xmlns='http://www.w3.org/2000/svg' width='%d' height='%d' "
            "font-family='sans-serif' font-size='11'>\n<rect width='100%%' height='100%%' "
            "fill='white'/>\n",
            W + 220, H);
    fprintf(f, "<text x='%d' y='20'>bicl-bench: GB/s vs buffer size (dashed: copy kernel)</text>\n",
            L);
    double lx0 = log2((double)sizes[0]), lx1 = log2((double)sizes[n_sizes - 1]);
    if (lx1 <= lx0)
        lx1 = lx0 + 1;
#define XP(s) (L + (log2((double)(s)) - lx0) / (lx1 - lx0) * (W - L - 20))
#define YP(g) (H - B - (g) / gmax * (H - B - 40))
    fprintf(f, "<line x1='%d' y1='%d' x2='%d' y2='%d' stroke='black'/>\n", L, H - B, W - 20, H - B);
    fprintf(f, "<line x1='%d' y1='40' x2='%d' y2='%d' stroke='black'/>\n", L, L, H - B);
    for (int s = 0; s < n_sizes; ++s)
        fprintf(f, "<text x='%.0f' y='%d'>%.0fM</text>\n", XP(sizes[s]) - 10, H - B + 15,
                (double)sizes[s] / 1048576.0);
    for (int g = 0; g <= 4; ++g)
        fprintf(f, "<text x='5' y='%.0f'>%.0f</text>\n", YP(gmax * g / 4), gmax * g / 4);
    static const char *colors[] = {"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
                                   "#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf"};
    int series = 0;
    for (int i = 0; i < n_rows; ++i) {
        if (rows[i].peer[0] && strcmp(rows[i].peer, "-") != 0 && rows[i].gbs == 0)
            continue;
        bool first = true;
        for (int j = 0; j < i; ++j)
            if (!strcmp(rows[j].op, rows[i].op) && !strcmp(rows[j].dtype, rows[i].dtype))
                first = false;
        if (!first)
            continue;
        const char *col = colors[series % 10];
        fprintf(f, "<polyline fill='none' stroke='%s' points='", col);
        for (int j = i; j < n_rows; ++j)
            if (!strcmp(rows[j].op, rows[i].op) && !strcmp(rows[j].dtype, rows[i].dtype))
                fprintf(f, "%.1f,%.1f ", XP(rows[j].bytes), YP(rows[j].gbs));
        fprintf(f, "'/>\n<text x='%d' y='%d' fill='%s'>%s %s</text>\n", W - 10, 50 + 14 * series,
                col, rows[i].op, rows[i].dtype);
        ++series;
    }
    fprintf(f, "<polyline fill='none' stroke='black' stroke-dasharray='6,4' points='");
    for (int i = 0; i < n_rows; ++i)
        if (!strcmp(rows[i].op, ops[0].name))
            fprintf(f, "%.1f,%.1f ", XP(rows[i].bytes), YP(rows[i].copy_gbs));
    fprintf(f, "'/>\n</svg>\n");
#undef XP
#undef YP
    fclose(f);
}

/* ------------------------------------------------------------- latency */

static double wall_once(bench *b, op_fn fn, size_t n, void *arg)
{
    double t[64];
    int reps = b->reps < 64 ? b->reps : 64;
    for (int i = -2; i < reps; ++i) {
        double t0 = tool_now_s();
        cl_event ev = NULL;
        if (fn(b, b->sets[0], n, arg, &ev) != BICL_SUCCESS)
            die("latency op", BICL_ERR_OPENCL);
        clWaitForEvents(1, &ev);
        clReleaseEvent(ev);
        if (i >= 0)
            t[i] = tool_now_s() - t0;
    }
    return tool_median(t, (size_t)reps);
}

static bicl_status run_empty(bench *b, cl_mem *buf, size_t n, void *arg, cl_event *ev)
{
    (void)buf;
    (void)n;
    (void)arg;
    size_t g = 1;
    cl_int err = clEnqueueNDRangeKernel(b->q, b->empty, 1, NULL, &g, NULL, 0, NULL, ev);
    return err == CL_SUCCESS ? BICL_SUCCESS : bicl_fail_cl(err, "empty");
}

/* Host time to enqueue one decode-sized op (fn over n, arg), without waiting (median
 * of batches). */
static double host_overhead_us(bench *b, op_fn fn, size_t n, void *arg)
{
    double t[9];
    for (int r = 0; r < 9; ++r) {
        double t0 = tool_now_s();
        for (int i = 0; i < 200; ++i)
            if (fn(b, b->sets[0], n, arg, NULL) != BICL_SUCCESS)
                die("overhead", BICL_ERR_OPENCL);
        t[r] = (tool_now_s() - t0) / 200 * 1e6;
        clFinish(b->q);
    }
    return tool_median(t, 9);
}

/* The same measurement for bare OpenCL: set the copy kernel's three arguments and
 * enqueue it over 4096 elements. What bicl adds per call is the difference. */
static double bare_enqueue_us(bench *b)
{
    double t[9];
    cl_ulong n = 1024; /* float4 elements */
    size_t g = 1024;
    for (int r = 0; r < 9; ++r) {
        double t0 = tool_now_s();
        for (int i = 0; i < 200; ++i) {
            cl_int err = clSetKernelArg(b->copy4, 0, sizeof(cl_mem), &b->sets[0][0]);
            err |= clSetKernelArg(b->copy4, 1, sizeof(cl_mem), &b->sets[0][2]);
            err |= clSetKernelArg(b->copy4, 2, sizeof n, &n);
            err |= clEnqueueNDRangeKernel(b->q, b->copy4, 1, NULL, &g, NULL, 0, NULL, NULL);
            if (err != CL_SUCCESS)
                die("bare enqueue", BICL_ERR_OPENCL);
        }
        t[r] = (tool_now_s() - t0) / 200 * 1e6;
        clFinish(b->q);
    }
    return tool_median(t, 9);
}

/* ------------------------------------------------------------- start-up */

/* Child: time from process start to the first finished op (a bf16 silu: the unary
 * program is the largest), with whatever caches the environment gives. */
static int first_op_main(const char *spec, int engine_ctx)
{
    double t0 = tool_now_s();
    bicl_context *ctx = NULL;
    bicl_status st = bicl_context_create_default(spec, NULL, &ctx);
    if (st != BICL_SUCCESS)
        die("context", st);
    if (engine_ctx) {
        /* An engine already holds its cl_context (driver initialised): keep ours
         * alive, drop the bicl context (its in-memory programs go with it) and time a
         * new bicl context over the same cl_context, as an engine would create it. */
        cl_context held = bicl_context_cl_context(ctx);
        cl_device_id dev = bicl_context_device(ctx);
        clRetainContext(held);
        bicl_context_free(ctx);
        t0 = tool_now_s();
        st = bicl_context_create(held, dev, NULL, &ctx);
        clReleaseContext(held); /* the bicl context retains it */
        if (st != BICL_SUCCESS)
            die("context over the engine's cl_context", st);
    }
    cl_int err;
    cl_context cl = bicl_context_cl_context(ctx);
    cl_command_queue q = clCreateCommandQueue(cl, bicl_context_device(ctx), 0, &err);
    cl_mem x = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8192, NULL, &err);
    cl_mem y = clCreateBuffer(cl, CL_MEM_READ_WRITE, 8192, NULL, &err);
    bicl_tensor tx = vec(x, BICL_BF16, 4096), ty = vec(y, BICL_BF16, 4096);
    double t1 = tool_now_s();
    st = bicl_unary(ctx, q, BICL_UNARY_SILU, NULL, &tx, &ty, 0, NULL, NULL);
    if (st != BICL_SUCCESS)
        die("first op", st);
    clFinish(q);
    double t2 = tool_now_s();
    bicl_cache_stats cs;
    bicl_context_cache_stats(ctx, &cs);
    printf("%.6f %.6f %lu %lu\n", t1 - t0, t2 - t0, cs.disk_hits, cs.programs_built);
    return 0;
}

static int run_child(const char *self, const char *spec, const char *cache, int cold,
                     int engine_ctx, double *ctx_s, double *total_s, unsigned long *hits)
{
    char cmd[2048];
    snprintf(cmd, sizeof cmd,
             "%s BICL_CACHE_DIR='%s' POCL_CACHE_DIR='%s/pocl' '%s' %s --device '%s'",
             cold ? "CUDA_CACHE_DISABLE=1" : "", cache, cache, self,
             engine_ctx ? "--first-op-engine" : "--first-op", spec ? spec : "");
    FILE *p = popen(cmd, "r");
    if (!p)
        return -1;
    unsigned long built = 0;
    int n = fscanf(p, "%lf %lf %lu %lu", ctx_s, total_s, hits, &built);
    int rc = pclose(p);
    return n == 4 && rc == 0 ? 0 : -1;
}

static int startup_main(const char *self, const char *spec)
{
    char dir[] = "/tmp/bicl-startup-XXXXXX";
    if (!mkdtemp(dir))
        return 1;
    printf("start-up to the first finished op (bf16 silu, 4096 elements), each a new process:\n");
    for (int i = 0; i < 4; ++i) {
        double c = 0, t = 0;
        unsigned long hits = 0;
        bool cold = i == 0, engine = i == 3;
        if (run_child(self, spec, dir, cold, engine, &c, &t, &hits) != 0) {
            printf("child failed\n");
            return 1;
        }
        printf("  %-5s: context %.1f ms, first op done %.1f ms (disk cache hits %lu)\n",
               cold     ? "cold"
               : engine ? "warm, engine's cl_context"
                        : "warm",
               c * 1e3, t * 1e3, hits);
    }
    char cmd[256];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", dir);
    return 0;
}

/* ------------------------------------------------------------- variants */

/* GB/s of a few ops under every variant at one size: the evidence for the platform
 * profiles (platforms/<vendor>/profile.h). Bits do not change (tests prove it). */
/* One op under every variant: GB/s of each, and the best. */
static void sweep_one(bench *b, const char *label, op_fn fn, size_t n, void *arg, double moved)
{
    static const unsigned vws[] = {1, 4, 8}, ipts[] = {1, 2, 4, 8};
    static const size_t wgs[] = {0, 128, 256, 512};
    double best = 0;
    bicl_variant best_v = {1, 1, 0};
    printf("%s:", label);
    for (size_t v = 0; v < 3; ++v)
        for (size_t p = 0; p < 4; ++p)
            for (size_t w = 0; w < 4; ++w) {
                bicl_variant var = {vws[v], ipts[p], wgs[w]};
                if (bicl_context_set_variant(b->ctx, &var) != BICL_SUCCESS)
                    continue;
                double gbs = moved / time_op(b, fn, n, arg) * 1e-9;
                printf(" %u/%u/%zu=%.0f", vws[v], ipts[p], wgs[w], gbs);
                if (gbs > best) {
                    best = gbs;
                    best_v = var;
                }
            }
    printf("\n  best: %u/%u/%zu at %.1f GB/s\n", best_v.vector_width, best_v.items_per_thread,
           best_v.work_group_size, best);
}

static bool sweep_wanted(const char *label)
{
    return label_wanted(sweep_filter, label);
}

static void variant_sweep(bench *b, size_t bytes)
{
    static const op_spec sweep_ops[] = {
        {"silu", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_SILU},
        {"silu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SILU},
        {"gelu_tanh", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_GELU_TANH},
        {"gelu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_GELU},
        {"softcap", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_SOFTCAP},
        {"relu", BICL_F32, BICL_F32, OP_UNARY, BICL_UNARY_RELU},
        {"swiglu", BICL_BF16, BICL_BF16, OP_GLU, BICL_GLU_SWIGLU},
        {"swiglu", BICL_F32, BICL_F32, OP_GLU, BICL_GLU_SWIGLU},
        {"geglu", BICL_F32, BICL_F32, OP_GLU, BICL_GLU_GEGLU},
        {"add", BICL_F32, BICL_F32, OP_BINARY, BICL_BINARY_ADD},
        {"add", BICL_BF16, BICL_BF16, OP_BINARY, BICL_BINARY_ADD},
        {"scale", BICL_F32, BICL_F32, OP_SCALE, 0},
        {"scale", BICL_BF16, BICL_BF16, OP_SCALE, 0},
        {"cast", BICL_F32, BICL_BF16, OP_CAST, 0},
        {"cast", BICL_BF16, BICL_F32, OP_CAST, 0},
        {"cast", BICL_F32, BICL_F16, OP_CAST, 0},
        {"residual_add", BICL_BF16, BICL_BF16, OP_RESIDUAL, 0},
        {"bias_add", BICL_BF16, BICL_BF16, OP_BIAS, 0},
        {"mask_fill", BICL_F32, BICL_F32, OP_MASK, 0},
    };
    if (bench_alloc(b, bytes, 2) != 0)
        return;
    printf("\nvariant sweep at %zu MiB (GB/s; vector width / items per work-item / work-group):\n",
           bytes >> 20);
    size_t n = bytes / 4;
    /* the same run's copy, so that a sweep alone gives ratios */
    printf("copy4 f32: %.1f GB/s\n", 2.0 * (double)bytes / time_op(b, run_copy4, n, NULL) * 1e-9);
    for (size_t o = 0; o < sizeof sweep_ops / sizeof sweep_ops[0]; ++o) {
        const op_spec *op = &sweep_ops[o];
        char label[64];
        snprintf(label, sizeof label, "%s %s->%s", op->name, bicl_dtype_name(op->in),
                 bicl_dtype_name(op->out));
        if (sweep_wanted(label))
            sweep_one(b, label, run_op, n, (void *)op, op_bytes(op, n));
    }
    double moved;
    for (size_t i = 0; i < N_ROPE_FORMS; ++i) {
        char label[64];
        snprintf(label, sizeof label, "rope %s", rope_forms[i].label);
        if (!sweep_wanted(label))
            continue;
        rope_arg r = llama_setup(b, bytes, &rope_forms[i], &moved);
        sweep_one(b, label, run_rope, 0, &r, moved);
        rope_arg_free(&r);
    }
    if (sweep_wanted("rope_mla bf16 table")) {
        rope_arg r = deepseek_setup(b, bytes, &moved);
        sweep_one(b, "rope_mla bf16 table", run_rope_mla, 0, &r, moved);
        rope_arg_free(&r);
    }
    bicl_context_set_variant(b->ctx, NULL);
}

/* ------------------------------------------------------------------ main */

static void usage(void)
{
    printf("usage: bicl-bench [--device SPEC] [--json FILE] [--svg FILE] [--min-mib N]\n"
           "                  [--max-mib N] [--op TEXT] [--reps N] [--quick]\n"
           "                  [--variants | --sweep-only [--sweep-op TEXT]] [--latency]\n"
           "       bicl-bench --startup [--device SPEC]\n"
           "  Bandwidth of each op against a float4 copy kernel and CLBlast (buffers from\n"
           "  --min-mib, default 4, to --max-mib, times 4; --op: only the rows whose\n"
           "  \"op dtype\" contains TEXT), decode latency against an empty kernel, host\n"
           "  overhead per call (--latency: only these); --startup: cold vs warm start.\n");
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *json = NULL, *svg = NULL;
    size_t max_mib = 0, min_mib = 4;
    int reps = 15, quick = 0, startup = 0, first = 0, variants = 0, sweep_only = 0,
        latency_only = 0;
    for (int i = 1; i < argc; ++i) {
        if (!strcmp(argv[i], "--device") && i + 1 < argc)
            spec = argv[++i];
        else if (!strcmp(argv[i], "--json") && i + 1 < argc)
            json = argv[++i];
        else if (!strcmp(argv[i], "--svg") && i + 1 < argc)
            svg = argv[++i];
        else if (!strcmp(argv[i], "--max-mib") && i + 1 < argc)
            max_mib = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--min-mib") && i + 1 < argc)
            min_mib = strtoul(argv[++i], NULL, 10);
        else if (!strcmp(argv[i], "--op") && i + 1 < argc)
            row_filter = argv[++i];
        else if (!strcmp(argv[i], "--reps") && i + 1 < argc)
            reps = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--quick"))
            quick = 1;
        else if (!strcmp(argv[i], "--startup"))
            startup = 1;
        else if (!strcmp(argv[i], "--first-op"))
            first = 1;
        else if (!strcmp(argv[i], "--first-op-engine"))
            first = 2;
        else if (!strcmp(argv[i], "--variants"))
            variants = 1;
        else if (!strcmp(argv[i], "--sweep-op") && i + 1 < argc)
            sweep_filter = argv[++i];
        else if (!strcmp(argv[i], "--sweep-only"))
            variants = sweep_only = 1;
        else if (!strcmp(argv[i], "--latency"))
            latency_only = 1;
        else {
            usage();
            return strcmp(argv[i], "--help") ? 2 : 0;
        }
    }
    if (first)
        return first_op_main(spec, first == 2);
    if (startup)
        return startup_main(argv[0], spec);
    bench b;
    bench_open(&b, spec);
    b.reps = quick ? 5 : reps;
    cl_ulong max_alloc = 0, global = 0;
    clGetDeviceInfo(b.dev, CL_DEVICE_MAX_MEM_ALLOC_SIZE, sizeof max_alloc, &max_alloc, NULL);
    clGetDeviceInfo(b.dev, CL_DEVICE_GLOBAL_MEM_SIZE, sizeof global, &global, NULL);
    if (!max_mib)
        max_mib = quick ? 16 : 1024;
    size_t cap = (size_t)max_mib << 20;
    if (cap > max_alloc)
        cap = (size_t)max_alloc;
    if (cap * MAX_BUFS * MAX_SETS > global / 10 * 8)
        cap = (size_t)(global / 10 * 8 / (MAX_BUFS * MAX_SETS));
    size_t sizes[MAX_SIZES];
    int n_sizes = 0;
    for (size_t s = (min_mib ? min_mib : 1) << 20; s <= cap && n_sizes < MAX_SIZES; s *= 4)
        sizes[n_sizes++] = s;
    if (n_sizes == 0 || sizes[n_sizes - 1] != cap)
        sizes[n_sizes++] = cap & ~(size_t)0xffff;
    char dev_name[256] = "";
    clGetDeviceInfo(b.dev, CL_DEVICE_NAME, sizeof dev_name, dev_name, NULL);
    printf("device: %s\nprofile: %s\nfingerprint hash: %016llx\n", dev_name,
           bicl_context_profile(b.ctx), (unsigned long long)bicl_fingerprint_hash(b.ctx));
    cl_ulong cache = 0;
    clGetDeviceInfo(b.dev, CL_DEVICE_GLOBAL_MEM_CACHE_SIZE, sizeof cache, &cache, NULL);
    for (int s = 0; s < n_sizes && !sweep_only && !latency_only; ++s) {
        size_t bytes = sizes[s];
        if (bench_alloc(&b, bytes, MAX_SETS) != 0 && bench_alloc(&b, bytes, 2) != 0) {
            printf("cannot allocate %zu MiB sets; stopping\n", bytes >> 20);
            break;
        }
        /* A CPU's last-level cache can hold a whole buffer (PoCL reports 260 MiB on a 2-core
         * Xeon slice, where bicl-bench ran the copy of 64 MiB buffers at 12-26 GB/s from run to
         * run): the figures are then not the memory's. */
        if (cache && bytes < 2 * cache)
            printf("note: %zu MiB buffers against the device's %llu MiB cache: figures may come "
                   "from the cache (--min-mib %llu or more measures memory)\n",
                   bytes >> 20, (unsigned long long)(cache >> 20),
                   (unsigned long long)((2 * cache + (1u << 20) - 1) >> 20));
        /* the copy kernel moves the whole buffer: bytes read + bytes written */
        double tc = time_op(&b, run_copy4, bytes / 4, NULL);
        double copy_gbs = 2.0 * (double)bytes / tc * 1e-9;
        add_row("copy4", "f32", bytes, copy_gbs, copy_gbs, NULL, 0);
        for (size_t o = 0; o < N_OPS; ++o) {
            size_t n = bytes / 4; /* elements: every operand fits a buffer */
            char dt[24];
            snprintf(dt, sizeof dt, "%s->%s", bicl_dtype_name(ops[o].in),
                     bicl_dtype_name(ops[o].out));
            if (!row_wanted(ops[o].name, dt))
                continue;
            double t = time_op(&b, run_op, n, (void *)&ops[o]);
            add_row(ops[o].name, dt, bytes, op_bytes(&ops[o], n) / t * 1e-9, copy_gbs, NULL, 0);
        }
#ifdef BICL_HAVE_CLBLAST
        for (size_t i = 0; i < sizeof blas / sizeof blas[0]; ++i) {
            size_t n = bytes / 4;
            char nm[40];
            snprintf(nm, sizeof nm, "clblast_%.30s", blas[i].name);
            if (!row_wanted(nm, "f32"))
                continue;
            double t = time_op(&b, run_blas, n, (void *)blas[i].name);
            add_row(nm, "f32", bytes, blas[i].bytes_per_elem * (double)n / t * 1e-9, copy_gbs,
                    blas[i].peer_of, 0);
        }
#endif
        for (size_t i = 0; i < N_ROPE_FORMS; ++i) { /* RoPE, llama3 table, 32 q + 8 k x 128 */
            if (!row_wanted("rope", rope_forms[i].label))
                continue;
            double moved;
            rope_arg r = llama_setup(&b, bytes, &rope_forms[i], &moved);
            double t = time_op(&b, run_rope, 0, &r);
            add_row("rope", rope_forms[i].label, bytes, moved / t * 1e-9, copy_gbs, NULL, 0);
            rope_arg_free(&r);
        }
        if (row_wanted("rope_mla", "bf16 table")) { /* DeepSeek-V3 (rope_interleave, yarn),
                                                        16 q heads x 192 + k_pe */
            double moved;
            rope_arg r = deepseek_setup(&b, bytes, &moved);
            double t = time_op(&b, run_rope_mla, 0, &r);
            add_row("rope_mla", "bf16 table", bytes, moved / t * 1e-9, copy_gbs, NULL, 0);
            rope_arg_free(&r);
        }
        if (row_wanted("mrope", "bf16 table")) { /* M-RoPE, llama's shape, positions [3, T] */
            size_t tokens = bytes / (32 * 128 * 2);
            mrope_arg r = mrope_setup(&b, tokens, 8192);
            double t = time_op(&b, run_mrope, 0, &r);
            double moved = (double)tokens * 40 * 128 * 2 * 2 + (double)tokens * 12;
            add_row("mrope", "bf16 table", bytes, moved / t * 1e-9, copy_gbs, NULL, 0);
            clReleaseMemObject(r.pos);
            bicl_mrope_plan_free(r.plan);
        }
        extra_rows(&b, bytes, copy_gbs, s == n_sizes - 1);
        fprintf(stderr, "  %zu MiB done\n", bytes >> 20);
    }
    if (!sweep_only && !latency_only)
        print_rows();
    if (variants)
        variant_sweep(&b, sizes[n_sizes - 1]);
    if (sweep_only)
        return 0;
    /* decode-sized latency on small buffers */
    bench_alloc(&b, (size_t)1 << 20, 1);
    static const op_spec silu = {"silu", BICL_BF16, BICL_BF16, OP_UNARY, BICL_UNARY_SILU};
    double lat_op = wall_once(&b, run_op, 4096, (void *)&silu);
    double lat_empty = wall_once(&b, run_empty, 0, NULL);
    rope_arg r1 = {llama_plan(&b, 8192, &rope_forms[0]), 1, positions(&b, 1, 8192), &rope_forms[0]};
    double lat_rope = wall_once(&b, run_rope, 0, &r1);
    double dev_op = time_op(&b, run_op, 4096, (void *)&silu);
    double dev_empty = time_op(&b, run_empty, 0, NULL);
    double host_us = host_overhead_us(&b, run_op, 4096, (void *)&silu);
    double host_rope_us = host_overhead_us(&b, run_rope, 0, &r1);
    double bare_us = bare_enqueue_us(&b);
    printf("\ndecode latency, enqueue to completion (median of %d):\n"
           "  silu bf16 1x4096: %.1f us   rope 1 token (32q + 8k heads x 128): %.1f us   "
           "empty kernel: %.1f us\n  ratios to empty: silu %.2f, rope %.2f\n"
           "  device time: silu %.2f us, empty %.2f us\nhost overhead per call (enqueue, no "
           "wait): silu %.2f us (%.2fx bare), rope 1 token %.2f us (%.2fx bare); bare OpenCL (3 "
           "clSetKernelArg + clEnqueueNDRangeKernel): %.2f us\n",
           b.reps, lat_op * 1e6, lat_rope * 1e6, lat_empty * 1e6, lat_op / lat_empty,
           lat_rope / lat_empty, dev_op * 1e6, dev_empty * 1e6, host_us, host_us / bare_us,
           host_rope_us, host_rope_us / bare_us, bare_us);
    if (json) {
        FILE *f = strcmp(json, "-") ? fopen(json, "w") : stdout;
        char fp[32];
        snprintf(fp, sizeof fp, "%016llx", (unsigned long long)bicl_fingerprint_hash(b.ctx));
        if (f) {
            write_json(f, dev_name, fp, lat_op, lat_empty, lat_rope, host_us, host_rope_us,
                       bare_us);
            if (f != stdout)
                fclose(f);
        }
    }
    if (svg)
        write_svg(svg, sizes, n_sizes);
    rope_arg_free(&r1);
    return 0;
}
