/* rope.cl - bicl_rope_apply and the position-id builders.
 *
 * One work unit is (token, lane): lane < rotary_dim/2 rotates pair `lane` of every q
 * and k head of the token, so cos/sin are fetched or computed once per (token, pair)
 * and consecutive units touch consecutive elements; lane < head_dim - rotary_dim
 * copies one pass-through element of every head when the output is not in place.
 * Positions are checked here: an out-of-range one is counted and its token's rotary
 * elements become NaN; nothing is read at that position. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_rope_rotate.h"
#include "bicl_rope_math.h"

/* Bits of the flags argument (src/rope.c writes the same values). */
#define ROPE_GPTJ        1u
#define ROPE_INVERSE     2u
#define ROPE_INLINE      4u
#define ROPE_HF          8u
#define ROPE_Q_IN_PLACE  16u
#define ROPE_K_IN_PLACE  32u

/* Element (b, s, head, e) of a view with strides st = (b, s, head, element). */
BICL_FN ulong rope_index(ulong off, ulong4 st, ulong b, ulong s, uint h, uint e)
{
    return off + b * st.s0 + s * st.s1 + (ulong)h * st.s2 + (ulong)e * st.s3;
}

/* cos/sin of pair i at position p from the chosen source. */
BICL_FN float2 rope_cos_sin(int p, uint i, uint half_r, uint flags, global const float2 *table,
                            global const ulong *inv_bits, global const float *inv_f,
                            ulong attn_bits, float attn_f)
{
    float2 cs = (float2)(0.0f, 0.0f);
    if (!(flags & ROPE_INLINE)) {
        cs = table[(ulong)p * half_r + i];
    } else {
#ifdef BICL_HAVE_FP64
        float c, s;
        if (flags & ROPE_HF)
            bicl_rope_cos_sin_hf(p, inv_f[i], attn_f, &c, &s);
        else
            bicl_rope_cos_sin_exact(p, as_double(inv_bits[i]), as_double(attn_bits), &c, &s);
        cs = (float2)(c, s);
#else
        (void)inv_bits;
        (void)inv_f;
        (void)attn_bits;
        (void)attn_f;
        cs = (float2)(bicl_f32_canonical_nan(), bicl_f32_canonical_nan());
#endif
    }
    return cs;
}

#define ROPE_KERNEL(TI, TO)                                                                    \
    kernel void rope_##TI##_##TO(                                                              \
        global const int *pos, ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S, ulong T,    \
        global const BICL_ST_##TI *qi, ulong qi_off, ulong4 qi_st, global BICL_ST_##TO *qo,    \
        ulong qo_off, ulong4 qo_st, uint hq, global const BICL_ST_##TI *ki, ulong ki_off,      \
        ulong4 ki_st, global BICL_ST_##TO *ko, ulong ko_off, ulong4 ko_st, uint hk,            \
        uint half_r, uint pass, uint lanes, uint flags, global const float2 *table,            \
        global const ulong *inv_bits, global const float *inv_f, ulong attn_bits,              \
        float attn_f, int limit, global int *err, uint ipt)                                    \
    {                                                                                          \
        BICL_FOR_UNITS(u, T * lanes)                                                           \
        {                                                                                      \
            ulong t = u / lanes;                                                               \
            uint lane = (uint)(u % lanes);                                                     \
            ulong b = t / S, s = t % S;                                                        \
            int p = pos[pos_off + b * pos_sb + s * pos_ss];                                    \
            bool ok = p >= 0 && p <= limit;                                                   \
            if (!ok && lane == 0) {                                                            \
                atomic_inc(&err[0]);                                                           \
                atomic_min(&err[1], p);                                                        \
            }                                                                                  \
            if (lane < half_r) {                                                               \
                float2 cs = ok ? rope_cos_sin(p, lane, half_r, flags, table, inv_bits, inv_f,  \
                                              attn_bits, attn_f)                               \
                               : (float2)(bicl_f32_canonical_nan(), 0.0f);                     \
                uint e0 = (flags & ROPE_GPTJ) ? 2u * lane : lane;                              \
                uint e1 = (flags & ROPE_GPTJ) ? 2u * lane + 1u : lane + half_r;                \
                int inv = (flags & ROPE_INVERSE) != 0;                                         \
                for (uint h = 0; h < hq + hk; ++h) {                                           \
                    bool isq = h < hq;                                                         \
                    uint hh = isq ? h : h - hq;                                                \
                    global const BICL_ST_##TI *xi = isq ? qi : ki;                             \
                    global BICL_ST_##TO *xo = isq ? qo : ko;                                   \
                    ulong io = isq ? qi_off : ki_off, oo = isq ? qo_off : ko_off;              \
                    ulong4 ist = isq ? qi_st : ki_st, ost = isq ? qo_st : ko_st;               \
                    float x0 = BICL_LD_##TI(xi[rope_index(io, ist, b, s, hh, e0)]);            \
                    float x1 = BICL_LD_##TI(xi[rope_index(io, ist, b, s, hh, e1)]);            \
                    float o0 = bicl_rope_rot0(x0, x1, cs.x, cs.y, inv);                        \
                    float o1 = bicl_rope_rot1(x0, x1, cs.x, cs.y, inv);                        \
                    if (!ok) {                                                                 \
                        o0 = bicl_f32_canonical_nan();                                         \
                        o1 = o0;                                                               \
                    }                                                                          \
                    xo[rope_index(oo, ost, b, s, hh, e0)] = BICL_SV_##TO(o0);                  \
                    xo[rope_index(oo, ost, b, s, hh, e1)] = BICL_SV_##TO(o1);                  \
                }                                                                              \
            }                                                                                  \
            if (lane < pass) {                                                                 \
                uint e = 2u * half_r + lane;                                                   \
                for (uint h = 0; h < hq + hk; ++h) {                                           \
                    bool isq = h < hq;                                                         \
                    if ((isq && (flags & ROPE_Q_IN_PLACE)) || (!isq && (flags & ROPE_K_IN_PLACE))) \
                        continue;                                                              \
                    uint hh = isq ? h : h - hq;                                                \
                    global const BICL_ST_##TI *xi = isq ? qi : ki;                             \
                    global BICL_ST_##TO *xo = isq ? qo : ko;                                   \
                    ulong i_at = rope_index(isq ? qi_off : ki_off, isq ? qi_st : ki_st, b, s, hh, e); \
                    ulong o_at = rope_index(isq ? qo_off : ko_off, isq ? qo_st : ko_st, b, s, hh, e); \
                    xo[o_at] = BICL_CONV(TI, TO, xi[i_at]);                                    \
                }                                                                              \
            }                                                                                  \
        }                                                                                      \
    }

