/* act_tables.c - the activation lookup tables of a context (BICL_OPTION_ACT_TABLES):
 * built once per (op, input dtype, entry dtype) on the host by the reference, cached on
 * the context, and launched with the table kernels of cl/unary.cl and cl/glu.cl. The ops
 * (src/pointwise.c) decide when a table applies (the registry's table column). */
#include "tables.h"
#include "bicl_table_compact.h"
#include "launch.h"
#include "context_state.h"
#include "ops.h"
#include "status.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Activations on 16-bit inputs (BICL_OPTION_ACT_TABLES): the result for each of the
 * 65536 input patterns is computed once per context on the host by the reference
 * (bicl_ref_unary / bicl_ref_glu: the same math source as the kernels), uploaded, and
 * the table kernels of cl/unary.cl and cl/glu.cl gather from it. Same bits as the
 * compute kernels by construction; tests/test_pointwise.c checks all 65536 inputs. */

#define TABLE_ENTRIES 65536u

struct bicl_act_table {
    bicl_table_key key;
    cl_mem mem;
    bicl_act_table *next;
};

bool bicl_dtype_is16(bicl_dtype d)
{
    return d == BICL_F16 || d == BICL_BF16;
}

static bool same_key(const bicl_table_key *a, const bicl_table_key *b)
{
    return a->family == b->family && a->code == b->code && a->in == b->in && a->entry == b->entry &&
           a->compact == b->compact;
}

static cl_mem find_table(const bicl_context *ctx, const bicl_table_key *k)
{
    for (const bicl_act_table *t = ctx->tables; t; t = t->next)
        if (same_key(&t->key, k))
            return t->mem;
    return NULL;
}

/* The entries of table k (TABLE_ENTRIES of k->entry's size) from the host reference:
 * unary: op(x) for x = every 16-bit pattern; GLU: bicl_op_glu(act, gate, 1, ...), which
 * is act(gate) rounded as round_act_to_storage says (a * 1 is exact; cl/glu.cl). */
static bicl_status table_values(const bicl_table_key *k, void *out)
{
    uint16_t *x = malloc(TABLE_ENTRIES * sizeof *x);
    uint16_t *one = k->family == BICL_TABLE_GLU ? malloc(TABLE_ENTRIES * sizeof *one) : NULL;
    if (!x || (k->family == BICL_TABLE_GLU && !one)) {
        free(x);
        free(one);
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "activation table inputs");
    }
    for (uint32_t i = 0; i < TABLE_ENTRIES; ++i)
        x[i] = (uint16_t)i;
    bicl_status st;
    if (k->family == BICL_TABLE_UNARY) {
        st = bicl_ref_unary((bicl_unary_op)k->code, NULL, k->in, x, k->entry, out, TABLE_ENTRIES);
    } else {
        /* 1.0 in the gate's dtype (gate and up share it) */
        uint16_t one_bits = k->in == BICL_BF16 ? 0x3f80u : 0x3c00u;
        for (uint32_t i = 0; i < TABLE_ENTRIES; ++i)
            one[i] = one_bits;
        bicl_glu_params p = {.round_act_to_storage = k->entry != BICL_F32};
        st = bicl_ref_glu((bicl_glu_act)k->code, &p, k->in, x, one, k->entry, out, TABLE_ENTRIES);
    }
    free(x);
    free(one);
    return st;
}

/* The compact form (cl/bicl_table_compact.h) of table `what`, whose 16-bit entries are
 * `full`: *bytes bytes at *out (the directory's words, then the listed blocks' entries).
 * Every one of the 65536 results is decoded with the kernels' functions
 * (bicl_table_compact_index and _value; the list's two entries a word are read as the full
 * table's are) and compared with full: a mismatch would be a bug here, and refuses the op
 * (BICL_ERR_UNSUPPORTED) rather than give other bits. */
static bicl_status table_compact(const char *what, const uint16_t *full, unsigned char **out,
                                 size_t *bytes)
{
    const uint32_t block = 1u << BICL_TABLE_BLOCK_BITS;
    uint32_t dir[BICL_TABLE_BLOCKS];
    uint16_t *list = malloc(TABLE_ENTRIES * sizeof *list);
    if (!list)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "compact activation table");
    uint32_t n_list = 0;
    for (uint32_t b = 0; b < BICL_TABLE_BLOCKS; ++b) {
        const uint16_t *o = full + (size_t)b * block;
        uint16_t delta = (uint16_t)(o[0] - b * block);
        bool same = true, shifted = true;
        for (uint32_t i = 1; i < block; ++i) {
            same = same && o[i] == o[0];
            shifted = shifted && (uint16_t)(o[i] - (b * block + i)) == delta;
        }
        if (same || shifted) {
            dir[b] = same ? o[0] : BICL_TABLE_DIR_DELTA | delta;
        } else {
            dir[b] = BICL_TABLE_DIR_TABLE | n_list;
            memcpy(list + n_list, o, block * sizeof *list);
            n_list += block;
        }
    }
    uint32_t n_read = n_list ? n_list : 2; /* entry 0 is read for every rule block */
    if (!n_list)
        list[0] = list[1] = 0;
    *bytes = sizeof dir + n_read * sizeof *list;
    *out = malloc(*bytes);
    bicl_status st =
        *out ? BICL_SUCCESS : bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "compact activation table");
    for (uint32_t a = 0; st == BICL_SUCCESS && a < TABLE_ENTRIES; ++a) {
        uint32_t d = dir[a >> BICL_TABLE_BLOCK_BITS];
        uint16_t v = bicl_table_compact_value(d, a, list[bicl_table_compact_index(d, a)]);
        if (v != full[a])
            st = bicl_fail(BICL_ERR_UNSUPPORTED, "compact lookup table of %s: entry %u differs",
                           what, (unsigned)a);
    }
    if (st == BICL_SUCCESS) {
        memcpy(*out, dir, sizeof dir);
        memcpy(*out + sizeof dir, list, n_read * sizeof *list);
    } else {
        free(*out);
        *out = NULL;
    }
    free(list);
    return st;
}

