/*
 * ipc_event.h - IPC events: the slot / current-record model in shared
 * memory (see docs/acl-contract.md section 5).
 */
#ifndef CANNSTUB_IPC_EVENT_H
#define CANNSTUB_IPC_EVENT_H

#include <stdint.h>

#include "acl/acl.h"
#include "shm.h"

#define IPC_SLOTS 8192

struct ipc_slot {
    uint32_t refcount;
    uint32_t done; /* futex word: 1 once the record executed */
    uint32_t uses; /* records that took this slot so far: names a record in traces */
    int32_t recorder_pid;     /* the process and stream of the record that took it last */
    uint64_t recorder_stream; /* (for cannstub_live_view; written under the object's lock) */
};

struct ipc_shared {
    struct shm_header hdr;
    uint32_t current;      /* < slots_backed */
    uint32_t slots_backed; /* slots below this index have tmpfs pages (shm.h, S20); the others are free and zero */
    struct ipc_slot slots[IPC_SLOTS];
};

struct event;
struct stream;

/* rt.lock held for all API-side functions. */
aclError ipc_event_create(const char *call, struct event *ev);
aclError ipc_event_open(const char *call, const unsigned char handle[64], struct event *ev);
/* Submit side: take a slot / capture the current slot. *slot = -1 for a
 * wait that is a no-op. *use: the slot's use count, naming the record. With
 * every slot referenced, the record blocks (rt.lock released meanwhile) until
 * one frees, as CANN's does; it fails if ev or s is destroyed or the runtime
 * finalized meanwhile. */
aclError ipc_record_take_slot(const char *call, struct event *ev, struct stream *s, uint32_t *slot, uint32_t *use);
/* *use (may be NULL) receives which record of the slot was captured. */
void ipc_wait_capture(struct event *ev, int64_t *slot, uint32_t *use);
int ipc_is_complete(struct event *ev);
/* Host-side synchronize; called WITHOUT rt.lock (event referenced). */
aclError ipc_synchronize(const char *call, struct event *ev, int32_t timeout_ms);

/* Executor side (no rt.lock). */
/* A record executes: sets the slot's done word, drops the record's
 * reference and wakes every waiter in every process. */
void ipc_slot_complete(struct event *ev, uint32_t slot);
/* Blocks until done (returns 1) or *cancelled becomes nonzero (returns 0;
 * the canceller wakes it with plat_wake_local_word). */
int ipc_slot_wait(struct event *ev, uint32_t slot, const uint32_t *cancelled, uint32_t *blocked);
void ipc_slot_release(struct event *ev, uint32_t slot);

/* Called when the object's last local event goes. */
void ipc_event_detach(struct event *ev);

/* Who made record `use` of slot (rt.lock held, ev referenced): 1 with the
 * recorder's pid and stream id, 0 if the slot has been taken again since. */
int ipc_slot_recorder(struct event *ev, uint32_t slot, uint32_t use, int32_t *pid, uint64_t *stream);
void ipc_reclaim_stale(void);

#endif
