/*
 * cases_host.c - registered host memory (aclrtHostRegister, ...V2,
 * aclrtHostUnregister, aclrtHostGetDevicePointer), pointer attributes,
 * aclrtMallocHostWithCfg, aclrtMallocAlign32, aclrtGetMemInfo, and
 * registered memory copied between streams and processes.
 * Rules: docs/acl-contract.md section 10.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define PAGE 4096u

static unsigned char *page_alloc(size_t bytes)
{
    void *p = NULL;
    CT_TRUE(posix_memalign(&p, PAGE, bytes) == 0);
    return p;
}

static void *dev_alloc(size_t bytes)
{
    void *p = NULL;
    CT_OK(aclrtMalloc(&p, bytes, ACL_MEM_MALLOC_HUGE_FIRST));
    return p;
}

static void expect_bytes(const unsigned char *p, size_t n, unsigned char value, const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (p[i] != value)
            CT_FAIL("%s: byte %zu is 0x%02x, expected 0x%02x", what, i, p[i], value);
}

static void register_on_fresh_thread(void *arg)
{
    void *dev = NULL;
    *(int *)arg = aclrtHostRegister(arg, 64, ACL_HOST_REGISTER_MAPPED, &dev);
}

/* memory.cpp:488-498 (NULLs, size 0: 100000), api_error.cc:1997-2003 (type: 207000),
 * api_impl.cc:2560-2561 (context: 107002), register_memory.cc:61-77 (overlap: 507910),
 * api_impl.cc:2638-2641 (unregister of no range: 507911). */
CT_CASE(host_register_checks_in_cann_order)
{
    CT_EQ(0, ACL_ERROR_NONE); /* acl_base_rt.h:64, written by programs older than ACL_SUCCESS */
    acl_up(0);
    unsigned char *buf = page_alloc(2 * PAGE);
    void *dev = (void *)0x1;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(NULL, PAGE, ACL_HOST_REGISTER_MAPPED, &dev));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(buf, PAGE, ACL_HOST_REGISTER_MAPPED, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostRegister(buf, 0, ACL_HOST_REGISTER_MAPPED, &dev));
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtHostRegister(buf, PAGE, (aclrtHostRegisterType)0x1, &dev));
    CT_TRUE(dev == (void *)0x1);
    int code = 0;
    run_in_thread(register_on_fresh_thread, &code);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, code);
    CT_OK(aclrtHostRegister(buf, PAGE, ACL_HOST_REGISTER_IOMEMORY | ACL_HOST_REGISTER_READONLY, &dev));
    if (ct_library_is_stub(NULL)) /* stub rule (contract 10.4): the device pointer is the host pointer */
        CT_TRUE(dev == buf);
    void *again = NULL;
    if (ct_library_is_stub(NULL)) /* stub rule (contract 10.4): V1 overlap is the driver's answer in CANN */
        CT_CODE(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegister(buf + PAGE - 1, 2, 0, &again));
    CT_OK(aclrtHostRegister(buf + PAGE, PAGE, ACL_HOST_REGISTER_MAPPED, &again)); /* adjacent: no overlap */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostUnregister(NULL));
    CT_CODE(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(buf + 8)); /* not a start */
    CT_OK(aclrtHostUnregister(buf));
    CT_CODE(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, aclrtHostUnregister(buf));
    CT_OK(aclrtHostUnregister(buf + PAGE));
    free(buf);
    acl_down();
}

/* memory.cpp:500-519, api_error.cc:2016-2022 (V2 flag: 107000), memory.cpp:515 (reserved
 * flag of GetDevicePointer: 100000), api_impl.cc:2655-2660 + register_memory.cc:147-158
 * (only a mapped range's start has a device pointer: 107000). */
CT_CASE(host_register_v2_flags_and_device_pointer)
{
    acl_up(0);
    unsigned char *buf = page_alloc(2 * PAGE);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(NULL, PAGE, ACL_HOST_REG_MAPPED));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostRegisterV2(buf, 0, ACL_HOST_REG_MAPPED));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(buf, PAGE, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtHostRegisterV2(buf, PAGE, ACL_HOST_REG_MAPPED | 0x1));
    CT_OK(aclrtHostRegisterV2(buf, PAGE, ACL_HOST_REG_PINNED));
    CT_CODE(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, aclrtHostRegisterV2(buf, PAGE, ACL_HOST_REG_MAPPED));
    void *dev = (void *)0x1;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(buf, &dev, 0)); /* pinned, not mapped */
    CT_OK(aclrtHostRegisterV2(buf + PAGE, PAGE, ACL_HOST_REG_MAPPED | ACL_HOST_REG_PINNED));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(NULL, &dev, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(buf + PAGE, NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtHostGetDevicePointer(buf + PAGE, &dev, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(buf + PAGE + 8, &dev, 0));
    CT_TRUE(dev == (void *)0x1);
    CT_OK(aclrtHostGetDevicePointer(buf + PAGE, &dev, 0));
    if (ct_library_is_stub(NULL)) /* stub rule (contract 10.4): the device pointer is the host pointer */
        CT_TRUE(dev == buf + PAGE);
    CT_OK(aclrtHostUnregister(buf + PAGE));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtHostGetDevicePointer(buf + PAGE, &dev, 0));
    CT_OK(aclrtHostUnregister(buf));
    free(buf);
    acl_down();
}

