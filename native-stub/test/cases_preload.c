/*
 * cases_preload.c - libcannharness_preload.so (harness/preload/preload.c), the library
 * the harness preloads into native roles: its constructor starts the
 * watchdog only when CANN_HARNESS_NATIVE_WATCH=1 (and hides that from the
 * program's children), and its ACL wrappers write the call records the hang
 * report reads, in the binding's format: main thread in slot 0, other
 * threads from slot 1, nested calls counted once. The helper processes here
 * are the runner itself, started with LD_PRELOAD as the harness starts a
 * native role. (test/orchestrator/native-hang.test.ts checks the same
 * through the hang report and its wait-for graph.)
 */
#define CT_FILE_STUB_ONLY "the harness's preloaded library (libcannharness_preload.so), not libascendcl"
#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cannharness.h"
#include "support.h"
#include "watch.h"

/* The call record's words (src/acl/call-record.ts): seq, active, text length. */
static int32_t record_word(int slot, int w)
{
    const unsigned char *rec =
        (const unsigned char *)cannharness_call_records() + (size_t)slot * CANNHARNESS_CALL_RECORD_BYTES;
    return __atomic_load_n((const int32_t *)(const void *)rec + w, __ATOMIC_ACQUIRE);
}

/* The record's "name\nargs" (read while no write is in progress: the writer is blocked or done). */
static void record_text(int slot, char *out, size_t cap)
{
    const unsigned char *rec =
        (const unsigned char *)cannharness_call_records() + (size_t)slot * CANNHARNESS_CALL_RECORD_BYTES;
    size_t len = (size_t)record_word(slot, 2);
    if (len >= cap)
        len = cap - 1;
    for (size_t i = 0; i < len; i++)
        out[i] = (char)__atomic_load_n(rec + 24 + i, __ATOMIC_RELAXED);
    out[len] = '\0';
}

static const char *preload_env(char out[PATH_CAP * 2])
{
    snprintf(out, PATH_CAP * 2, "LD_PRELOAD=%s/../lib64/libcannharness_preload.so", self_dir());
    return out;
}

/* ASan wants its runtime first in the library list; a preloaded library comes before it. */
#define SANITIZER_ENV "ASAN_OPTIONS=detect_leaks=1:abort_on_error=0:verify_asan_link_order=0"

static void *synchronize_in_thread(void *stream)
{
    CT_OK(aclrtSetDevice(0)); /* a new thread has no current device */
    CT_OK(aclrtSynchronizeStream(stream));
    return NULL;
}

/* 1 once slot's record says a call is in progress. */
static int record_active(int slot)
{
    return record_word(slot, 0) % 2 == 0 && record_word(slot, 1) == 1;
}

CT_ROLE(preload_records_blocking_calls)
{
    char text[1100], expected[128];
    pthread_t t;
    (void)argv;
    acl_up(0);
    aclrtStream stream = stream_new();
    struct gate *g = gate_hold(stream);
    gate_await_entered(g);
    /* another thread blocks in synchronize: slot 1 shows the call and its stream, as the binding writes them */
    CT_EQ(0, pthread_create(&t, NULL, synchronize_in_thread, stream));
    uint64_t give_up = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000u;
    while (!record_active(1) && now_ns() < give_up)
        sleep_ms(1);
    record_text(1, text, sizeof text);
    snprintf(expected, sizeof expected, "aclrtSynchronizeStream\nstream=%p", stream);
    if (strcmp(text, expected) != 0)
        CT_FAIL("thread record: expected \"%s\", got \"%s\"", expected, text);
    CT_EQ(0, record_word(0, 0)); /* the main thread made no blocking call yet */
    /* the main thread's timed-out synchronize: slot 0, and over once it returned */
    EXPECT_STREAM_BLOCKED(stream);
    CT_EQ(2, record_word(0, 0));
    CT_EQ(0, record_word(0, 1));
    record_text(0, text, sizeof text);
    snprintf(expected, sizeof expected, "aclrtSynchronizeStreamWithTimeout\nstream=%p, timeout=%d", stream,
             BLOCK_PROBE_MS);
    if (strcmp(text, expected) != 0)
        CT_FAIL("main record: expected \"%s\", got \"%s\"", expected, text);
    gate_release(g);
    CT_EQ(0, pthread_join(t, NULL));
    CT_EQ(0, record_word(1, 1));
    /* the default stream is named as the binding names it */
    CT_OK(aclrtSynchronizeStream(NULL));
    record_text(0, text, sizeof text);
    CT_TRUE(strcmp(text, "aclrtSynchronizeStream\nstream=NULL(default)") == 0);
    /* aclFinalize: recorded, and ended */
    acl_down();
    CT_EQ(6, record_word(0, 0)); /* three calls on the main thread */
    CT_EQ(0, record_word(0, 1));
    record_text(0, text, sizeof text);
    CT_TRUE(strncmp(text, "aclFinalize\n", 12) == 0);
    return 0;
}

