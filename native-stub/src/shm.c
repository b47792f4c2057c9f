/*
 * shm.c - named shared-memory objects: create, open, users table,
 * last-user unlink, owner-death repair and reclaim of abandoned objects.
 */
#include "shm.h"

#include "cannstub/release.h"

#include "errors.h"
#include "sync.h"

#include <assert.h>
#include <ctype.h>
#include <errno.h>
#include <stddef.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The header is a layout shared by every process of every stub build that
 * meets an object: a change to it must bump SHM_MAGIC (shm.h). */
_Static_assert(offsetof(struct shm_header, lock) == 32, "shm_header layout changed: bump SHM_MAGIC");
_Static_assert(offsetof(struct shm_header, users) == 64 + PLAT_SHARED_LOCK_BYTES,
               "shm_header layout changed: bump SHM_MAGIC");

enum shm_test_death shm_test_die_in_lock;
int shm_test_exact_reserve;

/* ACL_STUB_SCOPE (shm.h); "" for none. Set by aclInit, before any object. */
static char scope[SHM_SCOPE_MAX + 1];

int shm_scope_configure(char *err, size_t len)
{
    const char *v = getenv("ACL_STUB_SCOPE");
    size_t n = v ? strlen(v) : 0;
    /* set but empty is refused: it would silently mean "no scope", whose reclaim is every scope's */
    int ok = n <= SHM_SCOPE_MAX && (!v || n > 0);
    for (size_t i = 0; ok && i < n; i++)
        ok = isalnum((unsigned char)v[i]) || v[i] == '_' || v[i] == '-';
    if (!ok) {
        snprintf(err, len,
                 "ACL_STUB_SCOPE=%.40s%s is invalid: use 1 to %d characters of A-Z, a-z, 0-9, _ and -, or unset it", v,
                 n > 40 ? "..." : "", SHM_SCOPE_MAX);
        return -1;
    }
    memcpy(scope, v ? v : "", n + 1);
    return 0;
}

/* Process-local list of mapped objects, guarded by list_lock. Lock order:
 * list_lock, then an object's shared lock. */
static pthread_mutex_t list_lock = SYNC_MUTEX_INITIALIZER;
static struct shm_object *objects;

/* An object whose creator died before marking it ready is reclaimed once
 * it is this old (creation takes microseconds). */
#define SHM_UNREADY_GRACE_NS (5ull * 1000000000ull)

/* Entries allocated (S20): never more than the table. */
static uint32_t users_backed(const struct shm_header *hdr)
{
    uint32_t backed = hdr->users_backed;
    return backed < SHM_MAX_USERS ? backed : SHM_MAX_USERS;
}

/* Entries worth scanning: never past the allocated ones (a header written by
 * a dying process must not make us touch a hole, or read past the table). */
static uint32_t users_scanned(const struct shm_header *hdr)
{
    uint32_t used = hdr->users_used, backed = users_backed(hdr);
    return used < backed ? used : backed;
}

static void prune_dead_users(struct shm_header *hdr)
{
    for (uint32_t i = 0; i < users_scanned(hdr); i++) {
        if (hdr->users[i].pid != 0 && !plat_process_alive(&hdr->users[i])) {
            hdr->users[i].pid = 0; /* clear pid first: a half-cleared entry stays dead */
            hdr->users[i].start_time = 0;
        }
    }
}

/* 1 if some user is alive. Dead entries met on the way are cleared; the
 * scan stops at the first live one, so with many live users this costs one
 * liveness check (each reads /proc), not one per user: N processes opening
 * or leaving one object stay O(N), not O(N^2). */
static int any_live_user(struct shm_header *hdr)
{
    for (uint32_t i = 0; i < users_scanned(hdr); i++) {
        if (hdr->users[i].pid == 0)
            continue;
        if (plat_process_alive(&hdr->users[i]))
            return 1;
        hdr->users[i].pid = 0; /* clear pid first: a half-cleared entry stays dead */
        hdr->users[i].start_time = 0;
    }
    return 0;
}

