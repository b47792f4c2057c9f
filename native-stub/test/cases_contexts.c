/*
 * cases_contexts.c - the current context as CANN keeps it (issue 19 items 1
 * and 2): the context API, the calls whose ApiImpl checks the current
 * context (107002) and the stream's context (107003), aclrtMemcpy's context
 * check before its addresses, and device reset bookkeeping (507007).
 *
 * Paths without a directory are CANN runtime source files (commit 681ef7610):
 * api_impl.cc, api_impl_standard_soc.cc, api_error.cc = src/runtime/api/impl/;
 * runtime.cc = src/runtime/core/src/; context.cpp = src/acl/aclrt_impl/.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <pthread.h>

#include "support.h"

#define PAGE 4096u

/* ------------------------------------------------------ no current context */

struct objects {
    aclrtStream stream; /* device 0's, made by the case's thread */
    char mem_key[EXPORT_KEY_LEN];
    void *dev;
    aclrtNotify notify;
    char host_a[64], host_b[64];
};

/* Runs on a thread that never set a device: every call whose ApiImpl starts
 * with CurrentContext() + CHECK_CONTEXT_VALID_WITH_RETURN(..., RT_ERROR_CONTEXT_NULL)
 * answers 107002, whatever its (valid) stream or key. */
static void calls_without_context(void *arg)
{
    struct objects *o = arg;
    aclrtContext ctx = (aclrtContext)0x1;
    void *p = NULL;
    char key[EXPORT_KEY_LEN];
    int32_t pid = (int32_t)getpid();
    /* api_impl.cc:9139-9150 LaunchHostFunc, both a stream and the NULL one */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtLaunchHostFunc(o->stream, noop_host_fn, NULL));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtLaunchHostFunc(NULL, noop_host_fn, NULL));
    /* api_impl.cc:1704-1707 StreamSynchronize: every stream argument */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeStream(o->stream));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeStreamWithTimeout(o->stream, 100));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeStreamWithTimeout(o->stream, -1));
    /* api_impl.cc:1579-1585 StreamDestroy (force: api_c_stream.cc:109-120) */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyStream(o->stream));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyStreamForce(o->stream));
    /* api_impl.cc:2426-2430 HostMalloc */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocHost(&p, 64));
    CT_TRUE(p == NULL);
    /* api_impl_standard_soc.cc:635-639 IpcSetMemoryName (memory already exported once) */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtIpcMemGetExportKey(o->dev, PAGE, key, EXPORT_KEY_LEN, 0));
    /* api_impl.cc:4775-4779 SetIpcMemPid, api_impl.cc:4760-4764 SetIpcNotifyPid */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtIpcMemSetImportPid(o->mem_key, &pid, 1));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtNotifySetImportPid(o->notify, &pid, 1));
    /* api_impl_standard_soc.cc:748-751 IpcCloseMemoryByName */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtIpcMemClose(o->mem_key));
    /* api_impl.cc:4193-4203 ContextGetCurrent; api_c.cc:1352-1360 */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&ctx));
    CT_TRUE(ctx == (aclrtContext)0x1);
    /* argument checks of the acl layer and the decorator still come first */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtLaunchHostFunc(o->stream, NULL, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 64));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(o->mem_key, &pid, 0));
}

