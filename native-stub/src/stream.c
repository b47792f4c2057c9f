/*
 * stream.c - streams as in-order asynchronous task queues, each drained by
 * its own executor thread; stream synchronize, stream-wait-event and host
 * functions.
 *
 * Asynchronous calls only enqueue and return. The executor pops one task at
 * a time, runs it without rt.lock (a task may block: IPC waits sleep on a
 * futex in shared memory, host functions run user code), then retires it.
 * A destroyed stream keeps draining and frees itself when empty; a cancelled
 * stream (aclFinalize/exit) drops what is queued and aborts its wait.
 */
#include "stream.h"

#include "context.h"
#include "event.h"
#include "explore.h"
#include "ipc_event.h"
#include "memory.h"
#include "notify.h"
#include "jitter.h"
#include "mutant.h"
#include "platform.h"
#include "runtime.h"
#include "trace.h"
#include "sync.h"
#include "stream_ext.h"

#include <signal.h>
#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *task_kind_name(enum task_kind kind)
{
    switch (kind) {
    case TASK_RECORD: return "record";
    case TASK_WAIT: return "wait";
    case TASK_RESET: return "reset";
    case TASK_IPC_RECORD: return "ipc_record";
    case TASK_IPC_WAIT: return "ipc_wait";
    case TASK_HOST_FUNC: return "host_func";
    case TASK_MEMCPY: return "memcpy";
    case TASK_MEMSET: return "memset";
    case TASK_NOTIFY_RECORD: return "notify_record";
    case TASK_NOTIFY_WAIT: return "notify_wait";
    case TASK_VALUE_WRITE: return "value_write";
    case TASK_VALUE_WAIT: return "value_wait";
    }
    return "?";
}

/* at_ns: the line's time (0: now); jitter_us: -1 unless a start was delayed. */
static void trace_task_at(const char *op, const struct stream *s, const struct task *t, const char *note,
                          uint64_t at_ns, int64_t jitter_us)
{
    if (!trace_enabled())
        return;
    int ipc = t->kind == TASK_IPC_RECORD || t->kind == TASK_IPC_WAIT;
    int local = t->kind == TASK_RECORD || t->kind == TASK_WAIT || t->kind == TASK_RESET;
    struct trace_record r = {
        .op = op,
        .kind = task_kind_name(t->kind),
        .device = s->device,
        .stream = s->id,
        .event = t->event ? t->event->id : 0,
        .slot = ipc ? (int64_t)t->slot : -1,
        .ipc = ipc && t->event ? t->event->shm->id : 0,
        .note = note,
        .task = t->seq,
        .gen = ipc     ? (int64_t)t->ipc_gen
               : local ? (int64_t)t->generation
                       : -1,
        .t = at_ns,
        .rc = -1,
        .jitter_us = jitter_us,
    };
    trace_emit(&r);
}

static void trace_task(const char *op, const struct stream *s, const struct task *t, const char *note)
{
    trace_task_at(op, s, t, note, 0, -1);
}

/* Releases a submitted task (rt.lock held), whether it ran or was dropped:
 * the one place that lets go of what stream_submit and the task's builder
 * took (the event reference and a local wait's count, the memory regions,
 * the notify) and frees it. */
static void task_free(struct task *t)
{
    if (t->kind == TASK_WAIT)
        t->event->wait_tasks--;
    if (t->event)
        event_unref(t->event);
    memory_task_release(t);
    notify_task_release(t);
    free(t);
}

/* Drops a queued task that will never run (rt.lock held). An IPC record
 * that never executes keeps its slot reference, so the slot stays pending
 * for every process: exactly what a recorder that died leaves behind (the
 * device task never runs). A dropped wait just lets go of its slot. */
static void drop_task(struct stream *s, struct task *t)
{
    trace_task("cancel", s, t, NULL);
    if (t->kind == TASK_IPC_WAIT)
        ipc_slot_release(t->event, t->slot);
    task_free(t);
}

/* Mutant wait-latest: the wait lets go of the record it captured and binds
 * to the event's latest record as the task runs (-1: none is pending). */
