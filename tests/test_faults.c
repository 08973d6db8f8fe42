/* test_faults.c - device faults propagate as statuses: a failing enqueue, buffer,
 * kernel, build or read gives BICL_ERR_OUT_OF_RESOURCES / _OUT_OF_DEVICE_MEMORY /
 * _OUT_OF_HOST_MEMORY, writes nothing, leaks nothing, and the context works again
 * once the fault clears. The faults come from the preloaded shim tests/faultinject.c
 * (ctest sets LD_PRELOAD); run alone, this test fails in its setup. */
#include "common.h"
#include "faultinject.h"
#include "profile.h"

#include <dlfcn.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static bicl_fault_arm_fn fault_arm;
static bicl_fault_hits_fn fault_hits;
static bicl_fault_live_fn buffers_live;
static bicl_fault_calls_fn fault_calls;
static bicl_fault_local_fn last_local_size;

static int faults_setup(void **state)
{
    fault_arm = (bicl_fault_arm_fn)dlsym(RTLD_DEFAULT, "bicl_fault_arm");
    fault_hits = (bicl_fault_hits_fn)dlsym(RTLD_DEFAULT, "bicl_fault_hits");
    buffers_live = (bicl_fault_live_fn)dlsym(RTLD_DEFAULT, "bicl_fault_buffers_live");
    fault_calls = (bicl_fault_calls_fn)dlsym(RTLD_DEFAULT, "bicl_fault_calls");
    last_local_size = (bicl_fault_local_fn)dlsym(RTLD_DEFAULT, "bicl_fault_last_local_size");
    if (!fault_arm || !fault_hits || !buffers_live || !fault_calls || !last_local_size) {
        fprintf(stderr, "test_faults needs the shim: LD_PRELOAD=libbicl_faultinject.so\n");
        return -1;
    }
    return test_env_setup(state);
}

/* ------------------------------------------------------------ fixture */

#define TOK  8 /* tokens */
#define HDS  2 /* heads */
#define HDIM 8 /* head_dim */
#define NEL  (TOK * HDS * HDIM)

typedef struct fixture {
    test_buf x, g, r, y, ro, pos, cu, pout, mask;
    bicl_tensor tx, tg, tr, ty, tro, tpos, tcu, tpout, tmask, tq, tqo;
    bicl_rope_plan *plan;
} fixture;

static void fixture_new(test_env *env, fixture *f)
{
    uint32_t xb[NEL], gb[NEL];
    float rb[NEL];
    uint8_t mb[NEL];
    test_fill_f32_bits(xb, NEL, 1);
    test_fill_f32_bits(gb, NEL, 2);
    for (int i = 0; i < NEL; ++i) {
        rb[i] = (float)i * 0.25f;
        mb[i] = (uint8_t)(i % 3 == 0);
    }
    int32_t pos[TOK] = {0, 1, 2, 3, 7, 6, 5, 4}, cu[3] = {0, 5, TOK};
    f->x = test_buf_new(env, 4, NEL, xb);
    f->g = test_buf_new(env, 4, NEL, gb);
    f->r = test_buf_new(env, 4, NEL, rb);
    f->y = test_buf_new(env, 4, NEL, NULL);
    f->ro = test_buf_new(env, 4, NEL, NULL);
    f->mask = test_buf_new(env, 1, NEL, mb);
    f->pos = test_buf_new(env, 4, TOK, pos);
    f->cu = test_buf_new(env, 4, 3, cu);
    f->pout = test_buf_new(env, 4, TOK, NULL);
    size_t flat[2] = {TOK * HDS, HDIM}, qs[3] = {TOK, HDS, HDIM}, ts[1] = {TOK}, cs[1] = {3};
    f->tx = test_view(&f->x, BICL_F32, 0, 2, flat);
    f->tg = test_view(&f->g, BICL_F32, 0, 2, flat);
    f->tr = test_view(&f->r, BICL_F32, 0, 2, flat);
    f->ty = test_view(&f->y, BICL_F32, 0, 2, flat);
    f->tro = test_view(&f->ro, BICL_F32, 0, 2, flat);
    f->tmask = test_view(&f->mask, BICL_U8, 0, 2, flat);
    f->tq = test_view(&f->x, BICL_F32, 0, 3, qs);
    f->tqo = test_view(&f->y, BICL_F32, 0, 3, qs);
    f->tpos = test_view(&f->pos, BICL_I32, 0, 1, ts);
    f->tcu = test_view(&f->cu, BICL_I32, 0, 1, cs);
    f->tpout = test_view(&f->pout, BICL_I32, 0, 1, ts);
    bicl_rope_config c;
    bicl_rope_config_init(&c, HDIM, HDIM);
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 64, 0, &f->plan), BICL_SUCCESS);
}

