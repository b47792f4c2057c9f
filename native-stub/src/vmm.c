/*
 * vmm.c - virtual memory management: physical handles, reservations,
 * mappings, access, address queries and shareable handles (vmm.h).
 *
 * Sources (hicann/runtime): the acl layer src/acl/aclrt_impl/memory.cpp
 * (NULL and value checks, 100000), the rt layer
 * src/runtime/api/impl/api_error.cc (107000, device ids 107001) and
 * api_impl.cc (current context, 107002). What the driver (hal*, not in the
 * repository) decides is a stub rule after docs/zh/api_ref/
 * 11-04_virtual_memory_management.md (below "11-04:<line>"), listed in
 * docs/acl-contract.md section 12.
 *
 * Process-local state (handles, reservations, mappings) is guarded by
 * rt.lock; the export state sits in the physical object under its shm lock.
 */
#include "vmm.h"

#include "device_ids.h"
#include "explore.h"
#include "ipc_whitelist.h"
#include "memory.h"
#include "platform.h"
#include "runtime.h"
#include "shm.h"
#include "sync.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* Shared state of one physical allocation (after the shm_header). */
struct vmm_shared {
    struct shm_header hdr;
    uint32_t exported; /* a shareable handle is live: set by the export, cleared when the exporter frees */
    int32_t device;    /* the allocating device */
    struct ipc_whitelist whitelist;
    uint64_t bytes; /* usable bytes (a whole number of granules) */
    uint32_t mem_attr;
};

/* A physical memory handle of this process (aclrtMallocPhysical or an import). */
struct vmm_phys {
    struct vmm_phys *next;
    uint64_t id; /* the handle's tag: handles are never reused */
    struct shm_object *shm;
    int imported;
    int exported; /* this process exported it (once: 11-04:683) */
    int device;
    size_t bytes;
    int user_refs; /* 1 at creation, +1 per aclrtMemRetainAllocationHandle, -1 per aclrtFreePhysical */
    int maps;      /* live mappings: the memory outlives aclrtFreePhysical until they are gone (11-04:180) */
};

/* One aclrtReserveMemAddress range. */
struct vmm_reservation {
    struct vmm_reservation *next;
    char *base;
    size_t size;     /* as asked */
    size_t reserved; /* what is reserved (whole pages) */
    int mappings;
    int device;   /* of its mappings, -1 while it has none (11-04:463) */
    int imported; /* its mappings are of imported handles (11-04:463) */
};

/* One aclrtMapMem. */
struct vmm_mapping {
    struct vmm_mapping *next;
    struct vmm_reservation *res;
    struct vmm_phys *phys;
    struct mem_region *region; /* the MEM_MAPPED range of memory.c */
    int unmapping;             /* an aclrtUnmapMem waits for its copies: no longer a live mapping */
    int finished;              /* aclFinalize unmapped it while that aclrtUnmapMem waited */
};

static struct vmm_phys *handles;            /* rt.lock */
static struct vmm_reservation *reservations; /* rt.lock */
static struct vmm_mapping *mappings;         /* rt.lock */
static uint64_t next_handle_id;              /* rt.lock */

/* Handles given out are tagged ids, as streams and events are (runtime.h). */
#define VMM_HANDLE_BASE 0x00005d1000000000ull
#define GRANULE (2ull << 20)        /* 2 MiB: every memory attribute but the 1G ones */
#define GRANULE_1G (1ull << 30)     /* ACL_*_HUGE1G */
#define EXPECT_LOW (16ull << 40)    /* expectPtr must lie in [16T, 24T) (11-04:256) */
#define EXPECT_HIGH (24ull << 40)
#define FABRIC_MAGIC "cannstub-fabric"

static void *handle_of(const struct vmm_phys *p)
{
    return (void *)(uintptr_t)(VMM_HANDLE_BASE | p->id);
}

/* The live handle (user_refs > 0) behind h, or NULL. */
static struct vmm_phys *find_handle(aclrtDrvMemHandle h)
{
    for (struct vmm_phys *p = handles; p; p = p->next)
        if (p->user_refs > 0 && handle_of(p) == h)
            return p;
    return NULL;
}

static struct vmm_shared *shared_of(const struct vmm_phys *p)
{
    return (struct vmm_shared *)p->shm->hdr;
}

static size_t data_offset(void)
{
    size_t page = memory_page_size();
    return (sizeof(struct vmm_shared) + page - 1) / page * page;
}

static int is_1g(aclrtMemAttr a)
{
    return a == ACL_HBM_MEM_HUGE1G || a == ACL_MEM_HUGE1G || a == ACL_MEM_P2P_HUGE1G || a == ACL_HBM_MEM_P2P_HUGE1G;
}

/* Frees p once nothing uses it: no user reference and no mapping. */
static void phys_unref_check(struct vmm_phys *p)
{
    if (p->user_refs > 0 || p->maps > 0)
        return;
    for (struct vmm_phys **pp = &handles; *pp; pp = &(*pp)->next) {
        if (*pp == p) {
            *pp = p->next;
            break;
        }
    }
    shm_release(p->shm); /* the last process out unlinks the object */
    free(p);
}

