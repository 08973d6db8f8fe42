/* bicl_kernel.h - OpenCL-only scaffolding shared by the kernel families: storage
 * types per dtype, vector moves, and the elementwise kernel templates whose argument
 * layout src/launch.c writes (see bicl_launch_elementwise).
 *
 * Two templates per operand count: rows (vectorised, VW 1, 4 or 8; a flat iteration is
 * one row) and strided (any 4-d view). Rows has a fourth form, "_rows_s": one element
 * per work-item and no loop, which the host runs for VW 1 with one item per work-item
 * (the same work as rows_v1 there): PoCL vectorises a kernel across its work-items only
 * when the body has no loop of its own (docs/performance.md).
 * Every variant of a template applies the same per-element expression ELEM to each
 * element, whether it sits in a vector lane, in the scalar tail or in a strided view:
 * with FP_CONTRACT OFF the expression compiles to the same operations everywhere, so
 * the variant changes speed only (design rule 4). */
#ifndef BICL_KERNEL_H
#define BICL_KERNEL_H
#include "bicl_convert.h"
#include "bicl_table_compact.h"

/* Storage type of each dtype, and the conversions to and from f32 compute. */
#define BICL_ST_f32     uint
#define BICL_ST_f16     ushort
#define BICL_ST_bf16    ushort
#define BICL_ST_u8      uchar
#define BICL_ST_i32     int
#define BICL_LD_f32(b)  as_float(b)
#define BICL_LD_f16(b)  bicl_f16_to_f32(b)
#define BICL_LD_bf16(b) bicl_bf16_to_f32(b)
#define BICL_SV_f32(x)  as_uint(x)
#define BICL_SV_f16(x)  bicl_f32_to_f16(x)
#define BICL_SV_bf16(x) bicl_f32_to_bf16(x)

/* Stored element of one dtype to stored element of another: bits are copied for the
 * same dtype (a signalling NaN stays as it is), otherwise bicl_convert.h's rules. */
#define BICL_CONV_f32_f32(b)   (b)
#define BICL_CONV_f16_f16(b)   (b)
#define BICL_CONV_bf16_bf16(b) (b)
#define BICL_CONV_f32_f16(b)   bicl_f32_to_f16(as_float(b))
#define BICL_CONV_f32_bf16(b)  bicl_f32_to_bf16(as_float(b))
#define BICL_CONV_f16_f32(b)   as_uint(bicl_f16_to_f32(b))
#define BICL_CONV_bf16_f32(b)  as_uint(bicl_bf16_to_f32(b))
#define BICL_CONV_f16_bf16(b)  bicl_f32_to_bf16(bicl_f16_to_f32(b))
#define BICL_CONV_bf16_f16(b)  bicl_f32_to_f16(bicl_bf16_to_f32(b))
#define BICL_CONV(TI, TO, b)   BICL_CONV_##TI##_##TO(b)

/* Moves of VW lanes between a global vector and a private array. The host runs a
 * vector variant only when every operand's offset is a multiple of VW, so the
 * vector pointers are aligned: the host also proves each buffer's device address aligned
 * to a whole vector (bicl_mem_align; zero-copy buffers may be element-aligned only). */
#define BICL_VEC_(T, N)        T##N
#define BICL_VEC(T, N)         BICL_VEC_(T, N)
#define BICL_VLD_1(T, p, v, a) ((a)[0] = (p)[v])
#define BICL_VLD_2(T, p, v, a) vstore2(((global const BICL_VEC(T, 2) *)(p))[v], 0, (a))
#define BICL_VLD_4(T, p, v, a) vstore4(((global const BICL_VEC(T, 4) *)(p))[v], 0, (a))
#define BICL_VLD_8(T, p, v, a) vstore8(((global const BICL_VEC(T, 8) *)(p))[v], 0, (a))
#define BICL_VST_1(T, p, v, a) ((p)[v] = (a)[0])
#define BICL_VST_2(T, p, v, a) (((global BICL_VEC(T, 2) *)(p))[v] = vload2(0, (a)))
#define BICL_VST_4(T, p, v, a) (((global BICL_VEC(T, 4) *)(p))[v] = vload4(0, (a)))
#define BICL_VST_8(T, p, v, a) (((global BICL_VEC(T, 8) *)(p))[v] = vload8(0, (a)))

