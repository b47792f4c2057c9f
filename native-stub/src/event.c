/*
 * event.c - event creation/destruction and the event API. Local events are
 * handled here; IPC events are dispatched to ipc_event.c.
 *
 * A local event keeps the generation of its latest record (record_gen) and
 * the highest generation that executed (done_gen): it is complete when
 * done_gen >= record_gen, and a wait captures record_gen at submit time.
 */
#include "event.h"

#include "ipc_event.h"
#include "jitter.h"
#include "mutant.h"
#include "platform.h"
#include "runtime.h"
#include "stream.h"
#include "trace.h"

#include <stdlib.h>
#include <string.h>

struct event *event_alloc(int device, uint32_t flags)
{
    struct event *ev = calloc(1, sizeof *ev);
    if (!ev)
        return NULL;
    ev->id = ++rt.next_event_id;
    ev->device = device;
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
    ev->next = NULL;
    ev->destroyed = 1;
    if (ev->is_ipc && ev->is_creator)
        shm_mark_creator_gone(ev->shm); /* new opens fail from now on */
    event_unref(ev);
}

void event_local_complete(struct event *ev, uint64_t generation)
{
    if (generation > ev->done_gen)
        ev->done_gen = generation;
    ev->done_timestamp_ns = plat_monotonic_ns();
    ev->ever_completed = 1;
    pthread_cond_broadcast(&rt.progress);
}

void event_local_reset(struct event *ev, uint64_t generation)
{
    /* Back to the fresh state as of the reset's submission: records up to
     * `generation` count as done (their waits are released), but a record
     * submitted after the reset (on another stream) stays pending. A reset
     * older than a record that already executed changes nothing. */
    if (generation < ev->done_gen)
        return;
    ev->done_gen = generation;
    ev->ever_completed = 0;
    pthread_cond_broadcast(&rt.progress);
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

/* Common body of the three create functions (flags already validated) and of
 * aclrtIpcOpenEventHandle: checks, allocation on the current device, binding.
 * *event is written only on success (the contract wants it untouched on failure). */
static aclError new_event(const char *call, aclrtEvent *event, uint32_t flag, event_binder bind,
                          const unsigned char *handle)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    if (!event) {
        rt_leave();
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "event is NULL");
    }
    if ((rc = rt_require_device(call, &d))) {
        rt_leave();
        return rc;
    }
    struct event *ev = event_alloc(d, flag);
    if (!ev) {
        rt_leave();
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    }
    if (bind && (rc = bind(call, ev, handle))) {
        free(ev);
        rt_leave();
        return rc;
    }
    list_event(ev);
    *event = rt_event_handle(ev);
    rt_leave();
    return ACL_SUCCESS;
}

static aclError create_event(const char *call, aclrtEvent *event, uint32_t flag)
{
    return new_event(call, event, flag, flag == ACL_EVENT_IPC ? bind_new_ipc_state : NULL, NULL);
}

static aclError flag_error(const char *call, uint32_t flag, const char *rule)
{
    return rt_reject(ACL_ERROR_RT_PARAM_INVALID, call, "flag 0x%x is invalid: %s", flag, rule);
}

STUB_EXPORT aclError aclrtCreateEvent(aclrtEvent *event)
{
    return create_event("aclrtCreateEvent", event, ACL_EVENT_SYNC);
}

STUB_EXPORT aclError aclrtCreateEventWithFlag(aclrtEvent *event, uint32_t flag)
{
    static const char *call = "aclrtCreateEventWithFlag";
    if (flag > 0x3F)
        return flag_error(call, flag,
                          "the legacy create accepts flags up to 0x3F (for ACL_EVENT_IPC use "
                          "aclrtCreateEventExWithFlag)");
    return create_event(call, event, flag);
}

STUB_EXPORT aclError aclrtCreateEventExWithFlag(aclrtEvent *event, uint32_t flag)
{
    static const char *call = "aclrtCreateEventExWithFlag";
    int valid = flag == ACL_EVENT_IPC || (flag != 0 && (flag & ~0xFu) == 0);
    if (!valid)
        return flag_error(call, flag,
                          "use an OR of 0x1/0x2/0x4/0x8, or ACL_EVENT_IPC (0x40) alone");
    return create_event(call, event, flag);
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

static aclError refuse_ipc(const char *call, struct event *ev)
{
    if (ev->is_ipc)
        return stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call, "not supported for IPC events (ACL_EVENT_IPC)");
    return ACL_SUCCESS;
}

