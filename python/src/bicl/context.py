"""Contexts, device arrays, events, and every device op.

A :class:`Context` is one device with bicl's state for it (``bicl_context``). Its ops
take *tensor-likes*: a :class:`DeviceArray` (a view of an OpenCL buffer), a
``pyopencl.array.Array`` (bicl.pyopencl_interop) or a torch CUDA tensor from a bridge's
pool (bicl.torch_bridge). They enqueue on a queue (the context's own in-order queue by
default, or an engine's: a pyopencl ``CommandQueue`` or a ``cl_command_queue`` as int)
after a wait list, never block (except where a bridge says so), and return an
:class:`Event` when ``event=True``. Host arrays in, host arrays out: ``ctx.np``
(bicl.hostops).
"""
from __future__ import annotations

import ctypes
import weakref
from ctypes import byref, c_size_t, c_void_p
from typing import Any, Callable, Iterable, List, Optional, Sequence, Tuple, Union

import numpy as np

from . import _cl
from ._dtypes import DtypeLike, enum_arg, glu_rounding, numpy_dtype, to_dtype
from ._enums import (MAX_RANK, BinaryOp, Dtype, GluAct, GluLayout, GluRounding, Option,
                     RopeSource, UnaryOp)
from ._lib import CacheStatsC, GluParamsC, TensorC, UnaryParamsC, VariantC, lib

__all__ = ["Context", "DeviceArray", "Event", "View", "register_converter", "devices",
           "Device", "check_build_options"]

Shape = Tuple[int, ...]
# numpy's array type, named apart from Context.np (the host-ops property)
NDArray = np.ndarray


class Event:
    """An OpenCL event bicl handed back; released when this object goes away."""

    def __init__(self, handle: int) -> None:
        self.handle = handle
        self._finalizer = weakref.finalize(self, _cl.release_event, handle)

    @property
    def int_ptr(self) -> int:
        """The cl_event (pyopencl's spelling)."""
        return self.handle

    def wait(self) -> None:
        """Block until the event completes."""
        _cl.wait_events([self.handle])

    def release(self) -> None:
        """Release the event now."""
        self._finalizer()


class _Buffer:
    """An owned cl_mem, released when the last view of it goes away."""

    def __init__(self, mem: int, nbytes: int) -> None:
        self.mem = mem
        self.nbytes = nbytes
        self._finalizer = weakref.finalize(self, _cl.release_buffer, mem)


class DeviceArray:
    """A view of an OpenCL buffer: dtype, shape, strides and offset in elements.

    Made by :meth:`Context.empty`, :meth:`Context.to_device`, :meth:`view` or
    :meth:`from_cl_mem` (a buffer the engine owns; it is retained while the view lives).
    """

    def __init__(self, ctx: "Context", buffer: Any, dtype: Dtype, shape: Sequence[int],
                 strides: Optional[Sequence[int]] = None, offset: int = 0) -> None:
        if not 1 <= len(shape) <= MAX_RANK:
            raise ValueError(f"rank {len(shape)}: bicl views have rank 1..{MAX_RANK}")
        self.ctx = ctx
        self._buffer = buffer
        self.mem: int = buffer.mem
        self.dtype = Dtype(dtype)
        self.shape: Shape = tuple(int(s) for s in shape)
        self.strides: Shape = tuple(strides) if strides is not None else _contiguous(self.shape)
        self.offset = int(offset)

    @classmethod
    def from_cl_mem(cls, ctx: "Context", mem: int, dtype: DtypeLike, shape: Sequence[int],
                    strides: Optional[Sequence[int]] = None, offset: int = 0) -> "DeviceArray":
        """A view of an engine's cl_mem (retained for the life of the view)."""
        _cl.retain_buffer(mem)
        return cls(ctx, _Buffer(mem, _cl.buffer_size(mem)), to_dtype(dtype), shape, strides,
                   offset)

    @property
    def size(self) -> int:
        """Number of elements."""
        return int(np.prod(self.shape))

    def view(self, shape: Sequence[int], strides: Optional[Sequence[int]] = None,
             offset: Optional[int] = None) -> "DeviceArray":
        """Another view of the same buffer (strides and offset in elements)."""
        return DeviceArray(self.ctx, self._buffer, self.dtype, shape, strides,
                           self.offset if offset is None else offset)

    def _c(self) -> TensorC:
        t = TensorC(self.mem, self.offset, int(self.dtype), len(self.shape))
        for i, (n, s) in enumerate(zip(self.shape, self.strides)):
            t.shape[i], t.stride[i] = n, s
        return t

    def to_numpy(self, queue: Any = None, wait: Iterable[Any] = ()) -> np.ndarray:
        """Read the view back (blocking), as a new contiguous numpy array."""
        item = numpy_dtype(self.dtype).itemsize
        span = 1 + sum((n - 1) * s for n, s in zip(self.shape, self.strides))
        raw = np.empty(span, dtype=numpy_dtype(self.dtype))
        _cl.read_buffer(self.ctx._queue_handle(queue), self.mem, self.offset * item,
                        span * item, raw.ctypes.data, _event_handles(wait))
        out = np.lib.stride_tricks.as_strided(raw, self.shape, [s * item for s in self.strides])
        return np.ascontiguousarray(out)

    def __repr__(self) -> str:
        return f"DeviceArray({self.dtype.name.lower()}, shape={self.shape}, strides={self.strides})"


