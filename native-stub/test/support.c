/*
 * support.c - see support.h.
 *
 * Everything a case sets up is torn down by one hook, in an order that cannot
 * deadlock on a broken runtime: open every gate (so no host function keeps a
 * stream busy), kill and reap helper processes, remove the temp directory,
 * then finalize ACL if the case left it initialised.
 */
#define _GNU_SOURCE
#include "support.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <ftw.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

extern char **environ;

/* ---------------------------------------------------------------- teardown */

#define MAX_CHILDREN 32
#define MAX_GATES 16

struct gate {
    int fds[2];
    int entered;  /* atomic */
    int released; /* atomic */
    int done;     /* atomic: its host function has returned (it reads fds[0] until then) */
};

static struct {
    int hooked;
    char dir[PATH_CAP];
    pid_t owner; /* only the process that made the dir removes it */
    pid_t children[MAX_CHILDREN];
    int child_exit[MAX_CHILDREN]; /* -1 while running, else its exit code (reaped early) */
    int child_count;
    struct gate gates[MAX_GATES];
    int gate_count;
    int acl_is_up;
} st;

static int remove_entry(const char *path, const struct stat *sb, int flag, struct FTW *ftw)
{
    (void)sb, (void)flag, (void)ftw;
    remove(path);
    return 0;
}

static void open_all_gates(void)
{
    for (int i = 0; i < st.gate_count; i++) {
        struct gate *g = &st.gates[i];
        if (!__atomic_exchange_n(&g->released, 1, __ATOMIC_SEQ_CST)) {
            ssize_t ignored = write(g->fds[1], "x", 1);
            (void)ignored;
        }
    }
}

