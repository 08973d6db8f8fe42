#!/usr/bin/env python3
"""tools/bench_targets.py judges issue 18's targets from bicl-bench's JSON: each check here
is a verdict the report must give for a made-up run (a wrong limit, a row sorted into the
wrong target or a peer ratio left out changes one of them)."""
import io
import pathlib
import sys
import unittest

sys.dont_write_bytecode = True  # no __pycache__ in the checkout
sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1] / "tools"))
import bench_targets  # noqa: E402

BIG, SMALL = 1 << 30, 1 << 22


def row(op, dtype, ratio, size=BIG, copy=3000.0):
    return {"op": op, "dtype": dtype, "buffer_bytes": size, "gbs": ratio * copy,
            "copy_gbs": copy, "ratio_copy": ratio, "peer": "", "peer_gbs": 0.0}


def gpu_bench(over=None):
    rows = {("copy4", "f32"): 1.0, ("clblast_copy", "f32"): 0.5,
            ("rope", "bf16 table"): 0.91, ("rope_mla", "bf16 table"): 0.92,
            ("silu", "f32->f32"): 0.93, ("silu", "bf16->bf16 random inputs"): 0.91,
            ("silu", "bf16->bf16 computed"): 0.30, ("relu", "f32->f32"): 0.99,
            ("bias_add", "bf16->bf16"): 0.96, ("add", "bf16->bf16"): 0.97}
    rows.update(over or {})
    results = [row(op, dt, r) for (op, dt), r in rows.items()]
    results.append(row("rope", "bf16 table", 0.10, size=SMALL))  # not the largest buffers
    return {"device": "NVIDIA H100", "results": results,
            "latency_us": {"rope_1_token": 10.5, "empty": 10.0},
            "host_overhead_us_per_call": 5.5, "host_overhead_rope_us_per_call": 5.9,
            "bare_enqueue_us_per_call": 5.0}


def peers(compiled_ratio=1.06, silu_ratio=1.01):
    rope = 0.91 * 3000.0
    return [{"op": "rope", "dtype": "bf16 compiled", "gbs": rope / compiled_ratio},
            {"op": "silu", "dtype": "f32->f32", "gbs": 0.93 * 3000.0 / silu_ratio},
            {"op": "add", "dtype": "bf16->bf16", "gbs": 0.97 * 3000.0}]


def verdicts(bench, peer=None, pocl=None):
    return {name: (measured, verdict)
            for name, measured, verdict in bench_targets.evaluate(bench, peer, pocl)}


def find(v, start):
    return next(val for name, val in v.items() if name.startswith(start))


class GpuTargets(unittest.TestCase):
    def test_all_met(self):
        v = verdicts(gpu_bench(), peers())
        self.assertEqual({name: x[1] for name, x in v.items()},
                         {name: "met" for name in v}, v)

    def test_rope_below_090_misses_and_is_named(self):
        measured, verdict = find(verdicts(gpu_bench({("rope_mla", "bf16 table"): 0.89}),
                                          peers()), "RoPE >= 0.90")
        self.assertEqual(verdict, "missed")
        self.assertIn("rope_mla bf16 table 0.89", measured)

    def test_torch_compile_ratio(self):
        self.assertEqual(find(verdicts(gpu_bench(), peers(compiled_ratio=1.04)),
                              "RoPE bf16 >= 1.05x")[1], "missed")
        self.assertEqual(find(verdicts(gpu_bench(), None), "RoPE bf16 >= 1.05x")[1],
                         "not measured")

    def test_f32_activation_slower_than_torch_misses(self):
        measured, verdict = find(verdicts(gpu_bench(), peers(silu_ratio=0.99)), "f32 activations")
        self.assertEqual(verdict, "missed")
        self.assertIn("0.99x torch", measured)

    def test_normal_input_rows_are_the_activation_target(self):
        v = verdicts(gpu_bench({("gelu", "f32->f32 normal inputs"): 0.91}), peers())
        self.assertEqual(find(v, "f32 activations")[1], "met")
        self.assertIn("gelu f32->f32 normal inputs 0.91", find(v, "f32 activations")[0])
        v = verdicts(gpu_bench({("gelu", "f32->f32 normal inputs"): 0.89}), peers())
        self.assertEqual(find(v, "f32 activations")[1], "missed")
        self.assertEqual(find(v, "every other op")[1], "met")

    def test_random_input_rows_are_the_table_target(self):
        v = verdicts(gpu_bench({("silu", "bf16->bf16 random inputs"): 0.89}), peers())
        self.assertEqual(find(v, "lookup tables")[1], "missed")
        self.assertEqual(find(v, "every other op")[1], "met")

    def test_bias_add_limit_is_095(self):
        v = verdicts(gpu_bench({("bias_add", "bf16->bf16"): 0.94}), peers())
        self.assertEqual(find(v, "bias_add")[1], "missed")
        self.assertEqual(find(v, "every other op")[1], "met")

    def test_decode_and_host_overhead(self):
        b = gpu_bench()
        b["latency_us"]["rope_1_token"] = 11.5
        b["host_overhead_rope_us_per_call"] = 6.1
        v = verdicts(b, peers())
        self.assertEqual(find(v, "decode")[1], "missed")
        self.assertEqual(find(v, "host overhead (RoPE)")[1], "missed")
        self.assertEqual(find(v, "host overhead (silu)")[1], "met")


class PoclTarget(unittest.TestCase):
    def test_pthread_device_is_judged_by_070_including_computed_rows(self):
        b = gpu_bench()
        b["device"] = "pthread-skylake-avx512-Intel(R) Xeon(R) Processor"
        v = verdicts(b)
        self.assertEqual(list(v), ["PoCL: every op >= 0.70 of copy"])
        measured, verdict = v["PoCL: every op >= 0.70 of copy"]
        self.assertEqual(verdict, "missed")
        self.assertIn("silu bf16->bf16 computed 0.30", measured)
        self.assertNotIn("copy4", measured + str(v))
        self.assertNotIn("clblast", measured)

    def test_report_prints_a_markdown_row_per_target(self):
        out = io.StringIO()
        bench_targets.report(gpu_bench(), peers(), pocl=False, out=out)
        lines = [ln for ln in out.getvalue().splitlines() if ln.startswith("| ")]
        self.assertEqual(len(lines), 1 + len(bench_targets.evaluate_gpu(gpu_bench(), peers())))


if __name__ == "__main__":
    unittest.main()
