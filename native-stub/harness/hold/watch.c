/*
 * watch.c - the native watchdog thread of a device process (watch.h).
 *
 * Replaces a JavaScript worker thread (10-12 MiB of RSS per process): the
 * same two duties, a parent check and hang-report answers, from one small
 * pthread. Everything it touches is either its own (the configuration, set
 * once before the thread starts; the answer buffer) or written by others
 * with a protocol: the call records (seqlock) and the library path (mutex).
 */
#include "watch.h"

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <limits.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define HOLD_EXPORT __attribute__((visibility("default")))

#define RECORD_SLOTS (1 + CANNHARNESS_THREAD_RECORDS)
#define ROLE_CAP 256
#define REQUEST_CAP 256
/* <dir>/hang/<role>.<pid>.json */
#define ANSWER_PATH_CAP (PATH_MAX + ROLE_CAP + 64)
/* Seqlock copy attempts before a record is reported as null (as the JS did). */
#define COPY_ATTEMPTS 100
#define LIVE_VIEW_FIRST_BYTES (64 * 1024)
#define LIVE_VIEW_MAX_BYTES (16 * 1024 * 1024)
/* How long an orphan waits for each shared object's lock before it dies anyway. */
#define RELEASE_LOCK_MS 200

_Static_assert(CANNHARNESS_CALL_RECORD_BYTES % 8 == 0, "records are copied in 8-byte words");
static _Alignas(8) unsigned char records[RECORD_SLOTS][CANNHARNESS_CALL_RECORD_BYTES];

/* Written before the thread starts (pthread_create orders it), read-only after. */
static struct {
    pid_t expected_ppid;
    int keep;
    char dir[PATH_MAX];
    char role[ROLE_CAP];
} cfg;

static pthread_mutex_t state_lock = PTHREAD_MUTEX_INITIALIZER;
static int started;           /* under state_lock */
static char library[PATH_MAX]; /* under state_lock; "" until set */

/* ---- fault injection (tests only; native-stub/README.md) ----
 * CANNHARNESS_WATCH_FAULT=<point>[:<nth>][,...], read by cannharness_watch_start:
 * <point> fails on its nth use only (1-based), or on every use without
 * <nth>, so that each error path below runs on purpose. */
enum fault_point {
    FAULT_THREAD,        /* pthread_create of the watchdog thread: EAGAIN */
    FAULT_TEXT_ALLOC,    /* growing the answer's text: out of memory */
    FAULT_VIEW_ALLOC,    /* the live view's buffer: out of memory */
    FAULT_VIEW_LOCK,     /* cannstub_live_view gave up on the runtime lock (-2) */
    FAULT_VIEW_HUGE,     /* the live view does not fit even 16 MiB */
    FAULT_ANSWER_OPEN,   /* creating the answer's temp file: EACCES */
    FAULT_ANSWER_WRITE,  /* writing it: ENOSPC */
    FAULT_ANSWER_RENAME, /* renaming it into place: EACCES */
    FAULT_POINTS
};
static const char *const fault_names[FAULT_POINTS] = {"thread",    "text-alloc",  "view-alloc",   "view-lock",
                                                      "view-huge", "answer-open", "answer-write", "answer-rename"};
/* Set before the thread starts; uses counted by the one thread that meets each point. */
static struct {
    int armed;
    long nth; /* 0: every use */
    long uses;
} faults[FAULT_POINTS];
static int faults_configured; /* under state_lock */

/* Parses CANNHARNESS_WATCH_FAULT; -EINVAL for a point or count it does not know. */
static int configure_faults(void)
{
    const char *spec = getenv("CANNHARNESS_WATCH_FAULT");
    memset(faults, 0, sizeof faults);
    while (spec && *spec) {
        size_t len = strcspn(spec, ",");
        size_t name_len = strcspn(spec, ",:");
        int point = -1;
        for (int i = 0; i < FAULT_POINTS; i++)
            if (strlen(fault_names[i]) == name_len && strncmp(spec, fault_names[i], name_len) == 0)
                point = i;
        if (point < 0)
            return -EINVAL;
        faults[point].armed = 1;
        if (name_len < len) {
            char *end = NULL;
            faults[point].nth = strtol(spec + name_len + 1, &end, 10);
            if (end != spec + len || faults[point].nth <= 0)
                return -EINVAL;
        }
        spec += len + (spec[len] == ',');
    }
    return 0;
}

