/*
 * cases_devices.c - device ids, the per-thread current device, calls with no
 * current device, streams of another device, ACL_STUB_DEVICE_COUNT, peer
 * access, the bare tgid and aclrtDestroyStreamForce.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* ------------------------------------------------------------------ devices */

CT_CASE(device_bad_ids_return_107001)
{
    acl_init_only();
    uint32_t count = 0;
    CT_OK(aclrtGetDeviceCount(&count));
    CT_TRUE(count >= 1 && count <= 64);
    int32_t bad[] = {-1, -100, INT32_MIN, (int32_t)count, (int32_t)count + 1, 64, INT32_MAX};
    CT_SOURCE("api_error.cc:3272-3294 SetDevice, 3430-3437 DeviceReset: ids outside 0..count-1");
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

CT_STUB_CASE(device_stream_of_another_device_returns_107003, "recording another device's event is 107003 (contract S2)")
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

/* Starts one devcount role per entry of `env_entries` (n of them), all at once (each is its own
 * process with its own environment: nothing to order), then expects each to exit 0. */
static void expect_devcounts(const char *const *env_entries, size_t n, const char *init_code, const char *const *counts)
{
    pid_t pids[16];
    if (n > sizeof pids / sizeof pids[0])
        CT_FAIL("expect_devcounts: %zu roles, at most %zu", n, sizeof pids / sizeof pids[0]);
    for (size_t i = 0; i < n; i++) {
        const char *env[] = {env_entries[i], NULL};
        const char *args[] = {init_code, counts ? counts[i] : "-1", NULL};
        pids[i] = spawn_role("devcount", args, env);
    }
    for (size_t i = 0; i < n; i++)
        expect_exit(pids[i], 0, PEER_TIMEOUT_MS);
}

CT_LONG_STUB_CASE(device_count_env_valid_values, "ACL_STUB_DEVICE_COUNT, a stub setting")
{
    /* "ACL_STUB_DEVICE_COUNT" alone: unset, the default 8 */
    const char *env[] = {"ACL_STUB_DEVICE_COUNT", "ACL_STUB_DEVICE_COUNT=1", "ACL_STUB_DEVICE_COUNT=3",
                         "ACL_STUB_DEVICE_COUNT=64"};
    const char *counts[] = {"8", "1", "3", "64"};
    expect_devcounts(env, sizeof env / sizeof env[0], "0", counts);
}

CT_LONG_STUB_CASE(device_count_env_bad_values_fail_aclInit_100000, "ACL_STUB_DEVICE_COUNT, a stub setting")
{
    const char *bad[] = {"ACL_STUB_DEVICE_COUNT=0",   "ACL_STUB_DEVICE_COUNT=65",
                         "ACL_STUB_DEVICE_COUNT=-1",  "ACL_STUB_DEVICE_COUNT=abc",
                         "ACL_STUB_DEVICE_COUNT=",    "ACL_STUB_DEVICE_COUNT=3x",
                         "ACL_STUB_DEVICE_COUNT=1.5", "ACL_STUB_DEVICE_COUNT=99999999999999999999"};
    expect_devcounts(bad, sizeof bad / sizeof bad[0], "100000", NULL);
}

/* ------------------------------------------------ peer access, tgid, force */

CT_STUB_CASE(peer_access_tgid_and_destroy_stream_force,
             "peer access always possible, bare tgid = getpid (contract 8.7)")
{
    acl_up(0);
    int32_t can = 0;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(NULL, 0, 1)); /* api_error.cc:3393 */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(&can, 1, 1));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(&can, 0, 99));
    CT_OK(aclrtDeviceCanAccessPeer(&can, 0, 1));
    CT_EQ(1, can);
    CT_CODE(ACL_ERROR_FEATURE_UNSUPPORTED, aclrtDeviceEnablePeerAccess(1, 1));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDeviceEnablePeerAccess(0, 0));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceEnablePeerAccess(99, 0));
    CT_OK(aclrtDeviceEnablePeerAccess(1, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDeviceGetBareTgid(NULL));
    int32_t pid = 0;
    CT_OK(aclrtDeviceGetBareTgid(&pid));
    CT_EQ((int32_t)getpid(), pid);
    /* force-destroy drops queued work, even a wait that would never end */
    aclrtStream s = stream_new();
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    CT_OK(aclrtWaitAndResetNotify(n, s, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDestroyStreamForce(NULL));
    CT_OK(aclrtDestroyStreamForce(s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStreamForce(s));
    CT_OK(aclrtDestroyNotify(n));
    acl_down();
}

struct slow_writer {
    int started, written;
};

static void start_sleep_then_write(void *arg)
{
    struct slow_writer *w = arg;
    __atomic_store_n(&w->started, 1, __ATOMIC_SEQ_CST);
    sleep_ms(BLOCK_PROBE_MS);
    __atomic_store_n(&w->written, 1, __ATOMIC_SEQ_CST);
}

struct self_destroy {
    aclrtStream stream;
    int rc; /* -1 until the host function made its call */
};

/* A host function that force-destroys its own stream (as real code must, it sets a device first). */
static void destroy_own_stream(void *arg)
{
    struct self_destroy *sd = arg;
    int rc = aclrtSetDevice(0);
    if (rc == ACL_SUCCESS)
        rc = aclrtDestroyStreamForce(sd->stream);
    __atomic_store_n(&sd->rc, rc, __ATOMIC_SEQ_CST);
}

/* CANN's StreamDestroy(stm, true) first flushes the stream's pending host tasks
 * (core/src/context/context.cc:995-1002, FlushPendingTasksBeforeStreamTearDown:
 * WaitFinish of each host task already launched), then force-recycles the rest
 * (core/src/stream/stream.cc:1409-1480). In the stub the task the executor has
 * started is the launched one: a running host function ends before the call
 * returns; tasks not started are dropped. */
CT_CASE(destroy_stream_force_finishes_the_running_host_function_first)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct slow_writer w = {0, 0};
    CT_OK(aclrtLaunchHostFunc(s, start_sleep_then_write, &w));
    struct stamp dropped;
    stamp_launch(s, &dropped);
    uint64_t deadline = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (!__atomic_load_n(&w.started, __ATOMIC_SEQ_CST)) {
        if (now_ns() > deadline)
            CT_FAIL("the host function never started");
        sleep_ms(1);
    }
    CT_OK(aclrtDestroyStreamForce(s));
    CT_EQ(1, __atomic_load_n(&w.written, __ATOMIC_SEQ_CST));
    /* a host function that force-destroys its own stream does not wait for itself */
    aclrtStream self = stream_new();
    struct self_destroy sd = {self, -1};
    CT_OK(aclrtLaunchHostFunc(self, destroy_own_stream, &sd));
    deadline = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (__atomic_load_n(&sd.rc, __ATOMIC_SEQ_CST) == -1) {
        if (now_ns() > deadline)
            CT_FAIL("aclrtDestroyStreamForce from a host function of its own stream never returned");
        sleep_ms(1);
    }
    CT_EQ(ACL_SUCCESS, __atomic_load_n(&sd.rc, __ATOMIC_SEQ_CST));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStreamForce(s));
    /* queued behind it: dropped before the call returned (the executor drops the queue as soon as
     * the host function ends, under the lock the call needs to return) */
    CT_EQ(0, stamp_read(&dropped));
    acl_down();
}
