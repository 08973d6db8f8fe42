"""The few OpenCL calls the package makes itself, through ctypes over libOpenCL.

bicl's C API takes the engine's OpenCL objects; from Python those come from pyopencl
when it is installed (bicl.pyopencl_interop) or from here: a queue on the context's
device, buffers for host arrays, blocking reads, events, and the import of external
memory (the PyTorch bridge). Every function that fails raises :class:`CLError`.
"""
from __future__ import annotations

import ctypes
import ctypes.util
from ctypes import POINTER, byref, c_char, c_int32, c_size_t, c_uint, c_uint64, c_void_p
from typing import Any, Dict, List, Optional, Sequence, Tuple

__all__ = ["CLError", "cl", "create_queue", "release_queue", "finish", "create_buffer",
           "release_buffer", "retain_buffer", "read_buffer", "release_event", "retain_event",
           "wait_events", "device_info_str", "device_name", "device_extensions",
           "import_opaque_fd", "buffer_size", "device_uuid"]

CL_SUCCESS = 0
CL_MEM_READ_WRITE = 1 << 0
CL_MEM_COPY_HOST_PTR = 1 << 5
CL_MEM_SIZE = 0x1102
CL_DEVICE_NAME = 0x102B
CL_DEVICE_VENDOR = 0x102C
CL_DRIVER_VERSION = 0x102D
CL_DEVICE_VERSION = 0x102F
CL_DEVICE_EXTENSIONS = 0x1030
CL_DEVICE_PLATFORM = 0x1031
CL_PLATFORM_NAME = 0x0902
CL_DEVICE_UUID_KHR = 0x106A
CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR = 0x204E
CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR = 0x2060
CL_MEM_DEVICE_HANDLE_LIST_KHR = 0x2051
CL_MEM_DEVICE_HANDLE_LIST_END_KHR = 0

_P = c_void_p
#: name -> (restype, argtypes). cl_int results are checked by the callers here.
_SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    "clCreateCommandQueue": (_P, [_P, _P, c_uint64, POINTER(c_int32)]),
    "clReleaseCommandQueue": (c_int32, [_P]),
    "clFinish": (c_int32, [_P]),
    "clCreateBuffer": (_P, [_P, c_uint64, c_size_t, _P, POINTER(c_int32)]),
    "clReleaseMemObject": (c_int32, [_P]),
    "clRetainMemObject": (c_int32, [_P]),
    "clGetMemObjectInfo": (c_int32, [_P, c_uint, c_size_t, _P, POINTER(c_size_t)]),
    "clEnqueueReadBuffer": (c_int32, [_P, _P, c_uint, c_size_t, c_size_t, _P, c_uint,
                                      POINTER(_P), POINTER(_P)]),
    "clWaitForEvents": (c_int32, [c_uint, POINTER(_P)]),
    "clReleaseEvent": (c_int32, [_P]),
    "clRetainEvent": (c_int32, [_P]),
    "clGetDeviceInfo": (c_int32, [_P, c_uint, c_size_t, _P, POINTER(c_size_t)]),
    "clGetPlatformInfo": (c_int32, [_P, c_uint, c_size_t, _P, POINTER(c_size_t)]),
}


class CLError(RuntimeError):
    """An OpenCL call made by the package failed; ``code`` is the cl_int."""

    def __init__(self, call: str, code: int) -> None:
        self.code = code
        super().__init__(f"{call} failed: OpenCL error {code}")


_cl: Optional[ctypes.CDLL] = None


def cl() -> ctypes.CDLL:
    """libOpenCL (the ICD loader), bound on first use."""
    global _cl
    if _cl is None:
        name = ctypes.util.find_library("OpenCL") or "libOpenCL.so.1"
        lib = ctypes.CDLL(name)
        for fname, (restype, argtypes) in _SIGNATURES.items():
            fn = getattr(lib, fname)
            fn.restype, fn.argtypes = restype, argtypes
        _cl = lib
    return _cl


def _check(call: str, code: int) -> None:
    if code != CL_SUCCESS:
        raise CLError(call, code)


def create_queue(context: int, device: int) -> int:
    """An in-order command queue (the caller releases it)."""
    err = c_int32(0)
    q = cl().clCreateCommandQueue(context, device, 0, byref(err))
    _check("clCreateCommandQueue", err.value)
    return int(q)


def release_queue(queue: int) -> None:
    """clReleaseCommandQueue."""
    _check("clReleaseCommandQueue", cl().clReleaseCommandQueue(queue))


def finish(queue: int) -> None:
    """clFinish: blocks until the queue's work is done."""
    _check("clFinish", cl().clFinish(queue))


def create_buffer(context: int, nbytes: int, host: Optional[int] = None) -> int:
    """A read-write buffer of nbytes, filled from host memory at `host` if given."""
    err = c_int32(0)
    flags = CL_MEM_READ_WRITE | (CL_MEM_COPY_HOST_PTR if host else 0)
    mem = cl().clCreateBuffer(context, flags, nbytes, host, byref(err))
    _check("clCreateBuffer", err.value)
    return int(mem)


def release_buffer(mem: int) -> None:
    """clReleaseMemObject."""
    _check("clReleaseMemObject", cl().clReleaseMemObject(mem))