def _contiguous(shape: Sequence[int]) -> Shape:
    strides, acc = [], 1
    for n in reversed(shape):
        strides.append(acc)
        acc *= int(n)
    return tuple(reversed(strides))


class View:
    """A tensor-like converted for one call: the C view, what must stay alive, events the
    call must wait for, callbacks that get its event, and an ordering domain (an object
    with ``before(ctx, queue)`` and ``after(ctx, queue)``, e.g. the PyTorch bridge)."""

    __slots__ = ("c", "keep", "waits", "on_done", "domain")

    def __init__(self, c: TensorC, keep: Any = None, waits: Sequence[int] = (),
                 on_done: Optional[Callable[[Event], None]] = None, domain: Any = None) -> None:
        self.c = c
        self.keep = keep
        self.waits = waits
        self.on_done = on_done
        self.domain = domain


Converter = Callable[["Context", Any], Optional[View]]
_converters: List[Converter] = []


def register_converter(fn: Converter) -> None:
    """Teach the ops a new kind of tensor-like: fn(ctx, obj) returns a View, or None
    when obj is not its kind."""
    if fn not in _converters:
        _converters.append(fn)


def _pyopencl_loaded() -> bool:
    """Import bicl.pyopencl_interop (which registers its converter); False if it
    was imported before."""
    import sys

    if "bicl.pyopencl_interop" in sys.modules:
        return True
    from . import pyopencl_interop  # noqa: F401

    return False


def _event_handles(wait: Iterable[Any]) -> List[int]:
    out = []
    for e in wait:
        h = e if isinstance(e, int) else getattr(e, "int_ptr", None)
        if h is None:
            raise TypeError(f"not an event: {e!r}")
        out.append(int(h))
    return out


class Device:
    """One OpenCL device as bicl lists it: index, name, and bicl's verdict."""

    def __init__(self, index: int, handle: int) -> None:
        self.index = index
        self.handle = handle
        self.name = _cl.device_name(handle)
        why = ctypes.create_string_buffer(512)
        self.suitable = lib().bicl_device_check(handle, why, len(why)) == 0
        self.verdict = why.value.decode(errors="replace")

    def __repr__(self) -> str:
        return f"Device({self.index}, {self.name!r}, {'suitable' if self.suitable else self.verdict})"


def devices() -> List[Device]:
    """Every OpenCL device, in the order device specs and bicl-info count them."""
    count = c_size_t(0)
    lib().bicl_device_list(None, 0, byref(count))
    handles = (c_void_p * max(count.value, 1))()
    lib().bicl_device_list(handles, count.value, byref(count))
    return [Device(i, handles[i] or 0) for i in range(count.value)]


def check_build_options(extra: str) -> None:
    """Check extra OpenCL build options against bicl's allow list (raises BiclError)."""
    lib().bicl_check_build_options(extra.encode())


