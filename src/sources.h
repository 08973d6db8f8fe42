/* sources.h - layer 1: the op families and their embedded OpenCL sources
 * (sources.c and the generated bicl_kernels.c). */
#ifndef BICL_SRC_SOURCES_H
#define BICL_SRC_SOURCES_H

#include "bicl/bicl.h"

typedef enum bicl_family {
    BICL_FAMILY_CAST = 0,
    BICL_FAMILY_ROPE = 1,
    BICL_FAMILY_UNARY = 2,
    BICL_FAMILY_GLU = 3,
    BICL_FAMILY_BINARY = 4,
    BICL_FAMILY_MASK = 5,
    BICL_FAMILY_SELFTEST = 6, /* the device self-test (src/selftest.c), not an op */
    BICL_FAMILY_MROPE = 7,    /* M-RoPE's position builders (src/mrope.c; its rotation: ROPE) */
    BICL_FAMILY_COUNT
} bicl_family;

typedef struct bicl_source {
    const char *name; /* family name, e.g. "cast" */
    const char *text; /* the .cl with its cl/ headers expanded */
    size_t size;
} bicl_source;

/* Generated at build time from cl/ (cmake/embed_cl.c). */
extern const bicl_source bicl_sources[];
extern const size_t bicl_source_count;
/* Hash of every embedded source, part of the fingerprint. */
uint64_t bicl_sources_hash(void);
const bicl_source *bicl_source_find(const char *name);

#endif
