"""PyTorch CUDA tensors as bicl tensors, without copies (NVIDIA's OpenCL).

    import torch, bicl
    from bicl.torch_bridge import TorchBridge
    ctx = bicl.Context("nvidia")
    bridge = TorchBridge(ctx)                    # the pool on torch's current device
    with bridge.allocating():                    # tensors made here live in the pool
        x = torch.randn(8, 4096, device="cuda", dtype=torch.bfloat16)
        y = torch.empty_like(x)
    ctx.unary("silu", x, y)                      # bicl's kernel on torch's memory

How: torch allocates from a ``torch.cuda.MemPool`` whose allocator is
``CUDAPluggableAllocator`` over bicl's small C module (cuda_alloc.c, built with the
package where cuda.h is found): every segment is made with ``cuMemCreate`` with a POSIX
fd handle and exported with ``cuMemExportToShareableHandle``. The first bicl op that
meets a tensor of a segment imports that segment into the context's OpenCL context
(``clCreateBufferWithProperties`` with ``CL_EXTERNAL_MEMORY_HANDLE_OPAQUE_FD_KHR``) once;
later ops on any tensor of that segment reuse the cl_mem, with the tensor's byte offset
in the segment as the view's offset. Freeing the segment (``torch.cuda.empty_cache``, the
pool's end) releases the cl_mem.

Ordering (``sync``):
  - "semaphore": two binary semaphores made by bicl's OpenCL context with an opaque-fd
    export (cl_khr_external_semaphore_opaque_fd) and imported into CUDA. Before an op,
    torch's current stream signals the first and the op's OpenCL queue waits on it;
    after the op, the queue signals the second (and is flushed) and torch's stream waits
    on it. Nothing blocks the host; torch's later kernels on that stream see bicl's
    writes, and bicl's op sees what torch's earlier kernels wrote.
  - "blocking": before an op torch's current stream is synchronised; after it,
    ``clFinish`` on the op's queue. Correct with any driver; two host round trips.
  - "auto" (the default): "blocking". The semaphore path needs a device that exports
    opaque-fd semaphores (CUDA can only import them); NVIDIA's driver 580.159.04 on the
    H200 imports them but exports none (python/tools/probe_cl_semaphores.py), so the
    semaphore path has not run on any driver yet and is opt-in only. ``bridge.sync``
    says which mode runs, ``bridge.sync_why`` why not the semaphores.
docs/python.md has the measured overhead.
"""
from __future__ import annotations

import ctypes
import fcntl
import os
from ctypes import POINTER, byref, c_char_p, c_int, c_uint64, c_ulonglong, c_void_p
from typing import Any, Dict, Optional, Sequence

from . import _cl
from ._enums import MAX_RANK, Dtype
from ._lib import TensorC, package_dir
from .context import Context, View, register_converter

__all__ = ["TorchBridge", "availability", "allocator_path"]

REQUIRED_EXTENSIONS = ("cl_khr_external_memory", "cl_khr_external_memory_opaque_fd")
#: The fd OpenCL gets is a dup at or above this number (see _import).
_FD_FLOOR = 512


def allocator_path() -> str:
    """The allocator module: $BICL_CUDA_ALLOC or the package's lib/libbicl_cuda_alloc.so."""
    return os.environ.get("BICL_CUDA_ALLOC") or os.path.join(package_dir, "lib",
                                                             "libbicl_cuda_alloc.so")


def _load_allocator() -> ctypes.CDLL:
    so = ctypes.CDLL(allocator_path())
    so.bicl_cuda_init.restype = c_char_p
    so.bicl_cuda_last_error.restype = c_char_p
    so.bicl_cuda_segment_find.restype = c_int
    so.bicl_cuda_segment_find.argtypes = [c_uint64, c_void_p, POINTER(c_uint64), POINTER(c_uint64),
                                          POINTER(c_int), POINTER(c_ulonglong), POINTER(c_void_p)]
    so.bicl_cuda_segment_attach.restype = c_int
    so.bicl_cuda_segment_attach.argtypes = [c_ulonglong, c_void_p, c_void_p, c_int]
    so.bicl_cuda_stats.restype = None
    so.bicl_cuda_stats.argtypes = [POINTER(c_ulonglong)] * 4
    so.bicl_cuda_sync_create.restype = c_void_p
    so.bicl_cuda_sync_create.argtypes = [c_void_p, c_void_p]
    for name in ("bicl_cuda_sync_before", "bicl_cuda_sync_after"):
        fn = getattr(so, name)
        fn.restype, fn.argtypes = c_int, [c_void_p, c_void_p, c_void_p]
    so.bicl_cuda_sync_destroy.restype = None
    so.bicl_cuda_sync_destroy.argtypes = [c_void_p]
    return so


