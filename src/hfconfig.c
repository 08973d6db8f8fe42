/* hfconfig.c - a bicl_rope_config from a model's Hugging Face config.json.
 *
 * The JSON is parsed by cJSON; this file only maps HF's keys onto bicl's fields and
 * refuses anything it cannot map exactly (docs/api.md, "RoPE from a config.json",
 * has the rules). Every failure names the HF key in bicl_last_error(). */
#include "abi.h"
#include "rope.h"
#include "status.h"

#include <cjson/cJSON.h>

#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* cJSON records a parse failure in a process-wide variable: parse under a lock so
 * that two threads reading configs never race on it. The same lock guards the list of
 * arrays this file allocated (bicl_rope_config_release frees only those). */
static pthread_mutex_t hf_lock = PTHREAD_MUTEX_INITIALIZER;
static const double **hf_owned;
static size_t hf_owned_n, hf_owned_cap;

static bool owned_add(const double *p)
{
    pthread_mutex_lock(&hf_lock);
    bool ok = true;
    if (hf_owned_n == hf_owned_cap) {
        size_t cap = hf_owned_cap ? 2 * hf_owned_cap : 16;
        const double **grown = realloc(hf_owned, cap * sizeof *grown);
        if (grown) {
            hf_owned = grown;
            hf_owned_cap = cap;
        } else {
            ok = false;
        }
    }
    if (ok)
        hf_owned[hf_owned_n++] = p;
    pthread_mutex_unlock(&hf_lock);
    return ok;
}

/* Frees p if this file allocated it; pointers an engine set itself are left alone. */
static void owned_free(const double *p)
{
    if (!p)
        return;
    bool found = false;
    pthread_mutex_lock(&hf_lock);
    for (size_t i = 0; i < hf_owned_n; ++i)
        if (hf_owned[i] == p) {
            hf_owned[i] = hf_owned[--hf_owned_n];
            found = true;
            break;
        }
    pthread_mutex_unlock(&hf_lock);
    if (found)
        free((void *)p);
}

void bicl_rope_config_release(bicl_rope_config *cfg)
{
    if (!cfg)
        return;
    owned_free(cfg->long_factor);
    owned_free(cfg->short_factor);
    cfg->long_factor = NULL;
    cfg->short_factor = NULL;
}

/* ------------------------------------------------------------ field access */

/* Where a key is looked up, and its name in error messages ("rope_scaling."). */
typedef struct hf_obj {
    const cJSON *json;
    const char *prefix;
} hf_obj;

/* The item for key, or NULL when it is absent or null: HF writes Python's None as
 * null, and for every key read here None means "not set". */
static const cJSON *item(hf_obj o, const char *key)
{
    if (!o.json)
        return NULL;
    const cJSON *it = cJSON_GetObjectItemCaseSensitive(o.json, key);
    return cJSON_IsNull(it) ? NULL : it;
}

static bicl_status bad(hf_obj o, const char *key, const char *why)
{
    return bicl_fail(BICL_ERR_INVALID_CONFIG, "config.json: %s%s %s", o.prefix, key, why);
}

/* A finite number; *found says whether the key was there (out untouched if not). */
static bicl_status get_number(hf_obj o, const char *key, double *out, bool *found)
{
    const cJSON *it = item(o, key);
    *found = it != NULL;
    if (!it)
        return BICL_SUCCESS;
    if (!cJSON_IsNumber(it))
        return bad(o, key, "must be a number");
    if (!isfinite(it->valuedouble))
        return bad(o, key, "must be finite");
    *out = it->valuedouble;
    return BICL_SUCCESS;
}

/* A number > 0 (or >= 0 when zero_ok), when present. */
static bicl_status get_positive(hf_obj o, const char *key, bool zero_ok, double *out, bool *found)
{
    double v = 0.0;
    bicl_status st = get_number(o, key, &v, found);
    if (st != BICL_SUCCESS || !*found)
        return st;
    if (!(v > 0.0 || (zero_ok && v == 0.0)))
        return bad(o, key, zero_ok ? "must be >= 0" : "must be > 0");
    *out = v;
    return BICL_SUCCESS;
}

/* A whole number in [lo, INT_MAX], when present. */
static bicl_status get_int(hf_obj o, const char *key, int lo, int *out, bool *found)
{
    double v = 0.0;
    bicl_status st = get_number(o, key, &v, found);
    if (st != BICL_SUCCESS || !*found)
        return st;
    if (v != floor(v) || v < (double)lo || v > (double)INT_MAX)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %s%s must be a whole number in [%d, %d]", o.prefix, key, lo,
                         INT_MAX);
    *out = (int)v;
    return BICL_SUCCESS;
}

/* Like get_positive, but the key must be there. */
static bicl_status need_positive(hf_obj o, const char *key, double *out)
{
    bool found = false;
    bicl_status st = get_positive(o, key, false, out, &found);
    if (st == BICL_SUCCESS && !found)
        return bad(o, key, "is required by this rope_type");
    return st;
}

/* ------------------------------------------------------------- the model */

/* First of several keys (HF's attribute aliases, e.g. n_embd for hidden_size). */
static bicl_status get_int_alias(hf_obj o, const char *k1, const char *k2, int *out, bool *found)
{
    bicl_status st = get_int(o, k1, 1, out, found);
    if (st == BICL_SUCCESS && !*found && k2)
        st = get_int(o, k2, 1, out, found);
    return st;
}

/* head_dim, else hidden_size / num_attention_heads (HF's fallback). */
static bicl_status read_head_dim(hf_obj m, int *head_dim)
{
    bool found = false;
    bicl_status st = get_int(m, "head_dim", 1, head_dim, &found);
    if (st != BICL_SUCCESS || found)
        return st;
    int hidden = 0, heads = 0;
    bool has_hidden = false, has_heads = false;
    st = get_int_alias(m, "hidden_size", "n_embd", &hidden, &has_hidden);
    if (st == BICL_SUCCESS)
        st = get_int_alias(m, "num_attention_heads", "n_head", &heads, &has_heads);
    if (st != BICL_SUCCESS)
        return st;
    if (!has_hidden || !has_heads)
        return bad(m, "head_dim", "is absent, and so is hidden_size or num_attention_heads");
    /* HF floors here; a remainder means the config is not what the weights assume. */
    if (hidden % heads != 0)
        return bad(m, "hidden_size", "is not a multiple of num_attention_heads");
    *head_dim = hidden / heads;
    return BICL_SUCCESS;
}

/* What transformers' code for one model type does with a config: the pair style its
 * apply_rotary_pos_emb rotates, which partial-rotary keys its rotary class reads, and its
 * default rope_theta. Generated from transformers itself (src/hf_rope_table.h,
 * tools/conformance/probe_styles.py); an engine's explicit style uses `generic`. */
