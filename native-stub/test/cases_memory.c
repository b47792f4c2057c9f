/*
 * cases_memory.c - device memory and copies as stream tasks, and IPC memory
 * (export, whitelist, import, close order, reclaim after death).
 * Rules: docs/acl-contract.md section 8.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define PAGE 4096u

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CT_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_TRUE(p != NULL);
    return p;
}

static void export_key(void *p, size_t size, uint64_t flags, char key[EXPORT_KEY_LEN])
{
    memset(key, 0, EXPORT_KEY_LEN);
    CT_OK(aclrtIpcMemGetExportKey(p, size, key, EXPORT_KEY_LEN, flags));
    CT_TRUE(key[0] != '\0' && strlen(key) <= 64);
    declare_key_owned(key);
}

/* Expects all count bytes at dev (device memory) to equal value. */
static void expect_device_bytes(const void *dev, size_t count, unsigned char value)
{
    unsigned char *host = malloc(count);
    CT_TRUE(host != NULL);
    CT_OK(aclrtMemcpy(host, count, dev, count, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < count; i++)
        if (host[i] != value)
            CT_FAIL("byte %zu is 0x%02x, expected 0x%02x", i, host[i], value);
    free(host);
}

static void fill_device(void *dev, size_t count, unsigned char value)
{
    unsigned char *host = malloc(count);
    CT_TRUE(host != NULL);
    memset(host, value, count);
    CT_OK(aclrtMemcpy(dev, count, host, count, ACL_MEMCPY_HOST_TO_DEVICE));
    free(host);
}

static void no_device_malloc(void *arg)
{
    void *p = NULL;
    *(int *)arg = aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST);
}

/* A thread without a current device: a zero-byte copy is still a no-op, a real one needs the device. */
static void no_device_memcpy(void *arg)
{
    int *rc = arg;
    char a[8] = {0}, b[8] = {0};
    rc[0] = aclrtMemcpy(a, 8, b, 0, ACL_MEMCPY_HOST_TO_HOST);
    rc[1] = aclrtMemcpy(a, 8, b, 8, ACL_MEMCPY_HOST_TO_HOST);
}

/* ------------------------------------------------------------ device memory */

CT_STUB_CASE(memory_malloc_free_rules, "frees of unknown or freed pointers (contract 8.7)")
{
    acl_up(0);
    void *p = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMalloc(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_TRUE(p == NULL);
    int rc = -1;
    run_in_thread(no_device_malloc, &rc);
    CT_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc);
    p = dev_alloc(100);
    CT_TRUE(((uintptr_t)p % PAGE) == 0); /* page-aligned, exportable */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtFree(NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFree((char *)p + 1));
    CT_OK(aclrtFree(p));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(p)); /* double free */
    void *h = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(NULL, 8));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocHost(&h, 0));
    CT_OK(aclrtMallocHost(&h, 8));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(h)); /* host memory is not device memory */
    CT_OK(aclrtFreeHost(h));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFreeHost(h));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtFreeHost(NULL));
    acl_down();
}

