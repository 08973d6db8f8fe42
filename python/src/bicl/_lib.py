"""The C library: where it is found, its structs, and the one table of its functions.

Every C function the package calls is bound here, in ``SIGNATURES``, one line each:
to bind a new one (say a new ``bicl_rope_*`` of include/bicl/rope.h), add its line and
call it as ``lib().bicl_new_function``. Functions returning ``bicl_status`` raise
:class:`BiclError` on failure through ctypes' ``errcheck``, with bicl's detail text
(``bicl_last_error``) read on the same thread right after the call.
python/tests/test_bindings.py checks that every ``BICL_API`` function of the headers is
bound and that each bound one is exported by the library.
"""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import threading
from ctypes import (
    POINTER,
    Structure,
    c_char_p,
    c_double,
    c_float,
    c_int,
    c_int32,
    c_long,
    c_size_t,
    c_ssize_t,
    c_uint,
    c_uint8,
    c_uint16,
    c_uint64,
    c_ulong,
    c_void_p,
)
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

from ._enums import MAX_RANK, Status

__all__ = ["BiclError", "lib", "library_path", "package_dir", "TensorC", "VariantC",
           "UnaryParamsC", "GluParamsC", "RopeConfigC", "CacheStatsC", "SIGNATURES"]

#: The folder of this package (lib/, bin/, data/ and include/ are installed under it).
package_dir = os.path.dirname(os.path.abspath(__file__))


class BiclError(RuntimeError):
    """A bicl call failed.

    Attributes:
        status: the :class:`Status` the C call returned.
        name: its C name, e.g. ``"BICL_ERR_OUT_OF_BOUNDS"``.
        detail: bicl's detail text for the call (``bicl_last_error``): which argument,
            the build log, the OpenCL error.
        function: the C function that failed.
    """

    def __init__(self, status: int, detail: str, function: str = "") -> None:
        try:
            self.status: Status | int = Status(status)
            self.name = self.status.c_name
        except ValueError:
            self.status = status
            self.name = f"bicl status {status}"
        self.detail = detail
        self.function = function
        text = _status_text(status)
        where = f"{function}: " if function else ""
        super().__init__(f"{where}{text}" + (f" ({detail})" if detail else ""))


# ----------------------------------------------------------------------- structs


class TensorC(Structure):
    """bicl_tensor: a view of a cl_mem; offset and strides in elements."""

    _fields_ = [("mem", c_void_p), ("offset", c_size_t), ("dtype", c_int), ("rank", c_int),
                ("shape", c_size_t * MAX_RANK), ("stride", c_ssize_t * MAX_RANK)]


class VariantC(Structure):
    """bicl_variant."""

    _fields_ = [("vector_width", c_uint), ("items_per_thread", c_uint),
                ("work_group_size", c_size_t)]


class UnaryParamsC(Structure):
    """bicl_unary_params."""

    _fields_ = [("softcap", c_float), ("negative_slope", c_float), ("alpha_p", c_float),
                ("alpha_n", c_float), ("beta", c_float), ("eps", c_float)]


class GluParamsC(Structure):
    """bicl_glu_params."""

    # rounding: a bicl_glu_rounding, the int the C header also names round_act_to_storage
    _fields_ = [("alpha", c_float), ("limit", c_float), ("rounding", c_int),
                ("threshold", c_float)]


class CacheStatsC(Structure):
    """bicl_cache_stats."""

    _fields_ = [("programs_built", c_ulong), ("disk_hits", c_ulong), ("disk_rejected", c_ulong),
                ("disk_writes", c_ulong), ("disk_write_fail", c_ulong)]


class RopeConfigC(Structure):
    """bicl_rope_config (its struct_size, set by bicl_rope_config_init_sized, is checked
    against this layout's size in python/tests/test_bindings.py)."""

    _fields_ = [
        ("struct_size", c_size_t), ("head_dim", c_int), ("rotary_dim", c_int), ("style", c_int),
        ("theta", c_double), ("type", c_int), ("factor", c_double),
        ("low_freq_factor", c_double), ("high_freq_factor", c_double),
        ("original_max_position_embeddings", c_int), ("max_position_embeddings", c_int),
        ("beta_fast", c_double), ("beta_slow", c_double), ("mscale", c_double),
        ("mscale_all_dim", c_double), ("attention_factor", c_double), ("truncate", c_int),
        ("seq_len", c_int), ("long_factor", POINTER(c_double)),
        ("short_factor", POINTER(c_double)), ("freq_factors", POINTER(c_double)),
        ("angle_mode", c_int),
        # a rotary slice inside the head (MLA) and proportional RoPE
        ("rotary_offset", c_int), ("k_head_dim", c_int), ("k_rotary_offset", c_int),
        ("rope_angles", c_int),
    ]


