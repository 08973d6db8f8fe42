#!/usr/bin/env python3
"""gen_rope_mla_conformance.py - reference data for MLA's decoupled RoPE and proportional
RoPE, computed by transformers itself; writes tests/data/conformance/rope_mla_reference.json
(only that file; gen_rope_conformance.py writes the 1-D suite).

MLA (DeepSeek-V2/V3, Kimi-K2, MiniCPM3): the model type's own attention module
(<Model>Attention.forward, with the published config's RoPE fields) runs on a hidden state
whose projections are set to give a chosen q head and k_pe; an attention function
registered with transformers' AttentionInterface records the query and key states the
module hands to attention, and the `scaling` it passes (the softmax scale, with
yarn_apply_mscale's mscale^2). So the layout (which q elements rotate, where each pair is
read and written, k_pe's width), the rotation and the softmax scale are the module's, not
a re-implementation. The attention runs with 2 heads, a 64-wide hidden state and no
q_lora (projections only, no RoPE field changes); the rotary class gets the full config.

Proportional (Gemma 4): the text model's rotary class for each layer type and Gemma 4's
apply_rotary_pos_emb (what Gemma4TextAttention calls), as the 1-D suite does.

Per case: layout (q head width, rotary offset, rotary width, k head width, style found by
rotating basis vectors: neox, gptj or deinterleave; rope_angles for proportional),
inv_freq_hf (bits), inv_freq_crpow (the same with a correctly rounded float32 pow),
attention_scaling, its exact value, inv_freq_exact (200-bit mpmath of HF's formula),
softmax_scale (the module's Python float, MLA only), and at each position
hf_q_out / hf_k_out (HF's float32 outputs, bits) and exact_q_out / exact_k_out (the exact
rotation of the same inputs, 11 digits). q[j] = x(j), k[j] = x(j + 3) with
x(j) = ((j * 37 + 11) % 64 - 32) / 16.
Usage: python3 tools/conformance/gen_rope_mla_conformance.py [--out FILE]"""
import argparse
import json
import os
import sys
import warnings

import mpmath
import torch
import transformers
from transformers import AttentionInterface
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_rope_conformance as g  # noqa: E402
import probe_styles as ps  # noqa: E402

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
M = mpmath.mpf
POSITIONS = [0, 1, 3, 255, 4095, 32767, 131071, 1048576]


def _lf(n, lo, hi):
    return [round(lo + (hi - lo) * (i / (n - 1)) ** 2, 6) for i in range(n)]


