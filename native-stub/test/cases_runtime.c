/*
 * cases_runtime.c - docs/acl-contract.md sections 1-3 outside IPC semantics: init/finalize,
 * devices, flags, NULL arguments, invalid handles, streams, host functions,
 * synchronize timeouts, error messages, ACL_STUB_DEVICE_COUNT.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"
#include "../src/acl_error_list.h"

#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

static void noop_host_fn(void *arg) { (void)arg; }

/* Every aclrt* call of the subset with plausible arguments; each must return
 * `expected` (used for "before aclInit" and "after aclFinalize"). */
static void expect_every_call_returns(int expected, aclrtStream s, aclrtEvent e)
{
    int32_t dev = -5;
    uint32_t count = 0, id = 0;
    aclrtStream ns = NULL;
    aclrtEvent ne = NULL;
    aclrtEventStatus old_status;
    aclrtEventRecordedStatus status;
    aclrtEventWaitStatus wait_status;
    float ms;
    uint64_t ts;
    aclrtIpcEventHandle h;
    memset(&h, 0x5a, sizeof h);

    CT_CODE(expected, aclrtSetDevice(0));
    CT_CODE(expected, aclrtResetDevice(0));
    CT_CODE(expected, aclrtResetDeviceForce(0));
    CT_CODE(expected, aclrtGetDevice(&dev));
    CT_CODE(expected, aclrtGetDeviceCount(&count));
    CT_CODE(expected, aclrtCreateStream(&ns));
    CT_CODE(expected, aclrtSynchronizeStream(s));
    CT_CODE(expected, aclrtSynchronizeStreamWithTimeout(s, 10));
    CT_CODE(expected, aclrtStreamWaitEvent(s, e));
    CT_CODE(expected, aclrtStreamWaitEventWithTimeout(s, e, 10));
    CT_CODE(expected, aclrtCreateEvent(&ne));
    CT_CODE(expected, aclrtCreateEventWithFlag(&ne, ACL_EVENT_SYNC));
    CT_CODE(expected, aclrtCreateEventExWithFlag(&ne, ACL_EVENT_IPC));
    CT_CODE(expected, aclrtRecordEvent(e, s));
    CT_CODE(expected, aclrtResetEvent(e, s));
    CT_CODE(expected, aclrtQueryEvent(e, &old_status));
    CT_CODE(expected, aclrtQueryEventStatus(e, &status));
    CT_CODE(expected, aclrtQueryEventWaitStatus(e, &wait_status));
    CT_CODE(expected, aclrtSynchronizeEvent(e));
    CT_CODE(expected, aclrtSynchronizeEventWithTimeout(e, 10));
    CT_CODE(expected, aclrtEventElapsedTime(&ms, e, e));
    CT_CODE(expected, aclrtEventGetTimestamp(e, &ts));
    CT_CODE(expected, aclrtGetEventId(e, &id));
    CT_CODE(expected, aclrtSetOpWaitTimeout(10));
    CT_CODE(expected, aclrtIpcGetEventHandle(e, &h));
    CT_CODE(expected, aclrtIpcOpenEventHandle(h, &ne));
    CT_CODE(expected, aclrtLaunchHostFunc(s, noop_host_fn, NULL));
    CT_CODE(expected, aclrtDestroyEvent(e));
    CT_CODE(expected, aclrtDestroyStream(s));
    CT_TRUE(ns == NULL && ne == NULL);
    CT_EQ(-5, dev);
}

/* ------------------------------------------------------------------ headers */

/* Every error constant of the headers has the value of the contract's table
 * (section 3), which src/acl_error_list.h copies. */
CT_CASE(headers_error_codes_match_the_contract)
{
#define EXPECT_HEADER_VALUE(name, value) CT_EQ(value, name);
    ACL_ERROR_LIST(EXPECT_HEADER_VALUE)
#undef EXPECT_HEADER_VALUE
}

/* rt_error_codes.h defines its codes with #define, as CANN's does: C code may
 * test them with #ifdef and use them as case labels (docs/acl-contract.md
 * section 1). This case does not compile against `static const` codes. */