typedef struct hf_model_info {
    const char *model_type;
    bicl_rope_style style;
    bool partial, pct, rdim; /* partial_rotary_factor, rotary_pct, rotary_dim are read */
    bool width_known;        /* false: the width comes from a key of the model's own */
    double theta, theta_local;
    bool top_original; /* a top-level original_max_position_embeddings is read (Phi-3) */
} hf_model_info;

static const hf_model_info hf_models[] = {
#define BICL_HF_MODEL(mt, st, a, b, c, k, t, tl, top) {mt, st, a, b, c, k, t, tl, top},
#include "hf_rope_table.h"
#undef BICL_HF_MODEL
};

/* ---- MLA and Gemma 4 (issue 19) ---- */

/* Model types whose rotary class probe_styles.py cannot run (Gemma 4's takes a layer type
 * and gives its layer types different head widths): written by hand, and held to
 * transformers' own output by tests/data/conformance/rope_mla_reference.json. */
static const hf_model_info hf_models_extra[] = {
    {"gemma4", BICL_ROPE_NEOX, true, false, false, true, 10000.0, 0.0, false},
    {"gemma4_text", BICL_ROPE_NEOX, true, false, false, true, 10000.0, 0.0, false},
};

/* Multi-head latent attention: the model types whose attention transformers 5.24.0 runs
 * with a decoupled RoPE slice (q: qk_nope_head_dim elements, then qk_rope_head_dim
 * rotated; k_pe: one head of qk_rope_head_dim), and whether rope_interleave (default
 * true) selects apply_rotary_pos_emb_interleave. The pair style otherwise is the table's
 * (deepseek_v2's complex rotation is GPT-J's pairing). */
static const struct hf_mla {
    const char *model_type;
    bool interleave_key;
} hf_mla[] = {{"deepseek_v2", false}, {"deepseek_v3", true}, {"minicpm3", false}};

/* Model types transformers does not know, whose config.json names a transformers class
 * in architectures: Kimi-K2 ships remote code and architectures DeepseekV3ForCausalLM,
 * which is what transformers (and vLLM, SGLang) run for it. Used only when
 * architectures names that class. */
static const struct {
    const char *model_type, *architecture, *as;
} hf_arch_aliases[] = {{"kimi_k2", "DeepseekV3ForCausalLM", "deepseek_v3"}};

static const struct hf_mla *mla_info(const char *model_type)
{
    for (size_t i = 0; i < sizeof hf_mla / sizeof hf_mla[0]; ++i)
        if (strcmp(hf_mla[i].model_type, model_type) == 0)
            return &hf_mla[i];
    return NULL;
}

static bool is_gemma4(const char *model_type)
{
    return strcmp(model_type, "gemma4") == 0 || strcmp(model_type, "gemma4_text") == 0;
}

/* The alias's target when model_type is aliased and architectures names its class. */
static const char *arch_alias(hf_obj m, const char *model_type)
{
    const cJSON *arch = item(m, "architectures");
    for (size_t i = 0; model_type && i < sizeof hf_arch_aliases / sizeof hf_arch_aliases[0]; ++i) {
        if (strcmp(hf_arch_aliases[i].model_type, model_type) != 0 || !cJSON_IsArray(arch))
            continue;
        for (const cJSON *e = arch->child; e; e = e->next)
            if (cJSON_IsString(e) && strcmp(e->valuestring, hf_arch_aliases[i].architecture) == 0)
                return hf_arch_aliases[i].as;
    }
    return NULL;
}

/* ---- end of MLA and Gemma 4 tables ---- */

static const hf_model_info *model_info(const char *model_type)
{
    for (size_t i = 0; model_type && i < sizeof hf_models / sizeof hf_models[0]; ++i)
        if (strcmp(hf_models[i].model_type, model_type) == 0)
            return &hf_models[i];
    for (size_t i = 0; model_type && i < sizeof hf_models_extra / sizeof hf_models_extra[0]; ++i)
        if (strcmp(hf_models_extra[i].model_type, model_type) == 0)
            return &hf_models_extra[i];
    return NULL;
}

/* The rotary width as HF derives it: rotary_dim (GPT-J, CodeGen), else head_dim *
 * partial_rotary_factor, else head_dim * rotary_pct (GPT-NeoX), truncated as Python's
 * int() does; else head_dim. Only the keys the model type reads count; a key it does not
 * read is refused, since transformers would rotate another width than the key says.
 * *key gets the key it came from (NULL for head_dim). */
static bicl_status find_rotary_dim(hf_obj m, hf_obj rope, const hf_model_info *info, int head_dim,
                                   int *rotary_dim, hf_obj *from, const char **key)
{
    bool found = false;
    *from = m;
    *key = "rotary_dim";
    int rd = 0;
    bicl_status st = get_int(m, *key, 1, &rd, &found);
    if (st != BICL_SUCCESS)
        return st;
    if (found && !info->rdim)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %srotary_dim is not read by transformers' %s: its rotary "
                         "width would not be what the key says",
                         m.prefix, info->model_type);
    if (found) {
        *rotary_dim = rd;
        return BICL_SUCCESS;
    }
    static const char *const keys[] = {"partial_rotary_factor", "rotary_pct"};
    const bool reads[] = {info->partial, info->pct};
    for (size_t i = 0; i < 2; ++i) {
        hf_obj where[2] = {rope, m};
        for (size_t w = 0; w < 2; ++w) {
            double f = 0.0;
            *from = where[w];
            *key = keys[i];
            st = get_positive(where[w], keys[i], false, &f, &found);
            if (st != BICL_SUCCESS)
                return st;
            if (!found)
                continue;
            if (f > 1.0)
                return bad(where[w], keys[i], "must be in (0, 1]");
            /* 1.0 rotates the whole head whether the key is read or not. */
            if (!reads[i] && f != 1.0)
                return bicl_fail(BICL_ERR_INVALID_CONFIG,
                                 "config.json: %s%s is not read by transformers' %s: its rotary "
                                 "width would not be what the key says",
                                 where[w].prefix, keys[i], info->model_type);
            *rotary_dim = (int)((double)head_dim * f);
            return BICL_SUCCESS;
        }
    }
    *key = NULL;
    *rotary_dim = head_dim;
    return BICL_SUCCESS;
}

/* The rotary width, checked here so that the message names the HF key. */
static bicl_status read_rotary_dim(hf_obj m, hf_obj rope, const hf_model_info *info, int head_dim,
                                   int *rotary_dim)
{
    hf_obj from = m;
    const char *key = NULL;
    bicl_status st = find_rotary_dim(m, rope, info, head_dim, rotary_dim, &from, &key);
    if (st != BICL_SUCCESS)
        return st;
    if (*rotary_dim >= 2 && *rotary_dim % 2 == 0 && *rotary_dim <= head_dim)
        return BICL_SUCCESS;
    return bicl_fail(BICL_ERR_INVALID_CONFIG,
                     "config.json: %s%s gives rotary_dim %d (must be even, >= 2 and <= head_dim "
                     "%d)",
                     key ? from.prefix : m.prefix, key ? key : "head_dim", *rotary_dim, head_dim);
}