static void fixture_free(fixture *f)
{
    test_buf *bufs[] = {&f->x, &f->g, &f->r, &f->y, &f->ro, &f->pos, &f->cu, &f->pout, &f->mask};
    for (size_t i = 0; i < sizeof bufs / sizeof bufs[0]; ++i)
        test_buf_free(bufs[i]);
    bicl_rope_plan_free(f->plan);
}

/* One op of each kind; all write y, residual also ro, positions only pout. */
typedef bicl_status (*op_fn)(test_env *, fixture *, cl_event *);

static bicl_status op_cast(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_cast(e->ctx, e->queue, &f->tx, &f->ty, 0, NULL, ev);
}
static bicl_status op_unary(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_unary(e->ctx, e->queue, BICL_UNARY_GELU, NULL, &f->tx, &f->ty, 0, NULL, ev);
}
static bicl_status op_glu(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_glu(e->ctx, e->queue, BICL_GLU_SWIGLU, NULL, &f->tx, &f->tg, &f->ty, 0, NULL, ev);
}
/* x's rows as gate and up halves (4 + 4 of 8), y's first half columns */
static bicl_status op_glu_fused(test_env *e, fixture *f, cl_event *ev)
{
    bicl_tensor y = f->ty; /* rows keep their pitch of HDIM */
    y.shape[1] = HDIM / 2;
    return bicl_glu_fused(e->ctx, e->queue, BICL_GLU_SWIGLU, NULL, BICL_GLU_HALVES, &f->tx, &y, 0,
                          NULL, ev);
}
static bicl_status op_binary(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_binary(e->ctx, e->queue, BICL_BINARY_MUL, &f->tx, &f->tg, &f->ty, 0, NULL, ev);
}
static bicl_status op_residual(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_residual_add(e->ctx, e->queue, &f->tr, &f->tx, &f->tro, &f->ty, 0, NULL, ev);
}
static bicl_status op_mask(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_mask_fill(e->ctx, e->queue, &f->tx, &f->tmask, -1.0f, &f->ty, 0, NULL, ev);
}
static bicl_status op_causal(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_mask_fill_causal(e->ctx, e->queue, &f->tx, 2, -INFINITY, &f->ty, 0, NULL, ev);
}
static bicl_status op_rope(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_rope_apply(e->ctx, e->queue, f->plan, BICL_ROPE_SOURCE_TABLE, 0, &f->tpos, &f->tq,
                           &f->tqo, NULL, NULL, 0, NULL, ev);
}
static bicl_status op_positions(test_env *e, fixture *f, cl_event *ev)
{
    return bicl_positions_packed(e->ctx, e->queue, &f->tcu, NULL, &f->tpout, 0, NULL, ev);
}
/* Decode's form: q and k rotated in place, each in a buffer of its own (x and g). */
static bicl_status op_rope_qk_in_place(test_env *e, fixture *f, cl_event *ev)
{
    bicl_tensor k = f->tq;
    k.mem = f->g.mem;
    return bicl_rope_apply(e->ctx, e->queue, f->plan, BICL_ROPE_SOURCE_TABLE, 0, &f->tpos, &f->tq,
                           &f->tq, &k, &k, 0, NULL, ev);
}

