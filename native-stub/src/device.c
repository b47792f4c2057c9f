/*
 * device.c - aclrtSetDevice / ResetDevice / GetDevice / GetDeviceCount.
 *
 * As in CANN: the current device is per thread; devices are reference
 * counted per process (each SetDevice adds one, each ResetDevice drops one)
 * and when a device's count reaches 0 its streams and events are destroyed
 * and every thread that had it current loses its context.
 */
#include "event.h"
#include "runtime.h"
#include "stream.h"

static aclError check_device_id(const char *call, int32_t id)
{
    if (id < 0 || (uint32_t)id >= rt.device_count)
        return stub_fail(ACL_ERROR_RT_INVALID_DEVICEID, call,
                         "device id %d is out of range: this process has %u device(s), ids 0..%u "
                         "(ACL_STUB_DEVICE_COUNT)",
                         (int)id, rt.device_count, rt.device_count - 1);
    return ACL_SUCCESS;
}

void device_deactivate(int device, int cancel)
{
    struct device *dev = &rt.devices[device];
    dev->generation++;
    dev->default_stream = NULL;
    for (struct stream *s = rt.streams, *next; s; s = next) {
        next = s->next;
        if (s->device == device) {
            if (cancel)
                stream_cancel(s);
            else
                stream_destroy(s);
        }
    }
    for (struct event *e = rt.events, *next; e; e = next) {
        next = e->next;
        if (e->device == device)
            event_destroy(e);
    }
}

STUB_EXPORT aclError aclrtSetDevice(int32_t deviceId)
{
    static const char *call = "aclrtSetDevice";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rc = check_device_id(call, deviceId);
    if (rc == ACL_SUCCESS) {
        rt.devices[deviceId].refcount++;
        rt_set_current_device(deviceId);
    }
    rt_leave();
    return rc;
}

static aclError reset_device(const char *call, int32_t deviceId, int force)
{
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    rc = check_device_id(call, deviceId);
    if (rc == ACL_SUCCESS && rt.devices[deviceId].refcount > 0) {
        rt.devices[deviceId].refcount = force ? 0 : rt.devices[deviceId].refcount - 1;
        if (rt.devices[deviceId].refcount == 0)
            device_deactivate(deviceId, 0);
    }
    rt_leave();
    return rc;
}

STUB_EXPORT aclError aclrtResetDevice(int32_t deviceId)
{
    return reset_device("aclrtResetDevice", deviceId, 0);
}

STUB_EXPORT aclError aclrtResetDeviceForce(int32_t deviceId)
{
    return reset_device("aclrtResetDeviceForce", deviceId, 1);
}

STUB_EXPORT aclError aclrtGetDevice(int32_t *deviceId)
{
    static const char *call = "aclrtGetDevice";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d = -1;
    if (!deviceId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "deviceId is NULL");
    else if ((rc = rt_require_device(call, &d)) == ACL_SUCCESS)
        *deviceId = d;
    rt_leave();
    return rc;
}

STUB_EXPORT aclError aclrtGetDeviceCount(uint32_t *count)
{
    static const char *call = "aclrtGetDeviceCount";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    if (!count)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "count is NULL");
    else
        *count = rt.device_count;
    rt_leave();
    return rc;
}
