"""The pointwise and RoPE part of a Llama-style decoder layer, with bicl's ops.

``python -m bicl demo [--backend auto|numpy|torch] [--device SPEC] [--out DIR]``

Per token, with the projections, attention and norms taken as given (they are not
bicl's: their outputs are inputs here, made from the token's identity alone):

    positions      <- bicl positions from the layout (packed cu_seqlens, or a padded mask)
    q, k           <- RoPE(q, k, positions)             Llama-3.1 config.json, llama3 scaling
    residual, h    <- residual + attn_out               f32 residual stream, bf16 h
    act            <- silu(gate) * up                   bf16, act rounded to bf16 (HF eager)
    residual, out  <- residual + mlp_out

The same sequences run in many layouts: each alone, a batch of 3, all of them packed
(THD), packed in reverse order, split into chunks (chunked prefill), and padded [B, S]
on the right and on the left. Checked, bit for bit, for every real token:
  * parity: outputs equal bicl's host reference (bicl.reference);
  * invariance: a token's outputs are the same in every layout and batch;
  * with --backend torch (NVIDIA): the same layer on torch CUDA tensors through the
    zero-copy bridge equals the reference and the PoCL run, and bicl's per-call overhead
    is measured against the native torch op.
Without CUDA (or torch) the numpy path runs on the device given (default PoCL). Writes
demo.json and prints a summary; exit status 0 when every check passed.
"""
from __future__ import annotations

import argparse
import dataclasses
import json
import os
import statistics
import sys
import time
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import numpy as np

from . import reference as ref
from ._enums import Dtype
from .context import Context
from .rope import RopeConfig, RopePlan

__all__ = ["Model", "LLAMA31_8B", "TINY", "Sequences", "NumpyBackend", "TorchBackend",
           "run_layouts", "check_runs", "main"]

# Llama-3.1-8B's config.json (the RoPE part is what bicl reads; the sizes set the shapes).
_LLAMA31_8B_JSON = (
    '{"architectures": ["LlamaForCausalLM"], "model_type": "llama", "hidden_size": 4096,'
    ' "intermediate_size": 14336, "num_attention_heads": 32, "num_key_value_heads": 8,'
    ' "max_position_embeddings": 131072, "rope_theta": 500000.0, "rope_scaling": {'
    '"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,'
    ' "original_max_position_embeddings": 8192, "rope_type": "llama3"}}')


@dataclasses.dataclass(frozen=True)
class Model:
    """A model's shapes and its config.json text."""

    name: str
    config_json: str
    hq: int
    hk: int
    hidden: int
    ffn: int

    def rope_config(self) -> RopeConfig:
        """The RoPE config, read by bicl's parser."""
        return RopeConfig.from_hf_json(self.config_json)


LLAMA31_8B = Model("Llama-3.1-8B", _LLAMA31_8B_JSON, 32, 8, 4096, 14336)
#: Llama-3.1's RoPE with small sizes (fast on PoCL: the tests use it).
TINY = Model("Llama-3.1 RoPE, tiny sizes", json.dumps(
    dict(json.loads(_LLAMA31_8B_JSON), hidden_size=512, intermediate_size=96,
         num_attention_heads=4, num_key_value_heads=2)), 4, 2, 512, 96)


@dataclasses.dataclass
class Sequences:
    """The sequences of the demo: lengths and tokens already in their KV caches."""

    lengths: Tuple[int, ...] = (5, 1, 9, 3, 7, 1, 12, 4)
    starts: Tuple[int, ...] = (0, 37, 0, 1000, 5, 8191, 0, 20000)
    seed: int = 2026

    @property
    def n(self) -> int:
        """Number of sequences."""
        return len(self.lengths)

    def max_position(self) -> int:
        """The largest position of any token."""
        return max(s + n - 1 for s, n in zip(self.starts, self.lengths))


_FIELDS = ("q", "k", "attn", "gate", "up", "mlp", "residual")
_OUTPUTS = ("q_rot", "k_rot", "residual1", "h", "act", "residual2", "out")