/* n / d, and n % d in *r. In 32 bits when both fit (the common case): a 64-bit
 * division is a long software routine on GPUs. */
BICL_FN ulong bicl_divmod(ulong n, ulong d, ulong *r)
{
    if (n <= 0xffffffffUL && d <= 0xffffffffUL) {
        uint q = (uint)n / (uint)d;
        *r = (uint)n - q * (uint)d;
        return q;
    }
    ulong q = n / d;
    *r = n - q * d;
    return q;
}

/* Entry a of a table of 16-bit values, read as the 32-bit word that holds it (the device
 * is little-endian, a context's requirement: entry a is the low half of word a / 2 when a
 * is even). A CPU vectoriser has a 32-bit gather and none for 16 bits: PoCL loaded a
 * 16-bit table entry by entry (docs/performance.md). The same bits as tab16[a]. */
BICL_FN ushort bicl_table16_at(global const uint *restrict tab, uint a)
{
    return (ushort)(tab[a >> 1] >> ((a & 1u) << 4));
}

/* Entry a of a table in the compact form (cl/bicl_table_compact.h): its block's directory
 * word, then one entry of the list after the directory (entry 0 where the block is a rule:
 * a load every element makes, to a line every rule block shares). */
BICL_FN ushort bicl_table16_compact_at(global const uint *restrict tab, uint a)
{
    uint d = tab[a >> BICL_TABLE_BLOCK_BITS];
    ushort e = bicl_table16_at(tab + BICL_TABLE_BLOCKS, bicl_table_compact_index(d, a));
    return bicl_table_compact_value(d, a, e);
}

/* Coordinates of linear index l in a right-aligned 4-d shape. */
BICL_FN ulong4 bicl_unravel(ulong l, ulong4 shape)
{
    ulong4 c;
    c.s3 = l % shape.s3;
    l /= shape.s3;
    c.s2 = l % shape.s2;
    l /= shape.s2;
    c.s1 = l % shape.s1;
    c.s0 = l / shape.s1;
    return c;
}

BICL_FN ulong bicl_dot(ulong4 c, ulong4 s)
{
    return c.s0 * s.s0 + c.s1 * s.s1 + c.s2 * s.s2 + c.s3 * s.s3;
}

/* Grid-stride loop over work units: unit u = gid + k * global_size, for k below ipt
 * (the kernel's items-per-thread argument). */
#define BICL_FOR_UNITS(u, count, ipt)                                                              \
    for (uint k_ = 0; k_ < (ipt); ++k_)                                                            \
        for (ulong u = get_global_id(0) + (ulong)k_ * get_global_size(0); u < (count); u = (count))

/* The rows templates' loop over a vector's lanes, unrolled by request where the host
 * defines BICL_UNROLL_LANES and kept a loop by request where it defines BICL_ROLL_LANES
 * (the profile's choice, src/profile.h; else the compiler's). Unrolled, NVIDIA's kernels
 * of the large elements (the correctly rounded activations) ran faster (H200: silu f32
 * rows_v4 0.43 -> 0.55 of copy, rows_v8 0.53 -> 0.58; docs/performance.md; what the
 * compiler did without it was not read from its output), while on CPUs, whose profiles
 * launch none of these kernels by default, it only multiplied the code to build (Intel's
 * CPU compiler: silu f32's program 2.8 -> 1.7 s); kept a loop (unroll 1), Intel's builds it
 * in 1.5 s against 2.6 with the plain loop. Speed only: the same element for the same
 * lanes. */
