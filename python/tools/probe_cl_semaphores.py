"""What an OpenCL platform offers for external semaphores (cl_khr_external_semaphore):
the semaphore types and the import and export handle types at platform and device level,
and whether an exportable opaque-fd binary semaphore can be made. Prints one JSON line
per device. usage: python3 probe_cl_semaphores.py"""
import ctypes
import json
from ctypes import byref, c_int32, c_size_t, c_uint32, c_uint64, c_void_p

cl = ctypes.CDLL("libOpenCL.so.1")
cl.clGetExtensionFunctionAddressForPlatform.restype = c_void_p
cl.clGetExtensionFunctionAddressForPlatform.argtypes = [c_void_p, ctypes.c_char_p]
NAMES = {0x2055: "OPAQUE_FD", 0x2058: "SYNC_FD", 0x2056: "OPAQUE_WIN32", 0x2057: "WIN32_KMT",
         0x2059: "D3D12_FENCE"}


def u32_list(getter, handle, param):
    size = c_size_t(0)
    if getter(c_void_p(handle), c_uint32(param), c_size_t(0), None, byref(size)) != 0:
        return "query failed"
    buf = (c_uint32 * max(1, size.value // 4))()
    getter(c_void_p(handle), c_uint32(param), size, buf, None)
    return [NAMES.get(v, hex(v)) for v in buf[: size.value // 4]]


def main():
    n = c_uint32(0)
    cl.clGetPlatformIDs(0, None, byref(n))
    plats = (c_void_p * n.value)()
    cl.clGetPlatformIDs(n, plats, None)
    for p in plats:
        name = ctypes.create_string_buffer(256)
        cl.clGetPlatformInfo(c_void_p(p), c_uint32(0x0902), c_size_t(256), name, None)
        row = {"platform": name.value.decode(),
               "platform_semaphore_types": u32_list(cl.clGetPlatformInfo, p, 0x2036),
               "platform_import": u32_list(cl.clGetPlatformInfo, p, 0x2037),
               "platform_export": u32_list(cl.clGetPlatformInfo, p, 0x2038)}
        nd = c_uint32(0)
        cl.clGetDeviceIDs(c_void_p(p), c_uint64(0xFFFFFFFF), 0, None, byref(nd))
        devs = (c_void_p * nd.value)()
        cl.clGetDeviceIDs(c_void_p(p), c_uint64(0xFFFFFFFF), nd, devs, None)
        for d in devs:
            r = dict(row)
            r["device_semaphore_types"] = u32_list(cl.clGetDeviceInfo, d, 0x204C)
            r["device_import"] = u32_list(cl.clGetDeviceInfo, d, 0x204D)
            r["device_export"] = u32_list(cl.clGetDeviceInfo, d, 0x204E)
            err = c_int32(0)
            ctx = cl.clCreateContext
            ctx.restype = c_void_p
            c = ctx(None, 1, byref(c_void_p(d)), None, None, byref(err))
            create = cl.clGetExtensionFunctionAddressForPlatform(c_void_p(p),
                                                                 b"clCreateSemaphoreWithPropertiesKHR")
            if create and c:
                fn = ctypes.CFUNCTYPE(c_void_p, c_void_p, ctypes.POINTER(c_uint64),
                                      ctypes.POINTER(c_int32))(create)
                for label, props in (
                        ("binary_export_opaque_fd_with_devices",
                         [0x203D, 1, 0x203F, 0x2055, 0, 0x2051, d, 0, 0]),
                        ("binary_export_opaque_fd", [0x203D, 1, 0x203F, 0x2055, 0, 0]),
                        ("binary_plain", [0x203D, 1, 0])):
                    arr = (c_uint64 * len(props))(*props)
                    e = c_int32(0)
                    sem = fn(c_void_p(c), arr, byref(e))
                    r["create_" + label] = e.value
            print(json.dumps(r))


main()
