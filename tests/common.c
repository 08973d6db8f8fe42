/* common.c - shared test scaffolding (see common.h). */
#include "common.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The index of the test named by the len bytes at p, or n if none. */
static size_t test_named(const struct CMUnitTest *tests, size_t n, const char *p, size_t len)
{
    for (size_t i = 0; i < n; ++i)
        if (strlen(tests[i].name) == len && strncmp(tests[i].name, p, len) == 0)
            return i;
    return n;
}

int test_run_group(const char *name, const struct CMUnitTest *tests, size_t n,
                   CMFixtureFunction setup, CMFixtureFunction teardown)
{
    const char *f = getenv("BICL_TEST_FILTER");
    if (f && *f)
        cmocka_set_test_filter(f);
    const char *skip = getenv("BICL_TEST_SKIP");
    struct CMUnitTest *kept = malloc(n * sizeof *kept);
    bool *skipped = calloc(n ? n : 1, sizeof *skipped);
    int failed = 1;
    if (!kept || !skipped)
        goto out;
    /* every skipped name must be a test of this group (a misspelt one would skip nothing) */
    for (const char *p = skip ? skip : ""; *p;) {
        size_t len = strcspn(p, ","), i = test_named(tests, n, p, len);
        if (i == n) {
            fprintf(stderr, "BICL_TEST_SKIP: %s has no test '%.*s'\n", name, (int)len, p);
            goto out;
        }
        skipped[i] = true;
        p += len + (p[len] == ',');
    }
    size_t n_kept = 0;
    for (size_t i = 0; i < n; ++i)
        if (!skipped[i])
            kept[n_kept++] = tests[i];
    if (n_kept < n)
        printf("%s: %zu of %zu tests skipped by BICL_TEST_SKIP (%s)\n", name, n - n_kept, n, skip);
    failed = _cmocka_run_group_tests(name, kept, n_kept, setup, teardown);
out:
    free(kept);
    free(skipped);
    return failed;
}

const char *test_device_spec(void)
{
    const char *s = getenv("BICL_TEST_DEVICE");
    if (!s || !*s)
        s = getenv("BICL_DEVICE");
    return (s && *s) ? s : "pocl";
}

int test_env_setup(void **state)
{
    test_env *env = calloc(1, sizeof *env);
    if (!env)
        return -1;
    bicl_status st = bicl_context_create_default(test_device_spec(), NULL, &env->ctx);
    if (st != BICL_SUCCESS) {
        fprintf(stderr, "no test device '%s': %s\n  %s\n", test_device_spec(),
                bicl_status_string(st), bicl_last_error(NULL));
        free(env);
        return -1;
    }
    cl_int err = CL_SUCCESS;
    env->queue = clCreateCommandQueue(bicl_context_cl_context(env->ctx),
                                      bicl_context_device(env->ctx), 0, &err);
    if (err != CL_SUCCESS) {
        bicl_context_free(env->ctx);
        free(env);
        return -1;
    }
    *state = env;
    return 0;
}

int test_env_teardown(void **state)
{
    test_env *env = *state;
    if (!env)
        return 0;
    clFinish(env->queue);
    clReleaseCommandQueue(env->queue);
    bicl_context_free(env->ctx);
    free(env);
    return 0;
}

/* *g = a context on env's device (and env's queue) with options o (NULL: the defaults). */
static bicl_status test_env_sibling(const test_env *env, const bicl_options *o, test_env *g)
{
    *g = (test_env){NULL, env->queue};
    return bicl_context_create(bicl_context_cl_context(env->ctx), bicl_context_device(env->ctx), o,
                               &g->ctx);
}

/* A context on env's device with BICL_OPTION_ROPE_FORM `form` and
 * BICL_OPTION_ROPE_SPECIALISE `specialise`; env's queue. */
test_env test_env_with_rope_form(const test_env *env, const char *form, int specialise)
{
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_ROPE_FORM, form), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_ROPE_SPECIALISE, specialise),
                     BICL_SUCCESS);
    test_env g;
    bicl_status st = test_env_sibling(env, o, &g);
    bicl_options_free(o);
    assert_int_equal(st, BICL_SUCCESS);
    return g;
}