#if defined(BICL_UNROLL_LANES)
#define BICL_FOR_LANES(l, VW) _Pragma("unroll") for (int l = 0; l < (VW); ++l)
#elif defined(BICL_ROLL_LANES)
#define BICL_FOR_LANES(l, VW) _Pragma("unroll 1") for (int l = 0; l < (VW); ++l)
#else
#define BICL_FOR_LANES(l, VW) for (int l = 0; l < (VW); ++l)
#endif

/* ------------------------------------------------ one input, one output */
/* ELEM(E, TI, TO, a XA) maps one stored input element to one stored output element; E is
 * one token the instance passes to every ELEM call (an op code; _ when unused).
 * XP, XA: names of function-like macros giving the extra kernel parameters and the
 * matching arguments, each preceded by a comma (BICL_NONE for none). They are passed
 * as names and invoked only here, so their commas never split macro arguments. */
#define BICL_NONE()
/* Calls macro M with an argument list that is macro-expanded first (so XA()'s commas
 * count). */
#define BICL_CALL(M, args) M args
#define BICL_STRIDED_1_1(NAME, TI, TO, ELEM, E, XP, XA)                                            \
    kernel void NAME##_strided(global const BICL_ST_##TI *x, ulong xo, ulong4 xs,                  \
                               global BICL_ST_##TO *y, ulong yo, ulong4 ys, ulong4 shape, ulong n, \
                               uint ipt XP())                                                      \
    {                                                                                              \
        BICL_FOR_UNITS(l, n, ipt)                                                                  \
        {                                                                                          \
            ulong4 c = bicl_unravel(l, shape);                                                     \
            y[yo + bicl_dot(c, ys)] = BICL_CALL(ELEM, (E, TI, TO, x[xo + bicl_dot(c, xs)] XA()));  \
        }                                                                                          \
    }

/* Rows of a 2-d iteration whose inner dim is contiguous in every operand (row-broadcast
 * operands have row stride 0): NDRange (vectors of a row, rows), no index division.
 * A flat iteration (one dim, contiguous in every operand) is one row: the host passes
 * row strides 0 and launches 1-d (get_global_id(1) is 0).
 * The host runs VW > 1 only when every offset and row stride is a multiple of VW. */
#define BICL_ROWS_1_1(NAME, TI, TO, VW, ELEM, E, XP, XA)                                           \
    kernel void NAME##_rows_v##VW(global const BICL_ST_##TI *x, ulong xo, ulong xr,                \
                                  global BICL_ST_##TO *y, ulong yo, ulong yr, ulong n,             \
                                  uint ipt XP())                                                   \
    {                                                                                              \
        ulong r = get_global_id(1);                                                                \
        x += xo + r * xr;                                                                          \
        y += yo + r * yr;                                                                          \
        ulong nv = n / VW;                                                                         \
        BICL_FOR_UNITS(v, nv, ipt)                                                                 \
        {                                                                                          \
            BICL_ST_##TI a[VW];                                                                    \
            BICL_ST_##TO b[VW];                                                                    \
            BICL_VLD_##VW(BICL_ST_##TI, x, v, a);                                                  \
            BICL_FOR_LANES(l, VW)                                                                  \
            {                                                                                      \
                b[l] = BICL_CALL(ELEM, (E, TI, TO, a[l] XA()));                                    \
            }                                                                                      \
            BICL_VST_##VW(BICL_ST_##TO, y, v, b);                                                  \
        }                                                                                          \
        ulong t = nv * VW + get_global_id(0);                                                      \
        if (t < n)                                                                                 \
            y[t] = BICL_CALL(ELEM, (E, TI, TO, x[t] XA()));                                        \
    }

/* The element statement STMT of a "_rows_s" work-item t of a row of n: without a test
 * when the whole work-group lies inside the row, a condition uniform over the group;
 * PoCL's loop over the work-items of a group is then split on it, and the full-group
 * loop, with no per-item branch, vectorises: 16-bit loads and stores included, which
 * AVX2 cannot mask (docs/performance.md). Otherwise per item. Speed only: the same
 * statement runs for the same items either way. */
