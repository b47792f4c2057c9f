/*
 * cases_mutant.c - ACL_STUB_MUTANT (deliberately broken behaviours, for
 * proving that checks can fail) and ACL_STUB_JITTER=<seed>:<max_us>
 * (seeded delays): both parsed at aclInit, bad values refused with 100000
 * and a message naming the fix; each mutant's effect; and delays that
 * replay exactly from the seed.
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "ACL_STUB_MUTANT and ACL_STUB_JITTER, stub settings"
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

/* aclInit under NAME=value: the expected code, and for failures a message naming NAME and hint. */
static void expect_init(const char *name, const char *value, int code, const char *hint)
{
    if (value)
        setenv(name, value, 1);
    else
        unsetenv(name);
    ct_note("%s=%s", name, value ? value : "(unset)");
    CT_CODE(code, aclInit(NULL));
    if (code == ACL_SUCCESS) {
        CT_OK(aclFinalize());
        return;
    }
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, name) || !strstr(msg, hint))
        CT_FAIL("aclInit failed, but its message does not name %s and '%s': %s", name, hint, msg ? msg : "(null)");
    CT_CODE(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0)); /* the failed init left nothing initialised */
}

CT_CASE(mutant_env_names_are_checked_at_aclInit)
{
    const char *hint = "use wait-noop, record-instant, wait-latest or sync-noop";
    const char *bad[] = {"bogus", "WAIT-NOOP", "wait-noop ", "wait_noop", "wait-noop,sync-noop"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_init("ACL_STUB_MUTANT", bad[i], ACL_ERROR_INVALID_PARAM, hint);
    const char *good[] = {"wait-noop", "record-instant", "wait-latest", "sync-noop", "none", "", NULL};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        expect_init("ACL_STUB_MUTANT", good[i], ACL_SUCCESS, NULL);
}

CT_CASE(jitter_env_is_checked_at_aclInit)
{
    const char *hint = "use <seed>:<max_us>";
    const char *bad[] = {"42",
                         "42:",
                         ":200",
                         "42:0",
                         "42:abc",
                         "x:1",
                         "42:1000001",
                         "-1:5",
                         "42:-5",
                         "42:200:1",
                         "99999999999999999999:5",
                         " 42:200"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_init("ACL_STUB_JITTER", bad[i], ACL_ERROR_INVALID_PARAM, hint);
    const char *good[] = {"42:200", "0:1", "18446744073709551615:1000000", "", NULL};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++)
        expect_init("ACL_STUB_JITTER", good[i], ACL_SUCCESS, NULL);
}

/* A record held pending behind a gate on `held`, and a wait on it from `waiter`. */
struct pending_wait {
    aclrtStream held, waiter;
    aclrtEvent event;
    struct gate *gate;
};

static struct pending_wait pending_wait_new(aclrtEvent event)
{
    struct pending_wait p = {stream_new(), stream_new(), event, NULL};
    p.gate = gate_hold(p.held);
    CT_OK(aclrtRecordEvent(p.event, p.held));
    CT_OK(aclrtStreamWaitEvent(p.waiter, p.event));
    return p;
}

CT_CASE(mutant_wait_noop_lets_waits_on_pending_records_drain)
{
    setenv("ACL_STUB_MUTANT", "wait-noop", 1);
    acl_up(0);
    struct pending_wait ipc = pending_wait_new(ipc_event_new());
    struct pending_wait local = pending_wait_new(local_event_new());
    EXPECT_NOT_READY(ipc.event); /* the record itself is still pending */
    CT_OK(aclrtSynchronizeStreamWithTimeout(ipc.waiter, BLOCK_PROBE_MS));
    CT_OK(aclrtSynchronizeStreamWithTimeout(local.waiter, BLOCK_PROBE_MS));
    gate_release(ipc.gate);
    gate_release(local.gate);
    EXPECT_STREAM_DRAINS(ipc.held);
    EXPECT_STREAM_DRAINS(local.held);
}

/* Under mutant: a stream held by a gate, with an IPC record queued behind it. */
struct held_record {
    aclrtStream stream;
    aclrtEvent event;
    struct gate *gate;
};

static struct held_record held_record_under(const char *mutant)
{
    setenv("ACL_STUB_MUTANT", mutant, 1);
    acl_up(0);
    struct held_record h = {stream_new(), ipc_event_new(), NULL};
    h.gate = gate_hold(h.stream);
    CT_OK(aclrtRecordEvent(h.event, h.stream));
    return h;
}

CT_CASE(mutant_record_instant_completes_records_behind_a_held_stream)
{
    struct held_record h = held_record_under("record-instant");
    EXPECT_COMPLETE(h.event);
    EXPECT_STREAM_BLOCKED(h.stream); /* the gate itself still holds the stream */
    gate_release(h.gate);
    EXPECT_STREAM_DRAINS(h.stream);
}

CT_CASE(mutant_sync_noop_returns_while_work_is_pending)
{
    struct held_record h = held_record_under("sync-noop");
    CT_OK(aclrtSynchronizeStream(h.stream));
    CT_OK(aclrtSynchronizeEvent(h.event));
    EXPECT_NOT_READY(h.event);
    gate_release(h.gate);
}

CT_CASE(mutant_wait_latest_binds_a_wait_to_the_latest_record_when_it_runs)
{
    setenv("ACL_STUB_MUTANT", "wait-latest", 1);
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtStream held = stream_new(), waiter = stream_new(), other = stream_new();
    struct gate *record_gate = gate_hold(held);
    CT_OK(aclrtRecordEvent(e, held)); /* pending: the one the wait captures */
    struct gate *wait_gate = gate_hold(waiter);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    CT_OK(aclrtRecordEvent(e, other)); /* a later record that completes at once */
    EXPECT_STREAM_DRAINS(other);
    gate_release(wait_gate);
    /* faithful: still blocked on the first record; the mutant waited for the latest one */
    CT_OK(aclrtSynchronizeStreamWithTimeout(waiter, BLOCK_PROBE_MS));
    gate_release(record_gate);
    EXPECT_STREAM_DRAINS(held);
}

CT_CASE(mutant_wait_noop_lets_notify_waits_drain_without_a_record)
{
    setenv("ACL_STUB_MUTANT", "wait-noop", 1);
    acl_up(0);
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    aclrtStream waiter = stream_new();
    CT_OK(aclrtWaitAndResetNotify(n, waiter, 0)); /* faithful: blocks until a record */
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtDestroyNotify(n));
}

