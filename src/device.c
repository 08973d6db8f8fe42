/* device.c - device capabilities, suitability (design rule 3: what a device advertises
 * here, what it proves in src/selftest.c) and device specs. */
#include "device.h"
#include "status.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void get_device_string(cl_device_id d, cl_device_info what, char *out, size_t n)
{
    out[0] = '\0';
    if (clGetDeviceInfo(d, what, n, out, NULL) != CL_SUCCESS)
        out[0] = '\0';
    out[n - 1] = '\0';
}

static unsigned fp_caps(cl_device_fp_config cfg)
{
    unsigned caps = 0;
    if (cfg & CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)
        caps |= BICL_CAP_CR_DIVIDE_SQRT;
    if (cfg & CL_FP_DENORM)
        caps |= BICL_CAP_DENORM;
    if (cfg & CL_FP_INF_NAN)
        caps |= BICL_CAP_INF_NAN;
    if (cfg & CL_FP_ROUND_TO_NEAREST)
        caps |= BICL_CAP_ROUND_NEAREST;
    if (cfg & CL_FP_FMA)
        caps |= BICL_CAP_FMA;
    return caps;
}

/* fp64 counts only when it is IEEE with denormals, round to nearest and fma: the
 * RoPE angle math needs exactly that. */
static bool fp64_usable(cl_device_id d)
{
    char ext[8192];
    get_device_string(d, CL_DEVICE_EXTENSIONS, ext, sizeof ext);
    if (!strstr(ext, "cl_khr_fp64"))
        return false;
    cl_device_fp_config cfg = 0;
    if (clGetDeviceInfo(d, CL_DEVICE_DOUBLE_FP_CONFIG, sizeof cfg, &cfg, NULL) != CL_SUCCESS)
        return false;
    const cl_device_fp_config need =
        CL_FP_DENORM | CL_FP_INF_NAN | CL_FP_ROUND_TO_NEAREST | CL_FP_FMA;
    return (cfg & need) == need;
}

/* "OpenCL C <major>.<minor> ..." says at least 1.2. strtol, unlike sscanf's %d, has
 * defined behaviour for any digits a driver may report. */
static bool opencl_c_at_least_12(const char *version)
{
    static const char prefix[] = "OpenCL C ";
    if (strncmp(version, prefix, sizeof prefix - 1) != 0)
        return false;
    const char *p = version + sizeof prefix - 1;
    char *end = NULL;
    long major = strtol(p, &end, 10);
    if (end == p || *end != '.')
        return false;
    p = end + 1;
    long minor = strtol(p, &end, 10);
    if (end == p)
        return false;
    return major > 1 || (major == 1 && minor >= 2);
}

