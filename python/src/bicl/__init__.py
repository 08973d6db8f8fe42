"""bicl from Python: batch-invariant OpenCL pointwise and RoPE kernels.

    import bicl, numpy as np
    ctx = bicl.Context("pocl")                       # a device spec, as bicl-info takes it
    x = np.random.randn(4, 4096).astype(np.float32)
    y = ctx.np.unary("silu", x)                      # host arrays in, host arrays out
    assert (y.view(np.uint32) == bicl.reference.unary("silu", x).view(np.uint32)).all()

The API mirrors the C one (include/bicl/*.h; docs/python.md): :class:`Context` (device
spec, fingerprint, every op on device tensors), ``ctx.np`` (numpy in and out),
:mod:`bicl.reference` (the host reference on numpy arrays), :class:`RopeConfig` (from a
model's config.json) and :class:`RopePlan`, :func:`devices`, :func:`check` (golden
verification through bicl-check), :mod:`bicl.pyopencl_interop` and
:mod:`bicl.torch_bridge` (zero-copy PyTorch CUDA tensors on NVIDIA). Errors raise
:class:`BiclError` with the status and bicl's detail text. The enums are generated from
the C headers at build time.
"""
from __future__ import annotations

from . import reference
from ._enums import (MAX_RANK, VERSION_STRING, BinaryOp, Dtype, GluAct, GluLayout, GluRounding,
                     Option, RopeAngleMode, RopeSource, RopeStyle, RopeType, Status, UnaryOp)
from ._lib import BiclError, library_path
from ._tools import check, golden_path, tool_path
from .context import (Context, Device, DeviceArray, Event, View, check_build_options, devices,
                      register_converter)
from .rope import RopeConfig, RopePlan, hf_layer_type, hf_layer_types

__version__ = VERSION_STRING

__all__ = ["BiclError", "BinaryOp", "Context", "Device", "DeviceArray", "Dtype", "Event",
           "GluAct", "GluLayout", "GluRounding", "MAX_RANK", "Option", "RopeAngleMode", "RopeConfig",
           "RopePlan", "RopeSource", "RopeStyle", "RopeType", "Status", "UnaryOp", "View",
           "check", "check_build_options", "devices", "golden_path", "hf_layer_type",
           "hf_layer_types", "library_path",
           "library_version", "reference", "register_converter", "status_string",
           "tool_path", "__version__"]


def library_version() -> str:
    """The version of the libbicl actually loaded (bicl_version_string)."""
    from ._lib import lib

    return lib().bicl_version_string().decode()


def status_string(status: int) -> str:
    """bicl_status_string: "BICL_ERR_NAME: sentence"."""
    from ._lib import lib

    return lib().bicl_status_string(int(status)).decode()