/* ------------------------------------------------------------ properties and granularity */

/* The acl layer's property checks, shared by aclrtMallocPhysical and
 * aclrtMemGetAllocationGranularity (memory.cpp:1096-1141 and 1311-1346):
 * DDR attributes on a device location, then attributes without a handler
 * (memAttrHandlers, memory.cpp:51-159), 100000. */
static aclError check_mem_attr(const char *call, const aclrtPhysicalMemProp *prop)
{
    aclrtMemAttr a = prop->memAttr;
    int ddr =
        a == ACL_DDR_MEM_HUGE || a == ACL_DDR_MEM_NORMAL || a == ACL_DDR_MEM_P2P_HUGE || a == ACL_DDR_MEM_P2P_NORMAL;
    int handled = ddr || a == ACL_HBM_MEM_HUGE || a == ACL_HBM_MEM_NORMAL || a == ACL_HBM_MEM_HUGE1G ||
                  (a >= ACL_MEM_NORMAL && a <= ACL_MEM_P2P_HUGE1G);
    if (prop->location.type == ACL_MEM_LOCATION_TYPE_DEVICE && ddr)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call,
                         "memAttr %d (ACL_DDR_MEM_*) is host memory only: use location type "
                         "ACL_MEM_LOCATION_TYPE_HOST or _HOST_NUMA, or an ACL_HBM_MEM_* / ACL_MEM_* attribute",
                         (int)a);
    if (!handled)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call,
                         "memAttr %d is not supported: use ACL_MEM_NORMAL, ACL_MEM_HUGE, ACL_MEM_HUGE1G, "
                         "ACL_MEM_P2P_*, ACL_HBM_MEM_HUGE, ACL_HBM_MEM_NORMAL or ACL_HBM_MEM_HUGE1G",
                         (int)a);
    return ACL_SUCCESS;
}

/* The rt layer's device id (api_error.cc:6340-6349 MallocPhysical, 6502-6510
 * GetAllocationGranularity): a device location's id must be a device, 107001. */
static aclError check_location_device(const char *call, const aclrtPhysicalMemProp *prop)
{
    if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return ACL_SUCCESS;
    return device_id_check(call, "prop->location.id", prop->location.id, rt.device_count);
}

/* Host locations are a stub rule: physical host memory is not emulated. */
static aclError check_device_location(const char *call, const aclrtPhysicalMemProp *prop)
{
    if (prop->location.type != ACL_MEM_LOCATION_TYPE_DEVICE)
        return stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                         "location type %d: the stub emulates device physical memory only "
                         "(ACL_MEM_LOCATION_TYPE_DEVICE)",
                         (int)prop->location.type);
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1299 */
STUB_EXPORT aclError aclrtMemGetAllocationGranularity(aclrtPhysicalMemProp *prop, aclrtMemGranularityOptions option,
                                                      size_t *granularity)
{
    static const char *call = "aclrtMemGetAllocationGranularity";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:1299-1350: prop, granularity NULL; the attribute checks; then
     * the device id (api_error.cc:6502-6510); the option is the driver's (stub rule) */
    if (!prop || !granularity)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !prop ? "prop" : "granularity");
    else if ((rc = check_mem_attr(call, prop)) || (rc = check_location_device(call, prop)) ||
             (rc = check_device_location(call, prop)))
        ;
    else if (option != ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM && option != ACL_RT_MEM_ALLOC_GRANULARITY_RECOMMENDED)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "option %d is invalid: use ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM or _RECOMMENDED", (int)option);
    else
        *granularity = is_1g(prop->memAttr) ? GRANULE_1G : GRANULE;
    rt_leave();
    return rc;
}

/* ------------------------------------------------------------ physical memory */

