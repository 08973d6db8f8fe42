/* test_pointwise.c - every pointwise op: R (device == host reference, memcmp) for every
 * dtype combination over random inputs and all special classes; I over every variant,
 * offsets 0..7 and sizes 1..67 plus a large one; broadcasting, the fused GLU layouts,
 * mask forms, NaN/inf/signed-zero semantics pinned by known answers; bad inputs. */
#include "common.h"
#include "bicl_math_glu_f32.h" /* the paths of the single-rounding gated units */

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const bicl_dtype fdt[3] = {BICL_F32, BICL_F16, BICL_BF16};

/* One op with fixed dtypes and parameters: up to 2 inputs and 2 outputs of equal shape. */
typedef struct op_case {
    char name[96];
    int n_in, n_out;
    bicl_dtype in[2], out[2];
    int kind, code; /* which family and which op in it */
    float p0, p1;   /* parameters */
    int flag;
} op_case;

enum { K_UNARY, K_GLU, K_BINARY, K_AXPBY, K_SCALE, K_RESIDUAL, K_MASK };

/* The parameters of an activation: its registry row's example values (cl/bicl_ops.def). */
static bicl_unary_params unary_p(const op_case *c)
{
    bicl_unary_params p = {0};
    const bicl_op_info *info = bicl_unary_info(c->code);
    if (info)
        bicl_unary_params_set(info, info->example, &p);
    return p;
}

static bicl_glu_params glu_p(const op_case *c)
{
    bicl_glu_params p = {0};
    const bicl_op_info *info = bicl_glu_info(c->code);
    bicl_glu_params_set(info, info->example, &p);
    p.rounding = c->flag; /* a bicl_glu_rounding */
    return p;
}

static bicl_status run_device(test_env *env, const op_case *c, const bicl_tensor *in,
                              const bicl_tensor *out)
{
    bicl_context *x = env->ctx;
    cl_command_queue q = env->queue;
    switch (c->kind) {
    case K_UNARY: {
        bicl_unary_params p = unary_p(c);
        return bicl_unary(x, q, (bicl_unary_op)c->code, &p, &in[0], &out[0], 0, NULL, NULL);
    }
    case K_GLU: {
        bicl_glu_params p = glu_p(c);
        return bicl_glu(x, q, (bicl_glu_act)c->code, &p, &in[0], &in[1], &out[0], 0, NULL, NULL);
    }
    case K_BINARY:
        return bicl_binary(x, q, (bicl_binary_op)c->code, &in[0], &in[1], &out[0], 0, NULL, NULL);
    case K_AXPBY:
        return bicl_axpby(x, q, c->p0, &in[0], c->p1, &in[1], &out[0], 0, NULL, NULL);
    case K_SCALE:
        return bicl_scale(x, q, c->p0, &in[0], &out[0], 0, NULL, NULL);
    case K_RESIDUAL:
        return bicl_residual_add(x, q, &in[0], &in[1], &out[0], &out[1], 0, NULL, NULL);
    default:
        return bicl_mask_fill(x, q, &in[0], &in[1], c->p0, &out[0], 0, NULL, NULL);
    }
}

static void run_reference(const op_case *c, void *const *in, void **out, size_t n)
{
    bicl_status st = BICL_SUCCESS;
    switch (c->kind) {
    case K_UNARY: {
        bicl_unary_params p = unary_p(c);
        st = bicl_ref_unary((bicl_unary_op)c->code, &p, c->in[0], in[0], c->out[0], out[0], n);
        break;
    }
    case K_GLU: {
        bicl_glu_params p = glu_p(c);
        st = bicl_ref_glu((bicl_glu_act)c->code, &p, c->in[0], in[0], in[1], c->out[0], out[0], n);
        break;
    }
    case K_BINARY:
        st = bicl_ref_binary((bicl_binary_op)c->code, c->in[0], in[0], c->in[1], in[1], c->out[0],
                             out[0], n);
        break;
    case K_AXPBY:
        st = bicl_ref_axpby(c->p0, c->in[0], in[0], c->p1, c->in[1], in[1], c->out[0], out[0], n);
        break;
    case K_SCALE:
        st = bicl_ref_scale(c->p0, c->in[0], in[0], c->out[0], out[0], n);
        break;
    case K_RESIDUAL:
        st = bicl_ref_residual_add(in[0], c->in[1], in[1], out[0], c->out[1], out[1], n);
        break;
    default: {
        uint8_t *sel = malloc(n);
        assert_non_null(sel);
        for (size_t i = 0; i < n; ++i) {
            int32_t m = 0;
            if (c->in[1] == BICL_U8)
                m = ((const uint8_t *)in[1])[i];
            else
                memcpy(&m, (const char *)in[1] + i * 4, 4);
            sel[i] = m != 0;
        }
        st = bicl_ref_mask_fill(c->in[0], in[0], sel, c->p0, c->out[0], out[0], n);
        free(sel);
    }
    }
    assert_int_equal(st, BICL_SUCCESS);
}

/* Every op of every family with every dtype combination. */
static size_t all_cases(op_case *cs, size_t max)
{
    size_t n = 0;
#define ADD(c_)                                                                                    \
    do {                                                                                           \
        assert_true(n < max);                                                                      \
        cs[n++] = (c_);                                                                            \
    } while (0)
    for (int a = 0; a < 3; ++a)
        for (int b = 0; b < 3; ++b) {
            const char *an = bicl_dtype_name(fdt[a]), *bn = bicl_dtype_name(fdt[b]);
            for (int op = 0; op < BICL_UNARY_COUNT_; ++op) {
                op_case c = {"", 1, 1, {fdt[a]}, {fdt[b]}, K_UNARY, op, 0, 0, 0};
                const bicl_op_info *info = bicl_unary_info(op); /* NULL: the identity */
                snprintf(c.name, sizeof c.name, "%s %s->%s", info ? info->name : "identity", an,
                         bn);
                ADD(c);
            }
            for (int act = 0; act < BICL_GLU_COUNT_; ++act) {
                const bicl_op_info *info = bicl_glu_info(act);
                /* every rounding mode (bicl_glu_rounding) the activation takes: WHOLE ones
                 * do not round an activation to storage, GEGLU has no single rounding */
                for (int r = 0; r <= BICL_GLU_ROUND_ONCE; ++r) {
                    if ((r == BICL_GLU_ROUND_ACT_TO_STORAGE &&
                         info->order == BICL_GLU_ORDER_WHOLE) ||
                        (r == BICL_GLU_ROUND_ONCE && act == BICL_GLU_GEGLU))
                        continue;
                    static const char *const rname[] = {"", " round", " once"};
                    op_case c = {"", 2, 1, {fdt[a], fdt[a]}, {fdt[b]}, K_GLU, act, 0, 0, r};
                    snprintf(c.name, sizeof c.name, "%s%s %s->%s", info->name, rname[r], an, bn);
                    ADD(c);
                }
            }
            for (int o = 0; o < 3; ++o) {
                /* one op per dtype triple, every op where all three agree (each op is its
                 * own kernel, and the variant test runs the f32 and bf16 triples) */
                for (int code = 0; code < 3; ++code) {
                    if (code != (a + b + o) % 3 && !(a == b && b == o))
                        continue;
                    op_case c = {"", 2, 1, {fdt[a], fdt[b]}, {fdt[o]}, K_BINARY, code, 0, 0, 0};
                    snprintf(c.name, sizeof c.name, "binary%d %s,%s->%s", c.code, an, bn,
                             bicl_dtype_name(fdt[o]));
                    ADD(c);
                }
                op_case d = {"", 2, 1, {fdt[a], fdt[b]}, {fdt[o]}, K_AXPBY, 0, 0.75f, -3.5f, 0};
                snprintf(d.name, sizeof d.name, "axpby %s,%s->%s", an, bn, bicl_dtype_name(fdt[o]));
                ADD(d);
            }
            op_case s = {"", 1, 1, {fdt[a]}, {fdt[b]}, K_SCALE, 0, 0.125f, 0, 0};
            snprintf(s.name, sizeof s.name, "scale %s->%s", an, bn);
            ADD(s);
            op_case r = {"", 2, 2, {BICL_F32, fdt[a]}, {BICL_F32, fdt[b]}, K_RESIDUAL, 0, 0, 0, 0};
            snprintf(r.name, sizeof r.name, "residual_add x %s y %s", an, bn);
            ADD(r);
            for (int m = 0; m < 2; ++m) {
                op_case k = {"",        2, 1, {fdt[a], m ? BICL_I32 : BICL_U8}, {fdt[b]}, K_MASK, 0,
                             -INFINITY, 0, 0};
                snprintf(k.name, sizeof k.name, "mask_fill(%s) %s->%s", m ? "i32" : "u8", an, bn);
                ADD(k);
            }
        }
#undef ADD
    return n;
}

static void fill_input(bicl_dtype dt, void *p, size_t n, uint64_t seed)
{
    if (dt == BICL_F32) {
        test_fill_f32_bits(p, n, seed);
    } else if (dt == BICL_F16 || dt == BICL_BF16) {
        test_fill_u16_bits(p, n, seed);
    } else if (dt == BICL_U8) {
        uint64_t s = seed;
        for (size_t i = 0; i < n; ++i)
            ((uint8_t *)p)[i] = (uint8_t)(test_rand(&s) % 3 == 0 ? 0 : test_rand(&s));
    } else {
        uint64_t s = seed;
        for (size_t i = 0; i < n; ++i) {
            int32_t v = test_rand(&s) % 3 == 0 ? 0 : (int32_t)test_rand(&s);
            memcpy((char *)p + i * 4, &v, 4);
        }
    }
}

/* Runs case c on n elements at element offset off (every operand), with inputs given,
 * and compares every output with the reference; canaries and the elements before the
 * offset stay untouched. */
