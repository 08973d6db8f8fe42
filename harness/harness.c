/* harness.c - the ground-truth harness (see harness.h and docs/contract.md).
 *
 * Sections: the workload's token sets, inputs, the op's data, layouts, running a case,
 * relations I and R, the schedule, relation A (MPFR), the golden hashes of the host
 * reference. The workload and models: models.c; rounding and ulps: numerics.c; results
 * and golden files: harness_report.c; the op adapters: harness_ops.c. */
#include "harness.h"

#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

/* ==================================================== the workload's token sets */

#define W harness_standard_workload

/* The logical tokens fall into sets; each set has a canonical layout (B=1) whose
 * device bits every other layout of the set must reproduce. */
enum { SET_PREFILL, SET_DECODE, SET_LONG, SET_COUNT };
static const char *const set_names[SET_COUNT] = {"prefill", "decode", "long"};

#define MAX_TOKENS 128
/* Elements of junk after every view, so that a write past the end shows. */
#define TAIL_ELEMS 16
/* What input bytes outside the rows of tokens hold: NaN for every float dtype. */
#define INPUT_JUNK 0xff
/* Extra elements between rows in the "pitched" layout. */
#define ROW_PITCH_EXTRA 5

static size_t row_bytes(const harness_operand *o)
{
    return o->features * bicl_dtype_size(o->dtype);
}

/* ==================================================================== inputs */

static uint64_t mix64(uint64_t x)
{
    x += 0x9e3779b97f4a7c15ull;
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
    return x ^ (x >> 31);
}

/* splitmix64: one stream per seed. */
static uint64_t next_rand(uint64_t *state)
{
    *state += 0x9e3779b97f4a7c15ull;
    return mix64(*state);
}

/* The seed of one operand of one token: the same token gets the same inputs in every
 * layout, whatever its row. */
static uint64_t token_seed(uint64_t seed, int operand, harness_token t)
{
    uint64_t key = ((uint64_t)(uint32_t)t.sample << 32) | (uint32_t)t.token;
    return mix64(seed ^ mix64(key ^ mix64((uint64_t)operand + 1)));
}

static const uint32_t special_f32[] = {
    0x00000000u, 0x80000000u, 0x7f800000u, 0xff800000u, /* +-0, +-inf */
    0x7fc00000u, 0xffc00000u, 0x7fc00001u, 0xffd23456u, /* quiet NaNs with payloads */
    0x7f800001u, 0x7fa00000u, 0xff812345u, 0x7f801fffu, /* signalling NaNs */
    0x00000001u, 0x80000001u, 0x007fffffu, 0x00800000u, /* denormals, min normal */
    0x7f7fffffu, 0xff7fffffu, 0x477fe000u, 0x477ff000u, /* FLT_MAX, f16 max and its tie */
    0x33000000u, 0x33000001u, 0x33c00000u, 0x387fe000u, /* f16 denormal ties */
    0x3f801000u, 0x3f803000u, 0x3f808000u, 0x3f818000u, /* f16 and bf16 ties to even */
    0x7f7f8000u, 0x3f800000u, 0xbf800000u, 0x40490fdbu, /* bf16 overflow, ordinary */
};
static const uint16_t special_f16[] = {
    0x0000, 0x8000, 0x7c00, 0xfc00, 0x7e00, 0xfe00, 0x7d01, 0xfe55, /* zeros, infs, NaNs */
    0x0001, 0x8001, 0x03ff, 0x0400, 0x7bff, 0xfbff, 0x3c00, 0xbc00, /* edges, +-1 */
};
static const uint16_t special_bf16[] = {
    0x0000, 0x8000, 0x7f80, 0xff80, 0x7fc0, 0xffc0, 0x7f81, 0xffd5, /* zeros, infs, NaNs */
    0x0001, 0x8001, 0x007f, 0x0080, 0x7f7f, 0xff7f, 0x3f80, 0xbf80, /* edges, +-1 */
};

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static uint32_t random_f32_bits(uint64_t r)
{
    float v;
    uint32_t b;
    switch (r % 4) {
    case 0: /* any bit pattern */
        return (uint32_t)(r >> 32);
    case 1: /* moderate magnitudes, both signs */
        v = (float)((double)(int64_t)(r >> 11) / 9007199254740992.0 * 16.0);
        memcpy(&b, &v, 4);
        return b;
    case 2: /* f16 range, near its rounding boundaries */
        return (0x33000000u + (uint32_t)((r >> 32) % 0x14800000u)) | (uint32_t)(r & 0x80000000u);
    default:
        return special_f32[(r >> 32) % COUNT(special_f32)];
    }
}

static uint16_t random_u16_bits(uint64_t r, const uint16_t *specials, size_t n_specials, bool bf16)
{
    switch (r % 4) {
    case 0:
    case 1: /* any bit pattern */
        return (uint16_t)(r >> 40);
    case 2: { /* moderate magnitudes (2^-8 .. 2^8), both signs */
        unsigned e = (unsigned)((r >> 8) % 17);
        unsigned m = (unsigned)(r >> 32);
        if (bf16)
            return (uint16_t)(((r >> 16) & 1u) << 15 | (119u + e) << 7 | (m & 0x7fu));
        return (uint16_t)(((r >> 16) & 1u) << 15 | (7u + e) << 10 | (m & 0x3ffu));
    }
    default:
        return specials[(r >> 32) % n_specials];
    }
}

bool harness_on_dtype_square(int a, int b, size_t r)
{
    return ((size_t)(a + b) + r) % 3 == 0;
}

void harness_fill_default(bicl_dtype dtype, void *out, size_t n, uint64_t seed)
{
    uint64_t s = seed;
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = next_rand(&s);
        if (dtype == BICL_F32) {
            uint32_t b = random_f32_bits(r);
            memcpy((char *)out + 4 * i, &b, 4);
        } else if (dtype == BICL_F16 || dtype == BICL_BF16) {
            uint16_t b = dtype == BICL_F16
                             ? random_u16_bits(r, special_f16, COUNT(special_f16), false)
                             : random_u16_bits(r, special_bf16, COUNT(special_bf16), true);
            memcpy((char *)out + 2 * i, &b, 2);
        } else if (dtype == BICL_I32) {
            int32_t v = (int32_t)(r % 4096u);
            memcpy((char *)out + 4 * i, &v, 4);
        } else {
            ((uint8_t *)out)[i] = (uint8_t)((r & 1u) ? (r >> 8) : (r >> 8) & 1u);
        }
    }
}

