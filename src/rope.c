/* rope.c - RoPE plans (frequencies and the cos/sin table, computed on the host from
 * cl/bicl_rope_math.h), bicl_rope_apply, the position-id builders and their host
 * references. */
#include "abi.h"
#include "rope.h"
#include "launch.h"
#include "context.h"
#include "program.h"
#include "tensor.h"
#include "context_state.h"
#include "reference.h"
#include "profile.h"
#include "status.h"

#include "bicl_rope_flags.h"
#include "bicl_rope_math.h"
#include "bicl_rope_rotate.h"

#include <limits.h>
#include <stddef.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bicl_rope_plan {
    bicl_context *ctx;
    uint64_t ctx_generation; /* ctx->generation at creation (bicl_rope_plan_owned_by) */
    bicl_rope_config cfg;
    int half;     /* rotary_dim / 2 */
    double *inv;  /* inv_freq[half] */
    float *inv_f; /* RTE float of inv (hf mode) */
    double attn;  /* attention scaling */
    float attn_f;
    int table_positions; /* rows of the table, 0 = none */
    int max_position;    /* inline source limit (inclusive) */
    size_t min_items;    /* work-items that keep the device busy (see rope_launch_shape) */
    cl_mem inv_mem, inv_f_mem, table_mem, err_mem;
    cl_uint err_unread; /* the last take was not read back: the next take adds to it */
};

void bicl_rope_config_defaults(bicl_rope_config *cfg, int head_dim, int rotary_dim)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->struct_size = sizeof *cfg;
    cfg->head_dim = head_dim;
    cfg->rotary_dim = rotary_dim;
    cfg->style = BICL_ROPE_NEOX;
    cfg->theta = 10000.0;
    cfg->type = BICL_ROPE_DEFAULT;
    cfg->truncate = 1;
    cfg->angle_mode = BICL_ROPE_ANGLE_EXACT;
}

void bicl_rope_config_init_sized(bicl_rope_config *cfg, size_t struct_size, int head_dim,
                                 int rotary_dim)
{
    if (!cfg)
        return;
    bicl_rope_config full;
    bicl_rope_config_defaults(&full, head_dim, rotary_dim);
    bicl_abi_store(cfg, struct_size, &full, sizeof full);
}

/* The layout engines built against bicl 0.1 have: up to angle_mode. */
#define ROPE_CONFIG_MIN_SIZE offsetof(bicl_rope_config, rotary_offset)

bicl_status bicl_rope_config_load(const bicl_rope_config *cfg, bicl_rope_config *full)
{
    bicl_rope_config_defaults(full, 0, 0);
    if (!cfg)
        return bicl_fail(BICL_ERR_NULL_POINTER, "rope config is NULL");
    return bicl_abi_load(full, sizeof *full, cfg, ROPE_CONFIG_MIN_SIZE, "bicl_rope_config",
                         BICL_ERR_INVALID_CONFIG);
}

bicl_status bicl_rope_config_store(const bicl_rope_config *full, bicl_rope_config *cfg,
                                   size_t struct_size)
{
    bicl_rope_config defaults;
    bicl_rope_config_defaults(&defaults, full->head_dim, full->rotary_dim);
    if (struct_size < ROPE_CONFIG_MIN_SIZE)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "bicl_rope_config struct_size %zu (this library writes %zu to %zu bytes)",
                         struct_size, (size_t)ROPE_CONFIG_MIN_SIZE, sizeof *full);
    if (!bicl_abi_fits(full, &defaults, sizeof *full, struct_size))
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "this config needs bicl_rope_config fields past the caller's %zu bytes "
                         "(rotary_offset, k_head_dim, k_rotary_offset, rope_angles: rebuild "
                         "against this bicl's header)",
                         struct_size);
    bicl_abi_store(cfg, struct_size, full, sizeof *full);
    return BICL_SUCCESS;
}

static bicl_rope_freq_params to_freq_params(const bicl_rope_config *c)
{
    bicl_rope_freq_params p = bicl_rope_freq_params_default(c->rotary_dim, c->theta);
    static const bicl_rope_scaling map[] = {
        BICL_ROPE_SCALING_NONE,         BICL_ROPE_SCALING_LINEAR,      BICL_ROPE_SCALING_LLAMA3,
        BICL_ROPE_SCALING_YARN,         BICL_ROPE_SCALING_DYNAMIC_NTK, BICL_ROPE_SCALING_LONGROPE,
        BICL_ROPE_SCALING_PROPORTIONAL,
    };
    p.scaling = map[c->type];
    p.factor = c->factor;
    p.low_freq_factor = c->low_freq_factor;
    p.high_freq_factor = c->high_freq_factor;
    p.original_max_position_embeddings = c->original_max_position_embeddings;
    p.max_position_embeddings = c->max_position_embeddings;
    p.beta_fast = c->beta_fast;
    p.beta_slow = c->beta_slow;
    p.mscale = c->mscale;
    p.mscale_all_dim = c->mscale_all_dim;
    p.attention_factor = c->attention_factor;
    p.truncate = c->truncate;
    p.seq_len = c->seq_len;
    p.long_factor = c->long_factor;
    p.short_factor = c->short_factor;
    p.rope_angles = c->rope_angles;
    return p;
}

static const char *freq_check_field(int code)
{
    switch (code) {
    case BICL_ROPE_PARAMS_BAD_DIM:
        return "rotary_dim (must be even and >= 2; >= 4 for dynamic NTK)";
    case BICL_ROPE_PARAMS_BAD_THETA:
        return "theta (must be finite and > 0; > 1 for yarn)";
    case BICL_ROPE_PARAMS_BAD_SCALING:
        return "type";
    case BICL_ROPE_PARAMS_BAD_FACTOR:
        return "factor (finite; >= 1 for yarn, > 0 where required)";
    case BICL_ROPE_PARAMS_BAD_FREQ_FACTORS:
        return "low_freq_factor / high_freq_factor";
    case BICL_ROPE_PARAMS_BAD_MAX_POS:
        return "original_max_position_embeddings / max_position_embeddings";
    case BICL_ROPE_PARAMS_BAD_YARN:
        return "beta_fast / beta_slow / mscale / mscale_all_dim / attention_factor";
    case BICL_ROPE_PARAMS_BAD_SEQ_LEN:
        return "seq_len";
    case BICL_ROPE_PARAMS_BAD_DIM_FACTORS:
        return "long_factor / short_factor";
    case BICL_ROPE_PARAMS_BAD_ANGLES:
        return "rope_angles (must be in 0..rotary_dim/2)";
    default:
        return "unknown field";
    }
}

/* inv_freq[i] of a valid config: the scaling type's formula, then freq_factors. */
static double config_inv_freq(const bicl_rope_config *c, const bicl_rope_freq_params *p, int i)
{
    double inv = bicl_rope_inv_freq(p, i);
    if (c->freq_factors)
        inv = inv / c->freq_factors[i];
    return inv;
}

/* The hf mode's float inv_freq[i]: transformers' float32 arithmetic
 * (bicl_rope_inv_freq_hf), then freq_factors divided in float. */
static float config_inv_freq_hf(const bicl_rope_config *c, const bicl_rope_freq_params *p, int i)
{
    float inv = bicl_rope_inv_freq_hf(p, i);
    if (c->freq_factors)
        inv = inv / bicl_f64_to_f32_rte(c->freq_factors[i]);
    return inv;
}

float bicl_rope_hf_inv_freq_f32_unchecked(const bicl_rope_config *cfg, int i)
{
    bicl_rope_freq_params fp = to_freq_params(cfg);
    return config_inv_freq_hf(cfg, &fp, i);
}

double bicl_rope_inv_freq_unchecked(const bicl_rope_config *cfg, int i)
{
    bicl_rope_freq_params fp = to_freq_params(cfg);
    return config_inv_freq(cfg, &fp, i);
}

double bicl_rope_attention_unchecked(const bicl_rope_config *cfg)
{
    bicl_rope_freq_params fp = to_freq_params(cfg);
    return bicl_rope_attention_scaling(&fp);
}

bicl_status bicl_rope_hf_inv_freq_f32(const bicl_rope_config *cfg, int i, float *out)
{
    bicl_status st = bicl_rope_config_check(cfg);
    if (st != BICL_SUCCESS)
        return st;
    if (i < 0 || i >= cfg->rotary_dim / 2 || !out)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "inv_freq index %d", i);
    *out = bicl_rope_hf_inv_freq_f32_unchecked(cfg, i);
    return BICL_SUCCESS;
}

static bool finite_in_f32(double x)
{
    return isfinite(x) && isfinite(bicl_f64_to_f32_rte(x));
}

/* Fields that are each in range can still give frequencies that overflow (a longrope
 * factor of 1e-310, a dynamic-NTK factor of 1e308, a tiny theta): every inv_freq must
 * be finite and >= 0, and the attention scaling finite and > 0, in double and in f32,
 * and the HF angle mode's f32 angle pos * inv_freq finite for every i32 position, or
 * outputs would be NaN (the f32-angle case was found by tests/fuzz). */
static bicl_status check_derived(const bicl_rope_config *c, const bicl_rope_freq_params *p)
{
    double attn = bicl_rope_attention_scaling(p);
    if (!(attn > 0.0) || !finite_in_f32(attn))
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "the attention scaling it gives (%g) is not finite and > 0 in f32", attn);
    for (int i = 0; i < c->rotary_dim / 2; ++i) {
        double inv = config_inv_freq(c, p, i);
        float inv_hf = config_inv_freq_hf(c, p, i);
        if (!(inv >= 0.0) || !finite_in_f32(inv) || !(inv_hf >= 0.0f) || !isfinite(inv_hf) ||
            !isfinite(bicl_i32_to_f32_rte(INT32_MAX) * inv_hf))
            return bicl_fail(BICL_ERR_INVALID_CONFIG,
                             "the frequencies it gives overflow (inv_freq[%d] = %g)", i, inv);
    }
    return BICL_SUCCESS;
}

