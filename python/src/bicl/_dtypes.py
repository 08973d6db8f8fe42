"""bicl dtypes and numpy dtypes, and the parsing of enum arguments.

numpy has no bfloat16: bf16 host data travels as ``uint16`` bit patterns (a numpy
``uint16`` array is read as bf16), or as ml_dtypes' ``bfloat16`` where that is installed.
"""
from __future__ import annotations

from enum import IntEnum
from typing import Any, Dict, Type, TypeVar, Union

import numpy as np

from ._enums import Dtype

__all__ = ["DtypeLike", "to_dtype", "numpy_dtype", "dtype_of_array", "enum_arg"]

#: A bicl dtype given as Dtype, its name ("bf16"), or a numpy dtype.
DtypeLike = Union[Dtype, str, np.dtype, type]

_NP: Dict[Dtype, np.dtype] = {Dtype.F32: np.dtype(np.float32), Dtype.F16: np.dtype(np.float16),
       Dtype.BF16: np.dtype(np.uint16), Dtype.I32: np.dtype(np.int32),
       Dtype.U8: np.dtype(np.uint8)}
_FROM_NP = {np.dtype(np.float32): Dtype.F32, np.dtype(np.float16): Dtype.F16,
            np.dtype(np.uint16): Dtype.BF16, np.dtype(np.int32): Dtype.I32,
            np.dtype(np.uint8): Dtype.U8, np.dtype(np.bool_): Dtype.U8}


def to_dtype(d: DtypeLike) -> Dtype:
    """A bicl Dtype from a Dtype, a name ("f32", "bf16", ...) or a numpy dtype."""
    if isinstance(d, Dtype):
        return d
    if isinstance(d, str) and d.upper() in Dtype.__members__:
        return Dtype[d.upper()]
    npd = np.dtype(d)
    if npd.name == "bfloat16":  # ml_dtypes
        return Dtype.BF16
    if npd in _FROM_NP:
        return _FROM_NP[npd]
    raise TypeError(f"no bicl dtype for {d!r}")


def numpy_dtype(d: Dtype) -> np.dtype:
    """The numpy dtype holding a bicl dtype's bits (bf16: uint16)."""
    return _NP[Dtype(d)]


def dtype_of_array(a: np.ndarray) -> Dtype:
    """The bicl dtype of a numpy array's elements (uint16 is read as bf16)."""
    return to_dtype(a.dtype)


E = TypeVar("E", bound=IntEnum)


def enum_arg(cls: Type[E], value: Any) -> E:
    """An enum member from a member, its value, or its name in any case ("silu")."""
    if isinstance(value, cls):
        return value
    if isinstance(value, str):
        try:
            return cls[value.upper()]
        except KeyError:
            raise ValueError(f"{value!r} is not one of {', '.join(m.name.lower() for m in cls)}") from None
    return cls(value)


def glu_rounding(rounding: Any, round_act_to_storage: bool) -> int:
    """bicl_glu_params.rounding: a GluRounding (member, value or name: "once"), else the
    older flag round_act_to_storage (0 or 1). An unknown value is passed on, so the
    library refuses it (BICL_ERR_INVALID_PARAMETER) as it refuses it from C."""
    if rounding is None:
        return 1 if round_act_to_storage else 0
    if isinstance(rounding, str):
        from ._enums import GluRounding
        return int(enum_arg(GluRounding, rounding))
    return int(rounding)
