/* bicl_mrope.h - M-RoPE's integer maps, shared by the kernels (cl/rope.cl's M-RoPE forms,
 * cl/mrope.cl's position builders) and the host (src/mrope.c): which position row rotates a pair,
 * and the three position ids of a vision token, as transformers 5 computes them (docs/rope.md,
 * "M-RoPE"). */
#ifndef BICL_MROPE_MATH_H
#define BICL_MROPE_MATH_H
#include "bicl_portable.h"

/* The row (0 t, 1 h, 2 w) of pair i, 0 <= i < rotary_dim / 2.
 * Chunked (Qwen2-VL's recomposition: freq.split(mrope_section) taking chunk j from row
 * j % 3): [0, s0) t, [s0, s0 + s1) h, the rest w.
 * Interleaved (Qwen3-VL: start from row t, overwrite slice(1, 3 s1, 3) from h and
 * slice(2, 3 s2, 3) from w). */
BICL_FN int bicl_mrope_row(int i, int s0, int s1, int s2, int interleaved)
{
    if (interleaved) {
        if (i % 3 == 1 && i < 3 * s1)
            return 1;
        if (i % 3 == 2 && i < 3 * s2)
            return 2;
        return 0;
    }
    return i < s0 ? 0 : (i < s0 + s1 ? 1 : 2);
}

/* HF's temporal spacing of a video: tokens_per_second * second_per_grid_ts, a float32
 * product (0: no spacing, ids step by 1). */
BICL_FN float bicl_mrope_interval(int tokens_per_second, float second_per_grid)
{
    return (float)tokens_per_second * second_per_grid;
}

/* Ids of token k (0-based) of a vision run with merged grid (t, hm, wm) starting at
 * running position p: ids[0..2] = (p + temporal(f), p + y, p + x) for k = (f hm + y) wm
 * + x. temporal(f) = f, or with spacing (spaced != 0) HF's
 * (arange(t) * interval).long(): f32(f) * interval rounded to f32, truncated. Returns 0
 * when every id is in [0, 2^31 - 1], else -1 (also for a spacing that is not finite or
 * is negative). hm, wm >= 1 and k < t hm wm are the caller's to check. */
BICL_FN int bicl_mrope_vision_ids(bicl_i64 k, bicl_i64 hm, bicl_i64 wm, int spaced, float interval,
                                  bicl_i64 p, bicl_i64 *ids)
{
    ids[0] = ids[1] = ids[2] = -1;
    bicl_i64 per_frame = hm * wm;
    bicl_i64 f = k / per_frame, r = k - f * per_frame;
    bicl_i64 y = r / wm, x = r - y * wm;
    bicl_i64 tf = f;
    if (spaced) {
        float v = (float)f * interval;
        if (!(v >= 0.0f && v < 2147483648.0f))
            return -1;
        tf = (bicl_i64)v; /* in range: conversion truncates toward zero */
    }
    ids[0] = p + tf;
    ids[1] = p + y;
    ids[2] = p + x;
    for (int a = 0; a < 3; ++a)
        if (ids[a] < 0 || ids[a] > 2147483647)
            return -1;
    return 0;
}

/* get_rope_index's walk over one sequence's real tokens (pads are skipped by the
 * caller, as HF drops them), one token at a time, so that the kernel and the host
 * reference share every rule; the callers only fetch the grids. */
typedef struct bicl_mrope_walk {
    bicl_i64 p;            /* HF's current_pos */
    bicl_i64 run_p;        /* current_pos at the start of the vision run */
    bicl_i64 k, count;     /* token index in the vision run, tokens the grid gives */
    bicl_i64 hm, wm;       /* merged grid height and width */
    bicl_i64 maxid, nreal; /* largest id, real tokens seen */
    float interval;        /* temporal spacing (spaced != 0) */
    int cur, spaced, bad;  /* run type (-1 before the first), spacing, layout mismatch */
} bicl_mrope_walk;

BICL_FN void bicl_mrope_walk_init(bicl_mrope_walk *w)
{
    w->p = 0;
    w->run_p = 0;
    w->k = 0;
    w->count = 0;
    w->hm = 1;
    w->wm = 1;
    w->maxid = -1;
    w->nreal = 0;
    w->interval = 1.0f;
    w->cur = -1;
    w->spaced = 0;
    w->bad = 0;
}

/* Closes the current run: a vision run must have used its whole grid. */
BICL_FN void bicl_mrope_walk_close(bicl_mrope_walk *w)
{
    if (w->cur > 0 && w->k != w->count)
        w->bad = 1;
}

/* Opens a run of type ty (a token whose type differs from the run before). For a
 * vision run (ty 1 or 2), (gt, gh, gw) is its grid and ok says the caller found one;
 * the running position then moves by max(gh, gw) / merge, as HF's does after the run. */
BICL_FN void bicl_mrope_walk_open(bicl_mrope_walk *w, int ty, int ok, bicl_i64 gt, bicl_i64 gh,
                                  bicl_i64 gw, int merge, int spaced, float interval)
{
    bicl_mrope_walk_close(w);
    w->cur = ty;
    w->k = 0;
    w->count = 0;
    if (ty == 0)
        return;
    if (ty != 1 && ty != 2) {
        w->bad = 1;
        return;
    }
    if (!ok || merge < 1 || gt < 1 || gh < 1 || gw < 1 || gh / merge < 1 || gw / merge < 1) {
        w->bad = 1;
        return;
    }
    w->hm = gh / merge;
    w->wm = gw / merge;
    w->count = gt * w->hm * w->wm;
    w->spaced = spaced;
    w->interval = interval;
    w->run_p = w->p;
    w->p += (gh > gw ? gh : gw) / merge;
}

/* The ids of the next real token of the current run into ids[3]. */
BICL_FN void bicl_mrope_walk_token(bicl_mrope_walk *w, bicl_i64 *ids)
{
    w->nreal += 1;
    if (w->cur == 0) {
        ids[0] = w->p;
        ids[1] = w->p;
        ids[2] = w->p;
        w->p += 1;
        if (ids[0] > 2147483647)
            w->bad = 1;
    } else if (w->bad || w->k >= w->count) {
        w->bad = 1;
        ids[0] = ids[1] = ids[2] = -1;
    } else {
        if (bicl_mrope_vision_ids(w->k, w->hm, w->wm, w->spaced, w->interval, w->run_p, ids) != 0)
            w->bad = 1;
        w->k += 1;
    }
    for (int a = 0; a < 3; ++a)
        if (ids[a] > w->maxid)
            w->maxid = ids[a];
}

/* After the last token: 0 when the layout matched its grids, and *delta = HF's
 * mrope_position_delta (max id + 1 - real tokens; 0 for a row of pads only). */
BICL_FN int bicl_mrope_walk_finish(bicl_mrope_walk *w, bicl_i64 *delta)
{
    bicl_mrope_walk_close(w);
    *delta = w->nreal ? w->maxid + 1 - w->nreal : 0;
    if (*delta < -2147483647 - 1 || *delta > 2147483647)
        w->bad = 1;
    if (w->bad)
        *delta = 0;
    return w->bad ? -1 : 0;
}

#endif /* BICL_MROPE_MATH_H */