/* 1 when this use of point must fail. */
static int fault(enum fault_point point)
{
    if (!faults[point].armed)
        return 0;
    long use = ++faults[point].uses;
    return faults[point].nth == 0 || faults[point].nth == use;
}

HOLD_EXPORT void *cannharness_call_records(void)
{
    return records;
}

HOLD_EXPORT size_t cannharness_call_records_bytes(void)
{
    return sizeof records;
}

HOLD_EXPORT int cannharness_watch_set_library(const char *path)
{
    if (!path)
        return -EINVAL;
    if (strlen(path) >= sizeof library)
        return -ENAMETOOLONG;
    pthread_mutex_lock(&state_lock);
    strcpy(library, path);
    pthread_mutex_unlock(&state_lock);
    return 0;
}

/* ---- parent death ---- */

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)type;
    (void)ftw;
    remove(path); /* a sibling may remove it at the same moment: keep going */
    return 0;
}

typedef int (*release_fn)(int timeout_ms);

/* The stub's shared objects (cannstub/release.h): left before we die, so
 * that the last process out unlinks each one instead of leaving it in
 * /dev/shm until some later aclInit. A library without the call (real
 * CANN) cleans up after its processes itself. */
static void release_shared_objects(const char *file)
{
    if (!file[0])
        return;
    void *lib = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!lib)
        return;
    release_fn release = (release_fn)(uintptr_t)dlsym(lib, "cannstub_release_shared");
    if (release)
        release(RELEASE_LOCK_MS);
    dlclose(lib);
}

/* file: the ACL library this process loaded ("" if none), copied by the
 * caller (which may hold state_lock). */
static void die_orphaned(const char *file)
{
    if (cfg.dir[0] && !cfg.keep)
        nftw(cfg.dir, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
    release_shared_objects(file);
    pid_t self = getpid();
    kill(-self, SIGKILL); /* we lead our group (forked detached); fails harmlessly if we do not */
    kill(self, SIGKILL);
}

/* ---- the answer's text ---- */

struct text {
    char *data;
    size_t len, cap;
    int failed; /* out of memory: the answer is dropped */
};

static void text_add(struct text *t, const char *s, size_t n)
{
    if (t->failed)
        return;
    if (t->len + n + 1 > t->cap) {
        size_t cap = t->cap ? t->cap : 4096;
        while (t->len + n + 1 > cap)
            cap *= 2;
        char *grown = fault(FAULT_TEXT_ALLOC) ? NULL : realloc(t->data, cap);
        if (!grown) {
            t->failed = 1;
            return;
        }
        t->data = grown;
        t->cap = cap;
    }
    memcpy(t->data + t->len, s, n);
    t->len += n;
    t->data[t->len] = '\0';
}

static void text_str(struct text *t, const char *s)
{
    text_add(t, s, strlen(s));
}

static void text_int(struct text *t, long long v)
{
    char num[32];
    int n = snprintf(num, sizeof num, "%lld", v);
    text_add(t, num, (size_t)n);
}

/* A JSON string: quotes, backslashes and control characters escaped; other
 * bytes (UTF-8) as they are. */
static void text_json_string(struct text *t, const char *s, size_t n)
{
    static const char hex[] = "0123456789abcdef";
    text_add(t, "\"", 1);
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)s[i];
        if (c == '"' || c == '\\') {
            char esc[2] = {'\\', (char)c};
            text_add(t, esc, 2);
        } else if (c == '\n') {
            text_add(t, "\\n", 2);
        } else if (c == '\t') {
            text_add(t, "\\t", 2);
        } else if (c < 0x20 || c == 0x7f) {
            char esc[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
            text_add(t, esc, 6);
        } else {
            text_add(t, (const char *)&s[i], 1);
        }
    }
    text_add(t, "\"", 1);
}

