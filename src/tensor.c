/* tensor.c - host-side validation of views, queues and wait lists (design rule 5),
 * aliasing checks, and the iteration space of an elementwise op. */
#include "tensor.h"
#include "context_state.h"
#include "status.h"

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

static bool self_overlaps(const bicl_tensor *t);

/* Every property the checks read of one cl_mem, queried at once; none of them can change
 * while the handle lives. */
static void query_facts(cl_mem mem, bicl_mem_facts *f)
{
    memset(f, 0, sizeof *f);
    f->mem = mem;
    f->err = clGetMemObjectInfo(mem, CL_MEM_CONTEXT, sizeof f->context, &f->context, NULL);
    if (f->err != CL_SUCCESS)
        return;
    clGetMemObjectInfo(mem, CL_MEM_TYPE, sizeof f->type, &f->type, NULL);
    clGetMemObjectInfo(mem, CL_MEM_SIZE, sizeof f->size, &f->size, NULL);
    f->flags_unknown =
        clGetMemObjectInfo(mem, CL_MEM_FLAGS, sizeof f->flags, &f->flags, NULL) != CL_SUCCESS;
    if (clGetMemObjectInfo(mem, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof f->parent, &f->parent, NULL) !=
        CL_SUCCESS)
        f->parent = NULL;
    if (f->parent &&
        clGetMemObjectInfo(mem, CL_MEM_OFFSET, sizeof f->origin, &f->origin, NULL) != CL_SUCCESS)
        f->origin_unknown = true;
    /* zero copy: where the engine's memory starts (the vector kernels' alignment) */
    if (!f->flags_unknown && (f->flags & CL_MEM_USE_HOST_PTR) &&
        clGetMemObjectInfo(mem, CL_MEM_HOST_PTR, sizeof f->host, &f->host, NULL) != CL_SUCCESS)
        f->host = NULL;
}

/* The facts of mem: the memo's entry, else queried into a new entry (into *scratch where
 * the memo is full). The pointer lives as long as the memo or the scratch. Nothing is kept
 * across calls: a handle released after a call may come back as another buffer (on
 * NVIDIA's driver the twenty-seventh session's cache of these facts, which a destructor
 * callback was to clear, still held a released buffer's size when its handle came back;
 * removed, docs/performance.md). */
static const bicl_mem_facts *facts_of(bicl_memo *memo, cl_mem mem, bicl_mem_facts *scratch)
{
    for (int i = 0; i < memo->n; ++i)
        if (memo->facts[i].mem == mem)
            return &memo->facts[i];
    bicl_mem_facts *f = memo->n < BICL_MEMO_MAX ? &memo->facts[memo->n++] : scratch;
    query_facts(mem, f);
    return f;
}

static bicl_status check_mem(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *t,
                             const char *name, bool output, size_t bytes)
{
    bicl_mem_facts scratch;
    const bicl_mem_facts *f = facts_of(memo, t->mem, &scratch);
    if (f->err != CL_SUCCESS)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: cl_mem rejected by OpenCL (%s)", name,
                         bicl_cl_error_name(f->err));
    if (f->context != ctx->cl_ctx)
        return bicl_fail(BICL_ERR_CONTEXT_MISMATCH, "%s: buffer of another cl_context", name);
    if (f->type != CL_MEM_OBJECT_BUFFER)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: not a buffer (an image?)", name);
    if (bytes > f->size)
        return bicl_fail(BICL_ERR_OUT_OF_BOUNDS,
                         "%s: view needs %zu bytes, the buffer has %zu (CL_MEM_SIZE)", name, bytes,
                         f->size);
    if (output && (f->flags & CL_MEM_READ_ONLY))
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: output buffer is CL_MEM_READ_ONLY", name);
    /* A kernel reading a CL_MEM_WRITE_ONLY buffer is undefined behaviour in OpenCL. */
    if (!output && (f->flags & CL_MEM_WRITE_ONLY))
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: input buffer is CL_MEM_WRITE_ONLY", name);
    return BICL_SUCCESS;
}

/* The largest power of two dividing v, at most cap (cap itself for v == 0). */
static size_t low_bit(uintptr_t v, size_t cap)
{
    uintptr_t b = v & (~v + 1);
    return v == 0 || b > cap ? cap : (size_t)b;
}

size_t bicl_mem_align(const bicl_context *ctx, bicl_memo *memo, cl_mem mem)
{
    size_t base = ctx->info.mem_base_align_bytes ? (size_t)ctx->info.mem_base_align_bytes : 1;
    bicl_mem_facts scratch;
    const bicl_mem_facts *f = facts_of(memo, mem, &scratch);
    if (f->err != CL_SUCCESS)
        return 1;
    if (f->parent)
        return f->origin_unknown ? 1 : low_bit(f->origin, bicl_mem_align(ctx, memo, f->parent));
    /* The runtime places its own allocations on the device's base alignment; a buffer
     * over the engine's memory (zero copy) starts wherever that memory does. */
    if (f->flags_unknown)
        return 1;
    if (!(f->flags & CL_MEM_USE_HOST_PTR))
        return base;
    return f->host ? low_bit((uintptr_t)f->host, base) : 1;
}

