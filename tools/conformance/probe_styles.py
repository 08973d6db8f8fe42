#!/usr/bin/env python3
"""probe_styles.py - the pair style and rotary width of every model type of transformers
that uses RoPE, derived by running transformers' own code.

Method (rerun it for a new transformers release; docs/rope.md, "Refreshing the tables"):
for every model_type of transformers' CONFIG_MAPPING whose package has a modeling file
with a *RotaryEmbedding class and an apply_rotary_pos_emb function (or GPT-J's
rotate_every_two), build the model type's default config (its text config for
multimodal models), run the rotary class at position 5 and feed its cos/sin to the
model's own apply_rotary_pos_emb with one basis vector per head. Output j of head k is
nonzero only where input k reaches it, so the nonzero pattern *is* the pairing:
  neox  - element i pairs with i + r/2 (rotate_half on halves)
  gptj  - element 2i pairs with 2i+1 (rotate_every_two, or rotate_half on x[..., ::2],
          or cos/sin repeat_interleave'd)
Elements that come out unchanged are pass-through: the rotary width r is the count of
elements that moved. The probe is repeated with partial_rotary_factor = 0.5 (and
rotary_pct = 0.5, rotary_dim = head_dim / 2) set in the config to find which of
those keys the model type honours.

Writes src/hf_rope_table.h (the C table the parser uses) and prints a report.
Usage: python3 tools/conformance/probe_styles.py [--out src/hf_rope_table.h]
"""
import argparse
import glob
import importlib
import inspect
import json
import os
import sys
import warnings

import torch
import transformers
from transformers import AutoConfig
from transformers.models.auto.configuration_auto import CONFIG_MAPPING_NAMES, model_type_to_module_name

warnings.filterwarnings("ignore")
transformers.logging.set_verbosity_error()
MODELS_DIR = os.path.dirname(transformers.models.__file__)
POS = 5


def modeling_modules(model_type):
    pkg = model_type_to_module_name(model_type)
    files = sorted(glob.glob(os.path.join(MODELS_DIR, pkg, "modeling_*.py")))
    mods = []
    for f in files:
        name = os.path.splitext(os.path.basename(f))[0]
        try:
            mods.append(importlib.import_module(f"transformers.models.{pkg}.{name}"))
        except Exception:
            pass
    return mods


def text_config(cfg):
    try:
        t = cfg.get_text_config(decoder=True)
        if t is not None:
            return t
    except Exception:
        pass
    return getattr(cfg, "text_config", None) or cfg


def head_dim_of(c):
    hd = getattr(c, "head_dim", None)
    if hd:
        return int(hd)
    return c.hidden_size // c.num_attention_heads


