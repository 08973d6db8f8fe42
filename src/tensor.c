/* tensor.c - host-side validation of views, queues and wait lists (design rule 5),
 * aliasing checks, and the iteration space of an elementwise op. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

bicl_tensor bicl_tensor_contiguous(cl_mem mem, bicl_dtype dtype, size_t offset, int rank,
                                   const size_t *shape)
{
    bicl_tensor t;
    memset(&t, 0, sizeof t);
    t.mem = mem;
    t.dtype = dtype;
    t.offset = offset;
    t.rank = rank;
    if (rank < 1 || rank > BICL_MAX_RANK || !shape)
        return t;
    ptrdiff_t s = 1;
    for (int i = rank - 1; i >= 0; --i) {
        t.shape[i] = shape[i];
        t.stride[i] = s;
        s *= (ptrdiff_t)shape[i];
    }
    return t;
}

static bool mul_overflows(size_t a, size_t b, size_t *out)
{
    if (a != 0 && b > SIZE_MAX / a)
        return true;
    *out = a * b;
    return false;
}

static bool add_overflows(size_t a, size_t b, size_t *out)
{
    if (b > SIZE_MAX - a)
        return true;
    *out = a + b;
    return false;
}

size_t bicl_tensor_numel(const bicl_tensor *t)
{
    size_t n = 1;
    for (int i = 0; i < t->rank; ++i)
        n *= t->shape[i];
    return n;
}

/* Index of the last element reachable, in elements from the buffer start. */
static bool last_element(const bicl_tensor *t, size_t *last)
{
    size_t acc = t->offset;
    for (int i = 0; i < t->rank; ++i) {
        size_t step;
        if (mul_overflows(t->shape[i] - 1, (size_t)t->stride[i], &step) ||
            add_overflows(acc, step, &acc))
            return false;
    }
    *last = acc;
    return true;
}

/* Output views must not map two indices to one element: with dims sorted by
 * stride, each stride must clear the span of all smaller dims. */
static bool self_overlaps(const bicl_tensor *t)
{
    size_t st[BICL_MAX_RANK], sh[BICL_MAX_RANK];
    int n = 0;
    for (int i = 0; i < t->rank; ++i) {
        if (t->shape[i] == 1)
            continue;
        if (t->stride[i] == 0)
            return true;
        st[n] = (size_t)t->stride[i];
        sh[n] = t->shape[i];
        ++n;
    }
    for (int i = 1; i < n; ++i) /* insertion sort by stride, ascending */
        for (int j = i; j > 0 && st[j] < st[j - 1]; --j) {
            size_t a = st[j], b = sh[j];
            st[j] = st[j - 1];
            sh[j] = sh[j - 1];
            st[j - 1] = a;
            sh[j - 1] = b;
        }
    size_t span = 0; /* largest offset reachable by the smaller dims */
    for (int i = 0; i < n; ++i) {
        if (st[i] <= span)
            return true;
        span += (sh[i] - 1) * st[i];
    }
    return false;
}

static bicl_status check_mem(const bicl_context *ctx, const bicl_tensor *t, const char *name,
                             bool output, size_t bytes)
{
    cl_context mc = NULL;
    cl_int err = clGetMemObjectInfo(t->mem, CL_MEM_CONTEXT, sizeof mc, &mc, NULL);
    if (err != CL_SUCCESS)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: cl_mem rejected by OpenCL (%s)", name,
                         bicl_cl_error_name(err));
    if (mc != ctx->cl_ctx)
        return bicl_fail(BICL_ERR_CONTEXT_MISMATCH, "%s: buffer of another cl_context", name);
    cl_mem_object_type type = 0;
    clGetMemObjectInfo(t->mem, CL_MEM_TYPE, sizeof type, &type, NULL);
    if (type != CL_MEM_OBJECT_BUFFER)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: not a buffer (an image?)", name);
    size_t size = 0;
    clGetMemObjectInfo(t->mem, CL_MEM_SIZE, sizeof size, &size, NULL);
    if (bytes > size)
        return bicl_fail(BICL_ERR_OUT_OF_BOUNDS,
                         "%s: view needs %zu bytes, the buffer has %zu (CL_MEM_SIZE)", name, bytes,
                         size);
    cl_mem_flags flags = 0;
    clGetMemObjectInfo(t->mem, CL_MEM_FLAGS, sizeof flags, &flags, NULL);
    if (output && (flags & CL_MEM_READ_ONLY))
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: output buffer is CL_MEM_READ_ONLY", name);
    return BICL_SUCCESS;
}

