/* ops.h - the activation registry (cl/bicl_ops.def) as host data: what the library's
 * dispatch, the tests, the harness and the tools read about an op instead of keeping
 * their own lists. Layer 1 of the host library (docs/internals.md). */
#ifndef BICL_OPS_H
#define BICL_OPS_H

#include "bicl/bicl.h"

#include <stdbool.h>

/* How a gated unit combines act(gate) and up (bicl_ops.def's ORDER column). */
typedef enum bicl_glu_order {
    BICL_GLU_ORDER_ACT = 0,  /* round(act(gate)) * up; NaN rule act, then up */
    BICL_GLU_ORDER_UP = 1,   /* up * round(act(gate)); NaN rule up first; fused: up first */
    BICL_GLU_ORDER_WHOLE = 2 /* one formula of gate and up, rounded once */
} bicl_glu_order;

/* How the parameters of an op are checked (bicl_ops.def's PCHECK column). */
typedef enum bicl_param_check {
    BICL_PCHECK_FINITE = 0,   /* every parameter finite */
    BICL_PCHECK_POSITIVE = 1, /* finite and > 0 */
    BICL_PCHECK_LIMIT = 2     /* finite, the last one > 0 */
} bicl_param_check;

#define BICL_OP_MAX_PARAMS 4

/* One registry row. */
typedef struct bicl_op_info {
    const char *name;   /* "silu": tools, reports, golden file */
    const char *id;     /* "SILU": BICL_UNARY_SILU / BICL_OP_SILU */
    const char *kname;  /* kernel-name part ("tanh_op") */
    int code;           /* the public enum value */
    int n_params;       /* float parameters, p0... */
    const char *params; /* their field names, comma separated ("" for none) */
    bicl_param_check check;
    bool table;                        /* 16-bit inputs may read a lookup table */
    bool fast;      /* EXPR is BICL_CR1, BICL_CR1_LONG or BICL_CR2 (bicl_op_has_fast) */
    bool long_path; /* EXPR is BICL_CR1_LONG: launch class ACT32L (src/profile.h) */
    unsigned ulp;                      /* bound, f32 steps from correctly rounded */
    float example[BICL_OP_MAX_PARAMS]; /* the parameters tests and the harness use */
    bicl_glu_order order;              /* GLU only */
    const char *expr;                  /* the row's EXPR, as written there */
} bicl_op_info;

/* The kernel-name part of binary op code op (cl/bicl_pointwise_ops.h's BICL_BIN_*: "add",
 * "sub", "mul", "axpby"), NULL out of range. */
const char *bicl_binary_kname(int op);

/* The row of a unary op (NULL for BICL_UNARY_IDENTITY, which is a cast, and for codes
 * out of range), and of a GLU activation (NULL out of range). */
const bicl_op_info *bicl_unary_info(int op);
const bicl_op_info *bicl_glu_info(int act);
/* 1 when the row's EXPR is a function with a fast form, BICL_CR1(f, a) or BICL_CR2(f, a, b)
 * (cl/bicl_pointwise_ops.h): the op can run in the fix-up kernel form. */
bool bicl_op_has_fast(const bicl_op_info *info);
/* The unary row called `name`, or NULL; the same for GLU. */
const bicl_op_info *bicl_unary_find(const char *name);
const bicl_op_info *bicl_glu_find(const char *name);

/* An op's parameters p0..p3 from the public struct (unary: by op code; the identity has
 * none) (the fields its row names; unused
 * ones 0). With `check` (the ops), they are checked as its row says and a NULL params is
 * BICL_ERR_NULL_POINTER for an op with parameters; without (the host references, which
 * compute whatever they are given), NULL means all zero. `what` names the call in the
 * error detail. */
bicl_status bicl_unary_params_gather(int code, const bicl_unary_params *params,
                                     float p[BICL_OP_MAX_PARAMS], const char *what, bool check);
bicl_status bicl_glu_params_gather(const bicl_op_info *op, const bicl_glu_params *params,
                                   float p[BICL_OP_MAX_PARAMS], const char *what, bool check);

/* The inverse: sets the fields of the op's row in *s to p0.. (tests and tools: the
 * registry's example parameters as the public struct). Other fields are left alone. */
void bicl_unary_params_set(const bicl_op_info *op, const float *p, bicl_unary_params *s);
void bicl_glu_params_set(const bicl_op_info *op, const float *p, bicl_glu_params *s);

/* The rounding mode of a gated unit (bicl_glu_params.rounding) checked for act:
 * BICL_ERR_INVALID_PARAMETER for a value outside bicl_glu_rounding and for
 * BICL_GLU_ROUND_ONCE with an activation that has no single-rounding form (GEGLU). */
bicl_status bicl_glu_rounding_check(bicl_glu_act act, int rounding, const char *what);

/* The kernels' and bicl_op_glu's round_dt for a checked mode and the gate's dtype: f32,
 * the gate's dtype, or BICL_GLU_RD_ONCE (cl/bicl_pointwise_ops.h). */
int bicl_glu_round_dt(int rounding, bicl_dtype gate);

#endif /* BICL_OPS_H */
