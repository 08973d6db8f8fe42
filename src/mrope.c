/* mrope.c - multimodal RoPE (bicl/mrope.h): the sections, plans, bicl_mrope_apply, the
 * 3-row position builder (get_rope_index), their host references, and the reading of a
 * VL model's config.json. The frequencies, the table and the error counter are a 1-D
 * plan's (src/rope.c); the maps from pair to row and from token layout to ids are
 * cl/bicl_mrope.h, shared with the kernels (cl/mrope.cl). */
#include "abi.h"
#include "rope.h"
#include "launch.h"
#include "context.h"
#include "program.h"
#include "tensor.h"
#include "reference.h"
#include "profile.h"
#include "status.h"

#include "bicl_mrope.h"
#include "bicl_rope_flags.h"
#include "bicl_rope_rotate.h"

#include <cjson/cJSON.h>

#include <limits.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct bicl_mrope_plan {
    bicl_rope_plan *rope;
    bicl_mrope_config m;
};

/* ---------------------------------------------------------------- config */

static void mrope_config_defaults(bicl_mrope_config *m)
{
    memset(m, 0, sizeof *m);
    m->struct_size = sizeof *m;
    m->layout = BICL_MROPE_CHUNKED;
}

void bicl_mrope_config_init_sized(bicl_mrope_config *m, size_t struct_size)
{
    if (!m)
        return;
    bicl_mrope_config full;
    mrope_config_defaults(&full);
    bicl_abi_store(m, struct_size, &full, sizeof full);
}

/* The caller's configs at this library's sizes (abi.h); every field of
 * bicl_mrope_config so far was in its first layout. */
static bicl_status load_configs(const bicl_rope_config *cfg, const bicl_mrope_config *m,
                                bicl_rope_config *cfg_full, bicl_mrope_config *m_full)
{
    bicl_status st = bicl_rope_config_load(cfg, cfg_full);
    mrope_config_defaults(m_full);
    if (st == BICL_SUCCESS && !m)
        st = bicl_fail(BICL_ERR_NULL_POINTER, "mrope config is NULL");
    if (st == BICL_SUCCESS)
        st = bicl_abi_load(m_full, sizeof *m_full, m, sizeof *m_full, "bicl_mrope_config",
                           BICL_ERR_INVALID_CONFIG);
    return st;
}

/* Pairs per row the layout gives for half pairs (the interleaved slices may fall short
 * of their sections when they run past the last pair). */
static void row_counts(const bicl_mrope_config *m, int half, int counts[3])
{
    counts[0] = counts[1] = counts[2] = 0;
    for (int i = 0; i < half; ++i)
        counts[bicl_mrope_row(i, m->section[0], m->section[1], m->section[2],
                              m->layout == BICL_MROPE_INTERLEAVED)]++;
}

static bicl_status check_loaded(const bicl_rope_config *cfg, const bicl_mrope_config *m);

/* The caller's configs at this library's sizes, checked once: the 1-D rules, then
 * M-RoPE's. */
static bicl_status load_checked(const bicl_rope_config *cfg, const bicl_mrope_config *m,
                                bicl_rope_config *cfg_full, bicl_mrope_config *m_full)
{
    bicl_status st = load_configs(cfg, m, cfg_full, m_full);
    if (st == BICL_SUCCESS)
        st = bicl_rope_config_check_loaded(cfg_full);
    return st == BICL_SUCCESS ? check_loaded(cfg_full, m_full) : st;
}

bicl_status bicl_mrope_config_check(const bicl_rope_config *cfg, const bicl_mrope_config *m)
{
    bicl_clear_error();
    bicl_rope_config cfg_full;
    bicl_mrope_config m_full;
    return load_checked(cfg, m, &cfg_full, &m_full);
}

/* bicl_mrope_config_check of configs at this library's sizes (cfg already checked). */
static bicl_status check_loaded(const bicl_rope_config *cfg, const bicl_mrope_config *m)
{
    /* M-RoPE's pairs are the whole-head NeoX or GPT-J pairs of a plain rotary prefix;
     * other pair layouts and types (a later rope.h may add some) are not M-RoPE's. */
    if (cfg->style != BICL_ROPE_NEOX && cfg->style != BICL_ROPE_GPTJ)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "style %d: M-RoPE rotates neox or gptj pairs",
                         (int)cfg->style);
    if ((int)cfg->type > (int)BICL_ROPE_LONGROPE)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "type %d: not a type M-RoPE is defined with",
                         (int)cfg->type);
    /* The rotary slice fields of MLA and proportional RoPE: the M-RoPE kernel rotates a
     * plain prefix of every head, of one width for q and k. */
    if (cfg->rotary_offset || cfg->k_head_dim || cfg->k_rotary_offset || cfg->rope_angles)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "rotary_offset %d, k_head_dim %d, k_rotary_offset %d, rope_angles %d: "
                         "M-RoPE rotates a plain rotary prefix (all must be 0)",
                         cfg->rotary_offset, cfg->k_head_dim, cfg->k_rotary_offset,
                         cfg->rope_angles);
    if (m->layout != BICL_MROPE_CHUNKED && m->layout != BICL_MROPE_INTERLEAVED)
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "mrope layout %d is unknown", (int)m->layout);
    int half = cfg->rotary_dim / 2;
    long sum = 0;
    for (int a = 0; a < 3; ++a) {
        if (m->section[a] < 0 || m->section[a] > half)
            return bicl_fail(BICL_ERR_INVALID_CONFIG,
                             "mrope_section[%d] = %d (must be in [0, rotary_dim / 2 = %d])", a,
                             m->section[a], half);
        sum += m->section[a];
    }
    if (sum != half)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "mrope_section [%d, %d, %d] sums to %ld; it must be rotary_dim / 2 = %d "
                         "(the pairs of the head)",
                         m->section[0], m->section[1], m->section[2], sum, half);
    int counts[3];
    row_counts(m, half, counts);
    for (int a = 0; a < 3; ++a)
        if (counts[a] != m->section[a])
            return bicl_fail(BICL_ERR_INVALID_CONFIG,
                             "mrope_section [%d, %d, %d] does not fit the interleaved layout of "
                             "%d pairs (row %d would get %d pairs)",
                             m->section[0], m->section[1], m->section[2], half, a, counts[a]);
    return BICL_SUCCESS;
}