CT_STUB_CASE(memory_copy_checks_and_round_trip, "copies check addresses against the kind (contract 8.7)")
{
    acl_up(0);
    unsigned char host[256], back[256];
    for (int i = 0; i < 256; i++)
        host[i] = (unsigned char)i;
    char *a = dev_alloc(256), *b = dev_alloc(256);
    /* CANN's order: count 0 first (a no-op), then NULLs, kind, sizes */
    CT_OK(aclrtMemcpy(NULL, 0, NULL, 0, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(NULL, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(a, 256, NULL, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpy(a, 256, host, 256, (aclrtMemcpyKind)9));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(a, 0, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(a, 128, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    /* the kind must match the addresses */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(back, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(a, 256, host, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(a, 256, b, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    /* a device range must fit in its allocation (a 256-byte malloc holds one page) */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(a + PAGE - 8, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    int no_device[2] = {-1, -1};
    run_in_thread(no_device_memcpy, no_device);
    CT_EQ(ACL_SUCCESS, no_device[0]);
    CT_EQ(ACL_ERROR_RT_CONTEXT_NULL, no_device[1]);
    CT_OK(aclrtMemcpy(a, 256, host, 256, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_OK(aclrtMemcpy(b, 256, a, 256, ACL_MEMCPY_DEVICE_TO_DEVICE));
    memset(back, 0, sizeof back);
    CT_OK(aclrtMemcpy(back, 256, b, 256, ACL_MEMCPY_DEFAULT)); /* DEFAULT: the addresses decide */
    CT_TRUE(memcmp(host, back, 256) == 0);
    CT_OK(aclrtFree(a));
    CT_OK(aclrtFree(b));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(back, 256, b, 256, ACL_MEMCPY_DEVICE_TO_HOST)); /* freed */
    acl_down();
}

CT_CASE(memory_async_copies_run_in_stream_order)
{
    acl_up(0);
    aclrtStream s = stream_new();
    char *dev = dev_alloc(PAGE);
    unsigned char *host = NULL;
    CT_OK(aclrtMallocHost((void **)&host, PAGE));
    memset(host, 0x11, PAGE);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(NULL, PAGE, 0, PAGE, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(dev, 16, 0, PAGE, s));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(dev + 8, PAGE, 0, PAGE, s));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0xAB, PAGE, s));
    CT_OK(aclrtMemcpyAsync(host, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_STREAM_BLOCKED(s);
    for (unsigned i = 0; i < PAGE; i++)
        if (host[i] != 0x11)
            CT_FAIL("host byte %u changed to 0x%02x while the copy was queued behind the gate", i, host[i]);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    for (unsigned i = 0; i < PAGE; i++)
        if (host[i] != 0xAB)
            CT_FAIL("host byte %u is 0x%02x after the copy, expected 0xab", i, host[i]);
    CT_OK(aclrtFreeHost(host));
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_STUB_CASE(memory_free_with_a_queued_copy_keeps_it_mapped,
             "freed memory stays mapped for queued copies (contract 8.7)")
{
    acl_up(0);
    aclrtStream s = stream_new();
    char *a = dev_alloc(PAGE), *b = dev_alloc(PAGE);
    struct gate *g = gate_hold(s);
    CT_OK(aclrtMemcpyAsync(b, PAGE, a, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CT_OK(aclrtFree(a));
    CT_OK(aclrtFree(b));
    /* freed for the API at once ... */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(a));
    gate_release(g);
    EXPECT_STREAM_DRAINS(s); /* ... but the queued copy still ran on mapped memory (ASan would see it) */
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(memory_async_copy_needs_a_stream_of_the_current_device)
{
    acl_up(0);
    aclrtStream s0 = stream_new();
    char *dev = dev_alloc(PAGE);
    CT_OK(aclrtSetDevice(1));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtMemsetAsync(dev, PAGE, 0, PAGE, s0));
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtMemsetAsync(dev, PAGE, 7, PAGE, s0));
    EXPECT_STREAM_DRAINS(s0);
    expect_device_bytes(dev, PAGE, 7);
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s0));
    acl_down();
}

/* ------------------------------------- check order and codes (issue #19) */

/* aclMallocMemInner (src/acl/aclrt_impl/memory.cpp:291-303, 309-318): size plus
 * 32 bytes of alignment plus the padding (32 by default, none for HUGE1G)
 * overflowing size_t is ACL_ERROR_INVALID_PARAM in the acl layer. */
CT_CASE(memory_malloc_size_overflow_is_100000)
{
    acl_up(0);
    void *p = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, SIZE_MAX, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, SIZE_MAX - 63, ACL_MEM_MALLOC_NORMAL_ONLY));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&p, SIZE_MAX - 31, ACL_MEM_MALLOC_HUGE1G_ONLY));
    /* no overflow: the allocation itself fails */
    if (ct_library_is_stub(NULL)) /* stub rule (contract 8.2): a failed allocation's code is the driver's */
        CT_CODE(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMalloc(&p, SIZE_MAX - 32, ACL_MEM_MALLOC_HUGE1G_ONLY));
    CT_TRUE(p == NULL);
    acl_down();
}

/* rtMemcpyAsync validates the stream handle (RT_VALIDATE_AND_UNWRAP_OBJECT,
 * src/runtime/api/api_c.cc:1103-1114) before ApiErrorDecorator::MemcpyAsync
 * judges count > destMax; rtMemsetAsync the same (api_c.cc:989-1003). The acl
 * layer's count 0, NULL and kind checks still come first (memory.cpp:684-700). */
CT_CASE(memory_async_stream_handle_before_count)
{
    acl_up(0);
    char *a = dev_alloc(PAGE), *b = dev_alloc(PAGE);
    aclrtStream gone = stream_new();
    CT_OK(aclrtDestroyStream(gone));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemcpyAsync(b, 16, a, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, gone));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtMemsetAsync(a, 16, 0, PAGE, gone));
    CT_OK(aclrtMemcpyAsync(b, 16, a, 0, ACL_MEMCPY_DEVICE_TO_DEVICE, gone));
    CT_OK(aclrtMemsetAsync(a, 16, 0, 0, gone));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(NULL, 16, a, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, gone));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemcpyAsync(b, 16, a, PAGE, (aclrtMemcpyKind)9, gone));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemsetAsync(NULL, 16, 0, PAGE, gone));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(b, 16, a, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemsetAsync(a, 16, 0, PAGE, NULL));
    CT_OK(aclrtFree(a));
    CT_OK(aclrtFree(b));
    acl_down();
}