/* ---- rotary slice inside a head (MLA) ---- */

/* k heads' width: k_head_dim, or head_dim when it is 0. */
static int k_head_dim_of(const bicl_rope_config *c)
{
    return c->k_head_dim ? c->k_head_dim : c->head_dim;
}

/* The rotary slice [offset, offset + rotary_dim) must lie inside q's and k's heads. */
static bicl_status check_slice(const bicl_rope_config *c)
{
    if (c->rotary_offset < 0 || c->rotary_offset > c->head_dim - c->rotary_dim)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "rotary_offset %d (rotary_offset + rotary_dim %d must fit head_dim %d)",
                         c->rotary_offset, c->rotary_dim, c->head_dim);
    if (c->k_head_dim < 0 || c->k_head_dim > 65536 ||
        (c->k_head_dim != 0 && c->k_head_dim < c->rotary_dim))
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "k_head_dim %d (0 = head_dim, else rotary_dim %d..65536)", c->k_head_dim,
                         c->rotary_dim);
    int kd = k_head_dim_of(c);
    if (c->k_rotary_offset < 0 || c->k_rotary_offset > kd - c->rotary_dim)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "k_rotary_offset %d (k_rotary_offset + rotary_dim %d must fit the k head "
                         "of %d)",
                         c->k_rotary_offset, c->rotary_dim, kd);
    if (c->type != BICL_ROPE_PROPORTIONAL && c->rope_angles != 0)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "rope_angles %d is for type proportional only",
                         c->rope_angles);
    return BICL_SUCCESS;
}

bicl_status bicl_rope_config_check(const bicl_rope_config *cfg)
{
    bicl_clear_error();
    bicl_rope_config full;
    bicl_status st = bicl_rope_config_load(cfg, &full);
    return st == BICL_SUCCESS ? bicl_rope_config_check_loaded(&full) : st;
}

bicl_status bicl_rope_config_check_loaded(const bicl_rope_config *c)
{
    if (c->head_dim < 2 || c->head_dim > 65536)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "head_dim %d (must be 2..65536)", c->head_dim);
    if (c->rotary_dim < 2 || c->rotary_dim % 2 != 0 || c->rotary_dim > c->head_dim)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "rotary_dim %d (must be even, >= 2 and <= head_dim %d)", c->rotary_dim,
                         c->head_dim);
    bicl_status st = check_slice(c);
    if (st != BICL_SUCCESS)
        return st;
    if (c->style != BICL_ROPE_NEOX && c->style != BICL_ROPE_GPTJ &&
        c->style != BICL_ROPE_DEINTERLEAVE)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "style %d is unknown", (int)c->style);
    if ((int)c->type < 0 || c->type > BICL_ROPE_PROPORTIONAL)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "type %d is unknown", (int)c->type);
    if (c->angle_mode != BICL_ROPE_ANGLE_EXACT && c->angle_mode != BICL_ROPE_ANGLE_HF)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "angle_mode %d is unknown", (int)c->angle_mode);
    if (c->type == BICL_ROPE_YARN && !(c->factor == 0.0 || c->factor >= 1.0))
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "factor %g: yarn needs factor >= 1", c->factor);
    if ((c->type == BICL_ROPE_LINEAR || c->type == BICL_ROPE_LLAMA3 ||
         c->type == BICL_ROPE_DYNAMIC_NTK || c->type == BICL_ROPE_PROPORTIONAL) &&
        !(c->factor > 0.0 && isfinite(c->factor)))
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "factor %g: must be finite and > 0", c->factor);
    bicl_rope_freq_params p = to_freq_params(c);
    int code = bicl_rope_freq_params_check(&p);
    if (code != BICL_ROPE_PARAMS_OK)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "invalid %s", freq_check_field(code));
    if (c->freq_factors)
        for (int i = 0; i < c->rotary_dim / 2; ++i)
            if (!(c->freq_factors[i] > 0.0 && isfinite(c->freq_factors[i])))
                return bicl_fail(BICL_ERR_INVALID_CONFIG, "freq_factors[%d] = %g (must be > 0)", i,
                                 c->freq_factors[i]);
    return check_derived(c, &p);
}

/* ------------------------------------------------------------------ plans */

static void rope_cos_sin(const bicl_rope_plan *p, int pos, int i, float *c, float *s)
{
    if (p->cfg.angle_mode == BICL_ROPE_ANGLE_HF)
        bicl_rope_cos_sin_hf(pos, p->inv_f[i], p->attn_f, c, s);
    else
        bicl_rope_cos_sin_exact(pos, p->inv[i], p->attn, c, s);
}

static bicl_status upload(bicl_context *ctx, const void *data, size_t bytes, cl_mem *out)
{
    cl_int err = CL_SUCCESS;
    *out = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes,
                          (void *)data, &err);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clCreateBuffer (rope plan)");
    return BICL_SUCCESS;
}

static bicl_status build_table(bicl_rope_plan *p, float **table)
{
    size_t rows = (size_t)p->table_positions, half = (size_t)p->half;
    float *t = malloc(rows * half * 2 * sizeof *t);
    if (!t)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "rope table of %zu rows", rows);
    for (size_t r = 0; r < rows; ++r)
        for (size_t i = 0; i < half; ++i)
            rope_cos_sin(p, (int)r, (int)i, &t[(r * half + i) * 2], &t[(r * half + i) * 2 + 1]);
    *table = t;
    return BICL_SUCCESS;
}

static bicl_status plan_upload(bicl_rope_plan *p)
{
    size_t half = (size_t)p->half;
    uint64_t *bits = malloc(half * sizeof *bits);
    if (!bits)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "rope plan");
    for (size_t i = 0; i < half; ++i)
        memcpy(&bits[i], &p->inv[i], sizeof bits[i]);
    bicl_status st = upload(p->ctx, bits, half * sizeof *bits, &p->inv_mem);
    free(bits);
    if (st == BICL_SUCCESS)
        st = upload(p->ctx, p->inv_f, half * sizeof(float), &p->inv_f_mem);
    int err_init[4] = {0, INT_MAX, 0, INT_MAX}; /* counters, then rope_errors_take's copy */
    if (st == BICL_SUCCESS)
        st = upload(p->ctx, err_init, sizeof err_init, &p->err_mem);
    if (st != BICL_SUCCESS)
        return st;
    float dummy[2] = {0.0f, 0.0f}, *table = dummy;
    size_t bytes = sizeof dummy;
    if (p->table_positions > 0) {
        st = build_table(p, &table);
        bytes = (size_t)p->table_positions * half * 2 * sizeof(float);
    }
    if (st == BICL_SUCCESS)
        st = upload(p->ctx, table, bytes, &p->table_mem);
    if (table != dummy)
        free(table);
    return st;
}

bicl_status bicl_rope_plan_create(bicl_context *ctx, const bicl_rope_config *cfg,
                                  int table_positions, int max_position, bicl_rope_plan **out)
{
    bicl_clear_error();
    if (!ctx || !out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_plan_create: NULL argument");
    *out = NULL;
    bicl_rope_config full;
    bicl_status st = bicl_rope_config_load(cfg, &full);
    if (st == BICL_SUCCESS)
        st = bicl_rope_config_check_loaded(&full);
    if (st != BICL_SUCCESS)
        return st;
    cfg = &full;
    if (table_positions < 0 || max_position < 0)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER,
                         "table_positions %d / max_position %d must be >= 0", table_positions,
                         max_position);
    bicl_rope_plan *p = calloc(1, sizeof *p);
    if (!p)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "rope plan");
    p->ctx = ctx;
    p->ctx_generation = ctx->generation;
    p->cfg = *cfg;
    p->half = cfg->rotary_dim / 2;
    p->table_positions = table_positions;
    p->max_position = max_position ? max_position : INT_MAX;
    /* 256 work-items per compute unit: below that, small launches (decode) are latency
     * bound and should not be folded further (rope_launch_shape). */
    p->min_items = (size_t)ctx->info.compute_units * 256;
    p->inv = malloc((size_t)p->half * sizeof *p->inv);
    p->inv_f = malloc((size_t)p->half * sizeof *p->inv_f);
    if (!p->inv || !p->inv_f) {
        bicl_rope_plan_free(p);
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "rope plan");
    }
    bicl_rope_freq_params fp = to_freq_params(cfg);
    for (int i = 0; i < p->half; ++i) {
        p->inv[i] = config_inv_freq(cfg, &fp, i);
        p->inv_f[i] = config_inv_freq_hf(cfg, &fp, i);
    }
    p->attn = bicl_rope_attention_scaling(&fp);
    p->attn_f = bicl_f64_to_f32_rte(p->attn);
    st = plan_upload(p);
    if (st != BICL_SUCCESS) {
        bicl_rope_plan_free(p);
        return st;
    }
    *out = p;
    return BICL_SUCCESS;
}

void bicl_rope_plan_free(bicl_rope_plan *p)
{
    if (!p)
        return;
    cl_mem mems[] = {p->inv_mem, p->inv_f_mem, p->table_mem, p->err_mem};
    for (size_t i = 0; i < sizeof mems / sizeof mems[0]; ++i)
        if (mems[i])
            clReleaseMemObject(mems[i]);
    free(p->inv);
    free(p->inv_f);
    free(p);
}

