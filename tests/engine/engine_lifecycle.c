/* engine_lifecycle.c - objects freed in any order, and plans outliving their context:
 * a plan is refused by every context but the live one it was made on, also by a new
 * context at the freed one's address. */
#include "engine.h"

#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { T = 4, D = 64 };

typedef struct world {
    cl_context cl;
    cl_command_queue q;
    bicl_context *b;
    bicl_rope_plan *plan;
    cl_mem pos, x;
} world;

static bicl_rope_plan *make_plan(bicl_context *b)
{
    bicl_rope_config cfg;
    bicl_rope_config_init(&cfg, D, D);
    bicl_rope_plan *plan = NULL;
    ENGINE_OK(bicl_rope_plan_create(b, &cfg, 32, 31, &plan));
    return plan;
}

static void world_make(world *w, cl_device_id dev)
{
    cl_int err = CL_SUCCESS;
    w->cl = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    ENGINE_CL(err);
    w->q = clCreateCommandQueue(w->cl, dev, 0, &err);
    ENGINE_CL(err);
    w->b = engine_bicl_context(w->cl, dev);
    w->plan = make_plan(w->b);
    int32_t pos[T] = {0, 1, 2, 3};
    w->pos = clCreateBuffer(w->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof pos, pos, &err);
    ENGINE_CL(err);
    w->x = clCreateBuffer(w->cl, CL_MEM_READ_WRITE, T * D * sizeof(float), NULL, &err);
    ENGINE_CL(err);
}

static bicl_status apply(bicl_context *b, cl_command_queue q, const bicl_rope_plan *plan,
                         cl_mem pos, cl_mem x)
{
    size_t ps[1] = {T}, xs[3] = {T, 1, D};
    bicl_tensor tp = engine_view(pos, BICL_I32, 0, 1, ps), tx = engine_view(x, BICL_F32, 0, 3, xs);
    return bicl_rope_apply(b, q, plan, BICL_ROPE_SOURCE_AUTO, 0, &tp, &tx, &tx, NULL, NULL, 0, NULL,
                           NULL);
}

/* Runs an op, then releases the four objects in the order perm gives. */
static void release_in_order(world *w, const int perm[4])
{
    for (int i = 0; i < 4; ++i)
        switch (perm[i]) {
        case 0:
            bicl_rope_plan_free(w->plan);
            break;
        case 1:
            bicl_context_free(w->b);
            break;
        case 2:
            clReleaseCommandQueue(w->q);
            break;
        default:
            clReleaseMemObject(w->pos);
            clReleaseMemObject(w->x);
            clReleaseContext(w->cl);
            break;
        }
}

/* All 24 orders of freeing plan, bicl context, queue and cl_context (with its buffers)
 * after a finished op: none may crash or leak a use of a freed object. */
static void any_free_order(void **state)
{
    engine *e = *state;
    int perm[4] = {0, 1, 2, 3}, orders = 0;
    for (int a = 0; a < 4; ++a)
        for (int b = 0; b < 4; ++b)
            for (int c = 0; c < 4; ++c)
                for (int d = 0; d < 4; ++d) {
                    if (a == b || a == c || a == d || b == c || b == d || c == d)
                        continue;
                    perm[0] = a, perm[1] = b, perm[2] = c, perm[3] = d;
                    world w;
                    world_make(&w, e->dev);
                    ENGINE_OK(apply(w.b, w.q, w.plan, w.pos, w.x));
                    ENGINE_CL(clFinish(w.q));
                    release_in_order(&w, perm);
                    ++orders;
                }
    assert_int_equal(orders, 24);
}

/* A plan whose context was freed: refused by a new context over the same cl_context,
 * whether or not malloc gives the new one the old address (it usually does); its host
 * reference and bicl_rope_plan_free still work. */
static void plan_of_freed_context_is_refused(void **state)
{
    engine *e = *state;
    int reused = 0;
    for (int round = 0; round < 20; ++round) {
        bicl_context *old = engine_bicl_context(e->cl, e->dev);
        bicl_rope_plan *plan = make_plan(old);
        uintptr_t old_addr = (uintptr_t)old;
        bicl_context_free(old);
        bicl_context *fresh = engine_bicl_context(e->cl, e->dev);
        reused += (uintptr_t)fresh == old_addr;
        world w;
        world_make(&w, e->dev); /* buffers of another cl_context: never reached */
        cl_int err = CL_SUCCESS;
        int32_t pos[T] = {0, 1, 2, 3};
        cl_mem mp =
            clCreateBuffer(e->cl, CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, sizeof pos, pos, &err);
        ENGINE_CL(err);
        cl_mem mx = clCreateBuffer(e->cl, CL_MEM_READ_WRITE, T * D * sizeof(float), NULL, &err);
        ENGINE_CL(err);
        assert_int_equal(apply(fresh, e->queue, plan, mp, mx), BICL_ERR_CONTEXT_MISMATCH);
        unsigned count = 0;
        int first = 0;
        assert_int_equal(bicl_rope_errors(fresh, e->queue, plan, &count, &first, 0, NULL),
                         BICL_ERR_CONTEXT_MISMATCH);
        float x[D] = {1.0f}, y[D];
        ENGINE_OK(bicl_ref_rope_head(plan, BICL_ROPE_SOURCE_AUTO, 0, 3, BICL_F32, x, BICL_F32, y));
        /* the fresh context's own plan works */
        bicl_rope_plan *own = make_plan(fresh);
        ENGINE_OK(apply(fresh, e->queue, own, mp, mx));
        ENGINE_CL(clFinish(e->queue));
        /* and a live context's plan is refused by another live context */
        assert_int_equal(apply(w.b, w.q, own, w.pos, w.x), BICL_ERR_CONTEXT_MISMATCH);
        bicl_rope_plan_free(own);
        bicl_rope_plan_free(plan);
        bicl_context_free(fresh);
        int perm[4] = {0, 1, 2, 3};
        release_in_order(&w, perm);
        clReleaseMemObject(mp);
        clReleaseMemObject(mx);
    }
    printf("a new context reused the freed one's address in %d of 20 rounds\n", reused);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(any_free_order),
        cmocka_unit_test(plan_of_freed_context_is_refused),
    };
    return cmocka_run_group_tests_name("engine_lifecycle", tests, engine_setup, engine_teardown);
}
