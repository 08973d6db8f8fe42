/* cuda_alloc.c - a PyTorch pluggable allocator whose segments OpenCL can import.
 *
 * torch.cuda.memory.CUDAPluggableAllocator(path, "bicl_cuda_alloc", "bicl_cuda_free")
 * inside a torch.cuda.MemPool: every segment the caching allocator asks for is made with
 * cuMemCreate (pinned device memory, requestedHandleTypes POSIX file descriptor), mapped
 * with cuMemAddressReserve / cuMemMap / cuMemSetAccess, and exported once with
 * cuMemExportToShareableHandle. bicl.torch_bridge looks a tensor's segment up
 * (bicl_cuda_segment_find), imports the fd into bicl's OpenCL context once
 * (clCreateBufferWithProperties, CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR) and attaches
 * the cl_mem to the segment (bicl_cuda_segment_attach); freeing the segment releases it.
 *
 * libcuda and libOpenCL are opened with dlopen on first use, so the module loads
 * anywhere (on a machine without a CUDA driver bicl_cuda_init reports why). Only cuda.h's
 * and the OpenCL headers' types are needed to build it (python/CMakeLists.txt).
 * Thread-safe: one mutex guards the segment table.
 *
 * It also orders bicl's OpenCL queue with torch's CUDA stream without the host
 * (bicl_cuda_sync_*): two binary semaphores made by OpenCL with an opaque-fd export
 * (cl_khr_external_semaphore_opaque_fd) and imported by CUDA (cuImportExternalSemaphore):
 * torch's stream signals one and the OpenCL queue waits on it before an op; the queue
 * signals the other after the op and torch's stream waits on it. */
#define CL_TARGET_OPENCL_VERSION 300
#include <CL/cl.h>
#include <CL/cl_ext.h>
#include <cuda.h>

/* Older headers (Ubuntu 24.04's) name the semaphore's device list only under its
 * cl_mem spelling; the values are the registry's. */
#ifndef CL_DEVICE_HANDLE_LIST_KHR
#define CL_DEVICE_HANDLE_LIST_KHR 0x2051
#define CL_DEVICE_HANDLE_LIST_END_KHR 0
#endif

#include <dlfcn.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define API __attribute__((visibility("default")))

typedef CUresult (*fn_create)(CUmemGenericAllocationHandle *, size_t, const CUmemAllocationProp *,
                              unsigned long long);
typedef CUresult (*fn_reserve)(CUdeviceptr *, size_t, size_t, CUdeviceptr, unsigned long long);
typedef CUresult (*fn_map)(CUdeviceptr, size_t, size_t, CUmemGenericAllocationHandle,
                           unsigned long long);
typedef CUresult (*fn_set_access)(CUdeviceptr, size_t, const CUmemAccessDesc *, size_t);
typedef CUresult (*fn_export)(void *, CUmemGenericAllocationHandle, CUmemAllocationHandleType,
                              unsigned long long);
typedef CUresult (*fn_granularity)(size_t *, const CUmemAllocationProp *,
                                   CUmemAllocationGranularity_flags);
typedef CUresult (*fn_unmap)(CUdeviceptr, size_t);
typedef CUresult (*fn_release)(CUmemGenericAllocationHandle);
typedef CUresult (*fn_address_free)(CUdeviceptr, size_t);
typedef CUresult (*fn_sync)(void);
typedef CUresult (*fn_error_string)(CUresult, const char **);
typedef int (*fn_cl_release)(void *);
typedef CUresult (*fn_import_sem)(CUexternalSemaphore *, const CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC *);
typedef CUresult (*fn_signal_sem)(const CUexternalSemaphore *,
                                  const CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS *, unsigned int,
                                  CUstream);
typedef CUresult (*fn_wait_sem)(const CUexternalSemaphore *,
                                const CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS *, unsigned int, CUstream);
typedef CUresult (*fn_destroy_sem)(CUexternalSemaphore);