def availability() -> str:
    """"available", or why the bridge cannot run here."""
    try:
        import torch
    except ImportError:
        return "torch is not installed"
    if not os.path.exists(allocator_path()):
        return f"the allocator module was not built (no cuda.h at build time): {allocator_path()}"
    try:
        why = _load_allocator().bicl_cuda_init().decode()
    except OSError as e:
        return f"the allocator module does not load: {e}"
    if why:
        return why
    if not torch.cuda.is_available():
        return "torch sees no CUDA device"
    if not hasattr(torch.cuda, "MemPool"):
        return f"torch {torch.__version__} has no torch.cuda.MemPool"
    return "available"


def _torch_dtypes() -> Dict[Any, Dtype]:
    import torch

    return {torch.float32: Dtype.F32, torch.float16: Dtype.F16, torch.bfloat16: Dtype.BF16,
            torch.int32: Dtype.I32, torch.uint8: Dtype.U8, torch.bool: Dtype.U8}


class TorchBridge:
    """Zero-copy bicl ops on torch CUDA tensors allocated from this bridge's pool.

    Args:
        ctx: a bicl Context on the NVIDIA device torch uses (checked by UUID where both
            report one).
        device: the CUDA device index (default: torch's current device).
        sync: "auto", "semaphore" or "blocking" (see the module docstring); "semaphore"
            raises RuntimeError where the driver cannot give it.
    """

    def __init__(self, ctx: Context, device: Optional[int] = None, sync: str = "auto") -> None:
        import torch

        why = availability()
        if why != "available":
            raise RuntimeError(f"the PyTorch bridge is not available: {why}")
        if sync not in ("auto", "semaphore", "blocking"):
            raise ValueError(f"sync={sync!r}: 'auto', 'semaphore' or 'blocking'")
        missing = [e for e in REQUIRED_EXTENSIONS if e not in _cl.device_extensions(ctx.cl_device)]
        if missing:
            raise RuntimeError(f"{ctx.device_name} lacks {', '.join(missing)}")
        self.torch = torch
        self.ctx = ctx
        self.device = torch.device("cuda", torch.cuda.current_device() if device is None else device)
        self._check_same_gpu()
        self._so = _load_allocator()
        self._sync: Optional[int] = None
        self.sync, self.sync_why = "blocking", f"sync={sync!r}: the semaphore path is opt-in"
        if sync == "semaphore":
            self._sync = self._so.bicl_cuda_sync_create(ctx.cl_context, ctx.cl_device)
            if self._sync:
                self.sync, self.sync_why = "semaphore", ""
            else:
                why = self._so.bicl_cuda_last_error().decode()
                raise RuntimeError(f"sync='semaphore' is not available: {why}")
        self._alloc = torch.cuda.memory.CUDAPluggableAllocator(allocator_path(), "bicl_cuda_alloc",
                                                               "bicl_cuda_free")
        self.pool = torch.cuda.MemPool(self._alloc.allocator())
        self._dtypes = _torch_dtypes()
        self.imports = 0
        #: whether the fd given to OpenCL was still open after the import (None: no
        #: import yet); reported by the demo, see _import.
        self.fd_open_after_import: Optional[bool] = None
        ctx._bridges.append(self)
        register_converter(_view)

    def _check_same_gpu(self) -> None:
        cl_uuid = _cl.device_uuid(self.ctx.cl_device)
        props = self.torch.cuda.get_device_properties(self.device)
        torch_uuid = getattr(props, "uuid", None)
        if cl_uuid is None or torch_uuid is None:
            return
        hex_t = str(torch_uuid).lower().replace("gpu-", "").replace("-", "")
        if len(hex_t) != 32 or any(ch not in "0123456789abcdef" for ch in hex_t):
            return  # a spelling this code does not know: no check rather than a false one
        if hex_t != cl_uuid.hex():
            raise RuntimeError(f"the bicl context's device ({self.ctx.device_name}, uuid "
                               f"{cl_uuid.hex()}) is not torch's {self.device} ({torch_uuid})")

    # ------------------------------------------------------------- allocation
    def allocating(self) -> Any:
        """A context manager: torch allocations on the bridge's device inside it come from
        the pool (torch.cuda.use_mem_pool)."""
        return self.torch.cuda.use_mem_pool(self.pool, device=self.device)

    def empty(self, shape: Sequence[int], dtype: Any) -> Any:
        """An uninitialised tensor in the pool."""
        with self.allocating():
            return self.torch.empty(tuple(shape), dtype=dtype, device=self.device)

    def copy_in(self, t: Any) -> Any:
        """A copy of any tensor (host or CUDA) in the pool."""
        with self.allocating():
            return t.to(self.device, copy=True)

    def stats(self) -> Dict[str, int]:
        """Segments made, freed and live, bytes live, and imports into OpenCL."""
        v = [c_ulonglong(0) for _ in range(4)]
        self._so.bicl_cuda_stats(*[byref(x) for x in v])
        return {"segments_made": v[0].value, "segments_freed": v[1].value,
                "segments_live": v[2].value, "bytes_live": v[3].value, "imports": self.imports}

    # ------------------------------------------------------------------ views
    def _import(self, seg_id: int, fd: int, size: int) -> int:
        """Import a segment into the context's OpenCL context once. OpenCL gets a dup of
        the fd numbered >= 512: whether a driver takes the fd over is not settled by the
        extension's text, so the allocator closes it at the segment's end only if it is
        still open then, and a high number makes a reused number unlikely."""
        dup = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, _FD_FLOOR)
        try:
            mem = _cl.import_opaque_fd(self.ctx.cl_context, self.ctx.cl_device, dup, size)
        except BaseException:
            os.close(dup)
            raise
        try:
            fcntl.fcntl(dup, fcntl.F_GETFD)
            self.fd_open_after_import = True
        except OSError:
            self.fd_open_after_import = False
        if self._so.bicl_cuda_segment_attach(seg_id, self.ctx.cl_context, mem, dup) != 0:
            _cl.release_buffer(mem)
            raise RuntimeError("the segment went away during its import")
        self.imports += 1
        return mem

    def view(self, t: Any) -> View:
        """The bicl view of a tensor of the pool (imports its segment on first use)."""
        if t.device != self.device:
            raise TypeError(f"a tensor on {t.device}, not on the bridge's {self.device}")
        d = self._dtypes.get(t.dtype)
        if d is None:
            raise TypeError(f"bicl has no dtype for {t.dtype}")
        ptr = t.data_ptr()
        base, size, fd, seg, mem = c_uint64(0), c_uint64(0), c_int(0), c_ulonglong(0), c_void_p(0)
        found = self._so.bicl_cuda_segment_find(ptr, self.ctx.cl_context, byref(base), byref(size),
                                                byref(fd), byref(seg), byref(mem))
        if found == 1:
            raise ValueError("a tensor from another bridge's pool (its memory is imported into "
                             "another bicl context): use the tensors of this bridge's pool")
        if found != 0:
            raise ValueError("a CUDA tensor that is not from the bridge's pool: allocate it "
                             "under bridge.allocating(), or bridge.copy_in() it")
        cl_mem = mem.value or self._import(seg.value, fd.value, size.value)
        item = t.element_size()
        shape, strides = (tuple(t.shape), tuple(t.stride())) if t.dim() else ((1,), (1,))
        if len(shape) > MAX_RANK:
            raise ValueError(f"rank {len(shape)}: bicl views have rank 1..{MAX_RANK}")
        c = TensorC(cl_mem, (ptr - base.value) // item, int(d), len(shape))
        for i, (n, s) in enumerate(zip(shape, strides)):
            c.shape[i], c.stride[i] = n, s
        return View(c, t, (), None, self)

    # ---------------------------------------------------------------- ordering
    def _stream(self) -> int:
        return int(self.torch.cuda.current_stream(self.device).cuda_stream)

    def before(self, ctx: Context, queue: int) -> None:
        """Before an op on `queue`: torch's work on its current stream so far is done
        before the op starts."""
        if self._sync:
            if self._so.bicl_cuda_sync_before(self._sync, queue, self._stream()) != 0:
                raise RuntimeError(f"bridge ordering: {self._so.bicl_cuda_last_error().decode()}")
        else:
            self.torch.cuda.current_stream(self.device).synchronize()

    def after(self, ctx: Context, queue: int) -> None:
        """After an op on `queue`: torch's next kernels on its current stream start after
        bicl's work on the queue so far."""
        if self._sync:
            if self._so.bicl_cuda_sync_after(self._sync, queue, self._stream()) != 0:
                raise RuntimeError(f"bridge ordering: {self._so.bicl_cuda_last_error().decode()}")
        else:
            _cl.finish(queue)

    def close(self) -> None:
        """Releases the semaphores (the context calls it when it closes, after finishing
        its queue; torch's device is synchronised first). Idempotent."""
        if self._sync:
            self.torch.cuda.synchronize(self.device)
            self._so.bicl_cuda_sync_destroy(self._sync)
            self._sync = None


def _view(ctx: Context, obj: Any) -> Optional[View]:
    """Converter: a torch CUDA tensor through the context's bridge."""
    mod = type(obj).__module__
    if not (mod == "torch" or mod.startswith("torch.")) or not getattr(obj, "is_cuda", False):
        return None
    for bridge in ctx._bridges:
        if obj.device == bridge.device:
            return bridge.view(obj)
    raise TypeError(f"a torch tensor on {obj.device}: make a TorchBridge for this context first")
