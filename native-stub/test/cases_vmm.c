/*
 * cases_vmm.c - virtual memory management: granularity, physical handles,
 * reservations, mappings, access, address ranges, shareable handles across
 * real processes (with and without the pid whitelist, V1 and V2), reclaim
 * after the exporter's death, and the pid-namespace switch
 * (ACL_STUB_PID_NAMESPACE) for every whitelist. Rules: docs/acl-contract.md
 * section 12; "11-04:N" is docs/zh/api_ref/11-04_virtual_memory_management.md
 * line N of hicann/runtime.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

#define MIB2 ((size_t)2 << 20)
#define GIB ((size_t)1 << 30)
#define VMM_PREFIX "cannstub-vmm-"
#define TGID_OFFSET 1000000000 /* ACL_STUB_PID_NAMESPACE=container */

static aclrtPhysicalMemProp device_prop(uint32_t device)
{
    aclrtPhysicalMemProp prop;
    memset(&prop, 0, sizeof prop);
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    prop.location.id = device;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    return prop;
}

static aclrtDrvMemHandle phys_new(uint32_t device, size_t size)
{
    aclrtPhysicalMemProp prop = device_prop(device);
    aclrtDrvMemHandle h = NULL;
    CT_OK(aclrtMallocPhysical(&h, size, &prop, 0));
    CT_TRUE(h != NULL);
    return h;
}

static char *reserve(size_t size)
{
    void *va = NULL;
    CT_OK(aclrtReserveMemAddress(&va, size, 0, NULL, 0));
    CT_TRUE(va != NULL);
    return va;
}

static void set_access(void *va, size_t size, uint32_t device)
{
    aclrtMemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    d.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    d.location.id = device;
    CT_OK(aclrtMemSetAccess(va, size, &d, 1));
}

/* The stub's object of a shareable handle: a "ct-owned-path:" line, checked gone after the case. */
static void declare_vmm_owned(uint64_t sh)
{
    char name[64];
    stub_object_name(name, VMM_PREFIX, sh);
    printf("ct-owned-path: /dev/shm%s\n", name);
    fflush(stdout);
}

static int vmm_object_exists(uint64_t sh)
{
    char name[64], path[128];
    stub_object_name(name, VMM_PREFIX, sh);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    return access(path, F_OK) == 0;
}

/* Byte i of pattern seed: what one process writes and the other checks, byte for byte. */
static unsigned char pattern(size_t i, unsigned seed)
{
    return (unsigned char)((i * 131u + seed * 17u + (i >> 9)) & 0xFF);
}

static void write_pattern(void *dev, size_t size, unsigned seed)
{
    unsigned char *host = malloc(size);
    CT_TRUE(host != NULL);
    for (size_t i = 0; i < size; i++)
        host[i] = pattern(i, seed);
    CT_OK(aclrtMemcpy(dev, size, host, size, ACL_MEMCPY_HOST_TO_DEVICE));
    free(host);
}

static void expect_pattern(const void *dev, size_t size, unsigned seed)
{
    unsigned char *host = malloc(size);
    CT_TRUE(host != NULL);
    CT_OK(aclrtMemcpy(host, size, dev, size, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < size; i++)
        if (host[i] != pattern(i, seed))
            CT_FAIL("byte %zu is 0x%02x, expected 0x%02x (pattern %u)", i, host[i], pattern(i, seed), seed);
    free(host);
}

/* ------------------------------------------------------------ single process */

static void granularity_without_init(void *arg)
{
    aclrtPhysicalMemProp prop = device_prop(0);
    size_t g = 0;
    *(int *)arg = aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g);
}

CT_STUB_CASE(
    vmm_granularity_rules,
    "granularity 2 MiB / 1 GiB, host locations 207000, option 107000 (contract 12.2, 12.7); a call before aclInit (S1)")
{
    int rc = 0;
    granularity_without_init(&rc);
    CT_CODE(ACL_ERROR_UNINITIALIZE, rc);
    acl_init_only(); /* no device needed (no context check in the source) */
    aclrtPhysicalMemProp prop = device_prop(0);
    size_t g = 0;
    /* memory.cpp:1304-1305: NULLs */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(NULL, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    CT_CODE(ACL_ERROR_INVALID_PARAM,
            aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, NULL));
    /* memory.cpp:1314-1325: DDR attributes on a device */
    prop.memAttr = ACL_DDR_MEM_NORMAL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    /* memory.cpp:1326-1345: no handler for ACL_HBM_MEM, ACL_HBM_MEM_P2P_HUGE */
    prop.memAttr = ACL_HBM_MEM;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop.memAttr = ACL_HBM_MEM_P2P_HUGE;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    /* api_error.cc:6502-6510: the device id */
    prop = device_prop(64);
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID,
            aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    prop = device_prop(0);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_UNDEF, &g));
    prop.location.type = ACL_MEM_LOCATION_TYPE_HOST; /* stub rule: no host physical memory */
    prop.memAttr = ACL_DDR_MEM_NORMAL;
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT,
            aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    CT_EQ((size_t)0, g);
    prop = device_prop(0);
    CT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    CT_EQ(MIB2, g);
    prop.memAttr = ACL_MEM_HUGE1G;
    CT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED, &g));
    CT_EQ(GIB, g);
    acl_down();
}

