/*
 * cases_ipc_procs.c - IPC events across real processes.
 *
 * The case process is the creator unless said otherwise; helpers are
 * `conformance --role NAME DIR ...` processes (fork + immediate exec) that
 * talk to it through atomically published files in the case directory, or
 * through inherited pipes where a round trip per step is needed.
 * Cross-process timestamps are CLOCK_MONOTONIC, which is system-wide.
 *
 * Most cases share one choreography, run from two tables: the creator (the
 * case, on device 0) makes a stream and an IPC event, optionally records it
 * behind a gate, publishes its handle as "handle", starts its peers, runs
 * the case's own steps, reaps the peers and tears down; each peer (a role)
 * sets up its device, opens "handle", runs the role's own steps and tears
 * down. The cases whose choreography differs (ping-pong over pipes, a
 * creator that dies, a swarm of forks, foreign objects) follow the tables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support.h"

static aclrtIpcEventHandle await_handle(const char *dir, const char *name)
{
    aclrtIpcEventHandle h;
    size_t n = await_file(dir, name, &h, sizeof h, PEER_TIMEOUT_MS);
    if (n != sizeof h)
        CT_FAIL("%s/%s holds %zu bytes, expected a 64-byte handle", dir, name, n);
    return h;
}

static int arg_int(int argc, char **argv, int i, const char *what)
{
    if (i >= argc)
        CT_FAIL("missing role argument %d (%s)", i, what);
    return atoi(argv[i]);
}

/* The row of a table (of structs whose first member is the name) named as
 * this process's case or role: cases and roles of the tables are registered
 * under their row's name, all with one function. */
static const void *row_of_this_process(const void *rows, size_t row_size, size_t count, const char *table)
{
    for (size_t i = 0; i < count; i++) {
        const void *row = (const char *)rows + i * row_size;
        if (strcmp(*(const char *const *)row, ct_current_name()) == 0)
            return row;
    }
    CT_FAIL("%s is in no row of %s", ct_current_name(), table);
}
#define ROW_OF_THIS_PROCESS(table) row_of_this_process(table, sizeof table[0], sizeof table / sizeof table[0], #table)

/* ============================================================ the peer roles */

/* A peer: `conformance --role NAME DIR DEVICE ID`, with the creator's event
 * opened from "handle" on its device. */
struct peer {
    const char *dir;
    int device;
    int id;
    aclrtIpcEventHandle handle;
    aclrtEvent event;
};

/* consumer: waits on the event, proves it is blocked ("blocked_ID"), then
 * reports the time its stream resumed in "resumed_ID". */
static void consumer_steps(struct peer *p)
{
    aclrtStream s = stream_new();
    CT_OK(aclrtStreamWaitEvent(s, p->event));
    aclrtEvent probe = local_event_new();
    CT_OK(aclrtRecordEvent(probe, s));
    struct stamp resumed;
    stamp_launch(s, &resumed);
    EXPECT_STREAM_BLOCKED(s);
    EXPECT_NOT_READY(probe);
    EXPECT_NOT_READY(p->event); /* the creator's pending record, seen from here */
    char name[32];
    snprintf(name, sizeof name, "blocked_%d", p->id);
    publish_flag(p->dir, name);
    EXPECT_STREAM_DRAINS(s);
    snprintf(name, sizeof name, "resumed_%d", p->id);
    publish_u64(p->dir, name, stamp_read(&resumed));
    EXPECT_COMPLETE(probe);
    CT_OK(aclrtDestroyEvent(probe));
    CT_OK(aclrtDestroyStream(s));
}

/* exporter: re-exports the creator's handle ("handle_back") and exports one
 * of its own ("own_handle"), which the creator records and synchronizes. */
static void exporter_steps(struct peer *p)
{
    aclrtIpcEventHandle back = handle_of(p->event);
    aclrtIpcEventHandle again = handle_of(p->event);
    CT_TRUE(handles_equal(&back, &again));
    publish_bytes(p->dir, "handle_back", &back, sizeof back);
    aclrtEvent own = ipc_event_new();
    aclrtIpcEventHandle own_h = handle_of(own);
    publish_bytes(p->dir, "own_handle", &own_h, sizeof own_h);
    await_flag(p->dir, "done", PEER_TIMEOUT_MS);
    /* the creator recorded our event and synchronized it */
    EXPECT_COMPLETE(own);
    CT_OK(aclrtDestroyEvent(own));
}

/* observer: sees the creator's pending record ("saw_pending"), then
 * synchronizes on it ("synced_at"; it never records: the synchronize must
 * not miss the completion). */
static void observer_steps(struct peer *p)
{
    EXPECT_NOT_READY(p->event);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(p->event, 50));
    EXPECT_NOT_READY(p->event);
    publish_flag(p->dir, "saw_pending");
    CT_OK(aclrtSynchronizeEvent(p->event));
    publish_u64(p->dir, "synced_at", now_ns());
    EXPECT_COMPLETE(p->event);
}

/* remote_recorder: records the creator's event from a held stream
 * ("recorded") and releases it when told ("release" -> "released_at"). */
static void remote_recorder_steps(struct peer *p)
{
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(p->event, s));
    EXPECT_NOT_READY(p->event);
    publish_flag(p->dir, "recorded");
    await_flag(p->dir, "release", PEER_TIMEOUT_MS);
    publish_u64(p->dir, "released_at", gate_release(g));
    CT_OK(aclrtSynchronizeStream(s));
    await_flag(p->dir, "done", PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyStream(s));
}

/* survivor: opens before the creator destroys ("opened", "destroyed"),
 * keeps working after. */
