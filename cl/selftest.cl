/* selftest.cl - the device self-test run at context creation (src/selftest.c): each
 * work-item evaluates one case of bicl_selftest.h, which the host evaluates too.
 * Inputs: per case {op, a, b, c} as ulongs; output: the result's bits. */
#pragma OPENCL FP_CONTRACT OFF
#include "bicl_selftest.h"

__kernel void bicl_selftest(__global const ulong *cases, __global ulong *out, uint n)
{
    size_t i = get_global_id(0);
    if (i >= n)
        return;
    __global const ulong *k = cases + 4 * i;
    out[i] = bicl_selftest_eval((uint)k[0], k[1], k[2], k[3]);
}