int bicl_mrope_pair_row(const bicl_mrope_config *m, int pair)
{
    int half = m ? m->section[0] + m->section[1] + m->section[2] : 0;
    if (!m || pair < 0 || pair >= half)
        return -1;
    return bicl_mrope_row(pair, m->section[0], m->section[1], m->section[2],
                          m->layout == BICL_MROPE_INTERLEAVED);
}

/* ------------------------------------------------------------------ plans */

bicl_status bicl_mrope_plan_create(bicl_context *ctx, const bicl_rope_config *cfg,
                                   const bicl_mrope_config *m, int table_positions,
                                   int max_position, bicl_mrope_plan **out)
{
    bicl_clear_error();
    if (!ctx || !out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_mrope_plan_create: NULL argument");
    *out = NULL;
    bicl_rope_config cfg_full;
    bicl_mrope_config m_full;
    bicl_status st = load_checked(cfg, m, &cfg_full, &m_full);
    if (st != BICL_SUCCESS)
        return st;
    bicl_mrope_plan *p = calloc(1, sizeof *p);
    if (!p)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "mrope plan");
    p->m = m_full;
    st = bicl_rope_plan_create(ctx, &cfg_full, table_positions, max_position, &p->rope);
    if (st != BICL_SUCCESS) {
        free(p);
        return st;
    }
    *out = p;
    return BICL_SUCCESS;
}

void bicl_mrope_plan_free(bicl_mrope_plan *plan)
{
    if (!plan)
        return;
    bicl_rope_plan_free(plan->rope);
    free(plan);
}

bicl_rope_plan *bicl_mrope_plan_rope(const bicl_mrope_plan *plan)
{
    return plan ? plan->rope : NULL;
}

/* ------------------------------------------------------------------ apply */

/* Row 0 of a [3, ...] positions view: the token dims, for bicl_rope_apply's checks. */
static bicl_tensor positions_row0(const bicl_tensor *pos)
{
    bicl_tensor r = *pos;
    r.rank = pos->rank - 1;
    for (int d = 0; d < r.rank; ++d) {
        r.shape[d] = pos->shape[d + 1];
        r.stride[d] = pos->stride[d + 1];
    }
    r.shape[r.rank] = 0;
    r.stride[r.rank] = 0;
    return r;
}

static bicl_status check_positions(bicl_context *ctx, bicl_memo *memo, const bicl_tensor *pos,
                                   const bicl_tensor *qo, const bicl_tensor *ko)
{
    if (!pos)
        return bicl_fail(BICL_ERR_NULL_POINTER, "positions are required");
    bicl_status st = bicl_dtype_check(pos, "positions", 1u << BICL_I32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, pos, "positions", false, true);
    if (st != BICL_SUCCESS)
        return st;
    if (pos->rank != 2 && pos->rank != 3)
        return bicl_fail(BICL_ERR_INVALID_RANK,
                         "positions rank %d (M-RoPE takes [3, T] or [3, B, S])", pos->rank);
    if (pos->shape[0] != 3)
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH,
                         "positions has %zu rows; M-RoPE takes 3 (temporal, height, width)",
                         pos->shape[0]);
    /* bicl_rope_apply_mrope checks the outputs against row 0 only: the others too. */
    if (qo)
        st = bicl_alias_check(memo, qo, "q_out", pos, "positions", false);
    if (st == BICL_SUCCESS && ko)
        st = bicl_alias_check(memo, ko, "k_out", pos, "positions", false);
    return st;
}

bicl_status bicl_mrope_apply(bicl_context *ctx, cl_command_queue queue, const bicl_mrope_plan *plan,
                             bicl_rope_source source, int inverse, const bicl_tensor *positions,
                             const bicl_tensor *q_in, const bicl_tensor *q_out,
                             const bicl_tensor *k_in, const bicl_tensor *k_out, cl_uint n_wait,
                             const cl_event *wait, cl_event *done)
{
    bicl_clear_error();
    if (!ctx || !plan)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_mrope_apply: ctx or plan is NULL");
    bicl_status st = bicl_queue_check(ctx, queue, n_wait, wait);
    bicl_memo memo;
    bicl_memo_start(&memo);
    if (st == BICL_SUCCESS)
        st = check_positions(ctx, &memo, positions, q_out, k_out);
    if (st != BICL_SUCCESS)
        return st;
    /* RoPE's kernels (cl/rope.cl), each pair at the position of its row */
    bicl_rope_mrope m = {
        plan->m.layout == BICL_MROPE_INTERLEAVED ? ROPE_M_INTERLEAVED : ROPE_M_CHUNKED,
        {(cl_uint)plan->m.section[0], (cl_uint)plan->m.section[1], (cl_uint)plan->m.section[2]},
        (cl_ulong)positions->stride[0]};
    bicl_tensor row0 = positions_row0(positions);
    return bicl_rope_apply_mrope(ctx, queue, &memo, plan->rope, &m, source, inverse, &row0, q_in,
                                 q_out, k_in, k_out, n_wait, wait, done);
}

