/* bicl.h - batch-invariant OpenCL pointwise and RoPE kernels.
 *
 * The one public header. Sections, stable API first:
 *   1. versions, statuses, dtypes
 *   2. options and context (device selection, suitability, fingerprint)
 *   3. tensor views
 *   4. kernel variants (for tests and tuning; never change bits)
 *   5. ops: cast (RoPE and position ids in bicl/rope.h, pointwise ops in
 *      bicl/pointwise.h; both included at the end of this file)
 *   6. host reference
 *
 * The contract (docs/contract.md): the bits of every output element depend only on
 * the bits of the inputs it is defined from and on the op's parameters (I), equal the
 * host reference built from the same math source on every suitable device (R), and
 * are within the published ulp bound of the exact result (A).
 *
 * Threading (docs/api.md): a bicl_context may be used from many threads at once; every
 * op call is thread-safe. bicl_options objects are not: fill one from one thread.
 * Ownership: the engine owns its cl_context, devices, queues, buffers and events; bicl
 * retains the cl_context and device for the life of a bicl_context and releases them
 * in bicl_context_free. Ops enqueue on the engine's queue after its wait list and
 * never block the host.
 */
#ifndef BICL_BICL_H
#define BICL_BICL_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* BICL_API marks the exported functions: the library is built with hidden visibility,
 * so these are the only symbols libbicl.so exports (all named bicl_*). */
#if defined(BICL_STATIC_DEFINE)
#define BICL_API
#elif defined(__GNUC__)
#define BICL_API __attribute__((visibility("default")))
#else
#define BICL_API
#endif

/* ================================================================= 1. basics */

/* The version of this header; bicl_version_number() gives the library's. A program
 * can compare the two at start-up to catch a mismatched libbicl.so. */
#define BICL_VERSION_MAJOR 0
#define BICL_VERSION_MINOR 1
#define BICL_VERSION_PATCH 0
#define BICL_VERSION_NUMBER                                                                        \
    (BICL_VERSION_MAJOR * 10000 + BICL_VERSION_MINOR * 100 + BICL_VERSION_PATCH)
#define BICL_VERSION_STRING "0.1.0"

/* The version of the library actually linked (BICL_VERSION_NUMBER form). */
BICL_API unsigned bicl_version_number(void);
/* The version of the library actually linked, "MAJOR.MINOR.PATCH". */
BICL_API const char *bicl_version_string(void);

/* Result of every call. 0 is success; every other value names one failure. The
 * detail (which argument, the build log, the OpenCL error code) is in
 * bicl_last_error(). A call that returns an error enqueued nothing and wrote nothing. */
