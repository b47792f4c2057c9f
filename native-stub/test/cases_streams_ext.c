/*
 * cases_streams_ext.c - aclrtCreateStreamWithConfig, aclrtStreamGetId,
 * aclrtStreamQuery, aclrtStreamAbort, aclrtSetStreamFailureMode,
 * aclrtSynchronizeDevice(WithTimeout), aclrtValueWrite / aclrtValueWait (within
 * and across processes), aclrtMemcpyBatch, aclrtGetResInCurrentThread,
 * aclrtDeviceDisablePeerAccess, aclrtGetNotifyId, aclrtGetSocName and the
 * device ids of ASCEND_RT_VISIBLE_DEVICES. Rules: docs/acl-contract.md section 11.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define PAGE 4096u

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CT_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static void code_on_fresh_thread(void *arg)
{
    aclrtStream s = NULL;
    *(int *)arg = aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_FAST_LAUNCH);
}

/* stream.cpp:53-92 (NULL: 100000; unknown flags dropped), api_error.cc:1371-1378
 * (DEVICE_USE_ONLY with another flag: 107000), the context (107002). */
CT_CASE(stream_ext_create_with_config)
{
    acl_up(0);
    aclrtStream s = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateStreamWithConfig(NULL, 0, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtCreateStreamWithConfig(&s, 0, ACL_STREAM_DEVICE_USE_ONLY | ACL_STREAM_FAST_LAUNCH));
    CT_TRUE(s == NULL);
    int code = 0;
    run_in_thread(code_on_fresh_thread, &code);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, code);
    CT_OK(aclrtCreateStreamWithConfig(&s, 7, ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | 0x80000000u));
    unsigned char *dev = dev_alloc(PAGE);
    CT_OK(aclrtMemsetAsync(dev, PAGE, 1, PAGE, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtFree(dev));
    acl_down();
}

/* stream.cpp:295-301 (NULL: 100000), the handle (107017), api_impl.cc:1786-1797 (NULL
 * stream: the default stream of the current context, 107002 without one). */
CT_CASE(stream_ext_get_id)
{
    acl_up(0);
    aclrtStream a = stream_new(), b = stream_new();
    int32_t ia = -1, ib = -1, d1 = -1, d2 = -1;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtStreamGetId(a, NULL));
    CT_OK(aclrtStreamGetId(a, &ia));
    CT_OK(aclrtStreamGetId(b, &ib));
    CT_TRUE(ia >= 0 && ib >= 0 && ia != ib);
    CT_OK(aclrtStreamGetId(NULL, &d1));
    CT_OK(aclrtStreamGetId(NULL, &d2));
    CT_TRUE(d1 == d2 && d1 != ia && d1 != ib);
    CT_OK(aclrtDestroyStream(b));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamGetId(b, &ib));
    CT_OK(aclrtDestroyStream(a));
    acl_down();
    acl_init_only();
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtStreamGetId(NULL, &d1));
    acl_down();
}

/* stream.cpp:167-181 (NULL: 100000; complete / not ready), api_error.cc:1488-1495
 * (PERSISTENT and DEVICE_USE_ONLY streams: complete at once), api_impl.cc:1767-1783. */
CT_CASE(stream_ext_query)
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtStreamStatus st = ACL_STREAM_STATUS_RESERVED;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtStreamQuery(s, NULL));
    CT_OK(aclrtStreamQuery(s, &st));
    CT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    struct gate *g = gate_hold(s);
    CT_OK(aclrtStreamQuery(s, &st));
    CT_EQ(ACL_STREAM_STATUS_NOT_READY, st);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtStreamQuery(s, &st));
    CT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    aclrtStream p = NULL;
    CT_OK(aclrtCreateStreamWithConfig(&p, 0, ACL_STREAM_PERSISTENT));
    g = gate_hold(p);
    CT_OK(aclrtStreamQuery(p, &st));
    CT_EQ(ACL_STREAM_STATUS_COMPLETE, st);
    gate_release(g);
    EXPECT_STREAM_DRAINS(p);
    CT_OK(aclrtDestroyStream(p));
    CT_OK(aclrtDestroyStream(s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamQuery(s, &st));
    acl_down();
}

