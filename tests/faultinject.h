/* faultinject.h - the control functions of the fault-injecting shim (faultinject.c).
 * test_faults looks them up with dlsym, so that it fails clearly when the shim was not
 * preloaded instead of failing to link. */
#ifndef BICL_FAULTINJECT_H
#define BICL_FAULTINJECT_H

#ifndef CL_TARGET_OPENCL_VERSION
#define CL_TARGET_OPENCL_VERSION 120
#endif
#include <CL/cl.h>

/* After `skip` calls of `entry` pass through, the next `count` calls fail with err
 * (count 0 disarms). Entries: clEnqueueNDRangeKernel, clCreateBuffer, clCreateKernel,
 * clBuildProgram, clEnqueueReadBuffer. Returns -1 for an entry the shim does not wrap. */
int bicl_fault_arm(const char *entry, cl_int err, int skip, int count);
/* Calls of `entry` failed since it was last armed. */
int bicl_fault_hits(const char *entry);
/* Buffers created by clCreateBuffer and not yet released for the last time. */
long bicl_fault_buffers_live(void);
/* Calls of `entry` made so far by the program (not by the shim itself); clGetMemObjectInfo
 * only, -1 for other entries. */
long bicl_fault_calls(const char *entry);
/* Dimension 0 of the local size of the last clEnqueueNDRangeKernel that was forwarded, 0
 * where the caller passed none (NULL: the implementation's choice). */
long bicl_fault_last_local_size(void);

typedef int (*bicl_fault_arm_fn)(const char *, cl_int, int, int);
typedef int (*bicl_fault_hits_fn)(const char *);
typedef long (*bicl_fault_live_fn)(void);
typedef long (*bicl_fault_calls_fn)(const char *);
typedef long (*bicl_fault_local_fn)(void);

#endif
