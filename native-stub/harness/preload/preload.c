/*
 * preload.c - libcannharness_preload.so: makes a native role (a C/C++
 * program the harness runs, which runs no TypeScript) visible to the hang
 * report, as the TypeScript binding makes a device process visible.
 *
 * Loaded with LD_PRELOAD (first in the list), it
 *  - starts the watchdog of libcannharness_hold.so (watch.h) from a
 *    constructor, when CANN_HARNESS_NATIVE_WATCH=1: orphan check and hang
 *    answers, with CANN_HARNESS_PARENT_PID, _DIR, _ROLE and _KEEP as a
 *    device process has them. It removes CANN_HARNESS_NATIVE_WATCH from the
 *    environment, so programs this one starts do not start a second watchdog
 *    (their parent is not the orchestrator: they would think it dead);
 *  - interposes the ACL calls that can block, forwarding each to the next
 *    definition (dlsym RTLD_NEXT: the stub or real CANN, it never links
 *    libascendcl) and writing the same call record as src/acl/call-record.ts
 *    around it: the main thread in slot 0, other threads in slots 1..64.
 * Without CANN_HARNESS_NATIVE_WATCH the records are written but nobody reads them.
 */
#include <dlfcn.h>
#include <errno.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../hold/watch.h"

#define PRELOAD_EXPORT __attribute__((visibility("default")))

/* The record's layout (call-record.ts): int32 seq, active, text length, open
 * latches; int64 since; then UTF-8 "name\nargs". */
#define RECORD_SINCE 16
#define RECORD_TEXT 24
#define RECORD_TEXT_BYTES (CANNHARNESS_CALL_RECORD_BYTES - RECORD_TEXT)
_Static_assert(RECORD_TEXT_BYTES == 1024, "the binding's record holds 1024 bytes of text");

/* ACL's types as the ABI sees them (no acl headers: real CANN declares more than the stub). */
typedef int acl_error;
typedef void *acl_handle;

static __thread int slot = -1; /* this thread's record; -2: none left */
static __thread int depth;     /* ACL calls in progress (a call the library makes itself is not a new one) */
static int next_thread_slot;

static unsigned char *record_of_this_thread(void)
{
    if (slot == -1) {
        if ((pid_t)syscall(SYS_gettid) == getpid()) {
            slot = 0;
        } else {
            int t = __atomic_fetch_add(&next_thread_slot, 1, __ATOMIC_RELAXED);
            slot = t < CANNHARNESS_THREAD_RECORDS ? 1 + t : -2;
        }
    }
    return slot < 0 ? NULL : (unsigned char *)cannharness_call_records() + (size_t)slot * CANNHARNESS_CALL_RECORD_BYTES;
}

static int32_t *word(unsigned char *rec, int i)
{
    return (int32_t *)(void *)rec + i;
}