CT_CASE(mutant_record_instant_sets_a_notify_behind_a_held_stream)
{
    setenv("ACL_STUB_MUTANT", "record-instant", 1);
    acl_up(0);
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    aclrtStream held = stream_new(), waiter = stream_new();
    struct gate *g = gate_hold(held);
    CT_OK(aclrtRecordNotify(n, held)); /* faithful: runs only after the gate */
    CT_OK(aclrtWaitAndResetNotify(n, waiter, 0));
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_STREAM_BLOCKED(held); /* the gate itself still holds the stream */
    gate_release(g);
    EXPECT_STREAM_DRAINS(held);
    CT_OK(aclrtDestroyNotify(n));
}

/* jittered DIR: ten host functions on one stream, traced under ACL_STUB_JITTER. */
CT_ROLE(jittered)
{
    (void)argv;
    acl_up(1);
    aclrtStream s = stream_new();
    for (int i = 0; i < 10; i++)
        CT_OK(aclrtLaunchHostFunc(s, noop_host_fn, NULL));
    CT_OK(aclrtSynchronizeStream(s));
    acl_down();
    return 0;
}

/* The "jitter_us" values of the start lines of the one trace file in dir, as text. */
static void jitter_sequence(const char *dir, char *out, size_t cap)
{
    DIR *d = opendir(dir);
    if (!d)
        CT_FAIL("no trace directory %s", dir);
    struct dirent *ent;
    char path[PATH_CAP] = "";
    while ((ent = readdir(d)))
        if (strncmp(ent->d_name, "trace-", 6) == 0)
            path_join(path, dir, ent->d_name);
    closedir(d);
    FILE *f = fopen(path, "r");
    if (!f)
        CT_FAIL("no trace file in %s", dir);
    char line[1024];
    out[0] = '\0';
    int starts = 0;
    while (fgets(line, sizeof line, f)) {
        const char *j = strstr(line, "\"jitter_us\":");
        if (!strstr(line, "\"op\":\"start\""))
            continue;
        if (!j)
            CT_FAIL("a start line without jitter_us under ACL_STUB_JITTER: %s", line);
        starts++;
        size_t used = strlen(out);
        snprintf(out + used, cap - used, "%ld ", strtol(j + 12, NULL, 10));
    }
    fclose(f);
    CT_EQ(10, starts);
}

static void run_jittered(const char *name, const char *jitter, char *seq, size_t cap)
{
    char trace_dir[PATH_CAP], trace_env[PATH_CAP + 32], jitter_env[64];
    path_join(trace_dir, case_dir(), name);
    snprintf(trace_env, sizeof trace_env, "ACL_STUB_TRACE=%s", trace_dir);
    snprintf(jitter_env, sizeof jitter_env, "ACL_STUB_JITTER=%s", jitter);
    const char *env[] = {trace_env, jitter_env, "CANN_HARNESS_ROLE", NULL};
    const char *args[] = {NULL};
    expect_exit(spawn_role("jittered", args, env), 0, PEER_TIMEOUT_MS);
    jitter_sequence(trace_dir, seq, cap);
    ct_note("ACL_STUB_JITTER=%s: delays (us) %s", jitter, seq);
}

CT_CASE(jitter_replays_the_same_delays_from_the_same_seed)
{
    char first[256], again[256], other[256];
    run_jittered("a", "7:500", first, sizeof first);
    run_jittered("b", "7:500", again, sizeof again);
    run_jittered("c", "8:500", other, sizeof other);
    if (strcmp(first, again) != 0)
        CT_FAIL("the same seed gave different delays: %s vs %s", first, again);
    if (strcmp(first, other) == 0)
        CT_FAIL("seeds 7 and 8 gave the same ten delays: %s", first);
    for (const char *p = first; *p; p++) /* every delay within 0..max_us */
        if (strtol(p, (char **)&p, 10) > 500)
            CT_FAIL("a delay above max_us 500: %s", first);
}
