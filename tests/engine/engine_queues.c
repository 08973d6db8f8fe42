/* engine_queues.c - how engines enqueue: out-of-order queues whose order comes from
 * events only, work gated on user events, the RoPE error count read on such queues, and
 * four threads sharing one bicl context and plan with a queue each. */
#define _POSIX_C_SOURCE 200809L /* nanosleep */
#include "engine.h"

#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static cl_command_queue out_of_order_queue(const engine *e)
{
    cl_int err = CL_SUCCESS;
    cl_command_queue q =
        clCreateCommandQueue(e->cl, e->dev, CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE, &err);
    ENGINE_CL(err);
    return q;
}

static cl_mem new_buffer(const engine *e, size_t bytes, const void *init)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(e->cl, CL_MEM_READ_WRITE | (init ? CL_MEM_COPY_HOST_PTR : 0), bytes,
                              (void *)init, &err);
    ENGINE_CL(err);
    return m;
}

static bicl_rope_plan *small_plan(const engine *e, int table_rows)
{
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, 64, 64);
    cfg.theta = 1000000.0;
    bicl_rope_plan *plan = NULL;
    ENGINE_OK(bicl_rope_plan_create(e->bicl, &cfg, table_rows, table_rows - 1, &plan));
    return plan;
}

static void sleep_ms(long ms)
{
    struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&ts, NULL);
}

/* positions -> RoPE -> SwiGLU -> residual add on an out-of-order queue, everything
 * behind one user event; the chain's order is its events. */
static void chain_behind_user_event(void **state)
{
    engine *e = *state;
    enum { B = 3, T = 24, H = 2, D = 64, N = T * H * D };
    cl_command_queue q = out_of_order_queue(e);
    cl_int err = CL_SUCCESS;
    cl_event gate = clCreateUserEvent(e->cl, &err);
    ENGINE_CL(err);
    int32_t cu[B + 1] = {0, 5, 16, 24}, pos_want[T];
    float x[N], up[N], res[N], r_want[N], y_want[N], act[N];
    engine_fill(BICL_F32, x, N, 1);
    engine_fill(BICL_F32, up, N, 2);
    engine_fill(BICL_F32, res, N, 3);
    bicl_rope_plan *plan = small_plan(e, 64);
    ENGINE_OK(bicl_ref_positions_packed(cu, B, NULL, pos_want, T));
    float rot[N];
    for (size_t t = 0; t < T; ++t)
        for (size_t h = 0; h < H; ++h)
            ENGINE_OK(bicl_ref_rope_head(plan, BICL_ROPE_SOURCE_AUTO, 0, pos_want[t], BICL_F32,
                                         x + (t * H + h) * D, BICL_F32, rot + (t * H + h) * D));
    ENGINE_OK(bicl_ref_glu(BICL_GLU_SWIGLU, NULL, BICL_F32, rot, up, BICL_F32, act, N));
    ENGINE_OK(bicl_ref_residual_add(res, BICL_F32, act, r_want, BICL_F32, y_want, N));

    cl_mem mcu = new_buffer(e, sizeof cu, cu), mpos = new_buffer(e, sizeof pos_want, NULL),
           mx = new_buffer(e, sizeof x, x), mup = new_buffer(e, sizeof up, up),
           mres = new_buffer(e, sizeof res, res), my = new_buffer(e, sizeof x, NULL);
    size_t cs[1] = {B + 1}, ts[1] = {T}, xs[3] = {T, H, D}, fs[1] = {N};
    bicl_tensor tcu = engine_view(mcu, BICL_I32, 0, 1, cs),
                tpos = engine_view(mpos, BICL_I32, 0, 1, ts),
                tx = engine_view(mx, BICL_F32, 0, 3, xs), fx = engine_view(mx, BICL_F32, 0, 1, fs),
                fup = engine_view(mup, BICL_F32, 0, 1, fs),
                fres = engine_view(mres, BICL_F32, 0, 1, fs),
                fy = engine_view(my, BICL_F32, 0, 1, fs);
    cl_event ev[4];
    ENGINE_OK(bicl_positions_packed(e->bicl, q, &tcu, NULL, &tpos, 1, &gate, &ev[0]));
    ENGINE_OK(bicl_rope_apply(e->bicl, q, plan, BICL_ROPE_SOURCE_AUTO, 0, &tpos, &tx, &tx, NULL,
                              NULL, 1, &ev[0], &ev[1]));
    ENGINE_OK(bicl_glu(e->bicl, q, BICL_GLU_SWIGLU, NULL, &fx, &fup, &fx, 1, &ev[1], &ev[2]));
    ENGINE_OK(bicl_residual_add(e->bicl, q, &fres, &fx, &fres, &fy, 1, &ev[2], &ev[3]));
    /* Nothing may have run: every command waits on the gate. */
    cl_int status = 0;
    ENGINE_CL(
        clGetEventInfo(ev[0], CL_EVENT_COMMAND_EXECUTION_STATUS, sizeof status, &status, NULL));
    assert_true(status > CL_COMPLETE);
    ENGINE_CL(clSetUserEventStatus(gate, CL_COMPLETE));
    float got[N];
    ENGINE_CL(clEnqueueReadBuffer(q, my, CL_TRUE, 0, sizeof got, got, 1, &ev[3], NULL));
    engine_assert_bits(got, y_want, N, 4, "y after the chain");
    ENGINE_CL(clEnqueueReadBuffer(q, mres, CL_TRUE, 0, sizeof got, got, 1, &ev[3], NULL));
    engine_assert_bits(got, r_want, N, 4, "residual after the chain");
    ENGINE_CL(clFinish(q));
    for (int i = 0; i < 4; ++i)
        clReleaseEvent(ev[i]);
    clReleaseEvent(gate);
    cl_mem all[] = {mcu, mpos, mx, mup, mres, my};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; ++i)
        clReleaseMemObject(all[i]);
    bicl_rope_plan_free(plan);
    clReleaseCommandQueue(q);
}