static void fill_operand(const harness_op *op, int i, harness_token t, uint64_t seed, void *out)
{
    const harness_operand *o = &op->in[i];
    harness_token key = o->shared ? (harness_token){-1, -1} : t;
    uint64_t s = token_seed(seed, i, key);
    if (op->fill)
        op->fill(op, i, key.token < 0 ? 0 : key.token, out, o->features, s);
    else
        harness_fill_default(o->dtype, out, o->features, s);
}

void harness_token_input(const harness_op *op, uint64_t seed, harness_token t, int operand,
                         void *out)
{
    fill_operand(op, operand, t, seed, out);
}

/* ============================================================ the op's data */

/* Host side of one op: the logical tokens, their inputs, their reference outputs,
 * and the device bits of the canonical layouts and of the case running now. */
typedef struct op_data {
    const harness_op *op;
    uint64_t seed;
    size_t n_tokens;
    harness_token key[MAX_TOKENS];
    size_t set_n[SET_COUNT];
    size_t set_slot[SET_COUNT][MAX_TOKENS]; /* logical order */
    unsigned char *in[HARNESS_MAX_OPERANDS];
    unsigned char *ref[HARNESS_MAX_OPERANDS];
    unsigned char *canon[HARNESS_MAX_OPERANDS];
    unsigned char *got[HARNESS_MAX_OPERANDS];
    bool has_canon[MAX_TOKENS];
    bool has_got[MAX_TOKENS];
    void *state; /* the adapter's */
    bool has_state;
    char error[256]; /* why op_data_compute failed */
} op_data;

static bool position_allowed(const harness_op *op, int32_t position)
{
    return op->max_position <= 0 || position <= op->max_position;
}

static int find_slot(const op_data *d, harness_token t)
{
    for (size_t k = 0; k < d->n_tokens; ++k)
        if (d->key[k].sample == t.sample && d->key[k].token == t.token)
            return (int)k;
    return -1;
}

static void add_token(op_data *d, int set, int32_t sample, int32_t token)
{
    if (!position_allowed(d->op, token))
        return;
    harness_token t = {sample, token};
    int slot = find_slot(d, t);
    if (slot < 0) {
        slot = (int)d->n_tokens;
        d->key[d->n_tokens++] = t;
    }
    d->set_slot[set][d->set_n[set]++] = (size_t)slot;
}

static void collect_tokens(op_data *d)
{
    for (int s = 0; s < W.n_samples; ++s)
        for (int32_t t = 0; t < W.sample_lengths[s]; ++t)
            add_token(d, SET_PREFILL, s, t);
    for (int s = 0; s < W.n_decode; ++s)
        add_token(d, SET_DECODE, s, W.decode_past_lengths[s]);
    for (int s = 0; s < W.n_long; ++s)
        add_token(d, SET_LONG, s, W.long_context_positions[s]);
}

static const void *token_in(const op_data *d, int i, size_t slot)
{
    const harness_operand *o = &d->op->in[i];
    return d->in[i] + (o->shared ? 0 : slot * row_bytes(o));
}

static unsigned char *token_out(unsigned char *const *arr, const harness_op *op, int j, size_t slot)
{
    return arr[j] + slot * row_bytes(&op->out[j]);
}

static int reference_token(const op_data *d, int32_t position, const void *const *in,
                           void *const *out, char *err, size_t n)
{
    bicl_status st = d->op->reference(d->op, d->state, position, in, out);
    if (st != BICL_SUCCESS) {
        snprintf(err, n, "host reference failed: %s: %s", bicl_status_string(st),
                 bicl_last_error(NULL));
        return -1;
    }
    return 0;
}

static void op_data_free(op_data *d)
{
    if (!d)
        return;
    if (d->has_state && d->op->teardown)
        d->op->teardown(d->op, d->state);
    for (int i = 0; i < HARNESS_MAX_OPERANDS; ++i) {
        free(d->in[i]);
        free(d->ref[i]);
        free(d->canon[i]);
        free(d->got[i]);
    }
    free(d);
}

static int op_data_compute(op_data *d)
{
    const harness_op *op = d->op;
    for (int i = 0; i < op->n_in; ++i) {
        d->in[i] = malloc((op->in[i].shared ? 1 : d->n_tokens) * row_bytes(&op->in[i]));
        if (!d->in[i])
            return -1;
        for (size_t k = 0; k < (op->in[i].shared ? 1 : d->n_tokens); ++k)
            fill_operand(op, i, d->key[k], d->seed, d->in[i] + k * row_bytes(&op->in[i]));
    }
    for (int j = 0; j < op->n_out; ++j) {
        size_t bytes = d->n_tokens * row_bytes(&op->out[j]);
        d->ref[j] = malloc(bytes);
        d->canon[j] = malloc(bytes);
        d->got[j] = malloc(bytes);
        if (!d->ref[j] || !d->canon[j] || !d->got[j])
            return -1;
    }
    for (size_t k = 0; k < d->n_tokens; ++k) {
        const void *in[HARNESS_MAX_OPERANDS];
        void *out[HARNESS_MAX_OPERANDS];
        for (int i = 0; i < op->n_in; ++i)
            in[i] = token_in(d, i, k);
        for (int j = 0; j < op->n_out; ++j)
            out[j] = token_out(d->ref, op, j, k);
        if (reference_token(d, d->key[k].token, in, out, d->error, sizeof d->error) != 0)
            return -1;
    }
    return 0;
}

/* The logical tokens of op, without their data, and the adapter's state; NULL on
 * failure, with the reason in err. */
static op_data *op_data_tokens(const harness_op *op, bicl_context *ctx, uint64_t seed, char *err,
                               size_t n)
{
    op_data *d = calloc(1, sizeof *d);
    snprintf(err, n, "out of host memory");
    if (!d)
        return NULL;
    d->op = op;
    d->seed = seed;
    collect_tokens(d);
    bicl_status st = op->setup ? op->setup(op, ctx, &d->state) : BICL_SUCCESS;
    if (st != BICL_SUCCESS) {
        snprintf(err, n, "the adapter's setup failed: %s: %s", bicl_status_string(st),
                 bicl_last_error(NULL));
        free(d);
        return NULL;
    }
    d->has_state = true;
    return d;
}

/* The tokens, their inputs and reference outputs; NULL on failure, with the reason
 * in err. */