typedef enum bicl_status {
    BICL_SUCCESS = 0,
    /* A required pointer argument (context, tensor, out pointer...) is NULL. */
    BICL_ERR_NULL_POINTER = 1,
    /* An OpenCL handle (cl_mem, queue, event) is NULL or OpenCL rejects it. */
    BICL_ERR_INVALID_HANDLE = 2,
    /* A queue, buffer or event belongs to another cl_context or device. */
    BICL_ERR_CONTEXT_MISMATCH = 3,
    /* n_wait > 0 with a NULL list, or n_wait == 0 with a non-NULL list. */
    BICL_ERR_INVALID_WAIT_LIST = 4,
    /* A tensor's rank is not 1..4, or not the rank the op needs. */
    BICL_ERR_INVALID_RANK = 5,
    /* A tensor has an extent of zero. */
    BICL_ERR_ZERO_EXTENT = 6,
    /* Element count, byte size or the last element's address overflows size_t. */
    BICL_ERR_EXTENT_OVERFLOW = 7,
    /* A stride is negative, or zero where the op does not allow broadcasting. */
    BICL_ERR_INVALID_STRIDE = 8,
    /* An output view maps two indices onto one element. */
    BICL_ERR_OVERLAPPING_VIEW = 9,
    /* A view reaches beyond its buffer's CL_MEM_SIZE. */
    BICL_ERR_OUT_OF_BOUNDS = 10,
    /* The dtype is not one the op accepts for that operand. */
    BICL_ERR_UNSUPPORTED_DTYPE = 11,
    /* Shapes of the operands do not agree (or cannot broadcast). */
    BICL_ERR_SHAPE_MISMATCH = 12,
    /* An output overlaps an input or another output in a way the op forbids. */
    BICL_ERR_ALIASING = 13,
    /* A scalar parameter is out of range, NaN or infinite where that makes no sense. */
    BICL_ERR_INVALID_PARAMETER = 14,
    /* A configuration (RoPE config, model config text) is invalid. */
    BICL_ERR_INVALID_CONFIG = 15,
    /* A build option that can change numerics was asked for; it is refused. */
    BICL_ERR_UNSAFE_OPTION = 16,
    /* A build option that is not on the allow list was asked for. */
    BICL_ERR_UNKNOWN_OPTION = 17,
    /* No OpenCL device matches the device spec. */
    BICL_ERR_DEVICE_NOT_FOUND = 18,
    /* The device lacks a capability the contract needs (named in the detail). */
    BICL_ERR_DEVICE_UNSUITABLE = 19,
    /* The OpenCL compiler rejected a kernel source; the build log is in the detail. */
    BICL_ERR_BUILD_FAILED = 20,
    /* A host allocation failed. */
    BICL_ERR_OUT_OF_HOST_MEMORY = 21,
    /* OpenCL could not allocate device memory (CL_MEM_OBJECT_ALLOCATION_FAILURE). */
    BICL_ERR_OUT_OF_DEVICE_MEMORY = 22,
    /* OpenCL reported CL_OUT_OF_RESOURCES. */
    BICL_ERR_OUT_OF_RESOURCES = 23,
    /* Another OpenCL error; its code and the call are in the detail. */
    BICL_ERR_OPENCL = 24,
    /* A position read on the device was outside the valid range (see bicl_rope). */
    BICL_ERR_POSITION_OUT_OF_RANGE = 25,
    /* The feature needs a device capability this device lacks (e.g. fp64). */
    BICL_ERR_UNSUPPORTED = 26,
    /* An unknown option key or enum value was passed. */
    BICL_ERR_INVALID_ENUM = 27,
    /* A device spec matches several devices (listed in the detail): add ":N" or use an
     * index from bicl-info. */
    BICL_ERR_DEVICE_AMBIGUOUS = 28,
    BICL_STATUS_COUNT_ = 29
} bicl_status;

/* A short constant English name for a status ("BICL_ERR_OUT_OF_BOUNDS: ..."). Never NULL. */
BICL_API const char *bicl_status_string(bicl_status status);

/* Storage element types. Compute is always in f32. */
typedef enum bicl_dtype {
    BICL_F32 = 0,  /* IEEE binary32 */
    BICL_F16 = 1,  /* IEEE binary16, stored as 16 bits (no cl_khr_fp16 needed) */
    BICL_BF16 = 2, /* bfloat16: the top 16 bits of a binary32 */
    BICL_I32 = 3,  /* int32: positions, lengths */
    BICL_U8 = 4,   /* uint8: boolean masks (0 = false, anything else = true) */
    BICL_DTYPE_COUNT_ = 5
} bicl_dtype;

/* Size in bytes of one element, 0 for an unknown dtype. */
BICL_API size_t bicl_dtype_size(bicl_dtype dtype);
/* "f32", "f16", "bf16", "i32", "u8", or "?" for an unknown dtype. */
BICL_API const char *bicl_dtype_name(bicl_dtype dtype);

/* ======================================================= 2. options, context */

/* One device of an engine's cl_context with bicl's state for it: programs (built on
 * first use), kernel pools, the variant in use and the fingerprint. Opaque. May be used
 * from many threads at once. */
typedef struct bicl_context bicl_context;
/* Settings for bicl_context_create, set through bicl_options_set_* (so that keys can be
 * added without changing the ABI). Opaque. Not thread-safe: fill it from one thread;
 * a context copies it at creation. */
typedef struct bicl_options bicl_options;

