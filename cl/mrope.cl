/* mrope.cl - bicl_mrope_apply (M-RoPE) and bicl_mrope_positions (get_rope_index).
 *
 * The rotation is bicl_rope_apply's with one change: pair i takes the position of its
 * row (bicl_mrope_row), so a unit reads the token's three positions and each pair looks
 * up its own. One work unit is (token, block of heads, pair); the host sizes the head
 * blocks as for 1-D RoPE (all heads of a token per unit when there are enough tokens,
 * one head per unit for decode). Units past the rotary pairs copy the pass-through
 * elements. Every element is computed the same way whatever the work-group size, units
 * per work-item or head block: the same stored input bits, the same (cos, sin) bits of
 * that pair and position, bicl_rope_rot0/rot1, the same store conversion.
 *
 * A token with an out-of-range position in any row is counted once (by its first unit)
 * with the smallest bad value among its rows, and its rotary elements become the
 * canonical NaN; nothing is read at a bad position. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_rope_rotate.h"
#include "bicl_rope_math.h"
#include "bicl_mrope.h"

/* Bits of the flags argument (src/mrope.c writes the same values). */
#define MROPE_GPTJ        1u
#define MROPE_INVERSE     2u
#define MROPE_INLINE      4u
#define MROPE_HF          8u
#define MROPE_Q_IN_PLACE  16u
#define MROPE_K_IN_PLACE  32u
#define MROPE_INTERLEAVED 64u

/* (cos, sin) of pair i at position p: the plan's table, or the device's fp64 math. */
BICL_FN float2 mrope_cos_sin(int p, uint i, uint half_r, uint flags, global const float2 *table,
                             global const ulong *inv_bits, global const float *inv_f,
                             ulong attn_bits, float attn_f)
{
    if (!(flags & MROPE_INLINE))
        return table[(ulong)p * half_r + i];
#ifdef BICL_HAVE_FP64
    float c, s;
    if (flags & MROPE_HF)
        bicl_rope_cos_sin_hf(p, inv_f[i], attn_f, &c, &s);
    else
        bicl_rope_cos_sin_exact(p, as_double(inv_bits[i]), as_double(attn_bits), &c, &s);
    return (float2)(c, s);
#else
    (void)inv_bits;
    (void)inv_f;
    (void)attn_bits;
    (void)attn_f;
    return (float2)(bicl_f32_canonical_nan(), bicl_f32_canonical_nan());
#endif
}

/* Arguments: positions (buffer, offset, row, b and s strides), S, T; q in/out views
 * (buffer, offset, (b, s, head, element) strides), hq; the same for k, hk; half_r,
 * pass = head_dim - rotary_dim; groups = units per (token, head block) = max(half_r,
 * pass); hpu heads per block, hblocks blocks per token; flags; the sections; the
 * cos/sin sources; limit = largest valid position; err = (count, smallest bad). */