static struct {
    fn_create create;
    fn_reserve reserve;
    fn_map map;
    fn_set_access set_access;
    fn_export export_handle;
    fn_granularity granularity;
    fn_unmap unmap;
    fn_release release;
    fn_address_free address_free;
    fn_sync sync;
    fn_error_string error_string;
    fn_cl_release cl_release;
    fn_import_sem import_sem;
    fn_signal_sem signal_sem;
    fn_wait_sem wait_sem;
    fn_destroy_sem destroy_sem;
} cu;

/* The OpenCL entry points of the semaphore path: core ones from the loader, the
 * extension's through clGetExtensionFunctionAddressForPlatform. */
static struct {
    void *(*extension_address)(cl_platform_id, const char *);
    cl_int (*device_info)(cl_device_id, cl_device_info, size_t, void *, size_t *);
    cl_int (*flush)(cl_command_queue);
} ocl;

/* One segment: its mapping, its allocation handle, the exported fd, and what the bridge
 * attached (the imported cl_mem and the fd given to OpenCL). */
typedef struct segment {
    CUdeviceptr ptr;
    size_t size;
    CUmemGenericAllocationHandle handle;
    int fd;
    int device;
    unsigned long long id;
    void *cl_context; /* the OpenCL context cl_mem belongs to */
    void *cl_mem;
    int cl_fd;
} segment;

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static segment *segs;
static size_t n_segs, cap_segs;
static unsigned long long next_id = 1;
static unsigned long long n_allocs, n_frees, bytes_live;
static char init_error[256];
static char last_error[256];

static void *sym(void *lib, const char *name)
{
    void *p = lib ? dlsym(lib, name) : NULL;
    if (!p && !init_error[0])
        snprintf(init_error, sizeof init_error, "%s not found in libcuda", name);
    return p;
}

static void load(void)
{
    void *lib = dlopen("libcuda.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (!lib) {
        snprintf(init_error, sizeof init_error, "no CUDA driver: %s", dlerror());
        return;
    }
    cu.create = (fn_create)sym(lib, "cuMemCreate");
    cu.reserve = (fn_reserve)sym(lib, "cuMemAddressReserve");
    cu.map = (fn_map)sym(lib, "cuMemMap");
    cu.set_access = (fn_set_access)sym(lib, "cuMemSetAccess");
    cu.export_handle = (fn_export)sym(lib, "cuMemExportToShareableHandle");
    cu.granularity = (fn_granularity)sym(lib, "cuMemGetAllocationGranularity");
    cu.unmap = (fn_unmap)sym(lib, "cuMemUnmap");
    cu.release = (fn_release)sym(lib, "cuMemRelease");
    cu.address_free = (fn_address_free)sym(lib, "cuMemAddressFree");
    cu.sync = (fn_sync)sym(lib, "cuCtxSynchronize");
    cu.error_string = (fn_error_string)sym(lib, "cuGetErrorString");
    /* Optional (the semaphore path reports their absence, blocking ordering remains). */
    cu.import_sem = (fn_import_sem)dlsym(lib, "cuImportExternalSemaphore");
    cu.signal_sem = (fn_signal_sem)dlsym(lib, "cuSignalExternalSemaphoresAsync");
    cu.wait_sem = (fn_wait_sem)dlsym(lib, "cuWaitExternalSemaphoresAsync");
    cu.destroy_sem = (fn_destroy_sem)dlsym(lib, "cuDestroyExternalSemaphore");
    void *cl_lib = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    if (cl_lib) {
        cu.cl_release = (fn_cl_release)dlsym(cl_lib, "clReleaseMemObject");
        *(void **)&ocl.extension_address =
            dlsym(cl_lib, "clGetExtensionFunctionAddressForPlatform");
        *(void **)&ocl.device_info = dlsym(cl_lib, "clGetDeviceInfo");
        *(void **)&ocl.flush = dlsym(cl_lib, "clFlush");
    }
}

/* "" when libcuda and every function needed were found, else why not. */
API const char *bicl_cuda_init(void)
{
    pthread_once(&once, load);
    return init_error;
}

