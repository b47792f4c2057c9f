/*
 * cases_trace.c - ACL_STUB_TRACE=<dir>: one JSON-lines file per process,
 * <dir>/trace-<pid>.jsonl, with CLOCK_MONOTONIC ns timestamps ("t") of task
 * submit/start/end and the pid, device, stream, event and slot ids
 * (format in native-stub/README.md).
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "ACL_STUB_TRACE, the stub's own trace"
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

/* traced DIR: a small IPC workload on device 2 with the trace on. */
CT_ROLE(traced)
{
    const char *dir = argv[0];
    uint64_t t0 = now_ns();
    acl_up(2);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    aclrtStream waiter = stream_new();
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    gate_release(g);
    CT_OK(aclrtSynchronizeStream(waiter));
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    publish_u64(dir, "t0", t0);
    publish_u64(dir, "t1", now_ns());
    return 0;
}

/* Integer value of "key": in a JSON line, or -1 when absent / not a number. */
static long long json_int(const char *line, const char *key)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\":", key);
    const char *p = strstr(line, pattern);
    if (!p)
        return -1;
    p += strlen(pattern);
    char *end;
    long long v = strtoll(p, &end, 10);
    return end == p ? -1 : v;
}

static int json_has(const char *line, const char *key, const char *value)
{
    char pattern[96];
    snprintf(pattern, sizeof pattern, "\"%s\":\"%s\"", key, value);
    return strstr(line, pattern) != NULL;
}

/* Runs `role` with ACL_STUB_TRACE=<dir>/trace (its path in trace_dir) until it exits 0; its pid. */
static pid_t run_traced_role(const char *role, const char *dir, char trace_dir[PATH_CAP])
{
    char env_entry[PATH_CAP + 32];
    path_join(trace_dir, dir, "trace");
    snprintf(env_entry, sizeof env_entry, "ACL_STUB_TRACE=%s", trace_dir);
    const char *args[] = {dir, NULL};
    const char *env[] = {env_entry, NULL};
    pid_t pid = spawn_role(role, args, env);
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    return pid;
}

CT_CASE(trace_lines_written_when_ACL_STUB_TRACE_is_set)
{
    const char *dir = case_dir();
    char trace_dir[PATH_CAP];
    pid_t pid = run_traced_role("traced", dir, trace_dir);
    uint64_t t0 = await_u64(dir, "t0", 1000), t1 = await_u64(dir, "t1", 1000);
    aclrtIpcEventHandle h;
    await_file(dir, "handle", &h, sizeof h, 1000);
    uint64_t id;
    memcpy(&id, h.reserved, 8);
    char ipc_id[24];
    snprintf(ipc_id, sizeof ipc_id, "%016llx", (unsigned long long)id);

    char name[64];
    snprintf(name, sizeof name, "trace-%d.jsonl", (int)pid);
    static char text[1 << 16];
    size_t n = await_file(trace_dir, name, text, sizeof text - 1, 1000);
    text[n] = '\0';
    printf("----- %s -----\n%s", name, text);
    int lines = 0, ipc_lines = 0;
    int ops[3] = {0, 0, 0};
    long long ipc_submit_t = -1, ipc_end_t = -1;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (!next)
            CT_FAIL("trace line %d is not newline-terminated: %s", lines + 1, line);
        *next++ = '\0';
        lines++;
        if (line[0] != '{' || line[strlen(line) - 1] != '}')
            CT_FAIL("trace line %d is not a JSON object: %s", lines, line);
        long long t = json_int(line, "t");
        if (t < (long long)t0 || t > (long long)t1)
            CT_FAIL("trace line %d: \"t\" %lld is not a CLOCK_MONOTONIC ns time within the run [%llu, %llu]: %s", lines,
                    t, (unsigned long long)t0, (unsigned long long)t1, line);
        CT_EQ(pid, json_int(line, "pid"));
        for (const char **key = (const char *[]){"device", "stream", "event", NULL}; *key; key++)
            if (!strstr(line, *key))
                CT_FAIL("trace line %d has no \"%s\" field: %s", lines, *key, line);
        if (!strstr(line, "\"slot\":"))
            CT_FAIL("trace line %d has no \"slot\" field: %s", lines, line);
        int is_submit = json_has(line, "op", "submit"), is_start = json_has(line, "op", "start"),
            is_end = json_has(line, "op", "end");
        ops[0] += is_submit;
        ops[1] += is_start;
        ops[2] += is_end;
        if (json_has(line, "ipc", ipc_id)) {
            ipc_lines++;
            CT_EQ(2, json_int(line, "device"));
            if (json_int(line, "slot") < 0)
                CT_FAIL("trace line %d of an IPC task has no slot id: %s", lines, line);
            if (is_submit && ipc_submit_t < 0)
                ipc_submit_t = t;
            if (is_end)
                ipc_end_t = t;
        }
    }
    ct_note("%d lines: %d submit, %d start, %d end; %d about the IPC event", lines, ops[0], ops[1], ops[2], ipc_lines);
    CT_TRUE(ops[0] > 0 && ops[1] > 0 && ops[2] > 0);
    CT_TRUE(ipc_lines >= 2);
    CT_TRUE(ipc_submit_t > 0 && ipc_end_t >= ipc_submit_t);
}

