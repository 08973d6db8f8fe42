/* bicl-check - runs bicl's contract on a device (interim version: cast only; the
 * harness replaces this body). Exit status 0 when everything passes, 1 otherwise. */
#include "internal.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(int argc, char **argv)
{
    const char *spec = NULL;
    for (int i = 1; i < argc; ++i)
        if (strcmp(argv[i], "--device") == 0 && i + 1 < argc)
            spec = argv[++i];
    bicl_context *ctx = NULL;
    if (bicl_context_create_default(spec, NULL, &ctx) != BICL_SUCCESS) {
        fprintf(stderr, "bicl-check: %s\n", bicl_last_error(NULL));
        return 1;
    }
    printf("device: %s\nfingerprint: %s\n", ctx->info.device_name, bicl_fingerprint(ctx));
    cl_int err;
    cl_command_queue q = clCreateCommandQueue(ctx->cl_ctx, ctx->device, 0, &err);
    enum { n = 1 << 16 };
    static uint16_t x[n], ref[n], y[n];
    for (size_t i = 0; i < n; ++i)
        x[i] = (uint16_t)i;
    int failed = 0;
    for (int a = 1; a <= 2; ++a)
        for (int b = 1; b <= 2; ++b) {
            cl_mem bx = clCreateBuffer(ctx->cl_ctx, CL_MEM_COPY_HOST_PTR, sizeof x, x, &err);
            cl_mem by = clCreateBuffer(ctx->cl_ctx, CL_MEM_READ_WRITE, sizeof y, NULL, &err);
            size_t shape[1] = {n};
            bicl_tensor tx = bicl_tensor_contiguous(bx, (bicl_dtype)a, 0, 1, shape);
            bicl_tensor ty = bicl_tensor_contiguous(by, (bicl_dtype)b, 0, 1, shape);
            int ok = bicl_cast(ctx, q, &tx, &ty, 0, NULL, NULL) == BICL_SUCCESS &&
                     clEnqueueReadBuffer(q, by, CL_TRUE, 0, sizeof y, y, 0, NULL, NULL) == 0 &&
                     bicl_ref_cast((bicl_dtype)a, x, (bicl_dtype)b, ref, n) == BICL_SUCCESS &&
                     memcmp(y, ref, sizeof y) == 0;
            printf("cast %-4s -> %-4s R %s\n", bicl_dtype_name((bicl_dtype)a),
                   bicl_dtype_name((bicl_dtype)b), ok ? "pass" : "FAIL");
            failed |= !ok;
            clReleaseMemObject(bx);
            clReleaseMemObject(by);
        }
    clReleaseCommandQueue(q);
    bicl_context_free(ctx);
    printf("%s\n", failed ? "FAILED" : "all pass");
    return failed;
}
