"""pyopencl interop: ``pyopencl.array.Array`` as bicl tensors, on the engine's queue
and events.

    import pyopencl as cl, pyopencl.array as cla
    from bicl import pyopencl_interop as pi
    queue = cl.CommandQueue(cl_ctx)
    ctx = pi.context(queue)                  # bicl over pyopencl's context and device
    y = cla.empty_like(x)
    ctx.unary("silu", x, y, queue=queue)     # waits for x.events and y.events, adds its
                                             # event to both (pyopencl's convention)

Importing this module teaches every Context the Array type (bicl.register_converter);
the Context imports it by itself the first time it meets a pyopencl Array.
"""
from __future__ import annotations

from typing import Any, Optional

import pyopencl
import pyopencl.array

from ._dtypes import to_dtype
from ._enums import MAX_RANK
from ._lib import TensorC
from .context import Context, Event, View, register_converter

__all__ = ["context", "to_pyopencl_event"]


def context(obj: Any, device: Optional[Any] = None, **options: Any) -> Context:
    """A bicl Context over a pyopencl CommandQueue's context and device, or over a
    pyopencl Context and one of its devices (default its first); options as for
    :class:`bicl.Context`."""
    if isinstance(obj, pyopencl.CommandQueue):
        cl_ctx, dev = obj.context, obj.device
    else:
        cl_ctx, dev = obj, device if device is not None else obj.devices[0]
    return Context.from_cl(cl_ctx.int_ptr, dev.int_ptr, **options)


def to_pyopencl_event(event: Event) -> pyopencl.Event:
    """A pyopencl Event for a bicl Event (both hold a reference)."""
    return pyopencl.Event.from_int_ptr(event.handle, retain=True)


def _view(ctx: Context, obj: Any) -> Optional[View]:
    if not isinstance(obj, pyopencl.array.Array):
        return None
    if obj.ndim == 0 or obj.ndim > MAX_RANK:
        raise ValueError(f"rank {obj.ndim}: bicl views have rank 1..{MAX_RANK}")
    item = obj.dtype.itemsize
    if obj.offset % item or any(s % item for s in obj.strides):
        raise ValueError("a pyopencl Array whose offset or strides are not whole elements")
    mem = obj.base_data.int_ptr  # type: ignore[union-attr]
    t = TensorC(mem, obj.offset // item, int(to_dtype(obj.dtype)), obj.ndim)
    for i, (n, s) in enumerate(zip(obj.shape, obj.strides)):
        t.shape[i], t.stride[i] = n, s // item

    def done(ev: Event) -> None:
        obj.add_event(to_pyopencl_event(ev))

    return View(t, obj, [e.int_ptr for e in obj.events], done)


register_converter(_view)
