/* bicl-info - lists OpenCL devices with bicl's suitability verdict (what each
 * advertises, then the self-test's proof) and a spec that names each, then what a spec
 * (or BICL_DEVICE) matches and the numerics fingerprint of the device it chooses. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void usage(void)
{
    printf("usage: bicl-info [--device SPEC]\n"
           "       bicl-info [--device SPEC] --source FAMILY [INSTANCE]\n"
           "  Lists every OpenCL device with its index (usable as SPEC), platform, driver,\n"
           "  bicl's suitability verdict (the self-test runs on each device) and a text\n"
           "  spec that names it alone, then the devices SPEC matches and the fingerprint\n"
           "  of the chosen device.\n"
           "  SPEC: index, or text found in the platform/vendor/device name, optionally\n"
           "  followed by :N for the N-th match; a text that matches several devices is\n"
           "  an error (default: $BICL_DEVICE, else the first suitable device).\n"
           "  --source: prints the exact program text a kernel is built from on that device:\n"
           "  FAMILY (cast, rope, unary, glu, binary, mask, selftest) with INSTANCE as the\n"
           "  library appends it, e.g. 'UNARY_PAIR(silu, SILU, 0, bf16, bf16)' (none: the\n"
           "  whole family).\n");
}

/* --source: the program text of (family, instance) on the context's device. */
static int print_source(const char *spec, const char *family, const char *instance)
{
    int f = 0;
    while (f < BICL_FAMILY_COUNT && strcmp(bicl_family_name((bicl_family)f), family) != 0)
        ++f;
    if (f == BICL_FAMILY_COUNT) {
        fprintf(stderr, "bicl-info: unknown family '%s'\n", family);
        return 2;
    }
    bicl_context *ctx = NULL;
    bicl_status st = bicl_context_create_default(spec, NULL, &ctx);
    char *text = NULL;
    size_t size = 0;
    if (st == BICL_SUCCESS)
        st = bicl_program_source(ctx, (bicl_family)f, instance, &text, &size);
    if (st != BICL_SUCCESS) {
        fprintf(stderr, "bicl-info: %s\n  %s\n", bicl_status_string(st), bicl_last_error(NULL));
        bicl_context_free(ctx);
        return 1;
    }
    fwrite(text, 1, size, stdout);
    free(text);
    bicl_context_free(ctx);
    return 0;
}

/* A spec naming device i alone: its platform name, device name or vendor when one of
 * them matches no other device; else its index. */
static void unique_spec(const bicl_device_info *infos, size_t n, size_t i, char *out, size_t size)
{
    const char *candidates[3] = {infos[i].platform_name, infos[i].device_name, infos[i].vendor};
    for (int c = 0; c < 3; ++c) {
        size_t idx[2];
        if (candidates[c][0] && bicl_device_spec_matches(candidates[c], infos, n, idx, 2) == 1) {
            snprintf(out, size, "'%.255s' or %zu", candidates[c], i);
            return;
        }
    }
    snprintf(out, size, "%zu", i);
}

/* Which devices the spec matches (text specs only). */
static void show_matches(const char *spec, const bicl_device_info *infos, size_t n)
{
    char text[256];
    snprintf(text, sizeof text, "%s", spec);
    char *colon = strrchr(text, ':');
    if (colon && colon[1] && strspn(colon + 1, "0123456789") == strlen(colon + 1))
        *colon = '\0';
    if (!text[0] || strspn(text, "0123456789") == strlen(text))
        return;
    size_t idx[64];
    size_t m = bicl_device_spec_matches(text, infos, n, idx, 64);
    printf("\nspec '%s' matches %zu device%s:", spec, m, m == 1 ? "" : "s");
    for (size_t k = 0; k < m && k < 64; ++k)
        printf(" [%zu]", idx[k]);
    printf("\n");
}

