/*
 * memory.c - aclrtMalloc/Free, aclrtMallocHost/FreeHost, aclrtMemcpy,
 * aclrtMemcpyAsync, aclrtMemsetAsync (stream tasks, run in stream order) and
 * aclrtMemset, and the list of this process's address ranges (IPC memory,
 * ipc_memory.c, adds imported ranges to it).
 *
 * Process-local address ranges live in one list guarded by rt.lock. A
 * queued copy holds a reference on the ranges it touches, so freeing or
 * closing them before the copy ran never unmaps memory under the executor.
 * Cross-process state (export flag, whitelist) sits in the allocation's
 * shared object under its robust lock (shm.c).
 */
#include "memory.h"

#include "explore.h"
#include "host_memory.h"
#include "platform.h"
#include "runtime.h"
#include "stream.h"
#include "sync.h"

#include <stdio.h>
#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static struct mem_region *regions; /* rt.lock */

size_t memory_page_size(void)
{
    long p = sysconf(_SC_PAGESIZE);
    return p > 0 ? (size_t)p : 4096u;
}

static size_t round_up_pages(size_t n)
{
    size_t p = memory_page_size();
    return (n + p - 1) / p * p;
}

/* Bytes before the data in an allocation's object: header and export state. */
size_t memory_data_offset(void)
{
    return round_up_pages(sizeof(struct mem_shared));
}

static void region_list(struct mem_region *r)
{
    r->next = regions;
    regions = r;
}

static void region_unlist(struct mem_region *r)
{
    for (struct mem_region **pp = &regions; *pp; pp = &(*pp)->next) {
        if (*pp == r) {
            *pp = r->next;
            r->next = NULL;
            return;
        }
    }
}

static void region_unref(struct mem_region *r)
{
    assert(r->refs > 0);
    if (--r->refs > 0) {
        if (r->refs == 1 && r->kind == MEM_MAPPED)
            rt_progress_broadcast(); /* an aclrtUnmapMem may wait for this (vmm.c) */
        return;
    }
    if (r->kind == MEM_HOST)
        free(r->base);
    if (r->view)
        plat_shm_unmap(r->view, r->view_size);
    if (r->shm)
        shm_release(r->shm);
    free(r);
}

void memory_region_drop(struct mem_region *r)
{
    region_unlist(r);
    region_unref(r);
}

struct mem_region *memory_region_find(enum mem_kind kind, uint64_t id)
{
    struct mem_region *found = NULL;
    for (struct mem_region *r = regions; r; r = r->next)
        if (r->kind == kind && r->shm && r->shm->id == id)
            found = r; /* the list is newest first: keep the oldest */
    return found;
}

/* The live range holding p if [p, p + n) lies in it, or runs on through mappings of the same
 * reservation that follow it without a gap (one block of virtual memory, as on the NPU); NULL
 * otherwise. A task refers to the first range; aclrtUnmapMem waits for every range of the
 * reservation (vmm.c), so that a task holding one of them keeps all of them mapped. */
static struct mem_region *region_containing(const void *p, size_t n)
{
    const char *at = p;
    struct mem_region *first = NULL, *r = NULL;
    for (r = regions; r; r = r->next)
        if (at >= r->base && at < r->base + r->bytes)
            break;
    first = r;
    while (r) {
        size_t avail = (size_t)(r->base + r->bytes - at);
        if (avail >= n)
            return first;
        struct mem_region *next = r->kind == MEM_MAPPED ? memory_region_at(r->base + r->bytes) : NULL;
        if (!next || next->kind != MEM_MAPPED || next->group != r->group)
            return NULL;
        n -= avail;
        at = next->base;
        r = next;
    }
    return NULL;
}

struct mem_region *memory_region_at(const void *p)
{
    for (struct mem_region *r = regions; r; r = r->next)
        if (r->base == p)
            return r;
    return NULL;
}

/* Whether p lies in any live range, even if [p, p + n) runs past its end. */
static struct mem_region *region_touching(const void *p)
{
    const char *c = p;
    for (struct mem_region *r = regions; r; r = r->next)
        if (c >= r->base && c < r->base + r->bytes)
            return r;
    return NULL;
}

static int is_device_kind(const struct mem_region *r)
{
    return r && (r->kind == MEM_DEVICE || r->kind == MEM_IMPORTED || r->kind == MEM_MAPPED);
}

