#!/bin/sh
# cl/rope.cl built by nvcc and timed on an NVIDIA GPU against rope_probe.cu's kernel A
# (rope_nvcc.cu; docs/performance.md, "RoPE kernels specialised to their layout"): a copy
# of cl/ with BICL_FN as __device__ and OpenCL's address-space words dropped, rope.cl's
# vector literals rewritten for cl_cuda.h. To bisect a cost, edit $W/rope_cl.h (KEEP=1
# keeps the folder) and build again with the nvcc line below.
# usage: platforms/nvidia/rope_nvcc.sh
set -e
cd "$(dirname "$0")/../.."
W=$(mktemp -d)
cp -r cl "$W/cl"
sed -i 's/\bglobal //g' "$W"/cl/*.h
sed -i 's/^#define BICL_FN     static inline/#define BICL_FN __device__ static inline/; s/^#define BICL_TABLE constant/#define BICL_TABLE __device__ static const/' "$W/cl/bicl_portable.h"
sed -e 's/(float2)(/make_f2(/g' -e 's/(uint4)(/make_u4(/g' -e 's/\bglobal //g' cl/rope.cl >"$W/rope_cl.h"
cp platforms/nvidia/rope_nvcc.cu platforms/nvidia/rope_probe.cu platforms/nvidia/cl_cuda.h "$W/"
nvcc -arch=sm_90 -O3 -fmad=false -DBICL_SELECTED -I "$W/cl" -I "$W" -o "$W/rope_nvcc" "$W/rope_nvcc.cu"
"$W/rope_nvcc"
[ -n "${KEEP:-}" ] && echo "kept: $W" || rm -rf "$W"