static void *release_later(void *gate)
{
    sleep_ms(BLOCK_PROBE_MS);
    gate_release(gate);
    return NULL;
}

/* Registered memory is page-locked (api_impl.cc:2606-2609 InsertPinnedMemory; the
 * pageable rule, api_error.cc:2256-2270 and 2789-2802, converts only unregistered host
 * memory): an async copy into or out of it is queued behind the stream's work, while
 * the same copy of plain malloc memory synchronizes the stream first. The device
 * pointer works on the device side of a copy. */
CT_CASE(host_registered_copies_are_queued_not_synchronized)
{
    acl_up(0);
    aclrtStream s = stream_new();
    unsigned char *dev = dev_alloc(PAGE);
    unsigned char *buf = page_alloc(PAGE);
    memset(buf, 0x11, PAGE);
    void *mapped = NULL;
    CT_OK(aclrtHostRegister(buf, PAGE, ACL_HOST_REGISTER_MAPPED, &mapped));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtMemsetAsync(dev, PAGE, 0x44, PAGE, s));
    CT_OK(aclrtMemcpyAsync(buf, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s)); /* returns at once */
    expect_bytes(buf, PAGE, 0x11, "registered memory before the stream ran");
    EXPECT_STREAM_BLOCKED(s);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    expect_bytes(buf, PAGE, 0x44, "registered memory after the stream ran");
    /* host to device from registered memory, and the device pointer as a device operand */
    memset(buf, 0x55, PAGE);
    g = gate_hold(s);
    CT_OK(aclrtMemcpyAsync(dev, PAGE, buf, PAGE, ACL_MEMCPY_HOST_TO_DEVICE, s));
    CT_OK(aclrtMemcpyAsync(dev, PAGE, mapped, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    /* a device operand must lie inside the registered range (stub rule, contract 10.4, as for aclrtMalloc memory) */
    if (ct_library_is_stub(NULL))
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
                aclrtMemcpyAsync(dev, PAGE, (char *)mapped + 8, PAGE, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    unsigned char check[PAGE];
    CT_OK(aclrtMemcpy(check, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST));
    expect_bytes(check, PAGE, 0x55, "device memory copied from registered memory");
    /* unregistered again, the buffer is pageable: the copy waits for the stream */
    CT_OK(aclrtHostUnregister(buf));
    CT_OK(aclrtMemset(dev, PAGE, 0x66, PAGE));
    g = gate_hold(s);
    pthread_t releaser;
    CT_TRUE(pthread_create(&releaser, NULL, release_later, g) == 0);
    CT_OK(aclrtMemcpyAsync(buf, PAGE, dev, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s)); /* waits for the gate */
    if (ct_library_is_stub(NULL)) /* stub rule (contract 8.7, ACL_STUB_PAGEABLE): drivers differ */
        expect_bytes(buf, PAGE, 0x66, "pageable memory when the call returned");
    CT_TRUE(pthread_join(releaser, NULL) == 0);
    if (!ct_library_is_stub(NULL))
        EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtFree(dev));
    CT_OK(aclrtDestroyStream(s));
    free(buf);
    acl_down();
}

/* memory.cpp:446-454 (NULLs: 100000); ApiImpl::PtrGetAttributes (api_impl.cc:3316-3325)
 * needs no context; the location the driver reports (stub rules, contract 10.3). */
CT_CASE(host_pointer_attributes_of_each_kind)
{
    acl_up(2);
    aclrtPtrAttributes a;
    unsigned char *dev = dev_alloc(PAGE);
    void *pinned = NULL;
    CT_OK(aclrtMallocHost(&pinned, 100));
    unsigned char *plain = page_alloc(PAGE), *reg = page_alloc(PAGE);
    void *mapped = NULL;
    CT_OK(aclrtHostRegister(reg, PAGE, ACL_HOST_REGISTER_MAPPED, &mapped));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(NULL, &a));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtPointerGetAttributes(dev, NULL));
    CT_OK(aclrtPointerGetAttributes(dev + 100, &a));
    CT_EQ(ACL_MEM_LOCATION_TYPE_DEVICE, a.location.type);
    CT_EQ(2, a.location.id);
    CT_TRUE(a.pageSize > 0);
    CT_OK(aclrtPointerGetAttributes(pinned, &a));
    CT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
    CT_OK(aclrtPointerGetAttributes(reg + 10, &a));
    CT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
    if (ct_library_is_stub(NULL)) { /* stub rule (contract 8.7): needs a driver that reports malloc memory */
        CT_OK(aclrtPointerGetAttributes(plain, &a));
        CT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, a.location.type);
    }
    CT_OK(aclrtHostUnregister(reg));
    if (ct_library_is_stub(NULL)) { /* the same */
        CT_OK(aclrtPointerGetAttributes(reg, &a));
        CT_EQ(ACL_MEM_LOCATION_TYPE_UNREGISTERED, a.location.type);
    }
    CT_OK(aclrtFreeHost(pinned));
    CT_OK(aclrtFree(dev));
    free(plain);
    free(reg);
    acl_down();
}