/* stream.cpp:285-293, api_error.cc:6602-6604 (NULL without a context: 107000),
 * api_impl.cc:7605-7608 (107003 for a stream of another context): queued tasks are
 * dropped, the stream stays usable. */
CT_STUB_CASE(stream_ext_abort_drops_queued_tasks, "what aclrtStreamAbort drops and ends (contract 11.7)")
{
    acl_up(0);
    aclrtStream s = stream_new();
    unsigned char *dev = dev_alloc(PAGE);
    CT_OK(aclrtMemset(dev, PAGE, 0x01, PAGE));
    struct gate *g = gate_hold(s);
    gate_await_entered(g);
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0x02, PAGE, s));
    CT_OK(aclrtStreamAbort(s));
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    unsigned char out[PAGE];
    CT_OK(aclrtMemcpy(out, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(0x01, out[0]); /* the aborted memset never ran */
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0x03, PAGE, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtMemcpy(out, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(0x03, out[PAGE - 1]);
    /* a running value wait ends too (the stub aborts no other running task) */
    CT_OK(aclrtValueWait(dev, 0xFFFF, ACL_STREAM_WAIT_VALUE_EQ, s));
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0x04, PAGE, s));
    EXPECT_STREAM_BLOCKED(s);
    CT_OK(aclrtStreamAbort(s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtMemcpy(out, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(0x03, out[0]); /* the memset queued behind the wait was dropped */
    CT_OK(aclrtSetDevice(1));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtStreamAbort(s));
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtDestroyStream(s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtStreamAbort(s));
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtResetDevice(1));
    acl_down();
    acl_init_only();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtStreamAbort(NULL));
    acl_down();
}

/* stream.cpp:258-265, api_error.cc:1600-1607 (NULL without a context: 107000;
 * DEVICE_USE_ONLY: 207000), api_impl.cc:1994-1995 (107002). */
CT_CASE(stream_ext_set_failure_mode)
{
    acl_up(0);
    aclrtStream s = stream_new(), cp = NULL;
    CT_OK(aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    CT_OK(aclrtSetStreamFailureMode(s, ACL_CONTINUE_ON_FAILURE));
    CT_OK(aclrtSetStreamFailureMode(NULL, ACL_STOP_ON_FAILURE));
    CT_OK(aclrtCreateStreamWithConfig(&cp, 0, ACL_STREAM_DEVICE_USE_ONLY));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtSetStreamFailureMode(cp, ACL_STOP_ON_FAILURE));
    CT_OK(aclrtDestroyStream(cp));
    CT_OK(aclrtDestroyStream(s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSetStreamFailureMode(s, ACL_STOP_ON_FAILURE));
    acl_down();
    acl_init_only();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSetStreamFailureMode(NULL, ACL_STOP_ON_FAILURE));
    acl_down();
}

/* device.cpp:159-184 (timeout < -1: 107000 first), api_error.cc:3477-3481 (0: 107000),
 * api_impl.cc:3975-3980 (107002, then every stream of the current context). */