/* Keys for bicl_options_set_*. New keys are added at the end; old ones never change. */
typedef enum bicl_option {
    /* string: extra OpenCL build options. Only the allow list is accepted:
     * -w, -Werror, -cl-kernel-arg-info, -cl-opt-disable, -g. Options that can change
     * numerics (-cl-fast-relaxed-math, -cl-mad-enable, -cl-unsafe-math-optimizations,
     * -cl-finite-math-only, -cl-denorms-are-zero, -cl-no-signed-zeros,
     * -cl-single-precision-constant, -cl-std=..., -D, -U, -I) give
     * BICL_ERR_UNSAFE_OPTION; anything else BICL_ERR_UNKNOWN_OPTION. */
    BICL_OPTION_BUILD_OPTIONS = 1,
    /* string: directory of the persistent program cache. NULL or "" means: use the
     * environment variable BICL_CACHE_DIR; if that is unset too, no disk cache. */
    BICL_OPTION_CACHE_DIR = 2,
    /* int: 1 (default) uses the disk cache when a directory is known, 0 never does. */
    BICL_OPTION_DISK_CACHE = 3,
    /* string: platform profile that picks default kernel variants: "auto" (default,
     * by vendor), "generic", "pocl", "nvidia", "amd". Never changes bits. */
    BICL_OPTION_PROFILE = 4,
    /* string: lookup tables for activations on 16-bit inputs. "auto" (default): the
     * activations without a parameter (silu, sigmoid, tanh, gelu, gelu_tanh,
     * gelu_quick of bicl_unary; swiglu, geglu, geglu_tanh of bicl_glu) with an f16 or
     * bf16 input (gate) read their result from a table of all 65536 inputs instead of
     * computing it, which makes them memory-bound; every table holds all 65536 results.
     * "full": the same, whatever a later default. "compact": a table of 16-bit results
     * of bicl_unary holds a directory of 512 blocks of 128 inputs and only the blocks that
     * follow no rule (a constant result, or the input's bits plus a constant): 5.5-10 KiB
     * instead of 128 for bf16 -> bf16 tables but mish's (sizes in docs/api.md), one more dependent
     * load per element. "off": always compute. NULL or "": the environment variable BICL_ACT_TABLES
     * (the same words; any other value, or none, means "auto"). Never changes bits: the tables are
     * computed on the host from the same math source (bicl_ref_unary, bicl_ref_glu). A table is
     * built on the first op that needs it (a few ms of host time, then 128 or 256 KiB of device
     * memory for the life of the context), so that first op's latency includes it; a failure to
     * allocate it is that op's status (BICL_ERR_OUT_OF_DEVICE_MEMORY, BICL_ERR_OUT_OF_HOST_MEMORY).
     * Any other value: BICL_ERR_INVALID_PARAMETER. */
    BICL_OPTION_ACT_TABLES = 5,
    /* int: 1 (default) builds bicl_rope_apply's kernel once per layout (the style,
     * rotary_dim, the pass-through counts, the head counts, in place or not, inverse
     * and the source; and whether a unit rotates every head of its token and whether
     * the positions hold one batch row), with those values as constants, which the
     * compiler folds: on the H200 llama's bf16 RoPE went from 0.77 to 0.87 of copy
     * (docs/performance.md). A layout costs one program build per combination of the
     * last two facts it meets (four at most) on its first apply (then the memory and
     * disk caches). 0: one kernel for every layout, the values passed as arguments.
     * MLA's de-interleaving style takes the latter in the units form (it ran 3 %
     * slower specialised on the H200), the former in the rows form (2.4x faster on
     * PoCL). Never changes bits. Anything but 0 or 1:
     * BICL_ERR_INVALID_PARAMETER. */
    BICL_OPTION_ROPE_SPECIALISE = 6,
    /* string: how bicl_rope_apply maps its work to work-items. "units": a work-item
     * moves groups of pairs of one or more heads (vector loads of the variant's width;
     * the form tuned on the H200). "rows": a 2-d launch, one pair of one head per
     * work-item, the only form PoCL vectorises (docs/performance.md); for the table
     * source (the inline source, a call with no heads or no tokens, and rows wider than
     * a work-group run the units form). "auto": the profile's choice, "rows" for PoCL
     * and "units" elsewhere. NULL or "" (default): the environment variable
     * BICL_ROPE_FORM ("units" or "rows"; any other value, or none, means "auto"). A
     * forced variant (bicl_context_set_variant) applies to the units form only. Never
     * changes bits. Any other value: BICL_ERR_INVALID_PARAMETER. */
    BICL_OPTION_ROPE_FORM = 7
} bicl_option;

/* Creates an options object holding the defaults. */
BICL_API bicl_status bicl_options_create(bicl_options **out);
/* Frees an options object (NULL is fine). */
BICL_API void bicl_options_free(bicl_options *opts);
/* Sets a string-valued option (copied). Build options are checked here, so an unsafe
 * option is refused at once with BICL_ERR_UNSAFE_OPTION / BICL_ERR_UNKNOWN_OPTION. */
