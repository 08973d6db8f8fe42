/* test_core.c - options and the allow list, statuses, device suitability, the
 * fingerprint, build failures, variants, and every validation status of the tensor
 * and queue checks (each: its own status, nothing written, the context still works). */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE__)
#include <xmmintrin.h>
#endif

/* ------------------------------------------------------------ build options */

static const char *const unsafe_options[] = {
    "-cl-fast-relaxed-math",
    "-cl-mad-enable",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-denorms-are-zero",
    "-cl-no-signed-zeros",
    "-cl-single-precision-constant",
    "-cl-std=CL2.0",
    "-DBICL_HAVE_FP64=1",
    "-D BICL_HAVE_FP64",
    "-UBICL_HAVE_FP64",
    "-I/tmp",
    "-w -cl-mad-enable",
    "  -g\t-cl-fast-relaxed-math  ",
};

static void every_unsafe_option_is_refused(void **state)
{
    (void)state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    for (size_t i = 0; i < sizeof unsafe_options / sizeof unsafe_options[0]; ++i) {
        if (bicl_check_build_options(unsafe_options[i]) != BICL_ERR_UNSAFE_OPTION)
            fail_msg("'%s' was not refused as unsafe", unsafe_options[i]);
        assert_non_null(strstr(bicl_last_error(NULL), "refused"));
        assert_int_equal(bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, unsafe_options[i]),
                         BICL_ERR_UNSAFE_OPTION);
    }
    assert_string_equal(o->build_options, ""); /* nothing was kept */
    bicl_options_free(o);
}

static void unknown_and_allowed_options(void **state)
{
    (void)state;
    assert_int_equal(bicl_check_build_options("-O3"), BICL_ERR_UNKNOWN_OPTION);
    assert_non_null(strstr(bicl_last_error(NULL), "-O3"));
    assert_int_equal(bicl_check_build_options("-cl-kernel-arg-info -foo"), BICL_ERR_UNKNOWN_OPTION);
    assert_int_equal(bicl_check_build_options(NULL), BICL_SUCCESS);
    assert_int_equal(bicl_check_build_options(""), BICL_SUCCESS);
    assert_int_equal(bicl_check_build_options("-w -Werror -cl-kernel-arg-info -cl-opt-disable -g"),
                     BICL_SUCCESS);
}

static void option_setters_check_types_and_keys(void **state)
{
    (void)state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_DISK_CACHE, 2),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_int(o, BICL_OPTION_CACHE_DIR, 1), BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_int(o, (bicl_option)99, 1), BICL_ERR_INVALID_ENUM);
    assert_int_equal(bicl_options_set_string(o, (bicl_option)99, "x"), BICL_ERR_INVALID_ENUM);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_PROFILE, "nosuch"),
                     BICL_ERR_INVALID_PARAMETER);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_PROFILE, "nvidia"), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(NULL, BICL_OPTION_PROFILE, "nvidia"),
                     BICL_ERR_NULL_POINTER);
    assert_int_equal(bicl_options_create(NULL), BICL_ERR_NULL_POINTER);
    bicl_options_free(o);
}

/* Allowed extra options change the fingerprint (they are part of it) but not a bit of
 * any result: -cl-opt-disable compiles the same IEEE operations without optimisation. */
static void allowed_options_change_fingerprint_not_bits(void **state)
{
    test_env *env = *state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, "-cl-opt-disable"),
                     BICL_SUCCESS);
    bicl_context *ctx2 = NULL;
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &ctx2),
                     BICL_SUCCESS);
    assert_string_not_equal(bicl_fingerprint(ctx2), bicl_fingerprint(env->ctx));
    assert_true(bicl_fingerprint_hash(ctx2) != bicl_fingerprint_hash(env->ctx));
    assert_non_null(strstr(bicl_fingerprint(ctx2), "-cl-opt-disable"));

    const size_t n = 4096;
    uint32_t *x = malloc(n * 4);
    uint16_t *a = malloc(n * 2), *b = malloc(n * 2);
    assert_true(x && a && b);
    test_fill_f32_bits(x, n, 11);
    test_buf bx = test_buf_new(env, 4, n, x);
    test_buf ya = test_buf_new(env, 2, n, NULL), yb = test_buf_new(env, 2, n, NULL);
    size_t shape[1] = {n};
    bicl_tensor tx = test_view(&bx, BICL_F32, 0, 1, shape);
    bicl_tensor ta = test_view(&ya, BICL_F16, 0, 1, shape);
    bicl_tensor tb = test_view(&yb, BICL_F16, 0, 1, shape);
    assert_int_equal(bicl_cast(env->ctx, env->queue, &tx, &ta, 0, NULL, NULL), BICL_SUCCESS);
    assert_int_equal(bicl_cast(ctx2, env->queue, &tx, &tb, 0, NULL, NULL), BICL_SUCCESS);
    test_buf_read(env, &ya, a);
    test_buf_read(env, &yb, b);
    test_assert_bits_equal(a, b, n, 2, "-cl-opt-disable");
    test_buf_free(&bx);
    test_buf_free(&ya);
    test_buf_free(&yb);
    free(x);
    free(a);
    free(b);
    bicl_context_free(ctx2);
    bicl_options_free(o);
}