class RopeHfOptionsC(Structure):
    """bicl_rope_hf_options (struct_size set by bicl_rope_hf_options_init_sized)."""

    _fields_ = [("struct_size", c_size_t), ("explicit_style", c_int), ("style", c_int),
                ("layer_type", c_char_p)]


# ------------------------------------------------------------- the function table
_S = "status"  # marks a function returning bicl_status (raises BiclError on failure)
_P = c_void_p  # every handle: bicl_context *, bicl_options *, plans, cl_* objects
_T = POINTER(TensorC)
_EV = POINTER(c_void_p)  # const cl_event * / cl_event *
_WAIT = [c_uint, _EV, _EV]  # the tail of every op: n_wait, wait, done

#: C function name -> (result type or "status", argument types).
SIGNATURES: Dict[str, Tuple[Any, List[Any]]] = {
    # bicl.h 1: versions, statuses, dtypes
    "bicl_version_number": (c_uint, []),
    "bicl_version_string": (c_char_p, []),
    "bicl_status_string": (c_char_p, [c_int]),
    "bicl_dtype_size": (c_size_t, [c_int]),
    "bicl_dtype_name": (c_char_p, [c_int]),
    # bicl.h 2: options, context
    "bicl_options_create": (_S, [POINTER(_P)]),
    "bicl_options_free": (None, [_P]),
    "bicl_options_set_string": (_S, [_P, c_int, c_char_p]),
    "bicl_options_set_int": (_S, [_P, c_int, c_long]),
    "bicl_check_build_options": (_S, [c_char_p]),
    "bicl_context_create": (_S, [_P, _P, _P, POINTER(_P)]),
    "bicl_context_create_default": (_S, [c_char_p, _P, POINTER(_P)]),
    "bicl_context_free": (None, [_P]),
    "bicl_context_cl_context": (_P, [_P]),
    "bicl_context_device": (_P, [_P]),
    "bicl_context_has_fp64": (c_int, [_P]),
    "bicl_fingerprint": (c_char_p, [_P]),
    "bicl_fingerprint_hash": (c_uint64, [_P]),
    "bicl_last_error": (c_char_p, [_P]),
    "bicl_device_list": (_S, [POINTER(_P), c_size_t, POINTER(c_size_t)]),
    "bicl_device_check": (c_int, [_P, c_char_p, c_size_t]),  # a verdict, not a failure
    "bicl_context_cache_stats": (_S, [_P, POINTER(CacheStatsC)]),
    # bicl.h 3, 4: views, variants
    "bicl_tensor_contiguous": (TensorC, [_P, c_int, c_size_t, c_int, POINTER(c_size_t)]),
    "bicl_context_set_variant": (_S, [_P, POINTER(VariantC)]),
    "bicl_context_get_variant": (_S, [_P, POINTER(VariantC)]),
    "bicl_context_profile": (c_char_p, [_P]),
    # bicl.h 5, 6: cast and host reference
    "bicl_cast": (_S, [_P, _P, _T, _T] + _WAIT),
    "bicl_ref_cast": (_S, [c_int, c_void_p, c_int, c_void_p, c_size_t]),
    "bicl_ref_f16_to_f32": (c_float, [c_uint16]),
    "bicl_ref_f32_to_f16": (c_uint16, [c_float]),
    "bicl_ref_bf16_to_f32": (c_float, [c_uint16]),
    "bicl_ref_f32_to_bf16": (c_uint16, [c_float]),
    # pointwise.h
    "bicl_unary": (_S, [_P, _P, c_int, POINTER(UnaryParamsC), _T, _T] + _WAIT),
    "bicl_glu": (_S, [_P, _P, c_int, POINTER(GluParamsC), _T, _T, _T] + _WAIT),
    "bicl_glu_fused": (_S, [_P, _P, c_int, POINTER(GluParamsC), c_int, _T, _T] + _WAIT),
    "bicl_binary": (_S, [_P, _P, c_int, _T, _T, _T] + _WAIT),
    "bicl_axpby": (_S, [_P, _P, c_float, _T, c_float, _T, _T] + _WAIT),
    "bicl_residual_add": (_S, [_P, _P, _T, _T, _T, _T] + _WAIT),
    "bicl_scale": (_S, [_P, _P, c_float, _T, _T] + _WAIT),
    "bicl_scale_channels": (_S, [_P, _P, _T, _T, _T] + _WAIT),
    "bicl_bias_add": (_S, [_P, _P, _T, _T, _T] + _WAIT),
    "bicl_mask_fill": (_S, [_P, _P, _T, _T, c_float, _T] + _WAIT),
    "bicl_mask_fill_lengths": (_S, [_P, _P, _T, _T, c_float, _T] + _WAIT),
    "bicl_mask_fill_causal": (_S, [_P, _P, _T, c_long, c_float, _T] + _WAIT),
    "bicl_ref_unary": (_S, [c_int, POINTER(UnaryParamsC), c_int, c_void_p, c_int, c_void_p,
                            c_size_t]),
    "bicl_ref_glu": (_S, [c_int, POINTER(GluParamsC), c_int, c_void_p, c_void_p, c_int,
                          c_void_p, c_size_t]),
    "bicl_ref_binary": (_S, [c_int, c_int, c_void_p, c_int, c_void_p, c_int, c_void_p,
                             c_size_t]),
    "bicl_ref_axpby": (_S, [c_float, c_int, c_void_p, c_float, c_int, c_void_p, c_int,
                            c_void_p, c_size_t]),
    "bicl_ref_residual_add": (_S, [c_void_p, c_int, c_void_p, c_void_p, c_int, c_void_p,
                                   c_size_t]),
    "bicl_ref_scale": (_S, [c_float, c_int, c_void_p, c_int, c_void_p, c_size_t]),
    "bicl_ref_mask_fill": (_S, [c_int, c_void_p, POINTER(c_uint8), c_float, c_int, c_void_p,
                                c_size_t]),
    "bicl_ref_mask_fill_causal": (_S, [c_int, c_void_p, c_size_t, c_size_t, c_long, c_float,
                                       c_int, c_void_p, c_size_t]),
    # rope.h
    # the init and fill functions of the structs that grow are macros over *_sized in C,
    # which take the caller's sizeof: here ctypes.sizeof of the class (docs/api.md)
    "bicl_rope_config_init_sized": (None, [POINTER(RopeConfigC), c_size_t, c_int, c_int]),
    "bicl_rope_config_check": (_S, [POINTER(RopeConfigC)]),
    "bicl_rope_hf_options_init_sized": (None, [POINTER(RopeHfOptionsC), c_size_t]),
    "bicl_rope_config_from_hf_json_sized": (_S, [c_char_p, POINTER(RopeHfOptionsC),
                                                 POINTER(RopeConfigC), c_size_t]),
    "bicl_rope_config_layer_types": (_S, [c_char_p, c_char_p, c_size_t, POINTER(c_int),
                                          POINTER(c_int)]),
    "bicl_rope_config_layer_type": (_S, [c_char_p, c_int, c_char_p, c_size_t]),
    "bicl_rope_config_release": (None, [POINTER(RopeConfigC)]),
    "bicl_rope_plan_create": (_S, [_P, POINTER(RopeConfigC), c_int, c_int, POINTER(_P)]),
    "bicl_rope_plan_free": (None, [_P]),
    "bicl_rope_plan_inv_freq": (_S, [_P, POINTER(c_double), c_size_t, POINTER(c_double)]),
    "bicl_rope_plan_softmax_scale": (_S, [_P, POINTER(c_double), POINTER(c_double)]),
    "bicl_rope_apply": (_S, [_P, _P, _P, c_int, c_int, _T, _T, _T, _T, _T] + _WAIT),
    # returns BICL_ERR_POSITION_OUT_OF_RANGE with a count: RopePlan.errors reads it
    "bicl_rope_errors": (c_int, [_P, _P, _P, POINTER(c_uint), POINTER(c_int), c_uint, _EV]),
    "bicl_positions_packed": (_S, [_P, _P, _T, _T, _T] + _WAIT),
    "bicl_positions_padded": (_S, [_P, _P, _T, _T, _T] + _WAIT),
    "bicl_ref_rope_head": (_S, [_P, c_int, c_int, c_int, c_int, c_void_p, c_int, c_void_p]),
    "bicl_ref_rope_k_head": (_S, [_P, c_int, c_int, c_int, c_int, c_void_p, c_int, c_void_p]),
    "bicl_ref_rope_cos_sin": (_S, [_P, c_int, c_int, c_int, POINTER(c_float),
                                   POINTER(c_float)]),
    "bicl_ref_positions_packed": (_S, [POINTER(c_int32), c_size_t, POINTER(c_int32),
                                       POINTER(c_int32), c_size_t]),
    "bicl_ref_positions_padded": (_S, [c_void_p, c_int, c_size_t, c_size_t, POINTER(c_int32),
                                       POINTER(c_int32)]),
    # mrope.h: bound at the C level (struct pointers as void *: bicl_mrope_config,
    # bicl_mrope_vision and the layout structs have no Python class yet)
    "bicl_mrope_config_init_sized": (None, [c_void_p, c_size_t]),
    "bicl_mrope_config_check": (_S, [POINTER(RopeConfigC), c_void_p]),
    "bicl_mrope_pair_row": (c_int, [c_void_p, c_int]),
    "bicl_mrope_config_from_hf_json_sized": (_S, [c_char_p, POINTER(RopeHfOptionsC),
                                                  POINTER(RopeConfigC), c_size_t, c_void_p,
                                                  c_size_t, c_void_p]),
    "bicl_mrope_plan_create": (_S, [_P, POINTER(RopeConfigC), c_void_p, c_int, c_int, POINTER(_P)]),
    "bicl_mrope_plan_free": (None, [_P]),
    "bicl_mrope_plan_rope": (_P, [_P]),
    "bicl_mrope_apply": (_S, [_P, _P, _P, c_int, c_int, _T, _T, _T, _T, _T] + _WAIT),
    "bicl_ref_mrope_head": (_S, [_P, c_int, c_int, POINTER(c_int32), c_int, c_void_p, c_int,
                                 c_void_p]),
    "bicl_mrope_positions": (_S, [_P, _P, c_void_p, c_void_p, _T, _T] + _WAIT),
    "bicl_ref_mrope_positions": (_S, [c_void_p, c_void_p, POINTER(c_int32), POINTER(c_int32)]),
}

