/*
 * cases_ipc_procs.c - IPC events across real processes.
 *
 * The case process is the creator unless said otherwise; helpers are
 * `conformance --role NAME DIR ...` processes (fork + immediate exec) that
 * talk to it through atomically published files in the case directory, or
 * through inherited pipes where a round trip per step is needed.
 * Cross-process timestamps are CLOCK_MONOTONIC, which is system-wide.
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

/* ------------------------------------------------------------- consumer role */

/* consumer DIR DEVICE ID: opens "handle", waits on it, proves it is blocked,
 * then reports the time its stream resumed in "resumed_ID". */
CT_ROLE(consumer)
{
    const char *dir = argv[0];
    int device = arg_int(argc, argv, 1, "device");
    int id = arg_int(argc, argv, 2, "id");
    acl_up(device);
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    CT_OK(aclrtStreamWaitEvent(s, e));
    aclrtEvent probe = local_event_new();
    CT_OK(aclrtRecordEvent(probe, s));
    struct stamp resumed;
    stamp_launch(s, &resumed);
    EXPECT_STREAM_BLOCKED(s);
    EXPECT_NOT_READY(probe);
    EXPECT_NOT_READY(e); /* the creator's pending record, seen from here */
    char name[32];
    snprintf(name, sizeof name, "blocked_%d", id);
    publish_flag(dir, name);
    EXPECT_STREAM_DRAINS(s);
    snprintf(name, sizeof name, "resumed_%d", id);
    publish_u64(dir, name, stamp_read(&resumed));
    EXPECT_COMPLETE(probe);
    CT_OK(aclrtDestroyEvent(probe));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

/* The creator side of a blocking test: ACL up on device 0, an IPC event
 * whose record is pending behind a gate, and its handle published as
 * dir/"handle". */
struct pending_creator {
    aclrtStream stream;
    aclrtEvent event;
    struct gate *gate;
};

static struct pending_creator start_pending_creator(const char *dir)
{
    struct pending_creator c;
    acl_up(0);
    c.stream = stream_new();
    c.event = ipc_event_new();
    c.gate = gate_hold(c.stream);
    CT_OK(aclrtRecordEvent(c.event, c.stream));
    aclrtIpcEventHandle h = handle_of(c.event);
    publish_bytes(dir, "handle", &h, sizeof h);
    return c;
}

/* Creator with a pending record; consumers on the given devices must all stay
 * blocked until the one record executes. */
static void run_blocked_consumers(const int *devices, int count)
{
    const char *dir = case_dir();
    struct pending_creator c = start_pending_creator(dir);
    aclrtStream s = c.stream;
    aclrtEvent e = c.event;
    struct gate *g = c.gate;
    pid_t pids[8];
    char dev_text[8][16], id_text[8][16];
    for (int i = 0; i < count; i++) {
        snprintf(dev_text[i], sizeof dev_text[i], "%d", devices[i]);
        snprintf(id_text[i], sizeof id_text[i], "%d", i);
        const char *args[] = {dir, dev_text[i], id_text[i], NULL};
        pids[i] = spawn_role("consumer", args, NULL);
    }
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "blocked_%d", i);
        await_flag(dir, name, PEER_TIMEOUT_MS);
    }
    sleep_ms(20); /* consumers are parked; give a broken stub time to let them through */
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "resumed_%d", i);
        if (file_exists(dir, name))
            CT_FAIL("consumer %d resumed before the record executed", i);
    }
    uint64_t released = gate_release(g);
    ct_note("released the producer at %llu", (unsigned long long)released);
    for (int i = 0; i < count; i++) {
        char name[32];
        snprintf(name, sizeof name, "resumed_%d", i);
        uint64_t resumed = await_u64(dir, name, PEER_TIMEOUT_MS);
        ct_note("consumer %d (device %d) resumed %.3f ms after the release", i, devices[i],
                (double)((int64_t)(resumed - released)) / 1e6);
        EXPECT_AFTER(resumed, released);
        expect_exit(pids[i], 0, PEER_TIMEOUT_MS);
    }
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(procs_wait_blocks_across_processes_same_device)
{
    int devices[] = {0};
    run_blocked_consumers(devices, 1);
}