static void check_case(test_env *env, const op_case *c, void *const *in, size_t n, size_t off,
                       const char *ctx_what)
{
    test_buf bin[2], bout[2];
    bicl_tensor tin[2], tout[2];
    size_t shape[1] = {n};
    for (int i = 0; i < c->n_in; ++i) {
        size_t es = bicl_dtype_size(c->in[i]);
        unsigned char *h = calloc(n + off, es);
        assert_non_null(h);
        memcpy(h + off * es, in[i], n * es);
        bin[i] = test_buf_new(env, es, n + off, h);
        tin[i] = test_view(&bin[i], c->in[i], off, 1, shape);
        free(h);
    }
    for (int o = 0; o < c->n_out; ++o) {
        bout[o] = test_buf_new(env, bicl_dtype_size(c->out[o]), n + off, NULL);
        tout[o] = test_view(&bout[o], c->out[o], off, 1, shape);
    }
    bicl_status st = run_device(env, c, tin, tout);
    if (st != BICL_SUCCESS)
        fail_msg("%s (%s): %s: %s", c->name, ctx_what, bicl_status_string(st),
                 bicl_last_error(NULL));
    void *ref[2] = {NULL, NULL};
    for (int o = 0; o < c->n_out; ++o) {
        ref[o] = malloc(n * bicl_dtype_size(c->out[o]));
        assert_non_null(ref[o]);
    }
    run_reference(c, in, ref, n);
    for (int o = 0; o < c->n_out; ++o) {
        size_t es = bicl_dtype_size(c->out[o]);
        unsigned char *got = malloc((n + off) * es);
        assert_non_null(got);
        test_buf_read(env, &bout[o], got);
        for (size_t i = 0; i < off * es; ++i)
            assert_int_equal(got[i], CANARY_BYTE);
        char what[256];
        snprintf(what, sizeof what, "%.96s (%.64s, n %zu, offset %zu, output %d)", c->name,
                 ctx_what, n, off, o);
        test_assert_bits_equal(got + off * es, ref[o], n, es, what);
        test_buf_assert_canaries(env, &bout[o]);
        free(got);
        free(ref[o]);
        test_buf_free(&bout[o]);
    }
    for (int i = 0; i < c->n_in; ++i)
        test_buf_free(&bin[i]);
}

/* The same as check_case on a [rows][cols] view whose rows sit `pitch` elements apart
 * (pitch > cols): the iteration keeps two dims, so the rows kernels run; the padding
 * between rows must stay untouched. `in` holds rows * cols elements. */
static void check_case_rows(test_env *env, const op_case *c, void *const *in, size_t rows,
                            size_t cols, size_t pitch, size_t off, const char *ctx_what)
{
    test_buf bin[2], bout[2];
    bicl_tensor tin[2], tout[2];
    size_t total = off + rows * pitch;
    for (int i = 0; i < c->n_in; ++i) {
        size_t es = bicl_dtype_size(c->in[i]);
        unsigned char *h = calloc(total, es);
        assert_non_null(h);
        for (size_t r = 0; r < rows; ++r)
            memcpy(h + (off + r * pitch) * es, (const char *)in[i] + r * cols * es, cols * es);
        bin[i] = test_buf_new(env, es, total, h);
        tin[i] = (bicl_tensor){bin[i].mem, bin[i].lead + off, c->in[i],
                               2,          {rows, cols},      {(ptrdiff_t)pitch, 1}};
        free(h);
    }
    for (int o = 0; o < c->n_out; ++o) {
        bout[o] = test_buf_new(env, bicl_dtype_size(c->out[o]), total, NULL);
        tout[o] = (bicl_tensor){bout[o].mem, bout[o].lead + off, c->out[o],
                                2,           {rows, cols},       {(ptrdiff_t)pitch, 1}};
    }
    bicl_status st = run_device(env, c, tin, tout);
    if (st != BICL_SUCCESS)
        fail_msg("%s (%s, rows): %s: %s", c->name, ctx_what, bicl_status_string(st),
                 bicl_last_error(NULL));
    for (int o = 0; o < c->n_out; ++o) {
        size_t es = bicl_dtype_size(c->out[o]);
        void *ref[2] = {NULL, NULL};
        for (int k = 0; k < c->n_out; ++k)
            ref[k] = malloc(rows * cols * bicl_dtype_size(c->out[k]));
        run_reference(c, in, ref, rows * cols);
        unsigned char *got = malloc(total * es);
        assert_non_null(got);
        test_buf_read(env, &bout[o], got);
        for (size_t r = 0; r < rows; ++r) {
            char what[256];
            snprintf(what, sizeof what, "%.96s (%.64s, rows %zu x %zu pitch %zu, row %zu)", c->name,
                     ctx_what, rows, cols, pitch, r);
            test_assert_bits_equal(got + (off + r * pitch) * es, (char *)ref[o] + r * cols * es,
                                   cols, es, what);
            for (size_t p = cols; p < pitch && r + 1 < rows; ++p)
                assert_int_equal(got[(off + r * pitch + p) * es], CANARY_BYTE);
        }
        test_buf_assert_canaries(env, &bout[o]);
        free(got);
        for (int k = 0; k < c->n_out; ++k)
            free(ref[k]);
        test_buf_free(&bout[o]);
    }
    for (int i = 0; i < c->n_in; ++i)
        test_buf_free(&bin[i]);
}

static void make_inputs(const op_case *c, void **in, size_t n, uint64_t seed)
{
    for (int i = 0; i < c->n_in; ++i) {
        in[i] = malloc(n * bicl_dtype_size(c->in[i]));
        assert_non_null(in[i]);
        fill_input(c->in[i], in[i], n, seed + (uint64_t)i * 7919u);
    }
}

static void free_inputs(const op_case *c, void **in)
{
    for (int i = 0; i < c->n_in; ++i)
        free(in[i]);
}

/* R: every op and dtype combination, 70001 elements (all 65536 16-bit patterns of a
 * 16-bit input, every f32 special class) on the profile's default variant. */
static void every_op_matches_reference(void **state)
{
    test_env *env = *state;
    static op_case cs[600];
    size_t nc = all_cases(cs, 600);
    for (size_t i = 0; i < nc; ++i) {
        void *in[2];
        make_inputs(&cs[i], in, 70001, 1000 + i);
        check_case(env, &cs[i], in, 70001, 0, "random and special values");
        free_inputs(&cs[i], in);
    }
}

/* Cases of one op (kind, code, then rounding flag) next to each other, dtypes varying. */
static int by_op(const void *a, const void *b)
{
    const op_case *x = a, *y = b;
    if (x->kind != y->kind)
        return x->kind - y->kind;
    if (x->code != y->code)
        return x->code - y->code;
    if (x->flag != y->flag)
        return x->flag - y->flag;
    return strcmp(x->name, y->name);
}

/* H: the kernel names a thread keeps from its last call of a family (src/launch.c,
 * bicl_names_of) follow every value they are formatted from: every case again, one op's
 * dtype pairs and rounding modes one after another (every_op_matches_reference changes the
 * op between calls), so a key without a dtype or a mode would name the previous call's
 * kernel and its bits would differ from the reference. */
static void kernel_names_follow_each_call(void **state)
{
    test_env *env = *state;
    static op_case cs[600];
    size_t nc = all_cases(cs, 600);
    qsort(cs, nc, sizeof cs[0], by_op);
    for (size_t i = 0; i < nc; ++i) {
        void *in[2];
        make_inputs(&cs[i], in, 67, 3000 + i);
        check_case(env, &cs[i], in, 67, i % 8, "after the same op on other dtypes");
        free_inputs(&cs[i], in);
    }
}

/* I: every variant, offsets 0..7 and sizes 1..67 and 4099, for every op, on two dtype
 * combinations (f32 -> f32 and bf16 -> bf16 style); the same bits as the reference. */
static void every_variant_gives_the_same_bits(void **state)
{
    test_env *env = *state;
    static op_case cs[600];
    size_t nc = all_cases(cs, 600);
    static const unsigned vws[] = {1, 4, 8};
    static const unsigned ipts[] = {1, 3};
    static const size_t wgs[] = {0, 64};
    for (size_t i = 0; i < nc; ++i) {
        const op_case *c = &cs[i];
        bool f32_all = c->in[0] == BICL_F32 && c->out[0] == BICL_F32 &&
                       (c->n_in == 1 || c->in[1] == BICL_F32 || c->kind == K_MASK);
        bool bf16_all = c->in[c->n_in - 1] == BICL_BF16 && c->out[c->n_out - 1] == BICL_BF16 &&
                        (c->in[0] == BICL_BF16 || c->kind == K_RESIDUAL);
        if (!f32_all && !bf16_all)
            continue;
        if (c->kind == K_MASK && c->in[1] != BICL_U8)
            continue;
        void *in[2];
        make_inputs(c, in, 4099, 77 + i);
        size_t k = 0;
        for (int v = 0; v < 3; ++v)
            for (int p = 0; p < 2; ++p)
                for (int g = 0; g < 2; ++g, ++k) {
                    bicl_variant var = {vws[v], ipts[p], wgs[g]};
                    assert_int_equal(bicl_context_set_variant(env->ctx, &var), BICL_SUCCESS);
                    char what[64];
                    snprintf(what, sizeof what, "variant %u/%u/%zu", vws[v], ipts[p], wgs[g]);
                    check_case(env, c, in, 4099, k % 8, what);
                    check_case(env, c, in, 61 + k % 7, (k * 3) % 8, what);
                    /* rows kernels: pitch 40 keeps vector rows aligned, 43 does not */
                    check_case_rows(env, c, in, 13, 37, k % 2 ? 43 : 40, (k * 8) % 16, what);
                }
        assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
        for (size_t n = 1; n <= 67; n += (c->kind == K_UNARY ? 1 : 11))
            check_case(env, c, in, n, n % 8, "sizes");
        free_inputs(c, in);
    }
}

/* ----------------------------------------------------- semantics, pinned */