# The RoPE-relevant part of published config.json files (values as published on the Hub
# model cards as we know them; the Hub is not reachable from the build machine; "_note"
# says where a value is not digit for digit).
CONFIGS = {
    "deepseek_v3": {"model_type": "deepseek_v3", "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
                    "num_attention_heads": 128, "num_key_value_heads": 128, "q_lora_rank": 1536, "kv_lora_rank": 512,
                    "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                    "max_position_embeddings": 163840, "rope_theta": 10000,
                    "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 1.0, "mscale_all_dim": 1.0,
                                     "original_max_position_embeddings": 4096, "type": "yarn"}},
    "deepseek_v3_no_interleave": {"model_type": "deepseek_v3", "hidden_size": 7168, "num_attention_heads": 128,
                                  "q_lora_rank": 1536, "kv_lora_rank": 512, "qk_nope_head_dim": 128,
                                  "qk_rope_head_dim": 64, "v_head_dim": 128, "max_position_embeddings": 163840,
                                  "rope_interleave": False,
                                  "rope_parameters": {"rope_theta": 10000.0, "rope_type": "yarn", "factor": 40.0,
                                                      "beta_fast": 32.0, "beta_slow": 1.0, "mscale": 1.0,
                                                      "mscale_all_dim": 1.0, "original_max_position_embeddings": 4096},
                                  "_note": "DeepSeek-V3 in transformers 5's rope_parameters layout, rope_interleave off"},
    "kimi_k2": {"model_type": "kimi_k2", "architectures": ["DeepseekV3ForCausalLM"], "hidden_size": 7168,
                "num_attention_heads": 64, "num_key_value_heads": 64, "q_lora_rank": 1536, "kv_lora_rank": 512,
                "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                "max_position_embeddings": 131072, "rope_theta": 50000.0,
                "rope_scaling": {"beta_fast": 1.0, "beta_slow": 1.0, "factor": 32.0, "mscale": 1.0, "mscale_all_dim": 1.0,
                                 "original_max_position_embeddings": 4096, "type": "yarn"},
                "_note": "Kimi-K2-Instruct (the 0905 release has factor 64 and 262144 positions); kimi_k2 is "
                         "not a transformers 5.24 model type (Kimi-K2 ships remote code); its architectures "
                         "name DeepseekV3ForCausalLM, whose config class and attention run here"},
    "deepseek_v2_lite": {"model_type": "deepseek_v2", "architectures": ["DeepseekV2ForCausalLM"], "hidden_size": 2048,
                         "num_attention_heads": 16, "num_key_value_heads": 16, "q_lora_rank": None, "kv_lora_rank": 512,
                         "qk_nope_head_dim": 128, "qk_rope_head_dim": 64, "v_head_dim": 128,
                         "max_position_embeddings": 163840, "rope_theta": 10000,
                         "rope_scaling": {"beta_fast": 32, "beta_slow": 1, "factor": 40, "mscale": 0.707,
                                          "mscale_all_dim": 0.707, "original_max_position_embeddings": 4096,
                                          "type": "yarn"}},
    "minicpm3_4b": {"model_type": "minicpm3", "hidden_size": 2560, "num_attention_heads": 40, "num_key_value_heads": 40,
                    "q_lora_rank": 768, "kv_lora_rank": 256, "qk_nope_head_dim": 64, "qk_rope_head_dim": 32,
                    "max_position_embeddings": 32768,
                    "rope_scaling": {"type": "longrope", "long_factor": _lf(16, 1.0591, 58.2),
                                     "short_factor": _lf(16, 1.0591, 58.2),
                                     "original_max_position_embeddings": 32768},
                    "_note": "MiniCPM3-4B; its 16 long/short factors reproduced in shape and range, not digit for digit"},
    "gemma4": {"model_type": "gemma4", "text_config": {
        "model_type": "gemma4_text", "hidden_size": 2304, "num_attention_heads": 8, "num_key_value_heads": 4,
        "head_dim": 256, "global_head_dim": 512, "num_hidden_layers": 30, "max_position_embeddings": 131072,
        "rope_parameters": {"sliding_attention": {"rope_type": "default", "rope_theta": 10000.0},
                            "full_attention": {"rope_type": "proportional", "partial_rotary_factor": 0.25,
                                               "rope_theta": 1000000.0}}},
        "_note": "Gemma 4's text config with transformers 5.24.0's Gemma4TextConfig defaults (the published "
                 "checkpoints' config.json could not be read here)"},
}
# Layer types only: transformers' rule for a Gemma 4 config without layer_types (every 6th
# layer full, the last always full), on a layer count where the last rule matters.
CONFIGS["gemma4_8_layers"] = {**CONFIGS["gemma4"], "text_config": {**CONFIGS["gemma4"]["text_config"],
                                                                  "num_hidden_layers": 8}}
LAYER_TYPES = ["gemma4", "gemma4_8_layers"]
MLA = {  # model type run -> (attention class, rotary class)
    "deepseek_v3": ("DeepseekV3Attention", "DeepseekV3RotaryEmbedding"),
    "deepseek_v2": ("DeepseekV2Attention", "DeepseekV2RotaryEmbedding"),
    "minicpm3": ("MiniCPM3Attention", "MiniCPM3RotaryEmbedding"),
}
# (name, layer type or None, positions: None = all)
CASES = [("deepseek_v3", None, None), ("deepseek_v3_no_interleave", None, None), ("kimi_k2", None, None),
         ("deepseek_v2_lite", None, None),
         # HF's longrope class picks its factors from the call's largest position: stay
         # within the original length, where it (and bicl, seq_len 0) take short_factor
         ("minicpm3_4b", None, [0, 1, 3, 255, 4095, 32767]),
         ("gemma4", "full_attention", None), ("gemma4", "sliding_attention", None)]


def x_elem(j):
    return ((j * 37 + 11) % 64 - 32) / 16.0


def hf_model_type(d):
    """The transformers model type whose code runs the config (kimi_k2: its architectures'
    DeepseekV3ForCausalLM)."""
    if d["model_type"] == "kimi_k2":
        assert d["architectures"] == ["DeepseekV3ForCausalLM"]
        return "deepseek_v3"
    return d["model_type"]


def clean(d):
    return {k: v for k, v in d.items() if not k.startswith("_")}


captured = {}


def capture(module, query, key, value, attention_mask, scaling=None, dropout=0.0, **kw):
    captured.update(q=query.detach().clone(), k=key.detach().clone(), scaling=scaling)
    b, h, s, _ = query.shape
    return torch.zeros(b, s, h, value.shape[-1]), None


AttentionInterface.register("bicl_capture", capture)