CT_STUB_CASE(vmm_malloc_and_free_physical_rules,
             "sizes rounded up to the granularity, freed or garbage handles 107000 (contract 12.7)")
{
    acl_init_only();
    aclrtPhysicalMemProp prop = device_prop(0);
    aclrtDrvMemHandle h = NULL;
    /* memory.cpp:1079-1084 in order: NULLs, size 0, flags, handleType, allocationType */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(NULL, MIB2, &prop, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, MIB2, NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, 0, &prop, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, MIB2, &prop, 1));
    prop.handleType = ACL_MEM_HANDLE_TYPE_POSIX;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, MIB2, &prop, 0));
    prop = device_prop(0);
    prop.allocationType = (aclrtMemAllocationType)1;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, MIB2, &prop, 0));
    /* memory.cpp:1085-1099: UNREGISTERED and MANAGED locations */
    prop = device_prop(0);
    prop.location.type = ACL_MEM_LOCATION_TYPE_MANAGED;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMallocPhysical(&h, MIB2, &prop, 0));
    /* api_error.cc:6340-6349: the device id */
    prop = device_prop(8);
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMallocPhysical(&h, MIB2, &prop, 0));
    CT_TRUE(h == NULL);
    /* an unaligned size is rounded up: the whole granule maps */
    aclrtDrvMemHandle a = phys_new(0, 4096);
    char *va = reserve(MIB2);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, 4096, 0, a, 0)); /* 11-04:461: map it whole */
    CT_OK(aclrtMapMem(va, MIB2, 0, a, 0));
    CT_OK(aclrtUnmapMem(va));
    CT_OK(aclrtReleaseMemAddress(va));
    /* memory.cpp:1153: NULL; the driver's: freed or garbage handles (stub rule) */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtFreePhysical(NULL));
    CT_OK(aclrtFreePhysical(a));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFreePhysical(a));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFreePhysical((aclrtDrvMemHandle)&prop));
    acl_down();
}

CT_STUB_CASE(vmm_reserve_and_release_rules,
             "the driver's codes: alignment, fixed addresses, releases (contract 12.3, 12.7)")
{
    acl_init_only();
    void *va = NULL;
    /* memory.cpp:1049-1053: NULL, size 0, flags other than 0 and 1 */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(NULL, MIB2, 0, NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&va, 0, 0, NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddress(&va, MIB2, 0, NULL, 2));
    /* 11-04:255: alignment is reserved (stub rule for the code) */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&va, MIB2, 4096, NULL, 0));
    /* 11-04:256: a fixed address lies in [16T, 24T) */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&va, MIB2, 0, (void *)(uintptr_t)(8ull << 40), 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtReserveMemAddress(&va, MIB2, 0, (void *)(uintptr_t)((16ull << 40) + 4096), 0));
    CT_TRUE(va == NULL);
    CT_OK(aclrtReserveMemAddress(&va, MIB2, 0, NULL, 1)); /* flags 1: kept for compatibility */
    CT_TRUE((uintptr_t)va % MIB2 == 0);
    /* NoUCMemory: acl_rt.h:5858 (NULL expectPtr not supported), 11-04:327 (whole gigabytes) */
    void *again = NULL;
    CT_CODE(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, aclrtReserveMemAddressNoUCMemory(&again, GIB, 0, NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtReserveMemAddressNoUCMemory(&again, GIB, 0, NULL, 3));
    uintptr_t uc = (48ull << 40) + ((uintptr_t)getpid() % 1024) * GIB;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddressNoUCMemory(&again, MIB2, 0, (void *)uc, 0));
    /* memory.cpp:1066: NULL; the driver's: not a reservation start, mapped (11-04:403) */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtReleaseMemAddress(NULL));
    aclrtDrvMemHandle h = phys_new(0, MIB2);
#ifndef __SANITIZE_THREAD__ /* ThreadSanitizer keeps its shadow memory where these fixed addresses lie */
    /* a fixed address is honoured, and refused while taken */
    uintptr_t at = (16ull << 40) + ((uintptr_t)getpid() % 1024) * (64ull << 20);
    void *fixed = NULL;
    CT_OK(aclrtReserveMemAddress(&fixed, 2 * MIB2, 0, (void *)at, 0));
    CT_TRUE(fixed == (void *)at);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReserveMemAddress(&again, MIB2, 0, (void *)at, 0));
    CT_OK(aclrtReserveMemAddressNoUCMemory(&again, GIB, 0, (void *)uc, 0));
    CT_TRUE(again == (void *)uc);
    CT_OK(aclrtReleaseMemAddress(again));
#else
    void *fixed = reserve(2 * MIB2);
#endif
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress((char *)fixed + 4096));
    CT_OK(aclrtMapMem((char *)fixed + MIB2, MIB2, 0, h, 0)); /* an interior address maps too */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(fixed));
    CT_OK(aclrtUnmapMem((char *)fixed + MIB2));
    CT_OK(aclrtReleaseMemAddress(fixed));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtReleaseMemAddress(fixed));
    CT_OK(aclrtReleaseMemAddress(va));
    CT_OK(aclrtFreePhysical(h));
    acl_down();
}