bicl_status bicl_ref_mrope_head(const bicl_mrope_plan *plan, bicl_rope_source source, int inverse,
                                const int32_t pos[3], bicl_dtype in_dtype, const void *x,
                                bicl_dtype out_dtype, void *out)
{
    bicl_clear_error();
    if (!plan || !pos || !x || !out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_mrope_head: NULL argument");
    if (in_dtype > BICL_BF16 || out_dtype > BICL_BF16)
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "f32, f16 and bf16 only");
    int limit = 0;
    bicl_status st = bicl_rope_plan_limit(plan->rope, &source, &limit);
    if (st != BICL_SUCCESS)
        return st;
    bool ok = true;
    for (int a = 0; a < 3; ++a)
        ok = ok && pos[a] >= 0 && pos[a] <= limit;
    int half = plan->m.section[0] + plan->m.section[1] + plan->m.section[2];
    bicl_rope_style style = BICL_ROPE_NEOX;
    int head_dim = 0;
    bicl_rope_plan_layout(plan->rope, &style, &head_dim);
    bool il = plan->m.layout == BICL_MROPE_INTERLEAVED;
    for (int i = 0; i < half; ++i) {
        size_t e0 = style == BICL_ROPE_GPTJ ? (size_t)(2 * i) : (size_t)i;
        size_t e1 = style == BICL_ROPE_GPTJ ? (size_t)(2 * i + 1) : (size_t)(i + half);
        float x0 = bicl_ref_load(in_dtype, x, e0), x1 = bicl_ref_load(in_dtype, x, e1);
        float o0 = bicl_f32_canonical_nan(), o1 = o0;
        if (ok) {
            float cs = 0.0f, sn = 0.0f;
            int row =
                bicl_mrope_row(i, plan->m.section[0], plan->m.section[1], plan->m.section[2], il);
            st = bicl_ref_rope_cos_sin(plan->rope, source, pos[row], i, &cs, &sn);
            if (st != BICL_SUCCESS)
                return st;
            o0 = bicl_rope_rot0(x0, x1, cs, sn, inverse);
            o1 = bicl_rope_rot1(x0, x1, cs, sn, inverse);
        }
        bicl_ref_store(out_dtype, out, e0, o0);
        bicl_ref_store(out_dtype, out, e1, o1);
    }
    for (int e = 2 * half; e < head_dim; ++e)
        bicl_ref_copy_elem(in_dtype, x, (size_t)e, out_dtype, out, (size_t)e);
    if (!ok)
        return bicl_fail(BICL_ERR_POSITION_OUT_OF_RANGE, "positions (%d, %d, %d)", pos[0], pos[1],
                         pos[2]);
    return BICL_SUCCESS;
}

/* ---------------------------------------------------------- position ids */

static bicl_status check_vision(const bicl_mrope_vision *v)
{
    if (!v)
        return bicl_fail(BICL_ERR_NULL_POINTER, "mrope vision parameters are NULL");
    if (v->spatial_merge_size < 1)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "spatial_merge_size %d (must be >= 1)",
                         v->spatial_merge_size);
    if (v->tokens_per_second < 0)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "tokens_per_second %d (must be >= 0)",
                         v->tokens_per_second);
    if (v->split_video_frames != 0 && v->split_video_frames != 1)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "split_video_frames %d (must be 0 or 1)",
                         v->split_video_frames);
    return BICL_SUCCESS;
}

/* An optional input of one dtype, rank and (where nonzero) shape. */
static bicl_status check_input(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *t,
                               const char *name, unsigned dtypes, int rank, size_t d0, size_t d1)
{
    if (!t)
        return BICL_SUCCESS;
    bicl_status st = bicl_dtype_check(t, name, dtypes);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, t, name, false, true);
    if (st != BICL_SUCCESS)
        return st;
    if (t->rank != rank)
        return bicl_fail(BICL_ERR_INVALID_RANK, "%s must have rank %d", name, rank);
    if ((d0 && t->shape[0] != d0) || (rank == 2 && d1 && t->shape[1] != d1))
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s has shape [%zu%s%zu], [%zu, %zu] expected",
                         name, t->shape[0], rank == 2 ? ", " : "", rank == 2 ? t->shape[1] : 0,
                         d0 ? d0 : t->shape[0], d1);
    if (t->shape[0] > UINT32_MAX)
        return bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "%s is too large", name);
    return BICL_SUCCESS;
}