#define BICL_ROWS_S_GUARDED(t, n, STMT)                                                            \
    if ((get_group_id(0) + 1) * get_local_size(0) <= (n)) {                                       \
        STMT;                                                                                      \
    } else if ((t) < (n)) {                                                                        \
        STMT;                                                                                      \
    }

/* One element per work-item of the rows iteration, no loop (ipt is 1: unused). */
#define BICL_ROWS_S_1_1(NAME, TI, TO, ELEM, E, XP, XA)                                             \
    kernel void NAME##_rows_s(global const BICL_ST_##TI *x, ulong xo, ulong xr,                    \
                              global BICL_ST_##TO *y, ulong yo, ulong yr, ulong n, uint ipt XP())  \
    {                                                                                              \
        ulong r = get_global_id(1), t = get_global_id(0);                                          \
        (void)ipt;                                                                                 \
        BICL_ROWS_S_GUARDED(                                                                       \
            t, n, y[yo + r * yr + t] = BICL_CALL(ELEM, (E, TI, TO, x[xo + r * xr + t] XA())))      \
    }

/* The fix-up form of _rows_s (one element per work-item, no loop, ipt unused), for an
 * element with a fast form that may decline: FAST(E, TI, TO, a, &ok XA) gives ELEM's
 * stored value where it sets ok (1), and declines with ok = 0 (bicl_math_f32.h,
 * BICL_M_CR_FAST1). Every work-item stores its element and marks a declined one in redo
 * (local memory, a byte per work-item of the group, sized by the host); after a barrier
 * (of global memory too: the group's first work-item stores over what another stored)
 * the group's first work-item stores ELEM of the marked ones. PoCL compiles the
 * two sides of a barrier as two loops over the work-items: FAST has no branch, so the
 * first vectorises, and ELEM's branches and loops stay in the second, which runs only
 * the declined elements: rare for inputs in the common ranges, all of a group of zeros,
 * tiny or saturated inputs (docs/performance.md). Every element is ELEM's: FAST's
 * value where it accepts, ELEM's elsewhere. Where FAST declines, the first side stores the
 * input's own stored bits (two inputs: b's where the host's hold_b is 1, a's elsewhere):
 * an output may be the same view as an input of its dtype (docs/api.md), so y keeps that
 * input until the second side reads it; elsewhere the bits are a placeholder the second
 * side replaces. The store is unconditional because PoCL made `if (ok) y = v` a masked
 * vector store, the hot spot of silu f32's kernel (docs/performance.md). The group's row is its
 * group id in dim 1 (local size 1 there); a work-item past the row marks nothing.
 * The second side is a call of the kernel's NAME_redo, which scans the group's marks
 * (BICL_FIX_SCAN). Where the host defines BICL_FIX_REDO_CALL (profiles that take the
 * fix-up form: compilers that run a group's work-items as loops, PoCL) that function is
 * not inlined: PoCL's loop over the work-items after the barrier, `if (first) scan`, then
 * holds a call alone, and the loop left the profile (LLVM peeling the first iteration is
 * our reading; the IR was not read); with the scan inlined it stayed, 512 compares a
 * group, a third of silu f32's samples (f32 activations 10-55 % faster,
 * docs/performance.md). Speed only: the same operations.
 * BICL_FIX_BEGIN(TO) declares the first side's r, t, ok and v (ipt unused);
 * BICL_FIX_MARK(ok) ends it; BICL_FIX_REDO(n, CALL) is the second: CALL, with the group's
 * first element g0, its row and its element count m in scope. */
#if defined(BICL_FIX_REDO_CALL)
#define BICL_FIX_NOINLINE __attribute__((noinline))
#else
#define BICL_FIX_NOINLINE
#endif
#define BICL_FIX_BEGIN(TO)                                                                         \
    ulong r = get_global_id(1), t = get_global_id(0);                                              \
    int ok = 1;                                                                                    \
    BICL_ST_##TO v;                                                                                \
    (void)ipt
#define BICL_FIX_MARK(ok)                                                                          \
    redo[get_local_id(0)] = (uchar)((ok) == 0);                                                    \
    barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE)
