/*
 * runtime.h - process-wide state of the stub: init/finalize, devices,
 * live streams and events, and the per-thread current device.
 *
 * One process-wide mutex (rt.lock) guards all process-local state; its
 * condition variable rt.progress is broadcast whenever a task completes or
 * something is cancelled. Cross-process state lives in shm objects with
 * their own robust locks. Lock order: rt.lock, then shm locks; the
 * executor never takes rt.lock while holding an shm lock.
 */
#ifndef CANNSTUB_RUNTIME_H
#define CANNSTUB_RUNTIME_H

#include <pthread.h>
#include <stdint.h>

#include "acl/acl.h"
#include "errors.h"

#define STUB_MAX_DEVICES 64
#define STUB_DEFAULT_DEVICES 8

struct stream;
struct event;
struct context;

struct device {
    int refcount;             /* aclrtSetDevice calls minus resets, process-wide */
    struct context *primary; /* while refcount > 0 (context.h) */
};

struct runtime {
    pthread_mutex_t lock;
    pthread_cond_t progress; /* timed waits on CLOCK_MONOTONIC from the first aclInit on */
    int progress_is_monotonic;
    int initialized;
    int shutting_down; /* exit or aclInit dropping queued work (rt.lock released while waiting) */
    int cleanup_pending; /* finalized; shared objects released once no executor runs */
    uint32_t shutdowns; /* futex word: bumped (and woken) by each aclFinalize/exit */
    int ever_initialized;
    int init_pid;
    uint32_t device_count;
    struct device devices[STUB_MAX_DEVICES];
    struct stream *streams; /* live (not destroyed) streams */
    struct stream *all_streams; /* every stream whose executor still runs */
    struct event *events;   /* live (not destroyed) events */
    struct context *contexts; /* live contexts (context.h) */
    uint64_t next_context_id;
    uint64_t next_stream_id;
    uint64_t next_event_id;
    int live_executors;
    uint32_t op_wait_timeout_s;
    int default_device; /* aclInit's config defaultDevice, -1 none (acl.cpp:334-350) */
};

extern struct runtime rt;

/* Takes rt.lock and checks that aclInit ran. Returns ACL_SUCCESS with the
 * lock held, or 100001 (lock released, recent error set). */
aclError rt_enter(const char *call);
void rt_leave(void);
/* Fails call with code for an argument it can judge without rt.lock (a flag,
 * a timeout), after the init check, which comes first (100001 wins). */
aclError rt_reject(aclError code, const char *call, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* The device of the calling thread's current context (context.h), or -1
 * (rt.lock held). */
int rt_current_device(void);
/* Same, failing with 107002 naming call when there is none. */
aclError rt_require_device(const char *call, int *device);

/* Handles given to the user are not pointers but tagged, never-reused ids
 * (object ids are 64-bit counters): a destroyed handle can never alias a
 * newer object at the same address, so use-after-destroy is always 107017,
 * and a garbage value is never dereferenced. */
#define STUB_STREAM_HANDLE_BASE 0x00005a1000000000ull
#define STUB_EVENT_HANDLE_BASE 0x00005e1000000000ull
#define STUB_HANDLE_ID_MASK 0x0000000fffffffffull
void *rt_stream_handle(const struct stream *s);
void *rt_event_handle(const struct event *e);

/* Handle lookups among live objects (rt.lock held); NULL if not live. */
struct stream *rt_find_stream(void *handle);
struct event *rt_find_event(void *handle);

/* An executor thread ends (rt.lock held): the last one after aclFinalize
 * releases the process's shared objects. */
void rt_executor_exited_locked(void);

/* Waits on rt.progress until deadline_ns (0: forever). Returns 1 on timeout. */
int rt_wait_progress(uint64_t deadline_ns);
/* Wakes every waiter on rt.progress (rt.lock held); under ACL_STUB_EXPLORE their parties are
 * RUNNING from here on, so no decision is taken before they look again. */
void rt_progress_broadcast(void);

/* Monotonic deadline timeout_ms from now; 0 (no deadline) when timeout_ms <= 0. */
uint64_t rt_deadline_after_ms(int64_t timeout_ms);

/* The ...WithTimeout synchronize rule: -1 waits forever, > 0 is ms. As in CANN,
 * timeout < -1 is refused first (acl layer, before the NULL check; it also
 * enters/leaves the runtime), and 0 only once the handle is known valid
 * (runtime layer; rt.lock held). Both return ACL_SUCCESS or 107000. */
aclError rt_check_sync_timeout_floor(const char *call, int32_t timeout);
aclError rt_check_sync_timeout_nonzero(const char *call, int32_t timeout);

#endif