static float f_bits(uint32_t u)
{
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static uint32_t bits_f(float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    return u;
}

static uint32_t unary_bits(bicl_unary_op op, uint32_t x, float cap)
{
    float in = f_bits(x), out;
    bicl_unary_params p = {.softcap = cap,
                           .negative_slope = 0.01f,
                           .alpha_p = 0.8f,
                           .alpha_n = 0.8f,
                           .beta = 0.5f,
                           .eps = -1e-6f};
    assert_int_equal(bicl_ref_unary(op, &p, BICL_F32, &in, BICL_F32, &out, 1), BICL_SUCCESS);
    return bits_f(out);
}

/* NaN, infinities and signed zeros, as docs/numerics.md states them. The device
 * gives the same bits (every_op_matches_reference runs these classes). */
static void special_value_semantics(void **state)
{
    (void)state;
    const uint32_t pz = 0x00000000u, nz = 0x80000000u, pinf = 0x7f800000u, ninf = 0xff800000u;
    const uint32_t snan = 0x7f800123u, qnan_neg = 0xffc00042u;
    assert_int_equal(unary_bits(BICL_UNARY_RELU, nz, 0), pz); /* relu(-0) = +0 */
    assert_int_equal(unary_bits(BICL_UNARY_RELU, ninf, 0), pz);
    assert_int_equal(unary_bits(BICL_UNARY_RELU, snan, 0), 0x7fc00123u); /* quieted */
    assert_int_equal(unary_bits(BICL_UNARY_RELU, qnan_neg, 0), qnan_neg);
    assert_int_equal(unary_bits(BICL_UNARY_IDENTITY, snan, 0), snan); /* bits copied */
    assert_int_equal(unary_bits(BICL_UNARY_SILU, nz, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_SILU, ninf, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_SILU, pinf, 0), pinf);
    assert_int_equal(unary_bits(BICL_UNARY_SIGMOID, ninf, 0), pz);
    assert_int_equal(unary_bits(BICL_UNARY_SIGMOID, nz, 0), bits_f(0.5f));
    assert_int_equal(unary_bits(BICL_UNARY_TANH, nz, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_TANH, ninf, 0), bits_f(-1.0f));
    assert_int_equal(unary_bits(BICL_UNARY_GELU, ninf, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_GELU_TANH, nz, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_SOFTCAP, pinf, 30.0f), bits_f(30.0f));
    assert_int_equal(unary_bits(BICL_UNARY_SOFTCAP, snan, 30.0f), 0x7fc00123u);
    /* the registry's later activations (cl/bicl_math_act_f32.h) */
    assert_int_equal(unary_bits(BICL_UNARY_RELU6, nz, 0), pz);
    assert_int_equal(unary_bits(BICL_UNARY_RELU6, pinf, 0), bits_f(6.0f));
    assert_int_equal(unary_bits(BICL_UNARY_RELU6, snan, 0), 0x7fc00123u);
    assert_int_equal(unary_bits(BICL_UNARY_LEAKY_RELU, nz, 0), nz); /* -0 * slope */
    assert_int_equal(unary_bits(BICL_UNARY_LEAKY_RELU, ninf, 0), ninf);
    assert_int_equal(unary_bits(BICL_UNARY_LEAKY_RELU, bits_f(-2.0f), 0), bits_f(-0.02f));
    assert_int_equal(unary_bits(BICL_UNARY_HARDSWISH, ninf, 0), nz); /* the limit, not NaN */
    assert_int_equal(unary_bits(BICL_UNARY_HARDSWISH, bits_f(-3.0f), 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_HARDSWISH, bits_f(3.0f), 0), bits_f(3.0f));
    assert_int_equal(unary_bits(BICL_UNARY_HARDSWISH, bits_f(1.5f), 0), bits_f(1.125f));
    assert_int_equal(unary_bits(BICL_UNARY_HARDSWISH, nz, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_MISH, ninf, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_MISH, pinf, 0), pinf);
    assert_int_equal(unary_bits(BICL_UNARY_MISH, nz, 0), nz);
    assert_int_equal(unary_bits(BICL_UNARY_SOFTPLUS, ninf, 0), pz);
    assert_int_equal(unary_bits(BICL_UNARY_SOFTPLUS, pinf, 0), pinf);
    assert_int_equal(unary_bits(BICL_UNARY_SOFTPLUS, pz, 0), bits_f(0x1.62e43p-1f)); /* ln 2 */
    assert_int_equal(unary_bits(BICL_UNARY_SOFTPLUS, bits_f(30.0f), 0), bits_f(30.0f));
    assert_int_equal(unary_bits(BICL_UNARY_XIELU, pinf, 0), pinf);
    assert_int_equal(unary_bits(BICL_UNARY_XIELU, ninf, 0), 0x7fc00000u); /* inf - inf */
    assert_int_equal(unary_bits(BICL_UNARY_XIELU, snan, 0), 0x7fc00123u);
    assert_int_equal(unary_bits(BICL_UNARY_XIELU, bits_f(2.0f), 0), bits_f(4.2f)); /* .8*4+1 */
    /* binary: inf - inf is the canonical NaN, not the x86 default NaN 0xffc00000 */
    float a = f_bits(pinf), b = f_bits(pinf), y;
    bicl_ref_binary(BICL_BINARY_SUB, BICL_F32, &a, BICL_F32, &b, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), 0x7fc00000u);
    /* the first NaN operand wins, quieted */
    a = f_bits(0x7fa00001u);
    b = f_bits(qnan_neg);
    bicl_ref_binary(BICL_BINARY_ADD, BICL_F32, &a, BICL_F32, &b, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), 0x7fe00001u);
    bicl_ref_binary(BICL_BINARY_MUL, BICL_F32, &b, BICL_F32, &a, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), qnan_neg);
    /* 0 * inf in a gated unit: canonical NaN */
    float g = f_bits(pinf), u = 0.0f;
    bicl_glu_params gp = {0};
    bicl_ref_glu(BICL_GLU_REGLU, &gp, BICL_F32, &g, &u, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), 0x7fc00000u);
    /* mul_and_silu multiplies up first: of two NaNs, up's wins (swiglu: the gate's) */
    g = f_bits(0x7fa00001u);
    u = f_bits(qnan_neg);
    bicl_ref_glu(BICL_GLU_MUL_AND_SILU, &gp, BICL_F32, &g, &u, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), qnan_neg);
    bicl_ref_glu(BICL_GLU_SWIGLU, &gp, BICL_F32, &g, &u, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), 0x7fe00001u);
    /* fatrelu: gate > threshold passes, else +0 (times up) */
    bicl_glu_params fp = {.threshold = 0.5f};
    g = 0.5f;
    u = 3.0f;
    bicl_ref_glu(BICL_GLU_FATRELU, &fp, BICL_F32, &g, &u, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), pz);
    g = 0.75f;
    bicl_ref_glu(BICL_GLU_FATRELU, &fp, BICL_F32, &g, &u, BICL_F32, &y, 1);
    assert_int_equal(bits_f(y), bits_f(2.25f));
    /* mask fill over NaN: the fill wins; unmasked NaN bits pass unchanged */
    float xs[2] = {f_bits(snan), f_bits(snan)}, ys[2];
    uint8_t sel[2] = {1, 0};
    bicl_ref_mask_fill(BICL_F32, xs, sel, -INFINITY, BICL_F32, ys, 2);
    assert_int_equal(bits_f(ys[0]), ninf);
    assert_int_equal(bits_f(ys[1]), snan);
    /* axpby order: round(alpha*a) + round(beta*b), no fma */
    float aa = 1.0f + 0x1p-23f, bb = -1.0f;
    bicl_ref_axpby(1.0f + 0x1p-23f, BICL_F32, &aa, 1.0f, BICL_F32, &bb, BICL_F32, &y, 1);
    assert_true(y == 0x1p-22f); /* fma would give 0x1p-22 + 0x1p-46 */
}

/* Known values: relu2, the GLU rounding option in bf16, residual add's two outputs. */
static void known_answers(void **state)
{
    (void)state;
    float x = 3.0f, y;
    bicl_ref_unary(BICL_UNARY_RELU2, NULL, BICL_F32, &x, BICL_F32, &y, 1);
    assert_true(y == 9.0f);
    x = 20.0f;
    bicl_ref_unary(BICL_UNARY_SIGMOID, NULL, BICL_F32, &x, BICL_F32, &y, 1);
    assert_true(y == 1.0f); /* 1 - 2.06e-9 rounds to 1 */
    /* round_act_to_storage changes the product in bf16 for some inputs, never in f32 */
    int differ = 0;
    for (uint32_t i = 0; i < 4096; ++i) {
        uint16_t g = (uint16_t)(0x3f00 + i), u = 0x4049; /* gate in [0.5, 2^9), up 3.14 */
        uint16_t o0, o1;
        bicl_glu_params p0 = {0}, p1 = {.round_act_to_storage = 1};
        bicl_ref_glu(BICL_GLU_SWIGLU, &p0, BICL_BF16, &g, &u, BICL_BF16, &o0, 1);
        bicl_ref_glu(BICL_GLU_SWIGLU, &p1, BICL_BF16, &g, &u, BICL_BF16, &o1, 1);
        differ += o0 != o1;
        float gf = bicl_ref_bf16_to_f32(g), uf = bicl_ref_bf16_to_f32(u), f0, f1;
        bicl_ref_glu(BICL_GLU_SWIGLU, &p0, BICL_F32, &gf, &uf, BICL_F32, &f0, 1);
        bicl_ref_glu(BICL_GLU_SWIGLU, &p1, BICL_F32, &gf, &uf, BICL_F32, &f1, 1);
        assert_int_equal(bits_f(f0), bits_f(f1));
    }
    assert_true(differ > 0);
    float res = 1.0f, r_out;
    uint16_t xb = 0x3f80 /* 1.0 bf16 */, yb;
    bicl_ref_residual_add(&res, BICL_BF16, &xb, &r_out, BICL_BF16, &yb, 1);
    assert_true(r_out == 2.0f);
    assert_int_equal(yb, 0x4000);
    /* gpt-oss swiglu clamps: gate above the limit is the limit; up is clamped both ways */
    float gate = 100.0f, up = -50.0f, out, ref_out;
    bicl_glu_params oai = {.alpha = 1.702f, .limit = 7.0f};
    bicl_ref_glu(BICL_GLU_SWIGLU_OAI, &oai, BICL_F32, &gate, &up, BICL_F32, &out, 1);
    gate = 7.0f;
    up = -7.0f;
    bicl_ref_glu(BICL_GLU_SWIGLU_OAI, &oai, BICL_F32, &gate, &up, BICL_F32, &ref_out, 1);
    assert_int_equal(bits_f(out), bits_f(ref_out));
}