/* ApiErrorDecorator::MemcpyAsync refuses RT_MEMCPY_HOST_TO_HOST in EP (online)
 * mode with RT_ERROR_FEATURE_NOT_SUPPORT (api_error.cc:2245-2248; docs
 * 11-03_memory_copy_and_set.md:160), after the location checks; the stub is an
 * EP server. DEFAULT between two host buffers is host to host too. The
 * synchronous aclrtMemcpy still copies host to host. */
CT_STUB_CASE(memory_async_host_to_host_is_207000, "the stub is an EP server (contract 8.7)")
{
    acl_up(0);
    char x[64] = "source", y[64] = {0};
    char *dev = dev_alloc(PAGE);
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyAsync(y, 64, x, 64, ACL_MEMCPY_HOST_TO_HOST, NULL));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtMemcpyAsync(y, 64, x, 64, ACL_MEMCPY_DEFAULT, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(y, 64, dev, 64, ACL_MEMCPY_HOST_TO_HOST, NULL));
    CT_TRUE(y[0] == 0);
    CT_OK(aclrtMemcpy(y, 64, x, 64, ACL_MEMCPY_HOST_TO_HOST));
    CT_TRUE(strcmp(y, "source") == 0);
    CT_OK(aclrtFree(dev));
    acl_down();
}

/* aclrtDeviceCanAccessPeerImpl has no NULL check (memory.cpp:881-903): equal
 * ids (100000), then the rt decorator refuses a NULL output with
 * RT_ERROR_INVALID_VALUE, 107000 (api_error.cc:3393-3394). */
CT_CASE(memory_can_access_peer_null_output_is_107000)
{
    acl_up(0);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtDeviceCanAccessPeer(NULL, 0, 1));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDeviceCanAccessPeer(NULL, 1, 1));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtDeviceCanAccessPeer(NULL, 0, 99));
    acl_down();
}

/* The acl layer passes len on as uint32_t (memory.cpp:1782) and num as int32_t
 * (memory.cpp:1866, notify.cpp:127); the runtime then refuses len 0 and
 * num <= 0 (api_error.cc IpcSetMemoryName, SetIpcMemPid, SetIpcNotifyPid). */
CT_CASE(memory_ipc_len_and_num_are_cast_to_32_bits)
{
    acl_up(0);
    char *dev = dev_alloc(PAGE);
    char key[EXPORT_KEY_LEN];
    const size_t wrap = (size_t)1 << 32;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(dev, PAGE, key, wrap, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(dev, PAGE, key, wrap + 16, 0));
    export_key(dev, PAGE, 0, key);
    int32_t pids[2] = {(int32_t)getpid(), (int32_t)getpid()};
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, pids, wrap));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, pids, (size_t)1 << 31));
    CT_OK(aclrtIpcMemSetImportPid(key, pids, wrap + 2)); /* 2 pids */
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    char nkey[EXPORT_KEY_LEN];
    CT_OK(aclrtNotifyGetExportKey(n, nkey, EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    declare_key_owned(nkey);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, pids, wrap));
    CT_OK(aclrtNotifySetImportPid(n, pids, wrap + 1));
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtIpcMemClose(key));
    CT_OK(aclrtFree(dev));
    acl_down();
}

