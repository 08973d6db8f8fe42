/* options.c - the options object and the build-option allow list (design rule 2). */
#include "options.h"
#include "profile.h"
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Options that cannot change a single result bit. */
static const char *const allowed_options[] = {
    "-w",
    "-Werror",
    "-cl-kernel-arg-info",
    "-cl-opt-disable",
    "-g",
    /* already part of the fixed options; repeating it changes nothing */
    "-cl-fp32-correctly-rounded-divide-sqrt",
};

/* Options that can change numerics, or that would let a caller redefine the
 * library's internals or its language version. A prefix match counts. */
static const char *const unsafe_prefixes[] = {
    "-cl-fast-relaxed-math",
    "-cl-mad-enable",
    "-cl-unsafe-math-optimizations",
    "-cl-finite-math-only",
    "-cl-denorms-are-zero",
    "-cl-no-signed-zeros",
    "-cl-single-precision-constant",
    "-cl-std",
    "-D",
    "-U",
    "-I",
    "-x",
    "-cl-uniform-work-group-size",
    "-cl-strict-aliasing",
};

static bicl_status check_one_option(const char *tok, size_t len)
{
    for (size_t i = 0; i < sizeof allowed_options / sizeof allowed_options[0]; ++i)
        if (strlen(allowed_options[i]) == len && strncmp(tok, allowed_options[i], len) == 0)
            return BICL_SUCCESS;
    for (size_t i = 0; i < sizeof unsafe_prefixes / sizeof unsafe_prefixes[0]; ++i) {
        size_t pl = strlen(unsafe_prefixes[i]);
        if (len >= pl && strncmp(tok, unsafe_prefixes[i], pl) == 0)
            return bicl_fail(BICL_ERR_UNSAFE_OPTION,
                             "build option '%.*s' can change numerics or internals; refused",
                             (int)len, tok);
    }
    return bicl_fail(BICL_ERR_UNKNOWN_OPTION, "build option '%.*s' is not on the allow list",
                     (int)len, tok);
}

bicl_status bicl_check_build_options(const char *extra)
{
    bicl_clear_error();
    if (!extra)
        return BICL_SUCCESS;
    const char *p = extra;
    while (*p) {
        while (*p && isspace((unsigned char)*p))
            ++p;
        const char *start = p;
        while (*p && !isspace((unsigned char)*p))
            ++p;
        if (p > start) {
            bicl_status st = check_one_option(start, (size_t)(p - start));
            if (st != BICL_SUCCESS)
                return st;
        }
    }
    return BICL_SUCCESS;
}

void bicl_options_defaults(bicl_options *o)
{
    memset(o, 0, sizeof *o);
    o->disk_cache = 1;
    snprintf(o->profile, sizeof o->profile, "auto");
    o->act_tables = BICL_ACT_TABLES_UNSET;
    o->rope_specialise = 1;
    o->rope_form = BICL_ROPE_FORM_UNSET;
}

int bicl_act_tables_parse(const char *value)
{
    if (!value || !*value)
        return BICL_ACT_TABLES_UNSET;
    if (strcmp(value, "auto") == 0)
        return BICL_ACT_TABLES_AUTO;
    if (strcmp(value, "off") == 0)
        return BICL_ACT_TABLES_OFF;
    if (strcmp(value, "full") == 0)
        return BICL_ACT_TABLES_FULL;
    if (strcmp(value, "compact") == 0)
        return BICL_ACT_TABLES_COMPACT;
    return -2;
}

int bicl_rope_form_parse(const char *value)
{
    if (!value || !*value)
        return BICL_ROPE_FORM_UNSET;
    if (strcmp(value, "auto") == 0)
        return BICL_ROPE_FORM_AUTO;
    if (strcmp(value, "units") == 0)
        return BICL_ROPE_FORM_UNITS;
    if (strcmp(value, "rows") == 0)
        return BICL_ROPE_FORM_ROWS;
    return -3;
}