def token_inputs(model: Model, seqs: Sequences, s: int, i: int) -> Dict[str, np.ndarray]:
    """The inputs of token i of sequence s: they depend on (seed, s, i) only."""
    rng = np.random.default_rng([seqs.seed, s, i])
    d = model.hidden // model.hq

    def bf16(*shape: int, scale: float = 1.0) -> np.ndarray:
        return ref.f32_to_bf16((rng.standard_normal(shape) * scale).astype(np.float32))

    return {"q": bf16(model.hq, d), "k": bf16(model.hk, d), "attn": bf16(model.hidden),
            "gate": bf16(model.ffn, scale=3.0), "up": bf16(model.ffn), "mlp": bf16(model.hidden),
            "residual": (rng.standard_normal(model.hidden) * 4).astype(np.float32)}


# ---------------------------------------------------------------- layouts
@dataclasses.dataclass
class Layout:
    """One way to lay the tokens out: packed [T, ...] with cu_seqlens and starts, or
    padded [B, S, ...] with a mask (left or right). `entries` lists (sequence, first
    token, count): a chunk of a sequence per batch row."""

    name: str
    entries: List[Tuple[int, int, int]]
    padded: str = ""  # "", "left" or "right"


def layouts(seqs: Sequences) -> List[Layout]:
    """Each sequence alone, a batch of 3, all packed, reversed, chunked, padded."""
    whole = [(s, 0, n) for s, n in enumerate(seqs.lengths)]
    out = [Layout(f"alone[{s}]", [e]) for s, e in enumerate(whole)]
    out.append(Layout("batch3", whole[:3]))
    out.append(Layout("packed", whole))
    out.append(Layout("packed_reversed", whole[::-1]))
    chunks = []
    for s, n in enumerate(seqs.lengths):
        cut = (n + 1) // 2
        chunks += [(s, 0, cut)] + ([(s, cut, n - cut)] if n > cut else [])
    out.append(Layout("chunked", chunks))
    out.append(Layout("padded_right", whole, "right"))
    out.append(Layout("padded_left", whole, "left"))
    return out


def _assemble(model: Model, seqs: Sequences, lay: Layout,
              cache: Dict[Tuple[int, int], Dict[str, np.ndarray]]) -> Tuple[Dict[str, np.ndarray], List[Optional[Tuple[int, int]]]]:
    """The layout's input arrays and, per token slot, (sequence, index) or None (a pad)."""
    slots: List[Optional[Tuple[int, int]]] = []
    if lay.padded:
        width = max(c for _, _, c in lay.entries)
        for s, first, count in lay.entries:
            row: List[Optional[Tuple[int, int]]] = [(s, first + j) for j in range(count)]
            pads: List[Optional[Tuple[int, int]]] = [None] * (width - count)
            slots += pads + row if lay.padded == "left" else row + pads
    else:
        slots = [(s, first + j) for s, first, count in lay.entries for j in range(count)]
    pad_rng = np.random.default_rng(7)
    arrays: Dict[str, List[np.ndarray]] = {f: [] for f in _FIELDS}
    for slot in slots:
        if slot is None:  # a pad: garbage that must not reach a real token
            tok = {f: v.copy() for f, v in token_inputs(model, seqs, 0, 0).items()}
            for v in tok.values():
                v.reshape(-1).view(np.uint8)[:] = pad_rng.integers(0, 256, v.nbytes, dtype=np.uint8)
        else:
            if slot not in cache:
                cache[slot] = token_inputs(model, seqs, *slot)
            tok = cache[slot]
        for f in _FIELDS:
            arrays[f].append(tok[f])
    stacked = {f: np.stack(v) for f, v in arrays.items()}
    if lay.padded:
        b = len(lay.entries)
        stacked = {f: v.reshape((b, -1) + v.shape[1:]) for f, v in stacked.items()}
    return stacked, slots


def _positions_inputs(seqs: Sequences, lay: Layout) -> Dict[str, np.ndarray]:
    """cu_seqlens and starts (packed), or the mask and starts (padded)."""
    starts = np.array([seqs.starts[s] + first for s, first, _ in lay.entries], dtype=np.int32)
    counts = [c for _, _, c in lay.entries]
    if not lay.padded:
        return {"cu_seqlens": np.concatenate([[0], np.cumsum(counts)]).astype(np.int32),
                "start": starts}
    width = max(counts)
    mask = np.zeros((len(counts), width), dtype=np.uint8)
    for b, c in enumerate(counts):
        if lay.padded == "left":
            mask[b, width - c:] = 1
        else:
            mask[b, :c] = 1
    return {"mask": mask, "start": starts}


