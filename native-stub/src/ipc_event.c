/*
 * ipc_event.c - IPC events: 8192 slots with a reference count and a done
 * word each, plus the current slot, in a named shared-memory object.
 *
 * Record takes the lowest free slot and makes it current (at the call);
 * its task sets the done word, drops its reference and wakes every waiter
 * (futex on the shared page, any process). A wait captures the current slot if it is
 * referenced, else is a no-op. A slot whose refcount reaches 0 has its done
 * word cleared so it can be reused. Every state change is made under the
 * object's robust lock; if a process dies inside, ipc_repair restores the
 * one invariant that can break (free slot with a stale done word).
 */
#include "ipc_event.h"

#include "event.h"
#include "explore.h"
#include "jitter.h"
#include "mutant.h"
#include "platform.h"
#include "runtime.h"
#include "stream.h"
#include "sync.h"
#include "trace.h"

#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <unistd.h>

/* Handle layout. Bytes 0..7: the object id (names /cannstub-ev-<hex>).
 * Bytes 8..15: HANDLE_MAGIC, 16..23: a check derived from the id, rest 0.
 * Only bytes 0..7 are needed to open (as on hardware); the rest lets us
 * tell a garbage handle apart in error messages. */
static const unsigned char HANDLE_MAGIC[8] = {'C', 'A', 'N', 'N', 'S', 'T', 'U', 'B'};

static uint64_t handle_check(uint64_t id)
{
    /* splitmix64 finaliser */
    uint64_t z = id + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Payload allocated at create (S20): current, slots_backed and slot 0, to the end of their page (about 170 slots):
 * a record takes the lowest free slot, so most events never use more. */
#define IPC_RESERVE_AT_CREATE (offsetof(struct ipc_shared, slots) + sizeof(struct ipc_slot) - sizeof(struct shm_header))

static void ipc_init(struct shm_header *hdr)
{
    struct ipc_shared *ipc = (struct ipc_shared *)hdr;
    ipc->current = 0; /* slot 0 with refcount 0: nothing pending */
    ipc->slots_backed =
        shm_entries_below(offsetof(struct ipc_shared, slots), sizeof(struct ipc_slot),
                          shm_payload_reserved_end(sizeof(struct ipc_shared), IPC_RESERVE_AT_CREATE), IPC_SLOTS);
}

/* Slots allocated, never more than the table (a watermark written by a dying process is still only ever raised
 * after its pages exist, but the bound costs nothing). */
static uint32_t slots_backed(const struct ipc_shared *ipc)
{
    uint32_t backed = ipc->slots_backed;
    return backed < IPC_SLOTS ? backed : IPC_SLOTS;
}

static void ipc_repair(struct shm_header *hdr)
{
    struct ipc_shared *ipc = (struct ipc_shared *)hdr;
    uint32_t backed = slots_backed(ipc);
    for (uint32_t i = 0; i < backed; i++) { /* the slots past it are free and zero, and holes */
        if (ipc->slots[i].refcount == 0 && ipc->slots[i].done != 0)
            __atomic_store_n(&ipc->slots[i].done, 0, __ATOMIC_RELEASE);
    }
    if (ipc->current >= backed)
        ipc->current = 0;
}

static void bind(struct event *ev, struct shm_object *obj)
{
    ev->is_ipc = 1;
    ev->shm = obj;
    ev->ipc = (struct ipc_shared *)obj->hdr;
    memset(ev->handle, 0, sizeof ev->handle);
    memcpy(ev->handle, &obj->id, 8);
    memcpy(ev->handle + 8, HANDLE_MAGIC, 8);
    uint64_t check = handle_check(obj->id);
    memcpy(ev->handle + 16, &check, 8);
}

aclError ipc_event_create(const char *call, struct event *ev)
{
    struct shm_object *obj;
    if (shm_create(SHM_EVENT_PREFIX, sizeof(struct ipc_shared), IPC_RESERVE_AT_CREATE, ipc_init, ipc_repair, &obj) !=
        0) {
        int err = errno;
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call,
                         "cannot create the shared-memory object of the IPC event in /dev/shm (%s)%s", strerror(err),
                         err == ENOSPC ? ": /dev/shm is full; free space there (df /dev/shm) or remove stale objects"
                                       : "");
    }
    bind(ev, obj);
    ev->is_creator = 1;
    return ACL_SUCCESS;
}

