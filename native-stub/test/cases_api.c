/*
 * cases_api.c - the C API for native roles (harness/include/cannharness.h,
 * libcannharness.so): values and signals published and awaited in the
 * scenario directory's rendezvous layout, deadlines, marks, the safety
 * rules (no links followed, nothing trusted that is not a regular file of
 * ours), and every error path, most of them made to happen with
 * CANNHARNESS_API_FAULT. Cases that differ only in their input are rows of
 * a table run by one case.
 */
#define CT_FILE_STUB_ONLY "the harness's C API for native roles (libcannharness.so), not libascendcl"
#define _GNU_SOURCE /* nftw */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cannharness.h"
#include "support.h"

/* Expects a C API call to return `expected`, naming both codes on failure. */
#define API_CODE(expected, call)                                                                      \
    do {                                                                                              \
        int api_e_ = (expected), api_a_ = (call);                                                     \
        if (api_e_ != api_a_)                                                                         \
            CT_FAIL("%s: expected %s (%d), got %s (%d)", #call, cannharness_err_name(api_e_), api_e_, \
                    cannharness_err_name(api_a_), api_a_);                                            \
    } while (0)
#define API_OK(call) API_CODE(CANNHARNESS_OK, call)

/* The scenario environment of a role, in dir (roles: never case_dir(), which would make their own). */
static void scenario_env_in(const char *dir)
{
    setenv("CANN_HARNESS_DIR", dir, 1);
    setenv("CANN_HARNESS_ROLE", "consumer-1", 1);
    unsetenv("CANN_HARNESS_DEADLINE_NS");
    unsetenv("CANNHARNESS_API_FAULT");
}

static void scenario_env(void)
{
    scenario_env_in(case_dir());
}

static void set_deadline_in_ms(long ms)
{
    char v[32];
    snprintf(v, sizeof v, "%llu", (unsigned long long)(now_ns() + (uint64_t)ms * 1000000u));
    setenv("CANN_HARNESS_DEADLINE_NS", v, 1);
}

static void sub_path(char out[PATH_CAP * 2], const char *sub, const char *name)
{
    snprintf(out, PATH_CAP * 2, "%s/%s/%s", case_dir(), sub, name);
}

/* Entries of case_dir()/sub (excluding . and ..), or -1 if it does not exist. */
static int count_entries(const char *sub)
{
    char path[PATH_CAP * 2];
    snprintf(path, sizeof path, "%s/%s", case_dir(), sub);
    DIR *d = opendir(path);
    if (!d)
        return -1;
    int n = 0;
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
    closedir(d);
    return n;
}

/* The name of the one entry of case_dir()/sub (fails the case if there is not exactly one). */
static void only_entry(const char *sub, char *name, size_t cap)
{
    char path[PATH_CAP * 2];
    int n = 0;
    snprintf(path, sizeof path, "%s/%s", case_dir(), sub);
    DIR *d = opendir(path);
    CT_TRUE(d != NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0 && n++ == 0)
            snprintf(name, cap, "%s", e->d_name);
    closedir(d);
    CT_EQ(1, n);
}

static void native_role_path(char out[PATH_CAP])
{
    snprintf(out, PATH_CAP, "%s/../test-programs/native_role", self_dir());
}

/* Starts test/programs/native_role with argv[1..] in this case's scenario; its output goes to log. */
static pid_t spawn_native_role(const char *const *args, const char *log)
{
    char path[PATH_CAP], log_path[PATH_CAP];
    const char *argv[16] = {"native_role"};
    for (int i = 0; args[i] && i < 14; i++)
        argv[i + 1] = args[i];
    native_role_path(path);
    path_join(log_path, case_dir(), log);
    return spawn_program(path, argv, NULL, case_dir(), log_path);
}

/* ---- values and signals ---- */