/* rope_theta (in rope_parameters for transformers >= 5, else top level), else
 * GPT-NeoX's rotary_emb_base, else the model type's default (config class's
 * default_theta: 10000 for most, 1e6 for Gemma 3's global layers). */
static bicl_status read_theta(hf_obj m, hf_obj rope, double fallback, double *theta)
{
    bool found = false;
    *theta = fallback;
    bicl_status st = get_positive(rope, "rope_theta", false, theta, &found);
    if (st == BICL_SUCCESS && !found)
        st = get_positive(m, "rope_theta", false, theta, &found);
    if (st == BICL_SUCCESS && !found)
        st = get_positive(m, "rotary_emb_base", false, theta, &found);
    return st;
}

/* ------------------------------------------------------------ rope_scaling */

/* What the reading of one layer type's RoPE needs besides the rope object. */
typedef struct hf_scope {
    hf_obj m;                  /* the language model: top level or text_config */
    const hf_model_info *info; /* from the table, or the engine's explicit style */
    bool nested;               /* rope_parameters per layer type: no top-level overrides */
} hf_scope;

/* rope_type names a model type's config class renames before transformers reads them:
 * Qwen2-VL's "mrope" is plain RoPE for text-only positions (every axis gets the same
 * id), Phi-3's "su" (and "yarn") are longrope. Anywhere else they stay unknown. */
static const struct {
    const char *model_type, *name;
    bicl_rope_type type;
} rope_aliases[] = {
    {"qwen2_vl", "mrope", BICL_ROPE_DEFAULT},
    {"qwen2_vl_text", "mrope", BICL_ROPE_DEFAULT},
    {"qwen2_5_vl", "mrope", BICL_ROPE_DEFAULT},
    {"qwen2_5_vl_text", "mrope", BICL_ROPE_DEFAULT},
    {"phi3", "su", BICL_ROPE_LONGROPE},
    {"phi3", "yarn", BICL_ROPE_LONGROPE},
    {"phi4_multimodal", "su", BICL_ROPE_LONGROPE},
    {"phi4_multimodal", "yarn", BICL_ROPE_LONGROPE},
};

static bicl_status rope_type(hf_obj rope, const hf_model_info *info, bicl_rope_type *type)
{
    static const struct {
        const char *name;
        bicl_rope_type type;
    } names[] = {
        {"default", BICL_ROPE_DEFAULT},
        {"linear", BICL_ROPE_LINEAR},
        {"llama3", BICL_ROPE_LLAMA3},
        {"yarn", BICL_ROPE_YARN},
        {"dynamic", BICL_ROPE_DYNAMIC_NTK},
        {"longrope", BICL_ROPE_LONGROPE},
        {"proportional", BICL_ROPE_PROPORTIONAL},
    };
    /* HF reads rope_type and falls back to the older key type; a rope_parameters dict
     * without either (transformers 5 writes rope_theta alone) is "default". */
    const char *key = item(rope, "rope_type") ? "rope_type" : "type";
    const cJSON *it = item(rope, key);
    if (!it) {
        /* transformers 5 would then silently ignore a scaling key: refuse that. */
        for (const cJSON *k = rope.json ? rope.json->child : NULL; k; k = k->next)
            if (strcmp(k->string, "rope_theta") != 0 &&
                strcmp(k->string, "partial_rotary_factor") != 0 && !cJSON_IsNull(k))
                return bad(rope, "rope_type", "is missing");
        *type = BICL_ROPE_DEFAULT;
        return BICL_SUCCESS;
    }
    if (!cJSON_IsString(it))
        return bad(rope, key, "must be a string");
    for (size_t i = 0; i < sizeof rope_aliases / sizeof rope_aliases[0]; ++i)
        if (strcmp(info->model_type, rope_aliases[i].model_type) == 0 &&
            strcmp(it->valuestring, rope_aliases[i].name) == 0) {
            *type = rope_aliases[i].type;
            return BICL_SUCCESS;
        }
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(it->valuestring, names[i].name) == 0) {
            *type = names[i].type;
            return BICL_SUCCESS;
        }
    return bicl_fail(BICL_ERR_INVALID_CONFIG,
                     "config.json: %s%s \"%.64s\" is not supported (default, linear, llama3, "
                     "yarn, dynamic, longrope, proportional; mrope for Qwen2-VL, su for Phi-3)",
                     rope.prefix, key, it->valuestring);
}

/* transformers 5's original length for llama3, yarn and longrope: a top-level
 * original_max_position_embeddings wins where the model type's config class has that
 * attribute (Phi-3; the table's top_original; never for per-layer-type rope_parameters;
 * other classes drop the key), then the rope dict's own, then max_position_embeddings. */
static bicl_status read_original_len(const hf_scope *sc, hf_obj rope, bicl_rope_config *c)
{
    bool found = false;
    bicl_status st = BICL_SUCCESS;
    const char *key = "original_max_position_embeddings";
    if (!sc->nested && sc->info->top_original)
        st = get_int(sc->m, key, 1, &c->original_max_position_embeddings, &found);
    if (st == BICL_SUCCESS && !found)
        st = get_int(rope, key, 1, &c->original_max_position_embeddings, &found);
    if (st != BICL_SUCCESS || found)
        return st;
    if (c->max_position_embeddings <= 0)
        return bad(rope, key,
                   "is required by this rope_type (and max_position_embeddings is "
                   "absent)");
    c->original_max_position_embeddings = c->max_position_embeddings;
    return BICL_SUCCESS;
}

/* llama3: factor, low/high_freq_factor required. high == low is accepted as transformers
 * does (Llama-4-Scout): every wavelength is then either kept or divided by factor. */
static bicl_status read_llama3(const hf_scope *sc, hf_obj rope, bicl_rope_config *c)
{
    bicl_status st = need_positive(rope, "factor", &c->factor);
    if (st == BICL_SUCCESS)
        st = need_positive(rope, "low_freq_factor", &c->low_freq_factor);
    if (st == BICL_SUCCESS)
        st = need_positive(rope, "high_freq_factor", &c->high_freq_factor);
    if (st == BICL_SUCCESS && !(c->high_freq_factor >= c->low_freq_factor))
        return bad(rope, "high_freq_factor", "must be >= low_freq_factor");
    if (st == BICL_SUCCESS)
        st = read_original_len(sc, rope, c);
    return st;
}