test_env test_env_with_var(const test_env *env, const char *var, const char *value,
                           const bicl_options *o)
{
    assert_int_equal(setenv(var, value, 1), 0);
    test_env g;
    bicl_status st = test_env_sibling(env, o, &g);
    unsetenv(var); /* before the assertion, which would end the test */
    assert_int_equal(st, BICL_SUCCESS);
    return g;
}

test_buf test_buf_new(test_env *env, size_t elem, size_t n_elems, const void *init)
{
    test_buf b;
    b.payload = elem * n_elems;
    b.elem = elem;
    b.lead = CANARY_BYTES / elem;
    size_t total = b.payload + 2 * CANARY_BYTES;
    unsigned char *host = malloc(total);
    assert_non_null(host);
    memset(host, CANARY_BYTE, total);
    if (init)
        memcpy(host + CANARY_BYTES, init, b.payload);
    cl_int err = CL_SUCCESS;
    b.mem = clCreateBuffer(bicl_context_cl_context(env->ctx),
                           CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, total, host, &err);
    assert_int_equal(err, CL_SUCCESS);
    free(host);
    return b;
}

void test_buf_free(test_buf *b)
{
    if (b->mem)
        clReleaseMemObject(b->mem);
    b->mem = NULL;
}

void test_buf_read_all(test_env *env, const test_buf *b, unsigned char *out)
{
    assert_int_equal(clEnqueueReadBuffer(env->queue, b->mem, CL_TRUE, 0,
                                         b->payload + 2 * CANARY_BYTES, out, 0, NULL, NULL),
                     CL_SUCCESS);
}

void test_buf_read(test_env *env, const test_buf *b, void *out)
{
    assert_int_equal(clEnqueueReadBuffer(env->queue, b->mem, CL_TRUE, CANARY_BYTES, b->payload, out,
                                         0, NULL, NULL),
                     CL_SUCCESS);
}

void test_buf_assert_canaries(test_env *env, const test_buf *b)
{
    size_t total = b->payload + 2 * CANARY_BYTES;
    unsigned char *all = malloc(total);
    assert_non_null(all);
    test_buf_read_all(env, b, all);
    for (size_t i = 0; i < CANARY_BYTES; ++i) {
        if (all[i] != CANARY_BYTE || all[CANARY_BYTES + b->payload + i] != CANARY_BYTE) {
            free(all);
            fail_msg("canary band overwritten at band byte %zu", i);
        }
    }
    free(all);
}

bicl_tensor test_view(const test_buf *b, bicl_dtype dt, size_t extra_off, int rank,
                      const size_t *shape)
{
    return bicl_tensor_contiguous(b->mem, dt, b->lead + extra_off, rank, shape);
}

uint64_t test_rand(uint64_t *s)
{
    uint64_t x = *s ? *s : 0x9e3779b97f4a7c15ull;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * 0x2545f4914f6cdd1dull;
}

static const uint32_t special_f32[] = {
    0x00000000u, 0x80000000u,                           /* +-0 */
    0x7f800000u, 0xff800000u,                           /* +-inf */
    0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0xffd23456u, /* quiet NaN, payloads */
    0x7f800001u, 0xff800001u, 0x7fa00000u, 0x7f812345u, /* signalling NaN */
    0x7f801fffu, 0x7fffe000u,                           /* NaN, payload only in low bits */
    0x00000001u, 0x80000001u, 0x007fffffu, 0x807fffffu, /* f32 denormals */
    0x00400000u, 0x00800000u, 0x80800000u,              /* denormal, min normal */
    0x7f7fffffu, 0xff7fffffu,                           /* +-FLT_MAX */
    0x477fe000u, 0x477fefffu, 0x477ff000u, 0x477ff001u, /* f16 max, overflow edges */
    0xc77ff000u, 0x47800000u,                           /* -65520, 65536 */
    0x38800000u, 0x387fffffu, 0x387fe000u, 0x387ff000u, /* f16 min normal edges */
    0x33800000u, 0x33000000u, 0x33000001u, 0x32ffffffu, /* f16 2^-24, 2^-25 tie */
    0xb3000000u, 0xb3000001u, 0x33c00000u, 0x34200000u, /* f16 denormal ties */
    0x3f801000u, 0x3f803000u, 0x3f800fffu, 0x3f801001u, /* f16 ties to even */
    0x3f808000u, 0x3f818000u, 0x3f807fffu, 0x3f808001u, /* bf16 ties to even */
    0x7f7f8000u, 0x7f7f7fffu, 0xff7f8000u,              /* bf16 overflow to inf */
    0x3f800000u, 0xbf800000u, 0x40490fdbu, 0x3eaaaaabu, /* ordinary values */
};