CT_CASE(procs_wait_blocks_across_processes_other_device)
{
    int devices[] = {5};
    run_blocked_consumers(devices, 1);
}

CT_CASE(procs_several_waiters_released_by_one_record)
{
    int devices[] = {0, 1, 2};
    run_blocked_consumers(devices, 3);
}

/* ------------------------------------------------------------ handle identity */

/* exporter DIR DEVICE: re-exports the creator's handle and exports one of its own. */
CT_ROLE(exporter)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtIpcEventHandle h = await_handle(dir, "handle");
    aclrtEvent opened = ipc_open(h);
    aclrtIpcEventHandle back = handle_of(opened);
    aclrtIpcEventHandle again = handle_of(opened);
    CT_TRUE(handles_equal(&back, &again));
    publish_bytes(dir, "handle_back", &back, sizeof back);
    aclrtEvent own = ipc_event_new();
    aclrtIpcEventHandle own_h = handle_of(own);
    publish_bytes(dir, "own_handle", &own_h, sizeof own_h);
    await_flag(dir, "done", PEER_TIMEOUT_MS);
    /* the creator recorded our event and synchronized it */
    EXPECT_COMPLETE(own);
    CT_OK(aclrtDestroyEvent(own));
    CT_OK(aclrtDestroyEvent(opened));
    acl_down();
    return 0;
}

CT_CASE(procs_handle_identity_across_processes)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "1", NULL};
    pid_t pid = spawn_role("exporter", args, NULL);
    aclrtIpcEventHandle back = await_handle(dir, "handle_back");
    if (!handles_equal(&h, &back))
        CT_FAIL("the handle exported by another process that opened the event differs from the creator's");
    aclrtIpcEventHandle own = await_handle(dir, "own_handle");
    CT_TRUE(!handles_equal(&h, &own));
    /* the creator can open an event created by another process */
    aclrtEvent theirs = ipc_open(own);
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(theirs, s));
    CT_OK(aclrtSynchronizeEvent(theirs));
    publish_flag(dir, "done");
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(theirs));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------------- NOT_READY from another process */

/* observer DIR DEVICE: sees the creator's pending record, then synchronizes on
 * it (it never records: the synchronize must not miss the completion). */
CT_ROLE(observer)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    EXPECT_NOT_READY(e);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 50));
    EXPECT_NOT_READY(e);
    publish_flag(dir, "saw_pending");
    CT_OK(aclrtSynchronizeEvent(e));
    publish_u64(dir, "synced_at", now_ns());
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
    return 0;
}

CT_CASE(procs_pending_record_not_ready_from_another_process)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "0", NULL};
    pid_t pid = spawn_role("observer", args, NULL);
    await_flag(dir, "saw_pending", PEER_TIMEOUT_MS);
    sleep_ms(20);
    CT_TRUE(!file_exists(dir, "synced_at"));
    uint64_t released = gate_release(g);
    EXPECT_AFTER(await_u64(dir, "synced_at", PEER_TIMEOUT_MS), released);
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------------- importer records, creator waits */

/* remote_recorder DIR DEVICE: records the creator's event from a held stream
 * and releases it when told. */
