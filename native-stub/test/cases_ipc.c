/*
 * cases_ipc.c - docs/acl-contract.md section 5 (IPC event slot / current-record model),
 * inside one process: several streams and several opened objects of the
 * same event stand in for several processes (open builds an independent
 * object sharing the state). Cross-process variants are in cases_ipc_procs.c.
 *
 * Blocking is always proved twice: a synchronize-with-timeout on the waiting
 * stream returns 507046 before the record executes, and the CLOCK_MONOTONIC
 * stamp of a host function queued behind the wait is not earlier than the
 * moment the test released the producer. A stub whose waits never block
 * fails both.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <sys/mount.h>
#include <unistd.h>
#include <stdio.h>
#include <string.h>

#include "support.h"

CT_CASE(ipc_fresh_event_is_complete_and_waits_are_noops)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    EXPECT_COMPLETE(e);
    EXPECT_COMPLETE(opened);
    CT_OK(aclrtSynchronizeEvent(e));
    CT_OK(aclrtSynchronizeEventWithTimeout(e, 1));
    CT_OK(aclrtSynchronizeEvent(opened));
    CT_OK(aclrtStreamWaitEvent(s, e));
    CT_OK(aclrtStreamWaitEvent(s, opened));
    CT_OK(aclrtStreamWaitEventWithTimeout(s, e, 0));
    struct stamp after;
    stamp_launch(s, &after);
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, PEER_TIMEOUT_MS));
    CT_TRUE(stamp_read(&after) != 0);
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(ipc_pending_record_is_not_ready_until_it_executes)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    EXPECT_NOT_READY(e);
    EXPECT_NOT_READY(opened);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 50));
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(opened, 1));
    gate_release(g);
    CT_OK(aclrtSynchronizeEventWithTimeout(opened, PEER_TIMEOUT_MS));
    CT_OK(aclrtSynchronizeEvent(e));
    EXPECT_COMPLETE(e);
    EXPECT_COMPLETE(opened);
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(ipc_synchronize_timeout_validation)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, -2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, INT32_MIN));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(s, e, -1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(s, e, INT32_MIN));
    CT_OK(aclrtSynchronizeEventWithTimeout(e, -1)); /* nothing recorded: returns */
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* One producer stream held by a gate, a record on it, one waiting stream. */
CT_CASE(ipc_wait_blocks_until_the_record_executes)
{
    acl_up(0);
    aclrtStream producer = stream_new();
    aclrtStream waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtStreamWaitEvent(waiter, opened)); /* returns at once */
    aclrtEvent probe = local_event_new();
    CT_OK(aclrtRecordEvent(probe, waiter));
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_BLOCKED(waiter);
    EXPECT_NOT_READY(probe);
    CT_EQ(0, stamp_read(&resumed));
    uint64_t released = gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_COMPLETE(probe);
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(probe));
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

CT_CASE(ipc_wait_after_completion_is_a_noop)
{
    acl_up(0);
    aclrtStream producer = stream_new();
    aclrtStream waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtSynchronizeStream(producer));
    EXPECT_COMPLETE(e);
    /* the producer is busy again (nothing recorded): the wait must not bind to it */
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    struct stamp after;
    stamp_launch(waiter, &after);
    CT_OK(aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS));
    CT_TRUE(stamp_read(&after) != 0);
    gate_release(g);
    CT_OK(aclrtSynchronizeStream(producer));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

CT_CASE(ipc_latest_record_wins)
{
    acl_up(0);
    aclrtStream first = stream_new(), second = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    struct gate *g1 = gate_hold(first);
    struct gate *g2 = gate_hold(second);
    CT_OK(aclrtRecordEvent(e, first));      /* record 1 */
    CT_OK(aclrtRecordEvent(opened, second)); /* record 2 (by another opener) is current now */
    gate_release(g1);
    CT_OK(aclrtSynchronizeStream(first));    /* record 1 executed */
    EXPECT_NOT_READY(e);                     /* the current record is 2 */
    EXPECT_NOT_READY(opened);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 50));
    CT_OK(aclrtStreamWaitEvent(waiter, e));  /* binds to record 2 */
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_BLOCKED(waiter);
    uint64_t released = gate_release(g2);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(second));
    CT_OK(aclrtDestroyStream(first));
    acl_down();
}