CT_STUB_CASE(
    vmm_map_copy_and_address_rules,
    "map restrictions' codes, access not enforced, contiguous mappings one block, zeroed memory (contract 12.3, 12.7)")
{
    acl_up(0);
    aclrtDrvMemHandle a = phys_new(0, MIB2), b = phys_new(0, MIB2), other = phys_new(1, MIB2);
    char *va = reserve(2 * MIB2);
    /* memory.cpp:1165-1169: NULLs, size 0, flags */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMapMem(NULL, MIB2, 0, a, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, MIB2, 0, NULL, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, 0, 0, a, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMapMem(va, MIB2, 0, a, 1));
    /* the driver's (11-04:461-463): offset 0, the whole size, inside a reservation, no overlap */
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, MIB2, 4096, a, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, 2 * MIB2, 0, a, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + MIB2 + 4096, MIB2, 0, a, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va - MIB2, MIB2, 0, a, 0));
    CT_OK(aclrtMapMem(va, MIB2, 0, a, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, MIB2, 0, b, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va + MIB2, MIB2, 0, other, 0)); /* two devices (11-04:463) */
    CT_OK(aclrtMapMem(va + MIB2, MIB2, 0, b, 0));
    /* api_error.cc:6393-6394: NULLs are 107000 here (no acl check); the driver's: the mapping, count, desc */
    aclrtMemAccessDesc d;
    memset(&d, 0, sizeof d);
    d.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    d.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(NULL, MIB2, &d, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, MIB2, NULL, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, 2 * MIB2, &d, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, MIB2, &d, 0));
    d.flags = (aclrtMemAccessFlags)2;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetAccess(va, MIB2, &d, 1));
    set_access(va, MIB2, 0);
    set_access(va + MIB2, MIB2, 0);
    /* copies and memsets treat mappings as device memory */
    write_pattern(va, MIB2, 1);
    write_pattern(va + MIB2, MIB2, 2);
    expect_pattern(va, MIB2, 1);
    expect_pattern(va + MIB2, MIB2, 2);
    CT_OK(aclrtMemset(va + 100, 10, 0x5A, 10));
    unsigned char probe[12];
    CT_OK(aclrtMemcpy(probe, 12, va + 99, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(pattern(99, 1), probe[0]);
    CT_EQ(0x5A, probe[1]);
    CT_EQ(0x5A, probe[10]);
    CT_EQ(pattern(110, 1), probe[11]);
    /* contiguous mappings of one reservation are one block: a copy runs on from one into the next */
    CT_OK(aclrtMemcpy(probe, 12, va + MIB2 - 4, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(pattern(MIB2 - 4, 1), probe[0]);
    CT_EQ(pattern(MIB2 - 1, 1), probe[3]);
    CT_EQ(pattern(0, 2), probe[4]);
    CT_EQ(pattern(7, 2), probe[11]);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(probe, 12, va + 2 * MIB2 - 4, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(va, 12, probe, 12, ACL_MEMCPY_HOST_TO_HOST));
    aclrtStream s = stream_new();
    CT_OK(aclrtMemcpyAsync(va + MIB2, MIB2, va, MIB2, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    CT_OK(aclrtMemsetAsync(va, MIB2, 0x11, MIB2, s));
    EXPECT_STREAM_DRAINS(s);
    unsigned char *host = malloc(MIB2);
    CT_TRUE(host != NULL);
    CT_OK(aclrtMemcpy(host, MIB2, va, MIB2, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < MIB2; i++)
        if (host[i] != 0x11)
            CT_FAIL("byte %zu of the memset mapping is 0x%02x", i, host[i]);
    free(host);
    CT_OK(aclrtMemcpy(probe, 12, va + MIB2 + 99, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(0x5A, probe[1]);
    /* aclrtMemGetAddressRange (memory.cpp:2061: NULL; 11-04:1364-1366: the mapping's block) */
    void *base = NULL;
    size_t size = 0;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemGetAddressRange(NULL, &base, &size));
    CT_OK(aclrtMemGetAddressRange(va + MIB2 + 12345, &base, &size));
    CT_TRUE(base == va + MIB2);
    CT_EQ(MIB2, size);
    CT_OK(aclrtMemGetAddressRange(va + 7, NULL, &size));
    void *plain = NULL;
    CT_OK(aclrtMalloc(&plain, 100, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_OK(aclrtMemGetAddressRange((char *)plain + 50, &base, NULL));
    CT_TRUE(base == plain);
    CT_OK(aclrtFree(plain));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemGetAddressRange(probe, &base, &size));
    /* retain (memory.cpp:1972-1973: NULLs): the same handle, one more free to call (11-04:1227) */
    aclrtDrvMemHandle r = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(NULL, &r));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemRetainAllocationHandle(va, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemRetainAllocationHandle(va + 4096, &r));
    CT_OK(aclrtMemRetainAllocationHandle(va, &r));
    CT_TRUE(r == a);
    /* free while mapped (11-04:180): the memory stays until the unmap */
    CT_OK(aclrtFreePhysical(a));
    CT_OK(aclrtFreePhysical(a));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtFreePhysical(a));
    CT_OK(aclrtMemcpy(probe, 12, va + MIB2 + 4000, 12, ACL_MEMCPY_DEVICE_TO_HOST)); /* b: a's bytes, copied above */
    CT_EQ(pattern(4000, 1), probe[0]);
    CT_OK(aclrtMemcpy(probe, 12, va, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(0x11, probe[0]);
    CT_OK(aclrtMemRetainAllocationHandle(va, &r)); /* a mapping's handle comes back */
    CT_TRUE(r == a);
    CT_OK(aclrtFreePhysical(r));
    /* unmap (memory.cpp:1180: NULL) and remap at the same address */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtUnmapMem(NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va + 4096));
    CT_OK(aclrtUnmapMem(va));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtUnmapMem(va));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemcpy(probe, 12, va, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMapMem(va, MIB2, 0, a, 0)); /* a is gone */
    aclrtDrvMemHandle c = phys_new(0, MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, c, 0));
    CT_OK(aclrtMemcpy(probe, 12, va, 12, ACL_MEMCPY_DEVICE_TO_HOST));
    CT_EQ(0, probe[0]); /* new physical memory is zeroed */
    CT_OK(aclrtUnmapMem(va));
    CT_OK(aclrtUnmapMem(va + MIB2));
    CT_OK(aclrtReleaseMemAddress(va));
    CT_OK(aclrtFreePhysical(b));
    CT_OK(aclrtFreePhysical(c));
    CT_OK(aclrtFreePhysical(other));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

struct unmapper {
    void *va;
    int rc;
    uint64_t returned_at;
};

static void *unmap_thread(void *arg)
{
    struct unmapper *u = arg;
    u->rc = aclrtUnmapMem(u->va);
    __atomic_store_n(&u->returned_at, now_ns(), __ATOMIC_RELEASE);
    return NULL;
}

/* Stub rule: aclrtUnmapMem waits until the queued copies that touch the mapping ran, since the
 * addresses can be mapped again at once. */
CT_STUB_CASE(vmm_unmap_waits_for_queued_copies, "aclrtUnmapMem waits for queued copies (contract 12.7)")
{
    acl_up(0);
    aclrtDrvMemHandle h = phys_new(0, MIB2), h2 = phys_new(0, MIB2);
    char *va = reserve(2 * MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    CT_OK(aclrtMapMem(va + MIB2, MIB2, 0, h2, 0));
    write_pattern(va, 2 * MIB2, 3);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    void *dst = NULL;
    CT_OK(aclrtMalloc(&dst, MIB2, ACL_MEM_MALLOC_HUGE_FIRST));
    /* from the middle of the first mapping into the second: the unmap of the second waits too */
    CT_OK(aclrtMemcpyAsync(dst, MIB2, va + MIB2 / 2, MIB2, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    struct unmapper u = {.va = va + MIB2, .rc = -1};
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, unmap_thread, &u) == 0);
    sleep_ms(BLOCK_PROBE_MS);
    CT_TRUE(__atomic_load_n(&u.returned_at, __ATOMIC_ACQUIRE) == 0);
    uint64_t released = gate_release(g);
    CT_TRUE(pthread_join(t, NULL) == 0);
    CT_OK(u.rc);
    EXPECT_AFTER(u.returned_at, released);
    EXPECT_STREAM_DRAINS(s);
    unsigned char *host = malloc(MIB2);
    CT_TRUE(host != NULL);
    CT_OK(aclrtMemcpy(host, MIB2, dst, MIB2, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < MIB2; i++)
        if (host[i] != pattern(MIB2 / 2 + i, 3))
            CT_FAIL("byte %zu of the copy is 0x%02x, expected 0x%02x", i, host[i], pattern(MIB2 / 2 + i, 3));
    free(host);
    CT_OK(aclrtFree(dst));
    CT_OK(aclrtUnmapMem(va));
    CT_OK(aclrtReleaseMemAddress(va));
    CT_OK(aclrtFreePhysical(h));
    CT_OK(aclrtFreePhysical(h2));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

struct no_device_export {
    aclrtDrvMemHandle h;
    int rc;
};

static void fabric_export_without_device(void *arg)
{
    struct no_device_export *nd = arg;
    aclrtMemFabricHandle f;
    nd->rc = aclrtMemExportToShareableHandleV2(nd->h, 0, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &f);
}

static void import_v2_without_device(void *arg)
{
    uint64_t sh = 1;
    aclrtDrvMemHandle h = NULL;
    *(int *)arg = aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &h);
}

CT_STUB_CASE(vmm_export_and_import_rules,
             "the driver's codes for exports and imports, /dev/shm objects, the stub's message (contract 12.4, 12.7)")
{
    acl_up(0);
    aclrtDrvMemHandle h = phys_new(0, MIB2);
    uint64_t sh = 0;
    /* memory.cpp:1220-1222: handle NULL, handleType, shareableHandle NULL; api_error.cc:6410-6413: flags */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(NULL, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_POSIX, 0, &sh));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 2, &sh));
    /* V2: memory.cpp:1234-1235 NULLs; api_error.cc:6421-6431 the type, the flags; api_impl.cc:7386-7387 */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, NULL));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandleV2(h, 0, (aclrtMemSharedHandleType)3, &sh));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtMemExportToShareableHandleV2(h, 2, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh));
    struct no_device_export nd = {.h = h, .rc = 0};
    run_in_thread(fabric_export_without_device, &nd);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, nd.rc);
    CT_EQ((uint64_t)0, sh);
    CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh));
    CT_TRUE(sh != 0);
    declare_vmm_owned(sh);
    CT_TRUE(vmm_object_exists(sh));
    /* 11-04:683: one shareable handle per handle */
    uint64_t sh2 = 0;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtMemExportToShareableHandleV2(h, 0, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &sh2));
    /* the whitelist: memory.cpp:1279-1280 (pid NULL, pidNum 0); the driver's: the export, the pids */
    int32_t pid = 12345, zero = 0;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, NULL, 1));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemSetPidToShareableHandle(sh, &pid, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(sh, &pid, (size_t)1 << 32));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(sh + 1, &pid, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(sh, &zero, 1));
    CT_OK(aclrtMemSetPidToShareableHandle(sh, &pid, 1));
    CT_CODE(ACL_ERROR_INVALID_PARAM,
            aclrtMemSetPidToShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandleV2(&sh, (aclrtMemSharedHandleType)0, &pid, 1));
    CT_OK(aclrtMemSetPidToShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, &pid, 1));
    /* import: memory.cpp:1247 (NULL), api_error.cc:6441-6449 (device), 11-04:818 (not in the exporter) */
    aclrtDrvMemHandle in = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtMemImportFromShareableHandle(sh, 0, NULL));
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclrtMemImportFromShareableHandle(sh, 8, &in));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(sh + 1, 0, &in));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(sh, 0, &in));
    CT_TRUE(strstr(aclGetRecentErrMsg(), "exported by this process") != NULL);
    /* V2: memory.cpp:1259-1266 NULLs, flags, the current device; api_error.cc:6461-6465 the type */
    CT_CODE(ACL_ERROR_INVALID_PARAM,
            aclrtMemImportFromShareableHandleV2(&sh, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 1, &in));
    CT_CODE(ACL_ERROR_INVALID_PARAM,
            aclrtMemImportFromShareableHandleV2(NULL, ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT, 0, &in));
    int rc = 0;
    run_in_thread(import_v2_without_device, &rc);
    CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, rc);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandleV2(&sh, (aclrtMemSharedHandleType)7, 0, &in));
    aclrtMemFabricHandle junk;
    memset(&junk, 0x33, sizeof junk);
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
            aclrtMemImportFromShareableHandleV2(&junk, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &in));
    CT_TRUE(in == NULL);
    /* the exporter frees: the export ends (11-04:817), even with a mapping left */
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    CT_OK(aclrtFreePhysical(h));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemSetPidToShareableHandle(sh, &pid, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh2));
    CT_TRUE(vmm_object_exists(sh));
    CT_OK(aclrtUnmapMem(va));
    CT_TRUE(!vmm_object_exists(sh)); /* the last user out unlinks it */
    CT_OK(aclrtReleaseMemAddress(va));
    acl_down();
}