static op_data *op_data_new(const harness_op *op, bicl_context *ctx, uint64_t seed, char *err,
                            size_t n)
{
    op_data *d = op_data_tokens(op, ctx, seed, err, n);
    if (d && op_data_compute(d) != 0) {
        snprintf(err, n, "%s", d->error[0] ? d->error : "out of host memory");
        op_data_free(d);
        return NULL;
    }
    return d;
}

/* =================================================================== layouts */

typedef struct layout_call {
    size_t rows, n_seqs;
    bool padded_shape; /* [n_seqs, rows / n_seqs]; else [1, rows] */
    harness_token tok[HARNESS_MAX_ROWS];
    int slot[HARNESS_MAX_ROWS]; /* -1 on padding */
} layout_call;

#define MAX_CALLS 16
typedef struct layout {
    const char *name;
    int set;
    bool canonical;
    size_t pitch_extra;
    size_t n_calls;
    layout_call call[MAX_CALLS];
} layout;

static const char *const layout_names[] = {
    "b1",      "decode1",  "long1",  "bN",      "chunked", "permuted",
    "padleft", "padright", "packed", "pitched", "decodeN", "longN",
};
enum { N_LAYOUTS = COUNT(layout_names) };

size_t harness_layout_names(const char *const **names)
{
    *names = layout_names;
    return N_LAYOUTS;
}

static layout_call *new_call(layout *L, bool padded_shape)
{
    layout_call *c = &L->call[L->n_calls++];
    memset(c, 0, sizeof *c);
    c->padded_shape = padded_shape;
    return c;
}

static void call_pad(layout_call *c, size_t n)
{
    for (size_t i = 0; i < n; ++i) {
        c->tok[c->rows] = (harness_token){-1, -1};
        c->slot[c->rows++] = -1;
    }
}

/* Appends the tokens first..first+count-1 of a sample (those the op accepts),
 * padded to pad_to rows on the left or the right. */
static void call_seq(layout_call *c, const op_data *d, int32_t sample, int32_t first, int32_t count,
                     size_t pad_to, bool pad_left)
{
    size_t kept = 0;
    for (int32_t t = first; t < first + count; ++t)
        kept += position_allowed(d->op, t);
    if (kept == 0 && pad_to == 0)
        return;
    size_t pads = pad_to > kept ? pad_to - kept : 0;
    if (pad_left)
        call_pad(c, pads);
    for (int32_t t = first; t < first + count; ++t) {
        harness_token tok = {sample, t};
        if (!position_allowed(d->op, t))
            continue;
        c->tok[c->rows] = tok;
        c->slot[c->rows++] = find_slot(d, tok);
    }
    if (!pad_left)
        call_pad(c, pads);
    c->n_seqs++;
}

static int32_t longest_sample(void)
{
    int32_t m = 0;
    for (int s = 0; s < W.n_samples; ++s)
        m = W.sample_lengths[s] > m ? W.sample_lengths[s] : m;
    return m;
}

static void build_padded(layout *L, const op_data *d, const int *order, size_t pad_to,
                         bool pad_left)
{
    layout_call *c = new_call(L, true);
    for (int k = 0; k < W.n_samples; ++k)
        call_seq(c, d, order[k], 0, W.sample_lengths[order[k]], pad_to, pad_left);
}

/* One new token per sample at the given positions: each alone, or all in one call. */
static void build_steps(layout *L, const op_data *d, const int32_t *positions, int n, bool alone)
{
    layout_call *c = new_call(L, true);
    for (int s = 0; s < n; ++s) {
        if (alone && c->rows > 0)
            c = new_call(L, true);
        call_seq(c, d, s, positions[s], 1, 0, false);
    }
}

static void build_layout(layout *L, const op_data *d, size_t which)
{
    static const int identity[4] = {0, 1, 2, 3};
    const char *name = layout_names[which];
    L->name = name;
    L->set = SET_PREFILL;
    L->canonical = which < 3;
    layout_call *c;
    if (strcmp(name, "b1") == 0) {
        for (int s = 0; s < W.n_samples; ++s)
            call_seq(new_call(L, false), d, s, 0, W.sample_lengths[s], 0, false);
    } else if (strcmp(name, "bN") == 0) {
        build_padded(L, d, identity, (size_t)longest_sample(), false);
    } else if (strcmp(name, "chunked") == 0) {
        for (int s = 0; s < W.n_samples; ++s)
            for (int32_t t = 0; t < W.sample_lengths[s]; t += W.chunk_size) {
                int32_t n = W.sample_lengths[s] - t;
                call_seq(new_call(L, false), d, s, t, n < W.chunk_size ? n : W.chunk_size, 0,
                         false);
            }
    } else if (strcmp(name, "permuted") == 0) {
        build_padded(L, d, W.batch_permutation, (size_t)longest_sample(), false);
    } else if (strcmp(name, "padleft") == 0 || strcmp(name, "padright") == 0) {
        build_padded(L, d, identity, (size_t)W.padded_length, strcmp(name, "padleft") == 0);
    } else if (strcmp(name, "packed") == 0 || strcmp(name, "pitched") == 0) {
        c = new_call(L, false);
        for (int s = 0; s < W.n_samples; ++s)
            call_seq(c, d, s, 0, W.sample_lengths[s], 0, false);
        L->pitch_extra = strcmp(name, "pitched") == 0 ? ROW_PITCH_EXTRA : 0;
    } else if (strcmp(name, "decode1") == 0 || strcmp(name, "decodeN") == 0) {
        L->set = SET_DECODE;
        build_steps(L, d, W.decode_past_lengths, W.n_decode, strcmp(name, "decode1") == 0);
    } else { /* long1, longN */
        L->set = SET_LONG;
        build_steps(L, d, W.long_context_positions, W.n_long, strcmp(name, "long1") == 0);
    }
}

/* Drops calls without tokens (all of their tokens beyond max_position). */
static void drop_empty_calls(layout *L)
{
    size_t kept = 0;
    for (size_t i = 0; i < L->n_calls; ++i) {
        bool any = false;
        for (size_t r = 0; r < L->call[i].rows; ++r)
            any |= L->call[i].slot[r] >= 0;
        if (any) {
            if (kept != i)
                L->call[kept] = L->call[i];
            kept++;
        }
    }
    L->n_calls = kept;
}

/* ============================================================ running a case */

