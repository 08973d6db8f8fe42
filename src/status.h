/* status.h - layer 0 of the host library (docs/internals.md): the
 * per-thread last error, OpenCL error names, the hash and dtype tags every file uses.
 * status.c. */
#ifndef BICL_SRC_STATUS_H
#define BICL_SRC_STATUS_H

#include "bicl/bicl.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

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

/* The longest path the library builds (the disk cache's directory and entries). */
#define BICL_PATH_MAX 4096

/* ------------------------------------------------------------------ hash */

#define BICL_FNV_OFFSET 0xcbf29ce484222325ull
uint64_t bicl_fnv1a(uint64_t h, const void *data, size_t n);

/* The floating-point dtypes as a mask of (1u << dtype) (bicl_dtype_check). */
#define BICL_FLOAT_DTYPES ((1u << BICL_F32) | (1u << BICL_F16) | (1u << BICL_BF16))
/* The short tag of a dtype in kernel names ("f32", "bf16", ...). */
const char *bicl_dtype_tag(bicl_dtype d);

#endif
