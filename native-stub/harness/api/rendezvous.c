/*
 * rendezvous.c - publish and await named values and signals in the scenario
 * directory, with the file layout and rules of src/rendezvous/README.md, so
 * that C and TypeScript roles see each other's values and signals.
 *
 * Safety (README "Security"): the temporary file is created exclusively and
 * never through a link; what is read was written by someone else, so it is
 * opened without following links, without blocking (a FIFO planted at the
 * name would hang a plain open), and refused unless it is a regular file of
 * this user.
 */
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <poll.h>
#include <stdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <unistd.h>

#include "api.h"

#define HANDLES_DIR "handles"
#define SIGNALS_DIR "signals"
#define STAGING_DIR ".staging"
/* Taken temporary names skipped before giving up (only a dead process's leftover takes one). */
#define TEMP_NAME_TRIES 100
/* Where inotify is unavailable, how often an await looks again (as the TypeScript side does). */
#define FALLBACK_POLL_MS 25

static unsigned long temp_counter;

/* Writes all of data to fd; 0 or -1 (errno set). */
static int write_all(int fd, const unsigned char *data, size_t len)
{
    size_t done = 0;
    while (done < len) {
        ssize_t n = api_fault(FAULT_WRITE) ? (errno = ENOSPC, -1) : write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0)
            return -1;
        done += (size_t)n;
    }
    return 0;
}