/* ------------------------------------------------------------ across processes */

/* vmm_importer DIR MODE: MODE "pid" (V1, whitelist) or "fabric" (V2 fabric handle, no
 * whitelist). Imports the exporter's memory, checks it byte for byte, writes its own pattern. */
CT_ROLE(vmm_importer)
{
    const char *dir = argv[0];
    int fabric = strcmp(argv[1], "fabric") == 0;
    acl_up(1);
    aclrtDrvMemHandle h = NULL;
    uint64_t sh = 0;
    aclrtMemFabricHandle f;
    if (!fabric) {
        int32_t tgid = 0;
        CT_OK(aclrtDeviceGetBareTgid(&tgid));
        publish_u64(dir, "importer_tgid", (uint64_t)tgid);
        sh = await_u64(dir, "shareable", PEER_TIMEOUT_MS);
        CT_CODE(ACL_ERROR_RT_NO_PERMISSION, aclrtMemImportFromShareableHandle(sh, 1, &h));
        CT_TRUE(h == NULL);
        publish_flag(dir, "refused");
        await_flag(dir, "listed", PEER_TIMEOUT_MS);
        CT_OK(aclrtMemImportFromShareableHandle(sh, 1, &h));
        aclrtDrvMemHandle twice = NULL; /* 11-04:807: one handle per shareable handle */
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(sh, 1, &twice));
    } else {
        CT_EQ(sizeof f, await_file(dir, "fabric", &f, sizeof f, PEER_TIMEOUT_MS));
        CT_OK(aclrtMemImportFromShareableHandleV2(&f, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &h));
    }
    CT_TRUE(h != NULL);
    size_t g = 0;
    aclrtPhysicalMemProp prop = device_prop(1);
    CT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    char *va = reserve(4 * g);
    CT_OK(aclrtMapMem(va + g, 2 * g, 0, h, 0));
    set_access(va + g, 2 * g, 1);
    expect_pattern(va + g, 2 * g, 7);
    aclrtStream s = stream_new();
    void *local = NULL;
    CT_OK(aclrtMalloc(&local, 2 * g, ACL_MEM_MALLOC_HUGE_FIRST));
    write_pattern(local, 2 * g, 8);
    CT_OK(aclrtMemcpyAsync(va + g, 2 * g, local, 2 * g, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    EXPECT_STREAM_DRAINS(s);
    publish_flag(dir, "written");
    await_flag(dir, "freed", PEER_TIMEOUT_MS);
    expect_pattern(va + g, 2 * g, 9); /* the exporter wrote again, then freed: the memory lives on here */
    CT_OK(aclrtFreePhysical(h));      /* still mapped (11-04:180) */
    aclrtDrvMemHandle late = NULL;    /* the exporter freed: no new import (11-04:817) */
    if (!fabric)
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(sh, 1, &late));
    else
        CT_CODE(ACL_ERROR_RT_PARAM_INVALID,
                aclrtMemImportFromShareableHandleV2(&f, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, 0, &late));
    CT_TRUE(strstr(aclGetRecentErrMsg(), "freed the physical memory") != NULL);
    expect_pattern(va + g, 2 * g, 9);
    CT_OK(aclrtUnmapMem(va + g));
    CT_OK(aclrtReleaseMemAddress(va));
    CT_OK(aclrtFree(local));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

/* The exporter (proc A of CANN's samples 7 and 8): device 0, two granules, pattern 7. */
static void share_with_importer(const char *mode)
{
    const char *dir = case_dir();
    int fabric = strcmp(mode, "fabric") == 0;
    acl_up(0);
    size_t g = 0;
    aclrtPhysicalMemProp prop = device_prop(0);
    CT_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &g));
    aclrtDrvMemHandle h = phys_new(0, 2 * g);
    char *va = reserve(2 * g);
    CT_OK(aclrtMapMem(va, 2 * g, 0, h, 0));
    set_access(va, 2 * g, 0);
    write_pattern(va, 2 * g, 7);
    uint64_t sh = 0;
    const char *args[] = {dir, mode, NULL};
    pid_t child = spawn_role("vmm_importer", args, NULL);
    if (!fabric) {
        CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DEFAULT, &sh));
        declare_vmm_owned(sh);
        int32_t tgid = (int32_t)await_u64(dir, "importer_tgid", PEER_TIMEOUT_MS);
        CT_EQ((int32_t)child, tgid);
        publish_u64(dir, "shareable", sh);
        await_flag(dir, "refused", PEER_TIMEOUT_MS);
        CT_OK(aclrtMemSetPidToShareableHandle(sh, &tgid, 1));
        publish_flag(dir, "listed");
    } else {
        aclrtMemFabricHandle f;
        memset(&f, 0, sizeof f);
        CT_OK(aclrtMemExportToShareableHandleV2(h, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                                ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &f));
        aclrtMemFabricHandle zero;
        memset(&zero, 0, sizeof zero);
        CT_TRUE(memcmp(&f, &zero, sizeof f) != 0);
        CT_OK(aclrtMemSetPidToShareableHandleV2(&f, ACL_MEM_SHARE_HANDLE_TYPE_FABRIC, &(int32_t){4242}, 1));
        memcpy(&sh, f.data + 16, sizeof sh); /* the stub's layout (README-stub.md), to watch its object */
        declare_vmm_owned(sh);
        publish_bytes(dir, "fabric", &f, sizeof f);
    }
    await_flag(dir, "written", PEER_TIMEOUT_MS);
    expect_pattern(va, 2 * g, 8);
    write_pattern(va, 2 * g, 9);
    CT_OK(aclrtFreePhysical(h)); /* while mapped (11-04:180): the export ends, the memory stays */
    publish_flag(dir, "freed");
    expect_exit(child, 0, PEER_TIMEOUT_MS);
    expect_pattern(va, 2 * g, 9);
    CT_TRUE(vmm_object_exists(sh));
    CT_OK(aclrtUnmapMem(va)); /* the last user out unlinks the object */
    CT_TRUE(!vmm_object_exists(sh));
    CT_OK(aclrtReleaseMemAddress(va));
    acl_down();
}

