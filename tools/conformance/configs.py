"""The model configs of the RoPE conformance suite (tools/conformance/gen_rope_conformance.py).

Each entry is the RoPE-relevant part of a published config.json (model_type, sizes,
rope_theta, rope_scaling / rope_parameters, partial-rotary keys, layer types), written
from the values published on the Hugging Face Hub model cards / config.json files as we
know them (the Hub cannot be reached from the build machine). Keys that do not affect RoPE
are left out. Where a value could not be recalled exactly the entry says so in "_note"
(e.g. the long/short factor arrays of Phi-3, which are reproduced in shape and range, not
digit for digit); such an entry still checks bicl against transformers on that config.
Cases: (name, config, layer_type or None, seq_len or None)."""


def _lf(n, lo, hi):
    # smooth monotone factor arrays in [lo, hi], n entries, for longrope shapes
    return [round(lo + (hi - lo) * (i / (n - 1)) ** 2, 6) for i in range(n)]


CONFIGS = {
    "llama2_7b": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_theta": 10000.0},
    "codellama_7b": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 16384, "rope_theta": 1000000.0},
    "llama3_8b": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 8192, "rope_theta": 500000.0},
    "llama3_1_8b": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072, "rope_theta": 500000.0,
                    "rope_scaling": {"factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
    "llama3_2_1b": {"model_type": "llama", "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 64, "max_position_embeddings": 131072, "rope_theta": 500000.0,
                    "rope_scaling": {"factor": 32.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
    "llama4_scout": {"model_type": "llama4", "text_config": {"model_type": "llama4_text", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128,
                     "max_position_embeddings": 10485760, "rope_theta": 500000.0,
                     "rope_scaling": {"factor": 16.0, "high_freq_factor": 1.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}}},
    "mistral_7b_v0_1": {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 32768, "rope_theta": 10000.0},
    "mistral_nemo": {"model_type": "mistral", "hidden_size": 5120, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 1024000, "rope_theta": 1000000.0},
    "mixtral_8x7b": {"model_type": "mixtral", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 32768, "rope_theta": 1000000.0},
    "qwen2_7b": {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0},
    "qwen2_5_7b_yarn": {"model_type": "qwen2", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
                        "rope_scaling": {"factor": 4.0, "original_max_position_embeddings": 32768, "type": "yarn"},
                        "_note": "Qwen2.5-7B-Instruct with the YaRN block its model card gives for long context"},
    "qwen2_moe": {"model_type": "qwen2_moe", "hidden_size": 2048, "num_attention_heads": 16, "max_position_embeddings": 8192, "rope_theta": 1000000.0},
    "qwen2_vl_7b": {"model_type": "qwen2_vl", "hidden_size": 3584, "num_attention_heads": 28, "max_position_embeddings": 32768, "rope_theta": 1000000.0,
                    "rope_scaling": {"type": "mrope", "mrope_section": [16, 24, 24]}},
    "qwen3_8b": {"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 40960, "rope_theta": 1000000.0},
    "qwen3_30b_a3b": {"model_type": "qwen3_moe", "hidden_size": 2048, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 40960, "rope_theta": 1000000.0},
    "qwen3_next_80b": {"model_type": "qwen3_next", "hidden_size": 2048, "num_attention_heads": 16, "head_dim": 256, "max_position_embeddings": 262144,
                       "rope_theta": 10000000.0, "partial_rotary_factor": 0.25},
    "gemma_7b": {"model_type": "gemma", "hidden_size": 3072, "num_attention_heads": 16, "head_dim": 256, "max_position_embeddings": 8192, "rope_theta": 10000.0},
    "gemma2_9b": {"model_type": "gemma2", "hidden_size": 3584, "num_attention_heads": 16, "head_dim": 256, "num_hidden_layers": 42, "max_position_embeddings": 8192, "rope_theta": 10000.0},
    "gemma3_27b": {"model_type": "gemma3", "text_config": {"model_type": "gemma3_text", "hidden_size": 5376, "num_attention_heads": 32, "head_dim": 128,
                   "num_hidden_layers": 62, "max_position_embeddings": 131072, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0,
                   "sliding_window_pattern": 6, "rope_scaling": {"factor": 8.0, "rope_type": "linear"}}},
    "gemma3_1b": {"model_type": "gemma3_text", "hidden_size": 1152, "num_attention_heads": 4, "head_dim": 256, "num_hidden_layers": 26,
                  "max_position_embeddings": 32768, "rope_theta": 1000000.0, "rope_local_base_freq": 10000.0, "sliding_window_pattern": 6},
    "phi_2": {"model_type": "phi", "hidden_size": 2560, "num_attention_heads": 32, "max_position_embeddings": 2048, "rope_theta": 10000.0, "partial_rotary_factor": 0.4},
    "phi3_mini_4k": {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 4096, "original_max_position_embeddings": 4096, "rope_theta": 10000.0},
    "phi3_mini_128k": {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                       "rope_theta": 10000.0, "rope_scaling": {"type": "longrope", "long_factor": _lf(48, 1.0, 60.0), "short_factor": _lf(48, 1.0, 3.0)},
                       "_note": "long/short factors: 48 values of Phi-3's range and shape, not its published digits"},
    "phi3_5_mini_su": {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                       "rope_theta": 10000.0, "rope_scaling": {"type": "su", "long_factor": _lf(48, 1.05, 50.0), "short_factor": _lf(48, 1.0, 2.5),
                                                                    "original_max_position_embeddings": 4096},
                       "_note": "the older 'su' spelling (transformers 5 needs original_max_position_embeddings inside rope_scaling for it); factors of Phi-3.5's range, not its published digits"},
    "phi4_mini": {"model_type": "phi3", "hidden_size": 3072, "num_attention_heads": 24, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
                  "partial_rotary_factor": 0.75, "rope_theta": 10000.0,
                  "rope_scaling": {"type": "longrope", "long_factor": _lf(48, 1.0, 40.0), "short_factor": _lf(48, 1.0, 1.0)},
                  "_note": "partial rotary 0.75 of head 128 = 96 = 48 pairs; factors of Phi-4-mini's range, not its published digits"},
    "phimoe": {"model_type": "phimoe", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
               "rope_theta": 10000.0, "rope_scaling": {"type": "longrope", "long_factor": _lf(64, 1.0, 64.0), "short_factor": _lf(64, 1.0, 1.2),
                                                       "long_mscale": 1.243163121016122, "short_mscale": 1.243163121016122},
               "_note": "Phi-3.5-MoE shape; factor digits not the published ones"},
    "phi4": {"model_type": "phi3", "hidden_size": 5120, "num_attention_heads": 40, "max_position_embeddings": 16384, "rope_theta": 250000.0},
    "stablelm_3b": {"model_type": "stablelm", "hidden_size": 2560, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 0.25},
    "persimmon_8b": {"model_type": "persimmon", "hidden_size": 4096, "num_attention_heads": 64, "max_position_embeddings": 16384, "rope_theta": 25000.0, "partial_rotary_factor": 0.5},
    "gpt_neox_20b": {"model_type": "gpt_neox", "hidden_size": 6144, "num_attention_heads": 64, "max_position_embeddings": 2048, "rotary_emb_base": 10000, "rotary_pct": 0.25},
    "pythia_1b_linear": {"model_type": "gpt_neox", "hidden_size": 2048, "num_attention_heads": 8, "max_position_embeddings": 2048, "rotary_emb_base": 10000, "rotary_pct": 0.25,
                         "rope_scaling": {"type": "linear", "factor": 2.0}, "_note": "Pythia-1B with a linear scaling block added"},
    "gptj_6b": {"model_type": "gptj", "n_embd": 4096, "n_head": 16, "n_positions": 2048, "rotary_dim": 64},
    "codegen_2b": {"model_type": "codegen", "n_embd": 2560, "n_head": 32, "n_positions": 2048, "rotary_dim": 64},
    "command_r": {"model_type": "cohere", "hidden_size": 8192, "num_attention_heads": 64, "max_position_embeddings": 131072, "rope_theta": 8000000.0},
    "command_r7b": {"model_type": "cohere2", "hidden_size": 4096, "num_attention_heads": 32, "num_hidden_layers": 32, "max_position_embeddings": 8192, "rope_theta": 50000.0},
    "glm4_9b": {"model_type": "glm", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
    "glm4_0414_9b": {"model_type": "glm4", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 32768, "rope_theta": 10000.0, "partial_rotary_factor": 0.5},
    "glm4_5_air": {"model_type": "glm4_moe", "hidden_size": 4096, "num_attention_heads": 96, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 1000000.0, "partial_rotary_factor": 0.5},
    "ernie4_5_0_3b": {"model_type": "ernie4_5", "hidden_size": 1024, "num_attention_heads": 16, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 500000.0},
    "ernie4_5_21b_a3b": {"model_type": "ernie4_5_moe", "hidden_size": 2560, "num_attention_heads": 20, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 500000.0},
    "helium_2b": {"model_type": "helium", "hidden_size": 2560, "num_attention_heads": 20, "head_dim": 128, "max_position_embeddings": 4096, "rope_theta": 100000.0},
    "olmo2_7b": {"model_type": "olmo2", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_theta": 500000},
    "olmoe": {"model_type": "olmoe", "hidden_size": 2048, "num_attention_heads": 16, "max_position_embeddings": 4096, "rope_theta": 10000.0},
    "granite_3_8b": {"model_type": "granite", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 131072, "rope_theta": 10000000.0},
    "starcoder2_7b": {"model_type": "starcoder2", "hidden_size": 4608, "num_attention_heads": 36, "max_position_embeddings": 16384, "rope_theta": 1000000},
    "falcon_7b": {"model_type": "falcon", "hidden_size": 4544, "num_attention_heads": 71, "max_position_embeddings": 2048, "rope_theta": 10000.0, "alibi": False},
    "nemotron_4b": {"model_type": "nemotron", "hidden_size": 3072, "num_attention_heads": 24, "head_dim": 128, "max_position_embeddings": 4096, "rope_theta": 10000, "partial_rotary_factor": 0.5},
    "exaone4_32b": {"model_type": "exaone4", "hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
                    "rope_scaling": {"factor": 16.0, "high_freq_factor": 4.0, "low_freq_factor": 1.0, "original_max_position_embeddings": 8192, "rope_type": "llama3"}},
    "smollm3_3b": {"model_type": "smollm3", "hidden_size": 2048, "num_attention_heads": 16, "max_position_embeddings": 65536, "rope_theta": 5000000.0},
    "gpt_oss_20b": {"model_type": "gpt_oss", "hidden_size": 2880, "num_attention_heads": 64, "head_dim": 64, "max_position_embeddings": 131072, "rope_theta": 150000,
                    "rope_scaling": {"beta_fast": 32.0, "beta_slow": 1.0, "factor": 32.0, "original_max_position_embeddings": 4096, "rope_type": "yarn", "truncate": False}},
    "seed_oss_36b": {"model_type": "seed_oss", "hidden_size": 5120, "num_attention_heads": 80, "head_dim": 128, "max_position_embeddings": 524288, "rope_theta": 10000000.0},
    "minicpm3_yarn_like": {"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 131072, "rope_theta": 1000000.0,
                           "rope_scaling": {"rope_type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768},
                           "_note": "Qwen3-8B with the YaRN block of its model card"},
    "yarn_mscale": {"model_type": "mistral", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 65536, "rope_theta": 10000.0,
                    "rope_scaling": {"rope_type": "yarn", "factor": 16.0, "original_max_position_embeddings": 4096, "mscale": 0.707, "mscale_all_dim": 1.0, "beta_fast": 32, "beta_slow": 1},
                    "_note": "synthetic: YaRN with mscale/mscale_all_dim (DeepSeek's keys) on a plain attention model"},
    "dynamic_ntk": {"model_type": "llama", "hidden_size": 4096, "num_attention_heads": 32, "max_position_embeddings": 4096, "rope_theta": 10000.0,
                    "rope_scaling": {"type": "dynamic", "factor": 2.0}, "_note": "synthetic: Llama-2 with dynamic NTK (no published model ships it)"},
    "qwen3_v5_form": {"model_type": "qwen3", "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "max_position_embeddings": 40960,
                      "rope_parameters": {"rope_theta": 1000000.0, "rope_type": "default"}, "_note": "Qwen3-8B in transformers 5's rope_parameters form"},
    "gemma3_v5_form": {"model_type": "gemma3_text", "hidden_size": 1152, "num_attention_heads": 4, "head_dim": 256, "num_hidden_layers": 26,
                       "max_position_embeddings": 32768,
                       "layer_types": (["sliding_attention"] * 5 + ["full_attention"]) * 4 + ["sliding_attention"] * 2,
                       "rope_parameters": {"full_attention": {"rope_type": "default", "rope_theta": 1000000.0},
                                           "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}},
                       "_note": "Gemma-3-1B in transformers 5's per-layer-type form "},
}

CASES = []
for _name in CONFIGS:
    _c = CONFIGS[_name]
    _text = _c.get("text_config", _c)
    if _text["model_type"] in ("gemma3", "gemma3_text"):
        CASES.append((_name, "full_attention", None))
        CASES.append((_name, "sliding_attention", None))
    elif _name == "dynamic_ntk":
        CASES.append((_name, None, None))
        CASES.append((_name, None, 16384))
    elif "long_factor" in str(_c):
        CASES.append((_name, None, None))
        CASES.append((_name, None, 131072))
    else:
        CASES.append((_name, None, None))