CT_CASE(ipc_wait_is_unaffected_by_later_records)
{
    acl_up(0);
    aclrtStream first = stream_new(), second = stream_new();
    aclrtStream early_waiter = stream_new(), late_waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *g1 = gate_hold(first);
    struct gate *g2 = gate_hold(second);
    CT_OK(aclrtRecordEvent(e, first));              /* record 1 pending */
    CT_OK(aclrtStreamWaitEvent(early_waiter, e));   /* captures record 1 */
    struct stamp early;
    stamp_launch(early_waiter, &early);
    CT_OK(aclrtRecordEvent(e, second));             /* record 2 pending, now current */
    CT_OK(aclrtStreamWaitEvent(late_waiter, e));    /* captures record 2 */
    struct stamp late;
    stamp_launch(late_waiter, &late);
    EXPECT_STREAM_BLOCKED(early_waiter);
    /* record 1 executes: the early waiter resumes although record 2 is still pending */
    uint64_t released1 = gate_release(g1);
    CT_OK(aclrtSynchronizeStreamWithTimeout(early_waiter, PEER_TIMEOUT_MS));
    EXPECT_AFTER(stamp_read(&early), released1);
    EXPECT_STREAM_BLOCKED(late_waiter);
    CT_EQ(0, stamp_read(&late));
    uint64_t released2 = gate_release(g2);
    EXPECT_STREAM_DRAINS(late_waiter);
    EXPECT_AFTER(stamp_read(&late), released2);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(late_waiter));
    CT_OK(aclrtDestroyStream(early_waiter));
    CT_OK(aclrtDestroyStream(second));
    CT_OK(aclrtDestroyStream(first));
    acl_down();
}

CT_CASE(ipc_wait_ignores_a_later_record_that_completes_first)
{
    acl_up(0);
    aclrtStream first = stream_new(), second = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *g1 = gate_hold(first);
    CT_OK(aclrtRecordEvent(e, first));     /* record 1 pending */
    CT_OK(aclrtStreamWaitEvent(waiter, e)); /* captures record 1 */
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    CT_OK(aclrtRecordEvent(e, second));    /* record 2 executes at once */
    CT_OK(aclrtSynchronizeStream(second));
    EXPECT_COMPLETE(e);                    /* the current record (2) is done ... */
    EXPECT_STREAM_BLOCKED(waiter);         /* ... but the wait is bound to record 1 */
    uint64_t released = gate_release(g1);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(second));
    CT_OK(aclrtDestroyStream(first));
    acl_down();
}