static const struct {
    const char *name;
    op_fn run;
    int buffers; /* distinct cl_mem objects the call is given */
} ops[] = {
    {"cast", op_cast, 2},           {"unary", op_unary, 2},   {"glu", op_glu, 3},
    {"glu_fused", op_glu_fused, 2}, {"binary", op_binary, 3}, {"residual", op_residual, 4},
    {"mask", op_mask, 3},           {"causal", op_causal, 2}, {"rope", op_rope, 3},
    {"positions", op_positions, 2},
};

/* Every byte of the output buffers, canary bands included. */
typedef struct snapshot {
    unsigned char *y, *ro, *pout;
} snapshot;

static unsigned char *read_whole(test_env *env, const test_buf *b)
{
    unsigned char *p = malloc(b->payload + 2 * CANARY_BYTES);
    assert_non_null(p);
    test_buf_read_all(env, b, p);
    return p;
}

static snapshot take_snapshot(test_env *env, fixture *f)
{
    clFinish(env->queue);
    snapshot s = {read_whole(env, &f->y), read_whole(env, &f->ro), read_whole(env, &f->pout)};
    return s;
}

static bool snapshots_equal(const fixture *f, const snapshot *a, const snapshot *b)
{
    return memcmp(a->y, b->y, f->y.payload + 2 * CANARY_BYTES) == 0 &&
           memcmp(a->ro, b->ro, f->ro.payload + 2 * CANARY_BYTES) == 0 &&
           memcmp(a->pout, b->pout, f->pout.payload + 2 * CANARY_BYTES) == 0;
}

static void snapshot_free(snapshot *s)
{
    free(s->y);
    free(s->ro);
    free(s->pout);
}

/* Scribbles over the outputs so that a result computed again is seen to be written. */
static void scribble(test_env *env, fixture *f)
{
    unsigned char junk[NEL * 4];
    memset(junk, 0x3c, sizeof junk);
    assert_int_equal(clEnqueueWriteBuffer(env->queue, f->y.mem, CL_TRUE, CANARY_BYTES, f->y.payload,
                                          junk, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(clEnqueueWriteBuffer(env->queue, f->pout.mem, CL_TRUE, CANARY_BYTES,
                                          f->pout.payload, junk, 0, NULL, NULL),
                     CL_SUCCESS);
}

static void no_kernel_lost(test_env *env)
{
    size_t live = 0, pooled = 0;
    bicl_kernel_counts(env->ctx, &live, &pooled);
    if (live != pooled)
        fail_msg("%zu kernels exist, %zu are in the pools: one was lost", live, pooled);
}

/* ------------------------------------------------------------- tests */

static const struct {
    cl_int err;
    bicl_status want;
} enqueue_faults[] = {
    {CL_OUT_OF_RESOURCES, BICL_ERR_OUT_OF_RESOURCES},
    {CL_MEM_OBJECT_ALLOCATION_FAILURE, BICL_ERR_OUT_OF_DEVICE_MEMORY},
    {CL_OUT_OF_HOST_MEMORY, BICL_ERR_OUT_OF_HOST_MEMORY},
};

/* Every op: a fault at enqueue time gives its status, no event, nothing written, no
 * kernel lost; the same call then succeeds with the bits of a fault-free run. */
static void enqueue_faults_are_statuses(void **state)
{
    test_env *env = *state;
    fixture f;
    fixture_new(env, &f);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o) {
        scribble(env, &f);
        assert_int_equal(ops[o].run(env, &f, NULL), BICL_SUCCESS);
        snapshot good = take_snapshot(env, &f);
        for (size_t i = 0; i < sizeof enqueue_faults / sizeof enqueue_faults[0]; ++i) {
            scribble(env, &f);
            snapshot before = take_snapshot(env, &f);
            fault_arm("clEnqueueNDRangeKernel", enqueue_faults[i].err, 0, 1);
            cl_event ev = NULL;
            bicl_status st = ops[o].run(env, &f, &ev);
            fault_arm("clEnqueueNDRangeKernel", 0, 0, 0);
            if (st != enqueue_faults[i].want)
                fail_msg("%s under %s: %s, want %s (%s)", ops[o].name,
                         bicl_cl_error_name(enqueue_faults[i].err), bicl_status_string(st),
                         bicl_status_string(enqueue_faults[i].want), bicl_last_error(NULL));
            assert_non_null(strstr(bicl_last_error(NULL), "clEnqueueNDRangeKernel"));
            assert_null(ev);
            snapshot after = take_snapshot(env, &f);
            if (!snapshots_equal(&f, &before, &after))
                fail_msg("%s: a failed enqueue changed an output", ops[o].name);
            no_kernel_lost(env);
            assert_int_equal(ops[o].run(env, &f, &ev), BICL_SUCCESS); /* the fault cleared */
            assert_non_null(ev);
            assert_int_equal(clWaitForEvents(1, &ev), CL_SUCCESS);
            clReleaseEvent(ev);
            snapshot again = take_snapshot(env, &f);
            if (!snapshots_equal(&f, &good, &again))
                fail_msg("%s after %s: the bits differ from a fault-free run", ops[o].name,
                         bicl_cl_error_name(enqueue_faults[i].err));
            snapshot_free(&before);
            snapshot_free(&after);
            snapshot_free(&again);
        }
        snapshot_free(&good);
    }
    unsigned count = 0;
    int first = 0;
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, f.plan, &count, &first, 0, NULL),
                     BICL_SUCCESS);
    fixture_free(&f);
}

