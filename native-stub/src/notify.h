/*
 * notify.h - notifies: one-shot flags that a stream records and another
 * stream waits on and resets, within a process or (after export/import)
 * across processes. See docs/acl-contract.md section 8.
 *
 * Each notify is a named shared-memory object /cannstub-nt-<16 hex>
 * (shm.c: users table, robust lock, reclaim after death) whose flag word is
 * a futex: a record stores 1 and wakes the waiters of every process; a wait
 * sleeps until it can swap 1 for 0, so one record releases exactly one wait.
 */
#ifndef CANNSTUB_NOTIFY_H
#define CANNSTUB_NOTIFY_H

#include <stdint.h>

#include "acl/acl.h"
#include "ipc_whitelist.h"
#include "shm.h"

#define SHM_NOTIFY_PREFIX "cannstub-nt-"
#define STUB_NOTIFY_HANDLE_BASE 0x00005b1000000000ull

struct notify_shared {
    struct shm_header hdr;
    uint32_t flag;           /* futex word: 1 = recorded and not yet consumed by a wait */
    int32_t device;          /* the creator's device: waits on an exported or imported notify run only there */
    uint32_t exported;       /* aclrtNotifyGetExportKey ran (once only) */
    struct ipc_whitelist whitelist;
};

struct notify {
    struct notify *next; /* live notifies (rt.lock) */
    uint64_t id;
    int is_creator;
    int refs; /* 1 for the handle + 1 per queued task */
    struct shm_object *shm;
    struct notify_shared *sh;
};

struct task;
struct stream;

/* Executor side (rt.lock NOT held). */
void notify_task_run(struct stream *s, struct task *t);
/* Drops a finished or dropped task's notify reference (rt.lock held; any task kind). */
void notify_task_release(struct task *t);

/* aclFinalize: destroys every notify of this process (rt.lock held). */
void notify_shutdown(void);
/* aclInit: unlinks notifies whose users all died. */
void notify_reclaim_stale(void);

#endif