bicl_status bicl_rope_plan_inv_freq(const bicl_rope_plan *plan, double *inv_freq, size_t n,
                                    double *attention_scaling)
{
    bicl_clear_error();
    if (!plan)
        return bicl_fail(BICL_ERR_NULL_POINTER, "plan is NULL");
    for (size_t i = 0; inv_freq && i < n && i < (size_t)plan->half; ++i)
        inv_freq[i] = plan->inv[i];
    if (attention_scaling)
        *attention_scaling = plan->attn;
    return BICL_SUCCESS;
}

/* transformers' yarn_get_mscale in Python doubles: 0.1 * k * math.log(s) + 1.0, left to
 * right, each step rounded (math.log taken as correctly rounded, bicl_rope_log_py). */
static double mla_mscale_py(double s, double k)
{
    if (s <= 1.0)
        return 1.0;
    return 0.1 * k * bicl_rope_log_py(s) + 1.0;
}

bicl_status bicl_rope_plan_softmax_scale(const bicl_rope_plan *plan, double *mscale_squared,
                                         double *softmax_scale)
{
    bicl_clear_error();
    if (!plan)
        return bicl_fail(BICL_ERR_NULL_POINTER, "plan is NULL");
    const bicl_rope_config *c = &plan->cfg;
    /* yarn_apply_mscale: rope_type != "default" and a nonzero mscale_all_dim; it reads
     * rope_parameters["factor"] as given (bicl's factor 0, "derive", is the derived one). */
    double m = 1.0;
    if (c->type != BICL_ROPE_DEFAULT && c->mscale_all_dim != 0.0) {
        bicl_rope_freq_params fp = to_freq_params(c);
        m = mla_mscale_py(bicl_rope_effective_factor(&fp), c->mscale_all_dim);
    }
    /* head_dim ** -0.5 in Python: pow, correctly rounded (exp(-ln(d) / 2) in double-double,
     * rounded once). */
    bicl_dd l = bicl_dd_mul_d(bicl_log_dd((double)c->head_dim), -0.5);
    bicl_dd r = bicl_exp_dd_dd(l);
    double scale = r.hi + r.lo;
    if (mscale_squared)
        *mscale_squared = m * m;
    if (softmax_scale)
        *softmax_scale = scale * m * m;
    return BICL_SUCCESS;
}

/* ------------------------------------------------------------------ apply */

typedef struct rope_views {
    size_t B, S, T;
    size_t hq, hk;
    bool q_in_place, k_in_place;
} rope_views;

static bicl_status check_qk(const bicl_context *ctx, bicl_memo *memo, const bicl_rope_plan *plan,
                            const bicl_tensor *in, const bicl_tensor *out, const char *in_name,
                            const char *out_name, const bicl_tensor *pos)
{
    bicl_status st = bicl_dtype_check(in, in_name, BICL_FLOAT_DTYPES);
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(out, out_name, BICL_FLOAT_DTYPES);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, in, in_name, false, true);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, out, out_name, true, false);
    if (st != BICL_SUCCESS)
        return st;
    if (in->rank != pos->rank + 2)
        return bicl_fail(BICL_ERR_INVALID_RANK,
                         "%s has rank %d; with positions of rank %d it must be %d "
                         "(token dims, heads, head_dim)",
                         in_name, in->rank, pos->rank, pos->rank + 2);
    for (int d = 0; d < pos->rank; ++d)
        if (in->shape[d] != pos->shape[d])
            return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s token dim %d is %zu, positions have %zu",
                             in_name, d, in->shape[d], pos->shape[d]);
    int want = in_name[0] == 'k' ? k_head_dim_of(&plan->cfg) : plan->cfg.head_dim;
    if (in->shape[in->rank - 1] != (size_t)want)
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s head_dim is %zu, the plan's is %d%s", in_name,
                         in->shape[in->rank - 1], want,
                         in_name[0] == 'k' && plan->cfg.k_head_dim ? " (k_head_dim)" : "");
    return bicl_shapes_equal(in, in_name, out, out_name);
}

/* The source a call takes (AUTO resolved; refused where the plan cannot serve it), and
 * the largest position a source serves: one fact for the apply (its kernel's `limit`)
 * and the host references. */
static bicl_status plan_source(const bicl_rope_plan *plan, bicl_rope_source *source)
{
    if ((int)*source < BICL_ROPE_SOURCE_AUTO || *source > BICL_ROPE_SOURCE_INLINE)
        return bicl_fail(BICL_ERR_INVALID_ENUM, "unknown rope source %d", (int)*source);
    if (*source == BICL_ROPE_SOURCE_AUTO)
        *source = plan->table_positions > 0 ? BICL_ROPE_SOURCE_TABLE : BICL_ROPE_SOURCE_INLINE;
    if (*source == BICL_ROPE_SOURCE_TABLE && plan->table_positions == 0)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "the plan has no table");
    return BICL_SUCCESS;
}

static int source_limit(const bicl_rope_plan *plan, bicl_rope_source source)
{
    return source == BICL_ROPE_SOURCE_TABLE ? plan->table_positions - 1 : plan->max_position;
}

/* A plan works only with the context it was made on, while that context lives: the
 * address alone could be a new context's (ctx->generation tells them apart). */
static bicl_status plan_owned_by(const bicl_rope_plan *plan, const bicl_context *ctx)
{
    if (plan->ctx != ctx || plan->ctx_generation != ctx->generation)
        return bicl_fail(BICL_ERR_CONTEXT_MISMATCH,
                         "the plan belongs to another bicl_context (or to a freed one)");
    return BICL_SUCCESS;
}

static bicl_status check_apply(bicl_context *ctx, bicl_memo *memo, const bicl_rope_plan *plan,
                               bicl_rope_source *source, const bicl_tensor *pos,
                               const bicl_tensor *qi, const bicl_tensor *qo, const bicl_tensor *ki,
                               const bicl_tensor *ko, rope_views *v)
{
    if (!plan)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_apply: plan is NULL");
    bicl_status st = plan_owned_by(plan, ctx);
    if (st != BICL_SUCCESS)
        return st;
    st = plan_source(plan, source);
    if (st != BICL_SUCCESS)
        return st;
    if (*source == BICL_ROPE_SOURCE_INLINE && !(ctx->info.caps & BICL_CAP_FP64))
        return bicl_fail(BICL_ERR_UNSUPPORTED, "inline cos/sin needs fp64, which %s lacks",
                         ctx->info.device_name);
    if (!qi || !qo || !pos)
        return bicl_fail(BICL_ERR_NULL_POINTER, "positions, q_in and q_out are required");
    if ((ki == NULL) != (ko == NULL))
        return bicl_fail(BICL_ERR_NULL_POINTER, "k_in and k_out must both be given or both NULL");
    st = bicl_dtype_check(pos, "positions", 1u << BICL_I32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, pos, "positions", false, true);
    if (st == BICL_SUCCESS && pos->rank > 2)
        st = bicl_fail(BICL_ERR_INVALID_RANK, "positions rank %d (must be 1 or 2)", pos->rank);
    if (st == BICL_SUCCESS)
        st = check_qk(ctx, memo, plan, qi, qo, "q_in", "q_out", pos);
    if (st == BICL_SUCCESS && ki)
        st = check_qk(ctx, memo, plan, ki, ko, "k_in", "k_out", pos);
    if (st != BICL_SUCCESS)
        return st;
    if (ki && (ki->dtype != qi->dtype || ko->dtype != qo->dtype))
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "k's dtypes must equal q's");
    /* Outputs: in place on their own input only; no overlap with anything else. A
     * de-interleaving rotation writes other elements than it reads: never in place. */
    bool in_place_ok = plan->cfg.style != BICL_ROPE_DEINTERLEAVE;
    st = bicl_alias_check(memo, qo, "q_out", qi, "q_in", in_place_ok);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(memo, qo, "q_out", pos, "positions", false);
    if (st == BICL_SUCCESS && ki) {
        st = bicl_alias_check(memo, ko, "k_out", ki, "k_in", in_place_ok);
        if (st == BICL_SUCCESS)
            st = bicl_alias_check(memo, ko, "k_out", pos, "positions", false);
        if (st == BICL_SUCCESS)
            st = bicl_alias_check(memo, ko, "k_out", qi, "q_in", false);
        if (st == BICL_SUCCESS)
            st = bicl_alias_check(memo, qo, "q_out", ki, "k_in", false);
        if (st == BICL_SUCCESS)
            st = bicl_alias_check(memo, qo, "q_out", ko, "k_out", false);
    }
    if (st != BICL_SUCCESS)
        return st;
    v->B = pos->rank == 2 ? pos->shape[0] : 1;
    v->S = pos->shape[pos->rank - 1];
    v->T = v->B * v->S;
    v->hq = qi->shape[qi->rank - 2];
    v->hk = ki ? ki->shape[ki->rank - 2] : 0;
    v->q_in_place = qi->mem == qo->mem && qi->offset == qo->offset && qi->dtype == qo->dtype;
    v->k_in_place = ki && ki->mem == ko->mem && ki->offset == ko->offset && ki->dtype == ko->dtype;
    if (v->hq + v->hk > UINT32_MAX)
        return bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "too many heads");
    return BICL_SUCCESS;
}