static void survivor_steps(struct peer *p)
{
    publish_flag(p->dir, "opened");
    await_flag(p->dir, "destroyed", PEER_TIMEOUT_MS);
    aclrtStream s = stream_new(), waiter = stream_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(p->event, s));
    EXPECT_NOT_READY(p->event);
    CT_OK(aclrtStreamWaitEvent(waiter, p->event));
    EXPECT_STREAM_BLOCKED(waiter);
    gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtSynchronizeEvent(p->event));
    EXPECT_COMPLETE(p->event);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyStream(waiter));
}

/* die_in_lock: run with ACL_STUB_TEST_DIE_IN_LOCK=1 (native-stub/README.md): the
 * stub SIGKILLs this process inside the event's shared lock, when the
 * completed record releases its slot (refcount 1 -> 0, done byte still set). */
static void die_in_lock_steps(struct peer *p)
{
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(p->event, s));
    aclrtSynchronizeStream(s);
    sleep_ms(2000); /* the executor thread kills us while we sleep */
    CT_FAIL("still alive: ACL_STUB_TEST_DIE_IN_LOCK=1 did not make the stub die inside the lock "
            "(see native-stub/README.md for the hook)");
}

/* last_user: opens ("opened"), outlives the creator's destroy
 * ("creator_destroyed"), then leaves. */
static void last_user_steps(struct peer *p)
{
    publish_flag(p->dir, "opened");
    await_flag(p->dir, "creator_destroyed", PEER_TIMEOUT_MS);
    if (!stub_object_exists(&p->handle))
        CT_FAIL("the object vanished while this process still had the event open");
}

static const struct peer_role {
    const char *name;
    void (*steps)(struct peer *p);
} peer_roles[] = {
    {"consumer", consumer_steps},   {"exporter", exporter_steps},
    {"observer", observer_steps},   {"remote_recorder", remote_recorder_steps},
    {"survivor", survivor_steps},   {"die_in_lock", die_in_lock_steps},
    {"last_user", last_user_steps},
};

static int run_peer_role(int argc, char **argv)
{
    const struct peer_role *role = ROW_OF_THIS_PROCESS(peer_roles);
    struct peer p = {.dir = argv[0]};
    p.device = arg_int(argc, argv, 1, "device");
    p.id = arg_int(argc, argv, 2, "id");
    acl_up(p.device);
    p.handle = await_handle(p.dir, "handle");
    p.event = ipc_open(p.handle);
    role->steps(&p);
    CT_OK(aclrtDestroyEvent(p.event));
    acl_down();
    return 0;
}

/* ================================================= the creator and its cases */

#define MAX_PEERS 8

struct peer_case;

/* The case process: ACL up on device 0, a stream, an IPC event whose handle
 * is published as "handle" (its record pending behind gate when the case
 * says so), and the peers, one per device of the case. */
struct creator {
    const struct peer_case *spec;
    const char *dir;
    aclrtStream stream;
    aclrtEvent event; /* NULL once the case destroyed it */
    aclrtIpcEventHandle handle;
    struct gate *gate;
    pid_t peers[MAX_PEERS]; /* 0 once reaped */
    int finalized;          /* the case ran aclFinalize itself */
};

struct peer_case {
    const char *name;
    const char *role; /* a row of peer_roles */
    int devices[MAX_PEERS];
    int peer_count;
    int pending;       /* the event's record waits behind a gate before the peers start */
    const char *env;   /* one VAR=value for the peers, or NULL */
    int peer_exit;     /* each peer's expected exit status */
    int watchdog_s;    /* 0: the default */
    int long_running;  /* registered as a CT_LONG_CASE */
    const char *stub_only; /* NULL, or why the row checks a stub-only rule (as CT_STUB_CASE) */
    void (*steps)(struct creator *c);
};

/* Expects every peer still running to exit with the case's status. */
static void reap_peers(struct creator *c)
{
    for (int i = 0; i < c->spec->peer_count; i++) {
        if (c->peers[i])
            expect_exit(c->peers[i], c->spec->peer_exit, PEER_TIMEOUT_MS);
        c->peers[i] = 0;
    }
}

/* Consumers on the case's devices must all stay blocked until the one
 * pending record executes. */
static void blocked_consumers_steps(struct creator *c)
{
    int count = c->spec->peer_count;
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "blocked_%d", i);
        await_flag(c->dir, name, PEER_TIMEOUT_MS);
    }
    sleep_ms(20); /* consumers are parked; give a broken stub time to let them through */
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "resumed_%d", i);
        if (file_exists(c->dir, name))
            CT_FAIL("consumer %d resumed before the record executed", i);
    }
    uint64_t released = gate_release(c->gate);
    ct_note("released the producer at %llu", (unsigned long long)released);
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "resumed_%d", i);
        uint64_t resumed = await_u64(c->dir, name, PEER_TIMEOUT_MS);
        ct_note("consumer %d (device %d) resumed %.3f ms after the release", i, c->spec->devices[i],
                (double)((int64_t)(resumed - released)) / 1e6);
        EXPECT_AFTER(resumed, released);
    }
}

static void handle_identity_steps(struct creator *c)
{
    aclrtIpcEventHandle back = await_handle(c->dir, "handle_back");
    if (!handles_equal(&c->handle, &back))
        CT_FAIL("the handle exported by another process that opened the event differs from the creator's");
    aclrtIpcEventHandle own = await_handle(c->dir, "own_handle");
    CT_TRUE(!handles_equal(&c->handle, &own));
    /* the creator can open an event created by another process */
    aclrtEvent theirs = ipc_open(own);
    CT_OK(aclrtRecordEvent(theirs, c->stream));
    CT_OK(aclrtSynchronizeEvent(theirs));
    publish_flag(c->dir, "done");
    reap_peers(c);
    CT_OK(aclrtDestroyEvent(theirs));
}