/* memory.cpp:434-444 + api_impl.cc:2481-2497 (WithCfg), memory.cpp:383-387 (Align32:
 * aclMallocMemInner without padding), memory.cpp:963-977 + api_error.cc:3187-3190
 * (GetMemInfo: NULLs 100000, attr out of range 107016) + api_impl.cc:3296-3297 (107002). */
CT_CASE(host_malloc_with_cfg_align32_and_mem_info)
{
    acl_up(0);
    void *p = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(NULL, 64, NULL));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocHostWithCfg(&p, 0, NULL));
    aclrtMallocConfig empty = {NULL, 0};
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMallocHostWithCfg(&p, 64, &empty));
    CT_OK(aclrtMallocHostWithCfg(&p, 64, NULL));
    aclrtPtrAttributes a;
    CT_OK(aclrtPointerGetAttributes(p, &a));
    CT_EQ(ACL_MEM_LOCATION_TYPE_HOST, a.location.type);
    CT_OK(aclrtFreeHost(p));
    void *d = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(NULL, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&d, 0, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocAlign32(&d, SIZE_MAX - 31, ACL_MEM_MALLOC_HUGE_FIRST));
    /* no padding: a size aclrtMalloc refuses for its padding is only too large here */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMalloc(&d, SIZE_MAX - 40, ACL_MEM_MALLOC_HUGE_FIRST));
    if (ct_library_is_stub(NULL)) /* stub rule (contract 8.2): a failed allocation's code is the driver's */
        CT_CODE(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtMallocAlign32(&d, SIZE_MAX - 40, ACL_MEM_MALLOC_HUGE_FIRST));
    size_t free_before = 0, total = 0, free_after = 0;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, NULL, &total));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtGetMemInfo(ACL_HBM_MEM, &free_before, NULL));
    CT_CODE(ACL_ERROR_RT_INVALID_MEMORY_TYPE, aclrtGetMemInfo((aclrtMemAttr)18, &free_before, &total));
    CT_CODE(ACL_ERROR_RT_INVALID_MEMORY_TYPE, aclrtGetMemInfo((aclrtMemAttr)-1, &free_before, &total));
    CT_OK(aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total));
    CT_OK(aclrtMallocAlign32(&d, 3 * PAGE, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_OK(aclrtGetMemInfo(ACL_MEM_P2P_HUGE1G, &free_after, &total));
    if (ct_library_is_stub(NULL)) /* stub rule (contract 10.4): 64 GiB, this process's allocations only */
        CT_TRUE(total >= free_before && free_before - free_after == 3 * PAGE);
    CT_OK(aclrtFree(d));
    acl_down();
    acl_init_only();
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetMemInfo(ACL_HBM_MEM, &free_before, &total));
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtMallocHostWithCfg(&p, 64, NULL));
    acl_down();
}

/* Registered memory between two streams: stream a copies device memory into it,
 * stream b (after a's event) copies it to other device memory; byte for byte. */
