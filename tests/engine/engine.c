/* engine.c - helpers of the engine-client tests (engine.h). */
#include "engine.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *engine_device_spec(void)
{
    const char *s = getenv("BICL_TEST_DEVICE");
    if (!s || !*s)
        s = getenv("BICL_DEVICE");
    return s && *s ? s : "pocl";
}

void engine_ok(bicl_status st, const char *call, const char *file, int line)
{
    if (st == BICL_SUCCESS)
        return;
    fail_msg("%s:%d: %s -> %s: %s", file, line, call, bicl_status_string(st),
             bicl_last_error(NULL));
}

void engine_cl_ok(cl_int err, const char *call, const char *file, int line)
{
    if (err != CL_SUCCESS)
        fail_msg("%s:%d: %s -> OpenCL error %d", file, line, call, (int)err);
}

cl_device_id engine_find_device(void)
{
    bicl_context *probe = NULL;
    ENGINE_OK(bicl_context_create_default(engine_device_spec(), NULL, &probe));
    cl_device_id dev = bicl_context_device(probe);
    bicl_context_free(probe);
    return dev;
}

bicl_context *engine_bicl_context(cl_context cl, cl_device_id dev)
{
    bicl_context *b = NULL;
    ENGINE_OK(bicl_context_create(cl, dev, NULL, &b));
    return b;
}

int engine_setup(void **state)
{
    engine *e = calloc(1, sizeof *e);
    assert_non_null(e);
    e->dev = engine_find_device();
    cl_int err = CL_SUCCESS;
    e->cl = clCreateContext(NULL, 1, &e->dev, NULL, NULL, &err);
    ENGINE_CL(err);
    e->queue = clCreateCommandQueue(e->cl, e->dev, 0, &err);
    ENGINE_CL(err);
    e->bicl = engine_bicl_context(e->cl, e->dev);
    cl_uint bits = 0;
    ENGINE_CL(clGetDeviceInfo(e->dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof bits, &bits, NULL));
    e->base_align = bits / 8;
    *state = e;
    return 0;
}

int engine_teardown(void **state)
{
    engine *e = *state;
    clFinish(e->queue);
    bicl_context_free(e->bicl);
    clReleaseCommandQueue(e->queue);
    clReleaseContext(e->cl);
    free(e);
    return 0;
}

uint64_t engine_rand(uint64_t *s)
{
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 2685821657736338717ull;
}

void engine_fill(bicl_dtype dt, void *out, size_t n, uint64_t seed)
{
    uint64_t s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < n; ++i) {
        float v = (float)((double)(engine_rand(&s) >> 11) * 0x1p-53 * 16.0 - 8.0);
        if (dt == BICL_F32)
            memcpy((float *)out + i, &v, sizeof v);
        else if (dt == BICL_BF16)
            ((uint16_t *)out)[i] = bicl_ref_f32_to_bf16(v);
        else
            ((uint16_t *)out)[i] = bicl_ref_f32_to_f16(v);
    }
}

bicl_tensor engine_view(cl_mem mem, bicl_dtype dt, size_t offset, int rank, const size_t *shape)
{
    return bicl_tensor_contiguous(mem, dt, offset, rank, shape);
}

cl_mem engine_host_buffer(const engine *e, cl_mem_flags rw, void *host, size_t bytes)
{
    cl_int err = CL_SUCCESS;
    cl_mem m = clCreateBuffer(e->cl, rw | CL_MEM_USE_HOST_PTR, bytes, host, &err);
    ENGINE_CL(err);
    return m;
}

void engine_read(const engine *e, cl_mem mem, size_t offset, size_t bytes, void *out)
{
    ENGINE_CL(clEnqueueReadBuffer(e->queue, mem, CL_TRUE, offset, bytes, out, 0, NULL, NULL));
}

void engine_assert_bits(const void *got, const void *want, size_t n, size_t elem, const char *what)
{
    const unsigned char *g = got, *w = want;
    for (size_t i = 0; i < n; ++i)
        if (memcmp(g + i * elem, w + i * elem, elem) != 0) {
            uint32_t gv = 0, wv = 0;
            memcpy(&gv, g + i * elem, elem);
            memcpy(&wv, w + i * elem, elem);
            fail_msg("%s: element %zu of %zu is 0x%x, the reference 0x%x", what, i, n, (unsigned)gv,
                     (unsigned)wv);
        }
}
