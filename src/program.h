/* program.h - layer 4: programs built with the fixed options, the
 * memory and disk caches of them, and the kernel pools (program.c). */
#ifndef BICL_SRC_PROGRAM_H
#define BICL_SRC_PROGRAM_H

#include "sources.h"

#include <stdbool.h>

/* A program is one family's source plus one instance line (e.g.
 * "UNARY_PAIR(silu, bf16, bf16)") that instantiates the kernels of one op and dtype
 * combination. Small programs keep the first use of an op fast: PoCL compiles a whole
 * program when a kernel of it first runs (108 s for the 567-kernel unary family, cold). */
#define BICL_INSTANCE_MAX 96
typedef struct bicl_program_entry {
    bicl_family family;
    char instance[BICL_INSTANCE_MAX];
    cl_program program;
    struct bicl_program_entry *next;
} bicl_program_entry;

/* A checked-out kernel: set its arguments, enqueue, then give it back. The pool
 * keeps kernel objects per name; one is never shared by two threads at once, because
 * clSetKernelArg on a shared cl_kernel is not thread-safe. A kernel object keeps its
 * argument values between enqueues (OpenCL's rule), so each remembers the scalar
 * values last set (launch.c's bicl_arg_scalar skips setting an equal one again: the
 * host overhead per call, docs/performance.md). Buffers are always set: a released
 * cl_mem's handle can come back as a new buffer's, and a driver may have resolved
 * the old one's address when it was set. */
#define BICL_ARG_CACHE_MAX   40
#define BICL_ARG_CACHE_BYTES 16
typedef struct bicl_kernel {
    cl_kernel k;
    struct bicl_kernel_pool *pool;
    unsigned char arg_size[BICL_ARG_CACHE_MAX]; /* 0: argument i's value unknown */
    unsigned char arg[BICL_ARG_CACHE_MAX][BICL_ARG_CACHE_BYTES];
} bicl_kernel;
bicl_status bicl_kernel_acquire(bicl_context *ctx, bicl_family family, const char *instance,
                                const char *name, bicl_kernel **out);
/* A pooled kernel of this name into *out, when one rests in its pool (true); builds
 * nothing: a caller whose instance text is costly to write asks this first. */
bool bicl_kernel_take(bicl_context *ctx, const char *name, bicl_kernel **out);
void bicl_kernel_release(bicl_context *ctx, bicl_kernel *k);
/* CL_KERNEL_WORK_GROUP_SIZE of k on the context's device (asked once per kernel name),
 * 0 when the query fails. */
size_t bicl_kernel_wg_max(bicl_context *ctx, bicl_kernel *k);
void bicl_kernel_pools_free(bicl_context *ctx);
/* Kernel objects in existence and those resting in the pools. When no op is running
 * the two are equal, or a kernel leaked (tests/test_concurrency.c). */
void bicl_kernel_counts(bicl_context *ctx, size_t *live, size_t *pooled);
/* The program of a family instance, built on first use (memory cache, disk cache,
 * source). instance NULL: the whole family (every kernel; tests and tools). */
bicl_status bicl_program_get(bicl_context *ctx, bicl_family family, const char *instance,
                             cl_program *out);
void bicl_programs_free(bicl_context *ctx);
/* Builds source text with the context's options; BICL_ERR_BUILD_FAILED carries the
 * build log in the detail. */
bicl_status bicl_program_compile(bicl_context *ctx, const char *what, const char *text, size_t size,
                                 cl_program *out);
/* The program of `family` for source `text`: loaded from the disk cache where it holds
 * one for this fingerprint, build options and source, else compiled and stored there;
 * the counts go to *stats (the context's for op programs). */
bicl_status bicl_program_build(bicl_context *ctx, bicl_family family, const char *text, size_t size,
                               bicl_cache_stats *stats, cl_program *out);
/* The exact text given to clCreateProgramWithSource for a family instance on this
 * context (instance NULL: the whole family). */
bicl_status bicl_program_source(const bicl_context *ctx, bicl_family family, const char *instance,
                                char **text, size_t *size);
const char *bicl_family_name(bicl_family family);
/* Complete build options for this context (fixed + allowed extras). */
void bicl_build_options(const bicl_context *ctx, char *out, size_t n);
/* Key text of the disk-cache entry of a program: the fingerprint, the family, the
 * complete build options `options` (bicl_build_options: a binary is reused only for
 * the exact build it came from) and the hash of the source (the instance line is part
 * of it). */
void bicl_program_cache_key(const bicl_context *ctx, bicl_family family, const char *options,
                            const char *source, size_t source_size, char *key, size_t n);

#endif