#define MROPE_KERNEL(TI, TO)                                                                       \
    kernel void mrope_##TI##_##TO(                                                                 \
        global const int *restrict pos, ulong pos_off, ulong pos_sr, ulong pos_sb, ulong pos_ss,   \
        ulong S, ulong T, global const BICL_ST_##TI *qi, ulong qi_off, ulong4 qi_st,               \
        global BICL_ST_##TO *qo, ulong qo_off, ulong4 qo_st, uint hq,                              \
        global const BICL_ST_##TI *ki, ulong ki_off, ulong4 ki_st, global BICL_ST_##TO *ko,        \
        ulong ko_off, ulong4 ko_st, uint hk, uint half_r, uint pass, uint groups, uint hpu,        \
        uint hblocks, uint flags, int s0, int s1, int s2, global const float2 *table,              \
        global const ulong *inv_bits, global const float *inv_f, ulong attn_bits, float attn_f,    \
        int limit, global int *err, uint ipt)                                                      \
    {                                                                                              \
        const bool gptj = (flags & MROPE_GPTJ) != 0;                                               \
        const int inv = (flags & MROPE_INVERSE) != 0;                                              \
        const int il = (flags & MROPE_INTERLEAVED) != 0;                                           \
        const ulong units = T * hblocks * groups;                                                  \
        BICL_FOR_UNITS(u, units, ipt)                                                              \
        {                                                                                          \
            ulong g_, hb_, s;                                                                      \
            ulong th = bicl_divmod(u, groups, &g_);                                                \
            ulong t = bicl_divmod(th, hblocks, &hb_);                                              \
            ulong b = bicl_divmod(t, S, &s);                                                       \
            uint i = (uint)g_, h0 = (uint)hb_ * hpu;                                               \
            uint h1 = h0 + min(hpu, hq + hk - h0);                                                 \
            ulong pa = pos_off + b * pos_sb + s * pos_ss;                                          \
            int p3[3];                                                                             \
            p3[0] = pos[pa];                                                                       \
            p3[1] = pos[pa + pos_sr];                                                              \
            p3[2] = pos[pa + 2 * pos_sr];                                                          \
            bool ok = true;                                                                        \
            int worst = 2147483647;                                                                \
            for (int a = 0; a < 3; ++a)                                                            \
                if (!(p3[a] >= 0 && p3[a] <= limit)) {                                             \
                    ok = false;                                                                    \
                    worst = min(worst, p3[a]);                                                     \
                }                                                                                  \
            if (!ok && hb_ == 0 && i == 0) {                                                       \
                atomic_min(&err[1], worst); /* before the count: see rope_errors_take */           \
                atomic_inc(&err[0]);                                                               \
            }                                                                                      \
            float2 cs = (float2)(0.0f, 0.0f);                                                      \
            if (i < half_r && ok)                                                                  \
                cs = mrope_cos_sin(p3[bicl_mrope_row((int)i, s0, s1, s2, il)], i, half_r, flags,   \
                                   table, inv_bits, inv_f, attn_bits, attn_f);                     \
            uint e0 = gptj ? 2u * i : i, e1 = gptj ? 2u * i + 1u : half_r + i;                     \
            uint ep = 2u * half_r + i;                                                             \
            for (uint h = h0; h < h1; ++h) {                                                       \
                bool isq = h < hq;                                                                 \
                uint hh = isq ? h : h - hq;                                                        \
                ulong4 ist = isq ? qi_st : ki_st, ost = isq ? qo_st : ko_st;                       \
                global const BICL_ST_##TI *x = (isq ? qi : ki) + (isq ? qi_off : ki_off) +         \
                                               b * ist.s0 + s * ist.s1 + (ulong)hh * ist.s2;       \
                global BICL_ST_##TO *y = (isq ? qo : ko) + (isq ? qo_off : ko_off) + b * ost.s0 +  \
                                         s * ost.s1 + (ulong)hh * ost.s2;                          \
                if (i < half_r) {                                                                  \
                    float x0 = BICL_LD_##TI(x[(ulong)e0 * ist.s3]);                                \
                    float x1 = BICL_LD_##TI(x[(ulong)e1 * ist.s3]);                                \
                    float o0 = bicl_f32_canonical_nan(), o1 = o0;                                  \
                    if (ok) {                                                                      \
                        o0 = bicl_rope_rot0(x0, x1, cs.x, cs.y, inv);                              \
                        o1 = bicl_rope_rot1(x0, x1, cs.x, cs.y, inv);                              \
                    }                                                                              \
                    y[(ulong)e0 * ost.s3] = BICL_SV_##TO(o0);                                      \
                    y[(ulong)e1 * ost.s3] = BICL_SV_##TO(o1);                                      \
                }                                                                                  \
                bool copy = !(flags & (isq ? MROPE_Q_IN_PLACE : MROPE_K_IN_PLACE));                \
                if (i < pass && copy)                                                              \
                    y[(ulong)ep * ost.s3] = BICL_CONV(TI, TO, x[(ulong)ep * ist.s3]);              \
            }                                                                                      \
        }                                                                                          \
    }

/* Instances the host appends: "MROPE_KERNEL(ti, to)", or "MROPE_BUILDERS" for a program
 * with the position builders only (they are in every program). */
#define MROPE_BUILDERS
#ifndef BICL_SELECTED
BICL_FOR_DTYPE_PAIRS(MROPE_KERNEL)
#endif

