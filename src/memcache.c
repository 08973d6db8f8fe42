/* memcache.c - the facts of each cl_mem kept across calls until OpenCL destroys the
 * buffer (memcache.h): an open-addressing table under one mutex, entries removed by the
 * buffers' destructor callbacks. */
#include "memcache.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* A power of two. Kept below three quarters full: a process with more live buffers than
 * that validates the others on every call, as without the cache. */
#define SLOTS    1024
#define MAX_KEPT ((size_t)SLOTS / 4 * 3)

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bicl_mem_facts slots[SLOTS]; /* mem NULL: free */
static size_t kept;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool enabled = true;

static void read_env(void)
{
    const char *v = getenv("BICL_MEM_CACHE");
    enabled = !(v && strcmp(v, "0") == 0);
}

static size_t home(cl_mem mem)
{
    uint64_t h = (uint64_t)(uintptr_t)mem * 0x9e3779b97f4a7c15ull;
    return (size_t)(h >> 40) & (SLOTS - 1);
}

/* The slot of mem, or of the free slot that ends its probe. Under the lock. */
static size_t find(cl_mem mem)
{
    size_t i = home(mem);
    while (slots[i].mem && slots[i].mem != mem)
        i = (i + 1) & (SLOTS - 1);
    return i;
}

/* Removes the entry at i and moves later entries of its probe run back, so that every
 * lookup still meets its entry before a free slot (linear probing without tombstones).
 * Under the lock. */
static void remove_at(size_t i)
{
    size_t j = i;
    for (;;) {
        slots[i].mem = NULL;
        size_t h;
        do {
            j = (j + 1) & (SLOTS - 1);
            if (!slots[j].mem)
                return;
            h = home(slots[j].mem);
            /* the entry at j stays where it is when its home lies cyclically in (i, j] */
        } while (i <= j ? (i < h && h <= j) : (i < h || h <= j));
        slots[i] = slots[j];
        i = j;
    }
}

static void CL_CALLBACK forget(cl_mem mem, void *unused)
{
    (void)unused;
    pthread_mutex_lock(&lock);
    size_t i = find(mem);
    if (slots[i].mem) {
        remove_at(i);
        kept--;
    }
    pthread_mutex_unlock(&lock);
}

bool bicl_mem_cache_get(cl_mem mem, bicl_mem_facts *out)
{
    pthread_once(&once, read_env);
    if (!enabled || !mem)
        return false;
    pthread_mutex_lock(&lock);
    size_t i = find(mem);
    bool hit = slots[i].mem != NULL;
    if (hit)
        *out = slots[i];
    pthread_mutex_unlock(&lock);
    return hit;
}

static bool full(void)
{
    pthread_mutex_lock(&lock);
    bool f = kept >= MAX_KEPT;
    pthread_mutex_unlock(&lock);
    return f;
}

void bicl_mem_cache_put(const bicl_mem_facts *f)
{
    pthread_once(&once, read_env);
    if (!enabled || !f->mem || f->err != CL_SUCCESS || full())
        return;
    /* The callback first: an entry whose buffer could die unseen must never exist. A
     * second callback on one buffer (two threads that both missed) removes nothing. */
    if (clSetMemObjectDestructorCallback(f->mem, forget, NULL) != CL_SUCCESS)
        return;
    pthread_mutex_lock(&lock);
    size_t i = find(f->mem);
    if (!slots[i].mem && kept < MAX_KEPT) {
        slots[i] = *f;
        kept++;
    }
    pthread_mutex_unlock(&lock);
}

size_t bicl_mem_cache_count(void)
{
    pthread_mutex_lock(&lock);
    size_t n = kept;
    pthread_mutex_unlock(&lock);
    return n;
}