BICL_API bicl_status bicl_options_set_string(bicl_options *opts, bicl_option key,
                                             const char *value);
/* Sets an integer-valued option. */
BICL_API bicl_status bicl_options_set_int(bicl_options *opts, bicl_option key, long value);
/* Checks an extra build option string against the allow list without an options
 * object; returns BICL_SUCCESS, BICL_ERR_UNSAFE_OPTION or BICL_ERR_UNKNOWN_OPTION. */
BICL_API bicl_status bicl_check_build_options(const char *extra_options);

/* Creates a context over an engine-owned cl_context and one of its devices. Checks
 * the device's suitability: what it advertises, then a self-test of what bicl's math
 * relies on, run once per process and fingerprint (BICL_ERR_DEVICE_UNSUITABLE names what
 * is missing or the operation that failed). Programs are built lazily, on the first op
 * of each family. opts may be NULL. */
BICL_API bicl_status bicl_context_create(cl_context cl_ctx, cl_device_id device,
                                         const bicl_options *opts, bicl_context **out);

/* Creates a context, its own cl_context included, for the device chosen by spec:
 *   NULL or ""            the environment variable BICL_DEVICE, else the first
 *                         suitable device of any platform
 *   "3"                   the fourth device in bicl-info's list
 *   "pocl", "nvidia:1"    the device (the second...) whose platform name or version,
 *                         vendor or device name contains the text (case-insensitive)
 * BICL_ERR_DEVICE_NOT_FOUND when nothing matches, BICL_ERR_DEVICE_AMBIGUOUS when the text
 * matches several devices and no ":N" says which. */
BICL_API bicl_status bicl_context_create_default(const char *device_spec, const bicl_options *opts,
                                                 bicl_context **out);

/* Frees the context: its programs, kernels and activation tables, and its references to
 * the cl_context and device. The engine must have finished the ops it enqueued (e.g. clFinish). */
BICL_API void bicl_context_free(bicl_context *ctx);

/* The OpenCL objects of a context (not retained for the caller). */
BICL_API cl_context bicl_context_cl_context(const bicl_context *ctx);
BICL_API cl_device_id bicl_context_device(const bicl_context *ctx);
/* 1 if the device has usable fp64 (RoPE computed inline needs it), else 0. */
BICL_API int bicl_context_has_fp64(const bicl_context *ctx);

/* The numerics fingerprint: library version, hash of the kernel sources, build
 * options, platform, device, vendor, driver version and capability bits, as one line.
 * Two contexts with equal fingerprints compute the same bits. Engines log it and
 * compare it across nodes. Valid for the life of the context. */
BICL_API const char *bicl_fingerprint(const bicl_context *ctx);
/* 64-bit FNV-1a hash of the fingerprint string. */
BICL_API uint64_t bicl_fingerprint_hash(const bicl_context *ctx);

/* The detail of the last failing bicl call made by the calling thread (any context,
 * or none): which argument, the build log, the OpenCL error. "" when there was none.
 * Valid until the thread's next bicl call. ctx may be NULL and is only documentary. */
BICL_API const char *bicl_last_error(const bicl_context *ctx);

/* All devices of all platforms, in the order bicl-info lists them and device specs
 * count them. Writes up to max handles (devices may be NULL to count); *count gets
 * the total. */
BICL_API bicl_status bicl_device_list(cl_device_id *devices, size_t max, size_t *count);

/* Suitability of a device without an engine's context (one is made for the
 * self-test): BICL_SUCCESS or BICL_ERR_DEVICE_UNSUITABLE, with the verdict ("suitable
 * (fp64), self-tested", what the self-test proved) or the reason written to why. */
BICL_API bicl_status bicl_device_check(cl_device_id device, char *why, size_t why_size);

/* Disk cache counters of a context, for tools and tests. */
typedef struct bicl_cache_stats {
    unsigned long programs_built;  /* built from source */
    unsigned long disk_hits;       /* loaded from a valid disk entry */
    unsigned long disk_rejected;   /* entries found corrupt, truncated or foreign */
    unsigned long disk_writes;     /* entries written */
    unsigned long disk_write_fail; /* entries that could not be written */
} bicl_cache_stats;
/* Copies the context's counters to *out. */
BICL_API bicl_status bicl_context_cache_stats(const bicl_context *ctx, bicl_cache_stats *out);