/* (b, s, head, element) strides of a q/k view of rank 3 or 4. */
static cl_ulong4 qk_strides(const bicl_tensor *t)
{
    cl_ulong4 s;
    int r = t->rank;
    s.s[0] = r == 4 ? (cl_ulong)t->stride[0] : 0;
    s.s[1] = (cl_ulong)t->stride[r - 3];
    s.s[2] = (cl_ulong)t->stride[r - 2];
    s.s[3] = (cl_ulong)t->stride[r - 1];
    return s;
}

static void arg_view(bicl_args *a, const bicl_tensor *t, cl_ulong4 st)
{
    bicl_arg_view(a, t);
    bicl_arg_scalar(a, sizeof st, &st);
}

/* The parameter list of a RoPE kernel (cl/rope.cl): the general kernels' ROPE_PARAMS, or
 * a specialised kernel's shorter ROPE_PARAMS_SPEC (units) or ROPE_PARAMS_ROWS_SPEC, or their
 * in-place forms ROPE_PARAMS_SPEC_IP, ROPE_PARAMS_ROWS_SPEC_IP (one view of q and of k, no
 * inline sources). */
typedef enum rope_params {
    ROPE_ARGS_ALL,
    ROPE_ARGS_SPEC,
    ROPE_ARGS_ROWS_SPEC,
    ROPE_ARGS_SPEC_IP,
    ROPE_ARGS_ROWS_SPEC_IP
} rope_params;

static bool rope_params_rows(rope_params p)
{
    return p == ROPE_ARGS_ROWS_SPEC || p == ROPE_ARGS_ROWS_SPEC_IP;
}

static bool rope_params_in_place(rope_params p)
{
    return p == ROPE_ARGS_SPEC_IP || p == ROPE_ARGS_ROWS_SPEC_IP;
}

/* How a validated call is launched (cl/rope.cl): a choice of speed only, every shape
 * gives the same bits. */
typedef struct rope_shape {
    bool rows;       /* the rows form: units (dim 0) x T * heads (dim 1), one pair each */
    bool paired;     /* rows form, ROPE_PAIRED: every GPT-J pair starts on an even element */
    bool unit;       /* rows form, ROPE_UNIT_STRIDE: every view's element stride is 1 */
    bool heads4;     /* rows form, ROPE_ROWS_HEADS4: 4 heads of a token to a group */
    unsigned vw;     /* pairs per work unit: 8 or 4 (vector loads) or 1 (general path) */
    cl_uint groups;  /* units per (token, head block) */
    cl_uint hpu;     /* heads per block */
    cl_uint hblocks; /* blocks per token */
    cl_uint ipt;     /* units per work-item */
    size_t units;
    size_t wg;          /* work-group size, the variant's */
    rope_params params; /* the kernel's (rope_kernel_for) */
} rope_shape;

/* A view the vector kernels can move vw elements at a time: head_dim contiguous, its
 * offset and the strides of the dims that step (extent > 1) multiples of vw, and its
 * buffer's device address (aligned to `align` bytes, bicl_mem_align) aligned to a whole
 * vector, so that every head starts on a vector boundary. */
static bool vector_view(const bicl_tensor *t, size_t align, unsigned vw)
{
    int r = t->rank;
    if (t->stride[r - 1] != 1 || t->offset % vw != 0 || align % (vw * bicl_dtype_size(t->dtype)))
        return false;
    for (int d = 0; d < r - 1; ++d)
        if (t->shape[d] > 1 && (size_t)t->stride[d] % vw != 0)
            return false;
    return true;
}

/* The device-address alignment of each view's buffer (bicl_mem_align), queried once per
 * buffer: q_in and q_out, k_in and k_out often share one. */
static void rope_view_aligns(const bicl_context *ctx, bicl_memo *memo,
                             const bicl_tensor *const views[4], size_t align[4])
{
    for (int i = 0; i < 4; ++i)
        align[i] = bicl_mem_align(ctx, memo, views[i]->mem);
}

/* The widest vector width up to the variant's whose alignment every view allows:
 * vw must divide rotary_dim / 2 (whole pair groups; aligned table rows, second NeoX
 * half and pass-through block), and the buffer base alignment must hold the widest
 * load, vw float2 table entries. 8 falls back to 4, then to the general path. The
 * buffers' alignments are queried once (rope_view_aligns), for every width tried. */
static unsigned rope_vector_width(const bicl_context *ctx, bicl_memo *memo,
                                  const bicl_rope_plan *plan, unsigned want,
                                  const bicl_tensor *const views[4])
{
    if (want < 4)
        return 1;
    size_t align[4];
    rope_view_aligns(ctx, memo, views, align);
    const bicl_rope_config *c = &plan->cfg;
    for (unsigned vw = want; vw >= 4; vw /= 2) {
        bool ok = plan->half % (int)vw == 0 && ctx->info.mem_base_align_bytes >= (size_t)8 * vw;
        /* the rotary slices start on a vector boundary of their heads */
        ok = ok && c->rotary_offset % (int)vw == 0 && c->k_rotary_offset % (int)vw == 0;
        for (int i = 0; ok && i < 4; ++i)
            ok = vector_view(views[i], align[i], vw);
        if (ok)
            return vw;
    }
    return 1;
}

/* The rows form (cl/rope.cl, ROPE_ROWS_AS): where the context asks for it (the PoCL
 * profile, BICL_OPTION_ROPE_FORM) and it applies: the table source (inline, each
 * work-item would compute its own cos/sin, once per head instead of once per token),
 * at least one token and one head (a launch of no rows; a call with no heads still
 * checks its positions, which the units form does), and fewer than 2^32 rows. */
static bool rope_rows_wanted(const bicl_context *ctx, bicl_rope_source source, const rope_views *v)
{
    size_t heads = v->hq + v->hk;
    return ctx->rope_rows && source == BICL_ROPE_SOURCE_TABLE && v->T > 0 && heads > 0 &&
           v->T <= UINT32_MAX / heads; /* the kernel's row index is 32-bit */
}

/* Whether the rows form may move a GPT-J pair (elements 2i, 2i + 1 of a head's rotary
 * slice) as one 32-bit word: every view's heads start on an even element with element
 * stride 1 (vector_view for width 2: offset and stepping strides even, the buffer
 * aligned) and so do both rotary slices. */
static bool rope_pairs_aligned(const bicl_context *ctx, bicl_memo *memo, const bicl_rope_plan *plan,
                               const bicl_tensor *const views[4])
{
    if (plan->cfg.style == BICL_ROPE_NEOX || plan->cfg.rotary_offset % 2 != 0 ||
        plan->cfg.k_rotary_offset % 2 != 0)
        return false;
    size_t align[4];
    rope_view_aligns(ctx, memo, views, align);
    for (int i = 0; i < 4; ++i)
        if (!vector_view(views[i], align[i], 2))
            return false;
    return true;
}

/* The rows form's shape: a work-item per rotary pair of a head, which also copies
 * ceil(pass / half) pass-through elements (dim 0), a row per (token, head) (dim 1; hblocks =
 * heads), one work-group per row (bicl_args_launch_groups: the kernel counts positions by local id
 * and group id). */
static rope_shape rope_rows_shape(const rope_views *v, size_t half)
{
    rope_shape sh = {0};
    sh.rows = true;
    sh.groups = (cl_uint)half;
    sh.hpu = 1;
    sh.hblocks = (cl_uint)(v->hq + v->hk);
    sh.ipt = 1;
    sh.units = sh.groups;
    return sh;
}

/* Whether the rows form gives a work-group 4 heads of a token (ROPE_ROWS_HEADS4), in turn in
 * each work-item, which loads the position and the table entries once for the four: where
 * it measured faster on PoCL (docs/performance.md, thirty-fourth session: M-RoPE 0.34-0.47 ->
 * 0.65-0.84 of copy, partial 64 out of place 0.42-0.79 -> 0.80-1.09), not where it measured
 * slower (1-D RoPE in place: partial 64 half the speed, fused QKV -30 %, f32 -25 %). A
 * specialised kernel only (the flag is a constant of its name), and 4 must divide both head
 * counts. m: M-RoPE's layout, NULL for 1-D RoPE. */
static bool rope_rows_heads4(const bicl_context *ctx, const bicl_rope_mrope *m, const rope_views *v)
{
    return ctx->opts.rope_specialise && v->hq % 4 == 0 && v->hk % 4 == 0 && (m || !v->q_in_place);
}

/* allow_rows false: the units form even where the rows form is wanted (its kernel's
 * work-group limit is below a row's width). m: M-RoPE's layout, NULL for 1-D RoPE. */
