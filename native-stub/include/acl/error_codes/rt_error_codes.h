/*
 * acl/error_codes/rt_error_codes.h - runtime (1070xx, 2070xx, 5070xx) error codes.
 */
#ifndef INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

static const int32_t ACL_RT_SUCCESS = 0;

static const int32_t ACL_ERROR_RT_PARAM_INVALID = 107000;
static const int32_t ACL_ERROR_RT_INVALID_DEVICEID = 107001;
static const int32_t ACL_ERROR_RT_CONTEXT_NULL = 107002;
static const int32_t ACL_ERROR_RT_STREAM_CONTEXT = 107003;
static const int32_t ACL_ERROR_RT_INVALID_HANDLE = 107017;
static const int32_t ACL_ERROR_RT_WAIT_TIMEOUT = 107019;
static const int32_t ACL_ERROR_RT_TASK_TIMEOUT = 107020;

static const int32_t ACL_ERROR_RT_FEATURE_NOT_SUPPORT = 207000;
static const int32_t ACL_ERROR_RT_MEMORY_ALLOCATION = 207001;
static const int32_t ACL_ERROR_RT_NO_PERMISSION = 207006;

static const int32_t ACL_ERROR_RT_INTERNAL_ERROR = 507000;
static const int32_t ACL_ERROR_RT_STREAM_SYNC_TIMEOUT = 507046;
static const int32_t ACL_ERROR_RT_EVENT_SYNC_TIMEOUT = 507047;

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