/* traced_fork DIR: a no-op wait traced before a fork, and one traced by the
 * forked child (the stub caches its pid and tid: the child's must be its
 * own). The parent finalizes first, so that it forks with no runtime thread
 * (the child starts its own runtime on the inherited trace file). */
static void traced_noop_wait(void)
{
    aclrtStream s = stream_new();
    aclrtEvent e = NULL;
    /* a new-mode event never recorded: a no-op wait (event.cc:596-600), traced by this thread */
    CT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    CT_OK(aclrtStreamWaitEvent(s, e));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
}

CT_ROLE(traced_fork)
{
    const char *dir = argv[0];
    acl_up(0);
    traced_noop_wait();
    acl_down();
    pid_t child = fork();
    if (child == 0) {
        acl_up(0);
        traced_noop_wait();
        acl_down();
        _exit(0);
    }
    int status = 0;
    CT_EQ(child, waitpid(child, &status, 0));
    CT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    publish_u64(dir, "child", (uint64_t)child);
    return 0;
}

CT_CASE(trace_lines_of_a_forked_child_name_the_child)
{
    const char *dir = case_dir();
    char trace_dir[PATH_CAP];
    pid_t pid = run_traced_role("traced_fork", dir, trace_dir);
    long long child = (long long)await_u64(dir, "child", 1000);
    char name[64];
    snprintf(name, sizeof name, "trace-%d.jsonl", (int)pid);
    static char text[1 << 16];
    size_t n = await_file(trace_dir, name, text, sizeof text - 1, 1000);
    text[n] = '\0';
    int parent_lines = 0, child_lines = 0;
    for (char *line = text, *next; line && *line; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        long long who = json_int(line, "pid"), tid = json_int(line, "tid");
        if (who == child) {
            child_lines++;
            CT_EQ(child, tid); /* the child's one thread */
        } else {
            CT_EQ(pid, who);
            parent_lines++;
        }
    }
    CT_TRUE(parent_lines > 0);
    CT_EQ(1, child_lines);
}

/* Slot ids of this process's trace lines with op "submit" of the given kind
 * for the IPC object ipc_id, in order. */
static int submitted_slots(const char *trace_dir, const char *kind, const char *ipc_id, long long *slots, int cap)
{
    char name[64];
    snprintf(name, sizeof name, "trace-%d.jsonl", (int)getpid());
    static char text[1 << 16];
    size_t n = await_file(trace_dir, name, text, sizeof text - 1, 1000);
    text[n] = '\0';
    int count = 0;
    for (char *line = text, *next; line && *line && count < cap; line = next) {
        next = strchr(line, '\n');
        if (next)
            *next++ = '\0';
        if (json_has(line, "op", "submit") && json_has(line, "kind", kind) && json_has(line, "ipc", ipc_id))
            slots[count++] = json_int(line, "slot");
    }
    return count;
}

/* Contract 4: a record takes the lowest free slot and makes it current; a wait
 * captures the current slot. Slot ids are only visible in the trace. */