static void pending_not_ready_steps(struct creator *c)
{
    await_flag(c->dir, "saw_pending", PEER_TIMEOUT_MS);
    sleep_ms(20);
    CT_TRUE(!file_exists(c->dir, "synced_at"));
    uint64_t released = gate_release(c->gate);
    EXPECT_AFTER(await_u64(c->dir, "synced_at", PEER_TIMEOUT_MS), released);
}

static void importer_records_steps(struct creator *c)
{
    aclrtStream s = c->stream;
    aclrtEvent e = c->event;
    await_flag(c->dir, "recorded", PEER_TIMEOUT_MS);
    EXPECT_NOT_READY(e);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 20));
    CT_OK(aclrtStreamWaitEvent(s, e));
    struct stamp resumed;
    stamp_launch(s, &resumed);
    EXPECT_STREAM_BLOCKED(s);
    publish_flag(c->dir, "release");
    EXPECT_STREAM_DRAINS(s);
    EXPECT_AFTER(stamp_read(&resumed), await_u64(c->dir, "released_at", PEER_TIMEOUT_MS));
    EXPECT_COMPLETE(e);
    publish_flag(c->dir, "done");
}

struct blocked_sync {
    aclrtEvent event;
    pid_t tid; /* atomic: set just before the call */
    int code;
};

static void *synchronize_forever(void *arg)
{
    struct blocked_sync *b = arg;
    __atomic_store_n(&b->tid, gettid(), __ATOMIC_SEQ_CST);
    b->code = aclrtSynchronizeEvent(b->event);
    return NULL;
}

/* Another process holds the event's current record pending. aclFinalize must
 * not hang on our stream's wait bound to it, nor on a host thread inside
 * aclrtSynchronizeEvent(-1), which returns 507000. */
static void finalize_steps(struct creator *c)
{
    await_flag(c->dir, "recorded", PEER_TIMEOUT_MS);
    CT_OK(aclrtStreamWaitEvent(c->stream, c->event));
    EXPECT_STREAM_BLOCKED(c->stream);
    struct blocked_sync b = {.event = c->event};
    pthread_t thread;
    CT_TRUE(pthread_create(&thread, NULL, synchronize_forever, &b) == 0);
    /* the thread must be parked inside the synchronize, not about to enter it */
    uint64_t deadline = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    for (int parked = 0; parked < 2;) {
        pid_t tid = __atomic_load_n(&b.tid, __ATOMIC_SEQ_CST);
        parked = tid && thread_sleeps_in_futex(tid) ? parked + 1 : 0;
        if (now_ns() > deadline)
            CT_FAIL("the synchronizing thread never blocked");
        sleep_ms(parked ? 50 : 1);
    }
    acl_down();
    c->finalized = 1;
    pthread_join(thread, NULL);
    CT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, b.code);
    publish_flag(c->dir, "release");
    publish_flag(c->dir, "done");
}

static void creator_destroy_steps(struct creator *c)
{
    await_flag(c->dir, "opened", PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(c->event));
    c->event = NULL;
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1, again = sentinel;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(c->handle, &again));
    CT_TRUE(again == sentinel);
    const char *args[] = {c->dir, "1", NULL};
    pid_t late = spawn_role("late_opener", args, NULL);
    expect_exit(late, 0, PEER_TIMEOUT_MS);
    publish_flag(c->dir, "destroyed");
}

/* The peer died inside the event's shared lock. */
static void peer_killed_in_lock_steps(struct creator *c)
{
    aclrtStream s = c->stream, waiter = stream_new();
    aclrtEvent e = c->event;
    reap_peers(c); /* killed: the hook fired */
    /* Nothing here may hang on the dead owner's lock (the watchdog would fire),
     * and its half-released slot must not make a new record look done. */
    EXPECT_COMPLETE(e);
    CT_OK(aclrtSynchronizeEventWithTimeout(e, 1000));
    for (int round = 0; round < 3; round++) {
        struct gate *g = gate_hold(s);
        CT_OK(aclrtRecordEvent(e, s));
        EXPECT_NOT_READY(e);
        CT_OK(aclrtStreamWaitEvent(waiter, e));
        struct stamp resumed;
        stamp_launch(waiter, &resumed);
        EXPECT_STREAM_BLOCKED(waiter);
        uint64_t released = gate_release(g);
        EXPECT_STREAM_DRAINS(waiter);
        EXPECT_AFTER(stamp_read(&resumed), released);
        EXPECT_COMPLETE(e);
    }
    /* and another process can still join and block on a pending record */
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    const char *consumer_args[] = {c->dir, "2", "0", NULL};
    pid_t consumer = spawn_role("consumer", consumer_args, NULL);
    await_flag(c->dir, "blocked_0", PEER_TIMEOUT_MS);
    uint64_t released = gate_release(g);
    EXPECT_AFTER(await_u64(c->dir, "resumed_0", PEER_TIMEOUT_MS), released);
    expect_exit(consumer, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyStream(waiter));
}

static void last_user_steps_of_creator(struct creator *c)
{
    aclrtStream s = c->stream;
    /* 1: the opener leaves first, the creator is the last user (another event) */
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    aclrtEvent own_open = ipc_open(h);
    CT_TRUE(stub_object_exists(&h));
    CT_OK(aclrtDestroyEvent(own_open));
    CT_TRUE(stub_object_exists(&h));
    CT_OK(aclrtRecordEvent(e, s));
    /* The stream, not the event: a synchronized event's record task may still be letting go of
     * the event, and destroy (which never blocks) then frees it when that task ends. A drained
     * stream has no task left holding it, so the destroy below must remove the object at once. */
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyEvent(e));
    if (stub_object_exists(&h))
        CT_FAIL("the creator was the last user and destroyed its event, but the object is still in /dev/shm");
    /* 2: another process outlives the creator's destroy and removes it */
    await_flag(c->dir, "opened", PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(c->event));
    c->event = NULL;
    publish_flag(c->dir, "creator_destroyed");
    reap_peers(c);
    if (stub_object_exists(&c->handle))
        CT_FAIL("the last user (another process) left, but the object is still in /dev/shm");
}

