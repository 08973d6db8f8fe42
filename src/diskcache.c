/* diskcache.c - the persistent program-binary cache.
 *
 * One file per key text (program.c composes it: fingerprint, family, build options,
 * program source); a leaf module that knows nothing of contexts. An entry is trusted only when
 * its magic, format version, full key text, exact length and checksum all match;
 * anything else is reported as rejected and rebuilt by the caller. Entries are
 * written to a unique temp file and renamed into place, so a reader never sees a
 * half-written entry and concurrent writers of the same key do not corrupt it. */
#include "diskcache.h"
#include "status.h"

#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC          "BICLPRG"
#define FORMAT_VERSION 1u
#define MAX_ENTRY      (512u << 20)

typedef struct entry_header {
    char magic[8];
    uint32_t version;
    uint32_t key_len;
    uint64_t bin_size;
    uint64_t checksum;
} entry_header;

void bicl_cache_path(const char *dir, const char *key, char *path, size_t n)
{
    uint64_t h = bicl_fnv1a(BICL_FNV_OFFSET, key, strlen(key));
    snprintf(path, n, "%s/bicl-%016llx.bin", dir, (unsigned long long)h);
}

static uint64_t entry_checksum(const char *key, const unsigned char *bin, size_t size)
{
    return bicl_fnv1a(bicl_fnv1a(BICL_FNV_OFFSET, key, strlen(key)), bin, size);
}

static int read_all(FILE *f, unsigned char **data, size_t *size)
{
    if (fseek(f, 0, SEEK_END) != 0)
        return -1;
    long len = ftell(f);
    if (len < 0 || (unsigned long)len > MAX_ENTRY || fseek(f, 0, SEEK_SET) != 0)
        return -1;
    unsigned char *buf = malloc(len ? (size_t)len : 1);
    if (!buf)
        return -1;
    if (fread(buf, 1, (size_t)len, f) != (size_t)len) {
        free(buf);
        return -1;
    }
    *data = buf;
    *size = (size_t)len;
    return 0;
}

int bicl_cache_load(const char *dir, const char *key, unsigned char **bin, size_t *size)
{
    char path[BICL_PATH_MAX + 64];
    bicl_cache_path(dir, key, path, sizeof path);
    FILE *f = fopen(path, "rb");
    if (!f)
        return 0;
    unsigned char *data = NULL;
    size_t len = 0;
    int rc = read_all(f, &data, &len);
    fclose(f);
    if (rc != 0)
        return -1;
    entry_header h;
    size_t key_len = strlen(key);
    int verdict = -1;
    if (len >= sizeof h) {
        memcpy(&h, data, sizeof h);
        bool header_ok = memcmp(h.magic, MAGIC, sizeof MAGIC) == 0 && h.version == FORMAT_VERSION &&
                         h.key_len == key_len && h.bin_size == len - sizeof h - key_len &&
                         h.bin_size > 0;
        if (header_ok && memcmp(data + sizeof h, key, key_len) == 0) {
            const unsigned char *b = data + sizeof h + key_len;
            if (entry_checksum(key, b, (size_t)h.bin_size) == h.checksum) {
                unsigned char *out = malloc((size_t)h.bin_size);
                if (out) {
                    memcpy(out, b, (size_t)h.bin_size);
                    *bin = out;
                    *size = (size_t)h.bin_size;
                    verdict = 1;
                }
            }
        }
    }
    free(data);
    return verdict;
}

static int make_dir(const char *dir)
{
    if (mkdir(dir, 0755) == 0 || errno == EEXIST)
        return 0;
    return -1;
}

int bicl_cache_store(const char *dir, const char *key, const unsigned char *bin, size_t size)
{
    static _Atomic unsigned long counter;
    if (!bin || size == 0 || make_dir(dir) != 0)
        return -1;
    char path[BICL_PATH_MAX + 64], tmp[BICL_PATH_MAX + 128];
    bicl_cache_path(dir, key, path, sizeof path);
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld.%lu", path, (long)getpid(), ++counter);
    entry_header h;
    memset(&h, 0, sizeof h);
    memcpy(h.magic, MAGIC, sizeof MAGIC);
    h.version = FORMAT_VERSION;
    h.key_len = (uint32_t)strlen(key);
    h.bin_size = size;
    h.checksum = entry_checksum(key, bin, size);
    FILE *f = fopen(tmp, "wb");
    if (!f)
        return -1;
    bool ok = fwrite(&h, sizeof h, 1, f) == 1 && fwrite(key, 1, h.key_len, f) == h.key_len &&
              fwrite(bin, 1, size, f) == size;
    ok = (fclose(f) == 0) && ok;
    if (!ok || rename(tmp, path) != 0) {
        unlink(tmp);
        return -1;
    }
    return 0;
}
