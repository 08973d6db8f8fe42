/* models.c - the standard workload and models of tests/data/models.json, compiled in,
 * and harness_models_read, the one reader of that file (see models.h). */
#include "models.h"

#include <cjson/cJSON.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const harness_workload harness_standard_workload = {
    .n_samples = 4,
    .sample_lengths = {11, 16, 13, 19},
    .chunk_size = 7,
    .batch_permutation = {2, 0, 3, 1},
    .padded_length = 20,
    .packed_tokens = 59,
    .n_decode = 4,
    .decode_past_lengths = {0, 1, 4095, 131071},
    .n_long = 5,
    .long_context_positions = {8191, 32767, 131071, 524287, 1048575},
};

const harness_model harness_models[HARNESS_N_MODELS] = {
    {"qwen3_8b", 128, 128, 32, 8, BICL_ROPE_NEOX, 1000000.0, BICL_ROPE_DEFAULT, 0, 0, 0, 0, 0, 0,
     40960, 1},
    {"llama3_1_8b", 128, 128, 32, 8, BICL_ROPE_NEOX, 500000.0, BICL_ROPE_LLAMA3, 8.0, 1.0, 4.0, 0,
     0, 8192, 131072, 1},
    {"gpt_oss_20b", 64, 64, 64, 8, BICL_ROPE_NEOX, 150000.0, BICL_ROPE_YARN, 32.0, 0, 0, 32.0, 1.0,
     4096, 131072, 0},
    {"gptj_6b", 256, 64, 16, 16, BICL_ROPE_GPTJ, 10000.0, BICL_ROPE_DEFAULT, 0, 0, 0, 0, 0, 0, 2048,
     1},
    {"gpt_neox_20b", 96, 24, 64, 64, BICL_ROPE_NEOX, 10000.0, BICL_ROPE_DEFAULT, 0, 0, 0, 0, 0, 0,
     2048, 1},
};

bicl_rope_config harness_model_config(const harness_model *m, bicl_rope_angle_mode mode)
{
    bicl_rope_config c;
    bicl_rope_config_init(&c, m->head_dim, m->rotary_dim);
    c.style = m->style;
    c.theta = m->theta;
    c.type = m->type;
    c.factor = m->factor;
    c.low_freq_factor = m->low;
    c.high_freq_factor = m->high;
    c.beta_fast = m->beta_fast;
    c.beta_slow = m->beta_slow;
    c.original_max_position_embeddings = m->original_max;
    c.max_position_embeddings = m->max_pos;
    c.truncate = m->truncate;
    c.angle_mode = mode;
    return c;
}

/* ================================================================ the reader */

char *harness_read_text(const char *path)
{
    FILE *f = fopen(path, "rb");
    if (!f)
        return NULL;
    char *text = NULL;
    long n = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0)
        text = malloc((size_t)n + 1);
    if (text && fread(text, 1, (size_t)n, f) != (size_t)n) {
        free(text);
        text = NULL;
    }
    if (text)
        text[n] = '\0';
    fclose(f);
    return text;
}

typedef struct reader {
    const char *path;
    char *err;
    size_t err_size;
    int failed;
} reader;

static void fail(reader *r, const char *fmt, ...)
{
    if (r->failed++)
        return;
    int n = snprintf(r->err, r->err_size, "%s: ", r->path);
    va_list ap;
    va_start(ap, fmt);
    if (n >= 0 && (size_t)n < r->err_size)
        vsnprintf(r->err + n, r->err_size - (size_t)n, fmt, ap);
    va_end(ap);
}

/* The number `key` of obj; `dflt` when absent and dflt is not NAN-like required. */
static double number(reader *r, const cJSON *obj, const char *where, const char *key, int required,
                     double dflt)
{
    const cJSON *v = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (v == NULL && !required)
        return dflt;
    if (!cJSON_IsNumber(v)) {
        fail(r, "%s: \"%s\" is %s", where, key, v == NULL ? "missing" : "not a number");
        return dflt;
    }
    return v->valuedouble;
}

/* The integer array `key` of obj into out[max]; returns its length. */
static int int_array(reader *r, const cJSON *obj, const char *key, int32_t *out, int max)
{
    const cJSON *a = cJSON_GetObjectItemCaseSensitive(obj, key);
    if (!cJSON_IsArray(a) || cJSON_GetArraySize(a) > max) {
        fail(r, "workload: \"%s\" is %s", key,
             a == NULL          ? "missing"
             : cJSON_IsArray(a) ? "too long"
                                : "not an array");
        return 0;
    }
    int n = 0;
    const cJSON *v;
    cJSON_ArrayForEach(v, a)
    {
        if (!cJSON_IsNumber(v))
            fail(r, "workload: \"%s\" holds a non-number", key);
        else
            out[n++] = (int32_t)v->valuedouble;
    }
    return n;
}

