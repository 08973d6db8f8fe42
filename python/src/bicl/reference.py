"""bicl's host reference on numpy arrays (``bicl_ref_*``): the same math source as the
kernels, compiled as C. Every function here has the signature of its twin in
:class:`bicl.hostops.HostOps` (``ctx.np``), so a device result and its reference are
compared as ``ctx.np.f(...)`` against ``bicl.reference.f(...)``, bit for bit.

Arrays: float32, float16, uint16 (bf16 bits), int32, uint8; ``out_dtype`` defaults to
the (first) input's dtype. Operands broadcast where the op broadcasts (numpy rules).
"""
from __future__ import annotations

from ctypes import POINTER, byref, c_float, c_int32, c_uint8
from typing import Any, Optional, Tuple, Union

import numpy as np

from ._dtypes import DtypeLike, dtype_of_array, enum_arg, glu_rounding, numpy_dtype, to_dtype
from ._enums import BinaryOp, Dtype, GluAct, GluLayout, GluRounding, RopeSource, Status, UnaryOp
from ._lib import BiclError, GluParamsC, UnaryParamsC, lib

__all__ = ["cast", "unary", "glu", "glu_fused", "binary", "axpby", "residual_add", "scale",
           "scale_channels", "bias_add", "mask_fill", "mask_fill_lengths", "mask_fill_causal",
           "rope", "rope_cos_sin", "positions_packed", "positions_padded", "f32_to_bf16",
           "bf16_to_f32", "f32_to_f16", "f16_to_f32", "prepare", "out_of"]


def prepare(a: np.ndarray, shape: Optional[Tuple[int, ...]] = None) -> Tuple[np.ndarray, Dtype]:
    """A C-contiguous copy (broadcast to shape if given) and its bicl dtype."""
    a = np.asarray(a)
    d = dtype_of_array(a)
    if shape is not None and a.shape != shape:
        a = np.broadcast_to(a, shape)
    return np.ascontiguousarray(a), d


def out_of(shape: Tuple[int, ...], d: Dtype) -> np.ndarray:
    """An output array for a bicl dtype."""
    return np.empty(shape, dtype=numpy_dtype(d))


def _p(a: np.ndarray) -> int:
    return a.ctypes.data


def _out_dtype(out_dtype: Optional[DtypeLike], default: Dtype) -> Dtype:
    return default if out_dtype is None else to_dtype(out_dtype)


def cast(x: np.ndarray, out_dtype: DtypeLike) -> np.ndarray:
    """bicl_ref_cast."""
    xa, xd = prepare(x)
    yd = to_dtype(out_dtype)
    y = out_of(xa.shape, yd)
    lib().bicl_ref_cast(xd, _p(xa), yd, _p(y), xa.size)
    return y


def unary(op: Union[UnaryOp, str], x: np.ndarray, out_dtype: Optional[DtypeLike] = None, *,
          softcap: float = 0.0, **params: float) -> np.ndarray:
    """bicl_ref_unary (parameters other than softcap by name: negative_slope, alpha_p...)."""
    xa, xd = prepare(x)
    yd = _out_dtype(out_dtype, xd)
    y = out_of(xa.shape, yd)
    cparams = UnaryParamsC(softcap=softcap, **params)
    lib().bicl_ref_unary(enum_arg(UnaryOp, op), byref(cparams), xd, _p(xa), yd, _p(y), xa.size)
    return y


def glu(act: Union[GluAct, str], gate: np.ndarray, up: np.ndarray,
        out_dtype: Optional[DtypeLike] = None, *, alpha: float = 0.0, limit: float = 0.0,
        round_act_to_storage: bool = False, threshold: float = 0.0,
        rounding: Union[GluRounding, str, int, None] = None) -> np.ndarray:
    """bicl_ref_glu (gate and up of one dtype and shape); rounding as Context.glu's."""
    g, gd = prepare(gate)
    u, ud = prepare(up)
    if gd != ud or g.shape != u.shape:
        raise ValueError("gate and up must have one dtype and shape")
    yd = _out_dtype(out_dtype, gd)
    y = out_of(g.shape, yd)
    params = GluParamsC(alpha, limit, glu_rounding(rounding, round_act_to_storage), threshold)
    lib().bicl_ref_glu(enum_arg(GluAct, act), byref(params), gd, _p(g), _p(u), yd, _p(y), g.size)
    return y


def glu_fused(act: Union[GluAct, str], x: np.ndarray, out_dtype: Optional[DtypeLike] = None, *,
              layout: Union[GluLayout, str] = GluLayout.HALVES, alpha: float = 0.0,
              limit: float = 0.0, round_act_to_storage: bool = False,
              threshold: float = 0.0,
              rounding: Union[GluRounding, str, int, None] = None) -> np.ndarray:
    """bicl_glu_fused's reference: gate and up split from x [..., 2F], then glu (an up-first
    activation, mul_and_silu, holds up first: cl/bicl_ops.def's ORDER UP)."""
    x = np.asarray(x)
    f = x.shape[-1] // 2
    if enum_arg(GluLayout, layout) == GluLayout.HALVES:
        gate, up = x[..., :f], x[..., f:]
    else:
        gate, up = x[..., 0::2], x[..., 1::2]
    if enum_arg(GluAct, act) == GluAct.MUL_AND_SILU:
        gate, up = up, gate
    return glu(act, gate, up, out_dtype, alpha=alpha, limit=limit,
               round_act_to_storage=round_act_to_storage, threshold=threshold, rounding=rounding)