struct mem_region *memory_region_touching(const void *p)
{
    return region_touching(p);
}

uint64_t memory_device_bytes(int device)
{
    uint64_t n = 0;
    for (struct mem_region *r = regions; r; r = r->next)
        if (r->kind == MEM_DEVICE && r->device == device)
            n += r->bytes;
    return n;
}

/* ---- allocation ---- */

aclError memory_region_new(enum mem_kind kind, char *base, size_t bytes, int device, struct shm_object *shm,
                           struct mem_region **out)
{
    struct mem_region *r = calloc(1, sizeof *r);
    if (!r)
        return ACL_ERROR_RT_MEMORY_ALLOCATION;
    r->kind = kind;
    r->base = base;
    r->bytes = bytes;
    r->device = device;
    r->refs = 1;
    r->shm = shm;
    region_list(r);
    *out = r;
    return ACL_SUCCESS;
}

/* CANN's acl layer adds 32 bytes of alignment plus a padding (32 by default,
 * rtGetSocSpec may say otherwise; none for the 1G-page policies) and refuses a
 * size that overflows with 100000 (memory.cpp:291-303, aclMallocMemInner). The
 * policy changes nothing else: every allocation is page-aligned shared memory. */
static size_t malloc_append_size(aclrtMemMallocPolicy policy)
{
    int huge1g = policy == ACL_MEM_MALLOC_HUGE1G_ONLY || policy == ACL_MEM_MALLOC_HUGE1G_ONLY_P2P;
    return huge1g ? 32u : 64u;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:376 */
STUB_EXPORT aclError aclrtMalloc(void **devPtr, size_t size, aclrtMemMallocPolicy policy)
{
    static const char *call = "aclrtMalloc";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    struct shm_object *obj = NULL;
    struct mem_region *r = NULL;
    if (!devPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devPtr is NULL");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0: allocate at least 1 byte");
    else if (size > SIZE_MAX - malloc_append_size(policy))
        rc =
            stub_fail(ACL_ERROR_INVALID_PARAM, call, "size %zu overflows when aligned and padded: allocate less", size);
    /* ApiImpl::DevMalloc checks the current context (api_impl.cc:2334-2338)
     * before the driver looks at the size */
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (size > SIZE_MAX / 2)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "size %zu is too large", size);
    else {
        size_t bytes = round_up_pages(size);
        if (shm_create(SHM_MEMORY_PREFIX, memory_data_offset() + bytes, SHM_RESERVE_ALL, NULL, NULL, &obj) != 0)
            rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call,
                           "cannot create the shared-memory object of %zu bytes in /dev/shm", bytes);
        else {
            struct mem_shared *m = (struct mem_shared *)obj->hdr;
            m->device = d;
            m->bytes = bytes;
            if (memory_region_new(MEM_DEVICE, (char *)obj->hdr + memory_data_offset(), bytes, d, obj, &r) != 0) {
                shm_release(obj);
                rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
            } else
                *devPtr = r->base;
        }
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:565 */
STUB_EXPORT aclError aclrtFree(void *devPtr)
{
    static const char *call = "aclrtFree";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct mem_region *r = devPtr ? memory_region_at(devPtr) : NULL;
    if (!devPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devPtr is NULL");
    else if (r && r->kind == MEM_IMPORTED)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is imported IPC memory: release it with aclrtIpcMemClose(key)", devPtr);
    else if (!r || r->kind != MEM_DEVICE)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not the start of live device memory from aclrtMalloc (freed already?)", devPtr);
    else {
        memory_region_drop(r); /* leaving the users table also ends the export for new imports */
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:577 */
STUB_EXPORT aclError aclrtMallocHost(void **hostPtr, size_t size)
{
    static const char *call = "aclrtMallocHost";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    void *p = NULL;
    struct mem_region *r = NULL;
    int d;
    if (!hostPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "hostPtr is NULL");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "size is 0: allocate at least 1 byte");
    else if ((rc = rt_require_device(call, &d))) /* ApiImpl::HostMalloc, api_impl.cc:2426-2430 */
        ;
    else if (posix_memalign(&p, memory_page_size(), size) != 0)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot allocate %zu bytes of host memory", size);
    else if (memory_region_new(MEM_HOST, p, size, -1, NULL, &r) != 0) {
        free(p);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    } else
        *hostPtr = p;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:616 */
STUB_EXPORT aclError aclrtFreeHost(void *hostPtr)
{
    static const char *call = "aclrtFreeHost";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct mem_region *r = hostPtr ? memory_region_at(hostPtr) : NULL;
    if (!hostPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "hostPtr is NULL");
    else if (!r || r->kind != MEM_HOST)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not live host memory from aclrtMallocHost (freed already, or device memory?)", hostPtr);
    else
        memory_region_drop(r);
    rt_leave();
    return rc;
}

/* ---- copies and memsets ---- */

static const char *kind_name(aclrtMemcpyKind kind)
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: return "ACL_MEMCPY_HOST_TO_HOST";
    case ACL_MEMCPY_HOST_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_DEVICE";
    case ACL_MEMCPY_DEVICE_TO_HOST: return "ACL_MEMCPY_DEVICE_TO_HOST";
    case ACL_MEMCPY_DEVICE_TO_DEVICE: return "ACL_MEMCPY_DEVICE_TO_DEVICE";
    case ACL_MEMCPY_DEFAULT: return "ACL_MEMCPY_DEFAULT";
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: return "ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE";
    default: return "?";
    }
}

/* Checks that one operand matches the side the copy kind gives it. On
 * success *out is its device range (NULL for host memory). */
static aclError check_operand(const char *call, const char *what, const void *p, size_t count, int want_device,
                              aclrtMemcpyKind kind, int ranges, struct mem_region **out)
{
    struct mem_region *r = region_touching(p);
    if (ranges && r && !region_containing(p, count))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "%s [%p, +%zu) runs past the end of its %zu-byte allocation",
                         what, p, count, r->bytes);
    /* registered host memory is device-accessible (host_memory.c) */
    if (want_device && !is_device_kind(r) && !host_memory_is_registered(p, count))
        return stub_fail(
            ACL_ERROR_RT_PARAM_INVALID, call,
            "%s %p is not device memory (aclrtMalloc, an IPC import or an aclrtMapMem range) but kind is %s", what, p,
            kind_name(kind));
    if (!want_device && is_device_kind(r))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "%s %p is device memory but kind %s says host memory: pick the kind that matches", what, p,
                         kind_name(kind));
    *out = is_device_kind(r) ? r : NULL;
    return ACL_SUCCESS;
}

