/* test_concurrency.c - one bicl_context shared by 8 threads, each issuing 1000 mixed
 * ops (cast, unary, glu, binary, residual, rope, mask, causal mask) on its own queue
 * with its own buffers, while thread 0 keeps switching the context's variant. Every
 * result equals the host reference bit for bit; every bad call reports its own thread's
 * detail and gets its own events back; no kernel or buffer reference is left behind
 * (docs/reliability.md). */
#include "common.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define THREADS 8
#define OPS     1000
#define ROWS    16
#define COLS    16
#define NEL     (ROWS * COLS)
#define TOK     4 /* rope: [TOK, HEADS, HDIM] over the same NEL elements */
#define HEADS   4
#define HDIM    16
#define KINDS   8

typedef struct worker {
    int id;
    test_env *env;
    bicl_rope_plan *plan;
    cl_command_queue queue;
    test_buf x, g, r, mask, pos, y, ro;
    bicl_tensor tx, tg, tr, tmask, tpos, ty, tro, ty16, tq, tqo;
    float xs[NEL], gs[NEL], rs[NEL];
    uint8_t ms[NEL];
    int32_t ps[TOK];
    /* expected y (and residual_out) of each kind, from the host reference */
    uint32_t want[KINDS][NEL], want_ro[NEL];
    size_t want_bytes[KINDS];
    char failure[512];
    unsigned long ops_done;
} worker;

static void prepare_inputs(worker *w)
{
    test_fill_f32_bits((uint32_t *)w->xs, NEL, 100 + (uint64_t)w->id);
    test_fill_f32_bits((uint32_t *)w->gs, NEL, 200 + (uint64_t)w->id);
    for (int i = 0; i < NEL; ++i) {
        w->rs[i] = (float)(i - w->id) * 0.375f;
        w->ms[i] = (uint8_t)((i * 7 + w->id) % 5 == 0);
    }
    for (int t = 0; t < TOK; ++t)
        w->ps[t] = 3 * t + w->id; /* within the plan's 64-row table */
}

/* The host reference of every kind, once: the inputs never change. */
static void compute_references(worker *w)
{
    const size_t f32 = NEL * 4;
    bicl_ref_cast(BICL_F32, w->xs, BICL_BF16, w->want[0], NEL);
    w->want_bytes[0] = NEL * 2;
    bicl_ref_unary(BICL_UNARY_SILU, NULL, BICL_F32, w->xs, BICL_F32, w->want[1], NEL);
    bicl_ref_glu(BICL_GLU_SWIGLU, NULL, BICL_F32, w->xs, w->gs, BICL_F32, w->want[2], NEL);
    bicl_ref_binary(BICL_BINARY_ADD, BICL_F32, w->xs, BICL_F32, w->gs, BICL_F32, w->want[3], NEL);
    bicl_ref_residual_add(w->rs, BICL_F32, w->xs, (float *)w->want_ro, BICL_F32, w->want[4], NEL);
    for (int t = 0; t < TOK; ++t)
        for (int h = 0; h < HEADS; ++h) {
            size_t at = ((size_t)t * HEADS + (size_t)h) * HDIM;
            bicl_ref_rope_head(w->plan, BICL_ROPE_SOURCE_AUTO, 0, w->ps[t], BICL_F32, w->xs + at,
                               BICL_F32, w->want[5] + at);
        }
    bicl_ref_mask_fill(BICL_F32, w->xs, w->ms, -INFINITY, BICL_F32, w->want[6], NEL);
    uint8_t causal[NEL];
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c)
            causal[r * COLS + c] = c > r + 1; /* offset 1 */
    bicl_ref_mask_fill(BICL_F32, w->xs, causal, -1e4f, BICL_F32, w->want[7], NEL);
    for (int k = 1; k < KINDS; ++k)
        w->want_bytes[k] = f32;
}