CT_CASE(api_publish_then_await_returns_the_bytes_and_leaves_no_temporary_file)
{
    unsigned char handle[64], got[64] = {0};
    size_t len = 0;
    scenario_env();
    for (int i = 0; i < 64; i++)
        handle[i] = (unsigned char)(i * 7 + 1);
    API_OK(cannharness_publish("ev0", handle, sizeof handle));
    API_OK(cannharness_await("ev0", got, sizeof got, &len));
    CT_EQ(64, len);
    CT_TRUE(memcmp(handle, got, 64) == 0);
    /* the layout: handles/ev0 exactly; the temporary file was renamed away from .staging/ */
    char path[PATH_CAP * 2];
    struct stat st;
    sub_path(path, "handles", "ev0");
    CT_EQ(0, lstat(path, &st));
    CT_TRUE(S_ISREG(st.st_mode));
    CT_EQ(64, st.st_size);
    CT_EQ(1, count_entries("handles"));
    CT_EQ(0, count_entries(".staging"));
    /* publishing again replaces the value; an empty value is a value */
    API_OK(cannharness_publish("ev0", NULL, 0));
    API_OK(cannharness_await("ev0", NULL, 0, &len));
    CT_EQ(0, len);
    API_OK(cannharness_await("ev0", got, sizeof got, NULL));
}

CT_CASE(api_signal_is_an_empty_file_under_signals)
{
    char path[PATH_CAP * 2];
    struct stat st;
    scenario_env();
    API_OK(cannharness_signal("go"));
    sub_path(path, "signals", "go");
    CT_EQ(0, lstat(path, &st));
    CT_TRUE(S_ISREG(st.st_mode));
    CT_EQ(0, st.st_size);
    API_OK(cannharness_await_signal("go"));
    /* a signal is not a value: the names live in different directories */
    set_deadline_in_ms(0);
    API_CODE(CANNHARNESS_ETIMEDOUT, cannharness_await("go", NULL, 0, NULL));
}

CT_CASE(api_await_blocks_until_another_process_publishes)
{
    char buf[64];
    size_t len = 0;
    scenario_env();
    /* the peer publishes only after our signal: until then our await must block */
    const char *args[] = {"await-signal", "go", "publish", "v", "hello", "signal", "sent", NULL};
    pid_t peer = spawn_native_role(args, "peer.log");
    uint64_t t0 = now_ns(); /* before the deadline's own "now" */
    set_deadline_in_ms(BLOCK_PROBE_MS);
    API_CODE(CANNHARNESS_ETIMEDOUT, cannharness_await("v", buf, sizeof buf, &len));
    CT_TRUE(now_ns() - t0 >= (uint64_t)BLOCK_PROBE_MS * 1000000u); /* it waited for the deadline */
    unsetenv("CANN_HARNESS_DEADLINE_NS");
    API_OK(cannharness_signal("go"));
    API_OK(cannharness_await("v", buf, sizeof buf, &len));
    CT_EQ(5, len);
    CT_TRUE(memcmp(buf, "hello", 5) == 0);
    API_OK(cannharness_await_signal("sent"));
    expect_exit(peer, 0, PEER_TIMEOUT_MS);
}

CT_CASE(api_await_without_inotify_still_sees_a_publish)
{
    char buf[64];
    size_t len = 0;
    scenario_env();
    setenv("CANNHARNESS_API_FAULT", "inotify", 1);
    const char *args[] = {"await-signal", "go", "publish", "v", "late", NULL};
    pid_t peer = spawn_native_role(args, "peer.log");
    API_OK(cannharness_signal("go"));
    API_OK(cannharness_await("v", buf, sizeof buf, &len)); /* the 25 ms re-check finds it */
    CT_EQ(4, len);
    expect_exit(peer, 0, PEER_TIMEOUT_MS);
}

CT_CASE(api_await_times_out_at_the_scenario_deadline)
{
    scenario_env();
    set_deadline_in_ms(-1000); /* already passed: one look, then the timeout */
    API_CODE(CANNHARNESS_ETIMEDOUT, cannharness_await_signal("never"));
    uint64_t t0 = now_ns(); /* before the deadline's own "now" */
    set_deadline_in_ms(BLOCK_PROBE_MS);
    API_CODE(CANNHARNESS_ETIMEDOUT, cannharness_await("never", NULL, 0, NULL));
    CT_TRUE(now_ns() - t0 >= (uint64_t)BLOCK_PROBE_MS * 1000000u);
    /* a value that is there is returned even after the deadline */
    unsetenv("CANN_HARNESS_DEADLINE_NS");
    API_OK(cannharness_signal("there"));
    set_deadline_in_ms(-1000);
    API_OK(cannharness_await_signal("there"));
}