/* aclrtNotifyGetExportKeyImpl passes len on as uint32_t (src/acl/aclrt_impl/notify.cpp:100):
 * 2^32 arrives as 0, which the runtime refuses (107000); rtsNotifyImportByKey
 * keeps the low 32 bits of flags (src/runtime/api/api_c_event.cc:205-208): 2^32
 * imports as 0 does. */
CT_STUB_CASE(notify_export_len_and_import_flags_are_cut_to_32_bits,
             "key buffers under 65 bytes, the exporter imports its own key (contract 8.7)")
{
    acl_up(0);
    const size_t wrap = (size_t)1 << 32;
    aclrtNotify n = NULL, imported = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    char key[EXPORT_KEY_LEN];
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, wrap, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, wrap + 16, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    CT_OK(aclrtNotifyGetExportKey(n, key, wrap + EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    declare_key_owned(key);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, key, wrap + 4));
    CT_OK(aclrtNotifyImportByKey(&imported, key, (uint64_t)wrap));
    CT_OK(aclrtDestroyNotify(imported));
    CT_OK(aclrtDestroyNotify(n));
    acl_down();
}

static void no_device_huge_malloc(void *arg)
{
    void *p = NULL;
    *(int *)arg = aclrtMalloc(&p, SIZE_MAX / 2 + 1, ACL_MEM_MALLOC_HUGE_FIRST);
}

/* Only the overflow of size + alignment is checked before the context
 * (memory.cpp:291-303; the decorator checks NULL only, api_error.cc:1893-1906):
 * ApiImpl::DevMalloc checks the current context (api_impl.cc:2334-2338)
 * before the driver sees the size, so a huge size without a device is 107002. */
CT_CASE(memory_malloc_checks_the_context_before_the_size)
{
    acl_init_only();
    int rc = -1;
    run_in_thread(no_device_huge_malloc, &rc);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, rc);
    acl_down();
}

struct async_range_call {
    char *dev;
    aclrtStream stream;
    int memset_rc, memcpy_rc;
};

static void async_past_the_end(void *arg)
{
    struct async_range_call *c = arg;
    c->memset_rc = aclrtMemsetAsync(c->dev + PAGE - 8, 64, 0, 64, c->stream);
    c->memcpy_rc = aclrtMemcpyAsync(c->dev, 64, c->dev + PAGE - 8, 64, ACL_MEMCPY_DEVICE_TO_DEVICE, c->stream);
}

/* ApiImpl::MemsetAsync and MemcpyAsync check the current context (107002) and
 * the stream's context (107003) (api_impl.cc:3215-3228, 2867-2883) and have no
 * range check (the decorator neither, api_error.cc:3128-3140): a range past its
 * allocation (the stub's rule, 107000) is judged only after both. */
CT_CASE(memory_async_context_before_the_range_rule)
{
    acl_up(0);
    char *dev = dev_alloc(PAGE);
    aclrtStream s0 = stream_new();
    struct async_range_call c = {.dev = dev, .stream = NULL};
    run_in_thread(async_past_the_end, &c); /* a thread with no context, the default stream */
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, c.memset_rc);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, c.memcpy_rc);
    CT_OK(aclrtSetDevice(1)); /* s0 belongs to device 0's context */
    c.stream = s0;
    async_past_the_end(&c);
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, c.memset_rc);
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, c.memcpy_rc);
    CT_OK(aclrtSetDevice(0));
    if (ct_library_is_stub(NULL)) { /* stub rule (contract 8.7): no range check in CANN, the NPU would write past */
        async_past_the_end(&c);
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, c.memset_rc);
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, c.memcpy_rc);
    }
    CT_OK(aclrtDestroyStream(s0));
    CT_OK(aclrtFree(dev));
    acl_down();
}

static void no_device_memset(void *arg)
{
    char buf[8];
    *(int *)arg = aclrtMemset(buf, 8, 0, 8);
}

/* aclrtMemsetImpl (memory.cpp:670-682): count 0 first, then NULL; then
 * ApiImpl::MemSetSync needs the current context (api_impl.cc:3202-3213) and
 * sets the memory on the calling thread, without waiting for any stream. */
