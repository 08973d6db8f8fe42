"""RoPE configs (from a model's config.json or by hand) and plans.

:class:`RopeConfig` mirrors ``bicl_rope_config`` field for field (HF's key names);
:meth:`RopeConfig.from_hf_json` reads a model's config.json the way transformers does,
through bicl's own parser (``bicl_rope_config_from_hf_json``), so Python and C engines
get the same config. A :class:`RopePlan` holds one model's frequencies (and cos/sin
table) on a context's device; ``ctx.rope`` / ``ctx.np.rope`` / ``bicl.reference.rope``
apply it.
"""
from __future__ import annotations

import ctypes
import dataclasses
import os
from ctypes import POINTER, byref, c_double, c_int, c_uint, c_void_p
from typing import Any, Iterable, List, Optional, Tuple, Union

import numpy as np

from ._dtypes import enum_arg
from ._enums import RopeAngleMode, RopeStyle, RopeType, Status
from ._lib import BiclError, RopeConfigC, RopeHfOptionsC, lib

__all__ = ["RopeConfig", "RopePlan"]

_ARRAYS = ("long_factor", "short_factor", "freq_factors")


@dataclasses.dataclass
class RopeConfig:
    """One model's RoPE (``bicl_rope_config``). Zero means unset for the optional
    scaling fields, as in HF. Build one with :meth:`default` or :meth:`from_hf_json`."""

    head_dim: int
    rotary_dim: int
    style: RopeStyle = RopeStyle.NEOX
    theta: float = 10000.0
    type: RopeType = RopeType.DEFAULT
    factor: float = 0.0
    low_freq_factor: float = 0.0
    high_freq_factor: float = 0.0
    original_max_position_embeddings: int = 0
    max_position_embeddings: int = 0
    beta_fast: float = 0.0
    beta_slow: float = 0.0
    mscale: float = 0.0
    mscale_all_dim: float = 0.0
    attention_factor: float = 0.0
    truncate: int = 1
    seq_len: int = 0
    long_factor: Optional[List[float]] = None
    short_factor: Optional[List[float]] = None
    freq_factors: Optional[List[float]] = None
    angle_mode: RopeAngleMode = RopeAngleMode.EXACT
    # a rotary slice inside the head (MLA: q's slice at qk_nope_head_dim, k_pe heads of
    # qk_rope_head_dim) and proportional RoPE's rotated pairs; 0 = the plain layout
    rotary_offset: int = 0
    k_head_dim: int = 0
    k_rotary_offset: int = 0
    rope_angles: int = 0

    @classmethod
    def default(cls, head_dim: int, rotary_dim: Optional[int] = None) -> "RopeConfig":
        """bicl_rope_config_init's defaults (neox, theta 10000, default type, exact)."""
        c = RopeConfigC()
        lib().bicl_rope_config_init_sized(byref(c), ctypes.sizeof(c), head_dim,
                                          head_dim if rotary_dim is None else rotary_dim)
        return cls._from_c(c)

    @classmethod
    def from_hf_json(cls, text: Union[str, bytes], layer_type: Optional[str] = None,
                     style: Optional[Union["RopeStyle", str]] = None) -> "RopeConfig":
        """The config from the text of a model's Hugging Face config.json (raises
        BiclError with ERR_INVALID_CONFIG naming the key). seq_len (dynamic NTK,
        longrope) is not in config.json: set it per sequence before making a plan.
        layer_type: the layer type to read when the layers need several plans (Gemma 3:
        "sliding_attention", "full_attention"; :func:`hf_layer_types` lists them).
        style: the pair style, for a model_type bicl does not know (the caller vouches for
        it); by default it comes from model_type (bicl_rope_config_from_hf_json_ex)."""
        raw = text.encode() if isinstance(text, str) else text
        opt = RopeHfOptionsC()
        lib().bicl_rope_hf_options_init_sized(byref(opt), ctypes.sizeof(opt))
        if layer_type is not None:
            opt.layer_type = layer_type.encode()
        if style is not None:
            opt.explicit_style = 1
            opt.style = int(RopeStyle[style.upper()] if isinstance(style, str) else style)
        c = RopeConfigC()
        lib().bicl_rope_config_from_hf_json_sized(raw, byref(opt), byref(c), ctypes.sizeof(c))
        try:
            return cls._from_c(c)
        finally:
            lib().bicl_rope_config_release(byref(c))

    @classmethod
    def from_hf_file(cls, path: Union[str, os.PathLike]) -> "RopeConfig":
        """:meth:`from_hf_json` of a config.json file (or of the folder holding one)."""
        p = os.fspath(path)
        if os.path.isdir(p):
            p = os.path.join(p, "config.json")
        with open(p, "rb") as f:
            return cls.from_hf_json(f.read())

    @classmethod
    def _from_c(cls, c: RopeConfigC) -> "RopeConfig":
        half = c.rotary_dim // 2
        values: dict = {}
        for f in dataclasses.fields(cls):
            v = getattr(c, f.name)
            if f.name in _ARRAYS:
                v = [v[i] for i in range(half)] if v else None
            values[f.name] = v
        values["style"] = RopeStyle(values["style"])
        values["type"] = RopeType(values["type"])
        values["angle_mode"] = RopeAngleMode(values["angle_mode"])
        return cls(**values)

    def to_c(self) -> Tuple[RopeConfigC, List[Any]]:
        """The C struct and the arrays it points into (keep them alive while it is used)."""
        c = RopeConfigC()
        lib().bicl_rope_config_init_sized(byref(c), ctypes.sizeof(c), self.head_dim, self.rotary_dim)
        keep: List[Any] = []
        for f in dataclasses.fields(self):
            v = getattr(self, f.name)
            if f.name in _ARRAYS:
                if v is not None:
                    arr = (c_double * len(v))(*v)
                    keep.append(arr)
                    setattr(c, f.name, ctypes.cast(arr, POINTER(c_double)))
            elif f.name in ("style", "type", "angle_mode"):
                setattr(c, f.name, int(v))
            else:
                setattr(c, f.name, v)
        return c, keep

    def check(self) -> None:
        """bicl_rope_config_check: raises BiclError naming the bad field."""
        c, _keep = self.to_c()
        lib().bicl_rope_config_check(byref(c))

    def replace(self, **changes: Any) -> "RopeConfig":
        """A copy with fields changed (enum fields take names too: style="gptj")."""
        for name, cls in (("style", RopeStyle), ("type", RopeType), ("angle_mode", RopeAngleMode)):
            if name in changes:
                changes[name] = enum_arg(cls, changes[name])
        return dataclasses.replace(self, **changes)