static void teardown(void *ctx)
{
    (void)ctx;
    open_all_gates();
    for (int i = 0; i < st.child_count; i++) {
        if (st.children[i] > 0 && st.child_exit[i] < 0) {
            kill(st.children[i], SIGKILL);
            waitpid(st.children[i], NULL, 0);
        }
        st.children[i] = 0;
    }
    if (st.dir[0] && st.owner == getpid())
        nftw(st.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    st.dir[0] = '\0';
    if (st.acl_is_up) {
        st.acl_is_up = 0;
        /* From the watchdog, the interrupted thread may hold the runtime's locks:
         * exiting is safe, calling aclFinalize is not. */
        if (!ct_cleanup_in_signal_handler())
            aclFinalize();
    }
    /* aclFinalize cancels nothing (contract S18): an opened gate's host function may still be
     * reading its pipe on a stream thread. Close a gate's pipe only once its host function has
     * returned (bounded wait); one that never started, or is still running, keeps its pipe until the
     * case's process exits (closing it under the reader is a race, and its number could be reused). */
    uint64_t deadline = now_ns() + 5000ull * 1000000ull;
    for (int i = 0; i < st.gate_count; i++) {
        struct gate *g = &st.gates[i];
        while (__atomic_load_n(&g->entered, __ATOMIC_SEQ_CST) && !__atomic_load_n(&g->done, __ATOMIC_SEQ_CST) &&
               now_ns() < deadline)
            sleep_ms(1);
        if (!__atomic_load_n(&g->done, __ATOMIC_SEQ_CST))
            continue;
        close(g->fds[0]);
        close(g->fds[1]);
    }
    st.gate_count = 0;
}

static void ensure_hooked(void)
{
    if (!st.hooked) {
        st.hooked = 1;
        ct_on_cleanup(teardown, NULL);
    }
}

/* -------------------------------------------------------------------- time */

uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static int write_file(const char *path, const char *text)
{
    int fd = open(path, O_WRONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = write(fd, text, strlen(text));
    close(fd);
    return n == (ssize_t)strlen(text) ? 0 : -1;
}

int enter_own_dev_shm(const char *size)
{
    uid_t uid = getuid();
    gid_t gid = getgid();
    if (unshare(CLONE_NEWUSER | CLONE_NEWNS) != 0)
        return -1;
    char map[64];
    snprintf(map, sizeof map, "0 %u 1", (unsigned)uid);
    if (write_file("/proc/self/uid_map", map) != 0 || write_file("/proc/self/setgroups", "deny") != 0)
        return -1;
    snprintf(map, sizeof map, "0 %u 1", (unsigned)gid);
    char options[32];
    snprintf(options, sizeof options, "size=%s", size);
    if (write_file("/proc/self/gid_map", map) != 0 || mount("none", "/", NULL, MS_REC | MS_PRIVATE, NULL) != 0 ||
        mount("tmpfs", "/dev/shm", "tmpfs", 0, options) != 0)
        return -1;
    return 0;
}

void fill_dev_shm(void)
{
    int fd = open("/dev/shm/filler", O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0)
        CT_FAIL("cannot create the filler: %s", strerror(errno));
    static char block[4096];
    while (write(fd, block, sizeof block) > 0) {
    }
    close(fd);
}

void sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* ---------------------------------------------------------------- temp dir */

const char *case_dir(void)
{
    if (!st.dir[0]) {
        ensure_hooked();
        const char *base = getenv("TMPDIR");
        snprintf(st.dir, sizeof st.dir, "%s/conformance-%s-XXXXXX", base && *base ? base : "/tmp", ct_current_name());
        if (!mkdtemp(st.dir)) {
            int e = errno;
            st.dir[0] = '\0';
            CT_FAIL("mkdtemp: %s (set TMPDIR to a writable directory)", strerror(e));
        }
        st.owner = getpid();
    }
    return st.dir;
}

void path_join(char out[PATH_CAP], const char *dir, const char *name)
{
    if ((size_t)snprintf(out, PATH_CAP, "%s/%s", dir, name) >= PATH_CAP)
        CT_FAIL("path too long: %s/%s", dir, name);
}

/* ------------------------------------------------------------------- files */

void publish_bytes(const char *dir, const char *name, const void *data, size_t len)
{
    char tmp[PATH_CAP], final[PATH_CAP];
    path_join(final, dir, name);
    char tmp_name[128];
    snprintf(tmp_name, sizeof tmp_name, ".%s.tmp.%d", name, (int)getpid());
    path_join(tmp, dir, tmp_name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    if (fd < 0)
        CT_FAIL("open %s: %s", tmp, strerror(errno));
    const char *p = data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            CT_FAIL("write %s: %s", tmp, strerror(errno));
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) < 0)
        CT_FAIL("fsync %s: %s", tmp, strerror(errno));
    close(fd);
    if (rename(tmp, final) < 0)
        CT_FAIL("rename %s -> %s: %s", tmp, final, strerror(errno));
}

void publish_u64(const char *dir, const char *name, uint64_t value)
{
    char text[32];
    int n = snprintf(text, sizeof text, "%llu\n", (unsigned long long)value);
    publish_bytes(dir, name, text, (size_t)n);
}

void publish_flag(const char *dir, const char *name)
{
    publish_bytes(dir, name, "1\n", 2);
}

int file_exists(const char *dir, const char *name)
{
    char path[PATH_CAP];
    path_join(path, dir, name);
    return access(path, F_OK) == 0;
}

static void reap_failed_helpers(void);

/* await_file sleeps on an inotify watch of the directory (a publish is a rename into it) instead of
 * waking every millisecond; at most AWAIT_LOOK_MS at a time all the same, so that a helper that
 * failed meanwhile is seen soon (and a file that no event announces is still found). A global:
 * a failure (CT_FAIL) leaves the process with it open. -1: no watch, look every millisecond. */
#define AWAIT_LOOK_MS 20
static _Thread_local int await_watch = -1; /* per thread: threads of a case may wait too */

static void await_watch_open(const char *dir)
{
    await_watch = inotify_init1(IN_CLOEXEC | IN_NONBLOCK);
    if (await_watch >= 0 && inotify_add_watch(await_watch, dir, IN_MOVED_TO | IN_CREATE | IN_CLOSE_WRITE) < 0) {
        close(await_watch);
        await_watch = -1;
    }
}

static void await_watch_close(void)
{
    if (await_watch >= 0)
        close(await_watch);
    await_watch = -1;
}

/* Sleeps until something happens in the watched directory, or AWAIT_LOOK_MS (1 ms unwatched). */
static void await_watch_sleep(void)
{
    if (await_watch < 0) {
        sleep_ms(1);
        return;
    }
    struct pollfd p = {.fd = await_watch, .events = POLLIN};
    if (poll(&p, 1, AWAIT_LOOK_MS) > 0) {
        char events[4096];
        while (read(await_watch, events, sizeof events) > 0) {
        }
    }
}

size_t await_file(const char *dir, const char *name, void *buf, size_t cap, int timeout_ms)
{
    char path[PATH_CAP];
    path_join(path, dir, name);
    uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
    await_watch_close();
    await_watch_open(dir); /* before the first look: a publish between the two is not missed */
    for (;;) {
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd >= 0) {
            size_t got = 0;
            ssize_t n;
            while (got < cap && (n = read(fd, (char *)buf + got, cap - got)) > 0)
                got += (size_t)n;
            close(fd);
            await_watch_close();
            return got;
        }
        if (now_ns() > deadline)
            CT_FAIL("timed out after %d ms waiting for %s (the peer process did not publish it)", timeout_ms, path);
        reap_failed_helpers();
        await_watch_sleep();
    }
}

