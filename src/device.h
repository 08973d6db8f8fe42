/* device.h - layer 1: what a device is and can do, and device specs
 * (device.c). */
#ifndef BICL_SRC_DEVICE_H
#define BICL_SRC_DEVICE_H

#include "bicl/bicl.h"

#include <stdbool.h>

/* Capability bits, recorded in the fingerprint. */
enum {
    BICL_CAP_CR_DIVIDE_SQRT = 1u << 0,
    BICL_CAP_DENORM = 1u << 1,
    BICL_CAP_INF_NAN = 1u << 2,
    BICL_CAP_ROUND_NEAREST = 1u << 3,
    BICL_CAP_FMA = 1u << 4,
    BICL_CAP_FP64 = 1u << 5,
    BICL_CAP_LITTLE_ENDIAN = 1u << 6,
    BICL_CAP_COMPILER = 1u << 7,
    BICL_CAP_OPENCL_C_12 = 1u << 8,
};

typedef struct bicl_device_info {
    size_t max_work_group;
    cl_ulong mem_base_align_bytes;
    unsigned caps;
    cl_uint compute_units; /* at least 1 */
    char platform_name[256];
    char platform_version[256];
    char vendor[256];
    char device_name[256];
    char driver_version[256];
} bicl_device_info;

/* Capabilities the self-test proves where a device does not advertise them. */
#define BICL_CAPS_PROVABLE (BICL_CAP_CR_DIVIDE_SQRT | BICL_CAP_DENORM)

/* $BICL_HIDE_FP64=1: the device is treated as having no fp64 (tests of the no-fp64
 * path on a device that has it). Read by bicl_device_query. */
bool bicl_fp64_hidden(void);
bicl_status bicl_device_query(cl_device_id dev, bicl_device_info *info);
/* The verdict from what the device advertises: BICL_ERR_DEVICE_UNSUITABLE naming each
 * missing capability that no self-test can prove; BICL_SUCCESS otherwise, and then why
 * names the provable ones the self-test must prove (BICL_CAPS_PROVABLE). */
bicl_status bicl_device_suitability(const bicl_device_info *info, char *why, size_t n);

/* Device specs (bicl_context_create_default): which of the n devices `spec` names.
 * spec is an index, or text (case-insensitive) in the platform name or version, vendor
 * or device name, optionally ":N" for the N-th match (from 0). BICL_ERR_DEVICE_NOT_FOUND
 * when none matches, BICL_ERR_DEVICE_AMBIGUOUS (the matches listed in the detail) when
 * several do and no :N is given. Device-free. */
bicl_status bicl_device_spec_resolve(const char *spec, const bicl_device_info *infos, size_t n,
                                     size_t *chosen);
/* Indexes of the devices the text of a spec matches (":N" and indexes not parsed);
 * returns their count, writes up to max. */
size_t bicl_device_spec_matches(const char *text, const bicl_device_info *infos, size_t n,
                                size_t *idx, size_t max);

#endif
