/*
 * device.c - aclrtSetDevice / ResetDevice / GetDevice / GetDeviceCount.
 *
 * As in CANN: aclrtSetDevice makes the device's primary context current on
 * the calling thread (context.h); primary contexts are reference counted per
 * process (each SetDevice adds one, each ResetDevice drops one,
 * runtime.cc PrimaryContextRetain/Release) and when a device's count reaches
 * 0 its primary context's streams and events are destroyed and every thread
 * that had it current has no context until the device is set again.
 */
#include "context.h"
#include "device_ids.h"
#include "runtime.h"

/* CANN: src/acl/aclrt_impl/device.cpp:55 */
STUB_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    static const char *call = "aclrtSetDevice";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rc = device_id_check(call, "device id", deviceId, rt.device_count);
    if (!rc && !ctx_set_device(deviceId))
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    rt_leave();
    return rc;
}

static aclError reset_device(const char *call, int32_t deviceId, int force)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rc = device_id_check(call, "device id", deviceId, rt.device_count);
    struct device *dev = rc ? NULL : &rt.devices[deviceId];
    /* A device whose count is 0 (never set, or reset already) has nothing to
     * release: RT_ERROR_CONTEXT_DEL, 507007 (runtime.cc:2908-2930
     * PrimaryContextRelease; :233-251 TryDecRef of 0 fails, reference.hpp:69-79;
     * force: :253-270, no primary context) */
    if (dev && dev->refcount <= 0)
        rc = stub_fail(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, call,
                       "device %d is not set in this process (every aclrtSetDevice has had its reset): reset a "
                       "device once per aclrtSetDevice",
                       (int)deviceId);
    else if (dev) {
        dev->refcount = force ? 0 : dev->refcount - 1;
        if (dev->refcount == 0 && dev->primary) {
            ctx_teardown(dev->primary, 0);
            ctx_unbind_device_slot(); /* runtime.cc:2865-2868, whatever device this thread had set */
        }
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/device.cpp:90 */
STUB_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    return reset_device("aclrtResetDevice", deviceId, 0);
}

/* CANN: src/acl/aclrt_impl/device.cpp:101 */
STUB_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return reset_device("aclrtResetDeviceForce", deviceId, 1);
}

/* CANN: src/acl/aclrt_impl/device.cpp:131 */
STUB_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    static const char *call = "aclrtGetDevice";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    /* ApiImpl::GetDevice (api_impl.cc:3473-3490): without a valid context, the
     * configured default device, without binding the thread to it */
    if (!deviceId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "deviceId is NULL");
    else if ((c = ctx_current_checked()))
        *deviceId = c->device;
    else if (rt.default_device >= 0)
        *deviceId = rt.default_device;
    else
        rc = stub_fail(ACL_ERROR_RT_CONTEXT_NULL, call,
                       "no current context on this thread: call aclrtSetDevice (or aclrtSetCurrentContext) on "
                       "this thread first");
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/device.cpp:221 */
STUB_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    static const char *call = "aclrtGetDeviceCount";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!count)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "count is NULL");
    else if (device_ids_error()) /* api_impl.cc:3410-3440: RT_ERROR_DRV_NO_DEVICE */
        rc = stub_fail(ACL_ERROR_RT_NO_DEVICE, call, "%s", device_ids_error());
    else
        *count = rt.device_count;
    rt_leave();
    return rc;
}