static int64_t rebind_to_latest(struct event *ev, uint32_t captured)
{
    int64_t latest;
    ipc_wait_capture(ev, &latest, NULL);
    ipc_slot_release(ev, captured);
    return latest;
}

/* The stream whose host function this thread (an executor) is running. */
static _Thread_local const struct stream *executing_here;

int stream_is_running_this_thread(const struct stream *s)
{
    return executing_here == s;
}

void stream_note_blocked(struct stream *s)
{
    __atomic_store_n(&s->blocked, 1, __ATOMIC_RELEASE);
}

/* Runs one task; rt.lock NOT held. Returns the note of its "end" line
 * (NULL, "timeout", "abandoned"); *effect_ns is when a record took effect,
 * taken before its waiters can see it, so that their "end" lines are never
 * earlier than the record's. */
static const char *run_task(struct stream *s, struct task *t, uint64_t *effect_ns)
{
    const char *note = NULL;
    switch (t->kind) {
    case TASK_RECORD:
        sync_lock(&rt.lock);
        *effect_ns = plat_monotonic_ns();
        event_local_complete(t->event, t->generation);
        sync_unlock(&rt.lock);
        break;
    case TASK_RESET:
        /* the record is kept (core/src/task/task_info/event/event_task.cc:290-301): the reset
         * took effect for later waits when it was submitted (event_local_wait_target) */
        *effect_ns = plat_monotonic_ns();
        break;
    case TASK_WAIT: {
        sync_lock(&rt.lock);
        uint64_t gen = mutant_is(MUTANT_WAIT_LATEST) ? t->event->record_gen : t->generation;
        uint64_t deadline = rt_deadline_after_ms(t->timeout_ms);
        while (!mutant_is(MUTANT_WAIT_NOOP) && t->event->done_gen < gen && !s->cancelled) {
            stream_note_blocked(s);
            if (rt_wait_progress(deadline)) {
                s->sticky_error = ACL_ERROR_RT_WAIT_TIMEOUT;
                note = "timeout";
                break;
            }
        }
        if (!note && s->cancelled && t->event->done_gen < gen)
            note = "abandoned";
        sync_unlock(&rt.lock);
        break;
    }
    case TASK_IPC_RECORD:
        *effect_ns = plat_monotonic_ns();
        ipc_slot_complete(t->event, t->slot);
        break;
    case TASK_IPC_WAIT: {
        int64_t slot = mutant_is(MUTANT_WAIT_LATEST) ? rebind_to_latest(t->event, t->slot) : t->slot;
        if (slot >= 0 && !mutant_is(MUTANT_WAIT_NOOP) &&
            !ipc_slot_wait(t->event, (uint32_t)slot, &s->cancelled, &s->blocked))
            note = "abandoned";
        if (slot >= 0)
            ipc_slot_release(t->event, (uint32_t)slot);
        break;
    }
    case TASK_HOST_FUNC:
        executing_here = s;
        t->fn(t->args);
        executing_here = NULL;
        break;
    case TASK_MEMCPY:
    case TASK_MEMSET: memory_task_run(t); break;
    case TASK_NOTIFY_RECORD:
    case TASK_NOTIFY_WAIT: notify_task_run(s, t); break;
    case TASK_VALUE_WRITE:
    case TASK_VALUE_WAIT: note = value_task_run(s, t); break;
    }
    return note;
}

/* Waits inside the task (an event, IPC event, notify or value wait): its wake-up is a point under
 * ACL_STUB_EXPLORE. Event, IPC event and notify waits are BLOCKED where they sleep, and RUNNING
 * again from the record on (rt_progress_broadcast, ipc_slot_complete, notify_task_run); a value
 * wait (it polls) is BLOCKED for the whole task. */
static int task_waits(const struct task *t)
{
    return t->kind == TASK_WAIT || t->kind == TASK_IPC_WAIT || t->kind == TASK_NOTIFY_WAIT ||
           t->kind == TASK_VALUE_WAIT;
}

/* Explored points of the executor (explore.h): the start of a task, and the wake-up of a wait task. */
static void explore_task_point(const struct task *t, const char *when)
{
    char what[48];
    snprintf(what, sizeof what, "%s %s", task_kind_name(t->kind), when);
    cannstub_explore_point(what);
}