# ---------------------------------------------------------------- backends
class NumpyBackend:
    """Device arrays made from numpy arrays on a bicl Context (PoCL, or any device)."""

    name = "numpy"

    def __init__(self, ctx: Context) -> None:
        self.ctx = ctx

    def put(self, a: np.ndarray) -> Any:
        """A device copy of a host array."""
        return self.ctx.to_device(a)

    def empty(self, shape: Sequence[int], dtype: Dtype) -> Any:
        """An output on the device."""
        return self.ctx.empty(shape, dtype)

    def get(self, t: Any) -> np.ndarray:
        """Back to the host (blocking)."""
        return t.to_numpy()


class TorchBackend:
    """torch CUDA tensors from a TorchBridge's pool; bicl's ops run on them in place."""

    name = "torch"

    def __init__(self, bridge: Any) -> None:
        import torch

        self.torch = torch
        self.bridge = bridge
        self.ctx = bridge.ctx
        self._dt = {Dtype.F32: torch.float32, Dtype.BF16: torch.bfloat16, Dtype.I32: torch.int32,
                    Dtype.U8: torch.uint8, Dtype.F16: torch.float16}

    def put(self, a: np.ndarray) -> Any:
        """A pool tensor holding a host array's bits (uint16: bf16)."""
        t = self.torch.from_numpy(np.ascontiguousarray(a.view(np.int16) if a.dtype == np.uint16 else a))
        if a.dtype == np.uint16:
            t = t.view(self.torch.bfloat16)
        return self.bridge.copy_in(t)

    def empty(self, shape: Sequence[int], dtype: Dtype) -> Any:
        """An uninitialised pool tensor."""
        return self.bridge.empty(shape, self._dt[dtype])

    def get(self, t: Any) -> np.ndarray:
        """Back to the host, bits as numpy (bf16 as uint16)."""
        if t.dtype == self.torch.bfloat16:
            return t.cpu().view(self.torch.int16).numpy().view(np.uint16)
        return t.cpu().numpy()


# -------------------------------------------------------------- the layer
def run_layer(be: Any, plan: RopePlan, seqs: Sequences, lay: Layout, model: Model,
              cache: Dict[Tuple[int, int], Dict[str, np.ndarray]]) -> Dict[Tuple[int, int], Dict[str, bytes]]:
    """One layout through the pointwise and RoPE part; per real token, its outputs' bits."""
    ctx = be.ctx
    host, slots = _assemble(model, seqs, lay, cache)
    t = {f: be.put(v) for f, v in host.items()}
    pin = {k: be.put(v) for k, v in _positions_inputs(seqs, lay).items()}
    tok_shape = host["q"].shape[:-2]
    positions = be.empty(tok_shape, Dtype.I32)
    if lay.padded:
        ctx.positions_padded(pin["mask"], positions, pin["start"])
    else:
        ctx.positions_packed(pin["cu_seqlens"], positions, pin["start"])
    o = {"q_rot": be.empty(host["q"].shape, Dtype.BF16), "k_rot": be.empty(host["k"].shape, Dtype.BF16),
         "residual1": be.empty(host["attn"].shape, Dtype.F32), "h": be.empty(host["attn"].shape, Dtype.BF16),
         "act": be.empty(host["gate"].shape, Dtype.BF16),
         "residual2": be.empty(host["attn"].shape, Dtype.F32), "out": be.empty(host["attn"].shape, Dtype.BF16)}
    ctx.rope(plan, positions, t["q"], o["q_rot"], t["k"], o["k_rot"])
    ctx.residual_add(t["residual"], t["attn"], o["residual1"], o["h"])
    ctx.glu("swiglu", t["gate"], t["up"], o["act"], round_act_to_storage=True)
    ctx.residual_add(o["residual1"], t["mlp"], o["residual2"], o["out"])
    back = {name: be.get(v) for name, v in o.items()}
    flat = {name: v.reshape((len(slots),) + v.shape[len(tok_shape):]) for name, v in back.items()}
    return {slot: {name: flat[name][j].tobytes() for name in _OUTPUTS}
            for j, slot in enumerate(slots) if slot is not None}