CT_CASE(ipc_several_waiters_released_by_one_record)
{
    enum { WAITERS = 4 };
    acl_up(0);
    aclrtStream producer = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    aclrtStream waiters[WAITERS];
    aclrtEvent opened[WAITERS];
    struct stamp resumed[WAITERS];
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    for (int i = 0; i < WAITERS; i++) {
        /* half on other devices: cross-device waits work the same way */
        CT_OK(aclrtSetDevice(i % 2 ? 1 : 0));
        waiters[i] = stream_new();
        opened[i] = ipc_open(h);
        CT_OK(aclrtStreamWaitEvent(waiters[i], opened[i]));
        stamp_launch(waiters[i], &resumed[i]);
    }
    for (int i = 0; i < WAITERS; i++) {
        CT_OK(aclrtSetDevice(i % 2 ? 1 : 0));
        EXPECT_STREAM_BLOCKED(waiters[i]);
    }
    uint64_t released = gate_release(g);
    for (int i = 0; i < WAITERS; i++) {
        CT_OK(aclrtSetDevice(i % 2 ? 1 : 0));
        EXPECT_STREAM_DRAINS(waiters[i]);
        EXPECT_AFTER(stamp_read(&resumed[i]), released);
        CT_OK(aclrtDestroyEvent(opened[i]));
        CT_OK(aclrtDestroyStream(waiters[i]));
    }
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

/* More rounds than the 8192 slots: a slot that is never released shows up as
 * a failing record long before the end. Every 1000th round proves the wait
 * still blocks, and counts as progress for the watchdog (the TSan build under
 * CI's load takes 10 s and more for the 9000 rounds). */
CT_CASE(ipc_reuse_9000_rounds_without_reset)
{
    acl_up(0);
    aclrtStream producer = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    for (int round = 0; round < 9000; round++) {
        int check = round % 1000 == 0;
        struct gate *g = check ? gate_hold(producer) : NULL;
        CT_OK(aclrtRecordEvent(round % 2 ? opened : e, producer));
        CT_OK(aclrtStreamWaitEvent(waiter, round % 2 ? e : opened));
        if (check) {
            CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(waiter, 20));
            gate_release(g);
            ct_progress();
        }
        CT_OK(aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS));
        if (round % 3 == 0)
            CT_OK(aclrtSynchronizeEvent(e));
    }
    CT_OK(aclrtSynchronizeStream(producer));
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

CT_CASE(ipc_destroy_with_pending_work_never_blocks)
{
    acl_up(0);
    aclrtStream producer = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtStreamWaitEvent(waiter, opened));
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    /* Only this thread can open the gate: a blocking destroy hangs until the watchdog. */
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyEvent(opened));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(e, producer));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(waiter, opened));
    EXPECT_STREAM_BLOCKED(waiter); /* the queued wait still holds */
    uint64_t released = gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    CT_OK(aclrtSynchronizeStream(producer));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

CT_STUB_CASE(ipc_waits_ignore_their_timeout, "IPC waits never time out (contract S5)")
{
    acl_up(0);
    CT_OK(aclrtSetOpWaitTimeout(1));
    aclrtStream producer = stream_new(), waiter = stream_new(), waiter2 = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtStreamWaitEventWithTimeout(waiter, e, 1)); /* 1 ms: ignored for IPC */
    CT_OK(aclrtStreamWaitEvent(waiter2, e));             /* op wait timeout 1 s: ignored too */
    struct stamp resumed, resumed2;
    stamp_launch(waiter, &resumed);
    stamp_launch(waiter2, &resumed2);
    sleep_ms(1100); /* past both timeouts */
    EXPECT_STREAM_BLOCKED(waiter);
    EXPECT_STREAM_BLOCKED(waiter2);
    uint64_t released = gate_release(g);
    /* the waits ended by the record, not by an error: the streams drain cleanly */
    CT_OK(aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS));
    CT_OK(aclrtSynchronizeStreamWithTimeout(waiter2, PEER_TIMEOUT_MS));
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_AFTER(stamp_read(&resumed2), released);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter2));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

CT_STUB_CASE(ipc_handle_identity_across_repeated_exports, "compares all 64 handle bytes (contract S4)")
{
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtEvent other = ipc_event_new();
    aclrtIpcEventHandle h1 = handle_of(e), h2 = handle_of(e), h_other = handle_of(other);
    CT_TRUE(handles_equal(&h1, &h2));
    CT_TRUE(!handles_equal(&h1, &h_other));
    CT_TRUE(memcmp(h1.reserved, h_other.reserved, 8) != 0); /* bytes 0..7 identify the event */
    aclrtEvent opened = ipc_open(h1);
    CT_TRUE(opened != e);
    aclrtIpcEventHandle h3 = handle_of(opened);
    CT_TRUE(handles_equal(&h1, &h3));
    aclrtEvent opened_again = ipc_open(h3);
    CT_TRUE(opened_again != opened);
    aclrtIpcEventHandle h4 = handle_of(opened_again);
    CT_TRUE(handles_equal(&h1, &h4));
    /* destroying one opened object does not affect another */
    CT_OK(aclrtDestroyEvent(opened));
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(opened_again, s));
    CT_OK(aclrtSynchronizeEvent(e));
    CT_OK(aclrtDestroyEvent(opened_again));
    CT_OK(aclrtDestroyEvent(other));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* Opens that must fail with 107017 and leave *event untouched. */
