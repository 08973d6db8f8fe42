/* internal.h - what the library's files share and tests may call. Not installed. */
#ifndef BICL_INTERNAL_H
#define BICL_INTERNAL_H

#include "bicl/bicl.h"
#include "ops.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdbool.h>

/* ---------------------------------------------------------------- errors */

/* Records the detail of a failure for bicl_last_error() and returns status, so that
 * `return bicl_fail(BICL_ERR_X, "y is %d", y);` reads as one step. */
bicl_status bicl_fail(bicl_status status, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
#if defined(__clang_analyzer__) && !defined(BICL_STATUS_C)
/* clang-tidy's analyzer cannot see into status.c, so it follows paths on which a
 * failure "returns BICL_SUCCESS" and reports NULL dereferences on them. Spelling the
 * return value out (for the analyzer only) removes those false paths. */
#define bicl_fail(status, ...) (bicl_fail((status), __VA_ARGS__), (status))
#endif
/* Maps an OpenCL error to a status and records which call failed. */
bicl_status bicl_fail_cl(cl_int err, const char *what);
/* Clears the thread's last error at the start of a public call. */
void bicl_clear_error(void);
const char *bicl_cl_error_name(cl_int err);

/* ------------------------------------------------------------------ hash */

#define BICL_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t bicl_fnv1a(uint64_t h, const void *data, size_t n);

/* ------------------------------------------------------- kernel sources */

typedef enum bicl_family {
    BICL_FAMILY_CAST = 0,
    BICL_FAMILY_ROPE = 1,
    BICL_FAMILY_UNARY = 2,
    BICL_FAMILY_GLU = 3,
    BICL_FAMILY_BINARY = 4,
    BICL_FAMILY_MASK = 5,
    BICL_FAMILY_SELFTEST = 6, /* the device self-test (src/selftest.c), not an op */
    BICL_FAMILY_MROPE = 7,    /* M-RoPE and its position builder (src/mrope.c) */
    BICL_FAMILY_COUNT
} bicl_family;

typedef struct bicl_source {
    const char *name; /* family name, e.g. "cast" */
    const char *text; /* the .cl with its cl/ headers expanded */
    size_t size;
} bicl_source;

/* Generated at build time from cl/ (cmake/embed_cl.c). */
extern const bicl_source bicl_sources[];
extern const size_t bicl_source_count;
/* Hash of every embedded source, part of the fingerprint. */
uint64_t bicl_sources_hash(void);
const bicl_source *bicl_source_find(const char *name);

/* ---------------------------------------------------------- build options */

#define BICL_FIXED_BUILD_OPTIONS "-cl-std=CL1.2 -cl-fp32-correctly-rounded-divide-sqrt"

/* ------------------------------------------------------------- profiles */

/* Launch classes by element size, each with its own default variant (the best vector
 * width depends on the element sizes: NVIDIA wants 16-byte accesses of the widest
 * operand, PoCL vectorises 32-bit loads well and 16-bit ones badly):
 *   BICL_VCLASS_32     every floating-point input is 32-bit (the output may be 16-bit)
 *   BICL_VCLASS_MIXED  a 16-bit input and some 32-bit operand (widening casts,
 *                      residual add of a bf16 delta into an f32 stream)
 *   BICL_VCLASS_16     every floating-point operand is 16-bit
 * Masks (u8, i32) do not count. */
typedef enum bicl_vclass { BICL_VCLASS_32, BICL_VCLASS_MIXED, BICL_VCLASS_16 } bicl_vclass;
#define BICL_VCLASS_COUNT 3

/* A vendor's default variant per launch class. */
typedef struct bicl_profile {
    const char *name;
    bicl_variant variants[BICL_VCLASS_COUNT];
} bicl_profile;

const bicl_profile *bicl_profile_by_name(const char *name);
const bicl_profile *bicl_profile_for_device(const char *platform, const char *vendor,
                                            const char *device);
bicl_status bicl_variant_check(const bicl_variant *v, size_t max_work_group);

/* --------------------------------------------------------------- options */

#define BICL_PATH_MAX 4096
struct bicl_options {
    char build_options[512];
    char cache_dir[BICL_PATH_MAX];
    int disk_cache;
    char profile[32];
    int act_tables; /* BICL_ACT_TABLES_*: BICL_OPTION_ACT_TABLES */
};
void bicl_options_defaults(bicl_options *o);
#define BICL_ACT_TABLES_UNSET (-1) /* not set: $BICL_ACT_TABLES, else auto */
#define BICL_ACT_TABLES_OFF   0
#define BICL_ACT_TABLES_AUTO  1
/* "auto", "off" -> AUTO, OFF; NULL or "" -> UNSET; anything else -> -2. */
int bicl_act_tables_parse(const char *value);

/* ------------------------------------------------------------- device */

/* Capability bits, recorded in the fingerprint. */
enum {
    BICL_CAP_CR_DIVIDE_SQRT = 1u << 0,
    BICL_CAP_DENORM = 1u << 1,
    BICL_CAP_INF_NAN = 1u << 2,
    BICL_CAP_ROUND_NEAREST = 1u << 3,
    BICL_CAP_FMA = 1u << 4,
    BICL_CAP_FP64 = 1u << 5,
    BICL_CAP_LITTLE_ENDIAN = 1u << 6,
    BICL_CAP_COMPILER = 1u << 7,
    BICL_CAP_OPENCL_C_12 = 1u << 8,
};

typedef struct bicl_device_info {
    size_t max_work_group;
    cl_ulong mem_base_align_bytes;
    unsigned caps;
    cl_uint compute_units; /* at least 1 */
    char platform_name[256];
    char platform_version[256];
    char vendor[256];
    char device_name[256];
    char driver_version[256];
} bicl_device_info;

/* Capabilities the self-test proves where a device does not advertise them. */
#define BICL_CAPS_PROVABLE (BICL_CAP_CR_DIVIDE_SQRT | BICL_CAP_DENORM)

/* $BICL_HIDE_FP64=1: the device is treated as having no fp64 (tests of the no-fp64
 * path on a device that has it). Read by bicl_device_query. */
bool bicl_fp64_hidden(void);
bicl_status bicl_device_query(cl_device_id dev, bicl_device_info *info);
/* The verdict from what the device advertises: BICL_ERR_DEVICE_UNSUITABLE naming each
 * missing capability that no self-test can prove; BICL_SUCCESS otherwise, and then why
 * names the provable ones the self-test must prove (BICL_CAPS_PROVABLE). */
bicl_status bicl_device_suitability(const bicl_device_info *info, char *why, size_t n);

/* Device specs (bicl_context_create_default): which of the n devices `spec` names.
 * spec is an index, or text (case-insensitive) in the platform name or version, vendor
 * or device name, optionally ":N" for the N-th match (from 0). BICL_ERR_DEVICE_NOT_FOUND
 * when none matches, BICL_ERR_DEVICE_AMBIGUOUS (the matches listed in the detail) when
 * several do and no :N is given. Device-free. */
bicl_status bicl_device_spec_resolve(const char *spec, const bicl_device_info *infos, size_t n,
                                     size_t *chosen);
/* Indexes of the devices the text of a spec matches (":N" and indexes not parsed);
 * returns their count, writes up to max. */
size_t bicl_device_spec_matches(const char *text, const bicl_device_info *infos, size_t n,
                                size_t *idx, size_t max);

/* --------------------------------------------------------------- context */

typedef struct bicl_kernel_pool bicl_kernel_pool;
typedef struct bicl_act_table bicl_act_table;

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

struct bicl_context {
    /* Unique over the process's life: a plan remembers it, so that a new context that
     * reuses a freed one's address is never taken for the plan's own. */
    uint64_t generation;
    cl_context cl_ctx;
    cl_device_id device;
    bicl_device_info info;
    bicl_options opts;
    const bicl_profile *profile;
    char fingerprint[3072];   /* holds every field at its longest: no truncation */
    unsigned caps_advertised; /* info.caps before the self-test (which proves or drops) */
    bool selftested;          /* the self-test passed: part of the fingerprint */
    char selftest_note[512];  /* why fp64 was dropped by the self-test, or "" */
    uint64_t fingerprint_hash;
    char cache_dir[BICL_PATH_MAX]; /* "" when the disk cache is off */

    pthread_mutex_t lock;                     /* guards everything below */
    bicl_variant variants[BICL_VCLASS_COUNT]; /* the profile's, or the forced one in all */
    bicl_program_entry *programs;             /* built programs: (family, instance) -> cl_program */
    bicl_kernel_pool *pools;
    bicl_cache_stats stats;
    size_t kernels_live;                  /* kernel objects in existence: pooled or checked out */
    bool act_tables;                      /* BICL_OPTION_ACT_TABLES resolved: true = auto */
    bicl_act_table *tables;               /* activation lookup tables built so far (pointwise.c) */
    _Atomic unsigned long table_launches; /* ops that ran a table kernel (not lock-guarded) */
};

/* A checked-out kernel: set its arguments, enqueue, then give it back. The pool
 * keeps kernel objects per name; one is never shared by two threads at once, because
 * clSetKernelArg on a shared cl_kernel is not thread-safe. */
bicl_status bicl_kernel_acquire(bicl_context *ctx, bicl_family family, const char *instance,
                                const char *name, cl_kernel *out);
void bicl_kernel_release(bicl_context *ctx, const char *name, cl_kernel k);
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

/* ------------------------------------------------------- activation tables */

/* Activations on 16-bit inputs read their result from a table of all 65536 inputs,
 * built on the host by the reference (BICL_OPTION_ACT_TABLES; src/act_tables.c). */

typedef enum bicl_table_family { BICL_TABLE_UNARY = 0, BICL_TABLE_GLU = 1 } bicl_table_family;

/* A table: which op, the input dtype, and the dtype of its entries. Unary: y's dtype
 * (f32 entries are op(x) in f32; 16-bit entries are op(x) stored in that dtype). GLU:
 * f32 (act(gate) in f32, round_act_to_storage 0) or the gate's dtype (act(gate)
 * rounded to it, round_act_to_storage 1). */
typedef struct bicl_table_key {
    bicl_table_family family;
    int code; /* bicl_unary_op or bicl_glu_act */
    bicl_dtype in, entry;
} bicl_table_key;

/* f16 or bf16: an input a table can index. */
bool bicl_dtype_is16(bicl_dtype d);
/* Launches a table kernel (built on first use): the standard operands, then table k as
 * the one extra argument. */
bicl_status bicl_table_launch(bicl_context *ctx, cl_command_queue queue, bicl_family family,
                              const bicl_table_key *k, const char *instance, const char *base,
                              const bicl_tensor *const *ops, int n_ops, cl_uint n_wait,
                              const cl_event *wait, cl_event *done);
/* Frees the context's tables (bicl_context_free). */
void bicl_tables_free(bicl_context *ctx);
/* Tables built so far and ops that ran a table kernel (tests: the table path is taken
 * exactly when it should be). */
void bicl_table_counts(bicl_context *ctx, size_t *tables, unsigned long *launches);

/* For tests (the vector RoPE kernels run exactly where the views allow them): the
 * vector width, heads per work unit and units per work-item bicl_rope_apply would
 * launch this call with, after the same validation (src/rope.c). */
bicl_status bicl_rope_launch_shape(bicl_context *ctx, const bicl_rope_plan *plan,
                                   bicl_rope_source source, const bicl_tensor *positions,
                                   const bicl_tensor *q_in, const bicl_tensor *q_out,
                                   const bicl_tensor *k_in, const bicl_tensor *k_out,
                                   unsigned *vector_width, unsigned *heads_per_unit,
                                   unsigned *items_per_thread);

/* ------------------------------------------------------------- self-test */

/* Runs the device self-test of ctx (src/selftest.c), or recalls its verdict for the
 * same fingerprint: sets info.caps to what is proven (divide/sqrt and denormals added,
 * fp64 dropped if its part failed), caps_advertised and selftest_note. Returns
 * BICL_ERR_DEVICE_UNSUITABLE naming the first failing operation, or the status of a
 * failed OpenCL call (not remembered). Needs ctx's cl objects, options and base
 * fingerprint. */
bicl_status bicl_context_selftest(bicl_context *ctx);
/* "suitable (fp64), self-tested", with what the self-test proved or dropped. */
void bicl_context_verdict(const bicl_context *ctx, char *out, size_t n);
/* For tests of the judgement without a device: the self-test's cases (4 words each:
 * op, a, b, c; malloc'ed, NULL and 0 on failure), the host's answer to one case, and
 * the verdict on a device's answers `got` for a device advertising `caps` (*caps_out:
 * what bicl_context_selftest would set; why: what it would say). */
size_t bicl_selftest_cases(bool fp64, uint64_t **cases);
uint64_t bicl_selftest_expect(const uint64_t *k);
bicl_status bicl_selftest_judge(const uint64_t *cases, size_t n, const uint64_t *got, unsigned caps,
                                unsigned *caps_out, char *why, size_t why_n);

/* ------------------------------------------------------------ disk cache */

/* Key text of one cache entry: fingerprint, family, source hash (the instance line is
 * part of the source). */
void bicl_cache_key(const bicl_context *ctx, bicl_family family, const char *source,
                    size_t source_size, char *key, size_t n);
/* Reads a valid entry into a malloc'ed binary; 1 hit, 0 miss, -1 rejected. */
int bicl_cache_load(const char *dir, const char *key, unsigned char **bin, size_t *size);
/* Writes an entry through a temp file and rename; 0 on success. */
int bicl_cache_store(const char *dir, const char *key, const unsigned char *bin, size_t size);
/* Path of an entry (for tests that damage it). */
void bicl_cache_path(const char *dir, const char *key, char *path, size_t n);

/* ------------------------------------------------------------ validation */

/* An operand of an elementwise launch, after validation. */
typedef struct bicl_operand {
    const bicl_tensor *t;
    bool output;
    bool broadcast_ok; /* zero strides allowed (inputs) */
} bicl_operand;

/* Checks one view on its own: handle, context, rank, extents, strides, dtype,
 * bounds against CL_MEM_SIZE, self-overlap for outputs. */
bicl_status bicl_tensor_check(const bicl_context *ctx, const bicl_tensor *t, const char *name,
                              bool output, bool broadcast_ok);
/* The device-free part of bicl_tensor_check (everything but the cl_mem): *bytes gets
 * the bytes the view needs from the start of its buffer. Fuzzed (tests/fuzz). */
bicl_status bicl_view_check(const bicl_tensor *t, const char *name, bool output, bool broadcast_ok,
                            size_t *bytes);
/* How two checked views of one base buffer relate; each view's cl_mem starts at byte
 * *_origin of that buffer (a sub-buffer's CL_MEM_OFFSET, else 0). DISJOINT is only
 * answered when no byte is shared (exact for equal strides, otherwise by byte range);
 * IDENTICAL when both map every index to the same bytes. Device-free; fuzzed. */
typedef enum bicl_view_relation {
    BICL_VIEWS_DISJOINT = 0,
    BICL_VIEWS_IDENTICAL = 1,
    BICL_VIEWS_OVERLAP = 2
} bicl_view_relation;
bicl_view_relation bicl_views_relate(const bicl_tensor *a, size_t a_origin, const bicl_tensor *b,
                                     size_t b_origin);
/* Checks a view's dtype against a mask of (1u << dtype); NULL views pass (the full
 * check reports them). */
#define BICL_FLOAT_DTYPES ((1u << BICL_F32) | (1u << BICL_F16) | (1u << BICL_BF16))
bicl_status bicl_dtype_check(const bicl_tensor *t, const char *name, unsigned allowed);
/* Number of elements; the view must already have been checked. */
size_t bicl_tensor_numel(const bicl_tensor *t);
/* Checks that shapes are equal (after aligning ranks: leading dims of size 1). */
bicl_status bicl_shapes_equal(const bicl_tensor *a, const char *an, const bicl_tensor *b,
                              const char *bn);
/* Checks aliasing between an output and another operand: allowed only when identical
 * views of the same element size and `identical_ok` (in place). */
bicl_status bicl_alias_check(const bicl_tensor *out, const char *on, const bicl_tensor *other,
                             const char *oth, bool identical_ok);
bicl_status bicl_queue_check(const bicl_context *ctx, cl_command_queue q, cl_uint n_wait,
                             const cl_event *wait);
/* The alignment in bytes (a power of two, at most the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN)
 * that the host can prove for the device address of the buffer's first byte: the base
 * alignment for the runtime's own allocations, the host pointer's for CL_MEM_USE_HOST_PTR
 * (zero copy: OpenCL promises only element alignment there), and a sub-buffer's origin
 * within its parent's. Vector kernels run only where every operand is aligned so. */
size_t bicl_mem_align(const bicl_context *ctx, cl_mem mem);
/* The causal mask's offset clamped to [-rows, cols - 1], where it means the same
 * (cl/bicl_pointwise_ops.h, bicl_causal_filled); shared by the op and its reference. */
long bicl_mask_causal_offset(long offset, size_t rows, size_t cols);

/* Up to 4 dims after merging dims that are contiguous in every operand. */
#define BICL_MAX_OPERANDS 6
typedef struct bicl_iter {
    int rank;
    size_t shape[BICL_MAX_RANK];
    size_t stride[BICL_MAX_OPERANDS][BICL_MAX_RANK];
    size_t n;
    int n_operands;
    bool flat; /* one dim, stride 1 in every operand */
} bicl_iter;
/* Builds the iteration space of operands of equal shape (all views checked). */
void bicl_iter_build(bicl_iter *it, const bicl_tensor *const *ops, int n_ops);

/* ---------------------------------------------------------------- launch */

/* Sets kernel arguments in order; the first failure is kept in err. */
typedef struct bicl_args {
    cl_kernel k;
    cl_uint index;
    cl_int err;
} bicl_args;
void bicl_arg(bicl_args *a, size_t size, const void *value);
/* A view's buffer and element offset (two arguments). */
void bicl_arg_view(bicl_args *a, const bicl_tensor *t);
/* A view's buffer, element offset and its first n_strides strides (ulong each). */
void bicl_arg_view_strides(bicl_args *a, const bicl_tensor *t, int n_strides);
/* Ends a launch whose arguments are set: enqueues `units` work units (1-d), or reports
 * the first argument that failed, and gives the kernel back to its pool either way. */
bicl_status bicl_args_launch(bicl_context *ctx, cl_command_queue q, const char *name, bicl_args *a,
                             size_t units, size_t wg, cl_uint n_wait, const cl_event *wait,
                             cl_event *done);

/* A view of `in` broadcast to `target`'s shape (numpy rules: ranks aligned at the
 * right, dims of size 1 or missing get stride 0). BICL_ERR_SHAPE_MISMATCH otherwise. */
bicl_status bicl_broadcast_view(const bicl_tensor *in, const char *name, const bicl_tensor *target,
                                bicl_tensor *out);

/* Extra scalar arguments of an op, appended after the standard ones. */
typedef struct bicl_kernel_arg {
    size_t size;
    const void *value;
} bicl_kernel_arg;

/* Launches an elementwise kernel over operands of equal shape, choosing its shape from
 * the merged iteration space: "<base>_flat_v<VW>" (one contiguous dim),
 * "<base>_rows_v<VW>" (2 dims, inner contiguous everywhere) or "<base>_strided".
 * Standard arguments, in order:
 *   flat:    (mem, ulong off) per operand, ulong n, uint items_per_thread, extras...
 *   rows:    (mem, ulong off, ulong row_stride) per operand, ulong cols, uint ipt, extras
 *   strided: (mem, ulong off, ulong4 stride) per operand, ulong4 shape, ulong n,
 *            uint items_per_thread, extras...
 * Operands must be validated by the caller. */
bicl_status bicl_launch_elementwise(bicl_context *ctx, cl_command_queue q, bicl_family family,
                                    const char *instance, const char *base,
                                    const bicl_tensor *const *ops, int n_ops,
                                    const bicl_kernel_arg *extra, int n_extra, cl_uint n_wait,
                                    const cl_event *wait, cl_event *done);

/* The cast kernels over validated views {x, y} (bicl_cast, the identity op). */
bicl_status bicl_launch_cast(bicl_context *ctx, cl_command_queue queue,
                             const bicl_tensor *const *ops, cl_uint n_wait, const cl_event *wait,
                             cl_event *done);

/* Enqueues a prepared kernel with the context's variant geometry for `units` work
 * units (work-items before rounding to the work-group size). */
bicl_status bicl_enqueue(bicl_context *ctx, cl_command_queue q, cl_kernel k, size_t units,
                         size_t wg, cl_uint n_wait, const cl_event *wait, cl_event *done);
bicl_variant bicl_context_variant_snapshot(bicl_context *ctx);
/* The variant for a launch of class c (bicl_vclass_of). */
bicl_variant bicl_context_variant_for(bicl_context *ctx, bicl_vclass c);
/* The class of a launch from the dtypes of its n_in inputs and n_out outputs. */
bicl_vclass bicl_vclass_of(const bicl_dtype *in, int n_in, const bicl_dtype *out, int n_out);
const char *bicl_dtype_tag(bicl_dtype d);

/* ------------------------------------------------------- host reference */

/* Element i of a host array of dtype dt (f32/f16/bf16) as f32, and back. */
float bicl_ref_load(bicl_dtype dt, const void *p, size_t i);
void bicl_ref_store(bicl_dtype dt, void *p, size_t i, float v);
/* y[j] = x[i] converted as bicl_cast does (bits copied for equal dtypes). */
void bicl_ref_copy_elem(bicl_dtype in, const void *x, size_t i, bicl_dtype out, void *y, size_t j);

/* The hf angle mode's float inv_freq[i] of a valid config (transformers' float32
 * arithmetic, src/rope.c): for tests/test_rope_conformance.c. */
bicl_status bicl_rope_hf_inv_freq_f32(const bicl_rope_config *cfg, int i, float *out);

/* ------------------------------------------------- M-RoPE (src/mrope.c) */

/* What bicl_mrope_apply needs of a 1-D plan and of one validated call: src/rope.c
 * validates the q/k views against the token dims of one position row exactly as
 * bicl_rope_apply does, and hands out the plan's buffers. */
typedef struct bicl_rope_use {
    size_t B, S, T, hq, hk;
    bool q_in_place, k_in_place;
    bicl_rope_source source; /* AUTO resolved */
    int limit;               /* the largest valid position of that source */
    int half, pass;          /* rotary_dim / 2, head_dim - rotary_dim */
    bool gptj, hf;
    size_t min_items; /* work-items that keep the device busy */
    cl_mem table, inv, inv_f, err;
    double attn;
    float attn_f;
} bicl_rope_use;
/* bicl_rope_apply's checks of (plan, source, positions row, q, k) and the call's
 * shape; positions_row is a rank 1 or 2 view of one position row. */
bicl_status bicl_rope_check_use(bicl_context *ctx, const bicl_rope_plan *plan,
                                bicl_rope_source source, const bicl_tensor *positions_row,
                                const bicl_tensor *q_in, const bicl_tensor *q_out,
                                const bicl_tensor *k_in, const bicl_tensor *k_out,
                                bicl_rope_use *use);
/* The plan's resolved source and its limit, as bicl_ref_rope_head uses them. */
bicl_status bicl_rope_plan_limit(const bicl_rope_plan *plan, bicl_rope_source *source, int *limit);
/* The plan's pair style and head_dim. */
void bicl_rope_plan_layout(const bicl_rope_plan *plan, bicl_rope_style *style, int *head_dim);

#endif /* BICL_INTERNAL_H */
