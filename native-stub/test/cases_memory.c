/*
 * cases_memory.c - device memory and copies as stream tasks, and IPC memory
 * (export, whitelist, import, close order, reclaim after death).
 * Rules: docs/acl-contract.md section 8.
 */
#define _GNU_SOURCE
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

CT_CASE(memory_malloc_free_rules)
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

CT_CASE(memory_copy_checks_and_round_trip)
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

CT_CASE(memory_free_with_a_queued_copy_keeps_it_mapped)
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

/* ---------------------------------------------------------------- IPC memory */

CT_CASE(ipc_mem_export_rules)
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

/* Import in the exporting process: a new address for the same memory; the
 * exporter's close ends new imports while existing mappings keep working. */
CT_CASE(ipc_mem_import_maps_a_new_address_and_close_order)
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

CT_CASE(ipc_mem_whitelist_across_processes)
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

CT_CASE(ipc_mem_of_a_dead_exporter_is_reclaimed)
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
