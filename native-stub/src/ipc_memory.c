/*
 * ipc_memory.c - IPC memory: aclrtIpcMemGetExportKey, aclrtIpcMemSetImportPid,
 * aclrtIpcMemImportByKey and aclrtIpcMemClose.
 *
 * An export marks the allocation's shared object exported (ipc_key.c); an
 * import maps the same object again at a new address and lists it as a range
 * of this process (memory.c), so copies and frees treat it like any other.
 */
#include "explore.h"
#include "ipc_key.h"
#include "memory.h"

#include "platform.h"
#include "runtime.h"

static struct ipc_export_state export_state(struct shm_header *hdr)
{
    struct mem_shared *m = (struct mem_shared *)hdr;
    return (struct ipc_export_state){.exported = &m->exported, .whitelist = &m->whitelist};
}

static struct mem_shared *shared_of(const struct mem_region *r)
{
    return (struct mem_shared *)r->shm->hdr;
}

/* A memory key names its object's size too; an object smaller than its
 * header is no allocation. */
static int parse_key(const char *key, uint64_t *id, size_t *size)
{
    if (ipc_key_parse(key, IPC_KEY_MEMORY, id, size) != 0 || *size <= memory_data_offset())
        return -1;
    return 0;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1775 */
STUB_EXPORT aclError aclrtIpcMemGetExportKey(void *devPtr, size_t size, char *key, size_t len, uint64_t flags)
{
    static const char *call = "aclrtIpcMemGetExportKey";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct mem_region *r = devPtr ? memory_region_at(devPtr) : NULL;
    int d;
    if (!devPtr || !key)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !devPtr ? "devPtr" : "key");
    else if (size == 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "size is 0");
    else if ((uint32_t)len == 0) /* passed on as uint32_t (src/acl/aclrt_impl/memory.cpp:1782) */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "len %zu is 0 as the uint32_t the runtime takes: pass a key buffer of %d bytes", len,
                       IPC_KEY_LEN);
    else if (flags > ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flags 0x%llx are invalid: use ACL_RT_IPC_MEM_EXPORT_FLAG_DEFAULT (0, pid whitelist on) or "
                       "ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION (0x1)",
                       (unsigned long long)flags);
    else if ((rc = rt_require_device(call, &d))) /* ApiImpl::IpcSetMemoryName, api_impl_standard_soc.cc:635-639 */
        ;
    else if ((uint32_t)len < IPC_KEY_LEN)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "len %zu is too small: the key buffer must hold %d bytes", len,
                       IPC_KEY_LEN);
    else if (r && r->kind == MEM_IMPORTED)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is imported memory: only the exporter's own "
                       "aclrtMalloc memory can be exported",
                       devPtr);
    else if (!r || r->kind != MEM_DEVICE)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "%p is not the start of live device memory from aclrtMalloc (export the pointer it returned)",
                       devPtr);
    else if (size % memory_page_size() != 0 || size > r->bytes)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "size %zu is not a multiple of the %zu-byte page within the %zu-byte allocation: exported "
                       "memory must be page-aligned (aclrtMalloc rounds sizes up to whole pages)",
                       size, memory_page_size(), r->bytes);
    else {
        /* exporting again is allowed and sets the whitelist flag anew */
        ipc_export_begin(r->shm, export_state(r->shm->hdr),
                         !(flags & ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION), 0);
        ipc_key_format(key, IPC_KEY_MEMORY, r->shm);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1860 */
STUB_EXPORT aclError aclrtIpcMemSetImportPid(const char *key, int32_t *pid, size_t num)
{
    static const char *call = "aclrtIpcMemSetImportPid";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint64_t id = 0;
    size_t size = 0;
    struct mem_region *r = NULL;
    int d;
    if (!key || !pid)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !key ? "key" : "pid");
    else if ((int32_t)num <=
             0) /* passed on as int32_t (src/acl/aclrt_impl/memory.cpp:1866); api_error.cc SetIpcMemPid */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "num %zu is %d as the int32_t the runtime takes: pass 1 to 2^31-1 pids", num, (int32_t)num);
    else if ((rc = rt_require_device(call, &d))) /* ApiImpl::SetIpcMemPid, api_impl.cc:4775-4779 */
        ;
    else if (parse_key(key, &id, &size) != 0 || !(r = memory_region_find(MEM_DEVICE, id)) || !shared_of(r)->exported)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "\"%.64s\" is not a live export key of this process (call aclrtIpcMemGetExportKey first; "
                       "closed exports cannot take pids)",
                       key);
    else
        rc = ipc_export_add_pids(r->shm, export_state(r->shm->hdr), call, pid, (size_t)(int32_t)num);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1795 */
STUB_EXPORT aclError aclrtIpcMemImportByKey(void **devPtr, const char *key, uint64_t flags)
{
    static const char *call = "aclrtIpcMemImportByKey";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint64_t id = 0;
    size_t size = 0;
    int d;
    struct shm_object *obj = NULL;
    const struct mem_shared *m;
    void *view = NULL;
    size_t view_size = 0;
    struct mem_region *r = NULL;
    if (!devPtr || !key)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !devPtr ? "devPtr" : "key");
    else if (flags > ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flags 0x%llx are invalid: use ACL_RT_IPC_MEM_IMPORT_FLAG_DEFAULT (0) or "
                       "ACL_RT_IPC_MEM_IMPORT_FLAG_ENABLE_PEER_ACCESS (0x1)",
                       (unsigned long long)flags);
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (parse_key(key, &id, &size) != 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "\"%.64s\" is not a key from aclrtIpcMemGetExportKey", key);
    else
        rc = ipc_key_import(call, IPC_KEY_MEMORY, id, size, key, export_state, &obj);
    if (rc)
        goto out;
    m = (const struct mem_shared *)obj->hdr; /* device and bytes are set before the object is published */
    if (!(view = plat_shm_open(obj->name, size, &view_size, NULL, NULL)))
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot map the memory of key \"%.64s\"", key);
    else if (memory_region_new(MEM_IMPORTED, (char *)view + memory_data_offset(), (size_t)m->bytes, m->device, obj,
                               &r) != 0) {
        plat_shm_unmap(view, view_size);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    }
    if (rc) {
        shm_release(obj);
    } else {
        r->view = view;
        r->view_size = view_size;
        *devPtr = r->base;
    }
out:
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1786 */
STUB_EXPORT aclError aclrtIpcMemClose(const char *key)
{
    static const char *call = "aclrtIpcMemClose";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint64_t id = 0;
    size_t size = 0;
    struct mem_region *import = NULL, *own = NULL;
    int d;
    if (!key)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "key is NULL");
    else if ((rc = rt_require_device(call, &d))) /* ApiImpl::IpcCloseMemoryByName, api_impl_standard_soc.cc:748-751 */
        ;
    else if (parse_key(key, &id, &size) != 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "\"%.64s\" is not a key from aclrtIpcMemGetExportKey", key);
    else if ((import = memory_region_find(MEM_IMPORTED, id)))
        memory_region_drop(import); /* the oldest import of this key */
    else if ((own = memory_region_find(MEM_DEVICE, id)) && shared_of(own)->exported) {
        shm_lock(own->shm);
        shared_of(own)->exported = 0; /* later imports fail; existing mappings keep working */
        shm_unlock(own->shm);
    } else
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "key \"%.64s\" is neither imported nor exported by this process (closed already?)", key);
    rt_leave();
    return rc;
}
