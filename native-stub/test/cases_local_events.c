/*
 * cases_local_events.c - local (non-IPC) events: a pending record, synchronize and
 * wait timeouts (seconds), a reset that keeps the record, waits before the
 * first record, and ids, status and times of a never-recorded event.
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

/* Event::Reset (src/runtime/core/src/event/event.cc:764-786) only queues a
 * reset task and sets hasReset_; its completion keeps the record
 * (core/src/task/task_info/event/event_task.cc:290-301). For a legacy event
 * Event::WaitSendCheck (event.cc:625-626) then sends a wait task, which holds
 * its stream until the event is recorded again (event.cc:786, 746). So: a
 * reset releases no wait, a wait after a reset waits for the next record, and
 * the kept record still answers timestamps (event.cc:1294-1305) and elapsed
 * times (event.cc:1247-1270). Both legacy kinds: aclrtCreateEvent (0xE) and
 * aclrtCreateEventWithFlag(ACL_EVENT_SYNC); new-mode and IPC events refuse
 * the reset (207000, kinds_ex_events_refuse_reset_and_legacy_queries_207000). */
static void reset_keeps_the_record(aclrtEvent e)
{
    aclrtStream resetter = stream_new(), producer = stream_new(), waiter = stream_new();

    /* 1: a wait bound to a pending record is not released by a reset */
    struct gate *held_record = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    CT_OK(aclrtResetEvent(e, resetter));
    EXPECT_STREAM_DRAINS(resetter);
    EXPECT_STREAM_BLOCKED(waiter);
    uint64_t released = gate_release(held_record);
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    EXPECT_STREAM_DRAINS(producer);

    /* 2: the executed record outlives a reset: its timestamp stays readable */
    uint64_t before = 0, after = 0;
    CT_OK(aclrtEventGetTimestamp(e, &before));
    CT_OK(aclrtResetEvent(e, resetter));
    EXPECT_STREAM_DRAINS(resetter);
    EXPECT_COMPLETE(e);
    CT_OK(aclrtEventGetTimestamp(e, &after));
    CT_EQ(before, after);
    float ms = -1;
    CT_OK(aclrtEventElapsedTime(&ms, e, e));

    /* 3: a wait after the reset waits for the next record */
    CT_OK(aclrtStreamWaitEvent(waiter, e));
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_BLOCKED(waiter);
    struct gate *held_next = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    EXPECT_STREAM_BLOCKED(waiter);
    released = gate_release(held_next);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);

    /* 4: a record clears the reset (event.cc:350-357): the next wait is bound to it */
    CT_OK(aclrtStreamWaitEvent(waiter, e)); /* executed, not reset: nothing to wait for */
    EXPECT_STREAM_DRAINS(waiter);

    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    CT_OK(aclrtDestroyStream(resetter));
}

CT_CASE(local_event_reset_keeps_the_record_and_later_waits_wait_for_the_next_record)
{
    acl_up(0);
    aclrtEvent plain = NULL;
    CT_OK(aclrtCreateEvent(&plain));
    reset_keeps_the_record(plain);
    reset_keeps_the_record(local_event_new()); /* aclrtCreateEventWithFlag(ACL_EVENT_SYNC) */
    acl_down();
}

/* aclrtStreamWaitEventWithTimeout counts seconds (docs/zh/api_ref/07_event_management.md:1032;
 * src/runtime/api/api_c_stream.cc:389-414 passes it on unchanged, api_impl.cc:1593
 * logs it as "timeout=%us"): a wait of 1 is still blocking after far more than
 * 1 ms, and ends (107019 at the next synchronize) after a second. */