/* --------------------------------------------------------------- statuses */

static void every_status_has_its_own_string(void **state)
{
    (void)state;
    for (int i = 0; i < BICL_STATUS_COUNT_; ++i) {
        const char *s = bicl_status_string((bicl_status)i);
        assert_non_null(s);
        assert_true(strncmp(s, "BICL_", 5) == 0);
        for (int j = 0; j < i; ++j)
            assert_string_not_equal(s, bicl_status_string((bicl_status)j));
    }
    assert_string_equal(bicl_status_string((bicl_status)-1), "unknown bicl_status");
    assert_string_equal(bicl_status_string(BICL_STATUS_COUNT_), "unknown bicl_status");
    assert_int_equal(bicl_dtype_size(BICL_BF16), 2);
    assert_int_equal(bicl_dtype_size((bicl_dtype)77), 0);
    assert_string_equal(bicl_dtype_name((bicl_dtype)77), "?");
    assert_int_equal(bicl_version_number(), BICL_VERSION_NUMBER);
    assert_string_equal(bicl_version_string(), BICL_VERSION_STRING);
}

/* ----------------------------------------------------------------- device */

/* Missing advertised capabilities: the provable ones are left to the self-test and
 * named as such; the others refuse the device, each by name. */
static void suitability_names_each_missing_capability(void **state)
{
    (void)state;
    bicl_device_info info;
    memset(&info, 0, sizeof info);
    info.caps = 0x1ff & ~(unsigned)(BICL_CAP_CR_DIVIDE_SQRT | BICL_CAP_DENORM);
    char why[1024];
    assert_int_equal(bicl_device_suitability(&info, why, sizeof why), BICL_SUCCESS);
    assert_non_null(strstr(why, "self-test"));
    assert_non_null(strstr(why, "must prove"));
    assert_non_null(strstr(why, "CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT"));
    assert_non_null(strstr(why, "CL_FP_DENORM"));
    info.caps &= ~(unsigned)(BICL_CAP_INF_NAN | BICL_CAP_COMPILER);
    assert_int_equal(bicl_device_suitability(&info, why, sizeof why), BICL_ERR_DEVICE_UNSUITABLE);
    assert_non_null(strstr(why, "CL_FP_INF_NAN"));
    assert_non_null(strstr(why, "CL_DEVICE_COMPILER_AVAILABLE"));
    assert_null(strstr(why, "CL_FP_DENORM")); /* provable: not a reason to refuse */
    info.caps = 0x1ff;
    assert_int_equal(bicl_device_suitability(&info, why, sizeof why), BICL_SUCCESS);
    assert_null(strstr(why, "must prove"));
    info.caps = 0x1ff & ~(unsigned)BICL_CAP_FP64; /* fp64 is recorded, not required */
    assert_int_equal(bicl_device_suitability(&info, why, sizeof why), BICL_SUCCESS);
    assert_non_null(strstr(why, "no fp64"));
}

/* Every context passed the self-test on its device (its cases are the host's answers,
 * tests/test_host.c plants wrong ones), and says so in its fingerprint. */
static void the_self_test_ran_and_the_fingerprint_says_so(void **state)
{
    test_env *env = *state;
    assert_true(env->ctx->selftested);
    assert_non_null(strstr(bicl_fingerprint(env->ctx), " self-tested"));
    assert_int_equal(env->ctx->info.caps & BICL_CAPS_PROVABLE, BICL_CAPS_PROVABLE);
    char why[512];
    bicl_context_verdict(env->ctx, why, sizeof why);
    assert_non_null(strstr(why, "self-tested"));
    /* hiding fp64 (BICL_HIDE_FP64=1, the no-fp64 ctest entries) shows in the caps */
    assert_int_equal(bicl_context_has_fp64(env->ctx) == 0,
                     bicl_fp64_hidden() || !(env->ctx->caps_advertised & BICL_CAP_FP64));
}