/* handles/<name> or signals/<name> := data, atomically (temp + fdatasync + rename). */
static int publish_file(const char *call, const char *sub, const char *name, const void *data, size_t len)
{
    int rc, dirfd = -1, subfd = -1, stagefd = -1, fd = -1, tempdir;
    char temp[NAME_MAX + 1];
    if (!api_valid_name(name) || (!data && len > 0)) {
        rc = api_report(CANNHARNESS_EINVAL, call, name,
                        !data && len > 0 ? "data is NULL but len is not 0"
                                         : "invalid name: use 1-200 characters from letters, digits, '_', '-', "
                                           "'.', '@', not starting with '.'");
        goto out;
    }
    rc = api_open_scenario_dir(call, name, &dirfd);
    if (rc != CANNHARNESS_OK)
        goto out;
    rc = api_open_subdir(dirfd, sub, call, name, &subfd);
    if (rc != CANNHARNESS_OK)
        goto out;
    /* Temporary files in .staging/ wake readers of handles/ once (for the rename), not per step;
     * without it (e.g. a link there), next to the final name, hidden by the leading '.'. */
    if (api_open_subdir(dirfd, STAGING_DIR, NULL, name, &stagefd) != CANNHARNESS_OK)
        stagefd = -1;
    tempdir = stagefd >= 0 ? stagefd : subfd;
    for (int tries = 1; fd < 0; tries++) {
        unsigned long k = __atomic_add_fetch(&temp_counter, 1, __ATOMIC_RELAXED);
        snprintf(temp, sizeof temp, ".%s.%d.%lu.tmp", name, (int)getpid(), k);
        if (api_fault(FAULT_TEMP_OPEN))
            errno = ENOSPC;
        else
            fd = openat(tempdir, temp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (fd < 0 && (errno != EEXIST || tries >= TEMP_NAME_TRIES)) {
            rc = api_report(CANNHARNESS_ESYS, call, name, "cannot create a temporary file in %s/: %s",
                            stagefd >= 0 ? STAGING_DIR : sub, strerror(errno));
            goto out;
        }
    }
    if (write_all(fd, data, len) != 0) {
        rc = api_report(CANNHARNESS_ESYS, call, name, "cannot write the value: %s", strerror(errno));
        goto remove_temp;
    }
    /* Empty content cannot be torn: no flush needed (as the TypeScript publisher). */
    if (len > 0 && (api_fault(FAULT_SYNC) ? (errno = EIO, -1) : fdatasync(fd)) != 0) {
        rc = api_report(CANNHARNESS_ESYS, call, name, "cannot flush the value: %s", strerror(errno));
        goto remove_temp;
    }
    if ((api_fault(FAULT_RENAME) ? (errno = EXDEV, -1) : renameat(tempdir, temp, subfd, name)) != 0) {
        rc = api_report(CANNHARNESS_ESYS, call, name, "cannot rename the value into %s/%s: %s", sub, name,
                        strerror(errno));
        goto remove_temp;
    }
    goto out;
remove_temp:
    unlinkat(tempdir, temp, 0);
out:
    if (fd >= 0)
        close(fd);
    if (stagefd >= 0)
        close(stagefd);
    if (subfd >= 0)
        close(subfd);
    if (dirfd >= 0)
        close(dirfd);
    return rc;
}

API_EXPORT int cannharness_publish(const char *name, const void *data, size_t len)
{
    return publish_file("cannharness_publish", HANDLES_DIR, name, data, len);
}

API_EXPORT int cannharness_signal(const char *name)
{
    return publish_file("cannharness_signal", SIGNALS_DIR, name, NULL, 0);
}

/* What one look at the awaited name found. */
enum look { ABSENT, FOUND };

struct await_target {
    const char *call, *name, *sub;
    void *buf; /* NULL for a signal: existence is enough */
    size_t cap;
    size_t *len;
};

/* Opens sub/name if it is there and safe; *found = 0 if it is not there yet. */
static int look_once(const struct await_target *t, int subfd, int *found)
{
    int rc = CANNHARNESS_OK;
    struct stat st;
    *found = 0;
    int fd = openat(subfd, t->name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (errno == ENOENT)
            return CANNHARNESS_OK;
        if (errno == ELOOP)
            return api_report(CANNHARNESS_EUNSAFE, t->call, t->name, "%s/%s is a symbolic link: refused", t->sub,
                              t->name);
        return api_report(CANNHARNESS_ESYS, t->call, t->name, "cannot open %s/%s: %s", t->sub, t->name,
                          strerror(errno));
    }
    if (fstat(fd, &st) != 0) {
        rc = api_report(CANNHARNESS_ESYS, t->call, t->name, "cannot stat %s/%s: %s", t->sub, t->name, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
        rc = api_report(CANNHARNESS_EUNSAFE, t->call, t->name,
                        "%s/%s is %s: refused (published values are regular files of this user)", t->sub, t->name,
                        S_ISREG(st.st_mode) ? "another user's file" : "not a regular file");
        goto out;
    }
    *found = 1;
    if (!t->buf && t->cap == 0 && !t->len)
        goto out; /* a signal */
    /* Published files are complete once visible (rename), so st_size is the value's size. */
    *t->len = (size_t)st.st_size;
    if ((size_t)st.st_size > t->cap) {
        rc = api_report(CANNHARNESS_E2BIG, t->call, t->name, "the value has %lld bytes, the buffer %zu",
                        (long long)st.st_size, t->cap);
        goto out;
    }
    size_t got = 0;
    while (got < (size_t)st.st_size) {
        ssize_t n =
            api_fault(FAULT_READ) ? (errno = EIO, -1) : read(fd, (char *)t->buf + got, (size_t)st.st_size - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            rc = api_report(CANNHARNESS_ESYS, t->call, t->name, "cannot read %s/%s: %s", t->sub, t->name,
                            n < 0 ? strerror(errno) : "it shrank while being read (it was not published atomically)");
            goto out;
        }
        got += (size_t)n;
    }
out:
    close(fd);
    return rc;
}

/* Reads what inotify has queued: we only need to know that something changed. */
static void drain_events(int ino)
{
    _Alignas(struct inotify_event) char buf[4096];
    while (read(ino, buf, sizeof buf) > 0) {
    }
}

/* Watches fd's directory (through /proc/self/fd: the one we opened, never a link) for mask. */
static int watch_dir(int ino, int fd, uint32_t mask)
{
    char self[64];
    snprintf(self, sizeof self, "/proc/self/fd/%d", fd);
    return inotify_add_watch(ino, self, mask | IN_ONLYDIR);
}

/* The preload's record of a wait in progress (harness/preload/preload.c), looked up once: NULL without it. */
typedef void (*wait_begin_fn)(const char *call, const char *name);
typedef void (*wait_end_fn)(void);
static struct {
    int looked; /* 0: not yet; 1: done (the pointers below are final) */
    wait_begin_fn begin;
    wait_end_fn end;
} wait_record;

static void find_wait_record(void)
{
    if (__atomic_load_n(&wait_record.looked, __ATOMIC_ACQUIRE))
        return;
    /* Idempotent: two threads that race here store the same pointers. */
    wait_begin_fn begin = (wait_begin_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cannharness_preload_wait_begin");
    wait_end_fn end = (wait_end_fn)(uintptr_t)dlsym(RTLD_DEFAULT, "cannharness_preload_wait_end");
    __atomic_store_n(&wait_record.begin, begin && end ? begin : NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&wait_record.end, begin && end ? end : NULL, __ATOMIC_RELAXED);
    __atomic_store_n(&wait_record.looked, 1, __ATOMIC_RELEASE);
}

static int await_file(const struct await_target *t)
{
    int rc, dirfd = -1, subfd = -1, ino = -1, has_deadline, found = 0;
    uint64_t deadline_ns = 0;
    const uint64_t started = api_monotonic_ns();
    if (!api_valid_name(t->name)) {
        rc = api_report(CANNHARNESS_EINVAL, t->call, t->name,
                        "invalid name: use 1-200 characters from letters, digits, '_', '-', '.', '@', not starting "
                        "with '.'");
        goto out;
    }
    if (t->buf == NULL && t->cap > 0) {
        rc = api_report(CANNHARNESS_EINVAL, t->call, t->name, "buf is NULL but cap is not 0");
        goto out;
    }
    rc = api_deadline(t->call, t->name, &has_deadline, &deadline_ns);
    if (rc != CANNHARNESS_OK)
        goto out;
    rc = api_open_scenario_dir(t->call, t->name, &dirfd);
    if (rc != CANNHARNESS_OK)
        goto out;
    rc = api_open_subdir(dirfd, t->sub, t->call, t->name, &subfd);
    if (rc != CANNHARNESS_OK)
        goto out;
    /* Already there (the common case of a value published before it is awaited): done, without an
     * inotify instance, whose close(2) waits out a kernel grace period (~9 ms measured). */
    rc = look_once(t, subfd, &found);
    if (rc != CANNHARNESS_OK || found)
        goto out;
    /* Watch first, then look: a file that appears in between is seen by the look or wakes the poll. */
    ino = api_fault(FAULT_INOTIFY) ? (errno = EMFILE, -1) : inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ino >= 0 && (watch_dir(ino, subfd, IN_CREATE | IN_MOVED_TO) < 0 || watch_dir(ino, dirfd, IN_DELETE) < 0)) {
        close(ino);
        ino = -1; /* e.g. out of inotify watches: the re-check below still works */
    }
    find_wait_record();
    wait_begin_fn begin = __atomic_load_n(&wait_record.begin, __ATOMIC_RELAXED);
    if (begin)
        begin(t->call, t->name);
    for (;;) {
        rc = look_once(t, subfd, &found);
        if (rc != CANNHARNESS_OK || found)
            goto end_record;
        if (api_dir_removed(subfd)) {
            rc = api_report(CANNHARNESS_EREMOVED, t->call, t->name,
                            "%s/ was removed while waiting for %s (the scenario is over)", t->sub, t->name);
            goto end_record;
        }
        uint64_t now = api_monotonic_ns();
        if (has_deadline && now >= deadline_ns) {
            rc = api_report(CANNHARNESS_ETIMEDOUT, t->call, t->name,
                            "timed out after %llu ms waiting for %s \"%s\" (file %s/%s in CANN_HARNESS_DIR): the "
                            "scenario deadline (CANN_HARNESS_DEADLINE_NS) passed",
                            (unsigned long long)((now - started) / 1000000u), t->buf || t->len ? "value" : "signal",
                            t->name, t->sub, t->name);
            goto end_record;
        }
        int wait_ms = -1;
        if (has_deadline) {
            uint64_t left_ms = (deadline_ns - now + 999999u) / 1000000u;
            wait_ms = left_ms > INT_MAX ? INT_MAX : (int)left_ms;
        }
        if (ino < 0) {
            if (wait_ms < 0 || wait_ms > FALLBACK_POLL_MS)
                wait_ms = FALLBACK_POLL_MS;
            poll(NULL, 0, wait_ms);
            continue;
        }
        struct pollfd p = {.fd = ino, .events = POLLIN};
        if (poll(&p, 1, wait_ms) > 0)
            drain_events(ino);
    }
end_record:
    if (begin)
        __atomic_load_n(&wait_record.end, __ATOMIC_RELAXED)();
out:
    if (ino >= 0)
        close(ino);
    if (subfd >= 0)
        close(subfd);
    if (dirfd >= 0)
        close(dirfd);
    return rc;
}

API_EXPORT int cannharness_await(const char *name, void *buf, size_t cap, size_t *len)
{
    size_t ignored;
    struct await_target t = {"cannharness_await", name, HANDLES_DIR, buf, cap, len ? len : &ignored};
    return await_file(&t);
}

API_EXPORT int cannharness_await_signal(const char *name)
{
    struct await_target t = {"cannharness_await_signal", name, SIGNALS_DIR, NULL, 0, NULL};
    return await_file(&t);
}