/* The detail of the last failure of bicl_cuda_alloc (the caller sees only NULL). */
API const char *bicl_cuda_last_error(void)
{
    return last_error;
}

static int failed(CUresult r, const char *what)
{
    if (r == CUDA_SUCCESS)
        return 0;
    const char *text = NULL;
    if (cu.error_string)
        cu.error_string(r, &text);
    snprintf(last_error, sizeof last_error, "%s: CUDA error %d (%s)", what, (int)r,
             text ? text : "?");
    return 1;
}

static CUmemAllocationProp props(int device)
{
    CUmemAllocationProp p;
    memset(&p, 0, sizeof p);
    p.type = CU_MEM_ALLOCATION_TYPE_PINNED;
    p.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
    p.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
    p.location.id = device;
    return p;
}

static int remember(const segment *s)
{
    if (n_segs == cap_segs) {
        size_t cap = cap_segs ? 2 * cap_segs : 64;
        segment *grown = realloc(segs, cap * sizeof *segs);
        if (!grown)
            return 1;
        segs = grown;
        cap_segs = cap;
    }
    segs[n_segs++] = *s;
    return 0;
}

/* Maps a new segment of at least `size` bytes; 0 on success. */
static int make_segment(size_t size, int device, segment *s)
{
    CUmemAllocationProp p = props(device);
    size_t gran = 0;
    if (failed(cu.granularity(&gran, &p, CU_MEM_ALLOC_GRANULARITY_RECOMMENDED),
               "cuMemGetAllocationGranularity"))
        return 1;
    memset(s, 0, sizeof *s);
    s->size = (size + gran - 1) / gran * gran;
    s->device = device;
    s->fd = -1;
    s->cl_fd = -1;
    if (failed(cu.create(&s->handle, s->size, &p, 0), "cuMemCreate"))
        return 1;
    CUmemAccessDesc access;
    memset(&access, 0, sizeof access);
    access.location = p.location;
    access.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
    if (failed(cu.reserve(&s->ptr, s->size, gran, 0, 0), "cuMemAddressReserve"))
        goto release;
    if (failed(cu.map(s->ptr, s->size, 0, s->handle, 0), "cuMemMap"))
        goto address;
    if (failed(cu.set_access(s->ptr, s->size, &access, 1), "cuMemSetAccess") ||
        failed(cu.export_handle(&s->fd, s->handle, CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR, 0),
               "cuMemExportToShareableHandle"))
        goto unmap;
    return 0;
unmap:
    cu.unmap(s->ptr, s->size);
address:
    cu.address_free(s->ptr, s->size);
release:
    cu.release(s->handle);
    return 1;
}

/* The pluggable allocator's malloc: (size, device, stream). NULL on failure (torch then
 * raises its out-of-memory error; bicl_cuda_last_error has the detail). */
API void *bicl_cuda_alloc(size_t size, int device, void *stream)
{
    (void)stream;
    if (bicl_cuda_init()[0]) {
        snprintf(last_error, sizeof last_error, "%s", init_error);
        return NULL;
    }
    segment s;
    if (make_segment(size ? size : 1, device, &s))
        return NULL;
    pthread_mutex_lock(&mu);
    s.id = next_id++;
    int oom = remember(&s);
    if (!oom) {
        ++n_allocs;
        bytes_live += s.size;
    }
    pthread_mutex_unlock(&mu);
    if (oom) {
        close(s.fd);
        cu.unmap(s.ptr, s.size);
        cu.address_free(s.ptr, s.size);
        cu.release(s.handle);
        snprintf(last_error, sizeof last_error, "out of host memory for the segment table");
        return NULL;
    }
    return (void *)(uintptr_t)s.ptr;
}

/* The pluggable allocator's free: (ptr, size, device, stream). Waits for the device,
 * releases the segment's cl_mem (the bridge's OpenCL work on it is finished: it orders
 * every op before returning to torch), closes the fds, unmaps and releases. */