/* docs/zh/api_ref/11-07_IPC_memory_sharing.md: memory imported from another
 * device allows only asynchronous device-to-device copies (no DEFAULT, no
 * host<->device, no synchronous copy). Same-device imports have no limit. */
static aclError check_cross_device_import(const char *call, const char *what, const struct mem_region *r,
                                          aclrtMemcpyKind kind, int sync)
{
    int here = rt_current_device();
    if (!r || r->kind != MEM_IMPORTED || r->device == here)
        return ACL_SUCCESS;
    if (kind == ACL_MEMCPY_DEVICE_TO_DEVICE && !sync)
        return ACL_SUCCESS;
    return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                     "%s is IPC memory imported from device %d into device %d: across devices only "
                     "aclrtMemcpyAsync with ACL_MEMCPY_DEVICE_TO_DEVICE is supported (no %s, no host copies, "
                     "no synchronous copies); copy it into this device's memory first",
                     what, r->device, here, sync ? "aclrtMemcpy" : kind_name(kind));
}

/* The acl layer's copy checks (src/acl/aclrt_impl/memory.cpp aclrtMemcpyImpl,
 * aclrtMemcpyAsyncImpl): count 0 is a no-op (*noop = 1), then NULL pointers
 * and the kind (100000). rt.lock held. */
static aclError check_copy_args(const char *call, void *dst, const void *src, size_t count, aclrtMemcpyKind kind,
                                int *noop)
{
    *noop = count == 0;
    if (*noop)
        return ACL_SUCCESS;
    if (!dst)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "dst is NULL");
    if (!src)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "src is NULL");
    if ((unsigned)kind > ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call,
                         "kind %d is invalid: use ACL_MEMCPY_HOST_TO_HOST, _HOST_TO_DEVICE, _DEVICE_TO_HOST, "
                         "_DEVICE_TO_DEVICE, _DEFAULT or _HOST_TO_BUF_TO_DEVICE",
                         (int)kind);
    return ACL_SUCCESS;
}