CT_CASE(host_registered_memory_between_streams)
{
    CT_SOURCE("api_impl.cc:2606-2609 (registration pins the range), api_error.cc:2789-2802 (pinned: queued)");
    acl_up(0);
    aclrtStream a = stream_new(), b = stream_new();
    unsigned char *src = dev_alloc(PAGE), *dst = dev_alloc(PAGE);
    unsigned char *buf = page_alloc(PAGE);
    for (unsigned i = 0; i < PAGE; i++)
        buf[i] = (unsigned char)(i * 7 + 3);
    CT_OK(aclrtMemcpy(src, PAGE, buf, PAGE, ACL_MEMCPY_HOST_TO_DEVICE));
    memset(buf, 0, PAGE);
    CT_OK(aclrtHostRegisterV2(buf, PAGE, ACL_HOST_REG_PINNED));
    aclrtEvent e = local_event_new();
    struct gate *g = gate_hold(a);
    CT_OK(aclrtMemcpyAsync(buf, PAGE, src, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, a));
    CT_OK(aclrtRecordEvent(e, a));
    CT_OK(aclrtStreamWaitEvent(b, e));
    CT_OK(aclrtMemcpyAsync(dst, PAGE, buf, PAGE, ACL_MEMCPY_HOST_TO_DEVICE, b));
    EXPECT_STREAM_BLOCKED(b);
    gate_release(g);
    EXPECT_STREAM_DRAINS(b);
    unsigned char out[PAGE];
    CT_OK(aclrtMemcpy(out, PAGE, dst, PAGE, ACL_MEMCPY_DEVICE_TO_HOST));
    for (unsigned i = 0; i < PAGE; i++)
        if (out[i] != (unsigned char)(i * 7 + 3))
            CT_FAIL("byte %u is 0x%02x, expected 0x%02x", i, out[i], (unsigned char)(i * 7 + 3));
    CT_OK(aclrtHostUnregister(buf));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtFree(src));
    CT_OK(aclrtFree(dst));
    CT_OK(aclrtDestroyStream(a));
    CT_OK(aclrtDestroyStream(b));
    free(buf);
    acl_down();
}

static unsigned char pattern(unsigned i, unsigned salt)
{
    return (unsigned char)(i * 31 + salt);
}

/* host_reg_peer DIR: imports the case's memory, reads it into registered memory with
 * an async copy, checks every byte, writes its own pattern back from registered memory. */
CT_ROLE(host_reg_peer)
{
    const char *dir = argv[0];
    acl_up(0);
    char key[EXPORT_KEY_LEN] = {0};
    await_file(dir, "key", key, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    void *shared = NULL;
    CT_OK(aclrtIpcMemImportByKey(&shared, key, 0));
    aclrtStream s = stream_new();
    unsigned char *buf = page_alloc(PAGE);
    void *mapped = NULL;
    CT_OK(aclrtHostRegister(buf, PAGE, ACL_HOST_REGISTER_MAPPED, &mapped));
    CT_OK(aclrtMemcpyAsync(buf, PAGE, shared, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_STREAM_DRAINS(s);
    for (unsigned i = 0; i < PAGE; i++)
        if (buf[i] != pattern(i, 1))
            CT_FAIL("byte %u from the other process is 0x%02x, expected 0x%02x", i, buf[i], pattern(i, 1));
    for (unsigned i = 0; i < PAGE; i++)
        buf[i] = pattern(i, 2);
    CT_OK(aclrtMemcpyAsync(shared, PAGE, buf, PAGE, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtHostUnregister(buf));
    CT_OK(aclrtIpcMemClose(key));
    CT_OK(aclrtDestroyStream(s));
    free(buf);
    acl_down();
    return 0;
}

/* Host-registered memory on both sides of IPC memory shared by two processes. */
CT_CASE(host_registered_memory_between_processes)
{
    CT_SOURCE("api_impl.cc:2606-2609 (registration pins the range), api_error.cc:2789-2802 (pinned: queued)");
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    unsigned char *shared = dev_alloc(PAGE);
    unsigned char *buf = page_alloc(PAGE);
    void *mapped = NULL;
    CT_OK(aclrtHostRegister(buf, PAGE, ACL_HOST_REGISTER_MAPPED, &mapped));
    for (unsigned i = 0; i < PAGE; i++)
        buf[i] = pattern(i, 1);
    CT_OK(aclrtMemcpyAsync(shared, PAGE, buf, PAGE, ACL_MEMCPY_HOST_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    char key[EXPORT_KEY_LEN] = {0};
    CT_OK(
        aclrtIpcMemGetExportKey(shared, PAGE, key, EXPORT_KEY_LEN, ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    declare_key_owned(key);
    const char *args[] = {dir, NULL};
    pid_t peer = spawn_role("host_reg_peer", args, NULL);
    publish_bytes(dir, "key", key, strlen(key));
    expect_exit(peer, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtMemcpyAsync(buf, PAGE, shared, PAGE, ACL_MEMCPY_DEVICE_TO_HOST, s));
    EXPECT_STREAM_DRAINS(s);
    for (unsigned i = 0; i < PAGE; i++)
        if (buf[i] != pattern(i, 2))
            CT_FAIL("byte %u written by the other process is 0x%02x, expected 0x%02x", i, buf[i], pattern(i, 2));
    CT_OK(aclrtHostUnregister(buf));
    CT_OK(aclrtIpcMemClose(key));
    CT_OK(aclrtFree(shared));
    CT_OK(aclrtDestroyStream(s));
    free(buf);
    acl_down();
}