bicl_status bicl_device_query(cl_device_id dev, bicl_device_info *info)
{
    memset(info, 0, sizeof *info);
    cl_platform_id plat = NULL;
    cl_int err = clGetDeviceInfo(dev, CL_DEVICE_PLATFORM, sizeof plat, &plat, NULL);
    if (err != CL_SUCCESS)
        return bicl_fail(err == CL_INVALID_DEVICE ? BICL_ERR_INVALID_HANDLE : BICL_ERR_OPENCL,
                         "clGetDeviceInfo(CL_DEVICE_PLATFORM): %s", bicl_cl_error_name(err));
    clGetPlatformInfo(plat, CL_PLATFORM_NAME, sizeof info->platform_name, info->platform_name,
                      NULL);
    clGetPlatformInfo(plat, CL_PLATFORM_VERSION, sizeof info->platform_version,
                      info->platform_version, NULL);
    info->platform_name[sizeof info->platform_name - 1] = '\0';
    info->platform_version[sizeof info->platform_version - 1] = '\0';
    get_device_string(dev, CL_DEVICE_VENDOR, info->vendor, sizeof info->vendor);
    get_device_string(dev, CL_DEVICE_NAME, info->device_name, sizeof info->device_name);
    get_device_string(dev, CL_DRIVER_VERSION, info->driver_version, sizeof info->driver_version);

    cl_device_fp_config cfg = 0;
    clGetDeviceInfo(dev, CL_DEVICE_SINGLE_FP_CONFIG, sizeof cfg, &cfg, NULL);
    info->caps = fp_caps(cfg);
    if (fp64_usable(dev) && !bicl_fp64_hidden())
        info->caps |= BICL_CAP_FP64;
    cl_bool b = CL_FALSE;
    if (clGetDeviceInfo(dev, CL_DEVICE_ENDIAN_LITTLE, sizeof b, &b, NULL) == CL_SUCCESS && b)
        info->caps |= BICL_CAP_LITTLE_ENDIAN;
    b = CL_FALSE;
    if (clGetDeviceInfo(dev, CL_DEVICE_COMPILER_AVAILABLE, sizeof b, &b, NULL) == CL_SUCCESS && b)
        info->caps |= BICL_CAP_COMPILER;
    char cver[256];
    get_device_string(dev, CL_DEVICE_OPENCL_C_VERSION, cver, sizeof cver);
    if (opencl_c_at_least_12(cver))
        info->caps |= BICL_CAP_OPENCL_C_12;
    clGetDeviceInfo(dev, CL_DEVICE_MAX_WORK_GROUP_SIZE, sizeof info->max_work_group,
                    &info->max_work_group, NULL);
    cl_uint align_bits = 0;
    clGetDeviceInfo(dev, CL_DEVICE_MEM_BASE_ADDR_ALIGN, sizeof align_bits, &align_bits, NULL);
    info->mem_base_align_bytes = align_bits / 8;
    if (clGetDeviceInfo(dev, CL_DEVICE_MAX_COMPUTE_UNITS, sizeof info->compute_units,
                        &info->compute_units, NULL) != CL_SUCCESS ||
        info->compute_units == 0)
        info->compute_units = 1;
    return BICL_SUCCESS;
}

bool bicl_fp64_hidden(void)
{
    const char *v = getenv("BICL_HIDE_FP64");
    return v && strcmp(v, "1") == 0;
}

static const struct {
    unsigned cap;
    const char *missing;
} required_caps[] = {
    {BICL_CAP_CR_DIVIDE_SQRT, "correctly rounded fp32 divide and sqrt "
                              "(CL_FP_CORRECTLY_ROUNDED_DIVIDE_SQRT)"},
    {BICL_CAP_DENORM, "fp32 denormals (CL_FP_DENORM)"},
    {BICL_CAP_INF_NAN, "fp32 inf and NaN (CL_FP_INF_NAN)"},
    {BICL_CAP_ROUND_NEAREST, "fp32 round to nearest (CL_FP_ROUND_TO_NEAREST)"},
    {BICL_CAP_LITTLE_ENDIAN, "a little-endian device (host and device share bit patterns)"},
    {BICL_CAP_COMPILER, "an OpenCL C compiler (CL_DEVICE_COMPILER_AVAILABLE)"},
    {BICL_CAP_OPENCL_C_12, "OpenCL C 1.2 or later"},
};

/* Appends "; "-separated text to why[n] at *used (counting past n when it is full). */
static void why_append(char *why, size_t n, size_t *used, const char *prefix, const char *text)
{
    if (n > *used) {
        int w = snprintf(why + *used, n - *used, "%s%s%s", *used ? "; " : "", prefix, text);
        *used += w > 0 ? (size_t)w : 0;
    } else {
        *used += 1;
    }
}