static int add_user(struct shm_header *hdr, const struct plat_process_id *self)
{
    uint32_t used = users_scanned(hdr);
    for (uint32_t i = 0; i < used; i++) {
        if (hdr->users[i].pid == self->pid && hdr->users[i].start_time == self->start_time)
            return 0;
    }
    uint32_t backed = users_backed(hdr);
    for (uint32_t i = 0; i < backed; i++) {
        if (hdr->users[i].pid == 0) {
            hdr->users[i].start_time = self->start_time; /* pid last: entry valid once pid set */
            if (i >= used)
                hdr->users_used = i + 1; /* before the pid: a death here leaves a dead entry in range */
            __atomic_store_n(&hdr->users[i].pid, self->pid, __ATOMIC_RELEASE);
            return 0;
        }
    }
    return -1; /* every allocated entry is taken: grow_users, or the table is full */
}

static void remove_user(struct shm_header *hdr, const struct plat_process_id *self)
{
    for (uint32_t i = 0; i < users_scanned(hdr); i++) {
        if (hdr->users[i].pid == self->pid && hdr->users[i].start_time == self->start_time) {
            hdr->users[i].pid = 0;
            hdr->users[i].start_time = 0;
        }
    }
}

/* Removes the name of an object with no user left (hdr locked). The flag
 * makes opens that mapped it before the unlink, and lock it after, fail
 * cleanly. The unlink runs even when the flag is already set: a last user
 * killed between the two leaves the flag set and the name behind, and
 * unlinking a name that is already gone is harmless. */
static void unlink_unused(struct shm_header *hdr, const char *name)
{
    hdr->unlinked = 1;
    plat_shm_unlink(name);
}

/* The lock was taken from an owner that died holding it (EOWNERDEAD). */
static void repair_after_owner_death(struct shm_header *hdr, shm_repair_fn repair)
{
    stub_log(LOG_WARN, "a process died holding the lock of IPC object %016llx: repairing", (unsigned long long)hdr->id);
    prune_dead_users(hdr);
    if (repair)
        repair(hdr);
    plat_shared_lock_mark_consistent(&hdr->lock);
}

/* Locks hdr; if the previous owner died inside, repairs users and payload. */
static void lock_header(struct shm_header *hdr, shm_repair_fn repair)
{
    int rc = plat_shared_lock_lock(&hdr->lock);
    if (rc == 1) {
        repair_after_owner_death(hdr, repair);
    } else if (rc < 0) {
        /* unrecoverable (ENOTRECOVERABLE): nothing sane to do but report */
        stub_log(LOG_ERROR, "lock of IPC object %016llx is unrecoverable", (unsigned long long)hdr->id);
    }
}

void shm_lock(struct shm_object *obj)
{
    lock_header(obj->hdr, obj->repair);
}

void shm_unlock(struct shm_object *obj)
{
    plat_shared_lock_unlock(&obj->hdr->lock);
}

uint32_t shm_entries_below(size_t base, size_t elem, size_t end, uint32_t max)
{
    size_t n = end > base ? (end - base) / elem : 0;
    return n < max ? (uint32_t)n : max;
}

static size_t page_end(size_t at)
{
    size_t page = plat_page_size();
    return (at + page - 1) / page * page;
}

/* The end of the reserve that makes room for n entries of elem bytes from
 * byte start: the end of their last page (tmpfs allocates whole pages, so
 * the rest of it comes free), exactly their end with the test hook; never
 * past the object's size. */
static size_t reserve_end(size_t start, size_t elem, size_t n, size_t size)
{
    size_t end = start + elem * n;
    if (!shm_test_exact_reserve)
        end = page_end(end);
    return end < size ? end : size;
}

size_t shm_payload_reserved_end(size_t size, size_t reserve_payload)
{
    if (reserve_payload == SHM_RESERVE_ALL)
        return size;
    return reserve_end(sizeof(struct shm_header), reserve_payload, 1, size);
}

/* shm_grow on a mapping that may have no shm_object yet (an open). */
static int grow_table(const char *name, const struct plat_shm_file *file, size_t size, size_t base, size_t elem,
                      uint32_t max, uint32_t *backed)
{
    uint32_t have = __atomic_load_n(backed, __ATOMIC_RELAXED);
    if (have >= max) {
        errno = ENOSPC;
        return -1;
    }
    size_t start = base + elem * have;
    size_t end = reserve_end(start, elem, 1, size);
    if (plat_shm_reserve(name, file, start, end - start) != 0)
        return -1;
    if (shm_test_die_in_lock == SHM_TEST_DIE_IN_GROWTH)
        raise(SIGKILL); /* test hook: pages allocated, watermark not raised (harmless: they are allocated again) */
    /* every process reads it under the lock: relaxed is enough, and it is only ever raised */
    __atomic_store_n(backed, shm_entries_below(base, elem, end, max), __ATOMIC_RELAXED);
    return 0;
}