/* "silu bf16 -> f32", "swiglu rounded gate bf16": the table's name in error details. */
static void table_name(const bicl_table_key *k, char *buf, size_t n)
{
    if (k->family == BICL_TABLE_UNARY)
        snprintf(buf, n, "%s %s -> %s", bicl_unary_info(k->code)->name, bicl_dtype_tag(k->in),
                 bicl_dtype_tag(k->entry));
    else
        snprintf(buf, n, "%s%s gate %s", bicl_glu_info(k->code)->name,
                 k->entry != BICL_F32 ? " rounded" : "", bicl_dtype_tag(k->in));
}

/* The device buffer of table k, built on first use. The host work runs outside the
 * context's lock; when two threads build the same table at once, the first one
 * inserted is kept and the other is released (same bits either way). */
static bicl_status table_get(bicl_context *ctx, const bicl_table_key *k, cl_mem *out)
{
    pthread_mutex_lock(&ctx->lock);
    *out = find_table(ctx, k);
    pthread_mutex_unlock(&ctx->lock);
    if (*out)
        return BICL_SUCCESS;
    char what[64];
    table_name(k, what, sizeof what);
    size_t bytes = TABLE_ENTRIES * bicl_dtype_size(k->entry);
    void *values = malloc(bytes);
    bicl_act_table *t = calloc(1, sizeof *t);
    if (!values || !t) {
        free(values);
        free(t);
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "lookup table of %s", what);
    }
    bicl_status st = table_values(k, values);
    if (st == BICL_SUCCESS && k->compact) {
        unsigned char *packed = NULL;
        st = table_compact(what, values, &packed, &bytes);
        free(values);
        values = packed;
    }
    if (st != BICL_SUCCESS) {
        free(values);
        free(t);
        return st;
    }
    cl_int err = CL_SUCCESS;
    cl_mem mem =
        clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, values, &err);
    free(values);
    if (err != CL_SUCCESS || !mem) {
        free(t);
        if (mem)
            clReleaseMemObject(mem);
        char call[128];
        snprintf(call, sizeof call, "clCreateBuffer (lookup table of %s)", what);
        return bicl_fail_cl(err != CL_SUCCESS ? err : CL_OUT_OF_RESOURCES, call);
    }
    pthread_mutex_lock(&ctx->lock);
    *out = find_table(ctx, k);
    if (!*out) {
        t->key = *k;
        t->mem = mem;
        t->next = ctx->tables;
        ctx->tables = t;
        ctx->tables_free = bicl_tables_free;
        *out = mem;
        t = NULL;
        mem = NULL;
    }
    pthread_mutex_unlock(&ctx->lock);
    if (mem)
        clReleaseMemObject(mem);
    free(t);
    return BICL_SUCCESS;
}

void bicl_tables_free(bicl_context *ctx)
{
    bicl_act_table *t = ctx->tables;
    while (t) {
        bicl_act_table *next = t->next;
        clReleaseMemObject(t->mem);
        free(t);
        t = next;
    }
    ctx->tables = NULL;
}

void bicl_table_counts(bicl_context *ctx, size_t *tables, unsigned long *launches, size_t *bytes)
{
    pthread_mutex_lock(&ctx->lock);
    size_t n = 0, b = 0;
    for (const bicl_act_table *t = ctx->tables; t; t = t->next) {
        size_t size = 0; /* the buffer knows its size: no copy of it kept for tests */
        ++n;
        if (clGetMemObjectInfo(t->mem, CL_MEM_SIZE, sizeof size, &size, NULL) != CL_SUCCESS)
            b = SIZE_MAX;
        else if (b != SIZE_MAX)
            b += size;
    }
    *tables = n;
    *bytes = b;
    *launches = atomic_load_explicit(&ctx->table_launches, memory_order_relaxed);
    pthread_mutex_unlock(&ctx->lock);
}

bicl_status bicl_table_launch(bicl_context *ctx, bicl_memo *memo, cl_command_queue queue,
                              bicl_family family, const bicl_table_key *k, const char *instance,
                              const char *base, const bicl_tensor *const *ops, int n_ops,
                              cl_uint n_wait, const cl_event *wait, cl_event *done)
{
    cl_mem tab = NULL;
    bicl_status st = table_get(ctx, k, &tab);
    if (st != BICL_SUCCESS)
        return st;
    bicl_kernel_arg extra[1] = {{sizeof tab, &tab, false}}; /* a buffer */
    st = bicl_launch_elementwise_as(ctx, memo, BICL_VCLASS_TABLE, queue, family, instance, NULL,
                                    base, ops, n_ops, extra, 1, n_wait, wait, done);
    if (st == BICL_SUCCESS) /* a counter for tests, kept off the context's lock */
        atomic_fetch_add_explicit(&ctx->table_launches, 1ul, memory_order_relaxed);
    return st;
}