CT_CASE(stream_ext_synchronize_device_waits_for_every_stream)
{
    acl_init_only();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(-2));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtSynchronizeDevice());
    acl_down();
    acl_up(0);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeDeviceWithTimeout(0));
    CT_OK(aclrtSynchronizeDevice());
    aclrtStream a = stream_new(), b = stream_new();
    struct gate *ga = gate_hold(a), *gd = gate_hold(NULL);
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(BLOCK_PROBE_MS));
    gate_release(ga);
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeDeviceWithTimeout(BLOCK_PROBE_MS)); /* default */
    gate_release(gd);
    struct stamp st = {0};
    stamp_launch(b, &st);
    CT_OK(aclrtSynchronizeDeviceWithTimeout(PEER_TIMEOUT_MS));
    CT_TRUE(stamp_read(&st) != 0);
    CT_OK(aclrtSetDevice(1));
    aclrtStream other = stream_new();
    struct gate *go = gate_hold(other);
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtSynchronizeDevice()); /* another device's stream is not waited for */
    gate_release(go);
    CT_OK(aclrtSetDevice(1));
    CT_OK(aclrtSynchronizeDevice());
    CT_OK(aclrtDestroyStream(other));
    CT_OK(aclrtResetDevice(1));
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtDestroyStream(a));
    CT_OK(aclrtDestroyStream(b));
    acl_down();
}

static uint64_t read_word(const void *dev)
{
    uint64_t v = 0;
    CT_OK(aclrtMemcpy(&v, sizeof v, dev, sizeof v, ACL_MEMCPY_DEVICE_TO_HOST));
    return v;
}

static void write_word(void *dev, uint64_t v)
{
    CT_OK(aclrtMemcpy(dev, sizeof v, &v, sizeof v, ACL_MEMCPY_HOST_TO_DEVICE));
}

/* memory.cpp:1441-1459 (NULL: 100000), api_c_memory.cc:571/590 (handle: 107017),
 * api_error.cc:7253-7289 (write flag != 0, wait flag >= 4, not device memory: 107000),
 * api_impl.cc:8984-9018 (107002, 107003); the docs' alignment (stub rule: 107000). */
CT_CASE(stream_ext_value_write_wait_checks)
{
    acl_up(0);
    aclrtStream s = stream_new();
    unsigned char *dev = dev_alloc(PAGE);
    uint64_t host_word = 0;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtValueWrite(NULL, 1, 0, s));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtValueWait(NULL, 1, 0, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(dev, 1, 1, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(dev, 1, 4, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(&host_word, 1, 0, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWait(&host_word, 1, 0, s));
    if (ct_library_is_stub(NULL)) { /* stub rule (contract 11.7): aligned words inside one allocation */
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(dev + 4, 1, 0, s));
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtValueWrite(dev + PAGE - 4, 1, 0, s));
    }
    CT_OK(aclrtSetDevice(1));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtValueWrite(dev, 1, 0, s));
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtValueWrite(dev, 0x1122334455667788ull, 0, NULL));
    CT_OK(aclrtSynchronizeStream(NULL));
    CT_EQ(0x1122334455667788ull, read_word(dev));
    CT_OK(aclrtDestroyStream(s));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtValueWrite(dev, 1, 0, s));
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtResetDevice(1));
    acl_down();
}

/* One wait per flag (docs/zh/api_ref/11-09_stream_memory_operation.md:104): the stream
 * stays blocked until another stream's aclrtValueWrite (or a copy) meets the condition. */
static void expect_wait_released(aclrtStream waiter, aclrtStream writer, void *word, uint64_t start, uint64_t value,
                                 uint32_t flag, uint64_t miss, uint64_t hit)
{
    write_word(word, start);
    CT_OK(aclrtValueWait(word, value, flag, waiter));
    EXPECT_STREAM_BLOCKED(waiter);
    CT_OK(aclrtValueWrite(word, miss, 0, writer));
    EXPECT_STREAM_DRAINS(writer);
    EXPECT_STREAM_BLOCKED(waiter);
    CT_OK(aclrtValueWrite(word, hit, 0, writer));
    EXPECT_STREAM_DRAINS(waiter);
}

