/*
 * cases_arguments.c - argument checks outside IPC semantics (docs/acl-contract.md
 * sections 2-3): event creation flags, NULL arguments, the calls IPC events refuse
 * (207000), invalid and destroyed handles (107017).
 */
#define _GNU_SOURCE
#include <string.h>

#include "support.h"

/* aclrtQueryEvent is deprecated in the headers, as in CANN; the cases still check it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* -------------------------------------------------------------------- flags */

CT_CASE(flags_ipc_alone_creates_an_ipc_event)
{
    acl_up(0);
    aclrtEvent e = NULL;
    CT_OK(aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    aclrtIpcEventHandle h;
    CT_OK(aclrtIpcGetEventHandle(e, &h)); /* only IPC events export */
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
}

CT_CASE(flags_ipc_combined_returns_107000)
{
    acl_up(0);
    uint32_t others[] = {0x1, 0x2, 0x4, 0x8, 0x10, 0x20, 0x3, 0xF, 0x80, 0x100};
    for (size_t i = 0; i < sizeof others / sizeof others[0]; i++) {
        aclrtEvent e = NULL;
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC | others[i]));
        if (e)
            CT_FAIL("refused create with flag 0x%x wrote *event", ACL_EVENT_IPC | others[i]);
    }
    acl_down();
}

CT_CASE(flags_ex_accepts_every_or_of_0x1_0x2_0x4_0x8)
{
    acl_up(0);
    for (uint32_t flag = 1; flag <= 0xF; flag++) {
        aclrtEvent e = NULL;
        ct_note("flag 0x%x", flag);
        CT_OK(aclrtCreateEventExWithFlag(&e, flag));
        aclrtIpcEventHandle h;
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(e, &h)); /* not IPC */
        CT_OK(aclrtDestroyEvent(e));
    }
    acl_down();
}

CT_CASE(flags_ex_invalid_values_return_107000)
{
    acl_up(0);
    uint32_t bad[] = {0, 0x10, 0x20, 0x11, 0x21, 0x30, 0x50, 0x80, 0x100, 0x8000, 0xFFFFFFFFu};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        aclrtEvent e = NULL;
        ct_note("flag 0x%x", bad[i]);
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventExWithFlag(&e, bad[i]));
        CT_TRUE(e == NULL);
    }
    acl_down();
}

CT_CASE(flags_legacy_create_with_ipc_flag_returns_107000)
{
    acl_up(0);
    aclrtEvent e = NULL;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC | ACL_EVENT_SYNC));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateEventWithFlag(&e, 0x80));
    CT_TRUE(e == NULL);
    /* the legacy create takes an OR of 0x1/0x2/0x4/0x8, or 0x10 or 0x20 alone
     * (the full rule: kinds_legacy_create_flag_rules_107000) */
    CT_OK(aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtCreateEventWithFlag(&e, 0xF));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtCreateEvent(&e));
    aclrtIpcEventHandle h;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(e, &h));
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
}

CT_CASE(flags_export_of_non_ipc_event_returns_107000)
{
    acl_up(0);
    aclrtEvent events[3];
    CT_OK(aclrtCreateEvent(&events[0]));
    CT_OK(aclrtCreateEventWithFlag(&events[1], ACL_EVENT_SYNC));
    CT_OK(aclrtCreateEventExWithFlag(&events[2], ACL_EVENT_TIME_LINE));
    for (int i = 0; i < 3; i++) {
        aclrtIpcEventHandle h;
        memset(&h, 0x33, sizeof h);
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcGetEventHandle(events[i], &h));
        CT_OK(aclrtDestroyEvent(events[i]));
    }
    acl_down();
}

/* ------------------------------------------------------------ NULL arguments */

