/* status.c - status strings, the per-thread last-error detail, OpenCL error names. */
#define BICL_STATUS_C /* defines bicl_fail: no analyzer macro here */
#include "status.h"

#include <stdarg.h>
#include <stdio.h>

/* One detail buffer per thread: several threads may share a context, and each must
 * read the detail of its own failing call. */
static _Thread_local char last_error[8192];

static const char *const status_strings[BICL_STATUS_COUNT_] = {
    [BICL_SUCCESS] = "BICL_SUCCESS: no error",
    [BICL_ERR_NULL_POINTER] = "BICL_ERR_NULL_POINTER: a required pointer argument is NULL",
    [BICL_ERR_INVALID_HANDLE] = "BICL_ERR_INVALID_HANDLE: an OpenCL handle is NULL or invalid",
    [BICL_ERR_CONTEXT_MISMATCH] =
        "BICL_ERR_CONTEXT_MISMATCH: a queue, buffer or event belongs to another context or device",
    [BICL_ERR_INVALID_WAIT_LIST] = "BICL_ERR_INVALID_WAIT_LIST: the wait list is inconsistent",
    [BICL_ERR_INVALID_RANK] = "BICL_ERR_INVALID_RANK: a tensor rank is out of range",
    [BICL_ERR_ZERO_EXTENT] = "BICL_ERR_ZERO_EXTENT: a tensor has a zero extent",
    [BICL_ERR_EXTENT_OVERFLOW] = "BICL_ERR_EXTENT_OVERFLOW: a tensor's extent overflows size_t",
    [BICL_ERR_INVALID_STRIDE] = "BICL_ERR_INVALID_STRIDE: a stride is negative or not allowed",
    [BICL_ERR_OVERLAPPING_VIEW] =
        "BICL_ERR_OVERLAPPING_VIEW: an output view maps two indices to one element",
    [BICL_ERR_OUT_OF_BOUNDS] = "BICL_ERR_OUT_OF_BOUNDS: a view reaches beyond its buffer",
    [BICL_ERR_UNSUPPORTED_DTYPE] = "BICL_ERR_UNSUPPORTED_DTYPE: the op does not accept this dtype",
    [BICL_ERR_SHAPE_MISMATCH] = "BICL_ERR_SHAPE_MISMATCH: operand shapes do not agree",
    [BICL_ERR_ALIASING] = "BICL_ERR_ALIASING: an output overlaps another operand",
    [BICL_ERR_INVALID_PARAMETER] = "BICL_ERR_INVALID_PARAMETER: a scalar parameter is invalid",
    [BICL_ERR_INVALID_CONFIG] = "BICL_ERR_INVALID_CONFIG: a configuration is invalid",
    [BICL_ERR_UNSAFE_OPTION] =
        "BICL_ERR_UNSAFE_OPTION: a build option that can change numerics was refused",
    [BICL_ERR_UNKNOWN_OPTION] = "BICL_ERR_UNKNOWN_OPTION: a build option is not on the allow list",
    [BICL_ERR_DEVICE_NOT_FOUND] = "BICL_ERR_DEVICE_NOT_FOUND: no device matches",
    [BICL_ERR_DEVICE_UNSUITABLE] =
        "BICL_ERR_DEVICE_UNSUITABLE: the device lacks a capability the contract needs",
    [BICL_ERR_BUILD_FAILED] = "BICL_ERR_BUILD_FAILED: the OpenCL compiler rejected a kernel",
    [BICL_ERR_OUT_OF_HOST_MEMORY] = "BICL_ERR_OUT_OF_HOST_MEMORY: a host allocation failed",
    [BICL_ERR_OUT_OF_DEVICE_MEMORY] =
        "BICL_ERR_OUT_OF_DEVICE_MEMORY: OpenCL could not allocate device memory",
    [BICL_ERR_OUT_OF_RESOURCES] = "BICL_ERR_OUT_OF_RESOURCES: OpenCL reported CL_OUT_OF_RESOURCES",
    [BICL_ERR_OPENCL] = "BICL_ERR_OPENCL: an OpenCL call failed",
    [BICL_ERR_POSITION_OUT_OF_RANGE] =
        "BICL_ERR_POSITION_OUT_OF_RANGE: a position on the device was out of range",
    [BICL_ERR_UNSUPPORTED] = "BICL_ERR_UNSUPPORTED: the device lacks a capability this needs",
    [BICL_ERR_INVALID_ENUM] = "BICL_ERR_INVALID_ENUM: an enum value or option key is unknown",
    [BICL_ERR_DEVICE_AMBIGUOUS] =
        "BICL_ERR_DEVICE_AMBIGUOUS: the device spec matches several devices",
};

const char *bicl_status_string(bicl_status status)
{
    if ((int)status < 0 || (int)status >= BICL_STATUS_COUNT_)
        return "unknown bicl_status";
    return status_strings[status];
}