/* ------------------------------------------------------------- position ids */

/* The grid of a new vision run of type ty, from the cursors of the row: images one grid
 * per run; videos one grid per run, or (split) one frame of video vj per run. */
BICL_FN int mrope_grid(int ty, global const int *ig, ulong ig_off, ulong ig_s0, ulong ig_s1,
                       uint n_image, global const int *vg, ulong vg_off, ulong vg_s0, ulong vg_s1,
                       uint n_video, uint split, long *ii, long *vj, long *vf, long *g3,
                       long *video)
{
    *video = -1;
    if (ty == 1) {
        if (*ii < 0 || *ii >= (long)n_image)
            return 0;
        for (int a = 0; a < 3; ++a)
            g3[a] = ig[ig_off + (ulong)*ii * ig_s0 + (ulong)a * ig_s1];
        *ii += 1;
        return 1;
    }
    if (ty != 2 || *vj < 0 || *vj >= (long)n_video)
        return 0;
    for (int a = 0; a < 3; ++a)
        g3[a] = vg[vg_off + (ulong)*vj * vg_s0 + (ulong)a * vg_s1];
    *video = *vj;
    if (!split) {
        *vj += 1;
        return 1;
    }
    long frames = g3[0];
    g3[0] = 1;
    *vf += 1;
    if (*vf >= frames) {
        *vj += 1;
        *vf = 0;
    }
    return frames >= 1;
}

/* A packed layout's cu_seqlens is usable when cu[0] >= 0, it never decreases and
 * cu[B] <= T: then the sequences are disjoint and every walk stays in bounds. Each unit
 * checks it (B reads), so no unit depends on another's result. */
BICL_FN bool mrope_cu_valid(global const int *cu, ulong cu_off, ulong cu_st, ulong B, ulong T)
{
    if (cu[cu_off] < 0 || (ulong)cu[cu_off + B * cu_st] > T)
        return false;
    for (ulong b = 0; b < B; ++b)
        if (cu[cu_off + (b + 1) * cu_st] < cu[cu_off + b * cu_st])
            return false;
    return true;
}

/* One work unit per row b of [B, S] types (TT) and optional mask (MT), or per sequence
 * of packed [T] types (cu_seqlens): two walks over its tokens, the first to validate its
 * layout against the grids, the second to write. */