/* How the operands of a case sit in their buffers. */
typedef enum offset_mode {
    OFFSET_ZERO,    /* every operand at element 0 */
    OFFSET_ALIGNED, /* every operand at the same multiple of the vector width: the
                       vector kernels run */
    OFFSET_SPREAD,  /* operand k at (base + 3k) % 8: misaligned against each other,
                       the scalar fallback runs */
} offset_mode;

/* One case: a layout, a kernel variant (-1: the profile's) and the offsets. */
typedef struct run_case {
    size_t layout;
    int variant;
    offset_mode mode;
    unsigned base;
} run_case;

#define N_VARIANTS 16
static bicl_variant variant_at(int i)
{
    bicl_variant v = {1u << (i / 4), (i / 2) % 2 ? 3u : 1u, (size_t)(i % 2 ? 64 : 0)};
    return v;
}

/* Element offset (0..7) of operand k: inputs first, then outputs. */
static size_t operand_offset(const run_case *rc, unsigned vector_width, int k)
{
    switch (rc->mode) {
    case OFFSET_ALIGNED:
        return (size_t)(rc->base * vector_width) % 8;
    case OFFSET_SPREAD:
        return (size_t)(rc->base + 3u * (unsigned)k) % 8;
    default:
        return 0;
    }
}

typedef struct geometry {
    size_t rows, offset, row_stride, elems;
} geometry;

static geometry operand_geometry(const harness_operand *o, size_t rows, size_t offset,
                                 size_t pitch_extra)
{
    geometry g;
    g.rows = o->shared ? 1 : rows;
    g.row_stride = o->features + (o->shared ? 0 : pitch_extra);
    g.offset = offset;
    g.elems = offset + g.rows * g.row_stride + TAIL_ELEMS;
    return g;
}

static bool inside_view(const geometry *g, size_t features, size_t e)
{
    if (e < g->offset)
        return false;
    size_t rel = e - g->offset;
    return rel / g->row_stride < g->rows && rel % g->row_stride < features;
}

bicl_tensor harness_view(const harness_op *op, const harness_call *call, bool output, int index)
{
    const harness_operand *o = output ? &op->out[index] : &op->in[index];
    const harness_buffer *b = output ? &call->out[index] : &call->in[index];
    bicl_tensor t;
    memset(&t, 0, sizeof t);
    t.mem = b->mem;
    t.offset = b->offset;
    t.dtype = o->dtype;
    t.rank = 2;
    t.shape[0] = o->shared ? 1 : call->rows;
    t.shape[1] = o->features;
    t.stride[0] = (ptrdiff_t)b->row_stride;
    t.stride[1] = 1;
    return t;
}

/* Device objects of one call, released together. */
typedef struct call_objects {
    cl_mem in[HARNESS_MAX_OPERANDS], out[HARNESS_MAX_OPERANDS], positions, valid;
    int32_t position[HARNESS_MAX_ROWS];
    uint8_t is_valid[HARNESS_MAX_ROWS];
    unsigned char *host; /* staging, as large as the largest buffer */
} call_objects;

static void call_objects_release(call_objects *o)
{
    for (int i = 0; i < HARNESS_MAX_OPERANDS; ++i) {
        if (o->in[i])
            clReleaseMemObject(o->in[i]);
        if (o->out[i])
            clReleaseMemObject(o->out[i]);
    }
    if (o->positions)
        clReleaseMemObject(o->positions);
    if (o->valid)
        clReleaseMemObject(o->valid);
    free(o->host);
}

static cl_mem new_buffer(const harness_env *env, size_t bytes, void *init, char *err, size_t n)
{
    cl_int e = CL_SUCCESS;
    cl_mem m = clCreateBuffer(bicl_context_cl_context(env->ctx),
                              CL_MEM_READ_WRITE | CL_MEM_COPY_HOST_PTR, bytes, init, &e);
    if (e != CL_SUCCESS)
        snprintf(err, n, "clCreateBuffer(%zu bytes): %s", bytes, bicl_cl_error_name(e));
    return e == CL_SUCCESS ? m : NULL;
}

/* Input rows of tokens at their place; padding rows, the offset and the gaps hold
 * junk (NaN). */
static cl_mem upload_input(const harness_env *env, const op_data *d, const layout_call *c, int i,
                           const geometry *g, unsigned char *host, char *err, size_t n)
{
    const harness_operand *o = &d->op->in[i];
    size_t es = bicl_dtype_size(o->dtype);
    memset(host, INPUT_JUNK, g->elems * es);
    for (size_t r = 0; r < g->rows; ++r) {
        if (!o->shared && c->slot[r] < 0)
            continue;
        memcpy(host + (g->offset + r * g->row_stride) * es, token_in(d, i, (size_t)c->slot[r]),
               row_bytes(o));
    }
    return new_buffer(env, g->elems * es, host, err, n);
}

/* Reads an output back, checks that nothing outside its view changed, and keeps the
 * rows of tokens (in d->got, by slot). */
static int collect_output(const harness_env *env, op_data *d, const layout_call *c, int j,
                          const geometry *g, cl_mem mem, unsigned char guard, unsigned char *host,
                          char *err, size_t n)
{
    const harness_operand *o = &d->op->out[j];
    size_t es = bicl_dtype_size(o->dtype);
    cl_int e = clEnqueueReadBuffer(env->queue, mem, CL_TRUE, 0, g->elems * es, host, 0, NULL, NULL);
    if (e != CL_SUCCESS) {
        snprintf(err, n, "clEnqueueReadBuffer: %s", bicl_cl_error_name(e));
        return -1;
    }
    for (size_t el = 0; el < g->elems; ++el) {
        if (inside_view(g, o->features, el))
            continue;
        for (size_t b = 0; b < es; ++b)
            if (host[el * es + b] != guard) {
                snprintf(err, n,
                         "wrote outside its view: output %s element %zu of the buffer "
                         "(view: offset %zu, %zu rows of stride %zu)",
                         o->name, el, g->offset, g->rows, g->row_stride);
                return -1;
            }
    }
    for (size_t r = 0; r < c->rows; ++r) {
        if (c->slot[r] < 0)
            continue;
        memcpy(token_out(d->got, d->op, j, (size_t)c->slot[r]),
               host + (g->offset + r * g->row_stride) * es, row_bytes(o));
        d->has_got[c->slot[r]] = true;
    }
    return 0;
}