/* BICL_GLU_ROUND_ONCE: act(gate) * up correctly rounded once. Known answers where HF's
 * two roundings give another float (checked with mpmath at 300 bits: silu(0.501f) 1.7f =
 * 0x1.0f89deb4...p-1, gelu_tanh(0.506f) 1.7f = 0x1.3172e79c...p-1), on the host reference
 * and the device, so a mode that silently fell back to two roundings fails here; an
 * infinite up, where the modes differ in kind; and the double, float-pair and integer
 * paths of the host's math agreeing bit for bit on a sample. */
static void glu_rounding_once(void **state)
{
    test_env *env = *state;
    static const struct {
        bicl_glu_act act;
        float g, u;
        uint32_t once, hf;
    } k[] = {
        {BICL_GLU_SWIGLU, 0.501f, 1.7f, 0x3f07c4efu, 0x3f07c4f0u},
        {BICL_GLU_MUL_AND_SILU, 0.501f, 1.7f, 0x3f07c4efu, 0x3f07c4f0u},
        {BICL_GLU_GEGLU_TANH, 0.506f, 1.7f, 0x3f18b974u, 0x3f18b973u},
        /* silu(-300) is a negative real below 2^-150: times inf it is -inf, while its
         * f32 rounding is -0 and -0 inf the canonical NaN */
        {BICL_GLU_SWIGLU, -300.0f, INFINITY, 0xff800000u, 0x7fc00000u},
        {BICL_GLU_GEGLU_TANH, -20.0f, -INFINITY, 0x7f800000u, 0x7fc00000u},
    };
    for (size_t i = 0; i < sizeof k / sizeof k[0]; ++i)
        for (int mode = 0; mode <= BICL_GLU_ROUND_ONCE; mode += BICL_GLU_ROUND_ONCE) {
            bicl_glu_params p = {.rounding = mode};
            uint32_t want = mode == BICL_GLU_ROUND_ONCE ? k[i].once : k[i].hf;
            float out, dev;
            assert_int_equal(
                bicl_ref_glu(k[i].act, &p, BICL_F32, &k[i].g, &k[i].u, BICL_F32, &out, 1),
                BICL_SUCCESS);
            if (bits_f(out) != want)
                fail_msg("case %zu mode %d: reference %08x, want %08x", i, mode, bits_f(out), want);
            test_buf bg = test_buf_new(env, 4, 1, &k[i].g), bu = test_buf_new(env, 4, 1, &k[i].u),
                     by = test_buf_new(env, 4, 1, NULL);
            size_t one = 1;
            bicl_tensor g = test_view(&bg, BICL_F32, 0, 1, &one),
                        u = test_view(&bu, BICL_F32, 0, 1, &one),
                        y = test_view(&by, BICL_F32, 0, 1, &one);
            assert_int_equal(
                bicl_glu(env->ctx, env->queue, k[i].act, &p, &g, &u, &y, 0, NULL, NULL),
                BICL_SUCCESS);
            test_buf_read(env, &by, &dev);
            if (bits_f(dev) != want)
                fail_msg("case %zu mode %d: device %08x, want %08x", i, mode, bits_f(dev), want);
            test_buf_free(&bg);
            test_buf_free(&bu);
            test_buf_free(&by);
        }
    /* GEGLU has no single-rounding form: refused by the reference too */
    bicl_glu_params once = {.rounding = BICL_GLU_ROUND_ONCE}, bad = {.rounding = 7};
    float g1 = 1.0f, u1 = 1.0f, y1 = 0.0f;
    assert_int_equal(bicl_ref_glu(BICL_GLU_GEGLU, &once, BICL_F32, &g1, &u1, BICL_F32, &y1, 1),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_ref_glu(BICL_GLU_SWIGLU, &bad, BICL_F32, &g1, &u1, BICL_F32, &y1, 1),
                     BICL_ERR_INVALID_PARAMETER);
    assert_true(y1 == 0.0f);
    /* the paths: bit patterns of both operands, and gates in [-25, 25] */
    uint64_t seed = 17;
    for (int i = 0; i < (1 << 18); ++i) {
        uint64_t r = test_rand(&seed);
        float g = i & 1 ? f_bits((uint32_t)r) : (float)((double)(r >> 11) * 0x1p-53 * 50.0 - 25.0);
        float u = f_bits((uint32_t)(r >> 32));
        float a = 0x1.b3b646p+0f * (float)(i % 7), lim = i % 3 ? 7.0f : 1e30f;
        uint32_t d1 = bits_f(bicl_swiglu1_dbl(g, u)), d2 = bits_f(bicl_geglu_tanh1_dbl(g, u));
        uint32_t d3 = bits_f(bicl_swiglu_oss_dbl(g, u, a, lim));
        if (bits_f(bicl_swiglu1_pair(g, u)) != d1 || bits_f(bicl_swiglu1_int(g, u)) != d1 ||
            bits_f(bicl_geglu_tanh1_pair(g, u)) != d2 || bits_f(bicl_geglu_tanh1_int(g, u)) != d2 ||
            bits_f(bicl_swiglu_oss_pair(g, u, a, lim)) != d3 ||
            bits_f(bicl_swiglu_oss_int(g, u, a, lim)) != d3)
            fail_msg("paths differ at g = %a, u = %a (alpha %a, limit %a)", (double)g, (double)u,
                     (double)a, (double)lim);
    }
}

/* ---------------------------------------------------- broadcast and layouts */

static void broadcast_bias_scale_and_fused_glu(void **state)
{
    test_env *env = *state;
    const size_t R = 37, C = 29;
    uint16_t *x = malloc(R * C * 2 * 2), *y = malloc(R * C * 2), *ref = malloc(R * C * 2);
    float bias[29], *xf = malloc(R * C * 4);
    assert_true(x && y && ref && xf);
    test_fill_u16_bits(x, R * C * 2, 5);
    for (size_t c = 0; c < C; ++c)
        bias[c] = (float)c * 0.37f - 3.0f;
    test_buf bx = test_buf_new(env, 2, R * C * 2, x), bb = test_buf_new(env, 4, C, bias);
    test_buf by = test_buf_new(env, 2, R * C, NULL);
    size_t sh[2] = {R, C}, sv[1] = {C}, sh2[2] = {R, 2 * C};
    bicl_tensor tx = test_view(&bx, BICL_BF16, 0, 2, sh), tb = test_view(&bb, BICL_F32, 0, 1, sv);
    bicl_tensor ty = test_view(&by, BICL_BF16, 0, 2, sh);
    /* bias add: y[r][c] = x[r][c] + bias[c] */
    assert_int_equal(bicl_bias_add(env->ctx, env->queue, &tx, &tb, &ty, 0, NULL, NULL),
                     BICL_SUCCESS);
    test_buf_read(env, &by, y);
    for (size_t r = 0; r < R; ++r)
        assert_int_equal(bicl_ref_binary(BICL_BINARY_ADD, BICL_BF16, x + r * C, BICL_F32, bias,
                                         BICL_BF16, ref + r * C, C),
                         BICL_SUCCESS);
    test_assert_bits_equal(y, ref, R * C, 2, "bias_add");
    /* per-channel scale */
    assert_int_equal(bicl_scale_channels(env->ctx, env->queue, &tx, &tb, &ty, 0, NULL, NULL),
                     BICL_SUCCESS);
    test_buf_read(env, &by, y);
    for (size_t r = 0; r < R; ++r)
        bicl_ref_binary(BICL_BINARY_MUL, BICL_BF16, x + r * C, BICL_F32, bias, BICL_BF16,
                        ref + r * C, C);
    test_assert_bits_equal(y, ref, R * C, 2, "scale_channels");
    /* fused GLU from one tensor [R][2C], halves and interleaved */
    bicl_tensor tx2 = test_view(&bx, BICL_BF16, 0, 2, sh2);
    for (int layout = 0; layout < 2; ++layout) {
        bicl_glu_params p = {.round_act_to_storage = 1};
        assert_int_equal(bicl_glu_fused(env->ctx, env->queue, BICL_GLU_SWIGLU, &p,
                                        (bicl_glu_layout)layout, &tx2, &ty, 0, NULL, NULL),
                         BICL_SUCCESS);
        test_buf_read(env, &by, y);
        for (size_t r = 0; r < R; ++r)
            for (size_t c = 0; c < C; ++c) {
                const uint16_t *row = x + r * 2 * C;
                uint16_t g = layout ? row[2 * c] : row[c], u = layout ? row[2 * c + 1] : row[C + c];
                bicl_ref_glu(BICL_GLU_SWIGLU, &p, BICL_BF16, &g, &u, BICL_BF16, &ref[r * C + c], 1);
            }
        test_assert_bits_equal(y, ref, R * C, 2, layout ? "glu interleaved" : "glu halves");
    }
    /* mask from per-row lengths and causal, on [R][C] */
    int32_t lens[37];
    for (size_t r = 0; r < R; ++r)
        lens[r] = (int32_t)(r % 31) - 2;
    test_buf bl = test_buf_new(env, 4, R, lens);
    size_t sr[1] = {R};
    bicl_tensor tl = test_view(&bl, BICL_I32, 0, 1, sr);
    assert_int_equal(
        bicl_mask_fill_lengths(env->ctx, env->queue, &tx, &tl, -INFINITY, &ty, 0, NULL, NULL),
        BICL_SUCCESS);
    test_buf_read(env, &by, y);
    for (size_t r = 0; r < R; ++r)
        for (size_t c = 0; c < C; ++c)
            assert_int_equal(y[r * C + c], (long)c >= lens[r] ? 0xff80 : x[r * C + c]);
    assert_int_equal(bicl_mask_fill_causal(env->ctx, env->queue, &tx, 3, 0.0f, &ty, 0, NULL, NULL),
                     BICL_SUCCESS);
    test_buf_read(env, &by, y);
    for (size_t r = 0; r < R; ++r)
        for (size_t c = 0; c < C; ++c)
            assert_int_equal(y[r * C + c], (long)c > (long)r + 3 ? 0x0000 : x[r * C + c]);
    test_buf_assert_canaries(env, &by);
    test_buf_free(&bx);
    test_buf_free(&bb);
    test_buf_free(&by);
    test_buf_free(&bl);
    free(x);
    free(y);
    free(ref);
    free(xf);
}