def reference_outputs(plan: RopePlan, seqs: Sequences, model: Model,
                      cache: Dict[Tuple[int, int], Dict[str, np.ndarray]]) -> Dict[Tuple[int, int], Dict[str, bytes]]:
    """bicl's host reference for every token (packed, all sequences)."""
    lay = Layout("reference", [(s, 0, n) for s, n in enumerate(seqs.lengths)])
    host, slots = _assemble(model, seqs, lay, cache)
    pin = _positions_inputs(seqs, lay)
    pos = ref.positions_packed(pin["cu_seqlens"], pin["start"])
    q_rot, k_rot = ref.rope(plan, pos, host["q"], host["k"])
    assert k_rot is not None
    r1, h = ref.residual_add(host["residual"], host["attn"])
    act = ref.glu("swiglu", host["gate"], host["up"], round_act_to_storage=True)
    r2, out = ref.residual_add(r1, host["mlp"])
    vals = {"q_rot": q_rot, "k_rot": k_rot, "residual1": r1, "h": h, "act": act,
            "residual2": r2, "out": out}
    return {slot: {n: vals[n][j].tobytes() for n in _OUTPUTS} for j, slot in enumerate(slots)
            if slot is not None}


def run_layouts(be: Any, plan: RopePlan, seqs: Sequences, model: Model) -> Dict[str, Dict[Tuple[int, int], Dict[str, bytes]]]:
    """Every layout of the demo on one backend."""
    cache: Dict[Tuple[int, int], Dict[str, np.ndarray]] = {}
    return {lay.name: run_layer(be, plan, seqs, lay, model, cache) for lay in layouts(seqs)}


def check_runs(runs: Dict[str, Dict[Tuple[int, int], Dict[str, bytes]]],
               expect: Dict[Tuple[int, int], Dict[str, bytes]], what: str) -> List[str]:
    """Every token of every run against `expect` (the reference, or another backend's
    run); a list of the differences (empty: all equal)."""
    bad = []
    for lay, tokens in runs.items():
        for slot, outs in tokens.items():
            for name, bits in outs.items():
                if bits != expect[slot][name]:
                    bad.append(f"{what}: {lay} token {slot} {name} differs")
    return bad


def invariance(runs: Dict[str, Dict[Tuple[int, int], Dict[str, bytes]]]) -> List[str]:
    """A token's bits in every layout against its bits in the first layout that has it
    (independent of the reference)."""
    first: Dict[Tuple[int, int], Tuple[str, Dict[str, bytes]]] = {}
    bad = []
    for lay, tokens in runs.items():
        for slot, outs in tokens.items():
            if slot not in first:
                first[slot] = (lay, outs)
            elif outs != first[slot][1]:
                bad.append(f"invariance: token {slot} in {lay} differs from {first[slot][0]}")
    return bad


# --------------------------------------------------------------- overhead
def _median_us(fn: Callable[[], Any], repeat: int) -> float:
    fn()
    times = []
    for _ in range(repeat):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


def torch_overhead(bridge: Any, plan: RopePlan, model: Model, repeat: int = 200) -> List[Dict[str, Any]]:
    """Per-call time of bicl ops on pool tensors (in the bridge's ordering mode) against
    the native torch op, both waited for (torch.cuda.synchronize) and not."""
    import torch
    import torch.nn.functional as F

    ctx = bridge.ctx
    rows = []
    d = model.hidden // model.hq
    for tokens in (1, 64, 4096):
        gate = bridge.copy_in(torch.randn(tokens, model.ffn, dtype=torch.bfloat16))
        up = bridge.copy_in(torch.randn(tokens, model.ffn, dtype=torch.bfloat16))
        act = bridge.empty((tokens, model.ffn), torch.bfloat16)
        q = bridge.copy_in(torch.randn(tokens, model.hq, d, dtype=torch.bfloat16))
        pos = bridge.copy_in(torch.arange(tokens, dtype=torch.int32))
        cos = torch.randn(tokens, 1, d, device=bridge.device, dtype=torch.bfloat16)
        sin = torch.randn_like(cos)

        def native_glu() -> Any:
            return F.silu(gate) * up

        def native_rope() -> Any:
            h = d // 2
            return q * cos + torch.cat((-q[..., h:], q[..., :h]), dim=-1) * sin

        def synced(fn: Callable[[], Any]) -> Callable[[], Any]:
            def run() -> None:
                fn()
                torch.cuda.synchronize()
            return run

        cases = [("swiglu", lambda: ctx.glu("swiglu", gate, up, act, round_act_to_storage=True),
                  native_glu, tokens * model.ffn),
                 ("rope_q", lambda: ctx.rope(plan, pos, q), native_rope, tokens * model.hq * d)]
        for name, bicl_fn, torch_fn, n in cases:
            b = _median_us(bicl_fn, repeat)
            bs = _median_us(synced(bicl_fn), repeat)
            ts = _median_us(synced(torch_fn), repeat)
            ta = _median_us(torch_fn, repeat)
            torch.cuda.synchronize()
            rows.append({"op": name, "tokens": tokens, "elements": n, "sync": bridge.sync,
                         "bicl_us": round(b, 1), "bicl_synced_us": round(bs, 1),
                         "torch_synced_us": round(ts, 1), "torch_async_us": round(ta, 1),
                         "overhead_vs_synced_us": round(bs - ts, 1)})
    return rows


