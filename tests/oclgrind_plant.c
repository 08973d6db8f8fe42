/* oclgrind_plant.c - a kernel that writes one element past its buffer, run through
 * bicl's program builder on the test device: the test `oclgrind_catches_a_planted_bug`
 * passes only when oclgrind reports it, so an empty log in the other oclgrind tests
 * means something (tests/oclgrind_run.sh). */
#include "common.h"

#include <stdio.h>

int main(void)
{
    bicl_context *ctx = NULL;
    if (bicl_context_create_default(test_device_spec(), NULL, &ctx) != BICL_SUCCESS) {
        fprintf(stderr, "no device '%s': %s\n", test_device_spec(), bicl_last_error(NULL));
        return 1;
    }
    static const char src[] = "kernel void past_the_end(global float *y) {\n"
                              "    y[get_global_id(0) + 1] = 1.0f;\n"
                              "}\n";
    cl_program p = NULL;
    cl_int err = CL_SUCCESS;
    cl_mem y = clCreateBuffer(bicl_context_cl_context(ctx), CL_MEM_READ_WRITE, 4 * sizeof(float),
                              NULL, &err);
    cl_command_queue q =
        clCreateCommandQueue(bicl_context_cl_context(ctx), bicl_context_device(ctx), 0, &err);
    int rc = 1;
    if (bicl_program_compile(ctx, "plant", src, sizeof src - 1, &p) == BICL_SUCCESS) {
        cl_kernel k = clCreateKernel(p, "past_the_end", &err);
        size_t n = 4;
        if (err == CL_SUCCESS && clSetKernelArg(k, 0, sizeof y, &y) == CL_SUCCESS &&
            clEnqueueNDRangeKernel(q, k, 1, NULL, &n, NULL, 0, NULL, NULL) == CL_SUCCESS &&
            clFinish(q) == CL_SUCCESS)
            rc = 0;
        if (k)
            clReleaseKernel(k);
        clReleaseProgram(p);
    }
    clReleaseCommandQueue(q);
    clReleaseMemObject(y);
    bicl_context_free(ctx);
    return rc;
}
