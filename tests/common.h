/* common.h - what the CMocka tests share: a context on the test device, buffers with
 * canary bands, special values, and a deterministic random source. */
#ifndef BICL_TEST_COMMON_H
#define BICL_TEST_COMMON_H

#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>

#include "internal.h"
#include "models.h" /* harness/: the models, harness_read_text */

/* Runs CMocka group `name` of n tests, selected by the environment:
 * $BICL_TEST_FILTER runs only the tests whose name matches it (CMocka's pattern: * and
 * ?; the oclgrind entries pick small tests this way), and $BICL_TEST_SKIP (names, comma
 * separated) leaves those tests out (a repeat under other conditions, such as the
 * _no_fp64 entries, skips what those conditions cannot change). A name in
 * $BICL_TEST_SKIP that names no test of the group fails the run. */
int test_run_group(const char *name, const struct CMUnitTest *tests, size_t n,
                   CMFixtureFunction setup, CMFixtureFunction teardown);
#define test_run_tests(name, tests, setup, teardown)                                               \
    test_run_group(name, tests, sizeof(tests) / sizeof(tests)[0], setup, teardown)

/* The device tests run on: $BICL_TEST_DEVICE, else $BICL_DEVICE, else "pocl". */
const char *test_device_spec(void);

typedef struct test_env {
    bicl_context *ctx;
    cl_command_queue queue;
} test_env;

/* CMocka group setup/teardown: state is a test_env. */
int test_env_setup(void **state);
int test_env_teardown(void **state);
/* A context on env's device with BICL_OPTION_ROPE_FORM `form` and
 * BICL_OPTION_ROPE_SPECIALISE `specialise`, and env's queue (free its ctx). */
test_env test_env_with_rope_form(const test_env *env, const char *form, int specialise);
/* A context on env's cl_context and device (env's queue and buffers serve it), created
 * with options o (NULL: the defaults) while environment variable var is value. */
test_env test_env_with_var(const test_env *env, const char *var, const char *value,
                           const bicl_options *o);

/* A device buffer with CANARY_BYTES of a fixed pattern before and after the payload.
 * Views use element offsets that start after the leading band. */
#define CANARY_BYTES 256
#define CANARY_BYTE  0xa5
typedef struct test_buf {
    cl_mem mem;
    size_t payload; /* bytes */
    size_t lead;    /* CANARY_BYTES, as elements of elem size */
    size_t elem;
} test_buf;

test_buf test_buf_new(test_env *env, size_t elem, size_t n_elems, const void *init);
void test_buf_free(test_buf *b);
/* Payload bytes back to host (blocking). */
void test_buf_read(test_env *env, const test_buf *b, void *out);
/* Asserts that both canary bands hold the pattern. */
void test_buf_assert_canaries(test_env *env, const test_buf *b);
/* Whole buffer, bands included. */
void test_buf_read_all(test_env *env, const test_buf *b, unsigned char *out);

/* A contiguous view of the payload, starting at element `extra_off` past the band. */
bicl_tensor test_view(const test_buf *b, bicl_dtype dt, size_t extra_off, int rank,
                      const size_t *shape);

/* xorshift64*: reproducible everywhere. */
uint64_t test_rand(uint64_t *s);
/* Random f32 bit patterns: a mix of uniform bits, values of moderate range, and the
 * special classes (zeros, infs, quiet/signalling NaNs with payloads, denormals,
 * FLT_MAX, f16 and bf16 rounding edges and ties). */
void test_fill_f32_bits(uint32_t *out, size_t n, uint64_t seed);
/* The special f32 bit patterns used above; returns their count. */
size_t test_special_f32(const uint32_t **out);
/* 16-bit patterns: the special values of f16 and bf16 first, then every other pattern once
 * in a scattered order (the first 65536 elements hold every pattern), then random ones. */
void test_fill_u16_bits(uint16_t *out, size_t n, uint64_t seed);

/* Memcmp with a message naming the first differing element. */
void test_assert_bits_equal(const void *a, const void *b, size_t n_elems, size_t elem,
                            const char *what);

#endif