bicl_status bicl_tensor_check(const bicl_context *ctx, const bicl_tensor *t, const char *name,
                              bool output, bool broadcast_ok)
{
    if (!t)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: tensor pointer is NULL", name);
    if (!t->mem)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: cl_mem is NULL", name);
    if ((int)t->dtype < 0 || t->dtype >= BICL_DTYPE_COUNT_)
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "%s: unknown dtype %d", name, (int)t->dtype);
    if (t->rank < 1 || t->rank > BICL_MAX_RANK)
        return bicl_fail(BICL_ERR_INVALID_RANK, "%s: rank %d (must be 1..%d)", name, t->rank,
                         BICL_MAX_RANK);
    size_t n = 1;
    for (int i = 0; i < t->rank; ++i) {
        if (t->shape[i] == 0)
            return bicl_fail(BICL_ERR_ZERO_EXTENT, "%s: shape[%d] is 0", name, i);
        if (mul_overflows(n, t->shape[i], &n))
            return bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "%s: element count overflows", name);
        if (t->stride[i] < 0)
            return bicl_fail(BICL_ERR_INVALID_STRIDE, "%s: stride[%d] = %td is negative", name, i,
                             t->stride[i]);
        if (t->stride[i] == 0 && t->shape[i] > 1 && !broadcast_ok)
            return bicl_fail(BICL_ERR_INVALID_STRIDE,
                             "%s: stride[%d] is 0 (broadcast) where it is not allowed", name, i);
    }
    size_t last = 0, bytes = 0;
    if (!last_element(t, &last) || add_overflows(last, 1, &bytes) ||
        mul_overflows(bytes, bicl_dtype_size(t->dtype), &bytes))
        return bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "%s: the view's last byte overflows size_t",
                         name);
    if (output && self_overlaps(t))
        return bicl_fail(BICL_ERR_OVERLAPPING_VIEW, "%s: output view overlaps itself", name);
    return check_mem(ctx, t, name, output, bytes);
}

bicl_status bicl_dtype_check(const bicl_tensor *t, const char *name, unsigned allowed)
{
    if (!t)
        return BICL_SUCCESS;
    if ((int)t->dtype < 0 || t->dtype >= BICL_DTYPE_COUNT_ || !(allowed & (1u << t->dtype)))
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "%s: dtype %s is not accepted here", name,
                         bicl_dtype_name(t->dtype));
    return BICL_SUCCESS;
}

bicl_status bicl_broadcast_view(const bicl_tensor *in, const char *name, const bicl_tensor *target,
                                bicl_tensor *out)
{
    if (in->rank > target->rank)
        return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s has rank %d, more than the output's %d", name,
                         in->rank, target->rank);
    bicl_tensor v = *in;
    v.rank = target->rank;
    int shift = target->rank - in->rank;
    for (int d = target->rank - 1; d >= 0; --d) {
        int src = d - shift;
        size_t ext = src >= 0 ? in->shape[src] : 1;
        ptrdiff_t st = src >= 0 ? in->stride[src] : 0;
        if (ext != target->shape[d] && ext != 1)
            return bicl_fail(BICL_ERR_SHAPE_MISMATCH,
                             "%s dim %d has extent %zu, which cannot broadcast to %zu", name, src,
                             ext, target->shape[d]);
        v.shape[d] = target->shape[d];
        v.stride[d] = ext == 1 ? 0 : st;
    }
    *out = v;
    return BICL_SUCCESS;
}

bicl_status bicl_shapes_equal(const bicl_tensor *a, const char *an, const bicl_tensor *b,
                              const char *bn)
{
    bool same = a->rank == b->rank;
    for (int i = 0; same && i < a->rank; ++i)
        same = a->shape[i] == b->shape[i];
    if (same)
        return BICL_SUCCESS;
    char sa[96] = "", sb[96] = "";
    for (int i = 0, w = 0; i < a->rank; ++i)
        w += snprintf(sa + w, sizeof sa - (size_t)w, "%s%zu", i ? "," : "", a->shape[i]);
    for (int i = 0, w = 0; i < b->rank; ++i)
        w += snprintf(sb + w, sizeof sb - (size_t)w, "%s%zu", i ? "," : "", b->shape[i]);
    return bicl_fail(BICL_ERR_SHAPE_MISMATCH, "%s has shape [%s], %s has shape [%s]", an, sa, bn,
                     sb);
}

/* ----------------------------------------------------------------- aliasing */

