/* context_state.h - layer 3: struct bicl_context, the state every layer
 * from program.c up shares. Only data: its functions are in program.h and context.h. */
#ifndef BICL_SRC_CONTEXT_STATE_H
#define BICL_SRC_CONTEXT_STATE_H

#include "device.h"
#include "options.h"
#include "profile.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>

/* The state of a bicl_context: what the layers from program.c up read and write (under
 * `lock` where marked). context.c creates and frees it. */
typedef struct bicl_kernel_pool bicl_kernel_pool;
/* Kernel pools are found by their name's hash: a context that has run many ops holds
 * hundreds (test_pointwise's variant test alone makes 189 kernels on PoCL), and the lookup
 * is on every call's path (program.c). */
#define BICL_POOL_BUCKETS 256
typedef struct bicl_act_table bicl_act_table;
struct bicl_program_entry;

struct bicl_context {
    /* Unique over the process's life: a plan remembers it, so that a new context that
     * reuses a freed one's address is never taken for the plan's own. */
    uint64_t generation;
    cl_context cl_ctx;
    cl_device_id device;
    bicl_device_info info;
    bicl_options opts;
    const bicl_profile *profile;
    bool rope_rows;         /* BICL_OPTION_ROPE_FORM resolved: RoPE's rows form where it applies */
    int f16_form;           /* f16 conversions, a bicl_f16_form (the profile's, or
                             * $BICL_F16_CONVERT; bit work where the _Float16 form failed at
                             * context creation): a source define, cl/bicl_convert.h */
    bool act_fixup;         /* computed activations with a fast form in the fix-up kernel form
                             * (the profile's, or $BICL_ACT_FORM): src/pointwise.c */
    int lane_loop;          /* the vector kernels' lane loop, a bicl_lane_loop (the
                             * profile's, or $BICL_LANE_LOOP): a source define,
                             * cl/bicl_kernel.h */
    char fingerprint[3072]; /* holds every field at its longest: no truncation */
    unsigned caps_advertised; /* info.caps before the self-test (which proves or drops) */
    bool selftested;          /* the self-test passed: part of the fingerprint */
    char selftest_note[512];  /* why fp64 was dropped by the self-test, or "" */
    uint64_t fingerprint_hash;
    char cache_dir[BICL_PATH_MAX]; /* "" when the disk cache is off */

    pthread_mutex_t lock;                     /* guards everything below */
    bicl_variant variants[BICL_VCLASS_COUNT]; /* the profile's, or the forced one in all */
    struct bicl_program_entry *programs;      /* built programs: (family, instance) -> cl_program */
    bicl_kernel_pool *pools[BICL_POOL_BUCKETS]; /* chains by name hash (program.c) */
    bicl_cache_stats stats;
    size_t kernels_live;    /* kernel objects in existence: pooled or checked out */
    int act_tables;         /* BICL_OPTION_ACT_TABLES resolved: BICL_ACT_TABLES_OFF, _FULL or
                             * _COMPACT (16-bit unary tables compact), never _AUTO */
    bicl_act_table *tables; /* activation lookup tables built so far (act_tables.c) */
    /* Frees `tables`: set by act_tables.c with the first table, so that the context
     * (a lower layer) frees them without calling up into it. */
    void (*tables_free)(struct bicl_context *ctx);
    _Atomic unsigned long table_launches; /* ops that ran a table kernel (not lock-guarded) */
    _Atomic unsigned long fixup_launches; /* ops that ran a fix-up kernel (not lock-guarded) */
};

#endif