int shm_grow(struct shm_object *obj, size_t base, size_t elem, uint32_t max, uint32_t *backed)
{
    return grow_table(obj->name, &obj->file, obj->size, base, elem, max, backed);
}

static int grow_users(struct shm_header *hdr, const char *name, const struct plat_shm_file *file, size_t size)
{
    return grow_table(name, file, size, offsetof(struct shm_header, users), sizeof hdr->users[0], SHM_MAX_USERS,
                      &hdr->users_backed);
}

int shm_create(const char *prefix, size_t size, size_t reserve_payload, void (*init)(struct shm_header *),
               shm_repair_fn repair, struct shm_object **out)
{
    struct shm_object *obj = calloc(1, sizeof *obj);
    if (!obj)
        return -1;
    /* the header with the creator's users entry (the page's other entries come free), and the
     * payload prefix the kind asks for; in this order, so that the object's size (extended by
     * each range) never covers a header that is a hole */
    size_t users_off = offsetof(struct shm_header, users);
    size_t users_end = reserve_end(users_off, sizeof obj->hdr->users[0], 1, size);
    size_t payload_end = shm_payload_reserved_end(size, reserve_payload);
    struct plat_range reserve[2] = {{0, users_end},
                                    {sizeof(struct shm_header), payload_end - sizeof(struct shm_header)}};
    int nreserve = payload_end > sizeof(struct shm_header) ? 2 : 1;
    void *map = NULL;
    for (int attempt = 0; attempt < 16 && !map; attempt++) {
        obj->id = plat_random_u64();
        if (obj->id == 0)
            continue;
        plat_shm_name(obj->name, prefix, obj->id, scope);
        map = plat_shm_create(obj->name, size, reserve, nreserve, &obj->file);
        if (!map && errno != EEXIST)
            break;
    }
    if (!map) {
        int err = errno;
        free(obj);
        errno = err;
        return -1;
    }
    struct shm_header *hdr = map;
    struct plat_process_id self;
    plat_self_process_id(&self);
    hdr->magic = SHM_MAGIC;
    hdr->id = obj->id;
    hdr->size = size;
    hdr->users_backed = shm_entries_below(users_off, sizeof hdr->users[0], users_end, SHM_MAX_USERS);
    if (plat_shared_lock_init(&hdr->lock) != 0) {
        plat_shm_unmap(map, size);
        plat_shm_unlink(obj->name);
        free(obj);
        return -1;
    }
    hdr->creator = self;
    add_user(hdr, &self);
    if (init)
        init(hdr);
    __atomic_store_n(&hdr->ready, 1, __ATOMIC_RELEASE);

    obj->hdr = hdr;
    obj->size = size;
    obj->local_refs = 1;
    obj->is_creator = 1;
    obj->repair = repair;
    sync_lock(&list_lock);
    obj->next = objects;
    objects = obj;
    sync_unlock(&list_lock);
    *out = obj;
    return 0;
}

const char *shm_open_result_text(enum shm_open_result r)
{
    switch (r) {
    case SHM_OK: return "ok";
    case SHM_NOT_FOUND:
        return "no IPC event with this handle exists (never created, destroyed, or all its users exited)";
    case SHM_NOT_OURS: return "the handle names a shared-memory object that is not a stub IPC event";
    case SHM_CREATOR_GONE: return "the creator of this IPC event destroyed it or exited";
    case SHM_FULL: return "16384 processes have this IPC event open, the stub's limit (stub rule): close it in some";
    case SHM_NO_SPACE:
        return "/dev/shm is full (no page for one more user of the shared object: stub rule S20); free space there "
               "(df /dev/shm) or remove stale objects";
    default: return "system error while opening the shared state";
    }
}

