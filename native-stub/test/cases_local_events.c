/*
 * cases_local_events.c - local (non-IPC) events: a pending record, synchronize and
 * wait timeouts, and which records a reset releases.
 */
#define _GNU_SOURCE
#include "support.h"

/* aclrtQueryEvent is deprecated in the headers, as in CANN; a case still checks it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

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

/* ---------------------------------------- status and times with no record (issue #19) */

/* core/src/event/event.cc:1189-1198 (QueryEventStatus): "No record, newMode
 * return RT_EVENT_RECORDED oldMode return RT_EVENT_INIT"; event_david.cc:324-332
 * the same. The deprecated aclrtQueryEvent reports a fresh event complete
 * (event.cc:1173-1186: its latest record is not RECORDING). */
CT_CASE(local_event_status_of_a_never_recorded_legacy_event_is_not_ready)
{
    acl_up(0);
    aclrtEvent legacy = NULL, sync = NULL, ex = NULL;
    CT_OK(aclrtCreateEvent(&legacy));
    CT_OK(aclrtCreateEventWithFlag(&sync, ACL_EVENT_SYNC));
    CT_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    EXPECT_NOT_READY(legacy);
    EXPECT_NOT_READY(sync);
    EXPECT_COMPLETE(ex);
    aclrtEventStatus old = ACL_EVENT_STATUS_RESERVED;
    CT_OK(aclrtQueryEvent(legacy, &old));
    CT_EQ(ACL_EVENT_STATUS_COMPLETE, old);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(legacy, s));
    EXPECT_NOT_READY(legacy);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    EXPECT_COMPLETE(legacy);
    EXPECT_NOT_READY(sync);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyEvent(legacy));
    CT_OK(aclrtDestroyEvent(sync));
    CT_OK(aclrtDestroyEvent(ex));
    acl_down();
}

/* aclrtQueryEventWaitStatus reports the event's wait tasks (docs
 * 07_event_management.md:687): no wait task -> COMPLETE (event.cc:1213-1222);
 * waitTaskMap_ is filled by waits only (event.cc:260-267 InsertWaitToMap,
 * event_task.cc:403) and emptied as they complete (event_task.cc:421). */
CT_CASE(local_event_wait_status_reports_wait_tasks_not_the_record)
{
    acl_up(0);
    aclrtEvent e = NULL;
    CT_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    aclrtStream recorder = stream_new(), waiter = stream_new();
    aclrtEventWaitStatus ws = ACL_EVENT_WAIT_STATUS_RESERVED;
    CT_OK(aclrtQueryEventWaitStatus(e, &ws));
    CT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
    struct gate *g = gate_hold(recorder);
    CT_OK(aclrtRecordEvent(e, recorder));
    EXPECT_NOT_READY(e);
    /* a pending record without a waiter: no wait task */
    CT_OK(aclrtQueryEventWaitStatus(e, &ws));
    CT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    CT_OK(aclrtQueryEventWaitStatus(e, &ws));
    CT_EQ(ACL_EVENT_WAIT_STATUS_NOT_READY, ws);
    EXPECT_STREAM_BLOCKED(waiter);
    gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtQueryEventWaitStatus(e, &ws));
    CT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, ws);
    EXPECT_STREAM_DRAINS(recorder);
    CT_OK(aclrtDestroyStream(recorder));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
}

/* Event::ElapsedTime and Event::GetTimeStamp of an event with no record return
 * RT_ERROR_EVENT_RECORDER_NULL (event.cc:1247-1250, 1294-1297; event_david.cc
 * 373-377), which errcode_manage.cc:197 maps to 507000. A record still pending
 * stays stub rule S10 (107000). */
CT_STUB_CASE(local_event_times_of_a_never_recorded_event_are_507000,
             "a pending record's times are 107000 (contract S10)")
{
    acl_up(0);
    aclrtEvent a = NULL, b = NULL;
    CT_OK(aclrtCreateEvent(&a));
    CT_OK(aclrtCreateEvent(&b));
    uint64_t ts = 0;
    float ms = 0;
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventGetTimestamp(a, &ts));
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, a, b));
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(a, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtEventGetTimestamp(a, &ts));
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, a, b));
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtEventElapsedTime(&ms, b, a));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(b, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtEventElapsedTime(&ms, a, b));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtEventGetTimestamp(b, &ts));
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtEventElapsedTime(&ms, a, b));
    CT_TRUE(ms >= 0);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyEvent(a));
    CT_OK(aclrtDestroyEvent(b));
    acl_down();
}
