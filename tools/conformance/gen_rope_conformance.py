#!/usr/bin/env python3
"""gen_rope_conformance.py - RoPE reference data computed by transformers itself.

For every case of configs.py (a published config.json, a layer type, a sequence length)
this builds the config with transformers' own config class (CONFIG_MAPPING[model_type]
.from_dict, as from_pretrained does), runs the model type's own rotary class (or
ROPE_INIT_FUNCTIONS for an explicit sequence length) and apply_rotary_pos_emb, and writes
tests/data/conformance/rope_reference.json with, per case:
  style, rotary_dim   the pair layout found by rotating basis vectors (probe_styles.py)
  inv_freq_hf         HF's float32 inv_freq, as bits (hex)
  inv_freq_crpow      the same pipeline with torch's float32 pow replaced by a correctly
                      rounded pow (what bicl's hf mode computes; equal to inv_freq_hf except
                      where torch's vectorised Sleef powf misrounds)
  attention_scaling   HF's Python float
  inv_freq_exact      HF's formula evaluated in 200-bit arithmetic (mpmath) on the config's
                      values, rounded to double
  hf_out[p]           HF's float32 rotated output of the fixed vector x at POSITIONS[p], as
                      bits (empty where the model's own position table ends: GPT-J, CodeGen)
  exact_out[p]        the exact rotation of x by HF's formula (cos/sin of pos * inv_exact,
                      times the exact attention scaling), 11 significant digits
x[j] = ((j * 37 + 11) % 64 - 32) / 16 (exact in float; the C test computes the same).
Usage: python3 tools/conformance/gen_rope_conformance.py [--out FILE]
Needs torch and transformers from PyPI (CPU) and mpmath; the C test needs none of them."""
import argparse
import json
import math
import os
import sys
import warnings

import mpmath
import numpy as np
import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING
from transformers.modeling_rope_utils import ROPE_INIT_FUNCTIONS

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import configs  # noqa: E402
import probe_styles as ps  # noqa: E402

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
mpmath.mp.prec = 200
POSITIONS = [0, 1, 3, 255, 4095, 32767, 131071, 1048576]


def x_vec(d):
    return [((j * 37 + 11) % 64 - 32) / 16.0 for j in range(d)]


def f32_bits(a):
    return [f"{int(v):08x}" for v in np.asarray(a, dtype=np.float32).view(np.uint32)]


def cr_pow_f32(b, e):
    """float32(b) ** float32(e) correctly rounded to float32 (round to nearest even)."""
    v = mpmath.mpf(float(np.float32(b))) ** mpmath.mpf(float(np.float32(e)))
    with mpmath.workprec(24):
        return float(+v)


class CrPow:
    """Replaces `python_float ** float32_tensor` (Tensor.__rpow__) by a correctly rounded pow."""

    def __enter__(self):
        self.saved = torch.Tensor.__rpow__

        def rpow(t, b):
            if t.dtype != torch.float32 or not isinstance(b, (int, float)):
                return self.saved(t, b)
            flat = [cr_pow_f32(b, e) for e in t.flatten().tolist()]
            return torch.tensor(flat, dtype=torch.float32).reshape(t.shape)

        torch.Tensor.__rpow__ = rpow
        return self

    def __exit__(self, *a):
        torch.Tensor.__rpow__ = self.saved


def build(d):
    d = {k: v for k, v in d.items() if not k.startswith("_")}
    cfg = CONFIG_MAPPING[d["model_type"]].from_dict(d)
    return cfg, ps.text_config(cfg)


def hf_inv(case, text, mods):
    """inv_freq and attention scaling as the model computes them."""
    name, lt, seq_len = case
    rp = text.rope_parameters[lt] if lt else getattr(text, "rope_parameters", None)
    rtype = rp.get("rope_type", "default") if rp else "default"
    if text.model_type in ("gptj", "codegen"):
        dim = text.rotary_dim
        # create_sinusoidal_positions' own formula (base 10000 is hard-coded there)
        rot = ps.rotary_classes(mods)[0](text)
        return 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.int64) / dim)), 1.0, rot
    if text.model_type == "phimoe" and rtype != "default":
        # Phimoe's forward scales by short_mscale / long_mscale, not attention_scaling
        longer = (seq_len or 0) > rp["original_max_position_embeddings"]
        inv, _ = ROPE_INIT_FUNCTIONS[rtype](text, None, seq_len=seq_len)
        return inv, rp["long_mscale" if longer else "short_mscale"], None
    if seq_len is not None:
        inv, attn = ROPE_INIT_FUNCTIONS[rtype](text, None, seq_len=seq_len)
        return inv, attn, None
    for cls in ps.rotary_classes(mods):
        try:
            rot = cls(text)
        except Exception:
            continue
        if lt:
            return getattr(rot, f"{lt}_inv_freq"), getattr(rot, f"{lt}_attention_scaling"), rot
        return rot.inv_freq, rot.attention_scaling, rot
    raise RuntimeError(f"{name}: no rotary class")