/* docs/acl-contract.md section 5.6: CANN has no limit on the processes that
 * open one IPC event; the stub must take at least 1024 (the old stub refused
 * the 64th). SWARM_SIZE processes open the event and wait on a pending
 * record at the same time. */
#ifndef SWARM_SIZE
#define SWARM_SIZE 128 /* a manual run may build with -DSWARM_SIZE=1024 */
#endif

static int swarm_member_done;

static void swarm_member_report_failure(void *dir)
{
    if (!swarm_member_done)
        publish_flag(dir, "swarm_failed");
}

/* One swarm member, in a child forked before any ACL call. */
static void swarm_member(const char *dir, int id)
{
    ct_on_cleanup(swarm_member_report_failure, (void *)dir);
    acl_up(id % 8);
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    CT_OK(aclrtStreamWaitEvent(s, e));
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 1));
    char name[32];
    snprintf(name, sizeof name, "bound_%d", id);
    publish_flag(dir, name);
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, 4 * PEER_TIMEOUT_MS));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    swarm_member_done = 1;
}

/* A member's and the swarm role's watchdog: every member lives until the last one is bound and
 * the record released, so it is longer than the case's, whose watchdog starts again at each member
 * bound (swarm_steps): a hang fails the case, which then ends the role (its process group). */
#define SWARM_MEMBER_WATCHDOG_S 90

/* opener_swarm DIR N: forks N - 1 children (before touching ACL, so no
 * runtime is ever forked) and is the Nth member itself; exits 0 when all did. */