static bicl_status check_layout(const bicl_context *ctx, bicl_memo *memo,
                                const bicl_mrope_layout_args *l, const bicl_tensor *pos,
                                const bicl_tensor *deltas)
{
    const unsigned ids = (1u << BICL_U8) | (1u << BICL_I32), i32 = 1u << BICL_I32;
    if (!l || !l->types || !pos)
        return bicl_fail(BICL_ERR_NULL_POINTER,
                         "bicl_mrope_positions: types and positions are required");
    bool packed = l->cu_seqlens != NULL;
    int rank = packed ? 1 : 2;
    bicl_status st = check_input(ctx, memo, l->cu_seqlens, "cu_seqlens", i32, 1, 0, 0);
    if (st == BICL_SUCCESS && packed && l->cu_seqlens->shape[0] < 2)
        st = bicl_fail(BICL_ERR_SHAPE_MISMATCH, "cu_seqlens needs B + 1 >= 2 entries");
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, l->types, "types", ids, rank, 0, 0);
    if (st != BICL_SUCCESS)
        return st;
    /* padded: B rows of S; packed: B sequences in T = S tokens */
    size_t B = packed ? l->cu_seqlens->shape[0] - 1 : l->types->shape[0];
    size_t S = packed ? l->types->shape[0] : l->types->shape[1];
    st = check_input(ctx, memo, l->mask, "mask", ids, rank, packed ? S : B, packed ? 0 : S);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, l->image_grid, "image_grid", i32, 2, 0, 3);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, l->video_grid, "video_grid", i32, 2, 0, 3);
    if (st == BICL_SUCCESS)
        st = check_input(ctx, memo, l->grid_start, "grid_start", i32, 2, B, 2);
    if (st == BICL_SUCCESS && l->second_per_grid && !l->video_grid)
        st = bicl_fail(BICL_ERR_NULL_POINTER, "second_per_grid needs video_grid");
    if (st == BICL_SUCCESS && l->second_per_grid)
        st = check_input(ctx, memo, l->second_per_grid, "second_per_grid", 1u << BICL_F32, 1,
                         l->video_grid->shape[0], 0);
    if (st == BICL_SUCCESS)
        st = bicl_dtype_check(pos, "positions", i32);
    if (st == BICL_SUCCESS)
        st = bicl_tensor_check(ctx, memo, pos, "positions", true, false);
    if (st == BICL_SUCCESS && packed &&
        (pos->rank != 2 || pos->shape[0] != 3 || pos->shape[1] != S))
        st = bicl_fail(BICL_ERR_SHAPE_MISMATCH, "positions must be [3, %zu] (rows, types' shape)",
                       S);
    if (st == BICL_SUCCESS && !packed &&
        (pos->rank != 3 || pos->shape[0] != 3 || pos->shape[1] != B || pos->shape[2] != S))
        st = bicl_fail(BICL_ERR_SHAPE_MISMATCH,
                       "positions must be [3, %zu, %zu] (rows, types' shape)", B, S);
    if (st == BICL_SUCCESS && (B > UINT32_MAX || S > UINT32_MAX))
        st = bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "too many sequences or tokens");
    if (st == BICL_SUCCESS && deltas) {
        st = bicl_dtype_check(deltas, "deltas", i32);
        if (st == BICL_SUCCESS)
            st = bicl_tensor_check(ctx, memo, deltas, "deltas", true, false);
        if (st == BICL_SUCCESS && (deltas->rank != 1 || deltas->shape[0] != B))
            st = bicl_fail(BICL_ERR_SHAPE_MISMATCH, "deltas must be [%zu]", B);
        if (st == BICL_SUCCESS)
            st = bicl_alias_check(memo, deltas, "deltas", pos, "positions", false);
    }
    const bicl_tensor *ins[] = {l->types,      l->mask,       l->image_grid,
                                l->video_grid, l->grid_start, l->second_per_grid,
                                l->cu_seqlens};
    static const char *const names[] = {
        "types", "mask", "image_grid", "video_grid", "grid_start", "second_per_grid", "cu_seqlens"};
    for (size_t i = 0; st == BICL_SUCCESS && i < sizeof ins / sizeof ins[0]; ++i) {
        if (!ins[i])
            continue;
        st = bicl_alias_check(memo, pos, "positions", ins[i], names[i], false);
        if (st == BICL_SUCCESS && deltas)
            st = bicl_alias_check(memo, deltas, "deltas", ins[i], names[i], false);
    }
    return st;
}

/* A [B, S] view's (b, s) strides, or a packed [T] view's (0, t). */
static void arg_rows(bicl_args *a, const bicl_tensor *t, bool packed)
{
    cl_ulong sb = packed ? 0 : (cl_ulong)t->stride[0];
    cl_ulong ss = (cl_ulong)t->stride[packed ? 0 : 1];
    bicl_arg_view(a, t);
    bicl_arg_scalar(a, sizeof sb, &sb);
    bicl_arg_scalar(a, sizeof ss, &ss);
}

/* An optional view's buffer, offset and strides, or (absent) any buffer and zeros. */
static void arg_opt(bicl_args *a, const bicl_tensor *t, const bicl_tensor *fallback, int n)
{
    if (t) {
        bicl_arg_view_strides(a, t, n);
        return;
    }
    cl_ulong zero = 0;
    bicl_arg(a, sizeof(cl_mem), &fallback->mem);
    for (int i = 0; i <= n; ++i)
        bicl_arg_scalar(a, sizeof zero, &zero);
}

