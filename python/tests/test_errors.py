"""Failures raise BiclError with the status, its name and bicl's detail; nothing is
written."""
from __future__ import annotations

import numpy as np
import pytest
from conftest import device_spec

import bicl


def test_shape_mismatch_carries_status_and_detail(ctx: bicl.Context) -> None:
    x, y = ctx.empty((4, 8), "f32"), ctx.to_device(np.full((4, 9), 7.0, np.float32))
    with pytest.raises(bicl.BiclError) as e:
        ctx.unary("silu", x, y)
    assert e.value.status == bicl.Status.ERR_SHAPE_MISMATCH
    assert e.value.name == "BICL_ERR_SHAPE_MISMATCH"
    assert e.value.function == "bicl_unary"
    assert "extent 8" in e.value.detail and "9" in e.value.detail
    assert e.value.detail in str(e.value)
    assert (y.to_numpy() == 7.0).all()  # nothing written


def test_out_of_bounds_view(ctx: bicl.Context) -> None:
    x = ctx.empty((16,), "f32")
    with pytest.raises(bicl.BiclError) as e:
        ctx.unary("relu", x.view((16,), offset=1), x.view((16,), offset=0))
    assert e.value.status == bicl.Status.ERR_OUT_OF_BOUNDS


def test_unsafe_build_option_refused() -> None:
    with pytest.raises(bicl.BiclError) as e:
        bicl.Context(device_spec(), build_options="-cl-fast-relaxed-math")
    assert e.value.status == bicl.Status.ERR_UNSAFE_OPTION
    assert "-cl-fast-relaxed-math" in e.value.detail
    with pytest.raises(bicl.BiclError) as e:
        bicl.check_build_options("-cl-mad-enable")
    assert e.value.status == bicl.Status.ERR_UNSAFE_OPTION
    bicl.check_build_options("-w")


def test_unknown_device() -> None:
    with pytest.raises(bicl.BiclError) as e:
        bicl.Context("no-such-device-anywhere")
    assert e.value.status == bicl.Status.ERR_DEVICE_NOT_FOUND
    assert "no-such-device-anywhere" in e.value.detail


def test_invalid_config_names_the_key() -> None:
    text = ('{"model_type": "llama", "hidden_size": 64, "num_attention_heads": 2, "rope_scaling": '
            '{"rope_type": "llama3", "factor": -1}}')
    with pytest.raises(bicl.BiclError) as e:
        bicl.RopeConfig.from_hf_json(text)
    assert e.value.status == bicl.Status.ERR_INVALID_CONFIG
    assert "rope_scaling.factor" in e.value.detail


def test_bad_enum_names_and_host_arrays(ctx: bicl.Context) -> None:
    with pytest.raises(ValueError, match="silu"):
        ctx.np.unary("nosuchop", np.zeros(4, np.float32))
    with pytest.raises(TypeError, match="ctx.np"):
        ctx.unary("silu", np.zeros(4, np.float32), np.zeros(4, np.float32))
    with pytest.raises(TypeError):
        ctx.np.unary("silu", np.zeros(4, np.float64))


def test_closed_context(ctx: bicl.Context) -> None:
    c = bicl.Context(device_spec())
    c.close()
    c.close()
    with pytest.raises(ValueError, match="closed"):
        _ = c.fingerprint
