"""RoPE from Python: configs read from the published config.json files by bicl's
parser, plans, every source and angle mode against the host reference, position
builders, and out-of-range positions."""
from __future__ import annotations

import os

import numpy as np
import pytest
from conftest import REPO, assert_bits_equal, device_spec

import bicl
from bicl import reference as ref

DATA = os.path.join(REPO, "tests", "data")

# (file, head_dim, rotary_dim, style, theta, type, factor, truncate)
CONFIGS = [
    ("llama3_1_8b", 128, 128, "NEOX", 500000.0, "LLAMA3", 8.0, 1),
    ("qwen3_8b", 128, 128, "NEOX", 1000000.0, "DEFAULT", 0.0, 1),
    ("gpt_oss_20b", 64, 64, "NEOX", 150000.0, "YARN", 32.0, 0),
    ("gptj_6b", 256, 64, "GPTJ", 10000.0, "DEFAULT", 0.0, 1),
    ("gpt_neox_20b", 96, 24, "NEOX", 10000.0, "DEFAULT", 0.0, 1),
]


@pytest.mark.parametrize("name,head,rot,style,theta,rtype,factor,trunc", CONFIGS)
def test_config_from_hf_file(name: str, head: int, rot: int, style: str, theta: float, rtype: str,
                             factor: float, trunc: int) -> None:
    c = bicl.RopeConfig.from_hf_file(os.path.join(DATA, f"{name}.config.json"))
    assert (c.head_dim, c.rotary_dim, c.style.name, c.theta, c.type.name, c.factor,
            c.truncate) == (head, rot, style, theta, rtype, factor, trunc)
    c.check()


def test_config_by_hand_and_replace() -> None:
    c = bicl.RopeConfig.default(64, 32).replace(style="gptj", type="linear", factor=2.0)
    assert c.style == bicl.RopeStyle.GPTJ and c.type == bicl.RopeType.LINEAR
    c.check()
    with pytest.raises(bicl.BiclError) as e:
        bicl.RopeConfig.default(64, 33).check()
    assert e.value.status == bicl.Status.ERR_INVALID_CONFIG


def test_longrope_arrays_round_trip() -> None:
    text = ('{"model_type": "phi3", "hidden_size": 64, "num_attention_heads": 2,'
            ' "max_position_embeddings": 4096,'
            ' "original_max_position_embeddings": 1024, "rope_scaling": {"type": "longrope",'
            ' "long_factor": [' + ", ".join(["2.0"] * 16) + '], "short_factor": ['
            + ", ".join(["1.5"] * 16) + ']}}')
    c = bicl.RopeConfig.from_hf_json(text)
    assert c.long_factor == [2.0] * 16 and c.short_factor == [1.5] * 16
    c.replace(seq_len=2000).check()


def test_layer_types_and_explicit_style() -> None:
    gemma3 = ('{"model_type": "gemma3_text", "head_dim": 128, "hidden_size": 2560,'
              ' "num_attention_heads": 8, "num_hidden_layers": 12, "rope_theta": 1000000.0,'
              ' "rope_local_base_freq": 10000.0, "sliding_window_pattern": 6,'
              ' "rope_scaling": {"rope_type": "linear", "factor": 8.0}}')
    names, plans = bicl.hf_layer_types(gemma3)
    assert sorted(names) == ["full_attention", "sliding_attention"] and plans == 2
    assert bicl.hf_layer_type(gemma3, 5) == "full_attention"
    assert bicl.hf_layer_type(gemma3, 0) == "sliding_attention"
    with pytest.raises(bicl.BiclError) as e:  # two plans: the layer type must be named
        bicl.RopeConfig.from_hf_json(gemma3)
    assert e.value.status == bicl.Status.ERR_INVALID_CONFIG
    full = bicl.RopeConfig.from_hf_json(gemma3, layer_type="full_attention")
    local = bicl.RopeConfig.from_hf_json(gemma3, layer_type="sliding_attention")
    assert (full.theta, full.factor, full.type) == (1000000.0, 8.0, bicl.RopeType.LINEAR)
    assert (local.theta, local.type) == (10000.0, bicl.RopeType.DEFAULT)
    unknown = '{"model_type": "not_a_model", "head_dim": 64, "num_attention_heads": 4}'
    with pytest.raises(bicl.BiclError) as e:
        bicl.RopeConfig.from_hf_json(unknown)
    assert "model_type" in e.value.detail
    c = bicl.RopeConfig.from_hf_json(unknown, style="gptj")
    assert c.style == bicl.RopeStyle.GPTJ and c.head_dim == 64


def _qk(shape_q, shape_k, seed=1):
    rng = np.random.default_rng(seed)
    return (ref.f32_to_bf16(rng.standard_normal(shape_q).astype(np.float32)),
            ref.f32_to_bf16(rng.standard_normal(shape_k).astype(np.float32)))