/* 0: bytes 8..63 all zero, 1: carry our check, -1: neither (garbage). */
static int classify_tail(const unsigned char h[64], uint64_t id)
{
    int zero = 1;
    for (int i = 8; i < 64; i++)
        zero &= h[i] == 0;
    if (zero)
        return 0;
    uint64_t check = handle_check(id);
    int ok = memcmp(h + 8, HANDLE_MAGIC, 8) == 0 && memcmp(h + 16, &check, 8) == 0;
    for (int i = 24; i < 64 && ok; i++)
        ok = h[i] == 0;
    return ok ? 1 : -1;
}

aclError ipc_event_open(const char *call, const unsigned char handle[64], struct event *ev)
{
    uint64_t id;
    memcpy(&id, handle, 8);
    if (id == 0)
        return stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                         "the handle is all zeros in bytes 0..7 (not filled by aclrtIpcGetEventHandle?)");
    int tail = classify_tail(handle, id);
    struct shm_object *obj;
    enum shm_open_result r = shm_open_by_id(SHM_EVENT_PREFIX, id, sizeof(struct ipc_shared), ipc_repair, &obj);
    if (r == SHM_FULL)
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot open IPC event %016llx: %s",
                         (unsigned long long)id, shm_open_result_text(r));
    if (r == SHM_NO_SPACE) /* as any system error when opening the shared state (S20) */
        return stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call, "cannot open IPC event %016llx: %s", (unsigned long long)id,
                         shm_open_result_text(r));
    if (r != SHM_OK) {
        if (tail < 0)
            return stub_fail(
                ACL_ERROR_RT_INVALID_HANDLE, call,
                "the handle is garbage: it names no IPC event and its bytes 8..63 are not a stub handle's");
        return stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call, "cannot open IPC event %016llx: %s", (unsigned long long)id,
                         shm_open_result_text(r));
    }
    if (tail < 0)
        stub_log(LOG_WARN,
                 "%s: bytes 8..63 of the handle of %016llx are not ours; opened from bytes 0..7 as "
                 "the real runtime does",
                 call, (unsigned long long)id);
    bind(ev, obj);
    ev->is_creator = 0;
    return ACL_SUCCESS;
}

/* The message of a record whose slot table could not grow. */
#define NO_SLOT_PAGE_TEXT                                                                                        \
    "cannot allocate more slots of IPC event %016llx in /dev/shm (%s)%s (stub rule S20: CANN's record does not " \
    "fail here)"

/* Takes the lowest free slot (refcount 0) and makes it current: 1; 0 if every
 * slot is referenced; -1 (errno) if the slots past the allocated ones could
 * not be allocated (S20). *use: the slot's use count, naming this record. */
static int try_take_slot(struct event *ev, const struct stream *s, uint32_t *slot, uint32_t *use)
{
    struct ipc_shared *ipc = ev->ipc;
    shm_lock(ev->shm);
    uint32_t backed = slots_backed(ipc);
    uint32_t found = IPC_SLOTS;
    for (uint32_t i = 0; i < backed; i++) {
        if (ipc->slots[i].refcount == 0) {
            found = i;
            break;
        }
    }
    int grow_failed = 0;
    if (found == IPC_SLOTS && backed < IPC_SLOTS) {
        /* the slots past the watermark are free: allocate the next page of them */
        if (shm_grow(ev->shm, offsetof(struct ipc_shared, slots), sizeof(struct ipc_slot), IPC_SLOTS,
                     &ipc->slots_backed) == 0)
            found = backed;
        else
            grow_failed = errno ? errno : EIO;
    }
    if (found < IPC_SLOTS) {
        /* a free slot's done word is 0 (cleared on release, or by ipc_repair) */
        ipc->slots[found].refcount = 1;
        *use = ++ipc->slots[found].uses;
        ipc->slots[found].recorder_pid = (int32_t)plat_process_id();
        ipc->slots[found].recorder_stream = s->id;
        __atomic_store_n(&ipc->current, found, __ATOMIC_RELEASE);
    }
    shm_unlock(ev->shm);
    *slot = found;
    if (grow_failed) {
        errno = grow_failed;
        return -1;
    }
    return found < IPC_SLOTS;
}

static aclError no_slot_page(const char *call, struct event *ev)
{
    int err = errno;
    return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, NO_SLOT_PAGE_TEXT, (unsigned long long)ev->shm->id,
                     strerror(err),
                     err == ENOSPC ? ": /dev/shm is full; free space there (df /dev/shm) or remove stale objects" : "");
}