API void bicl_cuda_free(void *ptr, size_t size, int device, void *stream)
{
    (void)size;
    (void)device;
    (void)stream;
    segment s;
    int found = 0;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < n_segs; ++i)
        if (segs[i].ptr == (CUdeviceptr)(uintptr_t)ptr) {
            s = segs[i];
            segs[i] = segs[--n_segs];
            found = 1;
            ++n_frees;
            bytes_live -= s.size;
            break;
        }
    pthread_mutex_unlock(&mu);
    if (!found)
        return;
    cu.sync();
    if (s.cl_mem && cu.cl_release)
        cu.cl_release(s.cl_mem);
    /* The fd given to OpenCL: closed here unless the OpenCL driver took it over (and
     * closed it already). */
    if (s.cl_fd >= 0 && fcntl(s.cl_fd, F_GETFD) != -1)
        close(s.cl_fd);
    close(s.fd);
    cu.unmap(s.ptr, s.size);
    cu.address_free(s.ptr, s.size);
    cu.release(s.handle);
}

/* The segment holding address addr: its base, size, exported fd, id (never reused),
 * and the cl_mem of OpenCL context `context` attached to it (NULL if none yet). 0 when
 * found, -1 when addr is in no segment of this allocator, 1 when the segment was
 * imported into another OpenCL context (a segment serves one context: its pool's). */
API int bicl_cuda_segment_find(uint64_t addr, void *context, uint64_t *base, uint64_t *size,
                               int *fd, unsigned long long *id, void **cl_mem)
{
    int rc = -1;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < n_segs; ++i)
        if (addr >= segs[i].ptr && addr < segs[i].ptr + segs[i].size) {
            *base = segs[i].ptr;
            *size = segs[i].size;
            *fd = segs[i].fd;
            *id = segs[i].id;
            *cl_mem = segs[i].cl_mem;
            rc = segs[i].cl_mem && segs[i].cl_context != context ? 1 : 0;
            break;
        }
    pthread_mutex_unlock(&mu);
    return rc;
}

/* Attaches an imported cl_mem of OpenCL context `context` (and the fd OpenCL was given)
 * to segment id; the segment owns them from now on. -1 if the segment is gone or
 * already has one. */
API int bicl_cuda_segment_attach(unsigned long long id, void *context, void *cl_mem, int cl_fd)
{
    int rc = -1;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < n_segs; ++i)
        if (segs[i].id == id && !segs[i].cl_mem) {
            segs[i].cl_context = context;
            segs[i].cl_mem = cl_mem;
            segs[i].cl_fd = cl_fd;
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&mu);
    return rc;
}

/* Counters: segments made and freed, segments and bytes live. */
API void bicl_cuda_stats(unsigned long long *allocs, unsigned long long *frees,
                         unsigned long long *live, unsigned long long *bytes)
{
    pthread_mutex_lock(&mu);
    *allocs = n_allocs;
    *frees = n_frees;
    *live = n_segs;
    *bytes = bytes_live;
    pthread_mutex_unlock(&mu);
}

/* ------------------------------------------------ ordering through semaphores */

/* One direction each: sem[0] torch's stream -> the OpenCL queue (before an op), sem[1]
 * the OpenCL queue -> torch's stream (after it). A binary semaphore's signal must be
 * submitted before its wait, and signals and waits must pair up one to one: the mutex
 * keeps each pair together when several threads order ops. */
typedef struct bicl_cuda_sync {
    cl_semaphore_khr cl_sem[2];
    CUexternalSemaphore cu_sem[2];
    clEnqueueWaitSemaphoresKHR_fn wait;
    clEnqueueSignalSemaphoresKHR_fn signal;
    clReleaseSemaphoreKHR_fn release;
    pthread_mutex_t mu;
} bicl_cuda_sync;

static void *sync_fail(bicl_cuda_sync *s, const char *why)
{
    snprintf(last_error, sizeof last_error, "%s", why);
    for (int i = 0; i < 2; ++i) {
        if (s->cu_sem[i] && cu.destroy_sem)
            cu.destroy_sem(s->cu_sem[i]);
        if (s->cl_sem[i] && s->release)
            s->release(s->cl_sem[i]);
    }
    free(s);
    return NULL;
}

