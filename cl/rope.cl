/* rope.cl - bicl_rope_apply and the position-id builders.
 *
 * One work unit is (token, block of heads, group of VW pairs). The host sizes the
 * blocks: all heads of a token when there are enough tokens (one table load or fp64
 * sincos per pair serves them all), down to one head per unit for decode (one token),
 * which then has hq + hk times the parallelism. Units are numbered group-fastest, so
 * consecutive work-items touch consecutive elements of a head.
 *
 * rope_<ti>_<to>_v1 is the general path: any strides, one pair per unit. The _v4/_v8
 * kernels move VW consecutive pairs with vector loads and stores (NeoX: x[i..i+VW) and
 * x[half+i..half+i+VW); GPT-J: x[2i..2i+2VW) as two vectors) and the VW float2 table
 * entries of those pairs with one vector load. The host runs them only when every q/k
 * view has element stride 1 and its offset and other strides are multiples of VW, and
 * VW divides rotary_dim / 2 (so every pair group is whole and the table rows, the
 * second NeoX half and the pass-through block are aligned too); only the pass-through
 * block can end in a partial group, copied element by element.
 *
 * Every variant computes each output element the same way: the same stored input bits
 * converted to f32, the same (cos, sin) bits, bicl_rope_rot0/rot1, the same store
 * conversion (16-bit in and out of one type: rope_rot_w16, their bits on the stored words;
 * ROPE_ROT_STORED). Vectors move bits only, so the variant never changes an output bit.
 *
 * The rows form (ROPE_ROWS_AS, PoCL's) maps the same arithmetic one pair per work-item in
 * a 2-d launch; see its comment.
 *
 * M-RoPE (bicl_mrope_apply) runs these kernels in their M-RoPE forms: a token has three
 * positions and each pair rotates at the position of its section's row (below,
 * rope_token_positions and rope_pair_position); nothing else differs.
 *
 * Positions are checked here: an out-of-range one is counted once per token (by its
 * first unit) and its token's rotary elements become the canonical NaN; nothing is read
 * at that position. Pass-through elements are still copied. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_kernel.h"
#include "bicl_rope_rotate.h"
#include "bicl_rope_math.h"
#include "bicl_mrope.h"
#include "bicl_rope_flags.h" /* the flags argument's bits, M-RoPE's modes */

/* Element 0 of head h of token (b, s) in a view with strides st = (b, s, head, element). */
BICL_FN ulong rope_head_at(ulong off, ulong4 st, ulong b, ulong s, uint h)
{
    return off + b * st.s0 + s * st.s1 + (ulong)h * st.s2;
}

/* cos/sin of pair i at position p, computed on the device (ROPE_INLINE). */
BICL_FN float2 rope_cos_sin_inline(int p, uint i, uint flags, global const ulong *inv_bits,
                                   global const float *inv_f, ulong attn_bits, float attn_f)
{
#ifdef BICL_HAVE_FP64
    float c, s;
    if (flags & ROPE_HF)
        bicl_rope_cos_sin_hf(p, inv_f[i], attn_f, &c, &s);
    else
        bicl_rope_cos_sin_exact(p, as_double(inv_bits[i]), as_double(attn_bits), &c, &s);
    return (float2)(c, s);
#else
    (void)p;
    (void)i;
    (void)flags;
    (void)inv_bits;
    (void)inv_f;
    (void)attn_bits;
    (void)attn_f;
    return (float2)(bicl_f32_canonical_nan(), bicl_f32_canonical_nan());
#endif
}

/* Where the position of token t (batch row b, index s in it; one_row: b = 0, s = t) is, for
 * the rows form: plain divisions, which LLVM hoists out of PoCL's work-item loop (bicl_divmod's
 * branch kept the loop scalar). */
BICL_FN ulong rope_row_position_at(ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S, uint t,
                                   uint one_row, ulong *b, ulong *s)
{
    *b = one_row ? 0 : t / S;
    *s = t - *b * S;
    return pos_off + *b * pos_sb + *s * pos_ss;
}

/* The positions of the token whose row-0 position is at pos[at]: M-RoPE's rows t, h, w
 * (pos_sr apart) into *p0, *p1, *p2; 1-D RoPE (mode ROPE_M_NONE): p0 three times. mode is
 * a constant of a 1-D or specialised kernel, an argument of the general M-RoPE kernels.
 * Returns whether all are in [0, limit]; *bad is the smallest that is not (the value
 * counted). Scalars, no array or loop: PoCL keeps a private array in memory per
 * work-item, and its loads turned the rows form's body into gathers. */
BICL_FN bool rope_token_positions(global const int *pos, ulong at, ulong pos_sr, uint mode,
                                  int limit, int *p0, int *p1, int *p2, int *bad)
{
    *p0 = pos[at];
    *p1 = mode ? pos[at + pos_sr] : *p0;
    *p2 = mode ? pos[at + 2u * pos_sr] : *p0;
    bool ok0 = *p0 >= 0 && *p0 <= limit, ok1 = *p1 >= 0 && *p1 <= limit;
    bool ok2 = *p2 >= 0 && *p2 <= limit;
    *bad = min(ok0 ? INT_MAX : *p0, min(ok1 ? INT_MAX : *p1, ok2 ? INT_MAX : *p2));
    return ok0 && ok1 && ok2;
}

/* Of three values, the one of M-RoPE row r (0, 1 or 2; bicl_mrope_row). */
#define ROPE_OF_ROW(r, a0, a1, a2) ((r) == 0 ? (a0) : ((r) == 1 ? (a1) : (a2)))
/* The rows kernel's float index of pair i's cos in the table row of position p (row 0
 * where the token's positions are out of range: its outputs are NaN then). */
#define ROPE_ROWS_ENTRY(ok, p, half_r, i) (((ulong)((ok) ? (p) : 0) * (half_r) + (i)) * 2u)

/* The position pair i rotates at: p0 for 1-D RoPE, else its section's row. */
BICL_FN int rope_pair_position(uint i, uint mode, uint s0, uint s1, uint s2, int p0, int p1,
                               int p2)
{
    if (!mode)
        return p0;
    int r = bicl_mrope_row((int)i, (int)s0, (int)s1, (int)s2, mode == ROPE_M_INTERLEAVED);
    return ROPE_OF_ROW(r, p0, p1, p2);
}

/* (cos, sin) of the VW table entries t[i .. i + VW) into cs[2 VW]: one float2, float8 or
 * float16 load (aligned: the host runs VW > 1 only when VW divides the row length). */
#define ROPE_TABLE_LD_1(t, i, cs) vstore2((t)[i], 0, (cs))
#define ROPE_TABLE_LD_4(t, i, cs) vstore8(*(global const float8 *)((t) + (i)), 0, (cs))
#define ROPE_TABLE_LD_8(t, i, cs) vstore16(*(global const float16 *)((t) + (i)), 0, (cs))

/* VW stored elements e .. e + VW of a head starting at p, element stride es, to and from
 * a[]. VW == 1: one element at any stride; VW > 1: one aligned vector (es is 1 and e a
 * multiple of VW, checked by the host). */
