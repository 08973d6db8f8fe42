/* profile.h - layer 1: launch classes and the vendor profiles' default
 * variants (profile.c). */
#ifndef BICL_SRC_PROFILE_H
#define BICL_SRC_PROFILE_H

#include "bicl/bicl.h"

#include <stdbool.h>

/* Launch classes, each with its own default variant. Elementwise launches by element
 * size (the best vector width depends on it: NVIDIA wants 16-byte accesses of the
 * widest operand, PoCL vectorises 32-bit loads well and 16-bit ones badly):
 *   BICL_VCLASS_32     one floating-point input, 32-bit (the output may be 16-bit)
 *   BICL_VCLASS_32X2   two or more floating-point inputs, all 32-bit (binary ops, the
 *                      gated units of a cheap activation: reglu, fatrelu, swiglu_oai;
 *                      PoCL vectorises their one-element kernel and not their 4-wide
 *                      one, where a single input prefers 4-wide)
 *   BICL_VCLASS_MIXED  a 16-bit input and some 32-bit operand (widening casts,
 *                      residual add of a bf16 delta into an f32 stream)
 *   BICL_VCLASS_16     every floating-point operand is 16-bit
 * (masks, u8 and i32, do not count), and three by kernel kind, whose work per element
 * differs from a stream's:
 *   BICL_VCLASS_TABLE   16-bit activations read from a lookup table (a gather per element)
 *   BICL_VCLASS_ROPE16  RoPE, RoPE slice and M-RoPE with 16-bit input and output (a
 *                       head's pairs per work unit); with a 16-bit input and a 32-bit
 *                       output they take class MIXED, as elementwise launches do
 *   BICL_VCLASS_ROPE32  the same with a 32-bit input (on the H200 f32 RoPE ran 3835
 *                       GB/s at 4/1/512 against 3408 at class 32's 4/4/256; an f32
 *                       input with a 16-bit output was not measured)
 *   BICL_VCLASS_ACT32   a computed activation (bicl_unary or bicl_glu of an op whose
 *                       registry row has table = 1 or a correctly rounded EXPR with a
 *                       fast form: evaluation costlier than a load; not read from a
 *                       table) with 32-bit inputs: an element runs the correctly
 *                       rounded math in double precision, so the launch is bound by
 *                       arithmetic, not memory, and wants more independent elements
 *                       per work-item (bicl_vclass_of_act). The gated units of such an
 *                       activation (two 32-bit inputs) take it too: on the H200 swiglu
 *                       f32 ran 3195 GB/s in it against 2948 in class 32X2 (its sweep's
 *                       best, 4/8/128, 3243). Of the ops with parameters (no table) softcap
 *                       takes this class (a fast form); xielu (expm1 on one side)
 *                       keeps class 32, not measured here (docs/performance.md)
 *   BICL_VCLASS_ACT32L  the same for an op whose row marks the longest double path
 *                       (BICL_CR1_LONG: gelu (erf) and geglu), which ran faster with
 *                       fewer elements per work-item (why was not read from the
 *                       compiler's output): on the H100 gelu f32's sweep had every
 *                       4-wide variant at 1202-1253 GB/s against 1027 at ACT32's 8/4/128
 *                       (docs/performance.md)
 *   BICL_VCLASS_GLU32L  a gated unit of the longest double path (geglu) with two 32-bit
 *                       inputs, twice the bytes per element of gelu's: on the H100 geglu
 *                       f32's best variants were 8-wide with the former erfcx (8/2/256
 *                       1809 GB/s, 8/2/0 1790 in two sweeps, against 1649-1665 at ACT32L's
 *                       4/8/128), 4/4/256 with today's (1847 against 1795 at 4/8/128;
 *                       docs/performance.md, platforms/nvidia/profile.h) */
typedef enum bicl_vclass {
    BICL_VCLASS_32,
    BICL_VCLASS_32X2,
    BICL_VCLASS_MIXED,
    BICL_VCLASS_16,
    BICL_VCLASS_TABLE,
    BICL_VCLASS_ROPE16,
    BICL_VCLASS_ACT32,
    BICL_VCLASS_ROPE32,
    BICL_VCLASS_ACT32L,
    BICL_VCLASS_GLU32L
} bicl_vclass;
#define BICL_VCLASS_COUNT 10