/* ------------------------------------------------------ activation tables */

/* The ops with a table path (BICL_OPTION_ACT_TABLES): a parameterless activation with a
 * 16-bit input (gate). */
static bool has_table(const op_case *c)
{
    if (c->in[0] != BICL_F16 && c->in[0] != BICL_BF16)
        return false;
    /* the single-rounding mode never reads a table of rounded activations (src/pointwise.c) */
    if (c->kind == K_GLU && c->flag == BICL_GLU_ROUND_ONCE)
        return false;
    const bicl_op_info *info = c->kind == K_UNARY ? bicl_unary_info(c->code)
                               : c->kind == K_GLU ? bicl_glu_info(c->code)
                                                  : NULL;
    return info && info->table;
}

/* A context on env's cl_context and device (so env's queue and buffers serve it) with
 * BICL_OPTION_ACT_TABLES = value (NULL: not set). */
static test_env env_with_tables(const test_env *env, const char *value)
{
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_DISK_CACHE, 0), BICL_SUCCESS);
    if (value)
        assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ACT_TABLES, value), BICL_SUCCESS);
    test_env e = {NULL, env->queue};
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &e.ctx),
                     BICL_SUCCESS);
    bicl_options_free(o);
    return e;
}

static void table_counts(const test_env *e, size_t *tables, unsigned long *launches)
{
    size_t bytes = 0;
    bicl_table_counts(e->ctx, tables, launches, &bytes);
}

/* Runs case c on n contiguous elements on e's context; the output (one) comes back. */
static void run_flat(test_env *e, const op_case *c, void *const *in, size_t n, void *out)
{
    test_buf bin[2], bout;
    bicl_tensor tin[2], tout[2];
    size_t shape[1] = {n};
    for (int i = 0; i < c->n_in; ++i) {
        bin[i] = test_buf_new(e, bicl_dtype_size(c->in[i]), n, in[i]);
        tin[i] = test_view(&bin[i], c->in[i], 0, 1, shape);
    }
    bout = test_buf_new(e, bicl_dtype_size(c->out[0]), n, NULL);
    tout[0] = test_view(&bout, c->out[0], 0, 1, shape);
    bicl_status st = run_device(e, c, tin, tout);
    if (st != BICL_SUCCESS)
        fail_msg("%s: %s: %s", c->name, bicl_status_string(st), bicl_last_error(NULL));
    test_buf_read(e, &bout, out);
    test_buf_assert_canaries(e, &bout);
    test_buf_free(&bout);
    for (int i = 0; i < c->n_in; ++i)
        test_buf_free(&bin[i]);
}

/* check_case on strided views: input i at stride 2 + i, the output at stride 3 (so no
 * dim merges and the strided kernels run); the elements between stay untouched. */
static void check_case_strided(test_env *env, const op_case *c, void *const *in, size_t n,
                               const char *ctx_what)
{
    test_buf bin[2], bout;
    bicl_tensor tin[2], tout[2];
    for (int i = 0; i < c->n_in; ++i) {
        size_t es = bicl_dtype_size(c->in[i]), st = 2 + (size_t)i;
        unsigned char *h = calloc(n * st, es);
        assert_non_null(h);
        for (size_t j = 0; j < n; ++j)
            memcpy(h + j * st * es, (const char *)in[i] + j * es, es);
        bin[i] = test_buf_new(env, es, n * st, h);
        tin[i] = (bicl_tensor){bin[i].mem, bin[i].lead, c->in[i], 1, {n}, {(ptrdiff_t)st}};
        free(h);
    }
    size_t es = bicl_dtype_size(c->out[0]);
    bout = test_buf_new(env, es, 3 * n, NULL);
    tout[0] = (bicl_tensor){bout.mem, bout.lead, c->out[0], 1, {n}, {3}};
    bicl_status st = run_device(env, c, tin, tout);
    if (st != BICL_SUCCESS)
        fail_msg("%s (%s, strided): %s: %s", c->name, ctx_what, bicl_status_string(st),
                 bicl_last_error(NULL));
    unsigned char *got = malloc(3 * n * es), *dense = malloc(n * es), *ref = malloc(n * es);
    void *refs[2] = {ref, NULL};
    assert_true(got && dense && ref);
    test_buf_read(env, &bout, got);
    for (size_t j = 0; j < n; ++j) {
        memcpy(dense + j * es, got + 3 * j * es, es);
        for (size_t b = es; b < 3 * es; ++b)
            assert_int_equal(got[3 * j * es + b], CANARY_BYTE);
    }
    run_reference(c, in, refs, n);
    char what[256];
    snprintf(what, sizeof what, "%.96s (%.64s, strided)", c->name, ctx_what);
    test_assert_bits_equal(dense, ref, n, es, what);
    test_buf_assert_canaries(env, &bout);
    free(got);
    free(dense);
    free(ref);
    test_buf_free(&bout);
    for (int i = 0; i < c->n_in; ++i)
        test_buf_free(&bin[i]);
}

/* The option: values, and which calls take the table path. A table is built once per
 * (op, dtypes) and serves every later call; ops without a table never build one. */
static void act_table_option_and_path(void **state)
{
    test_env *env = *state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ACT_TABLES, "maybe"),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_ACT_TABLES, 1),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ACT_TABLES, "off"), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ACT_TABLES, "auto"), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ACT_TABLES, NULL), BICL_SUCCESS);
    bicl_options_free(o);

    const size_t n = 1000;
    uint16_t x[1000], u[1000];
    float xf[1000];
    test_fill_u16_bits(x, n, 1);
    for (size_t i = 0; i < n; ++i) {
        u[i] = (uint16_t)(x[i] * 7u + 3u);
        xf[i] = (float)i - 500.0f;
    }
    void *in16[2] = {x, u}, *in32[2] = {xf, xf};
    float out[1000];
    /* op, in dtype, round flag, whether it takes the table path */
    static const struct {
        int kind, code;
        bicl_dtype in, out;
        int flag;
        bool table;
    } calls[] = {
        {K_UNARY, BICL_UNARY_SILU, BICL_BF16, BICL_BF16, 0, true},
        {K_UNARY, BICL_UNARY_SILU, BICL_BF16, BICL_BF16, 0, true}, /* same table again */
        {K_UNARY, BICL_UNARY_SILU, BICL_BF16, BICL_F32, 0, true},
        {K_UNARY, BICL_UNARY_GELU, BICL_F16, BICL_BF16, 0, true},
        {K_UNARY, BICL_UNARY_SILU, BICL_F32, BICL_BF16, 0, false},
        {K_UNARY, BICL_UNARY_RELU, BICL_BF16, BICL_BF16, 0, false},
        {K_UNARY, BICL_UNARY_SOFTCAP, BICL_BF16, BICL_BF16, 0, false},
        {K_UNARY, BICL_UNARY_IDENTITY, BICL_BF16, BICL_F32, 0, false},
        {K_GLU, BICL_GLU_SWIGLU, BICL_BF16, BICL_BF16, 0, true},
        {K_GLU, BICL_GLU_SWIGLU, BICL_BF16, BICL_F16, 1, true},
        {K_GLU, BICL_GLU_SWIGLU, BICL_BF16, BICL_F32, 1, true}, /* same table as above */
        {K_GLU, BICL_GLU_REGLU, BICL_BF16, BICL_BF16, 0, false},
        {K_GLU, BICL_GLU_SWIGLU_OAI, BICL_BF16, BICL_BF16, 0, false},
        {K_GLU, BICL_GLU_GEGLU, BICL_F32, BICL_F32, 0, false},
    };
    const size_t n_calls = sizeof calls / sizeof calls[0];
    const size_t tables_wanted = 5; /* silu bf16->{bf16,f32}, gelu f16, swiglu 2 */
    test_env on = env_with_tables(env, "auto"), off = env_with_tables(env, "off");
    for (int pass = 0; pass < 2; ++pass) {
        test_env *e = pass ? &off : &on;
        size_t tables = 0, seen = 0;
        unsigned long launches = 0, want_launches = 0;
        for (size_t i = 0; i < n_calls; ++i) {
            op_case c = {.n_in = calls[i].kind == K_GLU ? 2 : 1,
                         .n_out = 1,
                         .in = {calls[i].in, calls[i].in},
                         .out = {calls[i].out},
                         .kind = calls[i].kind,
                         .code = calls[i].code,
                         .flag = calls[i].flag};
            snprintf(c.name, sizeof c.name, "call %zu (%s)", i, pass ? "off" : "auto");
            run_flat(e, &c, calls[i].in == BICL_F32 ? in32 : in16, n, out);
            want_launches += !pass && calls[i].table;
            table_counts(e, &tables, &launches);
            if (launches != want_launches)
                fail_msg("%s: %lu table launches, want %lu", c.name, launches, want_launches);
            assert_true(tables >= seen);
            seen = tables;
        }
        assert_int_equal(tables, pass ? 0 : tables_wanted);
    }
    bicl_context_free(on.ctx);
    bicl_context_free(off.ctx);
    /* Not set: $BICL_ACT_TABLES decides; set: the option wins. */
    const char *saved = getenv("BICL_ACT_TABLES");
    char keep[16] = "";
    if (saved)
        snprintf(keep, sizeof keep, "%s", saved);
    op_case silu = {"silu env", 1, 1, {BICL_BF16}, {BICL_BF16}, K_UNARY, BICL_UNARY_SILU, 0, 0, 0};
    static const struct {
        const char *env, *option;
        unsigned long launches;
    } env_cases[] = {{"off", NULL, 0}, {"auto", NULL, 1}, {"off", "auto", 1}, {"auto", "off", 0}};
    for (size_t i = 0; i < sizeof env_cases / sizeof env_cases[0]; ++i) {
        setenv("BICL_ACT_TABLES", env_cases[i].env, 1);
        test_env e = env_with_tables(env, env_cases[i].option);
        run_flat(&e, &silu, in16, n, out);
        size_t tables = 0;
        unsigned long launches = 0;
        table_counts(&e, &tables, &launches);
        assert_int_equal(launches, env_cases[i].launches);
        bicl_context_free(e.ctx);
    }
    if (saved)
        setenv("BICL_ACT_TABLES", keep, 1);
    else
        unsetenv("BICL_ACT_TABLES");
}