CT_ROLE(remote_recorder)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    EXPECT_NOT_READY(e);
    publish_flag(dir, "recorded");
    await_flag(dir, "release", PEER_TIMEOUT_MS);
    publish_u64(dir, "released_at", gate_release(g));
    CT_OK(aclrtSynchronizeStream(s));
    await_flag(dir, "done", PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

CT_CASE(procs_importer_records_and_creator_waits)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "3", NULL};
    pid_t pid = spawn_role("remote_recorder", args, NULL);
    await_flag(dir, "recorded", PEER_TIMEOUT_MS);
    EXPECT_NOT_READY(e);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 20));
    CT_OK(aclrtStreamWaitEvent(s, e));
    struct stamp resumed;
    stamp_launch(s, &resumed);
    EXPECT_STREAM_BLOCKED(s);
    publish_flag(dir, "release");
    EXPECT_STREAM_DRAINS(s);
    EXPECT_AFTER(stamp_read(&resumed), await_u64(dir, "released_at", PEER_TIMEOUT_MS));
    EXPECT_COMPLETE(e);
    publish_flag(dir, "done");
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------- finalize while bound to a pending record */

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

/* 1 while thread tid of this process sleeps in a futex syscall. */
static int thread_sleeps_in_futex(pid_t tid)
{
    char path[64], text[128] = {0};
    snprintf(path, sizeof path, "/proc/self/task/%d/syscall", (int)tid);
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return 0;
    ssize_t n = read(fd, text, sizeof text - 1);
    close(fd);
    long nr = n > 0 ? strtol(text, NULL, 10) : -1;
#ifdef SYS_futex_waitv
    if (nr == SYS_futex_waitv)
        return 1;
#endif
    return nr == SYS_futex;
}

/* Another process holds the event's current record pending. aclFinalize must
 * not hang on our stream's wait bound to it, nor on a host thread inside
 * aclrtSynchronizeEvent(-1), which returns 507000. */
CT_CASE(procs_finalize_releases_waits_on_a_peer_pending_record)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "1", NULL};
    pid_t pid = spawn_role("remote_recorder", args, NULL);
    await_flag(dir, "recorded", PEER_TIMEOUT_MS);
    CT_OK(aclrtStreamWaitEvent(s, e));
    EXPECT_STREAM_BLOCKED(s);
    struct blocked_sync b = {.event = e};
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
    pthread_join(thread, NULL);
    CT_EQ(ACL_ERROR_RT_INTERNAL_ERROR, b.code);
    publish_flag(dir, "release");
    publish_flag(dir, "done");
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
}

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

/* ------------------------------------------- creator destroys / exits / crashes */

/* survivor DIR DEVICE: opens before the creator destroys, keeps working after. */
CT_ROLE(survivor)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    publish_flag(dir, "opened");
    await_flag(dir, "destroyed", PEER_TIMEOUT_MS);
    aclrtStream s = stream_new(), waiter = stream_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    EXPECT_NOT_READY(e);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    EXPECT_STREAM_BLOCKED(waiter);
    gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtSynchronizeEvent(e));
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyStream(waiter));
    acl_down();
    return 0;
}

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

CT_CASE(procs_creator_destroy_keeps_openers_working_and_refuses_new_opens)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "1", NULL};
    pid_t survivor = spawn_role("survivor", args, NULL);
    await_flag(dir, "opened", PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1, again = sentinel;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(h, &again));
    CT_TRUE(again == sentinel);
    pid_t late = spawn_role("late_opener", args, NULL);
    expect_exit(late, 0, PEER_TIMEOUT_MS);
    publish_flag(dir, "destroyed");
    expect_exit(survivor, 0, PEER_TIMEOUT_MS);
    acl_down();
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

CT_CASE(procs_open_after_creator_exited_returns_107017)
{
    expect_open_after_creator_gone("exit", 0);
}

CT_CASE(procs_open_after_creator_was_killed_returns_107017)
{
    expect_open_after_creator_gone("crash", 128 + SIGKILL);
}

/* ---------------------------------------------------- peer killed in the lock */

/* die_in_lock DIR DEVICE: run with ACL_STUB_TEST_DIE_IN_LOCK=1 (README-stub.md):
 * the stub SIGKILLs this process inside the event's shared lock, when the
 * completed record releases its slot (refcount 1 -> 0, done byte still set). */