bicl_status bicl_view_check(const bicl_tensor *t, const char *name, bool output, bool broadcast_ok,
                            size_t *bytes)
{
    if (!t)
        return bicl_fail(BICL_ERR_NULL_POINTER, "%s: tensor pointer is NULL", name);
    if ((int)t->dtype < 0 || t->dtype >= BICL_DTYPE_COUNT_)
        return bicl_fail(BICL_ERR_UNSUPPORTED_DTYPE, "%s: unknown dtype %d", name, (int)t->dtype);
    if (t->rank < 1 || t->rank > BICL_MAX_RANK)
        return bicl_fail(BICL_ERR_INVALID_RANK, "%s: rank %d (must be 1..%d)", name, t->rank,
                         BICL_MAX_RANK);
    /* Every extent first: a view with a zero extent has no elements, whatever its
     * strides say (a contiguous stride computed from a 0 extent is 0 too). */
    for (int i = 0; i < t->rank; ++i)
        if (t->shape[i] == 0)
            return bicl_fail(BICL_ERR_ZERO_EXTENT, "%s: shape[%d] is 0", name, i);
    size_t n = 1;
    for (int i = 0; i < t->rank; ++i) {
        if (mul_overflows(n, t->shape[i], &n))
            return bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "%s: element count overflows", name);
        if (t->stride[i] < 0)
            return bicl_fail(BICL_ERR_INVALID_STRIDE, "%s: stride[%d] = %td is negative", name, i,
                             t->stride[i]);
        if (t->stride[i] == 0 && t->shape[i] > 1 && !broadcast_ok)
            return bicl_fail(BICL_ERR_INVALID_STRIDE,
                             "%s: stride[%d] is 0 (broadcast) where it is not allowed", name, i);
    }
    size_t last = 0, end = 0;
    if (!last_element(t, &last) || add_overflows(last, 1, &end) ||
        mul_overflows(end, bicl_dtype_size(t->dtype), &end))
        return bicl_fail(BICL_ERR_EXTENT_OVERFLOW, "%s: the view's last byte overflows size_t",
                         name);
    if (output && self_overlaps(t))
        return bicl_fail(BICL_ERR_OVERLAPPING_VIEW, "%s: output view overlaps itself", name);
    *bytes = end;
    return BICL_SUCCESS;
}