static rope_shape rope_launch_shape(bicl_context *ctx, bicl_memo *memo, const bicl_rope_plan *plan,
                                    const bicl_rope_mrope *m, bicl_rope_source source,
                                    const rope_views *v, const bicl_tensor *const views[4],
                                    bool allow_rows)
{
    size_t half = (size_t)plan->half;
    if (allow_rows && rope_rows_wanted(ctx, source, v) && ctx->info.max_work_group >= half) {
        rope_shape sh = rope_rows_shape(v, half);
        sh.heads4 = rope_rows_heads4(ctx, m, v);
        if (sh.heads4)
            sh.hblocks /= 4;
        sh.paired = rope_pairs_aligned(ctx, memo, plan, views);
        sh.unit = true;
        for (int i = 0; i < 4; ++i)
            sh.unit = sh.unit && views[i]->stride[views[i]->rank - 1] == 1;
        return sh;
    }
    /* Units for the rotary pairs, and for the pass-through block when some output is not
     * in place (in place, those elements are already right). */
    size_t q_pass = (size_t)(plan->cfg.head_dim - plan->cfg.rotary_dim);
    size_t k_pass = (size_t)(k_head_dim_of(&plan->cfg) - plan->cfg.rotary_dim);
    size_t pass = !v->q_in_place ? q_pass : 0;
    if (v->hk > 0 && !v->k_in_place && k_pass > pass)
        pass = k_pass;
    bicl_variant var =
        bicl_context_variant_for(ctx, bicl_vclass_of_rope(views[0]->dtype, views[1]->dtype));
    rope_shape sh = {0};
    sh.wg = var.work_group_size;
    sh.vw = rope_vector_width(ctx, memo, plan, var.vector_width, views);
    size_t rot_groups = half / sh.vw, pass_groups = (pass + sh.vw - 1) / sh.vw;
    sh.groups = (cl_uint)(rot_groups > pass_groups ? rot_groups : pass_groups);
    /* As many heads per unit as keep min_items units: with enough tokens a unit rotates
     * every head of its token with one cos/sin per pair (one table load or one fp64
     * sincos), which moved the H200 from 2.3 to 3.3 TB/s for the table source (bf16,
     * 32 + 8 heads x 128, docs/performance.md); decode keeps one head per unit. A block
     * of no heads (hq + hk == 0) still checks its tokens' positions. */
    size_t heads = v->hq + v->hk, blocks = heads, per_block = v->T * sh.groups;
    if (per_block > 0 && heads > 0) {
        blocks = (plan->min_items + per_block - 1) / per_block;
        if (blocks > heads)
            blocks = heads;
    }
    if (blocks == 0)
        blocks = 1;
    sh.hpu = heads ? (cl_uint)((heads + blocks - 1) / blocks) : 1;
    sh.hblocks = heads ? (cl_uint)((heads + sh.hpu - 1) / sh.hpu) : 1;
    sh.units = v->T * sh.hblocks * sh.groups;
    /* Several units per work-item only while min_items work-items remain: a small
     * launch (decode) would otherwise serialise its few units' memory latencies. */
    size_t cap = sh.units / plan->min_items;
    sh.ipt = var.items_per_thread ? var.items_per_thread : 1; /* checked variants have >= 1 */
    if (sh.ipt > cap)
        sh.ipt = cap > 1 ? (cl_uint)cap : 1;
    return sh;
}

/* A RoPE kernel name's buffer (the longest, a specialised M-RoPE one, is about 80). */
#define ROPE_NAME_MAX 192

/* M-RoPE's part of a kernel's names (cl/rope.cl): the macro's "M" (ROPE_MKERNEL...), the
 * general kernel's "m_" (rope_m_...), and a specialised kernel's name suffix (mode and
 * sections); all empty for 1-D RoPE (m NULL). */
typedef struct rope_m_names {
    const bicl_rope_mrope *m;
    const char *macro, *general;
    char name[48];
} rope_m_names;

static rope_m_names rope_m_names_of(const bicl_rope_mrope *m)
{
    rope_m_names n = {m, "", "", ""};
    if (!m)
        return n;
    n.macro = "M";
    n.general = "m_";
    bicl_name_format(n.name, sizeof n.name, "_m%u_%u_%u_%u", m->mode, m->section[0], m->section[1],
                     m->section[2]);
    return n;
}

/* A specialised M-RoPE instance's last arguments (mode and sections), "" for 1-D RoPE:
 * formatted only for a build, not on every call that finds its kernel in the pool. */
static void rope_m_args(const rope_m_names *mn, char args[48])
{
    args[0] = '\0';
    if (mn->m)
        bicl_name_format(args, 48, ", %u, %u, %u, %u", mn->m->mode, mn->m->section[0],
                         mn->m->section[1], mn->m->section[2]);
}

/* Whether a specialised kernel of flags spec[0] and hk = spec[8] takes the in-place parameter
 * list (cl/rope.cl's ROPE_PARAMS_SPEC_IP): q in place, k in place or without heads (absent,
 * or given with none), the table. */
static bool rope_spec_in_place(const cl_uint spec[9])
{
    return (spec[0] & ROPE_Q_IN_PLACE) && ((spec[0] & ROPE_K_IN_PLACE) || spec[8] == 0) &&
           !(spec[0] & ROPE_INLINE);
}

/* The rows form's kernel (cl/rope.cl's ROPE_ROWS_SPEC, or ROPE_ROWS with
 * BICL_OPTION_ROPE_SPECIALISE 0; their M-RoPE forms for m): spec as below, groups unused;
 * MLA's de-interleaving is specialised too (on PoCL: 4.4 GB/s against 1.8 general at 64
 * MiB, 70c7a9c). */
static bicl_status rope_rows_kernel_acquire(bicl_context *ctx, const char *ti, const char *to,
                                            const cl_uint spec[9], const rope_m_names *mn,
                                            char name[ROPE_NAME_MAX], bicl_kernel **k,
                                            rope_params *params)
{
    char instance[BICL_INSTANCE_MAX + 1], args[48];
    const bool ip = rope_spec_in_place(spec);
    *params = ip ? ROPE_ARGS_ROWS_SPEC_IP : ROPE_ARGS_ROWS_SPEC;
    if (ctx->opts.rope_specialise) {
        bicl_name_format(name, ROPE_NAME_MAX, "rope_rows_%s_%s_f%u_h%u_l%u_%u_%u_%u_q%u_k%u%s%s",
                         ti, to, spec[0], spec[1], spec[3], spec[4], spec[5], spec[6], spec[7],
                         spec[8], mn->name, ip ? "_ip" : "");
        if (bicl_kernel_take(ctx, name, k))
            return BICL_SUCCESS;
        rope_m_args(mn, args);
        bicl_name_format(instance, sizeof instance,
                         "ROPE_%sROWS_SPEC%s(%s, %s, %u, %u, %u, %u, %u, %u, %u, %u%s)", mn->macro,
                         ip ? "_IP" : "", ti, to, spec[0], spec[1], spec[3], spec[4], spec[5],
                         spec[6], spec[7], spec[8], args);
        if (strlen(instance) < BICL_INSTANCE_MAX)
            return bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, instance, name, k);
    }
    *params = ROPE_ARGS_ALL;
    bicl_name_format(name, ROPE_NAME_MAX, "rope_rows_%s%s_%s", mn->general, ti, to);
    bicl_name_format(instance, sizeof instance, "ROPE_%sROWS(%s, %s)", mn->macro, ti, to);
    return bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, instance, name, k);
}

/* The RoPE kernel for a launch: the one specialised to its layout (spec: flags, rotary_dim
 * / 2, groups, lay[4], hq, hk; cl/rope.cl's ROPE_KERNEL_SPEC), built once per layout, or
 * the general one: with BICL_OPTION_ROPE_SPECIALISE 0 and where the instance text would not
 * fit. MLA's de-interleaving style is specialised too (H100: 0.60 -> 0.70 of copy,
 * docs/performance.md; it took the general kernel after the H200 ran it 3 % slower
 * specialised on 2026-12-04).
 * Speed only: both give the same bits. vw 0: the rows form's kernel. *params: the kernel's
 * parameter list. */
static bicl_status rope_kernel_lookup(bicl_context *ctx, bicl_dtype in, bicl_dtype out, unsigned vw,
                                      const cl_uint spec[9], const bicl_rope_mrope *m,
                                      char name[ROPE_NAME_MAX], bicl_kernel **k,
                                      rope_params *params)
{
    const char *ti = bicl_dtype_tag(in), *to = bicl_dtype_tag(out);
    char instance[BICL_INSTANCE_MAX + 1], args[48];
    rope_m_names mn = rope_m_names_of(m);
    if (vw == 0)
        return rope_rows_kernel_acquire(ctx, ti, to, spec, &mn, name, k, params);
    const bool ip = rope_spec_in_place(spec);
    *params = ip ? ROPE_ARGS_SPEC_IP : ROPE_ARGS_SPEC;
    if (ctx->opts.rope_specialise) {
        bicl_name_format(name, ROPE_NAME_MAX, "rope_%s_%s_v%u_f%u_h%u_g%u_l%u_%u_%u_%u_q%u_k%u%s%s",
                         ti, to, vw, spec[0], spec[1], spec[2], spec[3], spec[4], spec[5], spec[6],
                         spec[7], spec[8], mn.name, ip ? "_ip" : "");
        /* the instance text only for a build: a kernel in the pool had one that fitted */
        if (bicl_kernel_take(ctx, name, k))
            return BICL_SUCCESS;
        rope_m_args(&mn, args);
        bicl_name_format(instance, sizeof instance,
                         "ROPE_%sKERNEL_SPEC%s(%s, %s, %u, %u, %u, %u, %u, %u, %u, %u, %u, %u%s)",
                         mn.macro, ip ? "_IP" : "", ti, to, vw, spec[0], spec[1], spec[2], spec[3],
                         spec[4], spec[5], spec[6], spec[7], spec[8], args);
        if (strlen(instance) < BICL_INSTANCE_MAX) /* the name is shorter than the instance */
            return bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, instance, name, k);
    }
    *params = ROPE_ARGS_ALL;
    bicl_name_format(name, ROPE_NAME_MAX, "rope_%s%s_%s_v%u", mn.general, ti, to, vw);
    bicl_name_format(instance, sizeof instance, "ROPE_%sKERNEL(%s, %s, %u)", mn.macro, ti, to, vw);
    return bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, instance, name, k);
}

/* What a kernel lookup is made of (memset first: compared whole), and this thread's last
 * one with the name and parameter list it found: a call that repeats it takes the kernel
 * from the pool by that name without formatting it again (about 1.8K of a RoPE call's 17K
 * host instructions on PoCL, callgrind; docs/performance.md). A pool miss (a kernel in use,
 * another context) goes the whole way. The name depends on nothing else: the pool is the
 * context's, and so are the program's build options. */