static void text_base64(struct text *t, const unsigned char *b, size_t n)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    text_add(t, "\"", 1);
    for (size_t i = 0; i < n; i += 3) {
        uint32_t v = (uint32_t)b[i] << 16;
        if (i + 1 < n)
            v |= (uint32_t)b[i + 1] << 8;
        if (i + 2 < n)
            v |= b[i + 2];
        char quad[4] = {abc[v >> 18], abc[(v >> 12) & 63], i + 1 < n ? abc[(v >> 6) & 63] : '=',
                        i + 2 < n ? abc[v & 63] : '='};
        text_add(t, quad, 4);
    }
    text_add(t, "\"", 1);
}

/* ---- what the answer holds ---- */

static int32_t record_word(const unsigned char *rec, int word)
{
    return __atomic_load_n((const int32_t *)(const void *)rec + word, __ATOMIC_ACQUIRE);
}

/* A consistent copy of one record (seqlock: word 0 even and unchanged), as
 * base64, or null when writers kept it busy. */
static void text_record(struct text *t, const unsigned char *rec)
{
    unsigned char copy[CANNHARNESS_CALL_RECORD_BYTES];
    for (int i = 0; i < COPY_ATTEMPTS; i++) {
        int32_t seq = record_word(rec, 0);
        if (seq % 2 != 0)
            continue;
        /* Acquire loads, word by word: the re-read of seq below cannot move before them (no
         * fence: TSan does not model fences). */
        const uint64_t *from = (const uint64_t *)(const void *)rec;
        for (size_t w = 0; w < sizeof copy / 8; w++) {
            uint64_t v = __atomic_load_n(&from[w], __ATOMIC_ACQUIRE);
            memcpy(copy + w * 8, &v, 8);
        }
        if (record_word(rec, 0) == seq) {
            text_base64(t, copy, sizeof copy);
            return;
        }
    }
    text_str(t, "null");
}

/* Worker threads' slots that were ever written or hold latches. */
static void text_thread_records(struct text *t)
{
    int first = 1;
    text_str(t, "[");
    for (int thread = 0; thread < CANNHARNESS_THREAD_RECORDS; thread++) {
        const unsigned char *rec = records[1 + thread];
        if (record_word(rec, 0) == 0 && record_word(rec, 3) == 0)
            continue;
        text_str(t, first ? "{\"thread\":" : ",{\"thread\":");
        first = 0;
        text_int(t, thread);
        text_str(t, ",\"record\":");
        text_record(t, rec);
        text_str(t, "}");
    }
    text_str(t, "]");
}

/* Reads at most cap - 1 bytes of a small file; returns the length, -1 on error. */
static ssize_t read_small_file(const char *path, char *buf, size_t cap)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    buf[n < 0 ? 0 : n] = '\0';
    return n;
}

/* One entry per thread of this process: tid, comm, state, wchan (/proc). */
static void text_threads(struct text *t)
{
    int first = 1;
    text_str(t, "[");
    DIR *tasks = opendir("/proc/self/task");
    struct dirent *e;
    while (tasks && (e = readdir(tasks)) != NULL) {
        char path[64], stat[512], wchan[128];
        if (e->d_name[0] < '0' || e->d_name[0] > '9')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/stat", e->d_name);
        if (read_small_file(path, stat, sizeof stat) <= 0)
            continue; /* the thread ended meanwhile */
        /* "tid (comm) S ...": comm may hold spaces and parentheses, so the last ')' ends it. */
        char *open_paren = strchr(stat, '(');
        char *close_paren = strrchr(stat, ')');
        if (!open_paren || !close_paren || close_paren < open_paren || close_paren[1] == '\0')
            continue;
        snprintf(path, sizeof path, "/proc/self/task/%.20s/wchan", e->d_name);
        if (read_small_file(path, wchan, sizeof wchan) < 0)
            wchan[0] = '\0';
        text_str(t, first ? "{\"tid\":" : ",{\"tid\":");
        first = 0;
        text_str(t, e->d_name);
        text_str(t, ",\"comm\":");
        text_json_string(t, open_paren + 1, (size_t)(close_paren - open_paren - 1));
        text_str(t, ",\"state\":");
        text_json_string(t, close_paren + 2, 1);
        text_str(t, ",\"wchan\":");
        text_json_string(t, wchan, strlen(wchan));
        text_str(t, "}");
    }
    if (tasks)
        closedir(tasks);
    text_str(t, "]");
}