/* The self-test on this device with math that bicl refuses to build with (set behind the
 * allow list's back): a runtime whose math is that wrong is refused the same way before
 * it returns a wrong bit, the message naming what broke. Whether an option changes a
 * device's results is the device's affair: on PoCL and Intel's CPU runtime each of these
 * was measured to (and must keep failing as measured). NVIDIA's compiler keeps the
 * FP_CONTRACT pragma under -cl-fast-relaxed-math (../shared/gpu.md), and on the H200
 * (2026-12-03) the PoCL expectations did not hold for at least one option (which one
 * was not recorded): elsewhere a pass is reported, and a failure must still name its
 * operation. Since math version 2 the first case to fail under
 * -cl-unsafe-math-optimizations is no longer exp on a device running the double path
 * of the correctly rounded exp: it rounds only what its error bound decides, and the
 * relaxed arithmetic did not change one of its bits on PoCL or Intel (measured
 * 2026-12-03). In math versions 2 and 3 tanh failed next; in math version 4 (tanh
 * correctly rounded the same way) erf (PoCL, 2026-12-03: 67 of 128 erf cases differ).
 * Math version 5 makes erf correctly rounded too, and no case of exp, tanh or erf
 * differed on PoCL with fp64; the self-test now also runs mish (float-pair code, not
 * correctly rounded), which fails first there (45 of 128 cases, 2026-12-03). Without
 * fp64 (the float-pair path) exp still fails first (PoCL). */
static void unsafe_math_fails_the_self_test(void **state)
{
    test_env *env = *state;
    const char *platform = env->ctx->info.platform_name;
    bool measured = strstr(platform, "Portable Computing Language") != NULL ||
                    strstr(platform, "Intel(R) OpenCL") != NULL;
    static const struct {
        const char *options, *says;
    } unsafe[] = {
        {"-cl-fast-relaxed-math", "self-test: "},
        {"-cl-denorms-are-zero", "missing correctly rounded fp32 divide and sqrt: self-test: "},
        {"-cl-unsafe-math-optimizations", "self-test: bicl_"}, /* exp or mish: below */
    };
    for (size_t i = 0; i < sizeof unsafe / sizeof unsafe[0]; ++i) {
        bicl_context *c = NULL;
        assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                             bicl_context_device(env->ctx), NULL, &c),
                         BICL_SUCCESS);
        snprintf(c->opts.build_options, sizeof c->opts.build_options, "%s", unsafe[i].options);
        c->fingerprint_hash ^= 0x9e3779b97f4a7c15ull * (i + 1); /* a verdict not yet known */
        c->info.caps = c->caps_advertised;
        bicl_status st = bicl_context_selftest(c);
        if (st == BICL_SUCCESS && !measured) {
            printf("%s: %s passes the self-test (its results are unchanged)\n", platform,
                   unsafe[i].options);
        } else {
            assert_int_equal(st, BICL_ERR_DEVICE_UNSUITABLE);
            const char *says = measured ? unsafe[i].says : "self-test: ";
            if (measured && i == 2)
                says = (c->info.caps & BICL_CAP_FP64) ? "self-test: bicl_mish"
                                                      : "self-test: bicl_expf";
            if (!strstr(bicl_last_error(NULL), says))
                fail_msg("%s: %s", unsafe[i].options, bicl_last_error(NULL));
        }
        bicl_context_free(c);
    }
}

/* A process that flushes denormals (FTZ/DAZ, as -ffast-math's start-up code sets) cannot
 * compute the host reference: the self-test says so instead of blaming the device. */
static void a_host_flushing_denormals_is_named(void **state)
{
#if defined(__SSE__)
    test_env *env = *state;
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    /* other build options: a fingerprint whose verdict is not yet known */
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_BUILD_OPTIONS, "-w"), BICL_SUCCESS);
    unsigned csr = _mm_getcsr();
    _mm_setcsr(csr | 0x8040u); /* FTZ and DAZ */
    bicl_context *c = NULL;
    bicl_status st = bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &c);
    _mm_setcsr(csr);
    assert_int_equal(st, BICL_ERR_UNSUPPORTED);
    assert_null(c);
    assert_non_null(strstr(bicl_last_error(NULL), "flushes fp32 denormals"));
    /* with denormals back, the same options give a context */
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &c),
                     BICL_SUCCESS);
    bicl_context_free(c);
    bicl_options_free(o);