def hf_outputs(case, text, mods, inv, attn, rot):
    """HF's float32 rotation of x at POSITIONS: the model's own rotary forward and
    apply_rotary_pos_emb; for an explicit seq_len (dynamic, longrope) the common forward
    (position * inv_freq in float32, cat, cos/sin * attention_scaling) on that inv_freq,
    since the class would pick its frequencies from the batch."""
    d = ps.head_dim_of(text)
    fn = ps.apply_fns(mods)[0]
    x = torch.tensor(x_vec(d), dtype=torch.float32)
    outs = []
    for p in POSITIONS:
        pos = torch.tensor([[p]])
        if text.model_type in ("gptj", "codegen"):
            if p >= text.max_position_embeddings:
                outs.append([])
                continue
            sin, cos = rot(x[None, None], pos)
            w = 2 * sin.shape[-1]
            q = x.reshape(1, 1, 1, d)
            r = torch.cat([fn(q[..., :w], sin, cos), q[..., w:]], dim=-1)
            outs.append(f32_bits(r.reshape(d).numpy()))
            continue
        if rot is None or case[2] is not None:
            freqs = pos[..., None].float() * inv.float()
            emb = torch.cat((freqs, freqs), dim=-1)
            out = (emb.cos() * attn, emb.sin() * attn)
        elif case[1]:
            out = rot(x[None, None], pos, layer_type=case[1])
        else:
            out = rot(x[None, None], pos)
        q = x.reshape(1, 1, 1, d)
        params = list(__import__("inspect").signature(fn).parameters)
        if params[:3] == ["xq", "xk", "freqs_cis"]:
            r = fn(q, q.clone(), out)[0]
        else:
            cos, sin = out
            try:
                r = fn(q, q.clone(), cos, sin)[0]
            except RuntimeError:
                w = cos.shape[-1]
                r = torch.cat([fn(q[..., :w], q[..., :w].clone(), cos, sin)[0], q[..., w:]], dim=-1)
        outs.append(f32_bits(r.reshape(d).detach().numpy()))
    return outs


# ------------------------------------------------------------------ exact formula
M = mpmath.mpf


def exact_inv(rp, dim, text, seq_len):
    """HF's formulas as real numbers of the config's values (docs/rope.md)."""
    theta = M(rp.get("rope_theta", 10000.0)) if rp else M(10000.0)
    if text.model_type in ("gptj", "codegen"):
        theta = M(10000)
    rtype = (rp or {}).get("rope_type", "default")
    half = dim // 2
    base = [theta ** (-M(2 * i) / dim) for i in range(half)]
    attn = M(1)
    lmax = getattr(text, "max_position_embeddings", None)
    if rtype == "linear":
        return [b / M(rp["factor"]) for b in base], attn
    if rtype == "dynamic":
        L = max(seq_len or lmax, lmax)
        F = M(rp["factor"])
        g = F * L / lmax - (F - 1)
        t2 = theta * g ** (M(dim) / (dim - 2))
        return [t2 ** (-M(2 * i) / dim) for i in range(half)], attn
    if rtype == "llama3":
        F, lo, hi, L0 = M(rp["factor"]), M(rp["low_freq_factor"]), M(rp["high_freq_factor"]), M(rp["original_max_position_embeddings"])
        out = []
        for b in base:
            wl = 2 * mpmath.pi / b
            if wl < L0 / hi:
                out.append(b)
            elif wl > L0 / lo:
                out.append(b / F)
            else:
                s = (L0 / wl - lo) / (hi - lo)
                out.append((1 - s) * b / F + s * b)
        return out, attn
    if rtype == "yarn":
        F = M(rp["factor"])
        L0 = M(rp["original_max_position_embeddings"])
        bf, bs = M(rp.get("beta_fast") or 32), M(rp.get("beta_slow") or 1)

        def cd(n):
            return (dim * mpmath.log(L0 / (n * 2 * mpmath.pi))) / (2 * mpmath.log(theta))

        low, high = cd(bf), cd(bs)
        if rp.get("truncate", True):
            low, high = mpmath.floor(low), mpmath.ceil(high)
        low, high = max(low, 0), min(high, dim - 1)
        if low == high:
            high += M(0.001)
        out = []
        for i, b in enumerate(base):
            ramp = min(max((i - low) / (high - low), 0), 1)
            e = 1 - ramp
            out.append((b / F) * (1 - e) + b * e)

        def ms(s, k=1):
            return M(1) if s <= 1 else M(k) * mpmath.log(s) / 10 + 1

        af = rp.get("attention_factor")
        if af:
            attn = M(af)
        elif rp.get("mscale") and rp.get("mscale_all_dim"):
            attn = ms(F, M(rp["mscale"])) / ms(F, M(rp["mscale_all_dim"]))
        else:
            attn = ms(F)
        return out, attn
    if rtype == "longrope":
        L0 = M(rp["original_max_position_embeddings"])
        F = M(rp["factor"]) if rp.get("factor") else M(lmax) / L0
        ext = rp["long_factor"] if seq_len and seq_len > rp["original_max_position_embeddings"] else rp["short_factor"]
        ext = [M(float(np.float32(v))) for v in ext]
        af = rp.get("attention_factor")
        attn = M(af) if af else (M(1) if F <= 1 else mpmath.sqrt(1 + mpmath.log(F) / mpmath.log(L0)))
        return [b / e for b, e in zip(base, ext)], attn
    return base, attn


