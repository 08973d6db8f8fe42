/* hfconfig.c - a bicl_rope_config from a model's Hugging Face config.json.
 *
 * The JSON is parsed by cJSON; this file only maps HF's keys onto bicl's fields and
 * refuses anything it cannot map exactly (docs/api.md, "RoPE from a config.json",
 * has the rules). Every failure names the HF key in bicl_last_error(). */
#include "internal.h"

#include <cjson/cJSON.h>

#include <limits.h>
#include <math.h>
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

/* Model types whose attention rotates interleaved pairs (2i, 2i+1): GPT-J's
 * rotate_every_two, which CodeGen copies, and Cohere's rotate_half. */
static bicl_rope_style style_for(const char *model_type)
{
    static const char *const interleaved[] = {"gptj", "codegen", "cohere", "cohere2"};
    for (size_t i = 0; model_type && i < sizeof interleaved / sizeof interleaved[0]; ++i)
        if (strcmp(model_type, interleaved[i]) == 0)
            return BICL_ROPE_GPTJ;
    return BICL_ROPE_NEOX;
}

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

/* The rotary width as HF derives it: rotary_dim (GPT-J, CodeGen), else head_dim *
 * partial_rotary_factor, else head_dim * rotary_pct (GPT-NeoX), truncated as Python's
 * int() does; else head_dim. *key gets the key it came from (NULL for head_dim). */
static bicl_status find_rotary_dim(hf_obj m, hf_obj rope, int head_dim, int *rotary_dim,
                                   hf_obj *from, const char **key)
{
    bool found = false;
    *from = m;
    *key = "rotary_dim";
    bicl_status st = get_int(m, *key, 1, rotary_dim, &found);
    if (st != BICL_SUCCESS || found)
        return st;
    static const char *const keys[] = {"partial_rotary_factor", "rotary_pct"};
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
            *rotary_dim = (int)((double)head_dim * f);
            return BICL_SUCCESS;
        }
    }
    *key = NULL;
    *rotary_dim = head_dim;
    return BICL_SUCCESS;
}

/* The rotary width, checked here so that the message names the HF key. */
static bicl_status read_rotary_dim(hf_obj m, hf_obj rope, int head_dim, int *rotary_dim)
{
    hf_obj from = m;
    const char *key = NULL;
    bicl_status st = find_rotary_dim(m, rope, head_dim, rotary_dim, &from, &key);
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
 * GPT-NeoX's rotary_emb_base, else HF's default 10000. */
static bicl_status read_theta(hf_obj m, hf_obj rope, double *theta)
{
    bool found = false;
    bicl_status st = get_positive(rope, "rope_theta", false, theta, &found);
    if (st == BICL_SUCCESS && !found)
        st = get_positive(m, "rope_theta", false, theta, &found);
    if (st == BICL_SUCCESS && !found)
        st = get_positive(m, "rotary_emb_base", false, theta, &found);
    return st;
}

/* ------------------------------------------------------------ rope_scaling */

static bicl_status rope_type(hf_obj rope, bicl_rope_type *type)
{
    static const struct {
        const char *name;
        bicl_rope_type type;
    } names[] = {
        {"default", BICL_ROPE_DEFAULT},     {"linear", BICL_ROPE_LINEAR},
        {"llama3", BICL_ROPE_LLAMA3},       {"yarn", BICL_ROPE_YARN},
        {"dynamic", BICL_ROPE_DYNAMIC_NTK}, {"longrope", BICL_ROPE_LONGROPE},
    };
    /* HF reads rope_type and falls back to the older key type. */
    const char *key = item(rope, "rope_type") ? "rope_type" : "type";
    const cJSON *it = item(rope, key);
    if (!it)
        return bad(rope, "rope_type", "is missing");
    if (!cJSON_IsString(it))
        return bad(rope, key, "must be a string");
    for (size_t i = 0; i < sizeof names / sizeof names[0]; ++i)
        if (strcmp(it->valuestring, names[i].name) == 0) {
            *type = names[i].type;
            return BICL_SUCCESS;
        }
    return bicl_fail(BICL_ERR_INVALID_CONFIG,
                     "config.json: %s%s \"%.64s\" is not supported (default, linear, llama3, "
                     "yarn, dynamic, longrope)",
                     rope.prefix, key, it->valuestring);
}

static bicl_status read_llama3(hf_obj rope, bicl_rope_config *c)
{
    bool found = false;
    bicl_status st = need_positive(rope, "factor", &c->factor);
    if (st == BICL_SUCCESS)
        st = need_positive(rope, "low_freq_factor", &c->low_freq_factor);
    if (st == BICL_SUCCESS)
        st = need_positive(rope, "high_freq_factor", &c->high_freq_factor);
    if (st == BICL_SUCCESS && !(c->high_freq_factor > c->low_freq_factor))
        return bad(rope, "high_freq_factor", "must be > low_freq_factor");
    if (st == BICL_SUCCESS)
        st = get_int(rope, "original_max_position_embeddings", 1,
                     &c->original_max_position_embeddings, &found);
    if (st == BICL_SUCCESS && !found)
        return bad(rope, "original_max_position_embeddings", "is required by this rope_type");
    return st;
}

static bicl_status read_yarn(hf_obj rope, bicl_rope_config *c)
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
    if (st == BICL_SUCCESS)
        st = get_int(rope, "original_max_position_embeddings", 1,
                     &c->original_max_position_embeddings, &found);
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
        v[i] = e->valuedouble;
    }
    if (!owned_add(v)) {
        free(v);
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "config.json: %s%s", rope.prefix, key);
    }
    *out = v;
    return BICL_SUCCESS;
}