typedef struct rope_lookup_key {
    int specialise, in, out;
    unsigned vw;
    cl_uint spec[9], m[4];
} rope_lookup_key;

static _Thread_local struct {
    bool valid;
    rope_lookup_key key;
    rope_params params;
    char name[ROPE_NAME_MAX];
} rope_last_lookup;

static bicl_status rope_kernel_acquire(bicl_context *ctx, bicl_dtype in, bicl_dtype out,
                                       unsigned vw, const cl_uint spec[9], const bicl_rope_mrope *m,
                                       bicl_kernel **k, rope_params *params)
{
    rope_lookup_key key;
    memset(&key, 0, sizeof key);
    key.specialise = ctx->opts.rope_specialise;
    key.in = (int)in;
    key.out = (int)out;
    key.vw = vw;
    memcpy(key.spec, spec, sizeof key.spec);
    if (m) {
        key.m[0] = m->mode + 1u; /* 0: 1-D RoPE */
        memcpy(key.m + 1, m->section, sizeof m->section);
    }
    if (rope_last_lookup.valid && memcmp(&key, &rope_last_lookup.key, sizeof key) == 0 &&
        bicl_kernel_take(ctx, rope_last_lookup.name, k)) {
        *params = rope_last_lookup.params;
        return BICL_SUCCESS;
    }
    char name[ROPE_NAME_MAX];
    bicl_status st = rope_kernel_lookup(ctx, in, out, vw, spec, m, name, k, params);
    if (st == BICL_SUCCESS) {
        rope_last_lookup.key = key;
        rope_last_lookup.params = *params;
        memcpy(rope_last_lookup.name, name, sizeof name);
        rope_last_lookup.valid = true;
    }
    return st;
}

/* The flags of a validated call with launch shape sh (cl/rope.cl's bits), and its kernel
 * (rope_kernel_acquire; its parameter list into sh->params). */
static bicl_status rope_kernel_for(bicl_context *ctx, const bicl_rope_plan *plan,
                                   const bicl_rope_mrope *m, bicl_rope_source source, int inverse,
                                   const rope_views *v, rope_shape *sh, bicl_dtype in,
                                   bicl_dtype out, cl_uint *flags, bicl_kernel **k)
{
    const bicl_rope_config *c = &plan->cfg;
    *flags =
        (c->style == BICL_ROPE_GPTJ ? ROPE_GPTJ : 0) |
        (c->style == BICL_ROPE_DEINTERLEAVE ? ROPE_DEINTERLEAVE : 0) |
        (inverse ? ROPE_INVERSE : 0) | (source == BICL_ROPE_SOURCE_INLINE ? ROPE_INLINE : 0) |
        /* the angle mode matters to the inline source only: table calls of either mode
         * share a kernel (one program build fewer per layout) */
        (c->angle_mode == BICL_ROPE_ANGLE_HF && source == BICL_ROPE_SOURCE_INLINE ? ROPE_HF : 0) |
        (v->q_in_place ? ROPE_Q_IN_PLACE : 0) | (v->k_in_place ? ROPE_K_IN_PLACE : 0) |
        (sh->hblocks == 1 && !sh->rows ? ROPE_ALL_HEADS : 0) |
        (sh->rows && sh->paired ? ROPE_PAIRED : 0) | (sh->rows && sh->unit ? ROPE_UNIT_STRIDE : 0) |
        (sh->rows && sh->heads4 ? ROPE_ROWS_HEADS4 : 0) | (v->S == v->T ? ROPE_ONE_ROW : 0);
    const cl_uint spec[9] = {*flags,
                             (cl_uint)plan->half,
                             sh->groups,
                             (cl_uint)c->rotary_offset,
                             (cl_uint)(c->head_dim - c->rotary_dim),
                             (cl_uint)c->k_rotary_offset,
                             (cl_uint)(k_head_dim_of(c) - c->rotary_dim),
                             (cl_uint)v->hq,
                             (cl_uint)v->hk};
    return rope_kernel_acquire(ctx, in, out, sh->rows ? 0 : sh->vw, spec, m, k, &sh->params);
}

/* The launch shape of a validated call and its kernel: the rows form where the profile
 * wants it and the kernel's work-group limit holds a row (a row is one work-group: the
 * rows kernel counts on it), else the units form. */
static bicl_status rope_shape_and_kernel(bicl_context *ctx, bicl_memo *memo,
                                         const bicl_rope_plan *plan, const bicl_rope_mrope *m,
                                         bicl_rope_source source, int inverse, const rope_views *v,
                                         const bicl_tensor *const views[4], rope_shape *sh,
                                         cl_uint *flags, bicl_kernel **k)
{
    bicl_dtype in = views[0]->dtype, out = views[1]->dtype;
    *sh = rope_launch_shape(ctx, memo, plan, m, source, v, views, true);
    bicl_status st = rope_kernel_for(ctx, plan, m, source, inverse, v, sh, in, out, flags, k);
    if (st != BICL_SUCCESS || !sh->rows || bicl_kernel_wg_max(ctx, *k) >= sh->units)
        return st;
    bicl_kernel_release(ctx, *k);
    *k = NULL;
    *sh = rope_launch_shape(ctx, memo, plan, m, source, v, views, false);
    return rope_kernel_for(ctx, plan, m, source, inverse, v, sh, in, out, flags, k);
}

