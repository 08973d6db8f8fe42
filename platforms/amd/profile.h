/* AMD GPUs: not measured yet; 16-byte loads and 256-wide groups as on NVIDIA until an
 * AMD rig reports (platforms/amd/rig.sh). */
BICL_PROFILE("amd", 4, 4, 256, 8, 4, 256)
