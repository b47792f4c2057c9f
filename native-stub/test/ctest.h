/*
 * ctest.h - a tiny test framework for the conformance suite (single file).
 *
 * Cases and helper roles register themselves with CT_CASE / CT_ROLE. The one
 * translation unit that defines CTEST_MAIN gets the registry and main():
 *
 *   conformance --list              one case name per line
 *   conformance --case NAME         run one case: exit 0 pass, 1 fail, 77 skip
 *   conformance --all [--jobs N] [FILTER]
 *                                   run every case (or those containing FILTER),
 *                                   each in its own fork+exec'd process and stub
 *                                   scope, N at a time (default 1), the
 *                                   CT_LONG_CASEs one after another from the
 *                                   start; prints each case's wall and CPU time
 *                                   (its own and its helpers')
 *   conformance --role NAME ARGS    (hidden) a helper process of a case
 *
 * Assertions print file:line, the expression, expected and actual values (ACL
 * codes with their names) and aclGetRecentErrMsg(), run the cleanup hooks and
 * exit the process: a failing case stops at its first broken rule.
 */
#ifndef CTEST_H
#define CTEST_H

#include <stdint.h>

typedef void (*ct_case_fn)(void);
typedef int (*ct_role_fn)(int argc, char **argv);

void ct_register_case(const char *name, ct_case_fn fn);
/* A case that takes long whatever the machine: --all runs these from its start, one at a time. */
void ct_register_long_case(const char *name, ct_case_fn fn);
void ct_register_role(const char *name, ct_role_fn fn);

