/* test_cache.c - the persistent program cache: round trip, corrupt, truncated,
 * zero-length, foreign and driver-refused entries are rejected and rebuilt, an
 * unusable or read-only directory only costs the write, the environment variable and
 * the off switch, and 4 processes filling one empty cache at once. */
#include "common.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static char cache_root[256];
static int dir_counter;

static void new_cache_dir(char *out, size_t n)
{
    snprintf(out, n, "%s/d%d", cache_root, dir_counter++);
}

static int cache_setup(void **state)
{
    snprintf(cache_root, sizeof cache_root, "/tmp/bicl-cache-test-XXXXXX");
    if (!mkdtemp(cache_root))
        return -1;
    return test_env_setup(state);
}

static int cache_teardown(void **state)
{
    char cmd[512];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", cache_root);
    if (system(cmd) != 0)
        fprintf(stderr, "could not remove %s\n", cache_root);
    return test_env_teardown(state);
}

static bicl_context *context_with_cache(test_env *env, const char *dir)
{
    bicl_options *o = NULL;
    assert_int_equal(bicl_options_create(&o), BICL_SUCCESS);
    assert_int_equal(bicl_options_set_string(o, BICL_OPTION_CACHE_DIR, dir), BICL_SUCCESS);
    bicl_context *c = NULL;
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &c),
                     BICL_SUCCESS);
    bicl_options_free(o);
    return c;
}

/* Runs a cast f32 -> bf16 on ctx and checks it against the host reference. */
static void cast_works(test_env *env, bicl_context *ctx)
{
    const size_t n = 1000;
    uint32_t x[1000];
    uint16_t y[1000], ref[1000];
    test_fill_f32_bits(x, n, 77);
    test_buf bx = test_buf_new(env, 4, n, x), by = test_buf_new(env, 2, n, NULL);
    size_t shape[1] = {n};
    bicl_tensor tx = test_view(&bx, BICL_F32, 0, 1, shape);
    bicl_tensor ty = test_view(&by, BICL_BF16, 0, 1, shape);
    assert_int_equal(bicl_cast(ctx, env->queue, &tx, &ty, 0, NULL, NULL), BICL_SUCCESS);
    test_buf_read(env, &by, y);
    assert_int_equal(bicl_ref_cast(BICL_F32, x, BICL_BF16, ref, n), BICL_SUCCESS);
    test_assert_bits_equal(y, ref, n, 2, "cast through the cache");
    test_buf_free(&bx);
    test_buf_free(&by);
}

static bicl_cache_stats run_once(test_env *env, const char *dir)
{
    bicl_context *c = context_with_cache(env, dir);
    cast_works(env, c);
    bicl_cache_stats s;
    assert_int_equal(bicl_context_cache_stats(c, &s), BICL_SUCCESS);
    bicl_context_free(c);
    return s;
}

/* The disk-cache key of a program on c, with c's complete build options (as
 * program.c composes it). */
static void cache_key(bicl_context *c, bicl_family family, const char *text, size_t size, char *key,
                      size_t n)
{
    char options[768];
    bicl_build_options(c, options, sizeof options);
    bicl_program_cache_key(c, family, options, text, size, key, n);
}

/* The one entry file of the cast program in dir. */
static void entry_path(test_env *env, const char *dir, char *path, size_t n)
{
    bicl_context *c = context_with_cache(env, dir);
    char *text = NULL;
    size_t size = 0;
    assert_int_equal(bicl_program_source(c, BICL_FAMILY_CAST, "CAST_PAIR(f32, bf16)", &text, &size),
                     BICL_SUCCESS);
    char key[4096];
    cache_key(c, BICL_FAMILY_CAST, text, size, key, sizeof key);
    bicl_cache_path(dir, key, path, n);
    free(text);
    bicl_context_free(c);
}

static long file_size(const char *path)
{
    struct stat st;
    return stat(path, &st) == 0 ? (long)st.st_size : -1;
}

/* The device self-test's program goes through the disk cache too (its compile
 * dominated a warm start), under the exact build's key, and is not counted among the
 * context's op programs. */
