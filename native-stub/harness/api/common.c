/*
 * common.c - what every call of libcannharness.so shares: error codes and
 * their texts, the scenario's environment (directory, deadline), rendezvous
 * names, directories opened without following links, and the fault hook.
 */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "api.h"

API_EXPORT const char *cannharness_strerror(int code)
{
    switch (code) {
    case CANNHARNESS_OK: return "success";
#define CANNHARNESS_TEXT_CASE(name, value, text) \
    case CANNHARNESS_##name: return text;
        CANNHARNESS_ERROR_MAP(CANNHARNESS_TEXT_CASE)
#undef CANNHARNESS_TEXT_CASE
    }
    return "unknown error code";
}

API_EXPORT const char *cannharness_err_name(int code)
{
    switch (code) {
    case CANNHARNESS_OK: return "CANNHARNESS_OK";
#define CANNHARNESS_NAME_CASE(name, value, text) \
    case CANNHARNESS_##name: return "CANNHARNESS_" #name;
        CANNHARNESS_ERROR_MAP(CANNHARNESS_NAME_CASE)
#undef CANNHARNESS_NAME_CASE
    }
    return "?";
}

int api_report(int code, const char *call, const char *name, const char *fmt, ...)
{
    char why[1024];
    va_list ap;
    if (!call)
        return code; /* a quiet attempt (the caller has a fallback) */
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
    /* One fprintf: lines of concurrent threads do not interleave. */
    if (name)
        fprintf(stderr, "cannharness: %s(\"%.*s\"): %s (%s)\n", call, API_NAME_MAX, name, why,
                cannharness_err_name(code));
    else
        fprintf(stderr, "cannharness: %s: %s (%s)\n", call, why, cannharness_err_name(code));
    return code;
}

/* ---- fault injection ---- */

static const char *const fault_names[API_FAULT_POINTS] = {"mkdir",   "temp-open", "write",      "sync",       "rename",
                                                          "inotify", "read",      "marks-open", "marks-write"};
static struct {
    int armed;
    long nth; /* 0: every use */
    long uses;
} faults[API_FAULT_POINTS];
static pthread_once_t faults_once = PTHREAD_ONCE_INIT;

/* A spec it does not understand is reported once and ignored (a test hook, never set in a run). */
static void configure_faults(void)
{
    const char *spec = getenv("CANNHARNESS_API_FAULT");
    while (spec && *spec) {
        size_t len = strcspn(spec, ",");
        size_t name_len = strcspn(spec, ",:");
        int point = -1;
        for (int i = 0; i < API_FAULT_POINTS; i++)
            if (strlen(fault_names[i]) == name_len && strncmp(spec, fault_names[i], name_len) == 0)
                point = i;
        long nth = 0;
        if (point >= 0 && name_len < len) {
            char *end = NULL;
            nth = strtol(spec + name_len + 1, &end, 10);
            if (end != spec + len || nth <= 0)
                point = -1;
        }
        if (point < 0) {
            fprintf(stderr, "cannharness: CANNHARNESS_API_FAULT: \"%.*s\" is not <point>[:<nth>]; ignored\n", (int)len,
                    spec);
        } else {
            faults[point].armed = 1;
            faults[point].nth = nth;
        }
        spec += len + (spec[len] == ',');
    }
}

int api_fault(enum api_fault point)
{
    pthread_once(&faults_once, configure_faults);
    if (!faults[point].armed)
        return 0;
    long use = __atomic_add_fetch(&faults[point].uses, 1, __ATOMIC_RELAXED);
    return faults[point].nth == 0 || faults[point].nth == use;
}

/* ---- names, environment, directories ---- */

int api_valid_name(const char *name)
{
    if (!name || !name[0] || name[0] == '.')
        return 0;
    size_t n = 0;
    for (; name[n]; n++) {
        char c = name[n];
        int ok = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_' || c == '-' ||
                 c == '.' || c == '@';
        if (!ok || n >= API_NAME_MAX)
            return 0;
    }
    return 1;
}

/* The scenario directory this process first opened, pinned: (FNV-1a hash of its CANN_HARNESS_DIR
 * value << 32) | descriptor, in one atomic word (no lock: a fork while another thread opens cannot
 * leave one held). Later calls use the pinned descriptor, so once the harness has removed the
 * directory every call says EREMOVED, even when something (a link to elsewhere, another directory)
 * was re-created at its path since: it is never followed. A new value of the variable (only tests
 * change it in a process) pins anew; the old descriptor is left open (another thread may be using it). */
static uint64_t pinned_dir;

static uint32_t path_hash(const char *s)
{
    uint32_t h = 2166136261u;
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 16777619u;
    return h ? h : 1; /* 0 means "nothing pinned" */
}