bicl_status bicl_device_suitability(const bicl_device_info *info, char *why, size_t n)
{
    size_t used = 0, provable = 0;
    if (n)
        why[0] = '\0';
    for (size_t i = 0; i < sizeof required_caps / sizeof required_caps[0]; ++i)
        if (!(info->caps & required_caps[i].cap) && !(required_caps[i].cap & BICL_CAPS_PROVABLE))
            why_append(why, n, &used, "missing ", required_caps[i].missing);
    if (used)
        return BICL_ERR_DEVICE_UNSUITABLE;
    if (n)
        snprintf(why, n, "suitable%s if the self-test passes",
                 (info->caps & BICL_CAP_FP64) ? " (fp64)" : " (no fp64)");
    used = strlen(why);
    for (size_t i = 0; i < sizeof required_caps / sizeof required_caps[0]; ++i)
        if (!(info->caps & required_caps[i].cap) && (required_caps[i].cap & BICL_CAPS_PROVABLE))
            why_append(why, n, &used, provable++ ? "" : "it must prove ", required_caps[i].missing);
    return BICL_SUCCESS;
}

/* ------------------------------------------------------------ device specs */

static bool contains_ci(const char *hay, const char *needle)
{
    size_t n = strlen(needle);
    for (; *hay; ++hay) {
        size_t i = 0;
        while (i < n && hay[i] &&
               tolower((unsigned char)hay[i]) == tolower((unsigned char)needle[i]))
            ++i;
        if (i == n)
            return true;
    }
    return n == 0;
}

static bool all_digits(const char *s)
{
    if (!*s)
        return false;
    for (; *s; ++s)
        if (!isdigit((unsigned char)*s))
            return false;
    return true;
}

size_t bicl_device_spec_matches(const char *text, const bicl_device_info *infos, size_t n,
                                size_t *idx, size_t max)
{
    size_t m = 0;
    for (size_t i = 0; i < n; ++i) {
        const bicl_device_info *d = &infos[i];
        /* PoCL's platform is "Portable Computing Language"; its version names PoCL. */
        if (!contains_ci(d->platform_name, text) && !contains_ci(d->vendor, text) &&
            !contains_ci(d->device_name, text) && !contains_ci(d->platform_version, text))
            continue;
        if (m < max)
            idx[m] = i;
        ++m;
    }
    return m;
}

/* "[0] Portable Computing Language | pthread-haswell-AMD EPYC; [1] ..." */
static void list_matches(const bicl_device_info *infos, const size_t *idx, size_t m, char *out,
                         size_t n)
{
    size_t used = 0;
    out[0] = '\0';
    for (size_t k = 0; k < m; ++k) {
        char item[600];
        snprintf(item, sizeof item, "[%zu] %.250s | %.250s", idx[k], infos[idx[k]].platform_name,
                 infos[idx[k]].device_name);
        why_append(out, n, &used, "", item);
    }
}

bicl_status bicl_device_spec_resolve(const char *spec, const bicl_device_info *infos, size_t n,
                                     size_t *chosen)
{
    if (all_digits(spec)) {
        unsigned long i = strtoul(spec, NULL, 10);
        if (i >= n)
            return bicl_fail(BICL_ERR_DEVICE_NOT_FOUND, "device index %lu: only %zu devices", i, n);
        *chosen = i;
        return BICL_SUCCESS;
    }
    char text[256];
    snprintf(text, sizeof text, "%s", spec);
    char *colon = strrchr(text, ':');
    bool numbered = colon && all_digits(colon + 1);
    unsigned long want = numbered ? strtoul(colon + 1, NULL, 10) : 0;
    if (numbered)
        *colon = '\0';
    size_t idx[64];
    size_t m = bicl_device_spec_matches(text, infos, n, idx, 64);
    char list[2048];
    list_matches(infos, idx, m < 64 ? m : 64, list, sizeof list);
    if (m == 0)
        return bicl_fail(BICL_ERR_DEVICE_NOT_FOUND, "no device matches '%s'", spec);
    if (!numbered && m > 1)
        return bicl_fail(BICL_ERR_DEVICE_AMBIGUOUS,
                         "device spec '%s' matches %zu devices: %s; name one with '%s:N' or "
                         "its index",
                         spec, m, list, text);
    if (want >= m || want >= 64)
        return bicl_fail(BICL_ERR_DEVICE_NOT_FOUND, "device spec '%s': only %zu match: %s", spec, m,
                         list);
    *chosen = idx[want];
    return BICL_SUCCESS;
}