/* The rt layer's value checks (api_error.cc MemCopySync, MemcpyAsync):
 * destMax 0 (synchronous copies), count > destMax (107000); dst == src is a
 * no-op for a synchronous copy (*noop = 1). */
static aclError check_copy_values(const char *call, void *dst, size_t destMax, const void *src, size_t count, int sync,
                                  int *noop)
{
    *noop = 0;
    if (sync && destMax == 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "destMax is 0");
    if (count > destMax)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "count %zu is larger than destMax %zu", count, destMax);
    *noop = sync && dst == src;
    return ACL_SUCCESS;
}

/* The stub's address/kind match (stub rule, after CANN's MemcpyAsyncCheckLocation).
 * On success out[] holds the device ranges of dst and src (NULL for host
 * memory) and side[] whether dst and src are device memory. */
/* Which sides of a copy are device memory: side[0] dst, side[1] src. */
static void copy_sides(aclrtMemcpyKind kind, void *dst, const void *src, int side[2])
{
    switch (kind) {
    case ACL_MEMCPY_HOST_TO_HOST: side[0] = 0, side[1] = 0; break;
    case ACL_MEMCPY_HOST_TO_DEVICE:
    case ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE: side[0] = 1, side[1] = 0; break;
    case ACL_MEMCPY_DEVICE_TO_HOST: side[0] = 0, side[1] = 1; break;
    case ACL_MEMCPY_DEVICE_TO_DEVICE: side[0] = 1, side[1] = 1; break;
    default: /* ACL_MEMCPY_DEFAULT: the addresses decide */
        side[0] = is_device_kind(region_touching(dst));
        side[1] = is_device_kind(region_touching(src));
        break;
    }
}

/* ranges 0: the sides only (the range rule comes later, for a queued copy:
 * after its stream's context, which CANN checks and the range rule is not) */
static aclError check_copy_addresses(const char *call, void *dst, const void *src, size_t count, aclrtMemcpyKind kind,
                                     int sync, int ranges, struct mem_region *out[2], int side[2])
{
    copy_sides(kind, dst, src, side);
    aclError rc = check_operand(call, "dst", dst, count, side[0], kind, ranges, &out[0]);
    if (!rc)
        rc = check_operand(call, "src", src, count, side[1], kind, ranges, &out[1]);
    for (int i = 0; i < 2 && !rc; i++)
        rc = check_cross_device_import(call, i == 0 ? "dst" : "src", out[i], kind, sync);
    return rc;
}

/* The checks of a synchronous copy, in the order of the layers above.
 * Returns 1 in *noop for a copy that does nothing. rt.lock held. */
static aclError check_copy(const char *call, void *dst, size_t destMax, const void *src, size_t count,
                           aclrtMemcpyKind kind, int sync, struct mem_region *out[2], int *noop)
{
    int side[2];
    aclError rc = check_copy_args(call, dst, src, count, kind, noop);
    if (rc || *noop)
        return rc;
    if ((rc = check_copy_values(call, dst, destMax, src, count, sync, noop)) || *noop)
        return rc;
    /* ApiImpl::MemCopySync checks the current context (api_impl.cc:2745-2751)
     * before the driver looks at the addresses */
    int current_device;
    if ((rc = rt_require_device(call, &current_device)))
        return rc;
    return check_copy_addresses(call, dst, src, count, kind, sync, 1, out, side);
}

static void ref_regions(struct mem_region *r[2])
{
    for (int i = 0; i < 2; i++)
        if (r[i])
            r[i]->refs++;
}

/* Runs t on the calling thread, outside rt.lock (held on entry and on return):
 * references keep its ranges mapped meanwhile. The synchronous copy and memset. */
static void run_here(struct task *t)
{
    ref_regions(t->regions);
    rt_leave();
    memory_task_run(t);
    sync_lock(&rt.lock);
    memory_task_release(t);
}

