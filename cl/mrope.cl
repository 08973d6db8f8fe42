/* mrope.cl - bicl_mrope_positions (transformers' get_rope_index) on the device.
 *
 * bicl_mrope_apply's rotation runs RoPE's kernels (cl/rope.cl, their M-RoPE forms: each
 * pair at the position of its row); this program holds the position-id builders only. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_mrope.h"

/* Instances the host appends: "MROPE_BUILDERS" (the builders are in every program). */
#define MROPE_BUILDERS

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
