/*
 * cases_kinds.c - docs/acl-contract.md section 4 (event kinds and what each
 * refuses) and section 2 (order of checks), as the CANN runtime answers:
 * the source paths are in the contract next to each rule.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>

#include "support.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* A value no create writes: a refused create must leave *event as it was. */
#define UNTOUCHED ((aclrtEvent)(uintptr_t)0x5e1f)

static aclrtEvent create_ex(uint32_t flag)
{
    aclrtEvent e = NULL;
    ct_note("aclrtCreateEventExWithFlag(0x%x)", flag);
    CT_OK(aclrtCreateEventExWithFlag(&e, flag));
    return e;
}

static aclrtEvent create_legacy(uint32_t flag)
{
    aclrtEvent e = NULL;
    ct_note("aclrtCreateEventWithFlag(0x%x)", flag);
    CT_OK(aclrtCreateEventWithFlag(&e, flag));
    return e;
}

/* The flags CANN's IsEventWithoutWaitTask looks at: an event with none of
 * them cannot carry a wait task (contract section 4). */
static int can_wait(uint32_t flag)
{
    return (flag & (0x1u | 0x4u | 0x20u | 0x40u)) != 0;
}

/* ---------------------------------------------------- section 4: new mode */

/* Every event made by aclrtCreateEventExWithFlag is a "new mode" event: no
 * reset, no legacy query, no wait-status query; the recorded-status query
 * stays. */
CT_CASE(kinds_ex_events_refuse_reset_and_legacy_queries_207000)
{
    acl_up(0);
    aclrtStream s = stream_new();
    uint32_t flags[] = {0x1, 0x2, 0x3, 0x4, 0x5, 0x8, 0x9, 0xF, ACL_EVENT_IPC};
    for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
        aclrtEvent e = create_ex(flags[i]);
        if (flags[i] == ACL_EVENT_IPC) {
            aclrtIpcEventHandle h = handle_of(e);
            declare_owned(&h);
        }
        aclrtEventStatus old_status = 99;
        aclrtEventWaitStatus wait_status = 99;
        aclrtEventRecordedStatus status = 99;
        CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(e, s));
        CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(e, &old_status));
        CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(e, &wait_status));
        CT_EQ(99, old_status);
        CT_EQ(99, wait_status);
        CT_OK(aclrtQueryEventStatus(e, &status));
        CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
        CT_OK(aclrtRecordEvent(e, s));
        CT_OK(aclrtSynchronizeStream(s));
        CT_OK(aclrtQueryEventStatus(e, &status));
        CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
        CT_OK(aclrtDestroyEvent(e));
    }
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* The legacy creates make "old mode" events: reset and both queries work. */
CT_CASE(kinds_legacy_sync_events_support_reset_and_queries)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent events[2];
    events[0] = create_legacy(ACL_EVENT_SYNC);
    CT_OK(aclrtCreateEvent(&events[1]));
    for (int i = 0; i < 2; i++) {
        aclrtEventStatus old_status = 99;
        aclrtEventWaitStatus wait_status = 99;
        CT_OK(aclrtRecordEvent(events[i], s));
        CT_OK(aclrtSynchronizeStream(s));
        CT_OK(aclrtQueryEvent(events[i], &old_status));
        CT_EQ(ACL_EVENT_STATUS_COMPLETE, old_status);
        CT_OK(aclrtQueryEventWaitStatus(events[i], &wait_status));
        CT_EQ(ACL_EVENT_WAIT_STATUS_COMPLETE, wait_status);
        CT_OK(aclrtResetEvent(events[i], s));
        /* a wait after a reset waits for the next record (event.cc:625-626): record first */
        CT_OK(aclrtRecordEvent(events[i], s));
        CT_OK(aclrtStreamWaitEvent(s, events[i]));
        CT_OK(aclrtSynchronizeStream(s));
        CT_OK(aclrtDestroyEvent(events[i]));
    }
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------- section 4: no wait task */

/* Without ACL_EVENT_SYNC (0x1), 0x4, ACL_EVENT_EXTERNAL or ACL_EVENT_IPC an
 * event cannot carry a wait task: waits and resets are refused, records are
 * fine. */
CT_CASE(kinds_events_without_wait_task_refuse_wait_and_reset_207000)
{
    acl_up(0);
    aclrtStream s = stream_new();
    uint32_t flags[] = {ACL_EVENT_CAPTURE_STREAM_PROGRESS, ACL_EVENT_TIME_LINE, 0xA};
    for (int legacy = 0; legacy < 2; legacy++) {
        for (size_t i = 0; i < sizeof flags / sizeof flags[0]; i++) {
            CT_TRUE(!can_wait(flags[i]));
            aclrtEvent e = legacy ? create_legacy(flags[i]) : create_ex(flags[i]);
            CT_OK(aclrtRecordEvent(e, s));
            CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEvent(s, e));
            CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtStreamWaitEventWithTimeout(s, e, 10));
            CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(e, s));
            CT_OK(aclrtSynchronizeStream(s));
            CT_OK(aclrtDestroyEvent(e));
        }
    }
    /* any of the wait-task bits is enough */
    uint32_t waitable[] = {0x4, 0x6, 0xC, 0x9, ACL_EVENT_EXTERNAL};
    for (size_t i = 0; i < sizeof waitable / sizeof waitable[0]; i++) {
        CT_TRUE(can_wait(waitable[i]));
        aclrtEvent e = create_legacy(waitable[i]);
        /* recorded first: a never-recorded legacy event is 107000 (event.cc:720-728), or
         * with ACL_EVENT_SYNC / EXTERNAL holds the stream until its first record */
        CT_OK(aclrtRecordEvent(e, s));
        CT_OK(aclrtStreamWaitEvent(s, e));
        CT_OK(aclrtResetEvent(e, s));
        CT_OK(aclrtSynchronizeStream(s));
        CT_OK(aclrtDestroyEvent(e));
    }
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ACL_EVENT_EXTERNAL (0x20, legacy create only) has no status: queries,
 * synchronize, timestamp and elapsed time are refused. ACL_EVENT_DEVICE_USE_ONLY
 * (0x10) is for device code: host-side record, wait and reset are 107000. */
