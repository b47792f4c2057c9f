/*
 * runtime.c - aclInit/aclFinalize, environment configuration, handle
 * lookup, per-thread current device, and the exit-time cleanup.
 */
#include "runtime.h"

#include "config.h"
#include "context.h"
#include "device_ids.h"
#include "event.h"
#include "explore.h"
#include "fault.h"
#include "host_memory.h"
#include "ipc_event.h"
#include "ipc_whitelist.h"
#include "memory.h"
#include "notify.h"
#include "jitter.h"
#include "mutant.h"
#include "platform.h"
#include "shm.h"
#include "stream.h"
#include "stream_ext.h"
#include "sync.h"
#include "trace.h"
#include "vmm.h"

#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct runtime rt = {
    .lock = SYNC_MUTEX_INITIALIZER,
    .progress = PTHREAD_COND_INITIALIZER,
    .default_device = -1,
};

/* An executor stuck in a user host function cannot be interrupted: after
 * this long, aclInit (after aclFinalize) stops waiting for it (exit waits less). */
#define FINALIZE_EXECUTOR_WAIT_NS (2000ull * 1000000ull)
#define EXIT_EXECUTOR_WAIT_NS (200ull * 1000000ull)

aclError rt_enter(const char *call)
{
    aclError rc = ACL_SUCCESS;
    sync_lock(&rt.lock);
    if (!rt.initialized) /* ever_initialized read under the lock: aclInit writes it */
        rc = stub_fail(ACL_ERROR_UNINITIALIZE, call,
                       rt.ever_initialized ? "the runtime was finalized (aclFinalize already ran)"
                                           : "aclInit has not been called");
    else if ((rc = fault_check(call)))
        rc = stub_fail(rc, call, "injected fault (ACL_STUB_FAULT)");
    if (rc)
        sync_unlock(&rt.lock);
    return rc;
}

void rt_leave(void)
{
    sync_unlock(&rt.lock);
}

aclError rt_reject(aclError code, const char *call, const char *fmt, ...)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rt_leave();
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    return stub_fail(code, call, "%s", reason);
}

int rt_current_device(void)
{
    struct context *c = ctx_current();
    return c ? c->device : -1;
}

aclError rt_require_device(const char *call, int *device)
{
    struct context *c = NULL;
    aclError rc = ctx_require(call, &c);
    if (rc == ACL_SUCCESS)
        *device = c->device;
    return rc;
}

void *rt_stream_handle(const struct stream *s)
{
    return (void *)(uintptr_t)(STUB_STREAM_HANDLE_BASE | (s->id & STUB_HANDLE_ID_MASK));
}

void *rt_event_handle(const struct event *e)
{
    return (void *)(uintptr_t)(STUB_EVENT_HANDLE_BASE | (e->id & STUB_HANDLE_ID_MASK));
}

struct stream *rt_find_stream(void *handle)
{
    uintptr_t h = (uintptr_t)handle;
    if ((h & ~(uintptr_t)STUB_HANDLE_ID_MASK) != STUB_STREAM_HANDLE_BASE)
        return NULL;
    for (struct stream *s = rt.streams; s; s = s->next)
        if (rt_stream_handle(s) == handle)
            return s;
    return NULL;
}

struct event *rt_find_event(void *handle)
{
    uintptr_t h = (uintptr_t)handle;
    if ((h & ~(uintptr_t)STUB_HANDLE_ID_MASK) != STUB_EVENT_HANDLE_BASE)
        return NULL;
    for (struct event *e = rt.events; e; e = e->next)
        if (rt_event_handle(e) == handle)
            return e;
    return NULL;
}

uint64_t rt_deadline_after_ms(int64_t timeout_ms)
{
    return timeout_ms > 0 ? plat_monotonic_ns() + (uint64_t)timeout_ms * 1000000ull : 0;
}

aclError rt_check_sync_timeout_floor(const char *call, int32_t timeout)
{
    if (timeout < -1)
        return rt_reject(ACL_ERROR_RT_PARAM_INVALID, call,
                         "timeout %d is invalid: use -1 (wait forever) or a positive number of ms", (int)timeout);
    return ACL_SUCCESS;
}