static void worker_setup(worker *w)
{
    test_env *env = w->env;
    cl_int err = CL_SUCCESS;
    w->queue = clCreateCommandQueue(bicl_context_cl_context(env->ctx),
                                    bicl_context_device(env->ctx), 0, &err);
    assert_int_equal(err, CL_SUCCESS);
    prepare_inputs(w);
    w->x = test_buf_new(env, 4, NEL, w->xs);
    w->g = test_buf_new(env, 4, NEL, w->gs);
    w->r = test_buf_new(env, 4, NEL, w->rs);
    w->mask = test_buf_new(env, 1, NEL, w->ms);
    w->pos = test_buf_new(env, 4, TOK, w->ps);
    w->y = test_buf_new(env, 4, NEL, NULL);
    w->ro = test_buf_new(env, 4, NEL, NULL);
    size_t sh[2] = {ROWS, COLS}, qs[3] = {TOK, HEADS, HDIM}, ts[1] = {TOK};
    w->tx = test_view(&w->x, BICL_F32, 0, 2, sh);
    w->tg = test_view(&w->g, BICL_F32, 0, 2, sh);
    w->tr = test_view(&w->r, BICL_F32, 0, 2, sh);
    w->tmask = test_view(&w->mask, BICL_U8, 0, 2, sh);
    w->ty = test_view(&w->y, BICL_F32, 0, 2, sh);
    w->ty16 = bicl_tensor_contiguous(w->y.mem, BICL_BF16, CANARY_BYTES / 2, 2, sh); /* y's bytes */
    w->tro = test_view(&w->ro, BICL_F32, 0, 2, sh);
    w->tpos = test_view(&w->pos, BICL_I32, 0, 1, ts);
    w->tq = test_view(&w->x, BICL_F32, 0, 3, qs);
    w->tqo = test_view(&w->y, BICL_F32, 0, 3, qs);
    compute_references(w);
}

static bicl_status run_kind(worker *w, int kind, cl_event *ev)
{
    bicl_context *c = w->env->ctx;
    cl_command_queue q = w->queue;
    switch (kind) {
    case 0:
        return bicl_cast(c, q, &w->tx, &w->ty16, 0, NULL, ev);
    case 1:
        return bicl_unary(c, q, BICL_UNARY_SILU, NULL, &w->tx, &w->ty, 0, NULL, ev);
    case 2:
        return bicl_glu(c, q, BICL_GLU_SWIGLU, NULL, &w->tx, &w->tg, &w->ty, 0, NULL, ev);
    case 3:
        return bicl_binary(c, q, BICL_BINARY_ADD, &w->tx, &w->tg, &w->ty, 0, NULL, ev);
    case 4:
        return bicl_residual_add(c, q, &w->tr, &w->tx, &w->tro, &w->ty, 0, NULL, ev);
    case 5:
        return bicl_rope_apply(c, q, w->plan, BICL_ROPE_SOURCE_TABLE, 0, &w->tpos, &w->tq, &w->tqo,
                               NULL, NULL, 0, NULL, ev);
    case 6:
        return bicl_mask_fill(c, q, &w->tx, &w->tmask, -INFINITY, &w->ty, 0, NULL, ev);
    default:
        return bicl_mask_fill_causal(c, q, &w->tx, 1, -1e4f, &w->ty, 0, NULL, ev);
    }
}

/* Variants thread 0 switches between: each changes launch geometry, never bits. */
static const bicl_variant variants[] = {{1, 1, 0}, {4, 2, 64}, {8, 1, 32}, {4, 4, 0}};

/* A call that must fail, with a detail only this thread can have produced. */
static bool own_error_detail(worker *w)
{
    bicl_unary_op bad = (bicl_unary_op)(1000 + w->id);
    if (bicl_unary(w->env->ctx, w->queue, bad, NULL, &w->tx, &w->ty, 0, NULL, NULL) !=
        BICL_ERR_INVALID_ENUM)
        return false;
    char want[32];
    snprintf(want, sizeof want, "unknown op %d", 1000 + w->id);
    return strstr(bicl_last_error(NULL), want) != NULL;
}

/* One op: run, wait on its event, read back, compare. */
static bool one_op(worker *w, int i, uint32_t *got)
{
    int kind = (i + w->id) % KINDS;
    cl_event ev = NULL;
    bicl_status st = run_kind(w, kind, &ev);
    if (st != BICL_SUCCESS) {
        snprintf(w->failure, sizeof w->failure, "op %d kind %d: %s (%s)", i, kind,
                 bicl_status_string(st), bicl_last_error(NULL));
        return false;
    }
    /* The event is this thread's: enqueued on its own queue, and it completes. */
    cl_command_queue eq = NULL;
    cl_int status = CL_QUEUED;
    clGetEventInfo(ev, CL_EVENT_COMMAND_QUEUE, sizeof eq, &eq, NULL);
    clWaitForEvents(1, &ev);
    clGetEventInfo(ev, CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL);
    clReleaseEvent(ev);
    clEnqueueReadBuffer(w->queue, w->y.mem, CL_TRUE, CANARY_BYTES, w->want_bytes[kind], got, 0,
                        NULL, NULL);
    bool ok = eq == w->queue && status == CL_COMPLETE &&
              memcmp(got, w->want[kind], w->want_bytes[kind]) == 0;
    if (ok && kind == 4) {
        clEnqueueReadBuffer(w->queue, w->ro.mem, CL_TRUE, CANARY_BYTES, NEL * 4, got, 0, NULL,
                            NULL);
        ok = memcmp(got, w->want_ro, NEL * 4) == 0;
    }
    if (!ok)
        snprintf(w->failure, sizeof w->failure,
                 "op %d kind %d: result differs from the host reference (event %s, status %d)", i,
                 kind, eq == w->queue ? "on this queue" : "on ANOTHER queue", (int)status);
    return ok;
}

