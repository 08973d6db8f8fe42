#!/usr/bin/env python3
"""PyTorch peers of bicl-bench on the same GPU, in the same rig call.

Runs the ops bicl-bench measures in PyTorch eager (and HF-style RoPE eager and under
torch.compile), with the same byte accounting (every operand read or written once), CUDA
event timing, warm-up, median of repeats and rotated inputs, then prints the ratio
table beside bicl's numbers read from bicl-bench's JSON (argument 1, optional).

usage: python3 platforms/nvidia/peers.py [bench-nvidia.json] [--mib 1024]
"""
import json
import pathlib
import statistics
import sys
import time

import torch
import torch.nn.functional as F

MIB = 1024
for i, a in enumerate(sys.argv):
    if a == "--mib" and i + 1 < len(sys.argv):
        MIB = int(sys.argv[i + 1])
BENCH = next((a for a in sys.argv[1:] if a.endswith(".json")), None)
BYTES = MIB << 20
N = BYTES // 4  # elements: as bicl-bench, every operand fits one buffer of BYTES
REPS = 20
dev = torch.device("cuda")


def timed(fn, sets):
    """Median time (s) of fn(set) over rotated input sets, after warm-up."""
    for s in sets[:2]:
        fn(s)
    torch.cuda.synchronize()
    times = []
    for r in range(REPS):
        s = sets[r % len(sets)]
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        fn(s)
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e-3)
    return statistics.median(times)


def make_sets(dtype, count=2, n=N):
    return [
        {"x": torch.rand(n, device=dev, dtype=torch.float32).to(dtype) - 0.5,
         "y": torch.rand(n, device=dev, dtype=torch.float32).to(dtype) - 0.5}
        for _ in range(count)
    ]


def size(dt):
    return torch.tensor([], dtype=dt).element_size()


results = []


def record(op, dtype_label, moved_bytes, t):
    gbs = moved_bytes / t * 1e-9
    results.append({"op": op, "dtype": dtype_label, "gbs": gbs})
    print(f"torch {op:<14} {dtype_label:<12} {gbs:8.1f} GB/s", flush=True)


bf16, f16, f32 = torch.bfloat16, torch.float16, torch.float32
names = {bf16: "bf16", f16: "f16", f32: "f32"}

# copy (clone), the ceiling
for dt in (f32,):
    sets = make_sets(dt)
    t = timed(lambda s: s["y"].copy_(s["x"]), sets)
    record("copy", "f32", 2 * N * size(dt), t)
    del sets
for dt_in, dt_out in ((f32, bf16), (bf16, f32)):
    sets = make_sets(dt_in)
    t = timed(lambda s: s["x"].to(dt_out), sets)
    record("cast", f"{names[dt_in]}->{names[dt_out]}", N * (size(dt_in) + size(dt_out)), t)
    del sets
unary = [("silu", F.silu, (f32, bf16, f16)), ("gelu", F.gelu, (f32, bf16)),
         ("gelu_tanh", lambda x: F.gelu(x, approximate="tanh"), (f32, bf16)),
         ("relu", F.relu, (f32,))]
for name, fn, dts in unary:
    for dt in dts:
        sets = make_sets(dt)
        t = timed(lambda s: fn(s["x"]), sets)
        record(name, f"{names[dt]}->{names[dt]}", 2 * N * size(dt), t)
        del sets
for dt in (bf16, f32):
    sets = make_sets(dt)
    t = timed(lambda s: F.silu(s["x"]) * s["y"], sets)  # HF eager: two kernels
    record("swiglu", f"{names[dt]}->{names[dt]}", 3 * N * size(dt), t)
    del sets
for name, fn, dts in (("add", torch.add, (f32, bf16)), ("mul", torch.mul, (f32,))):
    for dt in dts:
        sets = make_sets(dt)
        t = timed(lambda s: fn(s["x"], s["y"]), sets)
        record(name, f"{names[dt]}->{names[dt]}", 3 * N * size(dt), t)
        del sets
for dt in (f32, bf16):
    sets = make_sets(dt)
    t = timed(lambda s: s["x"] * 0.125, sets)
    record("scale", f"{names[dt]}->{names[dt]}", 2 * N * size(dt), t)
    del sets
