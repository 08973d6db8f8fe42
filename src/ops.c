/* ops.c - the activation registry (cl/bicl_ops.def) as host data, and the compile-time
 * proof that the public enums (include/bicl/pointwise.h, written out there because they
 * are ABI and documented value by value), the OpenCL op codes (the same header compiled
 * as C) and the registry agree. */
#include "internal.h"

#include "bicl_pointwise_ops.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* ------------------------------------------------- one fact, three spellings */
#define CHECK_UNARY(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)          \
    _Static_assert(BICL_UNARY_##ID == (code) && BICL_OP_##ID == (code),                            \
                   "registry, public enum and OpenCL code of " #name " differ");
#define CHECK_GLU(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER)     \
    _Static_assert(BICL_GLU_##ID == (code) && BICL_GLU_OP_##ID == (code),                          \
                   "registry, public enum and OpenCL code of " #name " differ");
BICL_UNARY_OPS(CHECK_UNARY)
BICL_GLU_OPS(CHECK_GLU)
#define COUNT_ROW(...) +1
_Static_assert(1 BICL_UNARY_OPS(COUNT_ROW) == BICL_UNARY_COUNT_,
               "BICL_UNARY_COUNT_ is not the identity plus one per registry row");
_Static_assert(0 BICL_GLU_OPS(COUNT_ROW) == BICL_GLU_COUNT_,
               "BICL_GLU_COUNT_ is not one per registry row");

/* ------------------------------------------------------------------ rows */
#define UNPAREN(...)          __VA_ARGS__
#define FIELDS_P0()           0, ""
#define FIELDS_P1(a)          1, #a
#define FIELDS_P2(a, b)       2, #a ", " #b
#define FIELDS_P4(a, b, c, d) 4, #a ", " #b ", " #c ", " #d
#define ORDER_OF_ACT          BICL_GLU_ORDER_ACT
#define ORDER_OF_UP           BICL_GLU_ORDER_UP
#define ORDER_OF_WHOLE        BICL_GLU_ORDER_WHOLE
#define UNARY_ROW(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)            \
    [code] = {#name,                                                                               \
              #ID,                                                                                 \
              #kname,                                                                              \
              code,                                                                                \
              FIELDS_##PF,                                                                         \
              BICL_PCHECK_##PCHECK,                                                                \
              table,                                                                               \
              ulp,                                                                                 \
              {UNPAREN EXAMPLE},                                                                   \
              BICL_GLU_ORDER_ACT},
#define GLU_ROW(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER)       \
    [code] = {#name,                                                                               \
              #ID,                                                                                 \
              #kname,                                                                              \
              code,                                                                                \
              FIELDS_##PF,                                                                         \
              BICL_PCHECK_##PCHECK,                                                                \
              table,                                                                               \
              ulp,                                                                                 \
              {UNPAREN EXAMPLE},                                                                   \
              ORDER_OF_##ORDER},

static const bicl_op_info unary_rows[BICL_UNARY_COUNT_] = {BICL_UNARY_OPS(UNARY_ROW)};
static const bicl_op_info glu_rows[BICL_GLU_COUNT_] = {BICL_GLU_OPS(GLU_ROW)};

const bicl_op_info *bicl_unary_info(int op)
{
    return op > 0 && op < BICL_UNARY_COUNT_ ? &unary_rows[op] : NULL;
}

const bicl_op_info *bicl_glu_info(int act)
{
    return act >= 0 && act < BICL_GLU_COUNT_ ? &glu_rows[act] : NULL;
}

static const bicl_op_info *find(const bicl_op_info *rows, int n, const char *name)
{
    for (int i = 0; i < n; ++i)
        if (rows[i].name && name && strcmp(rows[i].name, name) == 0)
            return &rows[i];
    return NULL;
}

const bicl_op_info *bicl_unary_find(const char *name)
{
    return find(unary_rows, BICL_UNARY_COUNT_, name);
}

const bicl_op_info *bicl_glu_find(const char *name)
{
    return find(glu_rows, BICL_GLU_COUNT_, name);
}

/* ------------------------------------------------------------ parameters */
#define GATHER_P0()
#define GATHER_P1(a)          p[0] = s->a;
#define GATHER_P2(a, b)       p[0] = s->a, p[1] = s->b;
#define GATHER_P4(a, b, c, d) p[0] = s->a, p[1] = s->b, p[2] = s->c, p[3] = s->d;

/* Reads only the fields of the op's row, so that an engine built against an older,
 * shorter struct works with every op it knows. */
static void unary_fields(int op, const bicl_unary_params *s, float *p)
{
    switch (op) {
#define UNARY_GATHER(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)         \
    case code:                                                                                     \
        GATHER_##PF break;
        BICL_UNARY_OPS(UNARY_GATHER)
    default:
        break;
    }
}

static void glu_fields(int act, const bicl_glu_params *s, float *p)
{
    switch (act) {
#define GLU_GATHER(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER)    \
    case code:                                                                                     \
        GATHER_##PF break;
        BICL_GLU_OPS(GLU_GATHER)
    default:
        break;
    }
}

#define SCATTER_P0()
#define SCATTER_P1(a)          s->a = p[0];
#define SCATTER_P2(a, b)       s->a = p[0], s->b = p[1];
#define SCATTER_P4(a, b, c, d) s->a = p[0], s->b = p[1], s->c = p[2], s->d = p[3];

void bicl_unary_params_set(const bicl_op_info *op, const float *p, bicl_unary_params *s)
{
    switch (op->code) {
#define UNARY_SCATTER(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)        \
    case code:                                                                                     \
        SCATTER_##PF break;
        BICL_UNARY_OPS(UNARY_SCATTER)
    default:
        break;
    }
}

void bicl_glu_params_set(const bicl_op_info *op, const float *p, bicl_glu_params *s)
{
    switch (op->code) {
#define GLU_SCATTER(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER)   \
    case code:                                                                                     \
        SCATTER_##PF break;
        BICL_GLU_OPS(GLU_SCATTER)
    default:
        break;
    }
}

static bicl_status check_params(const bicl_op_info *op, const float *p, const char *what)
{
    for (int i = 0; i < op->n_params; ++i) {
        bool positive = op->check == BICL_PCHECK_POSITIVE ||
                        (op->check == BICL_PCHECK_LIMIT && i == op->n_params - 1);
        if (!isfinite(p[i]) || (positive && !(p[i] > 0.0f))) {
            char vals[96] = "";
            for (int j = 0; j < op->n_params; ++j)
                snprintf(vals + strlen(vals), sizeof vals - strlen(vals), "%s%g", j ? ", " : "",
                         (double)p[j]);
            return bicl_fail(BICL_ERR_INVALID_PARAMETER, "%s: %s (%s) = (%s): must be finite%s",
                             what, op->name, op->params, vals,
                             op->check == BICL_PCHECK_POSITIVE ? " and > 0"
                             : op->check == BICL_PCHECK_LIMIT  ? ", the last > 0"
                                                               : "");
        }
    }
    return BICL_SUCCESS;
}

bicl_status bicl_unary_params_gather(const bicl_op_info *op, const bicl_unary_params *params,
                                     float p[BICL_OP_MAX_PARAMS], const char *what, bool check)
{
    memset(p, 0, BICL_OP_MAX_PARAMS * sizeof *p);
    if (op->n_params == 0 || (!params && !check))
        return BICL_SUCCESS;
    if (!params)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: %s needs params (%s)", what, op->name,
                         op->params);
    unary_fields(op->code, params, p);
    return check ? check_params(op, p, what) : BICL_SUCCESS;
}

bicl_status bicl_glu_params_gather(const bicl_op_info *op, const bicl_glu_params *params,
                                   float p[BICL_OP_MAX_PARAMS], const char *what, bool check)
{
    memset(p, 0, BICL_OP_MAX_PARAMS * sizeof *p);
    if (op->n_params == 0 || (!params && !check))
        return BICL_SUCCESS;
    if (!params)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: %s needs params (%s)", what, op->name,
                         op->params);
    glu_fields(op->code, params, p);
    return check ? check_params(op, p, what) : BICL_SUCCESS;
}