static void *executor_main(void *arg)
{
    struct stream *s = arg;
    sync_lock(&rt.lock);
    if (EXPLORE_ON())
        explore_executor_adopt(s->explore_party);
    for (;;) {
        if (s->explore_party >= 0 && EXPLORE_ON() && !s->head && !s->destroyed &&
            !__atomic_load_n(&s->cancelled, __ATOMIC_SEQ_CST)) {
            s->explore_idle = 1; /* a submit makes it RUNNING again (stream_submit) */
            cannstub_explore_block("idle");
        }
        while (!s->head && !s->destroyed && !__atomic_load_n(&s->cancelled, __ATOMIC_SEQ_CST))
            sync_cond_wait(&s->wake, &rt.lock);
        s->explore_idle = 0;
        if (__atomic_load_n(&s->cancelled, __ATOMIC_SEQ_CST) || !s->head)
            break;
        struct task *t = s->head;
        s->head = t->next;
        if (!s->head)
            s->tail = NULL;
        s->running = t; /* for cannstub_live_view, which reads it under rt.lock */
        s->running_since_ns = plat_monotonic_ns();
        sync_unlock(&rt.lock);

        int explored = s->explore_party >= 0 && EXPLORE_ON();
        if (explored)
            explore_task_point(t, "start");
        uint32_t jitter_us = jitter_task_us(s->device, s->id, t->seq);
        jitter_sleep_us(jitter_us);
        trace_task_at("start", s, t, NULL, 0, jitter_enabled() ? (int64_t)jitter_us : -1);
        uint64_t effect_ns = 0;
        if (explored && t->kind == TASK_VALUE_WAIT)
            cannstub_explore_block(task_kind_name(t->kind));
        const char *note = run_task(s, t, &effect_ns);
        if (explored && task_waits(t))
            explore_task_point(t, "woke");
        trace_task_at("end", s, t, note, effect_ns, -1);

        sync_lock(&rt.lock);
        s->running = NULL;
        __atomic_store_n(&s->blocked, 0, __ATOMIC_RELEASE);
        task_free(t);
        s->completed++;
        /* Waiters on a stream's progress re-check after every wake-up: wake
         * them when the queue ran dry or a synchronize's target is reached,
         * not between two queued tasks that nobody waits for (each needless
         * wake-up is two context switches, and one more on rt.lock). Local
         * waits are woken by the record's own broadcast, stream_cancel
         * broadcasts, and this loop broadcasts on leaving. */
        if (!s->head || s->completed >= s->drain_wake_at) {
            s->drain_wake_at = UINT64_MAX;
            rt_progress_broadcast();
        }
    }
    while (s->head) {
        struct task *t = s->head;
        s->head = t->next;
        drop_task(s, t);
    }
    s->tail = NULL;
    rt_progress_broadcast();
    while (s->waiters > 0)
        sync_cond_wait(&rt.progress, &rt.lock);
    for (struct stream **pp = &rt.all_streams; *pp; pp = &(*pp)->all_next) {
        if (*pp == s) {
            *pp = s->all_next;
            break;
        }
    }
    rt_executor_exited_locked();
    rt_progress_broadcast();
    sync_unlock(&rt.lock);
    if (s->explore_party >= 0 && EXPLORE_ON())
        cannstub_explore_leave();
    sync_cond_destroy(&s->wake);
    free(s);
    return NULL;
}

