// cl_cuda.h - enough of OpenCL C 1.2's spellings in CUDA to compile cl/rope.cl's table path
// with nvcc (rope_nvcc.sh): vector types as aligned structs with OpenCL's member names,
// vload/vstore as loops, work-item functions from the block and thread indices, the
// atomics and bit casts. A diagnostic: it lets a kernel's cost be bisected on an NVIDIA
// GPU by editing the generated copy (docs/performance.md, "RoPE kernels specialised").
// Included after CUDA's own headers: its macros rename CUDA's vector types.
#pragma once
#include <climits>
#include <cstdint>
#include <sys/types.h> // glibc's ushort, uint, ulong (unsigned long: 64 bits here)
#define __OPENCL_C_VERSION__ 120
#define kernel __global__
typedef unsigned char uchar;
struct __align__(16) ocl_uint4 { uint s0, s1, s2, s3; };
struct __align__(32) ocl_ulong4 { ulong s0, s1, s2, s3; };
struct __align__(8) ocl_float2 { float x, y; };
struct __align__(16) ocl_ushort8 { ushort s[8]; };
struct __align__(8) ocl_ushort4 { ushort s[4]; };
struct __align__(4) ocl_ushort2 { ushort s[2]; };
struct __align__(16) ocl_float16 { float s[16]; };
struct __align__(16) ocl_float8 { float s[8]; };
struct __align__(16) ocl_float4 { float s[4]; };
#define uint4   ocl_uint4
#define ulong4  ocl_ulong4
#define float2  ocl_float2
#define ushort8 ocl_ushort8
#define ushort4 ocl_ushort4
#define ushort2 ocl_ushort2
#define float16 ocl_float16
#define float8  ocl_float8
#define float4  ocl_float4
// (float2)(a, b) and (uint4)(a, b, c, d): rope_nvcc.sh rewrites them to these
__device__ inline ocl_float2 make_f2(float a, float b) { return {a, b}; }
__device__ inline ocl_uint4 make_u4(uint a, uint b, uint c, uint d) { return {a, b, c, d}; }
#define CL_CUDA_VLOAD_VSTORE(N, V, T)                                                              \
    __device__ inline void vstore##N(V v, size_t o, T *p)                                          \
    {                                                                                              \
        for (int i = 0; i < N; ++i)                                                                \
            p[o * N + i] = v.s[i];                                                                 \
    }                                                                                              \
    __device__ inline V vload##N(size_t o, const T *p)                                             \
    {                                                                                              \
        V v;                                                                                       \
        for (int i = 0; i < N; ++i)                                                                \
            v.s[i] = p[o * N + i];                                                                 \
        return v;                                                                                  \
    }
CL_CUDA_VLOAD_VSTORE(8, ocl_ushort8, ushort)
CL_CUDA_VLOAD_VSTORE(4, ocl_ushort4, ushort)
CL_CUDA_VLOAD_VSTORE(2, ocl_ushort2, ushort)
CL_CUDA_VLOAD_VSTORE(16, ocl_float16, float)
CL_CUDA_VLOAD_VSTORE(8, ocl_float8, float)
CL_CUDA_VLOAD_VSTORE(4, ocl_float4, float)
__device__ inline void vstore2(ocl_float2 v, size_t o, float *p)
{
    p[2 * o] = v.x;
    p[2 * o + 1] = v.y;
}
__device__ inline float as_float(uint u) { return __uint_as_float(u); }
__device__ inline uint as_uint(float f) { return __float_as_uint(f); }
__device__ inline double as_double(ulong u) { return __longlong_as_double((long long)u); }
__device__ inline ulong as_ulong(double d) { return (ulong)__double_as_longlong(d); }
__device__ inline size_t get_global_id(int d)
{
    return d == 0 ? blockIdx.x * (size_t)blockDim.x + threadIdx.x : blockIdx.y;
}
__device__ inline size_t get_global_size(int d)
{
    return d == 0 ? (size_t)gridDim.x * blockDim.x : gridDim.y;
}
__device__ inline size_t get_group_id(int d) { return d == 0 ? blockIdx.x : blockIdx.y; }
__device__ inline size_t get_local_size(int d) { return d == 0 ? blockDim.x : 1; }
__device__ inline int atomic_min(int *p, int v) { return atomicMin(p, v); }
__device__ inline int atomic_inc(int *p) { return atomicAdd(p, 1); }
__device__ inline int atomic_xchg(int *p, int v) { return atomicExch(p, v); }
