/* profile.c - platform profiles: the default kernel variant per vendor. The tables
 * live in platforms/<vendor>/profile.h. A profile changes speed, never bits. */
#include "profile.h"
#include "status.h"

#include <string.h>

/* BICL_PROFILE(name, V32, V32X2, VMIXED, V16, VTABLE, VROPE, VACT32, VROPE32, VACT32L,
 * VGLU32L, ROPE_FORM, F16_FORM, ACT_FIXUP, LANE_LOOP, FIXED_GROUPS): a variant (vw, ipt, wg) per
 * class, the RoPE form (0 units, 1 rows), the f16 conversions (a bicl_f16_form), the computed
 * activations' one-element form (0 plain, 1 fix-up), the vector kernels' lane loop (a
 * bicl_lane_loop: 0 as the compiler chooses, 1 unrolled, 2 kept a loop) and the 1-d launches'
 * work-groups (0 fitted to the launch, 1 fixed) */
#define BICL_PROFILE_V(vw, ipt, wg)                                                                \
    {                                                                                              \
        vw, ipt, wg                                                                                \
    }
#define BICL_PROFILE(name, v32, v32x2, vmixed, v16, vtable, vrope, vact32, vrope32, vact32l,       \
                     vglu32l, rope_form, f16_form, act_fixup, lane_loop, fixed_groups)             \
    {name,                                                                                         \
     {BICL_PROFILE_V v32, BICL_PROFILE_V v32x2, BICL_PROFILE_V vmixed, BICL_PROFILE_V v16,         \
      BICL_PROFILE_V vtable, BICL_PROFILE_V vrope, BICL_PROFILE_V vact32, BICL_PROFILE_V vrope32,  \
      BICL_PROFILE_V vact32l, BICL_PROFILE_V vglu32l},                                             \
     rope_form,                                                                                    \
     f16_form,                                                                                     \
     act_fixup,                                                                                    \
     lane_loop,                                                                                    \
     fixed_groups},
static const bicl_profile profiles[] = {
#include "../platforms/pocl/profile.h"
#include "../platforms/nvidia/profile.h"
#include "../platforms/amd/profile.h"
    /* Any other device: one element per work-item everywhere, the vector kernels (which it
     * launches only when a caller sets a variant) kept a loop over lanes: Intel's CPU
     * compiler built silu f32's program in 2.6-2.7 s with the plain loop, 1.45-1.50 s kept
     * (docs/performance.md, twenty-fourth session). */
    {"generic",
     {{1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0},
      {1, 1, 0}},
     0,
     0,
     0,
     BICL_LANE_LOOP_ROLLED,
     0},
};
#undef BICL_PROFILE
#undef BICL_PROFILE_V

const bicl_profile *bicl_profile_by_name(const char *name)
{
    for (size_t i = 0; i < sizeof profiles / sizeof profiles[0]; ++i)
        if (strcmp(profiles[i].name, name) == 0)
            return &profiles[i];
    return NULL;
}

static bool has(const char *hay, const char *needle)
{
    return strstr(hay, needle) != NULL;
}

const bicl_profile *bicl_profile_for_device(const char *platform, const char *vendor,
                                            const char *device)
{
    (void)device;
    if (has(platform, "Portable Computing Language") || has(platform, "PoCL"))
        return bicl_profile_by_name("pocl");
    if (has(vendor, "NVIDIA") || has(platform, "NVIDIA"))
        return bicl_profile_by_name("nvidia");
    if (has(vendor, "Advanced Micro Devices") || has(vendor, "AMD") || has(platform, "AMD"))
        return bicl_profile_by_name("amd");
    return bicl_profile_by_name("generic");
}

bicl_status bicl_variant_check(const bicl_variant *v, size_t max_work_group)
{
    unsigned vw = v->vector_width;
    if (vw != 1 && vw != 4 && vw != 8)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "vector width %u: must be 1, 4 or 8", vw);
    if (v->items_per_thread < 1 || v->items_per_thread > 64)
        return bicl_fail(BICL_ERR_INVALID_PARAMETER, "items per thread %u: must be 1..64",
                         v->items_per_thread);
    size_t wg = v->work_group_size;
    if (wg != 0 && ((wg & (wg - 1)) != 0 || wg > max_work_group))
        return bicl_fail(BICL_ERR_INVALID_PARAMETER,
                         "work-group size %zu: must be 0 or a power of two up to %zu", wg,
                         max_work_group);
    return BICL_SUCCESS;
}

bicl_vclass bicl_vclass_of(const bicl_dtype *in, int n_in, const bicl_dtype *out, int n_out)
{
    size_t narrowest_in = 4, widest = 0;
    int float_in = 0;
    for (int i = 0; i < n_in + n_out; ++i) {
        bicl_dtype d = i < n_in ? in[i] : out[i - n_in];
        if (!((1u << d) & BICL_FLOAT_DTYPES))
            continue;
        float_in += i < n_in;
        size_t s = bicl_dtype_size(d);
        if (i < n_in && s < narrowest_in)
            narrowest_in = s;
        if (s > widest)
            widest = s;
    }
    if (narrowest_in >= 4)
        return float_in >= 2 ? BICL_VCLASS_32X2 : BICL_VCLASS_32;
    return widest >= 4 ? BICL_VCLASS_MIXED : BICL_VCLASS_16;
}

bicl_vclass bicl_vclass_of_act(const bicl_dtype *in, int n_in, const bicl_dtype *out, int n_out,
                               bool long_path)
{
    bicl_vclass c = bicl_vclass_of(in, n_in, out, n_out);
    if (c != BICL_VCLASS_32 && c != BICL_VCLASS_32X2)
        return c;
    if (!long_path)
        return BICL_VCLASS_ACT32;
    return c == BICL_VCLASS_32X2 ? BICL_VCLASS_GLU32L : BICL_VCLASS_ACT32L;
}

bicl_vclass bicl_vclass_of_rope(bicl_dtype in, bicl_dtype out)
{
    bicl_vclass c = bicl_vclass_of(&in, 1, &out, 1);
    if (c == BICL_VCLASS_16)
        return BICL_VCLASS_ROPE16;
    return c == BICL_VCLASS_32 ? BICL_VCLASS_ROPE32 : c;
}