@pytest.mark.parametrize("name", [c[0] for c in CONFIGS])
@pytest.mark.parametrize("source", ["table", "inline"])
@pytest.mark.parametrize("angle", ["exact", "hf"])
def test_apply_equals_reference(ctx: bicl.Context, name: str, source: str, angle: str) -> None:
    if source == "inline" and not ctx.has_fp64:
        pytest.skip("inline RoPE needs fp64")
    cfg = bicl.RopeConfig.from_hf_file(os.path.join(DATA, f"{name}.config.json"))
    cfg = cfg.replace(angle_mode=angle)
    with bicl.RopePlan(ctx, cfg, table_positions=5000) as plan:
        pos = np.array([0, 1, 17, 4095, 4999, 3], dtype=np.int32)
        q, k = _qk((6, 4, cfg.head_dim), (6, 2, cfg.head_dim))
        for inverse in (False, True):
            got = ctx.np.rope(plan, pos, q, k, source=source, inverse=inverse)
            want = ref.rope(plan, pos, q, k, source=source, inverse=inverse)
            assert_bits_equal(got[0], want[0], f"{name} q")
            assert_bits_equal(got[1], want[1], f"{name} k")
        assert plan.errors() == (0, 0)


def test_general_kernel_equals_reference(ctx: bicl.Context) -> None:
    """rope_specialise=False (one kernel for every layout) gives the reference bits too."""
    cfg = bicl.RopeConfig.from_hf_file(os.path.join(DATA, "llama3_1_8b.config.json"))
    with bicl.Context(device_spec(),
                      rope_specialise=False) as general, \
            bicl.RopePlan(general, cfg, table_positions=64) as plan:
        pos = np.array([0, 1, 17, 63, 5, 3], dtype=np.int32)
        q, k = _qk((6, 4, 128), (6, 2, 128), seed=5)
        got = general.np.rope(plan, pos, q, k, source="table")
        want = ref.rope(plan, pos, q, k, source="table")
        assert_bits_equal(got[0], want[0], "q")
        assert_bits_equal(got[1], want[1], "k")
    with pytest.raises(bicl.BiclError):
        bicl.Context(None, rope_specialise=2)


@pytest.mark.parametrize("form", ["units", "rows"])
def test_each_form_equals_reference(form: str) -> None:
    """rope_form "units" and "rows" (the PoCL profile's choice) give the reference bits,
    in place and out of place, NeoX and GPT-J, with an out-of-range position counted."""
    cfg = bicl.RopeConfig.from_hf_file(os.path.join(DATA, "llama3_1_8b.config.json"))
    with bicl.Context(device_spec(), rope_form=form) as c, \
            bicl.RopePlan(c, cfg, table_positions=64) as plan:
        pos = np.array([0, 1, 17, 63, 5, 3], dtype=np.int32)
        q, k = _qk((6, 4, 128), (6, 2, 128), seed=7)
        got = c.np.rope(plan, pos, q, k, source="table")
        want = ref.rope(plan, pos, q, k, source="table")
        assert_bits_equal(got[0], want[0], f"{form} q")
        assert_bits_equal(got[1], want[1], f"{form} k")
        pos[2] = 64
        c.np.rope(plan, pos, q, k, source="table")
        assert plan.errors() == (1, 64)
    with pytest.raises(bicl.BiclError):
        bicl.Context(None, rope_form="columns")


def test_padded_layout_and_f32_output(ctx: bicl.Context) -> None:
    cfg = bicl.RopeConfig.from_hf_file(os.path.join(DATA, "llama3_1_8b.config.json"))
    with bicl.RopePlan(ctx, cfg, table_positions=64) as plan:
        pos = np.array([[0, 1, 2], [7, 8, 0]], dtype=np.int32)
        q, _ = _qk((2, 3, 4, 128), (1,))
        assert_bits_equal(ctx.np.rope(plan, pos, q, out_dtype="f32")[0],
                          ref.rope(plan, pos, q, out_dtype="f32")[0], "bshd")
        inv, scaling = plan.inv_freq()
        assert inv.shape == (64,) and inv[0] == 1.0 and scaling == 1.0
        c, s = ref.rope_cos_sin(plan, 0, 5)
        assert (c, s) == (1.0, 0.0)


def test_out_of_range_positions_are_reported(ctx: bicl.Context) -> None:
    cfg = bicl.RopeConfig.default(32)
    with bicl.RopePlan(ctx, cfg, table_positions=16) as plan:
        pos = np.array([3, 16, 99], dtype=np.int32)
        q, _ = _qk((3, 2, 32), (1,))
        got, _ = ctx.np.rope(plan, pos, q, source="table")
        want, _ = ref.rope(plan, pos, q, source="table")
        assert_bits_equal(got, want, "nan rows")
        assert (got[1:] == 0x7FC0).all()
        assert plan.errors() == (2, 16)
        assert plan.errors() == (0, 0)


def test_positions_builders(ctx: bicl.Context) -> None:
    cu = np.array([0, 3, 4, 9], dtype=np.int32)
    start = np.array([10, 0, 500], dtype=np.int32)
    assert_bits_equal(ctx.np.positions_packed(cu, start), ref.positions_packed(cu, start), "packed")
    assert_bits_equal(ctx.np.positions_packed(cu), ref.positions_packed(cu), "packed, no start")
    assert list(ref.positions_packed(cu, start)) == [10, 11, 12, 0, 500, 501, 502, 503, 504]
    for mask in (np.array([[0, 0, 1, 1], [1, 1, 1, 0]], dtype=np.uint8),
                 np.array([[1, 0, 1, 1], [0, 0, 0, 1]], dtype=np.int32)):
        got = ctx.np.positions_padded(mask, start[:2])
        assert_bits_equal(got, ref.positions_padded(mask, start[:2]), "padded")
    assert ref.positions_padded(np.array([[0, 1, 1]], np.uint8)).tolist() == [[0, 0, 1]]
