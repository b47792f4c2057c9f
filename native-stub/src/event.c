/*
 * event.c - event creation/destruction and the event API. Local events are
 * handled here; IPC events are dispatched to ipc_event.c.
 *
 * A local event keeps the generation of its latest record (record_gen) and
 * the highest generation that executed (done_gen): it is complete when
 * done_gen >= record_gen. A reset keeps both, as CANN keeps the record
 * (core/src/event/event.cc:764-786 only sets hasReset_), and makes the next
 * wait of a legacy event wait for the next record (event_local_wait_target).
 */
#include "event.h"

#include "context.h"
#include "explore.h"
#include "ipc_event.h"
#include "jitter.h"
#include "mutant.h"
#include "platform.h"
#include "runtime.h"
#include "stream.h"
#include "sync.h"
#include "trace.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

struct event *event_alloc(int device, uint32_t flags)
{
    struct event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return NULL;
    ev->id = ++rt.next_event_id;
    ev->device = device;
    ev->ctx_id = ctx_current() ? ctx_current()->id : 0;
    ev->flags = flags;
    ev->refs = 1;
    return ev;
}

void event_ref(struct event *ev)
{
    ev->refs++;
}

void event_unref(struct event *ev)
{
    assert(ev->refs > 0);
    if (--ev->refs > 0)
        return;
    if (ev->is_ipc)
        ipc_event_detach(ev);
    free(ev);
}

void event_destroy(struct event *ev)
{
    for (struct event **pp = &rt.events; *pp; pp = &(*pp)->next) {
        if (*pp == ev) {
            *pp = ev->next;
            break;
        }
    }
    assert(!ev->destroyed);
    ev->next = NULL;
    ev->destroyed = 1;
    if (ev->is_ipc && ev->is_creator)
        shm_mark_creator_gone(ev->shm); /* new opens fail from now on */
    event_unref(ev);
}

void event_local_complete(struct event *ev, uint64_t generation)
{
    /* the timestamp is the newest executed record's (event.cc:345-367
     * UpdateLatestRecord keeps the latest record's only) */
    if (generation >= ev->done_gen) {
        ev->done_gen = generation;
        ev->done_timestamp_ns = plat_monotonic_ns();
    }
    rt_progress_broadcast();
}

/* Event::WaitSendCheck (core/src/event/event.cc:586-631) and Event::Wait
 * (:709-729) for events that are not new-mode: a wait task is sent while the
 * latest record is pending, after a reset, and always for ACL_EVENT_SYNC
 * (RT_EVENT_DDSYNC_NS) or ACL_EVENT_EXTERNAL events; one that was never
 * recorded, without those flags, is RT_ERROR_INVALID_VALUE (107000). On the
 * device the wait then holds its stream until the event is recorded, so
 * after a reset (or before the first record) it waits for the next record.
 * New-mode events (:596-623): nothing to wait for without a pending record. */
aclError event_local_wait_target(const char *call, const struct event *ev, uint64_t *generation, int *noop)
{
    int flag_sends = (ev->flags & (ACL_EVENT_SYNC | ACL_EVENT_EXTERNAL)) != 0;
    uint64_t target = ev->record_gen;
    if (!ev->new_mode) {
        if (ev->record_gen == 0 && !flag_sends)
            return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                             "the event has never been recorded: record it (aclrtRecordEvent) before a stream waits "
                             "on it, or create it with ACL_EVENT_SYNC to wait for its first record");
        if (ev->record_gen == 0 || ev->reset_since_record)
            target = ev->record_gen + 1; /* the next record */
    }
    *generation = target;
    *noop = ev->done_gen >= target;
    return ACL_SUCCESS;
}

static void list_event(struct event *ev)
{
    ev->next = rt.events;
    rt.events = ev;
}

/* Attaches a freshly allocated event to its IPC state; NULL for local events. */
typedef aclError (*event_binder)(const char *call, struct event *ev, const unsigned char *handle);