static aclError new_handle(struct shm_object *obj, int imported, int device, size_t bytes, struct vmm_phys **out)
{
    struct vmm_phys *p = calloc(1, sizeof *p);
    if (!p)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    p->id = ++next_handle_id;
    p->shm = obj;
    p->imported = imported;
    p->device = device;
    p->bytes = bytes;
    p->user_refs = 1;
    p->next = handles;
    handles = p;
    *out = p;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1073 */
STUB_EXPORT aclError aclrtMallocPhysical(aclrtDrvMemHandle *handle, size_t size, const aclrtPhysicalMemProp *prop,
                                         uint64_t flags)
{
    static const char *call = "aclrtMallocPhysical";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct shm_object *obj = NULL;
    struct vmm_phys *p = NULL;
    /* memory.cpp:1073-1146 in order: NULLs, size, flags, handleType,
     * allocationType, location type, the attribute; api_error.cc:6335-6368:
     * the device id */
    if (!handle || !prop)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !handle ? "handle" : "prop");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0");
    else if (flags != 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "flags 0x%llx: reserved, pass 0", (unsigned long long)flags);
    else if (prop->handleType != ACL_MEM_HANDLE_TYPE_NONE)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "prop->handleType %d: use ACL_MEM_HANDLE_TYPE_NONE",
                       (int)prop->handleType);
    else if (prop->allocationType != ACL_MEM_ALLOCATION_TYPE_PINNED)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "prop->allocationType %d: use ACL_MEM_ALLOCATION_TYPE_PINNED",
                       (int)prop->allocationType);
    else if (prop->location.type == ACL_MEM_LOCATION_TYPE_UNREGISTERED ||
             prop->location.type == ACL_MEM_LOCATION_TYPE_MANAGED)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call,
                       "prop->location.type %d (UNREGISTERED or MANAGED) cannot hold physical memory",
                       (int)prop->location.type);
    else if ((rc = check_mem_attr(call, prop)) || (rc = check_location_device(call, prop)) ||
             (rc = check_device_location(call, prop)))
        ;
    else {
        /* the size is rounded up to the granularity: 11-04 (aclrtMallocPhysical, size) asks
         * for aligned sizes "to save memory", so unaligned ones are not refused */
        size_t g = is_1g(prop->memAttr) ? GRANULE_1G : GRANULE;
        size_t bytes = size > SIZE_MAX - g ? 0 : (size + g - 1) / g * g;
        if (bytes == 0 || bytes > SIZE_MAX / 2)
            rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "size %zu is too large", size);
        else if (shm_create(SHM_VMM_PREFIX, data_offset() + bytes, SHM_RESERVE_ALL, NULL, NULL, &obj) != 0)
            rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call,
                           "cannot create the shared-memory object of %zu bytes in /dev/shm", bytes);
        else {
            struct vmm_shared *m = (struct vmm_shared *)obj->hdr;
            m->device = (int32_t)prop->location.id;
            m->bytes = bytes;
            m->mem_attr = (uint32_t)prop->memAttr;
            if (new_handle(obj, 0, (int)prop->location.id, bytes, &p) != ACL_SUCCESS) {
                shm_release(obj);
                rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
            } else
                *handle = handle_of(p);
        }
    }
    rt_leave();
    return rc;
}

/* Ends the export of p for new importers (the exporter freed its handle: 11-04:673). */
static void end_export(struct vmm_phys *p)
{
    shm_lock(p->shm);
    shared_of(p)->exported = 0;
    shm_unlock(p->shm);
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1148 */
STUB_EXPORT aclError aclrtFreePhysical(aclrtDrvMemHandle handle)
{
    static const char *call = "aclrtFreePhysical";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct vmm_phys *p = handle ? find_handle(handle) : NULL;
    /* memory.cpp:1148-1158: NULL; the rest is the driver's */
    if (!handle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "handle is NULL");
    else if (!p)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not a live physical memory handle of this process (freed already? one "
                       "aclrtFreePhysical per aclrtMallocPhysical, import and aclrtMemRetainAllocationHandle)",
                       handle);
    else {
        /* mapped memory stays until its last aclrtUnmapMem (11-04:180) */
        if (--p->user_refs == 0 && p->exported)
            end_export(p);
        phys_unref_check(p);
    }
    rt_leave();
    return rc;
}

/* ------------------------------------------------------------ reservations */

static struct vmm_reservation *reservation_at(const void *p)
{
    for (struct vmm_reservation *r = reservations; r; r = r->next)
        if (r->base == p)
            return r;
    return NULL;
}

static struct vmm_reservation *reservation_holding(const char *p, size_t size)
{
    for (struct vmm_reservation *r = reservations; r; r = r->next)
        if (p >= r->base && p < r->base + r->size)
            return (size_t)(r->base + r->size - p) >= size ? r : NULL;
    return NULL;
}

/* The acl layer's checks of both reserve calls (memory.cpp:1049-1053, 2045-2049). */
static aclError check_reserve_args(const char *call, void **virPtr, size_t size, uint64_t flags)
{
    if (!virPtr)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "virPtr is NULL");
    if (size == 0)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0");
    if (flags != 0 && flags != 1) /* 1 is kept for compatibility (memory.cpp:1052) */
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "flags 0x%llx are invalid: pass 0", (unsigned long long)flags);
    return ACL_SUCCESS;
}

static aclError reserve(const char *call, void **virPtr, size_t size, size_t alignment, void *expectPtr)
{
    size_t page = memory_page_size();
    if (alignment != 0) /* 11-04:255 (reserved, 0 only) */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "alignment %zu: reserved, pass 0", alignment);
    if (size > SIZE_MAX - GRANULE_1G)
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "size %zu is too large", size);
    size_t reserved = (size + page - 1) / page * page;
    struct vmm_reservation *r = calloc(1, sizeof *r);
    if (!r)
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    void *base = plat_vm_reserve(expectPtr, reserved, GRANULE);
    if (!base) {
        int err = errno;
        free(r);
        if (expectPtr)
            return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "[%p, +%zu) is not free in this process (%s)", expectPtr,
                             size, strerror(err));
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot reserve %zu bytes of address space (%s)", size,
                         strerror(err));
    }
    r->base = base;
    r->size = size;
    r->reserved = reserved;
    r->device = -1;
    r->next = reservations;
    reservations = r;
    *virPtr = base;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1044 */
