/* sources.c - lookup and hash of the embedded kernel sources. */
#include "sources.h"
#include "status.h"

#include <string.h>

const bicl_source *bicl_source_find(const char *name)
{
    for (size_t i = 0; i < bicl_source_count; ++i)
        if (strcmp(bicl_sources[i].name, name) == 0)
            return &bicl_sources[i];
    return NULL;
}

uint64_t bicl_sources_hash(void)
{
    uint64_t h = BICL_FNV_OFFSET;
    for (size_t i = 0; i < bicl_source_count; ++i) {
        h = bicl_fnv1a(h, bicl_sources[i].name, strlen(bicl_sources[i].name) + 1);
        h = bicl_fnv1a(h, bicl_sources[i].text, bicl_sources[i].size);
    }
    return h;
}