/* Enter + look up + optional IPC refusal; on success rt.lock is held. */
static aclError enter_with_event(const char *call, aclrtEvent event, int ipc_allowed, struct event **out)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rc = find_event(call, event, out);
    if (!rc && !ipc_allowed)
        rc = refuse_ipc(call, *out);
    if (rc)
        rt_leave();
    return rc;
}

/* The same for calls that write one output: the NULL output is checked
 * after the init check and before the handle (README-stub.md's order). */
static aclError enter_with_event_output(const char *call, aclrtEvent event, const void *output,
                                        const char *output_name, int ipc_allowed, struct event **out)
{
    if (!output)
        return rt_reject(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", output_name);
    return enter_with_event(call, event, ipc_allowed, out);
}

STUB_EXPORT aclError aclrtDestroyEvent(aclrtEvent event)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event("aclrtDestroyEvent", event, 1, &ev);
    if (rc)
        return rc;
    event_destroy(ev);
    rt_leave();
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtRecordEvent(aclrtEvent event, aclrtStream stream)
{
    static const char *call = "aclrtRecordEvent";
    struct event *ev = NULL;
    struct stream *s = NULL;
    aclError rc = enter_with_event(call, event, 1, &ev);
    if (rc)
        return rc;
    if ((rc = stream_resolve(call, stream, &s)) || (rc = stream_check_context(call, s))) {
        rt_leave();
        return rc;
    }
    if (ev->device != s->device) {
        rt_leave();
        return stub_fail(ACL_ERROR_RT_STREAM_CONTEXT, call,
                         "event belongs to device %d but the stream to device %d", ev->device, s->device);
    }
    struct task *t = calloc(1, sizeof *t);
    if (!t) {
        rt_leave();
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    }
    t->event = ev;
    if (ev->is_ipc) {
        uint32_t slot;
        if ((rc = ipc_record_take_slot(call, ev, &slot, &t->ipc_gen))) {
            free(t);
            rt_leave();
            return rc;
        }
        t->kind = TASK_IPC_RECORD;
        t->slot = slot;
    } else {
        t->kind = TASK_RECORD;
        t->generation = ++ev->record_gen;
    }
    stream_submit(s, t);
    rt_leave();
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtResetEvent(aclrtEvent event, aclrtStream stream)
{
    static const char *call = "aclrtResetEvent";
    struct event *ev = NULL;
    struct stream *s = NULL;
    aclError rc = enter_with_event(call, event, 0, &ev);
    if (rc)
        return rc;
    if ((rc = stream_resolve(call, stream, &s)) || (rc = stream_check_context(call, s))) {
        rt_leave();
        return rc;
    }
    struct task *t = calloc(1, sizeof *t);
    if (!t) {
        rt_leave();
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    }
    t->kind = TASK_RESET;
    t->event = ev;
    t->generation = ev->record_gen;
    stream_submit(s, t);
    rt_leave();
    return ACL_SUCCESS;
}

static int local_complete(const struct event *ev)
{
    return ev->done_gen >= ev->record_gen;
}

STUB_EXPORT aclError aclrtQueryEvent(aclrtEvent event, aclrtEventStatus *status)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event_output("aclrtQueryEvent", event, status, "status", 0, &ev);
    if (rc)
        return rc;
    *status = local_complete(ev) ? ACL_EVENT_STATUS_COMPLETE : ACL_EVENT_STATUS_NOT_READY;
    rt_leave();
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtQueryEventStatus(aclrtEvent event, aclrtEventRecordedStatus *status)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event_output("aclrtQueryEventStatus", event, status, "status", 1, &ev);
    if (rc)
        return rc;
    int complete = ev->is_ipc ? ipc_is_complete(ev) : local_complete(ev);
    *status = complete ? ACL_EVENT_RECORDED_STATUS_COMPLETE : ACL_EVENT_RECORDED_STATUS_NOT_READY;
    rt_leave();
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtQueryEventWaitStatus(aclrtEvent event, aclrtEventWaitStatus *status)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event_output("aclrtQueryEventWaitStatus", event, status, "status", 0, &ev);
    if (rc)
        return rc;
    *status = local_complete(ev) ? ACL_EVENT_WAIT_STATUS_COMPLETE : ACL_EVENT_WAIT_STATUS_NOT_READY;
    rt_leave();
    return ACL_SUCCESS;
}

/* timeout_ms: -1 forever, > 0 milliseconds. */
static aclError synchronize_event(const char *call, aclrtEvent event, int32_t timeout_ms)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event(call, event, 1, &ev);
    if (rc)
        return rc;
    if (ev->is_ipc) {
        event_ref(ev);
        rt_leave();
        rc = ipc_synchronize(call, ev, timeout_ms);
        pthread_mutex_lock(&rt.lock);
        event_unref(ev);
        rt_leave();
        return rc;
    }
    uint64_t target = ev->record_gen;
    int pending = ev->done_gen < target;
    uint64_t deadline = rt_deadline_after_ms(timeout_ms);
    event_ref(ev);
    int timed_out = 0;
    while (!mutant_is(MUTANT_SYNC_NOOP) && ev->done_gen < target && !timed_out && rt.initialized)
        timed_out = rt_wait_progress(deadline) && ev->done_gen < target;
    if (timed_out)
        rc = stub_fail(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, call, "the event's latest record has not executed after %d ms",
                       (int)timeout_ms);
    else if (ev->done_gen < target && !mutant_is(MUTANT_SYNC_NOOP))
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "aclFinalize ran while waiting");
    if (pending) {
        /* what it waited for: the record of generation target (or a later one, or a reset) */
        struct trace_record r = { .op = "sync", .kind = "event", .device = ev->device, .event = ev->id,
                                  .slot = -1, .gen = (int64_t)target, .rc = rc, .jitter_us = -1 };
        trace_emit(&r);
    }
    uint64_t event_id = ev->id;
    event_unref(ev);
    rt_leave();
    if (pending && rc == ACL_SUCCESS)
        jitter_sleep_us(jitter_completion_us(event_id, target));
    return rc;
}