CT_LONG_CASE(local_event_wait_timeout_counts_seconds)
{
    acl_up(0);
    aclrtStream producer = stream_new(), waiter = stream_new();
    aclrtEvent e = local_event_new();
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(e, producer));
    uint64_t start = now_ns();
    CT_OK(aclrtStreamWaitEventWithTimeout(waiter, e, 1));
    EXPECT_STREAM_BLOCKED(waiter);
    if (ct_library_is_stub(NULL)) /* stub rule (contract 8.7, as notify waits); NPU: a device task error */
        CT_CODE(ACL_ERROR_RT_WAIT_TIMEOUT, aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS));
    else
        (void)aclrtSynchronizeStreamWithTimeout(waiter, PEER_TIMEOUT_MS);
    CT_TRUE(now_ns() - start >= 1000ull * 1000000ull);
    gate_release(g);
    EXPECT_STREAM_DRAINS(producer);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

/* Event::Wait (event.cc:720-729): a legacy event that was never recorded,
 * without ACL_EVENT_SYNC or ACL_EVENT_EXTERNAL (aclrtCreateEvent's 0xE), is
 * RT_ERROR_INVALID_VALUE, 107000. With ACL_EVENT_SYNC (RT_EVENT_DDSYNC_NS)
 * WaitSendCheck always sends a wait task (event.cc:625-626), which holds the
 * stream until the first record. A new-mode event has nothing to wait for
 * (event.cc:596-600). */
CT_CASE(local_event_wait_before_the_first_record)
{
    acl_up(0);
    aclrtStream producer = stream_new(), waiter = stream_new();
    aclrtEvent plain = NULL, sync = local_event_new(), ex = NULL;
    CT_OK(aclrtCreateEvent(&plain));
    CT_OK(aclrtCreateEventExWithFlag(&ex, ACL_EVENT_SYNC));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(waiter, plain));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(waiter, plain, 0));
    CT_OK(aclrtStreamWaitEvent(waiter, ex));
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtStreamWaitEvent(waiter, sync));
    struct stamp resumed;
    stamp_launch(waiter, &resumed);
    EXPECT_STREAM_BLOCKED(waiter);
    struct gate *g = gate_hold(producer);
    CT_OK(aclrtRecordEvent(sync, producer));
    uint64_t released = gate_release(g);
    EXPECT_STREAM_DRAINS(waiter);
    EXPECT_AFTER(stamp_read(&resumed), released);
    /* once recorded, the plain event can be waited on */
    CT_OK(aclrtRecordEvent(plain, producer));
    CT_OK(aclrtStreamWaitEvent(waiter, plain));
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtDestroyEvent(plain));
    CT_OK(aclrtDestroyEvent(sync));
    CT_OK(aclrtDestroyEvent(ex));
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(producer));
    acl_down();
}

/* aclrtCreateEvent makes RT_EVENT_DEFAULT events, which get no id at creation
 * (api_impl.cc:2061-2066) but at their first record (event.cc:536-545):
 * before it GetEventID is RT_ERROR_EVENT_RECORDER_NULL (event.cc:505-510),
 * 507000 (errcode_manage.cc:197). Other legacy flags get one at creation. */
CT_CASE(local_event_id_of_a_never_recorded_default_event_is_507000)
{
    acl_up(0);
    aclrtEvent plain = NULL, sync = local_event_new();
    CT_OK(aclrtCreateEvent(&plain));
    uint32_t id = 0;
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtGetEventId(plain, &id));
    CT_OK(aclrtGetEventId(sync, &id));
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(plain, s));
    CT_OK(aclrtGetEventId(plain, &id));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyEvent(plain));
    CT_OK(aclrtDestroyEvent(sync));
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
 * has no timestamp yet (event.cc:350-357 clears it at the record's submit):
 * RT_ERROR_EVENT_TIMESTAMP_INVALID (event.cc:1265-1270, 1302-1305), 107006
 * (errcode_manage.cc:198). */
CT_CASE(local_event_times_of_a_never_recorded_event_are_507000)
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
    CT_CODE(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventElapsedTime(&ms, a, b));
    CT_CODE(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, aclrtEventGetTimestamp(b, &ts));
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtEventElapsedTime(&ms, a, b));
    CT_TRUE(ms >= 0);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyEvent(a));
    CT_OK(aclrtDestroyEvent(b));
    acl_down();
}