/* A case registered with register_fn (ct_register_case or ct_register_long_case). */
#define CT_CASE_REGISTERED_WITH(id, register_fn)                         \
    static void ct_case_##id(void);                                      \
    __attribute__((constructor)) static void ct_register_case_##id(void) \
    {                                                                    \
        register_fn(#id, ct_case_##id);                                  \
    }                                                                    \
    static void ct_case_##id(void)

/* Defines a case; its name is the identifier. */
#define CT_CASE(id) CT_CASE_REGISTERED_WITH(id, ct_register_case)

/* Defines a case that takes seconds of its own (a swarm of processes, thousands of records, a
 * wait the rule needs): `--all` runs these one after another from its start, beside the short
 * cases, so that none of them starts last and runs on alone after every other case has ended. */
#define CT_LONG_CASE(id) CT_CASE_REGISTERED_WITH(id, ct_register_long_case)

/* Defines a helper role run as `conformance --role id args...`; returns the
 * process exit code (assertion failures exit 1 on their own). */
#define CT_ROLE(id)                                                      \
    static int ct_role_##id(int argc, char **argv);                      \
    __attribute__((constructor)) static void ct_register_role_##id(void) \
    {                                                                    \
        ct_register_role(#id, ct_role_##id);                             \
    }                                                                    \
    static int ct_role_##id(__attribute__((unused)) int argc, char **argv)

/* Name of an ACL error code ("ACL_ERROR_RT_PARAM_INVALID"), or "?". */
const char *ct_code_name(int code);

/* Fails the current process (case or role) with a formatted message. */
__attribute__((noreturn, format(printf, 3, 4))) void ct_fail_at(const char *file, int line, const char *fmt, ...);
/* Exits with 77 (the case cannot run here; the Jest side treats it as a failure). */
__attribute__((noreturn, format(printf, 1, 2))) void ct_skip(const char *fmt, ...);
/* Prints a progress note (stdout, prefixed with the process role and pid). */
__attribute__((format(printf, 1, 2))) void ct_note(const char *fmt, ...);

void ct_check_code(const char *file, int line, const char *expr, int expected, int actual);

/* Cleanup hooks run (newest first) when the process fails, times out or ends. */
void ct_on_cleanup(void (*fn)(void *ctx), void *ctx);
void ct_run_cleanups(void);

/* The per-process watchdog: fails the case if it has not finished in time. */
void ct_set_watchdog(unsigned seconds);
/* The case made progress: its watchdog starts again, with the seconds last set. For cases of
 * many latency-bound steps (every round wakes other threads, a swarm of processes binds one by
 * one), whose pace under load is the scheduler's: the watchdog then catches a step that hangs,
 * not a slow machine. */
void ct_progress(void);
#define CT_CASE_SECONDS 20
/* 1 while cleanups run from the watchdog's signal handler: the interrupted
 * thread may hold library locks, so hooks must not call into the library then. */
int ct_cleanup_in_signal_handler(void);

/* Optional hook (define it anywhere): runs in the case process before the case. */
void ct_before_case(void) __attribute__((weak));

/* Name of this process's case or role (for messages). */
const char *ct_current_name(void);

#define CT_FAIL(...) ct_fail_at(__FILE__, __LINE__, __VA_ARGS__)

/* Expects the ACL call `call` to return `expected`. */
#define CT_CODE(expected, call) ct_check_code(__FILE__, __LINE__, #call, (int)(expected), (int)(call))
#define CT_OK(call) CT_CODE(0, call)

#define CT_TRUE(cond)                                                   \
    do {                                                                \
        if (!(cond))                                                    \
            ct_fail_at(__FILE__, __LINE__, "expected true: %s", #cond); \
    } while (0)

#define CT_EQ(expected, actual)                                                                   \
    do {                                                                                          \
        long long ct_e_ = (long long)(expected), ct_a_ = (long long)(actual);                     \
        if (ct_e_ != ct_a_)                                                                       \
            ct_fail_at(__FILE__, __LINE__, "%s: expected %lld, got %lld", #actual, ct_e_, ct_a_); \
    } while (0)

/* ---------------------------------------------------------------------- */
#ifdef CTEST_MAIN

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"
/* the names and values of the contract's error table (shared with the
 * library; case headers_error_codes_match_the_contract checks the headers) */
#include "../src/acl_error_list.h"

#define CT_MAX_CASES 256
#define CT_MAX_CLEANUPS 64

struct ct_entry {
    const char *name;
    ct_case_fn case_fn;
    ct_role_fn role_fn;
    int long_running; /* CT_LONG_CASE (see ct_next_case) */
};

static struct ct_entry ct_cases[CT_MAX_CASES];
static int ct_case_count;
static struct ct_entry ct_roles[CT_MAX_CASES];
static int ct_role_count;
static struct {
    void (*fn)(void *);
    void *ctx;
} ct_cleanups[CT_MAX_CLEANUPS];
static int ct_cleanup_count;
static const char *ct_name = "conformance";
static volatile sig_atomic_t ct_in_signal;

int ct_cleanup_in_signal_handler(void)
{
    return ct_in_signal;
}

static void ct_add_case(const char *name, ct_case_fn fn, int long_running)
{
    if (ct_case_count == CT_MAX_CASES) {
        fprintf(stderr, "ctest: too many cases (raise CT_MAX_CASES)\n");
        exit(2);
    }
    ct_cases[ct_case_count++] = (struct ct_entry){name, fn, NULL, long_running};
}

void ct_register_case(const char *name, ct_case_fn fn)
{
    ct_add_case(name, fn, 0);
}

void ct_register_long_case(const char *name, ct_case_fn fn)
{
    ct_add_case(name, fn, 1);
}

void ct_register_role(const char *name, ct_role_fn fn)
{
    if (ct_role_count == CT_MAX_CASES) {
        fprintf(stderr, "ctest: too many roles (raise CT_MAX_CASES)\n");
        exit(2);
    }
    ct_roles[ct_role_count++] = (struct ct_entry){name, NULL, fn, 0};
}

const char *ct_current_name(void)
{
    return ct_name;
}

const char *ct_code_name(int code)
{
    switch (code) {
#define CT_NAME_CASE(name, value) \
    case value: return #name;
        ACL_ERROR_LIST(CT_NAME_CASE)
#undef CT_NAME_CASE
    default: return "?";
    }
}

void ct_on_cleanup(void (*fn)(void *ctx), void *ctx)
{
    if (ct_cleanup_count == CT_MAX_CLEANUPS)
        CT_FAIL("too many cleanup hooks (raise CT_MAX_CLEANUPS)");
    ct_cleanups[ct_cleanup_count].fn = fn;
    ct_cleanups[ct_cleanup_count].ctx = ctx;
    ct_cleanup_count++;
}

void ct_run_cleanups(void)
{
    /* Pop before calling, so that a hook that fails does not run twice. */
    while (ct_cleanup_count > 0) {
        ct_cleanup_count--;
        ct_cleanups[ct_cleanup_count].fn(ct_cleanups[ct_cleanup_count].ctx);
    }
}

static void ct_vprint(const char *tag, const char *file, int line, const char *fmt, va_list ap)
{
    char msg[2048];
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (file)
        fprintf(stderr, "%s [%s pid %d] %s:%d: %s\n", tag, ct_name, (int)getpid(), file, line, msg);
    else
        fprintf(stderr, "%s [%s pid %d] %s\n", tag, ct_name, (int)getpid(), msg);
    fflush(stderr);
}

/* 1 once a failure's clean-up started (its 5 s alarm must not be put off by ct_progress). */
static volatile int ct_failing;

void ct_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ct_vprint("FAIL", file, line, fmt, ap);
    va_end(ap);
    /* A second failure raised by a cleanup hook must not recurse; a hook that
     * hangs (a broken runtime) is cut short by the watchdog. */
    if (!__sync_lock_test_and_set(&ct_failing, 1)) {
        alarm(5);
        ct_run_cleanups();
    }
    fflush(stdout);
    _exit(1);
}

void ct_skip(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ct_vprint("SKIP", NULL, 0, fmt, ap);
    va_end(ap);
    ct_run_cleanups();
    fflush(stdout);
    _exit(77);
}

void ct_note(const char *fmt, ...)
{
    char msg[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    printf("[%s pid %d] %s\n", ct_name, (int)getpid(), msg);
    fflush(stdout);
}

/* After an expected failure of a direct ACL call, aclGetRecentErrMsg() must
 * explain it: non-NULL and naming the call (docs/acl-contract.md section 1.4). */
static void ct_check_failure_message(const char *file, int line, const char *expr)
{
    size_t name_len = strcspn(expr, "(");
    if (strncmp(expr, "acl", 3) != 0 || expr[name_len] != '(' || name_len >= 64)
        return; /* not a direct call: nothing to attribute the message to */
    char name[64];
    memcpy(name, expr, name_len);
    name[name_len] = '\0';
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !*msg)
        ct_fail_at(file, line, "%s failed as expected, but aclGetRecentErrMsg() is %s", expr, msg ? "empty" : "NULL");
    if (!strstr(msg, name))
        ct_fail_at(file, line, "%s failed as expected, but aclGetRecentErrMsg() does not name %s: %s", expr, name, msg);
}

void ct_check_code(const char *file, int line, const char *expr, int expected, int actual)
{
    if (expected == actual) {
        if (expected != 0)
            ct_check_failure_message(file, line, expr);
        return;
    }
    const char *msg = aclGetRecentErrMsg();
    ct_fail_at(file, line, "%s\n    expected %d (%s)\n    actual   %d (%s)\n    aclGetRecentErrMsg: %s", expr, expected,
               ct_code_name(expected), actual, ct_code_name(actual), msg ? msg : "(null)");
}

static void ct_on_alarm(int sig)
{
    (void)sig;
    ct_in_signal = 1;
    static const char text[] = "FAIL watchdog expired: the case (or a helper role) hung\n";
    ssize_t ignored = write(2, text, sizeof text - 1);
    (void)ignored;
    ct_fail_at(__FILE__, __LINE__, "watchdog expired in %s", ct_name);
}

static unsigned ct_watchdog_seconds = CT_CASE_SECONDS;

void ct_set_watchdog(unsigned seconds)
{
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ct_on_alarm;
    /* NODEFER: the 5 s alarm that ct_fail_at arms for its cleanups must be able
     * to fire while the first watchdog handler is still running them. */
    sa.sa_flags = SA_NODEFER;
    sigaction(SIGALRM, &sa, NULL);
    ct_watchdog_seconds = seconds;
    alarm(seconds);
}

void ct_progress(void)
{
    if (!ct_failing)
        alarm(ct_watchdog_seconds);
}

static const struct ct_entry *ct_find(const struct ct_entry *list, int n, const char *name)
{
    for (int i = 0; i < n; i++)
        if (strcmp(list[i].name, name) == 0)
            return &list[i];
    return NULL;
}

static int ct_cmp_entry(const void *a, const void *b)
{
    return strcmp(((const struct ct_entry *)a)->name, ((const struct ct_entry *)b)->name);
}

static double ct_now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Removes a leftover a case declared, if it names a shared-memory object (a file directly under
 * /dev/shm): the runner removes nothing else, whatever a case's output says. */
static void ct_remove_declared(const char *path)
{
    static const char shm[] = "/dev/shm/";
    const char *name = path + sizeof shm - 1;
    if (strncmp(path, shm, sizeof shm - 1) != 0 || !*name || strchr(name, '/') || strcmp(name, "..") == 0 ||
        strcmp(name, ".") == 0) {
        printf("     not removed (not a /dev/shm object): %s\n", path);
        return;
    }
    printf(unlink(path) == 0 ? "     removed: %s\n" : "     cannot remove: %s\n", path);
}

/* What ct_report_leftovers does with each leftover: counts it, lists it, or removes it. */
enum ct_leftovers { CT_LEFTOVERS_COUNT, CT_LEFTOVERS_LIST, CT_LEFTOVERS_REMOVE };

/* Paths a case declared with "ct-owned-path: PATH" lines that still exist. */
static int ct_report_leftovers(int log_fd, enum ct_leftovers what)
{
    char buf[65536];
    lseek(log_fd, 0, SEEK_SET);
    ssize_t n = read(log_fd, buf, sizeof buf - 1);
    if (n <= 0)
        return 0;
    buf[n] = '\0';
    int left = 0;
    static const char tag[] = "ct-owned-path: ";
    for (char *line = buf; line && *line;) {
        char *next = strchr(line, '\n');
        if (!next)
            break; /* a line cut off where the read stopped: not a whole path */
        *next++ = '\0';
        const char *path = line + sizeof tag - 1;
        if (strncmp(line, tag, sizeof tag - 1) == 0 && access(path, F_OK) == 0) {
            if (what == CT_LEFTOVERS_LIST)
                printf("     left behind: %s\n", path);
            if (what == CT_LEFTOVERS_REMOVE)
                ct_remove_declared(path);
            left++;
        }
        line = next;
    }
    return left;
}

/* The stub scope (ACL_STUB_SCOPE) of case `index` of this --all run: the caller's
 * scope (or "ct" and the runner's pid, which keeps runs on one machine apart),
 * "c" and the case's index in decimal. Cases run side by side, so each needs a
 * scope of its own: a case's reclaim (aclInit, cannstub_reclaim) then never
 * judges another case's objects, its leftovers are its own, and after it fails
 * what is left in its scope is removed. So no two (base, index) pairs may give
 * one scope: the index is what follows the last "c" (decimal has no "c"), and
 * the base is never cut (ct_scope_base_problem refuses one that does not fit). */
#define CT_SCOPE_MAX 24 /* the stub's SHM_SCOPE_MAX */
#define CT_SCOPE_SUFFIX_MAX 4 /* "c" and up to 3 digits: indexes are < CT_MAX_CASES */

static const char *ct_scope_base(char own[16])
{
    const char *base = getenv("ACL_STUB_SCOPE");
    if (base && *base)
        return base;
    snprintf(own, 16, "ct%d", (int)getpid());
    return own;
}

/* NULL if the scope base leaves room for every case's suffix; else what is wrong. */
static const char *ct_scope_base_problem(void)
{
    char own[16];
    return strlen(ct_scope_base(own)) > CT_SCOPE_MAX - CT_SCOPE_SUFFIX_MAX
               ? "ACL_STUB_SCOPE is too long for --all: each case's scope adds \"c\" and its index "
                 "(up to 4 characters) and a stub scope has at most 24: give at most 20 characters"
               : NULL;
}

static void ct_case_scope(char out[32], int index)
{
    char own[16];
    snprintf(out, 32, "%sc%d", ct_scope_base(own), index);
}

/* One case of --all that is running: its process, its captured output, its start. */
struct ct_job {
    pid_t pid;
    int index;
    int log_fd;
    double t0;
};

/* Each case of --all runs in a process group of its own (its pid), so that what it leaves running
 * when it ends (a forked helper that outlived a failure: fork drops the watchdog's alarm) is
 * killed with the group, and so that the runner can stop every case when it is itself stopped:
 * a terminal's Ctrl-C or CI's SIGTERM reach the runner's group, no longer the cases'. */
static const struct ct_job *ct_jobs_running;
static volatile sig_atomic_t ct_jobs_active;
static volatile sig_atomic_t ct_stopped_by; /* the stop signal that came, or 0 */
static const int ct_stop_signals[] = {SIGINT, SIGTERM, SIGHUP};

/* Kills every running case's group at once; the run loop then reaps them, reclaims what they left
 * in /dev/shm (ct_stop_run) and dies of the same signal. */
static void ct_on_stop_signal(int sig)
{
    int saved = errno;
    ct_stopped_by = sig;
    for (int i = 0; i < ct_jobs_active; i++)
        kill(-ct_jobs_running[i].pid, SIGKILL);
    errno = saved;
}

/* Blocks (1) or unblocks (0) the stop signals while the list of running cases changes. */
static void ct_block_stop_signals(int block)
{
    sigset_t set;
    sigemptyset(&set);
    for (size_t i = 0; i < sizeof ct_stop_signals / sizeof ct_stop_signals[0]; i++)
        sigaddset(&set, ct_stop_signals[i]);
    sigprocmask(block ? SIG_BLOCK : SIG_UNBLOCK, &set, NULL);
}

static void ct_catch_stop_signals(const struct ct_job *running)
{
    ct_jobs_running = running;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = ct_on_stop_signal;
    for (size_t i = 0; i < sizeof ct_stop_signals / sizeof ct_stop_signals[0]; i++) {
        struct sigaction old;
        /* A signal ignored by whoever started the run (nohup) stays ignored. */
        if (sigaction(ct_stop_signals[i], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(ct_stop_signals[i], &sa, NULL);
    }
}

/* In a case's process, before exec: the default actions, unblocked. */
static void ct_restore_signals(void)
{
    for (size_t i = 0; i < sizeof ct_stop_signals / sizeof ct_stop_signals[0]; i++)
        signal(ct_stop_signals[i], SIG_DFL);
    ct_block_stop_signals(0);
}

/* After a case ended, before its leader is reaped (so its pid, the group's id, cannot be reused
 * yet): whatever of its group still runs is killed (it is the case's, and the case is over). */
static void ct_end_case_group(pid_t pgid)
{
    kill(-pgid, SIGKILL);
}

/* Whether a process of group pgid, other than a zombie, is still there (a SIGKILLed one until it
 * is gone: reclaim counts it as a live user of its objects). Zombies that this container's pid 1
 * does not reap are gone. */
static int ct_group_running(pid_t pgid)
{
    DIR *proc = opendir("/proc");
    if (!proc)
        return 0;
    int running = 0;
    struct dirent *e;
    while (!running && (e = readdir(proc)) != NULL) {
        if (e->d_name[0] < '1' || e->d_name[0] > '9')
            continue;
        char path[300], stat[512];
        snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
        int fd = open(path, O_RDONLY | O_CLOEXEC);
        if (fd < 0)
            continue;
        ssize_t n = read(fd, stat, sizeof stat - 1);
        close(fd);
        if (n <= 0)
            continue;
        stat[n] = '\0';
        const char *rest = strrchr(stat, ')'); /* the name may hold spaces and parentheses */
        char state = 0;
        int ppid = 0, pgrp = 0;
        if (rest && sscanf(rest + 1, " %c %d %d", &state, &ppid, &pgrp) == 3 && pgrp == pgid && state != 'Z' &&
            state != 'X')
            running = 1;
    }
    closedir(proc);
    return running;
}

/* Waits (up to 2 s) until nothing of group pgid runs any more. */
/* Waits up to 2 s for process group `pgid` to have no live member; returns whether it has none. */
static int ct_await_group_gone(pid_t pgid)
{
    for (int i = 0;; i++) {
        if (!ct_group_running(pgid))
            return 1;
        if (i == 200)
            return 0;
        usleep(10000);
    }
}

static int ct_start_case(const char *self, int index, struct ct_job *job)
{
    char log_path[] = "/tmp/conformance-log-XXXXXX";
    int log_fd = mkostemp(log_path, O_CLOEXEC); /* the other cases must not inherit it */
    if (log_fd < 0) {
        perror("conformance: mkostemp");
        return -1;
    }
    unlink(log_path);
    char scope[32];
    ct_case_scope(scope, index);
    fflush(stdout);
    pid_t pid = fork();
    if (pid < 0) {
        perror("conformance: fork");
        close(log_fd);
        return -1;
    }
    if (pid == 0) {
        setpgid(0, 0); /* a group of its own: see ct_end_case_group */
        ct_restore_signals();
        dup2(log_fd, 1);
        dup2(log_fd, 2);
        setenv("ACL_STUB_SCOPE", scope, 1);
        execl(self, self, "--case", ct_cases[index].name, (char *)NULL);
        _exit(127);
    }
    setpgid(pid, pid); /* also here: the group exists before anyone signals it */
    *job = (struct ct_job){pid, index, log_fd, ct_now_s()};
    return 0;
}

static double ct_cpu_ms(const struct rusage *ru)
{
    return (double)(ru->ru_utime.tv_sec + ru->ru_stime.tv_sec) * 1000 +
           (double)(ru->ru_utime.tv_usec + ru->ru_stime.tv_usec) / 1000;
}

/* Runs cannstub_reclaim, beside this runner, in the scope of case `index`. */
static void ct_reclaim_case_scope(const char *self, int index)
{
    char tool[4096], scope[32], env_scope[64];
    /* Its own group: a terminal's Ctrl-C during the clean-up does not cut it short. */
    const char *slash = strrchr(self, '/');
    int dir_len = slash ? (int)(slash - self) : 1;
    snprintf(tool, sizeof tool, "%.*s/cannstub_reclaim", dir_len, slash ? self : ".");
    ct_case_scope(scope, index);
    snprintf(env_scope, sizeof env_scope, "ACL_STUB_SCOPE=%s", scope);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        setpgid(0, 0);
        char *const argv[] = {tool, NULL};
        char *const env[] = {env_scope, "ACL_STUB_LOG=info", NULL};
        execve(tool, argv, env);
        fprintf(stderr, "conformance: cannot run %s: %s\n", tool, strerror(errno));
        _exit(127);
    }
    int status = 0;
    pid_t got = -1;
    if (pid > 0)
        while ((got = waitpid(pid, &status, 0)) < 0 && errno == EINTR) {
        }
    if (got != pid || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        printf("     %s did not run to its end: what is left behind stays\n", tool);
}

/* Removes the stub objects of case `index`'s scope that are still in /dev/shm: reclaim leaves an
 * object alone while it is younger than its grace for half-created ones (its creator may be about
 * to fill it), and a case stopped between creating an object and declaring it leaves one. Called
 * once nothing of the case's group runs; the scope is this case's alone (ct_case_scope), so they
 * are removed: our own regular files only, named as the stub names them. */
static void ct_remove_scope_objects(int index)
{
    char scope[32], suffix[40];
    ct_case_scope(scope, index);
    snprintf(suffix, sizeof suffix, ".%s", scope);
    DIR *shm = opendir("/dev/shm");
    if (!shm)
        return;
    struct dirent *e;
    while ((e = readdir(shm)) != NULL) {
        size_t len = strlen(e->d_name), suffix_len = strlen(suffix);
        if (strncmp(e->d_name, "cannstub", 8) != 0 || len <= suffix_len ||
            strcmp(e->d_name + len - suffix_len, suffix) != 0)
            continue;
        struct stat st;
        if (fstatat(dirfd(shm), e->d_name, &st, AT_SYMLINK_NOFOLLOW) != 0 || !S_ISREG(st.st_mode) ||
            st.st_uid != geteuid())
            continue;
        printf(unlinkat(dirfd(shm), e->d_name, 0) == 0 ? "     removed (left in the case's scope): /dev/shm/%s\n"
                                                       : "     cannot remove (left in the case's scope): /dev/shm/%s\n",
               e->d_name);
    }
    closedir(shm);
}

/* After a case that failed or was stopped (a watchdog's kill skips the library's own clean-up):
 * its group has been killed, so cannstub_reclaim in its scope removes the objects of its dead
 * processes; then what the case declared its own and is still there (an object reclaim leaves
 * alone, such as one with another stub version's header) is removed. A failing or interrupted
 * run leaves nothing in /dev/shm. */
static void ct_clean_case_scope(const char *self, const struct ct_job *job)
{
    int gone = ct_await_group_gone(job->pid);
    ct_reclaim_case_scope(self, job->index);
    ct_report_leftovers(job->log_fd, CT_LEFTOVERS_REMOVE);
    if (gone)
        ct_remove_scope_objects(job->index);
    else
        printf("     the case's process group still runs after 2 s: the objects of its scope stay\n");
}

/* Prints one finished case (its output too when it failed); returns 1 if it failed. `ru`: the
 * CPU of the case and of the helpers it reaped, beside its wall time (a case far below its wall
 * time waits: on helpers, gates, timeouts, or for a CPU). */
static int ct_report_case(const char *self, const struct ct_job *job, int status, const struct rusage *ru)
{
    int code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
    int leftovers = ct_report_leftovers(job->log_fd, CT_LEFTOVERS_COUNT);
    if (leftovers && code == 0)
        code = 1;
    const char *verdict = code == 0 ? "PASS" : code == 77 ? "SKIP (counted as failure)" : "FAIL";
    printf("%-4s %-52s %6.0f ms %6.0f ms CPU", verdict, ct_cases[job->index].name, (ct_now_s() - job->t0) * 1000,
           ct_cpu_ms(ru));
    if (code == 0) {
        printf("\n");
        fflush(stdout);
        return 0;
    }
    printf("  (exit %d)\n", code);
    /* Every failed case: a watchdog's kill can come before the case declared what it made. */
    if (leftovers)
        ct_report_leftovers(job->log_fd, CT_LEFTOVERS_LIST);
    ct_clean_case_scope(self, job);
    lseek(job->log_fd, 0, SEEK_SET);
    char buf[4096];
    ssize_t n;
    fflush(stdout);
    while ((n = read(job->log_fd, buf, sizeof buf)) > 0) {
        ssize_t ignored = write(1, buf, (size_t)n);
        (void)ignored;
    }
    fflush(stdout);
    return 1;
}

/* The next case of --all to start, or -1 when none is left. The long cases
 * (CT_LONG_CASE) go one at a time, the first at once and each next one as soon
 * as the one before ends, while the other slots take the short cases: so no
 * long case starts last and runs on alone at the end, and the long ones (swarms
 * of processes, thousands of records, CPU-hungry under a sanitizer) do not all
 * run at once and starve each other. Short cases all started: the rest of the
 * long ones may run side by side. */
static int ct_next_case(const int *longs, int n_long, int *next_long, const int *shorts, int n_short, int *next_short,
                        int long_active)
{
    if (*next_long < n_long && (long_active == 0 || *next_short == n_short))
        return longs[(*next_long)++];
    if (*next_short < n_short)
        return shorts[(*next_short)++];
    return -1;
}

/* After a stop signal: the killed cases are reaped and their scopes reclaimed, then the runner
 * dies of that signal (so its caller sees how it ended). */
static void ct_stop_run(const char *self, struct ct_job *running, int active)
{
    ct_block_stop_signals(1); /* a second signal must not cut the clean-up short */
    for (int i = 0; i < active; i++) {
        kill(-running[i].pid, SIGKILL); /* one started as the signal came */
        while (waitpid(running[i].pid, NULL, 0) < 0 && errno == EINTR) {
        }
        ct_clean_case_scope(self, &running[i]);
        close(running[i].log_fd);
    }
    printf("conformance: stopped by signal %d: %d running case(s) killed, their objects reclaimed\n",
           (int)ct_stopped_by, active);
    fflush(stdout);
    signal(ct_stopped_by, SIG_DFL);
    raise(ct_stopped_by); /* pending until the signals are unblocked, just below */
    ct_block_stop_signals(0);
    _exit(128 + ct_stopped_by);
}

/* --all: every case in a fresh process (fork+exec before anything touches the
 * runtime) and a stub scope of its own, up to `jobs` at a time (most cases
 * spend their time waiting on helpers, gates and timeouts, not on the CPU),
 * in the order ct_next_case gives. A case's output is captured and shown only
 * when it fails; lines come in the order the cases end. */
static int ct_run_all(const char *self, const char *filter, int jobs)
{
    struct ct_job running[CT_MAX_CASES];
    int longs[CT_MAX_CASES], shorts[CT_MAX_CASES], n_long = 0, n_short = 0, next_long = 0, next_short = 0;
    for (int i = 0; i < ct_case_count; i++) {
        if (filter && !strstr(ct_cases[i].name, filter))
            continue;
        if (ct_cases[i].long_running)
            longs[n_long++] = i;
        else
            shorts[n_short++] = i;
    }
    int active = 0, long_active = 0, failed = 0, ran = 0, broken = 0;
    double start = ct_now_s(), cpu_ms = 0;
    ct_catch_stop_signals(running);
    for (;;) {
        while (!broken && !ct_stopped_by && active < jobs) {
            int index = ct_next_case(longs, n_long, &next_long, shorts, n_short, &next_short, long_active);
            if (index < 0)
                break;
            ct_block_stop_signals(1);
            if (ct_start_case(self, index, &running[active]) < 0) {
                broken = 1; /* let the running cases end, then stop */
            } else {
                long_active += ct_cases[index].long_running;
                ct_jobs_active = ++active;
            }
            ct_block_stop_signals(0);
        }
        if (ct_stopped_by)
            ct_stop_run(self, running, active);
        if (active == 0)
            break;
        /* Which case ended, left unreaped so that its pid (its group's id) is not reused while
         * the rest of its group is killed; then reaped, with its CPU. */
        siginfo_t ended;
        memset(&ended, 0, sizeof ended);
        if (waitid(P_ALL, 0, &ended, WEXITED | WNOWAIT) < 0) {
            if (errno == EINTR)
                continue;
            perror("conformance: waitid");
            return 2;
        }
        pid_t pid = ended.si_pid;
        int known = 0;
        for (int i = 0; i < active; i++)
            known |= running[i].pid == pid;
        if (known)
            ct_end_case_group(pid);
        int status = 0;
        struct rusage ru;
        while (wait4(pid, &status, 0, &ru) < 0)
            if (errno != EINTR) {
                perror("conformance: wait4");
                return 2;
            }
        for (int i = 0; i < active; i++) {
            if (running[i].pid != pid)
                continue;
            ran++;
            failed += ct_report_case(self, &running[i], status, &ru);
            cpu_ms += ct_cpu_ms(&ru);
            long_active -= ct_cases[running[i].index].long_running;
            close(running[i].log_fd);
            ct_block_stop_signals(1);
            running[i] = running[--active];
            ct_jobs_active = active;
            ct_block_stop_signals(0);
            break;
        }
    }
    if (ct_stopped_by)
        ct_stop_run(self, running, 0);
    if (broken)
        return 2;
    /* The summary's shape, "conformance: N passed, N failed", is the one CI log readers look for. */
    printf("conformance (%.1f s, %d at a time, %.1f s of CPU)\n", ct_now_s() - start, jobs, cpu_ms / 1000);
    printf("conformance: %d passed, %d failed\n", ran - failed, failed);
    return failed ? 1 : (ran ? 0 : 2);
}

/* --jobs N: a whole number from 1 to CT_MAX_CASES, else 0. */
static int ct_parse_jobs(const char *text)
{
    char *end = NULL;
    errno = 0;
    long n = strtol(text, &end, 10);
    if (errno || end == text || *end || n < 1 || n > CT_MAX_CASES)
        return 0;
    return (int)n;
}

static void ct_usage(void)
{
    fprintf(stderr, "usage: conformance --list | --case NAME | --all [--jobs N] [FILTER]\n");
}

int main(int argc, char **argv)
{
    qsort(ct_cases, (size_t)ct_case_count, sizeof ct_cases[0], ct_cmp_entry);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc >= 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < ct_case_count; i++)
            printf("%s\n", ct_cases[i].name);
        return 0;
    }
    if (argc >= 2 && strcmp(argv[1], "--all") == 0) {
        char self[4096];
        ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
        if (n <= 0) {
            perror("conformance: readlink /proc/self/exe");
            return 2;
        }
        self[n] = '\0';
        int jobs = 1, arg = 2;
        if (argc >= 4 && strcmp(argv[2], "--jobs") == 0) {
            jobs = ct_parse_jobs(argv[3]);
            if (!jobs) {
                fprintf(stderr, "conformance: --jobs %s: give a whole number from 1 to %d\n", argv[3], CT_MAX_CASES);
                return 2;
            }
            arg = 4;
        }
        const char *scope_problem = ct_scope_base_problem();
        if (scope_problem) {
            fprintf(stderr, "conformance: %s\n", scope_problem);
            return 2;
        }
        return ct_run_all(self, argc > arg ? argv[arg] : NULL, jobs);
    }
    if (argc == 3 && strcmp(argv[1], "--case") == 0) {
        const struct ct_entry *c = ct_find(ct_cases, ct_case_count, argv[2]);
        if (!c) {
            fprintf(stderr, "conformance: no case named '%s' (see --list)\n", argv[2]);
            return 2;
        }
        ct_name = c->name;
        ct_set_watchdog(CT_CASE_SECONDS);
        if (ct_before_case)
            ct_before_case();
        c->case_fn();
        ct_run_cleanups();
        printf("PASS %s\n", c->name);
        return 0;
    }
    if (argc >= 3 && strcmp(argv[1], "--role") == 0) {
        const struct ct_entry *r = ct_find(ct_roles, ct_role_count, argv[2]);
        if (!r) {
            fprintf(stderr, "conformance: no role named '%s'\n", argv[2]);
            return 2;
        }
        ct_name = r->name;
        ct_set_watchdog(CT_CASE_SECONDS - 2); /* below the case's, so the case sees the helper's failure */
        int code = r->role_fn(argc - 3, argv + 3);
        ct_run_cleanups();
        return code;
    }
    ct_usage();
    return 2;
}

#endif /* CTEST_MAIN */
#endif /* CTEST_H */
