/*
 * host_memory.c - registered host memory (aclrtHostRegister, ...V2,
 * aclrtHostUnregister, aclrtHostGetDevicePointer), pointer attributes,
 * aclrtMallocHostWithCfg, aclrtMallocAlign32 and aclrtGetMemInfo.
 *
 * CANN keeps registered ranges in two process-wide maps, pinned and mapped
 * (src/runtime/core/src/common/register_memory.cc). The stub keeps one list
 * under rt.lock with both bits per range. On a CPU the device reaches host
 * memory at the host address, so the device pointer of a mapped range is the
 * host pointer itself (stub rule, docs/acl-contract.md 10.4). Registered
 * ranges count as page-locked for async copies (memory.c involves_pageable)
 * and as device-accessible memory (memory.c check_operand).
 */
#include "host_memory.h"

#include "memory.h"
#include "runtime.h"

#include <stdint.h>
#include <stdlib.h>

struct registered {
    struct registered *next;
    char *base;
    uint64_t size;
    int mapped; /* has a device pointer (V1 always; V2 with MAPPED/IOMEMORY/READONLY) */
    int pinned; /* V2 with PINNED; V1 ranges are page-locked as well */
};

static struct registered *ranges; /* rt.lock */

/* register_memory.cc:42-59 FindOverlappingMemory: any byte in common. */
static struct registered *find_overlap(const char *p, uint64_t size)
{
    uintptr_t start = (uintptr_t)p, end = start + size - 1;
    for (struct registered *r = ranges; r; r = r->next) {
        uintptr_t rs = (uintptr_t)r->base, re = rs + r->size - 1;
        if (start <= re && rs <= end)
            return r;
    }
    return NULL;
}

static struct registered *find_base(const void *p)
{
    for (struct registered *r = ranges; r; r = r->next)
        if (r->base == p)
            return r;
    return NULL;
}

int host_memory_is_registered(const void *p, size_t n)
{
    uintptr_t start = (uintptr_t)p;
    for (struct registered *r = ranges; r; r = r->next) {
        uintptr_t rs = (uintptr_t)r->base;
        if (start >= rs && start - rs < r->size)
            return n <= r->size - (start - rs);
    }
    return 0;
}

void host_memory_shutdown(void)
{
    while (ranges) {
        struct registered *r = ranges;
        ranges = r->next;
        free(r);
    }
}

/* Lists [ptr, +size) unless it overlaps a registered range: 507910 (rt.lock held). */
static aclError add_range(const char *call, void *ptr, uint64_t size, int mapped, int pinned)
{
    /* register_memory.cc:61-77 CheckMemoryRangeRegistered, called by ApiImpl::HostRegisterV2
     * (api_impl.cc:2598); for aclrtHostRegister the driver decides (stub rule: the same check) */
    if ((uintptr_t)ptr + (size - 1) < (uintptr_t)ptr)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "[%p, +%llu) wraps around the address space", ptr,
                         (unsigned long long)size);
    struct registered *old = find_overlap(ptr, size);
    if (old)
        return stub_fail(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, call,
                         "[%p, +%llu) overlaps the registered range [%p, +%llu): unregister that one first "
                         "(aclrtHostUnregister of its start)",
                         ptr, (unsigned long long)size, (void *)old->base, (unsigned long long)old->size);
    struct registered *r = calloc(1, sizeof *r);
    if (!r)
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    r->base = ptr;
    r->size = size;
    r->mapped = mapped;
    r->pinned = pinned;
    r->next = ranges;
    ranges = r;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:488 */