CT_ROLE(opener_swarm)
{
    const char *dir = argv[0];
    int n = arg_int(argc, argv, 1, "processes");
    pid_t kids[SWARM_SIZE];
    if (n < 1 || n > SWARM_SIZE)
        CT_FAIL("opener_swarm: %d processes, expected 1..%d", n, SWARM_SIZE);
    ct_set_watchdog(SWARM_MEMBER_WATCHDOG_S);
    for (int i = 1; i < n; i++) {
        kids[i] = fork();
        if (kids[i] < 0)
            CT_FAIL("fork: %s", strerror(errno));
        if (kids[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the swarm */
            ct_set_watchdog(SWARM_MEMBER_WATCHDOG_S);
            swarm_member(dir, i);
            if (i == 1)
                exit(0);
            /* Members 0 and 1 end through exit(), so the sanitizers' exit checks (LeakSanitizer's
             * scan) see the member's code; the same code in the other 126 skips them: under
             * ASan the scans of 127 forked members cost 8 of the case's 12 s of CPU. */
            fflush(NULL);
            _exit(0);
        }
    }
    swarm_member(dir, 0);
    int failed = 0;
    for (int i = 1; i < n; i++) {
        int status = 0;
        if (waitpid(kids[i], &status, 0) != kids[i] || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
            failed++;
    }
    if (failed)
        CT_FAIL("%d of %d swarm members failed (their output is above)", failed, n);
    return 0;
}

/* The members bind one by one, at the scheduler's pace: under TSan on a loaded 2-core machine the
 * 128 took 17 s. Each one bound is progress (ct_progress, and a new 20 s for the next one), so a
 * member that hangs fails the case, and a slow machine does not. */
static void swarm_steps(struct creator *c)
{
    for (int i = 0; i < SWARM_SIZE; i++) {
        char name[32];
        snprintf(name, sizeof name, "bound_%d", i);
        uint64_t deadline = now_ns() + 20ull * 1000000000ull;
        while (!file_exists(c->dir, name)) {
            if (file_exists(c->dir, "swarm_failed"))
                CT_FAIL("a swarm member failed before member %d was bound (its output is above)", i);
            if (now_ns() > deadline)
                CT_FAIL("member %d of %d never bound its wait", i, SWARM_SIZE);
            sleep_ms(5);
        }
        ct_progress();
    }
    EXPECT_NOT_READY(c->event);
    gate_release(c->gate);
    expect_exit(c->peers[0], 0, 20000);
    c->peers[0] = 0;
}

static const struct peer_case peer_cases[] = {
    {"procs_wait_blocks_across_processes_same_device",
     "consumer",
     {0},
     1,
     .pending = 1,
     .steps = blocked_consumers_steps},
    {"procs_wait_blocks_across_processes_other_device",
     "consumer",
     {5},
     1,
     .pending = 1,
     .steps = blocked_consumers_steps},
    {"procs_several_waiters_released_by_one_record",
     "consumer",
     {0, 1, 2},
     3,
     .pending = 1,
     .steps = blocked_consumers_steps},
    {"procs_handle_identity_across_processes",
     "exporter",
     {1},
     1,
     .stub_only = "compares all 64 handle bytes (contract S4)",
     .steps = handle_identity_steps},
    {"procs_pending_record_not_ready_from_another_process",
     "observer",
     {0},
     1,
     .pending = 1,
     .steps = pending_not_ready_steps},
    {"procs_importer_records_and_creator_waits", "remote_recorder", {3}, 1, .steps = importer_records_steps},
    {"procs_finalize_releases_waits_on_a_peer_pending_record", "remote_recorder", {1}, 1, .steps = finalize_steps},
    {"procs_creator_destroy_keeps_openers_working_and_refuses_new_opens",
     "survivor",
     {1},
     1,
     .stub_only = "a destroy refuses new opens at once (contract S3)",
     .steps = creator_destroy_steps},
    {"procs_peer_killed_while_holding_the_lock",
     "die_in_lock",
     {1},
     1,
     .env = "ACL_STUB_TEST_DIE_IN_LOCK=1",
     .stub_only = "a stub test hook; the robust lock (contract S7)",
     .peer_exit = 128 + SIGKILL,
     .steps = peer_killed_in_lock_steps},
    {"procs_last_user_removes_the_shared_object",
     "last_user",
     {1},
     1,
     .stub_only = "the stub's shared-memory objects (contract S7)",
     .steps = last_user_steps_of_creator},
    /* the swarm's one peer is opener_swarm, which takes a count where the others take a device */
    {"ipc_procs_many_processes_open_and_wait_on_one_event",
     "opener_swarm",
     {SWARM_SIZE},
     1,
     .pending = 1,
     .watchdog_s = 25,
     .long_running = 1,
     .steps = swarm_steps},
};

static void run_peer_case(void)
{
    const struct peer_case *spec = ROW_OF_THIS_PROCESS(peer_cases);
    if (spec->watchdog_s)
        ct_set_watchdog(spec->watchdog_s);
    struct creator c = {.spec = spec, .dir = case_dir()};
    acl_up(0);
    c.stream = stream_new();
    c.event = ipc_event_new();
    if (spec->pending) {
        c.gate = gate_hold(c.stream);
        CT_OK(aclrtRecordEvent(c.event, c.stream));
    }
    c.handle = handle_of(c.event);
    publish_bytes(c.dir, "handle", &c.handle, sizeof c.handle);
    for (int i = 0; i < spec->peer_count; i++) {
        char device[16], id[16];
        snprintf(device, sizeof device, "%d", spec->devices[i]);
        snprintf(id, sizeof id, "%d", i);
        const char *args[] = {c.dir, device, id, NULL};
        const char *env[] = {spec->env, NULL};
        c.peers[i] = spawn_role(spec->role, args, env);
    }
    spec->steps(&c);
    reap_peers(&c);
    if (c.finalized)
        return;
    if (c.event)
        CT_OK(aclrtDestroyEvent(c.event));
    CT_OK(aclrtDestroyStream(c.stream));
    acl_down();
}

__attribute__((constructor)) static void register_table_cases(void)
{
    for (size_t i = 0; i < sizeof peer_roles / sizeof peer_roles[0]; i++)
        ct_register_role(peer_roles[i].name, run_peer_role);
    for (size_t i = 0; i < sizeof peer_cases / sizeof peer_cases[0]; i++)
        ct_register_case_kind(peer_cases[i].name, run_peer_case, peer_cases[i].long_running, peer_cases[i].stub_only);
}

/* ======================================== cases with their own choreography */

/* ------------------------------------------------------ 1000 rounds, ping-pong */

static void pipe_send(int fd, char c)
{
    while (write(fd, &c, 1) != 1)
        if (errno != EINTR)
            CT_FAIL("pipe write: %s", strerror(errno));
}

static char pipe_recv(int fd)
{
    struct pollfd p = {fd, POLLIN, 0};
    int r = poll(&p, 1, PEER_TIMEOUT_MS);
    if (r != 1)
        CT_FAIL("the peer did not answer within %d ms", PEER_TIMEOUT_MS);
    char c;
    if (read(fd, &c, 1) != 1)
        CT_FAIL("the peer closed the pipe (it exited early; see its output above)");
    return c;
}

/* ponger DIR DEVICE IN_FD OUT_FD: per round, waits on "ping" and records "pong".
 * 'g': the creator's ping is held; prove our wait blocks and report 'b'. */
CT_ROLE(ponger)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    int in = arg_int(argc, argv, 2, "in fd"), out = arg_int(argc, argv, 3, "out fd");
    aclrtEvent ping = ipc_open(await_handle(dir, "ping"));
    aclrtEvent pong = ipc_open(await_handle(dir, "pong"));
    aclrtStream s = stream_new();
    for (;;) {
        char cmd = pipe_recv(in);
        if (cmd == 'q')
            break;
        CT_OK(aclrtStreamWaitEvent(s, ping));
        if (cmd == 'g') {
            EXPECT_STREAM_BLOCKED(s);
            pipe_send(out, 'b');
        }
        CT_OK(aclrtRecordEvent(pong, s));
        CT_OK(aclrtSynchronizeStream(s));
        pipe_send(out, 'a');
    }
    CT_OK(aclrtDestroyEvent(ping));
    CT_OK(aclrtDestroyEvent(pong));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

CT_CASE(procs_reuse_1000_rounds_ping_pong)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent ping = ipc_event_new(), pong = ipc_event_new();
    aclrtIpcEventHandle hp = handle_of(ping), hq = handle_of(pong);
    publish_bytes(dir, "ping", &hp, sizeof hp);
    publish_bytes(dir, "pong", &hq, sizeof hq);
    int to_child[2], from_child[2];
    CT_TRUE(pipe(to_child) == 0 && pipe(from_child) == 0);
    char in_text[16], out_text[16];
    snprintf(in_text, sizeof in_text, "%d", to_child[0]);
    snprintf(out_text, sizeof out_text, "%d", from_child[1]);
    const char *args[] = {dir, "1", in_text, out_text, NULL};
    pid_t pid = spawn_role("ponger", args, NULL);
    close(to_child[0]);
    close(from_child[1]);
    for (int round = 0; round < 1000; round++) {
        int held = round % 100 == 0;
        struct gate *g = held ? gate_hold(s) : NULL;
        CT_OK(aclrtRecordEvent(ping, s));
        pipe_send(to_child[1], held ? 'g' : 'r');
        if (held) {
            if (pipe_recv(from_child[0]) != 'b')
                CT_FAIL("round %d: unexpected answer from the ponger", round);
            gate_release(g);
        }
        if (pipe_recv(from_child[0]) != 'a')
            CT_FAIL("round %d: unexpected answer from the ponger", round);
        /* the pong of this round was recorded and executed before 'a' */
        CT_OK(aclrtStreamWaitEvent(s, pong));
        CT_OK(aclrtSynchronizeStream(s));
    }
    pipe_send(to_child[1], 'q');
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    close(to_child[1]);
    close(from_child[0]);
    EXPECT_COMPLETE(ping);
    EXPECT_COMPLETE(pong);
    CT_OK(aclrtDestroyEvent(ping));
    CT_OK(aclrtDestroyEvent(pong));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------- creator gone */

/* late_opener DIR DEVICE: the open must fail with 107017, *event untouched. */
CT_ROLE(late_opener)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtIpcEventHandle h = await_handle(dir, "handle");
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1, e = sentinel;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(h, &e));
    if (e != sentinel)
        CT_FAIL("refused open overwrote *event");
    acl_down();
    return 0;
}

