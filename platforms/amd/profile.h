/* AMD GPUs: not measured yet; the NVIDIA choices (16-byte accesses, groups of 256) until
 * an AMD rig reports (platforms/amd/rig.sh); computed f32 activations (ACT32, and ACT32L
 * and GLU32L after ROPE32) keep class 32's choice; the lane loop unrolled as on NVIDIA (the
 * next-to-last field). Work-groups fitted to each launch (the last field, 0). */
BICL_PROFILE("amd", (4, 4, 256), (4, 4, 256), (4, 4, 256), (8, 4, 256), (8, 4, 256), (8, 4, 256),
             (4, 4, 256), (4, 4, 256), (4, 4, 256), (4, 4, 256), 0, 0, 0, 1, 0)
