#!/bin/sh
# The H200 micro-benchmark of the math headers themselves (docs/performance.md, "f32
# activations: fewer double operations"): cl/ copied with BICL_FN as a CUDA __device__
# function, math_bench.cu built with nvcc (sm_90, -fmad=false as FP_CONTRACT OFF), then
# run: each activation over 1 GiB of f32 in [-8, 8) against a float4 copy, same run.
# usage: [DIST=1] [BENCH=act_cost] platforms/nvidia/math_bench.sh [OLD_COMMIT]   (OLD_COMMIT:
# also its cl/, first; DIST=1: normal inputs; BENCH=act_cost: platforms/nvidia/act_cost.cu
# instead, the FP64 ceiling and the stages of gelu's double path; BENCH=lanes:
# platforms/nvidia/lanes.cu, the activations' double paths in other kernel shapes)
set -e
cd "$(dirname "$0")/../.."
W=$(mktemp -d)
dev() { sed -i 's/^#define BICL_FN            static inline/#define BICL_FN __device__ static inline/; s/^#define BICL_TABLE         static const/#define BICL_TABLE __device__ static const/' "$1/cl/bicl_portable.h"; }
run() { # $1: a folder holding cl/
  dev "$1"
  cp platforms/nvidia/cuda_bench.cuh "$1/" && cp "platforms/nvidia/${BENCH:-math_bench}.cu" "$1/mb.cu" && nvcc -arch=sm_90 -O3 -fmad=false -o "$1/mb" "$1/mb.cu"
  "$1/mb" "${DIST:-0}"
}
if [ -n "${1:-}" ]; then
  mkdir -p "$W/old" && git archive "$1" cl | tar -C "$W/old" -xf -
  echo "== cl/ of $1"; run "$W/old"
fi
mkdir -p "$W/new" && cp -r cl "$W/new/"
echo "== cl/ of the work tree"; run "$W/new"
rm -rf "$W"