static bicl_status read_yarn(const hf_scope *sc, hf_obj rope, bicl_rope_config *c)
{
    bool found = false;
    bicl_status st = need_positive(rope, "factor", &c->factor);
    if (st == BICL_SUCCESS && c->factor < 1.0)
        return bad(rope, "factor", "must be >= 1 for yarn");
    /* 0 is "unset" for these in HF too (`or 32`, truthiness of mscale). */
    static const char *const zero_ok[] = {"beta_fast", "beta_slow", "mscale", "mscale_all_dim"};
    double *dst[] = {&c->beta_fast, &c->beta_slow, &c->mscale, &c->mscale_all_dim};
    for (size_t i = 0; st == BICL_SUCCESS && i < 4; ++i)
        st = get_positive(rope, zero_ok[i], true, dst[i], &found);
    /* An explicit 0 would scale cos/sin to zero in HF; bicl reads 0 as "derive". */
    if (st == BICL_SUCCESS)
        st = get_positive(rope, "attention_factor", false, &c->attention_factor, &found);
    if (st == BICL_SUCCESS &&
        ((sc->info->top_original && item(sc->m, "original_max_position_embeddings")) ||
         item(rope, "original_max_position_embeddings") || c->max_position_embeddings > 0))
        st = read_original_len(sc, rope, c);
    if (st != BICL_SUCCESS)
        return st;
    const cJSON *t = item(rope, "truncate");
    if (t && !cJSON_IsBool(t))
        return bad(rope, "truncate", "must be true or false");
    if (t)
        c->truncate = cJSON_IsTrue(t) ? 1 : 0;
    return BICL_SUCCESS;
}

/* long_factor / short_factor: rotary_dim / 2 numbers > 0, copied to a new array. */
static bicl_status read_factor_array(hf_obj rope, const char *key, int n, const double **out)
{
    const cJSON *arr = item(rope, key);
    if (!arr)
        return bad(rope, key, "is required by longrope");
    if (!cJSON_IsArray(arr))
        return bad(rope, key, "must be an array");
    if (cJSON_GetArraySize(arr) != n)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %s%s has %d entries (rotary_dim / 2 = %d)", rope.prefix, key,
                         cJSON_GetArraySize(arr), n);
    double *v = malloc((size_t)n * sizeof *v);
    if (!v)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "config.json: %s%s", rope.prefix, key);
    int i = 0;
    for (const cJSON *e = arr->child; e; e = e->next, ++i) {
        if (!cJSON_IsNumber(e) || !isfinite(e->valuedouble) || !(e->valuedouble > 0.0)) {
            free(v);
            return bicl_fail(BICL_ERR_INVALID_CONFIG,
                             "config.json: %s%s[%d] must be a finite number > 0", rope.prefix, key,
                             i);
        }
        /* HF holds them as float32 (torch.tensor(..., dtype=torch.float32)). */
        v[i] = (double)(float)e->valuedouble;
        if (!isfinite(v[i]) || !(v[i] > 0.0)) {
            free(v);
            return bicl_fail(BICL_ERR_INVALID_CONFIG,
                             "config.json: %s%s[%d] is not a finite number > 0 in float32",
                             rope.prefix, key, i);
        }
    }
    if (!owned_add(v)) {
        free(v);
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "config.json: %s%s", rope.prefix, key);
    }
    *out = v;
    return BICL_SUCCESS;
}

/* Phi-3.5-MoE scales cos/sin by short_mscale or long_mscale (picked by the batch's
 * length) instead of longrope's attention factor. Equal ones (as published) are one
 * attention_factor; different ones would make the scaling depend on the batch. */
static bicl_status read_phimoe_mscale(hf_obj rope, bicl_rope_config *c)
{
    double s = 0.0, l = 0.0;
    bicl_status st = need_positive(rope, "short_mscale", &s);
    if (st == BICL_SUCCESS)
        st = need_positive(rope, "long_mscale", &l);
    if (st == BICL_SUCCESS && s != l)
        return bad(rope, "long_mscale",
                   "differs from short_mscale: transformers picks one by the batch's length; set "
                   "attention_factor per sequence by hand");
    if (st == BICL_SUCCESS)
        c->attention_factor = s;
    return st;
}

/* longrope: both factor arrays required; the original length by transformers 5's
 * precedence (read_original_len); an explicit factor is used as given, else it is
 * max_position_embeddings / original (bicl: factor 0 = derive). */
static bicl_status read_longrope(const hf_scope *sc, hf_obj rope, bicl_rope_config *c)
{
    bool found = false;
    int half = c->rotary_dim / 2;
    bicl_status st = read_factor_array(rope, "long_factor", half, &c->long_factor);
    if (st == BICL_SUCCESS)
        st = read_factor_array(rope, "short_factor", half, &c->short_factor);
    if (st == BICL_SUCCESS)
        st = get_positive(rope, "factor", false, &c->factor, &found);
    if (st == BICL_SUCCESS)
        st = get_positive(rope, "attention_factor", false, &c->attention_factor, &found);
    if (st == BICL_SUCCESS)
        st = read_original_len(sc, rope, c);
    if (st == BICL_SUCCESS && strcmp(sc->info->model_type, "phimoe") == 0)
        st = read_phimoe_mscale(rope, c);
    if (st == BICL_SUCCESS && c->factor == 0.0 && c->max_position_embeddings <= 0)
        return bad(sc->m, "max_position_embeddings", "is required by longrope without factor");
    return st;
}

/* proportional (transformers 5's _compute_proportional_rope_parameters): the whole head
 * rotates (rotary_dim = head_dim, the exponent's denominator too), the first
 * rope_angles = int(partial_rotary_factor * head_dim // 2) pairs with theta^(-2i/head_dim)
 * and the others with frequency 0; factor (default 1) divides them all. */
static bicl_status read_proportional(hf_obj rope, bicl_rope_config *c)
{
    bool found = false;
    double part = 1.0;
    c->factor = 1.0;
    bicl_status st = get_positive(rope, "factor", false, &c->factor, &found);
    if (st == BICL_SUCCESS)
        st = get_positive(rope, "partial_rotary_factor", false, &part, &found);
    if (st == BICL_SUCCESS && part > 1.0)
        return bad(rope, "partial_rotary_factor", "must be in (0, 1]");
    if (st != BICL_SUCCESS)
        return st;
    c->rotary_dim = c->head_dim;
    c->rope_angles = (int)floor(part * (double)c->head_dim / 2.0); /* Python's float // 2 */
    if (c->head_dim % 2 != 0)
        return bad(rope, "rope_type", "proportional needs an even head_dim");
    return BICL_SUCCESS;
}