/* Checks an attached header for an open (under its lock). */
static enum shm_open_result check_openable(struct shm_header *hdr)
{
    if (hdr->unlinked)
        return SHM_NOT_FOUND;
    if (hdr->creator_gone || !plat_process_alive(&hdr->creator))
        return SHM_CREATOR_GONE;
    return SHM_OK;
}

/* Opens id through this process's own mapping when it has one: returns 1
 * with *result set (and *out on SHM_OK), or 0 when id is not mapped here. */
static int open_mapped(uint64_t id, struct shm_object **out, enum shm_open_result *result)
{
    int found = 0;
    sync_lock(&list_lock);
    for (struct shm_object *o = objects; o; o = o->next) {
        if (o->id == id && !o->detached) {
            lock_header(o->hdr, o->repair);
            *result = check_openable(o->hdr);
            shm_unlock(o);
            if (*result == SHM_OK) {
                o->local_refs++;
                *out = o;
            }
            found = 1;
            break;
        }
    }
    sync_unlock(&list_lock);
    return found;
}

enum shm_open_result shm_open_by_id(const char *prefix, uint64_t id, size_t size, shm_repair_fn repair,
                                    struct shm_object **out)
{
    struct plat_process_id self;
    plat_self_process_id(&self);
    enum shm_open_result mapped;
    if (open_mapped(id, out, &mapped))
        return mapped;

    char name[PLAT_SHM_NAME_MAX];
    plat_shm_name(name, prefix, id, scope);
    size_t actual = 0;
    struct plat_shm_file file;
    void *map = plat_shm_open(name, sizeof(struct shm_header), &actual, NULL, &file);
    if (!map)
        return errno == ENOENT ? SHM_NOT_FOUND : (errno == EINVAL ? SHM_NOT_OURS : SHM_SYSTEM_ERROR);
    struct shm_header *hdr = map;
    /* size 0: any size, as long as the header says the same (VMM handles name no size) */
    size_t want = size ? size : (size_t)hdr->size;
    if (actual != want || actual < sizeof *hdr || hdr->magic != SHM_MAGIC || hdr->id != id ||
        !__atomic_load_n(&hdr->ready, __ATOMIC_ACQUIRE)) {
        plat_shm_unmap(map, actual);
        return SHM_NOT_OURS;
    }
    lock_header(hdr, repair);
    enum shm_open_result r = check_openable(hdr);
    if (r == SHM_OK && add_user(hdr, &self) != 0) {
        /* every allocated entry is taken: allocate the next page of them; only a full table
         * prunes (each entry's liveness is a /proc read), and entries of dead processes are reused */
        if (users_backed(hdr) < SHM_MAX_USERS) {
            if (grow_users(hdr, name, &file, actual) != 0)
                r = errno == ENOSPC ? SHM_NO_SPACE : SHM_SYSTEM_ERROR;
        } else {
            prune_dead_users(hdr);
        }
        if (r == SHM_OK && add_user(hdr, &self) != 0)
            r = SHM_FULL;
    }
    if (r != SHM_OK && !any_live_user(hdr))
        unlink_unused(hdr, name); /* every user is dead: reclaim it now */
    plat_shared_lock_unlock(&hdr->lock);
    if (r != SHM_OK) {
        plat_shm_unmap(map, actual);
        return r;
    }

    struct shm_object *obj = calloc(1, sizeof *obj);
    if (!obj) {
        lock_header(hdr, repair);
        remove_user(hdr, &self);
        plat_shared_lock_unlock(&hdr->lock);
        plat_shm_unmap(map, actual);
        return SHM_SYSTEM_ERROR;
    }
    memcpy(obj->name, name, sizeof name);
    obj->id = id;
    obj->file = file;
    obj->hdr = hdr;
    obj->size = actual;
    obj->local_refs = 1;
    obj->repair = repair;
    sync_lock(&list_lock);
    obj->next = objects;
    objects = obj;
    sync_unlock(&list_lock);
    *out = obj;
    return SHM_OK;
}

void shm_mark_creator_gone(struct shm_object *obj)
{
    shm_lock(obj);
    obj->hdr->creator_gone = 1;
    shm_unlock(obj);
}