/* Whether the device exports binary semaphores as opaque fds (the only kind CUDA can
 * import from OpenCL). */
static int exports_opaque_fd(cl_device_id device)
{
    cl_external_semaphore_handle_type_khr types[16];
    size_t got = 0;
    if (ocl.device_info(device, CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, sizeof types,
                        types, &got) != CL_SUCCESS)
        return 0;
    for (size_t i = 0; i < got / sizeof *types; ++i)
        if (types[i] == CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR)
            return 1;
    return 0;
}

/* One exported OpenCL semaphore imported into CUDA; 0 on success. */
static int sync_make_one(bicl_cuda_sync *s, int i, cl_context context, cl_device_id device,
                         clCreateSemaphoreWithPropertiesKHR_fn create,
                         clGetSemaphoreHandleForTypeKHR_fn handle)
{
    const cl_semaphore_properties_khr props[] = {
        CL_SEMAPHORE_TYPE_KHR, CL_SEMAPHORE_TYPE_BINARY_KHR,
        CL_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR,
        CL_SEMAPHORE_EXPORT_HANDLE_TYPES_LIST_END_KHR,
        CL_DEVICE_HANDLE_LIST_KHR, (cl_semaphore_properties_khr)(uintptr_t)device,
        CL_DEVICE_HANDLE_LIST_END_KHR, 0};
    cl_int err = CL_SUCCESS;
    s->cl_sem[i] = create(context, props, &err);
    if (!s->cl_sem[i] || err != CL_SUCCESS) {
        snprintf(last_error, sizeof last_error, "clCreateSemaphoreWithPropertiesKHR: %d", err);
        return 1;
    }
    int fd = -1;
    err = handle(s->cl_sem[i], device, CL_SEMAPHORE_HANDLE_OPAQUE_FD_KHR, sizeof fd, &fd, NULL);
    if (err != CL_SUCCESS || fd < 0) {
        snprintf(last_error, sizeof last_error, "clGetSemaphoreHandleForTypeKHR: %d", err);
        return 1;
    }
    CUDA_EXTERNAL_SEMAPHORE_HANDLE_DESC desc;
    memset(&desc, 0, sizeof desc);
    desc.type = CU_EXTERNAL_SEMAPHORE_HANDLE_TYPE_OPAQUE_FD;
    desc.handle.fd = fd;
    /* CUDA owns the fd once the import succeeds (cuImportExternalSemaphore's contract). */
    if (failed(cu.import_sem(&s->cu_sem[i], &desc), "cuImportExternalSemaphore")) {
        close(fd);
        return 1;
    }
    return 0;
}

/* A pair of semaphores ordering the OpenCL context's queues with CUDA streams, or NULL
 * with the reason in bicl_cuda_last_error (the bridge then orders by blocking). */