aclError rt_check_sync_timeout_nonzero(const char *call, int32_t timeout)
{
    if (timeout == 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "timeout 0 is invalid: use -1 (wait forever) or a positive number of ms");
    return ACL_SUCCESS;
}

void rt_progress_broadcast(void)
{
    EXPLORE_PROGRESS();
    sync_cond_broadcast(&rt.progress);
}

int rt_wait_progress(uint64_t deadline_ns)
{
    EXPLORE_PROGRESS_SLEEP();
    if (deadline_ns == 0) {
        sync_cond_wait(&rt.progress, &rt.lock);
        return 0;
    }
    if (plat_monotonic_ns() >= deadline_ns)
        return 1;
    plat_cond_wait_until(&rt.progress, &rt.lock, deadline_ns);
    return plat_monotonic_ns() >= deadline_ns;
}

static int parse_device_count(uint32_t *out, const char **bad)
{
    const char *v = getenv("ACL_STUB_DEVICE_COUNT");
    *out = STUB_DEFAULT_DEVICES;
    if (!v)
        return 0;
    char *end = NULL;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (*v == '\0' || errno != 0 || *end != '\0' || n < 1 || n > STUB_MAX_DEVICES) {
        *bad = v;
        return -1;
    }
    *out = (uint32_t)n;
    return 0;
}

static void exit_cleanup(void);
static aclError init_locked(const char *call, const char *configPath, uint32_t *count_out);

/* A bad environment variable is always reported on stderr (whatever
 * ACL_STUB_LOG says): the user must see it to fix it. */
__attribute__((format(printf, 1, 2))) static aclError config_fail(const char *fmt, ...)
{
    char reason[400];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    aclError rc = stub_fail(ACL_ERROR_INVALID_PARAM, "aclInit", "%s", reason);
    if (!stub_log_enabled(LOG_ERROR))
        fprintf(stderr, "[acl-stub] %s\n", aclGetRecentErrMsg());
    return rc;
}

/* Leaves every shared object and frees device memory and notifies: once no
 * executor can touch them any more. rt.lock held. */
static void release_process_state_locked(void)
{
    rt.cleanup_pending = 0;
    notify_shutdown();
    vmm_shutdown();
    memory_shutdown();
    host_memory_shutdown();
    stream_ext_shutdown();
    shm_detach_all();
}

void rt_executor_exited_locked(void)
{
    rt.live_executors--;
    if (rt.live_executors == 0 && rt.cleanup_pending && !rt.initialized && !rt.shutting_down)
        release_process_state_locked(); /* the last of a finalized runtime's queued work ran */
}

/* Cancels every stream still running (queued tasks dropped, blocked waits
 * abandoned), waits for the executors up to wait_ns, then releases the
 * process state. Exit, and aclInit after an aclFinalize whose queued work
 * still runs. rt.lock held (released while waiting). */
static void drop_queued_work_locked(uint64_t wait_ns)
{
    rt.shutting_down = 1;
    /* every stream, including destroyed ones still draining (e.g. blocked
     * on an IPC wait whose recorder died) */
    for (struct stream *s = rt.all_streams; s; s = s->all_next)
        stream_cancel(s);
    uint64_t deadline = plat_monotonic_ns() + wait_ns;
    while (rt.live_executors > 0) {
        if (rt_wait_progress(deadline)) {
            stub_log(LOG_WARN, "%d stream(s) still running a host function: not waiting for them", rt.live_executors);
            break;
        }
    }
    release_process_state_locked();
    rt.shutting_down = 0;
    rt_progress_broadcast();
}

/* An executor whose destroyed stream has nothing queued or running: it is ending. */
static int idle_executor_left(void)
{
    for (struct stream *s = rt.all_streams; s; s = s->all_next)
        if (!s->head && !s->running)
            return 1;
    return 0;
}

/* aclFinalize (drop_work 0) and exit (1). Destroys every context, stream and
 * event. aclFinalize tears down no stream in CANN (acl.cpp:547-627 resets no
 * device): queued work keeps running, and the process state is released when
 * it has run (rt_executor_exited_locked), at exit, or at the next aclInit. At
 * exit queued work is dropped (drop_queued_work_locked). rt.lock held. */