CT_CASE(stream_ext_value_wait_each_flag_across_streams)
{
    CT_SOURCE("11-09_stream_memory_operation.md:105 (the wait flags)");
    acl_up(0);
    aclrtStream waiter = stream_new(), writer = stream_new();
    unsigned char *dev = dev_alloc(PAGE);
    expect_wait_released(waiter, writer, dev, 0, 5, ACL_STREAM_WAIT_VALUE_GEQ, 4, 6);
    expect_wait_released(waiter, writer, dev, 0, 5, ACL_STREAM_WAIT_VALUE_EQ, 6, 5);
    expect_wait_released(waiter, writer, dev, 0, 0x30, ACL_STREAM_WAIT_VALUE_AND, 0x0F, 0x10);
    expect_wait_released(waiter, writer, dev + 8, UINT64_MAX, 0xFFFFFFFF00000000ull, ACL_STREAM_WAIT_VALUE_NOR,
                         0xFFFFFFFFFFFFFFFEull | 0x1, 0x00000000FFFFFFFEull);
    /* GEQ compares (int64_t)(word - value): a huge unsigned word counts as below value */
    expect_wait_released(waiter, writer, dev, UINT64_MAX - 9, 5, ACL_STREAM_WAIT_VALUE_GEQ, UINT64_MAX, 5);
    /* a value already met: no wait */
    write_word(dev, 9);
    CT_OK(aclrtValueWait(dev, 9, ACL_STREAM_WAIT_VALUE_EQ, waiter));
    EXPECT_STREAM_DRAINS(waiter);
    CT_OK(aclrtDestroyStream(waiter));
    CT_OK(aclrtDestroyStream(writer));
    CT_OK(aclrtFree(dev));
    acl_down();
}