static void read_workload(reader *r, const cJSON *w, harness_workload *out)
{
    if (!cJSON_IsObject(w)) {
        fail(r, "no \"workload\" object");
        return;
    }
    memset(out, 0, sizeof *out);
    out->n_samples = int_array(r, w, "sample_lengths", out->sample_lengths, 4);
    int32_t perm[4];
    int n_perm = int_array(r, w, "batch_permutation", perm, 4);
    for (int i = 0; i < n_perm; ++i)
        out->batch_permutation[i] = perm[i];
    if (n_perm != out->n_samples)
        fail(r, "workload: batch_permutation and sample_lengths differ in length");
    out->chunk_size = (int32_t)number(r, w, "workload", "chunk_size", 1, 0);
    out->padded_length = (int32_t)number(r, w, "workload", "padded_length", 1, 0);
    out->packed_tokens = (int32_t)number(r, w, "workload", "packed_tokens", 1, 0);
    out->n_decode = int_array(r, w, "decode_past_lengths", out->decode_past_lengths, 4);
    out->n_long = int_array(r, w, "long_context_positions", out->long_context_positions, 5);
}

static void read_scaling(reader *r, const cJSON *rs, harness_model *m)
{
    if (rs == NULL || cJSON_IsNull(rs))
        return;
    if (!cJSON_IsObject(rs)) {
        fail(r, "%s: \"rope_scaling\" is neither null nor an object", m->name);
        return;
    }
    const cJSON *t = cJSON_GetObjectItemCaseSensitive(rs, "rope_type");
    const char *type = cJSON_IsString(t) ? t->valuestring : "default";
    static const struct {
        const char *name;
        bicl_rope_type type;
    } types[] = {{"default", BICL_ROPE_DEFAULT},
                 {"linear", BICL_ROPE_LINEAR},
                 {"llama3", BICL_ROPE_LLAMA3},
                 {"yarn", BICL_ROPE_YARN}};
    size_t i = 0;
    while (i < sizeof types / sizeof types[0] && strcmp(types[i].name, type) != 0)
        ++i;
    if (i == sizeof types / sizeof types[0]) {
        fail(r, "%s: rope_type \"%s\" is not one models.h holds", m->name, type);
        return;
    }
    m->type = types[i].type;
    m->factor = number(r, rs, m->name, "factor", 0, 0);
    m->low = number(r, rs, m->name, "low_freq_factor", 0, 0);
    m->high = number(r, rs, m->name, "high_freq_factor", 0, 0);
    m->beta_fast = number(r, rs, m->name, "beta_fast", 0, 0);
    m->beta_slow = number(r, rs, m->name, "beta_slow", 0, 0);
    m->original_max = (int)number(r, rs, m->name, "original_max_position_embeddings", 0, 0);
    const cJSON *tr = cJSON_GetObjectItemCaseSensitive(rs, "truncate");
    if (tr != NULL && !cJSON_IsBool(tr))
        fail(r, "%s: \"truncate\" is not a boolean", m->name);
    m->truncate = tr == NULL || cJSON_IsTrue(tr);
}

static void read_model(reader *r, const cJSON *mj, harness_model *m)
{
    memset(m, 0, sizeof *m);
    snprintf(m->name, sizeof m->name, "%s", mj->string);
    if (!cJSON_IsObject(mj)) {
        fail(r, "model %s is not an object", m->name);
        return;
    }
    m->head_dim = (int)number(r, mj, m->name, "head_dim", 1, 0);
    m->rotary_dim = (int)number(r, mj, m->name, "rotary_dim", 1, 0);
    m->n_heads = (int)number(r, mj, m->name, "n_heads", 1, 0);
    m->n_kv_heads = (int)number(r, mj, m->name, "n_kv_heads", 1, 0);
    m->theta = number(r, mj, m->name, "rope_theta", 1, 0);
    m->max_pos = (int)number(r, mj, m->name, "max_position_embeddings", 1, 0);
    const cJSON *st = cJSON_GetObjectItemCaseSensitive(mj, "style");
    if (cJSON_IsString(st) && strcmp(st->valuestring, "neox") == 0)
        m->style = BICL_ROPE_NEOX;
    else if (cJSON_IsString(st) && strcmp(st->valuestring, "gptj") == 0)
        m->style = BICL_ROPE_GPTJ;
    else
        fail(r, "%s: \"style\" is not \"neox\" or \"gptj\"", m->name);
    m->type = BICL_ROPE_DEFAULT;
    m->truncate = 1;
    read_scaling(r, cJSON_GetObjectItemCaseSensitive(mj, "rope_scaling"), m);
}

int harness_models_read(const char *path, harness_model *models, int max,
                        harness_workload *workload, char *err, size_t err_size)
{
    reader r = {path, err, err_size, 0};
    char *text = harness_read_text(path);
    if (text == NULL) {
        fail(&r, "cannot read");
        return -1;
    }
    cJSON *root = cJSON_Parse(text);
    free(text);
    if (root == NULL) {
        fail(&r, "not valid JSON");
        return -1;
    }
    if (workload != NULL)
        read_workload(&r, cJSON_GetObjectItemCaseSensitive(root, "workload"), workload);
    const cJSON *ms = cJSON_GetObjectItemCaseSensitive(root, "models"), *mj;
    int count = 0;
    if (!cJSON_IsObject(ms))
        fail(&r, "no \"models\" object");
    else
        cJSON_ArrayForEach(mj, ms)
        {
            if (count == max) {
                fail(&r, "more than %d models", max);
                break;
            }
            read_model(&r, mj, &models[count++]);
        }
    cJSON_Delete(root);
    return r.failed ? -1 : count;
}
