/* ops.c - the activation registry (cl/bicl_ops.def) as host data, and the compile-time
 * proof that the public enums (include/bicl/pointwise.h, written out there because they
 * are ABI and documented value by value), the OpenCL op codes (the same header compiled
 * as C) and the registry agree. */
#include "ops.h"
#include "status.h"

#include "bicl_pointwise_ops.h"

#include <math.h>
#include <stddef.h>
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
#define COUNT_ROW(...) +1 /* NOLINT(bugprone-macro-parentheses): a term of a sum */
_Static_assert(1 BICL_UNARY_OPS(COUNT_ROW) == BICL_UNARY_COUNT_,
               "BICL_UNARY_COUNT_ is not the identity plus one per registry row");
_Static_assert(0 BICL_GLU_OPS(COUNT_ROW) == BICL_GLU_COUNT_,
               "BICL_GLU_COUNT_ is not one per registry row");

_Static_assert(BICL_BINARY_ADD == BICL_BIN_ADD && BICL_BINARY_SUB == BICL_BIN_SUB &&
                   BICL_BINARY_MUL == BICL_BIN_MUL && BICL_BINARY_COUNT_ == BICL_BIN_AXPBY,
               "bicl_binary_op and the OpenCL binary codes differ (axpby comes after them)");

/* ------------------------------------------------------------------ rows */
#define UNPAREN(...)          __VA_ARGS__
#define FIELDS_P0()           0, ""
#define FIELDS_P1(a)          1, #a
#define FIELDS_P2(a, b)       2, #a ", " #b
#define FIELDS_P4(a, b, c, d) 4, #a ", " #b ", " #c ", " #d
#define ORDER_OF_ACT          BICL_GLU_ORDER_ACT
#define ORDER_OF_UP           BICL_GLU_ORDER_UP
#define ORDER_OF_WHOLE        BICL_GLU_ORDER_WHOLE
/* FAST_CHECK(FAST_PROBE_##EXPR), written in the row macros where EXPR is still as the row
 * wrote it (a parameter next to ## is not expanded; passed on, BICL_CR1 would expand): 1
 * where the row's EXPR is BICL_CR1(f, a), BICL_CR1_LONG(f, a) or BICL_CR2(f, a, b), a
 * function with a fast form, else 0, at compile time. Every row's EXPR begins with a name;
 * FAST_PROBE_ pasted to it is a macro giving "~, 1" for those heads only, and FAST_SECOND
 * picks what follows the first argument: that 1, or the 0 FAST_CHECK appends. LONG_PROBE_
 * does the same for BICL_CR1_LONG alone (the longest double paths). */
#define FAST_PROBE_BICL_CR1(...)      ~, 1
#define FAST_PROBE_BICL_CR1_LONG(...) ~, 1
#define FAST_PROBE_BICL_CR2(...)      ~, 1
#define LONG_PROBE_BICL_CR1_LONG(...) ~, 1
#define FAST_SECOND(a, b, ...)        b
#define FAST_CHECK(...)               FAST_SECOND(__VA_ARGS__, 0, ~)
/* clang-format off */
/* EXPR is stringised where the row is taken apart, before BICL_CR1 / BICL_CR2 expand */
#define ROW(ID, name, code, kname, PF, PCHECK, table, ulp, EXAMPLE, ORDER, EXPR, FAST, LONG)       \
    [code] = {#name, #ID, #kname, code, FIELDS_##PF, BICL_PCHECK_##PCHECK, table, FAST, LONG, ulp, \
              {UNPAREN EXAMPLE}, ORDER, EXPR},