/* value_writer DIR: imports the case's word and writes 7 to it with aclrtValueWrite. */
CT_ROLE(value_writer)
{
    const char *dir = argv[0];
    acl_up(0);
    char key[EXPORT_KEY_LEN] = {0};
    await_file(dir, "key", key, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    void *word = NULL;
    CT_OK(aclrtIpcMemImportByKey(&word, key, 0));
    aclrtStream s = stream_new();
    await_flag(dir, "waiting", PEER_TIMEOUT_MS);
    CT_OK(aclrtValueWrite(word, 7, 0, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtIpcMemClose(key));
    acl_down();
    return 0;
}

/* A value wait released by another process's aclrtValueWrite on shared memory. */
CT_CASE(stream_ext_value_wait_across_processes)
{
    CT_SOURCE("11-09_stream_memory_operation.md:49, 105 (aclrtValueWrite, aclrtValueWait)");
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    unsigned char *dev = dev_alloc(PAGE);
    CT_OK(aclrtMemset(dev, PAGE, 0, PAGE));
    char key[EXPORT_KEY_LEN] = {0};
    CT_OK(aclrtIpcMemGetExportKey(dev, PAGE, key, EXPORT_KEY_LEN, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    declare_key_owned(key);
    const char *args[] = {dir, NULL};
    pid_t peer = spawn_role("value_writer", args, NULL);
    publish_bytes(dir, "key", key, strlen(key));
    CT_OK(aclrtValueWait(dev, 7, ACL_STREAM_WAIT_VALUE_EQ, s));
    EXPECT_STREAM_BLOCKED(s);
    publish_flag(dir, "waiting");
    EXPECT_STREAM_DRAINS(s);
    CT_EQ(7, read_word(dev));
    expect_exit(peer, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtIpcMemClose(key));
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

static aclrtMemcpyBatchAttr batch_attr(aclrtMemLocationType dst, uint32_t dst_id, aclrtMemLocationType src,
                                       uint32_t src_id)
{
    aclrtMemcpyBatchAttr a;
    memset(&a, 0, sizeof a);
    a.dstLoc.type = dst;
    a.dstLoc.id = dst_id;
    a.srcLoc.type = src;
    a.srcLoc.id = src_id;
    return a;
}

/* memory.cpp:1692-1752, 1814-1823 (acl: 100000), api_error.cc:7298-7333 (rt: 107000),
 * api_impl.cc:8760-8830 (each pair's locations, H2D and D2H only, *failIndex). */
CT_CASE(stream_ext_memcpy_batch)
{
    acl_up(0);
    unsigned char *d0 = dev_alloc(PAGE), *d1 = dev_alloc(PAGE);
    unsigned char h0[64], h1[64];
    memset(h0, 0xA1, sizeof h0);
    memset(h1, 0xB2, sizeof h1);
    void *dsts[2] = {d0, h1}, *srcs[2] = {h0, d1};
    size_t maxs[2] = {PAGE, sizeof h1}, sizes[2] = {64, 64}, zero[2] = {0, 0};
    aclrtMemcpyBatchAttr attrs[2] = {batch_attr(ACL_MEM_LOCATION_TYPE_DEVICE, 0, ACL_MEM_LOCATION_TYPE_HOST, 0),
                                     batch_attr(ACL_MEM_LOCATION_TYPE_HOST, 0, ACL_MEM_LOCATION_TYPE_DEVICE, 0)};
    size_t idx[2] = {0, 1}, fail = 12345;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 2, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, NULL, 2, attrs, idx, 2, &fail));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 0, attrs, idx, 2, &fail));
    CT_OK(aclrtMemcpyBatch(NULL, NULL, NULL, zero, 2, NULL, NULL, 0, &fail)); /* all sizes 0 */
    CT_EQ(SIZE_MAX, fail);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, NULL, idx, 2, &fail));
    size_t small[2] = {PAGE, 63};
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, small, srcs, sizes, 2, attrs, idx, 2, &fail));
    attrs[1].rsv[3] = 1;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 2, &fail));
    attrs[1].rsv[3] = 0;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 0, &fail));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 1, attrs, idx, 2, &fail));
    size_t bad_idx[2] = {1, 1};
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, bad_idx, 2, &fail));
    size_t flat[2] = {0, 0};
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, flat, 2, &fail));
    CT_EQ(SIZE_MAX, fail);
    /* pair 1's attribute says device 1 but d1 is on device 0: fails at index 1, nothing copied */
    attrs[1].srcLoc.id = 1;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 2, &fail));
    CT_EQ(1, fail);
    attrs[1].srcLoc.id = 0;
    /* host to host: only H2D and D2H */
    void *hh_dst[1] = {h1}, *hh_src[1] = {h0};
    aclrtMemcpyBatchAttr hh = batch_attr(ACL_MEM_LOCATION_TYPE_HOST, 0, ACL_MEM_LOCATION_TYPE_HOST, 0);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyBatch(hh_dst, maxs, hh_src, sizes, 1, &hh, idx, 1, &fail));
    CT_EQ(0, fail);
    CT_OK(aclrtMemset(d1, PAGE, 0xC3, PAGE));
    CT_OK(aclrtMemcpyBatch(dsts, maxs, srcs, sizes, 2, attrs, idx, 2, &fail));
    CT_EQ(SIZE_MAX, fail);
    unsigned char out[64];
    CT_OK(aclrtMemcpy(out, 64, d0, 64, ACL_MEMCPY_DEVICE_TO_HOST));
    for (int i = 0; i < 64; i++)
        if (out[i] != 0xA1 || h1[i] != 0xC3)
            CT_FAIL("byte %d: device 0x%02x (expected 0xA1), host 0x%02x (expected 0xC3)", i, out[i], h1[i]);
    CT_OK(aclrtFree(d0));
    CT_OK(aclrtFree(d1));
    acl_down();
}

/* device.cpp:492-499, api_error.cc:6829-6832, api_impl.cc:8056-8063;
 * memory.cpp:935-961 (aclrtDeviceDisablePeerAccess); notify.cpp:70-80 + api_impl.cc:4945-4952. */