/* How often a record blocked on a full slot table looks again: slots are
 * freed by executors of any process, and nothing wakes us across processes. */
#define SLOT_RETRY_MS 1

aclError ipc_record_take_slot(const char *call, struct event *ev, struct stream *s, uint32_t *slot, uint32_t *use)
{
    int taken = try_take_slot(ev, s, slot, use);
    if (taken > 0)
        return ACL_SUCCESS;
    if (taken < 0)
        return no_slot_page(call, ev);
    /* CANN's record spins until a slot frees (ipc_event.cc GetIpcRecordIndex);
     * this one polls with rt.lock released, and gives up when the event or the
     * stream goes (destroy, device reset) or the runtime is finalized. */
    stub_log(LOG_WARN, "%s: all %d slots of IPC event %016llx are referenced: the record waits until one frees", call,
             IPC_SLOTS, (unsigned long long)ev->shm->id);
    event_ref(ev);
    s->waiters++; /* keeps s allocated while rt.lock is released */
    aclError rc = ACL_SUCCESS;
    for (;;) {
        rt_wait_progress(rt_deadline_after_ms(SLOT_RETRY_MS));
        if (!rt.initialized)
            rc =
                stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "aclFinalize ran while the record waited for a free slot");
        else if (ev->destroyed)
            rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                           "the event was destroyed while the record waited for a free slot");
        else if (s->destroyed)
            rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                           "the stream was destroyed (or its device reset) while the record waited for a free slot");
        else if ((taken = try_take_slot(ev, s, slot, use)) == 0)
            continue;
        else if (taken < 0)
            rc = no_slot_page(call, ev);
        break;
    }
    s->waiters--;
    rt_progress_broadcast(); /* an executor may wait for waiters == 0 */
    event_unref(ev);
    return rc;
}

int ipc_slot_recorder(struct event *ev, uint32_t slot, uint32_t use, int32_t *pid, uint64_t *stream)
{
    struct ipc_slot *sl = &ev->ipc->slots[slot];
    shm_lock(ev->shm);
    int same = sl->uses == use;
    *pid = sl->recorder_pid;
    *stream = sl->recorder_stream;
    shm_unlock(ev->shm);
    return same;
}

void ipc_wait_capture(struct event *ev, int64_t *slot, uint32_t *use)
{
    struct ipc_shared *ipc = ev->ipc;
    shm_lock(ev->shm);
    uint32_t cur = ipc->current;
    if (ipc->slots[cur].refcount == 0) {
        *slot = -1;
    } else {
        ipc->slots[cur].refcount++;
        *slot = cur;
        if (use)
            *use = ipc->slots[cur].uses;
    }
    shm_unlock(ev->shm);
}

int ipc_is_complete(struct event *ev)
{
    struct ipc_shared *ipc = ev->ipc;
    shm_lock(ev->shm);
    uint32_t cur = ipc->current;
    int complete = ipc->slots[cur].refcount == 0 || __atomic_load_n(&ipc->slots[cur].done, __ATOMIC_ACQUIRE);
    shm_unlock(ev->shm);
    return complete;
}

void ipc_slot_complete(struct event *ev, uint32_t slot)
{
    struct ipc_slot *s = &ev->ipc->slots[slot];
    /* done and the record's reference change in one critical section, and
     * the wake comes after the unlock: a woken waiter never finds the lock
     * still held by the recorder (one context switch less per wake-up). */
    shm_lock(ev->shm);
    __atomic_store_n(&s->done, 1, __ATOMIC_RELEASE);
    int waiters = 0;
    if (s->refcount > 0 && --s->refcount == 0) {
        if (shm_test_die_in_lock == SHM_TEST_DIE_IN_SLOT_RELEASE)
            raise(SIGKILL); /* test hook: see ipc_slot_release */
        __atomic_store_n(&s->done, 0, __ATOMIC_RELEASE); /* nobody waits: free at once */
    } else {
        waiters = 1;
    }
    shm_unlock(ev->shm);
    if (waiters && EXPLORE_ON()) {
        char key[EXPLORE_KEY_BYTES];
        explore_ipc_key(key, ev->shm->id, slot);
        cannstub_explore_wake(key); /* its waiters, in any process, are RUNNING before they wake */
    }
    if (waiters)
        plat_wake_word(&s->done);
}