CT_CASE(api_await_larger_value_than_the_buffer_is_e2big_with_its_size)
{
    char buf[8] = "unset";
    size_t len = 0;
    scenario_env();
    API_OK(cannharness_publish("big", "0123456789abcdef", 16));
    API_CODE(CANNHARNESS_E2BIG, cannharness_await("big", buf, sizeof buf, &len));
    CT_EQ(16, len);
    CT_TRUE(strcmp(buf, "unset") == 0);
}

struct removed_await {
    int rc;
};

static void *await_in_thread(void *arg)
{
    struct removed_await *r = arg;
    r->rc = cannharness_await_signal("never");
    return NULL;
}

/* 1 once this process has an inotify descriptor with a watch (the await is past inotify_add_watch). */
static int inotify_watch_added(void)
{
    DIR *d = opendir("/proc/self/fdinfo");
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
        char path[PATH_CAP], text[4096];
        snprintf(path, sizeof path, "/proc/self/fdinfo/%s", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        size_t n = fread(text, 1, sizeof text - 1, f);
        text[n] = '\0';
        fclose(f);
        found = strstr(text, "inotify wd:") != NULL;
    }
    if (d)
        closedir(d);
    return found;
}

CT_CASE(api_await_ends_when_the_directory_is_removed)
{
    pthread_t t;
    struct removed_await r = {1};
    char path[PATH_CAP * 2];
    scenario_env();
    set_deadline_in_ms(PEER_TIMEOUT_MS); /* a backstop only: removal must end it first */
    CT_EQ(0, pthread_create(&t, NULL, await_in_thread, &r));
    uint64_t give_up = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000u;
    while (!inotify_watch_added() && now_ns() < give_up)
        sleep_ms(1);
    snprintf(path, sizeof path, "%s/signals", case_dir());
    CT_EQ(0, rmdir(path));
    CT_EQ(0, pthread_join(t, NULL));
    API_CODE(CANNHARNESS_EREMOVED, r.rc);
}

/* The harness may remove the scenario directory before a role's first call (a run that ended, a
 * watchdog): every call says the scenario is over, not a system error. The directory is reached
 * through /proc/self/fd, which still opens it after its removal. */
CT_CASE(api_calls_in_a_removed_scenario_directory_are_eremoved)
{
    char scenario[PATH_CAP], through_fd[64];
    char value[8];
    size_t len = 0;
    path_join(scenario, case_dir(), "scenario");
    CT_EQ(0, mkdir(scenario, 0700));
    int fd = open(scenario, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    CT_TRUE(fd >= 0);
    CT_EQ(0, rmdir(scenario));
    snprintf(through_fd, sizeof through_fd, "/proc/self/fd/%d", fd);
    scenario_env_in(through_fd);
    set_deadline_in_ms(PEER_TIMEOUT_MS); /* a backstop only */
    API_CODE(CANNHARNESS_EREMOVED, cannharness_await_signal("never"));
    API_CODE(CANNHARNESS_EREMOVED, cannharness_await("never", value, sizeof value, &len));
    API_CODE(CANNHARNESS_EREMOVED, cannharness_signal("late"));
    API_CODE(CANNHARNESS_EREMOVED, cannharness_mark("late"));
    close(fd);
}

/* ---- argument and environment rules (rows) ---- */

static const char long_name[] =
    "a123456789b123456789c123456789d123456789e123456789f123456789g123456789h123456789i123456789j123456789"
    "a123456789b123456789c123456789d123456789e123456789f123456789g123456789h123456789i123456789j1234567890";

CT_CASE(api_invalid_names_are_einval_for_every_call)
{
    static const char *const names[] = {"", ".hidden", "a/b", "..", "sp ace", "tab\t", long_name, NULL};
    scenario_env();
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        const char *n = names[i];
        ct_note("name %zu", i);
        API_CODE(CANNHARNESS_EINVAL, cannharness_publish(n, "x", 1));
        API_CODE(CANNHARNESS_EINVAL, cannharness_await(n, NULL, 0, NULL));
        API_CODE(CANNHARNESS_EINVAL, cannharness_signal(n));
        API_CODE(CANNHARNESS_EINVAL, cannharness_await_signal(n));
    }
    /* 200 characters is the limit, not 199 */
    char exact[201];
    memcpy(exact, long_name, 200);
    exact[200] = '\0';
    API_OK(cannharness_signal(exact));
    /* data NULL with a length; buffer NULL with a capacity */
    API_CODE(CANNHARNESS_EINVAL, cannharness_publish("v", NULL, 3));
    API_CODE(CANNHARNESS_EINVAL, cannharness_await("v", NULL, 3, NULL));
    /* marks: any bytes but control characters, 1-200 of them */
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark(NULL));
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark(""));
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark("line\nbreak"));
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark("line\xe2\x80\xa8separator")); /* U+2028 ends a JS line */
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark("para\xe2\x80\xa9separator")); /* U+2029 */
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark("c1\xc2\x85"
                                                  "control"));           /* U+0085 NEL */
    API_OK(cannharness_mark("caf\xc3\xa9 \xe2\x80\xa6"));                       /* other UTF-8 is fine */
    API_CODE(CANNHARNESS_EINVAL, cannharness_mark(long_name));
    API_OK(cannharness_mark("after wait (a space is fine)"));
}

