/* NVIDIA (H200): 16-byte loads per work-item reach the copy bandwidth, one float per
 * work-item reached 57% of it (../shared/gpu.md): 4 x f32 or 8 x 16-bit per load. */
BICL_PROFILE("nvidia", 4, 4, 256, 8, 4, 256)