STUB_EXPORT aclError aclrtReserveMemAddress(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                            uint64_t flags)
{
    static const char *call = "aclrtReserveMemAddress";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uintptr_t at = (uintptr_t)expectPtr;
    uintptr_t align = size < GRANULE_1G ? GRANULE : GRANULE_1G;
    if ((rc = check_reserve_args(call, virPtr, size, flags)))
        ;
    else if (expectPtr && (at < EXPECT_LOW || at >= EXPECT_HIGH || size > EXPECT_HIGH - at || at % align != 0))
        /* 11-04:256: in [16T, 24T), aligned to 1G when size is 1G or more (the stub: 2M below) */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "expectPtr %p: a fixed address must lie in [16T, 24T) (0x%llx..0x%llx) and be aligned to %s, "
                       "or pass NULL",
                       expectPtr, (unsigned long long)EXPECT_LOW, (unsigned long long)EXPECT_HIGH,
                       align == GRANULE ? "2M" : "1G");
    else
        rc = reserve(call, virPtr, size, alignment, expectPtr);
    rt_leave();
    return rc;
}

/* Bit 9 of the flags: CANN's FLAG_START_DYNAMIC_ALLOC_MEM (memory.cpp:2051). */
/* CANN: src/acl/aclrt_impl/memory.cpp:2040 */
STUB_EXPORT aclError aclrtReserveMemAddressNoUCMemory(void **virPtr, size_t size, size_t alignment, void *expectPtr,
                                                      uint64_t flags)
{
    static const char *call = "aclrtReserveMemAddressNoUCMemory";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if ((rc = check_reserve_args(call, virPtr, size, flags)))
        ;
    else if (!expectPtr) /* acl_rt.h:5858 "return not support if be nullptr" */
        rc = stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                       "expectPtr is NULL: this call reserves only at an address you give (40T-224T suggested)");
    else if (size % GRANULE_1G != 0 || (uintptr_t)expectPtr % GRANULE_1G != 0) /* 11-04:327 */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "size %zu and expectPtr %p must be whole multiples of 1G (1073741824)", size, expectPtr);
    else
        rc = reserve(call, virPtr, size, alignment, expectPtr);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1061 */
STUB_EXPORT aclError aclrtReleaseMemAddress(void *virPtr)
{
    static const char *call = "aclrtReleaseMemAddress";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct vmm_reservation *r = virPtr ? reservation_at(virPtr) : NULL;
    /* memory.cpp:1061-1071: NULL; the rest is the driver's */
    if (!virPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "virPtr is NULL");
    else if (!r)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not the start of a live reservation of aclrtReserveMemAddress (released already?)",
                       virPtr);
    else if (r->mappings > 0) /* 11-04:403: unmap first */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p still has %d mapping(s): aclrtUnmapMem them before releasing the address range", virPtr,
                       r->mappings);
    else {
        for (struct vmm_reservation **pp = &reservations; *pp; pp = &(*pp)->next) {
            if (*pp == r) {
                *pp = r->next;
                break;
            }
        }
        plat_vm_release(r->base, r->reserved);
        free(r);
    }
    rt_leave();
    return rc;
}

/* ------------------------------------------------------------ mappings */

static struct vmm_mapping *mapping_at(const void *p)
{
    for (struct vmm_mapping *m = mappings; m; m = m->next)
        if (m->region->base == p && !m->unmapping)
            return m;
    return NULL;
}

static int overlaps_mapping(const char *p, size_t size)
{
    for (struct vmm_mapping *m = mappings; m; m = m->next)
        if (p < m->region->base + m->region->bytes && m->region->base < p + size)
            return 1;
    return 0;
}

/* The driver's checks of aclrtMapMem (stub rules after 11-04:461-463). */
static aclError check_map(const char *call, char *va, size_t size, size_t offset, const struct vmm_phys *p,
                          struct vmm_reservation **out)
{
    struct vmm_reservation *r = reservation_holding(va, size);
    if (!p)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "the handle is not a live physical memory handle of this process (freed already?)");
    if (offset != 0) /* 11-04:462 */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "offset %zu: must be 0", offset);
    if (size != p->bytes) /* 11-04:461 */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "size %zu is not the %zu bytes of the physical memory (its aclrtMallocPhysical size, "
                         "rounded up to the granularity): map it whole",
                         size, p->bytes);
    if (!r)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "[%p, +%zu) is not inside one live reservation of aclrtReserveMemAddress", (void *)va, size);
    if ((uintptr_t)va % memory_page_size() != 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "%p is not page-aligned", (void *)va);
    if (overlaps_mapping(va, size))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "[%p, +%zu) overlaps a mapping: aclrtUnmapMem it first",
                         (void *)va, size);
    if (r->mappings > 0 && (r->device != p->device || r->imported != p->imported)) /* 11-04:463 */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "the reservation at %p already maps %s memory of device %d: one reservation cannot mix "
                         "devices, nor allocated and imported handles (11-04_virtual_memory_management.md)",
                         (void *)r->base, r->imported ? "imported" : "allocated", r->device);
    *out = r;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1160 */
