/*
 * notify.c - aclrtCreateNotify / Destroy / Record / WaitAndReset and IPC
 * notify (export key, pid whitelist, import).
 *
 * The flag word lives in the notify's shared object (notify.h). A record
 * task stores 1 and wakes every waiter in every process (futex on the
 * shared page, as IPC events do); a wait task sleeps on the word together
 * with its stream's cancel word and consumes the record by swapping 1 for 0.
 * Handles are tagged, never-reused ids (as for events), so a destroyed
 * notify is always 107017 and garbage is never dereferenced.
 */
#include "notify.h"

#include "explore.h"
#include "ipc_key.h"
#include "mutant.h"

#include "platform.h"
#include "runtime.h"
#include "stream.h"
#include "sync.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static struct notify *notifies; /* live notifies (rt.lock) */
static uint64_t next_notify_id;

static void *handle_of(const struct notify *n)
{
    return (void *)(uintptr_t)(STUB_NOTIFY_HANDLE_BASE | (n->id & STUB_HANDLE_ID_MASK));
}

static struct notify *find_notify(void *handle)
{
    uintptr_t h = (uintptr_t)handle;
    if ((h & ~(uintptr_t)STUB_HANDLE_ID_MASK) != STUB_NOTIFY_HANDLE_BASE)
        return NULL;
    for (struct notify *n = notifies; n; n = n->next)
        if (handle_of(n) == handle)
            return n;
    return NULL;
}

static void notify_unref(struct notify *n)
{
    assert(n->refs > 0);
    if (--n->refs > 0)
        return;
    shm_release(n->shm);
    free(n);
}

static void unlist(struct notify *n)
{
    for (struct notify **pp = &notifies; *pp; pp = &(*pp)->next) {
        if (*pp == n) {
            *pp = n->next;
            n->next = NULL;
            return;
        }
    }
}

static struct notify *new_notify(struct shm_object *obj, int is_creator)
{
    struct notify *n = calloc(1, sizeof *n);
    if (!n)
        return NULL;
    n->id = ++next_notify_id;
    n->is_creator = is_creator;
    n->refs = 1;
    n->shm = obj;
    n->sh = (struct notify_shared *)obj->hdr;
    n->next = notifies;
    notifies = n;
    return n;
}

/* Enter + NULL check + handle lookup; on success rt.lock is held. */
static aclError enter_with_notify(const char *call, aclrtNotify notify, struct notify **out)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!notify)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "notify is NULL");
    else if (!(*out = find_notify(notify)))
        rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                       "notify %p is not a live notify (destroyed, or never created)", notify);
    if (rc)
        rt_leave();
    assert(rc || *out);
    return rc;
}