# ------------------------------------------------------------------- the loader
_lock = threading.Lock()
_lib: Optional[ctypes.CDLL] = None
_path: Optional[str] = None


def _candidates() -> List[str]:
    """Where libbicl is looked for, in order: $BICL_LIBRARY, the package's lib/, the
    system's library path."""
    out = []
    env = os.environ.get("BICL_LIBRARY")
    if env:
        out.append(env)
    out.append(os.path.join(package_dir, "lib", "libbicl.so.0"))
    found = ctypes.util.find_library("bicl")
    if found:
        out.append(found)
    return out


def _status_text(status: int) -> str:
    """bicl_status_string, or a plain text if the library is not loaded."""
    if _lib is None:
        return f"bicl status {status}"
    return (_lib.bicl_status_string(status) or b"").decode()


def _errcheck(name: str) -> Callable[..., Any]:
    """ctypes errcheck for a status-returning function: raise BiclError on failure."""

    def check(result: int, func: Any, args: Sequence[Any]) -> int:
        if result != 0:
            detail = (_lib.bicl_last_error(None) or b"").decode(errors="replace")  # type: ignore[union-attr]
            raise BiclError(result, detail, name)
        return result

    return check


def _bind(cdll: ctypes.CDLL) -> None:
    """Set every function's types (and errcheck) from SIGNATURES."""
    for name, (restype, argtypes) in SIGNATURES.items():
        fn = getattr(cdll, name)
        fn.argtypes = argtypes
        if restype == _S:
            fn.restype = c_int
            fn.errcheck = _errcheck(name)
        else:
            fn.restype = restype


def lib() -> ctypes.CDLL:
    """The loaded, bound libbicl (loaded on first use)."""
    global _lib, _path
    if _lib is not None:
        return _lib
    with _lock:
        if _lib is None:
            errors = []
            for path in _candidates():
                try:
                    cdll = ctypes.CDLL(path)
                except OSError as e:
                    errors.append(f"{path}: {e}")
                    continue
                _bind(cdll)
                _path = path
                _lib = cdll
                break
            else:
                raise OSError("libbicl not found (set BICL_LIBRARY to its path): "
                              + "; ".join(errors))
    return _lib


def library_path() -> str:
    """The path libbicl was loaded from."""
    lib()
    return _path or ""