static void expect_open_refused(aclrtIpcEventHandle h, const char *what)
{
    aclrtEvent sentinel = (aclrtEvent)0x5e4711e1;
    aclrtEvent e = sentinel;
    int code = aclrtIpcOpenEventHandle(h, &e);
    if (code != ACL_ERROR_RT_INVALID_HANDLE)
        CT_FAIL("open of %s: expected 107017 (ACL_ERROR_RT_INVALID_HANDLE), got %d (%s)", what, code,
                ct_code_name(code));
    if (e != sentinel)
        CT_FAIL("open of %s failed but overwrote *event (%p)", what, e);
}

CT_STUB_CASE(ipc_open_garbage_zero_and_destroyed_handles_return_107017, "opens of dead handles (contract S3)")
{
    acl_up(0);
    aclrtIpcEventHandle h;
    memset(&h, 0, sizeof h);
    expect_open_refused(h, "an all-zero handle");
    memset(&h, 0xff, sizeof h);
    expect_open_refused(h, "an all-0xff handle");
    for (int i = 0; i < 64; i++)
        h.reserved[i] = (char)(i * 37 + 11);
    expect_open_refused(h, "a garbage handle");
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle real = handle_of(e);
    /* right tail, wrong identity */
    aclrtIpcEventHandle forged = real;
    forged.reserved[0] ^= 0x5a;
    forged.reserved[3] ^= 0x11;
    expect_open_refused(forged, "a handle with bytes 0..7 altered");
    aclrtEvent opened = ipc_open(real); /* still opens before destroy */
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(e));
    expect_open_refused(real, "the handle of an event its creator destroyed");
    acl_down();
}

CT_CASE(ipc_handle_with_only_bytes_0_to_7_right_still_opens)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle real = handle_of(e);
    unsigned char fills[] = {0x00, 0xff, 0xa5};
    for (size_t i = 0; i < sizeof fills; i++) {
        aclrtIpcEventHandle h;
        memset(&h, fills[i], sizeof h);
        memcpy(h.reserved, real.reserved, 8);
        aclrtEvent opened = NULL;
        ct_note("bytes 8..63 = 0x%02x", fills[i]);
        CT_OK(aclrtIpcOpenEventHandle(h, &opened));
        /* and it is the same event: a pending record is visible through it */
        struct gate *g = gate_hold(s);
        CT_OK(aclrtRecordEvent(e, s));
        EXPECT_NOT_READY(opened);
        gate_release(g);
        CT_OK(aclrtSynchronizeEvent(opened));
        EXPECT_COMPLETE(opened);
        CT_OK(aclrtDestroyEvent(opened));
    }
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(ipc_any_opener_records_and_the_creator_waits)
{
    acl_up(0);
    aclrtStream creator_stream = stream_new();
    aclrtEvent e = ipc_event_new();
    CT_OK(aclrtSetDevice(2));
    aclrtStream opener_stream = stream_new();
    aclrtEvent opened = ipc_open(handle_of(e));
    struct gate *g = gate_hold(opener_stream);
    CT_OK(aclrtRecordEvent(opened, opener_stream));
    CT_OK(aclrtSetDevice(0));
    EXPECT_NOT_READY(e);
    CT_OK(aclrtStreamWaitEvent(creator_stream, e));
    struct stamp resumed;
    stamp_launch(creator_stream, &resumed);
    EXPECT_STREAM_BLOCKED(creator_stream);
    uint64_t released = gate_release(g);
    EXPECT_STREAM_DRAINS(creator_stream);
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(creator_stream));
    CT_OK(aclrtSetDevice(2));
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyStream(opener_stream));
    acl_down();
}