def torch_native_vs_bicl(backend: Any, seqs: Sequences, model: Model) -> Dict[str, Any]:
    """How far native torch's swiglu (HF eager, bf16) is from bicl's bits, for context:
    elements that differ (bicl's are the reference on every device; torch's exp is not)."""
    import torch
    import torch.nn.functional as F

    cache: Dict[Tuple[int, int], Dict[str, np.ndarray]] = {}
    host, _ = _assemble(model, seqs, Layout("packed", [(s, 0, n) for s, n in enumerate(seqs.lengths)]), cache)
    gate, up = backend.put(host["gate"]), backend.put(host["up"])
    native = backend.get(F.silu(gate) * up)
    bicl_act = ref.glu("swiglu", host["gate"], host["up"], round_act_to_storage=True)
    differ = int((native != bicl_act).sum())
    torch.cuda.synchronize()
    return {"op": "swiglu bf16 (F.silu(gate) * up)", "elements": int(native.size),
            "differ_from_bicl": differ}


# ---------------------------------------------------------------- driver
def _torch_ready() -> str:
    try:
        from .torch_bridge import availability
    except ImportError as e:  # pragma: no cover
        return str(e)
    return availability()


def run_backend(be: Any, model: Model, seqs: Sequences, plan: RopePlan) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """Runs every layout on a backend and checks parity and invariance."""
    t0 = time.perf_counter()
    runs = run_layouts(be, plan, seqs, model)
    expect = reference_outputs(plan, seqs, model, {})
    bad = check_runs(runs, expect, f"{be.name} vs reference") + invariance(runs)
    tokens = sum(len(v) for v in runs.values())
    summary = {"backend": be.name, "device": be.ctx.device_name, "layouts": list(runs),
               "token_outputs_checked": tokens * len(_OUTPUTS), "failures": bad[:20],
               "n_failures": len(bad), "seconds": round(time.perf_counter() - t0, 2)}
    return summary, runs


def main(argv: Optional[List[str]] = None) -> int:
    """The command line (python -m bicl demo)."""
    p = argparse.ArgumentParser(prog="python -m bicl demo", description=__doc__,
                                formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--backend", choices=["auto", "numpy", "torch"], default="auto",
                   help="torch: the CUDA bridge (and the numpy path on --pocl-device for the "
                        "cross-device check); auto: torch where the bridge is available")
    p.add_argument("--device", default=None, help="device spec of the numpy path "
                   "(default $BICL_DEVICE, else pocl)")
    p.add_argument("--pocl-device", default="pocl", help="the PoCL spec for the torch run's "
                   "cross-device check ('' skips it)")
    p.add_argument("--nvidia-device", default="nvidia", help="the bicl device spec for torch's GPU")
    p.add_argument("--model", choices=["llama31-8b", "tiny"], default="llama31-8b")
    p.add_argument("--repeat", type=int, default=200, help="timed calls per overhead row")
    p.add_argument("--no-bench", action="store_true", help="skip the overhead measurement")
    p.add_argument("--sync", choices=["auto", "semaphore", "blocking"], default="auto",
                   help="the torch bridge's ordering (bicl.torch_bridge)")
    p.add_argument("--out", default=None, help="folder for demo.json")
    a = p.parse_args(argv)
    model = LLAMA31_8B if a.model == "llama31-8b" else TINY
    seqs = Sequences()
    torch_state = _torch_ready()
    backend = a.backend
    if backend == "auto":
        backend = "torch" if torch_state == "available" else "numpy"
    elif backend == "torch" and torch_state != "available":
        print(f"bicl demo: --backend torch, but the PyTorch bridge is not available: {torch_state}")
        return 1
    result: Dict[str, Any] = {"model": model.name, "sequences": dataclasses.asdict(seqs),
                              "torch_bridge": torch_state, "backend": backend, "runs": []}
    failures = 0
    cfg = model.rope_config()
    table = seqs.max_position() + 1
    numpy_runs = None
    numpy_device = a.device or os.environ.get("BICL_DEVICE") or "pocl"
    if backend == "numpy" or a.pocl_device:
        spec = numpy_device if backend == "numpy" else a.pocl_device
        with Context(spec) as ctx:
            plan = RopePlan(ctx, cfg, table_positions=table)
            summary, numpy_runs = run_backend(NumpyBackend(ctx), model, seqs, plan)
            summary["fingerprint"] = ctx.fingerprint
            result["runs"].append(summary)
            failures += summary["n_failures"]
            plan.free()
    if backend == "torch":
        failures += _torch_part(a, model, seqs, cfg, table, numpy_runs, result)
    result["pass"] = failures == 0
    _report(result, a.out)
    return 0 if failures == 0 else 1