/* Sets a user event after a delay, from another thread (as an engine's producer would). */
typedef struct gate_opener {
    cl_event gate;
    long ms;
} gate_opener;

static void *open_gate(void *arg)
{
    gate_opener *g = arg;
    sleep_ms(g->ms);
    clSetUserEventStatus(g->gate, CL_COMPLETE);
    return NULL;
}

/* Applies with out-of-range positions, gated; bicl_rope_errors must count them: on the
 * same out-of-order queue without an event, and on another queue through the wait list. */
static void rope_errors_after_gated_applies(void **state)
{
    engine *e = *state;
    enum { T = 6, D = 64 };
    int32_t pos[T] = {3, -5, 64, 7, 100, 1};
    float x[T * D];
    engine_fill(BICL_F32, x, T * D, 9);
    bicl_rope_plan *plan = small_plan(e, 64);
    cl_mem mp = new_buffer(e, sizeof pos, pos), mx = new_buffer(e, sizeof x, x);
    size_t ps[1] = {T}, xs[3] = {T, 1, D};
    bicl_tensor tp = engine_view(mp, BICL_I32, 0, 1, ps), tx = engine_view(mx, BICL_F32, 0, 3, xs);
    cl_command_queue q = out_of_order_queue(e), other = out_of_order_queue(e);
    for (int through_wait_list = 0; through_wait_list < 2; ++through_wait_list) {
        cl_int err = CL_SUCCESS;
        gate_opener g = {clCreateUserEvent(e->cl, &err), 100};
        ENGINE_CL(err);
        cl_event applied = NULL;
        for (int rep = 0; rep < 2; ++rep) { /* two applies: six bad positions */
            cl_event *done = rep ? &applied : NULL;
            ENGINE_OK(bicl_rope_apply(e->bicl, q, plan, BICL_ROPE_SOURCE_TABLE, 0, &tp, &tx, &tx,
                                      NULL, NULL, 1, &g.gate, done));
        }
        pthread_t th;
        assert_int_equal(pthread_create(&th, NULL, open_gate, &g), 0);
        unsigned count = 0;
        int first = 0;
        bicl_status st = through_wait_list
                             ? bicl_rope_errors(e->bicl, other, plan, &count, &first, 1, &applied)
                             : bicl_rope_errors(e->bicl, q, plan, &count, &first, 0, NULL);
        pthread_join(th, NULL);
        ENGINE_CL(clFinish(q));
        assert_int_equal(st, BICL_ERR_POSITION_OUT_OF_RANGE);
        /* Same queue: the barrier puts both applies first. Another queue: the wait list
         * names the second apply; the first may still be running. */
        if (through_wait_list)
            assert_true(count == 3 || count == 6);
        else
            assert_int_equal(count, 6);
        assert_int_equal(first, -5);
        if (count == 3) /* what the first apply left is reported by the next read */
            assert_int_equal(bicl_rope_errors(e->bicl, q, plan, &count, &first, 0, NULL),
                             BICL_ERR_POSITION_OUT_OF_RANGE);
        assert_int_equal(bicl_rope_errors(e->bicl, q, plan, &count, &first, 0, NULL), BICL_SUCCESS);
        assert_int_equal(count, 0);
        clReleaseEvent(applied);
        clReleaseEvent(g.gate);
    }
    clReleaseCommandQueue(q);
    clReleaseCommandQueue(other);
    clReleaseMemObject(mp);
    clReleaseMemObject(mx);
    bicl_rope_plan_free(plan);
}