/* A plan uploads four buffers; whichever allocation fails, the plan reports it and
 * releases the ones it had made. */
static void plan_allocation_faults_leak_nothing(void **state)
{
    test_env *env = *state;
    bicl_rope_config c;
    bicl_rope_config_init(&c, 64, 64);
    const cl_int errs[2] = {CL_MEM_OBJECT_ALLOCATION_FAILURE, CL_OUT_OF_HOST_MEMORY};
    const bicl_status want[2] = {BICL_ERR_OUT_OF_DEVICE_MEMORY, BICL_ERR_OUT_OF_HOST_MEMORY};
    for (int e = 0; e < 2; ++e)
        for (int skip = 0; skip < 4; ++skip) {
            long live = buffers_live();
            bicl_rope_plan *plan = (bicl_rope_plan *)&plan; /* not NULL: must be reset */
            fault_arm("clCreateBuffer", errs[e], skip, 1);
            bicl_status st = bicl_rope_plan_create(env->ctx, &c, 128, 0, &plan);
            assert_int_equal(fault_hits("clCreateBuffer"), 1);
            fault_arm("clCreateBuffer", 0, 0, 0);
            assert_int_equal(st, want[e]);
            assert_null(plan);
            if (buffers_live() != live)
                fail_msg("allocation %d failed: %ld buffers leaked", skip + 1,
                         buffers_live() - live);
        }
    bicl_rope_plan *plan = NULL;
    assert_int_equal(bicl_rope_plan_create(env->ctx, &c, 128, 0, &plan), BICL_SUCCESS);
    bicl_rope_plan_free(plan);
}

static bicl_context *fresh_context(test_env *env)
{
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_DISK_CACHE, 0), BICL_SUCCESS);
    bicl_context *c = NULL;
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &c),
                     BICL_SUCCESS);
    bicl_options_free(o);
    return c;
}