static const struct env_row {
    const char *dir, *role, *deadline; /* NULL: unset */
    int publish_rc, await_rc, mark_rc;
} env_rows[] = {
    {NULL, "r", NULL, CANNHARNESS_ENOENV, CANNHARNESS_ENOENV, CANNHARNESS_ENOENV},
    {"relative/dir", "r", NULL, CANNHARNESS_ENOENV, CANNHARNESS_ENOENV, CANNHARNESS_ENOENV},
    {"/nonexistent-cannharness-dir", "r", NULL, CANNHARNESS_ENOENV, CANNHARNESS_ENOENV, CANNHARNESS_ENOENV},
    {"", NULL, NULL, CANNHARNESS_OK, CANNHARNESS_OK, CANNHARNESS_ENOENV},             /* "" = the case dir */
    {"", "bad/role", NULL, CANNHARNESS_OK, CANNHARNESS_OK, CANNHARNESS_ENOENV},
    {"", "r", "12abc", CANNHARNESS_OK, CANNHARNESS_EDEADLINE, CANNHARNESS_OK},
    {"", "r", "-5", CANNHARNESS_OK, CANNHARNESS_EDEADLINE, CANNHARNESS_OK},
    {"", "r", "123456789012345678901234", CANNHARNESS_OK, CANNHARNESS_EDEADLINE, CANNHARNESS_OK},
    {"", "r", "", CANNHARNESS_OK, CANNHARNESS_OK, CANNHARNESS_OK}, /* empty = no deadline */
};

CT_CASE(api_environment_rules)
{
    for (size_t i = 0; i < sizeof env_rows / sizeof env_rows[0]; i++) {
        const struct env_row *r = &env_rows[i];
        ct_note("row %zu", i);
        scenario_env();
        if (!r->dir)
            unsetenv("CANN_HARNESS_DIR");
        else if (r->dir[0])
            setenv("CANN_HARNESS_DIR", r->dir, 1);
        if (r->role)
            setenv("CANN_HARNESS_ROLE", r->role, 1);
        else
            unsetenv("CANN_HARNESS_ROLE");
        if (r->deadline)
            setenv("CANN_HARNESS_DEADLINE_NS", r->deadline, 1);
        API_CODE(r->publish_rc, cannharness_publish("v", "1", 1));
        API_CODE(r->await_rc, cannharness_await("v", (char[4]){0}, 4, NULL));
        /* (once a mark succeeded, this process's marks file stays open: the failing rows come first) */
        API_CODE(r->mark_rc, cannharness_mark("m"));
    }
}