aclError stream_create(struct context *ctx, int is_default, struct stream **out)
{
    struct stream *s = calloc(1, sizeof *s);
    if (!s)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    s->id = ++rt.next_stream_id;
    s->device = ctx->device;
    s->ctx = ctx;
    s->is_default = is_default;
    s->drain_wake_at = UINT64_MAX;
    s->explore_party = EXPLORE_ON() ? explore_executor_register(is_default) : -1;
    s->explore_idle = s->explore_party >= 0; /* registered BLOCKED: its first task makes it RUNNING */
    SYNC_CHECKED("pthread_cond_init", pthread_cond_init(&s->wake, NULL));

    /* executors never take signals: those belong to the user's threads */
    sigset_t all, old;
    sigfillset(&all);
    SYNC_CHECKED("pthread_sigmask", pthread_sigmask(SIG_SETMASK, &all, &old));
    pthread_attr_t attr;
    SYNC_CHECKED("pthread_attr_init", pthread_attr_init(&attr));
    SYNC_CHECKED("pthread_attr_setdetachstate", pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED));
    pthread_t thread;
    int rc = pthread_create(&thread, &attr, executor_main, s); /* EAGAIN is an error to report, not a bug */
    SYNC_CHECKED("pthread_attr_destroy", pthread_attr_destroy(&attr));
    SYNC_CHECKED("pthread_sigmask", pthread_sigmask(SIG_SETMASK, &old, NULL));
    if (rc != 0) {
        sync_cond_destroy(&s->wake);
        free(s);
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    }
    rt.live_executors++;
    s->next = rt.streams;
    rt.streams = s;
    s->all_next = rt.all_streams;
    rt.all_streams = s;
    *out = s;
    return ACL_SUCCESS;
}

static void unlist(struct stream *s)
{
    for (struct stream **pp = &rt.streams; *pp; pp = &(*pp)->next) {
        if (*pp == s) {
            *pp = s->next;
            s->next = NULL;
            return;
        }
    }
}

void stream_destroy(struct stream *s)
{
    unlist(s);
    if (s->ctx && s->ctx->default_stream == s)
        s->ctx->default_stream = NULL;
    s->ctx = NULL;
    s->destroyed = 1;
    sync_cond_signal(&s->wake);
}

void stream_cancel(struct stream *s)
{
    if (!s->destroyed)
        stream_destroy(s);
    __atomic_store_n(&s->cancelled, 1, __ATOMIC_SEQ_CST);
    plat_wake_local_word(&s->cancelled); /* an executor blocked in an IPC wait */
    sync_cond_signal(&s->wake);
    rt_progress_broadcast();
}

void stream_abort_queued(struct stream *s)
{
    while (s->head) {
        struct task *t = s->head;
        s->head = t->next;
        drop_task(s, t);
        s->completed++; /* dropped, never run: a synchronize stops waiting for it */
    }
    s->tail = NULL;
    rt_progress_broadcast();
}

/* Mutant record-instant: the record takes effect now, at submission, ahead
 * of whatever is queued on its stream (rt.lock held; t is consumed). */
static void run_record_at_submit(struct stream *s, struct task *t)
{
    trace_task("submit", s, t, NULL);
    trace_task("start", s, t, NULL);
    uint64_t effect_ns = plat_monotonic_ns();
    if (t->kind == TASK_NOTIFY_RECORD)
        notify_task_run(s, t);
    else if (t->kind == TASK_IPC_RECORD)
        ipc_slot_complete(t->event, t->slot);
    else
        event_local_complete(t->event, t->generation);
    trace_task_at("end", s, t, NULL, effect_ns, -1);
    task_free(t);
}

aclError stream_submit(struct stream *s, struct task *t)
{
    t->next = NULL;
    t->seq = ++s->task_seq;
    if (t->event)
        event_ref(t->event); /* released by task_free */
    if (mutant_is(MUTANT_RECORD_INSTANT) &&
        (t->kind == TASK_RECORD || t->kind == TASK_IPC_RECORD || t->kind == TASK_NOTIFY_RECORD)) {
        run_record_at_submit(s, t);
        return ACL_SUCCESS;
    }
    if (s->tail)
        s->tail->next = t;
    else
        s->head = t;
    s->tail = t;
    s->submitted++;
    trace_task("submit", s, t, NULL);
    if (s->explore_idle) {
        s->explore_idle = 0;
        explore_executor_unblock(s->explore_party);
    }
    sync_cond_signal(&s->wake);
    return ACL_SUCCESS;
}

aclError stream_check_handle(const char *call, void *handle)
{
    if (handle && !rt_find_stream(handle))
        return stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                         "stream %p is not a live stream (destroyed, or never created)", handle);
    return ACL_SUCCESS;
}