typedef struct resolved_view {
    cl_mem base;
    size_t first_byte, end_byte; /* [first, end) */
    size_t elem;
    size_t base_elem_offset; /* offset in elements from the base buffer, if aligned */
    bool elem_aligned;
} resolved_view;

static void resolve(const bicl_tensor *t, resolved_view *r)
{
    cl_mem parent = NULL;
    size_t sub_off = 0;
    r->base = t->mem;
    if (clGetMemObjectInfo(t->mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) ==
            CL_SUCCESS &&
        parent) {
        clGetMemObjectInfo(t->mem, CL_MEM_OFFSET, sizeof sub_off, &sub_off, NULL);
        r->base = parent;
    }
    r->elem = bicl_dtype_size(t->dtype);
    size_t last = 0;
    last_element(t, &last);
    r->first_byte = sub_off + t->offset * r->elem;
    r->end_byte = sub_off + (last + 1) * r->elem;
    r->elem_aligned = sub_off % r->elem == 0;
    r->base_elem_offset = sub_off / r->elem + t->offset;
}

/* Is there c with |c_k| < bound_k and sum c_k * s_k == d? Dims sorted by stride,
 * descending; rest[k] is the largest |sum| the dims after k can reach. Exact search;
 * gives up (answers yes) past a small budget. */
typedef struct overlap_problem {
    int n;
    long long s[BICL_MAX_RANK], bound[BICL_MAX_RANK], rest[BICL_MAX_RANK];
} overlap_problem;

static bool solvable(const overlap_problem *p, int k, long long d, int *budget)
{
    if (k >= p->n || k >= BICL_MAX_RANK)
        return d == 0;
    long long sk = p->s[k], bk = p->bound[k] - 1, rest = p->rest[k];
    /* candidates: c = ceil((d - rest) / sk) .. floor((d + rest) / sk), |c| <= bk */
    long long cmin = (d - rest) >= 0 ? (d - rest + sk - 1) / sk : -((rest - d) / sk);
    long long cmax = (d + rest) >= 0 ? (d + rest) / sk : -((-(d + rest) + sk - 1) / sk);
    if (cmin < -bk)
        cmin = -bk;
    if (cmax > bk)
        cmax = bk;
    for (long long c = cmin; c <= cmax; ++c) {
        if (--*budget < 0)
            return true;
        if (solvable(p, k + 1, d - c * sk, budget))
            return true;
    }
    return false;
}

/* Exact test for two views with the same element size and the same strides
 * (e.g. q and k heads inside one fused qkv buffer). */
static bool same_stride_views_overlap(const bicl_tensor *a, const resolved_view *ra,
                                      const bicl_tensor *b, const resolved_view *rb)
{
    overlap_problem p;
    p.n = 0;
    for (int i = 0; i < a->rank; ++i) {
        size_t ext = a->shape[i] > b->shape[i] ? a->shape[i] : b->shape[i];
        if (ext == 1 || a->stride[i] == 0)
            continue;
        p.s[p.n] = (long long)a->stride[i];
        p.bound[p.n] = (long long)ext;
        ++p.n;
    }
    for (int i = 1; i < p.n; ++i)
        for (int j = i; j > 0 && p.s[j] > p.s[j - 1]; --j) {
            long long t1 = p.s[j], t2 = p.bound[j];
            p.s[j] = p.s[j - 1];
            p.bound[j] = p.bound[j - 1];
            p.s[j - 1] = t1;
            p.bound[j - 1] = t2;
        }
    long long rest = 0;
    for (int k = p.n - 1; k >= 0; --k) {
        p.rest[k] = rest;
        rest += (p.bound[k] - 1) * p.s[k];
    }
    long long d = (long long)rb->base_elem_offset - (long long)ra->base_elem_offset;
    int budget = 4096;
    return solvable(&p, 0, d, &budget);
}

static bool same_strides(const bicl_tensor *a, const bicl_tensor *b)
{
    if (a->rank != b->rank || bicl_dtype_size(a->dtype) != bicl_dtype_size(b->dtype))
        return false;
    for (int i = 0; i < a->rank; ++i)
        if (a->stride[i] != b->stride[i] && a->shape[i] > 1 && b->shape[i] > 1)
            return false;
    return true;
}

static bool identical_views(const bicl_tensor *a, const resolved_view *ra, const bicl_tensor *b,
                            const resolved_view *rb)
{
    if (ra->first_byte != rb->first_byte || ra->elem != rb->elem || a->rank != b->rank)
        return false;
    for (int i = 0; i < a->rank; ++i)
        if (a->shape[i] != b->shape[i] || (a->shape[i] > 1 && a->stride[i] != b->stride[i]))
            return false;
    return true;
}