#define BICL_FIX_REDO(n, CALL)                                                                     \
    if (get_local_id(0) == 0) {                                                                    \
        ulong g0 = get_group_id(0) * get_local_size(0), row = get_group_id(1);                     \
        ulong m = min((ulong)get_local_size(0), (ulong)(n) - g0);                                  \
        CALL;                                                                                      \
    }
/* STMT for each element j < m whose mark in MARKS is set, eight marks at a time (most
 * are 0) */
#define BICL_FIX_SCAN(MARKS, m, j, STMT)                                                           \
    ulong j0 = 0;                                                                                  \
    for (; j0 + 8 <= (m); j0 += 8)                                                                 \
        if (as_ulong(vload8(0, (MARKS) + j0)) != 0)                                                \
            for (ulong j = j0; j < j0 + 8; ++j)                                                    \
                if ((MARKS)[j])                                                                    \
                    STMT;                                                                          \
    for (ulong j = j0; j < (m); ++j)                                                               \
        if ((MARKS)[j])                                                                            \
            STMT
#define BICL_ROWS_F_1_1(NAME, TI, TO, FAST, ELEM, E, XP, XA)                                       \
    BICL_FIX_NOINLINE void NAME##_redo(global const BICL_ST_##TI *x, global BICL_ST_##TO *y,       \
                                       local const uchar *redo, ulong m XP())                      \
    {                                                                                              \
        BICL_FIX_SCAN(redo, m, j, y[j] = BICL_CALL(ELEM, (E, TI, TO, x[j] XA())));                 \
    }                                                                                              \
    kernel void NAME##_rows_f(global const BICL_ST_##TI *x, ulong xo, ulong xr,                    \
                              global BICL_ST_##TO *y, ulong yo, ulong yr, ulong n, uint ipt XP(),  \
                              local uchar *redo)                                                   \
    {                                                                                              \
        BICL_FIX_BEGIN(TO);                                                                        \
        BICL_ROWS_S_GUARDED(t, n, BICL_ST_##TI a = x[xo + r * xr + t];                             \
                            v = BICL_CALL(FAST, (E, TI, TO, a, &ok XA()));                         \
                            y[yo + r * yr + t] = ok ? v : (BICL_ST_##TO)a)                         \
        BICL_FIX_MARK(ok);                                                                         \
        BICL_FIX_REDO(n, NAME##_redo(x + xo + row * xr + g0, y + yo + row * yr + g0, redo,         \
                                     m XA()));                                                     \
    }

#define BICL_ALL_1_1(NAME, TI, TO, ELEM, E, XP, XA)                                                \
    BICL_STRIDED_1_1(NAME, TI, TO, ELEM, E, XP, XA)                                                \
    BICL_ROWS_S_1_1(NAME, TI, TO, ELEM, E, XP, XA)                                                 \
    BICL_ROWS_1_1(NAME, TI, TO, 1, ELEM, E, XP, XA)                                                \
    BICL_ROWS_1_1(NAME, TI, TO, 4, ELEM, E, XP, XA)                                                \
    BICL_ROWS_1_1(NAME, TI, TO, 8, ELEM, E, XP, XA)

/* ------------------------------------------------ two inputs, one output */
/* ELEM(E, TA, TB, TO, a, b XA) maps stored a and b to a stored output element. */
#define BICL_STRIDED_2_1(NAME, TA, TB, TO, ELEM, E, XP, XA)                                        \
    kernel void NAME##_strided(global const BICL_ST_##TA *a, ulong ao, ulong4 as,                  \
                               global const BICL_ST_##TB *b, ulong bo, ulong4 bs,                  \
                               global BICL_ST_##TO *y, ulong yo, ulong4 ys, ulong4 shape, ulong n, \
                               uint ipt XP())                                                      \
    {                                                                                              \
        BICL_FOR_UNITS(l, n, ipt)                                                                  \
        {                                                                                          \
            ulong4 c = bicl_unravel(l, shape);                                                     \
            y[yo + bicl_dot(c, ys)] = BICL_CALL(                                                   \
                ELEM, (E, TA, TB, TO, a[ao + bicl_dot(c, as)], b[bo + bicl_dot(c, bs)] XA()));     \
        }                                                                                          \
    }