bicl_status bicl_rope_launch_shape(bicl_context *ctx, const bicl_rope_plan *plan,
                                   bicl_rope_source source, const bicl_tensor *positions,
                                   const bicl_tensor *q_in, const bicl_tensor *q_out,
                                   const bicl_tensor *k_in, const bicl_tensor *k_out,
                                   unsigned *vector_width, unsigned *heads_per_unit,
                                   unsigned *items_per_thread, unsigned *qk_views)
{
    bicl_clear_error();
    if (!ctx)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_launch_shape: ctx is NULL");
    bicl_memo memo;
    bicl_memo_start(&memo);
    rope_views v = {0};
    bicl_status st =
        check_apply(ctx, &memo, plan, &source, positions, q_in, q_out, k_in, k_out, &v);
    if (st != BICL_SUCCESS)
        return st;
    const bicl_tensor *views[4] = {q_in, q_out, k_in ? k_in : q_in, k_out ? k_out : q_out};
    rope_shape sh;
    cl_uint flags;
    bicl_kernel *k = NULL;
    st = rope_shape_and_kernel(ctx, &memo, plan, NULL, source, 0, &v, views, &sh, &flags, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_kernel_release(ctx, k);
    if (vector_width)
        *vector_width = sh.vw;
    if (heads_per_unit)
        *heads_per_unit = sh.hpu;
    if (items_per_thread)
        *items_per_thread = sh.ipt;
    if (qk_views)
        *qk_views = rope_params_in_place(sh.params) ? 2 : 4;
    return BICL_SUCCESS;
}

/* The kernel arguments of a validated call in the order of sh->params' list (cl/rope.cl:
 * ROPE_PARAMS, or a specialised kernel's shorter ROPE_PARAMS_SPEC / _ROWS_SPEC, without
 * the values that are its constants, or their in-place forms _SPEC_IP / _ROWS_SPEC_IP,
 * which take only the output views and no inline sources; for M-RoPE (m) their _M forms,
 * which append the positions' row stride, and for the general kernels the sections and
 * mode). views: q_in, q_out, k_in, k_out (q's where no k). */
static void rope_set_args(bicl_args *a, const bicl_rope_plan *plan, const bicl_rope_mrope *m,
                          bicl_rope_source source, const rope_views *v, const rope_shape *sh,
                          cl_uint flags, const bicl_tensor *positions,
                          const bicl_tensor *const views[4])
{
    const bool all = sh->params == ROPE_ARGS_ALL, rows_spec = rope_params_rows(sh->params);
    const bool ip = rope_params_in_place(sh->params);
    const bicl_rope_config *c = &plan->cfg;
    cl_uint half = (cl_uint)plan->half;
    cl_uint4 lay = {{(cl_uint)c->rotary_offset, (cl_uint)(c->head_dim - c->rotary_dim),
                     (cl_uint)c->k_rotary_offset, (cl_uint)(k_head_dim_of(c) - c->rotary_dim)}};
    cl_uint hq = (cl_uint)v->hq, hk = (cl_uint)v->hk;
    cl_int limit = source_limit(plan, source);
    cl_ulong pos_off = positions->offset;
    cl_ulong pos_sb = positions->rank == 2 ? (cl_ulong)positions->stride[0] : 0;
    cl_ulong pos_ss = (cl_ulong)positions->stride[positions->rank - 1];
    cl_ulong S = v->S, T = v->T;
    cl_ulong attn_bits;
    memcpy(&attn_bits, &plan->attn, sizeof attn_bits);
    bicl_arg(a, sizeof(cl_mem), &positions->mem);
    bicl_arg_scalar(a, sizeof pos_off, &pos_off);
    bicl_arg_scalar(a, sizeof pos_sb, &pos_sb);
    bicl_arg_scalar(a, sizeof pos_ss, &pos_ss);
    bicl_arg_scalar(a, sizeof S, &S);
    if (!rows_spec)
        bicl_arg_scalar(a, sizeof T, &T);
    if (!ip) /* in place: the outputs only */
        arg_view(a, views[0], qk_strides(views[0]));
    arg_view(a, views[1], qk_strides(views[1]));
    if (all)
        bicl_arg_scalar(a, sizeof hq, &hq);
    if (!ip)
        arg_view(a, views[2], qk_strides(views[2]));
    arg_view(a, views[3], qk_strides(views[3]));
    if (all) {
        bicl_arg_scalar(a, sizeof hk, &hk);
        bicl_arg_scalar(a, sizeof half, &half);
        bicl_arg_scalar(a, sizeof lay, &lay);
        bicl_arg_scalar(a, sizeof sh->groups, &sh->groups);
    }
    if (!rows_spec) {
        bicl_arg_scalar(a, sizeof sh->hpu, &sh->hpu);
        bicl_arg_scalar(a, sizeof sh->hblocks, &sh->hblocks);
    }
    if (all)
        bicl_arg_scalar(a, sizeof flags, &flags);
    bicl_arg(a, sizeof(cl_mem), &plan->table_mem);
    if (!rows_spec && !ip) {
        bicl_arg(a, sizeof(cl_mem), &plan->inv_mem);
        bicl_arg(a, sizeof(cl_mem), &plan->inv_f_mem);
        bicl_arg_scalar(a, sizeof attn_bits, &attn_bits);
        bicl_arg_scalar(a, sizeof plan->attn_f, &plan->attn_f);
    }
    bicl_arg_scalar(a, sizeof limit, &limit);
    bicl_arg(a, sizeof(cl_mem), &plan->err_mem);
    if (!rows_spec)
        bicl_arg_scalar(a, sizeof sh->ipt, &sh->ipt);
    if (m) /* ROPE_PARAMS_M and the specialised _M lists */
        bicl_arg_scalar(a, sizeof m->row_stride, &m->row_stride);
    if (m && all) {
        cl_int4 msec = {
            {(cl_int)m->section[0], (cl_int)m->section[1], (cl_int)m->section[2], (cl_int)m->mode}};
        bicl_arg_scalar(a, sizeof msec, &msec);
    }
}

bicl_status bicl_rope_apply(bicl_context *ctx, cl_command_queue queue, const bicl_rope_plan *plan,
                            bicl_rope_source source, int inverse, const bicl_tensor *positions,
                            const bicl_tensor *q_in, const bicl_tensor *q_out,
                            const bicl_tensor *k_in, const bicl_tensor *k_out, cl_uint n_wait,
                            const cl_event *wait, cl_event *done)
{
    bicl_clear_error();
    if (!ctx)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_apply: ctx is NULL");
    bicl_status st = bicl_queue_check(ctx, queue, n_wait, wait);
    if (st != BICL_SUCCESS)
        return st;
    bicl_memo memo;
    bicl_memo_start(&memo);
    return bicl_rope_apply_mrope(ctx, queue, &memo, plan, NULL, source, inverse, positions, q_in,
                                 q_out, k_in, k_out, n_wait, wait, done);
}

bicl_status bicl_rope_apply_mrope(bicl_context *ctx, cl_command_queue queue, bicl_memo *memo,
                                  const bicl_rope_plan *plan, const bicl_rope_mrope *m,
                                  bicl_rope_source source, int inverse,
                                  const bicl_tensor *positions_row, const bicl_tensor *q_in,
                                  const bicl_tensor *q_out, const bicl_tensor *k_in,
                                  const bicl_tensor *k_out, cl_uint n_wait, const cl_event *wait,
                                  cl_event *done)
{
    rope_views v = {0};
    bicl_status st =
        check_apply(ctx, memo, plan, &source, positions_row, q_in, q_out, k_in, k_out, &v);
    if (st != BICL_SUCCESS)
        return st;
    const bicl_tensor *ki = k_in ? k_in : q_in, *ko = k_out ? k_out : q_out;
    const bicl_tensor *views[4] = {q_in, q_out, ki, ko};
    rope_shape sh;
    cl_uint flags = 0;
    bicl_kernel *k = NULL;
    st = rope_shape_and_kernel(ctx, memo, plan, m, source, inverse, &v, views, &sh, &flags, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_args a = {k, 0, CL_SUCCESS};
    rope_set_args(&a, plan, m, source, &v, &sh, flags, positions_row, views);
    if (sh.rows)
        return bicl_args_launch_groups(ctx, queue, &a, sh.units, v.T * sh.hblocks, n_wait, wait,
                                       done);
    return bicl_args_launch(ctx, queue, &a, (sh.units + sh.ipt - 1) / sh.ipt, sh.wg, n_wait, wait,
                            done);
}

bicl_status bicl_rope_errors(bicl_context *ctx, cl_command_queue queue, bicl_rope_plan *plan,
                             unsigned *count, int *first_bad, cl_uint n_wait, const cl_event *wait)
{
    bicl_clear_error();
    if (!ctx || !plan)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_errors: NULL argument");
    bicl_status st = plan_owned_by(plan, ctx);
    if (st == BICL_SUCCESS)
        st = bicl_queue_check(ctx, queue, n_wait, wait);
    if (st != BICL_SUCCESS)
        return st;
    /* An out-of-order queue runs a command as soon as its wait list allows: the barrier
     * (no list: every command enqueued before it) puts the read after the applies on
     * this queue, the wait list after those on other queues. */
    cl_int err = clEnqueueBarrierWithWaitList(queue, 0, NULL, NULL);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clEnqueueBarrierWithWaitList (rope errors)");
    /* Take and reset in one kernel (atomic exchanges), then read what it took: a read
     * and a separate reset would lose the counts of an apply that ran between them. */
    bicl_kernel *k = NULL;
    st = bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, "ROPE_BUILDERS", "rope_errors_take", &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_args a = {k, 0, CL_SUCCESS};
    bicl_arg(&a, sizeof(cl_mem), &plan->err_mem);
    bicl_arg_scalar(&a, sizeof plan->err_unread, &plan->err_unread);
    cl_event taken = NULL;
    st = bicl_args_launch(ctx, queue, &a, 1, 1, n_wait, wait, &taken);
    if (st != BICL_SUCCESS)
        return st;
    plan->err_unread = 1; /* until the read below succeeds: a failed read loses nothing */
    int e[2] = {0, INT_MAX};
    err = clEnqueueReadBuffer(queue, plan->err_mem, CL_TRUE, 2 * sizeof(int), sizeof e, e, 1,
                              &taken, NULL);
    clReleaseEvent(taken);
    if (err != CL_SUCCESS)
        return bicl_fail_cl(err, "clEnqueueReadBuffer (rope errors)");
    plan->err_unread = 0;
    if (count)
        *count = (unsigned)e[0];
    if (first_bad)
        *first_bad = e[0] ? e[1] : 0;
    if (e[0])
        return bicl_fail(BICL_ERR_POSITION_OUT_OF_RANGE,
                         "%d out-of-range positions (smallest %d); their outputs are NaN", e[0],
                         e[1]);
    return BICL_SUCCESS;
}

/* ---------------------------------------------------------- position ids */

static bicl_status check_i32_vector(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *t,
                                    const char *name, size_t want, bool output)
{
    bicl_status st = bicl_dtype_check(t, name, 1u << BICL_I32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, t, name, output, !output);
    if (st != BICL_SUCCESS)
        return st;
    if (t->rank != 1)
        return bicl_fail(BICL_ERR_INVALID_RANK, "%s must have rank 1", name);
    if (want && t->shape[0] != want)
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s has %zu elements, %zu expected", name,
                         t->shape[0], want);
    return BICL_SUCCESS;
}

bicl_status bicl_positions_packed(bicl_context *ctx, cl_command_queue queue,
                                  const bicl_tensor *cu_seqlens, const bicl_tensor *start,
                                  const bicl_tensor *positions, cl_uint n_wait,
                                  const cl_event *wait, cl_event *done)
{
    bicl_clear_error();
    if (!ctx || !cu_seqlens || !positions)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_positions_packed: NULL argument");
    bicl_status st = bicl_queue_check(ctx, queue, n_wait, wait);
    bicl_memo memo;
    bicl_memo_start(&memo);
    if (st == BICL_SUCCESS)
        st = check_i32_vector(ctx, &memo, cu_seqlens, "cu_seqlens", 0, false);
    if (st == BICL_SUCCESS && cu_seqlens->shape[0] < 2)
        st = bicl_fail(BICL_ERR_SHAPE_MISMATCH, "cu_seqlens needs B + 1 >= 2 entries");
    size_t batch = cu_seqlens->shape[0] - 1;
    if (st == BICL_SUCCESS && start)
        st = check_i32_vector(ctx, &memo, start, "start", batch, false);
    if (st == BICL_SUCCESS)
        st = check_i32_vector(ctx, &memo, positions, "positions", 0, true);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(&memo, positions, "positions", cu_seqlens, "cu_seqlens", false);
    if (st == BICL_SUCCESS && start)
        st = bicl_alias_check(&memo, positions, "positions", start, "start", false);
    if (st == BICL_SUCCESS && batch > UINT32_MAX - 1)
        st = bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "batch too large");
    if (st != BICL_SUCCESS)
        return st;
    bicl_kernel *k = NULL;
    st = bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, "ROPE_BUILDERS", "positions_packed", &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_variant var = bicl_context_variant_snapshot(ctx);
    const bicl_tensor *s = start ? start : cu_seqlens; /* any i32 buffer when unused */
    cl_ulong T = positions->shape[0];
    cl_uint b = (cl_uint)batch, has_start = start != NULL, ipt = var.items_per_thread;
    bicl_args a = {k, 0, CL_SUCCESS};
    bicl_arg_view_strides(&a, cu_seqlens, 1);
    bicl_arg_scalar(&a, sizeof b, &b);
    bicl_arg_view_strides(&a, s, 1);
    bicl_arg_scalar(&a, sizeof has_start, &has_start);
    bicl_arg_view_strides(&a, positions, 1);
    bicl_arg_scalar(&a, sizeof T, &T);
    bicl_arg_scalar(&a, sizeof ipt, &ipt);
    return bicl_args_launch(ctx, queue, &a, ((size_t)T + ipt - 1) / ipt, var.work_group_size,
                            n_wait, wait, done);
}

