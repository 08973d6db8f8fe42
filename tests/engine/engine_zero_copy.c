/* engine_zero_copy.c - every op family on buffers an engine makes over its own memory:
 * CL_MEM_USE_HOST_PTR at every element-aligned address from 0 to 64 bytes past a page,
 * and sub-buffers of such buffers, under every variant. OpenCL promises such buffers
 * element alignment only; bicl must give the reference bits on all of them (design
 * rule 4), write nothing outside the outputs, and never fault. */
#include "engine.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SLOT         (64u * 1024u) /* arena bytes per operand (page multiple) */
#define MAX_OPS      6
#define CANARY       0xa5
#define MISALIGN_MAX 64

typedef enum placement { DIRECT = 0, SUB_BUFFER = 1 } placement;

/* The operands of one op call, each in its own slot of a page-aligned arena. */
typedef struct zc {
    engine *e;
    unsigned char *arena;
    size_t misalign; /* bytes past the slot's page of operand 0 */
    placement place;
    int n;
    cl_mem mem[MAX_OPS], parent[MAX_OPS];
    size_t at[MAX_OPS], bytes[MAX_OPS]; /* region of the operand in the arena */
    char what[160];
} zc;

static void zc_begin(zc *z, const char *op, bicl_dtype dt)
{
    memset(z->arena, CANARY, (size_t)MAX_OPS * SLOT);
    z->n = 0;
    snprintf(z->what, sizeof z->what, "%s %s, %s at +%zu bytes", op, bicl_dtype_name(dt),
             z->place == DIRECT ? "USE_HOST_PTR" : "sub-buffer", z->misalign);
}

/* A view over a new buffer whose device address is z->misalign (+ 4 bytes per earlier
 * operand, mod 68: every operand misaligned differently) past a page. */
static bicl_tensor zc_operand(zc *z, bicl_dtype dt, int rank, const size_t *shape, const void *init,
                              bool output)
{
    assert_true(z->n < MAX_OPS);
    size_t n = 1;
    for (int d = 0; d < rank; ++d)
        n *= shape[d];
    size_t es = bicl_dtype_size(dt), bytes = n * es;
    size_t mis = (z->misalign + 4u * (size_t)z->n) % (MISALIGN_MAX + 4);
    mis -= mis % es;
    size_t lead = z->place == SUB_BUFFER ? z->e->base_align : 0;
    assert_true(lead + mis + bytes + 256 <= SLOT);
    size_t at = (size_t)z->n * SLOT + lead + mis;
    memcpy(z->arena + at, init, bytes);
    cl_mem_flags rw = output ? CL_MEM_READ_WRITE : CL_MEM_READ_ONLY;
    cl_mem m = engine_host_buffer(z->e, rw, z->arena + at - lead, lead + bytes);
    z->parent[z->n] = NULL;
    if (z->place == SUB_BUFFER) {
        cl_buffer_region r = {lead, bytes};
        cl_int err = CL_SUCCESS;
        z->parent[z->n] = m;
        m = clCreateSubBuffer(m, rw, CL_BUFFER_CREATE_TYPE_REGION, &r, &err);
        ENGINE_CL(err);
    }
    z->mem[z->n] = m;
    z->at[z->n] = at;
    z->bytes[z->n] = bytes;
    z->n++;
    return engine_view(m, dt, 0, rank, shape);
}

/* Waits, compares output t with want, and checks that nothing outside the operands'
 * regions of the arena changed. */
static void zc_check(zc *z, const bicl_tensor *t, const void *want, size_t n)
{
    ENGINE_CL(clFinish(z->e->queue));
    size_t es = bicl_dtype_size(t->dtype);
    void *got = malloc(n * es);
    assert_non_null(got);
    engine_read(z->e, t->mem, 0, n * es, got);
    engine_assert_bits(got, want, n, es, z->what);
    free(got);
    for (int o = 0; o < z->n; ++o) {
        const unsigned char *slot = z->arena + (size_t)o * SLOT;
        size_t begin = z->at[o] - (size_t)o * SLOT, end = begin + z->bytes[o];
        for (size_t b = 0; b < SLOT; ++b)
            if ((b < begin || b >= end) && slot[b] != CANARY)
                fail_msg("%s: byte %zu of operand %d's slot (outside it) was written", z->what, b,
                         o);
    }
}