static bicl_status read_scaling(const hf_scope *sc, hf_obj rope, bicl_rope_config *c)
{
    bicl_status st = rope_type(rope, sc->info, &c->type);
    if (st != BICL_SUCCESS)
        return st;
    /* Phi-3's config renames "su" to longrope only after transformers has filled in the
     * longrope keys, so transformers 5 refuses an "su" dict without its own original
     * length (KeyError): refuse it too. */
    const cJSON *t = item(rope, "rope_type") ? item(rope, "rope_type") : item(rope, "type");
    if (c->type == BICL_ROPE_LONGROPE && strcmp(t->valuestring, "longrope") != 0 &&
        !item(rope, "original_max_position_embeddings"))
        return bad(rope, "original_max_position_embeddings",
                   "is required with this rope_type (transformers 5 refuses it without)");
    switch (c->type) {
    case BICL_ROPE_LINEAR:
        return need_positive(rope, "factor", &c->factor);
    case BICL_ROPE_DYNAMIC_NTK:
        st = need_positive(rope, "factor", &c->factor);
        if (st == BICL_SUCCESS && c->max_position_embeddings <= 0)
            return bad(sc->m, "max_position_embeddings", "is required by dynamic");
        return st;
    case BICL_ROPE_LLAMA3:
        return read_llama3(sc, rope, c);
    case BICL_ROPE_YARN:
        return read_yarn(sc, rope, c);
    case BICL_ROPE_LONGROPE:
        return read_longrope(sc, rope, c);
    case BICL_ROPE_PROPORTIONAL:
        return read_proportional(rope, c);
    default:
        return BICL_SUCCESS;
    }
}

/* ----------------------------------------------------------------- parse */

/* The JSON tree of text, or a status naming the line and column cJSON stopped at. */
static bicl_status parse(const char *text, cJSON **out)
{
    const char *end = NULL;
    pthread_mutex_lock(&hf_lock);
    *out = cJSON_ParseWithOpts(text, &end, 1);
    pthread_mutex_unlock(&hf_lock);
    if (*out)
        return BICL_SUCCESS;
    int line = 1, col = 1;
    for (const char *p = text; end && p < end && *p; ++p, ++col)
        if (*p == '\n') {
            ++line;
            col = 0;
        }
    return bicl_fail(BICL_ERR_INVALID_CONFIG, "config.json: not valid JSON (line %d, column %d)",
                     line, col);
}

/* The language model's object: text_config for multimodal models, else the top level. */
static bicl_status locate(const cJSON *root, hf_obj *top, hf_obj *model)
{
    if (!cJSON_IsObject(root))
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "config.json: the top level must be an object");
    *top = (hf_obj){root, ""};
    const cJSON *text = item(*top, "text_config");
    if (text && !cJSON_IsObject(text))
        return bad(*top, "text_config", "must be an object");
    *model = text ? (hf_obj){text, "text_config."} : *top;
    return BICL_SUCCESS;
}

/* Models whose position encoding this mapping would get wrong without an error: no
 * RoPE at all. (Multi-head latent attention is checked once the model type is known:
 * check_mla.) */
static bicl_status check_rope_model(hf_obj m)
{
    const cJSON *alibi = item(m, "alibi");
    if (cJSON_IsTrue(alibi))
        return bad(m, "alibi", "is true: the model uses ALiBi, not RoPE");
    const cJSON *pe = item(m, "position_embedding_type");
    if (cJSON_IsString(pe) && strcmp(pe->valuestring, "rotary") != 0 &&
        strcmp(pe->valuestring, "rope") != 0)
        return bad(m, "position_embedding_type", "is not rotary: the model does not use RoPE");
    return BICL_SUCCESS;
}

/* The model type's entry: text_config's model_type, else the top level's (Llama 4's
 * "llama4" wraps "llama4_text"); the engine's explicit style replaces the table. */
static bicl_status find_model(hf_obj top, hf_obj m, const bicl_rope_hf_options *opt,
                              hf_model_info *generic, const hf_model_info **info)
{
    const cJSON *mt[2] = {item(m, "model_type"), item(top, "model_type")};
    hf_obj where[2] = {m, top};
    const char *name = NULL;
    for (int i = 0; i < 2; ++i) {
        if (mt[i] && !cJSON_IsString(mt[i]))
            return bad(where[i], "model_type", "must be a string");
        if (!name && mt[i])
            name = mt[i]->valuestring;
        if (mt[i] && !*info)
            *info = model_info(mt[i]->valuestring);
        if (mt[i] && !*info && arch_alias(where[i], mt[i]->valuestring))
            *info = model_info(arch_alias(where[i], mt[i]->valuestring));
    }
    if (opt->explicit_style) {
        *generic = (hf_model_info){name ? name : "(explicit style)",
                                   opt->style,
                                   true,
                                   true,
                                   true,
                                   true,
                                   10000.0,
                                   0.0,
                                   true};
        *info = generic;
        return BICL_SUCCESS;
    }
    if (!name)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: model_type is missing: the pair style cannot be known (pass "
                         "it with bicl_rope_config_from_hf_json_ex, explicit_style)");
    if (!*info)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: model_type \"%.64s\" is not a RoPE model type of "
                         "transformers " BICL_HF_TABLE_TRANSFORMERS
                         " that bicl knows: its pair style would be a guess (pass it with "
                         "bicl_rope_config_from_hf_json_ex, explicit_style)",
                         name);
    if (!(*info)->width_known)
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: model_type \"%s\" derives its rotary width from keys of its "
                         "own: not supported (set the config by hand)",
                         (*info)->model_type);
    return BICL_SUCCESS;
}

/* ------------------------------------------------------------ layer types */

enum { MAX_LAYER_TYPES = 16, LAYER_TYPE_CHARS = 64 };

/* Everything the reading of a config needs, found once per call. */
typedef struct hf_doc {
    hf_obj top, m;
    hf_scope sc;
    hf_model_info generic;
    hf_obj flat;         /* rope_scaling / rope_parameters when not per layer type */
    const cJSON *nested; /* rope_parameters keyed by layer type, or NULL */
    bool gemma_local;    /* Gemma 3 family: sliding layers use rope_local_base_freq */
    int n_types;
    char types[MAX_LAYER_TYPES][LAYER_TYPE_CHARS];
    char prefix[LAYER_TYPE_CHARS + 48];
} hf_doc;

static bool has_type(const hf_doc *d, const char *t)
{
    for (int i = 0; i < d->n_types; ++i)
        if (strcmp(d->types[i], t) == 0)
            return true;
    return false;
}

static bicl_status add_type(hf_doc *d, hf_obj where, const char *key, const char *t)
{
    if (has_type(d, t))
        return BICL_SUCCESS;
    if (strlen(t) >= LAYER_TYPE_CHARS || d->n_types == MAX_LAYER_TYPES)
        return bad(where, key, "has a layer type name or count bicl does not support");
    memcpy(d->types[d->n_types++], t, strlen(t) + 1); /* length checked above */
    return BICL_SUCCESS;
}

/* The Gemma 3 rule for configs without layer_types: every pattern-th layer is full. */
static bicl_status sliding_pattern(hf_obj m, int *pattern)
{
    bool found = false;
    *pattern = 6;
    return get_int(m, "sliding_window_pattern", 1, pattern, &found);
}