STUB_EXPORT aclError aclrtHostRegister(void *ptr, uint64_t size, aclrtHostRegisterType type, void **devPtr)
{
    static const char *call = "aclrtHostRegister";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    uint32_t valid = (uint32_t)ACL_HOST_REGISTER_IOMEMORY | (uint32_t)ACL_HOST_REGISTER_READONLY;
    /* memory.cpp:488-498: ptr, devPtr NULL, size 0 (100000) */
    if (!ptr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ptr is NULL");
    else if (!devPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devPtr is NULL");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0: register at least 1 byte");
    /* api_error.cc:1997-2003: bits other than IOMEMORY|READONLY -> RT_ERROR_FEATURE_NOT_SUPPORT */
    else if ((uint32_t)type & ~valid)
        rc = stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                       "type 0x%x is not supported: use ACL_HOST_REGISTER_MAPPED (0), or IOMEMORY / READONLY",
                       (unsigned)type);
    /* api_impl.cc:2560-2561: the current context */
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if ((rc = add_range(call, ptr, size, 1, 1)) == ACL_SUCCESS)
        *devPtr = ptr;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:500 */
STUB_EXPORT aclError aclrtHostRegisterV2(void *ptr, uint64_t size, uint32_t flag)
{
    static const char *call = "aclrtHostRegisterV2";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    const uint32_t map_bits = (uint32_t)(ACL_HOST_REG_MAPPED | ACL_HOST_REG_IOMEMORY | ACL_HOST_REG_READONLY);
    const uint32_t valid = map_bits | (uint32_t)ACL_HOST_REG_PINNED;
    /* memory.cpp:500-508: ptr NULL, size 0 (100000) */
    if (!ptr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ptr is NULL");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0: register at least 1 byte");
    /* api_error.cc:2016-2022: at least one valid bit and no other (107000) */
    else if (!(flag & valid) || (flag & ~valid))
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flag 0x%x is invalid: OR together ACL_HOST_REG_MAPPED, _IOMEMORY, _READONLY and _PINNED "
                       "(at least one)",
                       (unsigned)flag);
    /* api_impl.cc:2577-2578: the current context; :2598: the overlap check */
    else if ((rc = rt_require_device(call, &d)))
        ;
    else
        rc = add_range(call, ptr, size, (flag & map_bits) != 0, (flag & ACL_HOST_REG_PINNED) != 0);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:521 */
STUB_EXPORT aclError aclrtHostUnregister(void *ptr)
{
    static const char *call = "aclrtHostUnregister";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    struct registered *r = NULL;
    /* memory.cpp:521-528: NULL (100000); api_impl.cc:2616-2617: the current context;
     * :2638-2641: not the start of a registered range -> RT_ERROR_HOST_MEMORY_NOT_REGISTERED */
    if (!ptr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ptr is NULL");
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (!(r = find_base(ptr)))
        rc = stub_fail(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, call,
                       "%p is not the start of a registered range (aclrtHostRegister / aclrtHostRegisterV2; "
                       "unregistered already?)",
                       ptr);
    else {
        for (struct registered **pp = &ranges; *pp; pp = &(*pp)->next) {
            if (*pp == r) {
                *pp = r->next;
                break;
            }
        }
        free(r);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:510 */
STUB_EXPORT aclError aclrtHostGetDevicePointer(void *pHost, void **pDevice, uint32_t flag)
{
    static const char *call = "aclrtHostGetDevicePointer";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    struct registered *r = NULL;
    /* memory.cpp:510-519: NULLs, then flag != 0 (100000, ACL_CHECK_RESERVED_PARAM_REPORT_RET) */
    if (!pHost)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pHost is NULL");
    else if (!pDevice)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pDevice is NULL");
    else if (flag != 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "flag %u is reserved: pass 0", (unsigned)flag);
    /* api_impl.cc:2650-2651: the current context; :2655-2660 (register_memory.cc:147-158
     * GetMappedDevicePointer): only the start of a mapped range has a device pointer */
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (!(r = find_base(pHost)) || !r->mapped)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not the start of a mapped registered range: register it with aclrtHostRegister, or "
                       "aclrtHostRegisterV2 with ACL_HOST_REG_MAPPED",
                       pHost);
    else
        *pDevice = r->base;
    rt_leave();
    return rc;
}

void host_memory_attributes(const void *ptr, aclrtPtrAttributes *out)
{
    const struct mem_region *r = memory_region_touching(ptr);
    aclrtPtrAttributes a = {.pageSize = (uint32_t)memory_page_size()};
    if (r && (r->kind == MEM_DEVICE || r->kind == MEM_IMPORTED)) {
        a.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
        a.location.id = (uint32_t)r->device;
    } else if ((r && r->kind == MEM_HOST) || host_memory_is_registered(ptr, 1))
        a.location.type = ACL_MEM_LOCATION_TYPE_HOST;
    else
        a.location.type = ACL_MEM_LOCATION_TYPE_UNREGISTERED;
    *out = a;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:446 */
STUB_EXPORT aclError aclrtPointerGetAttributes(const void *ptr, aclrtPtrAttributes *attributes)
{
    static const char *call = "aclrtPointerGetAttributes";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:446-454: NULLs (100000). ApiImpl::PtrGetAttributes (api_impl.cc:3316-3325)
     * needs no context. The answer is the driver's: the stub's rules are in contract 10.3. */
    if (!ptr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ptr is NULL");
    else if (!attributes)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "attributes is NULL");
    else
        host_memory_attributes(ptr, attributes);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:434 */
STUB_EXPORT aclError aclrtMallocHostWithCfg(void **ptr, uint64_t size, aclrtMallocConfig *cfg)
{
    static const char *call = "aclrtMallocHostWithCfg";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    void *p = NULL;
    struct mem_region *r = NULL;
    /* memory.cpp:434-444: ptr NULL, size 0 (100000); api_impl.cc:2489-2494: cfg->attrs NULL
     * (107000; the attributes themselves are not checked: stub rule); :2496-2497: the context */
    if (!ptr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ptr is NULL");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0: allocate at least 1 byte");
    else if (cfg && !cfg->attrs)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "cfg->attrs is NULL: pass cfg NULL, or attributes");
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (size > SIZE_MAX / 2 || posix_memalign(&p, memory_page_size(), (size_t)size) != 0)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot allocate %llu bytes of host memory",
                       (unsigned long long)size);
    else if (memory_region_new(MEM_HOST, p, (size_t)size, -1, NULL, &r) != 0) {
        free(p);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    } else
        *ptr = p; /* freed with aclrtFreeHost, as aclrtMallocHost memory */
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:383 */
STUB_EXPORT aclError aclrtMallocAlign32(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    static const char *call = "aclrtMallocAlign32";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    /* memory.cpp:383-387: aclMallocMemInner without the padding (isPadding false): the
     * same checks as aclrtMalloc (contract 8.2), only 32 bytes of alignment to overflow */
    if (!devPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devPtr is NULL");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0: allocate at least 1 byte");
    else if (size > SIZE_MAX - 32)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size %zu overflows when aligned to 32 bytes: allocate less",
                       size);
    else if (size > SIZE_MAX / 2)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "size %zu is too large", size);
    else
        rc = rt_require_device(call, &d);
    rt_leave();
    if (rc)
        return rc;
    /* every check aclrtMalloc makes has passed: only an allocation failure remains */
    return aclrtMalloc(devPtr, size, policy);
}

/* The emulated device's memory (stub rule): 64 GiB, as an Atlas A2 HBM. */
#define STUB_DEVICE_MEMORY_BYTES (64ull << 30)

/* CANN: src/acl/aclrt_impl/memory.cpp:963 */
STUB_EXPORT aclError aclrtGetMemInfo(aclrtMemAttr attr, size_t *free, size_t *total)
{
    static const char *call = "aclrtGetMemInfo";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    /* memory.cpp:963-977: NULLs (100000); api_error.cc:3187-3190: attr outside
     * [ACL_DDR_MEM, ACL_MEM_P2P_HUGE1G] -> RT_ERROR_INVALID_MEMORY_TYPE (107016);
     * api_impl.cc:3296-3297: the current context */
    if (!free)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "free is NULL");
    else if (!total)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "total is NULL");
    else if ((int)attr < (int)ACL_DDR_MEM || (int)attr > (int)ACL_MEM_P2P_HUGE1G)
        rc = stub_fail(ACL_ERROR_RT_INVALID_MEMORY_TYPE, call,
                       "attr %d is not an aclrtMemAttr: use ACL_DDR_MEM (0) .. ACL_MEM_P2P_HUGE1G (17)", (int)attr);
    else if ((rc = rt_require_device(call, &d)) == ACL_SUCCESS) {
        uint64_t used = memory_device_bytes(d);
        *total = (size_t)STUB_DEVICE_MEMORY_BYTES;
        *free = used >= STUB_DEVICE_MEMORY_BYTES ? 0 : (size_t)(STUB_DEVICE_MEMORY_BYTES - used);
    }
    rt_leave();
    return rc;
}
