/*
 * cases_local_events.c - local (non-IPC) events: a pending record, synchronize and
 * wait timeouts, and which records a reset releases.
 */
#define _GNU_SOURCE
#include "support.h"

CT_CASE(local_event_pending_record_and_timeouts)
{
    acl_up(0);
    aclrtStream producer = stream_new();
    aclrtStream waiter = stream_new();
    aclrtEvent e = local_event_new();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(e, -2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(waiter, e, -1));
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    aclrtEventRecordedStatus status = 99;
    CT_OK(aclrtQueryEventStatus(e, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status);
    CT_CODE(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, aclrtSynchronizeEventWithTimeout(e, 50));
    EXPECT_STREAM_BLOCKED(waiter);
    uint64_t released = gate_release(g);
    CT_OK(aclrtSynchronizeEventWithTimeout(e, PEER_TIMEOUT_MS));
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    CT_OK(aclrtQueryEventStatus(e, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

/* ------------------------------------------------------------ local reset */

/* A reset applies to the records submitted before it: it releases waits bound
 * to them, but a record submitted after it (here on another stream, while the
 * reset is still queued) stays pending even when the reset executes first. */
CT_CASE(local_event_reset_releases_earlier_records_only)
{
    acl_up(0);
    aclrtStream resetter = stream_new(), producer = stream_new(), waiter = stream_new();
    aclrtEvent e = local_event_new();

    /* 1: a wait bound to a pending record is released by a later reset */
    struct gate *held_record = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    EXPECT_STREAM_BLOCKED(waiter);
    CT_OK(aclrtResetEvent(e, resetter));
    EXPECT_STREAM_DRAINS(resetter);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_COMPLETE(e);
    gate_release(held_record);
    EXPECT_STREAM_DRAINS(producer);

    /* 2: a record submitted after the reset is not erased by it */
    struct gate *held_reset = gate_hold(resetter);
    CT_OK(aclrtResetEvent(e, resetter));
    struct gate *held_later_record = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    gate_release(held_reset);
    EXPECT_STREAM_DRAINS(resetter);
    EXPECT_NOT_READY(e);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_BLOCKED(waiter);
    uint64_t released = gate_release(held_later_record);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_COMPLETE(e);

    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    CT_OK(aclrtDestroyStream(resetter));
    acl_down();
}