/* Instances the host appends: "ROPE_KERNEL(ti, to)", or "ROPE_BUILDERS" for a program
 * with the position-id builders only (they are in every program). */
#define ROPE_BUILDERS
#ifndef BICL_SELECTED
BICL_FOR_DTYPE_PAIRS(ROPE_KERNEL)
#endif

/* ------------------------------------------------------------- position ids */

/* positions[t] = start[b] + (t - cu[b]) for cu[b] <= t < cu[b+1]; -1 when no b fits.
 * Binary search over the B + 1 boundaries, so each token is independent. */
kernel void positions_packed(global const int *cu, ulong cu_off, ulong cu_st, uint batch,
                             global const int *start, ulong st_off, ulong st_st, uint has_start,
                             global int *out, ulong out_off, ulong out_st, ulong T, uint ipt)
{
    BICL_FOR_UNITS(t, T)
    {
        uint lo = 0, hi = batch; /* find the last b with cu[b] <= t */
        while (lo < hi) {
            uint mid = (lo + hi + 1u) / 2u;
            if ((long)cu[cu_off + mid * cu_st] <= (long)t)
                lo = mid;
            else
                hi = mid - 1u;
        }
        long c0 = cu[cu_off + lo * cu_st];
        long c1 = lo < batch ? cu[cu_off + (lo + 1u) * cu_st] : c0;
        int p = -1;
        if (lo < batch && c0 <= (long)t && (long)t < c1) {
            long base = has_start ? start[st_off + lo * st_st] : 0;
            long v = base + ((long)t - c0);
            p = (v >= 0 && v <= 2147483647L) ? (int)v : -1;
        }
        out[out_off + t * out_st] = p;
    }
}

/* One work unit per row: a running count of real tokens (mask != 0). */
#define POSITIONS_PADDED(MT, NAME)                                                             \
    kernel void NAME(global const MT *mask, ulong m_off, ulong m_sb, ulong m_ss,               \
                     global const int *start, ulong st_off, ulong st_st, uint has_start,       \
                     global int *out, ulong o_off, ulong o_sb, ulong o_ss, ulong B, ulong S,   \
                     uint ipt)                                                                 \
    {                                                                                          \
        BICL_FOR_UNITS(b, B)                                                                   \
        {                                                                                      \
            long base = has_start ? start[st_off + b * st_st] : 0;                             \
            long seen = 0;                                                                     \
            for (ulong s = 0; s < S; ++s) {                                                    \
                bool real = mask[m_off + b * m_sb + s * m_ss] != 0;                            \
                long v = base + seen;                                                          \
                int p = real ? ((v >= 0 && v <= 2147483647L) ? (int)v : -1) : 0;               \
                out[o_off + b * o_sb + s * o_ss] = p;                                          \
                seen += real ? 1 : 0;                                                          \
            }                                                                                  \
        }                                                                                      \
    }

POSITIONS_PADDED(uchar, positions_padded_u8)
POSITIONS_PADDED(int, positions_padded_i32)