CT_CASE(stream_ext_resources_peer_access_and_notify_id)
{
    acl_init_only();
    uint32_t v = 0;
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtDeviceDisablePeerAccess(1));
    acl_down();
    acl_up(0);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtGetResInCurrentThread((aclrtDevResLimitType)2, &v));
    CT_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_CUBE_CORE, &v));
    if (ct_library_is_stub(NULL)) /* stub rule (contract 11.7): an A2's 24 cube and 48 vector cores */
        CT_EQ(24, v);
    CT_OK(aclrtGetResInCurrentThread(ACL_RT_DEV_RES_VECTOR_CORE, &v));
    if (ct_library_is_stub(NULL))
        CT_EQ(48, v);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDeviceDisablePeerAccess(0));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(-1));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceDisablePeerAccess(64));
    if (ct_library_is_stub(NULL)) { /* stub rule (contract 8.7): peer access is always possible */
        CT_OK(aclrtDeviceEnablePeerAccess(1, 0));
        CT_OK(aclrtDeviceDisablePeerAccess(1));
        CT_OK(aclrtDeviceDisablePeerAccess(1)); /* never state on the stub (rtDisableP2P: the driver's) */
    }
    aclrtNotify n = NULL, m = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    CT_OK(aclrtCreateNotify(&m, ACL_NOTIFY_DEFAULT));
    uint32_t idn = 0, idn2 = 1, idm = 0;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(NULL, &idn));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetNotifyId(n, NULL));
    CT_OK(aclrtGetNotifyId(n, &idn));
    CT_OK(aclrtGetNotifyId(n, &idn2));
    CT_OK(aclrtGetNotifyId(m, &idm));
    CT_TRUE(idn == idn2 && idn != idm);
    CT_OK(aclrtDestroyNotify(m));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtGetNotifyId(m, &idm));
    CT_OK(aclrtDestroyNotify(n));
    acl_down();
}

/* device_ids <expected count> [user logic]...: with the case's ASCEND_RT_VISIBLE_DEVICES,
 * aclrtGetDeviceCount answers count (-1: 207004, the variable names no usable device) and
 * each user id maps to its logic id and back. */
CT_ROLE(device_ids)
{
    acl_init_only();
    long expected = strtol(argv[0], NULL, 10);
    uint32_t count = 0;
    int32_t out = -1;
    if (expected < 0) {
        CT_CODE(ACL_ERROR_RT_NO_DEVICE, aclrtGetDeviceCount(&count));
        CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice(0));
        CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLogicDevIdByUserDevId(0, &out));
        acl_down();
        return 0;
    }
    CT_OK(aclrtGetDeviceCount(&count));
    CT_EQ(expected, count);
    for (int i = 1; argv[i] && argv[i + 1]; i += 2) {
        int32_t user = (int32_t)strtol(argv[i], NULL, 10), logic = (int32_t)strtol(argv[i + 1], NULL, 10);
        CT_OK(aclrtGetLogicDevIdByUserDevId(user, &out));
        CT_EQ(logic, out);
        CT_OK(aclrtGetUserDevIdByLogicDevId(logic, &out));
        CT_EQ(user, out);
        CT_OK(aclrtGetPhyDevIdByLogicDevId(user, &out)); /* CANN converts the argument as a user id */
        CT_EQ(logic, out);
        CT_OK(aclrtGetLogicDevIdByPhyDevId(logic, &out));
        CT_EQ(user, out);
    }
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLogicDevIdByUserDevId((int32_t)count, &out));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtSetDevice((int32_t)count));
    acl_down();
    return 0;
}

static void expect_ids(const char *visible, const char *const *args)
{
    char env[96];
    snprintf(env, sizeof env, "ASCEND_RT_VISIBLE_DEVICES=%s", visible);
    const char *envs[] = {"ACL_STUB_DEVICE_COUNT=8", env, NULL};
    ct_note("ASCEND_RT_VISIBLE_DEVICES=%s", visible);
    expect_exit(spawn_role("device_ids", args, envs), 0, PEER_TIMEOUT_MS);
}