sets = [{"r": torch.rand(N, device=dev), "x": torch.rand(N, device=dev).to(bf16)} for _ in range(2)]


def residual(s):
    r = s["r"] + s["x"]  # f32 residual stream
    return r, r.to(bf16)


t = timed(residual, sets)
record("residual_add", "bf16->bf16", N * (4 + 2 + 4 + 2), t)
del sets
sets = [{"x": torch.rand(N // 4096, 4096, device=dev).to(bf16),
         "b": torch.rand(4096, device=dev).to(bf16)} for _ in range(2)]
t = timed(lambda s: s["x"] + s["b"], sets)
record("bias_add", "bf16->bf16", N * 4 + 4096 * 2, t)
del sets
sets = [{"x": torch.rand(N, device=dev), "m": torch.rand(N, device=dev) < 0.3} for _ in range(2)]
t = timed(lambda s: s["x"].masked_fill(s["m"], float("-inf")), sets)
record("mask_fill", "f32->f32", N * 9, t)
del sets

# HF-style RoPE (transformers' apply_rotary_pos_emb), 32 q + 8 k heads x 128, bf16
T = BYTES // (32 * 128 * 2)


def rotate_half(x):
    x1, x2 = x[..., : x.shape[-1] // 2], x[..., x.shape[-1] // 2:]
    return torch.cat((-x2, x1), dim=-1)


def hf_rope(q, k, cos, sin):
    cos, sin = cos.unsqueeze(1), sin.unsqueeze(1)
    return q * cos + rotate_half(q) * sin, k * cos + rotate_half(k) * sin


sets = [{"q": torch.rand(T, 32, 128, device=dev).to(bf16),
         "k": torch.rand(T, 8, 128, device=dev).to(bf16),
         "cos": torch.rand(T, 128, device=dev).to(bf16),
         "sin": torch.rand(T, 128, device=dev).to(bf16)} for _ in range(2)]
moved = T * 40 * 128 * 2 * 2 + T * 4  # q, k read + written, one position each (as bicl)
t = timed(lambda s: hf_rope(s["q"], s["k"], s["cos"], s["sin"]), sets)
record("rope", "bf16 eager", moved, t)
try:
    t0 = time.time()
    compiled = torch.compile(hf_rope)
    compiled(sets[0]["q"], sets[0]["k"], sets[0]["cos"], sets[0]["sin"])
    torch.cuda.synchronize()
    print(f"(torch.compile took {time.time() - t0:.1f} s)")
    t = timed(lambda s: compiled(s["q"], s["k"], s["cos"], s["sin"]), sets)
    record("rope", "bf16 compiled", moved, t)
except Exception as e:  # a missing compiler toolchain must not hide the eager numbers
    print(f"torch.compile failed: {e}")
del sets

print(f"\ntorch {torch.__version__} on {torch.cuda.get_device_name()}; buffers of {MIB} MiB")
if BENCH:
    # tools/bench_targets.py: the run's largest buffers, and issue 18's targets below
    sys.dont_write_bytecode = True
    sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[2] / "tools"))
    import bench_targets

    with open(BENCH) as f:
        bench = json.load(f)
    big = bench_targets.largest_size(bench)
    ours = {(r["op"], r["dtype"]): r for r in bench["results"] if r["buffer_bytes"] == big}
    print(f"\nbicl vs PyTorch at {big >> 20} MiB buffers (same GPU, same run):\n")
    print("| op | dtype | bicl GB/s | bicl / copy | torch GB/s | bicl / torch |")
    print("|---|---|---|---|---|---|")
    for r in results:
        key = (r["op"], r["dtype"])
        if r["op"] == "rope":
            key = ("rope", "bf16 table")
        if r["op"] == "copy":
            key = ("copy4", "f32")
        b = ours.get(key)
        if b:
            print(f"| {r['op']} | {r['dtype']} | {b['gbs']:.1f} | {b['ratio_copy']:.2f} | "
                  f"{r['gbs']:.1f} | {b['gbs'] / r['gbs']:.2f} |")
    bench_targets.report(bench, results, pocl=False)
