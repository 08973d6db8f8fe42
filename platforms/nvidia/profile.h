/* NVIDIA (H200): 16-byte accesses per work-item reach the copy bandwidth, one float per
 * work-item reached 57% of it (../shared/gpu.md). Variants per launch class (src/
 * profile.h), from `bicl-bench --device nvidia --variants` on the H200 rig, 1 GiB,
 * 2026-12-03 (GB/s, docs/performance.md): with a 32-bit operand 4-wide (4/4/256: f32
 * add 4326, bf16 -> f32 cast 4012 against 2762 at 8/4/256, residual add 4134 against
 * 3639); all 16-bit 8-wide (8/4/256: bf16 add 4286 against 4155, bf16 scale 3978 against
 * 3530). Lookup tables 4/8/128 (silu bf16 3902 against 2945 at 8/4/256, same run, copy
 * 4225; ede70f8) and RoPE 8/1/128 (llama3 table bf16 3265 against 2994; rope_mla 2176
 * against 1992). Computed f32 activations (class ACT32) 8/1/128: on 2026-12-04 (device
 * call 3, 1 GiB, copy 4256) silu f32 2233 GB/s against 1738 at 4/4/256, gelu (erf) 1995
 * against 1864; gelu_tanh f32 ran 1562 against 1605 (its best, 4/8/128: 1663), and relu
 * f32, a load and a compare (not in this class), 3976 at 8/1/128 against 4192 at 4/4/256.
 * On the H100 (2026-12-06, `bicl-bench --device nvidia --sweep-only --sweep-op "f32->f32"
 * --min-mib 1024 --max-mib 1024 --reps 5`, copy 3028, the math of that day) ACT32 is 8/4/128:
 * silu f32 2623 GB/s against 2453 at 8/1/128, gelu_tanh 2235 against 2133, gelu (erf) 2230
 * against 2033, softcap 2498 against 2198 (softcap takes the class since then), and the
 * gated units with a costly activation take it too; on the H200, against 2a2ef32 (same
 * run, softcap's division form there; docs/results/ab-h200-session21-f32act.txt): silu f32 0.59 ->
 * 0.65 of copy, softcap 0.40 -> 0.60, swiglu f32 0.69 -> 0.75 (class 32X2's 4/4/256 before; its
 * sweep's best there, 4/8/128, 3243 GB/s against 3072 at 8/4/128). RoPE with an
 * f32 input (class ROPE32) 4/1/512: the llama3 table in place, f32, 3835 GB/s, the best of
 * the sweep, against 3408 at class 32's 4/4/256 (2026-12-04, copy 4228-4255). The longest
 * activation path, gelu (erf) and geglu (class ACT32L, after ROPE32) 4/8/128: on the H100
 * (2026-12-06, the sweep above) gelu f32's every 4-wide variant ran 1202-1253 GB/s against
 * 1027 at ACT32's 8/4/128 (on the standard fill; its erf series); geglu takes the class by
 * its element: its own H100 sweep (2026-12-06, twenty-fifth session) had 1665 GB/s at
 * 4/8/128 against 1598 at 8/4/128, its best 8/2/256 at 1809, and the twenty-sixth session's
 * sweep (H100, 2026-12-07) 8/2/0 at 1790 and 8/2/256 at 1767 against 1649 at 4/8/128: the
 * gated unit of that path (class GLU32L, after ACT32L) took 8/2/256, about 8 % over ACT32L's
 * variant. With gelu's erfcx a
 * rational sharing one division (2026-12-07, thirty-first session; the same sweeps, both
 * headers in one call, docs/results/sweep-h100-session31-gelu-geglu.txt) geglu's best moved
 * to 4 wide: 4/4/256 at 1847 GB/s against 1732 at 8/2/256 (the former header's best, 8/2/512,
 * 1813), so GLU32L is 4/4/256; gelu's 4/8/128 stays (1442 against the sweep's best, 8/1/0,
 * 1444). f16 conversions
 * by the device's half conversions (vload_half, vstore_half_rte; the next field): RoPE f16
 * 2492-2498 GB/s with the integer forms against 3161-3187 (0.59 -> 0.74-0.75 of copy;
 * 2026-12-05, docs/performance.md). The activations' plain form (the next field, 0): the
 * fix-up form is for compilers that vectorise across work-items; not timed here. The lane
 * loop unrolled (the next field, 1): H200, silu f32 rows_v4 0.43 -> 0.55 of copy, rows_v8
 * 0.53 -> 0.58 (2026-12-04); H100 with today's math, `BICL_LANE_LOOP=loop` against this, silu
 * f32 0.63 against 0.87, swiglu 0.64 against 0.98, gelu (erf) alone faster in the loop, 0.42
 * against 0.34 (2026-12-06, docs/performance.md). Work-groups fitted to each launch (the
 * last field, 0). */
BICL_PROFILE("nvidia", (4, 4, 256), (4, 4, 256), (4, 4, 256), (8, 4, 256), (4, 8, 128), (8, 1, 128),
             (8, 4, 128), (4, 1, 512), (4, 8, 128), (4, 4, 256), 0, 1, 0, 1, 0)