/* Which of the six 16-bit pairs c's dtypes are (input f16/bf16 x output f32/f16/bf16). */
static int pair_16bit(const op_case *c)
{
    int b = c->out[0] == BICL_F32 ? 0 : c->out[0] == BICL_F16 ? 1 : 2;
    return 3 * (c->in[0] == BICL_BF16) + b;
}

/* Whether the test runs c's compute path: half of each op's pairs, alternating with the op. */
static bool on_compute_square(const op_case *c)
{
    int p = pair_16bit(c);
    return (p / 3 + p % 3 + c->kind + c->code + c->flag) % 2 == 0;
}

/* Every op with a table, every 16-bit input dtype and every output dtype, GLU with
 * round_act_to_storage both ways: the table path ("auto") gives the host reference's bits
 * for all 65536 inputs (NaNs with payloads, infinities, denormals, -0 among them; up
 * random bits), on every vector width and items per thread, unaligned offsets, row and
 * strided views; the compute path ("off") gives the same bits as both on all inputs for
 * half of an op's six dtype pairs: each output dtype once, the input dtype alternating
 * with the op (on_compute_square), every pair over the ops (asserted). Each compute path
 * is a program of its own, built for this test alone (a second of PoCL's time each: 102
 * of them were most of this test's 141 s). The table launch counter proves that the auto
 * context took the table path each time. */
static void act_tables_equal_compute_on_every_input(void **state)
{
    test_env *env = *state;
    static op_case cs[600];
    size_t nc = all_cases(cs, 600);
    const size_t n = 65536;
    test_env on = env_with_tables(env, "auto"), off = env_with_tables(env, "off");
    /* the compact form of the 16-bit unary tables (cl/bicl_table_compact.h) */
    test_env compact = env_with_tables(env, "compact");
    size_t n_compact = 0;
    unsigned long compact_launches_want = 0;
    static const unsigned vws[] = {1, 4, 8};
    static const unsigned ipts[] = {1, 3};
    size_t n_table = 0, n_compute = 0;
    unsigned pairs_seen = 0;
    unsigned long want_launches = 0;
    for (size_t i = 0; i < nc; ++i) {
        const op_case *c = &cs[i];
        if (!has_table(c))
            continue;
        ++n_table;
        bool compute = on_compute_square(c);
        n_compute += compute;
        pairs_seen |= (unsigned)compute << pair_16bit(c);
        void *in[2];
        uint16_t *g = malloc(n * 2), *u = malloc(n * 2);
        assert_true(g && u);
        uint64_t s = 4242 + i;
        for (size_t j = 0; j < n; ++j) {
            g[j] = (uint16_t)j;
            u[j] = (uint16_t)(test_rand(&s) >> 48);
        }
        in[0] = g;
        in[1] = u;
        size_t es = bicl_dtype_size(c->out[0]);
        unsigned char *y_on = malloc(n * es), *y_off = malloc(n * es);
        assert_true(y_on && y_off);
        run_flat(&on, c, in, n, y_on);
        ++want_launches;
        if (compute) {
            run_flat(&off, c, in, n, y_off);
            test_assert_bits_equal(y_on, y_off, n, es, c->name);
            check_case(&off, c, in, n, 0, "compute path"); /* both equal the reference */
        }
        check_case(&on, c, in, n, 0, "table path");
        ++want_launches;
        if (c->kind == K_UNARY && bicl_dtype_size(c->out[0]) == 2) {
            ++n_compact;
            check_case(&compact, c, in, n, 0, "compact table path");
            /* the vector kernels (aligned views; at offset 3 the 1-wide one) and the strided */
            static const bicl_variant cvars[] = {{4, 1, 0}, {8, 3, 64}};
            for (int v = 0; v < 2; ++v) {
                assert_int_equal(bicl_context_set_variant(compact.ctx, &cvars[v]), BICL_SUCCESS);
                check_case(&compact, c, in, n, 8, "compact table path, a vector variant");
                check_case(&compact, c, in, n, 3, "compact table path, offset 3");
            }
            assert_int_equal(bicl_context_set_variant(compact.ctx, NULL), BICL_SUCCESS);
            check_case_strided(&compact, c, in, n, "compact table path");
            compact_launches_want += 6;
        }
        size_t k = 0;
        for (int v = 0; v < 3; ++v)
            for (int p = 0; p < 2; ++p, ++k) {
                bicl_variant var = {vws[v], ipts[p], k % 2 ? 64 : 0};
                assert_int_equal(bicl_context_set_variant(on.ctx, &var), BICL_SUCCESS);
                char what[64];
                snprintf(what, sizeof what, "table path, variant %u/%u/%zu", vws[v], ipts[p],
                         var.work_group_size);
                /* p 0: offsets and row pitch multiples of 8 (vector kernels); p 1: not */
                check_case(&on, c, in, n, p ? 2 * k + 1 : 8 * (k % 2), what);
                check_case_rows(&on, c, in, 256, 256, p ? 259 : 264, p ? k : 0, what);
                want_launches += 2;
            }
        check_case_strided(&on, c, in, n, "table path");
        ++want_launches;
        assert_int_equal(bicl_context_set_variant(on.ctx, NULL), BICL_SUCCESS);
        size_t tables = 0;
        unsigned long launches = 0;
        table_counts(&on, &tables, &launches);
        if (launches != want_launches)
            fail_msg("%s: %lu table launches, want %lu: the table path was not taken", c->name,
                     launches, want_launches);
        table_counts(&off, &tables, &launches);
        assert_int_equal(tables, 0);
        assert_int_equal(launches, 0);
        free(y_on);
        free(y_off);
        free(g);
        free(u);
    }
    /* 9 unary ops (silu, sigmoid, tanh, gelu, gelu_tanh, gelu_quick, hardswish, mish,
     * softplus) x 2 input x 3 output dtypes; 4 gated units (swiglu, geglu, geglu_tanh,
     * mul_and_silu) x 2 x 3 x rounding 2 ways */
    assert_int_equal(n_table, 54 + 48);
    assert_int_equal(n_compute, n_table / 2);
    assert_int_equal(pairs_seen, 0x3fu);    /* every 16-bit input with every output */
    assert_int_equal(n_compact, 9 * 2 * 2); /* the unary ops' 16-bit outputs */
    size_t compact_tables = 0, compact_bytes = 0;
    unsigned long compact_launches = 0;
    bicl_table_counts(compact.ctx, &compact_tables, &compact_launches, &compact_bytes);
    assert_int_equal(compact_tables, n_compact);
    assert_int_equal(compact_launches, compact_launches_want); /* the table path was taken */
    /* ... in the compact form: the 36 full tables hold 36 x 128 KiB; the compact ones 1.6 MiB
     * on PoCL (most bf16 tables 5.5-10 KiB, f16 -> bf16 up to 111 KiB; docs/api.md) */
    if (compact_bytes * 2 >= (size_t)n_compact * 131072)
        fail_msg("compact tables: %zu bytes for %zu tables", compact_bytes, compact_tables);
    bicl_context_free(compact.ctx);
    bicl_context_free(on.ctx);
    bicl_context_free(off.ctx);
}

/* First use of the tables from several threads at once on a fresh context: each table
 * is built (perhaps by more than one thread; one is kept), every thread gets the right
 * bits, and the context holds exactly one table per (op, dtypes). */
#define TT_THREADS 4
#define TT_N       4096
typedef struct table_worker {
    test_env env;
    uint16_t x[TT_N], u[TT_N], y[3][TT_N];
    bicl_status st[3];
} table_worker;