typedef int (*live_view_fn)(char *buf, size_t len);

static void text_unavailable(struct text *t, const char *reason)
{
    text_str(t, "{\"unavailable\":");
    text_json_string(t, reason, strlen(reason));
    text_str(t, "}");
}

/* The stub's live view of our streams: {"json": ...} or {"unavailable": why}. */
static void text_live_view(struct text *t)
{
    char file[PATH_MAX], reason[PATH_MAX + 128];
    pthread_mutex_lock(&state_lock);
    strcpy(file, library);
    pthread_mutex_unlock(&state_lock);
    if (!file[0]) {
        text_unavailable(t, "this process has not loaded an ACL library (yet)");
        return;
    }
    /* RTLD_NOLOAD: only the library the binding loaded, never a second copy. */
    void *lib = dlopen(file, RTLD_LAZY | RTLD_NOLOAD);
    if (!lib) {
        snprintf(reason, sizeof reason, "%s is not loaded in this process", file);
        text_unavailable(t, reason);
        return;
    }
    live_view_fn view = (live_view_fn)(uintptr_t)dlsym(lib, "cannstub_live_view");
    if (!view) {
        snprintf(reason, sizeof reason, "%s has no cannstub_live_view (a stub-only call; real CANN has none)", file);
        text_unavailable(t, reason);
        dlclose(lib);
        return;
    }
    char *buf = NULL;
    int n = -1, out_of_memory = 0, fits = 0;
    size_t size = LIVE_VIEW_FIRST_BYTES;
    for (; size <= LIVE_VIEW_MAX_BYTES; size *= 4) {
        char *grown = fault(FAULT_VIEW_ALLOC) ? NULL : realloc(buf, size);
        if (!grown) {
            out_of_memory = 1;
            break;
        }
        buf = grown;
        n = fault(FAULT_VIEW_LOCK) ? -2 : view(buf, size);
        if (n >= 0 && fault(FAULT_VIEW_HUGE))
            n = (int)size; /* as a view that did not fit */
        if (n < 0)
            break;
        if ((size_t)n < size) {
            fits = 1;
            break;
        }
    }
    if (out_of_memory)
        text_unavailable(t, "memory ran out for the live view");
    else if (n == -2)
        text_unavailable(t, "the stub runtime lock stayed held (cannstub_live_view gave up)");
    else if (n < 0)
        text_unavailable(t, "cannstub_live_view failed");
    else if (!fits) /* (size has grown past the last try here: n is never compared with it) */
        text_unavailable(t, "the live view is larger than 16 MiB");
    else {
        text_str(t, "{\"json\":");
        text_json_string(t, buf, (size_t)n);
        text_str(t, "}");
    }
    free(buf);
    dlclose(lib);
}

/* ---- hang requests ---- */

/* Writes path through path.tmp, renamed into place. The temp name is made
 * afresh and exclusively, never through a link someone left there (the
 * scenario directory is writable by role code); on any failure it is
 * removed, so a failed answer leaves nothing behind. */
static int write_file_atomically(const char *path, const char *data, size_t len)
{
    char tmp[ANSWER_PATH_CAP + 8];
    snprintf(tmp, sizeof tmp, "%s.tmp", path);
    unlink(tmp); /* a leftover (or a planted link): removed, not followed */
    int fd = -1;
    if (fault(FAULT_ANSWER_OPEN))
        errno = EACCES;
    else
        fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return -1;
    size_t done = 0;
    while (done < len) {
        ssize_t n = fault(FAULT_ANSWER_WRITE) ? (errno = ENOSPC, -1) : write(fd, data + done, len - done);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        done += (size_t)n;
    }
    int rc = -1;
    if (close(fd) == 0 && done == len)
        rc = fault(FAULT_ANSWER_RENAME) ? (errno = EACCES, -1) : rename(tmp, path);
    if (rc != 0)
        unlink(tmp);
    return rc;
}

