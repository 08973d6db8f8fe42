/* harness.h - the ground-truth harness: runs one op on every layout of the standard
 * workload (../shared/models.json) and checks the three relations of docs/contract.md:
 *
 *   I  every layout gives the bits of the canonical B=1 layout, token by token
 *   R  the device gives the bits of the host reference (bicl_ref_*)
 *   A  the host reference is within the op's ulp limit of a correctly rounded
 *      MPFR oracle
 *
 * An op enters the harness as an adapter (harness_op): how to run it on a batch of
 * rows through the public API, and how to compute one logical token on the host. The
 * harness owns everything else: the inputs of each logical token (deterministic from
 * a seed, so a token has the same inputs in every layout), junk in padding rows and
 * around every view, offsets, kernel variants, restoring logical order and comparing
 * with memcmp semantics. bicl-check and the tests share it; it needs no CMocka. */
#ifndef BICL_HARNESS_H
#define BICL_HARNESS_H

#include "internal.h"
#include "models.h"

#include <mpfr.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#define HARNESS_MAX_OPERANDS 4
/* Rows of one call: 4 samples padded to 20 is the largest layout. */
#define HARNESS_MAX_ROWS 96
/* Seed of the inputs bicl-check uses, and so of the golden hashes. */
#define HARNESS_SEED 0x6b69636c2d6f6b21ull
/* Precision of the mpfr_t an oracle writes into. */
#define HARNESS_ORACLE_PREC 256

/* ================================================== the standard workload */

/* The workload and the models: models.h. */

/* A logical token: token index `token` of sample `sample`. Positions are zero-based
 * per sample, so a token's position is its index; a decode step after p tokens is
 * token p. In physical rows, padding has sample -1. */
typedef struct harness_token {
    int32_t sample;
    int32_t token;
} harness_token;

/* ============================================================ adapters */

/* One operand of an op: `features` elements of `dtype` per row (per token). A shared
 * operand (a bias, a per-feature scale) is one row for the whole batch. */
typedef struct harness_operand {
    const char *name;
    bicl_dtype dtype;
    size_t features;
    bool shared;
} harness_operand;

/* Where an operand lives on the device: row r, element e is element
 * offset + r * row_stride + e of mem. */
typedef struct harness_buffer {
    cl_mem mem;
    size_t offset;
    size_t row_stride;
} harness_buffer;

/* One op call, as an engine would make it: a batch of physical rows. */
typedef struct harness_call {
    bicl_context *ctx;
    cl_command_queue queue;
    size_t rows;                 /* physical rows (tokens and padding) */
    size_t batch, seq;           /* rows == batch * seq: [B, S]; packed is 1 x T */
    const harness_token *tokens; /* per row; sample -1 on padding */
    const int32_t *positions;    /* per row; 0 on padding */
    const uint8_t *valid;        /* per row; 1 token, 0 padding */
    cl_mem positions_mem;        /* int32[rows] on the device, offset 0 */
    cl_mem valid_mem;            /* uint8[rows] on the device, offset 0 */
    harness_buffer in[HARNESS_MAX_OPERANDS];
    harness_buffer out[HARNESS_MAX_OPERANDS]; /* prefilled with junk */
    void *state;                              /* from the adapter's setup */
} harness_call;

typedef struct harness_op harness_op;

/* Flags of an adapter. */
enum {
    /* The op needs contiguous rows: skip the layout with a row pitch. */
    HARNESS_OP_CONTIGUOUS_ROWS = 1u << 0,
    /* A configuration that runs the same kernel template as a sibling without this flag
     * (another dtype or parameter of the same op family): every layout and the offset
     * cases run with one fixed variant (vw1 ipt1 wg64) instead of the profile's, and
     * the other variants on the packed layout only in a full run, not at all with
     * --quick. Keeps bicl-check within its time budget (kernel builds dominate it). */
    HARNESS_OP_FEW_VARIANTS = 1u << 1,
    /* The op needs fp64 on the device (RoPE with inline cos/sin): on a device without
     * it, I and R are "not applicable" (A still runs on the host). */
    HARNESS_OP_NEEDS_FP64 = 1u << 2,
    /* A RoPE configuration outside its model's half fraction: of the eight (angle mode x
     * cos/sin source x storage dtype), those whose three levels and the model's ordinal
     * in its family have an odd sum. bicl-check --rope-half leaves them out: every model
     * keeps each level of each factor twice, and two consecutive models run all eight.
     * Never set on a configuration that runs every variant. */
    HARNESS_OP_OFF_HALF = 1u << 3,
};

/* How to run one op with fixed dtypes and parameters. To add an op, fill one of these
 * in harness_ops.c and add it to the registry there. */