static aclError bind_new_ipc_state(const char *call, struct event *ev, const unsigned char *handle)
{
    (void)handle;
    return ipc_event_create(call, ev);
}

static aclError bind_opened_ipc_state(const char *call, struct event *ev, const unsigned char *handle)
{
    return ipc_event_open(call, handle, ev);
}

/* Judges a create's flag: ACL_SUCCESS, or 107000 with the recent error set. */
typedef aclError (*flag_rule)(const char *call, uint32_t flag);

static aclError flag_error(const char *call, uint32_t flag, const char *rule)
{
    return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "flag 0x%x is invalid: %s", flag, rule);
}

/* ACL_EVENT_DEVICE_USE_ONLY (0x10), ACL_EVENT_EXTERNAL (0x20) and ACL_EVENT_IPC
 * (0x40) cannot be combined with another bit (api_error.cc, EventCreate/Ex). */
static int combines_a_solo_flag(uint32_t flag, uint32_t solo_flags)
{
    for (uint32_t bit = 0x10; bit <= 0x40; bit <<= 1)
        if ((solo_flags & bit) && (flag & bit) && (flag & ~bit))
            return 1;
    return 0;
}

static aclError legacy_flag_rule(const char *call, uint32_t flag)
{
    if ((flag & 0x3Fu) == 0 || flag > 0x3Fu || combines_a_solo_flag(flag, 0x30u))
        return flag_error(call, flag,
                          "use an OR of 0x1/0x2/0x4/0x8, or 0x10 or 0x20 alone (for ACL_EVENT_IPC use "
                          "aclrtCreateEventExWithFlag)");
    return ACL_SUCCESS;
}

static aclError ex_flag_rule(const char *call, uint32_t flag)
{
    if ((flag & 0x4Fu) == 0 || flag > 0x4Fu || combines_a_solo_flag(flag, 0x70u))
        return flag_error(call, flag, "use an OR of 0x1/0x2/0x4/0x8, or ACL_EVENT_IPC (0x40) alone");
    return ACL_SUCCESS;
}

/* Common body of the three create functions and of aclrtIpcOpenEventHandle,
 * in CANN's order: NULL output (100000), flag (107000), current device
 * (107002), then the IPC binding. *event is written only on success. */
static aclError new_event(const char *call, aclrtEvent *event, uint32_t flag, flag_rule rule, int new_mode,
                          event_binder bind, const unsigned char *handle)
{
    struct event *ev;
    int d;
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!event) {
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "event is NULL");
        goto out;
    }
    if ((rule && (rc = rule(call, flag))) || (rc = rt_require_device(call, &d)))
        goto out;
    ev = event_alloc(d, flag);
    if (!ev) {
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
        goto out;
    }
    ev->new_mode = new_mode;
    if (bind && (rc = bind(call, ev, handle))) {
        free(ev);
        goto out;
    }
    list_event(ev);
    *event = rt_event_handle(ev);
out:
    rt_leave();
    return rc;
}

/* CANN's aclrtCreateEvent passes RT_EVENT_DEFAULT (0x4 | 0x8 | 0x2) to the
 * legacy create (src/runtime/api/api_c_event.cc). */
#define STUB_EVENT_DEFAULT_FLAGS 0xEu

/* CANN: src/acl/aclrt_impl/event.cpp:28 */
STUB_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    return new_event("aclrtCreateEvent", event, STUB_EVENT_DEFAULT_FLAGS, NULL, 0, NULL, NULL);
}

/* CANN: src/acl/aclrt_impl/event.cpp:44 */
STUB_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    return new_event("aclrtCreateEventWithFlag", event, flag, legacy_flag_rule, 0, NULL, NULL);
}

/* CANN: src/acl/aclrt_impl/event.cpp:58 */
STUB_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    return new_event("aclrtCreateEventExWithFlag", event, flag, ex_flag_rule, 1,
                     flag == ACL_EVENT_IPC ? bind_new_ipc_state : NULL, NULL);
}

