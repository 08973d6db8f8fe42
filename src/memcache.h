/* memcache.h - layer 1: what OpenCL said of each cl_mem, kept across calls (memcache.c).
 *
 * A call validates every buffer it is given (design rule 5) from its bicl_mem_facts:
 * five to seven clGetMemObjectInfo each (on NVIDIA seven buffer queries and a queue query
 * cost about 0.4 us per enqueue in the twenty-third session's measurement,
 * docs/performance.md). None of those facts change while the handle lives, so
 * the facts of a handle that answered are kept, process-wide, until OpenCL destroys the
 * buffer: a destructor callback (clSetMemObjectDestructorCallback, OpenCL 1.1), which
 * OpenCL runs before it frees the object, removes the entry, so a handle that comes back
 * as another buffer is asked again. A buffer whose callback cannot be set is asked on
 * every call, as before. BICL_MEM_CACHE=0 in the environment (read once) turns the cache
 * off. Thread-safe; the callbacks hold no pointer into a context. */
#ifndef BICL_SRC_MEMCACHE_H
#define BICL_SRC_MEMCACHE_H

#include "bicl/bicl.h"

#include <stdbool.h>

/* What a call learns of one cl_mem (clGetMemObjectInfo), asked once per call: its views
 * share buffers (in place, q and k in one fused buffer), and the context, type, size,
 * flags, parent, origin and host pointer of a handle never change while it lives. A memo
 * lives for one call only (tensor.h, bicl_memo); across calls the facts are kept until
 * the buffer's destructor callback (below).
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

/* The kept facts of mem into *out: false where none are kept. */
bool bicl_mem_cache_get(cl_mem mem, bicl_mem_facts *out);
/* Keeps f (a handle that answered: f->err == CL_SUCCESS) until its buffer is destroyed;
 * nothing where the cache is off or full or the callback cannot be set. */
void bicl_mem_cache_put(const bicl_mem_facts *f);
/* The handles kept now (tests). */
size_t bicl_mem_cache_count(void);

#endif