static void shutdown_locked(uint64_t wait_ns, int drop_work)
{
    /* first, so that calls from other threads fail with 100001 */
    __atomic_store_n(&rt.initialized, 0, __ATOMIC_RELAXED);
    /* host threads blocked in a synchronize give up (507000) */
    __atomic_add_fetch(&rt.shutdowns, 1, __ATOMIC_SEQ_CST);
    plat_wake_local_word(&rt.shutdowns);
    rt.default_device = -1; /* aclFinalize disables it (acl.cpp:607-611) */
    ctx_shutdown(drop_work);
    while (rt.events)
        event_destroy(rt.events);
    rt.cleanup_pending = 1;
    rt_progress_broadcast();
    if (drop_work) {
        drop_queued_work_locked(wait_ns);
        return;
    }
    /* the executors with nothing left to run end now: a program that
     * drained its streams before aclFinalize has no runtime thread after it */
    while (idle_executor_left())
        rt_wait_progress(0);
    if (rt.live_executors == 0)
        release_process_state_locked();
    plat_forget_peers(); /* nothing of the runtime stays open after aclFinalize */
}

/* CANN: src/acl/aclrt_impl/acl.cpp:382 */
STUB_EXPORT aclError aclInit(const char *configPath)
{
    static const char *call = "aclInit";
    const char *bad = NULL;
    if (stub_log_configure(&bad) != 0)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call,
                         "ACL_STUB_LOG=%s is not a level: use error, warn, info, debug or off", bad);
    uint32_t count = 0;
    sync_lock(&rt.lock);
    aclError rc = init_locked(call, configPath, &count);
    sync_unlock(&rt.lock);
    if (rc)
        return rc;
    ipc_reclaim_stale();
    memory_reclaim_stale();
    vmm_reclaim_stale();
    notify_reclaim_stale();
    stub_log(LOG_INFO, "aclInit: %u device(s), pid %d", count, (int)getpid());
    return ACL_SUCCESS;
}

/* As CANN's GetStrFromConfigPath (src/acl/aclrt_impl/acl_rt_impl_base.cpp:154-166):
 * an empty path is no file; a path that does not resolve, or a file that
 * cannot be opened for reading, is ACL_ERROR_INVALID_FILE (100003). CANN then
 * parses the contents as JSON (config.c). */
static aclError check_config_path(const char *call, const char *configPath)
{
    if (!configPath || !*configPath)
        return ACL_SUCCESS;
    char *real = realpath(configPath, NULL);
    int fd = real ? open(real, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY) : -1; /* never blocks on a FIFO */
    int err = errno;
    free(real);
    if (fd < 0)
        return stub_fail(ACL_ERROR_INVALID_FILE, call, "cannot read config file %s (%s): pass NULL or a readable file",
                         configPath, strerror(err));
    close(fd);
    return ACL_SUCCESS;
}