/* Looks up a live event for call (rt.lock held). */
static aclError find_event(const char *call, aclrtEvent event, struct event **out)
{
    if (!event)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "event is NULL");
    struct event *ev = rt_find_event(event);
    if (!ev)
        return stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                         "event %p is not a live event (destroyed, or never created)", event);
    *out = ev;
    return ACL_SUCCESS;
}

/* ---- what each kind of event refuses (docs/acl-contract.md section 4) ---- */

static int is_device_only(const struct event *ev)
{
    return (ev->flags & ACL_EVENT_DEVICE_USE_ONLY) != 0;
}

static int is_external(const struct event *ev)
{
    return ev->flags == ACL_EVENT_EXTERNAL;
}

/* Event::IsEventWithoutWaitTask (core/inc/event/event.hpp): none of 0x1,
 * 0x4, ACL_EVENT_EXTERNAL, ACL_EVENT_IPC. */
static int has_no_wait_task(const struct event *ev)
{
    return (ev->flags & (ACL_EVENT_SYNC | 0x4u | ACL_EVENT_EXTERNAL | ACL_EVENT_IPC)) == 0;
}

static aclError refuse_device_only(const char *call, const struct event *ev)
{
    if (is_device_only(ev))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "the event was created with ACL_EVENT_DEVICE_USE_ONLY: only device code may use it");
    return ACL_SUCCESS;
}

static aclError refuse_external(const char *call, const struct event *ev)
{
    if (is_external(ev))
        return stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                         "not supported for ACL_EVENT_EXTERNAL events (they have no host-visible status)");
    return ACL_SUCCESS;
}

static aclError refuse_ipc(const char *call, const struct event *ev)
{
    if (ev->is_ipc)
        return stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call, "not supported for IPC events (ACL_EVENT_IPC)");
    return ACL_SUCCESS;
}

static aclError refuse_new_mode(const char *call, const struct event *ev)
{
    if (ev->new_mode)
        return stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                         "not supported for events made by aclrtCreateEventExWithFlag: use "
                         "aclrtQueryEventStatus to query, or aclrtCreateEventWithFlag(ACL_EVENT_SYNC) for an "
                         "event that can be reset");
    return ACL_SUCCESS;
}

static aclError refuse_no_wait_task(const char *call, const struct event *ev)
{
    if (has_no_wait_task(ev))
        return stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                         "event flags 0x%x cannot carry a wait task: create it with ACL_EVENT_SYNC to wait on "
                         "or reset it",
                         ev->flags);
    return ACL_SUCCESS;
}

aclError event_check_kind(const char *call, const struct event *ev, enum event_op op)
{
    aclError rc = ACL_SUCCESS;
    switch (op) {
    case EVENT_OP_ANY: break;
    case EVENT_OP_RECORD: rc = refuse_device_only(call, ev); break;
    case EVENT_OP_WAIT:
        if (!(rc = refuse_device_only(call, ev)))
            rc = refuse_no_wait_task(call, ev);
        break;
    case EVENT_OP_RESET:
        if (!(rc = refuse_device_only(call, ev)) && !(rc = refuse_ipc(call, ev)))
            rc = refuse_no_wait_task(call, ev);
        break;
    case EVENT_OP_QUERY:
    case EVENT_OP_QUERY_WAIT_STATUS:
        if (!(rc = refuse_new_mode(call, ev)) && !(rc = refuse_external(call, ev)))
            rc = refuse_ipc(call, ev);
        break;
    case EVENT_OP_QUERY_STATUS:
    case EVENT_OP_SYNCHRONIZE: rc = refuse_external(call, ev); break;
    case EVENT_OP_TIMESTAMP:
        if (!(rc = refuse_external(call, ev)))
            rc = refuse_ipc(call, ev);
        break;
    case EVENT_OP_GET_ID: rc = refuse_ipc(call, ev); break;
    }
    return rc;
}

/* Enter + look up + the kind's refusals; on success rt.lock is held. */
static aclError enter_with_event(const char *call, aclrtEvent event, enum event_op op, struct event **out)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if ((rc = find_event(call, event, out)) || (rc = event_check_kind(call, *out, op)))
        rt_leave();
    assert(rc || *out);
    return rc;
}