#if !defined(ACL_ERROR_RT_PARAM_INVALID) || !defined(ACL_ERROR_RT_FEATURE_NOT_SUPPORT) || \
    !defined(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT) || !defined(ACL_RT_SUCCESS)
#error "rt_error_codes.h must #define its codes"
#endif

static const char *runtime_code_kind(int code)
{
    switch (code) {
    case ACL_RT_SUCCESS: return "success";
    case ACL_ERROR_RT_PARAM_INVALID:
    case ACL_ERROR_RT_INVALID_HANDLE: return "argument";
    case ACL_ERROR_RT_FEATURE_NOT_SUPPORT: return "unsupported";
    case ACL_ERROR_RT_EVENT_SYNC_TIMEOUT:
    case ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: return "timeout";
    default: return "other";
    }
}

CT_CASE(headers_runtime_codes_are_macros)
{
    CT_TRUE(strcmp(runtime_code_kind(107000), "argument") == 0);
    CT_TRUE(strcmp(runtime_code_kind(207000), "unsupported") == 0);
    CT_TRUE(strcmp(runtime_code_kind(507047), "timeout") == 0);
    CT_TRUE(strcmp(runtime_code_kind(0), "success") == 0);
}

/* ------------------------------------------------------------ init/finalize */

CT_CASE(init_calls_before_aclInit_return_100001)
{
    static char fake[256];
    memset(fake, 0xab, sizeof fake);
    expect_every_call_returns(ACL_ERROR_UNINITIALIZE, fake, fake + 128);
}

CT_CASE(init_calls_after_aclFinalize_return_100001)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = local_event_new();
    acl_down();
    expect_every_call_returns(ACL_ERROR_UNINITIALIZE, s, e);
}

CT_CASE(init_second_aclInit_returns_100002)
{
    acl_up(0);
    CT_CODE(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    /* still usable after the refused second init */
    aclrtStream s = stream_new();
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(init_second_aclFinalize_returns_100037)
{
    acl_up(0);
    acl_down();
    CT_CODE(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

CT_CASE(init_again_after_finalize_works)
{
    acl_up(0);
    acl_down();
    acl_up(1);
    aclrtStream s = stream_new();
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------------------------------ devices */

CT_CASE(device_bad_ids_return_107001)
{
    acl_init_only();
    uint32_t count = 0;
    CT_OK(aclrtGetDeviceCount(&count));
    CT_TRUE(count >= 1 && count <= 64);
    int32_t bad[] = {-1, -100, INT32_MIN, (int32_t)count, (int32_t)count + 1, 64, INT32_MAX};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(bad[i]));
        CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(bad[i]));
    }
    CT_OK(aclrtSetDevice((int32_t)count - 1));
    int32_t dev = -1;
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(count - 1, dev);
    CT_OK(aclrtResetDevice((int32_t)count - 1));
    acl_down();
}

static void get_device_on_fresh_thread(void *arg)
{
    int32_t dev = 1234;
    *(int *)arg = aclrtGetDevice(&dev);
    if (dev != 1234)
        *(int *)arg = -1;
}

CT_CASE(device_current_device_is_per_thread)
{
    acl_up(3);
    int32_t dev = -1;
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(3, dev);
    CT_OK(aclrtSetDevice(5));
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(5, dev);
    int code = 0;
    run_in_thread(get_device_on_fresh_thread, &code);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, code);
    acl_down();
}

struct foreign_handle {
    aclrtIpcEventHandle handle;
    aclrtEvent event;
};

static void make_ipc_event_on_thread(void *arg)
{
    struct foreign_handle *f = arg;
    CT_OK(aclrtSetDevice(0));
    f->event = ipc_event_new();
    f->handle = handle_of(f->event);
}

CT_CASE(device_none_current_returns_107002)
{
    acl_init_only();
    aclrtStream s = (aclrtStream)0x1;
    aclrtEvent e = (aclrtEvent)0x1;
    int32_t dev = 77;
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
    CT_EQ(77, dev);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&s));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEvent(&e));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEventExWithFlag(&e, ACL_EVENT_SYNC));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateEventExWithFlag(&e, ACL_EVENT_IPC));
    /* a valid handle, made by a thread that has a device, opened by one that has none */
    struct foreign_handle f;
    run_in_thread(make_ipc_event_on_thread, &f);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtIpcOpenEventHandle(f.handle, &e));
    CT_TRUE(s == (aclrtStream)0x1 && e == (aclrtEvent)0x1);
    CT_OK(aclrtDestroyEvent(f.event));
    acl_down();
}