/* short_lived_creator DIR MODE: creates an event, publishes its handle, then
 * exits cleanly without destroying it ("exit") or is SIGKILLed ("crash"). */
CT_ROLE(short_lived_creator)
{
    const char *dir = argv[0];
    const char *mode = argc > 1 ? argv[1] : "";
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(e, s));
    CT_OK(aclrtSynchronizeStream(s));
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    if (strcmp(mode, "crash") == 0)
        raise(SIGKILL);
    acl_forget(); /* exit with the runtime still up and the event alive */
    return 0;
}

static void expect_open_after_creator_gone(const char *mode, int expected_exit)
{
    const char *dir = case_dir();
    const char *args[] = {dir, mode, NULL};
    pid_t pid = spawn_role("short_lived_creator", args, NULL);
    expect_exit(pid, expected_exit, PEER_TIMEOUT_MS);
    aclrtIpcEventHandle h = await_handle(dir, "handle");
    acl_up(0);
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1, e = sentinel;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(h, &e));
    CT_TRUE(e == sentinel);
    /* a clean exit leaves the object (its last user), a killed creator's object
     * is reclaimed by our aclInit or open */
    if (stub_object_exists(&h))
        CT_FAIL("the shared object of an event whose only user %s is still in /dev/shm",
                expected_exit ? "was killed" : "exited");
    /* and the runtime is healthy for new events */
    aclrtEvent fresh = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(fresh));
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(fresh));
    acl_down();
}

CT_STUB_CASE(procs_open_after_creator_exited_returns_107017, "opens of dead handles (contract S3)")
{
    expect_open_after_creator_gone("exit", 0);
}

CT_STUB_CASE(procs_open_after_creator_was_killed_returns_107017, "opens of dead handles (contract S3)")
{
    expect_open_after_creator_gone("crash", 128 + SIGKILL);
}

/* killed_after_open DIR: creates an event, publishes its handle, and is SIGKILLed once the case
 * process opened it ("opened"). */
CT_ROLE(killed_after_open)
{
    const char *dir = argv[0];
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    await_flag(dir, "opened", PEER_TIMEOUT_MS);
    raise(SIGKILL);
    CT_FAIL("still alive after SIGKILL");
}

/* The stub remembers the processes whose liveness it checked (a pidfd each, issue #35): a creator
 * seen alive at one open and killed before the next must be seen dead at that next open. */
CT_STUB_CASE(procs_open_after_a_creator_seen_alive_was_killed_returns_107017, "opens of dead handles (contract S3)")
{
    const char *dir = case_dir();
    const char *args[] = {dir, NULL};
    pid_t pid = spawn_role("killed_after_open", args, NULL);
    aclrtIpcEventHandle h = await_handle(dir, "handle");
    acl_up(0);
    CT_OK(aclrtDestroyEvent(ipc_open(h))); /* the creator is checked, and alive */
    publish_flag(dir, "opened");
    expect_exit(pid, 128 + SIGKILL, PEER_TIMEOUT_MS);
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1, e = sentinel;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(h, &e));
    CT_TRUE(e == sentinel);
    acl_down();
}

/* ---------------------------------------------------- last user killed while unlinking */

/* die_in_unlink DIR: run with ACL_STUB_TEST_DIE_IN_LOCK=unlink (native-stub/README.md):
 * the only user destroys its event and is SIGKILLed inside the shared lock
 * after marking the object unlinked, before removing its name. */
CT_ROLE(die_in_unlink)
{
    const char *dir = argv[0];
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    aclrtDestroyEvent(e);
    CT_FAIL("still alive: ACL_STUB_TEST_DIE_IN_LOCK=unlink did not make the stub die while unlinking "
            "(see native-stub/README.md for the hook)");
}

/* The name a dead last user left behind, with its object already marked
 * unlinked, must still be reclaimed by the next aclInit. */
CT_STUB_CASE(procs_last_user_killed_while_unlinking_is_reclaimed, "reclaim after deaths (contract S7)")
{
    const char *dir = case_dir();
    const char *args[] = {dir, NULL};
    const char *env[] = {"ACL_STUB_TEST_DIE_IN_LOCK=unlink", NULL};
    /* Killed means the hook fired, so the name was left behind. (Not checked
     * here: any process's aclInit, e.g. of a test running in parallel, may
     * already have reclaimed it, which is what this case expects anyway.) */
    expect_exit(spawn_role("die_in_unlink", args, env), 128 + SIGKILL, PEER_TIMEOUT_MS);
    aclrtIpcEventHandle h = await_handle(dir, "handle");
    acl_up(0);
    if (stub_object_exists(&h))
        CT_FAIL("aclInit did not reclaim the object whose last user died while unlinking it");
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1, e = sentinel;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(h, &e));
    CT_TRUE(e == sentinel);
    acl_down();
}