/* leave(), with obj's lock held. */
static void leave_locked(struct shm_object *obj, const struct plat_process_id *self)
{
    if (obj->is_creator)
        obj->hdr->creator_gone = 1;
    remove_user(obj->hdr, self);
    if (!any_live_user(obj->hdr)) {
        if (shm_test_die_in_lock == SHM_TEST_DIE_IN_UNLINK) {
            obj->hdr->unlinked = 1;
            raise(SIGKILL); /* test hook: flag set, name left behind */
        }
        unlink_unused(obj->hdr, obj->name);
    }
}

/* Leaves the users table; unlinks when this was the last user. Called with
 * list_lock held. */
static void leave(struct shm_object *obj, const struct plat_process_id *self)
{
    if (obj->detached)
        return;
    obj->detached = 1;
    shm_lock(obj);
    leave_locked(obj, self);
    shm_unlock(obj);
}

void shm_release(struct shm_object *obj)
{
    struct plat_process_id self;
    plat_self_process_id(&self);
    sync_lock(&list_lock);
    assert(obj->local_refs > 0);
    int last = --obj->local_refs == 0;
    if (last) {
        leave(obj, &self);
        for (struct shm_object **pp = &objects; *pp; pp = &(*pp)->next) {
            if (*pp == obj) {
                *pp = obj->next;
                break;
            }
        }
    }
    sync_unlock(&list_lock);
    if (last) {
        plat_shm_unmap(obj->hdr, obj->size);
        free(obj);
    }
}

void shm_detach_all(void)
{
    struct plat_process_id self;
    plat_self_process_id(&self);
    sync_lock(&list_lock);
    for (struct shm_object *o = objects; o; o = o->next)
        leave(o, &self);
    sync_unlock(&list_lock);
}

/* cannstub/release.h: an orphaned device process, about to SIGKILL itself,
 * leaves every object first, so that the last one out unlinks it (issue #20
 * item 2). Never blocks longer than timeout_ms per lock: the main thread may
 * be anywhere, and a process that hangs here would never die. */
STUB_EXPORT int cannstub_release_shared(int timeout_ms)
{
    struct plat_process_id self;
    plat_self_process_id(&self);
    if (plat_mutex_lock_timeout(&list_lock, timeout_ms < 0 ? 0 : timeout_ms) != 0)
        return -1;
    int left = 0;
    for (struct shm_object *o = objects; o; o = o->next) {
        if (o->detached)
            continue;
        const char *why = NULL;
        int rc = plat_shared_lock_lock_foreign(&o->hdr->lock, timeout_ms < 0 ? 0 : timeout_ms, &why);
        if (rc < 0) {
            left++;
            continue;
        }
        if (rc == 1)
            repair_after_owner_death(o->hdr, o->repair);
        o->detached = 1;
        leave_locked(o, &self);
        plat_shared_lock_unlock(&o->hdr->lock);
    }
    sync_unlock(&list_lock);
    return left;
}

/* The header fields every stub version shares (the users table's size has
 * changed between versions). */
#define SHM_COMMON_PREFIX offsetof(struct shm_header, users)

/* How long reclaim waits for the lock of an object: its holders hold it for microseconds, so a lock held this long is
 * a hostile or stopped holder's, and waiting on would hang every aclInit. */
#define SHM_FOREIGN_LOCK_MS 250

struct reclaim_ctx {
    const char *prefix;
    shm_repair_fn repair;
    /* Objects left alone in this pass: the first one's name and reason, and how many in all. */
    unsigned left;
    char first[PLAT_SHM_NAME_MAX];
    char first_why[160];
};

static void note_left_alone(struct reclaim_ctx *ctx, const char *name, const char *why)
{
    if (ctx->left++ == 0) {
        snprintf(ctx->first, sizeof ctx->first, "%s", name);
        snprintf(ctx->first_why, sizeof ctx->first_why, "%s", why);
    }
}

/* One line on stderr per pass, whatever ACL_STUB_LOG says: an object that stops reclaim is a
 * problem for the machine's owner to see (README-stub.md); a stranger's 20000 objects are one line
 * with a count, not 20000 lines in every process of a run. */