static size_t buffer_bytes(const geometry *g, const harness_operand *o)
{
    return g->elems * bicl_dtype_size(o->dtype);
}

static size_t largest_buffer(const harness_op *op, const geometry *gi, const geometry *go)
{
    size_t m = 0;
    for (int i = 0; i < op->n_in; ++i)
        if (buffer_bytes(&gi[i], &op->in[i]) > m)
            m = buffer_bytes(&gi[i], &op->in[i]);
    for (int j = 0; j < op->n_out; ++j)
        if (buffer_bytes(&go[j], &op->out[j]) > m)
            m = buffer_bytes(&go[j], &op->out[j]);
    return m;
}

static void row_info(const layout_call *c, int32_t *pos, uint8_t *valid)
{
    for (size_t r = 0; r < c->rows; ++r) {
        valid[r] = c->slot[r] >= 0;
        pos[r] = valid[r] ? c->tok[r].token : 0;
    }
}

static int upload_call(const harness_env *env, const op_data *d, const layout_call *c,
                       const geometry *gi, const geometry *go, unsigned char guard,
                       call_objects *obj, harness_call *call, char *err, size_t n)
{
    const harness_op *op = d->op;
    for (int i = 0; i < op->n_in; ++i) {
        obj->in[i] = upload_input(env, d, c, i, &gi[i], obj->host, err, n);
        if (!obj->in[i])
            return -1;
        call->in[i] = (harness_buffer){obj->in[i], gi[i].offset, gi[i].row_stride};
    }
    for (int j = 0; j < op->n_out; ++j) {
        memset(obj->host, guard, buffer_bytes(&go[j], &op->out[j]));
        obj->out[j] = new_buffer(env, buffer_bytes(&go[j], &op->out[j]), obj->host, err, n);
        if (!obj->out[j])
            return -1;
        call->out[j] = (harness_buffer){obj->out[j], go[j].offset, go[j].row_stride};
    }
    row_info(c, obj->position, obj->is_valid);
    obj->positions = new_buffer(env, c->rows * sizeof(int32_t), obj->position, err, n);
    obj->valid = obj->positions ? new_buffer(env, c->rows, obj->is_valid, err, n) : NULL;
    call->positions = obj->position;
    call->valid = obj->is_valid;
    call->positions_mem = obj->positions;
    call->valid_mem = obj->valid;
    return obj->valid ? 0 : -1;
}

/* Runs one call of a layout; the token rows land in d->got. */
static int run_call(const harness_env *env, op_data *d, const layout *L, const layout_call *c,
                    const size_t *offsets, unsigned char guard, char *err, size_t n)
{
    const harness_op *op = d->op;
    geometry gi[HARNESS_MAX_OPERANDS], go[HARNESS_MAX_OPERANDS];
    for (int i = 0; i < op->n_in; ++i)
        gi[i] = operand_geometry(&op->in[i], c->rows, offsets[i], L->pitch_extra);
    for (int j = 0; j < op->n_out; ++j)
        go[j] = operand_geometry(&op->out[j], c->rows, offsets[op->n_in + j], L->pitch_extra);
    call_objects obj;
    memset(&obj, 0, sizeof obj);
    obj.host = malloc(largest_buffer(op, gi, go));
    harness_call call;
    memset(&call, 0, sizeof call);
    call.ctx = env->ctx;
    call.queue = env->queue;
    call.rows = c->rows;
    call.batch = c->padded_shape ? c->n_seqs : 1;
    call.seq = c->rows / call.batch;
    call.tokens = c->tok;
    call.state = d->state;
    int rc = -1;
    if (!obj.host) {
        snprintf(err, n, "out of host memory");
    } else if (upload_call(env, d, c, gi, go, guard, &obj, &call, err, n) == 0) {
        bicl_status st = op->run(op, &call);
        cl_int fe = clFinish(env->queue);
        if (st != BICL_SUCCESS)
            snprintf(err, n, "the op failed: %s: %s", bicl_status_string(st),
                     bicl_last_error(NULL));
        else if (fe != CL_SUCCESS)
            snprintf(err, n, "clFinish: %s", bicl_cl_error_name(fe));
        else
            rc = 0;
        for (int j = 0; rc == 0 && j < op->n_out; ++j)
            rc = collect_output(env, d, c, j, &go[j], obj.out[j], guard, obj.host, err, n);
    }
    call_objects_release(&obj);
    return rc;
}

static void variant_name(int variant, char *out, size_t n)
{
    if (variant < 0) {
        snprintf(out, n, "profile");
        return;
    }
    bicl_variant v = variant_at(variant);
    snprintf(out, n, "vw%u ipt%u wg%zu", v.vector_width, v.items_per_thread, v.work_group_size);
}

static void case_name(const harness_op *op, const layout *L, const run_case *rc,
                      const size_t *offsets, char *out, size_t n)
{
    char vn[32], off[64] = "0";
    variant_name(rc->variant, vn, sizeof vn);
    if (rc->mode != OFFSET_ZERO) {
        size_t used = 0;
        for (int k = 0; k < op->n_in + op->n_out; ++k)
            used +=
                (size_t)snprintf(off + used, sizeof off - used, "%s%zu", k ? "," : "", offsets[k]);
    }
    snprintf(out, n, "%s %s off=%s", L->name, vn, off);
}

/* Sets the case's variant and runs every call of the layout. */
static int run_layout(const harness_env *env, op_data *d, const layout *L, const run_case *rc,
                      unsigned char guard, char *name, size_t name_n, char *err, size_t n)
{
    bicl_variant forced = rc->variant >= 0 ? variant_at(rc->variant) : (bicl_variant){0, 0, 0};
    bicl_status st = bicl_context_set_variant(env->ctx, rc->variant >= 0 ? &forced : NULL);
    bicl_variant v = {1, 1, 0};
    bicl_context_get_variant(env->ctx, &v);
    size_t offsets[2 * HARNESS_MAX_OPERANDS];
    for (int k = 0; k < d->op->n_in + d->op->n_out; ++k)
        offsets[k] = operand_offset(rc, v.vector_width, k);
    case_name(d->op, L, rc, offsets, name, name_n);
    memset(d->has_got, 0, sizeof d->has_got);
    if (st != BICL_SUCCESS) {
        snprintf(err, n, "bicl_context_set_variant: %s: %s", bicl_status_string(st),
                 bicl_last_error(NULL));
        return -1;
    }
    for (size_t i = 0; i < L->n_calls; ++i) {
        if (run_call(env, d, L, &L->call[i], offsets, guard, err, n) != 0) {
            char where[48];
            snprintf(where, sizeof where, " (call %zu of %zu)", i + 1, L->n_calls);
            size_t len = strlen(err);
            snprintf(err + len, n - len, "%s", where);
            return -1;
        }
    }
    return 0;
}

