/*
 * device_ids.h - user, logic and physical device ids (ASCEND_RT_VISIBLE_DEVICES)
 * and the SoC name (ACL_STUB_SOC_NAME): device_ids.c. See docs/acl-contract.md
 * section 11.
 */
#ifndef CANNSTUB_DEVICE_IDS_H
#define CANNSTUB_DEVICE_IDS_H

#include <stddef.h>
#include <stdint.h>

/* aclInit (rt.lock held): reads ASCEND_RT_VISIBLE_DEVICES against the
 * physical_count devices of ACL_STUB_DEVICE_COUNT and ACL_STUB_SOC_NAME.
 * *visible is the number of user device ids (aclrtGetDeviceCount; 0 when the
 * variable is set but unusable, as CANN). -1 with a message in err for an
 * invalid ACL_STUB_SOC_NAME. */
int device_ids_configure(uint32_t physical_count, uint32_t *visible, char *err, size_t len);

/* The message of an unusable ASCEND_RT_VISIBLE_DEVICES, or NULL (rt.lock held). */
const char *device_ids_error(void);

#endif
