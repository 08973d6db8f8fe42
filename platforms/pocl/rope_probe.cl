/* rope_probe.cl - what PoCL vectorises in a RoPE kernel (platforms/pocl/rope_probe.py;
 * docs/performance.md, "Every RoPE form measured"). A diagnostic, not bicl's math: no NaN
 * rule, plain bf16 rounding. NeoX pairs (i, i + 64) of heads of 128 bf16 elements; a
 * token has 40 heads; the (cos, sin) of pair i at position p is table[p * 64 + i]
 * (bicl's layout, float2) or cs[p * 128 + i] and cs[p * 128 + 64 + i] (cos and sin
 * rows). */
#pragma OPENCL FP_CONTRACT OFF

#define LD(v)     as_float((uint)(v) << 16)
#define ST(f)     ((ushort)((as_uint(f) + 0x7fffu + ((as_uint(f) >> 16) & 1u)) >> 16))
#define ROT(c, s) (x0 * (c) - x1 * (s)), (x1 * (c) + x0 * (s))

/* a bf16 stream, one element per work-item: the reference for a 16-bit kernel */
kernel void scale(global ushort *x)
{
    size_t u = get_global_id(0);
    x[u] = ST(LD(x[u]) * 0.5f);
}

/* flat: a work-item per (token, head, pair), in place, bicl's table */
kernel void flat_table(global ushort *x, global const float2 *table, global const int *pos)
{
    size_t u = get_global_id(0);
    uint i = u % 64, th = u / 64, t = th / 40;
    global ushort *h = x + (size_t)th * 128;
    float2 cs = table[(size_t)pos[t] * 64 + i];
    float x0 = LD(h[i]), x1 = LD(h[i + 64]);
    float y0 = x0 * cs.x - x1 * cs.y, y1 = x1 * cs.x + x0 * cs.y;
    h[i] = ST(y0);
    h[i + 64] = ST(y1);
}

/* 2-d: dim 0 the pair (a local size of 64), dim 1 (token, head) */
kernel void rows_const(global ushort *x)
{
    uint i = get_global_id(0);
    global ushort *h = x + (size_t)get_global_id(1) * 128;
    float x0 = LD(h[i]), x1 = LD(h[i + 64]);
    float y0 = x0 * 0.5f - x1 * 0.25f, y1 = x1 * 0.5f + x0 * 0.25f;
    h[i] = ST(y0);
    h[i + 64] = ST(y1);
}

kernel void rows_table(global const ushort *restrict x, global ushort *restrict y,
                       global const float2 *restrict table, global const int *restrict pos)
{
    uint i = get_global_id(0), th = get_global_id(1), t = th / 40;
    size_t o = (size_t)th * 128;
    float2 cs = table[(size_t)pos[t] * 64 + i];
    float x0 = LD(x[o + i]), x1 = LD(x[o + i + 64]);
    float y0 = x0 * cs.x - x1 * cs.y, y1 = x1 * cs.x + x0 * cs.y;
    y[o + i] = ST(y0);
    y[o + i + 64] = ST(y1);
}

kernel void rows_split(global const ushort *restrict x, global ushort *restrict y,
                       global const float *restrict cs, global const int *restrict pos)
{
    uint i = get_global_id(0), th = get_global_id(1), t = th / 40;
    size_t o = (size_t)th * 128, r = (size_t)pos[t] * 128;
    float c = cs[r + i], s = cs[r + 64 + i];
    float x0 = LD(x[o + i]), x1 = LD(x[o + i + 64]);
    float y0 = x0 * c - x1 * s, y1 = x1 * c + x0 * s;
    y[o + i] = ST(y0);
    y[o + i + 64] = ST(y1);
}