CT_CASE(device_stream_of_another_device_returns_107003)
{
    acl_up(0);
    aclrtStream s0 = stream_new();
    CT_OK(aclrtSetDevice(1));
    aclrtStream s1 = stream_new();
    aclrtEvent local1 = local_event_new();
    aclrtEvent ipc1 = ipc_event_new();
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(local1, s0));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(ipc1, s0));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(s0, local1));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(s0, ipc1));
    /* an opened IPC event belongs to the opener's current device */
    aclrtEvent opened1 = ipc_open(handle_of(ipc1));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(opened1, s0));
    CT_OK(aclrtRecordEvent(local1, s1));
    CT_OK(aclrtRecordEvent(opened1, s1));
    CT_OK(aclrtStreamWaitEvent(s1, ipc1));
    CT_OK(aclrtSynchronizeStream(s1));
    CT_OK(aclrtDestroyEvent(opened1));
    CT_OK(aclrtDestroyEvent(ipc1));
    CT_OK(aclrtDestroyEvent(local1));
    CT_OK(aclrtDestroyStream(s1));
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtDestroyStream(s0));
    acl_down();
}

/* ----------------------------------------------------------- device count env */

/* role devcount <expected aclInit code> <expected count or -1> */
CT_ROLE(devcount)
{
    if (argc != 2)
        CT_FAIL("usage: devcount <init code> <count>");
    int expected_init = atoi(argv[0]);
    int expected_count = atoi(argv[1]);
    const char *value = getenv("ACL_STUB_DEVICE_COUNT");
    ct_note("ACL_STUB_DEVICE_COUNT=%s%s%s", value ? "'" : "", value ? value : "(unset)", value ? "'" : "");
    CT_CODE(expected_init, aclInit(NULL));
    if (expected_init != 0) {
        const char *msg = aclGetRecentErrMsg();
        if (!msg || !strstr(msg, "ACL_STUB_DEVICE_COUNT"))
            CT_FAIL("aclInit failed but aclGetRecentErrMsg() does not name ACL_STUB_DEVICE_COUNT: %s",
                    msg ? msg : "(null)");
        /* the failed init left the runtime uninitialised */
        CT_CODE(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0));
        return 0;
    }
    uint32_t count = 0;
    CT_OK(aclrtGetDeviceCount(&count));
    CT_EQ(expected_count, count);
    CT_OK(aclrtSetDevice(expected_count - 1));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(expected_count));
    CT_OK(aclFinalize());
    return 0;
}

static void expect_devcount(const char *env_entry, const char *init_code, const char *count)
{
    const char *env[] = {env_entry, NULL};
    const char *args[] = {init_code, count, NULL};
    expect_exit(spawn_role("devcount", args, env), 0, PEER_TIMEOUT_MS);
}

CT_CASE(device_count_env_valid_values)
{
    expect_devcount("ACL_STUB_DEVICE_COUNT", "0", "8"); /* unset: default 8 */
    expect_devcount("ACL_STUB_DEVICE_COUNT=1", "0", "1");
    expect_devcount("ACL_STUB_DEVICE_COUNT=3", "0", "3");
    expect_devcount("ACL_STUB_DEVICE_COUNT=64", "0", "64");
}