CT_CASE(context_none_current_returns_107002_on_every_checked_call)
{
    acl_up(0);
    struct objects o;
    memset(&o, 0, sizeof o);
    o.stream = stream_new();
    CT_OK(aclrtMalloc(&o.dev, PAGE, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_OK(aclrtIpcMemGetExportKey(o.dev, PAGE, o.mem_key, EXPORT_KEY_LEN, 0));
    declare_key_owned(o.mem_key);
    CT_OK(aclrtCreateNotify(&o.notify, ACL_NOTIFY_DEFAULT));
    char nkey[EXPORT_KEY_LEN];
    CT_OK(aclrtNotifyGetExportKey(o.notify, nkey, EXPORT_KEY_LEN, 0));
    declare_key_owned(nkey);
    run_in_thread(calls_without_context, &o);
    /* nothing was done: the stream, the export and the notify still work here */
    int32_t pid = (int32_t)getpid();
    CT_OK(aclrtLaunchHostFunc(o.stream, noop_host_fn, NULL));
    CT_OK(aclrtSynchronizeStream(o.stream));
    CT_OK(aclrtIpcMemSetImportPid(o.mem_key, &pid, 1));
    CT_OK(aclrtNotifySetImportPid(o.notify, &pid, 1));
    CT_OK(aclrtIpcMemClose(o.mem_key));
    CT_OK(aclrtDestroyStream(o.stream));
    CT_OK(aclrtDestroyNotify(o.notify));
    CT_OK(aclrtFree(o.dev));
    acl_down();
}

/* aclrtMemcpy: api_error.cc:2129-2150 (NULL, zero, count > destMax, kind,
 * dst == src) then ApiImpl::MemCopySync's context check (api_impl.cc:2745-2751),
 * and only then the driver, which judges the addresses against the kind. */
static void memcpy_without_context(void *arg)
{
    struct objects *o = arg;
    /* host buffers with a device kind: a driver refusal, never reached */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL,
            aclrtMemcpy(o->host_a, sizeof o->host_a, o->host_b, sizeof o->host_b, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL,
            aclrtMemcpy(o->host_a, sizeof o->host_a, o->host_b, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(NULL, 16, o->host_b, 16, ACL_MEMCPY_HOST_TO_HOST));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(o->host_a, 8, o->host_b, 16, ACL_MEMCPY_HOST_TO_HOST));
}

CT_CASE(context_memcpy_checks_the_context_before_the_addresses)
{
    acl_up(0);
    struct objects o;
    memset(&o, 0, sizeof o);
    run_in_thread(memcpy_without_context, &o);
    /* with a context, the same copy reaches the address check */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtMemcpy(o.host_a, sizeof o.host_a, o.host_b, sizeof o.host_b, ACL_MEMCPY_DEVICE_TO_DEVICE));
    acl_down();
}

/* -------------------------------------------------- stream of another context */

CT_CASE(context_stream_of_another_context_returns_107003)
{
    acl_up(0);
    aclrtStream s0 = stream_new();
    aclrtEvent e0 = local_event_new();
    /* another device's primary context */
    CT_OK(aclrtSetDevice(1));
    /* ApiImpl::LaunchHostFunc / StreamDestroy compare stm->Context_() with the
     * current context (error_message_manage.hpp:337-343; api_impl.cc:9147-9148, 1583-1584) */
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(s0, noop_host_fn, NULL));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStream(s0));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStreamForce(s0));
    /* synchronize switches context implicitly: accepted (api_impl.cc:1704-1712) */
    CT_OK(aclrtSynchronizeStream(s0));
    CT_OK(aclrtSynchronizeStreamWithTimeout(s0, 1000));
    /* a second context on the SAME device is another context all the same */
    aclrtContext c = NULL;
    CT_OK(aclrtCreateContext(&c, 0));
    int32_t dev = -1;
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(0, dev);
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(s0, noop_host_fn, NULL));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtRecordEvent(e0, s0));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamWaitEvent(s0, e0));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtDestroyStream(s0));
    /* back in device 0's primary context, everything is accepted */
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtLaunchHostFunc(s0, noop_host_fn, NULL));
    CT_OK(aclrtRecordEvent(e0, s0));
    CT_OK(aclrtSynchronizeStream(s0));
    CT_OK(aclrtDestroyStream(s0));
    CT_OK(aclrtDestroyEvent(e0));
    CT_OK(aclrtDestroyContext(c));
    acl_down();
}

/* --------------------------------------------------------------- context API */