STUB_EXPORT aclError aclrtMapMem(void *virPtr, size_t size, size_t offset, aclrtDrvMemHandle handle, uint64_t flags)
{
    static const char *call = "aclrtMapMem";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct vmm_reservation *r = NULL;
    struct vmm_phys *p = handle ? find_handle(handle) : NULL;
    struct vmm_mapping *m = NULL;
    /* memory.cpp:1160-1173: NULLs, size, flags; then the driver's */
    if (!virPtr || !handle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !virPtr ? "virPtr" : "handle");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0");
    else if (flags != 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "flags 0x%llx: reserved, pass 0", (unsigned long long)flags);
    else if ((rc = check_map(call, virPtr, size, offset, p, &r)))
        ;
    else if (!(m = calloc(1, sizeof *m)))
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    else if (plat_vm_map_shm(virPtr, size, p->shm->name, data_offset()) != 0)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot map the physical memory at %p (%s)", virPtr,
                       strerror(errno));
    else if (memory_region_new(MEM_MAPPED, virPtr, size, p->device, NULL, &m->region) != ACL_SUCCESS) {
        plat_vm_unmap_shm(virPtr, size);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    } else {
        m->region->group = r; /* contiguous mappings of one reservation are one block */
        m->res = r;
        m->phys = p;
        m->next = mappings;
        mappings = m;
        p->maps++;
        r->mappings++;
        r->device = p->device;
        r->imported = p->imported;
        m = NULL;
    }
    free(m);
    rt_leave();
    return rc;
}

/* Whether a task holds a mapping of res: a copy that runs on from one mapping into the next
 * (memory.c region_containing) holds only the first, so the whole reservation counts. */
static int reservation_in_use(const struct vmm_reservation *res)
{
    for (const struct vmm_mapping *m = mappings; m; m = m->next)
        if (m->res == res && m->region->refs > 1)
            return 1;
    return 0;
}

/* Takes m out of every list and puts the reservation back (rt.lock held; nothing uses the range). */
static void finish_unmap(struct vmm_mapping *m)
{
    for (struct vmm_mapping **pp = &mappings; *pp; pp = &(*pp)->next) {
        if (*pp == m) {
            *pp = m->next;
            break;
        }
    }
    char *va = m->region->base;
    size_t size = m->region->bytes;
    memory_region_drop(m->region);
    plat_vm_unmap_shm(va, size);
    m->res->mappings--;
    m->phys->maps--;
    phys_unref_check(m->phys);
}

/* aclrtUnmapMem of m (rt.lock held; released while queued copies that touch its reservation run:
 * the range can be mapped again at once, so nothing may still use it). An aclFinalize meanwhile finishes
 * the unmap itself (vmm_shutdown) and leaves m to be freed here. */