class Mla:
    """The model type's attention module with its projections set so that hidden state
    e_0 gives query head 0 = q and k_pe = k."""

    def __init__(self, d):
        mt = hf_model_type(d)
        self.full = CONFIG_MAPPING[mt].from_dict({**clean(d), "model_type": mt})
        small = {**clean(d), "model_type": mt, "hidden_size": 64, "num_attention_heads": 2, "num_key_value_heads": 2,
                 "q_lora_rank": None, "intermediate_size": 64, "moe_intermediate_size": 64, "num_hidden_layers": 1}
        self.small = CONFIG_MAPPING[mt].from_dict(small)
        self.small._attn_implementation = "bicl_capture"
        mods = ps.modeling_modules(mt)
        attn_name, rot_name = MLA[mt]
        attn_cls = next(getattr(m, attn_name) for m in mods if hasattr(m, attn_name))
        rot_cls = next(getattr(m, rot_name) for m in mods if hasattr(m, rot_name))
        self.attn = attn_cls(self.small, layer_idx=0).eval()
        self.rot = rot_cls(self.full)
        self.nope, self.rope = self.small.qk_nope_head_dim, self.small.qk_rope_head_dim
        self.qd = self.nope + self.rope
        self.lora = self.small.kv_lora_rank

    def run(self, q, k, positions):
        """Query head 0 and k_pe after the module's RoPE, per position; the softmax scale."""
        with torch.no_grad():
            for p in self.attn.parameters():
                p.zero_()
            self.attn.q_proj.weight[: self.qd, 0] = torch.tensor(q, dtype=torch.float32)
            self.attn.kv_a_proj_with_mqa.weight[self.lora:, 0] = torch.tensor(k, dtype=torch.float32)
            s = len(positions)
            h = torch.zeros(1, s, 64)
            h[..., 0] = 1.0
            pe = self.rot(h, torch.tensor([positions]))
            self.attn(h, position_embeddings=pe, attention_mask=None)
        qo = captured["q"][0, 0]  # [s, qd]
        ko = captured["k"][0, 0, :, self.nope:]  # k_pe after RoPE, [s, rope]
        return qo, ko, captured["scaling"]


def layout_of(fn, d, whole=False):
    """Where each input element goes, from basis vectors: (first rotated element, rotary
    width, style). whole: the rotation spans the head (proportional's zero-frequency pairs
    come out unchanged, like pass-through elements)."""
    nz = []
    for j in range(d):
        e = [0.0] * d
        e[j] = 1.0
        out = fn(e)
        nz.append(sorted(int(i) for i in torch.nonzero(out).flatten().tolist()))
    rot = [j for j in range(d) if nz[j] != [j]]
    off, r = rot[0], len(rot)
    if whole:
        off, r = 0, d
    assert whole or rot == list(range(off, off + r)), rot
    h = r // 2
    a, b = nz[off], nz[off + 1]
    if a == [off, off + 1]:
        style = "gptj"
    elif a == [off, off + h] and b == [off, off + h]:
        style = "deinterleave"
    elif a == [off, off + h] and b == [off + 1, off + 1 + h]:
        style = "neox"
    else:
        raise RuntimeError(f"unknown pairing {a} {b}")
    return off, r, style


def exact_head(x, off, r, style, inv, attn, p):
    o = [M(v) for v in x]
    h = r // 2
    for i in range(h):
        a = p * inv[i]
        c, s = mpmath.cos(a) * attn, mpmath.sin(a) * attn
        j0, j1 = (off + 2 * i, off + 2 * i + 1) if style in ("gptj", "deinterleave") else (off + i, off + i + h)
        w0, w1 = (off + i, off + i + h) if style == "deinterleave" else (j0, j1)
        o[w0] = x[j0] * c - x[j1] * s
        o[w1] = x[j1] * c + x[j0] * s
    return [mpmath.nstr(v, 11, min_fixed=1, max_fixed=0) for v in o]