int main(int argc, char **argv)
{
    const char *spec = NULL, *family = NULL, *instance = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            spec = argv[++i];
        } else if (strcmp(argv[i], "--source") == 0 && i + 1 < argc) {
            family = argv[++i];
            if (i + 1 < argc && argv[i + 1][0] != '-')
                instance = argv[++i];
        } else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    if (family)
        return print_source(spec, family, instance);
    printf("bicl %s\n\n", bicl_version_string());
    cl_device_id devs[64];
    size_t n = 0;
    if (bicl_device_list(devs, 64, &n) != BICL_SUCCESS) {
        printf("cannot list devices: %s\n", bicl_last_error(NULL));
        return 1;
    }
    if (n == 0)
        printf("no OpenCL device found (is an ICD installed? e.g. pocl-opencl-icd)\n");
    static bicl_device_info infos[64];
    n = n < 64 ? n : 64;
    for (size_t i = 0; i < n; ++i)
        if (bicl_device_query(devs[i], &infos[i]) != BICL_SUCCESS)
            memset(&infos[i], 0, sizeof infos[i]);
    for (size_t i = 0; i < n; ++i) {
        char why[1024], advertised[1024], names[600];
        bicl_device_suitability(&infos[i], advertised, sizeof advertised);
        bicl_status st = bicl_device_check(devs[i], why, sizeof why);
        unique_spec(infos, n, i, names, sizeof names);
        printf("[%zu] %s | %s | driver %s\n    %s: %s\n    advertised: %s\n    spec: %s\n", i,
               infos[i].platform_name, infos[i].device_name, infos[i].driver_version,
               st == BICL_SUCCESS ? "SUITABLE" : "UNSUITABLE", why, advertised, names);
    }
    const char *chosen_spec = spec && *spec ? spec : getenv("BICL_DEVICE");
    if (chosen_spec)
        show_matches(chosen_spec, infos, n);
    bicl_context *ctx = NULL;
    bicl_status st = bicl_context_create_default(spec, NULL, &ctx);
    if (st != BICL_SUCCESS) {
        printf("\nno context: %s\n  %s\n", bicl_status_string(st), bicl_last_error(NULL));
        return 1;
    }
    bicl_variant v;
    bicl_context_get_variant(ctx, &v);
    printf("\nchosen: %s\nprofile: %s (vector width %u, items per thread %u, work-group %zu)\n"
           "fingerprint: %s\nfingerprint hash: %016llx\n",
           ctx->info.device_name, bicl_context_profile(ctx), v.vector_width, v.items_per_thread,
           v.work_group_size, bicl_fingerprint(ctx),
           (unsigned long long)bicl_fingerprint_hash(ctx));
    printf("kernel forms: RoPE %s, f16 conversions %s, activations one per work-item %s, "
           "vector kernels' lane loop %s, 1-d work-groups ",
           ctx->rope_rows ? "rows" : "units",
           ctx->f16_form == BICL_F16_FLOAT16  ? "by the compiler (_Float16 casts)"
           : ctx->f16_form == BICL_F16_DEVICE ? "by the device (vload_half, vstore_half_rte)"
                                              : "by integer bit work",
           ctx->act_fixup ? "fast form with fix-up (_rows_f)" : "plain (_rows_s)",
           ctx->lane_loop == BICL_LANE_LOOP_UNROLLED ? "unrolled by request (unrolled)"
           : ctx->lane_loop == BICL_LANE_LOOP_ROLLED ? "kept a loop by request (rolled: unroll 1)"
                                                     : "as the compiler chooses (loop)");
    if (ctx->profile->fixed_groups)
        printf("fixed (%d, or %d with %d such groups per compute unit)\n", BICL_ROWS_WORK_GROUP,
               BICL_LARGE_WORK_GROUP, BICL_LARGE_GROUPS_PER_UNIT);
    else
        printf("fitted to each launch\n");
    printf("activation tables: %s\n", ctx->act_tables == BICL_ACT_TABLES_OFF ? "off"
                                      : ctx->act_tables == BICL_ACT_TABLES_COMPACT
                                          ? "16-bit unary tables compact"
                                          : "full");
    printf("disk cache: %s\n", ctx->cache_dir[0] ? ctx->cache_dir : "off");
    bicl_context_free(ctx);
    return 0;
}
