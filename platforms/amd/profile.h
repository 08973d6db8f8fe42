/* AMD GPUs: not measured yet; 16-byte loads, 256-wide groups as on NVIDIA until an
 * AMD rig reports. */
BICL_PROFILE("amd", 4, 4, 256)