static void *table_worker_main(void *arg)
{
    table_worker *w = arg;
    cl_context clc = bicl_context_cl_context(w->env.ctx);
    cl_int err = CL_SUCCESS;
    size_t bytes = TT_N * 2, shape[1] = {TT_N};
    cl_mem mx = clCreateBuffer(clc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, w->x, &err);
    cl_mem mu = clCreateBuffer(clc, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, w->u, &err);
    cl_mem my = clCreateBuffer(clc, CL_MEM_READ_WRITE, bytes, NULL, &err);
    cl_command_queue q = clCreateCommandQueue(clc, bicl_context_device(w->env.ctx), 0, &err);
    for (int k = 0; k < 3; ++k)
        w->st[k] = BICL_ERR_OPENCL;
    if (!mx || !mu || !my || !q)
        goto done;
    bicl_tensor tx = bicl_tensor_contiguous(mx, BICL_BF16, 0, 1, shape);
    bicl_tensor tu = bicl_tensor_contiguous(mu, BICL_BF16, 0, 1, shape);
    bicl_tensor ty = bicl_tensor_contiguous(my, BICL_BF16, 0, 1, shape);
    bicl_tensor txh = tx, tyh = ty;
    txh.dtype = tyh.dtype = BICL_F16;
    bicl_glu_params round = {.round_act_to_storage = 1};
    for (int k = 0; k < 3; ++k) {
        if (k == 0)
            w->st[k] = bicl_unary(w->env.ctx, q, BICL_UNARY_SILU, NULL, &tx, &ty, 0, NULL, NULL);
        else if (k == 1)
            w->st[k] = bicl_unary(w->env.ctx, q, BICL_UNARY_GELU, NULL, &txh, &tyh, 0, NULL, NULL);
        else
            w->st[k] =
                bicl_glu(w->env.ctx, q, BICL_GLU_SWIGLU, &round, &tx, &tu, &ty, 0, NULL, NULL);
        if (w->st[k] == BICL_SUCCESS &&
            clEnqueueReadBuffer(q, my, CL_TRUE, 0, bytes, w->y[k], 0, NULL, NULL) != CL_SUCCESS)
            w->st[k] = BICL_ERR_OPENCL;
    }
done:
    if (q)
        clReleaseCommandQueue(q);
    if (mx)
        clReleaseMemObject(mx);
    if (mu)
        clReleaseMemObject(mu);
    if (my)
        clReleaseMemObject(my);
    return NULL;
}

static void act_tables_first_use_from_threads(void **state)
{
    test_env *env = *state;
    test_env on = env_with_tables(env, "auto");
    static table_worker ws[TT_THREADS];
    pthread_t th[TT_THREADS];
    for (int t = 0; t < TT_THREADS; ++t) {
        ws[t].env = on;
        uint64_t s = 99 + (uint64_t)t;
        for (size_t i = 0; i < TT_N; ++i) {
            ws[t].x[i] = (uint16_t)(test_rand(&s) >> 48);
            ws[t].u[i] = (uint16_t)(test_rand(&s) >> 48);
        }
    }
    for (int t = 0; t < TT_THREADS; ++t)
        assert_int_equal(pthread_create(&th[t], NULL, table_worker_main, &ws[t]), 0);
    for (int t = 0; t < TT_THREADS; ++t)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    bicl_glu_params round = {.round_act_to_storage = 1};
    uint16_t want[TT_N];
    for (int t = 0; t < TT_THREADS; ++t) {
        for (int k = 0; k < 3; ++k)
            if (ws[t].st[k] != BICL_SUCCESS)
                fail_msg("thread %d op %d: %s", t, k, bicl_status_string(ws[t].st[k]));
        bicl_ref_unary(BICL_UNARY_SILU, NULL, BICL_BF16, ws[t].x, BICL_BF16, want, TT_N);
        test_assert_bits_equal(ws[t].y[0], want, TT_N, 2, "silu bf16 from a thread");
        bicl_ref_unary(BICL_UNARY_GELU, NULL, BICL_F16, ws[t].x, BICL_F16, want, TT_N);
        test_assert_bits_equal(ws[t].y[1], want, TT_N, 2, "gelu f16 from a thread");
        bicl_ref_glu(BICL_GLU_SWIGLU, &round, BICL_BF16, ws[t].x, ws[t].u, BICL_BF16, want, TT_N);
        test_assert_bits_equal(ws[t].y[2], want, TT_N, 2, "swiglu bf16 from a thread");
    }
    size_t tables = 0;
    unsigned long launches = 0;
    table_counts(&on, &tables, &launches);
    assert_int_equal(tables, 3);
    assert_int_equal(launches, 3 * TT_THREADS);
    size_t live = 0, pooled = 0;
    bicl_kernel_counts(on.ctx, &live, &pooled);
    assert_int_equal(live, pooled);
    bicl_context_free(on.ctx);
}

/* ------------------------------------------------------------- bad input */

/* ------------------------------------------------------- the fix-up form */
/* A context like env's with $BICL_ACT_FORM = form ("fixup" or "plain") and the lookup
 * tables off, so that 16-bit inputs are computed too. */
static test_env env_with_act_form(const test_env *env, const char *form)
{
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ACT_TABLES, "off"), BICL_SUCCESS);
    test_env e = test_env_with_var(env, "BICL_ACT_FORM", form, o);
    bicl_options_free(o);
    return e;
}

/* Inputs that the fast forms decline as well as accept, interleaved so that every group
 * of work-items holds both: random bit patterns (NaNs, infinities, zeros, denormals,
 * huge and tiny values), values in [-12, 12) (the common ranges), the ends of the common
 * ranges (cl/bicl_math_f32.h: 2^-60, 2^-12, 9.1, 10, -11, 18, 30, -80, -86, -104, -200,
 * and gelu (erf)'s 5.5 and -14.5)
 * and values in [-250, 40) (results that leave the normal range below -80). A 16-bit
 * input takes the f32 pattern's high half, rounded down: bf16 keeps the ranges, f16's
 * patterns are random bits. */
static void fill_declines(bicl_dtype dt, void *p, size_t n, uint64_t seed)
{
    static const float edges[] = {0x1p-60f, 0x1p-61f,  0x1p-12f, 0x1p-13f,   9.1f,   9.09f,
                                  10.0f,    9.99f,     -11.0f,   -10.99f,    18.0f,  18.01f,
                                  30.0f,    30.01f,    -80.0f,   -80.01f,    -86.0f, -86.01f,
                                  -104.0f,  -104.01f,  -200.0f,  -200.01f,   0.0f,   -0.0f,
                                  1.0f,     0x1p-149f, 5.5f,     5.4999995f, -14.5f, -14.499999f};
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        uint32_t r = (uint32_t)test_rand(&s);
        float u = (float)(r >> 8) * 0x1p-24f, f;
        switch (i % 4) {
        case 0:
            memcpy(&f, &r, 4);
            break;
        case 1:
            f = u * 24.0f - 12.0f;
            break;
        case 2:
            f = edges[(i / 4) % (sizeof edges / sizeof edges[0])] * ((r & 1) ? -1.0f : 1.0f);
            break;
        default:
            f = u * 290.0f - 250.0f;
        }
        uint32_t b;
        memcpy(&b, &f, 4);
        if (dt == BICL_F32)
            memcpy((char *)p + i * 4, &b, 4);
        else
            ((uint16_t *)p)[i] = (uint16_t)(b >> 16);
    }
}

/* case c with y and its input a (x; gate or up for a gated unit) in one buffer of n
 * elements, which comes back in got */
static void run_in_place(test_env *e, const op_case *c, int a, void *const *in, size_t n, void *got)
{
    size_t shape[1] = {n};
    test_buf b[2];
    bicl_tensor t[2];
    for (int i = 0; i < c->n_in; ++i) {
        b[i] = test_buf_new(e, bicl_dtype_size(c->in[i]), n, in[i]);
        t[i] = test_view(&b[i], c->in[i], 0, 1, shape);
    }
    bicl_status st = run_device(e, c, t, &t[a]);
    if (st != BICL_SUCCESS)
        fail_msg("%s in place: %s: %s", c->name, bicl_status_string(st), bicl_last_error(NULL));
    test_buf_read(e, &b[a], got);
    for (int i = 0; i < c->n_in; ++i)
        test_buf_free(&b[i]);
}

/* The fix-up kernel form (cl/bicl_kernel.h, BICL_ROWS_F_1_1 / _2_1) and the plain one
 * give the reference's bits for every op with a fast form, f32, bf16 and f16, on inputs
 * it declines and accepts side by side: flat with offsets and a partial last group, rows
 * with a pitch, two work-group sizes, in place. Every case must have launched fix-up
 * kernels in the fix-up context, and the plain context none, so the comparison is between
 * the two forms for each op. */
static void fixup_and_plain_forms_give_the_same_bits(void **state)
{
    test_env *env = *state;
    static op_case cs[600];
    size_t nc = all_cases(cs, 600);
    static const char *forms[2] = {"fixup", "plain"};
    test_env e[2] = {env_with_act_form(env, forms[0]), env_with_act_form(env, forms[1])};
    size_t tested = 0;
    for (size_t i = 0; i < nc; ++i) {
        const op_case *c = &cs[i];
        const bicl_op_info *info = c->kind == K_UNARY ? bicl_unary_info(c->code)
                                   : c->kind == K_GLU ? bicl_glu_info(c->code)
                                                      : NULL;
        bool same = c->in[0] == c->out[0] && c->in[c->n_in - 1] == c->out[0];
        if (!bicl_op_has_fast(info) || !same ||
            (c->kind == K_GLU && c->flag == BICL_GLU_ROUND_ONCE))
            continue;
        ++tested;
        unsigned long fix_before = bicl_fixup_launches(e[0].ctx);
        void *in[2];
        for (int k = 0; k < c->n_in; ++k) {
            in[k] = malloc(4099 * bicl_dtype_size(c->in[k]));
            assert_non_null(in[k]);
            fill_declines(c->in[k], in[k], 4099, 300 + i * 7 + (size_t)k);
        }
        size_t es = bicl_dtype_size(c->out[0]);
        void *ref = malloc(4099 * es), *got = malloc(4099 * es);
        assert_non_null(ref);
        assert_non_null(got);
        run_reference(c, in, &ref, 4099);
        for (int f = 0; f < 2; ++f) {
            /* one element per work-item, the variants the fix-up form replaces */
            for (int g = 0; g < 2; ++g) {
                bicl_variant var = {1, 1, g ? 64 : 0};
                assert_int_equal(bicl_context_set_variant(e[f].ctx, &var), BICL_SUCCESS);
                char what[64];
                snprintf(what, sizeof what, "%s form, variant 1/1/%d", forms[f], g ? 64 : 0);
                check_case(&e[f], c, in, 4099, (size_t)(g * 3), what);
                check_case_rows(&e[f], c, in, 13, 37, 43, 5, what);
            }
            /* y in place of each input, at the last variant (one element per work-item,
             * so the fix-up form on every profile): the fix-up form keeps a declined
             * element's input in y until its second side reads it (a gated unit: gate or
             * up) */
            for (int a = 0; a < c->n_in; ++a) {
                run_in_place(&e[f], c, a, in, 4099, got);
                char what[160];
                snprintf(what, sizeof what, "%.96s in place of input %d, %s form", c->name, a,
                         forms[f]);
                test_assert_bits_equal(got, ref, 4099, es, what);
            }
            assert_int_equal(bicl_context_set_variant(e[f].ctx, NULL), BICL_SUCCESS);
        }
        /* 4 + n_in launches of each form: flat and rows at two group sizes, in place of
         * each input */
        if (bicl_fixup_launches(e[0].ctx) != fix_before + 4 + (unsigned long)c->n_in)
            fail_msg("%s: %lu fix-up launches, %d expected", c->name,
                     bicl_fixup_launches(e[0].ctx) - fix_before, 4 + c->n_in);
        free(ref);
        free(got);
        for (int k = 0; k < c->n_in; ++k)
            free(in[k]);
    }
    /* silu, sigmoid, tanh, gelu_tanh, gelu_quick, softcap; swiglu, geglu_tanh, mul_and_silu
     * in two rounding modes each; f32, bf16 and f16 */
    assert_true(tested >= 3 * (6 + 3 * 2));
    assert_int_equal(bicl_fixup_launches(e[1].ctx), 0);
    for (int f = 0; f < 2; ++f)
        bicl_context_free(e[f].ctx);
}