static void unmap(struct vmm_mapping *m)
{
    m->unmapping = 1;
    while (!m->finished && reservation_in_use(m->res) && rt.initialized)
        rt_wait_progress(0); /* memory.c broadcasts when a mapping's last task lets go */
    if (!m->finished)
        finish_unmap(m);
    free(m);
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1175 */
STUB_EXPORT aclError aclrtUnmapMem(void *virPtr)
{
    static const char *call = "aclrtUnmapMem";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct vmm_mapping *m = virPtr ? mapping_at(virPtr) : NULL;
    /* memory.cpp:1175-1185: NULL; the rest is the driver's */
    if (!virPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "virPtr is NULL");
    else if (!m)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not the start of a live mapping of aclrtMapMem (unmapped already?)", virPtr);
    else
        unmap(m);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1956 */
STUB_EXPORT aclError aclrtMemSetAccess(void *virPtr, size_t size, aclrtMemAccessDesc *desc, size_t count)
{
    static const char *call = "aclrtMemSetAccess";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct vmm_mapping *m = virPtr ? mapping_at(virPtr) : NULL;
    /* no acl-layer check (memory.cpp:1956-1965); api_error.cc:6391-6396:
     * virPtr, desc NULL → 107000; then the driver's (11-04:1124-1125) */
    if (!virPtr || !desc)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "%s is NULL", !virPtr ? "virPtr" : "desc");
    else if (!m || m->region->bytes != size)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "[%p, +%zu) is not a live mapping: pass the virPtr and size of an aclrtMapMem", virPtr, size);
    else if (count == 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "count is 0: pass at least one descriptor");
    for (size_t i = 0; !rc && i < count; i++) {
        aclrtMemAccessFlags f = desc[i].flags;
        if (desc[i].location.type != ACL_MEM_LOCATION_TYPE_DEVICE || desc[i].location.id >= rt.device_count)
            rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                           "desc[%zu].location (type %d, id %u) is not a device of this process", i,
                           (int)desc[i].location.type, desc[i].location.id);
        else if (f != ACL_RT_MEM_ACCESS_FLAGS_NONE && f != ACL_RT_MEM_ACCESS_FLAGS_READ &&
                 f != ACL_RT_MEM_ACCESS_FLAGS_READWRITE)
            rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                           "desc[%zu].flags 0x%x: use ACL_RT_MEM_ACCESS_FLAGS_NONE, _READ or _READWRITE", i,
                           (unsigned)f);
    }
    /* the stub does not restrict access: every emulated device reaches every mapping */
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1967 */
STUB_EXPORT aclError aclrtMemRetainAllocationHandle(void *virPtr, aclrtDrvMemHandle *handle)
{
    static const char *call = "aclrtMemRetainAllocationHandle";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct vmm_mapping *m = virPtr ? mapping_at(virPtr) : NULL;
    /* memory.cpp:1967-1977: NULLs; the driver: virPtr as given to aclrtMapMem */
    if (!virPtr || !handle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !virPtr ? "virPtr" : "handle");
    else if (!m)
        rc =
            stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "%p is not the start of a live mapping of aclrtMapMem", virPtr);
    else {
        m->phys->user_refs++; /* one more aclrtFreePhysical to call (11-04:1227) */
        *handle = handle_of(m->phys);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:2057 */
STUB_EXPORT aclError aclrtMemGetAddressRange(void *ptr, void **pbase, size_t *psize)
{
    static const char *call = "aclrtMemGetAddressRange";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct mem_region *r = ptr ? memory_region_touching(ptr) : NULL;
    /* memory.cpp:2057-2065: ptr NULL; npu_driver.cc:1618-1635 passes a NULL
     * pbase on; the blocks are 11-04:1364-1366's (aclrtMalloc, aclrtMallocHost, mappings) */
    if (!ptr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "ptr is NULL");
    else if (!r)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p lies in no live block (aclrtMalloc, aclrtMallocHost, an IPC import or an aclrtMapMem "
                       "mapping)",
                       ptr);
    else {
        if (pbase)
            *pbase = r->base;
        if (psize)
            *psize = r->bytes;
    }
    rt_leave();
    return rc;
}

/* ------------------------------------------------------------ shareable handles */

/* The exporter's live handle whose export is sh, or NULL. */
static struct vmm_phys *find_export(uint64_t sh)
{
    for (struct vmm_phys *p = handles; p; p = p->next)
        if (p->user_refs > 0 && p->exported && p->shm->id == sh)
            return p;
    return NULL;
}

static aclError export_handle(const char *call, aclrtDrvMemHandle handle, uint64_t flags, uint64_t *sh)
{
    struct vmm_phys *p = find_handle(handle);
    if (!p)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "%p is not a live physical memory handle of this process (freed already?)", handle);
    if (p->imported) /* 11-04:645 (the handle of aclrtMallocPhysical in this process) */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "%p is an imported handle: only the allocating process exports", handle);
    if (p->exported) /* 11-04:683: one shareable handle per handle; a second export fails */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "%p is exported already: use the shareable handle of its first export", handle);
    p->exported = 1;
    shm_lock(p->shm);
    struct vmm_shared *m = shared_of(p);
    m->exported = 1;
    /* api_impl.cc:7370-7374: the export, then the whitelist turned off for DISABLE_PID_VALIDATION */
    m->whitelist.enabled = (flags & ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION) ? 0 : 1;
    shm_unlock(p->shm);
    *sh = p->shm->id;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1215 */
STUB_EXPORT aclError aclrtMemExportToShareableHandle(aclrtDrvMemHandle handle, aclrtMemHandleType handleType,
                                                     uint64_t flags, uint64_t *shareableHandle)
{
    static const char *call = "aclrtMemExportToShareableHandle";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:1215-1227: handle NULL, handleType, shareableHandle NULL; api_error.cc:6407-6415: flags > 1 */
    if (!handle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "handle is NULL");
    else if (handleType != ACL_MEM_HANDLE_TYPE_NONE)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "handleType %d: use ACL_MEM_HANDLE_TYPE_NONE", (int)handleType);
    else if (!shareableHandle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "shareableHandle is NULL");
    else if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flags 0x%llx: use ACL_RT_VMM_EXPORT_FLAG_DEFAULT (0, pid whitelist on) or "
                       "ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION (0x1)",
                       (unsigned long long)flags);
    else
        rc = export_handle(call, handle, flags, shareableHandle);
    rt_leave();
    return rc;
}