/* ==================================================== comparing: I and R */

static uint64_t element_bits(const unsigned char *p, size_t es)
{
    uint64_t v = 0;
    memcpy(&v, p, es); /* little-endian host, as the device (rule 3) */
    return v;
}

static void note_mismatch(harness_result *res, const char *layout_name, harness_token at, int j,
                          size_t e, size_t es, const unsigned char *got, const unsigned char *want)
{
    res->mismatches++;
    if (res->has_first)
        return;
    res->has_first = true;
    harness_mismatch *m = &res->first;
    snprintf(m->layout, sizeof m->layout, "%s", layout_name);
    m->at = at;
    m->operand = j;
    m->element = e;
    m->bytes = (unsigned)es;
    m->got = element_bits(got, es);
    m->want = element_bits(want, es);
}

/* Compares the rows of one token, element by element with memcmp semantics. */
static void compare_token(harness_result *res, const harness_op *op, const char *layout_name,
                          harness_token at, unsigned char *const *got, unsigned char *const *want,
                          size_t slot)
{
    for (int j = 0; j < op->n_out; ++j) {
        size_t es = bicl_dtype_size(op->out[j].dtype);
        const unsigned char *g = token_out(got, op, j, slot);
        const unsigned char *w = token_out(want, op, j, slot);
        res->compared += op->out[j].features;
        if (memcmp(g, w, row_bytes(&op->out[j])) == 0)
            continue;
        for (size_t e = 0; e < op->out[j].features; ++e)
            if (memcmp(g + e * es, w + e * es, es) != 0)
                note_mismatch(res, layout_name, at, j, e, es, g + e * es, w + e * es);
    }
}

static void describe_first(const harness_result *res, char *out, size_t n)
{
    const harness_mismatch *m = &res->first;
    snprintf(out, n, "; first: sample %d token %d %s[%zu] got 0x%0*" PRIx64 " want 0x%0*" PRIx64,
             (int)m->at.sample, (int)m->at.token, res->op ? res->op->out[m->operand].name : "out",
             m->element, (int)(2 * m->bytes), m->got, (int)(2 * m->bytes), m->want);
}

static void finish_bitwise(harness_result *res, const char *extra)
{
    char first[160] = "";
    if (res->has_first)
        describe_first(res, first, sizeof first);
    res->pass = res->mismatches == 0 && !extra;
    res->measured = true;
    snprintf(res->detail, sizeof res->detail, "%zu elements, %zu mismatches%s%s%s", res->compared,
             res->mismatches, first, extra ? "; " : "", extra ? extra : "");
}

/* I for one case: every token the layout produced against the canonical bits. A
 * canonical layout records the tokens that have none yet. */
static void judge_case(harness_report *rep, op_data *d, const layout *L, bool canonical_run,
                       const char *name, const char *run_error)
{
    harness_result *res = harness_report_add(rep, d->op, 'I', name);
    size_t missing = 0, recorded = 0;
    for (size_t i = 0; !run_error && i < d->set_n[L->set]; ++i) {
        size_t slot = d->set_slot[L->set][i];
        if (!d->has_got[slot])
            continue;
        if (d->has_canon[slot]) {
            compare_token(res, d->op, name, d->key[slot], d->got, d->canon, slot);
        } else if (canonical_run) {
            for (int j = 0; j < d->op->n_out; ++j)
                memcpy(token_out(d->canon, d->op, j, slot), token_out(d->got, d->op, j, slot),
                       row_bytes(&d->op->out[j]));
            d->has_canon[slot] = true;
            recorded++;
        } else {
            missing++;
        }
    }
    char extra[300];
    const char *why = run_error;
    if (!why && missing) {
        snprintf(extra, sizeof extra, "%zu tokens have no canonical bits (the B=1 run failed)",
                 missing);
        why = extra;
    }
    finish_bitwise(res, why);
    if (recorded) {
        size_t len = strlen(res->detail);
        snprintf(res->detail + len, sizeof res->detail - len,
                 "; canonical layout: recorded %zu tokens", recorded);
    }
}

/* R for one token set: the canonical device bits against the host reference. */
static void judge_reference(harness_report *rep, op_data *d, int set)
{
    if (d->set_n[set] == 0)
        return;
    harness_result *res = harness_report_add(rep, d->op, 'R', set_names[set]);
    size_t missing = 0;
    for (size_t i = 0; i < d->set_n[set]; ++i) {
        size_t slot = d->set_slot[set][i];
        if (d->has_canon[slot])
            compare_token(res, d->op, set_names[set], d->key[slot], d->canon, d->ref, slot);
        else
            missing++;
    }
    char extra[120];
    snprintf(extra, sizeof extra, "%zu tokens without device bits (the canonical layout failed)",
             missing);
    finish_bitwise(res, missing ? extra : NULL);
}

/* The hash of a token set's outputs: every token in logical order, its output rows in
 * operand order. */
static uint64_t hash_set(const op_data *d, int set, unsigned char *const *out)
{
    uint64_t h = BICL_FNV_OFFSET;
    for (size_t i = 0; i < d->set_n[set]; ++i)
        for (int j = 0; j < d->op->n_out; ++j)
            h = bicl_fnv1a(h, token_out(out, d->op, j, d->set_slot[set][i]),
                           row_bytes(&d->op->out[j]));
    return h;
}

static bool set_complete(const op_data *d, int set)
{
    for (size_t i = 0; i < d->set_n[set]; ++i)
        if (!d->has_canon[d->set_slot[set][i]])
            return false;
    return true;
}

/* ============================================================ the schedule */

static void check_accuracy(const op_data *d, const harness_config *cfg, harness_report *rep);

/* The candidate variants the library accepts on this device (vector widths it has
 * dropped, or work-groups beyond the device's limit, are refused and skipped). */
static size_t accepted_variants(bicl_context *ctx, int *out)
{
    size_t n = 0;
    for (int v = 0; v < N_VARIANTS; ++v) {
        bicl_variant cand = variant_at(v);
        if (bicl_context_set_variant(ctx, &cand) == BICL_SUCCESS)
            out[n++] = v;
    }
    bicl_context_set_variant(ctx, NULL);
    bicl_clear_error();
    return n;
}