bicl_status bicl_positions_padded(bicl_context *ctx, cl_command_queue queue,
                                  const bicl_tensor *mask, const bicl_tensor *start,
                                  const bicl_tensor *positions, cl_uint n_wait,
                                  const cl_event *wait, cl_event *done)
{
    bicl_clear_error();
    if (!ctx || !mask || !positions)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_positions_padded: NULL argument");
    bicl_status st = bicl_queue_check(ctx, queue, n_wait, wait);
    bicl_memo memo;
    bicl_memo_start(&memo);
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(mask, "mask", (1u << BICL_U8) | (1u << BICL_I32));
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(positions, "positions", 1u << BICL_I32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, &memo, mask, "mask", false, true);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, &memo, positions, "positions", true, false);
    if (st == BICL_SUCCESS && (mask->rank != 2 || positions->rank != 2))
        st = bicl_fail(BICL_ERR_INVALID_RANK, "mask and positions must have rank 2 [B, S]");
    if (st == BICL_SUCCESS)
        st = bicl_shapes_equal(mask, "mask", positions, "positions");
    if (st == BICL_SUCCESS && start)
        st = check_i32_vector(ctx, &memo, start, "start", mask->shape[0], false);
    if (st == BICL_SUCCESS)
        st = bicl_alias_check(&memo, positions, "positions", mask, "mask", false);
    if (st == BICL_SUCCESS && start)
        st = bicl_alias_check(&memo, positions, "positions", start, "start", false);
    if (st != BICL_SUCCESS)
        return st;
    const char *name = mask->dtype == BICL_U8 ? "positions_padded_u8" : "positions_padded_i32";
    bicl_kernel *k = NULL;
    st = bicl_kernel_acquire(ctx, BICL_FAMILY_ROPE, "ROPE_BUILDERS", name, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_variant var = bicl_context_variant_snapshot(ctx);
    const bicl_tensor *s = start ? start : positions; /* any i32 buffer when unused */
    cl_ulong B = mask->shape[0], S = mask->shape[1];
    cl_uint has_start = start != NULL, ipt = var.items_per_thread;
    bicl_args a = {k, 0, CL_SUCCESS};
    bicl_arg_view_strides(&a, mask, 2);
    bicl_arg_view_strides(&a, s, 1);
    bicl_arg_scalar(&a, sizeof has_start, &has_start);
    bicl_arg_view_strides(&a, positions, 2);
    bicl_arg_scalar(&a, sizeof B, &B);
    bicl_arg_scalar(&a, sizeof S, &S);
    bicl_arg_scalar(&a, sizeof ipt, &ipt);
    return bicl_args_launch(ctx, queue, &a, ((size_t)B + ipt - 1) / ipt, var.work_group_size,
                            n_wait, wait, done);
}

/* --------------------------------------------------------- host references */

bicl_status bicl_ref_rope_cos_sin(const bicl_rope_plan *plan, bicl_rope_source source, int pos,
                                  int i, float *c, float *s)
{
    bicl_clear_error();
    if (!plan || !c || !s)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_rope_cos_sin: NULL argument");
    bicl_status st = plan_source(plan, &source);
    if (st != BICL_SUCCESS)
        return st;
    if (i < 0 || i >= plan->half)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "pair %d of %d", i, plan->half);
    if (pos < 0 || pos > source_limit(plan, source))
        return bicl_fail(BICL_ERR_POSITION_OUT_OF_RANGE, "position %d", pos);
    rope_cos_sin(plan, pos, i, c, s);
    return BICL_SUCCESS;
}

/* One q or k head (head width hd, rotary slice at roff): the pair read and written as
 * the kernel does (style; BICL_ROPE_DEINTERLEAVE moves the outputs), the other elements
 * copied. */
static bicl_status ref_head(const bicl_rope_plan *plan, bicl_rope_source source, int inverse,
                            int pos, bicl_dtype in_dtype, const void *x, bicl_dtype out_dtype,
                            void *out, bool is_k)
{
    bicl_clear_error();
    if (!plan || !x || !out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_rope_head: NULL argument");
    if (in_dtype > BICL_BF16 || out_dtype > BICL_BF16)
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "f32, f16 and bf16 only");
    bicl_status st = plan_source(plan, &source);
    if (st != BICL_SUCCESS)
        return st;
    const bicl_rope_config *c = &plan->cfg;
    int hd = is_k ? k_head_dim_of(c) : c->head_dim;
    size_t roff = (size_t)(is_k ? c->k_rotary_offset : c->rotary_offset), h = (size_t)plan->half;
    bool dei = c->style == BICL_ROPE_DEINTERLEAVE;
    bool gi = c->style == BICL_ROPE_GPTJ || (dei && !inverse);
    bool go = c->style == BICL_ROPE_GPTJ || (dei && inverse);
    bool ok = pos >= 0 && pos <= source_limit(plan, source);
    for (size_t i = 0; i < h; ++i) {
        size_t e0 = roff + (gi ? 2 * i : i), e1 = roff + (gi ? 2 * i + 1 : i + h);
        size_t o0 = roff + (go ? 2 * i : i), o1 = roff + (go ? 2 * i + 1 : i + h);
        float x0 = bicl_ref_load(in_dtype, x, e0), x1 = bicl_ref_load(in_dtype, x, e1);
        float r0 = bicl_f32_canonical_nan(), r1 = r0;
        if (ok) {
            float cs, sn;
            rope_cos_sin(plan, pos, (int)i, &cs, &sn);
            r0 = bicl_rope_rot0(x0, x1, cs, sn, inverse);
            r1 = bicl_rope_rot1(x0, x1, cs, sn, inverse);
        }
        bicl_ref_store(out_dtype, out, o0, r0);
        bicl_ref_store(out_dtype, out, o1, r1);
    }
    for (size_t e = 0; e < (size_t)hd; ++e)
        if (e < roff || e >= roff + 2 * h)
            bicl_ref_copy_elem(in_dtype, x, e, out_dtype, out, e);
    if (!ok)
        return bicl_fail(BICL_ERR_POSITION_OUT_OF_RANGE, "position %d", pos);
    return BICL_SUCCESS;
}

bicl_status bicl_ref_rope_head(const bicl_rope_plan *plan, bicl_rope_source source, int inverse,
                               int pos, bicl_dtype in_dtype, const void *x, bicl_dtype out_dtype,
                               void *out)
{
    return ref_head(plan, source, inverse, pos, in_dtype, x, out_dtype, out, false);
}

bicl_status bicl_ref_rope_k_head(const bicl_rope_plan *plan, bicl_rope_source source, int inverse,
                                 int pos, bicl_dtype in_dtype, const void *x, bicl_dtype out_dtype,
                                 void *out)
{
    return ref_head(plan, source, inverse, pos, in_dtype, x, out_dtype, out, true);
}

bicl_status bicl_ref_positions_packed(const int32_t *cu, size_t batch, const int32_t *start,
                                      int32_t *positions, size_t tokens)
{
    bicl_clear_error();
    if (!cu || !positions)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_positions_packed: NULL argument");
    for (size_t t = 0; t < tokens; ++t) {
        positions[t] = -1;
        for (size_t b = 0; b < batch; ++b) {
            if ((int64_t)cu[b] <= (int64_t)t && (int64_t)t < (int64_t)cu[b + 1]) {
                int64_t v = (start ? start[b] : 0) + ((int64_t)t - cu[b]);
                positions[t] = (v >= 0 && v <= INT32_MAX) ? (int32_t)v : -1;
            }
        }
    }
    return BICL_SUCCESS;
}

bicl_status bicl_ref_positions_padded(const void *mask, bicl_dtype mask_dtype, size_t batch,
                                      size_t seq, const int32_t *start, int32_t *positions)
{
    bicl_clear_error();
    if (!mask || !positions)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_positions_padded: NULL argument");
    if (mask_dtype != BICL_U8 && mask_dtype != BICL_I32)
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "mask must be u8 or i32");
    for (size_t b = 0; b < batch; ++b) {
        int64_t seen = 0, base = start ? start[b] : 0;
        for (size_t s = 0; s < seq; ++s) {
            size_t i = b * seq + s;
            bool real = mask_dtype == BICL_U8 ? ((const uint8_t *)mask)[i] != 0
                                              : ((const int32_t *)mask)[i] != 0;
            int64_t v = base + seen;
            positions[i] = real ? ((v >= 0 && v <= INT32_MAX) ? (int32_t)v : -1) : 0;
            seen += real;
        }
    }
    return BICL_SUCCESS;
}

/* ------------------------------------------------- for M-RoPE (src/mrope.c) */

bicl_status bicl_rope_plan_limit(const bicl_rope_plan *plan, bicl_rope_source *source, int *limit)
{
    bicl_status st = plan_source(plan, source);
    if (st == BICL_SUCCESS)
        *limit = source_limit(plan, *source);
    return st;
}

void bicl_rope_plan_layout(const bicl_rope_plan *plan, bicl_rope_style *style, int *head_dim)
{
    *style = plan->cfg.style;
    *head_dim = plan->cfg.head_dim;
}