/* Runs a cast f32 -> f16 on ctx and checks it against the host reference. */
static bicl_status cast_on(test_env *env, bicl_context *ctx, bool check)
{
    uint32_t x[64];
    uint16_t y[64], ref[64];
    test_fill_f32_bits(x, 64, 9);
    test_buf bx = test_buf_new(env, 4, 64, x), by = test_buf_new(env, 2, 64, NULL);
    size_t shape[1] = {64};
    bicl_tensor tx = test_view(&bx, BICL_F32, 0, 1, shape);
    bicl_tensor ty = test_view(&by, BICL_F16, 0, 1, shape);
    bicl_status st = bicl_cast(ctx, env->queue, &tx, &ty, 0, NULL, NULL);
    if (check) {
        test_buf_read(env, &by, y);
        assert_int_equal(bicl_ref_cast(BICL_F32, x, BICL_F16, ref, 64), BICL_SUCCESS);
        test_assert_bits_equal(y, ref, 64, 2, "cast after the fault cleared");
    }
    test_buf_assert_canaries(env, &by);
    test_buf_free(&bx);
    test_buf_free(&by);
    return st;
}

/* Out of memory while building a program or creating a kernel is a resource status,
 * not BICL_ERR_BUILD_FAILED; nothing half-built is kept, the next call builds. */
static void build_and_kernel_faults_are_statuses(void **state)
{
    test_env *env = *state;
    const struct {
        const char *entry;
        cl_int err;
        bicl_status want;
    } cases[] = {
        {"clBuildProgram", CL_OUT_OF_HOST_MEMORY, BICL_ERR_OUT_OF_HOST_MEMORY},
        {"clBuildProgram", CL_OUT_OF_RESOURCES, BICL_ERR_OUT_OF_RESOURCES},
        {"clCreateKernel", CL_OUT_OF_HOST_MEMORY, BICL_ERR_OUT_OF_HOST_MEMORY},
        {"clCreateKernel", CL_OUT_OF_RESOURCES, BICL_ERR_OUT_OF_RESOURCES},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; ++i) {
        bicl_context *c = fresh_context(env);
        fault_arm(cases[i].entry, cases[i].err, 0, 1);
        bicl_status st = cast_on(env, c, false);
        fault_arm(cases[i].entry, 0, 0, 0);
        if (st != cases[i].want)
            fail_msg("%s failing with %s: %s, want %s (%s)", cases[i].entry,
                     bicl_cl_error_name(cases[i].err), bicl_status_string(st),
                     bicl_status_string(cases[i].want), bicl_last_error(NULL));
        assert_int_equal(cast_on(env, c, true), BICL_SUCCESS);
        size_t live = 0, pooled = 0;
        bicl_kernel_counts(c, &live, &pooled);
        assert_int_equal(live, pooled);
        bicl_context_free(c);
    }
}

/* bicl_rope_errors reads the plan's counter back: a failing read is a status, and the
 * counter is still there for the next read. */
static void read_fault_in_rope_errors(void **state)
{
    test_env *env = *state;
    fixture f;
    fixture_new(env, &f);
    int32_t bad[TOK] = {0, 1, 2, 3, 4, 5, 6, 99}; /* 99 is past the 64-row table */
    assert_int_equal(clEnqueueWriteBuffer(env->queue, f.pos.mem, CL_TRUE, CANARY_BYTES, sizeof bad,
                                          bad, 0, NULL, NULL),
                     CL_SUCCESS);
    assert_int_equal(op_rope(env, &f, NULL), BICL_SUCCESS);
    unsigned count = 0;
    int first = 0;
    fault_arm("clEnqueueReadBuffer", CL_OUT_OF_RESOURCES, 0, 1);
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, f.plan, &count, &first, 0, NULL),
                     BICL_ERR_OUT_OF_RESOURCES);
    fault_arm("clEnqueueReadBuffer", 0, 0, 0);
    assert_int_equal(bicl_rope_errors(env->ctx, env->queue, f.plan, &count, &first, 0, NULL),
                     BICL_ERR_POSITION_OUT_OF_RANGE);
    assert_int_equal(count, 1); /* one bad token */
    assert_int_equal(first, 99);
    fixture_free(&f);
}