class RopePlan:
    """One model's RoPE on one context (``bicl_rope_plan``): frequencies, and with
    table_positions > 0 a cos/sin table for positions [0, table_positions).
    max_position bounds the inline source (0: 2^31 - 1). Creation blocks for the uploads."""

    def __init__(self, ctx: Any, config: RopeConfig, table_positions: int = 0,
                 max_position: int = 0) -> None:
        self.ctx = ctx
        self.config = config
        c, _keep = config.to_c()
        out = c_void_p(0)
        lib().bicl_rope_plan_create(ctx.handle, byref(c), table_positions, max_position, byref(out))
        self._handle = out.value or 0

    @property
    def handle(self) -> int:
        """The bicl_rope_plan pointer."""
        if not self._handle:
            raise ValueError("the plan is freed")
        return self._handle

    def inv_freq(self) -> Tuple[np.ndarray, float]:
        """(inv_freq[rotary_dim / 2] as float64, the attention scaling)."""
        n = self.config.rotary_dim // 2
        out = np.empty(n, dtype=np.float64)
        scaling = c_double(0)
        lib().bicl_rope_plan_inv_freq(self.handle, out.ctypes.data_as(POINTER(c_double)), n,
                                      byref(scaling))
        return out, scaling.value

    def softmax_scale(self) -> Tuple[float, float]:
        """(mscale^2, softmax scale) of multi-head latent attention, as transformers'
        yarn_apply_mscale computes them (bicl_rope_plan_softmax_scale)."""
        m2, scale = c_double(0), c_double(0)
        lib().bicl_rope_plan_softmax_scale(self.handle, byref(m2), byref(scale))
        return m2.value, scale.value

    def errors(self, queue: Any = None, wait: Iterable[Any] = ()) -> Tuple[int, int]:
        """(count, smallest bad position) of the out-of-range positions the plan's applies
        met (bicl_rope_errors: blocking, then reset). count 0 means none."""
        from .context import _event_handles

        count, first = c_uint(0), c_int(0)
        waits = _event_handles(wait)
        arr = (c_void_p * len(waits))(*waits) if waits else None
        st = lib().bicl_rope_errors(self.ctx.handle, self.ctx._queue_handle(queue), self.handle,
                                    byref(count), byref(first), len(waits), arr)
        if st not in (Status.SUCCESS, Status.ERR_POSITION_OUT_OF_RANGE):
            raise BiclError(st, (lib().bicl_last_error(None) or b"").decode(), "bicl_rope_errors")
        return count.value, first.value

    def free(self) -> None:
        """Free the plan (ops using it must have finished). Idempotent."""
        if self._handle:
            lib().bicl_rope_plan_free(self._handle)
            self._handle = 0

    def __enter__(self) -> "RopePlan":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.free()

    def __del__(self) -> None:
        try:
            self.free()
        except Exception:
            pass


def hf_layer_types(text: Union[str, bytes]) -> Tuple[List[str], int]:
    """The layer types of a config.json (in order of first use) and how many distinct
    RoPE plans they need (bicl_rope_config_layer_types): (["sliding_attention",
    "full_attention"], 2) for Gemma 3, (["full_attention"], 1) for most models."""
    raw = text.encode() if isinstance(text, str) else text
    names = ctypes.create_string_buffer(4096)
    n_types, n_plans = c_int(0), c_int(0)
    lib().bicl_rope_config_layer_types(raw, names, len(names), byref(n_types), byref(n_plans))
    listed = names.value.decode().split(",") if names.value else []
    return listed, n_plans.value


def hf_layer_type(text: Union[str, bytes], layer: int) -> str:
    """The layer type of layer `layer` (0-based) as transformers assigns it
    (bicl_rope_config_layer_type)."""
    raw = text.encode() if isinstance(text, str) else text
    name = ctypes.create_string_buffer(256)
    lib().bicl_rope_config_layer_type(raw, layer, name, len(name))
    return name.value.decode()
