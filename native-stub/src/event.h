/*
 * event.h - events: local events (event.c) and IPC events (ipc_event.c)
 * share this object; is_ipc selects the shared-memory slot model.
 */
#ifndef CANNSTUB_EVENT_H
#define CANNSTUB_EVENT_H

#include <stdint.h>

#include "acl/acl.h"

struct shm_object;
struct ipc_shared;
struct stream;

struct event {
    struct event *next; /* rt.events list while live */
    uint64_t id;
    int device;
    uint64_t ctx_id; /* the context current at creation: destroyed with it (context.c) */
    uint32_t flags;
    int new_mode; /* made by aclrtCreateEventExWithFlag (or opened IPC): CANN's "new mode" */
    int destroyed;
    int refs; /* 1 for the handle + 1 per queued task or host-side wait */
    /* local events: generations of the latest record and of the newest
     * completed one; a reset keeps both (CANN keeps the record, event.cc:764-786) */
    uint64_t record_gen;
    uint64_t done_gen;
    uint64_t done_timestamp_ns; /* when record done_gen executed */
    int reset_since_record;     /* CANN's hasReset_: set by a reset's submit, cleared by a record's */
    int wait_tasks; /* local waits queued or running on some stream (CANN's waitTaskMap_) */
    /* IPC events */
    int is_ipc;
    int is_creator;
    struct shm_object *shm;
    struct ipc_shared *ipc;
    unsigned char handle[64];
};

/* rt.lock held. */
struct event *event_alloc(int device, uint32_t flags);
void event_ref(struct event *ev);
void event_unref(struct event *ev);
void event_destroy(struct event *ev); /* handle becomes invalid; freed when unreferenced */

/* What CANN refuses for an event's kind (docs/acl-contract.md section 4),
 * checked after the handles and before the current device. */
enum event_op {
    EVENT_OP_ANY, /* destroy, export: every kind */
    EVENT_OP_RECORD,
    EVENT_OP_WAIT,
    EVENT_OP_RESET, /* without the new-mode check, which CANN makes after the current device */
    EVENT_OP_QUERY, /* the deprecated aclrtQueryEvent */
    EVENT_OP_QUERY_STATUS,
    EVENT_OP_QUERY_WAIT_STATUS,
    EVENT_OP_SYNCHRONIZE,
    EVENT_OP_TIMESTAMP, /* and each side of aclrtEventElapsedTime */
    EVENT_OP_GET_ID,
};
aclError event_check_kind(const char *call, const struct event *ev, enum event_op op);

/* Executor side (rt.lock NOT held unless said). */
void event_local_complete(struct event *ev, uint64_t generation); /* rt.lock held */

/* Which record a wait submitted now on a local event waits for (rt.lock
 * held): *generation, or *noop when nothing is to wait for. ACL_SUCCESS, or
 * 107000 for a legacy event that cannot be waited on yet (event.c). */
aclError event_local_wait_target(const char *call, const struct event *ev, uint64_t *generation, int *noop);

#endif
