"""The Llama-style layer demo on the test device: parity with the reference and
invariance across batch sizes, padding, packing and chunking; and its checks catch a
planted difference."""
from __future__ import annotations

import json

import numpy as np
from conftest import device_spec

import bicl
from bicl import demo


def test_demo_numpy_path_passes(tmp_path) -> None:
    rc = demo.main(["--backend", "numpy", "--model", "tiny", "--device", device_spec(),
                    "--out", str(tmp_path)])
    result = json.loads((tmp_path / "demo.json").read_text())
    assert rc == 0 and result["pass"], result["runs"][0]["failures"]
    run = result["runs"][0]
    assert run["n_failures"] == 0
    assert {"alone[0]", "batch3", "packed", "packed_reversed", "chunked", "padded_left",
            "padded_right"} <= set(run["layouts"])
    assert run["token_outputs_checked"] > 1000


def test_demo_checks_catch_a_planted_difference(ctx: bicl.Context) -> None:
    model, seqs = demo.TINY, demo.Sequences(lengths=(3, 2), starts=(0, 9))
    with bicl.RopePlan(ctx, model.rope_config(), table_positions=64) as plan:
        runs = demo.run_layouts(demo.NumpyBackend(ctx), plan, seqs, model)
        expect = demo.reference_outputs(plan, seqs, model, {})
        assert demo.check_runs(runs, expect, "ok") == [] and demo.invariance(runs) == []
        # one bit of one output of one token in one layout
        outs = runs["padded_left"][(1, 1)]
        flipped = bytearray(outs["act"])
        flipped[0] ^= 1
        outs["act"] = bytes(flipped)
        assert len(demo.check_runs(runs, expect, "planted")) == 1
        assert len(demo.invariance(runs)) == 1
        # a reference with another rounding order differs too
        host = demo.token_inputs(model, seqs, 0, 0)
        a = bicl.reference.glu("swiglu", host["gate"], host["up"], round_act_to_storage=False)
        b = bicl.reference.glu("swiglu", host["gate"], host["up"], round_act_to_storage=True)
        assert not np.array_equal(a, b)