bicl_status bicl_options_create(bicl_options **out)
{
    bicl_clear_error();
    if (!out)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_options_create: out is NULL");
    bicl_options *o = malloc(sizeof *o);
    if (!o)
        return bicl_fail(BICL_ERR_OUT_OF_HOST_MEMORY, "bicl_options_create");
    bicl_options_defaults(o);
    *out = o;
    return BICL_SUCCESS;
}

void bicl_options_free(bicl_options *opts)
{
    free(opts);
}

static bicl_status copy_string(char *dst, size_t n, const char *value, const char *what)
{
    const char *v = value ? value : "";
    if (strlen(v) >= n)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "%s is too long (%zu bytes, limit %zu)", what,
                         strlen(v), n - 1);
    memcpy(dst, v, strlen(v) + 1);
    return BICL_SUCCESS;
}

bicl_status bicl_options_set_string(bicl_options *opts, bicl_option key, const char *value)
{
    bicl_clear_error();
    if (!opts)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_options_set_string: opts is NULL");
    switch (key) {
    case BICL_OPTION_BUILD_OPTIONS: {
        bicl_status st = bicl_check_build_options(value);
        if (st != BICL_SUCCESS)
            return st;
        return copy_string(opts->build_options, sizeof opts->build_options, value, "build options");
    }
    case BICL_OPTION_CACHE_DIR:
        return copy_string(opts->cache_dir, sizeof opts->cache_dir, value, "cache directory");
    case BICL_OPTION_PROFILE:
        if (value && strcmp(value, "auto") != 0 && !bicl_profile_by_name(value))
            return bicl_fail(BICL_ERR_INVALID_PARAMETER, "unknown profile '%s'", value);
        return copy_string(opts->profile, sizeof opts->profile, value ? value : "auto", "profile");
    case BICL_OPTION_ACT_TABLES: {
        int v = bicl_act_tables_parse(value);
        if (v == -2)
            return bicl_fail(BICL_ERR_INVALID_PARAMETER,
                             "activation tables '%s': \"auto\", \"off\", \"full\" or \"compact\"",
                             value);
        opts->act_tables = v;
        return BICL_SUCCESS;
    }
    case BICL_OPTION_ROPE_FORM: {
        int v = bicl_rope_form_parse(value);
        if (v == -3)
            return bicl_fail(BICL_ERR_INVALID_PARAMETER,
                             "RoPE form '%s': \"auto\", \"units\" or \"rows\"", value);
        opts->rope_form = v;
        return BICL_SUCCESS;
    }
    case BICL_OPTION_DISK_CACHE:
    case BICL_OPTION_ROPE_SPECIALISE:
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "option %d takes an integer", (int)key);
    default:
        return bicl_fail(BICL_ERR_INVALID_ENUM, "unknown option key %d", (int)key);
    }
}

bicl_status bicl_options_set_int(bicl_options *opts, bicl_option key, long value)
{
    bicl_clear_error();
    if (!opts)
        return bicl_fail(BICL_ERR_NULL_POINTER, "bicl_options_set_int: opts is NULL");
    switch (key) {
    case BICL_OPTION_DISK_CACHE:
        if (value != 0 && value != 1)
            return bicl_fail(BICL_ERR_INVALID_PARAMETER, "disk cache flag must be 0 or 1");
        opts->disk_cache = (int)value;
        return BICL_SUCCESS;
    case BICL_OPTION_ROPE_SPECIALISE:
        if (value != 0 && value != 1)
            return bicl_fail(BICL_ERR_INVALID_PARAMETER, "RoPE specialisation flag must be 0 or 1");
        opts->rope_specialise = (int)value;
        return BICL_SUCCESS;
    case BICL_OPTION_BUILD_OPTIONS:
    case BICL_OPTION_CACHE_DIR:
    case BICL_OPTION_PROFILE:
    case BICL_OPTION_ACT_TABLES:
    case BICL_OPTION_ROPE_FORM:
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "option %d takes a string", (int)key);
    default:
        return bicl_fail(BICL_ERR_INVALID_ENUM, "unknown option key %d", (int)key);
    }
}