CT_CASE(api_error_names_and_texts)
{
    static const struct {
        int code;
        const char *name;
    } rows[] = {
        {CANNHARNESS_OK, "CANNHARNESS_OK"},
        {CANNHARNESS_EINVAL, "CANNHARNESS_EINVAL"},
        {CANNHARNESS_ENOENV, "CANNHARNESS_ENOENV"},
        {CANNHARNESS_EDEADLINE, "CANNHARNESS_EDEADLINE"},
        {CANNHARNESS_ETIMEDOUT, "CANNHARNESS_ETIMEDOUT"},
        {CANNHARNESS_E2BIG, "CANNHARNESS_E2BIG"},
        {CANNHARNESS_EUNSAFE, "CANNHARNESS_EUNSAFE"},
        {CANNHARNESS_EREMOVED, "CANNHARNESS_EREMOVED"},
        {CANNHARNESS_ESYS, "CANNHARNESS_ESYS"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        CT_TRUE(strcmp(cannharness_err_name(rows[i].code), rows[i].name) == 0);
        const char *text = cannharness_strerror(rows[i].code);
        CT_TRUE(text && text[0] && strcmp(text, "unknown error code") != 0);
        for (size_t j = 0; j < i; j++) /* every code has a text of its own */
            CT_TRUE(strcmp(text, cannharness_strerror(rows[j].code)) != 0);
    }
    CT_TRUE(strcmp(cannharness_err_name(-99), "?") == 0);
    CT_TRUE(strcmp(cannharness_strerror(7), "unknown error code") == 0);
}

/* ---- what it refuses (rows): links, FIFOs, directories planted at a name ---- */

enum plant { PLANT_LINK, PLANT_FIFO, PLANT_DIR };
static const struct unsafe_row {
    const char *sub; /* where: "handles" or "signals", or the layout directory itself when name is NULL */
    const char *name;
    enum plant what;
} unsafe_rows[] = {
    {"handles", "v", PLANT_LINK},  {"handles", "v", PLANT_FIFO}, {"handles", "v", PLANT_DIR},
    {"signals", "v", PLANT_LINK},  {"signals", "v", PLANT_FIFO}, {"handles", NULL, PLANT_LINK},
    {"signals", NULL, PLANT_LINK},
};

CT_CASE(api_awaits_refuse_links_fifos_and_directories)
{
    char target_dir[PATH_CAP], target_file[PATH_CAP], path[PATH_CAP * 2];
    /* a link at a value's name points to a readable file: only O_NOFOLLOW stops it */
    path_join(target_dir, case_dir(), "elsewhere");
    CT_EQ(0, mkdir(target_dir, 0700));
    path_join(target_file, case_dir(), "elsewhere-file");
    int fd = open(target_file, O_WRONLY | O_CREAT | O_EXCL, 0600);
    CT_TRUE(fd >= 0);
    close(fd);
    for (size_t i = 0; i < sizeof unsafe_rows / sizeof unsafe_rows[0]; i++) {
        const struct unsafe_row *r = &unsafe_rows[i];
        char dir[PATH_CAP];
        ct_note("row %zu", i);
        scenario_env();
        snprintf(dir, sizeof dir, "%s/scenario-%zu", case_dir(), i);
        CT_EQ(0, mkdir(dir, 0700));
        setenv("CANN_HARNESS_DIR", dir, 1);
        set_deadline_in_ms(PEER_TIMEOUT_MS); /* a refusal is immediate; the deadline is a backstop */
        snprintf(path, sizeof path, "%s/%s", dir, r->sub);
        if (r->name) {
            CT_EQ(0, mkdir(path, 0755));
            snprintf(path, sizeof path, "%s/%s/%s", dir, r->sub, r->name);
        }
        CT_EQ(0, r->what == PLANT_LINK   ? symlink(r->name ? target_file : target_dir, path)
                 : r->what == PLANT_FIFO ? mkfifo(path, 0600)
                                         : mkdir(path, 0700));
        int rc = strcmp(r->sub, "handles") == 0 ? cannharness_await("v", NULL, 0, NULL) : cannharness_await_signal("v");
        API_CODE(CANNHARNESS_EUNSAFE, rc);
    }
}

CT_CASE(api_publish_replaces_a_planted_link_and_never_writes_through_it)
{
    char target[PATH_CAP], path[PATH_CAP * 2], buf[8];
    size_t len;
    struct stat st;
    scenario_env();
    path_join(target, case_dir(), "victim");
    int fd = open(target, O_WRONLY | O_CREAT | O_EXCL, 0600);
    CT_TRUE(fd >= 0);
    close(fd);
    snprintf(path, sizeof path, "%s/handles", case_dir());
    CT_EQ(0, mkdir(path, 0755));
    sub_path(path, "handles", "v");
    CT_EQ(0, symlink(target, path));
    API_OK(cannharness_publish("v", "data", 4));
    CT_EQ(0, lstat(path, &st));
    CT_TRUE(S_ISREG(st.st_mode)); /* the link was replaced by the rename */
    CT_EQ(0, stat(target, &st));
    CT_EQ(0, st.st_size); /* and nothing went through it */
    API_OK(cannharness_await("v", buf, sizeof buf, &len));
    CT_EQ(4, len);
    /* the layout directory itself a link: refused for publishing too */
    snprintf(path, sizeof path, "%s/signals", case_dir());
    CT_EQ(0, symlink(case_dir(), path));
    API_CODE(CANNHARNESS_EUNSAFE, cannharness_signal("go"));
    /* .staging a link: the publish stages next to the final name instead, and works */
    snprintf(path, sizeof path, "%s/.staging", case_dir());
    CT_EQ(0, rmdir(path)); /* made (and left empty) by the publishes above */
    CT_EQ(0, symlink(target, path));
    API_OK(cannharness_publish("w", "ok", 2));
    CT_EQ(1 + 1, count_entries("handles")); /* v and w, no temporary file left */
}

/* ---- every failing system call (rows, CANNHARNESS_API_FAULT) ---- */

enum op { OP_PUBLISH, OP_AWAIT, OP_MARK };
static const struct fault_row {
    const char *fault;
    enum op op;
    int rc;
} fault_rows[] = {
    {"mkdir", OP_PUBLISH, CANNHARNESS_ESYS},
    {"temp-open", OP_PUBLISH, CANNHARNESS_ESYS},
    {"write", OP_PUBLISH, CANNHARNESS_ESYS},
    {"sync", OP_PUBLISH, CANNHARNESS_ESYS},
    {"rename", OP_PUBLISH, CANNHARNESS_ESYS},
    {"read", OP_AWAIT, CANNHARNESS_ESYS},
    {"mkdir:3", OP_AWAIT, CANNHARNESS_ESYS},
    /* the publish before the await makes handles/ and .staging/ */ {"marks-open", OP_MARK, CANNHARNESS_ESYS},
    {"marks-write", OP_MARK, CANNHARNESS_ESYS},
    {"mkdir", OP_MARK, CANNHARNESS_ESYS},
    {"not-a-point,temp-open:0", OP_PUBLISH, CANNHARNESS_OK}, /* a spec it does not understand is ignored */
};

CT_ROLE(api_fault_row)
{
    const struct fault_row *r = &fault_rows[atoi(argv[0])];
    scenario_env_in(argv[1]);
    setenv("CANNHARNESS_API_FAULT", r->fault, 1); /* read at the first call */
    if (r->op == OP_AWAIT) /* the value is there: the fault is in reading it */
        API_OK(cannharness_publish("v", "value", 5));
    int rc = r->op == OP_PUBLISH ? cannharness_publish("v", "value", 5)
             : r->op == OP_AWAIT ? cannharness_await("v", (char[8]){0}, 8, NULL)
                                 : cannharness_mark("m");
    API_CODE(r->rc, rc);
    return 0;
}

CT_LONG_CASE(api_every_failing_system_call_is_reported_and_leaves_nothing)
{
    for (size_t i = 0; i < sizeof fault_rows / sizeof fault_rows[0]; i++) {
        char row[16], dir[PATH_CAP];
        ct_note("row %zu: %s", i, fault_rows[i].fault);
        snprintf(row, sizeof row, "%zu", i);
        snprintf(dir, sizeof dir, "%s/scenario-%zu", case_dir(), i);
        CT_EQ(0, mkdir(dir, 0700));
        /* the fault counters are per process: one process per row */
        const char *args[] = {row, dir, NULL};
        expect_exit(spawn_role("api_fault_row", args, NULL), 0, PEER_TIMEOUT_MS);
        char staging[PATH_CAP];
        snprintf(staging, sizeof staging, "scenario-%zu/.staging", i);
        CT_TRUE(count_entries(staging) <= 0); /* no temporary file left behind */
    }
}

/* ---- marks ---- */

/* Reads marks/<file> of the case dir into text; returns its line count. */
static int read_marks(const char *file, char *text, size_t cap)
{
    char path[PATH_CAP * 2];
    sub_path(path, "marks", file);
    int fd = open(path, O_RDONLY);
    CT_TRUE(fd >= 0);
    ssize_t n = read(fd, text, cap - 1);
    close(fd);
    CT_TRUE(n >= 0);
    text[n] = '\0';
    int lines = 0;
    for (ssize_t i = 0; i < n; i++)
        lines += text[i] == '\n';
    return lines;
}

CT_CASE(api_marks_are_lines_of_monotonic_ns_and_name_in_a_file_per_process)
{
    char file[64], text[4096];
    scenario_env();
    uint64_t before = now_ns();
    API_OK(cannharness_mark("release"));
    API_OK(cannharness_mark("record done"));
    uint64_t after = now_ns();
    snprintf(file, sizeof file, "consumer-1.%d.marks", (int)getpid());
    CT_EQ(2, read_marks(file, text, sizeof text));
    unsigned long long t1 = 0, t2 = 0;
    char n1[64], n2[64];
    CT_EQ(2, sscanf(text, "%llu %63[^\n]", &t1, n1));
    CT_EQ(2, sscanf(strchr(text, '\n') + 1, "%llu %63[^\n]", &t2, n2));
    CT_TRUE(strcmp(n1, "release") == 0 && strcmp(n2, "record done") == 0);
    CT_TRUE(before <= t1 && t1 <= t2 && t2 <= after);
}

CT_ROLE(api_mark_after_fork)
{
    /* a process that marked, then forked: the child files its marks under its own pid */
    scenario_env_in(argv[0]);
    API_OK(cannharness_mark("parent"));
    pid_t child = fork();
    if (child == 0)
        _exit(cannharness_mark("child") == CANNHARNESS_OK ? 0 : 1);
    int status = 0;
    CT_EQ(child, waitpid(child, &status, 0));
    CT_EQ(0, status);
    return 0;
}

CT_CASE(api_marks_of_a_forked_child_go_to_its_own_file)
{
    const char *args[] = {case_dir(), NULL};
    expect_exit(spawn_role("api_mark_after_fork", args, NULL), 0, PEER_TIMEOUT_MS);
    CT_EQ(2, count_entries("marks"));
}

struct marker {
    int index;
    int rc;
};

static void *mark_many(void *arg)
{
    struct marker *m = arg;
    char name[32];
    for (int i = 0; i < 50 && m->rc == CANNHARNESS_OK; i++) {
        snprintf(name, sizeof name, "t%d-%d", m->index, i);
        m->rc = cannharness_mark(name);
    }
    return NULL;
}

CT_CASE(api_marks_from_many_threads_are_whole_lines_in_one_file)
{
    pthread_t t[4];
    struct marker m[4];
    char file[256], text[16384]; /* a d_name fits */
    scenario_env();
    for (int i = 0; i < 4; i++) {
        m[i] = (struct marker){i, CANNHARNESS_OK};
        CT_EQ(0, pthread_create(&t[i], NULL, mark_many, &m[i]));
    }
    for (int i = 0; i < 4; i++) {
        CT_EQ(0, pthread_join(t[i], NULL));
        API_OK(m[i].rc);
    }
    CT_EQ(1, count_entries("marks")); /* a racing first mark's extra file is removed */
    /* Which thread's file is kept is the race's (marks.c takes no lock): <role>.<pid>.marks, or the
     * <role>.<pid>-<k>.marks a thread made when that name was taken. */
    only_entry("marks", file, sizeof file);
    char ours[64];
    int len = snprintf(ours, sizeof ours, "consumer-1.%d", (int)getpid());
    CT_TRUE(strncmp(file, ours, (size_t)len) == 0 && (file[len] == '.' || file[len] == '-'));
    CT_EQ(200, read_marks(file, text, sizeof text));
    for (char *line = text; *line; line = strchr(line, '\n') + 1) {
        unsigned long long ns;
        int a, b, used = 0;
        CT_EQ(3, sscanf(line, "%llu t%d-%d%n", &ns, &a, &b, &used));
        CT_TRUE(line[used] == '\n');
    }
}

CT_CASE(api_marks_file_taken_by_a_planted_link_is_not_followed)
{
    char path[PATH_CAP * 2], target[PATH_CAP], file[64], text[256];
    struct stat st;
    scenario_env();
    path_join(target, case_dir(), "victim");
    CT_EQ(0, mkdir(target, 0700));
    snprintf(path, sizeof path, "%s/marks", case_dir());
    CT_EQ(0, mkdir(path, 0755));
    snprintf(file, sizeof file, "consumer-1.%d.marks", (int)getpid());
    sub_path(path, "marks", file);
    char link_target[PATH_CAP * 2];
    snprintf(link_target, sizeof link_target, "%s/planted", target);
    CT_EQ(0, symlink(link_target, path));
    API_OK(cannharness_mark("m"));
    CT_TRUE(lstat(link_target, &st) != 0); /* nothing created through the link */
    snprintf(file, sizeof file, "consumer-1.%d-1.marks", (int)getpid());
    CT_EQ(1, read_marks(file, text, sizeof text));
    /* the marks directory itself a link: refused */
    snprintf(path, sizeof path, "%s/other", case_dir());
    CT_EQ(0, mkdir(path, 0700));
    setenv("CANN_HARNESS_DIR", path, 1);
    snprintf(path, sizeof path, "%s/other/marks", case_dir());
    CT_EQ(0, symlink(target, path));
    /* this process's marks file is open already; a new process meets the link */
    const char *role_args[] = {"mark", "m", NULL};
    pid_t p = spawn_native_role(role_args, "other/role.log");
    CT_EQ(-CANNHARNESS_EUNSAFE, wait_exit(p, PEER_TIMEOUT_MS));
}

static int remove_entry(const char *path, const struct stat *st, int type, struct FTW *ftw)
{
    (void)st;
    (void)ftw;
    return type == FTW_DP ? rmdir(path) : unlink(path);
}

/* After the harness removed the scenario directory, a link re-created at its path (by anyone) must
 * not be followed: every call says EREMOVED (the scenario is over) and writes nothing anywhere. */
CT_CASE(api_a_link_recreated_at_a_removed_scenario_directory_is_not_followed)
{
    char scenario[PATH_CAP], elsewhere[PATH_CAP];
    char value[8];
    size_t len = 0;
    path_join(scenario, case_dir(), "scenario");
    path_join(elsewhere, case_dir(), "elsewhere");
    CT_EQ(0, mkdir(scenario, 0700));
    CT_EQ(0, mkdir(elsewhere, 0700));
    scenario_env_in(scenario);
    API_OK(cannharness_signal("early")); /* the run is going on */
    CT_EQ(0, nftw(scenario, remove_entry, 8, FTW_DEPTH | FTW_PHYS));
    CT_EQ(0, symlink(elsewhere, scenario));
    set_deadline_in_ms(PEER_TIMEOUT_MS); /* a backstop only */
    API_CODE(CANNHARNESS_EREMOVED, cannharness_signal("late"));
    API_CODE(CANNHARNESS_EREMOVED, cannharness_publish("late", "v", 1));
    API_CODE(CANNHARNESS_EREMOVED, cannharness_await("late", value, sizeof value, &len));
    API_CODE(CANNHARNESS_EREMOVED, cannharness_mark("late"));
    DIR *d = opendir(elsewhere);
    CT_TRUE(d != NULL);
    for (struct dirent *e; (e = readdir(d)) != NULL;)
        if (strcmp(e->d_name, ".") && strcmp(e->d_name, ".."))
            CT_FAIL("a call wrote %s/%s through the link", elsewhere, e->d_name);
    closedir(d);
}

/* A scenario directory that cannot be opened for another reason than "missing" is a system error
 * (ESYS, with its errno), not "unset or invalid" (ENOENV): here, no descriptor is left (EMFILE). */
CT_CASE(api_a_scenario_directory_that_cannot_be_opened_is_esys)
{
    char scenario[PATH_CAP];
    path_join(scenario, case_dir(), "never-opened-yet");
    CT_EQ(0, mkdir(scenario, 0700));
    scenario_env_in(scenario);
    int next = dup(0);
    CT_TRUE(next >= 0);
    close(next);
    struct rlimit saved, tight;
    CT_EQ(0, getrlimit(RLIMIT_NOFILE, &saved));
    tight = saved;
    tight.rlim_cur = (rlim_t)next; /* the next descriptor would be past the limit */
    CT_EQ(0, setrlimit(RLIMIT_NOFILE, &tight));
    int rc = cannharness_signal("x");
    CT_EQ(0, setrlimit(RLIMIT_NOFILE, &saved));
    API_CODE(CANNHARNESS_ESYS, rc);
}