CT_CASE(device_count_env_bad_values_fail_aclInit_100000)
{
    const char *bad[] = {"ACL_STUB_DEVICE_COUNT=0",   "ACL_STUB_DEVICE_COUNT=65",
                         "ACL_STUB_DEVICE_COUNT=-1",  "ACL_STUB_DEVICE_COUNT=abc",
                         "ACL_STUB_DEVICE_COUNT=",    "ACL_STUB_DEVICE_COUNT=3x",
                         "ACL_STUB_DEVICE_COUNT=1.5", "ACL_STUB_DEVICE_COUNT=99999999999999999999"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_devcount(bad[i], "100000", "-1");
}

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

/* ------------------------------------------------------- streams, host funcs */

struct order_log {
    int next;
    int seen[8];
};
struct order_entry {
    struct order_log *log;
    int value;
};

static void log_order(void *arg)
{
    struct order_entry *e = arg;
    int i = __atomic_fetch_add(&e->log->next, 1, __ATOMIC_SEQ_CST);
    if (i < 8)
        __atomic_store_n(&e->log->seen[i], e->value, __ATOMIC_SEQ_CST);
}

CT_CASE(stream_host_funcs_hold_the_stream_in_order)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    struct order_log log = {0, {0}};
    struct order_entry entries[4] = {{&log, 1}, {&log, 2}, {&log, 3}, {&log, 4}};
    struct stamp after;
    for (int i = 0; i < 3; i++)
        CT_OK(aclrtLaunchHostFunc(s, log_order, &entries[i]));
    aclrtEvent marker = local_event_new();
    CT_OK(aclrtRecordEvent(marker, s));
    stamp_launch(s, &after);
    CT_OK(aclrtLaunchHostFunc(s, log_order, &entries[3]));
    gate_await_entered(g);
    EXPECT_STREAM_BLOCKED(s);
    aclrtEventRecordedStatus status = 99;
    CT_OK(aclrtQueryEventStatus(marker, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status);
    CT_EQ(0, __atomic_load_n(&log.next, __ATOMIC_SEQ_CST));
    uint64_t released = gate_release(g);
    CT_OK(aclrtSynchronizeStream(s));
    EXPECT_AFTER(stamp_read(&after), released);
    CT_EQ(4, __atomic_load_n(&log.next, __ATOMIC_SEQ_CST));
    for (int i = 0; i < 4; i++)
        CT_EQ(i + 1, log.seen[i]);
    CT_OK(aclrtQueryEventStatus(marker, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    CT_OK(aclrtDestroyEvent(marker));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(stream_synchronize_timeouts_507046_and_validation)
{
    acl_up(0);
    aclrtStream s = stream_new();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, -2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, INT32_MIN));
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, -1)); /* empty stream */
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, 1));
    struct gate *g = gate_hold(s);
    gate_await_entered(g);
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 1));
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 50));
    /* the expired synchronize did not disturb the stream */
    uint64_t released = gate_release(g);
    struct stamp after;
    stamp_launch(s, &after);
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    EXPECT_AFTER(stamp_read(&after), released);
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

struct delayed_release {
    struct gate *gate;
    unsigned delay_ms;
    uint64_t released;
};

static void *release_later(void *p)
{
    struct delayed_release *d = p;
    sleep_ms(d->delay_ms);
    __atomic_store_n(&d->released, gate_release(d->gate), __ATOMIC_SEQ_CST);
    return NULL;
}

CT_CASE(stream_synchronize_minus_one_waits_for_the_work)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    struct stamp done;
    stamp_launch(s, &done);
    struct delayed_release d = {g, 100, 0};
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, release_later, &d) == 0);
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    uint64_t returned = now_ns();
    pthread_join(t, NULL);
    EXPECT_AFTER(stamp_read(&done), __atomic_load_n(&d.released, __ATOMIC_SEQ_CST));
    EXPECT_AFTER(returned, stamp_read(&done));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(stream_null_means_default_stream)
{
    acl_up(0);
    aclrtEvent e = local_event_new();
    aclrtEvent ipc = ipc_event_new();
    CT_OK(aclrtRecordEvent(e, NULL));
    CT_OK(aclrtRecordEvent(ipc, NULL));
    CT_OK(aclrtStreamWaitEvent(NULL, e));
    CT_OK(aclrtStreamWaitEvent(NULL, ipc));
    CT_OK(aclrtSynchronizeStream(NULL));
    CT_OK(aclrtSynchronizeStreamWithTimeout(NULL, 1000));
    aclrtEventRecordedStatus status = 99;
    CT_OK(aclrtQueryEventStatus(e, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
}

CT_CASE(stream_destroy_never_blocks_on_pending_work)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    aclrtEvent e = local_event_new();
    CT_OK(aclrtRecordEvent(e, s));
    gate_await_entered(g);
    /* If destroy waited for the queue it would hang here until the watchdog:
     * only this thread can open the gate. */
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyEvent(e));
    CT_TRUE(gate_entered(g));
    gate_release(g);
    acl_down();
}

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