static void zc_end(zc *z)
{
    ENGINE_CL(clFinish(z->e->queue));
    for (int o = 0; o < z->n; ++o) {
        clReleaseMemObject(z->mem[o]);
        if (z->parent[o])
            clReleaseMemObject(z->parent[o]);
    }
    z->n = 0;
}

/* Inputs of the element count an op needs, and room for its reference. */
typedef struct data {
    unsigned char a[8192], b[8192], c[8192], want[8192], want2[8192];
} data;

#define N_FLAT 1003 /* not a multiple of any vector width: the tail runs too */

/* ------------------------------------------------------------------ ops */

static void op_cast(zc *z, bicl_dtype dt, data *d)
{
    bicl_dtype to = dt == BICL_F32 ? BICL_BF16 : BICL_F32;
    size_t n = N_FLAT, sh[1] = {n};
    engine_fill(dt, d->a, n, 1);
    zc_begin(z, "cast", dt);
    bicl_tensor x = zc_operand(z, dt, 1, sh, d->a, false), y = zc_operand(z, to, 1, sh, d->b, true);
    ENGINE_OK(bicl_cast(z->e->bicl, z->e->queue, &x, &y, 0, NULL, NULL));
    ENGINE_OK(bicl_ref_cast(dt, d->a, to, d->want, n));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_unary(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[2] = {17, 59}; /* 17 * 59 = 1003 */
    engine_fill(dt, d->a, n, 2);
    zc_begin(z, "silu", dt); /* 16-bit inputs read the lookup table */
    bicl_tensor x = zc_operand(z, dt, 2, sh, d->a, false), y = zc_operand(z, dt, 2, sh, d->b, true);
    ENGINE_OK(bicl_unary(z->e->bicl, z->e->queue, BICL_UNARY_SILU, NULL, &x, &y, 0, NULL, NULL));
    ENGINE_OK(bicl_ref_unary(BICL_UNARY_SILU, NULL, dt, d->a, dt, d->want, n));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_glu(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[1] = {n};
    engine_fill(dt, d->a, n, 3);
    engine_fill(dt, d->b, n, 4);
    zc_begin(z, "swiglu", dt);
    bicl_tensor g = zc_operand(z, dt, 1, sh, d->a, false),
                u = zc_operand(z, dt, 1, sh, d->b, false), y = zc_operand(z, dt, 1, sh, d->c, true);
    ENGINE_OK(bicl_glu(z->e->bicl, z->e->queue, BICL_GLU_SWIGLU, NULL, &g, &u, &y, 0, NULL, NULL));
    ENGINE_OK(bicl_ref_glu(BICL_GLU_SWIGLU, NULL, dt, d->a, d->b, dt, d->want, n));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

/* gate | up halves of rows of 2F: the reference gets them split. */
static void op_glu_fused(zc *z, bicl_dtype dt, data *d)
{
    size_t rows = 7, f = 36, es = bicl_dtype_size(dt), xs[2] = {rows, 2 * f}, ys[2] = {rows, f};
    engine_fill(dt, d->a, rows * 2 * f, 5);
    for (size_t r = 0; r < rows; ++r) {
        memcpy(d->b + r * f * es, d->a + (r * 2 * f) * es, f * es);
        memcpy(d->c + r * f * es, d->a + (r * 2 * f + f) * es, f * es);
    }
    ENGINE_OK(bicl_ref_glu(BICL_GLU_GEGLU, NULL, dt, d->b, d->c, dt, d->want, rows * f));
    zc_begin(z, "geglu fused", dt);
    bicl_tensor x = zc_operand(z, dt, 2, xs, d->a, false),
                y = zc_operand(z, dt, 2, ys, d->want2, true);
    ENGINE_OK(bicl_glu_fused(z->e->bicl, z->e->queue, BICL_GLU_GEGLU, NULL, BICL_GLU_HALVES, &x, &y,
                             0, NULL, NULL));
    zc_check(z, &y, d->want, rows * f);
    zc_end(z);
}

static void op_binary(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[1] = {n};
    engine_fill(dt, d->a, n, 6);
    engine_fill(BICL_F32, d->b, n, 7); /* a 32-bit operand beside a 16-bit one */
    zc_begin(z, "add", dt);
    bicl_tensor a = zc_operand(z, dt, 1, sh, d->a, false),
                b = zc_operand(z, BICL_F32, 1, sh, d->b, false),
                y = zc_operand(z, dt, 1, sh, d->c, true);
    ENGINE_OK(bicl_binary(z->e->bicl, z->e->queue, BICL_BINARY_ADD, &a, &b, &y, 0, NULL, NULL));
    ENGINE_OK(bicl_ref_binary(BICL_BINARY_ADD, dt, d->a, BICL_F32, d->b, dt, d->want, n));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_axpby(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[1] = {n};
    engine_fill(dt, d->a, n, 8);
    engine_fill(dt, d->b, n, 9);
    zc_begin(z, "axpby", dt);
    bicl_tensor a = zc_operand(z, dt, 1, sh, d->a, false),
                b = zc_operand(z, dt, 1, sh, d->b, false), y = zc_operand(z, dt, 1, sh, d->c, true);
    ENGINE_OK(bicl_axpby(z->e->bicl, z->e->queue, 0.75f, &a, -1.25f, &b, &y, 0, NULL, NULL));
    ENGINE_OK(bicl_ref_axpby(0.75f, dt, d->a, -1.25f, dt, d->b, dt, d->want, n));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_residual(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[1] = {n};
    engine_fill(BICL_F32, d->a, n, 10);
    engine_fill(dt, d->b, n, 11);
    ENGINE_OK(bicl_ref_residual_add((const float *)(const void *)d->a, dt, d->b,
                                    (float *)(void *)d->want2, dt, d->want, n));
    zc_begin(z, "residual add", dt);
    bicl_tensor r = zc_operand(z, BICL_F32, 1, sh, d->a, false),
                x = zc_operand(z, dt, 1, sh, d->b, false),
                ro = zc_operand(z, BICL_F32, 1, sh, d->c, true),
                y = zc_operand(z, dt, 1, sh, d->c, true);
    ENGINE_OK(bicl_residual_add(z->e->bicl, z->e->queue, &r, &x, &ro, &y, 0, NULL, NULL));
    zc_check(z, &y, d->want, n);
    zc_check(z, &ro, d->want2, n);
    zc_end(z);
}

static void op_scale(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[1] = {n};
    engine_fill(dt, d->a, n, 12);
    zc_begin(z, "scale", dt);
    bicl_tensor x = zc_operand(z, dt, 1, sh, d->a, false), y = zc_operand(z, dt, 1, sh, d->b, true);
    ENGINE_OK(bicl_scale(z->e->bicl, z->e->queue, 0.125f, &x, &y, 0, NULL, NULL));
    ENGINE_OK(bicl_ref_scale(0.125f, dt, d->a, dt, d->want, n));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

/* bias add and per-channel scale: the rows kernels (the vector broadcasts along rows);
 * the reference is add / mul with the vector repeated per row (docs/numerics.md). */
static void op_channels(zc *z, bicl_dtype dt, data *d, int mul)
{
    size_t rows = 9, c = 96, n = rows * c, xs[2] = {rows, c}, vs[1] = {c};
    size_t es = bicl_dtype_size(dt);
    engine_fill(dt, d->a, n, 13);
    engine_fill(dt, d->b, c, 14);
    for (size_t r = 0; r < rows; ++r)
        memcpy(d->want2 + r * c * es, d->b, c * es);
    ENGINE_OK(bicl_ref_binary(mul ? BICL_BINARY_MUL : BICL_BINARY_ADD, dt, d->a, dt, d->want2, dt,
                              d->want, n));
    zc_begin(z, mul ? "scale channels" : "bias add", dt);
    bicl_tensor x = zc_operand(z, dt, 2, xs, d->a, false),
                v = zc_operand(z, dt, 1, vs, d->b, false), y = zc_operand(z, dt, 2, xs, d->c, true);
    if (mul)
        ENGINE_OK(bicl_scale_channels(z->e->bicl, z->e->queue, &x, &v, &y, 0, NULL, NULL));
    else
        ENGINE_OK(bicl_bias_add(z->e->bicl, z->e->queue, &x, &v, &y, 0, NULL, NULL));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_bias(zc *z, bicl_dtype dt, data *d)
{
    op_channels(z, dt, d, 0);
}

static void op_scale_channels(zc *z, bicl_dtype dt, data *d)
{
    op_channels(z, dt, d, 1);
}

static void op_mask(zc *z, bicl_dtype dt, data *d)
{
    size_t n = N_FLAT, sh[1] = {n};
    uint8_t *mask = d->b;
    engine_fill(dt, d->a, n, 15);
    uint64_t s = 16;
    for (size_t i = 0; i < n; ++i)
        mask[i] = (uint8_t)(engine_rand(&s) % 3 == 0);
    ENGINE_OK(bicl_ref_mask_fill(dt, d->a, mask, -1e30f, dt, d->want, n));
    zc_begin(z, "mask fill", dt);
    bicl_tensor x = zc_operand(z, dt, 1, sh, d->a, false),
                m = zc_operand(z, BICL_U8, 1, sh, mask, false),
                y = zc_operand(z, dt, 1, sh, d->c, true);
    ENGINE_OK(bicl_mask_fill(z->e->bicl, z->e->queue, &x, &m, -1e30f, &y, 0, NULL, NULL));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_mask_lengths(zc *z, bicl_dtype dt, data *d)
{
    size_t rows = 11, c = 40, n = rows * c, xs[2] = {rows, c}, ls[1] = {rows};
    int32_t len[11];
    uint8_t *select = d->want2;
    engine_fill(dt, d->a, n, 17);
    for (size_t r = 0; r < rows; ++r) {
        len[r] = (int32_t)(r * 5) - 3;
        for (size_t k = 0; k < c; ++k)
            select[r * c + k] = (uint8_t)((long)k >= (long)len[r]);
    }
    ENGINE_OK(bicl_ref_mask_fill(dt, d->a, select, 0.0f, dt, d->want, n));
    zc_begin(z, "mask lengths", dt);
    bicl_tensor x = zc_operand(z, dt, 2, xs, d->a, false),
                l = zc_operand(z, BICL_I32, 1, ls, len, false),
                y = zc_operand(z, dt, 2, xs, d->c, true);
    ENGINE_OK(bicl_mask_fill_lengths(z->e->bicl, z->e->queue, &x, &l, 0.0f, &y, 0, NULL, NULL));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

static void op_mask_causal(zc *z, bicl_dtype dt, data *d)
{
    size_t b = 3, r = 13, c = 21, n = b * r * c, sh[3] = {b, r, c};
    engine_fill(dt, d->a, n, 18);
    ENGINE_OK(bicl_ref_mask_fill_causal(dt, d->a, r, c, 4, -1e30f, dt, d->want, n));
    zc_begin(z, "mask causal", dt);
    bicl_tensor x = zc_operand(z, dt, 3, sh, d->a, false), y = zc_operand(z, dt, 3, sh, d->c, true);
    ENGINE_OK(bicl_mask_fill_causal(z->e->bicl, z->e->queue, &x, 4, -1e30f, &y, 0, NULL, NULL));
    zc_check(z, &y, d->want, n);
    zc_end(z);
}

/* q [T, 3, 64] and k [T, 2, 64] rotated out of place, then q in place. */
static bicl_rope_plan *zc_plan;

static void op_rope(zc *z, bicl_dtype dt, data *d)
{
    enum { T = 5, HQ = 3, HK = 2, D = 64 };
    size_t es = bicl_dtype_size(dt), qs[3] = {T, HQ, D}, ks[3] = {T, HK, D}, ps[1] = {T};
    int32_t pos[T] = {0, 1, 17, 63, 40};
    engine_fill(dt, d->a, T * HQ * D, 19);
    engine_fill(dt, d->b, T * HK * D, 20);
    int sources = bicl_context_has_fp64(z->e->bicl) ? 2 : 1;
    for (int si = 0; si < sources; ++si) {
        bicl_rope_source src = si ? BICL_ROPE_SOURCE_INLINE : BICL_ROPE_SOURCE_TABLE;
        for (size_t t = 0; t < T; ++t)
            for (size_t h = 0; h < HQ + HK; ++h) {
                const unsigned char *x =
                    h < HQ ? d->a + ((t * HQ + h) * D) * es : d->b + ((t * HK + h - HQ) * D) * es;
                unsigned char *w = h < HQ ? d->want + ((t * HQ + h) * D) * es
                                          : d->want2 + ((t * HK + h - HQ) * D) * es;
                ENGINE_OK(bicl_ref_rope_head(zc_plan, src, 0, pos[t], dt, x, dt, w));
            }
        zc_begin(z, si ? "rope inline" : "rope table", dt);
        bicl_tensor p = zc_operand(z, BICL_I32, 1, ps, pos, false),
                    qi = zc_operand(z, dt, 3, qs, d->a, false),
                    ki = zc_operand(z, dt, 3, ks, d->b, false),
                    qo = zc_operand(z, dt, 3, qs, d->c, true),
                    ko = zc_operand(z, dt, 3, ks, d->c, true);
        ENGINE_OK(bicl_rope_apply(z->e->bicl, z->e->queue, zc_plan, src, 0, &p, &qi, &qo, &ki, &ko,
                                  0, NULL, NULL));
        zc_check(z, &qo, d->want, T * HQ * D);
        zc_check(z, &ko, d->want2, T * HK * D);
        zc_end(z);
        /* in place */
        zc_begin(z, si ? "rope inline in place" : "rope table in place", dt);
        p = zc_operand(z, BICL_I32, 1, ps, pos, false);
        qi = zc_operand(z, dt, 3, qs, d->a, true);
        ENGINE_OK(bicl_rope_apply(z->e->bicl, z->e->queue, zc_plan, src, 0, &p, &qi, &qi, NULL,
                                  NULL, 0, NULL, NULL));
        zc_check(z, &qi, d->want, T * HQ * D);
        zc_end(z);
    }
}

static void op_positions(zc *z, bicl_dtype dt, data *d)
{
    (void)dt;
    int32_t cu[5] = {0, 11, 27, 40, 59}, start[4] = {0, 7, 4095, 3};
    int32_t *want = (int32_t *)(void *)d->want, *wpad = (int32_t *)(void *)d->want2;
    size_t cs[1] = {5}, bs[1] = {4}, ts[1] = {59}, ms[2] = {4, 20};
    ENGINE_OK(bicl_ref_positions_packed(cu, 4, start, want, 59));
    uint8_t mask[80];
    for (size_t i = 0; i < 80; ++i)
        mask[i] = (uint8_t)(i % 20 >= 3 + i / 20); /* left padding of 3..6 */
    ENGINE_OK(bicl_ref_positions_padded(mask, BICL_U8, 4, 20, start, wpad));
    zc_begin(z, "positions packed", BICL_I32);
    bicl_tensor c = zc_operand(z, BICL_I32, 1, cs, cu, false),
                s = zc_operand(z, BICL_I32, 1, bs, start, false),
                p = zc_operand(z, BICL_I32, 1, ts, d->c, true);
    ENGINE_OK(bicl_positions_packed(z->e->bicl, z->e->queue, &c, &s, &p, 0, NULL, NULL));
    zc_check(z, &p, want, 59);
    zc_end(z);
    zc_begin(z, "positions padded", BICL_I32);
    bicl_tensor m = zc_operand(z, BICL_U8, 2, ms, mask, false);
    s = zc_operand(z, BICL_I32, 1, bs, start, false);
    p = zc_operand(z, BICL_I32, 2, ms, d->c, true);
    ENGINE_OK(bicl_positions_padded(z->e->bicl, z->e->queue, &m, &s, &p, 0, NULL, NULL));
    zc_check(z, &p, wpad, 80);
    zc_end(z);
}

typedef void (*op_fn)(zc *, bicl_dtype, data *);
static const struct {
    const char *name;
    op_fn fn;
} ops[] = {
    {"cast", op_cast},
    {"unary", op_unary},
    {"glu", op_glu},
    {"glu_fused", op_glu_fused},
    {"binary", op_binary},
    {"axpby", op_axpby},
    {"residual", op_residual},
    {"scale", op_scale},
    {"bias", op_bias},
    {"scale_channels", op_scale_channels},
    {"mask", op_mask},
    {"mask_lengths", op_mask_lengths},
    {"mask_causal", op_mask_causal},
    {"rope", op_rope},
    {"positions", op_positions},
};

/* The variants an engine may force (bicl_context_set_variant); NULL: the profile's. */
static const bicl_variant variants[] = {
    {1, 1, 0}, {4, 1, 0}, {8, 1, 0}, {8, 3, 64}, {4, 8, 32},
};

static void every_op_every_variant_every_address(bicl_dtype dt, void **state)
{
    engine *e = *state;
    zc z = {0};
    z.e = e;
    z.arena = aligned_alloc(4096, (size_t)MAX_OPS * SLOT);
    data *d = calloc(1, sizeof *d);
    assert_true(z.arena && d);
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, 64, 64);
    cfg.theta = 500000.0;
    ENGINE_OK(bicl_rope_plan_create(e->bicl, &cfg, 64, 63, &zc_plan));
    size_t es = bicl_dtype_size(dt), runs = 0;
    for (size_t v = 0; v <= sizeof variants / sizeof variants[0]; ++v) {
        bool profile = v == sizeof variants / sizeof variants[0];
        ENGINE_OK(bicl_context_set_variant(e->bicl, profile ? NULL : &variants[v]));
        for (int place = DIRECT; place <= SUB_BUFFER; ++place)
            for (size_t m = 0; m <= MISALIGN_MAX; m += es) {
                z.place = (placement)place;
                z.misalign = m;
                for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o, ++runs)
                    ops[o].fn(&z, dt, d);
            }
    }
    ENGINE_OK(bicl_context_set_variant(e->bicl, NULL));
    printf("%s: %zu op calls over %zu variants, 2 placements, %zu addresses\n", bicl_dtype_name(dt),
           runs, sizeof variants / sizeof variants[0] + 1, MISALIGN_MAX / es + 1);
    bicl_rope_plan_free(zc_plan);
    free(d);
    free(z.arena);
}

static void f32_operands(void **state)
{
    every_op_every_variant_every_address(BICL_F32, state);
}

static void bf16_operands(void **state)
{
    every_op_every_variant_every_address(BICL_BF16, state);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(f32_operands),
        cmocka_unit_test(bf16_operands),
    };
    return cmocka_run_group_tests_name("engine_zero_copy", tests, engine_setup, engine_teardown);
}