#else
    (void)state;
    skip();
#endif
}

static void device_selection_and_creation_errors(void **state)
{
    test_env *env = *state;
    bicl_context *c = NULL;
    assert_int_equal(bicl_context_create_default("no-such-device-xyz", NULL, &c),
                     BICL_ERR_DEVICE_NOT_FOUND);
    assert_null(c);
    assert_int_equal(bicl_context_create_default("999", NULL, &c), BICL_ERR_DEVICE_NOT_FOUND);
    assert_int_equal(bicl_context_create_default(NULL, NULL, NULL), BICL_ERR_NULL_POINTER);
    assert_int_equal(bicl_context_create(NULL, bicl_context_device(env->ctx), NULL, &c),
                     BICL_ERR_INVALID_HANDLE);
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx), NULL, NULL, &c),
                     BICL_ERR_INVALID_HANDLE);
    char why[256];
    assert_int_equal(bicl_device_check(bicl_context_device(env->ctx), why, sizeof why),
                     BICL_SUCCESS);
    assert_non_null(strstr(why, "suitable"));
    size_t n = 0;
    assert_int_equal(bicl_device_list(NULL, 0, &n), BICL_SUCCESS);
    assert_true(n >= 1);
    /* a spec by index and by name picks a device; the fingerprint is stable */
    assert_int_equal(bicl_context_create_default(test_device_spec(), NULL, &c), BICL_SUCCESS);
    assert_string_equal(bicl_fingerprint(c), bicl_fingerprint(env->ctx));
    assert_non_null(strstr(bicl_fingerprint(c), "src="));
    assert_non_null(strstr(bicl_fingerprint(c), "driver="));
    bicl_context_free(c);
}

static void build_failure_carries_the_log(void **state)
{
    test_env *env = *state;
    const char *bad = "kernel void k(global float *x) { x[0] = undeclared_thing; }\n";
    cl_program p = NULL;
    assert_int_equal(bicl_program_compile(env->ctx, "test", bad, strlen(bad), &p),
                     BICL_ERR_BUILD_FAILED);
    assert_null(p);
    assert_non_null(strstr(bicl_last_error(env->ctx), "undeclared_thing"));
}

static void every_program_source_starts_with_the_pragma(void **state)
{
    test_env *env = *state;
    for (size_t i = 0; i < bicl_source_count; ++i) {
        assert_non_null(strstr(bicl_sources[i].text, "#pragma OPENCL FP_CONTRACT OFF"));
        assert_null(strstr(bicl_sources[i].text, "native_"));
    }
    char *text = NULL;
    size_t size = 0;
    assert_int_equal(bicl_program_source(env->ctx, BICL_FAMILY_CAST, NULL, &text, &size),
                     BICL_SUCCESS);
    assert_true(strncmp(text, "#pragma OPENCL FP_CONTRACT OFF\n", 31) == 0);
    free(text);
    char opts[256];
    bicl_build_options(env->ctx, opts, sizeof opts);
    assert_string_equal(opts, "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt");
}

static void variants_are_validated(void **state)
{
    test_env *env = *state;
    bicl_variant bad[] = {{3, 1, 0},
                          {0, 1, 0},
                          {16, 1, 0},
                          {4, 0, 0},
                          {4, 65, 0},
                          {4, 1, 48},
                          {4, 1, (size_t)1 << 40}};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; ++i)
        assert_int_equal(bicl_context_set_variant(env->ctx, &bad[i]), BICL_ERR_INVALID_PARAMETER);
    bicl_variant v = {8, 2, 32}, got;
    assert_int_equal(bicl_context_set_variant(env->ctx, &v), BICL_SUCCESS);
    assert_int_equal(bicl_context_get_variant(env->ctx, &got), BICL_SUCCESS);
    assert_int_equal(got.vector_width, 8);
    assert_int_equal(bicl_context_set_variant(env->ctx, NULL), BICL_SUCCESS);
    assert_int_equal(bicl_context_set_variant(NULL, NULL), BICL_ERR_NULL_POINTER);
}

/* One op of each elementwise launch class (src/profile.h: one 32-bit input, two 32-bit
 * inputs, a 16-bit input with a 32-bit operand, all 16-bit, a lookup table, a computed
 * activation of a 32-bit input, the longest double path of one and of two 32-bit inputs),
 * so that every variant of a profile runs (the RoPE class runs in test_rope's variant
 * sweep). */
