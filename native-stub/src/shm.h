/*
 * shm.h - named shared-memory objects shared by several processes.
 *
 * Every object starts with a shm_header: a robust process-shared lock, the
 * creator's identity and a users table (one entry per attached process).
 * A process maps an object once (process-local refcount); when its last
 * local reference goes, it leaves the users table, and the last user
 * unlinks the name. Objects whose users all died are reclaimed by the next
 * open or aclInit (pid liveness plus process start time, to beat pid reuse).
 *
 * Pages are allocated lazily (contract rule S20): an object is a sparse tmpfs
 * file whose pages are allocated (posix_fallocate) before anything touches
 * them, so that a full /dev/shm answers ENOSPC instead of SIGBUS. Create
 * reserves the header with the first page of the users table, and the
 * payload prefix its kind asks for; a table grows a chunk (a page) at a time
 * under the object's lock, and every access to it stays below its watermark
 * (users_backed here; an IPC event's slots_backed). A load of a hole through
 * the mapping allocates a page as a store does, so loops stop there too.
 */
#ifndef CANNSTUB_SHM_H
#define CANNSTUB_SHM_H

#include <stddef.h>
#include <stdint.h>

#include "platform.h"

#define SHM_MAGIC 0x324255545343414eull /* "NACSTUB2" little-endian (2: lazily allocated tables) */
/* Processes attached to one object at once. CANN has no such limit; a fixed
 * table keeps the header robust against a process dying mid-update, and
 * only its pages below users_backed are allocated (16 bytes per entry: one
 * page holds the header and the first ~250 users). */
#define SHM_MAX_USERS 16384
#define SHM_EVENT_PREFIX "cannstub-ev-"

/* ACL_STUB_SCOPE (read at aclInit): a name that every object this process
 * creates or opens carries ("/<prefix><16 hex id>.<scope>"), and that limits
 * its reclaim to objects of the same scope. Processes that share objects must
 * share the scope. Unset or empty: no scope, and reclaim looks at every stub
 * object, scoped or not (so nothing a killed scoped run left stays forever).
 * 1 to SHM_SCOPE_MAX characters of [A-Za-z0-9_-]. */
#define SHM_SCOPE_MAX 24
/* Reads and checks ACL_STUB_SCOPE: 0, or -1 with err set. */
int shm_scope_configure(char *err, size_t len);

struct shm_header {
    uint64_t magic;
    uint32_t ready;    /* 1 once the creator has initialised everything */
    uint32_t unlinked; /* the name is gone: opens must fail */
    uint64_t id;
    uint64_t size;
    struct plat_shared_lock lock;
    struct plat_process_id creator;
    uint32_t creator_gone; /* creator destroyed its object (or exited cleanly) */
    uint32_t users_used;   /* entries at and above this index were never used (all zero) */
    uint32_t users_backed; /* entries below this index have tmpfs pages; users_used <= users_backed */
    uint32_t reserved;
    struct plat_process_id users[SHM_MAX_USERS];
};

/* Repairs the payload after a process died holding the lock. */
typedef void (*shm_repair_fn)(struct shm_header *hdr);

struct shm_object {
    struct shm_object *next;
    char name[PLAT_SHM_NAME_MAX];
    uint64_t id;
    struct shm_header *hdr;
    size_t size;
    int local_refs;
    int is_creator;
    int detached; /* left the users table already (forced detach) */
    struct plat_shm_file file; /* what name stood for when mapped: growth checks it still does */
    shm_repair_fn repair;
};

enum shm_open_result {
    SHM_OK = 0,
    SHM_NOT_FOUND,       /* no object of that name */
    SHM_NOT_OURS,        /* exists but is not a stub object (bad magic/size) */
    SHM_CREATOR_GONE,    /* the creator destroyed it or exited */
    SHM_FULL,            /* users table full (SHM_MAX_USERS live processes) */
    SHM_SYSTEM_ERROR,    /* errno-level failure */
    SHM_NO_SPACE,        /* /dev/shm is full: no page for this process's users entry */
};

/* Payload bytes to reserve at create: all of it (kinds whose payload is
 * touched anywhere, e.g. device memory). */
#define SHM_RESERVE_ALL ((size_t)-1)

/* Creates a new object of size bytes (header and payload); allocates the
 * header's first users page and the first reserve_payload bytes of the
 * payload (rounded up to a page: shm_payload_reserved_end) now. init fills
 * the payload before the object becomes visible as ready. -1 with errno
 * (ENOSPC: /dev/shm is full). */
int shm_create(const char *prefix, size_t size, size_t reserve_payload, void (*init)(struct shm_header *),
               shm_repair_fn repair, struct shm_object **out);
/* Where the pages shm_create allocates for a payload prefix of
 * reserve_payload bytes end (a byte offset in the object): what init may
 * touch. */
size_t shm_payload_reserved_end(size_t size, size_t reserve_payload);
/* Grows a table of obj's payload (entries of elem bytes from byte base, at
 * most max of them, *backed of them allocated): allocates the pages of the
 * next chunk, at least one entry, and only then raises *backed. Call with
 * obj locked. 0, or -1 with errno (ENOSPC: /dev/shm is full), *backed
 * unchanged. */
int shm_grow(struct shm_object *obj, size_t base, size_t elem, uint32_t max, uint32_t *backed);
/* Entries of elem bytes from byte base wholly below byte end, at most max. */
uint32_t shm_entries_below(size_t base, size_t elem, size_t end, uint32_t max);
/* Attaches to an existing object by id (reusing this process's mapping).
 * size 0 accepts any size that the object's header states. */
enum shm_open_result shm_open_by_id(const char *prefix, uint64_t id, size_t size, shm_repair_fn repair,
                                    struct shm_object **out);
const char *shm_open_result_text(enum shm_open_result r);

/* Cross-process lock of one object, with owner-death repair. */
void shm_lock(struct shm_object *obj);
void shm_unlock(struct shm_object *obj);

/* Marks that the creator destroyed the object: later opens fail. */
void shm_mark_creator_gone(struct shm_object *obj);

/* Drops one local reference; the last one leaves the users table (and
 * unlinks the name when no user remains) and unmaps. */
void shm_release(struct shm_object *obj);

/* Leaves every object's users table now (unlinking where last), without
 * unmapping: used by aclFinalize's final step and at process exit, when
 * other threads might still touch the mappings. */
void shm_detach_all(void);

/* Unlinks objects of this prefix whose users are all dead. */
void shm_reclaim_stale(const char *prefix, shm_repair_fn repair);

/* Test hook ACL_STUB_TEST_DIE_IN_LOCK (see native-stub/README.md): where this
 * process SIGKILLs itself inside a shared lock, to test owner-death repair. */
enum shm_test_death {
    SHM_TEST_DIE_NEVER = 0,
    SHM_TEST_DIE_IN_SLOT_RELEASE, /* "1": refcount dropped to 0, done word still set */
    SHM_TEST_DIE_IN_UNLINK,       /* "unlink": last user marked the object unlinked, name still there */
    SHM_TEST_DIE_IN_GROWTH,       /* "grow": a table's next pages allocated, its watermark not raised yet */
};
extern enum shm_test_death shm_test_die_in_lock;
/* Test hook ACL_STUB_TEST_EXACT_RESERVE=1: reserves are not rounded up to a
 * page (create: the first users entry and the payload prefix asked for;
 * growth: one entry), so a few processes or records reach the growth paths. */
extern int shm_test_exact_reserve;

#endif
