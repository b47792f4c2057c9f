/*
 * cases_watch.c - the harness's native watchdog (harness/hold/watch.h, in
 * libcannharness_hold.so; not part of the ACL API): an orphaned process
 * removes its scenario directory (or keeps it) and kills its process group,
 * also when the parent was already dead at start; a hang request is
 * answered with the call records, the threads and the live view, in JSON
 * with every string escaped; the argument and once-only rules.
 *
 * The orphan cases make the case process a child subreaper, so the orphan
 * (and its group) are re-parented to it: getppid() then changes as it does
 * under pid 1, and the case can reap them and read how they died.
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "the harness's native watchdog (libcannharness_hold.so), not libascendcl"
#include <dlfcn.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"
#include "watch.h"

#define ANSWER_CAP 65536
/* The orphan's own deadline: killed by anything else than its watchdog, it dies of SIGALRM. */
#define ORPHAN_ALARM_S 15

static void make_dir(const char *dir, const char *name)
{
    char path[PATH_CAP];
    path_join(path, dir, name);
    if (mkdir(path, 0700) != 0)
        CT_FAIL("mkdir %s: %s", path, strerror(errno));
}

static int exists(const char *path)
{
    struct stat st;
    return lstat(path, &st) == 0;
}

/* In the orphan (a fork of the middle role, no exec): leads its own group,
 * with a sleeping child in it, then starts the watchdog. Never returns. */
static void run_orphan(const char *scenario, int keep, int at_start, int with_ipc, pid_t middle, const char *status_dir)
{
    signal(SIGALRM, SIG_DFL);
    alarm(ORPHAN_ALARM_S);
    setpgid(0, 0);
    pid_t sleeper = fork();
    if (sleeper == 0) {
        for (;;)
            pause();
    }
    publish_u64(status_dir, "sleeper", (uint64_t)sleeper);
    publish_u64(status_dir, "orphan", (uint64_t)getpid());
    if (at_start) {
        while (getppid() == middle)
            sleep_ms(1);
    }
    if (with_ipc) {
        /* after the sleeper's fork: a process that initialised the runtime never forks */
        aclrtEvent event = NULL;
        aclrtIpcEventHandle handle;
        if (aclInit(NULL) != ACL_SUCCESS || aclrtSetDevice(0) != ACL_SUCCESS ||
            aclrtCreateEventExWithFlag(&event, ACL_EVENT_IPC) != ACL_SUCCESS ||
            aclrtIpcGetEventHandle(event, &handle) != ACL_SUCCESS)
            _exit(4);
        Dl_info info;
        if (!dladdr((void *)aclInit, &info) || !info.dli_fname || cannharness_watch_set_library(info.dli_fname) != 0)
            _exit(5);
        publish_bytes(status_dir, "handle", &handle, sizeof handle);
    }
    int rc = cannharness_watch_start((int)middle, scenario, keep, NULL);
    if (at_start)
        _exit(3); /* an orphan at start must never return from the call */
    if (rc == 0)
        publish_flag(status_dir, "watching");
    for (;;)
        pause();
}

/* args: scenario dir, keep (0/1), mode ("running", "at_start" or "with_ipc":
 * running, with an IPC event), status dir. */
CT_ROLE(watch_middle)
{
    int at_start = strcmp(argv[2], "at_start") == 0;
    pid_t self = getpid();
    pid_t orphan = fork();
    if (orphan < 0)
        CT_FAIL("fork: %s", strerror(errno));
    if (orphan == 0)
        run_orphan(argv[0], atoi(argv[1]), at_start, strcmp(argv[2], "with_ipc") == 0, self, argv[3]);
    if (!at_start)
        await_flag(argv[3], "watching", PEER_TIMEOUT_MS);
    return 0; /* the orphan is re-parented to the case: it must notice and die */
}

struct orphan_run {
    char scenario[PATH_CAP];
    char outside[PATH_CAP];
    int orphan_exit, sleeper_exit;
};

/* A scenario directory with a file, a subdirectory and a symlink to a
 * directory outside it, orphaned as `mode` says. */