bicl_status bicl_mrope_positions(bicl_context *ctx, cl_command_queue queue,
                                 const bicl_mrope_vision *vision,
                                 const bicl_mrope_layout_args *layout, const bicl_tensor *positions,
                                 const bicl_tensor *deltas, cl_uint n_wait, const cl_event *wait,
                                 cl_event *done)
{
    bicl_clear_error();
    if (!ctx)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_mrope_positions: ctx is NULL");
    bicl_status st = bicl_queue_check(ctx, queue, n_wait, wait);
    if (st == BICL_SUCCESS)
        st = check_vision(vision);
    bicl_memo memo;
    bicl_memo_start(&memo);
    if (st == BICL_SUCCESS)
        st = check_layout(ctx, &memo, layout, positions, deltas);
    if (st != BICL_SUCCESS)
        return st;
    const bicl_tensor *ty = layout->types, *mk = layout->mask;
    char name[48];
    bicl_name_format(name, sizeof name, "mrope_positions_%s_%s", bicl_dtype_tag(ty->dtype),
                     bicl_dtype_tag(mk ? mk->dtype : ty->dtype));
    bicl_kernel *k = NULL;
    st = bicl_kernel_acquire(ctx, BICL_FAMILY_MROPE, "MROPE_BUILDERS", name, &k);
    if (st != BICL_SUCCESS)
        return st;
    bicl_variant var = bicl_context_variant_snapshot(ctx);
    cl_uint has_mask = mk != NULL, has_gs = layout->grid_start != NULL;
    cl_uint has_spg = layout->second_per_grid != NULL, has_d = deltas != NULL;
    cl_uint n_image = layout->image_grid ? (cl_uint)layout->image_grid->shape[0] : 0;
    cl_uint n_video = layout->video_grid ? (cl_uint)layout->video_grid->shape[0] : 0;
    cl_int merge = vision->spatial_merge_size, tps = vision->tokens_per_second;
    cl_uint split = (cl_uint)vision->split_video_frames, ipt = var.items_per_thread;
    bool packed = layout->cu_seqlens != NULL;
    cl_ulong B = packed ? layout->cu_seqlens->shape[0] - 1 : ty->shape[0];
    cl_ulong S = packed ? ty->shape[0] : ty->shape[1];
    cl_uint has_cu = packed;
    bicl_args a = {k, 0, CL_SUCCESS};
    arg_rows(&a, ty, packed);
    if (mk)
        arg_rows(&a, mk, packed);
    else
        arg_opt(&a, NULL, ty, 2);
    bicl_arg_scalar(&a, sizeof has_mask, &has_mask);
    arg_opt(&a, layout->image_grid, positions, 2);
    bicl_arg_scalar(&a, sizeof n_image, &n_image);
    arg_opt(&a, layout->video_grid, positions, 2);
    bicl_arg_scalar(&a, sizeof n_video, &n_video);
    arg_opt(&a, layout->grid_start, positions, 2);
    bicl_arg_scalar(&a, sizeof has_gs, &has_gs);
    arg_opt(&a, layout->second_per_grid, positions, 1);
    bicl_arg_scalar(&a, sizeof has_spg, &has_spg);
    bicl_arg_scalar(&a, sizeof merge, &merge);
    bicl_arg_scalar(&a, sizeof tps, &tps);
    bicl_arg_scalar(&a, sizeof split, &split);
    cl_ulong o_sr = (cl_ulong)positions->stride[0];
    cl_ulong o_sb = packed ? 0 : (cl_ulong)positions->stride[1];
    cl_ulong o_ss = (cl_ulong)positions->stride[packed ? 1 : 2];
    bicl_arg_view(&a, positions);
    bicl_arg_scalar(&a, sizeof o_sr, &o_sr);
    bicl_arg_scalar(&a, sizeof o_sb, &o_sb);
    bicl_arg_scalar(&a, sizeof o_ss, &o_ss);
    arg_opt(&a, deltas, positions, 1);
    bicl_arg_scalar(&a, sizeof has_d, &has_d);
    arg_opt(&a, layout->cu_seqlens, positions, 1);
    bicl_arg_scalar(&a, sizeof has_cu, &has_cu);
    bicl_arg_scalar(&a, sizeof B, &B);
    bicl_arg_scalar(&a, sizeof S, &S);
    bicl_arg_scalar(&a, sizeof ipt, &ipt);
    /* packed: a unit per sequence, then one per token for the tokens none covers */
    size_t units = (size_t)B + (packed ? (size_t)S : 0);
    return bicl_args_launch(ctx, queue, &a, (units + ipt - 1) / ipt, var.work_group_size, n_wait,
                            wait, done);
}

/* ------------------------------------------------- the builder on the host */

static int host_elem(bicl_dtype dt, const void *p, size_t i)
{
    return dt == BICL_U8 ? ((const uint8_t *)p)[i] : ((const int32_t *)p)[i];
}

