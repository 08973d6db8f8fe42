#!/usr/bin/env python3
"""Issue 18's performance targets, judged from one run of bicl-bench (and its PyTorch peers).

Reads bicl-bench's JSON (`bicl-bench --json FILE`) and, on a GPU, the peer figures of
platforms/nvidia/peers.py (which calls evaluate() with them), and prints one line per target:
what was measured at the run's largest buffers, and whether the target is met. Every ratio
is of the same run: an op's GB/s over the same run's copy, bicl's GB/s over PyTorch's.

usage: python3 tools/bench_targets.py BENCH.json [--pocl | --gpu]
  --pocl   PoCL's target (every op >= 0.70 of copy); --gpu the GPU targets. Default: PoCL
           where the device's name says "pthread" (PoCL's CPU device), else the GPU's.

The GPU targets leave out the rows "computed" (16-bit activations with the lookup tables
off: the default path is the table, whose rows are judged); PoCL's target takes every row.
"""
import json
import sys

# Ops whose f32 rows the "every other op" target judges, not the activations' target: the
# arithmetic ops, and relu, an activation without a transcendental function (the issue's
# activation target is about the correctly rounded ones).
PLAIN_OPS = {"cast", "add", "sub", "mul", "axpby", "scale", "residual_add", "bias_add",
             "mask_fill", "relu"}
ROPE_OPS = {"rope", "rope_mla", "mrope"}
# Rows that are not bicl's ops: the denominator and the CLBlast peers.
NOT_OURS = ("copy4", "clblast_")


def largest_size(bench):
    return max(r["buffer_bytes"] for r in bench["results"])


def largest_rows(bench):
    """bicl's rows at the run's largest buffer size, keyed by (op, dtype)."""
    big = largest_size(bench)
    return {(r["op"], r["dtype"]): r for r in bench["results"]
            if r["buffer_bytes"] == big and not r["op"].startswith(NOT_OURS)}


def peer_gbs(peers, op, dtype):
    for p in peers or []:
        if p["op"] == op and p["dtype"] == dtype:
            return p["gbs"]
    return None


def label(key):
    return f"{key[0]} {key[1]}"


def judge(name, rows, limit, peers=None, peer_limit=None):
    """One target over rows: each row's ratio to copy >= limit and, where PyTorch ran the
    same op and dtype, bicl / PyTorch >= peer_limit. Returns (name, measured, verdict)."""
    if not rows:
        return (name, "no row in this run", "not measured")
    misses, parts = [], []
    for key, r in sorted(rows.items()):
        text = f"{label(key)} {r['ratio_copy']:.2f}"
        ok = r["ratio_copy"] >= limit
        p = peer_gbs(peers, *key) if peer_limit is not None else None
        if p:
            text += f" ({r['gbs'] / p:.2f}x torch)"
            ok = ok and r["gbs"] / p >= peer_limit
        parts.append(text)
        if not ok:
            misses.append(text)
    if misses:
        return (name, f"{len(misses)} of {len(rows)} missed: " + "; ".join(misses), "missed")
    return (name, f"all {len(rows)} met: " + "; ".join(parts), "met")


def ratio_target(name, value, limit, what, at_most):
    if value is None:
        return (name, "not in this run", "not measured")
    ok = value <= limit if at_most else value >= limit
    return (name, f"{what} {value:.2f}", "met" if ok else "missed")


def evaluate_gpu(bench, peers=None):
    rows = largest_rows(bench)
    computed = {k: r for k, r in rows.items() if "computed" in k[1]}
    rest = {k: r for k, r in rows.items() if k not in computed}
    rope = {k: r for k, r in rest.items() if k[0] in ROPE_OPS}
    random_in = {k: r for k, r in rest.items() if "random input" in k[1] and k not in rope}
    # the f32 activations on the standard input and on normal inputs ("f32->f32 normal
    # inputs", bicl-bench's rows at the largest size)
    act32 = {k: r for k, r in rest.items()
             if k[1].split(" ")[0] == "f32->f32" and k[0] not in PLAIN_OPS and k not in rope}
    bias = {k: r for k, r in rest.items() if k[0] == "bias_add"}
    other = {k: r for k, r in rest.items()
             if k not in rope and k not in random_in and k not in act32 and k not in bias}
    out = [judge("RoPE >= 0.90 of copy (every form measured)", rope, 0.90)]
    table = rows.get(("rope", "bf16 table"))
    compiled = peer_gbs(peers, "rope", "bf16 compiled")
    out.append(ratio_target("RoPE bf16 >= 1.05x torch.compile",
                            table["gbs"] / compiled if table and compiled else None, 1.05,
                            "bicl / torch.compile", False))
    lat = bench.get("latency_us", {})
    out.append(ratio_target("decode (one token's RoPE) <= 1.1x an empty kernel",
                            lat["rope_1_token"] / lat["empty"] if lat.get("empty") else None,
                            1.1, "RoPE / empty", True))
    out.append(judge("f32 activations and gated units >= 0.90 of copy, >= 1.0x PyTorch eager",
                     act32, 0.90, peers, 1.0))
    out.append(judge("lookup tables on random inputs >= 0.90 of copy", random_in, 0.90))
    out.append(judge("bias_add >= 0.95 of copy", bias, 0.95))
    out.append(judge("every other op >= 0.95 of copy, >= 1.0x PyTorch", other, 0.95, peers, 1.0))
    bare = bench.get("bare_enqueue_us_per_call")
    for what, key in (("silu", "host_overhead_us_per_call"),
                      ("RoPE", "host_overhead_rope_us_per_call")):
        v = bench.get(key)
        out.append(ratio_target(f"host overhead ({what}) <= 1.2x a bare enqueue",
                                v / bare if v is not None and bare else None, 1.2,
                                f"{what} per call / bare enqueue", True))
    return out


def evaluate_pocl(bench):
    return [judge("PoCL: every op >= 0.70 of copy", largest_rows(bench), 0.70)]


def evaluate(bench, peers=None, pocl=None):
    if pocl is None:
        pocl = "pthread" in bench.get("device", "")
    return evaluate_pocl(bench) if pocl else evaluate_gpu(bench, peers)


def report(bench, peers=None, pocl=None, out=sys.stdout):
    big = largest_size(bench) >> 20
    print(f"\nissue 18's targets on {bench.get('device', '?')}, {big} MiB buffers "
          f"(same-run ratios):\n", file=out)
    print("| target | measured | |", file=out)
    print("|---|---|---|", file=out)
    for name, measured, verdict in evaluate(bench, peers, pocl):
        print(f"| {name} | {measured} | {verdict} |", file=out)


def main(argv):
    files = [a for a in argv[1:] if not a.startswith("--")]
    if len(files) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    with open(files[0]) as f:
        bench = json.load(f)
    pocl = True if "--pocl" in argv else False if "--gpu" in argv else None
    report(bench, pocl=pocl)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