bicl_status bicl_alias_check(const bicl_tensor *out, const char *on, const bicl_tensor *other,
                             const char *oth, bool identical_ok)
{
    resolved_view ro, rt;
    resolve(out, &ro);
    resolve(other, &rt);
    if (ro.base != rt.base || ro.end_byte <= rt.first_byte || rt.end_byte <= ro.first_byte)
        return BICL_SUCCESS;
    if (identical_views(out, &ro, other, &rt))
        return identical_ok ? BICL_SUCCESS
                            : bicl_fail(BICL_ERR_ALIASING,
                                        "%s and %s are the same view, which "
                                        "this op does not allow",
                                        on, oth);
    if (ro.elem_aligned && rt.elem_aligned && same_strides(out, other) &&
        !same_stride_views_overlap(out, &ro, other, &rt))
        return BICL_SUCCESS;
    return bicl_fail(BICL_ERR_ALIASING, "%s overlaps %s (and is not the identical view)", on, oth);
}

/* ------------------------------------------------------- queue, wait list */

bicl_status bicl_queue_check(const bicl_context *ctx, cl_command_queue q, cl_uint n_wait,
                             const cl_event *wait)
{
    if (!q)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "queue is NULL");
    cl_context qc = NULL;
    cl_int err = clGetCommandQueueInfo(q, CL_QUEUE_CONTEXT, sizeof qc, &qc, NULL);
    if (err != CL_SUCCESS)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "queue rejected by OpenCL (%s)",
                         bicl_cl_error_name(err));
    cl_device_id qd = NULL;
    clGetCommandQueueInfo(q, CL_QUEUE_DEVICE, sizeof qd, &qd, NULL);
    if (qc != ctx->cl_ctx || qd != ctx->device)
        return bicl_fail(BICL_ERR_CONTEXT_MISMATCH,
                         "the queue belongs to another cl_context or device");
    if ((n_wait > 0) != (wait != NULL))
        return bicl_fail(BICL_ERR_INVALID_WAIT_LIST, "n_wait is %u but the list is %s",
                         (unsigned)n_wait, wait ? "not NULL" : "NULL");
    for (cl_uint i = 0; i < n_wait; ++i) {
        if (!wait[i])
            return bicl_fail(BICL_ERR_INVALID_WAIT_LIST, "wait[%u] is NULL", (unsigned)i);
        cl_context ec = NULL;
        err = clGetEventInfo(wait[i], CL_EVENT_CONTEXT, sizeof ec, &ec, NULL);
        if (err != CL_SUCCESS)
            return bicl_fail(BICL_ERR_INVALID_WAIT_LIST, "wait[%u] rejected by OpenCL (%s)",
                             (unsigned)i, bicl_cl_error_name(err));
        if (ec != ctx->cl_ctx)
            return bicl_fail(BICL_ERR_CONTEXT_MISMATCH, "wait[%u] belongs to another cl_context",
                             (unsigned)i);
    }
    return BICL_SUCCESS;
}

/* ---------------------------------------------------------- iteration space */

void bicl_iter_build(bicl_iter *it, const bicl_tensor *const *ops, int n_ops)
{
    memset(it, 0, sizeof *it);
    it->n_operands = n_ops;
    const bicl_tensor *t0 = ops[0];
    int r = 0;
    for (int d = 0; d < t0->rank; ++d) {
        if (t0->shape[d] == 1)
            continue;
        bool merge = r > 0;
        for (int o = 0; merge && o < n_ops; ++o)
            merge = it->stride[o][r - 1] == (size_t)ops[o]->stride[d] * t0->shape[d];
        if (merge) {
            it->shape[r - 1] *= t0->shape[d];
            for (int o = 0; o < n_ops; ++o)
                it->stride[o][r - 1] = (size_t)ops[o]->stride[d];
            continue;
        }
        it->shape[r] = t0->shape[d];
        for (int o = 0; o < n_ops; ++o)
            it->stride[o][r] = (size_t)ops[o]->stride[d];
        ++r;
    }
    if (r == 0) { /* a single element */
        it->shape[0] = 1;
        for (int o = 0; o < n_ops; ++o)
            it->stride[o][0] = 1;
        r = 1;
    }
    it->rank = r;
    it->n = 1;
    for (int d = 0; d < r; ++d)
        it->n *= it->shape[d];
    it->flat = r == 1;
    for (int o = 0; it->flat && o < n_ops; ++o)
        it->flat = it->stride[o][0] == 1;
}
