/*
 * live_view.c - cannstub_live_view (include/cannstub/live_view.h): each
 * stream's running task and queue as JSON, for a watcher thread writing a
 * hang report while the main thread is blocked in a synchronize; and
 * cannstub_stream_blocked, whether one stream's executor sleeps in a wait.
 *
 * Everything read here is guarded by rt.lock, which a blocked synchronize
 * does not hold (it sleeps on rt.progress). The lock is taken with a
 * deadline: a hang report must never hang itself.
 */
#include "cannstub/live_view.h"

#include "context.h"
#include "errors.h"
#include "event.h"
#include "ipc_event.h"
#include "platform.h"
#include "runtime.h"
#include "shm.h"
#include "stream.h"
#include "sync.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <unistd.h>

#define QUEUED_SHOWN 32

struct out {
    char *buf;
    size_t len;
    size_t pos; /* what the full text needs, even past len */
};

__attribute__((format(printf, 2, 3))) static void put(struct out *o, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    size_t room = o->pos < o->len ? o->len - o->pos : 0;
    int n = vsnprintf(room ? o->buf + o->pos : NULL, room, fmt, ap);
    va_end(ap);
    if (n > 0)
        o->pos += (size_t)n;
}

static void put_task(struct out *o, const struct task *t)
{
    put(o, "{\"task\":%llu,\"kind\":\"%s\"", (unsigned long long)t->seq, task_kind_name(t->kind));
    int ipc = t->kind == TASK_IPC_RECORD || t->kind == TASK_IPC_WAIT;
    int local = t->kind == TASK_RECORD || t->kind == TASK_WAIT || t->kind == TASK_RESET;
    if (t->event)
        put(o, ",\"event\":%llu", (unsigned long long)t->event->id);
    if (local)
        put(o, ",\"gen\":%llu", (unsigned long long)t->generation);
    if (ipc && t->event) {
        put(o, ",\"ipc\":\"%016llx\",\"slot\":%u,\"gen\":%u", (unsigned long long)t->event->shm->id, t->slot,
            t->ipc_gen);
        if (t->kind == TASK_IPC_WAIT) {
            int32_t pid;
            uint64_t stream;
            if (ipc_slot_recorder(t->event, t->slot, t->ipc_gen, &pid, &stream))
                put(o, ",\"recorder\":{\"pid\":%d,\"stream\":%llu}", (int)pid, (unsigned long long)stream);
            else
                put(o, ",\"recorder\":null");
        }
    }
}

static void put_stream(struct out *o, const struct stream *s)
{
    put(o, "{\"stream\":%llu,\"device\":%d,\"destroyed\":%s,\"sync_waiters\":%d,\"head\":", (unsigned long long)s->id,
        s->device, s->destroyed ? "true" : "false", s->waiters);
    const struct task *queued = s->head;
    if (s->running) {
        put_task(o, s->running);
        put(o, ",\"state\":\"running\",\"since_ns\":\"%llu\"}", (unsigned long long)s->running_since_ns);
    } else if (queued) {
        put_task(o, queued);
        put(o, ",\"state\":\"queued\"}");
        queued = queued->next;
    } else {
        put(o, "null");
    }
    put(o, ",\"queued\":[");
    unsigned total = 0;
    for (const struct task *t = queued; t; t = t->next, total++) {
        if (total >= QUEUED_SHOWN)
            continue;
        if (total)
            put(o, ",");
        put_task(o, t);
        put(o, "}");
    }
    put(o, "],\"queued_total\":%u}", total);
}

static int lock_with_deadline(void)
{
    struct timespec at;
    clock_gettime(CLOCK_REALTIME, &at);
    at.tv_nsec += (long)(CANNSTUB_LIVE_VIEW_LOCK_MS % 1000) * 1000000L;
    at.tv_sec += CANNSTUB_LIVE_VIEW_LOCK_MS / 1000 + at.tv_nsec / 1000000000L;
    at.tv_nsec %= 1000000000L;
    int rc = pthread_mutex_timedlock(&rt.lock, &at);
    if (rc == ETIMEDOUT || rc == EDEADLK) /* EDEADLK: called with rt.lock held (a bug, but not ours to crash on) */
        return 0;
    SYNC_CHECKED("pthread_mutex_timedlock", rc);
    return 1;
}

STUB_EXPORT int cannstub_live_view(char *buf, size_t len)
{
    if (!buf || len == 0)
        return -1;
    if (!lock_with_deadline())
        return -2;
    struct out o = {buf, len, 0};
    put(&o, "{\"pid\":%d,\"now_ns\":\"%llu\",\"streams\":[", (int)getpid(), (unsigned long long)plat_monotonic_ns());
    int first = 1;
    for (const struct stream *s = rt.all_streams; s; s = s->all_next) {
        if (!first)
            put(&o, ",");
        first = 0;
        put_stream(&o, s);
    }
    put(&o, "]}");
    sync_unlock(&rt.lock);
    if (o.pos >= len)
        buf[len - 1] = '\0';
    return o.pos > (size_t)0x7fffffff ? 0x7fffffff : (int)o.pos;
}

STUB_EXPORT int cannstub_stream_blocked(void *stream)
{
    if (!lock_with_deadline())
        return -2;
    const struct stream *s = NULL;
    if (stream) {
        s = rt_find_stream(stream);
    } else {
        const struct context *c = ctx_current();
        s = c ? c->default_stream : NULL;
    }
    int state = -1;
    if (s && !s->running)
        state = 0;
    else if (s && s->running->kind == TASK_HOST_FUNC)
        state = 2;
    else if (s)
        state = __atomic_load_n(&s->blocked, __ATOMIC_ACQUIRE) ? 1 : 0;
    sync_unlock(&rt.lock);
    return state;
}