/* A wait holds a reference on the slot it captured from the call on: even
 * after that record executed, a later record may not reuse the slot (and
 * clear its done byte) before the wait has run. */
CT_CASE(ipc_wait_keeps_its_slot_until_it_executes)
{
    acl_up(0);
    aclrtStream producer = stream_new(), later = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *gp = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));    /* record 1 pending */
    struct gate *gw = gate_hold(waiter);
    CT_OK(aclrtStreamWaitEvent(waiter, e));  /* captured record 1; the task is queued behind gw */
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    gate_release(gp);
    CT_OK(aclrtSynchronizeStream(producer)); /* record 1 executed */
    EXPECT_COMPLETE(e);
    struct gate *gl = gate_hold(later);
    CT_OK(aclrtRecordEvent(e, later));       /* record 2 pending: must take another slot */
    EXPECT_NOT_READY(e);
    gate_release(gw);                        /* the wait runs now: record 1 is done */
    CT_OK(aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS));
    CT_TRUE(stamp_read(&resumed) != 0);
    EXPECT_NOT_READY(e);                     /* record 2 is still pending */
    gate_release(gl);
    CT_OK(aclrtSynchronizeEvent(e));
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(later));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

/* A refused record must not touch the shared state (the real runtime's
 * rollback paths do): the pending record stays current, waits still bind to it. */
CT_STUB_CASE(ipc_failed_record_changes_nothing, "a failed record's rollback (contract S8)")
{
    acl_up(1);
    aclrtStream other_device = stream_new();
    CT_OK(aclrtSetDevice(0));
    aclrtStream producer = stream_new(), waiter = stream_new();
    aclrtEvent e = ipc_event_new();
    /* on a fresh event */
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(e, other_device));
    EXPECT_COMPLETE(e);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    CT_OK(aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS));
    /* with a record pending */
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(e, other_device));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(e, (aclrtStream)e));
    EXPECT_NOT_READY(e);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_BLOCKED(waiter);
    uint64_t released = gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    CT_OK(aclrtSetDevice(1));
    CT_OK(aclrtDestroyStream(other_device));
    acl_down();
}

/* ------------------------------------------------ all 8192 slots referenced */

/* docs/acl-contract.md section 5.3: with every slot referenced, CANN's record
 * waits until one frees (ipc_event.cc GetIpcRecordIndex) and never fails
 * with 207001. The stub's record blocks too, and gives up (107017) when the
 * event is destroyed under it. */
#define ALL_SLOTS 8192

struct blocked_record {
    aclrtEvent event;
    int rc;
    int returned;
    int device_was_reset; /* set by the case before it force-resets device 0 */
};

static void *record_on_own_stream(void *arg)
{
    struct blocked_record *br = arg;
    CT_OK(aclrtSetDevice(0));
    aclrtStream s = stream_new();
    int rc = aclrtRecordEvent(br->event, s);
    br->rc = rc;
    __atomic_store_n(&br->returned, 1, __ATOMIC_RELEASE);
    if (rc == ACL_SUCCESS) {
        CT_OK(aclrtSynchronizeStreamWithTimeout(s, PEER_TIMEOUT_MS));
        CT_OK(aclrtDestroyStream(s));
        CT_OK(aclrtResetDevice(0));
    } else if (rc == ACL_ERROR_RT_INVALID_HANDLE && !br->device_was_reset) {
        CT_OK(aclrtDestroyStream(s)); /* the event was destroyed, the stream lives */
        CT_OK(aclrtResetDevice(0));
    } else {
        /* aclrtResetDeviceForce dropped every reference, this thread's too:
         * its own reset has nothing left to release (runtime.cc:2908-2930) */
        CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s));
        CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(0));
    }
    return NULL;
}

/* Fills every slot with a record held behind a gate, then records once more
 * on another thread: that record must still be blocked after BLOCK_PROBE_MS.
 * Each fill is progress for the watchdog (ct_progress): under TSan on a loaded
 * machine the case's three fills took 12.8 s of its 20. */