CT_STUB_CASE(vmm_share_across_processes_with_the_pid_whitelist,
             "unlisted pid 207006, bare tgid = getpid, /dev/shm objects, 107000 and the message of a late import "
             "(contract 8.7, 12.7)")
{
    share_with_importer("pid");
}

CT_STUB_CASE(
    vmm_share_across_processes_without_the_pid_whitelist_v2_fabric,
    "the stub's fabric handle layout, /dev/shm objects, 107000 and the message of a late import (contract 12.4, 12.7)")
{
    share_with_importer("fabric");
}

/* vmm_exporter_dies DIR: exports without whitelist, publishes, waits to be killed. */
CT_ROLE(vmm_exporter_dies)
{
    const char *dir = argv[0];
    acl_up(0);
    aclrtDrvMemHandle h = phys_new(0, MIB2);
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    uint64_t sh = 0;
    CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                          &sh));
    publish_u64(dir, "shareable", sh);
    for (;;)
        pause();
    return 0;
}

CT_STUB_CASE(vmm_memory_of_a_dead_exporter_is_reclaimed, "reclaim after deaths (contract S7)")
{
    const char *dir = case_dir();
    const char *args[] = {dir, NULL};
    pid_t child = spawn_role("vmm_exporter_dies", args, NULL);
    uint64_t sh = await_u64(dir, "shareable", PEER_TIMEOUT_MS);
    declare_vmm_owned(sh);
    CT_TRUE(vmm_object_exists(sh));
    kill(child, SIGKILL);
    wait_exit(child, PEER_TIMEOUT_MS);
    acl_up(0); /* aclInit reclaims objects whose users all died */
    CT_TRUE(!vmm_object_exists(sh));
    aclrtDrvMemHandle h = NULL;
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtMemImportFromShareableHandle(sh, 0, &h));
    acl_down();
}