aclError stream_resolve(const char *call, void *handle, struct stream **out)
{
    if (handle) {
        struct stream *s = rt_find_stream(handle);
        if (!s)
            return stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                             "stream %p is not a live stream (destroyed, or never created)", handle);
        *out = s;
        return ACL_SUCCESS;
    }
    struct context *c = NULL;
    aclError rc = ctx_require(call, &c);
    if (rc)
        return rc;
    if (!c->default_stream) {
        rc = stream_create(c, 1, &c->default_stream);
        if (rc)
            return stub_fail(rc, call, "cannot start the default stream's executor thread");
    }
    *out = c->default_stream;
    return ACL_SUCCESS;
}

aclError stream_check_context(const char *call, struct stream *s)
{
    struct context *c = NULL;
    aclError rc = ctx_require(call, &c);
    if (rc)
        return rc;
    if (s->ctx != c)
        return stub_fail(ACL_ERROR_RT_STREAM_CONTEXT, call,
                         "stream %p belongs to another context (device %d) than this thread's current one (device "
                         "%d): make the stream's context current (aclrtSetDevice / aclrtSetCurrentContext) first",
                         rt_stream_handle(s), s->device, c->device);
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/stream.cpp:38 */
STUB_EXPORT aclError aclrtCreateStream(aclrtStream *stream)
{
    static const char *call = "aclrtCreateStream";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    struct stream *s = NULL;
    if (!stream)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "stream is NULL");
    else if ((rc = ctx_require(call, &c)) == ACL_SUCCESS) { /* api_impl.cc:1481-1485 */
        rc = stream_create(c, 0, &s);
        if (rc)
            stub_fail(rc, call, "cannot start the stream's executor thread");
        else
            *stream = rt_stream_handle(s);
    }
    rt_leave();
    return rc;
}

/* CANN's Stream::TearDown waits while tasks are pending (core/src/stream/stream.cc:1475;
 * docs/zh/api_ref/06_stream_management.md:248): the destroy returns once every
 * task submitted to s has run. s is destroyed already (its handle is invalid,
 * its executor drains it); rt.lock held, released while waiting. A host
 * function of s that destroys s does not wait for itself; aclFinalize or exit
 * (which cancel s) end the wait. */
static void wait_queued_tasks(struct stream *s)
{
    uint64_t target = s->submitted;
    if (stream_is_running_this_thread(s))
        return;
    s->waiters++; /* keeps s allocated while rt.lock is released */
    if (s->completed < target && !s->cancelled && rt.initialized)
        EXPLORE_WAIT("aclrtDestroyStream");
    while (s->completed < target && !s->cancelled && rt.initialized) {
        if (target < s->drain_wake_at)
            s->drain_wake_at = target;
        rt_wait_progress(0);
    }
    assert(s->waiters > 0);
    s->waiters--;
    rt_progress_broadcast(); /* the executor waits for the waiters to leave */
}

/* CANN: src/acl/aclrt_impl/stream.cpp:95 */
STUB_EXPORT aclError aclrtDestroyStream(aclrtStream stream)
{
    static const char *call = "aclrtDestroyStream";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!stream)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "stream is NULL (the default stream cannot be destroyed)");
    else {
        struct stream *s = rt_find_stream(stream);
        if (!s)
            rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                           "stream %p is not a live stream (destroyed, or never created)", stream);
        else if ((rc = stream_check_context(call, s)) == ACL_SUCCESS) { /* api_impl.cc:1579-1585 */
            stream_destroy(s);
            wait_queued_tasks(s);
        }
    }
    rt_leave();
    EXPLORE_RETURN(call);
    return rc;
}

/* Waits until every task submitted to s so far has run, or timeout_ms pass
 * (-1: forever); rt.lock held. The wait of aclrtSynchronizeStream(WithTimeout)
 * and of a pageable copy (for_copy: the messages say so). On return *task is
 * the last task waited for, and *pending whether any was unfinished. */