static bicl_status run_class_op(bicl_context *c, cl_command_queue q, int which,
                                const bicl_tensor *f32, const bicl_tensor *bf16,
                                const bicl_tensor *out_f32, const bicl_tensor *out_bf16)
{
    switch (which) {
    case 0: /* f32 -> bf16: a computed activation, class act32 */
        return bicl_unary(c, q, BICL_UNARY_SILU, NULL, f32, out_bf16, 0, NULL, NULL);
    case 5: /* f32 -> bf16: class 32 (relu is no computed activation) */
        return bicl_unary(c, q, BICL_UNARY_RELU, NULL, f32, out_bf16, 0, NULL, NULL);
    case 1: /* bf16 -> f32: mixed */
        return bicl_cast(c, q, bf16, out_f32, 0, NULL, NULL);
    case 2: /* bf16 -> bf16: class 16 (relu has no table) */
        return bicl_unary(c, q, BICL_UNARY_RELU, NULL, bf16, out_bf16, 0, NULL, NULL);
    case 3: /* bf16 -> bf16: the table class (silu reads a table on 16-bit input) */
        return bicl_unary(c, q, BICL_UNARY_SILU, NULL, bf16, out_bf16, 0, NULL, NULL);
    case 6: /* f32 -> f32: the longest double path, class act32l */
        return bicl_unary(c, q, BICL_UNARY_GELU, NULL, f32, out_f32, 0, NULL, NULL);
    case 7: /* f32, f32 -> f32: its gated unit, class glu32l */
        return bicl_glu(c, q, BICL_GLU_GEGLU, NULL, f32, f32, out_f32, 0, NULL, NULL);
    default: /* f32 * f32 -> f32: class 32x2 */
        return bicl_binary(c, q, BICL_BINARY_MUL, f32, f32, out_f32, 0, NULL, NULL);
    }
}

/* Every platform profile (its default variant per launch class) gives the same bits: one
 * op of each class under each profile, on a size with vector bodies and tails. */
static void every_profile_gives_the_same_bits(void **state)
{
    test_env *env = *state;
    static const char *const profiles[] = {"generic", "pocl", "nvidia", "amd"};
    enum { OPS = 8 };
    const size_t n = 4099;
    uint32_t *x = malloc(n * 4);
    uint16_t *h = malloc(n * 2);
    unsigned char *first = malloc(OPS * n * 4), *now = malloc(n * 4);
    assert_true(x && h && first && now);
    test_fill_f32_bits(x, n, 21);
    for (size_t k = 0; k < n; ++k)
        h[k] = (uint16_t)(x[k] >> 16);
    test_buf bx = test_buf_new(env, 4, n, x), bh = test_buf_new(env, 2, n, h);
    test_buf by = test_buf_new(env, 4, n, NULL), byh = test_buf_new(env, 2, n, NULL);
    size_t shape[1] = {n};
    bicl_tensor tx = test_view(&bx, BICL_F32, 0, 1, shape),
                th = test_view(&bh, BICL_BF16, 0, 1, shape),
                ty = test_view(&by, BICL_F32, 0, 1, shape),
                tyh = test_view(&byh, BICL_BF16, 0, 1, shape);
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; ++i) {
        bicl_options *o = NULL;
        assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
        assert_int_equal(bicl_options_set_string(o, BICL_OPTION_PROFILE, profiles[i]),
                         BICL_SUCCESS);
        bicl_context *c = NULL;
        assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                             bicl_context_device(env->ctx), o, &c),
                         BICL_SUCCESS);
        assert_string_equal(bicl_context_profile(c), profiles[i]);
        for (int op = 0; op < OPS; ++op) {
            bool wide = op == 1 || op == 4 || op >= 6; /* f32 output */
            size_t elem = wide ? 4 : 2;
            assert_int_equal(run_class_op(c, env->queue, op, &tx, &th, &ty, &tyh), BICL_SUCCESS);
            test_buf_read(env, wide ? &by : &byh, i ? now : first + (size_t)op * n * 4);
            if (i) {
                char what[64];
                snprintf(what, sizeof what, "%s, op %d", profiles[i], op);
                test_assert_bits_equal(now, first + (size_t)op * n * 4, n, elem, what);
            }
        }
        bicl_context_free(c);
        bicl_options_free(o);
    }
    test_buf_free(&bx);
    test_buf_free(&bh);
    test_buf_free(&by);
    test_buf_free(&byh);
    free(x);
    free(h);
    free(first);
    free(now);
}

/* --------------------------------------------------- validation statuses */