/* What a call asks OpenCL about one buffer (src/tensor.h, bicl_mem_facts): its context,
 * type, size, flags and parent. */
#define QUERIES_PER_BUFFER 5

/* The buffer queries of two calls of run on the same buffers: each asks about each buffer
 * once at most, however many of its views share one and however many checks read them
 * (RoPE with q and k in place asked 38 times about its 3 buffers before the call's memo,
 * docs/performance.md), and at least once: nothing is kept from one call to the next (a
 * handle released after a call may come back as another buffer: on NVIDIA's driver the
 * twenty-seventh session's cache of these facts, cleared by destructor callbacks, still
 * held a released buffer's size when its handle came back). */
static void assert_queries_on(test_env *env, fixture *f, const char *name, op_fn run, long buffers,
                              long most)
{
    for (int call = 0; call < 2; ++call) {
        long before = fault_calls("clGetMemObjectInfo");
        assert_int_equal(run(env, f, NULL), BICL_SUCCESS);
        long asked = fault_calls("clGetMemObjectInfo") - before;
        if (asked > most || asked < buffers)
            fail_msg("%s, call %d: %ld buffer queries for %ld buffers (at least one each, at "
                     "most %ld)",
                     name, call + 1, asked, buffers, most);
    }
}

static void buffer_queries_once_per_call(void **state)
{
    test_env *env = *state;
    fixture f;
    fixture_new(env, &f);
    for (size_t o = 0; o < sizeof ops / sizeof ops[0]; ++o)
        assert_queries_on(env, &f, ops[o].name, ops[o].run, ops[o].buffers,
                          QUERIES_PER_BUFFER * ops[o].buffers);
    assert_queries_on(env, &f, "rope, q and k in place", op_rope_qk_in_place, 3,
                      3 * QUERIES_PER_BUFFER);
    assert_int_equal(clFinish(env->queue), CL_SUCCESS);
    fixture_free(&f);
}

/* A buffer released and a larger one made in its place (which may get the same handle):
 * a view that fits the new buffer is accepted, one that reaches past it refused, each
 * time. */
static void a_new_buffer_is_judged_by_its_own_size(void **state)
{
    enum { SMALL = 16, ROUNDS = 8 };
    test_env *env = *state;
    test_buf y = test_buf_new(env, 4, 64 * SMALL, NULL);
    for (int r = 0; r < ROUNDS; ++r) {
        size_t small[1] = {SMALL}, big[1] = {(size_t)SMALL * (r + 2)};
        test_buf a = test_buf_new(env, 4, SMALL, NULL);
        bicl_tensor ta = test_view(&a, BICL_F32, 0, 1, small),
                    ty = test_view(&y, BICL_F32, 0, 1, small);
        assert_int_equal(bicl_cast(env->ctx, env->queue, &ta, &ty, 0, NULL, NULL), BICL_SUCCESS);
        assert_int_equal(clFinish(env->queue), CL_SUCCESS);
        test_buf_free(&a);
        test_buf b = test_buf_new(env, 4, big[0], NULL);
        bicl_tensor tb = test_view(&b, BICL_F32, 0, 1, big),
                    tyb = test_view(&y, BICL_F32, 0, 1, big);
        assert_int_equal(bicl_cast(env->ctx, env->queue, &tb, &tyb, 0, NULL, NULL), BICL_SUCCESS);
        size_t bytes = 0; /* the whole buffer, canaries included: a view one element longer */
        assert_int_equal(clGetMemObjectInfo(b.mem, CL_MEM_SIZE, sizeof bytes, &bytes, NULL),
                         CL_SUCCESS);
        big[0] = bytes / 4 + 1;
        tb = test_view(&b, BICL_F32, 0, 1, big);
        tyb = test_view(&y, BICL_F32, 0, 1, big);
        assert_int_equal(bicl_cast(env->ctx, env->queue, &tb, &tyb, 0, NULL, NULL),
                         BICL_ERR_OUT_OF_BOUNDS);
        assert_int_equal(clFinish(env->queue), CL_SUCCESS);
        test_buf_free(&b);
    }
    test_buf_free(&y);
}