CT_CASE(context_api_create_set_get_destroy)
{
    acl_init_only();
    aclrtContext none = (aclrtContext)0x1, primary = NULL, c = NULL, got = NULL;
    /* acl layer NULL checks (context.cpp:34, 55, 67, 77) */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateContext(NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDestroyContext(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtSetCurrentContext(NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetCurrentContext(NULL));
    /* RT_ERROR_DEVICE_ID (api_error.cc:3619-3625) */
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c, -1));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtCreateContext(&c, 64));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&none));
    CT_TRUE(none == (aclrtContext)0x1);

    /* aclrtSetDevice makes the device's primary context current */
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtGetCurrentContext(&primary));
    CT_TRUE(primary != NULL);
    /* the primary context is released by aclrtResetDevice only (api_impl.cc:4141-4143) */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyContext(primary));

    /* a created context becomes current (api_impl.cc:4125-4127) */
    CT_OK(aclrtCreateContext(&c, 1));
    CT_TRUE(c != NULL && c != primary);
    CT_OK(aclrtGetCurrentContext(&got));
    CT_TRUE(got == c);
    int32_t dev = -1;
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(1, dev);
    aclrtStream sc = stream_new(); /* belongs to c */
    CT_OK(aclrtLaunchHostFunc(NULL, noop_host_fn, NULL)); /* c's default stream */
    CT_OK(aclrtSynchronizeStream(NULL));

    /* switching back and forth */
    CT_OK(aclrtSetCurrentContext(primary));
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(0, dev);
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtLaunchHostFunc(sc, noop_host_fn, NULL));
    CT_OK(aclrtSetCurrentContext(c));
    CT_OK(aclrtLaunchHostFunc(sc, noop_host_fn, NULL));
    CT_OK(aclrtSynchronizeStream(sc));

    /* destroying the current context leaves the thread without one
     * (api_impl.cc:4150-4155), and destroys its streams */
    CT_OK(aclrtDestroyContext(c));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetCurrentContext(&got));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtLaunchHostFunc(NULL, noop_host_fn, NULL));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyStream(sc));
    /* a destroyed context: 107000 to set (api_error.cc:3643-3650), 107002 to
     * destroy (context_manage.cc:182-191) */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSetCurrentContext(c));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtDestroyContext(c));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSetCurrentContext((aclrtContext)0x1234));

    /* aclrtSetDevice again: its primary context, the same as before */
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtGetCurrentContext(&got));
    CT_TRUE(got == primary);
    acl_down();
}

static void destroy_context_on_thread(void *arg)
{
    CT_OK(aclrtDestroyContext(*(aclrtContext *)arg));
}

static void expect_no_device(void *arg)
{
    (void)arg;
    int32_t dev = -1;
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
}

static void set_device_2_on_thread(void *arg)
{
    (void)arg;
    CT_OK(aclrtSetDevice(2));
}

CT_CASE(context_lifetime_across_threads_and_resets)
{
    acl_up(0);
    /* a context current here and destroyed by another thread: none here */
    aclrtContext c = NULL;
    CT_OK(aclrtCreateContext(&c, 1));
    run_in_thread(destroy_context_on_thread, &c);
    int32_t dev = -1;
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));

    /* a created context keeps its device: resetting the device's primary
     * context leaves it working (NewContext retains the device itself,
     * api_impl.cc:4086-4093) */
    CT_OK(aclrtSetDevice(3));
    CT_OK(aclrtCreateContext(&c, 3));
    aclrtStream s = stream_new();
    CT_OK(aclrtResetDevice(3));
    CT_OK(aclrtLaunchHostFunc(s, noop_host_fn, NULL));
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtDestroyContext(c));

    /* the last reset clears the resetting thread's device slot
     * (runtime.cc:2865-2868 SetCurRef(nullptr)): it stays without a context
     * when another thread sets the device again */
    CT_OK(aclrtSetDevice(2));
    CT_OK(aclrtResetDevice(2));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
    run_in_thread(set_device_2_on_thread, NULL);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
    run_in_thread(expect_no_device, NULL); /* a thread that never set one has none */
    acl_down();
}

/* The calling thread of a device's last reset loses its current context
 * whatever device it had set (runtime.cc:2865-2868 SetCurRef(nullptr) on the
 * calling thread): here device 1 is current and device 2 is reset. An
 * explicit context stays current (runtime.cc:2853-2856 restores CurCtx). */