/* The same for calls that write one output: the NULL output is checked
 * after the init check and before the handle (native-stub/README.md's order). */
static aclError enter_with_event_output(const char *call, aclrtEvent event, const void *output, const char *output_name,
                                        enum event_op op, struct event **out)
{
    if (!output) {
        aclError rc = rt_reject(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", output_name);
        assert(rc != ACL_SUCCESS);
        return rc;
    }
    return enter_with_event(call, event, op, out);
}

/* Enter + event lookup + stream handle + the kind's refusals, in CANN's order
 * (record, reset); on success rt.lock is held. */
static aclError enter_with_event_and_stream(const char *call, aclrtEvent event, aclrtStream stream, enum event_op op,
                                            struct event **out)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if ((rc = find_event(call, event, out)) || (rc = stream_check_handle(call, stream)) ||
        (rc = event_check_kind(call, *out, op)))
        rt_leave();
    assert(rc || *out);
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:72 */
STUB_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event("aclrtDestroyEvent", event, EVENT_OP_ANY, &ev);
    if (rc)
        return rc;
    event_destroy(ev);
    rt_leave();
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/event.cpp:85 */
STUB_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    static const char *call = "aclrtRecordEvent";
    EXPLORE_API(call);
    struct event *ev = NULL;
    struct stream *s = NULL;
    struct task *t;
    aclError rc = enter_with_event_and_stream(call, event, stream, EVENT_OP_RECORD, &ev);
    if (rc)
        return rc;
    if ((rc = stream_resolve(call, stream, &s)) || (rc = stream_check_context(call, s)))
        goto out;
    if (ev->device != s->device) {
        /* stub rule S2 (docs/acl-contract.md section 7); formatted before
         * rt_leave: another thread may destroy ev or s right after */
        rc = stub_fail(ACL_ERROR_RT_STREAM_CONTEXT, call, "event belongs to device %d but the stream to device %d",
                       ev->device, s->device);
        goto out;
    }
    t = calloc(1, sizeof *t);
    if (!t) {
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
        goto out;
    }
    t->event = ev;
    if (ev->is_ipc) {
        uint32_t slot;
        if ((rc = ipc_record_take_slot(call, ev, s, &slot, &t->ipc_gen))) {
            free(t);
            goto out;
        }
        t->kind = TASK_IPC_RECORD;
        t->slot = slot;
    } else {
        t->kind = TASK_RECORD;
        t->generation = ++ev->record_gen;
        ev->reset_since_record = 0; /* event.cc:350-357: a new record clears hasReset_ */
    }
    stream_submit(s, t);
out:
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:113 */
STUB_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    static const char *call = "aclrtResetEvent";
    EXPLORE_API(call);
    struct event *ev = NULL;
    struct stream *s = NULL;
    struct task *t;
    int d;
    aclError rc = enter_with_event_and_stream(call, event, stream, EVENT_OP_RESET, &ev);
    if (rc)
        return rc;
    /* CANN judges the new mode after the current device and before the stream's device */
    if ((rc = rt_require_device(call, &d)) || (rc = refuse_new_mode(call, ev)) ||
        (rc = stream_resolve(call, stream, &s)) || (rc = stream_check_context(call, s)))
        goto out;
    t = calloc(1, sizeof *t);
    if (!t) {
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
        goto out;
    }
    t->kind = TASK_RESET;
    t->event = ev;
    t->generation = ev->record_gen;
    ev->reset_since_record = 1; /* set at submit (event.cc:786); the record itself is kept */
    stream_submit(s, t);
out:
    rt_leave();
    return rc;
}

static int local_complete(const struct event *ev)
{
    return ev->done_gen >= ev->record_gen;
}