/* CANN: src/acl/aclrt_impl/memory.cpp:650 */
STUB_EXPORT aclError aclrtMemcpy(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind)
{
    static const char *call = "aclrtMemcpy";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct task t = {.kind = TASK_MEMCPY, .dst = dst, .src = src, .count = count};
    int noop = 0;
    if ((rc = check_copy(call, dst, destMax, src, count, kind, 1, t.regions, &noop)) || noop)
        goto out;
    run_here(&t);
out:
    rt_leave();
    return rc;
}

/* The stream of a queued copy or memset, as ApiImpl::MemcpyAsync and
 * MemsetAsync check it (api_impl.cc:2867-2883, 3215-3228): 107002, then 107003
 * for a stream of another context. rt.lock held. */
static aclError resolve_task_stream(const char *call, aclrtStream stream, struct stream **s)
{
    aclError rc = stream_resolve(call, stream, s);
    if (!rc)
        rc = stream_check_context(call, *s);
    return rc;
}

/* Queues t (a copy of *proto) on s; rt.lock held. */
static aclError submit_memory_task(const char *call, struct stream *s, const struct task *proto)
{
    struct task *t = malloc(sizeof *t);
    if (!t)
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    *t = *proto;
    ref_regions(t->regions);
    stream_submit(s, t);
    return ACL_SUCCESS;
}

/* ACL_STUB_PAGEABLE (read at aclInit): "sync" (default) or "async". */
static int pageable_async;

int memory_configure(char *err, size_t len)
{
    const char *v = getenv("ACL_STUB_PAGEABLE");
    if (!v || !*v || strcmp(v, "sync") == 0)
        pageable_async = 0;
    else if (strcmp(v, "async") == 0)
        pageable_async = 1;
    else {
        snprintf(err, len, "ACL_STUB_PAGEABLE=%s is invalid: use sync (the default) or async", v);
        return -1;
    }
    return 0;
}

/* A host<->device copy whose host side is not aclrtMallocHost memory (CANN's
 * JudgeIsInvolvePageableMemory, api_error.cc:2789-2802: not H2H, not D2D, one
 * side RT_MEMORY_LOC_UNREGISTERED). HOST_TO_BUF_TO_DEVICE takes another path
 * (MemcpyAsyncCheckExLocation) and is never converted. */
static int involves_pageable(aclrtMemcpyKind kind, void *dst, const void *src, const int side[2])
{
    if (kind == ACL_MEMCPY_HOST_TO_BUF_TO_DEVICE || side[0] == side[1])
        return 0;
    const void *p = side[0] ? src : dst;
    const struct mem_region *host = region_touching(p);
    /* page-locked: aclrtMallocHost or registered (api_impl.cc:2606-2609 InsertPinnedMemory) */
    return (!host || host->kind != MEM_HOST) && !host_memory_is_registered(p, 1);
}

/* CANN's pageable conversion (api_error.cc:2256-2270): synchronize the stream,
 * then copy synchronously; the call returns after the copy. rt.lock held
 * (released while waiting and copying). */
static aclError pageable_copy(const char *call, aclrtStream stream, struct task *t)
{
    struct stream *s = NULL;
    aclError rc = stream_resolve(call, stream, &s);
    if (rc)
        return rc;
    ref_regions(t->regions);
    rc = stream_drain(call, s);
    if (!rc) {
        rt_leave();
        memory_task_run(t);
        sync_lock(&rt.lock);
    }
    memory_task_release(t);
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:684 */
STUB_EXPORT aclError aclrtMemcpyAsync(void *dst, size_t destMax, const void *src, size_t count, aclrtMemcpyKind kind,
                                      aclrtStream stream)
{
    static const char *call = "aclrtMemcpyAsync";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct task t = {.kind = TASK_MEMCPY, .dst = dst, .src = src, .count = count};
    struct stream *s = NULL;
    int d, noop = 0, side[2];
    /* the acl layer; the stream handle (src/runtime/api/api_c.cc:1103-1114, before
     * every rt check); api_error.cc MemcpyAsync: values, the current context,
     * HOST_TO_HOST (:2245-2248), then the pageable conversion; a queued copy's
     * stream context (api_impl.cc:2867-2883) comes before the stub's address
     * and range rule, which CANN does not have */
    if ((rc = check_copy_args(call, dst, src, count, kind, &noop)) || noop ||
        (rc = stream_check_handle(call, stream)) ||
        (rc = check_copy_values(call, dst, destMax, src, count, 0, &noop)) || (rc = rt_require_device(call, &d)) ||
        (rc = check_copy_addresses(call, dst, src, count, kind, 0, 0, t.regions, side)))
        goto out;
    if (!side[0] && !side[1])
        rc = stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                       "host-to-host asynchronous copies are not supported (CANN refuses them on EP servers): use "
                       "memcpy, or aclrtMemcpy");
    else if (!pageable_async && involves_pageable(kind, dst, src, side)) {
        if (!(rc = check_copy_addresses(call, dst, src, count, kind, 0, 1, t.regions, side)))
            rc = pageable_copy(call, stream, &t);
    } else if (!(rc = resolve_task_stream(call, stream, &s)) &&
               !(rc = check_copy_addresses(call, dst, src, count, kind, 0, 1, t.regions, side)))
        rc = submit_memory_task(call, s, &t);
out:
    rt_leave();
    EXPLORE_RETURN(call); /* a pageable copy waited for its stream */
    return rc;
}