static int valid_share_type(aclrtMemSharedHandleType t)
{
    return t == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT || t == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC;
}

static aclError bad_share_type(const char *call, aclrtMemSharedHandleType t)
{
    return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                     "shareType %d: use ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT (0x1) or _FABRIC (0x2)", (int)t);
}

/* A fabric handle (aclrtMemFabricHandle, 128 bytes): the stub's magic, then the object id. */
static void fabric_encode(void *out, uint64_t sh)
{
    aclrtMemFabricHandle f;
    memset(&f, 0, sizeof f);
    memcpy(f.data, FABRIC_MAGIC, sizeof FABRIC_MAGIC);
    memcpy(f.data + 16, &sh, sizeof sh);
    memcpy(out, &f, sizeof f);
}

/* The object id in a shareable handle of type t (0 for a fabric handle that is not the stub's). */
static uint64_t share_decode(const void *in, aclrtMemSharedHandleType t)
{
    uint64_t sh = 0;
    if (t == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT) {
        memcpy(&sh, in, sizeof sh);
        return sh;
    }
    aclrtMemFabricHandle f;
    memcpy(&f, in, sizeof f);
    if (memcmp(f.data, FABRIC_MAGIC, sizeof FABRIC_MAGIC) == 0)
        memcpy(&sh, f.data + 16, sizeof sh);
    return sh;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1229 */
STUB_EXPORT aclError aclrtMemExportToShareableHandleV2(aclrtDrvMemHandle handle, uint64_t flags,
                                                       aclrtMemSharedHandleType shareType, void *shareableHandle)
{
    static const char *call = "aclrtMemExportToShareableHandleV2";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint64_t sh = 0;
    int d;
    /* memory.cpp:1229-1241: NULLs; api_error.cc:6418-6433: the type, flags > 1;
     * api_impl.cc:7384-7387: a fabric export needs the current context */
    if (!handle || !shareableHandle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !handle ? "handle" : "shareableHandle");
    else if (!valid_share_type(shareType))
        rc = bad_share_type(call, shareType);
    else if (flags > ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flags 0x%llx: use ACL_RT_VMM_EXPORT_FLAG_DEFAULT (0) or _DISABLE_PID_VALIDATION (0x1)",
                       (unsigned long long)flags);
    else if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_FABRIC && (rc = rt_require_device(call, &d)))
        ;
    else if (!(rc = export_handle(call, handle, flags, &sh))) {
        if (shareType == ACL_MEM_SHARE_HANDLE_TYPE_DEFAULT)
            memcpy(shareableHandle, &sh, sizeof sh);
        else
            fabric_encode(shareableHandle, sh);
    }
    rt_leave();
    return rc;
}

