/* engine.h - what the engine-client tests share. These programs see bicl only as an
 * engine does: the installed headers and library (find_package(bicl)), their own
 * cl_context, queues and buffers, and the public host references. */
#ifndef BICL_ENGINE_H
#define BICL_ENGINE_H

#include <bicl/bicl.h>

#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

/* An engine's own OpenCL objects and a bicl context over them. */
typedef struct engine {
    cl_context cl;
    cl_device_id dev;
    cl_command_queue queue; /* in order */
    bicl_context *bicl;
    size_t base_align; /* CL_DEVICE_MEM_BASE_ADDR_ALIGN in bytes */
} engine;

/* The test device: $BICL_TEST_DEVICE, else $BICL_DEVICE, else "pocl". */
const char *engine_device_spec(void);
/* CMocka group setup/teardown: state is an engine. */
int engine_setup(void **state);
int engine_teardown(void **state);
/* The device of the spec, found through a throwaway bicl context. */
cl_device_id engine_find_device(void);
/* A bicl context over an engine's existing cl_context. */
bicl_context *engine_bicl_context(cl_context cl, cl_device_id dev);

/* Asserts BICL_SUCCESS, printing bicl_last_error otherwise. */
#define ENGINE_OK(call) engine_ok((call), #call, __FILE__, __LINE__)
void engine_ok(bicl_status st, const char *call, const char *file, int line);
#define ENGINE_CL(call) engine_cl_ok((call), #call, __FILE__, __LINE__)
void engine_cl_ok(cl_int err, const char *call, const char *file, int line);

/* xorshift64*. */
uint64_t engine_rand(uint64_t *s);
/* n finite values of dtype (as bits) in about [-8, 8]. */
void engine_fill(bicl_dtype dt, void *out, size_t n, uint64_t seed);
/* A contiguous view. */
bicl_tensor engine_view(cl_mem mem, bicl_dtype dt, size_t offset, int rank, const size_t *shape);
/* Buffer over host memory (CL_MEM_USE_HOST_PTR), as a zero-copy weight or activation
 * buffer over an mmap'd file is. */
cl_mem engine_host_buffer(const engine *e, cl_mem_flags rw, void *host, size_t bytes);
/* Reads bytes of a buffer (blocking). */
void engine_read(const engine *e, cl_mem mem, size_t offset, size_t bytes, void *out);
/* Fails naming the first differing element. */
void engine_assert_bits(const void *got, const void *want, size_t n, size_t elem, const char *what);

#endif
