/* PoCL (CPU): PoCL vectorises scalar kernels across the work-items of a work-group
 * itself. Measured with `bicl-bench --variants` on PoCL 3.1, 2 cores, 256 MiB buffers
 * (docs/performance.md): f32 add is fastest scalar with 2 elements per work-item
 * (20 GB/s vs 14 at 1/1/0); f32 -> bf16 cast fastest with 4-wide vectors, 4 per item
 * (27 GB/s vs 5 at 1/1/0). Work-group size is left to PoCL (no measurable effect). */
BICL_PROFILE("pocl", 1, 2, 0, 4, 4, 0)