#define N_X 64
typedef struct bad_call_fixture {
    test_buf x, y;
    bicl_tensor tx, ty;
    unsigned char *y_before;
} bad_call_fixture;

static void fixture_new(test_env *env, bad_call_fixture *f)
{
    uint32_t xb[N_X];
    test_fill_f32_bits(xb, N_X, 5);
    f->x = test_buf_new(env, 4, N_X, xb);
    f->y = test_buf_new(env, 2, N_X, NULL);
    size_t shape[2] = {8, 8};
    f->tx = test_view(&f->x, BICL_F32, 0, 2, shape);
    f->ty = test_view(&f->y, BICL_BF16, 0, 2, shape);
    f->y_before = malloc(f->y.payload + 2 * CANARY_BYTES);
    assert_non_null(f->y_before);
    test_buf_read_all(env, &f->y, f->y_before);
}

/* Nothing written anywhere in y's buffer, and a valid call still works. */
static void fixture_check_and_free(test_env *env, bad_call_fixture *f)
{
    clFinish(env->queue);
    unsigned char *now = malloc(f->y.payload + 2 * CANARY_BYTES);
    assert_non_null(now);
    test_buf_read_all(env, &f->y, now);
    assert_memory_equal(now, f->y_before, f->y.payload + 2 * CANARY_BYTES);
    assert_int_equal(bicl_cast(env->ctx, env->queue, &f->tx, &f->ty, 0, NULL, NULL), BICL_SUCCESS);
    clFinish(env->queue);
    free(now);
    free(f->y_before);
    test_buf_free(&f->x);
    test_buf_free(&f->y);
}

typedef struct bad_case {
    const char *name;
    bicl_status want;
    void (*mutate)(test_env *, bad_call_fixture *, bicl_tensor *, bicl_tensor *, cl_uint *,
                   const cl_event **, cl_command_queue *);
} bad_case;

#define MUTATOR(fn)                                                                                \
    static void fn(test_env *env, bad_call_fixture *f, bicl_tensor *x, bicl_tensor *y,             \
                   cl_uint *nw, const cl_event **w, cl_command_queue *q)
#define UNUSED_ARGS                                                                                \
    (void)env;                                                                                     \
    (void)f;                                                                                       \
    (void)x;                                                                                       \
    (void)y;                                                                                       \
    (void)nw;                                                                                      \
    (void)w;                                                                                       \
    (void)q

MUTATOR(null_x_mem)
{
    UNUSED_ARGS;
    x->mem = NULL;
}
MUTATOR(rank_zero)
{
    UNUSED_ARGS;
    x->rank = 0;
}
MUTATOR(rank_five)
{
    UNUSED_ARGS;
    y->rank = 5;
}
MUTATOR(zero_extent)
{
    UNUSED_ARGS;
    x->shape[1] = 0;
    y->shape[1] = 0;
}
MUTATOR(count_overflow)
{
    UNUSED_ARGS;
    x->shape[0] = (size_t)1 << 40;
    x->shape[1] = (size_t)1 << 40;
}
MUTATOR(address_overflow)
{
    UNUSED_ARGS;
    x->stride[0] = PTRDIFF_MAX;
}
MUTATOR(negative_stride)
{
    UNUSED_ARGS;
    x->stride[1] = -1;
}
MUTATOR(output_broadcast)
{
    UNUSED_ARGS;
    y->stride[0] = 0;
}
MUTATOR(output_overlaps_itself)
{
    UNUSED_ARGS;
    y->stride[0] = 4; /* rows of 8 elements 4 apart */
}
MUTATOR(past_mem_size)
{
    UNUSED_ARGS;
    y->offset += 1; /* the band after the payload is 256 bytes: go further */
    y->offset += CANARY_BYTES;
}
MUTATOR(int_dtype)
{
    UNUSED_ARGS;
    y->dtype = BICL_I32;
}
MUTATOR(bad_dtype)
{
    UNUSED_ARGS;
    x->dtype = (bicl_dtype)42;
}
MUTATOR(shape_mismatch)
{
    UNUSED_ARGS;
    y->shape[0] = 4;
    y->shape[1] = 16;
    y->stride[0] = 16;
}
MUTATOR(partial_alias)
{
    UNUSED_ARGS;
    *y = *x;
    y->offset += 1;
}
MUTATOR(in_place_other_dtype)
{
    UNUSED_ARGS;
    *y = *x;
    y->dtype = BICL_F16;
    y->offset = x->offset * 2; /* the same first byte */
}
MUTATOR(null_queue)
{
    UNUSED_ARGS;
    *q = NULL;
}
MUTATOR(wait_count_without_list)
{
    UNUSED_ARGS;
    *nw = 1;
    *w = NULL;
}
MUTATOR(list_without_count)
{
    UNUSED_ARGS;
    static const cl_event dummy[1] = {NULL};
    *nw = 0;
    *w = dummy;
}
MUTATOR(null_event_in_list)
{
    UNUSED_ARGS;
    static const cl_event nulls[2] = {NULL, NULL};
    *nw = 2;
    *w = nulls;
}