/* CANN: src/acl/aclrt_impl/notify.cpp:25 */
STUB_EXPORT aclError aclrtCreateNotify(aclrtNotify *notify, uint64_t flag)
{
    static const char *call = "aclrtCreateNotify";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    struct shm_object *obj = NULL;
    struct notify *n = NULL;
    if (!notify)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "notify is NULL");
    else if (flag != ACL_NOTIFY_DEFAULT && flag != ACL_NOTIFY_DEVICE_USE_ONLY)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flag 0x%llx is invalid: use ACL_NOTIFY_DEFAULT (0) or ACL_NOTIFY_DEVICE_USE_ONLY (1)",
                       (unsigned long long)flag);
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (shm_create(SHM_NOTIFY_PREFIX, sizeof(struct notify_shared), SHM_RESERVE_ALL, NULL, NULL, &obj) != 0)
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "cannot create the shared-memory object of the notify");
    else if (!(n = new_notify(obj, 1))) {
        shm_release(obj);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    } else {
        n->sh->device = d;
        *notify = handle_of(n);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/notify.cpp:37 */
STUB_EXPORT aclError aclrtDestroyNotify(aclrtNotify notify)
{
    static const char *call = "aclrtDestroyNotify";
    struct notify *n = NULL;
    aclError rc = enter_with_notify(call, notify, &n);
    if (rc)
        return rc;
    int d;
    if ((rc = rt_require_device(call, &d)) == ACL_SUCCESS) {
        if (n->is_creator)
            shm_mark_creator_gone(n->shm); /* later imports fail; importers keep theirs */
        unlist(n);
        notify_unref(n); /* queued tasks keep the object until they ran */
    }
    rt_leave();
    return rc;
}

/* CANN's isIpcNotify_: set by the export (notify.cc:404) and by an import
 * (notify.cc:446). Only the creator's process can export. */
static int is_ipc_notify(const struct notify *n)
{
    return !n->is_creator || __atomic_load_n(&n->sh->exported, __ATOMIC_ACQUIRE);
}

/* Queues a record or wait task of n on stream (rt.lock held). */
static aclError submit_notify_task(const char *call, struct notify *n, aclrtStream stream, enum task_kind kind,
                                   uint32_t timeout_s)
{
    struct stream *s = NULL;
    aclError rc = stream_resolve(call, stream, &s);
    if (!rc)
        rc = stream_check_context(call, s);
    if (rc)
        return rc;
    /* Notify::CheckIpcNotifyDevId (core/src/notify/notify.cc:417-440) starts
     * `if (isIpcNotify_)`: only an exported or imported notify must be waited
     * on from its creator's device; a never-exported one may be waited on from
     * any device. */
    if (kind == TASK_NOTIFY_WAIT && is_ipc_notify(n) && s->device != n->sh->device)
        return stub_fail(
            ACL_ERROR_RT_PARAM_INVALID, call,
            "the IPC notify belongs to device %d but the stream to device %d: wait on the creator's device",
            n->sh->device, s->device);
    struct task *t = calloc(1, sizeof *t);
    if (!t)
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    t->kind = kind;
    t->notify = n;
    t->timeout_s = timeout_s;
    n->refs++;
    stream_submit(s, t);
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/notify.cpp:49 */
STUB_EXPORT aclError aclrtRecordNotify(aclrtNotify notify, aclrtStream stream)
{
    static const char *call = "aclrtRecordNotify";
    EXPLORE_API(call);
    struct notify *n = NULL;
    aclError rc = enter_with_notify(call, notify, &n);
    if (rc)
        return rc;
    rc = submit_notify_task(call, n, stream, TASK_NOTIFY_RECORD, 0);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/notify.cpp:59 */
STUB_EXPORT aclError aclrtWaitAndResetNotify(aclrtNotify notify, aclrtStream stream, uint32_t timeout)
{
    static const char *call = "aclrtWaitAndResetNotify";
    EXPLORE_API(call);
    struct notify *n = NULL;
    aclError rc = enter_with_notify(call, notify, &n);
    if (rc)
        return rc;
    /* seconds; 0 and UINT32_MAX wait forever (api_c_event.cc rtsNotifyWaitAndReset) */
    rc = submit_notify_task(call, n, stream, TASK_NOTIFY_WAIT, timeout == UINT32_MAX ? 0 : timeout);
    rt_leave();
    return rc;
}

/* Consumes a record: returns 1 when the flag was 1 and is now 0. */
static int take_record(uint32_t *flag)
{
    uint32_t one = 1;
    return __atomic_compare_exchange_n(flag, &one, 0, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

/* The key of a notify's waiters under ACL_STUB_EXPLORE (explore.h): the same in every process. */
static void explore_notify_key(char key[EXPLORE_KEY_BYTES], const struct notify *n)
{
    snprintf(key, EXPLORE_KEY_BYTES, "notify %016llx", (unsigned long long)n->shm->id);
}

void notify_task_run(struct stream *s, struct task *t)
{
    uint32_t *flag = &t->notify->sh->flag;
    char key[EXPLORE_KEY_BYTES];
    if (t->kind == TASK_NOTIFY_RECORD) {
        __atomic_store_n(flag, 1, __ATOMIC_RELEASE);
        if (EXPLORE_ON()) {
            explore_notify_key(key, t->notify);
            cannstub_explore_wake(key); /* its waiter, in any process, is RUNNING before it wakes */
        }
        plat_wake_word(flag);
        return;
    }
    int explored = 0;
    if (mutant_is(MUTANT_WAIT_NOOP)) {
        (void)take_record(flag); /* mutant wait-noop: never blocks (a record already there is still taken) */
        return;
    }
    uint64_t deadline = t->timeout_s ? plat_monotonic_ns() + (uint64_t)t->timeout_s * 1000000000ull : 0;
    for (;;) {
        if (take_record(flag))
            return;
        if (__atomic_load_n(&s->cancelled, __ATOMIC_SEQ_CST))
            return;
        if (deadline && plat_monotonic_ns() >= deadline) {
            sync_lock(&rt.lock);
            s->sticky_error = ACL_ERROR_RT_WAIT_TIMEOUT; /* reported by the next synchronize */
            sync_unlock(&rt.lock);
            return;
        }
        stream_note_blocked(s);
        if (!explored && EXPLORE_ON()) {
            explore_notify_key(key, t->notify); /* BLOCKED until a record makes it RUNNING */
            explore_keyed_sleep(key);
            explored = 1;
            continue; /* the record may have come meanwhile */
        }
        plat_wait_on_word_or_cancel(flag, 0, &s->cancelled, 0, deadline);
    }
}

void notify_task_release(struct task *t)
{
    if (t->notify) {
        notify_unref(t->notify);
        t->notify = NULL;
    }
}

/* ---- IPC notify ---- */

static struct ipc_export_state export_state(struct shm_header *hdr)
{
    struct notify_shared *sh = (struct notify_shared *)hdr;
    return (struct ipc_export_state){.exported = &sh->exported, .whitelist = &sh->whitelist};
}

/* CANN: src/acl/aclrt_impl/notify.cpp:94 */
STUB_EXPORT aclError aclrtNotifyGetExportKey(aclrtNotify notify, char *key, size_t len, uint64_t flags)
{
    static const char *call = "aclrtNotifyGetExportKey";
    EXPLORE_API(call);
    if (!key)
        return rt_reject(ACL_ERROR_INVALID_PARAM, call, "key is NULL");
    struct notify *n = NULL;
    aclError rc = enter_with_notify(call, notify, &n);
    if (rc)
        return rc;
    /* the acl layer passes len on as uint32_t (src/acl/aclrt_impl/notify.cpp:100);
     * the runtime refuses 0 (api_error.cc:4464-4470 IpcSetNotifyName) */
    if ((uint32_t)len == 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "len %zu is 0 as the uint32_t the runtime takes: pass a key "
                       "buffer of %d bytes",
                       len, IPC_KEY_LEN);
    else if (flags != ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT && flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flags 0x%llx are invalid: use ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT (0, pid whitelist on) or "
                       "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION (0x2)",
                       (unsigned long long)flags);
    else if ((uint32_t)len < IPC_KEY_LEN)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "len %zu is too small: the key buffer must hold %d bytes", len,
                       IPC_KEY_LEN);
    else if (!n->is_creator)
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "an imported notify cannot be exported again");
    else if (ipc_export_begin(n->shm, export_state(n->shm->hdr),
                              flags != ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION, 1))
        rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call,
                       "this notify was exported already: a notify has one export key");
    else
        ipc_key_format(key, IPC_KEY_NOTIFY, n->shm);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/notify.cpp:120 */
STUB_EXPORT aclError aclrtNotifySetImportPid(aclrtNotify notify, int32_t *pid, size_t num)
{
    static const char *call = "aclrtNotifySetImportPid";
    EXPLORE_API(call);
    if (!pid)
        return rt_reject(ACL_ERROR_INVALID_PARAM, call, "pid is NULL");
    struct notify *n = NULL;
    aclError rc = enter_with_notify(call, notify, &n);
    if (rc)
        return rc;
    int d;
    /* the acl layer passes num on as int32_t (src/acl/aclrt_impl/notify.cpp:127);
     * the runtime refuses num <= 0 (api_error.cc SetIpcNotifyPid) */
    if ((int32_t)num <= 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "num %zu is %d as the int32_t the runtime takes: pass 1 to 2^31-1 pids", num, (int32_t)num);
    else if ((rc = rt_require_device(call, &d))) /* ApiImpl::SetIpcNotifyPid, api_impl.cc:4760-4764 */
        ;
    else if (!n->is_creator || !n->sh->exported)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "the notify has no export key of this process: call aclrtNotifyGetExportKey first");
    else
        rc = ipc_export_add_pids(n->shm, export_state(n->shm->hdr), call, pid, (size_t)(int32_t)num);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/notify.cpp:107 */
STUB_EXPORT aclError aclrtNotifyImportByKey(aclrtNotify *notify, const char *key, uint64_t flags)
{
    static const char *call = "aclrtNotifyImportByKey";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint64_t id = 0;
    int d;
    struct shm_object *obj = NULL;
    struct notify *n = NULL;
    if (!notify || !key)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", !notify ? "notify" : "key");
    else if ((flags & 0xFFFFFFFFu) > 0x3) /* cut to 32 bits (api_c_event.cc:205-208 rtsNotifyImportByKey) */
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flags 0x%llx are invalid: use ACL_RT_NOTIFY_IMPORT_FLAG_DEFAULT (0) or "
                       "ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS (0x2)",
                       (unsigned long long)flags);
    else if ((rc = rt_require_device(call, &d)))
        ;
    else if (ipc_key_parse(key, IPC_KEY_NOTIFY, &id, NULL) != 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "\"%.64s\" is not a key from aclrtNotifyGetExportKey", key);
    else
        rc = ipc_key_import(call, IPC_KEY_NOTIFY, id, sizeof(struct notify_shared), key, export_state, &obj);
    if (rc)
        goto out;
    if (!(n = new_notify(obj, 0))) {
        shm_release(obj);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    } else
        *notify = handle_of(n);
out:
    rt_leave();
    return rc;
}

void notify_shutdown(void)
{
    while (notifies) {
        struct notify *n = notifies;
        if (n->is_creator)
            shm_mark_creator_gone(n->shm);
        unlist(n);
        notify_unref(n);
    }
}

void notify_reclaim_stale(void)
{
    shm_reclaim_stale(SHM_NOTIFY_PREFIX, NULL);
}

/* notify.cpp:70-80 aclrtGetNotifyIdImpl: notify, notifyId NULL (100000); the handle
 * (107017); ApiImpl::GetNotifyID (api_impl.cc:4945-4952): the current context (107002).
 * The id is the low 32 bits of the notify's shared object id (stub rule): the
 * creator and every importer see the same id, as processes sharing one hardware
 * notify do. */
/* CANN: src/acl/aclrt_impl/notify.cpp:70 */
STUB_EXPORT aclError aclrtGetNotifyId(aclrtNotify notify, uint32_t *notifyId)
{
    static const char *call = "aclrtGetNotifyId";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct notify *n = NULL;
    int d;
    if (!notify)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "notify is NULL");
    else if (!notifyId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "notifyId is NULL");
    else if (!(n = find_notify(notify)))
        rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                       "notify %p is not a live notify (destroyed, or never created)", notify);
    else if ((rc = rt_require_device(call, &d)) == ACL_SUCCESS)
        *notifyId = (uint32_t)n->shm->id;
    rt_leave();
    return rc;
}