/* Layer types in first-use order: layer_types, else the keys of a per-layer-type
 * rope_parameters, else Gemma 3's two, else the one "full_attention". */
static bicl_status list_layer_types(hf_doc *d)
{
    const cJSON *lt = item(d->m, "layer_types");
    bicl_status st = BICL_SUCCESS;
    if (lt && !cJSON_IsArray(lt))
        return bad(d->m, "layer_types", "must be an array of strings");
    for (const cJSON *e = lt ? lt->child : NULL; e && st == BICL_SUCCESS; e = e->next) {
        if (!cJSON_IsString(e))
            return bad(d->m, "layer_types", "must be an array of strings");
        st = add_type(d, d->m, "layer_types", e->valuestring);
    }
    for (const cJSON *k = d->nested ? d->nested->child : NULL; k && st == BICL_SUCCESS; k = k->next)
        st = add_type(d, d->m, "rope_parameters", k->string);
    if (st == BICL_SUCCESS && d->n_types == 0 && d->gemma_local) {
        int pattern = 6;
        st = sliding_pattern(d->m, &pattern);
        if (st == BICL_SUCCESS && pattern > 1)
            st = add_type(d, d->m, "layer_types", "sliding_attention");
        if (st == BICL_SUCCESS)
            st = add_type(d, d->m, "layer_types", "full_attention");
    }
    if (st == BICL_SUCCESS && d->n_types == 0)
        st = add_type(d, d->m, "layer_types", "full_attention");
    return st;
}

/* rope_parameters is per layer type when its members are objects named by layer types
 * (transformers 5: {"full_attention": {...}, "sliding_attention": {...}}). */
static const cJSON *nested_rope(hf_obj m, const cJSON *r)
{
    const cJSON *lt = item(m, "layer_types");
    for (const cJSON *k = r ? r->child : NULL; k; k = k->next) {
        if (!cJSON_IsObject(k) && !cJSON_IsNull(k))
            return NULL;
        bool named = strstr(k->string, "_attention") != NULL;
        for (const cJSON *e = lt ? lt->child : NULL; e && !named; e = e->next)
            named = cJSON_IsString(e) && strcmp(e->valuestring, k->string) == 0;
        if (!named)
            return NULL;
    }
    return r && r->child ? r : NULL;
}

static bicl_status open_doc(const cJSON *root, const bicl_rope_hf_options *opt, hf_doc *d)
{
    memset(d, 0, sizeof *d);
    bicl_status st = locate(root, &d->top, &d->m);
    if (st == BICL_SUCCESS)
        st = check_rope_model(d->m);
    d->sc.info = NULL;
    if (st == BICL_SUCCESS)
        st = find_model(d->top, d->m, opt, &d->generic, &d->sc.info);
    if (st != BICL_SUCCESS)
        return st;
    d->sc.m = d->m;
    const char *key = item(d->m, "rope_scaling") ? "rope_scaling" : "rope_parameters";
    const cJSON *r = item(d->m, key);
    if (r && !cJSON_IsObject(r))
        return bad(d->m, key, "must be an object or null");
    d->nested = strcmp(key, "rope_parameters") == 0 ? nested_rope(d->m, r) : NULL;
    d->sc.nested = d->nested != NULL;
    snprintf(d->prefix, sizeof d->prefix, "%s%s.", d->m.prefix, key);
    d->flat = (hf_obj){d->nested ? NULL : r, d->prefix};
    d->gemma_local = d->sc.info->theta_local > 0.0 && !d->nested;
    return list_layer_types(d);
}

/* ----------------------------------------------------------------- fill */

/* ---- MLA (issue 19) ---- */

/* Multi-head latent attention's layout: q heads of qk_nope_head_dim + qk_rope_head_dim
 * elements, the last qk_rope_head_dim rotated; k_pe one head of qk_rope_head_dim. */
typedef struct hf_mla_layout {
    bool on, interleave;
    int nope, rope;
} hf_mla_layout;

/* Reads the MLA keys; refuses them for a model type whose MLA bicl does not know, and
 * rope_interleave where the model type's code does not read it. */
static bicl_status read_mla(const hf_doc *d, hf_mla_layout *ml)
{
    memset(ml, 0, sizeof *ml);
    hf_obj m = d->m;
    const struct hf_mla *mi = mla_info(d->sc.info->model_type);
    const cJSON *ri = item(m, "rope_interleave");
    if (ri && !cJSON_IsBool(ri))
        return bad(m, "rope_interleave", "must be true or false");
    if (cJSON_IsTrue(ri) && !(mi && mi->interleave_key))
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %srope_interleave is not read by transformers' %s: its "
                         "pairing would not be what the key says",
                         m.prefix, d->sc.info->model_type);
    if (!mi && item(m, "qk_rope_head_dim"))
        return bicl_fail(BICL_ERR_INVALID_CONFIG,
                         "config.json: %sqk_rope_head_dim: multi-head latent attention of model "
                         "type \"%s\" is not one bicl knows (deepseek_v2, deepseek_v3, kimi_k2, "
                         "minicpm3): set the config by hand",
                         m.prefix, d->sc.info->model_type);
    if (!mi)
        return BICL_SUCCESS;
    static const char *const keys[] = {"qk_nope_head_dim", "qk_rope_head_dim"};
    int *dst[] = {&ml->nope, &ml->rope};
    for (int i = 0; i < 2; ++i) {
        bool found = false;
        bicl_status st = get_int(m, keys[i], 1, dst[i], &found);
        if (st != BICL_SUCCESS)
            return st;
        if (!found)
            return bad(m, keys[i], "is required by multi-head latent attention");
    }
    if (ml->rope % 2 != 0 || ml->nope + ml->rope > 65536)
        return bad(m, "qk_rope_head_dim", "must be even, with qk_nope_head_dim at most 65536");
    ml->on = true;
    ml->interleave = mi->interleave_key && (!ri || cJSON_IsTrue(ri)); /* HF's default: true */
    return BICL_SUCCESS;
}

/* The head width a layer type's RoPE sees: MLA's qk_rope_head_dim (transformers sets
 * head_dim to it); Gemma 4's full-attention layers: global_head_dim (transformers' default
 * 512 when absent); else head_dim or hidden_size / num_attention_heads. */
static bicl_status layer_head_dim(const hf_doc *d, const hf_mla_layout *ml, const char *lt,
                                  int *head_dim)
{
    if (ml->on) {
        *head_dim = ml->rope;
        return BICL_SUCCESS;
    }
    if (is_gemma4(d->sc.info->model_type) && item(d->m, "per_layer_config"))
        return bad(d->m, "per_layer_config", "is not supported: set the config by hand");
    if (is_gemma4(d->sc.info->model_type) && lt && strcmp(lt, "full_attention") == 0) {
        bool found = false;
        *head_dim = 512;
        return get_int(d->m, "global_head_dim", 2, head_dim, &found);
    }
    return read_head_dim(d->m, head_dim);
}

