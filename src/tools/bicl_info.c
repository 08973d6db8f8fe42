/* bicl-info - lists OpenCL devices with bicl's suitability verdict, and the numerics
 * fingerprint of the device a spec (or BICL_DEVICE, or the default) chooses. */
#include "internal.h"

#include <stdio.h>
#include <string.h>

static void usage(void)
{
    printf("usage: bicl-info [--device SPEC]\n"
           "  Lists every OpenCL device with its index (usable as SPEC), platform, driver\n"
           "  and bicl's suitability verdict, then the fingerprint of the chosen device.\n"
           "  SPEC: index, or text found in the platform/vendor/device name, optionally\n"
           "  followed by :N for the N-th match (default: $BICL_DEVICE, else the first\n"
           "  suitable device).\n");
}

int main(int argc, char **argv)
{
    const char *spec = NULL;
    for (int i = 1; i < argc; ++i) {
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc) {
            spec = argv[++i];
        } else {
            usage();
            return strcmp(argv[i], "--help") == 0 ? 0 : 2;
        }
    }
    printf("bicl %s\n\n", bicl_version_string());
    cl_device_id devs[64];
    size_t n = 0;
    if (bicl_device_list(devs, 64, &n) != BICL_SUCCESS) {
        printf("cannot list devices: %s\n", bicl_last_error(NULL));
        return 1;
    }
    if (n == 0)
        printf("no OpenCL device found (is an ICD installed? e.g. pocl-opencl-icd)\n");
    for (size_t i = 0; i < n && i < 64; ++i) {
        bicl_device_info info;
        if (bicl_device_query(devs[i], &info) != BICL_SUCCESS)
            continue;
        char why[1024];
        bicl_status st = bicl_device_suitability(&info, why, sizeof why);
        printf("[%zu] %s | %s | driver %s\n    %s: %s\n", i, info.platform_name, info.device_name,
               info.driver_version, st == BICL_SUCCESS ? "SUITABLE" : "UNSUITABLE", why);
    }
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
    printf("disk cache: %s\n", ctx->cache_dir[0] ? ctx->cache_dir : "off");
    bicl_context_free(ctx);
    return 0;
}