#define BICL_ROWS_2_1(NAME, TA, TB, TO, VW, ELEM, E, XP, XA)                                       \
    kernel void NAME##_rows_v##VW(                                                                 \
        global const BICL_ST_##TA *a, ulong ao, ulong ar, global const BICL_ST_##TB *b, ulong bo,  \
        ulong br, global BICL_ST_##TO *y, ulong yo, ulong yr, ulong n, uint ipt XP())              \
    {                                                                                              \
        ulong r = get_global_id(1);                                                                \
        a += ao + r * ar;                                                                          \
        b += bo + r * br;                                                                          \
        y += yo + r * yr;                                                                          \
        ulong nv = n / VW;                                                                         \
        BICL_FOR_UNITS(v, nv, ipt)                                                                 \
        {                                                                                          \
            BICL_ST_##TA av[VW];                                                                   \
            BICL_ST_##TB bv[VW];                                                                   \
            BICL_ST_##TO yv[VW];                                                                   \
            BICL_VLD_##VW(BICL_ST_##TA, a, v, av);                                                 \
            BICL_VLD_##VW(BICL_ST_##TB, b, v, bv);                                                 \
            BICL_FOR_LANES(l, VW)                                                                  \
            {                                                                                      \
                yv[l] = BICL_CALL(ELEM, (E, TA, TB, TO, av[l], bv[l] XA()));                       \
            }                                                                                      \
            BICL_VST_##VW(BICL_ST_##TO, y, v, yv);                                                 \
        }                                                                                          \
        ulong t = nv * VW + get_global_id(0);                                                      \
        if (t < n)                                                                                 \
            y[t] = BICL_CALL(ELEM, (E, TA, TB, TO, a[t], b[t] XA()));                              \
    }

#define BICL_ROWS_S_2_1(NAME, TA, TB, TO, ELEM, E, XP, XA)                                         \
    kernel void NAME##_rows_s(global const BICL_ST_##TA *a, ulong ao, ulong ar,                    \
                              global const BICL_ST_##TB *b, ulong bo, ulong br,                    \
                              global BICL_ST_##TO *y, ulong yo, ulong yr, ulong n, uint ipt XP())  \
    {                                                                                              \
        ulong r = get_global_id(1), t = get_global_id(0);                                          \
        (void)ipt;                                                                                 \
        BICL_ROWS_S_GUARDED(t, n,                                                                  \
                            y[yo + r * yr + t] =                                                   \
                                BICL_CALL(ELEM, (E, TA, TB, TO, a[ao + r * ar + t],                \
                                                 b[bo + r * br + t] XA())))                        \
    }

/* The fix-up form of _rows_s of two inputs (see BICL_ROWS_F_1_1); hold_b: 1 where y is
 * b's view (in place), so that a declined element keeps b there, 0 elsewhere (a). */