def _options(build_options: Optional[str], cache_dir: Optional[str], disk_cache: Optional[bool],
             profile: Optional[str], act_tables: Optional[str],
             rope_specialise: Optional[bool] = None, rope_form: Optional[str] = None) -> int:
    """A bicl_options object with the given settings (the caller frees it)."""
    opts = c_void_p(0)
    lib().bicl_options_create(byref(opts))
    try:
        for key, value in ((Option.BUILD_OPTIONS, build_options), (Option.CACHE_DIR, cache_dir),
                           (Option.PROFILE, profile), (Option.ACT_TABLES, act_tables),
                           (Option.ROPE_FORM, rope_form)):
            if value is not None:
                lib().bicl_options_set_string(opts, key, value.encode())
        for ikey, ivalue in ((Option.DISK_CACHE, disk_cache),
                             (Option.ROPE_SPECIALISE, rope_specialise)):
            if ivalue is not None:
                lib().bicl_options_set_int(opts, ikey, int(ivalue))
    except BaseException:
        lib().bicl_options_free(opts)
        raise
    return opts.value or 0


class Context:
    """bicl on one device (``bicl_context``).

    Args:
        device: a device spec as bicl-info and ``BICL_DEVICE`` take it ("pocl",
            "nvidia:1", "0"); None reads ``$BICL_DEVICE``, else the first suitable device.
        build_options, cache_dir, disk_cache, profile, act_tables, rope_specialise,
            rope_form: the ``bicl_option`` keys (include/bicl/bicl.h); unsafe build options
            raise BiclError.
    """

    def __init__(self, device: Optional[str] = None, *, build_options: Optional[str] = None,
                 cache_dir: Optional[str] = None, disk_cache: Optional[bool] = None,
                 profile: Optional[str] = None, act_tables: Optional[str] = None,
                 rope_specialise: Optional[bool] = None, rope_form: Optional[str] = None,
                 _cl_objects: Optional[Tuple[int, int]] = None) -> None:
        self._handle = 0
        self._queue = 0
        opts = _options(build_options, cache_dir, disk_cache, profile, act_tables,
                        rope_specialise, rope_form)
        try:
            out = c_void_p(0)
            if _cl_objects is None:
                lib().bicl_context_create_default(device.encode() if device else None, opts,
                                                  byref(out))
            else:
                lib().bicl_context_create(_cl_objects[0], _cl_objects[1], opts, byref(out))
            self._handle = out.value or 0
        finally:
            lib().bicl_options_free(opts)
        self._np: Any = None
        self._bridges: List[Any] = []

    @classmethod
    def from_cl(cls, cl_context: int, device: int, **options: Any) -> "Context":
        """A context over an engine's cl_context and one of its devices (bicl retains
        both); options as for the constructor."""
        return cls(_cl_objects=(int(cl_context), int(device)), **options)

    # ------------------------------------------------------------------ lifetime
    def close(self) -> None:
        """Finish the context's own queue and free the context (plans made from it keep
        only their host-side uses). Idempotent."""
        if self._queue:
            _cl.finish(self._queue)
            _cl.release_queue(self._queue)
            self._queue = 0
        for bridge in self._bridges:
            bridge.close()
        if self._handle:
            lib().bicl_context_free(self._handle)
            self._handle = 0

    def __enter__(self) -> "Context":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown: the libraries may be gone
            pass

    @property
    def handle(self) -> int:
        """The bicl_context pointer."""
        if not self._handle:
            raise ValueError("the context is closed")
        return self._handle

    # --------------------------------------------------------------- properties
    @property
    def cl_context(self) -> int:
        """The cl_context (not retained for the caller)."""
        return lib().bicl_context_cl_context(self.handle) or 0

    @property
    def cl_device(self) -> int:
        """The cl_device_id."""
        return lib().bicl_context_device(self.handle) or 0

    @property
    def device_name(self) -> str:
        """'platform / device'."""
        return _cl.device_name(self.cl_device)

    @property
    def fingerprint(self) -> str:
        """The numerics fingerprint (docs/api.md)."""
        return lib().bicl_fingerprint(self.handle).decode()

    @property
    def fingerprint_hash(self) -> int:
        """64-bit FNV-1a hash of the fingerprint."""
        return int(lib().bicl_fingerprint_hash(self.handle))

    @property
    def has_fp64(self) -> bool:
        """Whether inline RoPE can run."""
        return bool(lib().bicl_context_has_fp64(self.handle))

    @property
    def profile(self) -> str:
        """The platform profile in use."""
        return lib().bicl_context_profile(self.handle).decode()

    @property
    def variant(self) -> Tuple[int, int, int]:
        """(vector_width, items_per_thread, work_group_size) for all-32-bit launches."""
        v = VariantC()
        lib().bicl_context_get_variant(self.handle, byref(v))
        return (v.vector_width, v.items_per_thread, v.work_group_size)

    def set_variant(self, variant: Optional[Tuple[int, int, int]]) -> None:
        """Force a kernel variant for later ops (None: the profile's). Never changes bits."""
        v = None if variant is None else byref(VariantC(*variant))
        lib().bicl_context_set_variant(self.handle, v)

    def cache_stats(self) -> dict:
        """Program builds and disk cache counters."""
        s = CacheStatsC()
        lib().bicl_context_cache_stats(self.handle, byref(s))
        return {name: getattr(s, name) for name, *_ in CacheStatsC._fields_}

    @property
    def queue(self) -> int:
        """The context's own in-order cl_command_queue, made on first use."""
        if not self._queue:
            self._queue = _cl.create_queue(self.cl_context, self.cl_device)
        return self._queue

    def _queue_handle(self, queue: Any) -> int:
        if queue is None:
            return self.queue
        return int(queue if isinstance(queue, int) else queue.int_ptr)

    def finish(self, queue: Any = None) -> None:
        """clFinish on a queue (default: the context's own)."""
        _cl.finish(self._queue_handle(queue))

    @property
    def np(self) -> Any:
        """Host arrays in, host arrays out (bicl.hostops.HostOps)."""
        if self._np is None:
            from .hostops import HostOps

            self._np = HostOps(self)
        return self._np

    # ---------------------------------------------------------------- arrays
    def empty(self, shape: Sequence[int], dtype: DtypeLike) -> DeviceArray:
        """A new contiguous device array (contents undefined)."""
        d = to_dtype(dtype)
        n = int(np.prod(shape)) * numpy_dtype(d).itemsize
        return DeviceArray(self, _Buffer(_cl.create_buffer(self.cl_context, max(n, 1)), n), d,
                           shape)

    def to_device(self, array: NDArray, dtype: Optional[DtypeLike] = None) -> DeviceArray:
        """A new device array holding a host array's elements (uint16 is read as bf16;
        ``dtype`` names another bicl dtype of the same item size)."""
        a = np.ascontiguousarray(array)
        d = to_dtype(dtype if dtype is not None else a.dtype)
        if a.dtype.itemsize != numpy_dtype(d).itemsize:
            raise TypeError(f"{a.dtype} elements are not {d.name.lower()}")
        mem = _cl.create_buffer(self.cl_context, max(a.nbytes, 1), a.ctypes.data)
        return DeviceArray(self, _Buffer(mem, a.nbytes), d, a.shape if a.ndim else (1,))

    # ------------------------------------------------------------------- calls
    def view_of(self, obj: Any) -> Optional[View]:
        """The View of a tensor-like for one call (None stays None)."""
        if obj is None:
            return None
        if isinstance(obj, DeviceArray):
            return View(obj._c(), obj)
        for conv in _converters:
            v = conv(self, obj)
            if v is not None:
                return v
        if type(obj).__module__.startswith("pyopencl") and not _pyopencl_loaded():
            return self.view_of(obj)
        if isinstance(obj, np.ndarray):
            raise TypeError("a host array: use ctx.np.* for host arrays in, host arrays out, "
                            "or ctx.to_device() first")
        raise TypeError(f"not a tensor bicl can use: {type(obj).__name__}")

    def _run(self, fn: str, args: Sequence[Any], queue: Any, wait: Iterable[Any],
             event: bool) -> Optional[Event]:
        """Call op `fn` with (ctx, queue, *args, n_wait, wait, done); args holds Views
        (passed by pointer), None (NULL) and scalars."""
        q = self._queue_handle(queue)
        views = [a for a in args if isinstance(a, View)]
        waits = _event_handles(wait)
        domains: List[Any] = []
        for v in views:
            waits.extend(v.waits)
            if v.domain is not None and v.domain not in domains:
                domains.append(v.domain)
        want = event or any(v.on_done for v in views)
        for d in domains:
            d.before(self, q)
        cargs = [byref(a.c) if isinstance(a, View) else a for a in args]
        wait_arr = (c_void_p * len(waits))(*waits) if waits else None
        done = c_void_p(0)
        getattr(lib(), fn)(self.handle, q, *cargs, len(waits), wait_arr,
                           byref(done) if want else None)
        ev = Event(done.value) if want and done.value else None
        for v in views:
            if v.on_done and ev is not None:
                v.on_done(ev)
        for d in domains:
            d.after(self, q)
        return ev if event else None

    # --------------------------------------------------------------------- ops
    # Every op: enqueue on `queue` (default: the context's own) after `wait`; returns an
    # Event when event=True. Tensor-likes as described in the module docstring.

    def cast(self, x: Any, y: Any, *, queue: Any = None, wait: Iterable[Any] = (),
             event: bool = False) -> Optional[Event]:
        """y = x converted to y's dtype (bicl_cast)."""
        return self._run("bicl_cast", [self.view_of(x), self.view_of(y)], queue, wait, event)

    def unary(self, op: Union[UnaryOp, str], x: Any, y: Any, *, softcap: float = 0.0,
              queue: Any = None, wait: Iterable[Any] = (), event: bool = False,
              **params: float) -> Optional[Event]:
        """y = op(x) (bicl_unary); softcap for UnaryOp.SOFTCAP, the other parameters
        (negative_slope, alpha_p, alpha_n, beta, eps) by name."""
        cparams = UnaryParamsC(softcap=softcap, **params)
        return self._run("bicl_unary", [enum_arg(UnaryOp, op), byref(cparams), self.view_of(x),
                                        self.view_of(y)], queue, wait, event)

    def glu(self, act: Union[GluAct, str], gate: Any, up: Any, y: Any, *, alpha: float = 0.0,
            limit: float = 0.0, round_act_to_storage: bool = False, threshold: float = 0.0,
            rounding: Union[GluRounding, str, int, None] = None, queue: Any = None,
            wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y = act(gate) * up (bicl_glu). rounding: a GluRounding ("f32", the default;
        "act_to_storage", as round_act_to_storage=True; "once": act(gate) * up correctly
        rounded once)."""
        params = GluParamsC(alpha, limit, glu_rounding(rounding, round_act_to_storage),
                            threshold)
        return self._run("bicl_glu", [enum_arg(GluAct, act), byref(params), self.view_of(gate),
                                      self.view_of(up), self.view_of(y)], queue, wait, event)

    def glu_fused(self, act: Union[GluAct, str], x: Any, y: Any, *,
                  layout: Union[GluLayout, str] = GluLayout.HALVES, alpha: float = 0.0,
                  limit: float = 0.0, round_act_to_storage: bool = False, threshold: float = 0.0,
                  rounding: Union[GluRounding, str, int, None] = None, queue: Any = None,
                  wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """bicl_glu on gate and up taken from one x [..., 2F] (bicl_glu_fused); rounding as
        for glu."""
        params = GluParamsC(alpha, limit, glu_rounding(rounding, round_act_to_storage),
                            threshold)
        return self._run("bicl_glu_fused", [enum_arg(GluAct, act), byref(params),
                                            enum_arg(GluLayout, layout), self.view_of(x),
                                            self.view_of(y)], queue, wait, event)

    def binary(self, op: Union[BinaryOp, str], a: Any, b: Any, y: Any, *, queue: Any = None,
               wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y = a op b with broadcasting (bicl_binary)."""
        return self._run("bicl_binary", [enum_arg(BinaryOp, op), self.view_of(a), self.view_of(b),
                                         self.view_of(y)], queue, wait, event)

    def axpby(self, alpha: float, a: Any, beta: float, b: Any, y: Any, *, queue: Any = None,
              wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y = alpha a + beta b, no fma (bicl_axpby)."""
        return self._run("bicl_axpby", [alpha, self.view_of(a), beta, self.view_of(b),
                                        self.view_of(y)], queue, wait, event)

    def residual_add(self, residual: Any, x: Any, residual_out: Any, y: Any, *, queue: Any = None,
                     wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """residual_out = residual + x (f32), y = the same rounded to y's dtype."""
        return self._run("bicl_residual_add", [self.view_of(residual), self.view_of(x),
                                               self.view_of(residual_out), self.view_of(y)],
                         queue, wait, event)

    def scale(self, scale: float, x: Any, y: Any, *, queue: Any = None, wait: Iterable[Any] = (),
              event: bool = False) -> Optional[Event]:
        """y = x * scale (bicl_scale)."""
        return self._run("bicl_scale", [scale, self.view_of(x), self.view_of(y)], queue, wait,
                         event)

    def scale_channels(self, x: Any, s: Any, y: Any, *, queue: Any = None,
                       wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y = x * s[c] (bicl_scale_channels)."""
        return self._run("bicl_scale_channels", [self.view_of(x), self.view_of(s),
                                                 self.view_of(y)], queue, wait, event)

    def bias_add(self, x: Any, bias: Any, y: Any, *, queue: Any = None, wait: Iterable[Any] = (),
                 event: bool = False) -> Optional[Event]:
        """y = x + bias[c] (bicl_bias_add)."""
        return self._run("bicl_bias_add", [self.view_of(x), self.view_of(bias), self.view_of(y)],
                         queue, wait, event)

    def mask_fill(self, x: Any, mask: Any, fill: float, y: Any, *, queue: Any = None,
                  wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y = mask != 0 ? fill : x (bicl_mask_fill)."""
        return self._run("bicl_mask_fill", [self.view_of(x), self.view_of(mask), fill,
                                            self.view_of(y)], queue, wait, event)

    def mask_fill_lengths(self, x: Any, lengths: Any, fill: float, y: Any, *, queue: Any = None,
                          wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y[..., c] = c >= lengths[...] ? fill : x (bicl_mask_fill_lengths)."""
        return self._run("bicl_mask_fill_lengths", [self.view_of(x), self.view_of(lengths), fill,
                                                    self.view_of(y)], queue, wait, event)

    def mask_fill_causal(self, x: Any, offset: int, fill: float, y: Any, *, queue: Any = None,
                         wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """y[..., r, c] = c > r + offset ? fill : x (bicl_mask_fill_causal)."""
        return self._run("bicl_mask_fill_causal", [self.view_of(x), offset, fill,
                                                   self.view_of(y)], queue, wait, event)

    def rope(self, plan: Any, positions: Any, q: Any, q_out: Any = None, k: Any = None,
             k_out: Any = None, *, source: Union[RopeSource, str] = RopeSource.AUTO,
             inverse: bool = False, queue: Any = None, wait: Iterable[Any] = (),
             event: bool = False) -> Optional[Event]:
        """Rotate q (and k) by the plan at the positions (bicl_rope_apply); an output
        left None rotates its input in place."""
        qv = self.view_of(q)
        kv = self.view_of(k)
        qo = qv if q_out is None else self.view_of(q_out)
        ko = kv if k_out is None else self.view_of(k_out)
        return self._run("bicl_rope_apply", [plan.handle, enum_arg(RopeSource, source),
                                             int(inverse), self.view_of(positions), qv, qo, kv,
                                             ko], queue, wait, event)

    def positions_packed(self, cu_seqlens: Any, positions: Any, start: Any = None, *,
                         queue: Any = None, wait: Iterable[Any] = (),
                         event: bool = False) -> Optional[Event]:
        """positions[t] = start[b] + t - cu_seqlens[b] (bicl_positions_packed)."""
        return self._run("bicl_positions_packed", [self.view_of(cu_seqlens), self.view_of(start),
                                                   self.view_of(positions)], queue, wait, event)

    def positions_padded(self, mask: Any, positions: Any, start: Any = None, *, queue: Any = None,
                         wait: Iterable[Any] = (), event: bool = False) -> Optional[Event]:
        """Positions of the real tokens of a padded [B, S] batch (bicl_positions_padded)."""
        return self._run("bicl_positions_padded", [self.view_of(mask), self.view_of(start),
                                                   self.view_of(positions)], queue, wait, event)

    def __repr__(self) -> str:
        return f"Context({self.device_name!r})" if self._handle else "Context(closed)"