int api_open_scenario_dir(const char *call, const char *name, int *fd)
{
    const char *dir = getenv("CANN_HARNESS_DIR");
    if (!dir || dir[0] != '/')
        return api_report(CANNHARNESS_ENOENV, call, name,
                          "CANN_HARNESS_DIR is %s: run this program as a role of a harness scenario, or set it to "
                          "an absolute directory for a run by hand",
                          dir ? "not an absolute path" : "not set");
    const uint32_t hash = path_hash(dir);
    uint64_t pin = __atomic_load_n(&pinned_dir, __ATOMIC_ACQUIRE);
    if ((uint32_t)(pin >> 32) != hash) {
        /* The directory itself is the harness's (made with mkdtemp): its path may hold links, like /tmp. */
        int opened = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
        if (opened < 0) {
            int err = errno;
            if (err == ENOENT || err == ENOTDIR)
                return api_report(CANNHARNESS_ENOENV, call, name, "cannot open CANN_HARNESS_DIR %s: %s", dir,
                                  strerror(err));
            return api_report(CANNHARNESS_ESYS, call, name, "cannot open CANN_HARNESS_DIR %s: %s", dir, strerror(err));
        }
        uint64_t mine = ((uint64_t)hash << 32) | (uint32_t)opened;
        if (__atomic_compare_exchange_n(&pinned_dir, &pin, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            pin = mine;
        else
            close(opened); /* another thread pinned first: pin holds its value */
        if ((uint32_t)(pin >> 32) != hash)
            return api_report(CANNHARNESS_ESYS, call, name, "CANN_HARNESS_DIR changed while it was being opened");
    }
    const int pinned = (int)(uint32_t)pin;
    if (api_dir_removed(pinned))
        return api_report(CANNHARNESS_EREMOVED, call, name,
                          "CANN_HARNESS_DIR %s was removed (the scenario is over); whatever is at its path now is "
                          "not used",
                          dir);
    *fd = fcntl(pinned, F_DUPFD_CLOEXEC, 0);
    if (*fd < 0)
        return api_report(CANNHARNESS_ESYS, call, name, "cannot duplicate the descriptor of CANN_HARNESS_DIR: %s",
                          strerror(errno));
    return CANNHARNESS_OK;
}

int api_dir_removed(int fd)
{
    struct stat st;
    return fstat(fd, &st) == 0 && st.st_nlink == 0;
}

int api_open_subdir(int dirfd, const char *sub, const char *call, const char *name, int *fd)
{
    int rc = CANNHARNESS_OK;
    const char *doing = "create";
    if (api_fault(FAULT_MKDIR))
        errno = EACCES;
    else if (mkdirat(dirfd, sub, 0755) == 0 || errno == EEXIST) {
        doing = "open";
        *fd = openat(dirfd, sub, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        if (*fd >= 0)
            goto out;
    }
    /* The harness removes the scenario directory when the run ends, maybe before a role's first call. */
    if (errno == ENOENT && api_dir_removed(dirfd))
        rc = api_report(CANNHARNESS_EREMOVED, call, name,
                        "CANN_HARNESS_DIR was removed before %s/ could be opened (the scenario is over)", sub);
    else if (errno == ELOOP || errno == ENOTDIR)
        rc = api_report(CANNHARNESS_EUNSAFE, call, name,
                        "%s/ in CANN_HARNESS_DIR is a symbolic link or not a directory: refused (remove it; only "
                        "the harness and its roles write there)",
                        sub);
    else
        rc = api_report(CANNHARNESS_ESYS, call, name, "cannot %s %s/ in CANN_HARNESS_DIR: %s", doing, sub,
                        strerror(errno));
out:
    return rc;
}

int api_deadline(const char *call, const char *name, int *has, uint64_t *deadline_ns)
{
    const char *v = getenv("CANN_HARNESS_DEADLINE_NS");
    *has = 0;
    if (!v || !v[0])
        return CANNHARNESS_OK;
    uint64_t ns = 0;
    for (const char *p = v; *p; p++) {
        if (*p < '0' || *p > '9' || ns > (UINT64_MAX - 9) / 10 || p - v >= 20)
            return api_report(CANNHARNESS_EDEADLINE, call, name,
                              "CANN_HARNESS_DEADLINE_NS=\"%.40s\" is not a decimal number of CLOCK_MONOTONIC "
                              "nanoseconds (the harness sets it; unset it for no deadline)",
                              v);
        ns = ns * 10 + (uint64_t)(*p - '0');
    }
    *has = 1;
    *deadline_ns = ns;
    return CANNHARNESS_OK;
}

uint64_t api_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}