/* ----------------------------------------- objects of another stub version */

/* Two checkouts of the harness may run at once with different stub versions
 * (native-stub/README.md, "Process death and cleanup"). Reclaim must leave an object
 * whose layout it does not know alone, even when it is old: here one shaped
 * like the previous version's (64-entry users table, 66664 bytes), past the
 * 5 s grace after which half-created objects are removed. */
#define OTHER_VERSION_SIZE 66664
#define OTHER_VERSION_MAGIC 0x324255545343414eull /* "NACSTUB2": the shared header prefix */

static void unlink_fake_object(void *name)
{
    shm_unlink(name);
}

CT_LONG_STUB_CASE(procs_reclaim_leaves_objects_of_another_stub_version_alone, "reclaim after deaths (contract S7)")
{
    ct_set_watchdog(25);
    static char name[64];
    uint64_t id = now_ns() ^ ((uint64_t)getpid() << 40);
    stub_object_name(name, STUB_SHM_EVENT_PREFIX, id);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    CT_TRUE(fd >= 0);
    ct_on_cleanup(unlink_fake_object, name);
    printf("ct-owned-path: /dev/shm%s\n", name);
    fflush(stdout);
    CT_TRUE(ftruncate(fd, OTHER_VERSION_SIZE) == 0);
    /* magic @0, ready @8, id @16, size @24, the lock, the creator {pid, 0,
     * start time}, four u32 (the third: users allocated), then the users
     * table: the prefix every version of this magic shares. This process is
     * its one user, so that the previous version's reclaim (other checkouts
     * on this machine) keeps it too. */
    uint64_t magic = OTHER_VERSION_MAGIC, size = OTHER_VERSION_SIZE;
    uint32_t ready = 1, one = 1;
    int32_t self = (int32_t)getpid();
    off_t users = (off_t)(32 + sizeof(pthread_mutex_t) + 16 + 16);
    CT_TRUE(pwrite(fd, &magic, 8, 0) == 8 && pwrite(fd, &ready, 4, 8) == 4 && pwrite(fd, &id, 8, 16) == 8 &&
            pwrite(fd, &size, 8, 24) == 8 && pwrite(fd, &one, 4, users - 12) == 4 &&
            pwrite(fd, &one, 4, users - 8) == 4 && pwrite(fd, &self, 4, users) == 4);
    close(fd);
    char path[96];
    snprintf(path, sizeof path, "/dev/shm%s", name);
    sleep_ms(5200); /* older than the grace for half-created objects */
    acl_up(0); /* aclInit reclaims */
    acl_down();
    if (access(path, F_OK) != 0)
        CT_FAIL("aclInit removed %s, an object of another stub version that it cannot judge", path);
    char tool[PATH_CAP];
    path_join(tool, self_dir(), "cannstub_reclaim");
    const char *argv[] = {tool, NULL};
    expect_exit(spawn_program(tool, argv, NULL, NULL, NULL), 0, PEER_TIMEOUT_MS);
    if (access(path, F_OK) != 0)
        CT_FAIL("cannstub_reclaim removed %s, an object of another stub version", path);
}

/* --------------------------------------- hostile or broken objects (issue #20) */

/* aclInit reclaims the stub's objects whose users all died by taking each
 * one's lock. An object whose lock some live process holds, or whose lock
 * bytes are garbage, must neither hang nor abort it: reclaim leaves it
 * alone and says so on stderr, one line. The objects here have the current
 * layout and one user, this process: alive, so that another checkout's
 * reclaim on this machine (which may not check what this one does) keeps
 * them too. Reclaim meets the owner, mode and lock before the users. */
#define FAKE_OBJECT_SIZE (1u << 20) /* more than the header with its users table */
#define FAKE_LOCK_OFFSET 32
#define FAKE_USERS_OFFSET (FAKE_LOCK_OFFSET + sizeof(pthread_mutex_t) + 16 + 16)

struct fake_object {
    char name[64];
    char path[96];
    void *map;
};

static void unmap_fake_object(void *map)
{
    munmap(map, FAKE_OBJECT_SIZE);
}