/* The vector kernels' loop over lanes: as the compiler chooses, unrolled by request, or
 * kept a loop by request (no unrolling: what a CPU profile that launches no vector kernel
 * by default builds fastest). */
typedef enum bicl_lane_loop {
    BICL_LANE_LOOP_COMPILER = 0,
    BICL_LANE_LOOP_UNROLLED = 1,
    BICL_LANE_LOOP_ROLLED = 2
} bicl_lane_loop;

/* How kernels convert f16 (cl/bicl_convert.h; the same bits in every form): integer bit
 * work; OpenCL's vload_half / vstore_half_rte; the compiler's _Float16 conversions, where the
 * device's compiler builds them and the self-test finds their bits (else a context falls back
 * to bit work, src/context.c). */
typedef enum bicl_f16_form {
    BICL_F16_BITS = 0,
    BICL_F16_DEVICE = 1,
    BICL_F16_FLOAT16 = 2
} bicl_f16_form;

/* A vendor's default variant per launch class. */
typedef struct bicl_profile {
    const char *name;
    bicl_variant variants[BICL_VCLASS_COUNT];
    int rope_form;    /* BICL_OPTION_ROPE_FORM's "auto": 0 units, 1 rows */
    int f16_form;     /* f16 conversions: a bicl_f16_form (cl/bicl_convert.h: the same bits in
                       * every form, with bicl's NaN rule) */
    int act_fixup;    /* a computed activation with a fast form, one element per work-item:
                       * 0 the plain kernel (_rows_s), 1 the fix-up form (_rows_f,
                       * cl/bicl_kernel.h: the same bits) */
    int lane_loop;    /* the vector kernels' loop over lanes (cl/bicl_kernel.h, BICL_FOR_LANES:
                       * the same bits in every form): a bicl_lane_loop */
    int fixed_groups; /* a 1-d launch's work-group (src/launch.c): 0 fitted to the launch
                       * (halved for a short one; a size that is a multiple of 64 left to the
                       * implementation where the variant leaves it open), 1 one of two fixed
                       * sizes, never halved (PoCL builds a kernel again per local size) */
} bicl_profile;

/* The work-group bicl gives a launch whose variant leaves it open: every 2-d launch, a 1-d
 * one whose size is not a multiple of 64, every 1-d one of a profile with fixed groups, and
 * there BICL_LARGE_WORK_GROUP where the launch has BICL_LARGE_GROUPS_PER_UNIT such groups
 * per compute unit (src/launch.c). */
#define BICL_ROWS_WORK_GROUP       512
#define BICL_LARGE_WORK_GROUP      4096
#define BICL_LARGE_GROUPS_PER_UNIT 4

const bicl_profile *bicl_profile_by_name(const char *name);
const bicl_profile *bicl_profile_for_device(const char *platform, const char *vendor,
                                            const char *device);
bicl_status bicl_variant_check(const bicl_variant *v, size_t max_work_group);

/* The class of a launch from the dtypes of its n_in inputs and n_out outputs. */
bicl_vclass bicl_vclass_of(const bicl_dtype *in, int n_in, const bicl_dtype *out, int n_out);
/* The class of a computed activation (bicl_unary or bicl_glu of a costly op, no table):
 * BICL_VCLASS_ACT32 where bicl_vclass_of gives BICL_VCLASS_32 or BICL_VCLASS_32X2; for an op
 * of the longest double path (long_path) BICL_VCLASS_ACT32L where it gives BICL_VCLASS_32
 * and BICL_VCLASS_GLU32L where it gives BICL_VCLASS_32X2 (a gated unit). */
bicl_vclass bicl_vclass_of_act(const bicl_dtype *in, int n_in, const bicl_dtype *out, int n_out,
                               bool long_path);
/* The class of a RoPE launch (1-D or M-RoPE) of input dtype in and output dtype out. */
bicl_vclass bicl_vclass_of_rope(bicl_dtype in, bicl_dtype out);

#endif