def exact_inv(rp, dim, text, angles):
    if rp.get("rope_type") == "proportional":
        theta = M(rp["rope_theta"])
        f = M(rp.get("factor", 1.0))
        return [theta ** (-M(2 * i) / dim) / f if i < angles else M(0) for i in range(dim // 2)], M(1)
    return g.exact_inv(dict(rp), dim, text, None)


def mla_case(name, positions):
    d = CONFIGS[name]
    m = Mla(d)
    q = [x_elem(j) for j in range(m.qd)]
    k = [x_elem(j + 3) for j in range(m.rope)]
    off, r, style = layout_of(lambda e: m.run(e, k, [5])[0][0], m.qd)
    k_off, k_r, k_style = layout_of(lambda e: m.run(q, e, [5])[1][0], m.rope)
    assert (r, style) == (k_r, k_style) and k_off == 0
    qo, ko, scaling = m.run(q, k, positions)
    with g.CrPow():
        rot_cr = type(m.rot)(m.full)
    rp = m.full.rope_parameters
    inv_x, attn_x = g.exact_inv(dict(rp), r, m.full, None)
    return {
        "name": name, "layer_type": None, "model_type": d["model_type"], "hf_model_type": m.full.model_type,
        "rope_type": rp.get("rope_type", "default"), "style": style,
        "head_dim": m.qd, "rotary_offset": off, "rotary_dim": r, "k_head_dim": m.rope, "k_rotary_offset": k_off,
        "rope_angles": 0, "positions": positions,
        "inv_freq_hf": g.f32_bits(m.rot.inv_freq.numpy()), "inv_freq_crpow": g.f32_bits(rot_cr.inv_freq.numpy()),
        "attention_scaling": float(m.rot.attention_scaling), "attention_scaling_exact": float(attn_x),
        "inv_freq_exact": [float(v) for v in inv_x], "softmax_scale": float(scaling),
        "hf_q_out": [g.f32_bits(qo[i].numpy()) for i in range(len(positions))],
        "hf_k_out": [g.f32_bits(ko[i].numpy()) for i in range(len(positions))],
        "exact_q_out": [exact_head(q, off, r, style, inv_x, attn_x, p) for p in positions],
        "exact_k_out": [exact_head(k, 0, r, style, inv_x, attn_x, p) for p in positions],
    }


def proportional_case(name, lt, positions):
    d = CONFIGS[name]
    cfg = CONFIG_MAPPING[d["model_type"]].from_dict(clean(d))
    text = ps.text_config(cfg)
    mods = ps.modeling_modules(text.model_type)
    rot_cls = next(getattr(mm, "Gemma4TextRotaryEmbedding") for mm in mods if hasattr(mm, "Gemma4TextRotaryEmbedding"))
    apply = next(getattr(mm, "apply_rotary_pos_emb") for mm in mods if hasattr(mm, "apply_rotary_pos_emb"))
    rot = rot_cls(text)
    with g.CrPow():
        rot_cr = rot_cls(text)
    dim = text.per_layer_config[lt].head_dim

    def run(x, ps_):
        t = torch.tensor(x, dtype=torch.float32).reshape(1, 1, 1, dim).expand(1, len(ps_), 1, dim)
        cos, sin = rot(t, torch.tensor([ps_]), lt)
        return apply(t, cos, sin, unsqueeze_dim=2)[0, :, 0]

    rp = text.rope_parameters[lt]
    prop = rp["rope_type"] == "proportional"
    off, r, style = layout_of(lambda e: run(e, [5])[0], dim, whole=prop)
    inv = getattr(rot, f"{lt}_inv_freq")
    angles = int((inv != 0).sum()) if prop else 0
    inv_x, attn_x = exact_inv(rp, r, text, angles)
    x = [x_elem(j) for j in range(dim)]
    out = run(x, positions)
    return {
        "name": name, "layer_type": lt, "model_type": text.model_type, "hf_model_type": text.model_type,
        "rope_type": rp["rope_type"], "style": style, "head_dim": dim, "rotary_offset": off, "rotary_dim": r,
        "k_head_dim": dim, "k_rotary_offset": off, "rope_angles": angles, "positions": positions,
        "inv_freq_hf": g.f32_bits(inv.numpy()), "inv_freq_crpow": g.f32_bits(getattr(rot_cr, f"{lt}_inv_freq").numpy()),
        "attention_scaling": float(getattr(rot, f"{lt}_attention_scaling")), "attention_scaling_exact": float(attn_x),
        "inv_freq_exact": [float(v) for v in inv_x],
        "hf_q_out": [g.f32_bits(out[i].numpy()) for i in range(len(positions))],
        "exact_q_out": [exact_head(x, off, r, style, inv_x, attn_x, p) for p in positions],
    }


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(here, "..", "..", "tests", "data", "conformance",
                                                  "rope_mla_reference.json"))
    a = ap.parse_args()
    cases = []
    for name, lt, positions in CASES:
        positions = positions or POSITIONS
        c = proportional_case(name, lt, positions) if lt else mla_case(name, positions)
        cases.append(c)
        print(f"{name:26s} {str(lt):18s} {c['rope_type']:12s} {c['style']:12s} q {c['rotary_offset']}+{c['rotary_dim']}"
              f"/{c['head_dim']} k {c['k_head_dim']} angles {c['rope_angles']} attn {c['attention_scaling']:.6f} "
              f"softmax {c.get('softmax_scale')}", file=sys.stderr)
    layer_types = {n: ps.text_config(CONFIG_MAPPING[CONFIGS[n]["model_type"]].from_dict(clean(CONFIGS[n]))).layer_types
                   for n in LAYER_TYPES}
    doc = {"transformers": transformers.__version__, "torch": torch.__version__,
           "cpu_capability": torch.backends.cpu.get_cpu_capability(),
           "configs": CONFIGS, "cases": cases, "layer_types": layer_types}
    with open(a.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")


if __name__ == "__main__":
    main()