CT_CASE(memory_synchronous_memset)
{
    acl_up(0);
    aclrtStream s = stream_new();
    char *dev = dev_alloc(PAGE);
    CT_OK(aclrtMemset(NULL, 0, 0, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemset(NULL, PAGE, 0, PAGE));
    int rc = -1;
    run_in_thread(no_device_memset, &rc);
    CT_EQ(ACL_ERROR_RT_CONTEXT_NULL, rc);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(dev, 16, 0, PAGE));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemset(dev + 8, PAGE, 0, PAGE));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0x22, PAGE, s));
    CT_OK(aclrtMemset(dev, PAGE, 0x1C5, PAGE)); /* each byte is value & 0xFF, now */
    expect_device_bytes(dev, PAGE, 0xC5);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    expect_device_bytes(dev, PAGE, 0x22);
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

struct delayed_release {
    struct gate *gate;
    uint64_t at; /* when the gate opened */
};

static void *release_after_probe(void *arg)
{
    struct delayed_release *r = arg;
    sleep_ms(BLOCK_PROBE_MS);
    r->at = gate_release(r->gate);
    return NULL;
}

/* ApiErrorDecorator::MemcpyAsync (api_error.cc:2256-2270; docs
 * 11-03_memory_copy_and_set.md:140): a D2H or H2D copy whose host side is
 * pageable (malloc, not aclrtMallocHost; JudgeIsInvolvePageableMemory,
 * api_error.cc:2789-2802) becomes StreamSynchronize(stm) plus a synchronous
 * copy: the call returns after the copy, so after everything queued before it.
 * HOST_TO_BUF_TO_DEVICE takes MemcpyAsyncCheckExLocation and stays queued. */