CT_CASE(ipc_record_takes_the_lowest_free_slot)
{
    char trace_dir[PATH_CAP];
    path_join(trace_dir, case_dir(), "trace");
    setenv("ACL_STUB_TRACE", trace_dir, 1);
    acl_up(0);
    aclrtStream s1 = stream_new(), s2 = stream_new(), s3 = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    uint64_t id;
    memcpy(&id, h.reserved, 8);
    char ipc_id[24];
    snprintf(ipc_id, sizeof ipc_id, "%016llx", (unsigned long long)id);

    struct gate *g1 = gate_hold(s1), *g2 = gate_hold(s2);
    CT_OK(aclrtRecordEvent(e, s1));      /* slot 0 */
    CT_OK(aclrtRecordEvent(e, s2));      /* slot 0 busy: slot 1 */
    CT_OK(aclrtStreamWaitEvent(waiter, e)); /* captures the current slot, 1 */
    gate_release(g1);
    CT_OK(aclrtSynchronizeStream(s1));   /* slot 0 released */
    CT_OK(aclrtRecordEvent(e, s3));      /* lowest free: 0 again */
    gate_release(g2);
    CT_OK(aclrtSynchronizeStream(s2));
    CT_OK(aclrtSynchronizeStream(s3));
    CT_OK(aclrtSynchronizeStream(waiter));
    CT_OK(aclrtRecordEvent(e, s1));      /* everything free: 0 */
    CT_OK(aclrtSynchronizeStream(s1));

    long long records[8], waits[8];
    int nr = submitted_slots(trace_dir, "ipc_record", ipc_id, records, 8);
    int nw = submitted_slots(trace_dir, "ipc_wait", ipc_id, waits, 8);
    ct_note("record slots: %d found; wait slots: %d found", nr, nw);
    CT_EQ(4, nr);
    CT_EQ(0, records[0]);
    CT_EQ(1, records[1]);
    CT_EQ(0, records[2]);
    CT_EQ(0, records[3]);
    CT_EQ(1, nw);
    CT_EQ(1, waits[0]);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s1));
    CT_OK(aclrtDestroyStream(s2));
    CT_OK(aclrtDestroyStream(s3));
    CT_OK(aclrtDestroyStream(waiter));
    acl_down();
}

/* The trace directory's parent must exist: the stub creates only the last
 * path component (so it never brings back a scenario directory that a killed
 * runner is removing), and aclInit fails with 100000 naming the problem. */
CT_CASE(trace_dir_with_missing_parent_fails_aclInit_and_creates_nothing)
{
    char parent[PATH_CAP], trace_dir[PATH_CAP];
    path_join(parent, case_dir(), "removed-scenario");
    path_join(trace_dir, parent, "trace");
    CT_TRUE(setenv("ACL_STUB_TRACE", trace_dir, 1) == 0);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclInit(NULL));
    const char *msg = aclGetRecentErrMsg();
    CT_TRUE(msg && strstr(msg, "ACL_STUB_TRACE") && strstr(msg, parent));
    if (access(parent, F_OK) == 0)
        CT_FAIL("aclInit created %s: the stub must create only the last component of ACL_STUB_TRACE", parent);
    /* with the parent back, the same setting works */
    CT_TRUE(mkdir(parent, 0700) == 0);
    acl_init_only();
    CT_TRUE(access(trace_dir, F_OK) == 0);
    acl_down();
}

/* The directory the stub creates is not world-writable, whatever the umask. */
CT_CASE(trace_dir_created_not_world_writable)
{
    char trace_dir[PATH_CAP];
    path_join(trace_dir, case_dir(), "trace");
    CT_TRUE(setenv("ACL_STUB_TRACE", trace_dir, 1) == 0);
    mode_t old = umask(0);
    acl_init_only();
    umask(old);
    struct stat st;
    CT_TRUE(stat(trace_dir, &st) == 0 && S_ISDIR(st.st_mode));
    if (st.st_mode & (S_IWOTH | S_IWGRP))
        CT_FAIL("trace directory mode is %03o: group/world-writable", (unsigned)(st.st_mode & 0777));
    acl_down();
}