static pthread_t start_blocked_record(aclrtEvent e, aclrtStream held, struct gate **g, struct blocked_record *br)
{
    ct_progress();
    *g = gate_hold(held);
    for (int i = 0; i < ALL_SLOTS; i++)
        CT_OK(aclrtRecordEvent(e, held));
    memset(br, 0, sizeof *br);
    br->event = e;
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, record_on_own_stream, br) == 0);
    sleep_ms(BLOCK_PROBE_MS);
    if (__atomic_load_n(&br->returned, __ATOMIC_ACQUIRE))
        CT_FAIL("the record with all %d slots referenced returned %d (%s) at once instead of blocking", ALL_SLOTS,
                br->rc, ct_code_name(br->rc));
    return t;
}

CT_LONG_CASE(ipc_record_with_every_slot_referenced_blocks_until_one_frees)
{
    acl_up(0);
    aclrtStream held = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *g;
    struct blocked_record br;

    pthread_t t = start_blocked_record(e, held, &g, &br);
    gate_release(g);
    pthread_join(t, NULL);
    CT_EQ(ACL_SUCCESS, br.rc);
    EXPECT_STREAM_DRAINS(held);
    EXPECT_COMPLETE(e);

    /* destroying the event cancels a blocked record */
    t = start_blocked_record(e, held, &g, &br);
    CT_OK(aclrtDestroyEvent(e));
    pthread_join(t, NULL);
    CT_EQ(ACL_ERROR_RT_INVALID_HANDLE, br.rc);
    gate_release(g);
    EXPECT_STREAM_DRAINS(held);
    CT_OK(aclrtDestroyStream(held));

    /* so does resetting the device, which destroys the event and the streams */
    held = stream_new();
    e = ipc_event_new();
    t = start_blocked_record(e, held, &g, &br);
    br.device_was_reset = 1;
    CT_OK(aclrtResetDeviceForce(0));
    pthread_join(t, NULL);
    CT_EQ(ACL_ERROR_RT_INVALID_HANDLE, br.rc);
    gate_release(g);
    acl_down();
}

/* ---------------------------------------------------------- a full /dev/shm */

/* role ipc_on_full_tmpfs: in a user and mount namespace of its own, /dev/shm is a 256 KiB tmpfs
 * filled up; creating an IPC event must fail with 207001 naming ENOSPC (it died by SIGBUS on the
 * first store into a sparse object) and leave no object. Exit 3: no namespace here (skip). */
CT_ROLE(ipc_on_full_tmpfs)
{
    (void)argc;
    (void)argv;
    if (enter_own_dev_shm("256k") != 0)
        return 3;
    fill_dev_shm();
    acl_up(0);
    aclrtEvent e = NULL;
    CT_CODE(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, "/dev/shm is full"))
        CT_FAIL("the error does not say /dev/shm is full: %s", msg ? msg : "(null)");
    DIR *d = opendir("/dev/shm");
    if (!d)
        CT_FAIL("cannot list /dev/shm: %s", strerror(errno));
    for (struct dirent *de; (de = readdir(d)) != NULL;) {
        if (strcmp(de->d_name, ".") && strcmp(de->d_name, "..") && strcmp(de->d_name, "filler"))
            CT_FAIL("left in /dev/shm: %s", de->d_name);
    }
    closedir(d);
    acl_down();
    return 0;
}

CT_STUB_CASE(ipc_create_on_a_full_dev_shm_returns_207001_and_leaves_nothing,
             "the stub's /dev/shm objects and message (contract S7)")
{
    int code = wait_exit(spawn_role("ipc_on_full_tmpfs", NULL, NULL), PEER_TIMEOUT_MS);
    if (code == 3)
        ct_skip("no user and mount namespace here (unshare): cannot make a full /dev/shm of our own");
    if (code != 0)
        CT_FAIL("the role %s %d (SIGBUS is %d)", code > 128 ? "died by signal" : "exited with",
                code > 128 ? code - 128 : code, SIGBUS);
}