/* aclInit's checks and set-up, rt.lock held (it stays held throughout). */
static aclError init_locked(const char *call, const char *configPath, uint32_t *count_out)
{
    static int atexit_registered;
    const char *bad = NULL;
    aclError rc;
    if (!rt.progress_is_monotonic) {
        /* Nothing can wait on rt.progress before the first aclInit (every
         * waiter is past the init check), so it is swapped here, once. */
        sync_cond_destroy(&rt.progress);
        if (plat_cond_init_monotonic(&rt.progress) != 0)
            return stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "cannot create a condition variable");
        rt.progress_is_monotonic = 1;
    }
    while (rt.shutting_down) /* an aclFinalize on another thread must finish first */
        sync_cond_wait(&rt.progress, &rt.lock);
    if (rt.initialized)
        return stub_fail(ACL_ERROR_REPEAT_INITIALIZE, call, "aclInit was already called in this process");
    if (rt.cleanup_pending) /* the previous runtime's queued work still runs: it ends here */
        drop_queued_work_locked(FINALIZE_EXECUTOR_WAIT_NS);
    uint32_t count;
    if (parse_device_count(&count, &bad) != 0)
        return config_fail("ACL_STUB_DEVICE_COUNT=%s is invalid: use an integer from 1 to %d", bad, STUB_MAX_DEVICES);
    int default_device;
    if ((rc = check_config_path(call, configPath)) || (rc = config_read(call, configPath, count, &default_device)))
        return rc;
    char err[400];
    if (fault_configure(err, sizeof err) != 0 || mutant_configure(err, sizeof err) != 0 ||
        jitter_configure(err, sizeof err) != 0 || explore_configure(err, sizeof err) != 0 ||
        memory_configure(err, sizeof err) != 0 || shm_scope_configure(err, sizeof err) != 0 ||
        ipc_pid_namespace_configure(err, sizeof err) != 0 || trace_open(err, sizeof err) != 0)
        return config_fail("%s", err);
    const char *die = getenv("ACL_STUB_TEST_DIE_IN_LOCK");
    shm_test_die_in_lock = !die                         ? SHM_TEST_DIE_NEVER
                           : strcmp(die, "1") == 0      ? SHM_TEST_DIE_IN_SLOT_RELEASE
                           : strcmp(die, "unlink") == 0 ? SHM_TEST_DIE_IN_UNLINK
                           : strcmp(die, "grow") == 0   ? SHM_TEST_DIE_IN_GROWTH
                                                        : SHM_TEST_DIE_NEVER;
    const char *exact = getenv("ACL_STUB_TEST_EXACT_RESERVE");
    shm_test_exact_reserve = exact && strcmp(exact, "1") == 0;
    uint32_t visible = 0;
    if (device_ids_configure(count, &visible, err, sizeof err) != 0)
        return config_fail("%s", err);
    rt.device_count = visible; /* the user ids of ASCEND_RT_VISIBLE_DEVICES (device_ids.c) */
    for (int d = 0; d < STUB_MAX_DEVICES; d++) {
        rt.devices[d].refcount = 0;
        rt.devices[d].primary = NULL;
    }
    rt.default_device = default_device;
    rt.init_pid = (int)getpid();
    __atomic_store_n(&rt.initialized, 1, __ATOMIC_RELAXED);
    rt.ever_initialized = 1;
    if (!atexit_registered) {
        atexit_registered = 1;
        atexit(exit_cleanup);
    }
    *count_out = visible;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/acl.cpp:630 */
STUB_EXPORT aclError aclFinalize(void)
{
    static const char *call = "aclFinalize";
    aclError rc = ACL_SUCCESS;
    if (EXPLORE_ON())
        explore_leave_process(); /* its threads and executors no longer wait for grants */
    sync_lock(&rt.lock);
    if (!rt.initialized) {
        if (rt.ever_initialized || rt.shutting_down)
            rc = stub_fail(ACL_ERROR_REPEAT_FINALIZE, call, "aclFinalize was already called");
        else
            rc = stub_fail(ACL_ERROR_UNINITIALIZE, call, "aclInit has not been called");
    } else if ((rc = fault_check(call))) {
        rc = stub_fail(rc, call, "injected fault (ACL_STUB_FAULT)");
    } else {
        shutdown_locked(0, 0);
    }
    sync_unlock(&rt.lock);
    return rc;
}

/* The user forgot aclFinalize (or exited from a signal-free error path):
 * still cancel our streams and leave every shared object, so that the
 * last user unlinks it. Never blocks for long: a thread could be stuck. */
static void exit_cleanup(void)
{
    if (rt.init_pid != (int)getpid())
        return; /* a forked child: the objects belong to the parent */
    if (EXPLORE_ON())
        explore_leave_process(); /* nobody waits for this process's parties to reach a point */
    if (plat_mutex_lock_timeout(&rt.lock, 1000) != 0) {
        shm_detach_all();
        return;
    }
    if (rt.initialized)
        shutdown_locked(EXIT_EXECUTOR_WAIT_NS, 1);
    else if (rt.cleanup_pending && !rt.shutting_down)
        drop_queued_work_locked(EXIT_EXECUTOR_WAIT_NS); /* queued work of a finalized runtime */
    sync_unlock(&rt.lock);
}