static aclError wait_drained(const char *call, struct stream *s, int32_t timeout_ms, int for_copy, uint64_t *task,
                             int *pending)
{
    aclError rc = ACL_SUCCESS;
    uint64_t target = s->submitted, deadline = rt_deadline_after_ms(timeout_ms);
    int timed_out = 0;
    *task = s->task_seq;
    *pending = s->completed < target;
    s->waiters++;
    if (*pending && !mutant_is(MUTANT_SYNC_NOOP))
        EXPLORE_WAIT(call);
    while (!mutant_is(MUTANT_SYNC_NOOP) && s->completed < target && !s->cancelled && !timed_out && rt.initialized) {
        if (target < s->drain_wake_at)
            s->drain_wake_at = target; /* again after every wake-up: the executor resets it */
        timed_out = rt_wait_progress(deadline) && s->completed < target;
    }
    assert(s->waiters > 0);
    s->waiters--;
    if (timed_out)
        rc = stub_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, call, "stream still has %llu unfinished task(s) after %d ms",
                       (unsigned long long)(target - s->completed), (int)timeout_ms);
    else if ((s->cancelled || !rt.initialized) && s->completed < target)
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "%s",
                       for_copy
                           ? "the stream was cancelled (aclFinalize or aclrtDestroyStreamForce) before the copy's turn"
                       : s->cancelled ? "the stream was cancelled (aclrtDestroyStreamForce or exit)"
                                      : "aclFinalize ran while waiting");
    else if (s->sticky_error) {
        rc = stub_fail(s->sticky_error, call, "%s",
                       for_copy ? "a stream wait timed out before the copy's turn"
                                : "a stream wait on a local event timed out");
        s->sticky_error = 0;
    }
    if (*pending && trace_enabled()) {
        /* what it waited for: every task up to *task on this stream */
        struct trace_record r = {.op = "sync",
                                 .kind = "stream",
                                 .device = s->device,
                                 .stream = s->id,
                                 .task = *task,
                                 .slot = -1,
                                 .gen = -1,
                                 .rc = rc,
                                 .jitter_us = -1};
        trace_emit(&r);
    }
    rt_progress_broadcast(); /* an executor that waits for the waiters to leave */
    return rc;
}

/* timeout_ms: -1 forever, > 0 milliseconds (0 is refused after the handle check). */
static aclError synchronize_stream(const char *call, aclrtStream stream, int32_t timeout_ms)
{
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    struct context *current = NULL;
    uint64_t target_task = 0, stream_id = 0;
    int pending = 0;
    /* ApiImpl::StreamSynchronize needs a current context for every stream
     * (api_impl.cc:1704-1707); a stream of another context is accepted */
    if ((rc = stream_check_handle(call, stream)) || (rc = rt_check_sync_timeout_nonzero(call, timeout_ms)) ||
        (rc = ctx_require(call, &current)) || (rc = stream_resolve(call, stream, &s)))
        goto out;
    rc = wait_drained(call, s, timeout_ms, 0, &target_task, &pending);
    stream_id = s->id;
out:
    rt_leave();
    if (pending && rc == ACL_SUCCESS)
        jitter_sleep_us(jitter_completion_us(stream_id, target_task));
    EXPLORE_RETURN(call);
    return rc;
}

aclError stream_drain(const char *call, struct stream *s)
{
    uint64_t task;
    int pending;
    return wait_drained(call, s, -1, 1, &task, &pending);
}

/* CANN: src/acl/aclrt_impl/stream.cpp:121 */
STUB_EXPORT aclError aclrtSynchronizeStream(aclrtStream stream)
{
    return synchronize_stream("aclrtSynchronizeStream", stream, -1);
}

/* CANN: src/acl/aclrt_impl/stream.cpp:137 */
STUB_EXPORT aclError aclrtSynchronizeStreamWithTimeout(aclrtStream stream, int32_t timeout)
{
    static const char *call = "aclrtSynchronizeStreamWithTimeout";
    aclError rc = rt_check_sync_timeout_floor(call, timeout);
    if (rc)
        return rc;
    return synchronize_stream(call, stream, timeout);
}