#define BICL_ROWS_F_2_1(NAME, TA, TB, TO, FAST, ELEM, E, XP, XA)                                   \
    BICL_FIX_NOINLINE void NAME##_redo(global const BICL_ST_##TA *a, global const BICL_ST_##TB *b, \
                                       global BICL_ST_##TO *y, local const uchar *redo,            \
                                       ulong m XP())                                               \
    {                                                                                              \
        BICL_FIX_SCAN(redo, m, j, y[j] = BICL_CALL(ELEM, (E, TA, TB, TO, a[j], b[j] XA())));       \
    }                                                                                              \
    kernel void NAME##_rows_f(global const BICL_ST_##TA *a, ulong ao, ulong ar,                    \
                              global const BICL_ST_##TB *b, ulong bo, ulong br,                    \
                              global BICL_ST_##TO *y, ulong yo, ulong yr, ulong n, uint ipt XP(),  \
                              uint hold_b, local uchar *redo)                                      \
    {                                                                                              \
        BICL_FIX_BEGIN(TO);                                                                        \
        BICL_ROWS_S_GUARDED(t, n, BICL_ST_##TA ea = a[ao + r * ar + t];                            \
                            BICL_ST_##TB eb = b[bo + r * br + t];                                  \
                            v = BICL_CALL(FAST, (E, TA, TB, TO, ea, eb, &ok XA()));                \
                            y[yo + r * yr + t] = ok       ? v                                      \
                                                 : hold_b ? (BICL_ST_##TO)eb                       \
                                                          : (BICL_ST_##TO)ea)                      \
        BICL_FIX_MARK(ok);                                                                         \
        BICL_FIX_REDO(n, NAME##_redo(a + ao + row * ar + g0, b + bo + row * br + g0,               \
                                     y + yo + row * yr + g0, redo, m XA()));                       \
    }

#define BICL_ALL_2_1(NAME, TA, TB, TO, ELEM, E, XP, XA)                                            \
    BICL_STRIDED_2_1(NAME, TA, TB, TO, ELEM, E, XP, XA)                                            \
    BICL_ROWS_S_2_1(NAME, TA, TB, TO, ELEM, E, XP, XA)                                             \
    BICL_ROWS_2_1(NAME, TA, TB, TO, 1, ELEM, E, XP, XA)                                            \
    BICL_ROWS_2_1(NAME, TA, TB, TO, 4, ELEM, E, XP, XA)                                            \
    BICL_ROWS_2_1(NAME, TA, TB, TO, 8, ELEM, E, XP, XA)

/* ---------------------------------------------- two inputs, two outputs */
/* ELEM(TA, TB, TO, TP, a, b, o, p XA) is a statement storing o and p. */
#define BICL_STRIDED_2_2(NAME, TA, TB, TO, TP, ELEM, XP, XA)                                       \
    kernel void NAME##_strided(                                                                    \
        global const BICL_ST_##TA *a, ulong ao, ulong4 as, global const BICL_ST_##TB *b, ulong bo, \
        ulong4 bs, global BICL_ST_##TO *o, ulong oo, ulong4 os, global BICL_ST_##TP *p, ulong po,  \
        ulong4 ps, ulong4 shape, ulong n, uint ipt XP())                                           \
    {                                                                                              \
        BICL_FOR_UNITS(l, n, ipt)                                                                  \
        {                                                                                          \
            ulong4 c = bicl_unravel(l, shape);                                                     \
            BICL_CALL(ELEM, (TA, TB, TO, TP, a[ao + bicl_dot(c, as)], b[bo + bicl_dot(c, bs)],     \
                             o[oo + bicl_dot(c, os)], p[po + bicl_dot(c, ps)] XA()));              \
        }                                                                                          \
    }

#define BICL_ROWS_2_2(NAME, TA, TB, TO, TP, VW, ELEM, XP, XA)                                      \
    kernel void NAME##_rows_v##VW(                                                                 \
        global const BICL_ST_##TA *a, ulong ao, ulong ar, global const BICL_ST_##TB *b, ulong bo,  \
        ulong br, global BICL_ST_##TO *o, ulong oo, ulong or_, global BICL_ST_##TP *p, ulong po,   \
        ulong pr, ulong n, uint ipt XP())                                                          \
    {                                                                                              \
        ulong r = get_global_id(1);                                                                \
        a += ao + r * ar;                                                                          \
        b += bo + r * br;                                                                          \
        o += oo + r * or_;                                                                         \
        p += po + r * pr;                                                                          \
        ulong nv = n / VW;                                                                         \
        BICL_FOR_UNITS(v, nv, ipt)                                                                 \
        {                                                                                          \
            BICL_ST_##TA av[VW];                                                                   \
            BICL_ST_##TB bv[VW];                                                                   \
            BICL_ST_##TO ov[VW];                                                                   \
            BICL_ST_##TP pv[VW];                                                                   \
            BICL_VLD_##VW(BICL_ST_##TA, a, v, av);                                                 \
            BICL_VLD_##VW(BICL_ST_##TB, b, v, bv);                                                 \
            BICL_FOR_LANES(l, VW)                                                                  \
            {                                                                                      \
                BICL_CALL(ELEM, (TA, TB, TO, TP, av[l], bv[l], ov[l], pv[l] XA()));                \
            }                                                                                      \
            BICL_VST_##VW(BICL_ST_##TO, o, v, ov);                                                 \
            BICL_VST_##VW(BICL_ST_##TP, p, v, pv);                                                 \
        }                                                                                          \
        ulong t = nv * VW + get_global_id(0);                                                      \
        if (t < n)                                                                                 \
            BICL_CALL(ELEM, (TA, TB, TO, TP, a[t], b[t], o[t], p[t] XA()));                        \
    }

