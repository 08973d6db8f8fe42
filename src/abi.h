/* abi.h - layer 1: the public structs that grow between versions (bicl_rope_config,
 * bicl_mrope_config, bicl_rope_hf_options).
 *
 * Each starts with size_t struct_size, the caller's sizeof: the public init and fill
 * functions are macros that pass it, so the library never writes past the caller's
 * struct, whatever header the caller was built against. Fields are only appended. An
 * older caller's shorter struct reads as this library's with the missing fields at their
 * defaults; a newer caller's longer struct is accepted when the fields this library
 * does not know are all zero (the Linux kernel's rule for extensible structs). A value
 * that needs fields the caller's struct lacks is refused, never cut short. */
#ifndef BICL_ABI_H
#define BICL_ABI_H

#include "bicl/bicl.h"

#include <stdbool.h>
#include <stddef.h>

/* The caller's struct `user` over `full` (full_size bytes, already holding the
 * defaults); full's struct_size becomes full_size. BICL_SUCCESS, or `bad` naming `name`
 * when user's struct_size is below min_size (the first published layout: not set by an
 * init) or when the caller's struct is longer and sets fields this library does not
 * know. */
bicl_status bicl_abi_load(void *full, size_t full_size, const void *user, size_t min_size,
                          const char *name, bicl_status bad);

/* Whether `full` fits a caller's struct of user_size bytes: every field at or past
 * user_size equals its default in `defaults` (both full_size bytes). */
bool bicl_abi_fits(const void *full, const void *defaults, size_t full_size, size_t user_size);

/* Writes `full` (full_size bytes) into the caller's struct of user_size bytes: the
 * common prefix, zeros past full_size, struct_size = user_size. Writes nothing when
 * user_size cannot hold struct_size. */
void bicl_abi_store(void *user, size_t user_size, const void *full, size_t full_size);

#endif /* BICL_ABI_H */