/* A launch whose variant leaves the work-group size to the implementation gets one from
 * bicl where its size is not a multiple of 64 (src/launch.c, enqueue_2d): left open, the
 * implementation must pick a divisor of the size (1 for a prime), and PoCL builds a
 * kernel again for every local size it meets (each odd size cost a build, and a prime one
 * ran in groups of one). For every size 1..NEL: a power of two up to 512, and few of them
 * in all. On a profile with fixed groups (PoCL's, platforms/pocl/profile.h) every size,
 * multiples of 64 included, gets one group, 512. A variant's own group (64) is kept on
 * every profile, never halved. */
static void odd_sizes_get_few_work_group_sizes(void **state)
{
    test_env *env = *state;
    fixture f;
    fixture_new(env, &f);
    const bool fixed = bicl_profile_by_name(bicl_context_profile(env->ctx))->fixed_groups != 0;
    static const bicl_variant variants[2] = {{1, 1, 0}, {1, 1, 64}};
    for (int v = 0; v < 2; ++v) {
        assert_int_equal(bicl_context_set_variant(env->ctx, &variants[v]), BICL_SUCCESS);
        long seen[NEL], want = v ? 64 : fixed ? 512 : 0;
        int n_seen = 0;
        for (size_t n = 1; n <= NEL; ++n) {
            size_t shape[1] = {n};
            bicl_tensor x = test_view(&f.x, BICL_F32, 0, 1, shape);
            bicl_tensor y = test_view(&f.y, BICL_F32, 0, 1, shape);
            assert_int_equal(
                bicl_unary(env->ctx, env->queue, BICL_UNARY_RELU, NULL, &x, &y, 0, NULL, NULL),
                BICL_SUCCESS);
            long local = last_local_size();
            if (!want && n % 64 == 0)
                continue; /* left to the implementation */
            if (local <= 0 || local > 512 || (local & (local - 1)) != 0 || (want && local != want))
                fail_msg("relu of %zu elements, variant's group %zu: local size %ld", n,
                         variants[v].work_group_size, local);
            int i = 0;
            while (i < n_seen && seen[i] != local)
                ++i;
            if (i == n_seen)
                seen[n_seen++] = local;
        }
        if (n_seen > 8) /* 1, 2, 4, ..., 128 */
            fail_msg("%d work-group sizes for sizes 1..%d", n_seen, NEL);
    }
    assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
    assert_int_equal(clFinish(env->queue), CL_SUCCESS);
    fixture_free(&f);
}

/* Sub-buffers and zero-copy buffers for the test below. */
static cl_mem sub_q, sub_k, zero_copy;

/* q and k in place, each a sub-buffer of one fused QKV buffer */
static bicl_status op_rope_sub_buffers(test_env *e, fixture *f, cl_event *ev)
{
    size_t qs[3] = {TOK, HDS, HDIM};
    bicl_tensor q = bicl_tensor_contiguous(sub_q, BICL_F32, 0, 3, qs);
    bicl_tensor k = bicl_tensor_contiguous(sub_k, BICL_F32, 0, 3, qs);
    return bicl_rope_apply(e->ctx, e->queue, f->plan, BICL_ROPE_SOURCE_TABLE, 0, &f->tpos, &q, &q,
                           &k, &k, 0, NULL, ev);
}