static void say_left_alone(const struct reclaim_ctx *ctx)
{
    if (ctx->left == 1)
        fprintf(stderr, "[acl-stub] left /dev/shm%s alone: %s (not reclaimed; remove it if it is stale)\n", ctx->first,
                ctx->first_why);
    else if (ctx->left > 1)
        fprintf(stderr,
                "[acl-stub] left /dev/shm%s alone: %s; and %u more /dev/shm/%s* objects this stub may not reclaim "
                "(not reclaimed; ls -l /dev/shm/%s* and remove the stale ones)\n",
                ctx->first, ctx->first_why, ctx->left - 1, ctx->prefix, ctx->prefix);
}

/* Whether reclaim may look at name ("/<prefix>...", shm.h): with a scope,
 * only "/<prefix><16 hex>.<scope>" (another scope's leftovers are the
 * evidence of its own leak checks); without one, every object. */
static int in_reclaim_scope(const char *name, const char *prefix)
{
    if (!*scope)
        return 1;
    const char *id = name + 1 + strlen(prefix);
    for (int i = 0; i < 16; i++)
        if (!isxdigit((unsigned char)id[i]))
            return 0;
    return id[16] == '.' && strcmp(id + 17, scope) == 0;
}

static void reclaim_one(const char *name, void *vctx)
{
    struct reclaim_ctx *ctx = vctx;
    shm_repair_fn repair = ctx->repair;
    if (!in_reclaim_scope(name, ctx->prefix))
        return;
    char why[160];
    /* Only our own objects: another user's (or one others can write) is not
     * ours to unlink or to lock. /dev/shm is sticky, so nobody else can put
     * another object under a name that is ours between here and the open. */
    int own = plat_shm_is_own(name, why, sizeof why);
    if (own <= 0) {
        if (own == 0)
            note_left_alone(ctx, name, why);
        return; /* gone, or another user's private object: not ours to judge */
    }
    size_t actual = 0;
    uint64_t age = 0;
    void *map = plat_shm_open(name, SHM_COMMON_PREFIX, &actual, &age, NULL);
    if (!map) {
        /* smaller than any header: a creator died before sizing it */
        if (errno == EINVAL && age > SHM_UNREADY_GRACE_NS)
            plat_shm_unlink(name);
        return;
    }
    struct shm_header *hdr = map;
    int initialised = hdr->magic == SHM_MAGIC && __atomic_load_n(&hdr->ready, __ATOMIC_ACQUIRE);
    if (!initialised) {
        /* creator died mid-create; another magic is not ours to judge */
        if ((hdr->magic == 0 || hdr->magic == SHM_MAGIC) && age > SHM_UNREADY_GRACE_NS)
            plat_shm_unlink(name);
        else if (hdr->magic != 0 && hdr->magic != SHM_MAGIC)
            stub_log(LOG_INFO, "left %s alone: not a stub object (magic %016llx)", name,
                     (unsigned long long)hdr->magic);
        plat_shm_unmap(map, actual);
        return;
    }
    /* An object of another stub version (another users-table size, e.g. a
     * second checkout running at the same time) is left to that version:
     * this one cannot read its users. */
    if (actual != hdr->size || actual < sizeof(struct shm_header)) {
        stub_log(LOG_INFO, "left %s alone: %zu bytes, its header says %llu (another stub version?)", name, actual,
                 (unsigned long long)hdr->size);
        plat_shm_unmap(map, actual);
        return;
    }
    /* Never block on a lock nobody here made, nor trust its bytes. */
    const char *lock_why = NULL;
    int rc = plat_shared_lock_lock_foreign(&hdr->lock, SHM_FOREIGN_LOCK_MS, &lock_why);
    if (rc < 0) {
        note_left_alone(ctx, name, lock_why);
        plat_shm_unmap(map, actual);
        return;
    }
    if (rc == 1)
        repair_after_owner_death(hdr, repair);
    if (!any_live_user(hdr)) {
        unlink_unused(hdr, name);
        stub_log(LOG_INFO, "reclaimed %s: all its users are dead", name);
    }
    plat_shared_lock_unlock(&hdr->lock);
    plat_shm_unmap(map, actual);
}

void shm_reclaim_stale(const char *prefix, shm_repair_fn repair)
{
    struct reclaim_ctx ctx = {.prefix = prefix, .repair = repair};
    plat_shm_for_each(prefix, reclaim_one, &ctx);
    say_left_alone(&ctx);
}