/* MLA's slice on a config read for its qk_rope_head_dim-wide rotary part. */
static bicl_status apply_mla(const hf_doc *d, const hf_mla_layout *ml, bicl_rope_config *c)
{
    if (!ml->on)
        return BICL_SUCCESS;
    if (c->rotary_dim != ml->rope)
        return bad(d->m, "qk_rope_head_dim",
                   "is not the rotary width (a partial-rotary key changes it; transformers' MLA "
                   "cannot run that)");
    c->head_dim = ml->nope + ml->rope;
    c->rotary_offset = ml->nope;
    c->k_head_dim = ml->rope;
    c->k_rotary_offset = 0;
    if (ml->interleave)
        c->style = BICL_ROPE_DEINTERLEAVE;
    return BICL_SUCCESS;
}

/* ---- end of MLA ---- */

/* One layer type's config (lt NULL: the flat config of a model with one RoPE). */
static bicl_status fill(hf_doc *d, const char *lt, bicl_rope_config *c)
{
    hf_obj m = d->m, rope = d->flat;
    bool local = d->gemma_local && lt && strcmp(lt, "sliding_attention") == 0;
    if (d->nested) {
        const cJSON *r = item((hf_obj){d->nested, ""}, lt);
        snprintf(d->prefix, sizeof d->prefix, "%srope_parameters.%s.", m.prefix, lt);
        if (!r)
            return bicl_fail(BICL_ERR_INVALID_CONFIG,
                             "config.json: %srope_parameters has no RoPE for layer type \"%s\"",
                             m.prefix, lt);
        rope = (hf_obj){r, d->prefix};
    } else if (local) {
        rope = (hf_obj){NULL, ""}; /* Gemma 3's sliding layers: no scaling */
    }
    int head_dim = 0, rotary_dim = 0;
    bool found = false;
    hf_mla_layout ml;
    bicl_status st = read_mla(d, &ml);
    if (st == BICL_SUCCESS)
        st = layer_head_dim(d, &ml, lt, &head_dim);
    if (st == BICL_SUCCESS)
        st = read_rotary_dim(m, rope, d->sc.info, head_dim, &rotary_dim);
    if (st != BICL_SUCCESS)
        return st;
    bicl_rope_config_init(c, head_dim, rotary_dim);
    c->style = d->sc.info->style;
    if (local) {
        c->theta = d->sc.info->theta_local;
        st = get_positive(m, "rope_local_base_freq", false, &c->theta, &found);
    } else {
        st = read_theta(m, rope, d->sc.info->theta, &c->theta);
    }
    if (st == BICL_SUCCESS)
        st = get_int_alias(m, "max_position_embeddings", "n_positions", &c->max_position_embeddings,
                           &found);
    if (st == BICL_SUCCESS && rope.json)
        st = read_scaling(&d->sc, rope, c);
    if (st == BICL_SUCCESS)
        st = apply_mla(d, &ml, c);
    /* The same checks a hand-made config meets, so a parsed one can never be refused
     * later by bicl_rope_plan_create. */
    if (st == BICL_SUCCESS)
        st = bicl_rope_config_check(c);
    if (st != BICL_SUCCESS) {
        bicl_rope_config_release(c);
        bicl_rope_config_init(c, 0, 0);
    }
    return st;
}

static bool same_array(const double *a, const double *b, int n)
{
    if (!a || !b)
        return a == b;
    return memcmp(a, b, (size_t)n * sizeof *a) == 0;
}

/* The slice and proportional fields of bicl_rope_config (MLA, Gemma 4). */
static bool same_slice(const bicl_rope_config *a, const bicl_rope_config *b)
{
    return a->rotary_offset == b->rotary_offset && a->k_head_dim == b->k_head_dim &&
           a->k_rotary_offset == b->k_rotary_offset && a->rope_angles == b->rope_angles;
}

/* Whether two parsed configs give the same plan: field by field (a memcmp of the
 * structs would also compare their padding, which copies need not preserve). A field
 * added to bicl_rope_config must be added here. */
static bool same_rope(const bicl_rope_config *a, const bicl_rope_config *b)
{
    int n = a->rotary_dim / 2;
    return a->head_dim == b->head_dim && a->rotary_dim == b->rotary_dim && a->style == b->style &&
           a->theta == b->theta && a->type == b->type && a->factor == b->factor &&
           a->low_freq_factor == b->low_freq_factor && a->high_freq_factor == b->high_freq_factor &&
           a->original_max_position_embeddings == b->original_max_position_embeddings &&
           a->max_position_embeddings == b->max_position_embeddings &&
           a->beta_fast == b->beta_fast && a->beta_slow == b->beta_slow && a->mscale == b->mscale &&
           a->mscale_all_dim == b->mscale_all_dim && a->attention_factor == b->attention_factor &&
           a->truncate == b->truncate && a->seq_len == b->seq_len &&
           a->angle_mode == b->angle_mode && same_array(a->long_factor, b->long_factor, n) &&
           same_array(a->short_factor, b->short_factor, n) &&
           same_array(a->freq_factors, b->freq_factors, n) && same_slice(a, b);
}

/* How many distinct RoPE configs the layer types need (reads each one; a layer type
 * whose per-layer-type rope_parameters entry is null has no RoPE and needs none). */
static bicl_status count_plans(hf_doc *d, int *n_plans)
{
    bicl_rope_config cfgs[MAX_LAYER_TYPES];
    int n = 0, done = 0;
    bicl_status st = BICL_SUCCESS;
    for (; done < d->n_types && st == BICL_SUCCESS; ++done) {
        bicl_rope_config_init(&cfgs[done], 0, 0);
        if (d->nested && !item((hf_obj){d->nested, ""}, d->types[done]))
            continue;
        st = fill(d, d->types[done], &cfgs[done]);
        bool seen = false;
        for (int j = 0; j < done && !seen; ++j)
            seen = cfgs[j].head_dim != 0 && same_rope(&cfgs[j], &cfgs[done]);
        n += st == BICL_SUCCESS && !seen;
    }
    for (int i = 0; i < done; ++i)
        bicl_rope_config_release(&cfgs[i]);
    *n_plans = n;
    return st;
}

/* ------------------------------------------------------------- public API */

static void hf_options_defaults(bicl_rope_hf_options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->struct_size = sizeof *opt;
    opt->style = BICL_ROPE_NEOX;
}

void bicl_rope_hf_options_init_sized(bicl_rope_hf_options *opt, size_t struct_size)
{
    if (!opt)
        return;
    bicl_rope_hf_options full;
    hf_options_defaults(&full);
    bicl_abi_store(opt, struct_size, &full, sizeof full);
}