/* ------------------------------------------------------------ the pid-namespace switch */

/* ns_importer DIR: in ACL_STUB_PID_NAMESPACE=container, its bare tgid is not its pid; a whitelist
 * of its getpid() refuses it (IPC memory, notify, VMM), one of its bare tgid lets it in. */
CT_ROLE(ns_importer)
{
    const char *dir = argv[0];
    acl_up(0);
    int32_t tgid = 0;
    CT_OK(aclrtDeviceGetBareTgid(&tgid));
    CT_EQ((int32_t)getpid() + TGID_OFFSET, tgid);
    publish_u64(dir, "pid", (uint64_t)getpid());
    publish_u64(dir, "tgid", (uint64_t)tgid);
    char key[EXPORT_KEY_LEN] = {0}, nkey[EXPORT_KEY_LEN] = {0};
    await_file(dir, "key", key, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    await_file(dir, "nkey", nkey, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    uint64_t sh = await_u64(dir, "shareable", PEER_TIMEOUT_MS);
    void *p = NULL;
    aclrtNotify n = NULL;
    aclrtDrvMemHandle h = NULL;
    CT_CODE(ACL_ERROR_RT_NO_PERMISSION, aclrtIpcMemImportByKey(&p, key, 0));
    CT_CODE(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&n, nkey, 0));
    CT_CODE(ACL_ERROR_RT_NO_PERMISSION, aclrtMemImportFromShareableHandle(sh, 0, &h));
    publish_flag(dir, "refused");
    await_flag(dir, "listed", PEER_TIMEOUT_MS);
    CT_OK(aclrtIpcMemImportByKey(&p, key, 0));
    CT_OK(aclrtNotifyImportByKey(&n, nkey, 0));
    CT_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
    CT_OK(aclrtIpcMemClose(key));
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtFreePhysical(h));
    acl_down();
    return 0;
}