static void orphan_once(struct orphan_run *r, const char *keep, const char *mode)
{
    char path[PATH_CAP];
    if (prctl(PR_SET_CHILD_SUBREAPER, 1) != 0)
        CT_FAIL("prctl(PR_SET_CHILD_SUBREAPER): %s", strerror(errno));
    path_join(r->scenario, case_dir(), "scenario");
    path_join(r->outside, case_dir(), "outside");
    make_dir(case_dir(), "scenario");
    make_dir(case_dir(), "outside");
    make_dir(r->scenario, "handles");
    publish_flag(r->scenario, "file");
    publish_flag(r->outside, "kept");
    path_join(path, r->scenario, "link");
    if (symlink(r->outside, path) != 0)
        CT_FAIL("symlink: %s", strerror(errno));
    const char *args[] = {r->scenario, keep, mode, case_dir(), NULL};
    pid_t middle = spawn_role("watch_middle", args, NULL);
    expect_exit(middle, 0, PEER_TIMEOUT_MS);
    pid_t orphan = (pid_t)await_u64(case_dir(), "orphan", PEER_TIMEOUT_MS);
    pid_t sleeper = (pid_t)await_u64(case_dir(), "sleeper", PEER_TIMEOUT_MS);
    r->orphan_exit = wait_exit(orphan, PEER_TIMEOUT_MS);
    r->sleeper_exit = wait_exit(sleeper, PEER_TIMEOUT_MS);
}

CT_CASE(watch_orphan_removes_dir_and_kills_group)
{
    struct orphan_run r;
    orphan_once(&r, "0", "running");
    CT_EQ(128 + SIGKILL, r.orphan_exit);
    CT_EQ(128 + SIGKILL, r.sleeper_exit); /* the group, not only the orphan */
    CT_TRUE(!exists(r.scenario));
    char kept[PATH_CAP];
    path_join(kept, r.outside, "kept");
    CT_TRUE(exists(kept)); /* the symlink was removed, never followed */
}

/* The orphan leaves its IPC event's shared object before it dies (issue #20
 * item 2): with no other user, the object is gone with the orphan, not
 * left in /dev/shm until some later aclInit reclaims it. This case calls no
 * aclInit itself, so nothing else can have removed it. */
CT_CASE(watch_orphan_releases_its_ipc_objects)
{
    struct orphan_run r;
    orphan_once(&r, "0", "with_ipc");
    CT_EQ(128 + SIGKILL, r.orphan_exit);
    CT_EQ(128 + SIGKILL, r.sleeper_exit);
    aclrtIpcEventHandle handle;
    CT_EQ(sizeof handle, await_file(case_dir(), "handle", &handle, sizeof handle, PEER_TIMEOUT_MS));
    declare_owned(&handle);
    if (stub_object_exists(&handle))
        CT_FAIL("the orphan died and left its IPC event's object in /dev/shm");
    CT_TRUE(!exists(r.scenario));
}

CT_CASE(watch_orphan_keep_leaves_dir)
{
    struct orphan_run r;
    orphan_once(&r, "1", "running");
    CT_EQ(128 + SIGKILL, r.orphan_exit);
    CT_EQ(128 + SIGKILL, r.sleeper_exit);
    char file[PATH_CAP];
    path_join(file, r.scenario, "file");
    CT_TRUE(exists(file));
}

CT_CASE(watch_orphan_at_start_never_returns)
{
    struct orphan_run r;
    orphan_once(&r, "0", "at_start");
    CT_EQ(128 + SIGKILL, r.orphan_exit);
    CT_EQ(128 + SIGKILL, r.sleeper_exit);
    CT_TRUE(!exists(r.scenario));
}

CT_CASE(watch_start_arguments_and_second_start)
{
    char long_text[PATH_MAX + 2];
    memset(long_text, 'x', sizeof long_text - 1);
    long_text[sizeof long_text - 1] = '\0';
    int ppid = (int)getppid();
    CT_EQ(-EINVAL, cannharness_watch_start(0, NULL, 0, NULL));
    CT_EQ(-EINVAL, cannharness_watch_start(-1, NULL, 0, NULL));
    CT_EQ(-EINVAL, cannharness_watch_start(ppid, "", 0, NULL));
    CT_EQ(-EINVAL, cannharness_watch_start(ppid, NULL, 0, ""));
    CT_EQ(-ENAMETOOLONG, cannharness_watch_start(ppid, long_text, 0, NULL));
    CT_EQ(-ENAMETOOLONG, cannharness_watch_start(ppid, case_dir(), 0, long_text));
    CT_EQ(0, cannharness_watch_start(ppid, NULL, 0, NULL));
    CT_EQ(-EALREADY, cannharness_watch_start(ppid, NULL, 0, NULL));
    CT_EQ(-EALREADY, cannharness_watch_start(ppid, case_dir(), 1, "again"));
    CT_EQ(-EINVAL, cannharness_watch_set_library(NULL));
    CT_EQ(-ENAMETOOLONG, cannharness_watch_set_library(long_text));
    CT_EQ(0, cannharness_watch_set_library("/some/libascendcl.so"));
    CT_EQ((1 + CANNHARNESS_THREAD_RECORDS) * CANNHARNESS_CALL_RECORD_BYTES, cannharness_call_records_bytes());
    CT_EQ(0, (uintptr_t)cannharness_call_records() % 8);
}

