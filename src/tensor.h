/* tensor.h - layer 4: tensor views, their validation, aliasing and
 * iteration spaces (tensor.c). */
#ifndef BICL_SRC_TENSOR_H
#define BICL_SRC_TENSOR_H

#include "bicl/bicl.h"

#include <stdbool.h>

/* An operand of an elementwise launch, after validation. */
typedef struct bicl_operand {
    const bicl_tensor *t;
    bool output;
    bool broadcast_ok; /* zero strides allowed (inputs) */
} bicl_operand;

/* What a call learns of one cl_mem (clGetMemObjectInfo), asked once per call: its views
 * share buffers (in place, q and k in one fused buffer), and the context, type, size,
 * flags, parent, origin and host pointer of a handle never change while it lives. A memo
 * lives for one call only: a handle released after it may come back as another buffer.
 * A sub-buffer's parent takes an entry of its own (its flags and host pointer give the
 * alignment). */
typedef struct bicl_mem_facts {
    cl_mem mem;
    cl_context context;
    size_t size;
    cl_mem_flags flags;
    cl_mem parent; /* a sub-buffer's CL_MEM_ASSOCIATED_MEMOBJECT, else NULL */
    size_t origin; /* a sub-buffer's CL_MEM_OFFSET */
    void *host;    /* CL_MEM_HOST_PTR of a CL_MEM_USE_HOST_PTR buffer, else NULL */
    cl_int err;    /* CL_MEM_CONTEXT's status: not CL_SUCCESS for a rejected handle */
    cl_mem_object_type type;
    bool flags_unknown;  /* the flags' query failed */
    bool origin_unknown; /* the origin's query failed */
} bicl_mem_facts;

#define BICL_MEMO_MAX 10
typedef struct bicl_memo {
    int n;
    bicl_mem_facts facts[BICL_MEMO_MAX];
} bicl_memo;
/* A call's memo, empty: only the count needs a value (zeroing the whole memo, about 1 KB,
 * would be work on every op call's path). */
static inline bicl_memo *bicl_memo_start(bicl_memo *m)
{
    m->n = 0;
    return m;
}

/* Checks one view on its own: handle, context, rank, extents, strides, dtype,
 * bounds against CL_MEM_SIZE, self-overlap for outputs. memo: the call's. */
bicl_status bicl_tensor_check(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *t,
                              const char *name, bool output, bool broadcast_ok);
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
bicl_status bicl_dtype_check(const bicl_tensor *t, const char *name, unsigned allowed);
/* Number of elements; the view must already have been checked. */
size_t bicl_tensor_numel(const bicl_tensor *t);
/* Checks that shapes are equal (after aligning ranks: leading dims of size 1). */
bicl_status bicl_shapes_equal(const bicl_tensor *a, const char *an, const bicl_tensor *b,
                              const char *bn);
/* Checks aliasing between an output and another operand: allowed only when identical
 * views of the same element size and `identical_ok` (in place). */
bicl_status bicl_alias_check(bicl_memo *memo, const bicl_tensor *out, const char *on,
                             const bicl_tensor *other, const char *oth, bool identical_ok);
bicl_status bicl_queue_check(const bicl_context *ctx, cl_command_queue q, cl_uint n_wait,
                             const cl_event *wait);
/* The alignment in bytes (a power of two, at most the device's CL_DEVICE_MEM_BASE_ADDR_ALIGN)
 * that the host can prove for the device address of the buffer's first byte: the base
 * alignment for the runtime's own allocations, the host pointer's for CL_MEM_USE_HOST_PTR
 * (zero copy: OpenCL promises only element alignment there), and a sub-buffer's origin
 * within its parent's. Vector kernels run only where every operand is aligned so. */
size_t bicl_mem_align(const bicl_context *ctx, bicl_memo *memo, cl_mem mem);

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

/* A view of `in` broadcast to `target`'s shape (numpy rules: ranks aligned at the
 * right, dims of size 1 or missing get stride 0). BICL_ERR_SHAPE_MISMATCH otherwise. */
bicl_status bicl_broadcast_view(const bicl_tensor *in, const char *name, const bicl_tensor *target,
                                bicl_tensor *out);

#endif