CT_CASE(kinds_external_and_device_only_events)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent ext = create_legacy(ACL_EVENT_EXTERNAL);
    aclrtEvent sync = create_legacy(ACL_EVENT_SYNC);
    CT_OK(aclrtRecordEvent(sync, s));
    CT_OK(aclrtSynchronizeStream(s));
    aclrtEventStatus old_status;
    aclrtEventRecordedStatus status;
    aclrtEventWaitStatus wait_status;
    uint64_t ts;
    float ms;
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(ext, &old_status));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventStatus(ext, &status));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(ext, &wait_status));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSynchronizeEvent(ext));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSynchronizeEventWithTimeout(ext, 10));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventGetTimestamp(ext, &ts));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventElapsedTime(&ms, ext, sync));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventElapsedTime(&ms, sync, ext));

    aclrtEvent dev_only = create_legacy(ACL_EVENT_DEVICE_USE_ONLY);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtRecordEvent(dev_only, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEvent(s, dev_only));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtResetEvent(dev_only, s));
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyEvent(dev_only));
    CT_OK(aclrtDestroyEvent(sync));
    CT_OK(aclrtDestroyEvent(ext));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------- section 4: creation flags */

CT_CASE(kinds_legacy_create_flag_rules_107000)
{
    acl_up(0);
    /* 0, bits above 0x3F, and 0x10 / 0x20 combined with any other bit */
    uint32_t bad[] = {0, 0x11, 0x21, 0x30, 0x3F, 0x12, 0x28, 0x31, 0x40, 0x41, 0x80, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        aclrtEvent e = UNTOUCHED;
        ct_note("legacy flag 0x%x", bad[i]);
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, bad[i]));
        CT_TRUE(e == UNTOUCHED);
    }
    /* any OR of 0x1/0x2/0x4/0x8, or 0x10 or 0x20 alone */
    for (uint32_t flag = 1; flag <= 0xF; flag++)
        CT_OK(aclrtDestroyEvent(create_legacy(flag)));
    CT_OK(aclrtDestroyEvent(create_legacy(ACL_EVENT_DEVICE_USE_ONLY)));
    CT_OK(aclrtDestroyEvent(create_legacy(ACL_EVENT_EXTERNAL)));
    /* a refused Ex create leaves *event alone too */
    uint32_t bad_ex[] = {0, 0x10, 0x20, 0x41, 0x50, 0x80};
    for (size_t i = 0; i < sizeof bad_ex / sizeof bad_ex[0]; i++) {
        aclrtEvent e = UNTOUCHED;
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e, bad_ex[i]));
        CT_TRUE(e == UNTOUCHED);
    }
    acl_down();
}

/* ------------------------------------------- section 2: order of checks */

static void creates_without_device(void *arg)
{
    (void)arg;
    aclrtEvent e = UNTOUCHED;
    /* the flag is judged before the current device... */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, 0));
    /* ...and the NULL output before the flag */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, 0));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CT_TRUE(e == UNTOUCHED);
}

CT_CASE(order_null_pointers_before_flag_and_timeout_values)
{
    acl_up(0);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, 0x41));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(NULL, 0x80));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(NULL, 0));
    /* CANN's acl layer judges timeout < -1 before anything else */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(NULL, -2));
    run_in_thread(creates_without_device, NULL);
    acl_down();
}

CT_CASE(order_handles_before_argument_values)
{
    acl_up(0);
    aclrtStream s = stream_new(), dead_stream = stream_new();
    aclrtEvent dead = local_event_new();
    aclrtEvent ex = create_ex(ACL_EVENT_SYNC), timeline = create_legacy(ACL_EVENT_TIME_LINE);
    CT_OK(aclrtDestroyEvent(dead));
    CT_OK(aclrtDestroyStream(dead_stream));
    /* the handle is judged before timeout == 0 ... */
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEventWithTimeout(dead, 0));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStreamWithTimeout(dead_stream, 0));
    /* ... but after timeout < -1 (acl layer) */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(dead, -2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(dead_stream, -2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(dead_stream, dead, -1));
    /* both handles before what the event's kind refuses */
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetEvent(ex, dead_stream));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(dead_stream, timeline));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithTimeout(dead_stream, timeline, 5));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtResetEvent(dead, s));
    /* aclrtLaunchHostFunc has no acl-layer NULL check: the stream handle comes
     * first, then the runtime refuses a NULL fn with 107000 */
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(dead_stream, NULL, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchHostFunc(s, NULL, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchHostFunc(NULL, NULL, NULL));
    /* live handles: now the kind and the value */
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ex, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeEventWithTimeout(ex, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, 0));
    CT_OK(aclrtDestroyEvent(timeline));
    CT_OK(aclrtDestroyEvent(ex));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}