static aclError set_pids(const char *call, uint64_t sh, int32_t *pid, size_t pidNum)
{
    struct vmm_phys *p = find_export(sh);
    /* memory.cpp:1281 passes pidNum on as a uint32_t */
    if ((uint32_t)pidNum == 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "pidNum %zu is 0 as the uint32_t the runtime takes", pidNum);
    if (!p)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "shareable handle 0x%llx is not a live export of this process (only the exporter sets "
                         "its whitelist, before it frees the handle)",
                         (unsigned long long)sh);
    shm_lock(p->shm);
    aclError rc = ipc_whitelist_add(&shared_of(p)->whitelist, call, pid, (uint32_t)pidNum);
    shm_unlock(p->shm);
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1275 */
STUB_EXPORT aclError aclrtMemSetPidToShareableHandle(uint64_t shareableHandle, int32_t *pid, size_t pidNum)
{
    static const char *call = "aclrtMemSetPidToShareableHandle";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:1275-1283: pid NULL, pidNum 0; no rt check (api_error.cc SetPidToShareableHandle) */
    if (!pid)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pid is NULL");
    else if (pidNum == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pidNum is 0");
    else
        rc = set_pids(call, shareableHandle, pid, pidNum);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1285 */
STUB_EXPORT aclError aclrtMemSetPidToShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                       int32_t *pid, size_t pidNum)
{
    static const char *call = "aclrtMemSetPidToShareableHandleV2";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:1285-1297: NULLs, pidNum 0; api_error.cc:6486-6496: the type */
    if (!shareableHandle || !pid)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !pid ? "pid" : "shareableHandle");
    else if (pidNum == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pidNum is 0");
    else if (!valid_share_type(shareType))
        rc = bad_share_type(call, shareType);
    else
        rc = set_pids(call, share_decode(shareableHandle, shareType), pid, pidNum);
    rt_leave();
    return rc;
}

/* The import itself, after the argument checks (rt.lock held). */
static aclError import_handle(const char *call, uint64_t sh, int device, aclrtDrvMemHandle *handle)
{
    struct shm_object *obj = NULL;
    struct vmm_phys *p = NULL;
    aclError rc = ACL_SUCCESS;
    int d;
    enum shm_open_result opened = sh ? shm_open_by_id(SHM_VMM_PREFIX, sh, 0, NULL, &obj) : SHM_NOT_FOUND;
    if (opened == SHM_NO_SPACE) /* as any failure to open it (contract S20) */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "shareable handle 0x%llx: cannot open it: %s",
                         (unsigned long long)sh, shm_open_result_text(opened));
    if (opened != SHM_OK)
        /* the driver's lookup (api_impl.cc:7420-7425, GetPhyDevIdByMemShareHandle), before the context */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "shareable handle 0x%llx names no live physical memory: its exporter freed it, exited, or "
                         "never exported it (11-04: import before the exporter frees)",
                         (unsigned long long)sh);
    for (struct vmm_phys *q = handles; q; q = q->next)
        if (q->shm == obj && q->user_refs > 0)
            p = q;
    shm_lock(obj);
    const struct vmm_shared *m = (const struct vmm_shared *)obj->hdr;
    uint32_t exported = m->exported;
    int allowed = ipc_whitelist_allows(&m->whitelist, ipc_bare_tgid());
    size_t bytes = (size_t)m->bytes;
    shm_unlock(obj);
    if ((rc = rt_require_device(call, &d))) /* api_impl.cc:7426-7427 */
        ;
    else if (p && !p->imported) /* 11-04:818: export and import in one process is not supported */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "shareable handle 0x%llx was exported by this process: import it in another process",
                       (unsigned long long)sh);
    else if (p) /* 11-04:807: one handle per shareable handle in a process */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "shareable handle 0x%llx is imported already in this process as %p: use that handle",
                       (unsigned long long)sh, handle_of(p));
    else if (!exported)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "shareable handle 0x%llx: its exporter freed the physical memory (import before it frees)",
                       (unsigned long long)sh);
    else if (!allowed) /* DRV_ERROR_OPER_NOT_PERMITTED → 207006, as for IPC memory */
        rc = stub_fail(ACL_ERROR_RT_NO_PERMISSION, call,
                       "bare tgid %d is not on the whitelist of shareable handle 0x%llx: its exporter must call "
                       "aclrtMemSetPidToShareableHandle with this process's aclrtDeviceGetBareTgid (not its "
                       "getpid()), or export with ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION",
                       (int)ipc_bare_tgid(), (unsigned long long)sh);
    else if (new_handle(obj, 1, device, bytes, &p) != ACL_SUCCESS)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    if (rc) {
        shm_release(obj);
        return rc;
    }
    *handle = handle_of(p);
    return ACL_SUCCESS;
}

static aclError check_import_device(const char *call, int32_t deviceId)
{
    /* api_error.cc:6441-6449: ChgUserDevIdToDeviceId, CheckDeviceIdIsValid */
    return device_id_check(call, "deviceId", deviceId, rt.device_count);
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1243 */
STUB_EXPORT aclError aclrtMemImportFromShareableHandle(uint64_t shareableHandle, int32_t deviceId,
                                                       aclrtDrvMemHandle *handle)
{
    static const char *call = "aclrtMemImportFromShareableHandle";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:1243-1252: handle NULL; api_error.cc:6435-6450: the device id */
    if (!handle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "handle is NULL");
    else if (!(rc = check_import_device(call, deviceId)))
        rc = import_handle(call, shareableHandle, deviceId, handle);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1254 */
STUB_EXPORT aclError aclrtMemImportFromShareableHandleV2(void *shareableHandle, aclrtMemSharedHandleType shareType,
                                                         uint64_t flags, aclrtDrvMemHandle *handle)
{
    static const char *call = "aclrtMemImportFromShareableHandleV2";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d = -1;
    /* memory.cpp:1254-1273: NULLs, flags != 0 (100000), the current device
     * (rtsGetDevice, :1264); api_error.cc:6452-6484: the type */
    if (!shareableHandle || !handle)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !handle ? "handle" : "shareableHandle");
    else if (flags != 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "flags 0x%llx: reserved, pass 0", (unsigned long long)flags);
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (!valid_share_type(shareType))
        rc = bad_share_type(call, shareType);
    else
        rc = import_handle(call, share_decode(shareableHandle, shareType), d, handle);
    rt_leave();
    return rc;
}

/* ------------------------------------------------------------ life cycle */

void vmm_shutdown(void)
{
    while (mappings) {
        struct vmm_mapping *m = mappings;
        finish_unmap(m);
        if (m->unmapping)
            m->finished = 1; /* its aclrtUnmapMem frees it when it wakes */
        else
            free(m);
    }
    while (reservations) {
        struct vmm_reservation *r = reservations;
        reservations = r->next;
        plat_vm_release(r->base, r->reserved);
        free(r);
    }
    while (handles) {
        struct vmm_phys *p = handles;
        handles = p->next;
        shm_release(p->shm);
        free(p);
    }
}

void vmm_reclaim_stale(void)
{
    shm_reclaim_stale(SHM_VMM_PREFIX, NULL);
}