/* *full = the caller's options at this library's size (abi.h), checked; NULL gives the
 * defaults. BICL_ERR_INVALID_PARAMETER names the field. */
static bicl_status hf_options_load(const bicl_rope_hf_options *opt, bicl_rope_hf_options *full)
{
    hf_options_defaults(full);
    if (!opt)
        return BICL_SUCCESS;
    /* every field so far was in the first layout */
    bicl_status st = bicl_abi_load(full, sizeof *full, opt, sizeof *full, "bicl_rope_hf_options",
                                   BICL_ERR_INVALID_PARAMETER);
    if (st != BICL_SUCCESS)
        return st;
    if (full->explicit_style && full->style != BICL_ROPE_NEOX && full->style != BICL_ROPE_GPTJ)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "bicl_rope_hf_options.style %d is unknown",
                         (int)full->style);
    return BICL_SUCCESS;
}

/* Parses text and opens it as a config; *root must be freed with cJSON_Delete. */
static bicl_status open_text(const char *text, const bicl_rope_hf_options *opt, cJSON **root,
                             hf_doc *d)
{
    bicl_rope_hf_options o;
    bicl_status st = hf_options_load(opt, &o);
    if (st == BICL_SUCCESS)
        st = parse(text, root);
    if (st == BICL_SUCCESS)
        st = open_doc(*root, &o, d);
    return st;
}

/* bicl_rope_config_from_hf_json_sized into a config of this library's size. */
static bicl_status from_hf_json(const char *json_text, const bicl_rope_hf_options *opt,
                                bicl_rope_config *cfg)
{
    bicl_rope_config_init(cfg, 0, 0);
    cJSON *root = NULL;
    hf_doc *d = malloc(sizeof *d);
    if (!d)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "config.json");
    bicl_status st = open_text(json_text, opt, &root, d);
    bicl_rope_hf_options o;
    if (st == BICL_SUCCESS)
        st = hf_options_load(opt, &o);
    const char *lt = st == BICL_SUCCESS ? o.layer_type : NULL;
    if (st == BICL_SUCCESS && lt && !has_type(d, lt))
        st = bicl_fail(BICL_ERR_INVALID_CONFIG,
                       "config.json: layer type \"%.64s\" is not one of the config's layer types "
                       "(bicl_rope_config_layer_types lists them)",
                       lt);
    int n_plans = 1;
    if (st == BICL_SUCCESS && !lt)
        st = count_plans(d, &n_plans);
    if (st == BICL_SUCCESS && n_plans > 1)
        st =
            bicl_fail(BICL_ERR_INVALID_CONFIG,
                      "config.json: %slayer_types need %d different RoPE configs: pass each "
                      "layer type (bicl_rope_config_layer_types, bicl_rope_config_from_hf_json_ex)",
                      d->m.prefix, n_plans);
    if (st == BICL_SUCCESS)
        st = fill(d, lt ? lt : d->types[0], cfg);
    cJSON_Delete(root);
    free(d);
    return st;
}

bicl_status bicl_rope_config_from_hf_json_sized(const char *json_text,
                                                const bicl_rope_hf_options *opt,
                                                bicl_rope_config *cfg, size_t cfg_struct_size)
{
    bicl_clear_error();
    if (!json_text || !cfg)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_config_from_hf_json: NULL argument");
    bicl_rope_config full;
    bicl_status st = from_hf_json(json_text, opt, &full);
    if (st == BICL_SUCCESS)
        st = bicl_rope_config_store(&full, cfg, cfg_struct_size);
    if (st != BICL_SUCCESS) {
        bicl_rope_config_release(&full);
        bicl_rope_config_init_sized(cfg, cfg_struct_size, 0, 0);
    }
    return st;
}

bicl_status bicl_rope_config_layer_types(const char *json_text, char *names, size_t size,
                                         int *n_types, int *n_plans)
{
    bicl_clear_error();
    if (!json_text || (!names && size > 0))
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_config_layer_types: NULL argument");
    cJSON *root = NULL;
    hf_doc *d = malloc(sizeof *d);
    if (!d)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "config.json");
    bicl_status st = open_text(json_text, NULL, &root, d);
    int plans = 0;
    if (st == BICL_SUCCESS)
        st = count_plans(d, &plans);
    if (st == BICL_SUCCESS) {
        size_t used = 0;
        for (int i = 0; i < d->n_types && size > 0; ++i) {
            int w = snprintf(names + used, size - used, "%s%s", i ? "," : "", d->types[i]);
            used = w < 0 || (size_t)w >= size - used ? size - 1 : used + (size_t)w;
        }
        if (n_types)
            *n_types = d->n_types;
        if (n_plans)
            *n_plans = plans;
    }
    cJSON_Delete(root);
    free(d);
    return st;
}

bicl_status bicl_rope_config_layer_type(const char *json_text, int layer, char *name, size_t size)
{
    bicl_clear_error();
    if (!json_text || !name || size == 0)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_config_layer_type: NULL argument");
    name[0] = '\0';
    cJSON *root = NULL;
    hf_doc *d = malloc(sizeof *d);
    if (!d)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "config.json");
    bicl_status st = open_text(json_text, NULL, &root, d);
    int n_layers = 0, pattern = 6;
    bool found = false;
    if (st == BICL_SUCCESS)
        st = get_int(d->m, "num_hidden_layers", 1, &n_layers, &found);
    if (st == BICL_SUCCESS && (layer < 0 || (found && layer >= n_layers)))
        st = bicl_fail(BICL_ERR_INVALID_PARAMETER, "layer %d is outside [0, %d)", layer, n_layers);
    const cJSON *lt = st == BICL_SUCCESS ? item(d->m, "layer_types") : NULL;
    const cJSON *e = lt ? cJSON_GetArrayItem(lt, layer) : NULL;
    if (st == BICL_SUCCESS && lt && !e)
        st = bad(d->m, "layer_types", "has fewer entries than the layer asked for");
    if (st == BICL_SUCCESS && !lt && d->gemma_local)
        st = sliding_pattern(d->m, &pattern);
    /* Gemma 4 without layer_types: every 6th layer full and the last one always full
     * (Gemma4TextConfig.__post_init__), which needs the layer count. */
    bool gemma4 = st == BICL_SUCCESS && !lt && is_gemma4(d->sc.info->model_type);
    if (gemma4 && !found)
        st = bad(d->m, "num_hidden_layers", "is required for Gemma 4's layer types");
    if (st == BICL_SUCCESS) {
        bool sliding = (d->gemma_local || gemma4) && (layer + 1) % pattern != 0 &&
                       !(gemma4 && layer == n_layers - 1);
        const char *t = e ? e->valuestring : sliding ? "sliding_attention" : "full_attention";
        snprintf(name, size, "%s", t);
    }
    cJSON_Delete(root);
    free(d);
    return st;
}