/* Seqlock write, as CallRecord.begin: word by word atomically, so that the watchdog's copy never races. */
static void record_begin(const char *name, const char *fmt, ...)
{
    if (depth++ > 0)
        return;
    unsigned char *rec = record_of_this_thread();
    if (!rec)
        return;
    _Alignas(8) char text[RECORD_TEXT_BYTES] = {0};
    int n = snprintf(text, sizeof text, "%s\n", name);
    va_list ap;
    va_start(ap, fmt);
    n += vsnprintf(text + n, sizeof text - (size_t)n, fmt, ap);
    va_end(ap);
    if (n >= (int)sizeof text)
        n = (int)sizeof text - 1;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    int64_t since = (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
    __atomic_add_fetch(word(rec, 0), 1, __ATOMIC_ACQ_REL); /* odd: writing */
    for (size_t w = 0; w < sizeof text / 8; w++) {
        uint64_t v;
        memcpy(&v, text + w * 8, 8);
        __atomic_store_n((uint64_t *)(void *)(rec + RECORD_TEXT) + w, v, __ATOMIC_RELAXED);
    }
    __atomic_store_n(word(rec, 2), n, __ATOMIC_RELAXED);
    __atomic_store_n((int64_t *)(void *)(rec + RECORD_SINCE), since, __ATOMIC_RELAXED);
    __atomic_store_n(word(rec, 1), 1, __ATOMIC_RELAXED);
    __atomic_add_fetch(word(rec, 0), 1, __ATOMIC_RELEASE);
}

static void record_end(void)
{
    if (--depth > 0)
        return;
    unsigned char *rec = record_of_this_thread();
    if (rec)
        __atomic_store_n(word(rec, 1), 0, __ATOMIC_RELEASE);
}

/*
 * For libcannharness.so (native-stub/harness/api/rendezvous.c): a C API wait in
 * progress is recorded like a blocking ACL call, with the call's name and
 * name="<what it awaits>", so that the hang report says what a C role waits
 * for. Found with dlsym(RTLD_DEFAULT) once per process: without the preload
 * (a manual run) nothing is recorded.
 */
PRELOAD_EXPORT void cannharness_preload_wait_begin(const char *call, const char *name)
{
    record_begin(call, "name=\"%s\"", name);
}

PRELOAD_EXPORT void cannharness_preload_wait_end(void)
{
    record_end();
}

/* The next definition of an ACL call (the library the program loaded). A
 * wrapper only runs when we precede that library, so a miss is a broken set-up. */
static void *next_definition(const char *name, void **cache)
{
    void *fn = __atomic_load_n(cache, __ATOMIC_ACQUIRE);
    if (fn)
        return fn;
    fn = dlsym(RTLD_NEXT, name);
    if (!fn) {
        fprintf(stderr,
                "cannharness: libcannharness_preload.so: %s has no definition after this library: link the program "
                "with -lascendcl (and put libcannharness_preload.so first in LD_PRELOAD)\n",
                name);
        abort();
    }
    __atomic_store_n(cache, fn, __ATOMIC_RELEASE);
    return fn;
}

/* stream=0x5a1000000002, or stream=NULL(default), as the binding's describe(). */
static const char *handle_text(char *buf, size_t cap, const char *kind, const void *h)
{
    if (h)
        snprintf(buf, cap, "%s=0x%llx", kind, (unsigned long long)(uintptr_t)h);
    else
        snprintf(buf, cap, "%s=NULL(default)", kind);
    return buf;
}
#define HANDLE_FMT "%s"
#define HANDLE_ARGS(kind, h) handle_text((char[64]){0}, 64, kind, h)
/* Not the binding's words for every call, but the same key=value shape the wait-for graph parses. */
#define NO_HANDLE_FMT "%s"

/* Defines wrapper `fn` with parameters `params`, forwarding `args`, recording `fmt`. */
#define WRAP(fn, params, args, fmt, ...)                                                       \
    PRELOAD_EXPORT acl_error fn params                                                         \
    {                                                                                          \
        static void *next;                                                                     \
        acl_error(*real) params = (acl_error(*) params)(uintptr_t)next_definition(#fn, &next); \
        record_begin(#fn, fmt, __VA_ARGS__);                                                   \
        acl_error rc = real args;                                                              \
        int saved = errno;                                                                     \
        record_end();                                                                          \
        errno = saved;                                                                         \
        return rc;                                                                             \
    }

WRAP(aclrtSynchronizeStream, (acl_handle stream), (stream), HANDLE_FMT, HANDLE_ARGS("stream", stream))
WRAP(aclrtSynchronizeStreamWithTimeout, (acl_handle stream, int32_t timeout), (stream, timeout),
     HANDLE_FMT ", timeout=%d", HANDLE_ARGS("stream", stream), (int)timeout)
WRAP(aclrtSynchronizeEvent, (acl_handle event), (event), HANDLE_FMT, HANDLE_ARGS("event", event))
WRAP(aclrtSynchronizeEventWithTimeout, (acl_handle event, int32_t timeout), (event, timeout), HANDLE_FMT ", timeout=%d",
     HANDLE_ARGS("event", event), (int)timeout)
WRAP(aclrtSynchronizeDevice, (void), (), NO_HANDLE_FMT, "")
WRAP(aclrtSynchronizeDeviceWithTimeout, (int32_t timeout), (timeout), "timeout=%d", (int)timeout)
WRAP(aclrtMemcpy, (void *dst, size_t dest_max, const void *src, size_t count, int kind),
     (dst, dest_max, src, count, kind), "dst=%p, destMax=%zu, src=%p, count=%zu, kind=%d", dst, dest_max, src, count,
     kind)
WRAP(aclrtMemcpyAsync, (void *dst, size_t dest_max, const void *src, size_t count, int kind, acl_handle stream),
     (dst, dest_max, src, count, kind, stream), "dst=%p, destMax=%zu, src=%p, count=%zu, kind=%d, " HANDLE_FMT, dst,
     dest_max, src, count, kind, HANDLE_ARGS("stream", stream))
WRAP(aclrtMemcpyBatch,
     (void **dsts, size_t *dest_maxs, void **srcs, size_t *sizes, size_t n, void *attrs, size_t *attrs_indexes,
      size_t num_attrs, size_t *fail_index),
     (dsts, dest_maxs, srcs, sizes, n, attrs, attrs_indexes, num_attrs, fail_index), "numBatches=%zu, numAttrs=%zu", n,
     num_attrs)
WRAP(aclrtMemset, (void *ptr, size_t max_count, int32_t value, size_t count), (ptr, max_count, value, count),
     "devPtr=%p, maxCount=%zu, value=%d, count=%zu", ptr, max_count, (int)value, count)
WRAP(aclrtDestroyStream, (acl_handle stream), (stream), HANDLE_FMT, HANDLE_ARGS("stream", stream))
WRAP(aclrtDestroyStreamForce, (acl_handle stream), (stream), HANDLE_FMT, HANDLE_ARGS("stream", stream))
WRAP(aclrtResetDevice, (int32_t device), (device), "deviceId=%d", (int)device)
WRAP(aclrtResetDeviceForce, (int32_t device), (device), "deviceId=%d", (int)device)
WRAP(aclFinalize, (void), (), NO_HANDLE_FMT, "")

/* Reports a set-up problem; the program runs on without the watchdog. */
static void say(const char *fmt, ...)
{
    char why[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    fprintf(stderr,
            "cannharness: libcannharness_preload.so: %s; this process runs on without the harness's watchdog "
            "(no hang report from it, and it is not stopped if the harness dies)\n",
            why);
}

__attribute__((constructor)) static void start_native_watch(void)
{
    const char *on = getenv("CANN_HARNESS_NATIVE_WATCH");
    if (!on || strcmp(on, "1") != 0)
        return;
    unsetenv("CANN_HARNESS_NATIVE_WATCH"); /* ours alone, not our children's */
    const char *ppid_text = getenv("CANN_HARNESS_PARENT_PID");
    char *end = NULL;
    long ppid = ppid_text ? strtol(ppid_text, &end, 10) : 0;
    if (!ppid_text || *end != '\0' || ppid <= 0 || ppid > INT32_MAX) {
        say("CANN_HARNESS_PARENT_PID is %s (the harness sets it to its pid)", ppid_text ? "not a pid" : "not set");
        return;
    }
    const char *dir = getenv("CANN_HARNESS_DIR");
    const char *role = getenv("CANN_HARNESS_ROLE");
    const char *keep = getenv("CANN_HARNESS_KEEP");
    /* The ACL library the program loaded (for the stub's live view): whoever defines aclInit after us. */
    void *acl_init = dlsym(RTLD_NEXT, "aclInit");
    Dl_info info;
    if (acl_init && dladdr(acl_init, &info) && info.dli_fname)
        cannharness_watch_set_library(info.dli_fname);
    int rc = cannharness_watch_start((int)ppid, dir && dir[0] ? dir : NULL, keep && strcmp(keep, "1") == 0,
                                     role && role[0] ? role : NULL);
    if (rc != 0 && rc != -EALREADY)
        say("cannharness_watch_start failed: %s", strerror(-rc));
}