#define MROPE_POSITIONS(TT, MT, NAME)                                                              \
    kernel void NAME(                                                                              \
        global const TT *types, ulong ty_off, ulong ty_sb, ulong ty_ss, global const MT *mask,     \
        ulong mk_off, ulong mk_sb, ulong mk_ss, uint has_mask, global const int *ig, ulong ig_off, \
        ulong ig_s0, ulong ig_s1, uint n_image, global const int *vg, ulong vg_off, ulong vg_s0,   \
        ulong vg_s1, uint n_video, global const int *gs, ulong gs_off, ulong gs_s0, ulong gs_s1,   \
        uint has_gs, global const float *spg, ulong spg_off, ulong spg_st, uint has_spg,           \
        int merge, int tps, uint split, global int *out, ulong o_off, ulong o_sr, ulong o_sb,      \
        ulong o_ss, global int *deltas, ulong d_off, ulong d_st, uint has_deltas,                  \
        global const int *cu, ulong cu_off, ulong cu_st, uint has_cu, ulong B, ulong S, uint ipt)  \
    {                                                                                              \
        BICL_FOR_UNITS(u, B + (has_cu ? S : 0), ipt)                                               \
        {                                                                                          \
            /* packed: S is T, row b is tokens [cu[b], cu[b + 1]); the units past B give -1        \
             * to the tokens no sequence covers (every token, for a cu that is not valid) */       \
            bool cu_ok = has_cu ? mrope_cu_valid(cu, cu_off, cu_st, B, S) : true;                  \
            if (u >= B) {                                                                          \
                ulong t = u - B;                                                                   \
                if (!cu_ok || (long)t < cu[cu_off] || (long)t >= cu[cu_off + B * cu_st]) {         \
                    ulong o = o_off + t * o_ss;                                                    \
                    out[o] = out[o + o_sr] = out[o + 2 * o_sr] = -1;                               \
                }                                                                                  \
                continue;                                                                          \
            }                                                                                      \
            ulong b = u, t0 = 0, len = S;                                                          \
            if (has_cu) {                                                                          \
                if (!cu_ok) {                                                                      \
                    if (has_deltas)                                                                \
                        deltas[d_off + b * d_st] = 0;                                              \
                    continue;                                                                      \
                }                                                                                  \
                t0 = (ulong)cu[cu_off + b * cu_st];                                                \
                len = (ulong)cu[cu_off + (b + 1) * cu_st] - t0;                                    \
            }                                                                                      \
            int bad = 0;                                                                           \
            long delta = 0;                                                                        \
            for (int write = 0; write < 2; ++write) {                                              \
                bicl_mrope_walk w;                                                                 \
                bicl_mrope_walk_init(&w);                                                          \
                long ii = has_gs ? gs[gs_off + b * gs_s0] : 0;                                     \
                long ve = has_gs ? gs[gs_off + b * gs_s0 + gs_s1] : 0, vj = 0, vf = 0;             \
                if (split) { /* expanded frame index ve -> (video vj, frame vf) */                 \
                    while (vj < (long)n_video && ve > 0) {                                         \
                        long fr = vg[vg_off + (ulong)vj * vg_s0];                                  \
                        if (fr < 1 || ve < fr)                                                     \
                            break;                                                                 \
                        ve -= fr;                                                                  \
                        vj += 1;                                                                   \
                    }                                                                              \
                    vf = ve;                                                                       \
                } else {                                                                           \
                    vj = ve;                                                                       \
                }                                                                                  \
                for (ulong s_ = 0; s_ < len; ++s_) {                                               \
                    ulong s = t0 + s_;                                                             \
                    ulong o = o_off + b * o_sb + s * o_ss;                                         \
                    bool real = !has_mask || mask[mk_off + b * mk_sb + s * mk_ss] != 0;            \
                    if (!real) {                                                                   \
                        if (write)                                                                 \
                            out[o] = out[o + o_sr] = out[o + 2 * o_sr] = 0;                        \
                        continue;                                                                  \
                    }                                                                              \
                    int ty = (int)types[ty_off + b * ty_sb + s * ty_ss];                           \
                    if (ty != w.cur) {                                                             \
                        long g3[3] = {0, 0, 0}, video = -1;                                        \
                        int ok = ty == 0 ? 1                                                       \
                                         : mrope_grid(ty, ig, ig_off, ig_s0, ig_s1, n_image, vg,   \
                                                      vg_off, vg_s0, vg_s1, n_video, split, &ii,   \
                                                      &vj, &vf, g3, &video);                       \
                        float sec =                                                                \
                            has_spg && video >= 0 ? spg[spg_off + (ulong)video * spg_st] : 1.0f;   \
                        int spaced = ty == 2 && tps != 0;                                          \
                        bicl_mrope_walk_open(&w, ty, ok, g3[0], g3[1], g3[2], merge, spaced,       \
                                             bicl_mrope_interval(tps, sec));                       \
                    }                                                                              \
                    long ids[3] = {-1, -1, -1};                                                    \
                    bicl_mrope_walk_token(&w, ids);                                                \
                    if (write)                                                                     \
                        for (int a = 0; a < 3; ++a)                                                \
                            out[o + (ulong)a * o_sr] = bad ? -1 : (int)ids[a];                     \
                }                                                                                  \
                if (!write)                                                                        \
                    bad = bicl_mrope_walk_finish(&w, &delta) != 0;                                 \
            }                                                                                      \
            if (has_deltas)                                                                        \
                deltas[d_off + b * d_st] = bad ? 0 : (int)delta;                                   \
        }                                                                                          \
    }

MROPE_POSITIONS(int, int, mrope_positions_i32_i32)
MROPE_POSITIONS(int, uchar, mrope_positions_i32_u8)
MROPE_POSITIONS(uchar, int, mrope_positions_u8_i32)
MROPE_POSITIONS(uchar, uchar, mrope_positions_u8_u8)