static void the_self_test_program_is_cached(void **state)
{
    test_env *env = *state;
    char dir[300];
    new_cache_dir(dir, sizeof dir);
    bicl_context *c = context_with_cache(env, dir);
    c->fingerprint_hash ^= 0x5bd1e9955bd1e995ull; /* a verdict not yet known: it runs again */
    c->info.caps = c->caps_advertised;
    assert_int_equal(bicl_context_selftest(c), BICL_SUCCESS);
    char *text = NULL;
    size_t size = 0;
    assert_int_equal(bicl_program_source(c, BICL_FAMILY_SELFTEST, NULL, &text, &size),
                     BICL_SUCCESS);
    char key[4096], other[4096];
    cache_key(c, BICL_FAMILY_SELFTEST, text, size, key, sizeof key);
    /* The key holds the complete build options: another build's binary is never reused
     * (test_core's unsafe-option runs change only these). */
    char saved[sizeof c->opts.build_options];
    memcpy(saved, c->opts.build_options, sizeof saved);
    snprintf(c->opts.build_options, sizeof c->opts.build_options, "-cl-fast-relaxed-math");
    cache_key(c, BICL_FAMILY_SELFTEST, text, size, other, sizeof other);
    memcpy(c->opts.build_options, saved, sizeof saved);
    assert_string_not_equal(key, other);
    free(text);
    unsigned char *bin = NULL;
    size_t bin_size = 0;
    assert_int_equal(bicl_cache_load(dir, key, &bin, &bin_size), 1);
    assert_true(bin_size > 0);
    free(bin);
    bicl_cache_stats s;
    assert_int_equal(bicl_context_cache_stats(c, &s), BICL_SUCCESS);
    assert_int_equal(s.programs_built + s.disk_hits + s.disk_writes, 0);
    bicl_context_free(c);
}

static void round_trip_then_hit(void **state)
{
    test_env *env = *state;
    char dir[300];
    new_cache_dir(dir, sizeof dir);
    bicl_cache_stats s = run_once(env, dir);
    assert_int_equal(s.programs_built, 1);
    assert_int_equal(s.disk_writes, 1);
    assert_int_equal(s.disk_hits, 0);
    s = run_once(env, dir);
    assert_int_equal(s.programs_built, 0);
    assert_int_equal(s.disk_hits, 1);
    assert_int_equal(s.disk_rejected, 0);
}

typedef void (*damage_fn)(const char *path);

static void flip_byte_in_binary(const char *path)
{
    FILE *f = fopen(path, "r+b");
    assert_non_null(f);
    long at = file_size(path) - 17;
    fseek(f, at, SEEK_SET);
    int c = fgetc(f);
    fseek(f, at, SEEK_SET);
    fputc(c ^ 0x5a, f);
    fclose(f);
}

static void truncate_half(const char *path)
{
    assert_int_equal(truncate(path, file_size(path) / 2), 0);
}

static void truncate_zero(const char *path)
{
    assert_int_equal(truncate(path, 0), 0);
}

/* A well-formed entry written for another key (another driver, another version). */
static void replace_with_foreign(const char *path)
{
    char dir[300];
    snprintf(dir, sizeof dir, "%s", path);
    *strrchr(dir, '/') = '\0';
    const unsigned char junk[64] = {1, 2, 3};
    const char *other = "bicl=0.0.1 device='someone else'\nfamily=cast\nprogram=0\n";
    assert_int_equal(bicl_cache_store(dir, other, junk, sizeof junk), 0);
    char other_path[600];
    bicl_cache_path(dir, other, other_path, sizeof other_path);
    assert_int_equal(rename(other_path, path), 0);
}

static void damaged_entries_are_rejected_and_rebuilt(void **state)
{
    test_env *env = *state;
    const damage_fn damages[] = {flip_byte_in_binary, truncate_half, truncate_zero,
                                 replace_with_foreign};
    const char *names[] = {"corrupted", "truncated", "zero-length", "foreign"};
    for (size_t i = 0; i < sizeof damages / sizeof damages[0]; ++i) {
        char dir[300], path[600];
        new_cache_dir(dir, sizeof dir);
        run_once(env, dir);
        entry_path(env, dir, path, sizeof path);
        assert_true(file_size(path) > 0);
        damages[i](path);
        bicl_cache_stats s = run_once(env, dir);
        if (s.disk_rejected != 1 || s.programs_built != 1 || s.disk_hits != 0)
            fail_msg("%s entry: rejected %lu built %lu hits %lu", names[i], s.disk_rejected,
                     s.programs_built, s.disk_hits);
        assert_int_equal(s.disk_writes, 1); /* rewritten */
        s = run_once(env, dir);
        assert_int_equal(s.disk_hits, 1);
    }
}

/* An entry whose framing and checksum are right but whose binary the driver refuses:
 * never trusted, rebuilt from source. */