/* ---- hang requests ---- */

static void base64(const unsigned char *b, size_t n, char *out)
{
    static const char abc[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    size_t o = 0;
    for (size_t i = 0; i < n; i += 3) {
        unsigned v = (unsigned)b[i] << 16 | (i + 1 < n ? (unsigned)b[i + 1] << 8 : 0u) | (i + 2 < n ? b[i + 2] : 0u);
        out[o++] = abc[v >> 18];
        out[o++] = abc[(v >> 12) & 63];
        out[o++] = i + 1 < n ? abc[(v >> 6) & 63] : '=';
        out[o++] = i + 2 < n ? abc[v & 63] : '=';
    }
    out[o] = '\0';
}

/* A record as the binding writes one (seqlock even: stable). */
static void write_record(unsigned char *rec, const char *text, int32_t latches)
{
    int32_t words[4] = {2, text ? 1 : 0, text ? (int32_t)strlen(text) : 0, latches};
    int64_t since = 123456789;
    memcpy(rec, words, sizeof words);
    memcpy(rec + 16, &since, sizeof since);
    if (text)
        memcpy(rec + 24, text, strlen(text));
}

static void expect_contains(const char *answer, const char *part)
{
    if (!strstr(answer, part))
        CT_FAIL("the answer lacks %s:\n%s", part, answer);
}

/* Asks with request id `id` and returns the answer to it (in buf). */
static void ask(const char *hang_dir, const char *answer_name, const char *id, char *buf)
{
    char want[300];
    snprintf(want, sizeof want, "\"request\":\"%s\"", id);
    publish_bytes(hang_dir, "request", id, strlen(id));
    uint64_t deadline = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (now_ns() < deadline) {
        if (file_exists(hang_dir, answer_name)) {
            size_t n = await_file(hang_dir, answer_name, buf, ANSWER_CAP - 1, PEER_TIMEOUT_MS);
            buf[n] = '\0';
            if (strstr(buf, want))
                return;
        }
        sleep_ms(5);
    }
    CT_FAIL("no answer to request %s in %s", id, hang_dir);
}

static const char *library_of(void *symbol)
{
    Dl_info info;
    if (!dladdr(symbol, &info) || !info.dli_fname)
        CT_FAIL("dladdr found no library");
    return info.dli_fname;
}

CT_CASE(watch_hang_request_answered_with_escaped_json)
{
    /* A role name and a request id that need every kind of escape, and UTF-8 that needs none. */
    const char *role = "w\"a\\t\x01"
                       "c\xc3\xa9";
    const char *role_json = "\"role\":\"w\\\"a\\\\t\\u0001c\xc3\xa9\"";
    const char *id = "id \"1\"\\\t\n";
    const char *id_json = "\"request\":\"id \\\"1\\\"\\\\\\t\\n\"";
    char scenario[PATH_CAP], hang_dir[PATH_CAP], answer_name[PATH_CAP], part[4096];
    char *answer = malloc(ANSWER_CAP);
    char *b64 = malloc(2 * CANNHARNESS_CALL_RECORD_BYTES);
    CT_TRUE(answer && b64);
    unsigned char *records = cannharness_call_records();
    write_record(records, "aclrtSynchronizeStream\nstream=0x2", 1);
    write_record(records + (1 + 3) * CANNHARNESS_CALL_RECORD_BYTES, "aclrtSynchronizeEvent\nevent=0x5", 0);
    make_dir(case_dir(), "scenario");
    path_join(scenario, case_dir(), "scenario");
    make_dir(scenario, "hang");
    path_join(hang_dir, scenario, "hang");
    snprintf(answer_name, sizeof answer_name, "%s.%d.json", role, (int)getpid());

    CT_EQ(0, cannharness_watch_start((int)getppid(), scenario, 0, role));
    /* Escaping an id cut by the watchdog's 255-byte cap would differ: this one fits. */
    publish_bytes(hang_dir, "request", id, strlen(id));
    uint64_t deadline = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (!file_exists(hang_dir, answer_name) && now_ns() < deadline)
        sleep_ms(5);
    size_t n = await_file(hang_dir, answer_name, answer, ANSWER_CAP - 1, PEER_TIMEOUT_MS);
    answer[n] = '\0';
    CT_TRUE(answer[0] == '{' && answer[n - 1] == '}');
    expect_contains(answer, id_json);
    expect_contains(answer, role_json);
    snprintf(part, sizeof part, "\"pid\":%d,", (int)getpid());
    expect_contains(answer, part);
    base64(records, CANNHARNESS_CALL_RECORD_BYTES, b64);
    snprintf(part, sizeof part, "\"record\":\"%s\"", b64);
    expect_contains(answer, part);
    /* Only the slot that was written, by its thread number. */
    base64(records + 4 * CANNHARNESS_CALL_RECORD_BYTES, CANNHARNESS_CALL_RECORD_BYTES, b64);
    snprintf(part, sizeof part, "\"threadRecords\":[{\"thread\":3,\"record\":\"%s\"}]", b64);
    expect_contains(answer, part);
    snprintf(part, sizeof part, "{\"tid\":%d,\"comm\":\"conformance\",\"state\":\"", (int)getpid());
    expect_contains(answer, part);
    expect_contains(answer, "\"comm\":\"harness-watch\",\"state\":\"R\"");
    expect_contains(answer, "\"live\":{\"unavailable\":\"this process has not loaded an ACL library (yet)\"}");

    /* The same request again is not served again; a new one is. */
    CT_OK(cannharness_watch_set_library(library_of((void *)aclInit)));
    ask(hang_dir, answer_name, "2", answer);
    snprintf(part, sizeof part, "\"live\":{\"json\":\"{\\\"pid\\\":%d,\\\"now_ns\\\":\\\"", (int)getpid());
    expect_contains(answer, part);

    CT_OK(cannharness_watch_set_library(library_of((void *)cannharness_watch_start)));
    ask(hang_dir, answer_name, "3", answer);
    expect_contains(answer, "has no cannstub_live_view (a stub-only call; real CANN has none)\"}}");

    CT_OK(cannharness_watch_set_library("/nowhere/libascendcl.so"));
    ask(hang_dir, answer_name, "4", answer);
    expect_contains(answer, "\"live\":{\"unavailable\":\"/nowhere/libascendcl.so is not loaded in this process\"}");

    /* An answer that cannot be written (its temp name is a directory) is dropped; the watchdog
     * goes on and answers the next request. */
    char tmp_name[PATH_CAP + 8], tmp_path[PATH_CAP];
    snprintf(tmp_name, sizeof tmp_name, "%s.tmp", answer_name);
    path_join(tmp_path, hang_dir, tmp_name);
    CT_TRUE(mkdir(tmp_path, 0700) == 0);
    publish_bytes(hang_dir, "request", "5", 1);
    sleep_ms(6 * CANNHARNESS_WATCH_POLL_MS);
    await_file(hang_dir, answer_name, answer, ANSWER_CAP - 1, PEER_TIMEOUT_MS);
    CT_TRUE(strstr(answer, "\"request\":\"4\"") != NULL);
    CT_TRUE(rmdir(tmp_path) == 0);
    ask(hang_dir, answer_name, "6", answer);
    free(answer);
    free(b64);
}

/* ---- error paths, each made to happen (CANNHARNESS_WATCH_FAULT, watch.c) ---- */

struct fault_watch {
    char hang_dir[PATH_CAP];
    char answer_name[PATH_CAP];
    char *answer;
};

static void free_answer(void *p)
{
    free(p);
}

/* Starts this process's watchdog with the fault points `faults`, the stub
 * as its library, and a scenario directory with a hang/ folder. */
static void start_fault_watch(struct fault_watch *w, const char *faults)
{
    char scenario[PATH_CAP];
    CT_TRUE(setenv("CANNHARNESS_WATCH_FAULT", faults, 1) == 0);
    w->answer = malloc(ANSWER_CAP);
    CT_TRUE(w->answer != NULL);
    ct_on_cleanup(free_answer, w->answer);
    make_dir(case_dir(), "scenario");
    path_join(scenario, case_dir(), "scenario");
    make_dir(scenario, "hang");
    path_join(w->hang_dir, scenario, "hang");
    snprintf(w->answer_name, sizeof w->answer_name, "r.%d.json", (int)getpid());
    CT_OK(cannharness_watch_set_library(library_of((void *)aclInit)));
    CT_EQ(0, cannharness_watch_start((int)getppid(), scenario, 0, "r"));
}

/* Request `id` gets no answer: none appears while the watchdog polls
 * several times, and no temp file is left behind. */
static void expect_unanswered(struct fault_watch *w, const char *id)
{
    char tmp_name[PATH_CAP + 8];
    publish_bytes(w->hang_dir, "request", id, strlen(id));
    sleep_ms(6 * CANNHARNESS_WATCH_POLL_MS);
    if (file_exists(w->hang_dir, w->answer_name))
        CT_FAIL("request %s was answered despite the fault", id);
    snprintf(tmp_name, sizeof tmp_name, "%s.tmp", w->answer_name);
    if (file_exists(w->hang_dir, tmp_name))
        CT_FAIL("a failed answer to request %s left %s behind", id, tmp_name);
}

CT_CASE(watch_fault_thread_create_fails_and_a_later_start_works)
{
    CT_TRUE(setenv("CANNHARNESS_WATCH_FAULT", "thread:1", 1) == 0);
    CT_EQ(-EAGAIN, cannharness_watch_start((int)getppid(), NULL, 0, NULL));
    CT_EQ(0, cannharness_watch_start((int)getppid(), NULL, 0, NULL)); /* nothing half-started */
    CT_EQ(-EALREADY, cannharness_watch_start((int)getppid(), NULL, 0, NULL));
}

CT_CASE(watch_fault_unknown_point_is_refused)
{
    CT_TRUE(setenv("CANNHARNESS_WATCH_FAULT", "thread,bogus", 1) == 0);
    CT_EQ(-EINVAL, cannharness_watch_start((int)getppid(), NULL, 0, NULL));
    CT_TRUE(setenv("CANNHARNESS_WATCH_FAULT", "thread:0", 1) == 0);
    CT_EQ(-EINVAL, cannharness_watch_start((int)getppid(), NULL, 0, NULL));
}

/* Out of memory while building an answer: it is dropped, and the next
 * request is answered (the watchdog thread lives on). */
CT_CASE(watch_fault_answer_text_out_of_memory)
{
    struct fault_watch w;
    start_fault_watch(&w, "text-alloc:1");
    expect_unanswered(&w, "1");
    ask(w.hang_dir, w.answer_name, "2", w.answer);
}

CT_CASE(watch_fault_live_view_out_of_memory)
{
    struct fault_watch w;
    start_fault_watch(&w, "view-alloc:1");
    ask(w.hang_dir, w.answer_name, "1", w.answer);
    expect_contains(w.answer, "\"live\":{\"unavailable\":\"memory ran out for the live view\"}");
    ask(w.hang_dir, w.answer_name, "2", w.answer);
    expect_contains(w.answer, "\"live\":{\"json\":");
}

CT_CASE(watch_fault_live_view_lock_timeout)
{
    struct fault_watch w;
    start_fault_watch(&w, "view-lock:1");
    ask(w.hang_dir, w.answer_name, "1", w.answer);
    expect_contains(w.answer,
                    "\"live\":{\"unavailable\":\"the stub runtime lock stayed held (cannstub_live_view gave up)\"}");
}

CT_CASE(watch_fault_live_view_over_16_mib)
{
    struct fault_watch w;
    start_fault_watch(&w, "view-huge");
    ask(w.hang_dir, w.answer_name, "1", w.answer);
    expect_contains(w.answer, "\"live\":{\"unavailable\":\"the live view is larger than 16 MiB\"}");
}

/* An answer that cannot be created, written or renamed into place is
 * dropped without a trace; the next one is answered. */
CT_CASE(watch_fault_answer_unwritable)
{
    struct fault_watch w;
    start_fault_watch(&w, "answer-open:1,answer-write:1,answer-rename:1"); /* each point counts its own uses */
    expect_unanswered(&w, "1"); /* open */
    expect_unanswered(&w, "2"); /* write */
    expect_unanswered(&w, "3"); /* rename */
    ask(w.hang_dir, w.answer_name, "4", w.answer);
}

/* A link planted at the answer's temp name is removed, never written through. */
CT_CASE(watch_answer_never_follows_a_planted_link)
{
    struct fault_watch w;
    char tmp_name[PATH_CAP + 8], link_path[PATH_CAP], victim[PATH_CAP];
    start_fault_watch(&w, "");
    struct stat before, after;
    publish_flag(case_dir(), "victim");
    path_join(victim, case_dir(), "victim");
    CT_TRUE(stat(victim, &before) == 0);
    snprintf(tmp_name, sizeof tmp_name, "%s.tmp", w.answer_name);
    path_join(link_path, w.hang_dir, tmp_name);
    CT_TRUE(symlink(victim, link_path) == 0);
    ask(w.hang_dir, w.answer_name, "1", w.answer);
    CT_TRUE(stat(victim, &after) == 0);
    CT_EQ(before.st_size, after.st_size);
    CT_EQ(before.st_mtim.tv_nsec, after.st_mtim.tv_nsec);
}