/* Objects of a second cl_context on the same device. */
static cl_context other_ctx;
static cl_command_queue other_queue;
static cl_mem other_mem;
static cl_event other_event;

MUTATOR(queue_of_other_context)
{
    UNUSED_ARGS;
    *q = other_queue;
}
MUTATOR(buffer_of_other_context)
{
    UNUSED_ARGS;
    x->mem = other_mem;
    x->offset = 0;
}
MUTATOR(event_of_other_context)
{
    UNUSED_ARGS;
    *nw = 1;
    *w = &other_event;
}
static cl_mem read_only_mem, sub_mem;
MUTATOR(read_only_output)
{
    UNUSED_ARGS;
    y->mem = read_only_mem;
    y->offset = 0;
}
MUTATOR(sub_buffer_alias)
{
    UNUSED_ARGS;
    /* x is read from a sub-buffer that overlaps y's payload */
    x->mem = sub_mem;
    x->dtype = BICL_BF16;
    x->offset = 0;
    for (int i = 0; i < 2; ++i)
        x->stride[i] = y->stride[i];
    y->offset += 4;
}

static const bad_case bad_cases[] = {
    {"x.mem NULL", BICL_ERR_INVALID_HANDLE, null_x_mem},
    {"rank 0", BICL_ERR_INVALID_RANK, rank_zero},
    {"rank 5", BICL_ERR_INVALID_RANK, rank_five},
    {"zero extent", BICL_ERR_ZERO_EXTENT, zero_extent},
    {"element count overflow", BICL_ERR_EXTENT_OVERFLOW, count_overflow},
    {"address overflow", BICL_ERR_EXTENT_OVERFLOW, address_overflow},
    {"negative stride", BICL_ERR_INVALID_STRIDE, negative_stride},
    {"output broadcast stride", BICL_ERR_INVALID_STRIDE, output_broadcast},
    {"output overlaps itself", BICL_ERR_OVERLAPPING_VIEW, output_overlaps_itself},
    {"past CL_MEM_SIZE", BICL_ERR_OUT_OF_BOUNDS, past_mem_size},
    {"i32 output", BICL_ERR_UNSUPPORTED_DTYPE, int_dtype},
    {"unknown dtype", BICL_ERR_UNSUPPORTED_DTYPE, bad_dtype},
    {"shape mismatch", BICL_ERR_SHAPE_MISMATCH, shape_mismatch},
    {"partial alias", BICL_ERR_ALIASING, partial_alias},
    {"in place across dtypes", BICL_ERR_ALIASING, in_place_other_dtype},
    {"NULL queue", BICL_ERR_INVALID_HANDLE, null_queue},
    {"n_wait without list", BICL_ERR_INVALID_WAIT_LIST, wait_count_without_list},
    {"list without n_wait", BICL_ERR_INVALID_WAIT_LIST, list_without_count},
    {"NULL event in list", BICL_ERR_INVALID_WAIT_LIST, null_event_in_list},
    {"queue of another context", BICL_ERR_CONTEXT_MISMATCH, queue_of_other_context},
    {"buffer of another context", BICL_ERR_CONTEXT_MISMATCH, buffer_of_other_context},
    {"event of another context", BICL_ERR_CONTEXT_MISMATCH, event_of_other_context},
    {"read-only output", BICL_ERR_INVALID_HANDLE, read_only_output},
    {"sub-buffer alias", BICL_ERR_ALIASING, sub_buffer_alias},
};