struct harness_op {
    const char *name;  /* the op, one word: "cast", "silu", "rope" */
    const char *dtype; /* dtype label, one word: "f32->f16", "bf16" */
    int n_in, n_out;
    harness_operand in[HARNESS_MAX_OPERANDS];
    harness_operand out[HARNESS_MAX_OPERANDS];
    unsigned flags;
    /* Largest position the op accepts (0: no limit). Tokens beyond it (decode and
     * long-context steps) are left out of every layout. */
    int32_t max_position;
    const void *params; /* op-specific: dtypes, scalars, a RoPE config */

    /* Enqueues the op on call->queue through the public API (the harness waits for
     * the queue). Any status but BICL_SUCCESS fails the layout. */
    bicl_status (*run)(const harness_op *op, const harness_call *call);

    /* The expected output of one logical token at `position`, from the public
     * bicl_ref_* functions: in[i] holds in[i].features elements, out[j] receives
     * out[j].features elements (host memory, contiguous). */
    bicl_status (*reference)(const harness_op *op, void *state, int32_t position,
                             const void *const *in, void *const *out);

    /* A: the exact value of output `out_index`, element `element`, written into
     * `exact` (precision HARNESS_ORACLE_PREC; NaN allowed). Returns 0, or -1 when the
     * element is not measured (the oracle cannot say). NULL: A is not measured. */
    int (*oracle)(const harness_op *op, void *state, int32_t position, const void *const *in,
                  int out_index, size_t element, mpfr_ptr exact);
    /* Largest ulp error the reference may have against the oracle, in steps of the
     * output format from the correctly rounded value (0: correctly rounded). */
    unsigned ulp_limit;

    /* Optional: inputs of operand `operand` of the token at `position`, n elements,
     * deterministic in seed. NULL: harness_fill_default. */
    void (*fill)(const harness_op *op, int operand, int32_t position, void *out, size_t n,
                 uint64_t seed);

    /* Optional: state that run, reference and oracle share (a RoPE plan), made once per
     * op and harness run, freed by teardown. ctx is NULL where no device is open
     * (bicl-check --golden without a device); setup may then fail. */
    bicl_status (*setup)(const harness_op *op, bicl_context *ctx, void **state);
    void (*teardown)(const harness_op *op, void *state);
};

/* The registry (harness_ops.c). */
size_t harness_op_count(void);
/* Registers the RoPE adapters of one more configuration (a model's config.json, for
 * bicl-check --hf-config): exact/hf x table/inline x bf16/f32, 4 q + 2 k heads. Returns
 * the registry index of the first one; they run up to harness_op_count(). */
size_t harness_add_rope_config(const char *name, const bicl_rope_config *cfg);
const harness_op *harness_op_at(size_t i);

/* A rank-2 view [rows, features] of operand `index` (an input, or an output when
 * `output`); a shared operand is [1, features]. What most adapters pass to bicl. */
bicl_tensor harness_view(const harness_op *op, const harness_call *call, bool output, int index);

/* The inputs of operand `operand` of token t under seed, as every layout gets them
 * (in[operand].features elements). */
void harness_token_input(const harness_op *op, uint64_t seed, harness_token t, int operand,
                         void *out);

/* The Latin square of the three float dtypes (indices f32 0, f16 1, bf16 2) that the
 * checks which run a few dtype pairs take (bicl-check --dtype-square, test_rope's
 * every-model check): row r keeps the pairs (in a, out b) with (a + b + r) % 3 == 0, every
 * input and every output dtype once; any three consecutive rows hold all nine pairs. */
bool harness_on_dtype_square(int a, int b, size_t r);

/* Random bit patterns of dtype with every special class (zeros, infs, NaNs with
 * payloads, denormals, rounding edges): what inputs are made of by default. */
void harness_fill_default(bicl_dtype dtype, void *out, size_t n, uint64_t seed);

/* ============================================================ results */

typedef struct harness_mismatch {
    char layout[80]; /* the case */
    harness_token at;
    int operand; /* output index */
    size_t element;
    unsigned bytes;
    uint64_t got, want; /* bit patterns */
} harness_mismatch;

typedef struct harness_result {
    const harness_op *op; /* NULL for a golden entry of an op this build lacks */
    char op_name[32];
    char dtype[32];
    char relation; /* 'I', 'R' or 'A' */
    char case_name[80];
    bool pass;
    bool measured;              /* false: nothing could be compared (A without an oracle) */
    bool not_applicable;        /* the device lacks what the op needs (fp64): passes, n/a */
    size_t compared;            /* elements */
    size_t mismatches;          /* elements */
    unsigned long long max_ulp; /* A only */
    bool has_first;
    harness_mismatch first; /* the first mismatch in logical order */
    char detail[512];
} harness_result;

typedef struct harness_report {
    harness_result *r;
    size_t n, cap;
} harness_report;