static char served[REQUEST_CAP]; /* the watchdog thread's own */

static void serve_hang_request(void)
{
    char path[ANSWER_PATH_CAP], id[REQUEST_CAP];
    struct text t = {0};
    snprintf(path, sizeof path, "%s/hang/request", cfg.dir);
    ssize_t n = read_small_file(path, id, sizeof id);
    if (n < 0 || strcmp(id, served) == 0)
        return;
    strcpy(served, id);
    text_str(&t, "{\"request\":");
    text_json_string(&t, id, (size_t)n);
    text_str(&t, ",\"role\":");
    text_json_string(&t, cfg.role, strlen(cfg.role));
    text_str(&t, ",\"pid\":");
    text_int(&t, getpid());
    text_str(&t, ",\"record\":");
    text_record(&t, records[0]);
    text_str(&t, ",\"threadRecords\":");
    text_thread_records(&t);
    text_str(&t, ",\"threads\":");
    text_threads(&t);
    text_str(&t, ",\"live\":");
    text_live_view(&t);
    text_str(&t, "}");
    if (!t.failed) {
        snprintf(path, sizeof path, "%s/hang/%s.%d.json", cfg.dir, cfg.role, (int)getpid());
        write_file_atomically(path, t.data, t.len); /* best effort: the parent reports a missing answer */
    }
    free(t.data);
}

/* ---- the thread ---- */

static void *watch_main(void *arg)
{
    (void)arg;
    struct timespec poll = {0, CANNHARNESS_WATCH_POLL_MS * 1000000L};
    for (;;) {
        if (getppid() != cfg.expected_ppid) {
            char file[PATH_MAX];
            pthread_mutex_lock(&state_lock);
            strcpy(file, library);
            pthread_mutex_unlock(&state_lock);
            die_orphaned(file);
        }
        if (cfg.dir[0] && cfg.role[0])
            serve_hang_request();
        nanosleep(&poll, NULL);
    }
    return NULL;
}

HOLD_EXPORT int cannharness_watch_start(int expected_ppid, const char *dir, int keep, const char *role)
{
    int rc = 0;
    pthread_t thread;
    pthread_attr_t attr;
    sigset_t all, old;
    if (expected_ppid <= 0 || (dir && !dir[0]) || (role && !role[0]))
        return -EINVAL;
    if ((dir && strlen(dir) >= sizeof cfg.dir) || (role && strlen(role) >= sizeof cfg.role))
        return -ENAMETOOLONG;
    pthread_mutex_lock(&state_lock);
    if (started) {
        rc = -EALREADY;
        goto out;
    }
    if (!faults_configured) { /* once: a start that failed on purpose keeps its counts */
        rc = configure_faults();
        if (rc != 0)
            goto out;
        faults_configured = 1;
    }
    cfg.expected_ppid = expected_ppid;
    cfg.keep = keep;
    strcpy(cfg.dir, dir ? dir : "");
    strcpy(cfg.role, role ? role : "");
    /* The parent may have died while we were starting: then getppid() never changes again. */
    if (getppid() != expected_ppid)
        die_orphaned(library); /* state_lock is ours */
    pthread_attr_init(&attr);
    pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
    pthread_attr_setstacksize(&attr, 256 * 1024);
    /* The thread inherits this mask: every signal stays with the process's other threads. */
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    rc = fault(FAULT_THREAD) ? -EAGAIN : -pthread_create(&thread, &attr, watch_main, NULL);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc == 0) {
        pthread_setname_np(thread, "harness-watch");
        started = 1;
    }
out:
    pthread_mutex_unlock(&state_lock);
    return rc;
}