/* ============================================================ 3. tensor views */

#define BICL_MAX_RANK 4

/* A view of an engine's buffer: offset and strides count elements of dtype, not
 * bytes. Row-major convention: stride[rank-1] is the innermost. Strides must be
 * >= 0; 0 broadcasts (inputs only, where the op says so). */
typedef struct bicl_tensor {
    cl_mem mem;
    size_t offset;
    bicl_dtype dtype;
    int rank;
    size_t shape[BICL_MAX_RANK];
    ptrdiff_t stride[BICL_MAX_RANK];
} bicl_tensor;

/* A contiguous row-major view of rank 1..4 (extra shape entries ignored). */
BICL_API bicl_tensor bicl_tensor_contiguous(cl_mem mem, bicl_dtype dtype, size_t offset, int rank,
                                            const size_t *shape);

/* ====================================================== 4. kernel variants */

/* How a kernel is launched: vector width of loads and stores (1, 4 or 8), vectors
 * per work-item (1..64) and work-group size (a power of two up to the device's limit,
 * or 0: the driver's choice for a 1-d launch whose size is a multiple of 64, bicl's
 * (512) otherwise; a group wider than a launch is halved while half covers it, not
 * below 64). On PoCL a 1-d launch's group is never halved, and 0 means 512, or 4096 for
 * a launch of at least 4 such groups per compute unit: PoCL compiles a kernel again for
 * every group size it meets. Variants change speed, never bits: tests run them all. */
typedef struct bicl_variant {
    unsigned vector_width;
    unsigned items_per_thread;
    size_t work_group_size;
} bicl_variant;

/* Forces a variant for every later op of this context, from every thread (an op
 * already running keeps the variant it started with; NULL restores the profile's
 * choice). Views whose offsets are not multiples of the vector width, and strided
 * views, run with vector width 1 (RoPE tries width 4 before 1).
 * BICL_ERR_INVALID_PARAMETER for values out of range. */
BICL_API bicl_status bicl_context_set_variant(bicl_context *ctx, const bicl_variant *variant);
/* The variant ops of this context use now for launches whose floating-point inputs
 * are all 32-bit. A profile may choose another variant for launches with a 16-bit input
 * (docs/performance.md: platform profiles); a forced variant applies to all. */
BICL_API bicl_status bicl_context_get_variant(const bicl_context *ctx, bicl_variant *out);
/* Name of the profile in use ("pocl", "nvidia", "amd", "generic"). */
BICL_API const char *bicl_context_profile(const bicl_context *ctx);

/* ====================================================================== 5. ops */

/* Every op: enqueues on `queue` (of the context's cl_context and device) after the
 * n_wait events in `wait`, and if `done` is not NULL returns an event the caller must
 * release. Never blocks. On any error nothing is enqueued and nothing is written. */

/* y = x converted to y's dtype, for every pair of f32, f16, bf16. Shapes must be
 * equal; strides are free (x may broadcast with stride 0; y must not overlap itself).
 * x and y may be the same view when the dtypes are equal (then it is a no-op copy);
 * any other overlap is BICL_ERR_ALIASING. Same dtype: the bits are copied. Widening:
 * exact. Narrowing: round to nearest even, overflow to inf, NaN stays NaN (quiet,
 * sign and top payload bits kept). */
BICL_API bicl_status bicl_cast(bicl_context *ctx, cl_command_queue queue, const bicl_tensor *x,
                               const bicl_tensor *y, cl_uint n_wait, const cl_event *wait,
                               cl_event *done);

/* ========================================================= 6. host reference */

/* The host reference, compiled from the same math source as the kernels. Arrays are
 * contiguous host memory of n elements. */
BICL_API bicl_status bicl_ref_cast(bicl_dtype x_dtype, const void *x, bicl_dtype y_dtype, void *y,
                                   size_t n);

/* Scalar conversions of the shared math source (docs/numerics.md). */
BICL_API float bicl_ref_f16_to_f32(uint16_t h);
BICL_API uint16_t bicl_ref_f32_to_f16(float x);
BICL_API float bicl_ref_bf16_to_f32(uint16_t h);
BICL_API uint16_t bicl_ref_f32_to_bf16(float x);

#ifdef __cplusplus
}
#endif

#include "bicl/pointwise.h"
#include "bicl/rope.h"
#include "bicl/mrope.h"

#endif /* BICL_BICL_H */
