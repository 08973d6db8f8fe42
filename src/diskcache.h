/* diskcache.h - layer 1: the persistent program-binary cache
 * (diskcache.c), a leaf: entries are keyed by a text its caller composes
 * (bicl_program_cache_key, program.h). */
#ifndef BICL_SRC_DISKCACHE_H
#define BICL_SRC_DISKCACHE_H

#include "bicl/bicl.h"

/* Reads a valid entry into a malloc'ed binary; 1 hit, 0 miss, -1 rejected. */
int bicl_cache_load(const char *dir, const char *key, unsigned char **bin, size_t *size);
/* Writes an entry through a temp file and rename; 0 on success. */
int bicl_cache_store(const char *dir, const char *key, const unsigned char *bin, size_t size);
/* Path of an entry (for tests that damage it). */
void bicl_cache_path(const char *dir, const char *key, char *path, size_t n);

#endif
