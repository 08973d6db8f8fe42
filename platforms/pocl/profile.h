/* PoCL (CPU): PoCL vectorises scalar kernels across the work-items of a work-group
 * itself; explicit vector code with per-lane calls was 6x slower there
 * (../shared/gpu.md), so loads stay scalar. Work-group size is left to PoCL. */
BICL_PROFILE("pocl", 1, 1, 0)