static void make_fake_object(struct fake_object *o, int garble_lock, mode_t mode)
{
    uint64_t id = now_ns() ^ ((uint64_t)getpid() << 40) ^ (garble_lock ? 0x5a5a000000ull : 0);
    stub_object_name(o->name, STUB_SHM_EVENT_PREFIX, id);
    snprintf(o->path, sizeof o->path, "/dev/shm%s", o->name);
    int fd = shm_open(o->name, O_RDWR | O_CREAT | O_EXCL, 0600);
    CT_TRUE(fd >= 0);
    ct_on_cleanup(unlink_fake_object, o->name);
    printf("ct-owned-path: %s\n", o->path);
    fflush(stdout);
    CT_TRUE(ftruncate(fd, FAKE_OBJECT_SIZE) == 0 && fchmod(fd, mode) == 0);
    unsigned char *map = mmap(NULL, FAKE_OBJECT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CT_TRUE(map != MAP_FAILED);
    uint64_t magic = OTHER_VERSION_MAGIC, size = FAKE_OBJECT_SIZE;
    uint32_t ready = 1, users_used = 1;
    int32_t self = (int32_t)getpid();
    memcpy(map, &magic, 8);
    memcpy(map + 8, &ready, 4);
    memcpy(map + 16, &id, 8);
    memcpy(map + 24, &size, 8);
    if (garble_lock) {
        memset(map + FAKE_LOCK_OFFSET, 0xa5, sizeof(pthread_mutex_t));
    } else {
        pthread_mutexattr_t attr;
        pthread_mutexattr_init(&attr);
        pthread_mutexattr_setpshared(&attr, PTHREAD_PROCESS_SHARED);
        pthread_mutexattr_setrobust(&attr, PTHREAD_MUTEX_ROBUST);
        CT_EQ(0, pthread_mutex_init((pthread_mutex_t *)(void *)(map + FAKE_LOCK_OFFSET), &attr));
        pthread_mutexattr_destroy(&attr);
    }
    memcpy(map + FAKE_USERS_OFFSET - 12, &users_used, 4); /* and users_backed: 1 */
    memcpy(map + FAKE_USERS_OFFSET - 8, &users_used, 4);
    memcpy(map + FAKE_USERS_OFFSET, &self, 4);
    /* Kept mapped until the case ends: leak checks of other runs on this
     * machine then see it in use, not left behind. */
    o->map = map;
    ct_on_cleanup(unmap_fake_object, map);
}

/* args: object name, status dir. Holds the object's lock until killed. */
CT_ROLE(fake_lock_holder)
{
    int fd = shm_open(argv[0], O_RDWR, 0);
    if (fd < 0)
        CT_FAIL("shm_open %s: %s", argv[0], strerror(errno));
    unsigned char *map = mmap(NULL, FAKE_OBJECT_SIZE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    CT_TRUE(map != MAP_FAILED);
    CT_EQ(0, pthread_mutex_lock((pthread_mutex_t *)(void *)(map + FAKE_LOCK_OFFSET)));
    publish_flag(argv[1], "holding");
    for (;;)
        pause();
}

/* aclInit and aclFinalize, nothing else: a run's start. */
CT_ROLE(init_only)
{
    (void)argv;
    acl_init_only();
    acl_down();
    return 0;
}

/* Runs aclInit in a new process (stderr to a log) and expects it to end
 * well within the case's time, leave the object in place and name it. */
static void expect_init_leaves_alone(const struct fake_object *o, const char *why_part)
{
    char log[PATH_CAP], text[4096];
    path_join(log, case_dir(), "init.log");
    const char *argv[] = {self_exe(), "--role", "init_only", NULL};
    int code = wait_exit(spawn_program(self_exe(), argv, NULL, NULL, log), PEER_TIMEOUT_MS);
    size_t n = await_file(case_dir(), "init.log", text, sizeof text - 1, PEER_TIMEOUT_MS);
    text[n] = '\0';
    if (code != 0)
        CT_FAIL("aclInit beside %s ended with code %d (128+6 is SIGABRT); its output:\n%s", o->path, code, text);
    if (access(o->path, F_OK) != 0)
        CT_FAIL("aclInit removed %s, an object it must leave alone (%s)", o->path, why_part);
    char want[160];
    snprintf(want, sizeof want, "left %s alone: ", o->path);
    if (!strstr(text, want) || !strstr(text, why_part))
        CT_FAIL("aclInit did not say it left %s alone (%s); its output:\n%s", o->path, why_part, text);
}

CT_STUB_CASE(procs_reclaim_does_not_block_on_a_lock_held_by_a_live_process, "reclaim after deaths (contract S7)")
{
    ct_set_watchdog(25);
    static struct fake_object o;
    make_fake_object(&o, 0, 0600);
    const char *args[] = {o.name, case_dir(), NULL};
    pid_t holder = spawn_role("fake_lock_holder", args, NULL);
    await_flag(case_dir(), "holding", PEER_TIMEOUT_MS);
    expect_init_leaves_alone(&o, "its lock stayed held");
    kill(holder, SIGKILL);
    CT_EQ(128 + SIGKILL, wait_exit(holder, PEER_TIMEOUT_MS));
}

CT_STUB_CASE(procs_reclaim_survives_garbled_lock_bytes, "reclaim after deaths (contract S7)")
{
    ct_set_watchdog(25);
    static struct fake_object o;
    make_fake_object(&o, 1, 0600);
    expect_init_leaves_alone(&o, "garbled");
}

/* An object others may write (a stranger could have made it, or may change
 * it under us) is not ours to judge: left alone, and named. */
CT_STUB_CASE(procs_reclaim_leaves_objects_others_can_write_alone, "reclaim after deaths (contract S7)")
{
    ct_set_watchdog(25);
    static struct fake_object o;
    make_fake_object(&o, 0, 0622);
    expect_init_leaves_alone(&o, "lets other users in");
}

/* A stranger's many stray objects are one line with a count, not one line per object (20000
 * objects gave 40000 lines in a 2-role run). */
CT_CASE(procs_reclaim_names_many_left_alone_objects_in_one_line)
{
    ct_set_watchdog(25);
    enum { N = 30 };
    static struct fake_object o[N];
    for (int i = 0; i < N; i++)
        make_fake_object(&o[i], 0, 0622);
    char log[PATH_CAP], text[4096];
    path_join(log, case_dir(), "init.log");
    const char *argv[] = {self_exe(), "--role", "init_only", NULL};
    CT_EQ(0, wait_exit(spawn_program(self_exe(), argv, NULL, NULL, log), PEER_TIMEOUT_MS));
    size_t n = await_file(case_dir(), "init.log", text, sizeof text - 1, PEER_TIMEOUT_MS);
    text[n] = '\0';
    for (int i = 0; i < N; i++)
        if (access(o[i].path, F_OK) != 0)
            CT_FAIL("aclInit removed %s, an object it must leave alone", o[i].path);
    int lines = 0;
    for (const char *p = text; (p = strstr(p, " alone: ")) != NULL; p++)
        lines++;
    if (lines != 1 || !strstr(text, "lets other users in") || !strstr(text, "and 29 more"))
        CT_FAIL("expected one line naming the first object, why, and 29 more; the output:\n%s", text);
}