#define ROPE_LOAD(T, VW, p, es, e, a)                                                              \
    do {                                                                                           \
        if (VW == 1)                                                                               \
            (a)[0] = (p)[(ulong)(e) * (es)];                                                       \
        else                                                                                       \
            BICL_VLD_##VW(T, p, (e) / VW, a);                                                      \
    } while (0)
#define ROPE_STORE(T, VW, p, es, e, a)                                                             \
    do {                                                                                           \
        if (VW == 1)                                                                               \
            (p)[(ulong)(e) * (es)] = (a)[0];                                                       \
        else                                                                                       \
            BICL_VST_##VW(T, p, (e) / VW, a);                                                      \
    } while (0)

/* The 16-bit storage types: bf16 1, f16 2 (f32 0). */
#define ROPE_W16_bf16 1
#define ROPE_W16_f16  2
#define ROPE_W16_f32  0

/* The pair for 16-bit in and out of one type (f16 1, bf16 0): the stored bits of ok ?
 * bicl_rope_rot0/rot1(x0, x1, c, s, inv) : the canonical NaN, with the NaN rule on the stored
 * words w0, w1 of x0, x1, which costs fewer instructions (PoCL's rows kernel is bound by them;
 * NVIDIA's 16-bit units kernels got 8-43 % shorter; docs/performance.md): x0, x1 need only be
 * exact for numbers (bicl_f16_to_f32_loose), and a number's conversion has its NaN test folded
 * away by the branch before it. A NaN result takes the first NaN of its own element and then
 * the other, as its word with the type's quiet bit set (the f32 NaN's payload and quiet bit
 * come back to the same word), else the canonical NaN. The products and sums are the rotation's
 * own (bicl_rope_rot0_raw, bicl_rope_rot1_raw). Each output is its own chain of branches:
 * written as one block of selects, LLVM's SLP pass paired the two outputs' operations into
 * 2-wide vectors, and PoCL's work-item loop then stayed scalar (3x slower). */
BICL_FN ushort rope_w16_store(float y, bool f16)
{
    return f16 ? bicl_f32_to_f16(y) : bicl_f32_to_bf16(y);
}

BICL_FN ushort rope_w16_out(float r, float xf, ushort wf, float xs, ushort ws, bool ok, bool f16)
{
    const uint quiet = f16 ? 0x200u : 0x40u;
    if (ok && !bicl_f32_is_nan(r))
        return rope_w16_store(r, f16);
    if (ok && bicl_f32_is_nan(xf))
        return (ushort)(wf | quiet);
    if (ok && bicl_f32_is_nan(xs))
        return (ushort)(ws | quiet);
    return rope_w16_store(bicl_f32_canonical_nan(), f16);
}

BICL_FN void rope_rot_w16(float x0, float x1, ushort w0, ushort w1, float c, float s, int inv,
                          bool ok, bool f16, ushort *o0, ushort *o1)
{
    *o0 = rope_w16_out(bicl_rope_rot0_raw(x0, x1, c, s, inv), x0, w0, x1, w1, ok, f16);
    *o1 = rope_w16_out(bicl_rope_rot1_raw(x0, x1, c, s, inv), x1, w1, x0, w0, ok, f16);
}

/* rope_w16_out for ok (true) as selects instead of branches, and the pair of it: the same
 * bits. The units kernels that also copy pass-through elements or compute their cos / sin
 * inline ran faster with it on the H100 (partial 64 out of place 0.77 -> 0.83 of copy,
 * inline 0.85 -> 0.87), the others slower (llama bf16 in place 0.93 -> 0.91), so a kernel
 * takes it by its layout (ROPE_KERNEL_AS's `sel`; docs/performance.md). */
BICL_FN ushort rope_w16_sel(float r, float xf, ushort wf, float xs, ushort ws, bool f16)
{
    const uint quiet = f16 ? 0x200u : 0x40u;
    ushort nan_out = bicl_f32_is_nan(xf)   ? (ushort)(wf | quiet)
                     : bicl_f32_is_nan(xs) ? (ushort)(ws | quiet)
                                           : rope_w16_store(bicl_f32_canonical_nan(), f16);
    return bicl_f32_is_nan(r) ? nan_out : rope_w16_store(r, f16);
}

BICL_FN void rope_rot_w16_sel(float x0, float x1, ushort w0, ushort w1, float c, float s, int inv,
                              bool f16, ushort *o0, ushort *o1)
{
    *o0 = rope_w16_sel(bicl_rope_rot0_raw(x0, x1, c, s, inv), x0, w0, x1, w1, f16);
    *o1 = rope_w16_sel(bicl_rope_rot1_raw(x0, x1, c, s, inv), x1, w1, x0, w0, f16);
}

/* Stored elements w0, w1 of a pair (type TI) to its stored outputs s0, s1 (type TO): rotated
 * by (c, sn) where ok, else the canonical NaN. 16-bit in and out of one type: rope_rot_w16 on
 * the stored words (rope_rot_w16_sel where sel, which needs ok); otherwise
 * bicl_rope_rot0/rot1 between the storage conversions. The same bits either way (the NaN
 * rule of bicl_rope_rotate.h on the words). Both forms use it. */