bicl_status bicl_tensor_check(const bicl_context *ctx, bicl_memo *memo, const bicl_tensor *t,
                              const char *name, bool output, bool broadcast_ok)
{
    /* The NULL handle first: it is the engine's most likely mistake, and it names the
     * argument more precisely than the shape checks that follow. */
    if (t && !t->mem)
        return bicl_fail(BICL_ERR_INVALID_HANDLE, "%s: cl_mem is NULL", name);
    size_t bytes = 0;
    bicl_status st = bicl_view_check(t, name, output, broadcast_ok, &bytes);
    if (st != BICL_SUCCESS)
        return st;
    return check_mem(ctx, memo, t, name, output, bytes);
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

/* Is there c with lo_k <= c_k <= hi_k and sum c_k * s_k == d? Dims sorted by stride,
 * descending; the dims after k can reach sums in [rlo[k], rhi[k]]. Exact search;
 * gives up (answers yes) past a small budget. Every value stays within 2^61 (checked by
 * the caller), so no sum or product here overflows. */
typedef struct overlap_problem {
    int n;
    long long s[BICL_MAX_RANK], lo[BICL_MAX_RANK], hi[BICL_MAX_RANK];
    long long rlo[BICL_MAX_RANK], rhi[BICL_MAX_RANK];
} overlap_problem;

static long long div_floor(long long a, long long b) /* b > 0 */
{
    return a >= 0 ? a / b : -((-a + b - 1) / b);
}

static long long div_ceil(long long a, long long b) /* b > 0 */
{
    return a >= 0 ? (a + b - 1) / b : -(-a / b);
}

static bool solvable(const overlap_problem *p, int k, long long d, int *budget)
{
    if (k >= p->n || k >= BICL_MAX_RANK)
        return d == 0;
    long long sk = p->s[k];
    /* what is left, d - c * sk, must be a sum the later dims can reach */
    long long cmin = div_ceil(d - p->rhi[k], sk), cmax = div_floor(d - p->rlo[k], sk);
    if (cmin < p->lo[k])
        cmin = p->lo[k];
    if (cmax > p->hi[k])
        cmax = p->hi[k];
    for (long long c = cmin; c <= cmax; ++c) {
        if (--*budget < 0)
            return true;
        if (solvable(p, k + 1, d - c * sk, budget))
            return true;
    }
    return false;
}

/* Largest magnitude the search works with; anything beyond answers "may overlap". */
#define OVERLAP_LIMIT ((long long)1 << 61)

/* Sorts the dims by stride, descending (the search then tries the coarse steps first),
 * fills rlo/rhi, and runs the search for sum c_k * s_k == d. Yes when the budget runs
 * out or a sum could leave [-2^61, 2^61]: "may overlap" is the safe answer. */
static bool dims_solvable(overlap_problem *p, long long d)
{
    for (int i = 1; i < p->n; ++i)
        for (int j = i; j > 0 && p->s[j] > p->s[j - 1]; --j) {
            long long ts = p->s[j], tl = p->lo[j], th = p->hi[j];
            p->s[j] = p->s[j - 1];
            p->lo[j] = p->lo[j - 1];
            p->hi[j] = p->hi[j - 1];
            p->s[j - 1] = ts;
            p->lo[j - 1] = tl;
            p->hi[j - 1] = th;
        }
    long long rlo = 0, rhi = 0;
    for (int k = p->n - 1; k >= 0; --k) {
        p->rlo[k] = rlo;
        p->rhi[k] = rhi;
        if (p->hi[k] > (OVERLAP_LIMIT - rhi) / p->s[k] ||
            -p->lo[k] > (OVERLAP_LIMIT + rlo) / p->s[k])
            return true;
        rhi += p->hi[k] * p->s[k];
        rlo += p->lo[k] * p->s[k];
    }
    int budget = 4096;
    return solvable(p, 0, d, &budget);
}

/* Exact test for two views with the same element size and the same strides wherever
 * both have an extent > 1 (e.g. q and k heads inside one fused qkv buffer), their
 * first elements d elements apart. Index i of a and j of b meet when
 * sum_k (i_k - j_k) * s_k == d, with 0 <= i_k < a's extent and 0 <= j_k < b's, and s_k
 * the stride of whichever view moves along dim k: a dim of extent 1 in one view still
 * moves the other. */
static bool same_stride_views_overlap(const bicl_tensor *a, const bicl_tensor *b, long long d)
{
    overlap_problem p;
    p.n = 0;
    for (int i = 0; i < a->rank; ++i) {
        size_t st = (size_t)(a->shape[i] > 1 ? a->stride[i] : b->stride[i]);
        if ((a->shape[i] == 1 && b->shape[i] == 1) || st == 0)
            continue;
        if (a->shape[i] > (size_t)OVERLAP_LIMIT || b->shape[i] > (size_t)OVERLAP_LIMIT ||
            st > (size_t)OVERLAP_LIMIT)
            return true;
        p.s[p.n] = (long long)st;
        p.hi[p.n] = (long long)a->shape[i] - 1;
        p.lo[p.n] = 1 - (long long)b->shape[i];
        ++p.n;
    }
    return dims_solvable(&p, d);
}

/* An output view maps two indices to one element when some nonzero c, |c_k| < shape_k,
 * has sum c_k * s_k == 0. Quick proof first: with dims sorted by stride, each stride
 * clears the span of all smaller dims (every dense or padded layout). Otherwise the
 * exact search, once per dim j taken as the largest-stride dim with c_j != 0 (and
 * c_j > 0, since -c is a solution too): [2, 3] with strides [3, 2] is accepted. */
static bool self_overlaps(const bicl_tensor *t)
{
    long long st[BICL_MAX_RANK], sh[BICL_MAX_RANK];
    int n = 0;
    for (int i = 0; i < t->rank; ++i) {
        if (t->shape[i] == 1)
            continue;
        if (t->stride[i] == 0)
            return true;
        if (t->shape[i] > (size_t)OVERLAP_LIMIT || (size_t)t->stride[i] > (size_t)OVERLAP_LIMIT)
            return true;
        st[n] = (long long)t->stride[i];
        sh[n] = (long long)t->shape[i];
        ++n;
    }
    for (int i = 1; i < n; ++i) /* insertion sort by stride, ascending */
        for (int j = i; j > 0 && st[j] < st[j - 1]; --j) {
            long long a = st[j], b = sh[j];
            st[j] = st[j - 1];
            sh[j] = sh[j - 1];
            st[j - 1] = a;
            sh[j - 1] = b;
        }
    /* The caller proved the view's last element fits in size_t, so span does too. */
    bool cleared = true;
    size_t span = 0; /* largest offset reachable by the smaller dims */
    for (int i = 0; cleared && i < n; ++i) {
        cleared = (size_t)st[i] > span;
        span += (size_t)(sh[i] - 1) * (size_t)st[i];
    }
    if (cleared)
        return false;
    for (int j = 0; j < n; ++j) { /* c_k = 0 for the dims with a larger stride than j */
        overlap_problem p;
        p.n = 0;
        for (int k = 0; k <= j; ++k) {
            p.s[p.n] = st[k];
            p.lo[p.n] = k == j ? 1 : 1 - sh[k];
            p.hi[p.n] = sh[k] - 1;
            ++p.n;
        }
        if (dims_solvable(&p, 0))
            return true;
    }
    return false;
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

static bool identical_views(const bicl_tensor *a, const bicl_tensor *b)
{
    if (a->rank != b->rank || bicl_dtype_size(a->dtype) != bicl_dtype_size(b->dtype))
        return false;
    for (int i = 0; i < a->rank; ++i)
        if (a->shape[i] != b->shape[i] || (a->shape[i] > 1 && a->stride[i] != b->stride[i]))
            return false;
    return true;
}

/* Byte range [first, end) of a checked view whose buffer starts at byte origin of the
 * base buffer; false if it does not fit in size_t. */
static bool byte_range(const bicl_tensor *t, size_t origin, size_t *first, size_t *end)
{
    size_t elem = bicl_dtype_size(t->dtype), last = 0, f = 0, e = 0;
    if (!last_element(t, &last) || mul_overflows(t->offset, elem, &f) ||
        add_overflows(origin, f, first) || add_overflows(last, 1, &e) ||
        mul_overflows(e, elem, &e) || add_overflows(origin, e, end))
        return false;
    return true;
}

bicl_view_relation bicl_views_relate(const bicl_tensor *a, size_t a_origin, const bicl_tensor *b,
                                     size_t b_origin)
{
    size_t fa, ea, fb, eb;
    if (!byte_range(a, a_origin, &fa, &ea) || !byte_range(b, b_origin, &fb, &eb))
        return BICL_VIEWS_OVERLAP;
    if (ea <= fb || eb <= fa)
        return BICL_VIEWS_DISJOINT;
    if (fa == fb && identical_views(a, b))
        return BICL_VIEWS_IDENTICAL;
    size_t elem = bicl_dtype_size(a->dtype);
    if (!same_strides(a, b) || a_origin % elem != 0 || b_origin % elem != 0)
        return BICL_VIEWS_OVERLAP; /* the byte ranges meet: assume the worst */
    /* Both views lie on one grid of elem-sized cells: compare cell indices. */
    size_t ca = fa / elem, cb = fb / elem;
    size_t dist = ca > cb ? ca - cb : cb - ca;
    if (dist > (size_t)OVERLAP_LIMIT)
        return BICL_VIEWS_OVERLAP;
    long long d = ca > cb ? -(long long)dist : (long long)dist;
    return same_stride_views_overlap(a, b, d) ? BICL_VIEWS_OVERLAP : BICL_VIEWS_DISJOINT;
}

/* The buffer a view's cl_mem is carved from, and where it starts in it (*known false:
 * a sub-buffer whose CL_MEM_OFFSET the runtime did not give). */
static cl_mem base_buffer(bicl_memo *memo, const bicl_tensor *t, size_t *origin, bool *known)
{
    bicl_mem_facts scratch;
    const bicl_mem_facts *f = facts_of(memo, t->mem, &scratch);
    *origin = f->parent ? f->origin : 0;
    *known = !f->origin_unknown;
    return f->parent ? f->parent : t->mem;
}

bicl_status bicl_alias_check(bicl_memo *memo, const bicl_tensor *out, const char *on,
                             const bicl_tensor *other, const char *oth, bool identical_ok)
{
    size_t oo = 0, to = 0;
    bool oo_known = true, to_known = true;
    /* one cl_mem: one origin, whatever it is; an origin not known: the views may meet
     * anywhere in their buffer */
    if (out->mem != other->mem &&
        base_buffer(memo, out, &oo, &oo_known) != base_buffer(memo, other, &to, &to_known))
        return BICL_SUCCESS;
    bicl_view_relation rel =
        oo_known && to_known ? bicl_views_relate(out, oo, other, to) : BICL_VIEWS_OVERLAP;
    switch (rel) {
    case BICL_VIEWS_DISJOINT:
        return BICL_SUCCESS;
    case BICL_VIEWS_IDENTICAL:
        return identical_ok ? BICL_SUCCESS
                            : bicl_fail(BICL_ERR_ALIASING,
                                        "%s and %s are the same view, which "
                                        "this op does not allow",
                                        on, oth);
    default:
        return bicl_fail(BICL_ERR_ALIASING, "%s overlaps %s (and is not the identical view)", on,
                         oth);
    }
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
