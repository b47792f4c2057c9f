/*
 * platform_linux.c - Linux implementation of platform.h.
 */
#include "platform.h"
#include "sync.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <linux/futex.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

uint64_t plat_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The trace names its process and thread on every line: both are cached,
 * since each is a system call (and a costly one in a VM). A forked child
 * forgets them (its pid and its one thread's id are new). */
static _Thread_local uint64_t cached_tid;
static int cached_pid;
static pthread_once_t forget_ids_once = PTHREAD_ONCE_INIT;

static void forget_ids_in_child(void)
{
    cached_tid = 0;
    __atomic_store_n(&cached_pid, 0, __ATOMIC_RELAXED);
}

static void forget_ids_at_fork(void)
{
    pthread_atfork(NULL, NULL, forget_ids_in_child);
}

uint64_t plat_thread_id(void)
{
    if (!cached_tid) {
        pthread_once(&forget_ids_once, forget_ids_at_fork);
        cached_tid = (uint64_t)syscall(SYS_gettid);
    }
    return cached_tid;
}

int plat_process_id(void)
{
    int pid = __atomic_load_n(&cached_pid, __ATOMIC_RELAXED);
    if (!pid) {
        pthread_once(&forget_ids_once, forget_ids_at_fork);
        pid = (int)getpid();
        __atomic_store_n(&cached_pid, pid, __ATOMIC_RELAXED);
    }
    return pid;
}

/* Set once futex_waitv (Linux 5.16+) turned out to be unavailable: missing
 * kernel support, or refused by a seccomp filter. */
static int waitv_unavailable;

/* Sleeps on both words at once with futex_waitv: a cancel can never slip in
 * between the caller's check and the sleep. Returns 0 when the syscall is
 * unavailable. */
static int wait_on_two_words(uint32_t *word, uint32_t expected, const uint32_t *cancel, uint32_t cancel_expected,
                             uint64_t deadline_ns)
{
#ifdef SYS_futex_waitv
    if (__atomic_load_n(&waitv_unavailable, __ATOMIC_RELAXED))
        return 0;
    /* the shared word without FUTEX_PRIVATE_FLAG: the kernel keys it on the
     * shared page, so waiters and wakers in different processes meet */
    struct futex_waitv waiters[2] = {
        {.val = expected, .uaddr = (uintptr_t)word, .flags = FUTEX_32},
        {.val = cancel_expected, .uaddr = (uintptr_t)cancel, .flags = FUTEX_32 | FUTEX_PRIVATE_FLAG},
    };
    struct timespec ts, *tsp = NULL;
    if (deadline_ns) {
        ts.tv_sec = (time_t)(deadline_ns / 1000000000ull);
        ts.tv_nsec = (long)(deadline_ns % 1000000000ull);
        tsp = &ts;
    }
    if (syscall(SYS_futex_waitv, waiters, 2, 0, tsp, CLOCK_MONOTONIC) >= 0 || errno == EAGAIN || errno == ETIMEDOUT ||
        errno == EINTR)
        return 1;
    __atomic_store_n(&waitv_unavailable, 1, __ATOMIC_RELAXED);
#else
    (void)word, (void)expected, (void)cancel, (void)cancel_expected, (void)deadline_ns;
#endif
    return 0;
}

void plat_wait_on_word_or_cancel(uint32_t *word, uint32_t expected, const uint32_t *cancel, uint32_t cancel_expected,
                                 uint64_t deadline_ns)
{
    if (wait_on_two_words(word, expected, cancel, cancel_expected, deadline_ns))
        return;
    /* fallback: sleep on the shared word alone, at most PLAT_CANCEL_RECHECK_NS */
    uint64_t sleep_ns = PLAT_CANCEL_RECHECK_NS;
    if (deadline_ns) {
        uint64_t now = plat_monotonic_ns();
        if (now >= deadline_ns)
            return;
        if (deadline_ns - now < sleep_ns)
            sleep_ns = deadline_ns - now;
    }
    struct timespec ts = {(time_t)(sleep_ns / 1000000000ull), (long)(sleep_ns % 1000000000ull)};
    syscall(SYS_futex, word, FUTEX_WAIT, expected, &ts, NULL, 0);
}

void plat_wake_word(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void plat_wake_local_word(uint32_t *word)
{
    syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

_Static_assert(sizeof(pthread_mutex_t) == PLAT_SHARED_LOCK_BYTES,
               "PLAT_SHARED_LOCK_BYTES (platform_linux.h) must be sizeof(pthread_mutex_t)");
_Static_assert(_Alignof(pthread_mutex_t) <= _Alignof(struct plat_shared_lock),
               "struct plat_shared_lock is less aligned than pthread_mutex_t");

static pthread_mutex_t *shared_mutex(struct plat_shared_lock *lock)
{
    return (pthread_mutex_t *)(void *)lock->opaque;
}

int plat_shared_lock_init(struct plat_shared_lock *lock)
{
    pthread_mutexattr_t attr;
    int rc = pthread_mutexattr_init(&attr);
    if (rc == 0)
        rc = pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
    if (rc == 0)
        rc = pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
    if (rc == 0)
        rc = pthread_mutex_init(shared_mutex(lock), &attr);
    pthread_mutexattr_destroy(&attr);
    return rc;
}

int plat_shared_lock_lock(struct plat_shared_lock *lock)
{
    int rc = pthread_mutex_lock(shared_mutex(lock));
    if (rc == 0)
        return 0;
    if (rc == EOWNERDEAD)
        return 1;
    if (rc == ENOTRECOVERABLE)
        return -1;
    sync_fatal("pthread_mutex_lock (shared)", rc, __FILE__, __LINE__);
}

void plat_shared_lock_mark_consistent(struct plat_shared_lock *lock)
{
    SYNC_CHECKED("pthread_mutex_consistent", pthread_mutex_consistent(shared_mutex(lock)));
}

void plat_shared_lock_unlock(struct plat_shared_lock *lock)
{
    SYNC_CHECKED("pthread_mutex_unlock (shared)", pthread_mutex_unlock(shared_mutex(lock)));
}

/* The mutex type word glibc keeps in a mutex (__data.__kind): robust and
 * process-shared flags. Anything else in a lock we did not make means its
 * bytes are not a lock of ours, and glibc may abort on them. */
static int expected_kind(void)
{
    pthread_mutex_t probe;
    struct plat_shared_lock *as_lock = (struct plat_shared_lock *)(void *)&probe;
    if (plat_shared_lock_init(as_lock) != 0)
        return -1;
    int kind = probe.__data.__kind;
    pthread_mutex_destroy(&probe);
    return kind;
}

int plat_shared_lock_lock_foreign(struct plat_shared_lock *lock, int timeout_ms, const char **why)
{
    pthread_mutex_t *m = shared_mutex(lock);
    int kind = __atomic_load_n(&m->__data.__kind, __ATOMIC_RELAXED);
    if (kind != expected_kind()) {
        *why = "its lock's bytes are not a robust process-shared mutex (garbled)";
        return -1;
    }
    /* Polled with trylock rather than pthread_mutex_timedlock: holders keep
     * it for microseconds, and ThreadSanitizer does not see a timedlock that
     * returns EOWNERDEAD as taken (its later unlock would be reported). */
    uint64_t deadline = plat_monotonic_ns() + (uint64_t)(timeout_ms < 0 ? 0 : timeout_ms) * 1000000ull;
    for (;;) {
        int rc = pthread_mutex_trylock(m);
        if (rc == 0)
            return 0;
        if (rc == EOWNERDEAD)
            return 1;
        if (rc == ENOTRECOVERABLE) {
            *why = "its lock is unrecoverable";
            return -1;
        }
        if (rc != EBUSY) {
            *why = "its lock's state is invalid (garbled)";
            return -1;
        }
        if (plat_monotonic_ns() >= deadline) {
            *why = "its lock stayed held for the whole wait (by a live process, or a stopped one)";
            return -1;
        }
        struct timespec pause = {0, 1000000};
        nanosleep(&pause, NULL);
    }
}

int plat_cond_init_monotonic(pthread_cond_t *cv)
{
    pthread_condattr_t attr;
    int rc = pthread_condattr_init(&attr);
    if (rc == 0)
        rc = pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    if (rc == 0)
        rc = pthread_cond_init(cv, &attr);
    pthread_condattr_destroy(&attr);
    return rc;
}

void plat_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *m, uint64_t deadline_ns)
{
    struct timespec ts = {(time_t)(deadline_ns / 1000000000ull), (long)(deadline_ns % 1000000000ull)};
    int rc = pthread_cond_timedwait(cv, m, &ts);
    if (rc != 0 && rc != ETIMEDOUT)
        sync_fatal("pthread_cond_timedwait", rc, __FILE__, __LINE__);
}

int plat_mutex_lock_timeout(pthread_mutex_t *m, int timeout_ms)
{
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    ts.tv_sec += timeout_ms / 1000;
    ts.tv_nsec += (long)(timeout_ms % 1000) * 1000000l;
    if (ts.tv_nsec >= 1000000000l) {
        ts.tv_sec++;
        ts.tv_nsec -= 1000000000l;
    }
    return pthread_mutex_timedlock(m, &ts);
}

/* Field 22 of /proc/<pid>/stat: start time in clock ticks since boot. The
 * command name (field 2) may contain spaces and parentheses, so parse from
 * the last ')'. Returns 0 when unreadable. */
/* Reads /proc/<pid>/stat once: the state letter (field 3) into *state and
 * the start time (field 22) as the result; 0 when unreadable. */
static uint64_t read_stat(int32_t pid, char *state)
{
    char path[64], buf[1024];
    *state = '?';
    snprintf(path, sizeof path, "/proc/%d/stat", (int)pid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    char *p = strrchr(buf, ')');
    if (!p)
        return 0;
    p++;
    if (p[0] == ' ' && p[1] != '\0')
        *state = p[1];
    /* after ')' come fields 3..; skip 19 fields to reach field 22 */
    for (int field = 3; field < 22 && p; field++) {
        p = strchr(p + 1, ' ');
    }
    if (!p)
        return 0;
    return strtoull(p + 1, NULL, 10);
}

/* This process's start time, read from /proc once per pid (a forked child
 * reads its own): every shared object's create, open and leave asks for it.
 * The time is stored before the pid, so a reader that sees its pid sees its
 * time; threads that race to fill it store the same values. */
static uint64_t self_start_time;
static int32_t self_start_pid;

void plat_self_process_id(struct plat_process_id *out)
{
    int32_t pid = (int32_t)plat_process_id(); /* cached: a system call each time otherwise */
    out->pid = pid;
    out->reserved = 0;
    if (__atomic_load_n(&self_start_pid, __ATOMIC_ACQUIRE) == pid) {
        out->start_time = __atomic_load_n(&self_start_time, __ATOMIC_RELAXED);
        return;
    }
    char state;
    out->start_time = read_stat(pid, &state);
    if (out->start_time != 0) {
        __atomic_store_n(&self_start_time, out->start_time, __ATOMIC_RELAXED);
        __atomic_store_n(&self_start_pid, pid, __ATOMIC_RELEASE);
    }
}

/* Liveness through pidfds (Linux 5.3+): a pidfd names one process, so a reused pid cannot fool
 * it, and poll() finds it readable once that process has exited (a zombie included). A check is
 * then one poll() instead of kill() and an open, read and close of /proc/<pid>/stat: each IPC
 * event open and close asks, 24 system calls a soak round of 4 processes (issue #35). The pidfds
 * of the last few peers are kept, guarded by a lock that a check only tries (a child forked while
 * another thread held it, or a busy moment, takes the slow path) and dropped at aclFinalize. */
#define PEER_PIDFDS 8

struct peer_pidfd {
    int32_t pid;
    int fd;
    uint64_t start_time;
    uint64_t last_use;
};

static pthread_mutex_t peers_lock = PTHREAD_MUTEX_INITIALIZER;
static struct peer_pidfd peers[PEER_PIDFDS];
static int peers_owner; /* the pid whose descriptors these are: a forked child drops its copies */
static uint64_t peers_clock;

static void forget_peers_locked(void)
{
    for (int i = 0; i < PEER_PIDFDS; i++) {
        if (peers[i].pid > 0)
            close(peers[i].fd);
        peers[i].pid = 0;
    }
    peers_owner = plat_process_id();
}

void plat_forget_peers(void)
{
    pthread_mutex_lock(&peers_lock);
    forget_peers_locked();
    pthread_mutex_unlock(&peers_lock);
}

/* A new pidfd for id, checked to name the process id means (its start time), or -1 with *dead set
 * when that process is gone (-1 and *dead 0: cannot tell, use /proc). */
static int open_peer_pidfd(const struct plat_process_id *id, int *dead)
{
    *dead = 0;
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, id->pid, 0); /* close-on-exec */
    if (fd < 0) {
        *dead = errno == ESRCH;
        return -1;
    }
    /* The pidfd names whichever process has the pid now: is it the one id means, and running? */
    char state;
    uint64_t start = read_stat(id->pid, &state);
    if (start == 0 || start != id->start_time || state == 'Z' || state == 'X') {
        *dead = start != 0;
        close(fd);
        return -1;
    }
    return fd;
#else
    (void)id;
    return -1;
#endif
}

/* 1 alive, 0 gone, -1 cannot tell this way. */
static int peer_alive_by_pidfd(const struct plat_process_id *id)
{
    if (id->start_time == 0 || pthread_mutex_trylock(&peers_lock) != 0)
        return -1;
    if (peers_owner != plat_process_id()) {
        for (int i = 0; i < PEER_PIDFDS; i++) { /* a forked child: its inherited copies go */
            if (peers[i].pid > 0 && peers_owner != 0)
                close(peers[i].fd);
            peers[i].pid = 0;
        }
        peers_owner = plat_process_id();
    }
    struct peer_pidfd *slot = NULL, *oldest = &peers[0];
    for (int i = 0; i < PEER_PIDFDS && !slot; i++) {
        if (peers[i].pid == id->pid && peers[i].start_time == id->start_time)
            slot = &peers[i];
        else if (peers[i].pid == 0 || (oldest->pid != 0 && peers[i].last_use < oldest->last_use))
            oldest = &peers[i];
    }
    int result = -1;
    if (!slot) {
        int dead;
        int fd = open_peer_pidfd(id, &dead);
        if (fd < 0) {
            pthread_mutex_unlock(&peers_lock);
            return dead ? 0 : -1;
        }
        if (oldest->pid > 0)
            close(oldest->fd);
        *oldest = (struct peer_pidfd){.pid = id->pid, .fd = fd, .start_time = id->start_time};
        slot = oldest;
    }
    slot->last_use = ++peers_clock;
    struct pollfd p = {.fd = slot->fd, .events = POLLIN};
    int n = poll(&p, 1, 0);
    if (n >= 0)
        result = n == 0; /* readable: the process has exited */
    if (result == 0) {
        close(slot->fd);
        slot->pid = 0;
    }
    pthread_mutex_unlock(&peers_lock);
    return result;
}

int plat_process_alive(const struct plat_process_id *id)
{
    if (id->pid <= 0)
        return 0;
    struct plat_process_id self;
    plat_self_process_id(&self);
    if (id->pid == self.pid && id->start_time == self.start_time && self.start_time != 0)
        return 1; /* we are running */
    int by_pidfd = peer_alive_by_pidfd(id);
    if (by_pidfd >= 0)
        return by_pidfd;
    if (kill(id->pid, 0) != 0 && errno == ESRCH)
        return 0;
    char state;
    uint64_t start = read_stat(id->pid, &state);
    if (start == 0) {
        /* /proc unreadable: a zombie or a hidden /proc. Trust kill(). */
        char path[64];
        snprintf(path, sizeof path, "/proc/%d", (int)id->pid);
        return access(path, F_OK) == 0 || errno != ENOENT;
    }
    if (id->start_time != 0 && start != id->start_time)
        return 0; /* the pid was reused by another process */
    /* a zombie has exited: it no longer uses anything */
    return state != 'Z' && state != 'X';
}

void plat_self_object_path(char *out, size_t cap)
{
    Dl_info info;
    snprintf(out, cap, "%s", dladdr((void *)plat_self_object_path, &info) && info.dli_fname ? info.dli_fname : "");
}

void plat_shm_name(char out[PLAT_SHM_NAME_MAX], const char *prefix, uint64_t id, const char *scope)
{
    snprintf(out, PLAT_SHM_NAME_MAX, "/%s%016llx%s%s", prefix, (unsigned long long)id, *scope ? "." : "", scope);
}

static void note_file(const struct stat *st, struct plat_shm_file *file)
{
    if (file) {
        file->dev = (uint64_t)st->st_dev;
        file->ino = (uint64_t)st->st_ino;
    }
}

void *plat_shm_create(const char *name, size_t size, const struct plat_range *reserve, int nreserve,
                      struct plat_shm_file *file)
{
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    /* The reserved ranges are allocated now, not at the first access: on a full tmpfs ftruncate
     * succeeds (the file is sparse) and the first store into the mapping dies by SIGBUS;
     * posix_fallocate answers ENOSPC. The rest stays a hole until plat_shm_reserve. Ranges first,
     * in order (each extends the size past its pages only once they exist), then the size: a
     * reclaim that finds the creator dead mid-create never reads a header that is a hole. */
    struct stat st;
    int rc = 0;
    for (int i = 0; rc == 0 && i < nreserve; i++)
        rc = posix_fallocate(fd, (off_t)reserve[i].offset, (off_t)reserve[i].len);
    if (rc == 0 && ftruncate(fd, (off_t)size) != 0)
        rc = errno;
    if (rc == 0 && fstat(fd, &st) != 0)
        rc = errno;
    if (rc != 0) {
        close(fd);
        shm_unlink(name);
        errno = rc;
        return NULL;
    }
    note_file(&st, file);
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int saved = errno;
    close(fd);
    if (p == MAP_FAILED) {
        shm_unlink(name);
        errno = saved;
        return NULL;
    }
    return p;
}

void *plat_shm_open(const char *name, size_t min_size, size_t *size_out, uint64_t *age_ns, struct plat_shm_file *file)
{
    int fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return NULL;
    }
    note_file(&st, file);
    if (age_ns) {
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int64_t age = ((int64_t)now.tv_sec - (int64_t)st.st_ctim.tv_sec) * 1000000000ll +
                      ((int64_t)now.tv_nsec - (int64_t)st.st_ctim.tv_nsec);
        *age_ns = age > 0 ? (uint64_t)age : 0;
    }
    if ((size_t)st.st_size < min_size) {
        close(fd);
        if (size_out)
            *size_out = (size_t)st.st_size;
        errno = EINVAL;
        return NULL;
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int saved = errno;
    close(fd);
    if (p == MAP_FAILED) {
        errno = saved;
        return NULL;
    }
    if (size_out)
        *size_out = (size_t)st.st_size;
    return p;
}

int plat_shm_reserve(const char *name, const struct plat_shm_file *file, size_t offset, size_t len)
{
    /* By name, not by a kept descriptor: a process may map thousands of objects, and growth is rare. */
    int fd = shm_open(name, O_RDWR | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = fstat(fd, &st) != 0 ? errno : 0;
    if (rc == 0 && (!S_ISREG(st.st_mode) || (uint64_t)st.st_dev != file->dev || (uint64_t)st.st_ino != file->ino))
        rc = ESTALE; /* the name stands for another file now: not ours to grow */
    if (rc == 0)
        rc = posix_fallocate(fd, (off_t)offset, (off_t)len);
    close(fd);
    if (rc != 0) {
        errno = rc;
        return -1;
    }
    return 0;
}

size_t plat_page_size(void)
{
    static size_t page; /* set once, to the same value by any thread */
    size_t known = __atomic_load_n(&page, __ATOMIC_RELAXED);
    if (!known) {
        long p = sysconf(_SC_PAGESIZE);
        known = p > 0 ? (size_t)p : 4096;
        __atomic_store_n(&page, known, __ATOMIC_RELAXED);
    }
    return known;
}

int plat_shm_is_own(const char *name, char *why, size_t why_len)
{
    char path[PLAT_SHM_NAME_MAX + 16];
    snprintf(path, sizeof path, "/dev/shm%s", name); /* glibc's home of POSIX shm names */
    struct stat st;
    if (lstat(path, &st) != 0)
        return -1;
    if (!S_ISREG(st.st_mode)) {
        snprintf(why, why_len, "it is not a regular file");
        return 0;
    }
    if (st.st_uid != geteuid() && (st.st_mode & 066) == 0) {
        errno = EACCES; /* another user's private object: theirs to reclaim, nothing to say */
        return -1;
    }
    if (st.st_uid != geteuid()) {
        snprintf(why, why_len, "it belongs to uid %u, not to this user (uid %u)", (unsigned)st.st_uid,
                 (unsigned)geteuid());
        return 0;
    }
    if ((st.st_mode & 077) != 0) {
        snprintf(why, why_len, "its mode %04o lets other users in (the stub creates 0600)",
                 (unsigned)(st.st_mode & 07777));
        return 0;
    }
    return 1;
}

void plat_shm_unmap(void *addr, size_t size)
{
    munmap(addr, size);
}

int plat_shm_unlink(const char *name)
{
    return shm_unlink(name);
}

/* glibc maps POSIX shm names to files in /dev/shm. */
void plat_shm_for_each(const char *prefix, void (*fn)(const char *name, void *ctx), void *ctx)
{
    DIR *dir = opendir("/dev/shm");
    if (!dir)
        return;
    size_t plen = strlen(prefix);
    struct dirent *de;
    char name[PLAT_SHM_NAME_MAX + 2];
    while ((de = readdir(dir)) != NULL) {
        if (strncmp(de->d_name, prefix, plen) != 0)
            continue;
        size_t len = strlen(de->d_name);
        if (len + 2 > sizeof name)
            continue;
        name[0] = '/';
        memcpy(name + 1, de->d_name, len + 1);
        fn(name, ctx);
    }
    closedir(dir);
}

uint64_t plat_random_u64(void)
{
    uint64_t v = 0;
    if (getrandom(&v, sizeof v, 0) != (ssize_t)sizeof v) {
        /* fall back to a mix of time and pid; ids only need to be unique */
        v = plat_monotonic_ns() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)(uintptr_t)&v;
    }
    return v;
}

/* ---- address-space reservations (VMM) ---- */

#define VM_RESERVE_FLAGS (MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE)

void *plat_vm_reserve(void *at, size_t size, size_t align)
{
    if (at) {
        void *p = mmap(at, size, PROT_NONE, VM_RESERVE_FLAGS | MAP_FIXED_NOREPLACE, -1, 0);
        if (p == MAP_FAILED)
            return NULL;
        if (p != at) { /* a kernel older than 4.17 takes the flag as a hint */
            munmap(p, size);
            errno = EEXIST;
            return NULL;
        }
        return p;
    }
    if (size > SIZE_MAX - align) {
        errno = ENOMEM;
        return NULL;
    }
    char *raw = mmap(NULL, size + align, PROT_NONE, VM_RESERVE_FLAGS, -1, 0);
    if (raw == MAP_FAILED)
        return NULL;
    char *base = (char *)(((uintptr_t)raw + align - 1) & ~(uintptr_t)(align - 1));
    if (base > raw)
        munmap(raw, (size_t)(base - raw));
    size_t tail = (size_t)(raw + size + align - (base + size));
    if (tail > 0)
        munmap(base + size, tail);
    return base;
}

int plat_vm_release(void *addr, size_t size)
{
    return munmap(addr, size);
}

int plat_vm_map_shm(void *addr, size_t size, const char *name, size_t offset)
{
    int fd = shm_open(name, O_RDWR | O_CLOEXEC, 0600);
    if (fd < 0)
        return -1;
    struct stat st;
    int rc = -1;
    if (fstat(fd, &st) != 0)
        goto out;
    /* the name was checked when this process opened the object (shm.c); what is there now must
     * still be ours, and large enough */
    if (st.st_uid != geteuid() || !S_ISREG(st.st_mode) || (size_t)st.st_size < offset ||
        (size_t)st.st_size - offset < size) {
        errno = EINVAL;
        goto out;
    }
    if (mmap(addr, size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, fd, (off_t)offset) != MAP_FAILED)
        rc = 0;
out:;
    int saved = errno;
    close(fd);
    errno = saved;
    return rc;
}

int plat_vm_unmap_shm(void *addr, size_t size)
{
    return mmap(addr, size, PROT_NONE, VM_RESERVE_FLAGS | MAP_FIXED, -1, 0) == MAP_FAILED ? -1 : 0;
}