/* runtime.cc:4725-4768 (SplitString), 4951-5070 (GetVisibleDevices), 4799-4850 (the
 * conversions), api_impl.cc:3403-3440 (GetDeviceCount: 207004 when unusable),
 * api_c_device.cc:285-322 (negative ids: 107000), device.cpp:515-560 (NULL: 100000). */
CT_STUB_CASE(stream_ext_device_ids_follow_ascend_rt_visible_devices,
             "ACL_STUB_DEVICE_COUNT, physical id == logic id (contract 11.6, 11.7)")
{
    const char *two[] = {"2", "0", "2", "1", "5", NULL};
    expect_ids("2,5", two);
    const char *stop_at_bad_char[] = {"1", "0", "3", NULL};
    expect_ids("3,x,4", stop_at_bad_char);
    const char *stop_at_double_comma[] = {"2", "0", "0", "1", "6", NULL};
    expect_ids("0,6,,7", stop_at_double_comma);
    const char *stop_out_of_range[] = {"1", "0", "7", NULL};
    expect_ids("7,8,1", stop_out_of_range);
    const char *none[] = {"-1", NULL};
    expect_ids("3,1", none);  /* not ascending */
    expect_ids("2,2", none);  /* duplicated */
    expect_ids("", none);     /* names nothing */
    expect_ids("x1", none);   /* does not start with a digit */
    expect_ids("99", none);   /* out of range */
    acl_up(0);
    int32_t out = -1;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetLogicDevIdByUserDevId(0, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLogicDevIdByUserDevId(-1, &out));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtGetUserDevIdByLogicDevId(-1, &out));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtGetPhyDevIdByLogicDevId(-1, &out));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtGetLogicDevIdByPhyDevId(-1, &out));
    CT_OK(aclrtGetPhyDevIdByLogicDevId(3, &out)); /* unset: every id is itself */
    CT_EQ(3, out);
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtGetLogicDevIdByPhyDevId(64, &out));
    acl_down();
}

/* soc_name <expected or "refused">: aclrtGetSocName with the case's ACL_STUB_SOC_NAME. */
CT_ROLE(soc_name)
{
    if (strcmp(argv[0], "refused") == 0) {
        CT_CODE(ACL_ERROR_INVALID_PARAM, aclInit(NULL));
        const char *msg = aclGetRecentErrMsg();
        if (!msg || !strstr(msg, "ACL_STUB_SOC_NAME"))
            CT_FAIL("aclInit failed but does not name ACL_STUB_SOC_NAME: %s", msg ? msg : "(null)");
        return 0;
    }
    CT_TRUE(aclrtGetSocName() == NULL); /* before aclInit */
    acl_init_only();
    const char *name = aclrtGetSocName();
    CT_TRUE(name != NULL);
    if (strcmp(name, argv[0]) != 0)
        CT_FAIL("aclrtGetSocName() is \"%s\", expected \"%s\"", name, argv[0]);
    acl_down();
    return 0;
}

/* acl_rt_impl_base.cpp:189-199 (NULL when unknown); the value is ACL_STUB_SOC_NAME
 * (stub rule, default an Atlas A2 SoC). */
CT_STUB_CASE(stream_ext_soc_name_is_configurable, "ACL_STUB_SOC_NAME, a stub setting (contract 11.7)")
{
    const char *dflt[] = {"Ascend910B1", NULL};
    expect_exit(spawn_role("soc_name", dflt, NULL), 0, PEER_TIMEOUT_MS);
    const char *a3_env[] = {"ACL_STUB_SOC_NAME=Ascend910_9391", NULL};
    const char *a3[] = {"Ascend910_9391", NULL};
    expect_exit(spawn_role("soc_name", a3, a3_env), 0, PEER_TIMEOUT_MS);
    const char *bad_env[] = {"ACL_STUB_SOC_NAME=Ascend 910", NULL};
    const char *refused[] = {"refused", NULL};
    expect_exit(spawn_role("soc_name", refused, bad_env), 0, PEER_TIMEOUT_MS);
}