CT_CASE(context_last_reset_unbinds_the_resetting_thread)
{
    acl_up(0);
    run_in_thread(set_device_2_on_thread, NULL); /* device 2's one reference, taken elsewhere */
    CT_OK(aclrtSetDevice(1));
    CT_OK(aclrtResetDevice(2));
    int32_t dev = -1;
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
    aclrtStream s = NULL;
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtCreateStream(&s));
    CT_OK(aclrtSetDevice(1)); /* binds again (device 1 kept its references) */
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(1, dev);

    aclrtContext c = NULL;
    CT_OK(aclrtCreateContext(&c, 3));
    run_in_thread(set_device_2_on_thread, NULL);
    CT_OK(aclrtResetDevice(2));
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(3, dev);
    CT_OK(aclrtDestroyContext(c));
    CT_OK(aclrtResetDevice(1));
    CT_OK(aclrtResetDevice(1));
    acl_down();
}

struct rebind_probe {
    int step; /* atomic: 1 reset done, 2 the probe called, 3 device set again, 4 done */
    int after_reset, after_set_again;
    int32_t dev;
};

static void await_step(struct rebind_probe *p, int step)
{
    uint64_t limit = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (__atomic_load_n(&p->step, __ATOMIC_SEQ_CST) < step && now_ns() < limit)
        sleep_ms(1);
    CT_TRUE(__atomic_load_n(&p->step, __ATOMIC_SEQ_CST) >= step);
}

static void *rebind_probe_main(void *arg)
{
    struct rebind_probe *p = arg;
    CT_OK(aclrtSetDevice(2));
    __atomic_store_n(&p->step, 1, __ATOMIC_SEQ_CST); /* main: reset device 2 now */
    await_step(p, 2);
    p->after_reset = aclrtGetDevice(&p->dev);
    __atomic_store_n(&p->step, 3, __ATOMIC_SEQ_CST); /* main: set device 2 again */
    await_step(p, 4);
    p->after_set_again = aclrtGetDevice(&p->dev);
    __atomic_store_n(&p->step, 5, __ATOMIC_SEQ_CST);
    return NULL;
}

/* A thread whose device was reset under it, and that made a call meanwhile
 * (107002), was detached from the dead context by that call
 * (context_manage.cc:34-46 DetachInvalidContextFromThread, from
 * CheckContextIsValid, :71-99): when another thread sets the device again it
 * stays unbound. */
CT_CASE(context_thread_that_saw_107002_stays_unbound_after_another_sets_the_device)
{
    acl_up(0);
    struct rebind_probe p = {0};
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, rebind_probe_main, &p) == 0);
    await_step(&p, 1);
    CT_OK(aclrtResetDevice(2));                          /* the probe's reference */
    __atomic_store_n(&p.step, 2, __ATOMIC_SEQ_CST);      /* probe: call now */
    await_step(&p, 3);
    CT_OK(aclrtSetDevice(2));
    CT_OK(aclrtSetDevice(0)); /* this thread back on device 0 */
    __atomic_store_n(&p.step, 4, __ATOMIC_SEQ_CST);      /* probe: call again */
    await_step(&p, 5);
    pthread_join(t, NULL);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, p.after_reset);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, p.after_set_again);
    CT_OK(aclrtResetDevice(2));
    acl_down();
}

/* ------------------------------------------------------ reset bookkeeping */

CT_CASE(device_reset_without_a_set_returns_507007)
{
    acl_init_only();
    /* runtime.cc:2908-2930 PrimaryContextRelease: TryDecRef of a count of 0
     * fails (reference.hpp:69-79; runtime.cc:233-251), RT_ERROR_CONTEXT_DEL */
    CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(3));
    /* force: no primary context (runtime.cc:253-270) */
    CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDeviceForce(3));
    /* the device id is checked first */
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtResetDevice(64));
    /* one reset per set */
    CT_OK(aclrtSetDevice(3));
    CT_OK(aclrtSetDevice(3));
    CT_OK(aclrtResetDevice(3));
    CT_OK(aclrtResetDevice(3));
    CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(3));
    /* a force reset drops every reference at once */
    CT_OK(aclrtSetDevice(3));
    CT_OK(aclrtSetDevice(3));
    CT_OK(aclrtResetDeviceForce(3));
    CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(3));
    CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDeviceForce(3));
    /* the count is per process: a set on another thread is released here */
    run_in_thread(set_device_2_on_thread, NULL);
    CT_OK(aclrtResetDevice(2));
    CT_CODE(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, aclrtResetDevice(2));
    acl_down();
}