/* HF's longrope: when the model (Phi-3) carries original_max_position_embeddings at the
 * top level, factor is max_position_embeddings / that (bicl derives it from factor 0);
 * otherwise the original length is max_position_embeddings and factor is as given. */
static bicl_status read_longrope(hf_obj m, hf_obj rope, bicl_rope_config *c)
{
    bool found = false, top = false;
    int half = c->rotary_dim / 2;
    bicl_status st = read_factor_array(rope, "long_factor", half, &c->long_factor);
    if (st == BICL_SUCCESS)
        st = read_factor_array(rope, "short_factor", half, &c->short_factor);
    if (st == BICL_SUCCESS)
        st = get_positive(rope, "factor", false, &c->factor, &found);
    if (st == BICL_SUCCESS)
        st = get_positive(rope, "attention_factor", false, &c->attention_factor, &found);
    if (st == BICL_SUCCESS)
        st = get_int(m, "original_max_position_embeddings", 1, &c->original_max_position_embeddings,
                     &top);
    if (st == BICL_SUCCESS && !top)
        st = get_int(rope, "original_max_position_embeddings", 1,
                     &c->original_max_position_embeddings, &found);
    if (st != BICL_SUCCESS)
        return st;
    if (top) {
        c->factor = 0.0;
    } else if (!found) {
        c->original_max_position_embeddings = c->max_position_embeddings;
        if (c->original_max_position_embeddings <= 0)
            return bad(m, "max_position_embeddings", "is required by longrope");
        if (c->factor == 0.0)
            c->factor = 1.0;
    }
    return BICL_SUCCESS;
}