CT_ROLE(die_in_lock)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(e, s));
    aclrtSynchronizeStream(s);
    sleep_ms(2000); /* the executor thread kills us while we sleep */
    CT_FAIL("still alive: ACL_STUB_TEST_DIE_IN_LOCK=1 did not make the stub die inside the lock "
            "(see README-stub.md for the hook)");
}

CT_CASE(procs_peer_killed_while_holding_the_lock)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "1", NULL};
    const char *env[] = {"ACL_STUB_TEST_DIE_IN_LOCK=1", NULL};
    expect_exit(spawn_role("die_in_lock", args, env), 128 + SIGKILL, PEER_TIMEOUT_MS);
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
    const char *consumer_args[] = {dir, "2", "0", NULL};
    pid_t consumer = spawn_role("consumer", consumer_args, NULL);
    await_flag(dir, "blocked_0", PEER_TIMEOUT_MS);
    uint64_t released = gate_release(g);
    EXPECT_AFTER(await_u64(dir, "resumed_0", PEER_TIMEOUT_MS), released);
    expect_exit(consumer, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* die_in_unlink DIR: run with ACL_STUB_TEST_DIE_IN_LOCK=unlink (README-stub.md):
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
            "(see README-stub.md for the hook)");
}

/* The name a dead last user left behind, with its object already marked
 * unlinked, must still be reclaimed by the next aclInit. */
CT_CASE(procs_last_user_killed_while_unlinking_is_reclaimed)
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

/* ------------------------------------------------ the last user removes the object */

/* last_user DIR DEVICE: opens, outlives the creator's destroy, then leaves. */
CT_ROLE(last_user)
{
    const char *dir = argv[0];
    acl_up(arg_int(argc, argv, 1, "device"));
    aclrtIpcEventHandle h = await_handle(dir, "handle");
    aclrtEvent e = ipc_open(h);
    publish_flag(dir, "opened");
    await_flag(dir, "creator_destroyed", PEER_TIMEOUT_MS);
    if (!stub_object_exists(&h))
        CT_FAIL("the object vanished while this process still had the event open");
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
    return 0;
}

