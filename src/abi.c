/* abi.c - the public structs that grow between versions (abi.h). */
#include "abi.h"

#include "status.h"

#include <string.h>

static size_t struct_size_of(const void *s)
{
    size_t n;
    memcpy(&n, s, sizeof n);
    return n;
}

static bool all_zero(const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; ++i)
        if (p[i])
            return false;
    return true;
}

bicl_status bicl_abi_load(void *full, size_t full_size, const void *user, size_t min_size,
                          const char *name, bicl_status bad)
{
    size_t user_size = struct_size_of(user);
    if (user_size < min_size)
        return bicl_fail(bad,
                         "%s.struct_size %zu (set it with %s_init; this library reads %zu to %zu "
                         "bytes)",
                         name, user_size, name, min_size, full_size);
    if (user_size > full_size &&
        !all_zero((const unsigned char *)user + full_size, user_size - full_size))
        return bicl_fail(bad,
                         "%s.struct_size %zu sets fields this library does not know (it reads "
                         "%zu bytes): use a bicl at least as new as your header",
                         name, user_size, full_size);
    memcpy(full, user, user_size < full_size ? user_size : full_size);
    memcpy(full, &full_size, sizeof full_size);
    return BICL_SUCCESS;
}

bool bicl_abi_fits(const void *full, const void *defaults, size_t full_size, size_t user_size)
{
    if (user_size >= full_size)
        return true;
    return memcmp((const unsigned char *)full + user_size,
                  (const unsigned char *)defaults + user_size, full_size - user_size) == 0;
}

void bicl_abi_store(void *user, size_t user_size, const void *full, size_t full_size)
{
    if (user_size < sizeof(size_t))
        return;
    if (user_size > full_size)
        memset((unsigned char *)user + full_size, 0, user_size - full_size);
    memcpy(user, full, user_size < full_size ? user_size : full_size);
    memcpy(user, &user_size, sizeof user_size);
}
