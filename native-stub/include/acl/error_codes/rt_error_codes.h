/*
 * acl/error_codes/rt_error_codes.h - runtime (1070xx, 2070xx, 5070xx) error codes.
 *
 * Macros, as in CANN (include/external/acl/error_codes/rt_error_codes.h), so
 * that C programs can use them in `case` labels and `#ifdef`. The ACL codes
 * of acl_base.h stay `static const int`, as in CANN.
 */
#ifndef INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_
#define INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_

#define ACL_RT_SUCCESS 0

#define ACL_ERROR_RT_PARAM_INVALID 107000
#define ACL_ERROR_RT_INVALID_DEVICEID 107001
#define ACL_ERROR_RT_CONTEXT_NULL 107002
#define ACL_ERROR_RT_STREAM_CONTEXT 107003
#define ACL_ERROR_RT_INVALID_HANDLE 107017
#define ACL_ERROR_RT_WAIT_TIMEOUT 107019
#define ACL_ERROR_RT_TASK_TIMEOUT 107020

#define ACL_ERROR_RT_FEATURE_NOT_SUPPORT 207000
#define ACL_ERROR_RT_MEMORY_ALLOCATION 207001
#define ACL_ERROR_RT_NO_PERMISSION 207006

#define ACL_ERROR_RT_INTERNAL_ERROR 507000
#define ACL_ERROR_RT_STREAM_SYNC_TIMEOUT 507046
#define ACL_ERROR_RT_EVENT_SYNC_TIMEOUT 507047

#endif /* INC_EXTERNAL_ACL_ERROR_CODES_RT_ERROR_CODES_H_ */
