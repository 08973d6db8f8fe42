/* tables.h - layer 8: activation lookup tables (act_tables.c). */
#ifndef BICL_SRC_TABLES_H
#define BICL_SRC_TABLES_H

#include "sources.h"
#include "tensor.h"

#include <stdbool.h>

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
    bool compact; /* in the compact form (cl/bicl_table_compact.h): unary, 16-bit entries */
} bicl_table_key;

/* f16 or bf16: an input a table can index. */
bool bicl_dtype_is16(bicl_dtype d);
/* Launches a table kernel (built on first use): the standard operands, then table k as
 * the one extra argument. */
bicl_status bicl_table_launch(bicl_context *ctx, bicl_memo *memo, cl_command_queue queue,
                              bicl_family family, const bicl_table_key *k, const char *instance,
                              const char *base, const bicl_tensor *const *ops, int n_ops,
                              cl_uint n_wait, const cl_event *wait, cl_event *done);
/* Frees the context's tables (bicl_context_free). */
void bicl_tables_free(bicl_context *ctx);
/* Tables built so far, ops that ran a table kernel and the tables' bytes, SIZE_MAX where a
 * buffer's size could not be read (tests: the table path is taken exactly when it should
 * be, in the form it should be). */
void bicl_table_counts(bicl_context *ctx, size_t *tables, unsigned long *launches, size_t *bytes);

#endif