def _torch_part(a: argparse.Namespace, model: Model, seqs: Sequences, cfg: RopeConfig, table: int,
                numpy_runs: Any, result: Dict[str, Any]) -> int:
    """The torch backend: parity, invariance, the cross-device check, overhead."""
    from .torch_bridge import TorchBridge

    ctx = Context(a.nvidia_device)
    bridge = TorchBridge(ctx, sync=a.sync)
    plan = RopePlan(ctx, cfg, table_positions=max(table, 4096))
    backend = TorchBackend(bridge)
    summary, runs = run_backend(backend, model, seqs, plan)
    summary["fingerprint"] = ctx.fingerprint
    failures = summary["n_failures"]
    if numpy_runs is not None:
        flat = {slot: outs for lay in numpy_runs.values() for slot, outs in lay.items()}
        cross = check_runs(runs, flat, "torch (CUDA bridge) vs PoCL")
        summary["cross_device_failures"] = cross[:20]
        summary["n_cross_device_failures"] = len(cross)
        failures += len(cross)
    summary["native_torch"] = torch_native_vs_bicl(backend, seqs, model)
    if not a.no_bench:
        summary["overhead"] = torch_overhead(bridge, plan, model, a.repeat)
    summary["bridge"] = bridge.stats()
    summary["fd_open_after_import"] = bridge.fd_open_after_import
    summary["sync"], summary["sync_why"] = bridge.sync, bridge.sync_why
    result["runs"].append(summary)
    return failures


def _report(result: Dict[str, Any], out: Optional[str]) -> None:
    print(f"bicl demo: {result['model']}; torch bridge: {result['torch_bridge']}")
    for r in result["runs"]:
        print(f"  {r['backend']} on {r['device']}: {r['token_outputs_checked']} token outputs "
              f"in {len(r['layouts'])} layouts, {r['n_failures']} differ from the reference or "
              f"across layouts ({r['seconds']} s)")
        if "n_cross_device_failures" in r:
            print(f"    vs the PoCL run: {r['n_cross_device_failures']} differ")
        for line in r["failures"][:5]:
            print(f"    {line}")
        if "native_torch" in r:
            nt = r["native_torch"]
            print(f"    native torch {nt['op']}: {nt['differ_from_bicl']} of {nt['elements']} "
                  "elements differ from bicl's bits")
        for row in r.get("overhead", []):
            print(f"    {row['op']:7s} tokens {row['tokens']:5d}: bicl ({row['sync']}) "
                  f"{row['bicl_us']:7.1f} us, synced {row['bicl_synced_us']:7.1f} us; torch synced {row['torch_synced_us']:9.1f} us, async {row['torch_async_us']:9.1f} us")
        if "bridge" in r:
            print(f"    bridge: {r['bridge']}, fd open after import: {r['fd_open_after_import']}, "
                  f"ordering: {r['sync']}{' (' + r['sync_why'] + ')' if r['sync_why'] else ''}")
    print(f"bicl demo: {'PASS' if result['pass'] else 'FAIL'}")
    if out:
        os.makedirs(out, exist_ok=True)
        with open(os.path.join(out, "demo.json"), "w") as f:
            json.dump(result, f, indent=1, default=str)


if __name__ == "__main__":
    sys.exit(main())