CT_CASE(memory_async_copy_of_pageable_memory_waits_for_its_stream)
{
    acl_up(0);
    aclrtStream s = stream_new();
    char *dev = dev_alloc(PAGE);
    unsigned char *pageable = malloc(PAGE), *pinned = NULL;
    CT_TRUE(pageable != NULL);
    CT_OK(aclrtMallocHost((void **)&pinned, PAGE));
    memset(pageable, 0x11, PAGE);
    memset(pinned, 0x11, PAGE);
    struct delayed_release rel = {gate_hold(s), 0};
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0x44, PAGE, s));
    CT_OK(aclrtMemcpyAsync(pinned, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CT_TRUE(pinned[0] == 0x11 && pinned[PAGE - 1] == 0x11); /* pinned memory: queued behind the gate */
    pthread_t releaser;
    CT_TRUE(pthread_create(&releaser, NULL, release_after_probe, &rel) == 0);
    CT_OK(aclrtMemcpyAsync(pageable, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    uint64_t returned = now_ns();
    CT_TRUE(pthread_join(releaser, NULL) == 0);
    CT_TRUE(rel.at != 0);
    EXPECT_AFTER(returned, rel.at);
    for (unsigned i = 0; i < PAGE; i++)
        if (pageable[i] != 0x44 || pinned[i] != 0x44)
            CT_FAIL("byte %u is 0x%02x (pageable) / 0x%02x (pinned) when the call returned, expected 0x44", i,
                    pageable[i], pinned[i]);
    memset(pageable, 0x55, PAGE);
    CT_OK(aclrtMemcpyAsync(dev, PAGE, pageable, PAGE, ACL_MEMCPY_HOST_TO_DEVICE, s));
    expect_device_bytes(dev, PAGE, 0x55);
    struct gate *g = gate_hold(s);
    memset(pageable, 0x66, PAGE);
    CT_OK(aclrtMemcpyAsync(dev, PAGE, pageable, PAGE, ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE, s));
    expect_device_bytes(dev, PAGE, 0x55);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    expect_device_bytes(dev, PAGE, 0x66);
    free(pageable);
    CT_OK(aclrtFreeHost(pinned));
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* pageable_mode <init code>: with ACL_STUB_PAGEABLE as the case set it, a
 * pageable device-to-host copy is queued (async) or aclInit refuses the value. */
CT_ROLE(pageable_mode)
{
    if (argc != 1)
        CT_FAIL("usage: pageable_mode <init code>");
    int expected_init = atoi(argv[0]);
    CT_CODE(expected_init, aclInit(NULL));
    if (expected_init != 0) {
        const char *msg = aclGetRecentErrMsg();
        if (!msg || !strstr(msg, "ACL_STUB_PAGEABLE"))
            CT_FAIL("aclInit failed but does not name ACL_STUB_PAGEABLE: %s", msg ? msg : "(null)");
        return 0;
    }
    CT_OK(aclrtSetDevice(0));
    aclrtStream s = stream_new();
    char *dev = dev_alloc(PAGE);
    unsigned char *pageable = calloc(1, PAGE);
    CT_TRUE(pageable != NULL);
    CT_OK(aclrtMemset(dev, PAGE, 0x77, PAGE));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtMemcpyAsync(pageable, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    CT_TRUE(pageable[0] == 0); /* queued behind the gate */
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    CT_TRUE(pageable[0] == 0x77 && pageable[PAGE - 1] == 0x77);
    free(pageable);
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclFinalize());
    return 0;
}

/* ACL_STUB_PAGEABLE=async: the other driver of api_error.cc:2805-2826 (no
 * GET_USER_MALLOC_ATTR), where CANN keeps the copy asynchronous. */
CT_STUB_CASE(memory_pageable_env_async_queues_the_copy_and_bad_values_fail_aclInit,
             "ACL_STUB_PAGEABLE, a stub setting (contract 8.7)")
{
    const char *async_env[] = {"ACL_STUB_PAGEABLE=async", NULL};
    const char *ok[] = {"0", NULL};
    expect_exit(spawn_role("pageable_mode", ok, async_env), 0, PEER_TIMEOUT_MS);
    const char *bad_env[] = {"ACL_STUB_PAGEABLE=later", NULL};
    const char *refused[] = {"100000", NULL};
    expect_exit(spawn_role("pageable_mode", refused, bad_env), 0, PEER_TIMEOUT_MS);
}

/* ---------------------------------------------------------------- IPC memory */

CT_STUB_CASE(ipc_mem_export_rules, "whole-page exports, one key per allocation (contract 8.7)")
{
    acl_up(0);
    char *p = dev_alloc(2 * PAGE);
    char key[EXPORT_KEY_LEN];
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(NULL, PAGE, key, EXPORT_KEY_LEN, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemGetExportKey(p, PAGE, NULL, EXPORT_KEY_LEN, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(p, 0, key, EXPORT_KEY_LEN, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(p, PAGE, key, 0, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(p, PAGE, key, EXPORT_KEY_LEN, 2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(p, PAGE, key, 16, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(p, 100, key, EXPORT_KEY_LEN, 0)); /* unaligned size */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemGetExportKey(p, 3 * PAGE, key, EXPORT_KEY_LEN, 0)); /* too large */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtIpcMemGetExportKey(p + PAGE, PAGE, key, EXPORT_KEY_LEN, 0)); /* not a base */
    export_key(p, 2 * PAGE, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, key);
    int32_t pid = 12345;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(NULL, &pid, 1));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemSetImportPid(key, NULL, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, &pid, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid("cannstub-mem-nonsense", &pid, 1));
    CT_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
    CT_OK(aclrtIpcMemSetImportPid(key, &pid, 1)); /* a duplicate takes no room */
    int32_t bad[2] = {777, 0};
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemSetImportPid(key, bad, 2));
    int32_t many[64];
    for (int i = 0; i < 64; i++)
        many[i] = 1000 + i; /* with 12345 and 777 already listed: one too many */
    CT_CODE(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtIpcMemSetImportPid(key, many, 64));
    void *q = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(NULL, key, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemImportByKey(&q, NULL, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&q, key, 2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&q, "not-a-key", 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&q, "cannstub-mem-00000000000000ff-3000", 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtIpcMemClose(NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose("not-a-key"));
    CT_OK(aclrtIpcMemClose(key));
    CT_OK(aclrtFree(p));
    CT_TRUE(!key_object_exists(key));
    acl_down();
}

/* Expects an import of key, with its character at i replaced by c, to fail
 * with 107000 for memory (mem 1) or a notify (mem 0). */
static void expect_bent_key_refused(const char *key, size_t i, char c, int mem)
{
    char bent[EXPORT_KEY_LEN];
    memcpy(bent, key, EXPORT_KEY_LEN);
    bent[i] = c;
    void *q = NULL;
    aclrtNotify n = NULL;
    if (mem)
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&q, bent, 0));
    else
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&n, bent, 0));
    CT_TRUE(q == NULL && n == NULL);
}

/* An import reads the whole key: a live object's key with another prefix,
 * a cut or lengthened tail, or a key of the other kind names nothing. */
CT_STUB_CASE(ipc_keys_of_live_objects_are_checked_whole, "unknown keys are 107000 (contract 8.7)")
{
    acl_up(0);
    char *p = dev_alloc(PAGE);
    char mem_key[EXPORT_KEY_LEN], nt_key[EXPORT_KEY_LEN];
    export_key(p, PAGE, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION, mem_key);
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    memset(nt_key, 0, sizeof nt_key);
    CT_OK(aclrtNotifyGetExportKey(n, nt_key, EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    declare_key_owned(nt_key);
    size_t mem_len = strlen(mem_key), nt_len = strlen(nt_key);
    expect_bent_key_refused(mem_key, 0, 'x', 1);           /* another prefix, same length */
    expect_bent_key_refused(nt_key, 0, 'x', 0);
    expect_bent_key_refused(nt_key, nt_len, '0', 0);       /* a digit too many */
    expect_bent_key_refused(mem_key, mem_len - 1, '\0', 1); /* a size cut short */
    char *dash = strrchr(mem_key, '-');
    CT_TRUE(dash != NULL);
    expect_bent_key_refused(mem_key, (size_t)(dash - mem_key), '\0', 1); /* no size */
    expect_bent_key_refused(mem_key, 0, mem_key[0], 0);                  /* a memory key as a notify's */
    expect_bent_key_refused(nt_key, 0, nt_key[0], 1);                    /* and the other way */
    /* the keys themselves still import */
    void *q = NULL;
    aclrtNotify imported = NULL;
    CT_OK(aclrtIpcMemImportByKey(&q, mem_key, 0));
    CT_OK(aclrtNotifyImportByKey(&imported, nt_key, 0));
    CT_OK(aclrtIpcMemClose(mem_key));
    CT_OK(aclrtDestroyNotify(imported));
    CT_OK(aclrtIpcMemClose(mem_key));
    CT_OK(aclrtFree(p));
    CT_OK(aclrtDestroyNotify(n));
    acl_down();
}

/* Import in the exporting process: a new address for the same memory; the
 * exporter's close ends new imports while existing mappings keep working. */
CT_STUB_CASE(ipc_mem_import_maps_a_new_address_and_close_order, "the exporter may import (contract 8.7)")
{
    acl_up(0);
    char *p = dev_alloc(PAGE);
    char key[EXPORT_KEY_LEN];
    export_key(p, PAGE, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, key);
    char *q = NULL, *r = NULL;
    CT_OK(aclrtIpcMemImportByKey((void **)&q, key, ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT));
    CT_OK(aclrtIpcMemImportByKey((void **)&r, key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    CT_TRUE(q != p && r != p && q != r);
    fill_device(p, PAGE, 0x5A);
    expect_device_bytes(q, PAGE, 0x5A);
    fill_device(r, PAGE, 0x3C);
    expect_device_bytes(p, PAGE, 0x3C);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFree(q)); /* imports are closed, not freed */
    CT_OK(aclrtIpcMemClose(key)); /* closes one import (q) */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(p, PAGE, q, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE));
    expect_device_bytes(r, PAGE, 0x3C);
    CT_OK(aclrtIpcMemClose(key)); /* closes r */
    CT_OK(aclrtIpcMemClose(key)); /* destroys the export */
    char *late = NULL;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey((void **)&late, key, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemClose(key)); /* nothing left to close */
    expect_device_bytes(p, PAGE, 0x3C);
    CT_OK(aclrtFree(p));
    CT_TRUE(!key_object_exists(key));
    acl_down();
}

/* mem_importer DIR: publishes its pid, expects a whitelist refusal, then
 * (once listed) imports, checks the exporter's bytes and writes its own. */
CT_ROLE(mem_importer)
{
    const char *dir = argv[0];
    acl_up(1);
    int32_t pid = 0;
    CT_OK(aclrtDeviceGetBareTgid(&pid));
    CT_EQ((int32_t)getpid(), pid);
    publish_u64(dir, "importer_pid", (uint64_t)pid);
    char key[EXPORT_KEY_LEN] = {0};
    await_file(dir, "key", key, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    void *p = NULL;
    CT_CODE(ACL_ERROR_RT_NO_PERMISSION, aclrtIpcMemImportByKey(&p, key, 0));
    CT_TRUE(p == NULL);
    publish_flag(dir, "refused");
    await_flag(dir, "listed", PEER_TIMEOUT_MS);
    CT_OK(aclrtIpcMemImportByKey(&p, key, ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    /* imported from device 0 into device 1: only async device-to-device copies */
    unsigned char host[16];
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(host, 16, p, 16, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(p, 16, host, 16, ACL_MEMCPY_HOST_TO_DEVICE));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpyAsync(host, 16, p, 16, ACL_MEMCPY_DEFAULT, NULL));
    char *local = dev_alloc(PAGE);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(local, PAGE, p, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE));
    aclrtStream s = stream_new();
    CT_OK(aclrtMemcpyAsync(local, PAGE, p, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    expect_device_bytes(local, PAGE, 0x7E);
    fill_device(local, PAGE, 0x42);
    CT_OK(aclrtMemcpyAsync(p, PAGE, local, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    publish_flag(dir, "written");
    await_flag(dir, "export_closed", PEER_TIMEOUT_MS);
    void *again = NULL;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&again, key, 0));
    CT_OK(aclrtMemcpyAsync(local, PAGE, p, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    expect_device_bytes(local, PAGE, 0x42); /* an existing import keeps working */
    fill_device(local, PAGE, 0x43);
    CT_OK(aclrtMemcpyAsync(p, PAGE, local, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtFree(local));
    CT_OK(aclrtDestroyStream(s));
    publish_flag(dir, "rewritten");
    CT_OK(aclrtIpcMemClose(key));
    acl_down();
    return 0;
}

CT_STUB_CASE(ipc_mem_whitelist_across_processes, "unlisted pid 207006 (contract 8.7)")
{
    const char *dir = case_dir();
    acl_up(0);
    char *p = dev_alloc(PAGE);
    fill_device(p, PAGE, 0x7E);
    char key[EXPORT_KEY_LEN];
    export_key(p, PAGE, ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT, key);
    const char *args[] = {dir, NULL};
    pid_t child = spawn_role("mem_importer", args, NULL);
    int32_t importer = (int32_t)await_u64(dir, "importer_pid", PEER_TIMEOUT_MS);
    CT_EQ((int32_t)child, importer);
    publish_bytes(dir, "key", key, strlen(key));
    await_flag(dir, "refused", PEER_TIMEOUT_MS);
    CT_OK(aclrtIpcMemSetImportPid(key, &importer, 1));
    publish_flag(dir, "listed");
    await_flag(dir, "written", PEER_TIMEOUT_MS);
    expect_device_bytes(p, PAGE, 0x42);
    CT_OK(aclrtIpcMemClose(key)); /* destroys the export: new imports fail, the importer keeps its own */
    publish_flag(dir, "export_closed");
    await_flag(dir, "rewritten", PEER_TIMEOUT_MS);
    expect_device_bytes(p, PAGE, 0x43);
    expect_exit(child, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtFree(p));
    CT_TRUE(!key_object_exists(key));
    acl_down();
}

/* mem_exporter_dies DIR: exports without whitelist, then is killed. */
CT_ROLE(mem_exporter_dies)
{
    const char *dir = argv[0];
    acl_up(0);
    char *p = dev_alloc(PAGE);
    char key[EXPORT_KEY_LEN];
    export_key(p, PAGE, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION, key);
    publish_bytes(dir, "key", key, strlen(key));
    for (;;)
        pause();
    return 0;
}

CT_STUB_CASE(ipc_mem_of_a_dead_exporter_is_reclaimed, "reclaim after deaths (contract S7)")
{
    const char *dir = case_dir();
    const char *args[] = {dir, NULL};
    pid_t child = spawn_role("mem_exporter_dies", args, NULL);
    char key[EXPORT_KEY_LEN] = {0};
    await_file(dir, "key", key, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    declare_key_owned(key);
    CT_TRUE(key_object_exists(key));
    kill(child, SIGKILL);
    wait_exit(child, PEER_TIMEOUT_MS);
    acl_up(0); /* aclInit reclaims objects whose users all died */
    CT_TRUE(!key_object_exists(key));
    void *p = NULL;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtIpcMemImportByKey(&p, key, 0));
    acl_down();
}