def retain_buffer(mem: int) -> None:
    """clRetainMemObject."""
    _check("clRetainMemObject", cl().clRetainMemObject(mem))


def buffer_size(mem: int) -> int:
    """CL_MEM_SIZE of a buffer."""
    size = c_size_t(0)
    _check("clGetMemObjectInfo", cl().clGetMemObjectInfo(mem, CL_MEM_SIZE, ctypes.sizeof(size),
                                                         byref(size), None))
    return size.value


def _event_array(events: Sequence[int]) -> Any:
    return (c_void_p * len(events))(*events) if events else None


def read_buffer(queue: int, mem: int, offset: int, nbytes: int, host: int,
                wait: Sequence[int] = ()) -> None:
    """Blocking read of nbytes at byte offset into host memory."""
    _check("clEnqueueReadBuffer", cl().clEnqueueReadBuffer(
        queue, mem, 1, offset, nbytes, host, len(wait), _event_array(wait), None))


def wait_events(events: Sequence[int]) -> None:
    """clWaitForEvents."""
    if events:
        _check("clWaitForEvents", cl().clWaitForEvents(len(events), _event_array(events)))


def release_event(event: int) -> None:
    """clReleaseEvent."""
    _check("clReleaseEvent", cl().clReleaseEvent(event))


def retain_event(event: int) -> None:
    """clRetainEvent."""
    _check("clRetainEvent", cl().clRetainEvent(event))


def _info(getter: Any, handle: int, param: int) -> bytes:
    size = c_size_t(0)
    _check("clGet*Info", getter(handle, param, 0, None, byref(size)))
    buf = (c_char * max(size.value, 1))()
    _check("clGet*Info", getter(handle, param, size.value, buf, None))
    return bytes(buf)[: size.value]


def device_info_str(device: int, param: int) -> str:
    """A string-valued clGetDeviceInfo."""
    return _info(cl().clGetDeviceInfo, device, param).rstrip(b"\0").decode(errors="replace")


def device_name(device: int) -> str:
    """'platform / device' of a cl_device_id."""
    plat = c_void_p(0)
    _check("clGetDeviceInfo", cl().clGetDeviceInfo(device, CL_DEVICE_PLATFORM,
                                                   ctypes.sizeof(plat), byref(plat), None))
    pname = _info(cl().clGetPlatformInfo, plat.value or 0, CL_PLATFORM_NAME)
    pname_text = pname.rstrip(b"\0").decode(errors="replace")
    return f"{pname_text} / {device_info_str(device, CL_DEVICE_NAME)}"


def device_extensions(device: int) -> List[str]:
    """CL_DEVICE_EXTENSIONS as a list."""
    return device_info_str(device, CL_DEVICE_EXTENSIONS).split()


def device_uuid(device: int) -> Optional[bytes]:
    """CL_DEVICE_UUID_KHR (16 bytes) where the device has cl_khr_device_uuid."""
    if "cl_khr_device_uuid" not in device_extensions(device):
        return None
    return _info(cl().clGetDeviceInfo, device, CL_DEVICE_UUID_KHR)[:16]


_SEMAPHORE_HANDLE_NAMES = {0x2055: "OPAQUE_FD", 0x2056: "OPAQUE_WIN32", 0x2057: "OPAQUE_WIN32_KMT",
                           0x2058: "SYNC_FD", 0x2059: "D3D12_FENCE"}


def semaphore_export_types(device: int) -> List[str]:
    """The semaphore handle types the device exports
    (CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR); [] where none or not queryable."""
    if "cl_khr_external_semaphore" not in device_extensions(device):
        return []
    try:
        raw = _info(cl().clGetDeviceInfo, device, CL_DEVICE_SEMAPHORE_EXPORT_HANDLE_TYPES_KHR)
    except CLError:
        return []
    codes = [int.from_bytes(raw[i:i + 4], "little") for i in range(0, len(raw) - len(raw) % 4, 4)]
    return [_SEMAPHORE_HANDLE_NAMES.get(c, hex(c)) for c in codes]


def import_opaque_fd(context: int, device: int, fd: int, nbytes: int) -> int:
    """A buffer over external memory given by an opaque POSIX fd
    (cl_khr_external_memory_opaque_fd, OpenCL 3.0's clCreateBufferWithProperties)."""
    lib = cl()
    try:
        fn = lib.clCreateBufferWithProperties
    except AttributeError as e:
        raise CLError("clCreateBufferWithProperties (not in this OpenCL loader)", -59) from e
    fn.restype = c_void_p
    fn.argtypes = [c_void_p, POINTER(c_uint64), c_uint64, c_size_t, c_void_p, POINTER(c_int32)]
    props = (c_uint64 * 6)(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR, fd,
                           CL_MEM_DEVICE_HANDLE_LIST_KHR, device,
                           CL_MEM_DEVICE_HANDLE_LIST_END_KHR, 0)
    err = c_int32(0)
    mem = fn(context, props, CL_MEM_READ_WRITE, nbytes, None, byref(err))
    _check("clCreateBufferWithProperties(CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR)", err.value)
    return int(mem)
