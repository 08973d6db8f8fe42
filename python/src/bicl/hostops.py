"""Host arrays in, host arrays out: ``ctx.np``.

Each method uploads its numpy inputs to new buffers on the context's device, runs the
device op on the context's in-order queue, and reads the result back (blocking). The
signatures are those of bicl.reference, so ``ctx.np.unary("silu", x)`` and
``bicl.reference.unary("silu", x)`` are compared bit for bit. Operands that broadcast
keep their own shapes: bicl broadcasts them on the device (numpy rules).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Optional, Tuple, Union

import numpy as np

from ._dtypes import DtypeLike, dtype_of_array, enum_arg, to_dtype
from ._enums import BinaryOp, Dtype, GluAct, GluLayout, RopeSource, UnaryOp

if TYPE_CHECKING:
    from .context import Context, DeviceArray

__all__ = ["HostOps"]


def _dt(out_dtype: Optional[DtypeLike], a: np.ndarray) -> Dtype:
    return dtype_of_array(np.asarray(a)) if out_dtype is None else to_dtype(out_dtype)


class HostOps:
    """numpy in, numpy out, on one context (``ctx.np``)."""

    def __init__(self, ctx: "Context") -> None:
        self.ctx = ctx

    def _up(self, a: Optional[np.ndarray]) -> Optional["DeviceArray"]:
        return None if a is None else self.ctx.to_device(np.asarray(a))

    def _out(self, shape: Tuple[int, ...], d: Dtype) -> "DeviceArray":
        return self.ctx.empty(shape, d)

    def cast(self, x: np.ndarray, out_dtype: DtypeLike) -> np.ndarray:
        """bicl_cast."""
        y = self._out(np.shape(x), to_dtype(out_dtype))
        self.ctx.cast(self._up(x), y)
        return y.to_numpy()

    def unary(self, op: Union[UnaryOp, str], x: np.ndarray, out_dtype: Optional[DtypeLike] = None,
              *, softcap: float = 0.0) -> np.ndarray:
        """bicl_unary."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.unary(op, self._up(x), y, softcap=softcap)
        return y.to_numpy()

    def glu(self, act: Union[GluAct, str], gate: np.ndarray, up: np.ndarray,
            out_dtype: Optional[DtypeLike] = None, *, alpha: float = 0.0, limit: float = 0.0,
            round_act_to_storage: bool = False, threshold: float = 0.0,
            rounding: Any = None) -> np.ndarray:
        """bicl_glu (rounding: a GluRounding, as Context.glu's)."""
        y = self._out(np.shape(gate), _dt(out_dtype, gate))
        self.ctx.glu(act, self._up(gate), self._up(up), y, alpha=alpha, limit=limit,
                     round_act_to_storage=round_act_to_storage, threshold=threshold,
                     rounding=rounding)
        return y.to_numpy()

    def glu_fused(self, act: Union[GluAct, str], x: np.ndarray,
                  out_dtype: Optional[DtypeLike] = None, *,
                  layout: Union[GluLayout, str] = GluLayout.HALVES, alpha: float = 0.0,
                  limit: float = 0.0, round_act_to_storage: bool = False,
                  rounding: Any = None) -> np.ndarray:
        """bicl_glu_fused: x [..., 2F] -> [..., F]."""
        shape = np.shape(x)[:-1] + (np.shape(x)[-1] // 2,)
        y = self._out(shape, _dt(out_dtype, x))
        self.ctx.glu_fused(act, self._up(x), y, layout=enum_arg(GluLayout, layout), alpha=alpha,
                           limit=limit, round_act_to_storage=round_act_to_storage,
                           rounding=rounding)
        return y.to_numpy()

    def binary(self, op: Union[BinaryOp, str], a: np.ndarray, b: np.ndarray,
               out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_binary (a and b broadcast)."""
        y = self._out(np.broadcast_shapes(np.shape(a), np.shape(b)), _dt(out_dtype, a))
        self.ctx.binary(op, self._up(a), self._up(b), y)
        return y.to_numpy()

    def axpby(self, alpha: float, a: np.ndarray, beta: float, b: np.ndarray,
              out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_axpby (a and b broadcast)."""
        y = self._out(np.broadcast_shapes(np.shape(a), np.shape(b)), _dt(out_dtype, a))
        self.ctx.axpby(alpha, self._up(a), beta, self._up(b), y)
        return y.to_numpy()

    def residual_add(self, residual: np.ndarray, x: np.ndarray,
                     out_dtype: Optional[DtypeLike] = None) -> Tuple[np.ndarray, np.ndarray]:
        """bicl_residual_add: (residual_out f32, y)."""
        r_out = self._out(np.shape(x), Dtype.F32)
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.residual_add(self._up(residual), self._up(x), r_out, y)
        return r_out.to_numpy(), y.to_numpy()

    def scale(self, scale: float, x: np.ndarray, out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_scale."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.scale(scale, self._up(x), y)
        return y.to_numpy()

    def scale_channels(self, x: np.ndarray, s: np.ndarray,
                       out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_scale_channels."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.scale_channels(self._up(x), self._up(s), y)
        return y.to_numpy()

    def bias_add(self, x: np.ndarray, bias: np.ndarray,
                 out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_bias_add."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.bias_add(self._up(x), self._up(bias), y)
        return y.to_numpy()

    def mask_fill(self, x: np.ndarray, mask: np.ndarray, fill: float,
                  out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_mask_fill (mask u8 or i32, broadcast)."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.mask_fill(self._up(x), self._up(mask), fill, y)
        return y.to_numpy()

    def mask_fill_lengths(self, x: np.ndarray, lengths: np.ndarray, fill: float,
                          out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_mask_fill_lengths (lengths int32)."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.mask_fill_lengths(self._up(x), self._up(lengths), fill, y)
        return y.to_numpy()

    def mask_fill_causal(self, x: np.ndarray, offset: int, fill: float,
                         out_dtype: Optional[DtypeLike] = None) -> np.ndarray:
        """bicl_mask_fill_causal."""
        y = self._out(np.shape(x), _dt(out_dtype, x))
        self.ctx.mask_fill_causal(self._up(x), offset, fill, y)
        return y.to_numpy()

    def rope(self, plan: Any, positions: np.ndarray, q: np.ndarray, k: Optional[np.ndarray] = None,
             out_dtype: Optional[DtypeLike] = None, *,
             source: Union[RopeSource, str] = RopeSource.AUTO,
             inverse: bool = False) -> Tuple[np.ndarray, Optional[np.ndarray]]:
        """bicl_rope_apply: returns (q_out, k_out or None)."""
        d = _dt(out_dtype, q)
        qo = self._out(np.shape(q), d)
        ko = None if k is None else self._out(np.shape(k), d)
        self.ctx.rope(plan, self._up(np.asarray(positions, dtype=np.int32)), self._up(q), qo,
                      self._up(k), ko, source=source, inverse=inverse)
        return qo.to_numpy(), None if ko is None else ko.to_numpy()

    def positions_packed(self, cu_seqlens: np.ndarray, start: Optional[np.ndarray] = None,
                         tokens: Optional[int] = None) -> np.ndarray:
        """bicl_positions_packed: int32 positions of `tokens` (default cu_seqlens[-1])."""
        cu = np.asarray(cu_seqlens)
        out = self._out((int(cu[-1]) if tokens is None else tokens,), Dtype.I32)
        self.ctx.positions_packed(self._up(cu), out, self._up(start))
        return out.to_numpy()

    def positions_padded(self, mask: np.ndarray, start: Optional[np.ndarray] = None) -> np.ndarray:
        """bicl_positions_padded: int32 positions [B, S]."""
        out = self._out(np.shape(mask), Dtype.I32)
        self.ctx.positions_padded(self._up(mask), out, self._up(start))
        return out.to_numpy()