uint64_t await_u64(const char *dir, const char *name, int timeout_ms)
{
    char text[32] = {0};
    await_file(dir, name, text, sizeof text - 1, timeout_ms);
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 10);
    if (errno || end == text)
        CT_FAIL("%s/%s does not hold a number: '%s'", dir, name, text);
    return (uint64_t)v;
}

void await_flag(const char *dir, const char *name, int timeout_ms)
{
    char text[8];
    await_file(dir, name, text, sizeof text, timeout_ms);
}

/* --------------------------------------------------------------- processes */

static char self_path[PATH_CAP];
static char self_directory[PATH_CAP];

const char *self_exe(void)
{
    if (!self_path[0]) {
        ssize_t n = readlink("/proc/self/exe", self_path, sizeof self_path - 1);
        if (n <= 0)
            CT_FAIL("readlink /proc/self/exe: %s", strerror(errno));
        self_path[n] = '\0';
    }
    return self_path;
}

const char *self_dir(void)
{
    if (!self_directory[0]) {
        snprintf(self_directory, sizeof self_directory, "%s", self_exe());
        char *slash = strrchr(self_directory, '/');
        if (slash)
            *slash = '\0';
    }
    return self_directory;
}

/* Builds the child's environment (before fork: no allocation after it). */
static char **make_env(const char *const *changes)
{
    size_t n = 0, k = 0;
    while (environ[n])
        n++;
    if (changes)
        while (changes[k])
            k++;
    char **env = calloc(n + k + 1, sizeof *env);
    if (!env)
        CT_FAIL("out of memory");
    size_t m = 0;
    for (size_t i = 0; i < n; i++) {
        int replaced = 0;
        for (size_t j = 0; j < k; j++) {
            size_t len = strcspn(changes[j], "=");
            if (strncmp(environ[i], changes[j], len) == 0 && environ[i][len] == '=')
                replaced = 1;
        }
        if (!replaced)
            env[m++] = environ[i];
    }
    for (size_t j = 0; j < k; j++)
        if (strchr(changes[j], '='))
            env[m++] = (char *)changes[j];
    env[m] = NULL;
    return env;
}

static void track_child(pid_t pid)
{
    ensure_hooked();
    for (int i = 0; i < st.child_count; i++)
        if (st.children[i] == 0) {
            st.children[i] = pid;
            st.child_exit[i] = -1;
            return;
        }
    if (st.child_count == MAX_CHILDREN) {
        kill(pid, SIGKILL);
        waitpid(pid, NULL, 0);
        CT_FAIL("too many helper processes (raise MAX_CHILDREN)");
    }
    st.child_exit[st.child_count] = -1;
    st.children[st.child_count++] = pid;
}

