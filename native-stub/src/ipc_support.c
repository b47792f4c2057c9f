/*
 * ipc_support.c - the calls around IPC memory and notify that every CANN IPC
 * sample makes: peer access (enable, disable), the host "bare tgid" for
 * whitelists, and aclrtDestroyStreamForce.
 *
 * On the CPU every device can reach every other one, so peer access is
 * always possible; the calls only check their arguments as CANN does.
 */
#include "ipc_whitelist.h"
#include "device_ids.h"
#include "runtime.h"
#include "stream.h"
#include "sync.h"

#include <assert.h>

#include <unistd.h>

/* The checks of aclrtDeviceEnablePeerAccess and aclrtDeviceDisablePeerAccess, the
 * same in CANN (memory.cpp:906-931 and 935-961, after enable's flags): the current
 * device (107002); peer == current (100000); the peer's id (rtGetDevicePhyIdByIndex:
 * 107001 out of range). */
static aclError check_peer_of_current_device(const char *call, int32_t peerDeviceId)
{
    int d;
    aclError rc = rt_require_device(call, &d);
    if (rc)
        return rc;
    if (d == peerDeviceId)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "peerDeviceId %d is the current device", (int)peerDeviceId);
    return device_id_check(call, "peerDeviceId", peerDeviceId, rt.device_count);
}

/* CANN: src/acl/aclrt_impl/memory.cpp:881 */
STUB_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    static const char *call = "aclrtDeviceCanAccessPeer";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:881-903 has no NULL check: equal ids (100000), the peer's id,
     * then the rt decorator: the device's id, then NULL output as
     * RT_ERROR_INVALID_VALUE, 107000 (api_error.cc:3382-3394) */
    if (deviceId == peerDeviceId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "deviceId %d cannot be equal to peerDeviceId", (int)deviceId);
    else if ((rc = device_id_check(call, "peerDeviceId", peerDeviceId, rt.device_count)) ||
             (rc = device_id_check(call, "deviceId", deviceId, rt.device_count)))
        ;
    else if (!canAccessPeer)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "canAccessPeer is NULL");
    else
        *canAccessPeer = 1;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:906 */
STUB_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    static const char *call = "aclrtDeviceEnablePeerAccess";
    if (flags != 0)
        return rt_reject(ACL_ERROR_FEATURE_UNSUPPORTED, call, "flags 0x%x are reserved: pass 0", flags);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rc = check_peer_of_current_device(call, peerDeviceId);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:935 */
STUB_EXPORT aclError aclrtDeviceDisablePeerAccess(int32_t peerDeviceId)
{
    static const char *call = "aclrtDeviceDisablePeerAccess";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* As for enabling, peer access is not state on the stub: disabling always succeeds. */
    rc = check_peer_of_current_device(call, peerDeviceId);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1353 */
STUB_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    static const char *call = "aclrtDeviceGetBareTgid";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!pid)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pid is NULL");
    else
        *pid = ipc_bare_tgid(); /* the whitelists of IPC memory, notify and VMM hold these */
    rt_leave();
    return rc;
}

/* Host-side work: what the stub runs on the CPU in the executor, as CANN's
 * host tasks run on the host (a copy is CANN's HostTaskMemCpy). */
static int is_host_side(enum task_kind kind)
{
    return kind == TASK_HOST_FUNC || kind == TASK_MEMCPY || kind == TASK_MEMSET;
}

/* CANN tears a stream down by first flushing its pending host-task list
 * (core/src/context/context.cc:995-1002, FlushPendingTasksBeforeStreamTearDown:
 * WaitFinish of each host task already launched), then force-recycling what the
 * device has not run (core/src/stream/stream.cc:1409-1480). In the stub, "already
 * launched" is the task the stream's executor has started: if it is host-side
 * work it runs to its end and the call returns after it; a started wait is
 * device work and is abandoned. Tasks not started yet are dropped. rt.lock held
 * (released while waiting). */
static aclError flush_and_cancel(const char *call, struct stream *s)
{
    const struct task *running = s->running;
    /* a host function of s that destroys s would wait for itself */
    uint64_t seq = running && is_host_side(running->kind) && !stream_is_running_this_thread(s) ? running->seq : 0;
    stream_cancel(s); /* the executor starts nothing more: queued tasks are dropped */
    if (!seq)
        return ACL_SUCCESS;
    s->waiters++; /* keeps s allocated while rt.lock is released */
    while (s->running && s->running->seq == seq && rt.initialized)
        rt_wait_progress(0);
    assert(s->waiters > 0);
    s->waiters--;
    rt_progress_broadcast(); /* the executor waits for the waiters to leave */
    if (s->running && s->running->seq == seq)
        return stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "aclFinalize ran while waiting for the running task");
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/stream.cpp:108 */
STUB_EXPORT aclError aclrtDestroyStreamForce(aclrtStream stream)
{
    static const char *call = "aclrtDestroyStreamForce";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    if (!stream)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "stream is NULL (the default stream cannot be destroyed)");
    else if (!(s = rt_find_stream(stream)))
        rc = stub_fail(ACL_ERROR_RT_INVALID_HANDLE, call,
                       "stream %p is not a live stream (destroyed, or never created)", stream);
    /* the same ApiImpl::StreamDestroy checks (api_c_stream.cc:109-120, api_impl.cc:1579-1585) */
    else if ((rc = stream_check_context(call, s)))
        ;
    else
        rc = flush_and_cancel(call, s);
    rt_leave();
    return rc;
}