/* Blocks until the slot's done word is set (returns 1), *cancel stops being
 * cancel_expected, or deadline_ns (0: none) passes (returns 0). The caller
 * holds a reference on the slot, so the word cannot be cleared and reused
 * under us. */
/* *blocked (when not NULL) is set to 1 before the first sleep: the slot was still pending. */
static int wait_slot_done(struct event *ev, uint32_t slot, const uint32_t *cancel, uint32_t cancel_expected,
                          uint64_t deadline_ns, uint32_t *blocked)
{
    struct ipc_slot *s = &ev->ipc->slots[slot];
    int explored = 0;
    for (;;) {
        if (__atomic_load_n(&s->done, __ATOMIC_ACQUIRE))
            return 1;
        if (__atomic_load_n(cancel, __ATOMIC_SEQ_CST) != cancel_expected)
            return 0;
        if (deadline_ns && plat_monotonic_ns() >= deadline_ns)
            return 0;
        if (blocked)
            __atomic_store_n(blocked, 1, __ATOMIC_RELEASE);
        if (!explored && EXPLORE_ON()) {
            /* BLOCKED until the record (ipc_slot_complete, any process) makes it RUNNING */
            char key[EXPLORE_KEY_BYTES];
            explore_ipc_key(key, ev->shm->id, slot);
            explore_keyed_sleep(key);
            explored = 1;
            continue; /* the record may have run meanwhile */
        }
        plat_wait_on_word_or_cancel(&s->done, 0, cancel, cancel_expected, deadline_ns);
    }
}

int ipc_slot_wait(struct event *ev, uint32_t slot, const uint32_t *cancelled, uint32_t *blocked)
{
    return wait_slot_done(ev, slot, cancelled, 0, 0, blocked);
}

void ipc_slot_release(struct event *ev, uint32_t slot)
{
    struct ipc_slot *s = &ev->ipc->slots[slot];
    shm_lock(ev->shm);
    if (s->refcount > 0 && --s->refcount == 0) {
        if (shm_test_die_in_lock == SHM_TEST_DIE_IN_SLOT_RELEASE) {
            /* test hook: die holding the lock with a half-released slot
             * (refcount 0, done still set) that ipc_repair must fix */
            raise(SIGKILL);
        }
        __atomic_store_n(&s->done, 0, __ATOMIC_RELEASE);
    }
    shm_unlock(ev->shm);
}

aclError ipc_synchronize(const char *call, struct event *ev, int32_t timeout_ms)
{
    /* aclFinalize on another thread bumps rt.shutdowns and wakes it */
    uint32_t shutdowns = __atomic_load_n(&rt.shutdowns, __ATOMIC_SEQ_CST);
    int64_t slot;
    uint32_t use = 0;
    ipc_wait_capture(ev, &slot, &use);
    if (slot < 0)
        return ACL_SUCCESS;
    uint64_t deadline = rt_deadline_after_ms(timeout_ms);
    int done =
        mutant_is(MUTANT_SYNC_NOOP) || wait_slot_done(ev, (uint32_t)slot, &rt.shutdowns, shutdowns, deadline, NULL);
    ipc_slot_release(ev, (uint32_t)slot);
    aclError rc = ACL_SUCCESS;
    if (done)
        rc = ACL_SUCCESS;
    else if (__atomic_load_n(&rt.shutdowns, __ATOMIC_SEQ_CST) != shutdowns)
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "aclFinalize ran while waiting");
    else
        rc = stub_fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, call,
                       "the IPC event's current record (slot %lld) has not executed after %d ms", (long long)slot,
                       (int)timeout_ms);
    /* what it waited for: that use of the slot (the record's "gen") */
    struct trace_record r = {.op = "sync",
                             .kind = "ipc_event",
                             .device = ev->device,
                             .event = ev->id,
                             .slot = slot,
                             .gen = use,
                             .ipc = ev->shm->id,
                             .rc = rc,
                             .jitter_us = -1};
    trace_emit(&r);
    if (rc == ACL_SUCCESS)
        jitter_sleep_us(jitter_completion_us(ev->shm->id, ((uint64_t)slot << 32) | use));
    return rc;
}

void ipc_event_detach(struct event *ev)
{
    shm_release(ev->shm);
    ev->shm = NULL;
    ev->ipc = NULL;
}

void ipc_reclaim_stale(void)
{
    shm_reclaim_stale(SHM_EVENT_PREFIX, ipc_repair);
}