#define ROPE_ROT_STORED(TI, TO, w0, w1, c, sn, inv, ok, sel, s0, s1)                               \
    do {                                                                                           \
        if (ROPE_W16_##TI != 0 && ROPE_W16_##TI == ROPE_W16_##TO) {                                \
            const bool f16_ = ROPE_W16_##TI == 2;                                                  \
            ushort u0_ = (ushort)(w0), u1_ = (ushort)(w1), o0_, o1_;                               \
            float x0_ = f16_ ? bicl_f16_to_f32_loose(u0_) : bicl_bf16_to_f32(u0_);                 \
            float x1_ = f16_ ? bicl_f16_to_f32_loose(u1_) : bicl_bf16_to_f32(u1_);                 \
            if (sel)                                                                               \
                rope_rot_w16_sel(x0_, x1_, u0_, u1_, (c), (sn), (inv), f16_, &o0_, &o1_);          \
            else                                                                                   \
                rope_rot_w16(x0_, x1_, u0_, u1_, (c), (sn), (inv), (ok), f16_, &o0_, &o1_);        \
            (s0) = (BICL_ST_##TO)o0_;                                                              \
            (s1) = (BICL_ST_##TO)o1_;                                                              \
        } else {                                                                                   \
            float x0_ = BICL_LD_##TI(w0), x1_ = BICL_LD_##TI(w1);                                  \
            float nan_ = bicl_f32_canonical_nan();                                                 \
            (s0) = BICL_SV_##TO((ok) ? bicl_rope_rot0(x0_, x1_, (c), (sn), (inv)) : nan_);         \
            (s1) = BICL_SV_##TO((ok) ? bicl_rope_rot1(x0_, x1_, (c), (sn), (inv)) : nan_);         \
        }                                                                                          \
    } while (0)

/* Pair l of a group: stored xs[j0], xs[j1] to ys[o0], ys[o1] with (cos, sin) cs[2l],
 * cs[2l + 1] (o0, o1 = j0, j1 except for BICL_ROPE_DEINTERLEAVE, whose outputs move).
 * The callers unroll l with the indices fixed per layout, so the private arrays are
 * indexed by constants and stay in registers. */
#define ROPE_PAIR(TI, TO, xs, ys, cs, l, j0, j1, o0, o1, inv, sel)                                 \
    ROPE_ROT_STORED(TI, TO, (xs)[j0], (xs)[j1], (cs)[2u * (l)], (cs)[2u * (l) + 1u], inv, true,    \
                    sel, (ys)[o0], (ys)[o1])

/* The RoPE kernels' parameters (src/rope.c's rope_set_args sets them): ROPE_PARAMS for the
 * general kernels, ROPE_PARAMS_SPEC for a units kernel specialised to its layout (without
 * the layout values that are its constants: hq, hk, half_r, lay, groups and flags), and
 * ROPE_PARAMS_ROWS_SPEC for a specialised rows kernel (without those, nor what the rows
 * form does not use: T, hpu, hblocks, the inline sources and ipt). Fewer arguments cost
 * less per enqueue (PoCL copies every argument per command; docs/performance.md).
 * pos is restrict: the host rejects outputs that overlap the positions (check_apply), so
 * a kernel's stores never change a position. Without it LLVM reloads the row's position
 * after every 32-bit store that might alias it (GPT-J's paired words, f32 outputs), and
 * PoCL's vectorised work-item loop read the table by gathers (RoPE f32 in place 16 -> 41
 * GB/s on PoCL; docs/performance.md). */
#define ROPE_PARAMS(TI, TO)                                                                        \
    global const int *restrict pos, ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S, ulong T,   \
        global const BICL_ST_##TI *qi, ulong qi_off, ulong4 qi_st, global BICL_ST_##TO *qo,        \
        ulong qo_off, ulong4 qo_st, uint hq_a, global const BICL_ST_##TI *ki, ulong ki_off,        \
        ulong4 ki_st, global BICL_ST_##TO *ko, ulong ko_off, ulong4 ko_st, uint hk_a,              \
        uint half_r_a, uint4 lay_a, uint groups_a, uint hpu_a, uint hblocks_a, uint flags_a,       \
        global const float2 *table, global const ulong *inv_bits, global const float *inv_f,       \
        ulong attn_bits, float attn_f, int limit, global int *err, uint ipt
#define ROPE_PARAMS_SPEC(TI, TO)                                                                   \
    global const int *restrict pos, ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S, ulong T,   \
        global const BICL_ST_##TI *qi, ulong qi_off, ulong4 qi_st, global BICL_ST_##TO *qo,        \
        ulong qo_off, ulong4 qo_st, global const BICL_ST_##TI *ki, ulong ki_off, ulong4 ki_st,     \
        global BICL_ST_##TO *ko, ulong ko_off, ulong4 ko_st, uint hpu_a, uint hblocks_a,           \
        global const float2 *table, global const ulong *inv_bits, global const float *inv_f,       \
        ulong attn_bits, float attn_f, int limit, global int *err, uint ipt
#define ROPE_PARAMS_ROWS_SPEC(TI, TO)                                                              \
    global const int *restrict pos, ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S,            \
        global const BICL_ST_##TI *qi, ulong qi_off, ulong4 qi_st, global BICL_ST_##TO *qo,        \
        ulong qo_off, ulong4 qo_st, global const BICL_ST_##TI *ki, ulong ki_off, ulong4 ki_st,     \
        global BICL_ST_##TO *ko, ulong ko_off, ulong4 ko_st, global const float2 *table,           \
        int limit, global int *err
/* M-RoPE's kernels take the positions' row stride too, and the general ones the sections
 * and mode (msec: s0, s1, s2, mode), which a specialised kernel has as constants. */
#define ROPE_PARAMS_M(TI, TO)           ROPE_PARAMS(TI, TO), ulong pos_sr, int4 msec
#define ROPE_PARAMS_SPEC_M(TI, TO)      ROPE_PARAMS_SPEC(TI, TO), ulong pos_sr
#define ROPE_PARAMS_ROWS_SPEC_M(TI, TO) ROPE_PARAMS_ROWS_SPEC(TI, TO), ulong pos_sr
/* A specialised kernel that rotates q and k in place from the table (flags ROPE_Q_IN_PLACE
 * and ROPE_K_IN_PLACE, or no k heads; no ROPE_INLINE; src/rope.c) takes one view of q and
 * one of k, the outputs, and no inline sources: RoPE's most common call has 10 arguments
 * fewer in the units form (18 of 28), 6 in the rows form (14 of 20), which an enqueue pays
 * for (NVIDIA's driver, PoCL per argument; docs/performance.md). Its body reads the names
 * it does not take from locals (ROPE_LOCALS_IP, _IP_UNITS): the inputs are the outputs (in
 * place: one buffer, offset and strides, which the host's alias check requires to be the
 * identical view). */
#define ROPE_PARAMS_SPEC_IP(TI, TO)                                                                \
    global const int *restrict pos, ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S, ulong T,   \
        global BICL_ST_##TO *qo, ulong qo_off, ulong4 qo_st, global BICL_ST_##TO *ko,              \
        ulong ko_off, ulong4 ko_st, uint hpu_a, uint hblocks_a, global const float2 *table,        \
        int limit, global int *err, uint ipt
#define ROPE_PARAMS_ROWS_SPEC_IP(TI, TO)                                                           \
    global const int *restrict pos, ulong pos_off, ulong pos_sb, ulong pos_ss, ulong S,            \
        global BICL_ST_##TO *qo, ulong qo_off, ulong4 qo_st, global BICL_ST_##TO *ko,              \
        ulong ko_off, ulong4 ko_st, global const float2 *table, int limit, global int *err
#define ROPE_PARAMS_SPEC_IP_M(TI, TO)      ROPE_PARAMS_SPEC_IP(TI, TO), ulong pos_sr
#define ROPE_PARAMS_ROWS_SPEC_IP_M(TI, TO) ROPE_PARAMS_ROWS_SPEC_IP(TI, TO), ulong pos_sr
#define ROPE_LOCALS_IP(TI, TO)                                                                     \
    global const BICL_ST_##TI *qi = qo, *ki = ko;                                                  \
    const ulong qi_off = qo_off, ki_off = ko_off;                                                  \
    const ulong4 qi_st = qo_st, ki_st = ko_st;
#define ROPE_LOCALS_IP_UNITS(TI, TO)                                                               \
    ROPE_LOCALS_IP(TI, TO)                                                                         \
    global const ulong *inv_bits = 0;                                                              \
    global const float *inv_f = 0;                                                                 \
    const ulong attn_bits = 0;                                                                     \
    const float attn_f = 0.0f;
/* What the general rows kernel takes and does not use (its specialised form does not
 * take it); nothing for the others. */
#define ROPE_UNUSED_ROWS(TI, TO)                                                                   \
    (void)T, (void)groups_a, (void)hpu_a, (void)hblocks_a, (void)ipt, (void)inv_bits, (void)inv_f, \
        (void)attn_bits, (void)attn_f;
#define ROPE_LOCALS_NONE(TI, TO)

/* Arguments: positions (buffer, offset, b and s strides), S (tokens per row), T
 * (tokens); q in/out views (buffer, offset, (b, s, head, element) strides), hq; the same
 * for k, hk; half_r = rotary_dim / 2; lay = (q's rotary offset, q's pass-through count
 * head_dim - rotary_dim, the same two for k); groups = units per (token, head block);
 * hpu = heads per block, hblocks = blocks per token; flags; the cos/sin sources; limit =
 * largest valid position; err = (count, smallest bad).
 * Pass-through element k of a head (k in [0, pass)) is element k before the rotary
 * offset and k + rotary_dim after it; the host runs VW > 1 only when the offsets are
 * multiples of VW, so a whole group of VW lies on one side. */
#define ROPE_KERNEL_AS(NAME, PARAMS, LOCALS, TI, TO, VW, FLAGS, HALF, GROUPS, L0, L1, L2, L3, HQ,  \
                       HK, MODE, MS0, MS1, MS2, MSR)                                               \
    kernel void NAME(PARAMS(TI, TO))                                                               \
    {                                                                                              \
        LOCALS(TI, TO)                                                                             \
        /* the arguments, or a specialised program's constants in their place */                 \
        const uint hq = (HQ), hk = (HK), half_r = (HALF), groups = (GROUPS), flags = (FLAGS);      \
        const uint4 lay = (uint4)((L0), (L1), (L2), (L3));                                         \
        const uint mode = (MODE), ms0 = (MS0), ms1 = (MS1), ms2 = (MS2);                           \
        /* one position for a whole group of VW pairs: 1-D, or sections of whole groups */        \
        const bool group_p = mode == ROPE_M_NONE ||                                                \
                             (mode == ROPE_M_CHUNKED && ms0 % VW == 0u && ms1 % VW == 0u);         \
        /* every head in one block: the head loop's bounds are constants when hq, hk are */        \
        const bool all_heads = (flags & ROPE_ALL_HEADS) != 0;                                      \
        const uint hpu = all_heads ? hq + hk : hpu_a, hblocks = all_heads ? 1u : hblocks_a;        \
        const int inv = (flags & ROPE_INVERSE) != 0;                                               \
        /* where pairs are read and written: GPT-J (2i, 2i + 1) or NeoX (i, i + half) */           \
        const bool dei = (flags & ROPE_DEINTERLEAVE) != 0;                                         \
        const bool gi = (flags & ROPE_GPTJ) != 0 || (dei && !inv);                                 \
        const bool go = (flags & ROPE_GPTJ) != 0 || (dei && inv);                                  \
        /* the 16-bit pair as selects (rope_rot_w16_sel): where the group also copies              \
         * pass-through elements or computes cos / sin inline */                                   \
        const bool sel = (flags & ROPE_INLINE) != 0 ||                                             \
                         (lay.s1 != 0u && !(flags & ROPE_Q_IN_PLACE)) ||                           \
                         (lay.s3 != 0u && hk != 0u && !(flags & ROPE_K_IN_PLACE));                 \
        const ulong units = T * hblocks * groups;                                                  \
        BICL_FOR_UNITS(u, units, ipt)                                                              \
        {                                                                                          \
            ulong g_, hb_, s;                                                                      \
            ulong th = bicl_divmod(u, groups, &g_); /* token * hblocks + block */                  \
            ulong t = bicl_divmod(th, hblocks, &hb_);                                              \
            ulong b = 0; /* one row: no division by S */                                          \
            if (flags & ROPE_ONE_ROW)                                                              \
                s = t;                                                                             \
            else                                                                                   \
                b = bicl_divmod(t, S, &s);                                                         \
            uint g = (uint)g_, h0 = (uint)hb_ * hpu;                                               \
            uint h1 = h0 + min(hpu, hq + hk - h0);                                                 \
            int p0, p1, p2, bad;                                                                   \
            bool ok = rope_token_positions(pos, pos_off + b * pos_sb + s * pos_ss, (MSR), mode,    \
                                           limit, &p0, &p1, &p2, &bad);                            \
            if (!ok && hb_ == 0 && g == 0) {                                                       \
                atomic_min(&err[1], bad); /* before the count: see rope_errors_take */             \
                atomic_inc(&err[0]);                                                               \
            }                                                                                      \
            /* Rotary: pairs i0 .. i0 + VW, whole (see the top of the file). */                    \
            uint i0 = g * VW;                                                                      \
            float cs[2 * VW]; /* (cos, sin) of each pair, read once for the block */               \
            if (i0 < half_r && ok) {                                                               \
                if (!(flags & ROPE_INLINE) && group_p) {                                           \
                    int p = rope_pair_position(i0, mode, ms0, ms1, ms2, p0, p1, p2);               \
                    ulong row = (ulong)p * half_r; /* entries of positions before p */             \
                    ROPE_TABLE_LD_##VW(table, row + i0, cs);                                       \
                } else {                                                                           \
                    for (uint l = 0; l < VW; ++l) {                                                \
                        int p = rope_pair_position(i0 + l, mode, ms0, ms1, ms2, p0, p1, p2);       \
                        float2 v = (flags & ROPE_INLINE)                                           \
                                       ? rope_cos_sin_inline(p, i0 + l, flags, inv_bits, inv_f,    \
                                                             attn_bits, attn_f)                    \
                                       : table[(ulong)p * half_r + i0 + l];                        \
                        cs[2 * l] = v.x;                                                           \
                        cs[2 * l + 1] = v.y;                                                       \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
            /* The two spans of VW elements a group reads (ea, eb) and writes (oa, ob): NeoX       \
             * x[i0..] and x[half + i0..], GPT-J x[2 i0 ..] and the VW after it. */                \
            uint ea = gi ? 2u * i0 : i0, eb = gi ? 2u * i0 + VW : half_r + i0;                     \
            uint oa = go ? 2u * i0 : i0, ob = go ? 2u * i0 + VW : half_r + i0;                     \
            uint k0 = g * VW; /* pass-through elements k0 .. of this group, the last partial */    \
            for (uint h = h0; h < h1; ++h) {                                                       \
                bool isq = h < hq;                                                                 \
                uint hh = isq ? h : h - hq;                                                        \
                uint roff = isq ? lay.s0 : lay.s2, pass = isq ? lay.s1 : lay.s3;                   \
                ulong4 ist = isq ? qi_st : ki_st, ost = isq ? qo_st : ko_st;                       \
                global const BICL_ST_##TI *x =                                                     \
                    (isq ? qi : ki) + rope_head_at(isq ? qi_off : ki_off, ist, b, s, hh);          \
                global BICL_ST_##TO *y =                                                           \
                    (isq ? qo : ko) + rope_head_at(isq ? qo_off : ko_off, ost, b, s, hh);          \
                ulong xes = ist.s3, yes = ost.s3;                                                  \
                if (i0 < half_r) {                                                                 \
                    global const BICL_ST_##TI *xr = x + (ulong)roff * xes;                         \
                    global BICL_ST_##TO *yr = y + (ulong)roff * yes;                               \
                    BICL_ST_##TO ys[2 * VW];                                                       \
                    /* Loaded whatever the position: the address is the view's, so the loads       \
                     * overlap the position and table loads instead of waiting for them. */        \
                    BICL_ST_##TI xs[2 * VW];                                                       \
                    ROPE_LOAD(BICL_ST_##TI, VW, xr, xes, ea, xs);                                  \
                    ROPE_LOAD(BICL_ST_##TI, VW, xr, xes, eb, xs + VW);                             \
                    if (ok) {                                                                      \
                        if (gi && go)                                                              \
                            for (uint l = 0; l < VW; ++l)                                          \
                                ROPE_PAIR(TI, TO, xs, ys, cs, l, 2u * l, 2u * l + 1u, 2u * l,      \
                                          2u * l + 1u, inv, sel);                                  \
                        else if (!gi && !go)                                                       \
                            for (uint l = 0; l < VW; ++l)                                          \
                                ROPE_PAIR(TI, TO, xs, ys, cs, l, l, VW + l, l, VW + l, inv, sel);  \
                        else if (gi)                                                               \
                            for (uint l = 0; l < VW; ++l)                                          \
                                ROPE_PAIR(TI, TO, xs, ys, cs, l, 2u * l, 2u * l + 1u, l, VW + l,   \
                                          inv, sel);                                               \
                        else                                                                       \
                            for (uint l = 0; l < VW; ++l)                                          \
                                ROPE_PAIR(TI, TO, xs, ys, cs, l, l, VW + l, 2u * l, 2u * l + 1u,   \
                                          inv, sel);                                               \
                    } else {                                                                       \
                        for (uint l = 0; l < 2 * VW; ++l)                                          \
                            ys[l] = BICL_SV_##TO(bicl_f32_canonical_nan());                        \
                    }                                                                              \
                    ROPE_STORE(BICL_ST_##TO, VW, yr, yes, oa, ys);                                 \
                    ROPE_STORE(BICL_ST_##TO, VW, yr, yes, ob, ys + VW);                            \
                }                                                                                  \
                bool copy = !(flags & (isq ? ROPE_Q_IN_PLACE : ROPE_K_IN_PLACE));                  \
                if (k0 < pass && copy) {                                                           \
                    if (k0 + VW <= pass) {                                                         \
                        uint e_pass = k0 < roff ? k0 : k0 + 2u * half_r;                           \
                        BICL_ST_##TI xs[VW];                                                       \
                        BICL_ST_##TO ys[VW];                                                       \
                        ROPE_LOAD(BICL_ST_##TI, VW, x, xes, e_pass, xs);                           \
                        for (uint l = 0; l < VW; ++l)                                              \
                            ys[l] = BICL_CONV(TI, TO, xs[l]);                                      \
                        ROPE_STORE(BICL_ST_##TO, VW, y, yes, e_pass, ys);                          \
                    } else {                                                                       \
                        for (uint k = k0; k < pass; ++k) {                                         \
                            ulong e = k < roff ? k : k + 2u * half_r;                              \
                            y[e * yes] = BICL_CONV(TI, TO, x[e * xes]);                            \
                        }                                                                          \
                    }                                                                              \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* The general kernel: every layout value an argument. */
#define ROPE_KERNEL(TI, TO, VW)                                                                    \
    ROPE_KERNEL_AS(rope_##TI##_##TO##_v##VW, ROPE_PARAMS, ROPE_LOCALS_NONE, TI, TO, VW, flags_a,   \
                   half_r_a, groups_a, lay_a.s0, lay_a.s1, lay_a.s2, lay_a.s3, hq_a, hk_a,         \
                   ROPE_M_NONE, 0u, 0u, 0u, 0u)
/* The general M-RoPE kernel: its sections and mode are arguments too. */
#define ROPE_MKERNEL(TI, TO, VW)                                                                   \
    ROPE_KERNEL_AS(rope_m_##TI##_##TO##_v##VW, ROPE_PARAMS_M, ROPE_LOCALS_NONE, TI, TO, VW,        \
                   flags_a, half_r_a, groups_a, lay_a.s0, lay_a.s1, lay_a.s2, lay_a.s3, hq_a,      \
                   hk_a, (uint)msec.s3, (uint)msec.s0, (uint)msec.s1, (uint)msec.s2, pos_sr)

/* A kernel specialised to one layout (src/rope.c, rope_kernel_acquire): flags (with
 * ROPE_ALL_HEADS and ROPE_ONE_ROW), rotary_dim / 2, groups, lay and the head counts are
 * constants, so that the compiler folds the layout branches and the index arithmetic,
 * and are not arguments (ROPE_PARAMS_SPEC). Bits are the general kernel's: the same
 * operations on the same values. On the H200 it took llama's bf16 RoPE from 0.77 to 0.87-0.88 of
 * copy (docs/performance.md). */
#define ROPE_KERNEL_SPEC(TI, TO, VW, FL, HALF, G, L0, L1, L2, L3, HQ, HK)                          \
    ROPE_KERNEL_AS(rope_##TI##_##TO##_v##VW##_f##FL##_h##HALF##_g##G                               \
                       ##_l##L0##_##L1##_##L2##_##L3##_q##HQ##_k##HK,                              \
                   ROPE_PARAMS_SPEC, ROPE_LOCALS_NONE, TI, TO, VW, FL##u, HALF##u, G##u, L0##u,    \
                   L1##u, L2##u, L3##u, HQ##u, HK##u, ROPE_M_NONE, 0u, 0u, 0u, 0u)
/* ... and specialised to M-RoPE's mode and sections too (M: mode, S0..S2: the sections). */
#define ROPE_MKERNEL_SPEC(TI, TO, VW, FL, HALF, G, L0, L1, L2, L3, HQ, HK, M, S0, S1, S2)          \
    ROPE_KERNEL_AS(rope_##TI##_##TO##_v##VW##_f##FL##_h##HALF##_g##G                               \
                       ##_l##L0##_##L1##_##L2##_##L3##_q##HQ##_k##HK##_m##M##_##S0##_##S1##_##S2,  \
                   ROPE_PARAMS_SPEC_M, ROPE_LOCALS_NONE, TI, TO, VW, FL##u, HALF##u, G##u, L0##u,  \
                   L1##u, L2##u, L3##u, HQ##u, HK##u, M##u, S0##u, S1##u, S2##u, pos_sr)
/* Their in-place forms (ROPE_PARAMS_SPEC_IP): the same names with "_ip" appended. */
#define ROPE_KERNEL_SPEC_IP(TI, TO, VW, FL, HALF, G, L0, L1, L2, L3, HQ, HK)                       \
    ROPE_KERNEL_AS(rope_##TI##_##TO##_v##VW##_f##FL##_h##HALF##_g##G                               \
                       ##_l##L0##_##L1##_##L2##_##L3##_q##HQ##_k##HK##_ip,                         \
                   ROPE_PARAMS_SPEC_IP, ROPE_LOCALS_IP_UNITS, TI, TO, VW, FL##u, HALF##u, G##u,    \
                   L0##u, L1##u, L2##u, L3##u, HQ##u, HK##u, ROPE_M_NONE, 0u, 0u, 0u, 0u)
#define ROPE_MKERNEL_SPEC_IP(TI, TO, VW, FL, HALF, G, L0, L1, L2, L3, HQ, HK, M, S0, S1, S2)       \
    ROPE_KERNEL_AS(                                                                                \
        rope_##TI##_##TO##_v##VW##_f##FL##_h##HALF##_g##G##_l##L0##_##L1##_##L2##_##L3##_q##HQ     \
            ##_k##HK##_m##M##_##S0##_##S1##_##S2##_ip,                                             \
        ROPE_PARAMS_SPEC_IP_M, ROPE_LOCALS_IP_UNITS, TI, TO, VW, FL##u, HALF##u, G##u, L0##u,      \
        L1##u, L2##u, L3##u, HQ##u, HK##u, M##u, S0##u, S1##u, S2##u, pos_sr)

/* One head h of a rows-form work-group (ROPE_ROWS_AS): its pair i rotated and stored, its
 * pass-through elements copied; the kernel's locals in scope. */
#define ROPE_ROWS_HEAD(TI, TO)                                                                     \
        bool isq = h < hq;                                                                         \
        uint hh = isq ? h : h - hq;                                                                \
        uint roff = isq ? lay.s0 : lay.s2, pass = isq ? lay.s1 : lay.s3;                           \
        /* scalars selected, not the ulong4 strides: a select of a vector type keeps    \
         * LLVM's loop vectoriser off the work-item loop */                                        \
        ulong xo = isq ? rope_head_at(qi_off, qi_st, b, s, hh)                                     \
                       : rope_head_at(ki_off, ki_st, b, s, hh);                                    \
        ulong yo = isq ? rope_head_at(qo_off, qo_st, b, s, hh)                                     \
                       : rope_head_at(ko_off, ko_st, b, s, hh);                                    \
        global const BICL_ST_##TI *x = (isq ? qi : ki) + xo;                                       \
        global BICL_ST_##TO *y = (isq ? qo : ko) + yo;                                             \
        /* element strides: the constant 1 where the host saw that every view's is 1, so    \
         * that LLVM's vectoriser needs no version of the loop for them */                     \
        const bool unit = (flags & ROPE_UNIT_STRIDE) != 0;                                         \
        ulong xes = unit ? 1u : (isq ? qi_st.s3 : ki_st.s3);                                       \
        ulong yes = unit ? 1u : (isq ? qo_st.s3 : ko_st.s3);                                       \
        /* the host launches exactly half_r work-items per row: no test i < half_r, whose  \
         * masked stores cost PoCL two thirds of its speed */                                      \
        ulong oa = roff + (go ? 2u * i : i), ob = roff + (go ? 2u * i + 1u : half_r + i);          \
        BICL_ST_##TO s0, s1; /* out here: the pass-through loop may store s0 again */           \
        {                                                                                          \
            global const float *tf = (global const float *)table;                                  \
            /* M-RoPE: the pair's entry in the token's other two rows too, then the one of its  \
             * section (as rope_pair_position picks a position): with the rows the same for the  \
             * whole group, three vector loads instead of a gather (docs/performance.md) */      \
            ulong e0 = ROPE_ROWS_ENTRY(ok, p0, half_r, i);                                         \
            float c = tf[e0], sn = tf[e0 + 1u];                                                    \
            if (mode != ROPE_M_NONE) {                                                             \
                ulong e1 = ROPE_ROWS_ENTRY(ok, p1, half_r, i);                                     \
                ulong e2 = ROPE_ROWS_ENTRY(ok, p2, half_r, i);                                     \
                float c1 = tf[e1], sn1 = tf[e1 + 1u], c2 = tf[e2], sn2 = tf[e2 + 1u];              \
                int r = bicl_mrope_row((int)i, (int)ms0, (int)ms1, (int)ms2,                       \
                                       mode == ROPE_M_INTERLEAVED);                                \
                c = ROPE_OF_ROW(r, c, c1, c2);                                                     \
                sn = ROPE_OF_ROW(r, sn, sn1, sn2);                                                 \
            }                                                                                      \
            ulong ea = roff + (gi ? 2u * i : i), eb = roff + (gi ? 2u * i + 1u : half_r + i);      \
            /* GPT-J pairs of 16-bit elements as one 32-bit word (ROPE_PAIRED: the host saw    \
             * every head's rotary start even and element stride 1; a little-endian device,  \
             * checked at context creation): PoCL vectorises the word, not the two halves */ \
            const bool pin = (flags & ROPE_PAIRED) && gi && sizeof(BICL_ST_##TI) == 2;             \
            const bool pout = (flags & ROPE_PAIRED) && go && sizeof(BICL_ST_##TO) == 2;            \
            BICL_ST_##TI w0, w1; /* the pair's stored elements */                                 \
            if (pin) {                                                                             \
                uint w = ((global const uint *)(x + roff))[i];                                     \
                w0 = (BICL_ST_##TI)(w & 0xffffu);                                                  \
                w1 = (BICL_ST_##TI)(w >> 16);                                                      \
            } else {                                                                               \
                w0 = x[ea * xes];                                                                  \
                w1 = x[eb * xes];                                                                  \
            }                                                                                      \
            ROPE_ROT_STORED(TI, TO, w0, w1, c, sn, inv, ok, false, s0, s1);                        \
            if (pout) {                                                                            \
                ((global uint *)(y + roff))[i] = (uint)s0 | ((uint)s1 << 16);                      \
            } else {                                                                               \
                y[oa * yes] = s0;                                                                  \
                y[ob * yes] = s1;                                                                  \
            }                                                                                      \
        }                                                                                          \
        /* pass-through elements i, i + half_r, ...: a constant count in a specialised kernel, \
         * a test per element only when half_r does not divide the count. Where the layout's \
         * q and k pass-through parts differ (MLA out of place: 128 and 0), the test depends \
         * on the head's kind, and PoCL kept that loop scalar (its counter per work-item in     \
         * memory); there every row makes the same stores, the loop unrolled: where its head  \
         * has fewer, the work-item stores its rotated oa again (MLA 0.19 -> 0.35 of copy on   \
         * PoCL; the unrolled form slowed the equal-parts layouts, which keep the loop;         \
         * docs/performance.md) */                                                                 \
        const uint pass_q = (flags & ROPE_Q_IN_PLACE) ? 0u : lay.s1;                               \
        const uint pass_k = (hk == 0u || (flags & ROPE_K_IN_PLACE)) ? 0u : lay.s3;                 \
        const uint copies = (max(pass_q, pass_k) + half_r - 1u) / half_r;                          \
        if (!(flags & (isq ? ROPE_Q_IN_PLACE : ROPE_K_IN_PLACE))) {                                \
            if (lay.s1 == lay.s3) {                                                                \
                for (uint k = 0; k < copies; ++k) {                                                \
                    uint j = i + k * half_r;                                                       \
                    if (pass % half_r == 0u ? k < pass / half_r : j < pass) {                      \
                        ulong e = j < roff ? j : j + 2u * half_r;                                  \
                        y[e * yes] = BICL_CONV(TI, TO, x[e * xes]);                                \
                    }                                                                              \
                }                                                                                  \
            } else {                                                                               \
                _Pragma("unroll") for (uint k = 0; k < copies; ++k) {                              \
                    uint j = i + k * half_r;                                                       \
                    bool part = pass % half_r == 0u ? k < pass / half_r : j < pass;                \
                    ulong e = part ? (j < roff ? j : j + 2u * half_r) : oa;                        \
                    BICL_ST_##TO v = BICL_CONV(TI, TO, x[e * xes]);                                \
                    y[e * yes] = part ? v : s0;                                                    \
                }                                                                                  \
            }                                                                                      \
        }

/* The rows form (src/rope.c, rope_rows_wanted; the PoCL profile's choice): a 2-d launch,
 * dim 0 the index i of a head's rotary pair (exactly rotary_dim / 2 work-items, one
 * group), dim 1 (token, head), so one work-item rotates one pair and copies the
 * pass-through elements i, i + rotary_dim / 2, ..., with no loop (a constant count,
 * unrolled, in a specialised kernel) and no private array. PoCL vectorises a kernel across the
 * work-items of a group only in that shape; the table entry is read as two floats (an interleaved
 * pair LLVM's vectoriser handles, where the float2 load stopped it), and the counting of
 * out-of-range positions, whose atomics kept the whole body scalar, comes after a
 * barrier, which PoCL compiles as a work-item loop of its own (docs/performance.md).
 * Bits are the units form's: the same stored bits converted, the same (cos, sin) bits,
 * bicl_rope_rot0/rot1, the same store conversion (16-bit in and out of one type:
 * rope_rot_w16, their bits on the stored words); an out-of-range position reads row 0
 * and stores the canonical NaN instead. The general one takes ROPE_PARAMS
 * (T, groups, hpu, hblocks, ipt and the inline sources unused), the specialised one
 * ROPE_PARAMS_ROWS_SPEC, in place ROPE_PARAMS_ROWS_SPEC_IP (M-RoPE: ROPE_PARAMS_M and the
 * _M forms of the others); table source only. */
#define ROPE_ROWS_AS(NAME, PARAMS, LOCALS, TI, TO, FLAGS, HALF, L0, L1, L2, L3, HQ, HK, MODE, MS0, \
                     MS1, MS2, MSR, RH)                                                            \
    kernel void NAME(PARAMS(TI, TO))                                                               \
    {                                                                                              \
        const uint hq = (HQ), hk = (HK), half_r = (HALF), flags = (FLAGS);                         \
        const uint4 lay = (uint4)((L0), (L1), (L2), (L3));                                         \
        const uint mode = (MODE), ms0 = (MS0), ms1 = (MS1), ms2 = (MS2);                           \
        LOCALS(TI, TO)                                                                             \
        const int inv = (flags & ROPE_INVERSE) != 0;                                               \
        const bool dei = (flags & ROPE_DEINTERLEAVE) != 0;                                         \
        const bool gi = (flags & ROPE_GPTJ) != 0 || (dei && !inv);                                 \
        const bool go = (flags & ROPE_GPTJ) != 0 || (dei && inv);                                  \
        /* 32-bit indices (the host launches T * heads < 2^32 rows): a 64-bit row index  \
         * halved PoCL's vector width. A row (or RH) is one work-group (the host's launch), so  \
         * the pair is the local id and the row the group id, which PoCL knows to be the same  \
         * for every work-item of the group: MLA's row vectorised 8 wide, not 4 */              \
        /* RH heads of one token to a group (the host's ROPE_ROWS_HEADS4: RH divides hq and hk), \
         * one after another in each work-item, unrolled */                                        \
        const uint rh = (RH), blocks = (hq + hk) / rh;                                             \
        uint i = (uint)get_local_id(0), th = (uint)get_group_id(1);                                \
        uint t = th / blocks, h0 = (th - t * blocks) * rh;                                         \
        ulong b, s;                                                                                \
        ulong pa =                                                                                 \
            rope_row_position_at(pos_off, pos_sb, pos_ss, S, t, flags & ROPE_ONE_ROW, &b, &s);     \
        int p0, p1, p2, bad;                                                                       \
        bool ok = rope_token_positions(pos, pa, (MSR), mode, limit, &p0, &p1, &p2, &bad);          \
        if ((RH) == 1u) { /* one head: no loop at all, the code of one head a group */             \
            const uint h = h0;                                                                     \
            ROPE_ROWS_HEAD(TI, TO)                                                                 \
        } else {                                                                                   \
            _Pragma("unroll") for (uint hr = 0; hr < rh; ++hr) {                                   \
                const uint h = h0 + hr;                                                            \
                ROPE_ROWS_HEAD(TI, TO)                                                             \
            }                                                                                      \
        }                                                                                          \
        barrier(CLK_LOCAL_MEM_FENCE);                                                              \
        /* The first work-item of each token's first head counts its position. A group is  \
         * one block of RH heads of a token (the host's launch: local size (width, 1)), and \
         * local id 0 its first work-item. Nothing crosses the barrier: PoCL stores a     \
         * live value per work-item (ok, h and p cost a third of the speed; get_global_id     \
         * here halved the vector width). */                                                       \
        if (get_local_id(0) == 0) {                                                                \
            uint row = (uint)get_group_id(1), tok = row / blocks;                                  \
            if (row == tok * blocks) {                                                             \
                ulong tb, ts; /* new variables: PoCL keeps one used on both sides per item */   \
                ulong at = rope_row_position_at(pos_off, pos_sb, pos_ss, S, tok,                   \
                                                flags & ROPE_ONE_ROW, &tb, &ts);                   \
                int t0, t1, t2, worst;                                                             \
                if (!rope_token_positions(pos, at, (MSR), mode, limit, &t0, &t1, &t2, &worst)) {   \
                    atomic_min(&err[1], worst); /* before the count: see rope_errors_take */       \
                    atomic_inc(&err[0]);                                                           \
                }                                                                                  \
            }                                                                                      \
        }                                                                                          \
    }

/* The heads a specialised kernel's group rotates: 4 where its flags have ROPE_ROWS_HEADS4 */
#define ROPE_ROWS_HEADS(FL) (((FL) & ROPE_ROWS_HEADS4) ? 4u : 1u)
#define ROPE_ROWS(TI, TO)                                                                          \
    ROPE_ROWS_AS(rope_rows_##TI##_##TO, ROPE_PARAMS, ROPE_UNUSED_ROWS, TI, TO, flags_a, half_r_a,  \
                 lay_a.s0, lay_a.s1, lay_a.s2, lay_a.s3, hq_a, hk_a, ROPE_M_NONE, 0u, 0u, 0u, 0u,  \
                 1u)
#define ROPE_MROWS(TI, TO)                                                                         \
    ROPE_ROWS_AS(rope_rows_m_##TI##_##TO, ROPE_PARAMS_M, ROPE_UNUSED_ROWS, TI, TO, flags_a,        \
                 half_r_a, lay_a.s0, lay_a.s1, lay_a.s2, lay_a.s3, hq_a, hk_a, (uint)msec.s3,      \
                 (uint)msec.s0, (uint)msec.s1, (uint)msec.s2, pos_sr, 1u)
#define ROPE_ROWS_SPEC(TI, TO, FL, HALF, L0, L1, L2, L3, HQ, HK)                                   \
    ROPE_ROWS_AS(                                                                                  \
        rope_rows_##TI##_##TO##_f##FL##_h##HALF##_l##L0##_##L1##_##L2##_##L3##_q##HQ##_k##HK,      \
        ROPE_PARAMS_ROWS_SPEC, ROPE_LOCALS_NONE, TI, TO, FL##u, HALF##u, L0##u, L1##u, L2##u,      \
        L3##u, HQ##u, HK##u, ROPE_M_NONE, 0u, 0u, 0u, 0u, ROPE_ROWS_HEADS(FL##u))
#define ROPE_MROWS_SPEC(TI, TO, FL, HALF, L0, L1, L2, L3, HQ, HK, M, S0, S1, S2)                   \
    ROPE_ROWS_AS(rope_rows_##TI##_##TO##_f##FL##_h##HALF##_l##L0##_##L1##_##L2##_##L3##_q##HQ      \
                     ##_k##HK##_m##M##_##S0##_##S1##_##S2,                                         \
                 ROPE_PARAMS_ROWS_SPEC_M, ROPE_LOCALS_NONE, TI, TO, FL##u, HALF##u, L0##u, L1##u,  \
                 L2##u, L3##u, HQ##u, HK##u, M##u, S0##u, S1##u, S2##u, pos_sr,                    \
                 ROPE_ROWS_HEADS(FL##u))
/* Their in-place forms (ROPE_PARAMS_ROWS_SPEC_IP): "_ip" appended to the names. */
#define ROPE_ROWS_SPEC_IP(TI, TO, FL, HALF, L0, L1, L2, L3, HQ, HK)                                \
    ROPE_ROWS_AS(rope_rows_##TI##_##TO##_f##FL##_h##HALF##_l##L0##_##L1##_##L2##_##L3##_q##HQ      \
                     ##_k##HK##_ip,                                                                \
                 ROPE_PARAMS_ROWS_SPEC_IP, ROPE_LOCALS_IP, TI, TO, FL##u, HALF##u, L0##u, L1##u,   \
                 L2##u, L3##u, HQ##u, HK##u, ROPE_M_NONE, 0u, 0u, 0u, 0u, ROPE_ROWS_HEADS(FL##u))
#define ROPE_MROWS_SPEC_IP(TI, TO, FL, HALF, L0, L1, L2, L3, HQ, HK, M, S0, S1, S2)                \
    ROPE_ROWS_AS(rope_rows_##TI##_##TO##_f##FL##_h##HALF##_l##L0##_##L1##_##L2##_##L3##_q##HQ      \
                     ##_k##HK##_m##M##_##S0##_##S1##_##S2##_ip,                                    \
                 ROPE_PARAMS_ROWS_SPEC_IP_M, ROPE_LOCALS_IP, TI, TO, FL##u, HALF##u, L0##u, L1##u, \
                 L2##u, L3##u, HQ##u, HK##u, M##u, S0##u, S1##u, S2##u, pos_sr,                    \
                 ROPE_ROWS_HEADS(FL##u))

/* Instances the host appends: "ROPE_KERNEL(ti, to, vw)", "ROPE_KERNEL_SPEC(ti, to, vw, flags,
 * half, groups, lay0, lay1, lay2, lay3, hq, hk)", "ROPE_ROWS(ti, to)", "ROPE_ROWS_SPEC(ti,
 * to, flags, half, lay0, lay1, lay2, lay3, hq, hk)", their M-RoPE forms ROPE_MKERNEL,
 * ROPE_MROWS (the same arguments) and ROPE_MKERNEL_SPEC, ROPE_MROWS_SPEC (mode, s0, s1, s2
 * appended), the in-place forms of the specialised ones (the same arguments, "_IP"
 * appended to the macro), or "ROPE_BUILDERS" for a program with the position-id builders
 * only (they are in every program). */
#define ROPE_BUILDERS
#ifndef BICL_SELECTED
#define ROPE_KERNELS_(TI, TO)                                                                      \
    ROPE_KERNEL(TI, TO, 1) ROPE_KERNEL(TI, TO, 4) ROPE_KERNEL(TI, TO, 8) ROPE_ROWS(TI, TO)         \
        ROPE_MKERNEL(TI, TO, 1) ROPE_MKERNEL(TI, TO, 4) ROPE_MKERNEL(TI, TO, 8) ROPE_MROWS(TI, TO)
BICL_FOR_DTYPE_PAIRS(ROPE_KERNELS_)
#endif

/* ------------------------------------------------------------- position ids */

/* positions[t] = start[b] + (t - cu[b]) for cu[b] <= t < cu[b+1]; -1 when no b fits.
 * Binary search over the B + 1 boundaries, so each token is independent. */
kernel void positions_packed(global const int *cu, ulong cu_off, ulong cu_st, uint batch,
                             global const int *start, ulong st_off, ulong st_st, uint has_start,
                             global int *out, ulong out_off, ulong out_st, ulong T, uint ipt)
{
    BICL_FOR_UNITS(t, T, ipt)
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

/* Takes the error counters of a plan (err[0] count, err[1] smallest bad position) into
 * err[2], err[3] and resets them in the same atomic operations, so an apply that runs
 * concurrently (an out-of-order queue, another queue) is counted by this take or by the
 * next, never lost between a read and a reset. The count is taken first and the
 * appliers lower the position before they count, so a taken count never lacks its
 * position. unread: the host did not read the last take back (a failed read), so this
 * one adds to it. */
kernel void rope_errors_take(global int *err, uint unread)
{
    if (get_global_id(0) == 0) {
        int count = unread ? err[2] : 0, first = unread ? err[3] : INT_MAX;
        err[2] = count + atomic_xchg(&err[0], 0);
        err[3] = min(first, atomic_xchg(&err[1], INT_MAX));
    }
}

/* One work unit per row: a running count of real tokens (mask != 0). */
#define POSITIONS_PADDED(MT, NAME)                                                                 \
    kernel void NAME(global const MT *mask, ulong m_off, ulong m_sb, ulong m_ss,                   \
                     global const int *start, ulong st_off, ulong st_st, uint has_start,           \
                     global int *out, ulong o_off, ulong o_sb, ulong o_ss, ulong B, ulong S,       \
                     uint ipt)                                                                     \
    {                                                                                              \
        BICL_FOR_UNITS(b, B, ipt)                                                                  \
        {                                                                                          \
            long base = has_start ? start[st_off + b * st_st] : 0;                                 \
            long seen = 0;                                                                         \
            for (ulong s = 0; s < S; ++s) {                                                        \
                bool real = mask[m_off + b * m_sb + s * m_ss] != 0;                                \
                long v = base + seen;                                                              \
                int p = real ? ((v >= 0 && v <= 2147483647L) ? (int)v : -1) : 0;                   \
                out[o_off + b * o_sb + s * o_ss] = p;                                              \
                seen += real ? 1 : 0;                                                              \
            }                                                                                      \
        }                                                                                          \
    }

POSITIONS_PADDED(uchar, positions_padded_u8)
POSITIONS_PADDED(int, positions_padded_i32)