CT_CASE(procs_last_user_removes_the_shared_object)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    /* 1: the opener leaves first, the creator is the last user */
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
    e = ipc_event_new();
    h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, "1", NULL};
    pid_t pid = spawn_role("last_user", args, NULL);
    await_flag(dir, "opened", PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    publish_flag(dir, "creator_destroyed");
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    if (stub_object_exists(&h))
        CT_FAIL("the last user (another process) left, but the object is still in /dev/shm");
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------- many processes on one event */

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

/* opener_swarm DIR N: forks N - 1 children (before touching ACL, so no
 * runtime is ever forked) and is the Nth member itself; exits 0 when all did. */
CT_ROLE(opener_swarm)
{
    const char *dir = argv[0];
    int n = arg_int(argc, argv, 1, "processes");
    pid_t kids[SWARM_SIZE];
    if (n < 1 || n > SWARM_SIZE)
        CT_FAIL("opener_swarm: %d processes, expected 1..%d", n, SWARM_SIZE);
    for (int i = 1; i < n; i++) {
        kids[i] = fork();
        if (kids[i] < 0)
            CT_FAIL("fork: %s", strerror(errno));
        if (kids[i] == 0) {
            prctl(PR_SET_PDEATHSIG, SIGKILL); /* never outlive the swarm */
            ct_set_watchdog(25);
            swarm_member(dir, i);
            exit(0);
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

CT_CASE(ipc_procs_many_processes_open_and_wait_on_one_event)
{
    ct_set_watchdog(25);
    const char *dir = case_dir();
    struct pending_creator c = start_pending_creator(dir);
    char count[16];
    snprintf(count, sizeof count, "%d", SWARM_SIZE);
    const char *args[] = {dir, count, NULL};
    pid_t swarm = spawn_role("opener_swarm", args, NULL);
    uint64_t deadline = now_ns() + 20ull * 1000000000ull;
    for (int i = 0; i < SWARM_SIZE; i++) {
        char name[32];
        snprintf(name, sizeof name, "bound_%d", i);
        while (!file_exists(dir, name)) {
            if (file_exists(dir, "swarm_failed"))
                CT_FAIL("a swarm member failed before member %d was bound (its output is above)", i);
            if (now_ns() > deadline)
                CT_FAIL("member %d of %d never bound its wait", i, SWARM_SIZE);
            sleep_ms(5);
        }
    }
    EXPECT_NOT_READY(c.event);
    gate_release(c.gate);
    expect_exit(swarm, 0, 20000);
    CT_OK(aclrtDestroyEvent(c.event));
    CT_OK(aclrtDestroyStream(c.stream));
    acl_down();
}

/* ----------------------------------------- objects of another stub version */

/* Two checkouts of the harness may run at once with different stub versions
 * (README-stub.md, "Process death and cleanup"). Reclaim must leave an object
 * whose layout it does not know alone, even when it is old: here one shaped
 * like the previous version's (64-entry users table, 66664 bytes), past the
 * 5 s grace after which half-created objects are removed. */
#define OTHER_VERSION_SIZE 66664
#define OTHER_VERSION_MAGIC 0x314255545343414eull /* "NACSTUB1": the shared header prefix */

static void unlink_fake_object(void *name)
{
    shm_unlink(name);
}

CT_CASE(procs_reclaim_leaves_objects_of_another_stub_version_alone)
{
    ct_set_watchdog(25);
    static char name[64];
    uint64_t id = now_ns() ^ ((uint64_t)getpid() << 40);
    snprintf(name, sizeof name, "/cannstub-ev-%016llx", (unsigned long long)id);
    int fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
    CT_TRUE(fd >= 0);
    ct_on_cleanup(unlink_fake_object, name);
    printf("ct-owned-path: /dev/shm%s\n", name);
    fflush(stdout);
    CT_TRUE(ftruncate(fd, OTHER_VERSION_SIZE) == 0);
    /* magic @0, ready @8, id @16, size @24, the lock, the creator {pid, 0,
     * start time}, two u32, then the users table: the prefix every version
     * shares. This process is its one user, so that the previous version's
     * reclaim (other checkouts on this machine) keeps it too. */
    uint64_t magic = OTHER_VERSION_MAGIC, size = OTHER_VERSION_SIZE;
    uint32_t ready = 1;
    int32_t self = (int32_t)getpid();
    off_t users = (off_t)(32 + sizeof(pthread_mutex_t) + 16 + 8);
    CT_TRUE(pwrite(fd, &magic, 8, 0) == 8 && pwrite(fd, &ready, 4, 8) == 4 && pwrite(fd, &id, 8, 16) == 8 &&
            pwrite(fd, &size, 8, 24) == 8 && pwrite(fd, &self, 4, users) == 4);
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
#define FAKE_USERS_OFFSET (FAKE_LOCK_OFFSET + sizeof(pthread_mutex_t) + 16 + 8)

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
    snprintf(o->name, sizeof o->name, "/cannstub-ev-%016llx", (unsigned long long)id);
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
    memcpy(map + FAKE_USERS_OFFSET - 4, &users_used, 4);
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

CT_CASE(procs_reclaim_does_not_block_on_a_lock_held_by_a_live_process)
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

CT_CASE(procs_reclaim_survives_garbled_lock_bytes)
{
    ct_set_watchdog(25);
    static struct fake_object o;
    make_fake_object(&o, 1, 0600);
    expect_init_leaves_alone(&o, "garbled");
}

/* An object others may write (a stranger could have made it, or may change
 * it under us) is not ours to judge: left alone, and named. */
CT_CASE(procs_reclaim_leaves_objects_others_can_write_alone)
{
    ct_set_watchdog(25);
    static struct fake_object o;
    make_fake_object(&o, 0, 0622);
    expect_init_leaves_alone(&o, "lets other users in");
}
