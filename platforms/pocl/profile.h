/* PoCL (CPU): PoCL vectorises scalar kernels across the work-items of a work-group
 * itself, well over 32-bit loads and badly over 16-bit ones, and only a body without a
 * loop of its own (docs/performance.md). Variants per launch class (src/profile.h: all
 * inputs 32-bit / a 16-bit input with a 32-bit operand / all 16-bit / lookup table /
 * 16-bit RoPE / computed activations of a 32-bit input: 1/1/0 since 2026-12-05, one element
 * per work-item, which the fix-up form needs (the activations' form); before, class 32's 4/4/0,
 * the double path not vectorising either way). Measured with `bicl-bench --device pocl
 * --sweep-only --max-mib 32 --reps 3` on PoCL 3.1, 2 cores of an AMD EPYC under load,
 * 2026-12-03 (GB/s,
 * docs/performance.md): 32-bit inputs fastest at 4-wide then (f32 scale 14 at 4/4/0 vs 6 at
 * 1/1/0, f32 -> bf16 cast 13 vs 3; f32 add prefers 1/1: 9-13 vs 3), but since the rows_s
 * kernel's full groups run without a per-item test (BICL_ROWS_S_GUARDED) class 32 is at
 * 1/1/0 too (2026-12-05, fourteenth session: `--sweep-only --sweep-op OP --max-mib 64`,
 * 1/1/0 against 4/4/0: cast f32 -> f16 34 vs 10 GB/s, scale 34 vs 16, cast f32 -> bf16
 * 37 vs 30, mask fill 33 vs 27, relu 34 vs 18; 4/4/0's f16 store stayed 2-wide in the IR,
 * the rows_s kernel 8-wide); 16-bit inputs at
 * 1/1/0, the loop-free rows_s kernel (bf16 add 2 vs 1 at 1/2/0, silu bf16 table 8 vs 3,
 * residual add 3 vs 3). Two 32-bit inputs (class 32x2) at 1/1/0 too: on 2026-12-04
 * (`--sweep-only --sweep-op OP --max-mib 16 --reps 3`, copy 14-15 GB/s) f32 add ran 8
 * GB/s at 1/1/0 against 2 at 4/4/0, while f32 scale (one input) ran 14 at 4/4/0 and 6
 * at 1/1/0, and f32 mask fill 16 against 9. An earlier sweep on a Xeon had f32 add fastest at
 * 1/2/0: the best choice differs between CPUs. Work-group size is left to PoCL. RoPE 8/1/0: on
 * 2026-12-04 `--quick --max-mib 64 --reps 3` gave the llama3 table 0.12 of copy and
 * rope_mla 0.13 (the former 1/2/0 gave 0.04 in the bench of 10dba45/1102f9b). A 16 MiB
 * sweep, run with a RoPE kernel since reverted (60c1bde), had every 1/x at 2 GB/s and
 * 4/x, 8/x at 5-6; this kernel was not swept. RoPE's rows form (the last argument, 1:
 * BICL_OPTION_ROPE_FORM "auto" means "rows" here): one pair per work-item in a 2-d launch,
 * which PoCL vectorises (bf16 llama3 table 4.2-4.3 -> 16.7-17.7 GB/s at 64 MiB,
 * docs/performance.md, 2026-12-04). f16 conversions by the compiler's _Float16 casts (the next
 * field), which PoCL's LLVM vectorises: RoPE f16 7.7-11.4 -> 20.2-20.7 GB/s at 256 MiB
 * against bit work (0.25-0.34 -> 0.59-0.63 of copy; docs/performance.md, 2026-12-08); a
 * compiler that does not build them, or a self-test that finds other bits, leaves a context
 * on bit work. PoCL's vload_half / vstore_half_rte stay scalar (RoPE f16 1.9 GB/s against
 * 4.9-9.4 for bit work in the same runs; 2026-12-05). The longest activation paths (classes ACT32L and GLU32L,
 * after ROPE32) 1/1/0 as ACT32. The computed activations with a fast form in the fix-up form (the
 * third field from the end, 1): its branch-free side vectorises (silu f32 0.08 -> 0.24-0.30
 * of copy at 64 MiB, docs/performance.md, 2026-12-05). The vector kernels' lane loop as the
 * compiler chooses (the next-to-last field, 0): no default launch here runs a vector kernel
 * of the elementwise templates, and the unrolled loop made every program larger to build.
 * 1-d launches in fixed work-groups (the last field, 1): 512, or 4096 where the launch has at
 * least 4 groups of 4096 per compute unit, never halved. PoCL compiles a kernel's work-group
 * function again for every local size it meets: a clean CI's cache held 3,654 of them for
 * 2,099 kernel names (up to 20 per kernel) with groups fitted to each launch
 * (docs/performance.md, 2026-12-06). */
BICL_PROFILE("pocl", (1, 1, 0), (1, 1, 0), (1, 1, 0), (1, 1, 0), (1, 1, 0), (8, 1, 0), (1, 1, 0),
             (4, 4, 0), (1, 1, 0), (1, 1, 0), 1, BICL_F16_FLOAT16, 1, 0, 1)