static void driver_refused_binary_is_rebuilt(void **state)
{
    test_env *env = *state;
    char dir[300], path[600];
    new_cache_dir(dir, sizeof dir);
    run_once(env, dir);
    entry_path(env, dir, path, sizeof path);
    bicl_context *c = context_with_cache(env, dir);
    char *text = NULL;
    size_t size = 0;
    assert_int_equal(bicl_program_source(c, BICL_FAMILY_CAST, "CAST_PAIR(f32, bf16)", &text, &size),
                     BICL_SUCCESS);
    char key[4096];
    cache_key(c, BICL_FAMILY_CAST, text, size, key, sizeof key);
    free(text);
    bicl_context_free(c);
    unsigned char garbage[4096];
    for (size_t i = 0; i < sizeof garbage; ++i)
        garbage[i] = (unsigned char)(i * 7 + 3);
    assert_int_equal(bicl_cache_store(dir, key, garbage, sizeof garbage), 0);
    bicl_cache_stats s = run_once(env, dir);
    assert_int_equal(s.disk_rejected, 1);
    assert_int_equal(s.programs_built, 1);
}

static void key_mismatch_is_a_miss_or_reject(void **state)
{
    (void)state;
    char dir[300];
    new_cache_dir(dir, sizeof dir);
    const unsigned char bin[8] = {9, 9, 9};
    assert_int_equal(bicl_cache_store(dir, "key-a", bin, sizeof bin), 0);
    unsigned char *out = NULL;
    size_t n = 0;
    assert_int_equal(bicl_cache_load(dir, "key-a", &out, &n), 1);
    assert_int_equal(n, sizeof bin);
    assert_memory_equal(out, bin, n);
    free(out);
    assert_int_equal(bicl_cache_load(dir, "key-b", &out, &n), 0);
}

static void unusable_directory_costs_only_the_write(void **state)
{
    test_env *env = *state;
    char file[300], dir[400];
    new_cache_dir(file, sizeof file);
    FILE *f = fopen(file, "w"); /* a file where a directory should be */
    assert_non_null(f);
    fclose(f);
    snprintf(dir, sizeof dir, "%s/cache", file);
    bicl_cache_stats s = run_once(env, dir);
    assert_int_equal(s.programs_built, 1);
    assert_int_equal(s.disk_write_fail, 1);
    /* a missing directory with an existing parent is created */
    new_cache_dir(dir, sizeof dir);
    s = run_once(env, dir);
    assert_int_equal(s.disk_writes, 1);
}

/* True when a file can be created in dir (root can, whatever the mode bits say). */
static bool writable(const char *dir)
{
    char probe[400];
    snprintf(probe, sizeof probe, "%s/probe", dir);
    FILE *f = fopen(probe, "w");
    if (!f)
        return false;
    fclose(f);
    unlink(probe);
    return true;
}

/* A read-only cache directory: results stay right, only the writes fail. /proc/self is
 * an existing directory in which nobody, root included, can create a file, so this
 * runs as root too (CI). A chmod 0555 directory that already holds entries is tried
 * as well where the mode bits bind (not as root): its entries still load. */
static void read_only_directory_costs_only_the_write(void **state)
{
    test_env *env = *state;
    if (!writable("/proc/self")) {
        bicl_cache_stats s = run_once(env, "/proc/self");
        assert_int_equal(s.programs_built, 1);
        assert_int_equal(s.disk_hits + s.disk_rejected + s.disk_writes, 0);
        assert_int_equal(s.disk_write_fail, 1);
    }
    char dir[300], path[600];
    new_cache_dir(dir, sizeof dir);
    run_once(env, dir); /* one valid entry */
    entry_path(env, dir, path, sizeof path);
    assert_int_equal(chmod(dir, 0555), 0);
    if (writable(dir)) {
        printf("chmod 0555 does not stop this user (root): that case is skipped\n");
    } else {
        bicl_cache_stats s = run_once(env, dir);
        assert_int_equal(s.disk_hits, 1); /* read-only still serves its entries */
        assert_int_equal(s.programs_built, 0);
        assert_int_equal(chmod(dir, 0755), 0);
        truncate_half(path); /* damaged, and cannot be replaced */
        assert_int_equal(chmod(dir, 0555), 0);
        s = run_once(env, dir);
        assert_int_equal(s.disk_rejected, 1);
        assert_int_equal(s.programs_built, 1);
        assert_int_equal(s.disk_write_fail, 1);
    }
    assert_int_equal(chmod(dir, 0755), 0); /* so that teardown can remove it */
}