/* CANN: src/acl/aclrt_impl/event.cpp:124 */
STUB_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    struct event *ev = NULL;
    EXPLORE_API("aclrtQueryEvent");
    aclError rc = enter_with_event_output("aclrtQueryEvent", event, status, "status", EVENT_OP_QUERY, &ev);
    if (rc)
        return rc;
    *status = local_complete(ev) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    rt_leave();
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/event.cpp:141 */
STUB_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    EXPLORE_API("aclrtQueryEventStatus");
    struct event *ev = NULL;
    aclError rc = enter_with_event_output("aclrtQueryEventStatus", event, status, "status", EVENT_OP_QUERY_STATUS, &ev);
    if (rc)
        return rc;
    /* a legacy event with no record is RT_EVENT_INIT (NOT_READY), a new-mode
     * one RT_EVENT_RECORDED (core/src/event/event.cc:1189-1198) */
    int complete = ev->is_ipc ? ipc_is_complete(ev) : ev->record_gen == 0 && !ev->new_mode ? 0 : local_complete(ev);
    *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    rt_leave();
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/event.cpp:157 */
STUB_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    EXPLORE_API("aclrtQueryEventWaitStatus");
    struct event *ev = NULL;
    aclError rc =
        enter_with_event_output("aclrtQueryEventWaitStatus", event, status, "status", EVENT_OP_QUERY_WAIT_STATUS, &ev);
    if (rc)
        return rc;
    /* the event's wait tasks, not its record (event.cc:1213-1240): COMPLETE
     * when none is queued or running */
    *status = ev->wait_tasks == 0 ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    rt_leave();
    return ACL_SUCCESS;
}

/* timeout_ms: -1 forever, > 0 milliseconds (0 is refused after the handle check). */
static aclError synchronize_event(const char *call, aclrtEvent event, int32_t timeout_ms)
{
    struct event *ev = NULL;
    int pending = 0;
    uint64_t target = 0, event_id = 0;
    EXPLORE_API(call);
    aclError rc = enter_with_event(call, event, EVENT_OP_ANY, &ev);
    if (rc)
        return rc;
    if ((rc = rt_check_sync_timeout_nonzero(call, timeout_ms)) ||
        (rc = event_check_kind(call, ev, EVENT_OP_SYNCHRONIZE)))
        goto out;
    /* the reference keeps ev alive while rt.lock is released (a destroy from
     * another thread only unlists it) */
    event_ref(ev);
    if (ev->is_ipc) {
        rt_leave();
        rc = ipc_synchronize(call, ev, timeout_ms);
        sync_lock(&rt.lock);
    } else {
        target = ev->record_gen;
        pending = ev->done_gen < target;
        event_id = ev->id;
        uint64_t deadline = rt_deadline_after_ms(timeout_ms);
        int timed_out = 0;
        if (pending && !mutant_is(MUTANT_SYNC_NOOP))
            EXPLORE_WAIT(call);
        while (!mutant_is(MUTANT_SYNC_NOOP) && ev->done_gen < target && !timed_out && rt.initialized)
            timed_out = rt_wait_progress(deadline) && ev->done_gen < target;
        if (timed_out)
            rc = stub_fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, call,
                           "the event's latest record has not executed after %d ms", (int)timeout_ms);
        else if (ev->done_gen < target && !mutant_is(MUTANT_SYNC_NOOP))
            rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "aclFinalize ran while waiting");
        if (pending) {
            /* what it waited for: the record of generation target (or a later one, or a reset) */
            struct trace_record r = {.op = "sync",
                                     .kind = "event",
                                     .device = ev->device,
                                     .event = ev->id,
                                     .slot = -1,
                                     .gen = (int64_t)target,
                                     .rc = rc,
                                     .jitter_us = -1};
            trace_emit(&r);
        }
    }
    event_unref(ev);
out:
    rt_leave();
    if (pending && rc == ACL_SUCCESS)
        jitter_sleep_us(jitter_completion_us(event_id, target));
    EXPLORE_RETURN(call);
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:173 */
STUB_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return synchronize_event("aclrtSynchronizeEvent", event, -1);
}