static void every_bad_call_has_its_status_and_writes_nothing(void **state)
{
    test_env *env = *state;
    cl_device_id dev = bicl_context_device(env->ctx);
    cl_int err;
    other_ctx = clCreateContext(NULL, 1, &dev, NULL, NULL, &err);
    other_queue = clCreateCommandQueue(other_ctx, dev, 0, &err);
    other_mem = clCreateBuffer(other_ctx, CL_MEM_READ_WRITE, 4096, NULL, &err);
    other_event = clCreateUserEvent(other_ctx, &err);
    clSetUserEventStatus(other_event, CL_COMPLETE);
    read_only_mem =
        clCreateBuffer(bicl_context_cl_context(env->ctx), CL_MEM_READ_ONLY, 4096, NULL, &err);
    for (size_t i = 0; i < sizeof bad_cases / sizeof bad_cases[0]; ++i) {
        bad_call_fixture f;
        fixture_new(env, &f);
        cl_buffer_region region = {CANARY_BYTES, 128}; /* 16-byte aligned? 256 is */
        sub_mem = clCreateSubBuffer(f.y.mem, CL_MEM_READ_WRITE, CL_BUFFER_CREATE_TYPE_REGION,
                                    &region, &err);
        assert_int_equal(err, CL_SUCCESS);
        bicl_tensor x = f.tx, y = f.ty;
        cl_uint nw = 0;
        const cl_event *w = NULL;
        cl_command_queue q = env->queue;
        bad_cases[i].mutate(env, &f, &x, &y, &nw, &w, &q);
        bicl_status st = bicl_cast(env->ctx, q, &x, &y, nw, w, NULL);
        if (st != bad_cases[i].want)
            fail_msg("%s: got %s, want %s (%s)", bad_cases[i].name, bicl_status_string(st),
                     bicl_status_string(bad_cases[i].want), bicl_last_error(NULL));
        assert_true(strlen(bicl_last_error(NULL)) > 0);
        clReleaseMemObject(sub_mem);
        fixture_check_and_free(env, &f);
    }
    assert_int_equal(bicl_cast(NULL, env->queue, NULL, NULL, 0, NULL, NULL), BICL_ERR_NULL_POINTER);
    bicl_tensor t = {0};
    assert_int_equal(bicl_cast(env->ctx, env->queue, NULL, &t, 0, NULL, NULL),
                     BICL_ERR_NULL_POINTER);
    clReleaseMemObject(read_only_mem);
    clReleaseEvent(other_event);
    clReleaseMemObject(other_mem);
    clReleaseCommandQueue(other_queue);
    clReleaseContext(other_ctx);
}

/* Disjoint views in one buffer are not aliasing: x on even elements, y on odd ones
 * (as q and k heads inside one fused qkv buffer). */
static void disjoint_interleaved_views_are_allowed(void **state)
{
    test_env *env = *state;
    uint32_t xb[64];
    test_fill_f32_bits(xb, 64, 9);
    test_buf b = test_buf_new(env, 4, 64, xb);
    bicl_tensor x = {b.mem, b.lead, BICL_F32, 2, {4, 8, 0, 0}, {16, 2, 0, 0}};
    bicl_tensor y = x;
    y.offset += 1;
    assert_int_equal(bicl_cast(env->ctx, env->queue, &x, &y, 0, NULL, NULL), BICL_SUCCESS);
    uint32_t out[64];
    test_buf_read(env, &b, out);
    for (int r = 0; r < 4; ++r)
        for (int c = 0; c < 8; ++c)
            assert_int_equal(out[r * 16 + c * 2 + 1], xb[r * 16 + c * 2]);
    /* the same with y shifted onto x's elements is aliasing */
    y.offset += 1;
    assert_int_equal(bicl_cast(env->ctx, env->queue, &x, &y, 0, NULL, NULL), BICL_ERR_ALIASING);
    test_buf_free(&b);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(every_unsafe_option_is_refused),
        cmocka_unit_test(unknown_and_allowed_options),
        cmocka_unit_test(option_setters_check_types_and_keys),
        cmocka_unit_test(allowed_options_change_fingerprint_not_bits),
        cmocka_unit_test(every_status_has_its_own_string),
        cmocka_unit_test(suitability_names_each_missing_capability),
        cmocka_unit_test(the_self_test_ran_and_the_fingerprint_says_so),
        cmocka_unit_test(a_host_flushing_denormals_is_named),
        cmocka_unit_test(unsafe_math_fails_the_self_test),
        cmocka_unit_test(device_selection_and_creation_errors),
        cmocka_unit_test(build_failure_carries_the_log),
        cmocka_unit_test(every_program_source_starts_with_the_pragma),
        cmocka_unit_test(variants_are_validated),
        cmocka_unit_test(every_profile_gives_the_same_bits),
        cmocka_unit_test(every_bad_call_has_its_status_and_writes_nothing),
        cmocka_unit_test(disjoint_interleaved_views_are_allowed),
    };
    return cmocka_run_group_tests_name("core", tests, test_env_setup, test_env_teardown);
}