CT_CASE(null_output_pointers_return_100000)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent local = local_event_new();
    aclrtEvent ipc = ipc_event_new();
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetDevice(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetDeviceCount(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateStream(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEvent(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventWithFlag(NULL, ACL_EVENT_SYNC));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, ACL_EVENT_SYNC));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateEventExWithFlag(NULL, ACL_EVENT_IPC));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(local, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(local, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(ipc, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(local, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtEventElapsedTime(NULL, local, local));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtEventGetTimestamp(local, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetEventId(local, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(ipc, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcOpenEventHandle(handle_of(ipc), NULL));
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(local));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(null_event_arguments_return_100000)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEventRecordedStatus status;
    aclrtEventStatus old_status;
    aclrtEventWaitStatus wait_status;
    aclrtIpcEventHandle h;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDestroyEvent(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtRecordEvent(NULL, s));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEventStatus(NULL, &status));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEvent(NULL, &old_status));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtQueryEventWaitStatus(NULL, &wait_status));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEvent(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtSynchronizeEventWithTimeout(NULL, 10));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcGetEventHandle(NULL, &h));
    /* the documented exception */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamWaitEventWithTimeout(s, NULL, 10));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------------------ IPC refusals 207000 */

static void expect_ipc_refusals(aclrtEvent ipc, aclrtEvent local, aclrtStream s)
{
    aclrtEventStatus old_status;
    aclrtEventWaitStatus wait_status;
    float ms = 0;
    uint64_t ts = 0;
    uint32_t id = 0;
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtResetEvent(ipc, s));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEvent(ipc, &old_status));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtQueryEventWaitStatus(ipc, &wait_status));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventElapsedTime(&ms, ipc, local));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventElapsedTime(&ms, local, ipc));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtEventGetTimestamp(ipc, &ts));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtGetEventId(ipc, &id));
}

CT_CASE(ipc_refused_apis_return_207000)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent local = local_event_new();
    CT_OK(aclrtRecordEvent(local, s));
    CT_OK(aclrtSynchronizeStream(s));
    aclrtEvent ipc = ipc_event_new();
    expect_ipc_refusals(ipc, local, s);
    /* an opened (importer-side) object is an IPC event too */
    aclrtEvent opened = ipc_open(handle_of(ipc));
    expect_ipc_refusals(opened, local, s);
    /* the same calls on legacy (aclrtCreateEventWithFlag) local events work */
    aclrtEventStatus old_status;
    uint32_t id;
    CT_OK(aclrtQueryEvent(local, &old_status));
    CT_OK(aclrtGetEventId(local, &id));
    CT_OK(aclrtResetEvent(local, s));
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(local));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* -------------------------------------------------- invalid / destroyed handles */

static void expect_invalid_event(aclrtEvent e, aclrtStream s)
{
    aclrtEventRecordedStatus status;
    aclrtIpcEventHandle h;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(e, s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtQueryEventStatus(e, &status));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEvent(e));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeEventWithTimeout(e, 10));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(s, e));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEventWithTimeout(s, e, 10));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcGetEventHandle(e, &h));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyEvent(e));
}

static void expect_invalid_stream(aclrtStream s, aclrtEvent e)
{
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordEvent(e, s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamWaitEvent(s, e));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStreamWithTimeout(s, 10));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtLaunchHostFunc(s, noop_host_fn, NULL));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(s));
}

CT_CASE(handles_use_after_destroy_returns_107017)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent local = local_event_new();
    aclrtEvent ipc = ipc_event_new();
    aclrtEvent opened = ipc_open(handle_of(ipc));
    aclrtStream dead_stream = stream_new();
    CT_OK(aclrtDestroyEvent(local));
    CT_OK(aclrtDestroyEvent(opened));
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyStream(dead_stream));
    expect_invalid_event(local, s);
    expect_invalid_event(opened, s);
    expect_invalid_event(ipc, s);
    aclrtEvent live = local_event_new();
    expect_invalid_stream(dead_stream, live);
    CT_OK(aclrtDestroyEvent(live));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(handles_never_valid_return_107017)
{
    static char fake[512];
    memset(fake, 0xab, sizeof fake);
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent live = local_event_new();
    expect_invalid_event((aclrtEvent)fake, s);
    expect_invalid_event((aclrtEvent)(fake + 256), s);
    expect_invalid_stream((aclrtStream)fake, live);
    /* an event handle is not a stream handle and vice versa */
    expect_invalid_stream((aclrtStream)live, live);
    expect_invalid_event((aclrtEvent)s, s);
    CT_OK(aclrtDestroyEvent(live));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}