void harness_report_init(harness_report *rep);
void harness_report_free(harness_report *rep);
/* A new result (failing until judged) for op, or for the names when op is NULL. */
harness_result *harness_report_add(harness_report *rep, const harness_op *op, char relation,
                                   const char *case_name);
bool harness_report_passed(const harness_report *rep);
/* The first result of (op name, relation, case prefix), or NULL: for tests. */
const harness_result *harness_report_find(const harness_report *rep, const char *op_name,
                                          char relation, const char *case_prefix);
/* The verdict table: one line per op x dtype x relation. */
void harness_report_print_table(const harness_report *rep, FILE *f);
/* One line per failing case, with its first mismatch. */
void harness_report_print_failures(const harness_report *rep, FILE *f);
/* {"device", "fingerprint", "passed", "results": [{"op", "dtype", "relation", "case",
 * "pass", "detail"}]}. Returns 0, or -1 on a write error. */
int harness_report_write_json(const harness_report *rep, const char *device,
                              const char *fingerprint, FILE *f);
/* s as a JSON string literal, quotes included. */
void harness_json_string(FILE *f, const char *s);

/* ============================================================ golden */

typedef struct harness_golden_entry {
    char op[32];
    char dtype[32];
    char case_name[16]; /* "prefill", "decode", "long" */
    uint64_t hash;
} harness_golden_entry;

typedef struct harness_golden {
    harness_golden_entry *e;
    size_t n, cap;
} harness_golden;

void harness_golden_init(harness_golden *g);
void harness_golden_free(harness_golden *g);
/* Adds or replaces the entry of (op, dtype, case). */
void harness_golden_put(harness_golden *g, const char *op, const char *dtype, const char *case_name,
                        uint64_t hash);
const harness_golden_entry *harness_golden_get(const harness_golden *g, const char *op,
                                               const char *dtype, const char *case_name);
/* Text: '#' comments, then one "op dtype case hash" line per entry. Return 0, or -1
 * with the reason in err. */
int harness_golden_read(const char *path, harness_golden *g, char *err, size_t err_size);
int harness_golden_write(const char *path, const harness_golden *g, char *err, size_t err_size);
/* The hashes of the host reference for op. No device is used; ctx (may be NULL) only
 * goes to the adapter's setup. */
int harness_golden_from_host(const harness_op *op, bicl_context *ctx, uint64_t seed,
                             harness_golden *out);
/* One R result "golden <case>" per entry of `device`: equal to the file's entry,
 * different, or missing from the file (named `file_name` in the detail). */
void harness_golden_verify(const harness_golden *file, const harness_golden *device,
                           const char *file_name, harness_report *rep);

/* ============================================================ running */

typedef struct harness_env {
    bicl_context *ctx;
    cl_command_queue queue;
} harness_env;

typedef struct harness_config {
    bool quick;      /* layouts once, variants and offsets on the packed layout only */
    uint64_t seed;   /* of every input: HARNESS_SEED */
    size_t a_budget; /* output elements measured against the oracle */
    /* Called after each case (may be NULL). */
    void (*progress)(void *user, const harness_op *op, size_t done, size_t total);
    void *progress_user;
} harness_config;

void harness_config_defaults(harness_config *cfg, bool quick);

/* Runs every case of op: R on the canonical layouts, I on all others, A on the host.
 * Results go to rep; the device's golden hashes to `hashes` when not NULL. Returns 0,
 * or -1 when the harness itself failed (allocation, OpenCL), which rep records. */
int harness_check_op(const harness_env *env, const harness_op *op, const harness_config *cfg,
                     harness_report *rep, harness_golden *hashes);
/* A alone (host only; ctx, may be NULL, only goes to the adapter's setup): appends
 * one result. */
void harness_check_accuracy(const harness_op *op, bicl_context *ctx, const harness_config *cfg,
                            harness_report *rep);

/* Names of the layouts, in the order they run; returns their count. */
size_t harness_layout_names(const char *const **names);

/* =========================================================== numerics */
/* (numerics.c: the harness's one rounding to a format and one ulp distance) */

/* The value of a float bit pattern as a double (exact; NaN for NaNs). */
double harness_decode(bicl_dtype dtype, uint64_t bits);
/* Rounds exact to dtype (round to nearest even, subnormals and overflow to inf as
 * IEEE binary16/bfloat16/binary32 do) and returns its bit pattern; NaN gives the
 * default quiet NaN. */
uint64_t harness_round_to_bits(bicl_dtype dtype, mpfr_srcptr exact);
/* Number of representable values of dtype between a and b (0: the same value); -0
 * and +0 are one step apart. UINT64_MAX when exactly one is NaN; 0 when both are. */
uint64_t harness_ulp_distance(bicl_dtype dtype, uint64_t a, uint64_t b);

#endif
