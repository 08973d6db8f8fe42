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
 * types are needed to build it (python/CMakeLists.txt). Thread-safe: one mutex guards
 * the segment table. */
#include <cuda.h>

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
} cu;

/* One segment: its mapping, its allocation handle, the exported fd, and what the bridge
 * attached (the imported cl_mem and the fd given to OpenCL). */
typedef struct segment {
    CUdeviceptr ptr;
    size_t size;
    CUmemGenericAllocationHandle handle;
    int fd;
    int device;
    unsigned long long id;
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
    void *ocl = dlopen("libOpenCL.so.1", RTLD_NOW | RTLD_GLOBAL);
    cu.cl_release = ocl ? (fn_cl_release)dlsym(ocl, "clReleaseMemObject") : NULL;
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
 * and the cl_mem attached to it (NULL if none). 0 when found, -1 when addr is in no
 * segment of this allocator. */
API int bicl_cuda_segment_find(uint64_t addr, uint64_t *base, uint64_t *size, int *fd,
                               unsigned long long *id, void **cl_mem)
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
            rc = 0;
            break;
        }
    pthread_mutex_unlock(&mu);
    return rc;
}

/* Attaches an imported cl_mem (and the fd OpenCL was given) to segment id; the segment
 * owns them from now on. -1 if the segment is gone or already has one. */
API int bicl_cuda_segment_attach(unsigned long long id, void *cl_mem, int cl_fd)
{
    int rc = -1;
    pthread_mutex_lock(&mu);
    for (size_t i = 0; i < n_segs; ++i)
        if (segs[i].id == id && !segs[i].cl_mem) {
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