/* Four threads, one bicl context and plan, a queue each (two of them out of order):
 * every call gives the reference bits. */
typedef struct worker {
    engine *e;
    bicl_rope_plan *plan;
    int id;
    int failures;
} worker;

static void *work(void *arg)
{
    worker *w = arg;
    enum { T = 9, H = 4, D = 64, N = T * H * D, ROUNDS = 60 };
    cl_int err = CL_SUCCESS;
    cl_command_queue q = clCreateCommandQueue(
        w->e->cl, w->e->dev, w->id % 2 ? CL_QUEUE_OUT_OF_ORDER_EXEC_MODE_ENABLE : 0, &err);
    if (err != CL_SUCCESS)
        return (void *)1;
    int32_t pos[T];
    uint16_t x[N], want[N], got[N], act[N];
    for (size_t t = 0; t < T; ++t)
        pos[t] = (int32_t)((t * 7 + (size_t)w->id) % 64);
    cl_mem mp =
        clCreateBuffer(w->e->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof pos, pos, &err);
    cl_mem mx = clCreateBuffer(w->e->cl, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    cl_mem my = clCreateBuffer(w->e->cl, CL_MEM_READ_WRITE, sizeof x, NULL, &err);
    size_t ps[1] = {T}, xs[3] = {T, H, D}, fs[1] = {N};
    bicl_tensor tp = engine_view(mp, BICL_I32, 0, 1, ps), tx = engine_view(mx, BICL_BF16, 0, 3, xs),
                ty = engine_view(my, BICL_BF16, 0, 3, xs),
                fy = engine_view(my, BICL_BF16, 0, 1, fs);
    for (int r = 0; r < ROUNDS && !w->failures; ++r) {
        engine_fill(BICL_BF16, x, N, (uint64_t)(w->id * 1000 + r));
        for (size_t t = 0; t < T; ++t)
            for (size_t h = 0; h < H; ++h)
                bicl_ref_rope_head(w->plan, BICL_ROPE_SOURCE_AUTO, 0, pos[t], BICL_BF16,
                                   x + (t * H + h) * D, BICL_BF16, act + (t * H + h) * D);
        bicl_ref_unary(BICL_UNARY_GELU_TANH, NULL, BICL_BF16, act, BICL_BF16, want, N);
        cl_event ev[3];
        if (clEnqueueWriteBuffer(q, mx, CL_FALSE, 0, sizeof x, x, 0, NULL, &ev[0]) != CL_SUCCESS ||
            bicl_rope_apply(w->e->bicl, q, w->plan, BICL_ROPE_SOURCE_AUTO, 0, &tp, &tx, &ty, NULL,
                            NULL, 1, &ev[0], &ev[1]) != BICL_SUCCESS ||
            bicl_unary(w->e->bicl, q, BICL_UNARY_GELU_TANH, NULL, &fy, &fy, 1, &ev[1], &ev[2]) !=
                BICL_SUCCESS ||
            clEnqueueReadBuffer(q, my, CL_TRUE, 0, sizeof got, got, 1, &ev[2], NULL) != CL_SUCCESS)
            w->failures++;
        else if (memcmp(got, want, sizeof got) != 0)
            w->failures++;
        clFinish(q);
        for (int i = 0; i < 3; ++i)
            clReleaseEvent(ev[i]);
    }
    clReleaseMemObject(mp);
    clReleaseMemObject(mx);
    clReleaseMemObject(my);
    clReleaseCommandQueue(q);
    return NULL;
}

static void four_threads_one_context(void **state)
{
    engine *e = *state;
    bicl_rope_plan *plan = small_plan(e, 64);
    worker w[4];
    pthread_t th[4];
    for (int i = 0; i < 4; ++i) {
        w[i] = (worker){e, plan, i, 0};
        assert_int_equal(pthread_create(&th[i], NULL, work, &w[i]), 0);
    }
    for (int i = 0; i < 4; ++i) {
        void *ret = NULL;
        pthread_join(th[i], &ret);
        assert_null(ret);
        assert_int_equal(w[i].failures, 0);
    }
    bicl_rope_plan_free(plan);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(chain_behind_user_event),
        cmocka_unit_test(rope_errors_after_gated_applies),
        cmocka_unit_test(four_threads_one_context),
    };
    return cmocka_run_group_tests_name("engine_queues", tests, engine_setup, engine_teardown);
}