/* cl/mrope.cl's mrope_grid on host arrays. */
static int host_grid(const bicl_mrope_layout_host *l, int split, int ty, int64_t *ii, int64_t *vj,
                     int64_t *vf, int64_t g3[3], int64_t *video)
{
    *video = -1;
    if (ty == 1) {
        if (*ii < 0 || *ii >= (int64_t)l->n_image)
            return 0;
        for (int a = 0; a < 3; ++a)
            g3[a] = l->image_grid[*ii * 3 + a];
        *ii += 1;
        return 1;
    }
    if (ty != 2 || *vj < 0 || *vj >= (int64_t)l->n_video)
        return 0;
    for (int a = 0; a < 3; ++a)
        g3[a] = l->video_grid[*vj * 3 + a];
    *video = *vj;
    if (!split) {
        *vj += 1;
        return 1;
    }
    int64_t frames = g3[0];
    g3[0] = 1;
    *vf += 1;
    if (*vf >= frames) {
        *vj += 1;
        *vf = 0;
    }
    return frames >= 1;
}

/* One row's walk (cl/mrope.cl's loop body) over tokens [t0, t0 + len) (padded: the
 * row's, at b * seq): write 0 validates, write 1 writes. */
static int host_walk(const bicl_mrope_vision *v, const bicl_mrope_layout_host *l, size_t b,
                     size_t t0, size_t len, int write, int bad, int32_t *positions, int64_t *delta)
{
    size_t N = l->cu_seqlens ? l->seq : l->batch * l->seq;
    bicl_mrope_walk w;
    bicl_mrope_walk_init(&w);
    int64_t ii = l->grid_start ? l->grid_start[b * 2] : 0;
    int64_t ve = l->grid_start ? l->grid_start[b * 2 + 1] : 0, vj = 0, vf = 0;
    if (v->split_video_frames) {
        while (vj < (int64_t)l->n_video && ve > 0) {
            int64_t fr = l->video_grid[vj * 3];
            if (fr < 1 || ve < fr)
                break;
            ve -= fr;
            vj += 1;
        }
        vf = ve;
    } else {
        vj = ve;
    }
    for (size_t s = 0; s < len; ++s) {
        size_t i = t0 + s;
        bool real = !l->mask || host_elem(l->types_dtype, l->mask, i) != 0;
        if (!real) {
            if (write)
                positions[i] = positions[N + i] = positions[2 * N + i] = 0;
            continue;
        }
        int ty = host_elem(l->types_dtype, l->types, i);
        if (ty != w.cur) {
            int64_t g3[3] = {0, 0, 0}, video = -1;
            int ok =
                ty == 0 ? 1 : host_grid(l, v->split_video_frames, ty, &ii, &vj, &vf, g3, &video);
            float sec = l->second_per_grid && video >= 0 ? l->second_per_grid[video] : 1.0f;
            int spaced = ty == 2 && v->tokens_per_second != 0;
            bicl_mrope_walk_open(&w, ty, ok, g3[0], g3[1], g3[2], v->spatial_merge_size, spaced,
                                 bicl_mrope_interval(v->tokens_per_second, sec));
        }
        int64_t ids[3] = {-1, -1, -1};
        bicl_mrope_walk_token(&w, ids);
        if (write)
            for (int a = 0; a < 3; ++a)
                positions[(size_t)a * N + i] = bad ? -1 : (int32_t)ids[a];
    }
    return write ? bad : bicl_mrope_walk_finish(&w, delta) != 0;
}

bicl_status bicl_ref_mrope_positions(const bicl_mrope_vision *vision,
                                     const bicl_mrope_layout_host *layout, int32_t *positions,
                                     int32_t *deltas)
{
    bicl_clear_error();
    if (!layout || !layout->types || !positions)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_ref_mrope_positions: NULL argument");
    bicl_status st = check_vision(vision);
    if (st != BICL_SUCCESS)
        return st;
    if (layout->types_dtype != BICL_U8 && layout->types_dtype != BICL_I32)
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "types must be u8 or i32");
    if ((layout->n_image && !layout->image_grid) || (layout->n_video && !layout->video_grid))
        return bicl_fail(BICL_ERR_NULL_POINTER, "grids are NULL");
    const int32_t *cu = layout->cu_seqlens;
    size_t T = layout->seq, B = layout->batch;
    bool cu_ok = !cu || (cu[0] >= 0 && (int64_t)cu[B] <= (int64_t)T);
    for (size_t b = 0; cu && cu_ok && b < B; ++b)
        cu_ok = cu[b + 1] >= cu[b];
    if (cu) /* tokens no sequence covers (all of them for an unusable cu) */
        for (size_t t = 0; t < T; ++t)
            if (!cu_ok || (int64_t)t < cu[0] || (int64_t)t >= cu[B])
                positions[t] = positions[T + t] = positions[2 * T + t] = -1;
    for (size_t b = 0; b < B; ++b) {
        int64_t delta = 0;
        int bad = 0;
        if (cu_ok) {
            size_t t0 = cu ? (size_t)cu[b] : b * T, len = cu ? (size_t)(cu[b + 1] - cu[b]) : T;
            bad = host_walk(vision, layout, b, t0, len, 0, 0, positions, &delta);
            host_walk(vision, layout, b, t0, len, 1, bad, positions, &delta);
        }
        if (deltas)
            deltas[b] = bad || !cu_ok ? 0 : (int32_t)delta;
    }
    return BICL_SUCCESS;
}

/* ------------------------------------------------------------ config.json */

/* The VL model types whose M-RoPE bicl knows, as transformers 5's rotary classes and
 * get_rope_index compute it (checked by tests/test_mrope.c against
 * tests/data/conformance/rope_mrope_reference.json, which transformers wrote). */