static bicl_status read_scaling(hf_obj m, hf_obj rope, bicl_rope_config *c)
{
    bicl_status st = rope_type(rope, &c->type);
    if (st != BICL_SUCCESS)
        return st;
    switch (c->type) {
    case BICL_ROPE_LINEAR:
        return need_positive(rope, "factor", &c->factor);
    case BICL_ROPE_DYNAMIC_NTK:
        st = need_positive(rope, "factor", &c->factor);
        if (st == BICL_SUCCESS && c->max_position_embeddings <= 0)
            return bad(m, "max_position_embeddings", "is required by dynamic");
        return st;
    case BICL_ROPE_LLAMA3:
        return read_llama3(rope, c);
    case BICL_ROPE_YARN:
        return read_yarn(rope, c);
    case BICL_ROPE_LONGROPE:
        return read_longrope(m, rope, c);
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

/* The object holding the model's rope fields and the rope_scaling object (either may
 * be a sub-object: text_config for multimodal models, rope_parameters in
 * transformers >= 5). */
static bicl_status locate(const cJSON *root, hf_obj *model, hf_obj *rope)
{
    if (!cJSON_IsObject(root))
        return bicl_fail(BICL_ERR_INVALID_CONFIG, "config.json: the top level must be an object");
    hf_obj top = {root, ""};
    const cJSON *text = item(top, "text_config");
    if (text && !cJSON_IsObject(text))
        return bad(top, "text_config", "must be an object");
    *model = text ? (hf_obj){text, "text_config."} : top;
    const char *key = item(*model, "rope_scaling") ? "rope_scaling" : "rope_parameters";
    const cJSON *r = item(*model, key);
    if (r && !cJSON_IsObject(r))
        return bad(*model, key, "must be an object or null");
    rope->json = r;
    rope->prefix = strcmp(key, "rope_scaling") == 0 ? "rope_scaling." : "rope_parameters.";
    if (text)
        rope->prefix = strcmp(key, "rope_scaling") == 0 ? "text_config.rope_scaling."
                                                        : "text_config.rope_parameters.";
    return BICL_SUCCESS;
}

/* Models whose position encoding this mapping would get wrong without an error: no
 * RoPE at all, or RoPE on a layout bicl_rope_config cannot express (DeepSeek's
 * multi-head latent attention rotates a separate qk_rope_head_dim slice, and with
 * rope_interleave it also permutes the rotated elements). */
static bicl_status check_rope_model(hf_obj m)
{
    const cJSON *alibi = item(m, "alibi");
    if (cJSON_IsTrue(alibi))
        return bad(m, "alibi", "is true: the model uses ALiBi, not RoPE");
    const cJSON *pe = item(m, "position_embedding_type");
    if (cJSON_IsString(pe) && strcmp(pe->valuestring, "rotary") != 0 &&
        strcmp(pe->valuestring, "rope") != 0)
        return bad(m, "position_embedding_type", "is not rotary: the model does not use RoPE");
    if (item(m, "qk_rope_head_dim"))
        return bad(m, "qk_rope_head_dim",
                   "(multi-head latent attention) is not supported: set the config by hand");
    if (cJSON_IsTrue(item(m, "rope_interleave")))
        return bad(m, "rope_interleave", "is not supported: set the config by hand");
    return BICL_SUCCESS;
}

static bicl_status fill(hf_obj m, hf_obj rope, bicl_rope_config *c)
{
    int head_dim = 0, rotary_dim = 0;
    bool found = false;
    bicl_status st = check_rope_model(m);
    if (st == BICL_SUCCESS)
        st = read_head_dim(m, &head_dim);
    if (st == BICL_SUCCESS)
        st = read_rotary_dim(m, rope, head_dim, &rotary_dim);
    if (st != BICL_SUCCESS)
        return st;
    bicl_rope_config_init(c, head_dim, rotary_dim);
    const cJSON *mt = item(m, "model_type");
    if (mt && !cJSON_IsString(mt))
        return bad(m, "model_type", "must be a string");
    c->style = style_for(mt ? mt->valuestring : NULL);
    st = read_theta(m, rope, &c->theta);
    if (st == BICL_SUCCESS)
        st = get_int_alias(m, "max_position_embeddings", "n_positions", &c->max_position_embeddings,
                           &found);
    if (st == BICL_SUCCESS && rope.json)
        st = read_scaling(m, rope, c);
    return st;
}

bicl_status bicl_rope_config_from_hf_json(const char *json_text, bicl_rope_config *cfg)
{
    bicl_clear_error();
    if (!json_text || !cfg)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_rope_config_from_hf_json: NULL argument");
    bicl_rope_config_init(cfg, 0, 0);
    cJSON *root = NULL;
    bicl_status st = parse(json_text, &root);
    hf_obj model = {NULL, ""}, rope = {NULL, ""};
    if (st == BICL_SUCCESS)
        st = locate(root, &model, &rope);
    if (st == BICL_SUCCESS)
        st = fill(model, rope, cfg);
    /* The same checks a hand-made config meets, so a parsed one can never be refused
     * later by bicl_rope_plan_create. */
    if (st == BICL_SUCCESS)
        st = bicl_rope_config_check(cfg);
    cJSON_Delete(root);
    if (st != BICL_SUCCESS) {
        bicl_rope_config_release(cfg);
        bicl_rope_config_init(cfg, 0, 0);
    }
    return st;
}