CT_STUB_CASE(vmm_pid_namespace_container_checks_every_whitelist_against_the_bare_tgid,
             "ACL_STUB_PID_NAMESPACE, a stub setting (contract 12.6, 8.7)")
{
    const char *dir = case_dir();
    acl_up(0);
    int32_t self = 0;
    CT_OK(aclrtDeviceGetBareTgid(&self));
    CT_EQ((int32_t)getpid(), self); /* host mode (the default): the bare tgid is the pid */
    void *mem = NULL;
    CT_OK(aclrtMalloc(&mem, 4096, ACL_MEM_MALLOC_HUGE_FIRST));
    char key[EXPORT_KEY_LEN] = {0}, nkey[EXPORT_KEY_LEN] = {0};
    CT_OK(aclrtIpcMemGetExportKey(mem, 4096, key, EXPORT_KEY_LEN, 0));
    declare_key_owned(key);
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, 0));
    CT_OK(aclrtNotifyGetExportKey(n, nkey, EXPORT_KEY_LEN, 0));
    declare_key_owned(nkey);
    aclrtDrvMemHandle h = phys_new(0, MIB2);
    uint64_t sh = 0;
    CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 0, &sh));
    declare_vmm_owned(sh);
    const char *args[] = {dir, NULL};
    const char *env[] = {"ACL_STUB_PID_NAMESPACE=container", NULL};
    pid_t child = spawn_role("ns_importer", args, env);
    int32_t pid = (int32_t)await_u64(dir, "pid", PEER_TIMEOUT_MS);
    int32_t tgid = (int32_t)await_u64(dir, "tgid", PEER_TIMEOUT_MS);
    CT_EQ((int32_t)child, pid);
    /* a program that whitelists getpid(): works on a host, fails in a container */
    CT_OK(aclrtIpcMemSetImportPid(key, &pid, 1));
    CT_OK(aclrtNotifySetImportPid(n, &pid, 1));
    CT_OK(aclrtMemSetPidToShareableHandle(sh, &pid, 1));
    publish_bytes(dir, "key", key, strlen(key));
    publish_bytes(dir, "nkey", nkey, strlen(nkey));
    publish_u64(dir, "shareable", sh);
    await_flag(dir, "refused", PEER_TIMEOUT_MS);
    CT_OK(aclrtIpcMemSetImportPid(key, &tgid, 1));
    CT_OK(aclrtNotifySetImportPid(n, &tgid, 1));
    CT_OK(aclrtMemSetPidToShareableHandle(sh, &tgid, 1));
    publish_flag(dir, "listed");
    expect_exit(child, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtFreePhysical(h));
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtFree(mem));
    acl_down();
}

/* pid_namespace_bad DIR: aclInit refuses a value that is neither host nor container. */
CT_ROLE(pid_namespace_bad)
{
    (void)argv;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclInit(NULL));
    CT_TRUE(strstr(aclGetRecentErrMsg(), "ACL_STUB_PID_NAMESPACE") != NULL);
    return 0;
}

CT_STUB_CASE(vmm_pid_namespace_bad_value_fails_aclInit, "ACL_STUB_PID_NAMESPACE, a stub setting (contract 12.6, 8.7)")
{
    const char *args[] = {case_dir(), NULL};
    const char *bad[] = {"ACL_STUB_PID_NAMESPACE=docker", NULL};
    expect_exit(spawn_role("pid_namespace_bad", args, bad), 0, PEER_TIMEOUT_MS);
    const char *host[] = {"ACL_STUB_PID_NAMESPACE=host", NULL};
    pid_t child = spawn_role("pid_namespace_host", args, host);
    expect_exit(child, 0, PEER_TIMEOUT_MS);
}

/* pid_namespace_host DIR: "host" is the default: the bare tgid is getpid(). */
CT_ROLE(pid_namespace_host)
{
    (void)argv;
    acl_init_only();
    int32_t tgid = 0;
    CT_OK(aclrtDeviceGetBareTgid(&tgid));
    CT_EQ((int32_t)getpid(), tgid);
    acl_down();
    return 0;
}

/* ------------------------------------------------------------ stream order across processes */

/* vmm_ordered_reader DIR: maps the exporter's memory on device 0 and reads it in stream order,
 * behind the exporter's IPC event (first) and notify (second). */
CT_ROLE(vmm_ordered_reader)
{
    const char *dir = argv[0];
    acl_up(0);
    uint64_t sh = await_u64(dir, "shareable", PEER_TIMEOUT_MS);
    aclrtIpcEventHandle eh;
    CT_EQ(sizeof eh, await_file(dir, "event", &eh, sizeof eh, PEER_TIMEOUT_MS));
    char nkey[EXPORT_KEY_LEN] = {0};
    await_file(dir, "nkey", nkey, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    aclrtDrvMemHandle h = NULL;
    CT_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    aclrtEvent e = ipc_open(eh);
    aclrtNotify n = NULL;
    CT_OK(aclrtNotifyImportByKey(&n, nkey, 0));
    void *local = NULL;
    CT_OK(aclrtMalloc(&local, MIB2, ACL_MEM_MALLOC_HUGE_FIRST));
    aclrtStream t = stream_new();
    CT_OK(aclrtStreamWaitEvent(t, e));
    CT_OK(aclrtMemcpyAsync(local, MIB2, va, MIB2, ACL_MEMCPY_DEVICE_TO_DEVICE, t));
    EXPECT_STREAM_BLOCKED(t); /* the exporter's memset is held behind its gate */
    publish_flag(dir, "queued");
    EXPECT_STREAM_DRAINS(t);
    unsigned char *host = malloc(MIB2);
    CT_TRUE(host != NULL);
    CT_OK(aclrtMemcpy(host, MIB2, local, MIB2, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < MIB2; i++)
        if (host[i] != 0x77)
            CT_FAIL("byte %zu is 0x%02x after the event: the copy ran before the exporter's memset", i, host[i]);
    CT_OK(aclrtWaitAndResetNotify(n, t, 10));
    CT_OK(aclrtMemcpyAsync(local, MIB2, va, MIB2, ACL_MEMCPY_DEVICE_TO_DEVICE, t));
    publish_flag(dir, "waiting");
    EXPECT_STREAM_DRAINS(t);
    CT_OK(aclrtMemcpy(host, MIB2, local, MIB2, ACL_MEMCPY_DEVICE_TO_HOST));
    for (size_t i = 0; i < MIB2; i++)
        if (host[i] != 0x55)
            CT_FAIL("byte %zu is 0x%02x after the notify: the copy ran before the exporter's memset", i, host[i]);
    free(host);
    CT_OK(aclrtDestroyStream(t));
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtFree(local));
    CT_OK(aclrtUnmapMem(va));
    CT_OK(aclrtReleaseMemAddress(va));
    CT_OK(aclrtFreePhysical(h));
    acl_down();
    return 0;
}

CT_STUB_CASE(vmm_mapped_memory_in_stream_order_with_ipc_events_and_notifies,
             "maps without aclrtMemSetAccess, which the stub does not enforce; /dev/shm objects (contract 12.7)")
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtDrvMemHandle h = phys_new(0, MIB2);
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    uint64_t sh = 0;
    CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION,
                                          &sh));
    declare_vmm_owned(sh);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, 0));
    char nkey[EXPORT_KEY_LEN] = {0};
    CT_OK(aclrtNotifyGetExportKey(n, nkey, EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION));
    declare_key_owned(nkey);
    struct gate *g = gate_hold(s);
    CT_OK(aclrtMemsetAsync(va, MIB2, 0x77, MIB2, s));
    CT_OK(aclrtRecordEvent(e, s));
    aclrtIpcEventHandle eh = handle_of(e);
    publish_u64(dir, "shareable", sh);
    publish_bytes(dir, "event", &eh, sizeof eh);
    publish_bytes(dir, "nkey", nkey, strlen(nkey));
    const char *args[] = {dir, NULL};
    pid_t child = spawn_role("vmm_ordered_reader", args, NULL);
    await_flag(dir, "queued", PEER_TIMEOUT_MS);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    await_flag(dir, "waiting", PEER_TIMEOUT_MS);
    sleep_ms(BLOCK_PROBE_MS); /* the reader's copy waits on the notify meanwhile */
    CT_OK(aclrtMemsetAsync(va, MIB2, 0x55, MIB2, s));
    CT_OK(aclrtRecordNotify(n, s));
    EXPECT_STREAM_DRAINS(s);
    expect_exit(child, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtUnmapMem(va));
    CT_OK(aclrtReleaseMemAddress(va));
    CT_OK(aclrtFreePhysical(h));
    CT_TRUE(!vmm_object_exists(sh));
    acl_down();
}