static void *worker_main(void *arg)
{
    worker *w = arg;
    uint32_t got[NEL];
    for (int i = 0; i < OPS; ++i) {
        if (w->id == 0 && i % 50 == 0) {
            int k = (i / 50) % 5; /* the four variants, then the profile's (NULL) */
            const bicl_variant *v = k == 4 ? NULL : &variants[k];
            if (bicl_context_set_variant(w->env->ctx, v) != BICL_SUCCESS) {
                snprintf(w->failure, sizeof w->failure, "set_variant: %s", bicl_last_error(NULL));
                return NULL;
            }
        }
        if (i % 100 == 7 && !own_error_detail(w)) {
            snprintf(w->failure, sizeof w->failure, "op %d: last error '%s' is not this thread's",
                     i, bicl_last_error(NULL));
            return NULL;
        }
        if (!one_op(w, i, got))
            return NULL;
        w->ops_done++;
    }
    return NULL;
}

static cl_uint mem_refs(cl_mem m)
{
    cl_uint refs = 0;
    clGetMemObjectInfo(m, CL_MEM_REFERENCE_COUNT, sizeof refs, &refs, NULL);
    return refs;
}

static void worker_teardown(worker *w)
{
    test_buf *bufs[] = {&w->x, &w->g, &w->r, &w->mask, &w->pos, &w->y, &w->ro};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i) {
        assert_int_equal(mem_refs(bufs[i]->mem), 1); /* bicl kept no reference */
        test_buf_free(bufs[i]);
    }
    clReleaseCommandQueue(w->queue);
}

static void eight_threads_share_one_context(void **state)
{
    test_env *env = *state;
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, HDIM, HDIM);
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &cfg, 64, 0, &plan), BICL_SUCCESS);
    worker *ws = calloc(THREADS, sizeof *ws);
    assert_non_null(ws);
    for (int t = 0; t < THREADS; ++t) {
        ws[t].id = t;
        ws[t].env = env;
        ws[t].plan = plan;
        worker_setup(&ws[t]);
    }
    pthread_t th[THREADS];
    for (int t = 0; t < THREADS; ++t)
        assert_int_equal(pthread_create(&th[t], NULL, worker_main, &ws[t]), 0);
    for (int t = 0; t < THREADS; ++t)
        assert_int_equal(pthread_join(th[t], NULL), 0);
    unsigned long total = 0;
    for (int t = 0; t < THREADS; ++t) {
        if (ws[t].failure[0])
            fail_msg("thread %d: %s", t, ws[t].failure);
        total += ws[t].ops_done;
    }
    assert_int_equal(total, THREADS * OPS);
    /* Every kernel went back to its pool, and the pools hold at most one kernel per
     * thread for each name (kinds x variants' flat widths and strided forms). */
    size_t live = 0, pooled = 0;
    bicl_kernel_counts(env->ctx, &live, &pooled);
    assert_int_equal(live, pooled);
    assert_true(pooled <= (size_t)THREADS * KINDS * 5);
    printf("%d threads x %d ops: all equal to the host reference; %zu kernels pooled\n", THREADS,
           OPS, pooled);
    unsigned count = 0;
    int first = 0;
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, plan, &count, &first, 0, NULL),
                     BICL_SUCCESS);
    for (int t = 0; t < THREADS; ++t)
        worker_teardown(&ws[t]);
    assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
    bicl_rope_plan_free(plan);
    free(ws);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(eight_threads_share_one_context),
    };
    return cmocka_run_group_tests_name("concurrency", tests, test_env_setup, test_env_teardown);
}
