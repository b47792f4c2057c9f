/*
 * device_ids.h - user, logic and physical device ids (ASCEND_RT_VISIBLE_DEVICES)
 * and the SoC name (ACL_STUB_SOC_NAME): device_ids.c. See docs/acl-contract.md
 * section 11.
 */
#ifndef CANNSTUB_DEVICE_IDS_H
#define CANNSTUB_DEVICE_IDS_H

#include <stddef.h>
#include <stdint.h>

#include "errors.h"

/* aclInit (rt.lock held): reads ASCEND_RT_VISIBLE_DEVICES against the
 * physical_count devices of ACL_STUB_DEVICE_COUNT and ACL_STUB_SOC_NAME.
 * *visible is the number of user device ids (aclrtGetDeviceCount; 0 when the
 * variable is set but unusable, as CANN). -1 with a message in err for an
 * invalid ACL_STUB_SOC_NAME. */
int device_ids_configure(uint32_t physical_count, uint32_t *visible, char *err, size_t len);

/* The one check of a device id (user or logic, per the caller's count):
 * 0 .. count - 1, else 107001 ACL_ERROR_RT_INVALID_DEVICEID, CANN's
 * CheckDeviceIdIsValid and the driver's RT_ERROR_DEVICE_ID (api_error.cc,
 * e.g. 6653-6672 SetDefaultDeviceId). what names the argument in the message;
 * count is ACL_STUB_DEVICE_COUNT or the visible ids' number. */
aclError device_id_check(const char *call, const char *what, int64_t id, uint32_t count);

/* The message of an unusable ASCEND_RT_VISIBLE_DEVICES, or NULL (rt.lock held). */
const char *device_ids_error(void);

#endif
