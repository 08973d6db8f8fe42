/* memfacts.c - a process-wide table of cl_mem facts (memfacts.h).
 *
 * Why process-wide and fixed-size: the destructor callback of a cl_mem can run after
 * the bicl context that saw it is gone, so the table must outlive every context; a
 * static array needs no allocation and no teardown. A full table only means that the
 * facts of further buffers are queried each time, as without the table.
 *
 * Why the facts can be kept: a buffer's context, type, size, flags, parent and offset
 * never change after creation (OpenCL 1.2, 5.4.5). The callback runs before the
 * handle's memory is freed, so the entry is gone before the address can be reused. */
#include "memfacts.h"

#include <pthread.h>
#include <stdint.h>

#define SLOTS     1024u /* a power of two */
#define MAX_PROBE 16u

typedef struct slot {
    cl_mem key; /* NULL: empty or forgotten */
    bicl_mem_facts facts;
} slot;

static slot table[SLOTS];
static pthread_mutex_t table_lock = PTHREAD_MUTEX_INITIALIZER;

static unsigned home(cl_mem m)
{
    uintptr_t h = (uintptr_t)m;
    h ^= h >> 17;
    h *= (uintptr_t)0x9e3779b97f4a7c15ull;
    return (unsigned)(h >> 7) & (SLOTS - 1u);
}

/* Index of m's slot, or -1. Caller holds the lock. Forgotten slots are empty, so a
 * probe cannot stop early at one: it always runs MAX_PROBE steps on a miss. */
static int find(cl_mem m)
{
    unsigned h = home(m);
    for (unsigned i = 0; i < MAX_PROBE; ++i)
        if (table[(h + i) & (SLOTS - 1u)].key == m)
            return (int)((h + i) & (SLOTS - 1u));
    return -1;
}

static void CL_CALLBACK forget(cl_mem m, void *user_data)
{
    (void)user_data;
    pthread_mutex_lock(&table_lock);
    int i = find(m);
    if (i >= 0)
        table[i].key = NULL;
    pthread_mutex_unlock(&table_lock);
}

static cl_int query(cl_mem m, bicl_mem_facts *f)
{
    cl_int err = clGetMemObjectInfo(m, CL_MEM_CONTEXT, sizeof f->context, &f->context, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_TYPE, sizeof f->type, &f->type, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_SIZE, sizeof f->size, &f->size, NULL);
    if (err == CL_SUCCESS)
        err = clGetMemObjectInfo(m, CL_MEM_FLAGS, sizeof f->flags, &f->flags, NULL);
    cl_mem parent = NULL;
    f->base = m;
    f->origin = 0;
    if (err == CL_SUCCESS &&
        clGetMemObjectInfo(m, CL_MEM_ASSOCIATED_MEMOBJECT, sizeof parent, &parent, NULL) ==
            CL_SUCCESS &&
        parent) {
        f->base = parent;
        err = clGetMemObjectInfo(m, CL_MEM_OFFSET, sizeof f->origin, &f->origin, NULL);
    }
    return err;
}

/* Claims a slot for m; false when m is there already or its probe range is full. */
static bool claim(cl_mem m, const bicl_mem_facts *f)
{
    bool claimed = false;
    pthread_mutex_lock(&table_lock);
    if (find(m) < 0) {
        unsigned h = home(m);
        for (unsigned i = 0; i < MAX_PROBE && !claimed; ++i) {
            slot *s = &table[(h + i) & (SLOTS - 1u)];
            if (!s->key) {
                s->key = m;
                s->facts = *f;
                claimed = true;
            }
        }
    }
    pthread_mutex_unlock(&table_lock);
    return claimed;
}

cl_int bicl_mem_facts_get(cl_mem m, bicl_mem_facts *out)
{
    pthread_mutex_lock(&table_lock);
    int i = find(m);
    if (i >= 0)
        *out = table[i].facts;
    pthread_mutex_unlock(&table_lock);
    if (i >= 0)
        return CL_SUCCESS;
    cl_int err = query(m, out);
    if (err != CL_SUCCESS)
        return err;
    /* One callback per remembered buffer: registered only for a claimed slot (so a
     * full table does not stack callbacks call after call), and outside the table lock
     * (the runtime may call forget() while holding its own lock). */
    if (claim(m, out) && clSetMemObjectDestructorCallback(m, forget, NULL) != CL_SUCCESS)
        forget(m, NULL);
    return CL_SUCCESS;
}

bool bicl_mem_facts_known(cl_mem m)
{
    pthread_mutex_lock(&table_lock);
    bool known = find(m) >= 0;
    pthread_mutex_unlock(&table_lock);
    return known;
}
