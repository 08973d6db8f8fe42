/* PoCL (CPU): PoCL vectorises scalar kernels across the work-items of a work-group
 * itself, well over 32-bit loads and badly over 16-bit ones. Variants per launch class
 * (src/profile.h: all inputs 32-bit / a 16-bit input with a 32-bit operand / all
 * 16-bit). Measured with `bicl-bench --device pocl --sweep-only --max-mib 64 --reps 5`
 * on PoCL 3.1, 2 cores of an AMD EPYC, 2026-12-03 (GB/s, docs/performance.md): 32-bit
 * inputs fastest at 4/4/0 (f32 scale 18 vs 7 at 1/2/0, f32 -> bf16 cast 30 vs 9, f32
 * mask fill 26 vs 11); 16-bit inputs at 1/2/0 (bf16 add 5 vs 2 at 4/4/0, bf16 -> f32
 * cast 10 vs 5, residual add 11 vs 5). An earlier sweep on a Xeon had f32 add fastest
 * at 1/2/0: the best choice differs between CPUs. Work-group size is left to PoCL. */
BICL_PROFILE("pocl", (4, 4, 0), (1, 2, 0), (1, 2, 0), (1, 2, 0), (1, 2, 0))