CT_CASE(preload_wrappers_write_the_bindings_call_records)
{
    char preload[PATH_CAP * 2];
    const char *env[] = {preload_env(preload), SANITIZER_ENV, "CANN_HARNESS_NATIVE_WATCH", NULL};
    expect_exit(spawn_role("preload_records_blocking_calls", NULL, env), 0, PEER_TIMEOUT_MS);
}

/* 1 if this process has a thread named harness-watch (the watchdog). */
static int watchdog_running(void)
{
    DIR *d = opendir("/proc/self/task");
    int found = 0;
    for (struct dirent *e; d && !found && (e = readdir(d)) != NULL;) {
        char path[300], comm[64] = "";
        snprintf(path, sizeof path, "/proc/self/task/%s/comm", e->d_name);
        FILE *f = fopen(path, "r");
        if (!f)
            continue;
        found = fgets(comm, sizeof comm, f) && strcmp(comm, "harness-watch\n") == 0;
        fclose(f);
    }
    if (d)
        closedir(d);
    return found;
}

/* argv[0]: "1" if a watchdog must run here. Exit 0 if as expected. */
CT_ROLE(preload_watch_state)
{
    int expected = strcmp(argv[0], "1") == 0;
    if (watchdog_running() != expected)
        CT_FAIL("watchdog running: expected %d", expected);
    /* never handed on: the program's own children must not start one */
    CT_TRUE(getenv("CANN_HARNESS_NATIVE_WATCH") == NULL || !expected);
    if (expected) /* a second start is refused: one watchdog per process */
        CT_EQ(-EALREADY, cannharness_watch_start(getppid(), NULL, 0, NULL));
    return 0;
}

static const struct watch_row {
    const char *watch, *parent; /* NULL: unset; parent "self": the case's pid */
    const char *expect_running;
} watch_rows[] = {
    {"1", "self", "1"}, /* as the harness starts a native role */
    {NULL, "self", "0"}, /* not asked: a program preloaded by hand */
    {"0", "self", "0"},  {"1", NULL, "0"},    /* asked, but no parent pid: says so, runs on */
    {"1", "12ab", "0"},  {"1", "-4", "0"},
};

CT_LONG_CASE(preload_starts_the_watchdog_only_when_asked)
{
    char preload[PATH_CAP * 2], parent[64], watch[64];
    for (size_t i = 0; i < sizeof watch_rows / sizeof watch_rows[0]; i++) {
        const struct watch_row *r = &watch_rows[i];
        ct_note("row %zu", i);
        if (r->parent && strcmp(r->parent, "self") == 0)
            snprintf(parent, sizeof parent, "CANN_HARNESS_PARENT_PID=%d", (int)getpid());
        else if (r->parent)
            snprintf(parent, sizeof parent, "CANN_HARNESS_PARENT_PID=%s", r->parent);
        else
            snprintf(parent, sizeof parent, "CANN_HARNESS_PARENT_PID");
        if (r->watch)
            snprintf(watch, sizeof watch, "CANN_HARNESS_NATIVE_WATCH=%s", r->watch);
        else
            snprintf(watch, sizeof watch, "CANN_HARNESS_NATIVE_WATCH");
        const char *env[] = {preload_env(preload), SANITIZER_ENV, parent, watch, "CANN_HARNESS_KEEP=1", NULL};
        const char *args[] = {r->expect_running, NULL};
        expect_exit(spawn_role("preload_watch_state", args, env), 0, PEER_TIMEOUT_MS);
    }
}