API void *bicl_cuda_sync_create(void *context, void *device)
{
    bicl_cuda_sync *s = calloc(1, sizeof *s);
    if (!s) {
        snprintf(last_error, sizeof last_error, "out of host memory");
        return NULL;
    }
    if (bicl_cuda_init()[0])
        return sync_fail(s, init_error);
    if (!cu.import_sem || !cu.signal_sem || !cu.wait_sem || !cu.destroy_sem)
        return sync_fail(s, "libcuda lacks the external semaphore functions");
    if (!ocl.extension_address || !ocl.device_info || !ocl.flush)
        return sync_fail(s, "libOpenCL lacks clGetExtensionFunctionAddressForPlatform");
    cl_platform_id platform = NULL;
    if (ocl.device_info((cl_device_id)device, CL_DEVICE_PLATFORM, sizeof platform, &platform,
                        NULL) != CL_SUCCESS)
        return sync_fail(s, "clGetDeviceInfo(CL_DEVICE_PLATFORM) failed");
    if (!exports_opaque_fd((cl_device_id)device))
        return sync_fail(s, "the OpenCL device exports no opaque-fd semaphore "
                            "(CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR)");
    clCreateSemaphoreWithPropertiesKHR_fn create = (clCreateSemaphoreWithPropertiesKHR_fn)(
        uintptr_t)ocl.extension_address(platform, "clCreateSemaphoreWithPropertiesKHR");
    clGetSemaphoreHandleForTypeKHR_fn handle = (clGetSemaphoreHandleForTypeKHR_fn)(uintptr_t)
        ocl.extension_address(platform, "clGetSemaphoreHandleForTypeKHR");
    s->wait = (clEnqueueWaitSemaphoresKHR_fn)(uintptr_t)ocl.extension_address(
        platform, "clEnqueueWaitSemaphoresKHR");
    s->signal = (clEnqueueSignalSemaphoresKHR_fn)(uintptr_t)ocl.extension_address(
        platform, "clEnqueueSignalSemaphoresKHR");
    s->release = (clReleaseSemaphoreKHR_fn)(uintptr_t)ocl.extension_address(
        platform, "clReleaseSemaphoreKHR");
    if (!create || !handle || !s->wait || !s->signal || !s->release)
        return sync_fail(s, "the OpenCL platform does not give the cl_khr_semaphore functions");
    for (int i = 0; i < 2; ++i)
        if (sync_make_one(s, i, (cl_context)context, (cl_device_id)device, create, handle)) {
            char why[sizeof last_error];
            memcpy(why, last_error, sizeof why);
            return sync_fail(s, why);
        }
    pthread_mutex_init(&s->mu, NULL);
    return s;
}

/* Before an op on `queue`: the queue waits for the work torch's `stream` has so far. */
API int bicl_cuda_sync_before(void *sync, void *queue, void *stream)
{
    bicl_cuda_sync *s = sync;
    CUDA_EXTERNAL_SEMAPHORE_SIGNAL_PARAMS params;
    memset(&params, 0, sizeof params);
    pthread_mutex_lock(&s->mu);
    int rc = failed(cu.signal_sem(&s->cu_sem[0], &params, 1, (CUstream)stream),
                    "cuSignalExternalSemaphoresAsync");
    if (!rc) {
        cl_int err = s->wait((cl_command_queue)queue, 1, &s->cl_sem[0], NULL, 0, NULL, NULL);
        if (err != CL_SUCCESS) {
            snprintf(last_error, sizeof last_error, "clEnqueueWaitSemaphoresKHR: %d", err);
            rc = 1;
        }
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* After an op on `queue`: torch's `stream` waits for the queue's work so far. The flush
 * submits the signal, so that the stream's wait cannot wait for a signal never sent. */
API int bicl_cuda_sync_after(void *sync, void *queue, void *stream)
{
    bicl_cuda_sync *s = sync;
    int rc = 0;
    pthread_mutex_lock(&s->mu);
    cl_int err = s->signal((cl_command_queue)queue, 1, &s->cl_sem[1], NULL, 0, NULL, NULL);
    if (err == CL_SUCCESS)
        err = ocl.flush((cl_command_queue)queue);
    if (err != CL_SUCCESS) {
        snprintf(last_error, sizeof last_error, "clEnqueueSignalSemaphoresKHR/clFlush: %d", err);
        rc = 1;
    } else {
        CUDA_EXTERNAL_SEMAPHORE_WAIT_PARAMS params;
        memset(&params, 0, sizeof params);
        rc = failed(cu.wait_sem(&s->cu_sem[1], &params, 1, (CUstream)stream),
                    "cuWaitExternalSemaphoresAsync");
    }
    pthread_mutex_unlock(&s->mu);
    return rc;
}

/* Releases the pair; the caller has finished the queues and synchronised the streams. */
API void bicl_cuda_sync_destroy(void *sync)
{
    bicl_cuda_sync *s = sync;
    if (!s)
        return;
    for (int i = 0; i < 2; ++i) {
        cu.destroy_sem(s->cu_sem[i]);
        s->release(s->cl_sem[i]);
    }
    pthread_mutex_destroy(&s->mu);
    free(s);
}
