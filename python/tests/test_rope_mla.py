"""MLA's decoupled RoPE and proportional RoPE from Python: DeepSeek-V3's config.json read
by bicl's parser (the slice, k_pe's width, rope_interleave), the device against the host
reference for q [T, H, 192] and k_pe [T, 1, 64], and the softmax scale."""
from __future__ import annotations

import json
import os

import numpy as np
import pytest
from conftest import REPO, assert_bits_equal

import bicl
from bicl import reference as ref

DATA = os.path.join(REPO, "tests", "data", "conformance", "rope_mla_reference.json")


def reference_doc() -> dict:
    with open(DATA) as f:
        return json.load(f)


def test_deepseek_v3_config_and_softmax_scale(ctx: bicl.Context) -> None:
    doc = reference_doc()
    case = next(c for c in doc["cases"] if c["name"] == "deepseek_v3")
    c = bicl.RopeConfig.from_hf_json(json.dumps(doc["configs"]["deepseek_v3"]))
    assert (c.head_dim, c.rotary_dim, c.rotary_offset, c.k_head_dim, c.style) == \
        (192, 64, 128, 64, bicl.RopeStyle.DEINTERLEAVE)
    with bicl.RopePlan(ctx, c, table_positions=64) as plan:
        m2, scale = plan.softmax_scale()
        assert scale == case["softmax_scale"]  # transformers' own value, bit for bit
        assert m2 > 1.0


@pytest.mark.parametrize("name", ["deepseek_v3", "deepseek_v2_lite", "minicpm3_4b"])
def test_mla_apply_equals_reference(ctx: bicl.Context, name: str) -> None:
    doc = reference_doc()
    c = bicl.RopeConfig.from_hf_json(json.dumps(doc["configs"][name]))
    rng = np.random.default_rng(3)
    T, H = 5, 3
    q = rng.standard_normal((T, H, c.head_dim)).astype(np.float32)
    k = rng.standard_normal((T, 1, c.k_head_dim)).astype(np.float32)
    pos = np.array([0, 1, 7, 31, 63], dtype=np.int32)
    with bicl.RopePlan(ctx, c, table_positions=64) as plan:
        got_q, got_k = ctx.np.rope(plan, pos, q, k)
        want_q, want_k = ref.rope(plan, pos, q, k)
        assert_bits_equal(got_q, want_q, name)
        assert_bits_equal(got_k, want_k, name)
        assert_bits_equal(got_q[..., :c.rotary_offset], q[..., :c.rotary_offset], "nope part")