/* ------------------------------------------------------------ error messages */

static void errmsg_on_fresh_thread(void *arg)
{
    *(const char **)arg = aclGetRecentErrMsg();
}

#define EXPECT_MESSAGE_NAMES(call_name, call)                                                 \
    do {                                                                                      \
        int code_ = (call);                                                                   \
        if (code_ == 0)                                                                       \
            CT_FAIL("%s unexpectedly succeeded", #call);                                      \
        const char *msg_ = aclGetRecentErrMsg();                                              \
        if (!msg_ || !*msg_)                                                                  \
            CT_FAIL("aclGetRecentErrMsg() is %s after %s failed with %d",                     \
                    msg_ ? "empty" : "NULL", #call, code_);                                   \
        if (!strstr(msg_, call_name))                                                         \
            CT_FAIL("aclGetRecentErrMsg() after %s does not name the call '%s': %s", #call,   \
                    call_name, msg_);                                                         \
    } while (0)

CT_CASE(errmsg_filled_after_each_failure)
{
    const char *fresh = (const char *)1;
    run_in_thread(errmsg_on_fresh_thread, &fresh);
    if (fresh != NULL)
        CT_FAIL("aclGetRecentErrMsg() on a thread with no failure returned '%s', expected NULL", fresh);
    aclrtStream s0 = NULL;
    EXPECT_MESSAGE_NAMES("aclrtCreateStream", aclrtCreateStream(&s0)); /* before init */
    acl_up(0);
    EXPECT_MESSAGE_NAMES("aclInit", aclInit(NULL));
    aclrtStream s = stream_new();
    aclrtEvent e = NULL, local = local_event_new();
    aclrtIpcEventHandle h;
    memset(&h, 0, sizeof h);
    uint32_t id;
    EXPECT_MESSAGE_NAMES("aclrtSetDevice", aclrtSetDevice(-1));
    EXPECT_MESSAGE_NAMES("aclrtCreateEventExWithFlag", aclrtCreateEventExWithFlag(&e, 0));
    EXPECT_MESSAGE_NAMES("aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC));
    EXPECT_MESSAGE_NAMES("aclrtGetDevice", aclrtGetDevice(NULL));
    EXPECT_MESSAGE_NAMES("aclrtIpcGetEventHandle", aclrtIpcGetEventHandle(local, &h));
    EXPECT_MESSAGE_NAMES("aclrtIpcOpenEventHandle", aclrtIpcOpenEventHandle(h, &e));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(s, 0));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeEventWithTimeout", aclrtSynchronizeEventWithTimeout(local, -5));
    aclrtEvent ipc = ipc_event_new();
    EXPECT_MESSAGE_NAMES("aclrtGetEventId", aclrtGetEventId(ipc, &id));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(ipc, s));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeEventWithTimeout", aclrtSynchronizeEventWithTimeout(ipc, 5));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(s, 5));
    gate_release(g);
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(local));
    EXPECT_MESSAGE_NAMES("aclrtDestroyEvent", aclrtDestroyEvent(local));
    CT_OK(aclrtDestroyStream(s));
    EXPECT_MESSAGE_NAMES("aclrtRecordEvent", aclrtRecordEvent(NULL, NULL));
    /* the message is per thread: a thread that has not failed sees none */
    fresh = (const char *)1;
    run_in_thread(errmsg_on_fresh_thread, &fresh);
    if (fresh != NULL)
        CT_FAIL("a fresh thread sees another thread's failure message: '%s'", fresh);
    acl_down();
    EXPECT_MESSAGE_NAMES("aclFinalize", aclFinalize());
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