#define BICL_ROWS_S_2_2(NAME, TA, TB, TO, TP, ELEM, XP, XA)                                        \
    kernel void NAME##_rows_s(global const BICL_ST_##TA *a, ulong ao, ulong ar,                    \
                              global const BICL_ST_##TB *b, ulong bo, ulong br,                    \
                              global BICL_ST_##TO *o, ulong oo, ulong or_, global BICL_ST_##TP *p, \
                              ulong po, ulong pr, ulong n, uint ipt XP())                          \
    {                                                                                              \
        ulong r = get_global_id(1), t = get_global_id(0);                                          \
        (void)ipt;                                                                                 \
        BICL_ROWS_S_GUARDED(t, n,                                                                  \
                            BICL_CALL(ELEM, (TA, TB, TO, TP, a[ao + r * ar + t],                   \
                                             b[bo + r * br + t], o[oo + r * or_ + t],              \
                                             p[po + r * pr + t] XA())))                            \
    }

#define BICL_ALL_2_2(NAME, TA, TB, TO, TP, ELEM, XP, XA)                                           \
    BICL_STRIDED_2_2(NAME, TA, TB, TO, TP, ELEM, XP, XA)                                           \
    BICL_ROWS_S_2_2(NAME, TA, TB, TO, TP, ELEM, XP, XA)                                            \
    BICL_ROWS_2_2(NAME, TA, TB, TO, TP, 1, ELEM, XP, XA)                                           \
    BICL_ROWS_2_2(NAME, TA, TB, TO, TP, 4, ELEM, XP, XA)                                           \
    BICL_ROWS_2_2(NAME, TA, TB, TO, TP, 8, ELEM, XP, XA)

/* Instantiates M(TI, TO) for the 9 pairs of float storage dtypes. */
#define BICL_FOR_DTYPE_PAIRS(M)                                                                    \
    M(f32, f32)                                                                                    \
    M(f32, f16)                                                                                    \
    M(f32, bf16) M(f16, f32) M(f16, f16) M(f16, bf16) M(bf16, f32) M(bf16, f16) M(bf16, bf16)

/* The 6 pairs with a 16-bit input (the lookup-table kernels). */
#define BICL_FOR_16BIT_DTYPE_PAIRS(M)                                                              \
    M(f16, f32) M(f16, f16) M(f16, bf16) M(bf16, f32) M(bf16, f16) M(bf16, bf16)

/* The same with three leading arguments: M(A, B, C, TI, TO) (an op's names and arity). */
#define BICL_FOR_DTYPE_PAIRS_3(M, A, B, C)                                                         \
    M(A, B, C, f32, f32)                                                                           \
    M(A, B, C, f32, f16)                                                                           \
    M(A, B, C, f32, bf16)                                                                          \
    M(A, B, C, f16, f32)                                                                           \
    M(A, B, C, f16, f16)                                                                           \
    M(A, B, C, f16, bf16)                                                                          \
    M(A, B, C, bf16, f32) M(A, B, C, bf16, f16) M(A, B, C, bf16, bf16)

#endif /* BICL_KERNEL_H */