static void bad_inputs_write_nothing(void **state)
{
    test_env *env = *state;
    const size_t R = 4, C = 8;
    float xs[32];
    test_fill_f32_bits((uint32_t *)xs, 32, 3);
    test_buf bx = test_buf_new(env, 4, 32, xs), by = test_buf_new(env, 4, 32, NULL);
    test_buf bv = test_buf_new(env, 4, 16, NULL), bm = test_buf_new(env, 4, 32, NULL);
    size_t sh[2] = {R, C}, s5[1] = {5}, s8[1] = {C}, sbad[2] = {3, C};
    bicl_tensor x = test_view(&bx, BICL_F32, 0, 2, sh), y = test_view(&by, BICL_F32, 0, 2, sh);
    bicl_tensor v5 = test_view(&bv, BICL_F32, 0, 1, s5), v8 = test_view(&bv, BICL_F32, 0, 1, s8);
    bicl_tensor mask_f32 = test_view(&bm, BICL_F32, 0, 2, sh);
    bicl_tensor mask_bad = test_view(&bm, BICL_U8, 0, 2, sbad);
    bicl_tensor v8_i16 = v8;
    v8_i16.dtype = BICL_I32;
    bicl_tensor y_shift = y;
    y_shift.mem = bx.mem; /* overlaps x, shifted */
    y_shift.offset = x.offset + 1;
    bicl_tensor x_wide = test_view(&bx, BICL_F32, 0, 2, sh);
    x_wide.shape[1] = 7; /* odd last dim for the fused GLU */
    bicl_tensor y_row = y;
    y_row.shape[0] = 3;
    bicl_tensor y_half = y; /* [4, 4]: bicl_glu_fused's output for x [4, 8] */
    y_half.shape[1] = C / 2;
    y_half.stride[0] = C / 2;
    unsigned char before[32 * 4 + 2 * CANARY_BYTES], after[sizeof before];
    test_buf_read_all(env, &by, before);
    bicl_context *c = env->ctx;
    cl_command_queue q = env->queue;
    bicl_unary_params bad_cap = {.softcap = 0.0f}, nan_cap = {.softcap = NAN};
    bicl_glu_params bad_limit = {.alpha = 1.702f, .limit = -1.0f},
                    bad_round = {.round_act_to_storage = 3}, bad_rounding = {.rounding = -1},
                    once = {.rounding = BICL_GLU_ROUND_ONCE},
                    inf_threshold = {.threshold = INFINITY};
    bicl_unary_params nan_eps = {.alpha_p = 0.8f, .alpha_n = 0.8f, .beta = 0.5f, .eps = NAN};
    struct {
        const char *what;
        bicl_status got, want;
    } cases[] = {
        {"bias of wrong length", bicl_bias_add(c, q, &x, &v5, &y, 0, NULL, NULL),
         BICL_ERR_SHAPE_MISMATCH},
        {"bias not a vector", bicl_bias_add(c, q, &x, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_RANK},
        {"scale vector of wrong dtype", bicl_scale_channels(c, q, &x, &v8_i16, &y, 0, NULL, NULL),
         BICL_ERR_UNSUPPORTED_DTYPE},
        {"broadcast that does not match",
         bicl_binary(c, q, BICL_BINARY_ADD, &x, &v5, &y, 0, NULL, NULL), BICL_ERR_SHAPE_MISMATCH},
        {"mask of wrong dtype", bicl_mask_fill(c, q, &x, &mask_f32, 0.0f, &y, 0, NULL, NULL),
         BICL_ERR_UNSUPPORTED_DTYPE},
        {"mask of wrong shape", bicl_mask_fill(c, q, &x, &mask_bad, 0.0f, &y, 0, NULL, NULL),
         BICL_ERR_SHAPE_MISMATCH},
        {"aliasing output", bicl_unary(c, q, BICL_UNARY_SILU, NULL, &x, &y_shift, 0, NULL, NULL),
         BICL_ERR_ALIASING},
        {"softcap 0", bicl_unary(c, q, BICL_UNARY_SOFTCAP, &bad_cap, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"softcap NaN", bicl_unary(c, q, BICL_UNARY_SOFTCAP, &nan_cap, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"softcap without params",
         bicl_unary(c, q, BICL_UNARY_SOFTCAP, NULL, &x, &y, 0, NULL, NULL), BICL_ERR_NULL_POINTER},
        {"unknown unary op", bicl_unary(c, q, (bicl_unary_op)42, NULL, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_ENUM},
        {"swiglu_oai negative limit",
         bicl_glu(c, q, BICL_GLU_SWIGLU_OAI, &bad_limit, &x, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"leaky_relu without params",
         bicl_unary(c, q, BICL_UNARY_LEAKY_RELU, NULL, &x, &y, 0, NULL, NULL),
         BICL_ERR_NULL_POINTER},
        {"xielu eps NaN", bicl_unary(c, q, BICL_UNARY_XIELU, &nan_eps, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"fatrelu without params",
         bicl_glu(c, q, BICL_GLU_FATRELU, NULL, &x, &x, &y, 0, NULL, NULL), BICL_ERR_NULL_POINTER},
        {"fatrelu threshold inf",
         bicl_glu(c, q, BICL_GLU_FATRELU, &inf_threshold, &x, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"round flag 3", bicl_glu(c, q, BICL_GLU_SWIGLU, &bad_round, &x, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"rounding -1", bicl_glu(c, q, BICL_GLU_SWIGLU, &bad_rounding, &x, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"fused rounding 3",
         bicl_glu_fused(c, q, BICL_GLU_SWIGLU, &bad_round, BICL_GLU_HALVES, &x, &y_half, 0, NULL,
                        NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"geglu once", bicl_glu(c, q, BICL_GLU_GEGLU, &once, &x, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"fused glu odd width",
         bicl_glu_fused(c, q, BICL_GLU_SWIGLU, NULL, BICL_GLU_HALVES, &x_wide, &y, 0, NULL, NULL),
         BICL_ERR_SHAPE_MISMATCH},
        {"axpby inf alpha", bicl_axpby(c, q, INFINITY, &x, 1.0f, &x, &y, 0, NULL, NULL),
         BICL_ERR_INVALID_PARAMETER},
        {"scale NaN", bicl_scale(c, q, NAN, &x, &y, 0, NULL, NULL), BICL_ERR_INVALID_PARAMETER},
        {"residual not f32", bicl_residual_add(c, q, &mask_bad, &x, &y, &y, 0, NULL, NULL),
         BICL_ERR_UNSUPPORTED_DTYPE},
        {"residual outputs alias", bicl_residual_add(c, q, &x, &x, &y, &y, 0, NULL, NULL),
         BICL_ERR_ALIASING},
        {"causal on a vector", bicl_mask_fill_causal(c, q, &v8, 0, 0.0f, &v8, 0, NULL, NULL),
         BICL_ERR_INVALID_RANK},
        {"x and y shapes differ",
         bicl_unary(c, q, BICL_UNARY_RELU, NULL, &x, &y_row, 0, NULL, NULL),
         BICL_ERR_SHAPE_MISMATCH},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i)
        if (cases[i].got != cases[i].want)
            fail_msg("%s: %s, want %s", cases[i].what, bicl_status_string(cases[i].got),
                     bicl_status_string(cases[i].want));
    clFinish(q);
    test_buf_read_all(env, &by, after);
    assert_memory_equal(before, after, sizeof before);
    test_buf_free(&bx);
    test_buf_free(&by);
    test_buf_free(&bv);
    test_buf_free(&bm);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(special_value_semantics),
        cmocka_unit_test(known_answers),
        cmocka_unit_test(glu_rounding_once),
        cmocka_unit_test(broadcast_bias_scale_and_fused_glu),
        cmocka_unit_test(bad_inputs_write_nothing),
        cmocka_unit_test(every_op_matches_reference),
        cmocka_unit_test(kernel_names_follow_each_call),
        cmocka_unit_test(every_variant_gives_the_same_bits),
        cmocka_unit_test(act_table_option_and_path),
        cmocka_unit_test(act_tables_equal_compute_on_every_input),
        cmocka_unit_test(act_tables_first_use_from_threads),
        cmocka_unit_test(fixup_and_plain_forms_give_the_same_bits),
    };
    return test_run_tests("pointwise", tests, test_env_setup, test_env_teardown);
}