STUB_EXPORT aclError aclrtSynchronizeEvent(aclrtEvent event)
{
    return synchronize_event("aclrtSynchronizeEvent", event, -1);
}

STUB_EXPORT aclError aclrtSynchronizeEventWithTimeout(aclrtEvent event, int32_t timeout)
{
    static const char *call = "aclrtSynchronizeEventWithTimeout";
    aclError rc = rt_check_sync_timeout(call, timeout);
    if (rc)
        return rc;
    return synchronize_event(call, event, timeout);
}

STUB_EXPORT aclError aclrtEventElapsedTime(float *ms, aclrtEvent startEvent, aclrtEvent endEvent)
{
    static const char *call = "aclrtEventElapsedTime";
    struct event *start = NULL, *end = NULL;
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!ms)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ms is NULL");
    else if (!(rc = find_event(call, startEvent, &start)) && !(rc = find_event(call, endEvent, &end)) &&
             !(rc = refuse_ipc(call, start)) && !(rc = refuse_ipc(call, end))) {
        if (!start->ever_completed || !end->ever_completed || !local_complete(start) || !local_complete(end))
            rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                           "both events must have been recorded and completed (synchronize them first)");
        else
            *ms = (float)((double)((int64_t)end->done_timestamp_ns - (int64_t)start->done_timestamp_ns) / 1e6);
    }
    rt_leave();
    return rc;
}

STUB_EXPORT aclError aclrtEventGetTimestamp(aclrtEvent event, uint64_t *timestamp)
{
    static const char *call = "aclrtEventGetTimestamp";
    struct event *ev = NULL;
    aclError rc = enter_with_event_output(call, event, timestamp, "timestamp", 0, &ev);
    if (rc)
        return rc;
    if (!ev->ever_completed)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "the event has not completed a record yet");
    else
        *timestamp = ev->done_timestamp_ns / 1000u; /* microseconds, CLOCK_MONOTONIC */
    rt_leave();
    return rc;
}

STUB_EXPORT aclError aclrtGetEventId(aclrtEvent event, uint32_t *eventId)
{
    struct event *ev = NULL;
    aclError rc = enter_with_event_output("aclrtGetEventId", event, eventId, "eventId", 0, &ev);
    if (rc)
        return rc;
    *eventId = (uint32_t)ev->id;
    rt_leave();
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtSetOpWaitTimeout(uint32_t timeout)
{
    aclError rc = rt_enter("aclrtSetOpWaitTimeout");
    if (rc)
        return rc;
    rt.op_wait_timeout_s = timeout; /* stored only: see README-stub.md */
    rt_leave();
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtIpcGetEventHandle(aclrtEvent event, aclrtIpcEventHandle *handle)
{
    static const char *call = "aclrtIpcGetEventHandle";
    struct event *ev = NULL;
    aclError rc = enter_with_event_output(call, event, handle, "handle", 1, &ev);
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

STUB_EXPORT aclError aclrtIpcOpenEventHandle(aclrtIpcEventHandle handle, aclrtEvent *event)
{
    return new_event("aclrtIpcOpenEventHandle", event, ACL_EVENT_IPC, bind_opened_ipc_state,
                     (const unsigned char *)handle.reserved);
}