/* CANN: src/acl/aclrt_impl/event.cpp:184 */
STUB_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    static const char *call = "aclrtSynchronizeEventWithTimeout";
    aclError rc = rt_check_sync_timeout_floor(call, timeout);
    if (rc)
        return rc;
    return synchronize_event(call, event, timeout);
}

/* CANN: src/acl/aclrt_impl/event.cpp:202 */
STUB_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    static const char *call = "aclrtEventElapsedTime";
    struct event *start = NULL, *end = NULL;
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!ms || !startEvent || !endEvent)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL",
                       !ms           ? "ms"
                       : !startEvent ? "startEvent"
                                     : "endEvent");
    else if (!(rc = find_event(call, startEvent, &start)) && !(rc = find_event(call, endEvent, &end)) &&
             !(rc = refuse_external(call, start)) && !(rc = refuse_external(call, end)) &&
             !(rc = refuse_ipc(call, start)) && !(rc = refuse_ipc(call, end))) {
        if (start->record_gen == 0 || end->record_gen == 0)
            rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "%s event was never recorded (record both events first)",
                           start->record_gen == 0 ? "the start" : "the end"); /* event.cc:1247-1250 */
        else if (!local_complete(start) || !local_complete(end)) /* event.cc:1265-1270 (S10) */
            rc = stub_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, call,
                           "the %s event's latest record has not executed yet (synchronize it first)",
                           !local_complete(start) ? "start" : "end");
        else
            *ms = (float)((double)((int64_t)end->done_timestamp_ns - (int64_t)start->done_timestamp_ns) / 1e6);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:214 */
STUB_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    static const char *call = "aclrtEventGetTimestamp";
    struct event *ev = NULL;
    aclError rc = enter_with_event_output(call, event, timestamp, "timestamp", EVENT_OP_TIMESTAMP, &ev);
    if (rc)
        return rc;
    if (ev->record_gen == 0) /* event.cc:1294-1297 */
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "the event was never recorded (record it first)");
    else if (!local_complete(ev)) /* event.cc:1302-1305; a reset keeps the timestamp */
        rc = stub_fail(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, call,
                       "the event's latest record has not executed yet (synchronize it first)");
    else
        *timestamp = ev->done_timestamp_ns / 1000u; /* microseconds, CLOCK_MONOTONIC */
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:355 */
STUB_EXPORT aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event_output("aclrtGetEventId", event, eventId, "eventId", EVENT_OP_GET_ID, &ev);
    if (rc)
        return rc;
    /* a legacy event with CANN's default flags gets its device id at its first
     * record (api_impl.cc:2061-2066, event.cc:536-545); until then
     * RT_ERROR_EVENT_RECORDER_NULL (event.cc:505-510, errcode_manage.cc:197) */
    if (!ev->new_mode && ev->flags == STUB_EVENT_DEFAULT_FLAGS && ev->record_gen == 0)
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, "aclrtGetEventId",
                       "the event has no id before its first record (aclrtCreateEvent events get one when recorded)");
    else
        *eventId = (uint32_t)ev->id;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:226 */
STUB_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    aclError rc = rt_enter("aclrtSetOpWaitTimeout");
    if (rc)
        return rc;
    rt.op_wait_timeout_s = timeout; /* stored only: see native-stub/README.md */
    rt_leave();
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/event.cpp:455 */
STUB_EXPORT aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    static const char *call = "aclrtIpcGetEventHandle";
    EXPLORE_API(call);
    struct event *ev = NULL;
    aclError rc = enter_with_event_output(call, event, handle, "handle", EVENT_OP_ANY, &ev);
    if (rc)
        return rc;
    if (!ev->is_ipc)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "event was not created with ACL_EVENT_IPC (use aclrtCreateEventExWithFlag)");
    else
        memcpy(handle->reserved, ev->handle, sizeof ev->handle);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/event.cpp:468 */
STUB_EXPORT aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    EXPLORE_API("aclrtIpcOpenEventHandle");
    return new_event("aclrtIpcOpenEventHandle", event, ACL_EVENT_IPC, NULL, 1, bind_opened_ipc_state,
                     (const unsigned char *)handle.reserved);
}
