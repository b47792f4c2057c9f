/*
 * ipc_support.c - the calls around IPC memory and notify that every CANN IPC
 * sample makes: peer access, the host "bare tgid" for whitelists, and
 * aclrtDestroyStreamForce.
 *
 * On the CPU every device can reach every other one, so peer access is
 * always possible; the calls only check their arguments as CANN does.
 */
#include "runtime.h"
#include "stream.h"

#include <unistd.h>

static aclError check_device_id(const char *call, const char *what, int32_t id)
{
    if (id < 0 || (uint32_t)id >= rt.device_count)
        return stub_fail(ACL_ERROR_RT_INVALID_DEVICEID, call,
                         "%s %d is out of range: this process has %u device(s) (ACL_STUB_DEVICE_COUNT)", what, (int)id,
                         rt.device_count);
    return ACL_SUCCESS;
}

STUB_EXPORT aclError aclrtDeviceCanAccessPeer(int32_t *canAccessPeer, int32_t deviceId, int32_t peerDeviceId)
{
    static const char *call = "aclrtDeviceCanAccessPeer";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!canAccessPeer)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "canAccessPeer is NULL");
    else if (deviceId == peerDeviceId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "deviceId %d cannot be equal to peerDeviceId", (int)deviceId);
    else if (!(rc = check_device_id(call, "peerDeviceId", peerDeviceId)) &&
             !(rc = check_device_id(call, "deviceId", deviceId)))
        *canAccessPeer = 1;
    rt_leave();
    return rc;
}

STUB_EXPORT aclError aclrtDeviceEnablePeerAccess(int32_t peerDeviceId, uint32_t flags)
{
    static const char *call = "aclrtDeviceEnablePeerAccess";
    if (flags != 0)
        return rt_reject(ACL_ERROR_FEATURE_UNSUPPORTED, call, "flags 0x%x are reserved: pass 0", flags);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    if ((rc = rt_require_device(call, &d)))
        ;
    else if (d == peerDeviceId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "peerDeviceId %d is the current device", (int)peerDeviceId);
    else
        rc = check_device_id(call, "peerDeviceId", peerDeviceId);
    rt_leave();
    return rc;
}

STUB_EXPORT aclError aclrtDeviceGetBareTgid(int32_t *pid)
{
    static const char *call = "aclrtDeviceGetBareTgid";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!pid)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "pid is NULL");
    else
        *pid = (int32_t)getpid(); /* the whitelists of IPC memory and notify hold these */
    rt_leave();
    return rc;
}

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
        stream_cancel(s); /* queued tasks are dropped, a blocked wait is abandoned */
    rt_leave();
    return rc;
}
