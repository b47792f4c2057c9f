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
/* Either kind; `stub_only`: NULL for a case that states CANN behaviour, else why it checks a rule
 * of the stub alone (--all leaves it out against any other libascendcl.so and prints this). */
void ct_register_case_kind(const char *name, ct_case_fn fn, int long_running, const char *stub_only);
void ct_register_role(const char *name, ct_role_fn fn);

/* Every case of a file that defines CT_FILE_STUB_ONLY (a string: why) before it includes this
 * header is stub-only; CT_STUB_CASE marks one case. The rest state CANN behaviour. */
#ifndef CT_FILE_STUB_ONLY
#define CT_FILE_STUB_ONLY NULL
#endif

/* A case of `long_running` (0 or 1) and `stub_only` (NULL or why); its name is the identifier. */
#define CT_CASE_OF_KIND(id, long_running, stub_only)                       \
    static void ct_case_##id(void);                                        \
    __attribute__((constructor)) static void ct_register_case_##id(void)   \
    {                                                                      \
        ct_register_case_kind(#id, ct_case_##id, long_running, stub_only); \
    }                                                                      \
    static void ct_case_##id(void)

/* Defines a case that states CANN behaviour (unless its file is CT_FILE_STUB_ONLY). */
#define CT_CASE(id) CT_CASE_OF_KIND(id, 0, CT_FILE_STUB_ONLY)

/* Defines a case that takes seconds of its own (a swarm of processes, thousands of records, a
 * wait the rule needs): `--all` runs these one after another from its start, beside the short
 * cases, so that none of them starts last and runs on alone after every other case has ended. */
#define CT_LONG_CASE(id) CT_CASE_OF_KIND(id, 1, CT_FILE_STUB_ONLY)

/* A case that checks a rule of the stub alone (a stub-only rule of docs/acl-contract.md section 7
 * or 8.7, a stub setting, the stub's own messages): `why` says so in a few words, and
 * `cann-harness conformance` leaves the case out against any library that is not the stub. */
#define CT_STUB_CASE(id, why) CT_CASE_OF_KIND(id, 0, why)
#define CT_LONG_STUB_CASE(id, why) CT_CASE_OF_KIND(id, 1, why)

/* The CANN source line the checks after it follow ("event.cc:720-728"; paths relative to
 * hicann/runtime, CT_CANN_SOURCE_COMMIT): a failure until the next CT_SOURCE in the same thread
 * prints it. A failure with none looks for a citation in the comments above its assertion. */
#define CT_CANN_SOURCE_COMMIT "681ef7610"
void ct_set_source(const char *citation);
#define CT_SOURCE(citation) ct_set_source(citation)

/* Whether the loaded libascendcl.so is the stub: it exports the stub-only cannstub_live_view
 * (docs/acl-contract.md S11) itself. Its path goes to `path` (PATH_MAX bytes) when not NULL. */
int ct_library_is_stub(char *path);

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

/* Fails with the call, what was expected and what came back, each on a line of its own. */
__attribute__((noreturn)) void ct_fail_check(const char *file, int line, const char *call, const char *expected,
                                             const char *actual);

/* Expects the ACL call `call` to return `expected`. */
#define CT_CODE(expected, call) ct_check_code(__FILE__, __LINE__, #call, (int)(expected), (int)(call))
#define CT_OK(call) CT_CODE(0, call)

#define CT_TRUE(cond)                                                  \
    do {                                                               \
        if (!(cond))                                                   \
            ct_fail_check(__FILE__, __LINE__, #cond, "true", "false"); \
    } while (0)

void ct_check_eq(const char *file, int line, const char *expr, long long expected, long long actual);
#define CT_EQ(expected, actual) ct_check_eq(__FILE__, __LINE__, #actual, (long long)(expected), (long long)(actual))

/* ---------------------------------------------------------------------- */
#ifdef CTEST_MAIN

#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <regex.h>
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

#define CT_MAX_CASES 512
#define CT_MAX_CLEANUPS 64

struct ct_entry {
    const char *name;
    ct_case_fn case_fn;
    ct_role_fn role_fn;
    int long_running;      /* CT_LONG_CASE (see ct_next_case) */
    const char *stub_only; /* CT_STUB_CASE, CT_FILE_STUB_ONLY: why; NULL for a CANN case */
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

void ct_register_case_kind(const char *name, ct_case_fn fn, int long_running, const char *stub_only)
{
    if (ct_case_count == CT_MAX_CASES) {
        fprintf(stderr, "ctest: too many cases (raise CT_MAX_CASES)\n");
        exit(2);
    }
    ct_cases[ct_case_count++] = (struct ct_entry){name, fn, NULL, long_running, stub_only};
}

void ct_register_case(const char *name, ct_case_fn fn)
{
    ct_register_case_kind(name, fn, 0, NULL);
}

void ct_register_long_case(const char *name, ct_case_fn fn)
{
    ct_register_case_kind(name, fn, 1, NULL);
}

void ct_register_role(const char *name, ct_role_fn fn)
{
    if (ct_role_count == CT_MAX_CASES) {
        fprintf(stderr, "ctest: too many roles (raise CT_MAX_CASES)\n");
        exit(2);
    }
    ct_roles[ct_role_count++] = (struct ct_entry){name, NULL, fn, 0, NULL};
}

const char *ct_current_name(void)
{
    return ct_name;
}

/* The last CT_SOURCE of this thread, else of any thread (a case's helper threads run its checks). */
static __thread const char *ct_source_of_thread;
static const char *ct_source_of_process;

void ct_set_source(const char *citation)
{
    ct_source_of_thread = citation;
    __atomic_store_n(&ct_source_of_process, citation, __ATOMIC_RELAXED);
}

static const char *ct_source(void)
{
    return ct_source_of_thread ? ct_source_of_thread : __atomic_load_n(&ct_source_of_process, __ATOMIC_RELAXED);
}

int ct_library_is_stub(char *path)
{
    /* The object loaded as libascendcl.so (the runner's NEEDED name, whatever its soname), the
     * file that defines its aclInit (dlsym in its own scope: not a PLT slot of the runner), and
     * whether that very file (not one it loads) defines the stub-only export: a path or a name
     * says nothing (a copy, a link). */
    int is_stub = 0;
    void *lib = dlopen("libascendcl.so", RTLD_NOW | RTLD_NOLOAD);
    void *init = lib ? dlsym(lib, "aclInit") : NULL;
    Dl_info acl, stub;
    memset(&acl, 0, sizeof acl);
    if (!init || !dladdr(init, &acl) || !acl.dli_fname) {
        if (path)
            snprintf(path, PATH_MAX, "(unknown: no loaded libascendcl.so defines aclInit)");
    } else {
        if (path && !realpath(acl.dli_fname, path))
            snprintf(path, PATH_MAX, "%s", acl.dli_fname);
        void *sym = dlsym(lib, "cannstub_live_view");
        is_stub = sym && dladdr(sym, &stub) && stub.dli_fbase == acl.dli_fbase;
    }
    if (lib)
        dlclose(lib);
    return is_stub;
}

/* Cached for the checks that apply to the stub alone (aclGetRecentErrMsg naming the call). */
static int ct_is_stub(void)
{
    static int known = -1; /* checks run on several threads of a case */
    int is_stub = __atomic_load_n(&known, __ATOMIC_RELAXED);
    if (is_stub < 0) {
        is_stub = ct_library_is_stub(NULL);
        __atomic_store_n(&known, is_stub, __ATOMIC_RELAXED);
    }
    return is_stub;
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

/* After a failure's lines: the CANN source line its checks follow, if CT_SOURCE gave one. */
static void ct_print_source(void)
{
    const char *source = ct_source();
    if (source) {
        fprintf(stderr, "    CANN source: %s (hicann/runtime %s)\n", source, CT_CANN_SOURCE_COMMIT);
        fflush(stderr);
    }
}

static __attribute__((noreturn)) void ct_fail_exit(void)
{
    /* A second failure raised by a cleanup hook must not recurse; a hook that
     * hangs (a broken runtime) is cut short by the watchdog. */
    if (!__sync_lock_test_and_set(&ct_failing, 1)) {
        alarm(5);
        ct_run_cleanups();
    }
    fflush(stdout);
    _exit(1);
}

void ct_fail_at(const char *file, int line, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    ct_vprint("FAIL", file, line, fmt, ap);
    va_end(ap);
    ct_print_source();
    ct_fail_exit();
}

/* The shape `--all` reads back (ct_print_failure): the call on the FAIL line and a line each for
 * what was expected and what came back. */
void ct_fail_check(const char *file, int line, const char *call, const char *expected, const char *actual)
{
    const char *msg = aclGetRecentErrMsg();
    fprintf(stderr,
            "FAIL [%s pid %d] %s:%d: a check failed\n    call:        %s\n    expected:    %s\n    actual:      %s\n"
            "    aclGetRecentErrMsg: %s\n",
            ct_name, (int)getpid(), file, line, call, expected, actual, msg ? msg : "(null)");
    ct_print_source();
    ct_fail_exit();
}

void ct_check_eq(const char *file, int line, const char *expr, long long expected, long long actual)
{
    if (expected == actual)
        return;
    char want[32], got[32];
    snprintf(want, sizeof want, "%lld", expected);
    snprintf(got, sizeof got, "%lld", actual);
    ct_fail_check(file, line, expr, want, got);
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
        /* The message's text is the stub's (contract section 1.4): CANN's is not checked. */
        if (expected != 0 && ct_is_stub())
            ct_check_failure_message(file, line, expr);
        return;
    }
    char want[96], got[96];
    snprintf(want, sizeof want, "%d (%s)", expected, ct_code_name(expected));
    snprintf(got, sizeof got, "%d (%s)", actual, ct_code_name(actual));
    ct_fail_check(file, line, expr, want, got);
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
static int ct_run_on_stub = 1; /* --all: whether the library is the stub (its reclaim tool applies) */

static void ct_clean_case_scope(const char *self, const struct ct_job *job)
{
    int gone = ct_await_group_gone(job->pid);
    if (ct_run_on_stub)
        ct_reclaim_case_scope(self, job->index);
    ct_report_leftovers(job->log_fd, CT_LEFTOVERS_REMOVE);
    if (gone)
        ct_remove_scope_objects(job->index);
    else
        printf("     the case's process group still runs after 2 s: the objects of its scope stay\n");
}

/* Writes a citing comment's text (from `start`, its comment marks cut) to `out`. */
static void ct_take_citation(char *start, const char *file, int at, char *out, size_t cap)
{
    start += strspn(start, "/* ");
    start[strcspn(start, "\n")] = '\0';
    size_t len = strlen(start);
    if (len >= 2 && strcmp(start + len - 2, "*/") == 0)
        start[len -= 2] = '\0';
    while (len > 0 && start[len - 1] == ' ')
        start[--len] = '\0';
    snprintf(out, cap, "%s (hicann/runtime %s; from the comment at %s:%d)", start, CT_CANN_SOURCE_COMMIT, file, at);
}

/* The source line the assertion at `line` of the suite's file `file` (as __FILE__ gave it, relative
 * to native-stub/, where the runner is <native-stub>/<build>/bin/conformance) cites in a comment: a
 * comment on its own line, else the nearest comment block above it (up to the function's start),
 * if that block holds a citation ("event.cc:720-728"). 0 if none: a citation further up may be
 * another check's. */
static int ct_cited_above(const char *self, const char *file, int line, char *out, size_t cap)
{
    char path[PATH_MAX];
    const char *slash = strrchr(self, '/');
    int dir_len = slash ? (int)(slash - self) : 0;
    if (snprintf(path, sizeof path, "%.*s/../../%s", dir_len, self, file) >= (int)sizeof path)
        return 0;
    FILE *f = fopen(path, "re");
    if (!f)
        return 0;
    enum { CT_LOOK_BACK = 40 };
    static char lines[CT_LOOK_BACK][512];
    int n = 0;
    for (int i = 1; i <= line && fgets(lines[n % CT_LOOK_BACK], sizeof lines[0], f); i++)
        n++;
    fclose(f);
    regex_t cite;
    if (n != line || regcomp(&cite, "[A-Za-z0-9_./-]+\\.(cc|cpp|c|h|hpp|md):[0-9]", REG_EXTENDED | REG_NOSUB) != 0)
        return 0;
    int found = 0, in_block = 0;
    char *own = lines[(n - 1) % CT_LOOK_BACK];
    char *trailing = strstr(own, "/*") ? strstr(own, "/*") : strstr(own, "//");
    if (trailing && regexec(&cite, trailing, 0, NULL, 0) == 0) {
        ct_take_citation(trailing, file, line, out, cap);
        found = 1;
    }
    for (int back = 1; back < CT_LOOK_BACK && back < n && !found; back++) {
        char *text = lines[(n - 1 - back) % CT_LOOK_BACK];
        if (text[0] == '}')
            break; /* the function before */
        char *start = text + strspn(text, " \t");
        int comment = strncmp(start, "/*", 2) == 0 || strncmp(start, "//", 2) == 0 || start[0] == '*';
        if (!comment) {
            if (in_block)
                break; /* the nearest comment block cites nothing */
            continue;
        }
        in_block = 1;
        if (regexec(&cite, start, 0, NULL, 0) == 0) {
            ct_take_citation(start, file, line - back, out, cap);
            found = 1;
        }
    }
    regfree(&cite);
    return found;
}

/* Under a failed case's verdict: where its first failure is (case or helper), the call, what was
 * expected and what came back, and the CANN source line, read back from its output
 * (ct_fail_check's lines; a CT_FAIL's message stands for the call). */
static void ct_print_failure(const char *self, int log_fd)
{
    static char buf[1 << 20]; /* the first failure is near the start of a case's output */
    lseek(log_fd, 0, SEEK_SET);
    ssize_t n = read(log_fd, buf, sizeof buf - 1);
    if (n <= 0)
        return;
    buf[n] = '\0';
    char *fail = strncmp(buf, "FAIL [", 6) == 0 ? buf : strstr(buf, "\nFAIL [");
    if (!fail) {
        char *skip = strncmp(buf, "SKIP [", 6) == 0 ? buf : strstr(buf, "\nSKIP [");
        char *why = skip ? strstr(skip, "] ") : NULL;
        if (why)
            printf("     failure:     skipped itself (a skip counts as a failure): %.*s\n", (int)strcspn(why + 2, "\n"),
                   why + 2);
        else
            printf("     failure:     no FAIL line in its output (a crash, a signal or a sanitizer: see below)\n");
        return;
    }
    fail += fail[0] == '\n';
    char *at = strstr(fail, "] ");
    char *eol = strchr(fail, '\n');
    if (!at || !eol || at > eol)
        return;
    *eol = '\0';
    at += 2;
    char *what = strstr(at, ": ");
    char file[256] = "";
    int line = 0;
    if (what && sscanf(at, "%255[^:]:%d", file, &line) == 2)
        *what = '\0', what += 2;
    int has_call = 0, has_source = 0;
    for (char *l = eol + 1; strncmp(l, "    ", 4) == 0 && l[4] != ' ';) {
        char *next = strchr(l, '\n');
        if (next)
            *next = '\0';
        has_call |= strncmp(l + 4, "call:", 5) == 0;
        has_source |= strncmp(l + 4, "CANN source:", 12) == 0;
        if (strncmp(l + 4, "aclGetRecentErrMsg:", 19) != 0)
            printf("     %s\n", l + 4);
        if (!next)
            break;
        l = next + 1;
    }
    if (!has_call && what)
        printf("     failure:     %s\n", what);
    char cited[700];
    if (!has_source)
        printf("     CANN source: %s\n",
               line && ct_cited_above(self, file, line, cited, sizeof cited)
                   ? cited
                   : "none cited (no CT_SOURCE; the comment above the assertion cites no line)");
    if (line)
        printf("     suite line:  %s:%d\n", file, line);
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
    ct_print_failure(self, job->log_fd);
    /* Every failed case: a watchdog's kill can come before the case declared what it made. */
    if (leftovers)
        ct_report_leftovers(job->log_fd, CT_LEFTOVERS_LIST);
    ct_clean_case_scope(self, job);
    printf("     --- the case's output ---\n");
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
/* Whether `name` contains one of the comma-separated parts of `filter` (none: every name). */
static int ct_selected(const char *name, const char *filter)
{
    if (!filter)
        return 1;
    for (const char *part = filter;; part++) {
        size_t len = strcspn(part, ",");
        if (len > 0 && len < 256) {
            char one[256];
            memcpy(one, part, len);
            one[len] = '\0';
            if (strstr(name, one))
                return 1;
        }
        part += len;
        if (!*part)
            return 0;
    }
}

/* The library line at the top of --all: which libascendcl.so the cases run against, and whether
 * it is the stub (then every case runs; else the stub-only ones are left out). */
static void ct_print_library(int is_stub, const char *path)
{
    printf("conformance: library %s (%s)\n", path,
           is_stub ? "the stub: it exports cannstub_live_view; every case runs"
                   : "not the stub: it does not export cannstub_live_view; the cases of stub-only rules are left out");
}

static int ct_run_all(const char *self, const char *filter, int jobs)
{
    struct ct_job running[CT_MAX_CASES];
    int longs[CT_MAX_CASES], shorts[CT_MAX_CASES], n_long = 0, n_short = 0, next_long = 0, next_short = 0;
    char library[PATH_MAX];
    ct_run_on_stub = ct_library_is_stub(library);
    ct_print_library(ct_run_on_stub, library);
    int left_out = 0;
    for (int i = 0; i < ct_case_count; i++) {
        if (!ct_selected(ct_cases[i].name, filter))
            continue;
        if (ct_cases[i].stub_only && !ct_run_on_stub) {
            printf("LEFT OUT %s: stub-only: %s\n", ct_cases[i].name, ct_cases[i].stub_only);
            left_out++;
            continue;
        }
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
    if (left_out)
        printf("conformance: %d passed, %d failed, %d left out (stub-only rules; this library is not the stub)\n",
               ran - failed, failed, left_out);
    else
        printf("conformance: %d passed, %d failed\n", ran - failed, failed);
    if (!ran && !left_out)
        fprintf(stderr, "conformance: no case's name contains %s%s (see --list)\n", filter ? "any of " : "",
                filter ? filter : "anything");
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
    fprintf(stderr,
            "usage: conformance --list [--kinds] | --library | --case NAME | --all [--jobs N] [FILTER[,FILTER...]]\n");
}

int main(int argc, char **argv)
{
    qsort(ct_cases, (size_t)ct_case_count, sizeof ct_cases[0], ct_cmp_entry);
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (argc == 2 && strcmp(argv[1], "--list") == 0) {
        for (int i = 0; i < ct_case_count; i++)
            printf("%s\n", ct_cases[i].name);
        return 0;
    }
    if (argc == 3 && strcmp(argv[1], "--list") == 0 && strcmp(argv[2], "--kinds") == 0) {
        for (int i = 0; i < ct_case_count; i++)
            printf("%s\t%s%s\n", ct_cases[i].name, ct_cases[i].stub_only ? "stub-only: " : "cann",
                   ct_cases[i].stub_only ? ct_cases[i].stub_only : "");
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "--library") == 0) {
        char library[PATH_MAX];
        int is_stub = ct_library_is_stub(library);
        printf("library: %s\nstub: %s\n", library, is_stub ? "yes" : "no");
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