/* args: scenario dir, status dir. Starts native_role as the harness starts a native role (its own
 * process group, this process as CANN_HARNESS_PARENT_PID), waits until it runs its first step,
 * then exits: the role is orphaned and must notice. */
CT_ROLE(preload_middle)
{
    char program[PATH_CAP * 2], preload[PATH_CAP * 2], parent[32], marks_file[64];
    snprintf(program, sizeof program, "%s/../test-programs/native_role", self_dir());
    snprintf(parent, sizeof parent, "%d", (int)getpid());
    setenv("LD_PRELOAD", preload_env(preload) + strlen("LD_PRELOAD="), 1);
    setenv("ASAN_OPTIONS", strchr(SANITIZER_ENV, '=') + 1, 1);
    setenv("CANN_HARNESS_NATIVE_WATCH", "1", 1);
    setenv("CANN_HARNESS_PARENT_PID", parent, 1);
    setenv("CANN_HARNESS_DIR", argv[0], 1);
    setenv("CANN_HARNESS_ROLE", "consumer", 1);
    setenv("CANN_HARNESS_KEEP", "0", 1);
    pid_t role = fork();
    if (role < 0)
        CT_FAIL("fork: %s", strerror(errno));
    if (role == 0) {
        setpgid(0, 0); /* detached, as the orchestrator spawns a role */
        execl(program, "native_role", "mark", "started", "await-signal", "never", (char *)NULL);
        _exit(127);
    }
    publish_u64(argv[1], "orphan", (uint64_t)role);
    char marks_dir[PATH_CAP];
    snprintf(marks_dir, sizeof marks_dir, "%s/marks", argv[0]);
    snprintf(marks_file, sizeof marks_file, "consumer.%d.marks", (int)role);
    uint64_t give_up = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000u;
    while (!file_exists(marks_dir, marks_file) && now_ns() < give_up)
        sleep_ms(1);
    CT_TRUE(file_exists(marks_dir, marks_file));
    return 0; /* the role is re-parented to the case: its watchdog must notice */
}

CT_CASE(preload_orphaned_native_role_removes_its_scenario_and_dies)
{
    char scenario[PATH_CAP];
    struct stat st;
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0) /* the orphan comes to us, so that we can reap it */
        CT_FAIL("prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
    path_join(scenario, case_dir(), "scenario");
    CT_EQ(0, mkdir(scenario, 0700));
    const char *args[] = {scenario, case_dir(), NULL};
    expect_exit(spawn_role("preload_middle", args, NULL), 0, PEER_TIMEOUT_MS);
    pid_t orphan = (pid_t)await_u64(case_dir(), "orphan", PEER_TIMEOUT_MS);
    /* Killed with its group; or, as the watchdog removes the scenario directory before the kill,
     * its await may see the removal first and end the program (exit 7: CANNHARNESS_EREMOVED). */
    int code = wait_exit(orphan, PEER_TIMEOUT_MS);
    if (code != 128 + SIGKILL && code != -CANNHARNESS_EREMOVED)
        CT_FAIL("the orphaned role exited with %d, expected 137 (SIGKILL) or 7 (its await saw the removal)", code);
    CT_TRUE(lstat(scenario, &st) != 0); /* and it removed the scenario directory (keep 0) */
}