static int status_code(int status)
{
    return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

/* While we wait for a helper's file, a helper that already failed would only
 * turn into a timeout much later: fail now, naming it. Helpers that exited 0
 * keep their status for wait_exit. */
static void reap_failed_helpers(void)
{
    for (int i = 0; i < st.child_count; i++) {
        int status;
        if (st.children[i] <= 0 || st.child_exit[i] >= 0 || waitpid(st.children[i], &status, WNOHANG) != st.children[i])
            continue;
        st.child_exit[i] = status_code(status);
        if (st.child_exit[i] != 0) {
            pid_t pid = st.children[i];
            st.children[i] = 0;
            CT_FAIL("helper process %d exited with %d while the case waited for it (its output is above)", (int)pid,
                    st.child_exit[i]);
        }
    }
}

static void untrack_child(pid_t pid)
{
    for (int i = 0; i < st.child_count; i++)
        if (st.children[i] == pid)
            st.children[i] = 0;
}

pid_t spawn_program(const char *path, const char *const *argv, const char *const *env, const char *cwd,
                    const char *log_path)
{
    char **envp = make_env(env);
    fflush(stdout);
    fflush(stderr);
    /* Whatever the parent did (it may have called aclInit and run threads),
     * the child only redirects output and execs: nothing else happens between
     * fork and exec. */
    pid_t pid = fork();
    if (pid < 0)
        CT_FAIL("fork: %s", strerror(errno));
    if (pid == 0) {
        if (cwd && chdir(cwd) < 0)
            _exit(126);
        if (log_path) {
            int fd = open(log_path, O_WRONLY | O_CREAT | O_TRUNC, 0600);
            if (fd < 0)
                _exit(126);
            dup2(fd, 1);
            dup2(fd, 2);
        }
        execve(path, (char *const *)argv, envp);
        _exit(127);
    }
    free(envp);
    track_child(pid);
    return pid;
}

pid_t spawn_role(const char *role, const char *const *args, const char *const *env)
{
    const char *argv[24];
    int n = 0;
    argv[n++] = self_exe();
    argv[n++] = "--role";
    argv[n++] = role;
    for (int i = 0; args && args[i]; i++) {
        if (n >= 23)
            CT_FAIL("too many role arguments");
        argv[n++] = args[i];
    }
    argv[n] = NULL;
    return spawn_program(self_exe(), argv, env, NULL, NULL);
}

/* A pidfd of child pid (Linux 5.3+), so that a wait on a helper sleeps until it exits instead of
 * waking every millisecond (CPU that side-by-side cases and sanitizer builds share); -1 without
 * pidfd_open, and then wait_exit polls. Close-on-exec: helpers spawned meanwhile do not get it. */
static int open_pidfd(pid_t pid)
{
#ifdef SYS_pidfd_open
    return (int)syscall(SYS_pidfd_open, pid, 0);
#else
    (void)pid;
    return -1;
#endif
}

static void close_pidfd(int pidfd)
{
    if (pidfd >= 0)
        close(pidfd);
}

int wait_exit(pid_t pid, int timeout_ms)
{
    for (int i = 0; i < st.child_count; i++)
        if (st.children[i] == pid && st.child_exit[i] >= 0) {
            st.children[i] = 0;
            return st.child_exit[i];
        }
    uint64_t deadline = now_ns() + (uint64_t)timeout_ms * 1000000ull;
    int pidfd = open_pidfd(pid);
    for (;;) {
        int status;
        pid_t r = waitpid(pid, &status, WNOHANG);
        if (r == pid) {
            close_pidfd(pidfd);
            untrack_child(pid);
            return status_code(status);
        }
        if (r < 0 && errno != EINTR) {
            close_pidfd(pidfd);
            CT_FAIL("waitpid %d: %s", (int)pid, strerror(errno));
        }
        uint64_t now = now_ns();
        if (now > deadline) {
            close_pidfd(pidfd);
            kill(pid, SIGKILL);
            waitpid(pid, NULL, 0);
            untrack_child(pid);
            CT_FAIL("helper process %d did not exit within %d ms (killed it)", (int)pid, timeout_ms);
        }
        if (pidfd >= 0) {
            /* readable once the child has exited; a signal (EINTR) just means look again */
            struct pollfd p = {.fd = pidfd, .events = POLLIN};
            poll(&p, 1, (int)((deadline - now) / 1000000ull) + 1);
        } else {
            sleep_ms(1);
        }
    }
}

void expect_exit(pid_t pid, int expected_code, int timeout_ms)
{
    int code = wait_exit(pid, timeout_ms);
    if (code != expected_code)
        CT_FAIL("helper process %d exited with %d, expected %d (its output is above)", (int)pid, code, expected_code);
}

/* --------------------------------------------------------------------- ACL */

void acl_up(int32_t device)
{
    ensure_hooked();
    CT_OK(aclInit(NULL));
    st.acl_is_up = 1;
    CT_OK(aclrtSetDevice(device));
}

void acl_init_only(void)
{
    ensure_hooked();
    CT_OK(aclInit(NULL));
    st.acl_is_up = 1;
}

void acl_down(void)
{
    st.acl_is_up = 0;
    CT_OK(aclFinalize());
}

void acl_forget(void)
{
    st.acl_is_up = 0;
}

aclrtStream stream_new(void)
{
    aclrtStream s = NULL;
    CT_OK(aclrtCreateStream(&s));
    CT_TRUE(s != NULL);
    return s;
}

void declare_owned(const aclrtIpcEventHandle *h)
{
    static uint64_t seen[64];
    static int seen_count;
    uint64_t id;
    memcpy(&id, h->reserved, sizeof id);
    for (int i = 0; i < seen_count; i++)
        if (seen[i] == id)
            return;
    if (seen_count < 64)
        seen[seen_count++] = id;
    char name[64];
    stub_object_name(name, STUB_SHM_EVENT_PREFIX, id);
    printf("ct-owned-path: /dev/shm%s\n", name);
    fflush(stdout);
}

int stub_object_exists(const aclrtIpcEventHandle *h)
{
    uint64_t id;
    memcpy(&id, h->reserved, sizeof id);
    char name[64], path[128];
    stub_object_name(name, STUB_SHM_EVENT_PREFIX, id);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    return access(path, F_OK) == 0;
}

void stub_object_name(char out[64], const char *prefix, uint64_t id)
{
    const char *scope = getenv("ACL_STUB_SCOPE");
    int scoped = scope && *scope;
    snprintf(out, 64, "/%s%016llx%s%s", prefix, (unsigned long long)id, scoped ? "." : "", scoped ? scope : "");
}

/* The stub names the object after the key: /dev/shm/<prefix><16 hex>[.<scope>]. */
static void key_object_path(char out[PATH_CAP], const char *key)
{
    size_t n = strncmp(key, "cannstub-mem-", 13) == 0 ? 13 + 16 : strlen(key);
    const char *scope = getenv("ACL_STUB_SCOPE");
    int scoped = scope && *scope;
    snprintf(out, PATH_CAP, "/dev/shm/%.*s%s%s", (int)n, key, scoped ? "." : "", scoped ? scope : "");
}

void declare_key_owned(const char *key)
{
    char path[PATH_CAP];
    key_object_path(path, key);
    printf("ct-owned-path: %s\n", path);
    fflush(stdout);
}

int key_object_exists(const char *key)
{
    char path[PATH_CAP];
    key_object_path(path, key);
    return access(path, F_OK) == 0;
}

aclrtEvent ipc_event_new(void)
{
    aclrtEvent e = NULL;
    CT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    CT_TRUE(e != NULL);
    aclrtIpcEventHandle h;
    CT_OK(aclrtIpcGetEventHandle(e, &h));
    declare_owned(&h);
    return e;
}

aclrtEvent local_event_new(void)
{
    aclrtEvent e = NULL;
    /* the legacy create: events of aclrtCreateEventExWithFlag refuse reset
     * and the legacy queries (docs/acl-contract.md section 4) */
    CT_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CT_TRUE(e != NULL);
    return e;
}

aclrtIpcEventHandle handle_of(aclrtEvent event)
{
    aclrtIpcEventHandle h;
    memset(&h, 0, sizeof h);
    CT_OK(aclrtIpcGetEventHandle(event, &h));
    return h;
}

aclrtEvent ipc_open(aclrtIpcEventHandle handle)
{
    declare_owned(&handle);
    aclrtEvent e = NULL;
    CT_OK(aclrtIpcOpenEventHandle(handle, &e));
    CT_TRUE(e != NULL);
    return e;
}

aclrtEventRecordedStatus query_status(aclrtEvent e)
{
    aclrtEventRecordedStatus status = (aclrtEventRecordedStatus)99;
    CT_OK(aclrtQueryEventStatus(e, &status));
    return status;
}

int handles_equal(const aclrtIpcEventHandle *a, const aclrtIpcEventHandle *b)
{
    return memcmp(a->reserved, b->reserved, sizeof a->reserved) == 0;
}

struct thread_call {
    void (*fn)(void *);
    void *arg;
};

static void *thread_main(void *p)
{
    struct thread_call *c = p;
    c->fn(c->arg);
    return NULL;
}

void run_in_thread(void (*fn)(void *), void *arg)
{
    struct thread_call c = {fn, arg};
    pthread_t t;
    int rc = pthread_create(&t, NULL, thread_main, &c);
    if (rc)
        CT_FAIL("pthread_create: %s", strerror(rc));
    pthread_join(t, NULL);
}

/* ------------------------------------------------------------------- gates */

static void gate_body(void *arg)
{
    struct gate *g = arg;
    __atomic_store_n(&g->entered, 1, __ATOMIC_SEQ_CST);
    struct pollfd p = {g->fds[0], POLLIN, 0};
    /* Bounded, so that a test that forgets to release cannot wedge the stream
     * for longer than the watchdog. */
    if (poll(&p, 1, 15000) == 1) {
        char c;
        ssize_t ignored = read(g->fds[0], &c, 1);
        (void)ignored;
    }
    __atomic_store_n(&g->done, 1, __ATOMIC_SEQ_CST);
}

void noop_host_fn(void *arg)
{
    (void)arg;
}

struct gate *gate_hold(aclrtStream stream)
{
    ensure_hooked();
    if (st.gate_count == MAX_GATES)
        CT_FAIL("too many gates (raise MAX_GATES)");
    struct gate *g = &st.gates[st.gate_count];
    if (pipe2(g->fds, O_CLOEXEC) < 0)
        CT_FAIL("pipe: %s", strerror(errno));
    g->entered = 0;
    g->released = 0;
    g->done = 0;
    st.gate_count++;
    CT_OK(aclrtLaunchHostFunc(stream, gate_body, g));
    return g;
}

uint64_t gate_release(struct gate *g)
{
    uint64_t t = now_ns();
    if (!__atomic_exchange_n(&g->released, 1, __ATOMIC_SEQ_CST)) {
        if (write(g->fds[1], "x", 1) != 1)
            CT_FAIL("gate write: %s", strerror(errno));
    }
    return t;
}

int gate_entered(struct gate *g)
{
    return __atomic_load_n(&g->entered, __ATOMIC_SEQ_CST);
}

void gate_await_entered(struct gate *g)
{
    uint64_t deadline = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (!gate_entered(g)) {
        if (now_ns() > deadline)
            CT_FAIL("the gate's host function never started (the stream did not run it)");
        sleep_ms(1);
    }
}

static void stamp_body(void *arg)
{
    struct stamp *s = arg;
    __atomic_store_n(&s->ns, now_ns(), __ATOMIC_SEQ_CST);
}

void stamp_launch(aclrtStream stream, struct stamp *s)
{
    __atomic_store_n(&s->ns, 0, __ATOMIC_SEQ_CST);
    CT_OK(aclrtLaunchHostFunc(stream, stamp_body, s));
}

uint64_t stamp_read(struct stamp *s)
{
    return __atomic_load_n(&s->ns, __ATOMIC_SEQ_CST);
}

/* ------------------------------------------------------------ case set-up */

/* A case starts from the documented defaults whatever the caller's shell
 * exports (helpers get exactly the environment their case gives them). */
void ct_before_case(void)
{
    unsetenv("ACL_STUB_DEVICE_COUNT");
    unsetenv("ACL_STUB_TRACE");
    unsetenv("ACL_STUB_TEST_DIE_IN_LOCK");
}

/* 1 while thread tid of this process sleeps in a futex syscall. */
int thread_sleeps_in_futex(pid_t tid)
{
    char path[64], text[128] = {0};
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    long nr = n > 0 ? strtol(text, NULL, 10) : -1;
#ifdef SYS_futex_waitv
    if (nr == SYS_futex_waitv)
        return 1;
#endif
    return nr == SYS_futex;
}