/* silu of a zero-copy input (CL_MEM_USE_HOST_PTR) into y */
static bicl_status op_unary_zero_copy(test_env *e, fixture *f, cl_event *ev)
{
    size_t flat[2] = {TOK * HDS, HDIM};
    bicl_tensor x = bicl_tensor_contiguous(zero_copy, BICL_F32, 0, 2, flat);
    return bicl_unary(e->ctx, e->queue, BICL_UNARY_SILU, NULL, &x, &f->ty, 0, NULL, ev);
}

/* The same for the buffers that ask more (src/tensor.h, bicl_mem_facts): a sub-buffer
 * asks its origin too (6) and its parent is asked once (5: the alignment of the vector
 * kernels reads its flags); a zero-copy buffer asks its host pointer (6). */
static void buffer_queries_of_sub_and_zero_copy_buffers(void **state)
{
    test_env *env = *state;
    fixture f;
    fixture_new(env, &f);
    cl_context c = bicl_context_cl_context(env->ctx);
    cl_device_id dev = bicl_context_device(env->ctx);
    cl_uint align_bits = 0;
    assert_int_equal(
        clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL),
        CL_SUCCESS);
    size_t align = align_bits >= 64 ? align_bits / 8 : 8, bytes = NEL * 4;
    size_t pitch = (bytes + align - 1) / align * align; /* k's origin, aligned */
    cl_int err;
    cl_mem fused = clCreateBuffer(c, CL_MEM_READ_WRITE, 2 * pitch, NULL, &err);
    assert_int_equal(err, CL_SUCCESS);
    cl_buffer_region rq = {0, bytes}, rk = {pitch, bytes};
    sub_q = clCreateSubBuffer(fused, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rq, &err);
    assert_int_equal(err, CL_SUCCESS);
    sub_k = clCreateSubBuffer(fused, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION, &rk, &err);
    assert_int_equal(err, CL_SUCCESS);
    float zero[NEL] = {0};
    assert_int_equal(
        clEnqueueWriteBuffer(env->queue, fused, CL_TRUE, 0, bytes, zero, 0, NULL, NULL),
        CL_SUCCESS);
    assert_int_equal(
        clEnqueueWriteBuffer(env->queue, fused, CL_TRUE, pitch, bytes, zero, 0, NULL, NULL),
        CL_SUCCESS);
    void *host = aligned_alloc(align, pitch);
    assert_non_null(host);
    memset(host, 0, pitch);
    zero_copy = clCreateBuffer(c, CL_MEM_READ_WRITE | CL_MEM_USE_HOST_PTR, bytes, host, &err);
    assert_int_equal(err, CL_SUCCESS);
    assert_queries_on(env, &f, "rope on sub-buffers", op_rope_sub_buffers, 3,
                      2 * (QUERIES_PER_BUFFER + 1) + 2 * QUERIES_PER_BUFFER);
    assert_queries_on(env, &f, "unary of a zero-copy buffer", op_unary_zero_copy, 2,
                      (QUERIES_PER_BUFFER + 1) + QUERIES_PER_BUFFER);
    assert_int_equal(clFinish(env->queue), CL_SUCCESS);
    clReleaseMemObject(zero_copy);
    free(host);
    clReleaseMemObject(sub_k);
    clReleaseMemObject(sub_q);
    clReleaseMemObject(fused);
    fixture_free(&f);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(buffer_queries_once_per_call),
        cmocka_unit_test(buffer_queries_of_sub_and_zero_copy_buffers),
        cmocka_unit_test(a_new_buffer_is_judged_by_its_own_size),
        cmocka_unit_test(odd_sizes_get_few_work_group_sizes),
        cmocka_unit_test(enqueue_faults_are_statuses),
        cmocka_unit_test(plan_allocation_faults_leak_nothing),
        cmocka_unit_test(build_and_kernel_faults_are_statuses),
        cmocka_unit_test(read_fault_in_rope_errors),
    };
    return cmocka_run_group_tests_name("faults", tests, faults_setup, test_env_teardown);
}