#define UNARY_ROW(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR)            \
    ROW(ID, name, code, kname, PF, PCHECK, table, ulp, EXAMPLE, BICL_GLU_ORDER_ACT, #EXPR,         \
        FAST_CHECK(FAST_PROBE_##EXPR), FAST_CHECK(LONG_PROBE_##EXPR))
#define GLU_ROW(ID, name, code, kname, PF, PCHECK, table, ulp, ORACLE, EXAMPLE, EXPR, ORDER)       \
    ROW(ID, name, code, kname, PF, PCHECK, table, ulp, EXAMPLE, ORDER_OF_##ORDER, #EXPR,           \
        FAST_CHECK(FAST_PROBE_##EXPR), FAST_CHECK(LONG_PROBE_##EXPR))
/* clang-format on */

static const bicl_op_info unary_rows[BICL_UNARY_COUNT_] = {BICL_UNARY_OPS(UNARY_ROW)};
static const bicl_op_info glu_rows[BICL_GLU_COUNT_] = {BICL_GLU_OPS(GLU_ROW)};

#define BINARY_KNAME(TA, TB, TO, name, code) [code] = #name,
static const char *const binary_knames[] = {BICL_BINARY_OPS(BINARY_KNAME, _, _, _)};

const char *bicl_binary_kname(int op)
{
    int n = (int)(sizeof binary_knames / sizeof binary_knames[0]);
    return op >= 0 && op < n ? binary_knames[op] : NULL;
}

bool bicl_op_has_fast(const bicl_op_info *info)
{
    return info && info->fast;
}

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
/* Moves an op's parameters between the public struct's fields (its row's PF column) and
 * p0..p3, in the direction to_struct says. Reads or writes only the row's fields, so that
 * an engine built against an older, shorter struct works with every op it knows. */
#define MOVE(f, i)                                                                                 \
    if (to_struct)                                                                                 \
        s->f = p[i];                                                                               \
    else                                                                                           \
        p[i] = s->f;
#define MOVE_P0()
#define MOVE_P1(a)          MOVE(a, 0)
#define MOVE_P2(a, b)       MOVE(a, 0) MOVE(b, 1)
#define MOVE_P4(a, b, c, d) MOVE(a, 0) MOVE(b, 1) MOVE(c, 2) MOVE(d, 3)
#define MOVE_CASE(ID, name, code, kname, PF, ...)                                                  \
    case code:                                                                                     \
        MOVE_##PF break;
#define DEFINE_MOVE(NAME, TYPE, LIST)                                                              \
    static void NAME(int code, TYPE *s, float *p, bool to_struct) /* NOLINT: TYPE is a type */     \
    {                                                                                              \
        switch (code) {                                                                            \
            LIST(MOVE_CASE)                                                                        \
        default:                                                                                   \
            break;                                                                                 \
        }                                                                                          \
    }
/* Rows with the same fields are the same case on purpose (the switch is generated). */
DEFINE_MOVE(unary_move, bicl_unary_params, BICL_UNARY_OPS) /* NOLINT(bugprone-branch-clone) */
DEFINE_MOVE(glu_move, bicl_glu_params, BICL_GLU_OPS)       /* NOLINT(bugprone-branch-clone) */

void bicl_unary_params_set(const bicl_op_info *op, const float *p, bicl_unary_params *s)
{
    unary_move(op->code, s, (float *)p, true); /* p is only read */
}

void bicl_glu_params_set(const bicl_op_info *op, const float *p, bicl_glu_params *s)
{
    glu_move(op->code, s, (float *)p, true);
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

/* p zeroed; whether the fields of params are to be read (a NULL params: an error when
 * checking an op with parameters, all zero otherwise). */
static bicl_status gather_begin(const bicl_op_info *op, const void *params, float *p,
                                const char *what, bool check, bool *read)
{
    memset(p, 0, BICL_OP_MAX_PARAMS * sizeof *p);
    *read = op->n_params > 0 && params;
    if (op->n_params > 0 && !params && check)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: %s needs params (%s)", what, op->name,
                         op->params);
    return BICL_SUCCESS;
}

bicl_status bicl_unary_params_gather(int code, const bicl_unary_params *params,
                                     float p[BICL_OP_MAX_PARAMS], const char *what, bool check)
{
    const bicl_op_info *op = bicl_unary_info(code);
    bool read = false;
    bicl_status st = BICL_SUCCESS;
    if (op)
        st = gather_begin(op, params, p, what, check, &read);
    else
        memset(p, 0, BICL_OP_MAX_PARAMS * sizeof *p); /* the identity */
    if (st != BICL_SUCCESS || !read)
        return st;
    unary_move(op->code, (bicl_unary_params *)params, p, false); /* params is only read */
    return check ? check_params(op, p, what) : BICL_SUCCESS;
}

bicl_status bicl_glu_params_gather(const bicl_op_info *op, const bicl_glu_params *params,
                                   float p[BICL_OP_MAX_PARAMS], const char *what, bool check)
{
    bool read;
    bicl_status st = gather_begin(op, params, p, what, check, &read);
    if (st != BICL_SUCCESS || !read)
        return st;
    glu_move(op->code, (bicl_glu_params *)params, p, false);
    return check ? check_params(op, p, what) : BICL_SUCCESS;
}

/* The rounding mode shares the int of the older round_act_to_storage (an anonymous union):
 * the struct's layout is that of the versions before the modes, so engines built against
 * them keep working. */
_Static_assert(offsetof(bicl_glu_params, rounding) == 2 * sizeof(float) &&
                   offsetof(bicl_glu_params, round_act_to_storage) == 2 * sizeof(float) &&
                   offsetof(bicl_glu_params, threshold) == 2 * sizeof(float) + sizeof(int) &&
                   sizeof(bicl_glu_params) == 3 * sizeof(float) + sizeof(int),
               "bicl_glu_params keeps its layout");
/* the kernels' round_dt of the single-rounding mode is no dtype code */
_Static_assert(BICL_GLU_RD_ONCE != BICL_DT_F32 && BICL_GLU_RD_ONCE != BICL_DT_F16 &&
                   BICL_GLU_RD_ONCE != BICL_DT_BF16,
               "BICL_GLU_RD_ONCE differs from every dtype code");

bicl_status bicl_glu_rounding_check(bicl_glu_act act, int rounding, const char *what)
{
    if (rounding != BICL_GLU_ROUND_F32 && rounding != BICL_GLU_ROUND_ACT_TO_STORAGE &&
        rounding != BICL_GLU_ROUND_ONCE)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER,
                         "%s: rounding (round_act_to_storage) must be 0, 1 or 2, not %d", what,
                         rounding);
    /* gelu (erf) times up has no single-rounding evaluation yet (docs/accuracy.md) */
    if (rounding == BICL_GLU_ROUND_ONCE && act == BICL_GLU_GEGLU)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER,
                         "%s: GEGLU has no single-rounding mode (BICL_GLU_ROUND_ONCE)", what);
    return BICL_SUCCESS;
}

int bicl_glu_round_dt(int rounding, bicl_dtype gate)
{
    if (rounding == BICL_GLU_ROUND_ONCE)
        return BICL_GLU_RD_ONCE;
    return rounding == BICL_GLU_ROUND_ACT_TO_STORAGE ? (int)gate : BICL_DT_F32;
}