/* Alternates aligned and spread offsets over the variant cases. */
static run_case variant_case(size_t layout_index, int variant, size_t i)
{
    if (i % 2 == 0)
        return (run_case){layout_index, variant, OFFSET_ALIGNED, (unsigned)(i / 2 + 1)};
    return (run_case){layout_index, variant, OFFSET_SPREAD, (unsigned)(i % 8)};
}

/* vw1 ipt1 wg64: the variant of the layout and offset cases of an op with
 * HARNESS_OP_FEW_VARIANTS. A fixed work-group size needs one kernel build per kernel,
 * where the driver's choice may follow every layout's size (PoCL builds each). */
#define FEW_BASE_VARIANT 1

static int base_variant(unsigned op_flags, const int *variants, size_t n_variants)
{
    for (size_t k = 0; (op_flags & HARNESS_OP_FEW_VARIANTS) && k < n_variants; ++k)
        if (variants[k] == FEW_BASE_VARIANT)
            return FEW_BASE_VARIANT;
    return -1;
}

/* Canonical layouts first (they define the bits), then the other layouts, then
 * eight offset cases on the packed layout, then the variants: on every layout, or on the
 * packed layout only (quick, or an op with HARNESS_OP_FEW_VARIANTS), or none (both). */
static size_t schedule(const harness_config *cfg, unsigned op_flags, const layout *L,
                       const int *variants, size_t n_variants, run_case *out)
{
    bool few = (op_flags & HARNESS_OP_FEW_VARIANTS) != 0;
    int base_v = base_variant(op_flags, variants, n_variants);
    size_t n = 0, packed = 0;
    for (size_t l = 0; l < N_LAYOUTS; ++l) {
        if (L[l].n_calls)
            out[n++] = (run_case){l, base_v, OFFSET_ZERO, 0};
        if (strcmp(L[l].name, "packed") == 0)
            packed = l;
    }
    for (unsigned base = 1; base <= 8; ++base) /* every operand meets every offset 0..7 */
        out[n++] = (run_case){packed, base_v, OFFSET_SPREAD, base};
    for (size_t k = 0; k < n_variants && !(few && cfg->quick); ++k) {
        if (cfg->quick || few) {
            out[n++] = variant_case(packed, variants[k], k);
            continue;
        }
        for (size_t l = 0; l < N_LAYOUTS; ++l)
            if (L[l].n_calls)
                out[n++] = variant_case(l, variants[k], k + l);
    }
    return n;
}

void harness_config_defaults(harness_config *cfg, bool quick)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->quick = quick;
    cfg->seed = HARNESS_SEED;
    cfg->a_budget = quick ? 8192 : 65536;
}

static void harness_error(harness_report *rep, const harness_op *op, const char *what)
{
    harness_result *res = harness_report_add(rep, op, 'I', "harness");
    res->pass = false;
    res->measured = true;
    snprintf(res->detail, sizeof res->detail, "the harness could not run: %s", what);
}

static layout *build_layouts(const op_data *d)
{
    layout *L = calloc(N_LAYOUTS, sizeof *L);
    if (!L)
        return NULL;
    for (size_t l = 0; l < N_LAYOUTS; ++l) {
        build_layout(&L[l], d, l);
        drop_empty_calls(&L[l]);
        if (L[l].pitch_extra && (d->op->flags & HARNESS_OP_CONTIGUOUS_ROWS))
            L[l].n_calls = 0;
    }
    return L;
}

static void run_cases(const harness_env *env, op_data *d, const layout *L, const run_case *cases,
                      size_t n_cases, const harness_config *cfg, harness_report *rep)
{
    size_t n_canonical = 0;
    while (n_canonical < n_cases && L[cases[n_canonical].layout].canonical)
        n_canonical++;
    for (size_t i = 0; i < n_cases; ++i) {
        const layout *lay = &L[cases[i].layout];
        bool canonical_run = i < n_canonical;
        char name[80], err[400];
        unsigned char guard = (i & 1u) ? 0xa5 : 0x5a; /* differs between consecutive cases */
        int rc = run_layout(env, d, lay, &cases[i], guard, name, sizeof name, err, sizeof err);
        judge_case(rep, d, lay, canonical_run, name, rc == 0 ? NULL : err);
        if (i + 1 == n_canonical)
            for (int s = 0; s < SET_COUNT; ++s)
                judge_reference(rep, d, s);
        if (cfg->progress)
            cfg->progress(cfg->progress_user, d->op, i + 1, n_cases);
    }
}

/* I and R of an op whose needs the device lacks: one passing, unmeasured result each,
 * saying why; A runs on the host as everywhere. */
static void not_applicable(const harness_env *env, const harness_op *op, const harness_config *cfg,
                           harness_report *rep)
{
    static const char relations[2] = {'I', 'R'};
    for (int r = 0; r < 2; ++r) {
        harness_result *res = harness_report_add(rep, op, relations[r], "not applicable");
        res->pass = true;
        res->not_applicable = true;
        snprintf(res->detail, sizeof res->detail,
                 "not applicable: needs fp64, which %s lacks (bicl refuses the call with "
                 "BICL_ERR_UNSUPPORTED)",
                 env->ctx->info.device_name);
    }
    harness_check_accuracy(op, env->ctx, cfg, rep);
}

int harness_check_op(const harness_env *env, const harness_op *op, const harness_config *cfg,
                     harness_report *rep, harness_golden *hashes)
{
    if ((op->flags & HARNESS_OP_NEEDS_FP64) && !bicl_context_has_fp64(env->ctx)) {
        not_applicable(env, op, cfg, rep);
        return 0;
    }
    char err[256];
    op_data *d = op_data_new(op, env->ctx, cfg->seed, err, sizeof err);
    layout *L = d ? build_layouts(d) : NULL;
    run_case *cases = L ? calloc(N_LAYOUTS * (N_VARIANTS + 1) + 8, sizeof *cases) : NULL;
    if (!cases) {
        harness_error(rep, op, err);
        op_data_free(d);
        free(L);
        return -1;
    }
    int variants[N_VARIANTS];
    size_t n_variants = accepted_variants(env->ctx, variants);
    size_t n_cases = schedule(cfg, op->flags, L, variants, n_variants, cases);
    run_cases(env, d, L, cases, n_cases, cfg, rep);
    bicl_context_set_variant(env->ctx, NULL);
    for (int s = 0; hashes && s < SET_COUNT; ++s)
        if (d->set_n[s] && set_complete(d, s))
            harness_golden_put(hashes, op->name, op->dtype, set_names[s], hash_set(d, s, d->canon));
    check_accuracy(d, cfg, rep);
    free(cases);
    free(L);
    op_data_free(d);
    return 0;
}