const char *bicl_last_error(const bicl_context *ctx)
{
    (void)ctx;
    return last_error;
}

void bicl_clear_error(void)
{
    last_error[0] = '\0';
}

bicl_status bicl_fail(bicl_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(last_error, sizeof last_error, fmt, ap);
    va_end(ap);
    return status;
}

const char *bicl_cl_error_name(cl_int err)
{
    switch (err) {
#define E(x)                                                                                       \
    case x:                                                                                        \
        return #x;
        E(CL_SUCCESS)
        E(CL_DEVICE_NOT_FOUND)
        E(CL_DEVICE_NOT_AVAILABLE)
        E(CL_COMPILER_NOT_AVAILABLE)
        E(CL_MEM_OBJECT_ALLOCATION_FAILURE)
        E(CL_OUT_OF_RESOURCES)
        E(CL_OUT_OF_HOST_MEMORY)
        E(CL_BUILD_PROGRAM_FAILURE)
        E(CL_INVALID_VALUE)
        E(CL_INVALID_DEVICE)
        E(CL_INVALID_CONTEXT)
        E(CL_INVALID_COMMAND_QUEUE)
        E(CL_INVALID_MEM_OBJECT)
        E(CL_INVALID_BINARY)
        E(CL_INVALID_BUILD_OPTIONS)
        E(CL_INVALID_PROGRAM)
        E(CL_INVALID_PROGRAM_EXECUTABLE)
        E(CL_INVALID_KERNEL_NAME)
        E(CL_INVALID_KERNEL)
        E(CL_INVALID_ARG_INDEX)
        E(CL_INVALID_ARG_VALUE)
        E(CL_INVALID_ARG_SIZE)
        E(CL_INVALID_KERNEL_ARGS)
        E(CL_INVALID_WORK_DIMENSION)
        E(CL_INVALID_WORK_GROUP_SIZE)
        E(CL_INVALID_WORK_ITEM_SIZE)
        E(CL_INVALID_GLOBAL_OFFSET)
        E(CL_INVALID_EVENT_WAIT_LIST)
        E(CL_INVALID_EVENT)
        E(CL_INVALID_BUFFER_SIZE)
        E(CL_INVALID_GLOBAL_WORK_SIZE)
        E(CL_MISALIGNED_SUB_BUFFER_OFFSET)
        E(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST)
        E(CL_INVALID_PLATFORM)
#undef E
    default:
        return "unknown OpenCL error";
    }
}

bicl_status bicl_fail_cl(cl_int err, const char *what)
{
    bicl_status st = BICL_ERR_OPENCL;
    switch (err) {
    case CL_OUT_OF_HOST_MEMORY:
        st = BICL_ERR_OUT_OF_HOST_MEMORY;
        break;
    case CL_MEM_OBJECT_ALLOCATION_FAILURE:
        st = BICL_ERR_OUT_OF_DEVICE_MEMORY;
        break;
    case CL_OUT_OF_RESOURCES:
        st = BICL_ERR_OUT_OF_RESOURCES;
        break;
    case CL_INVALID_MEM_OBJECT:
    case CL_INVALID_COMMAND_QUEUE:
    case CL_INVALID_EVENT:
        st = BICL_ERR_INVALID_HANDLE;
        break;
    case CL_INVALID_EVENT_WAIT_LIST:
        st = BICL_ERR_INVALID_WAIT_LIST;
        break;
    case CL_INVALID_CONTEXT:
        st = BICL_ERR_CONTEXT_MISMATCH;
        break;
    default:
        break;
    }
    return bicl_fail(st, "%s failed: %s (%d)", what, bicl_cl_error_name(err), (int)err);
}

uint64_t bicl_fnv1a(uint64_t h, const void *data, size_t n)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < n; ++i) {
        h ^= p[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

unsigned bicl_version_number(void)
{
    return BICL_VERSION_NUMBER;
}

const char *bicl_version_string(void)
{
    return BICL_VERSION_STRING;
}

size_t bicl_dtype_size(bicl_dtype dtype)
{
    switch (dtype) {
    case BICL_F32:
    case BICL_I32:
        return 4;
    case BICL_F16:
    case BICL_BF16:
        return 2;
    case BICL_U8:
        return 1;
    default:
        return 0;
    }
}

const char *bicl_dtype_name(bicl_dtype dtype)
{
    static const char *const names[BICL_DTYPE_COUNT_] = {"f32", "f16", "bf16", "i32", "u8"};
    if ((int)dtype < 0 || dtype >= BICL_DTYPE_COUNT_)
        return "?";
    return names[dtype];
}

/* Kernel names use the same tags as bicl_dtype_name. */
const char *bicl_dtype_tag(bicl_dtype d)
{
    return bicl_dtype_name(d);
}
