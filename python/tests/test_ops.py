"""Relation R from Python: every op on the device (numpy in, numpy out, and device
arrays) equals bicl's host reference bit for bit, special values included."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import assert_bits_equal, special_f32

import bicl
from bicl import reference as ref

DTYPES = ["f32", "f16", "bf16"]


def data(dtype: str, shape=(7, 33), seed: int = 1) -> np.ndarray:
    """Values of a dtype (bf16 as uint16 bits) with the special classes."""
    x = special_f32(int(np.prod(shape)), seed).reshape(shape)
    return x if dtype == "f32" else ref.cast(x, dtype)


@pytest.mark.parametrize("op", [op.name.lower() for op in bicl.UnaryOp])
@pytest.mark.parametrize("dtype", DTYPES)
def test_unary(ctx: bicl.Context, op: str, dtype: str) -> None:
    x = data(dtype)
    kw = {"softcap": 30.0} if op == "softcap" else {}
    assert_bits_equal(ctx.np.unary(op, x, **kw), ref.unary(op, x, **kw), op)
    assert_bits_equal(ctx.np.unary(op, x, "f32", **kw), ref.unary(op, x, "f32", **kw), op)


@pytest.mark.parametrize("act", [a.name.lower() for a in bicl.GluAct])
@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("round_act", [False, True])
def test_glu(ctx: bicl.Context, act: str, dtype: str, round_act: bool) -> None:
    gate, up = data(dtype, seed=2), data(dtype, seed=3)
    kw = dict(alpha=1.702, limit=7.0, round_act_to_storage=round_act)
    assert_bits_equal(ctx.np.glu(act, gate, up, **kw), ref.glu(act, gate, up, **kw), act)


@pytest.mark.parametrize("act", ["swiglu", "geglu_tanh", "mul_and_silu", "reglu", "fatrelu",
                                 "swiglu_oai"])
@pytest.mark.parametrize("dtype", DTYPES)
def test_glu_rounding_once(ctx: bicl.Context, act: str, dtype: str) -> None:
    gate, up = data(dtype, seed=2), data(dtype, seed=3)
    kw = dict(alpha=1.702, limit=7.0, threshold=0.01, rounding=bicl.GluRounding.ONCE)
    assert_bits_equal(ctx.np.glu(act, gate, up, "f32", **kw),
                      ref.glu(act, gate, up, "f32", **kw), act)
    assert_bits_equal(ctx.np.glu(act, gate, up, **kw), ref.glu(act, gate, up, **kw), act)


def test_glu_rounding_once_known_answer_and_refusals(ctx: bicl.Context) -> None:
    # silu(0.501f) * 1.7f = 0x1.0f89deb4...p-1 (mpmath): HF's order rounds twice to 0x3f07c4f0
    g, u = np.array([0.501], np.float32), np.array([1.7], np.float32)
    once = ctx.np.glu("swiglu", g, u, rounding="once")
    assert once.view(np.uint32)[0] == 0x3F07C4EF
    assert ref.glu("swiglu", g, u).view(np.uint32)[0] == 0x3F07C4F0
    for bad in (3, -1):
        with pytest.raises(bicl.BiclError) as e:
            ctx.np.glu("swiglu", g, u, rounding=bad)
        assert e.value.status == bicl.Status.ERR_INVALID_PARAMETER
    with pytest.raises(bicl.BiclError):
        ref.glu("geglu", g, u, rounding="once")


@pytest.mark.parametrize("layout", ["halves", "interleaved"])
def test_glu_fused(ctx: bicl.Context, layout: str) -> None:
    x = data("bf16", (5, 64))
    assert_bits_equal(ctx.np.glu_fused("swiglu", x, layout=layout),
                      ref.glu_fused("swiglu", x, layout=layout), layout)


@pytest.mark.parametrize("op", ["add", "sub", "mul"])
def test_binary_broadcast(ctx: bicl.Context, op: str) -> None:
    a, b = data("bf16", (3, 5, 8)), data("f32", (5, 1), seed=4)
    assert_bits_equal(ctx.np.binary(op, a, b), ref.binary(op, a, b), op)
    assert_bits_equal(ctx.np.binary(op, a, b, "f32"), ref.binary(op, a, b, "f32"), op)


def test_axpby_scale_bias_channels(ctx: bicl.Context) -> None:
    a, b = data("f16"), data("bf16", seed=5)
    assert_bits_equal(ctx.np.axpby(0.5, a, -3.0, b), ref.axpby(0.5, a, -3.0, b), "axpby")
    assert_bits_equal(ctx.np.scale(1.0 / 3.0, a), ref.scale(1.0 / 3.0, a), "scale")
    s = data("f32", (33,), seed=6)
    assert_bits_equal(ctx.np.scale_channels(b, s), ref.scale_channels(b, s), "scale_channels")
    assert_bits_equal(ctx.np.bias_add(b, s), ref.bias_add(b, s), "bias_add")


def test_residual_add(ctx: bicl.Context) -> None:
    r, x = data("f32", seed=7), data("bf16", seed=8)
    for got, want in zip(ctx.np.residual_add(r, x), ref.residual_add(r, x)):
        assert_bits_equal(got, want, "residual_add")


def test_masks(ctx: bicl.Context) -> None:
    x = data("bf16", (2, 6, 9))
    mask = (np.arange(54).reshape(2, 3, 9)[:, :1, :] % 3 == 0).astype(np.uint8)
    assert_bits_equal(ctx.np.mask_fill(x, mask, -np.inf), ref.mask_fill(x, mask, -np.inf), "mask")
    lengths = np.array([[0, 3, 9, 12, -1, 5], [4, 4, 4, 4, 4, 4]], dtype=np.int32)
    assert_bits_equal(ctx.np.mask_fill_lengths(x, lengths, -1e30),
                      ref.mask_fill_lengths(x, lengths, -1e30), "lengths")
    for offset in (-3, 0, 2, 2**62):
        assert_bits_equal(ctx.np.mask_fill_causal(x, offset, 0.0),
                          ref.mask_fill_causal(x, offset, 0.0), f"causal {offset}")


@pytest.mark.parametrize("src,dst", [(s, d) for s in DTYPES for d in DTYPES])
def test_cast(ctx: bicl.Context, src: str, dst: str) -> None:
    x = data(src)
    assert_bits_equal(ctx.np.cast(x, dst), ref.cast(x, dst), f"{src}->{dst}")


def test_device_arrays_strided_views_and_events(ctx: bicl.Context) -> None:
    """Device arrays: a strided view (every other row), an offset, an event chain."""
    x = data("bf16", (8, 33))
    dx = ctx.to_device(x)
    rows = dx.view((4, 33), (66, 1), offset=33)  # rows 1, 3, 5, 7
    y = ctx.empty((4, 33), "f32")
    ev = ctx.unary("gelu", rows, y, event=True)
    assert isinstance(ev, bicl.Event)
    z = ctx.empty((4, 33), "bf16")
    ctx.cast(y, z, wait=[ev])
    want = ref.cast(ref.unary("gelu", x[1::2], "f32"), "bf16")
    assert_bits_equal(z.to_numpy(), want, "strided chain")
    assert_bits_equal(dx.view((33,), offset=3 * 33).to_numpy(), x[3], "offset read")


def test_variants_change_no_bits(ctx: bicl.Context) -> None:
    x = data("f32", (16, 129))
    want = ref.unary("silu", x)
    try:
        for v in [(1, 1, 0), (4, 2, 64), (8, 1, 32)]:
            ctx.set_variant(v)
            assert ctx.variant == v
            assert_bits_equal(ctx.np.unary("silu", x), want, f"variant {v}")
    finally:
        ctx.set_variant(None)


def test_bf16_helpers_round_trip() -> None:
    x = np.array([1.0, -2.5, 3.14159, 1e-40, np.inf], dtype=np.float32)
    b = ref.f32_to_bf16(x)
    assert b.dtype == np.uint16
    assert_bits_equal(ref.bf16_to_f32(b), (b.astype(np.uint32) << 16).view(np.float32), "bf16")
    h = ref.f32_to_f16(x)
    assert_bits_equal(ref.f16_to_f32(h), h.astype(np.float32), "f16")
