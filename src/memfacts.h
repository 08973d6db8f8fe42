/* memfacts.h - the immutable facts of a cl_mem that validation needs, remembered per
 * buffer so that a decode loop does not pay six clGetMemObjectInfo calls per operand
 * on every op. */
#ifndef BICL_MEMFACTS_H
#define BICL_MEMFACTS_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>
#include <stdbool.h>
#include <stddef.h>

typedef struct bicl_mem_facts {
    cl_context context;
    cl_mem_object_type type;
    size_t size;
    cl_mem_flags flags;
    cl_mem base;   /* the buffer a sub-buffer is carved from, else the mem itself */
    size_t origin; /* where the mem starts in base */
} bicl_mem_facts;

/* The facts of m: from the process-wide table, else queried (and remembered when a
 * destructor callback could be registered, which forgets them when m is destroyed, so
 * a later buffer at the same address is never mistaken for m). Returns the error of
 * the first failed query (CL_INVALID_MEM_OBJECT for a bad handle). Thread-safe. */
cl_int bicl_mem_facts_get(cl_mem m, bicl_mem_facts *out);

/* Whether m's facts are remembered now (for tests: m is only compared, never used). */
bool bicl_mem_facts_known(cl_mem m);

#endif
