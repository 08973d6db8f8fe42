/* NVIDIA (H200 measured): 16-byte loads per work-item reach the copy bandwidth, one
 * float per work-item reached 57% of it (../shared/gpu.md). */
BICL_PROFILE("nvidia", 4, 4, 256)