static void environment_variable_and_off_switch(void **state)
{
    test_env *env = *state;
    char dir[300];
    new_cache_dir(dir, sizeof dir);
    setenv("BICL_CACHE_DIR", dir, 1);
    bicl_context *c = NULL;
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), NULL, &c),
                     BICL_SUCCESS);
    cast_works(env, c);
    bicl_cache_stats s;
    bicl_context_cache_stats(c, &s);
    assert_int_equal(s.disk_writes, 1);
    bicl_context_free(c);

    bicl_options *o = NULL;
    bicl_options_create(&o);
    bicl_options_set_int(o, BICL_OPTION_DISK_CACHE, 0);
    assert_int_equal(bicl_context_create(bicl_context_cl_context(env->ctx),
                                         bicl_context_device(env->ctx), o, &c),
                     BICL_SUCCESS);
    cast_works(env, c);
    bicl_context_cache_stats(c, &s);
    assert_int_equal(s.disk_hits + s.disk_writes + s.disk_rejected, 0);
    bicl_context_free(c);
    bicl_options_free(o);
    unsetenv("BICL_CACHE_DIR");
}

/* Child mode (a fresh process: OpenCL state does not survive fork): cast through the
 * cache in dir and compare with the reference. Exit status 0 on success. */
static int child_main(const char *dir)
{
    bicl_options *o = NULL;
    bicl_options_create(&o);
    bicl_options_set_string(o, BICL_OPTION_CACHE_DIR, dir);
    bicl_context *c = NULL;
    if (bicl_context_create_default(test_device_spec(), o, &c) != BICL_SUCCESS)
        return 1;
    cl_int err;
    cl_command_queue q =
        clCreateCommandQueue(bicl_context_cl_context(c), bicl_context_device(c), 0, &err);
    enum { n = 512 };
    uint32_t x[n];
    uint16_t y[n], ref[n];
    test_fill_f32_bits(x, n, 5);
    cl_mem bx = clCreateBuffer(bicl_context_cl_context(c), CL_MEM_COPY_HOST_PTR, n * 4, x, &err);
    cl_mem by = clCreateBuffer(bicl_context_cl_context(c), CL_MEM_READ_WRITE, n * 2, NULL, &err);
    size_t shape[1] = {n};
    bicl_tensor tx = bicl_tensor_contiguous(bx, BICL_F32, 0, 1, shape);
    bicl_tensor ty = bicl_tensor_contiguous(by, BICL_BF16, 0, 1, shape);
    int bad = bicl_cast(c, q, &tx, &ty, 0, NULL, NULL) != BICL_SUCCESS;
    bad |= clEnqueueReadBuffer(q, by, CL_TRUE, 0, n * 2, y, 0, NULL, NULL) != CL_SUCCESS;
    bicl_ref_cast(BICL_F32, x, BICL_BF16, ref, n);
    bad |= memcmp(y, ref, sizeof y) != 0;
    clReleaseMemObject(bx);
    clReleaseMemObject(by);
    clReleaseCommandQueue(q);
    bicl_context_free(c);
    bicl_options_free(o);
    return bad;
}

/* 4 processes fill one empty cache at once: each gets correct results, and the entry
 * left behind is valid. */
static void four_processes_fill_one_cache(void **state)
{
    test_env *env = *state;
    char dir[300];
    new_cache_dir(dir, sizeof dir);
    fflush(NULL);
    pid_t kids[4];
    for (int i = 0; i < 4; ++i) {
        kids[i] = fork();
        assert_true(kids[i] >= 0);
        if (kids[i] == 0) {
            execl("/proc/self/exe", "test_cache", "--child", dir, (char *)NULL);
            _exit(127);
        }
    }
    for (int i = 0; i < 4; ++i) {
        int status = 0;
        assert_int_equal(waitpid(kids[i], &status, 0), kids[i]);
        assert_true(WIFEXITED(status));
        assert_int_equal(WEXITSTATUS(status), 0);
    }
    bicl_cache_stats s = run_once(env, dir);
    assert_int_equal(s.disk_hits, 1);
    assert_int_equal(s.disk_rejected, 0);
}

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--child") == 0)
        return child_main(argv[2]);
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(round_trip_then_hit),
        cmocka_unit_test(the_self_test_program_is_cached),
        cmocka_unit_test(damaged_entries_are_rejected_and_rebuilt),
        cmocka_unit_test(driver_refused_binary_is_rebuilt),
        cmocka_unit_test(key_mismatch_is_a_miss_or_reject),
        cmocka_unit_test(unusable_directory_costs_only_the_write),
        cmocka_unit_test(read_only_directory_costs_only_the_write),
        cmocka_unit_test(environment_variable_and_off_switch),
        cmocka_unit_test(four_processes_fill_one_cache),
    };
    return cmocka_run_group_tests_name("cache", tests, cache_setup, cache_teardown);
}