static const struct mrope_model {
    const char *model_type;
    int section[3]; /* the class's default mrope_section */
    bicl_mrope_layout layout;
    int tokens_per_second;   /* vision_config default; 0 = not read */
    bool gptj;               /* GLM-4V's rotate_half_llm: pairs (2i, 2i + 1) */
    bool split_video_frames; /* video grids split per frame (timestamps between) */
} mrope_models[] = {
    {"qwen2_vl", {16, 24, 24}, BICL_MROPE_CHUNKED, 0, false, false},
    {"qwen2_vl_text", {16, 24, 24}, BICL_MROPE_CHUNKED, 0, false, false},
    {"qwen2_5_vl", {16, 24, 24}, BICL_MROPE_CHUNKED, 4, false, false},
    {"qwen2_5_vl_text", {16, 24, 24}, BICL_MROPE_CHUNKED, 4, false, false},
    {"qwen3_vl", {24, 20, 20}, BICL_MROPE_INTERLEAVED, 0, false, true},
    {"qwen3_vl_text", {24, 20, 20}, BICL_MROPE_INTERLEAVED, 0, false, true},
    {"qwen3_vl_moe", {24, 20, 20}, BICL_MROPE_INTERLEAVED, 0, false, true},
    {"qwen3_vl_moe_text", {24, 20, 20}, BICL_MROPE_INTERLEAVED, 0, false, true},
    {"glm4v", {8, 12, 12}, BICL_MROPE_CHUNKED, 0, true, true},
    {"glm4v_text", {8, 12, 12}, BICL_MROPE_CHUNKED, 0, true, true},
};

static const cJSON *json_item(const cJSON *o, const char *key)
{
    const cJSON *it = o ? cJSON_GetObjectItemCaseSensitive(o, key) : NULL;
    return cJSON_IsNull(it) ? NULL : it;
}

static bicl_status hf_bad(const char *prefix, const char *key, const char *why)
{
    return bicl_fail(BICL_ERR_INVALID_CONFIG, "config.json: %s%s %s", prefix, key, why);
}

/* The model type's entry (text_config's model_type, else the top level's). */
static const struct mrope_model *find_mrope_model(const cJSON *root, const cJSON *text)
{
    const cJSON *mt[2] = {json_item(text, "model_type"), json_item(root, "model_type")};
    for (int i = 0; i < 2; ++i) {
        if (!mt[i] || !cJSON_IsString(mt[i]) || !mt[i]->valuestring)
            continue;
        for (size_t j = 0; j < sizeof mrope_models / sizeof mrope_models[0]; ++j)
            if (strcmp(mt[i]->valuestring, mrope_models[j].model_type) == 0)
                return &mrope_models[j];
    }
    return NULL;
}

/* mrope_section and mrope_interleaved of the rope dict (rope_scaling, else
 * rope_parameters, as bicl_rope_config_from_hf_json_ex picks it). */
static bicl_status read_sections(const cJSON *m, const char *mprefix, const struct mrope_model *mm,
                                 bicl_mrope_config *out)
{
    const char *key = json_item(m, "rope_scaling") ? "rope_scaling" : "rope_parameters";
    const cJSON *r = json_item(m, key);
    char prefix[96];
    snprintf(prefix, sizeof prefix, "%s%s.", mprefix, key);
    out->layout = mm->layout;
    memcpy(out->section, mm->section, sizeof out->section);
    const cJSON *sec = json_item(r, "mrope_section");
    if (sec) {
        if (!cJSON_IsArray(sec) || cJSON_GetArraySize(sec) != 3)
            return hf_bad(prefix, "mrope_section", "must be an array of three whole numbers");
        int a = 0;
        for (const cJSON *e = sec->child; e; e = e->next, ++a) {
            if (!cJSON_IsNumber(e) || e->valuedouble != floor(e->valuedouble) ||
                e->valuedouble < 0 || e->valuedouble > 65536)
                return hf_bad(prefix, "mrope_section",
                              "must be an array of three whole numbers "
                              ">= 0");
            out->section[a] = (int)e->valuedouble;
        }
    }
    /* transformers takes the layout from the model type and never reads this key; a
     * config that says otherwise is not one transformers would rotate as it says. */
    const cJSON *il = json_item(r, "mrope_interleaved");
    if (il && (!cJSON_IsBool(il) || cJSON_IsTrue(il) != (mm->layout == BICL_MROPE_INTERLEAVED)))
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %smrope_interleaved contradicts transformers' %s, whose "
                         "layout is %s",
                         prefix, mm->model_type,
                         mm->layout == BICL_MROPE_INTERLEAVED ? "interleaved" : "chunked");
    return BICL_SUCCESS;
}

/* vision_config's keys get_rope_index reads. */
static bicl_status read_vision(const cJSON *root, const struct mrope_model *mm,
                               bicl_mrope_vision *v)
{
    const cJSON *vc = json_item(root, "vision_config");
    v->spatial_merge_size = 2;
    v->tokens_per_second = mm->tokens_per_second;
    v->split_video_frames = mm->split_video_frames;
    static const char *const keys[] = {"spatial_merge_size", "tokens_per_second"};
    int *dst[] = {&v->spatial_merge_size, &v->tokens_per_second};
    for (int i = 0; i < (mm->tokens_per_second ? 2 : 1); ++i) {
        const cJSON *it = json_item(vc, keys[i]);
        if (!it)
            continue;
        if (!cJSON_IsNumber(it) || it->valuedouble != floor(it->valuedouble) ||
            it->valuedouble < 1 || it->valuedouble > 1 << 20)
            return hf_bad("vision_config.", keys[i], "must be a whole number in [1, 2^20]");
        *dst[i] = (int)it->valuedouble;
    }
    return BICL_SUCCESS;
}