def pairing(out, d):
    """out[k, j]: output element j for input basis vector e_k. Returns (style, r)."""
    moved = [k for k in range(d) if not (out[k, k] == 1 and (out[k] != 0).sum() == 1)]
    r = len(moved)
    if r == 0 or moved != list(range(r)) or r % 2:
        return None, r
    partner = {}
    for k in moved:
        nz = [j for j in range(d) if j != k and out[k, j] != 0]
        if len(nz) != 1:
            return None, r
        partner[k] = nz[0]
    if all(partner[i] == i + r // 2 and partner[i + r // 2] == i for i in range(r // 2)):
        return "neox", r
    if all(partner[2 * i] == 2 * i + 1 and partner[2 * i + 1] == 2 * i for i in range(r // 2)):
        return "gptj", r
    return None, r


def rotary_classes(mods):
    seen = []
    for m in mods:
        for name, obj in vars(m).items():
            if inspect.isclass(obj) and name.endswith("RotaryEmbedding") and obj.__module__ == m.__name__:
                seen.append(obj)
    # text rotary classes first: a multimodal package also has vision ones
    seen.sort(key=lambda c: (("Vision" in c.__name__) or ("Audio" in c.__name__), "Text" not in c.__name__))
    return seen


def apply_fns(mods):
    fns = []
    for m in mods:
        # apply_rotary_pos_emb(q, k, cos, sin) in most models; Llama 4's
        # apply_rotary_emb(xq, xk, freqs_cis) multiplies complex pairs
        for fname in ("apply_rotary_pos_emb", "apply_rotary_emb"):
            f = getattr(m, fname, None)
            if f is not None and f not in fns:
                fns.append(f)
    return fns


def run_probe(cls, fn, c):
    d = head_dim_of(c)
    rot = cls(c)
    x = torch.zeros(1, 1, d)
    pos = torch.tensor([[POS]])
    sig = inspect.signature(rot.forward).parameters
    out = None
    if "layer_type" in sig:
        rt = getattr(rot, "rope_type", None)
        types = sorted(rt) if isinstance(rt, dict) else []
        lt = "full_attention" if "full_attention" in types else (types[0] if types else None)
        if lt is not None:
            out = rot(x, pos, layer_type=lt)
    if out is None:
        try:
            out = rot(x, pos)
        except (RuntimeError, IndexError, TypeError):
            # M-RoPE classes take [3, B, S] position ids; text-only tokens repeat the same id
            out = rot(x, pos[None].expand(3, 1, 1))
    params = list(inspect.signature(fn).parameters)
    eye = torch.eye(d, dtype=torch.float32)
    if params[:3] == ["tensor", "sin", "cos"]:  # GPT-J, CodeGen: [B, S, H, D], (sin, cos)
        # Their attention rotates q[..., :rotary_dim] and passes the rest (as it does).
        sin, cos = out
        w = 2 * sin.shape[-1]
        q = eye.reshape(1, 1, d, d)
        res = torch.cat([fn(q[..., :w], sin, cos), q[..., w:]], dim=-1)
        return res.reshape(d, d)
    if params[:3] == ["xq", "xk", "freqs_cis"]:  # Llama 4: [B, S, H, D], complex pairs
        q = eye.reshape(1, 1, d, d)
        return fn(q, q.clone(), out)[0].reshape(d, d)
    cos, sin = out
    q = eye.reshape(1, d, 1, d)  # [B, H, S, D], one basis vector per head
    try:
        res = fn(q, q.clone(), cos, sin)
    except RuntimeError:
        # Phi, StableLM, Persimmon...: the attention slices q[..., :rotary_dim] itself
        # and passes the rest through; do the same.
        w = cos.shape[-1]
        res = fn(q[..., :w], q[..., :w].clone(), cos, sin)
        res = res[0] if isinstance(res, tuple) else res
        res = torch.cat([res, q[..., w:]], dim=-1)
    res = res[0] if isinstance(res, tuple) else res
    return res.reshape(d, d)


def _has_layer(rot, lt):
    rt = getattr(rot, "rope_type", None)
    return isinstance(rt, dict) and lt in rt


def probe_config(mods, c):
    errors = []
    for fn in apply_fns(mods):
        for cls in rotary_classes(mods):
            try:
                out = run_probe(cls, fn, c)
                style, r = pairing(out.detach(), head_dim_of(c))
                if style:
                    return style, r, f"{cls.__name__} + {fn.__module__.split('.')[-1]}.apply_rotary_pos_emb"
            except Exception as e:  # wrong class for this function: try the next
                errors.append(f"{cls.__name__}: {type(e).__name__}: {str(e)[:80]}")
    return None, None, "; ".join(errors[:2]) or "no rotary class / apply_rotary_pos_emb"


def probe(model_type):
    mods = modeling_modules(model_type)
    if not rotary_classes(mods) or not apply_fns(mods):
        return None
    try:
        cfg = AutoConfig.for_model(model_type)
    except Exception as e:
        return {"error": f"config: {e}"[:120]}
    c = text_config(cfg)
    try:
        d = head_dim_of(c)
    except Exception as e:
        return {"error": f"head_dim: {e}"[:120]}
    style, r, how = probe_config(mods, c)
    if style is None:
        return {"error": how}
    res = {"style": style, "head_dim": d, "rotary_dim": r, "via": how, "honours": []}
    # rope_theta when config.json has none: the config class's default_theta (a dict
    # {"global", "local"} for the Gemma 3 family)
    dt = getattr(type(c), "default_theta", 10000.0)
    res["theta"] = float(dt["global"]) if isinstance(dt, dict) else float(dt)
    res["theta_local"] = float(dt["local"]) if isinstance(dt, dict) else 0.0
    # transformers 5 lets a top-level original_max_position_embeddings override the rope
    # dict's only where the config class has that attribute (Phi-3); elsewhere it is dropped
    res["top_original"] = hasattr(c, "original_max_position_embeddings")
    # Which partial-rotary keys does this model type read? Set each to give a width other
    # than the default one and look whether the probe sees it.
    frac = 0.25 if r != d // 4 else 0.5
    want = int(d * frac)
    for key, val in (("partial_rotary_factor", frac), ("rotary_pct", frac), ("rotary_dim", want)):
        try:
            cfg2 = AutoConfig.for_model(model_type, **({"text_config": {key: val}} if c is not cfg else {key: val}))
            c2 = text_config(cfg2)
            if getattr(c2, key, None) != val:
                setattr(c2, key, val)
            rp = getattr(c2, "rope_parameters", None)
            if key == "partial_rotary_factor" and isinstance(rp, dict) and "rope_type" in rp:
                rp[key] = val
            s2, r2, _ = probe_config(mods, c2)
            if s2 and r2 == want:
                res["honours"].append(key)
        except Exception:
            pass
    return res


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=None, help="write the C table here")
    ap.add_argument("--json", default=None, help="write the raw results here")
    ap.add_argument("--only", default=None)
    a = ap.parse_args()
    results = {}
    for mt in sorted(CONFIG_MAPPING_NAMES):
        if a.only and mt != a.only:
            continue
        try:
            r = probe(mt)
        except Exception as e:
            r = {"error": f"{type(e).__name__}: {e}"[:120]}
        if r is None:
            continue
        results[mt] = r
        print(f"{mt:32s} {r.get('style', '-'):5s} {r.get('rotary_dim', '')}/{r.get('head_dim', '')} "
              f"{','.join(r.get('honours', []))} {r.get('error', r.get('via', ''))}", file=sys.stderr)
    if a.json:
        with open(a.json, "w") as f:
            json.dump({"transformers": transformers.__version__, "models": results}, f, indent=1, sort_keys=True)
    if a.out:
        write_table(a.out, results)


def write_table(path, results):
    ok = {k: v for k, v in results.items() if "style" in v}
    with open(path, "w") as f:
        f.write("/* hf_rope_table.h - GENERATED by tools/conformance/probe_styles.py from transformers "
                f"{transformers.__version__};\n * do not edit: rerun the tool (docs/rope.md, \"Refreshing the tables\").\n"
                " * model_type -> pair style, and the partial-rotary keys its RoPE honours, found by running\n"
                " * the model type's own rotary class and apply_rotary_pos_emb on basis vectors. */\n")
        f.write(f'#define BICL_HF_TABLE_TRANSFORMERS "{transformers.__version__}"\n\n')
        f.write("/* BICL_HF_MODEL(model_type, style, honours partial_rotary_factor, rotary_pct, rotary_dim,\n"
                " *               width_known, default theta, default local theta, top-level\n"
                " *               original_max_position_embeddings read): width_known is 0 when the\n"
                " *               default config rotates a width that none of those keys explains (the model\n"
                " *               derives it from a key of its own); the thetas apply when config.json has\n"
                " *               no rope_theta (local: Gemma 3's sliding layers, 0 when the model has none). */\n")
        for mt in sorted(ok):
            v = ok[mt]
            h = v["honours"]
            known = int(v["rotary_dim"] == v["head_dim"] or bool(h))
            f.write(f'BICL_HF_MODEL("{mt}", {"BICL_ROPE_GPTJ" if v["style"] == "gptj" else "BICL_ROPE_NEOX"}, '
                    f'{int("partial_rotary_factor" in h)}, {int("rotary_pct" in h)}, {int("rotary_dim" in h)}, '
                    f'{known}, {v["theta"]!r}, {v["theta_local"]!r}, {int(v["top_original"])})\n')


if __name__ == "__main__":
    main()
