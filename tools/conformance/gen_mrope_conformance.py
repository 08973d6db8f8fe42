#!/usr/bin/env python3
"""gen_mrope_conformance.py - M-RoPE reference data computed by transformers itself.

For each published VL config below, this builds the config with transformers' own config
class (CONFIG_MAPPING[model_type].from_dict, as from_pretrained does), runs the model
type's own text rotary class, apply_rotary_pos_emb and get_rope_index, and writes
tests/data/conformance/rope_mrope_reference.json (only that file) with, per config:
  config         the config.json (the keys transformers reads for RoPE and get_rope_index)
  config_v5      the same config as transformers 5 saves it (to_json_string: the
                 rope_parameters layout)
  style          "neox" or "gptj": the pairs apply_rotary_pos_emb rotates (basis vectors)
  rotary_dim     the rotated width
  rows[i]        the position row (0 t, 1 h, 2 w) whose position rotates pair i, found by
                 rotating at positions with one nonzero row
  inv_freq_hf    the rotary class's float32 inv_freq, as bits (hex)
  probes         per (t, h, w): the class's float32 cos and sin per pair, as bits
  layouts        token layouts (mm_token_type_ids, attention_mask, grids, second_per_grid)
                 with get_rope_index's position_ids [3, B, S] and mrope_position_deltas,
                 and the per-row grid starts (images, videos or video frames before the
                 row) that bicl_mrope_positions takes.
Usage: python3 tools/conformance/gen_mrope_conformance.py [--out FILE]
Needs torch and transformers (CPU); the C test (tests/test_mrope.c) needs neither."""
import argparse
import importlib
import json
import os
import types
import warnings

import numpy as np
import torch
import transformers
from transformers.models.auto.configuration_auto import CONFIG_MAPPING

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()