/* An aclrtUnmapMem that waits for a queued copy while another thread finalizes: both return, the
 * waiter's mapping is torn down once (ASan sees no use after free). aclFinalize cancels nothing
 * (CANN acl.cpp:547-627, contract S18): the copy stays queued behind the wait until the next aclInit
 * drops it, and after that nothing is left in /dev/shm. */
CT_STUB_CASE(vmm_unmap_waiting_while_acl_finalize_runs,
             "aclrtUnmapMem waits for queued copies (contract 12.7); the next aclInit drops them (S18)")
{
    acl_up(0);
    aclrtDrvMemHandle h = phys_new(0, MIB2);
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    uint64_t sh = 0;
    CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &sh));
    declare_vmm_owned(sh);
    aclrtStream s = stream_new();
    aclrtNotify n = NULL; /* never recorded: the stream waits until the next aclInit drops its work */
    CT_OK(aclrtCreateNotify(&n, 0));
    CT_OK(aclrtWaitAndResetNotify(n, s, 0));
    void *dst = NULL;
    CT_OK(aclrtMalloc(&dst, MIB2, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_OK(aclrtMemcpyAsync(dst, MIB2, va, MIB2, ACL_MEMCPY_DEVICE_TO_DEVICE, s));
    struct unmapper u = {.va = va, .rc = -1};
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, unmap_thread, &u) == 0);
    sleep_ms(BLOCK_PROBE_MS);
    CT_TRUE(__atomic_load_n(&u.returned_at, __ATOMIC_ACQUIRE) == 0);
    acl_down(); /* the wait and the copy stay queued (S18) */
    CT_TRUE(pthread_join(t, NULL) == 0);
    CT_TRUE(u.rc == ACL_SUCCESS || u.rc == ACL_ERROR_UNINITIALIZE);
    acl_up(0); /* drops the queued work of the finalized runtime and releases its objects */
    CT_TRUE(!vmm_object_exists(sh));
    acl_down();
}

/* vmm_importer_dies DIR: imports and maps the exporter's memory, says so, waits to be killed. */
CT_ROLE(vmm_importer_dies)
{
    const char *dir = argv[0];
    acl_up(0);
    uint64_t sh = await_u64(dir, "shareable", PEER_TIMEOUT_MS);
    aclrtDrvMemHandle h = NULL;
    CT_OK(aclrtMemImportFromShareableHandle(sh, 0, &h));
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    expect_pattern(va, MIB2, 5);
    publish_flag(dir, "mapped");
    for (;;)
        pause();
    return 0;
}

/* An importer killed while it maps the memory does not keep the object alive: once the exporter
 * frees and unmaps, the object is gone from /dev/shm (its dead entry is dropped from the users table). */
CT_STUB_CASE(vmm_memory_of_a_dead_importer_goes_with_the_exporter,
             "the stub's /dev/shm objects after a death (contract S7, 12.4)")
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtDrvMemHandle h = phys_new(0, MIB2);
    char *va = reserve(MIB2);
    CT_OK(aclrtMapMem(va, MIB2, 0, h, 0));
    write_pattern(va, MIB2, 5);
    uint64_t sh = 0;
    CT_OK(aclrtMemExportToShareableHandle(h, ACL_MEM_HANDLE_TYPE_NONE, 1, &sh));
    declare_vmm_owned(sh);
    const char *args[] = {dir, NULL};
    pid_t child = spawn_role("vmm_importer_dies", args, NULL);
    publish_u64(dir, "shareable", sh);
    await_flag(dir, "mapped", PEER_TIMEOUT_MS);
    kill(child, SIGKILL);
    wait_exit(child, PEER_TIMEOUT_MS);
    expect_pattern(va, MIB2, 5); /* the exporter's mapping is untouched */
    CT_OK(aclrtFreePhysical(h));
    CT_TRUE(vmm_object_exists(sh));
    CT_OK(aclrtUnmapMem(va));
    CT_TRUE(!vmm_object_exists(sh));
    CT_OK(aclrtReleaseMemAddress(va));
    acl_down();
}