/* The range rule of memsets: a range that starts in a live allocation must
 * fit in it (stub rule, as for copies). */
static aclError check_memset_range(const char *call, void *devPtr, size_t count, struct mem_region **out)
{
    struct mem_region *r = region_touching(devPtr);
    if (r && !region_containing(devPtr, count))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "[%p, +%zu) runs past the end of its %zu-byte allocation",
                         devPtr, count, r->bytes);
    *out = r;
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:738 */
STUB_EXPORT aclError aclrtMemsetAsync(void *devPtr, size_t maxCount, int32_t value, size_t count, aclrtStream stream)
{
    static const char *call = "aclrtMemsetAsync";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct task t = {.kind = TASK_MEMSET, .dst = devPtr, .count = count, .value = value};
    struct stream *s = NULL;
    /* count 0 and NULL in the acl layer; the stream handle before the rt
     * layer's count check (src/runtime/api/api_c.cc:989-1003) */
    if (count == 0)
        rc = ACL_SUCCESS;
    else if (!devPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devPtr is NULL");
    else if ((rc = stream_check_handle(call, stream)))
        ;
    else if (count > maxCount)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "count %zu is larger than maxCount %zu", count, maxCount);
    /* ApiImpl::MemsetAsync: 107002, 107003 (api_impl.cc:3215-3228); the range
     * rule is the stub's (the decorator has none, api_error.cc:3128-3140) */
    else if (!(rc = resolve_task_stream(call, stream, &s)) &&
             !(rc = check_memset_range(call, devPtr, count, &t.regions[0])))
        rc = submit_memory_task(call, s, &t);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:670 */
STUB_EXPORT aclError aclrtMemset(void *devPtr, size_t maxCount, int32_t value, size_t count)
{
    static const char *call = "aclrtMemset";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct task t = {.kind = TASK_MEMSET, .dst = devPtr, .count = count, .value = value};
    int d;
    /* aclrtMemsetImpl (memory.cpp:670-682): count 0, NULL; ApiImpl::MemSetSync
     * (api_impl.cc:3202): the current context; count > maxCount and the range
     * are the driver's (stub rules, as for aclrtMemsetAsync). Runs at once on
     * the calling thread, without waiting for any stream. */
    if (count == 0)
        goto out;
    if (!devPtr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devPtr is NULL");
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (count > maxCount)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "count %zu is larger than maxCount %zu", count, maxCount);
    else if (!(rc = check_memset_range(call, devPtr, count, &t.regions[0])))
        run_here(&t);
out:
    rt_leave();
    return rc;
}

void memory_task_run(struct task *t)
{
    if (t->kind == TASK_MEMCPY)
        memmove(t->dst, t->src, t->count);
    else if (t->kind == TASK_MEMSET)
        memset(t->dst, (unsigned char)t->value, t->count);
}

void memory_task_release(struct task *t)
{
    for (int i = 0; i < 2; i++) {
        if (t->regions[i]) {
            region_unref(t->regions[i]);
            t->regions[i] = NULL;
        }
    }
}

void memory_shutdown(void)
{
    while (regions) {
        struct mem_region *r = regions;
        region_unlist(r);
        region_unref(r);
    }
}

void memory_reclaim_stale(void)
{
    shm_reclaim_stale(SHM_MEMORY_PREFIX, NULL);
}