static bicl_status mrope_from_json(const char *json_text, const bicl_rope_hf_options *opt,
                                   bicl_rope_config *cfg, bicl_mrope_config *m,
                                   bicl_mrope_vision *vision)
{
    cJSON *root = cJSON_Parse(json_text);
    if (!root || !cJSON_IsObject(root)) {
        cJSON_Delete(root);
        /* the 1-D reader names the line and column */
        return bicl_rope_config_from_hf_json_ex(json_text, opt, cfg) == BICL_SUCCESS
                   ? bicl_fail(BICL_ERR_INVALID_CONFIG, "config.json: not a JSON object")
                   : BICL_ERR_INVALID_CONFIG;
    }
    const cJSON *text = json_item(root, "text_config");
    const cJSON *mobj = cJSON_IsObject(text) ? text : root;
    const char *mprefix = mobj == root ? "" : "text_config.";
    const struct mrope_model *mm = find_mrope_model(root, cJSON_IsObject(text) ? text : NULL);
    bicl_status st = BICL_SUCCESS;
    if (!mm)
        st = bicl_fail(BICL_ERR_INVALID_CONFIG,
                       "config.json: model_type is not an M-RoPE model type bicl knows (qwen2_vl, "
                       "qwen2_5_vl, qwen3_vl, qwen3_vl_moe, glm4v and their _text configs)");
    if (st == BICL_SUCCESS)
        st = read_sections(mobj, mprefix, mm, m);
    bicl_mrope_vision vis = {2, 0, 0};
    if (st == BICL_SUCCESS)
        st = read_vision(root, mm, &vis);
    if (st == BICL_SUCCESS && vision)
        *vision = vis;
    cJSON_Delete(root);
    if (st != BICL_SUCCESS)
        return st;
    /* GLM-4V is not in the 1-D table (its text rotary refuses 1-D positions): its pair
     * style comes from this table, its partial rotary key from the config. */
    bicl_rope_hf_options o;
    bicl_rope_hf_options_init(&o);
    o.layer_type = opt ? opt->layer_type : NULL;
    if (mm->gptj) {
        o.explicit_style = 1;
        o.style = BICL_ROPE_GPTJ;
    }
    st = bicl_rope_config_from_hf_json_ex(json_text, &o, cfg);
    if (st != BICL_SUCCESS)
        return st;
    if (cfg->type != BICL_ROPE_DEFAULT) {
        bicl_rope_config_release(cfg);
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %srope_type: M-RoPE is read with the default frequencies "
                         "only (transformers' VL configs rename \"mrope\" to \"default\"; "
                         "scaled M-RoPE is not in bicl's conformance data)",
                         mprefix);
    }
    return bicl_mrope_config_check(cfg, m);
}

bicl_status bicl_mrope_config_from_hf_json_sized(const char *json_text,
                                                 const bicl_rope_hf_options *opt,
                                                 bicl_rope_config *cfg, size_t cfg_struct_size,
                                                 bicl_mrope_config *m, size_t m_struct_size,
                                                 bicl_mrope_vision *vision)
{
    bicl_clear_error();
    if (!json_text || !cfg || !m)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_mrope_config_from_hf_json: NULL argument");
    /* the caller's options at this library's size (abi.h); the 1-D reader checks the
     * rest of them */
    bicl_rope_hf_options o;
    bicl_rope_hf_options_init(&o);
    bicl_status st = opt ? bicl_abi_load(&o, sizeof o, opt, sizeof o, "bicl_rope_hf_options",
                                         BICL_ERR_INVALID_PARAMETER)
                         : BICL_SUCCESS;
    if (st == BICL_SUCCESS && o.explicit_style)
        st = bicl_fail(BICL_ERR_INVALID_PARAMETER,
                       "explicit_style: an M-RoPE model type decides its own pair style");
    bicl_rope_config cfg_full;
    bicl_mrope_config m_full;
    bicl_rope_config_defaults(&cfg_full, 0, 0);
    mrope_config_defaults(&m_full);
    if (st == BICL_SUCCESS && m_struct_size < sizeof m_full)
        st = bicl_fail(BICL_ERR_INVALID_CONFIG,
                       "bicl_mrope_config struct_size %zu (this library writes %zu bytes)",
                       m_struct_size, sizeof m_full);
    if (st == BICL_SUCCESS)
        st = mrope_from_json(json_text, &o, &cfg_full, &m_full, vision);
    if (st == BICL_SUCCESS)
        st = bicl_rope_config_store(&cfg_full, cfg, cfg_struct_size);
    if (st == BICL_SUCCESS)
        bicl_abi_store(m, m_struct_size, &m_full, sizeof m_full);
    if (st != BICL_SUCCESS) {
        bicl_rope_config_release(&cfg_full);
        bicl_rope_config_init_sized(cfg, cfg_struct_size, 0, 0);
        bicl_mrope_config_init_sized(m, m_struct_size);
    }
    return st;
}