/* ============================================================ relation A */

typedef struct token_rows {
    unsigned char *in[HARNESS_MAX_OPERANDS], *out[HARNESS_MAX_OPERANDS];
} token_rows;

static void token_rows_free(token_rows *t)
{
    for (int i = 0; i < HARNESS_MAX_OPERANDS; ++i) {
        free(t->in[i]);
        free(t->out[i]);
    }
}

static int token_rows_alloc(token_rows *t, const harness_op *op)
{
    memset(t, 0, sizeof *t);
    int ok = 1;
    for (int i = 0; i < op->n_in; ++i)
        ok &= (t->in[i] = malloc(row_bytes(&op->in[i]))) != NULL;
    for (int j = 0; j < op->n_out; ++j)
        ok &= (t->out[j] = malloc(row_bytes(&op->out[j]))) != NULL;
    return ok ? 0 : -1;
}

/* Measures one token's outputs: reference against the correctly rounded oracle. */
static void measure_token(harness_result *res, const op_data *d, harness_token key,
                          const token_rows *t, mpfr_ptr exact)
{
    const harness_op *op = d->op;
    const void *in[HARNESS_MAX_OPERANDS];
    for (int i = 0; i < op->n_in; ++i)
        in[i] = t->in[i];
    for (int j = 0; j < op->n_out; ++j) {
        size_t es = bicl_dtype_size(op->out[j].dtype);
        for (size_t e = 0; e < op->out[j].features; ++e) {
            if (op->oracle(op, d->state, key.token, in, j, e, exact) != 0)
                continue;
            uint64_t want = harness_round_to_bits(op->out[j].dtype, exact);
            uint64_t got = element_bits(t->out[j] + e * es, es);
            uint64_t ulp = harness_ulp_distance(op->out[j].dtype, got, want);
            res->compared++;
            res->max_ulp = ulp > res->max_ulp ? ulp : res->max_ulp;
            if (ulp > op->ulp_limit)
                note_mismatch(res, res->case_name, key, j, e, es, (const unsigned char *)&got,
                              (const unsigned char *)&want);
        }
    }
}

static size_t out_features(const harness_op *op)
{
    size_t n = 0;
    for (int j = 0; j < op->n_out; ++j)
        n += op->out[j].features;
    return n;
}

/* The tokens A measures: those of the workload, then random ones (sample 1000+k), up
 * to the element budget. */
static harness_token a_token(const op_data *d, size_t k)
{
    if (k < d->n_tokens)
        return d->key[k];
    size_t x = k - d->n_tokens;
    int32_t t = (int32_t)((x * 7919u) % 65536u);
    if (d->op->max_position > 0)
        t %= d->op->max_position + 1;
    return (harness_token){(int32_t)(1000 + x), t};
}

static void measure_tokens(harness_result *res, const op_data *d, const harness_config *cfg,
                           token_rows *t, char *err, size_t n)
{
    const harness_op *op = d->op;
    mpfr_t exact;
    mpfr_init2(exact, HARNESS_ORACLE_PREC);
    size_t per_token = out_features(op), budget = cfg->a_budget ? cfg->a_budget : 8192;
    for (size_t k = 0; k == 0 || (k + 1) * per_token <= budget; ++k) {
        harness_token key = a_token(d, k);
        const void *in[HARNESS_MAX_OPERANDS];
        void *out[HARNESS_MAX_OPERANDS];
        for (int i = 0; i < op->n_in; ++i) {
            fill_operand(op, i, key, cfg->seed, t->in[i]);
            in[i] = t->in[i];
        }
        for (int j = 0; j < op->n_out; ++j)
            out[j] = t->out[j];
        if (reference_token(d, key.token, in, out, err, n) != 0)
            break;
        measure_token(res, d, key, t, exact);
    }
    mpfr_clear(exact);
}

static void check_accuracy(const op_data *d, const harness_config *cfg, harness_report *rep)
{
    const harness_op *op = d->op;
    harness_result *res = harness_report_add(rep, op, 'A', "oracle");
    if (!op->oracle) {
        res->pass = true;
        res->measured = false;
        snprintf(res->detail, sizeof res->detail, "not measured: the adapter has no oracle");
        return;
    }
    token_rows t;
    char err[256] = "";
    if (token_rows_alloc(&t, op) != 0)
        snprintf(err, sizeof err, "out of host memory");
    else
        measure_tokens(res, d, cfg, &t, err, sizeof err);
    token_rows_free(&t);
    char first[160] = "";
    if (res->has_first)
        describe_first(res, first, sizeof first);
    res->measured = true;
    res->pass = res->mismatches == 0 && !err[0];
    snprintf(res->detail, sizeof res->detail, "%zu elements, max %llu ulp (limit %u)%s%s%s",
             res->compared, res->max_ulp, op->ulp_limit, first, err[0] ? "; " : "", err);
}

void harness_check_accuracy(const harness_op *op, bicl_context *ctx, const harness_config *cfg,
                            harness_report *rep)
{
    char err[256];
    op_data *d = op_data_tokens(op, ctx, cfg->seed, err, sizeof err);
    if (!d) {
        harness_result *res = harness_report_add(rep, op, 'A', "oracle");
        snprintf(res->detail, sizeof res->detail, "the harness could not run: %s", err);
        return;
    }
    check_accuracy(d, cfg, rep);
    op_data_free(d);
}

/* ============================================================= golden */

int harness_golden_from_host(const harness_op *op, bicl_context *ctx, uint64_t seed,
                             harness_golden *out)
{
    char err[256];
    op_data *d = op_data_new(op, ctx, seed, err, sizeof err);
    if (!d) {
        fprintf(stderr, "golden: %s %s: %s\n", op->name, op->dtype, err);
        return -1;
    }
    for (int s = 0; s < SET_COUNT; ++s)
        if (d->set_n[s])
            harness_golden_put(out, op->name, op->dtype, set_names[s], hash_set(d, s, d->ref));
    op_data_free(d);
    return 0;
}