# Published config.json files (the RoPE and get_rope_index keys, as on the Hub).
CONFIGS = {
    "qwen2_vl_7b": {
        "model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "num_key_value_heads": 4, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "vision_config": {"spatial_merge_size": 2, "temporal_patch_size": 2}},
    "qwen2_5_vl_7b": {
        "model_type": "qwen2_5_vl", "hidden_size": 3584, "num_attention_heads": 28,
        "num_key_value_heads": 4, "max_position_embeddings": 128000, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "vision_config": {"spatial_merge_size": 2, "temporal_patch_size": 2,
                          "tokens_per_second": 2}},
    "qwen2_5_vl_3b": {
        "model_type": "qwen2_5_vl", "hidden_size": 2048, "num_attention_heads": 16,
        "num_key_value_heads": 2, "max_position_embeddings": 128000, "rope_theta": 1000000.0,
        "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]},
        "vision_config": {"spatial_merge_size": 2, "temporal_patch_size": 2,
                          "tokens_per_second": 2}},
    "qwen3_vl_8b": {
        "model_type": "qwen3_vl",
        "text_config": {"model_type": "qwen3_vl_text", "hidden_size": 4096,
                        "num_attention_heads": 32, "num_key_value_heads": 8, "head_dim": 128,
                        "max_position_embeddings": 262144, "rope_theta": 5000000,
                        "rope_scaling": {"mrope_interleaved": True,
                                         "mrope_section": [24, 20, 20], "rope_type": "default"}},
        "vision_config": {"spatial_merge_size": 2, "temporal_patch_size": 2}},
    "qwen3_vl_30b_a3b": {
        "model_type": "qwen3_vl_moe",
        "text_config": {"model_type": "qwen3_vl_moe_text", "hidden_size": 2048,
                        "num_attention_heads": 32, "num_key_value_heads": 4, "head_dim": 128,
                        "max_position_embeddings": 262144, "rope_theta": 5000000,
                        "rope_scaling": {"mrope_interleaved": True,
                                         "mrope_section": [24, 20, 20], "rope_type": "default"}},
        "vision_config": {"spatial_merge_size": 2, "temporal_patch_size": 2}},
    "glm4_1v_9b": {
        "model_type": "glm4v",
        "text_config": {"model_type": "glm4v_text", "hidden_size": 4096,
                        "num_attention_heads": 32, "num_key_value_heads": 2,
                        "max_position_embeddings": 65536, "partial_rotary_factor": 0.5,
                        "rope_theta": 10000,
                        "rope_scaling": {"type": "default", "mrope_section": [8, 12, 12]}},
        "vision_config": {"spatial_merge_size": 2, "temporal_patch_size": 2}},
}

MODULES = {  # model type -> (modeling module, text rotary class, model class)
    "qwen2_vl": ("qwen2_vl", "Qwen2VLRotaryEmbedding", "Qwen2VLModel"),
    "qwen2_5_vl": ("qwen2_5_vl", "Qwen2_5_VLRotaryEmbedding", "Qwen2_5_VLModel"),
    "qwen3_vl": ("qwen3_vl", "Qwen3VLTextRotaryEmbedding", "Qwen3VLModel"),
    "qwen3_vl_moe": ("qwen3_vl_moe", "Qwen3VLMoeTextRotaryEmbedding", "Qwen3VLMoeModel"),
    "glm4v": ("glm4v", "Glm4vTextRotaryEmbedding", "Glm4vModel"),
}
PROBE_P = 1000
PROBES = [[0, 0, 0], [5, 5, 5], [3, 17, 40], [1000, 2, 999], [70000, 123, 4567]]


def f32_bits(a):
    return [f"{int(v):08x}" for v in np.asarray(a, dtype=np.float32).reshape(-1).view(np.uint32)]


def load(name):
    raw = CONFIGS[name]
    mt = raw["model_type"]
    cfg = CONFIG_MAPPING[mt].from_dict(json.loads(json.dumps(raw)))
    mod = importlib.import_module(f"transformers.models.{MODULES[mt][0]}.modeling_{MODULES[mt][0]}")
    text = getattr(cfg, "text_config", None) or cfg
    rot = getattr(mod, MODULES[mt][1])(config=text)
    return cfg, text, mod, rot, getattr(mod, MODULES[mt][2])


def cos_sin(rot, pos3):
    """cos, sin [tokens, rotary_dim] (float32) at positions [3, tokens]."""
    x = torch.zeros(1, dtype=torch.float32)
    p = torch.tensor(pos3, dtype=torch.long).view(3, 1, -1)
    c, s = rot(x, p)
    return c[0], s[0]


def pair_layout(mod, rot, head_dim):
    """(style, rotary_dim): which elements apply_rotary_pos_emb mixes, from basis vectors."""
    c, s = cos_sin(rot, [[PROBE_P]] * 3)
    rd = c.shape[-1]
    partner = []
    for e in range(rd):
        q = torch.zeros(1, 1, 1, head_dim)
        q[..., e] = 1.0
        qc, sc = c.view(1, 1, 1, rd), s.view(1, 1, 1, rd)
        out, _ = mod.apply_rotary_pos_emb(q, q.clone(), qc.squeeze(1), sc.squeeze(1))
        nz = [j for j in range(head_dim) if j != e and out[0, 0, 0, j] != 0]
        partner.append(nz)
    half = rd // 2
    if all(partner[i] == [i + half] and partner[i + half] == [i] for i in range(half)):
        return "neox", rd
    if all(partner[2 * i] == [2 * i + 1] and partner[2 * i + 1] == [2 * i] for i in range(half)):
        return "gptj", rd
    raise SystemExit(f"unknown pair layout: {partner[:8]}")


def pair_rows(rot, style, rd):
    """Row of each pair: the probe row whose position gives the pair a nonzero sine."""
    probes = [[PROBE_P, 0, 0], [0, PROBE_P, 0], [0, 0, PROBE_P]]
    _, s = cos_sin(rot, [list(r) for r in zip(*probes)])
    rows = []
    for i in range(rd // 2):
        e = 2 * i if style == "gptj" else i
        hit = [r for r in range(3) if s[r, e] != 0]
        if len(hit) != 1:
            raise SystemExit(f"pair {i}: rows {hit}")
        rows.append(hit[0])
    return rows


def rope_index(cfg, model_cls, layout):
    """get_rope_index of the model class on a layout (no weights: a stand-in self)."""
    me = types.SimpleNamespace(config=cfg)
    me.get_vision_position_ids = types.MethodType(model_cls.get_vision_position_ids, me)
    t = torch.tensor(layout["types"], dtype=torch.int32)
    kw = dict(input_ids=torch.zeros_like(t, dtype=torch.long), mm_token_type_ids=t,
              attention_mask=torch.tensor(layout["mask"], dtype=torch.long))
    if layout["image_grid"]:
        kw["image_grid_thw"] = torch.tensor(layout["image_grid"], dtype=torch.long)
    if layout["video_grid"]:
        kw["video_grid_thw"] = torch.tensor(layout["video_grid"], dtype=torch.long)
    if layout.get("second_per_grid") is not None:
        kw["second_per_grid_ts"] = torch.tensor(layout["second_per_grid"], dtype=torch.float32)
    pos, deltas = model_cls.get_rope_index(me, **kw)
    return pos.tolist(), deltas.view(-1).tolist()


def build_layout(rows, image_grid, video_grid, merge, split, pad_left, width,
                 second_per_grid=None):
    """Token types, mask and per-row grid starts from rows of segments: ("t", n) text,
    ("i",) the next image, ("v",) the next video (split: ("f",) the next video frame).
    Rows are padded to `width` on the left (pad_left[b]) or right."""
    types_, mask, starts = [], [], []
    ii = vi = 0
    for b, segs in enumerate(rows):
        starts.append([ii, vi])
        toks = []
        for seg in segs:
            if seg[0] == "t":
                toks += [0] * seg[1]
            elif seg[0] == "i":
                t, h, w = image_grid[ii]
                toks += [1] * (t * (h // merge) * (w // merge))
                ii += 1
            else:  # "v": a whole video; "f": one frame of the split videos
                vid, frame = (vi, None) if not split else frame_of(video_grid, vi)
                t, h, w = video_grid[vid]
                toks += [2] * ((1 if split else t) * (h // merge) * (w // merge))
                vi += 1
        pad = width - len(toks)
        assert pad >= 0, (width, len(toks))
        m = [1] * len(toks)
        if pad_left[b]:
            toks, m = [0] * pad + toks, [0] * pad + m
        else:
            toks, m = toks + [0] * pad, m + [0] * pad
        types_.append(toks)
        mask.append(m)
    return {"types": types_, "mask": mask, "image_grid": image_grid, "video_grid": video_grid,
            "second_per_grid": second_per_grid, "grid_start": starts}


def frame_of(video_grid, k):
    for j, (t, _, _) in enumerate(video_grid):
        if k < t:
            return j, k
        k -= t
    raise SystemExit("frame index beyond the videos")


def layouts_for(mt, merge):
    split = mt in ("qwen3_vl", "qwen3_vl_moe", "glm4v")
    img = [[1, 4, 6], [1, 6, 4], [1, 2, 2]]
    out = []
    if not split:
        vid = [[2, 4, 4], [4, 2, 6]]
        rows = [[("t", 3), ("i",), ("t", 4), ("v",), ("t", 2)],
                [("i",), ("t", 5), ("i",), ("t", 1), ("v",)]]
        out.append(("padded_left_right", build_layout(rows, img, vid, merge, False,
                                                      [True, False], 40)))
        spg = [0.5, 1.3333333] if mt == "qwen2_5_vl" else None
        out.append(("video_last", build_layout([[("t", 2), ("v",), ("t", 1), ("v",)]],
                                                   [], vid, merge, False, [False], 24, spg)))
    else:
        vid = [[3, 4, 4], [2, 2, 6]]
        rows = [[("t", 3), ("i",), ("t", 4), ("t", 1), ("f",), ("t", 1), ("f",), ("t", 1),
                 ("f",), ("t", 2)],
                [("i",), ("t", 5), ("i",), ("t", 1), ("f",), ("t", 1), ("f",)]]
        out.append(("padded_left_right", build_layout(rows, img, vid, merge, True,
                                                      [True, False], 40)))
        out.append(("video_last", build_layout([[("t", 2), ("f",), ("t", 1), ("f",), ("t", 1),
                                                  ("f",)]], [], vid[:1], merge, True,
                                                [False], 20)))
    return out


def one_config(name):
    cfg, text, mod, rot, model_cls = load(name)
    head_dim = getattr(text, "head_dim", None) or text.hidden_size // text.num_attention_heads
    style, rd = pair_layout(mod, rot, head_dim)
    rows = pair_rows(rot, style, rd)
    probes = []
    for p in PROBES:
        c, s = cos_sin(rot, [[p[0]], [p[1]], [p[2]]])
        idx = [2 * i if style == "gptj" else i for i in range(rd // 2)]
        probes.append({"pos": p, "cos": f32_bits(c[0, idx]), "sin": f32_bits(s[0, idx])})
    merge = cfg.vision_config.spatial_merge_size
    lays = []
    for lname, lay in layouts_for(cfg.model_type, merge):
        pos, deltas = rope_index(cfg, model_cls, lay)
        lays.append(dict(name=lname, **lay, positions=pos, deltas=deltas))
    # the same config as transformers 5 writes it (save_pretrained): rope_parameters
    v5 = json.loads(cfg.to_json_string(use_diff=False))
    return {"config": CONFIGS[name], "config_v5": v5, "head_dim": head_dim, "style": style, "rotary_dim": rd,
            "rows": rows, "inv_freq_hf": f32_bits(rot.inv_freq), "probes": probes,
            "layouts": lays}


def main():
    ap = argparse.ArgumentParser()
    here = os.path.dirname(os.path.abspath(__file__))
    ap.add_argument("--out", default=os.path.join(
        here, "..", "..", "tests", "data", "conformance", "rope_mrope_reference.json"))
    args = ap.parse_args()
    doc = {"transformers": transformers.__version__, "torch": torch.__version__,
           "configs": {n: one_config(n) for n in CONFIGS}}
    with open(args.out, "w") as f:
        json.dump(doc, f, separators=(",", ":"))
        f.write("\n")
    print(f"wrote {args.out}: {len(CONFIGS)} configs")


if __name__ == "__main__":
    main()