size_t test_special_f32(const uint32_t **out)
{
    *out = special_f32;
    return sizeof special_f32 / sizeof special_f32[0];
}

void test_fill_f32_bits(uint32_t *out, size_t n, uint64_t seed)
{
    const uint32_t *sp;
    size_t ns = test_special_f32(&sp);
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = test_rand(&s);
        switch (r % 4) {
        case 0: /* any bit pattern */
            out[i] = (uint32_t)(r >> 32);
            break;
        case 1: { /* moderate magnitudes, both signs */
            float v = (float)((double)(int64_t)(r >> 11) / 9007199254740992.0 * 16.0);
            memcpy(&out[i], &v, 4);
            break;
        }
        case 2: /* f16 range, near rounding boundaries */
            out[i] = (uint32_t)(0x33000000u + (uint32_t)((r >> 32) % 0x14800000u)) |
                     (uint32_t)(r & 0x80000000u);
            break;
        default:
            out[i] = sp[(r >> 32) % ns];
            break;
        }
    }
}

/* The first 65536 patterns of test_fill_u16_bits: the special values of f16 and bf16 (signed
 * zeros, infinities, quiet and signalling NaNs with payloads, the smallest and largest
 * subnormals and normals, +-1), then every other pattern in a scattered order (i * 40503 mod
 * 2^16 is a bijection), so that a short buffer also holds both signs, every class and
 * magnitudes of every size. Counting up from 0 (before) gave a buffer of fewer than 31744
 * elements no NaN, no infinity and nothing negative. */
static uint16_t u16_order_table[65536];

static void u16_order_build(void)
{
    static const uint16_t specials[] = {0x0000, 0x8000, 0x7c00, 0xfc00, 0x7f80, 0xff80,
                                        0x7e00, 0x7d01, 0xfe55, 0x7fc0, 0x7f81, 0xffa5,
                                        0x0001, 0x8001, 0x03ff, 0x007f, 0x0400, 0x0080,
                                        0x7bff, 0x7f7f, 0x3c00, 0x3f80, 0xbc00, 0xbf80};
    static unsigned char used[65536];
    size_t k = 0;
    for (size_t i = 0; i < sizeof specials / sizeof specials[0]; ++i) {
        u16_order_table[k++] = specials[i];
        used[specials[i]] = 1;
    }
    for (uint32_t j = 0; j < 65536; ++j) {
        uint16_t v = (uint16_t)(j * 40503u);
        if (!used[v])
            u16_order_table[k++] = v;
    }
    if (k != 65536)
        abort(); /* a special listed twice */
}

/* Built once, also when test threads fill buffers at the same time. */
static const uint16_t *u16_order(void)
{
    static pthread_once_t once = PTHREAD_ONCE_INIT;
    if (pthread_once(&once, u16_order_build) != 0)
        abort();
    return u16_order_table;
}

void test_fill_u16_bits(uint16_t *out, size_t n, uint64_t seed)
{
    const uint16_t *order = u16_order();
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = test_rand(&s);
        out[i] = i < 65536 ? order[i] : (uint16_t)(r >> 40);
    }
}

void test_assert_bits_equal(const void *a, const void *b, size_t n_elems, size_t elem,
                            const char *what)
{
    const unsigned char *pa = a, *pb = b;
    for (size_t i = 0; i < n_elems; ++i) {
        if (memcmp(pa + i * elem, pb + i * elem, elem) != 0) {
            uint64_t va = 0, vb = 0;
            memcpy(&va, pa + i * elem, elem);
            memcpy(&vb, pb + i * elem, elem);
            fail_msg("%s: element %zu differs: 0x%0*llx vs 0x%0*llx", what, i, (int)(2 * elem),
                     (unsigned long long)va, (int)(2 * elem), (unsigned long long)vb);
        }
    }
}