def exact_outputs(d, r, style, inv, attn):
    x = x_vec(d)
    outs = []
    for p in POSITIONS:
        o = [M(v) for v in x]
        for i in range(r // 2):
            a = p * inv[i]
            c, s = mpmath.cos(a) * attn, mpmath.sin(a) * attn
            j0, j1 = (i, i + r // 2) if style == "neox" else (2 * i, 2 * i + 1)
            o[j0] = x[j0] * c - x[j1] * s
            o[j1] = x[j1] * c + x[j0] * s
        outs.append([mpmath.nstr(v, 11, min_fixed=1, max_fixed=0) for v in o])
    return outs


def one_case(case):
    name, lt, seq_len = case
    cfg, text = build(configs.CONFIGS[name])
    mods = ps.modeling_modules(text.model_type)
    d = ps.head_dim_of(text)
    style, r, _ = ps.probe_config(mods, text)
    inv, attn, rot = hf_inv(case, text, mods)
    with CrPow():
        inv_cr, _, _ = hf_inv(case, text, mods)
    rp = text.rope_parameters[lt] if lt else getattr(text, "rope_parameters", None)
    inv_x, attn_x = exact_inv(dict(rp or {}), r, text, seq_len)
    if text.model_type == "phimoe":
        attn_x = M(attn)
    return {
        "name": name, "layer_type": lt, "seq_len": seq_len or 0,
        "model_type": text.model_type, "rope_type": (rp or {}).get("rope_type", "default"),
        "style": style, "head_dim": d, "rotary_dim": r,
        "inv_freq_hf": f32_bits(inv.numpy()), "inv_freq_crpow": f32_bits(inv_cr.numpy()),
        "attention_scaling": float(attn), "attention_scaling_exact": float(attn_x),
        "inv_freq_exact": [float(v) for v in inv_x],
        "hf_out": hf_outputs(case, text, mods, inv, attn, rot),
        "exact_out": exact_outputs(d, r, style, inv_x, attn_x),
    }


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "data", "conformance", "rope_reference.json"))
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    cases = []
    for case in configs.CASES:
        if a.only and case[0] != a.only:
            continue
        try:
            cases.append(one_case(case))
            c = cases[-1]
            diff = sum(x != y for x, y in zip(c["inv_freq_hf"], c["inv_freq_crpow"]))
            print(f"{case[0]:22s} {str(case[1]):18s} {c['model_type']:14s} {c['rope_type']:9s} {c['style']} "
                  f"{c['rotary_dim']}/{c['head_dim']} attn {c['attention_scaling']:.6f} torch-pow misrounded {diff}", file=sys.stderr)
        except Exception as e:
            print(f"{case[0]}: FAILED {type(e).__name__}: {e}", file=sys.stderr)
            raise
    doc = {"transformers": transformers.__version__, "torch": torch.__version__,
           "cpu_capability": torch.backends.cpu.get_cpu_capability(), "positions": POSITIONS,
           "configs": {k: v for k, v in configs.CONFIGS.items()}, "cases": cases}
    with open(a.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