def binary(op: Union[BinaryOp, str], a: np.ndarray, b: np.ndarray,
           out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_ref_binary, a and b broadcast."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    aa, ad = prepare(a, shape)
    ba, bd = prepare(b, shape)
    yd = _out_dtype(out_dtype, ad)
    y = out_of(shape, yd)
    lib().bicl_ref_binary(enum_arg(BinaryOp, op), ad, _p(aa), bd, _p(ba), yd, _p(y), y.size)
    return y


def axpby(alpha: float, a: np.ndarray, beta: float, b: np.ndarray,
          out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_ref_axpby, a and b broadcast."""
    shape = np.broadcast_shapes(np.shape(a), np.shape(b))
    aa, ad = prepare(a, shape)
    ba, bd = prepare(b, shape)
    yd = _out_dtype(out_dtype, ad)
    y = out_of(shape, yd)
    lib().bicl_ref_axpby(alpha, ad, _p(aa), beta, bd, _p(ba), yd, _p(y), y.size)
    return y


def residual_add(residual: np.ndarray, x: np.ndarray,
                 out_dtype: Optional[DtypeLike] = None) -> Tuple[np.ndarray, np.ndarray]:
    """bicl_ref_residual_add: (residual_out f32, y in out_dtype, default x's)."""
    r, rd = prepare(residual)
    xa, xd = prepare(x)
    if rd != Dtype.F32 or r.shape != xa.shape:
        raise ValueError("residual must be float32 of x's shape")
    yd = _out_dtype(out_dtype, xd)
    r_out = out_of(r.shape, Dtype.F32)
    y = out_of(r.shape, yd)
    lib().bicl_ref_residual_add(_p(r), xd, _p(xa), _p(r_out), yd, _p(y), y.size)
    return r_out, y


def scale(scale: float, x: np.ndarray, out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_ref_scale."""
    xa, xd = prepare(x)
    yd = _out_dtype(out_dtype, xd)
    y = out_of(xa.shape, yd)
    lib().bicl_ref_scale(scale, xd, _p(xa), yd, _p(y), y.size)
    return y


def scale_channels(x: np.ndarray, s: np.ndarray, out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_scale_channels' reference: x * s[c], i.e. binary MUL with s broadcast."""
    return binary(BinaryOp.MUL, x, s, _out_dtype(out_dtype, dtype_of_array(np.asarray(x))))


def bias_add(x: np.ndarray, bias: np.ndarray, out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_bias_add's reference: x + bias[c], i.e. binary ADD with bias broadcast."""
    return binary(BinaryOp.ADD, x, bias, _out_dtype(out_dtype, dtype_of_array(np.asarray(x))))


def _mask_fill_select(x: np.ndarray, select: np.ndarray, fill: float,
                      out_dtype: Optional[DtypeLike]) -> np.ndarray:
    xa, xd = prepare(x)
    sel = np.ascontiguousarray(np.broadcast_to(select, xa.shape), dtype=np.uint8)
    yd = _out_dtype(out_dtype, xd)
    y = out_of(xa.shape, yd)
    lib().bicl_ref_mask_fill(xd, _p(xa), sel.ctypes.data_as(POINTER(c_uint8)), fill, yd, _p(y),
                             y.size)
    return y


def mask_fill(x: np.ndarray, mask: np.ndarray, fill: float,
              out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_ref_mask_fill with the mask (u8 or i32, broadcast) evaluated here."""
    return _mask_fill_select(x, np.asarray(mask) != 0, fill, out_dtype)


def mask_fill_lengths(x: np.ndarray, lengths: np.ndarray, fill: float,
                      out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_mask_fill_lengths' reference: column c >= lengths[...] is filled."""
    x = np.asarray(x)
    cols = np.arange(x.shape[-1], dtype=np.int64)
    lens = np.asarray(lengths, dtype=np.int64)[..., None]
    return _mask_fill_select(x, cols >= lens, fill, out_dtype)


def mask_fill_causal(x: np.ndarray, offset: int, fill: float,
                     out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
    """bicl_ref_mask_fill_causal on x [..., R, C]."""
    xa, xd = prepare(x)
    yd = _out_dtype(out_dtype, xd)
    y = out_of(xa.shape, yd)
    rows, cols = xa.shape[-2], xa.shape[-1]
    lib().bicl_ref_mask_fill_causal(xd, _p(xa), rows, cols, offset, fill, yd, _p(y), y.size)
    return y


def _rope_one(plan: Any, source: RopeSource, inverse: bool, positions: np.ndarray,
              x: np.ndarray, yd: Dtype, is_k: bool = False) -> np.ndarray:
    """Every head vector of x [..., H, D] at positions [...] through bicl_ref_rope_head
    (bicl_ref_rope_k_head for k: its heads may have their own width, MLA's k_pe)."""
    xa, xd = prepare(x)
    pos = np.ascontiguousarray(positions, dtype=np.int32)
    if xa.shape[:-2] != pos.shape:
        raise ValueError(f"positions {pos.shape} do not match the tokens of {xa.shape}")
    y = out_of(xa.shape, yd)
    heads = xa.reshape(-1, xa.shape[-1])
    out = y.reshape(-1, y.shape[-1])
    per_token = xa.shape[-2]
    fn = lib().bicl_ref_rope_k_head if is_k else lib().bicl_ref_rope_head
    for i, p in enumerate(pos.reshape(-1)):
        for h in range(per_token):
            row = i * per_token + h
            try:
                fn(plan.handle, source, int(inverse), int(p), xd, _p(heads[row]), yd, _p(out[row]))
            except BiclError as e:  # out of range: the row holds the device's NaN bits too
                if e.status != Status.ERR_POSITION_OUT_OF_RANGE:
                    raise
    return y


def rope(plan: Any, positions: np.ndarray, q: np.ndarray, k: Optional[np.ndarray] = None,
         out_dtype: Optional[DtypeLike] = None, *,
         source: Union[RopeSource, str] = RopeSource.AUTO,
         inverse: bool = False) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """bicl_rope_apply's reference through bicl_ref_rope_head: q [T, H, D] with
    positions [T], or [B, S, H, D] with [B, S]; k likewise. Returns (q_out, k_out)."""
    src = enum_arg(RopeSource, source)
    qd = dtype_of_array(np.asarray(q))
    yd = _out_dtype(out_dtype, qd)
    qo = _rope_one(plan, src, inverse, np.asarray(positions), q, yd)
    ko = None if k is None else _rope_one(plan, src, inverse, np.asarray(positions), k, yd, True)
    return qo, ko


def rope_cos_sin(plan: Any, pos: int, i: int,
                 source: Union[RopeSource, str] = RopeSource.AUTO) -> Tuple[float, float]:
    """bicl_ref_rope_cos_sin: (cos, sin) of position pos, pair i."""
    c, s = c_float(0), c_float(0)
    lib().bicl_ref_rope_cos_sin(plan.handle, enum_arg(RopeSource, source), pos, i, byref(c),
                                byref(s))
    return c.value, s.value


def _i32(a: np.ndarray) -> np.ndarray:
    a = np.ascontiguousarray(a)
    if a.dtype != np.int32:
        raise TypeError(f"int32 expected, not {a.dtype}")
    return a


def _i32p(a: Optional[np.ndarray]) -> Any:
    return None if a is None else a.ctypes.data_as(POINTER(c_int32))


def positions_packed(cu_seqlens: np.ndarray, start: Optional[np.ndarray] = None,
                     tokens: Optional[int] = None) -> np.ndarray:
    """bicl_ref_positions_packed: int32 positions of `tokens` (default cu_seqlens[-1])."""
    cu = _i32(cu_seqlens)
    st = None if start is None else _i32(start)
    n = int(cu[-1]) if tokens is None else tokens
    out = np.empty(n, dtype=np.int32)
    lib().bicl_ref_positions_packed(_i32p(cu), cu.size - 1, _i32p(st), _i32p(out), n)
    return out


def positions_padded(mask: np.ndarray, start: Optional[np.ndarray] = None) -> np.ndarray:
    """bicl_ref_positions_padded: int32 positions [B, S] from a [B, S] mask (u8 or i32)."""
    m, md = prepare(mask)
    st = None if start is None else _i32(start)
    out = np.empty(m.shape, dtype=np.int32)
    lib().bicl_ref_positions_padded(_p(m), md, m.shape[0], m.shape[1], _i32p(st), _i32p(out))
    return out


def f32_to_bf16(x: np.ndarray) -> np.ndarray:
    """float32 -> bf16 bits (uint16), round to nearest even (bicl_ref_cast)."""
    return cast(np.asarray(x, dtype=np.float32), Dtype.BF16)


def bf16_to_f32(x: np.ndarray) -> np.ndarray:
    """bf16 bits (uint16) -> float32, exact."""
    return cast(np.asarray(x, dtype=np.uint16), Dtype.F32)


def f32_to_f16(x: np.ndarray) -> np.ndarray:
    """float32 -> float16, bicl's rounding (bicl_ref_cast)."""
    return cast(np.asarray(x, dtype=np.float32), Dtype.F16)


def f16_to_f32(x: np.ndarray) -> np.ndarray:
    """float16 -> float32, exact."""
    return cast(np.asarray(x, dtype=np.float16), Dtype.F32)