/* timeout_ms: 0 none (local waits only; IPC waits ignore it). */
static aclError stream_wait_event(const char *call, aclrtStream stream, aclrtEvent event, aclError null_code,
                                  int64_t timeout_ms)
{
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    struct event *ev = NULL;
    struct task probe = {0}, *t;
    int noop;
    /* CANN's order: the acl layer's NULL check (aclrtStreamWaitEvent only),
     * both handles, the runtime's NULL check (107000), what the event's kind
     * refuses, then the current device and the stream's device. */
    if (!event && null_code == ACL_ERROR_INVALID_PARAM)
        rc = stub_fail(null_code, call, "event is NULL");
    else if ((rc = stream_check_handle(call, stream)))
        ;
    else if (event && !(ev = rt_find_event(event)))
        rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call, "event %p is not a live event (destroyed, or never created)",
                       event);
    else if (!event)
        rc = stub_fail(null_code, call, "event is NULL");
    else if ((rc = event_check_kind(call, ev, EVENT_OP_WAIT)))
        ;
    else if ((rc = stream_resolve(call, stream, &s)) == ACL_SUCCESS)
        rc = stream_check_context(call, s);
    if (rc)
        goto out;
    assert(ev && s);
    probe.kind = ev->is_ipc ? TASK_IPC_WAIT : TASK_WAIT;
    probe.event = ev;
    if (ev->is_ipc) {
        int64_t slot;
        ipc_wait_capture(ev, &slot, &probe.ipc_gen);
        noop = slot < 0;
        probe.slot = noop ? 0 : (uint32_t)slot;
    } else if ((rc = event_local_wait_target(call, ev, &probe.generation, &noop)))
        goto out;
    if (noop) {
        /* nothing pending: the wait is a no-op (traced, not queued) */
        probe.slot = ev->is_ipc ? __atomic_load_n(&ev->ipc->current, __ATOMIC_RELAXED) : 0;
        trace_task("submit", s, &probe, "noop");
        goto out;
    }
    t = malloc(sizeof *t);
    if (!t) {
        if (ev->is_ipc)
            ipc_slot_release(ev, probe.slot);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
        goto out;
    }
    *t = probe;
    t->timeout_ms = ev->is_ipc ? 0 : timeout_ms;
    if (!ev->is_ipc)
        ev->wait_tasks++; /* until it ends or is dropped (aclrtQueryEventWaitStatus) */
    stream_submit(s, t);
out:
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/stream.cpp:229 */
STUB_EXPORT aclError aclrtStreamWaitEvent(aclrtStream stream, aclrtEvent event)
{
    return stream_wait_event("aclrtStreamWaitEvent", stream, event, ACL_ERROR_INVALID_PARAM, 0);
}

/* CANN: src/acl/aclrt_impl/event.cpp:444 */
STUB_EXPORT aclError aclrtStreamWaitEventWithTimeout(aclrtStream stream, aclrtEvent event, int32_t timeout)
{
    static const char *call = "aclrtStreamWaitEventWithTimeout";
    if (timeout < 0)
        return rt_reject(ACL_ERROR_RT_PARAM_INVALID, call, "timeout %d is negative: use 0 (never) or more seconds",
                         (int)timeout);
    /* seconds (docs/zh/api_ref/07_event_management.md:1032; api_c_stream.cc:389-414
     * passes it on, ApiImpl::StreamWaitEvent logs it as "timeout=%us", api_impl.cc:1593) */
    return stream_wait_event(call, stream, event, ACL_ERROR_RT_PARAM_INVALID, (int64_t)timeout * 1000);
}

/* CANN: src/acl/aclrt_impl/callback.cpp:174 */
STUB_EXPORT aclError aclrtLaunchHostFunc(aclrtStream stream, aclrtHostFunc fn, void *args)
{
    static const char *call = "aclrtLaunchHostFunc";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    /* CANN has no acl-layer NULL check here: the stream handle comes first,
     * then the runtime refuses a NULL fn with 107000 (api_error.cc LaunchHostFunc) */
    if ((rc = stream_check_handle(call, stream)))
        ;
    else if (!fn)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "fn is NULL");
    /* ApiImpl::LaunchHostFunc (api_impl.cc:9139-9150): 107002, then 107003 */
    else if ((rc = stream_resolve(call, stream, &s)) == ACL_SUCCESS &&
             (rc = stream_check_context(call, s)) == ACL_SUCCESS) {
        struct task *t = calloc(1, sizeof *t);
        if (!t)
            rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
        else {
            t->kind = TASK_HOST_FUNC;
            t->fn = fn;
            t->args = args;
            stream_submit(s, t);
        }
    }
    rt_leave();
    return rc;
}
