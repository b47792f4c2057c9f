/*
 * acl_error_list.h - the error codes of docs/acl-contract.md section 1.4,
 * written once as an X-macro list of (name, value) pairs copied from the
 * contract's table. The library names codes in its messages with it; the
 * conformance suite names codes with it and checks every header constant
 * against it. (acl_base.h declares the ACL codes as `static const int`, as
 * CANN does, and those cannot be C case labels: hence the values spelled out
 * here.)
 */
#ifndef CANNSTUB_ACL_ERROR_LIST_H
#define CANNSTUB_ACL_ERROR_LIST_H

#define ACL_ERROR_LIST(X)                               \
    X(ACL_SUCCESS, 0)                                   \
    X(ACL_ERROR_INVALID_PARAM, 100000)                  \
    X(ACL_ERROR_UNINITIALIZE, 100001)                   \
    X(ACL_ERROR_REPEAT_INITIALIZE, 100002)              \
    X(ACL_ERROR_INVALID_FILE, 100003)                   \
    X(ACL_ERROR_PARSE_FILE, 100006)                     \
    X(ACL_ERROR_REPEAT_FINALIZE, 100037)                \
    X(ACL_ERROR_FEATURE_UNSUPPORTED, 200006)            \
    X(ACL_ERROR_INTERNAL_ERROR, 500000)                 \
    X(ACL_ERROR_RT_PARAM_INVALID, 107000)               \
    X(ACL_ERROR_RT_INVALID_DEVICEID, 107001)            \
    X(ACL_ERROR_RT_CONTEXT_NULL, 107002)                \
    X(ACL_ERROR_RT_STREAM_CONTEXT, 107003)              \
    X(ACL_ERROR_RT_EVENT_TIMESTAMP_INVALID, 107006)     \
    X(ACL_ERROR_RT_INVALID_MEMORY_TYPE, 107016)         \
    X(ACL_ERROR_RT_INVALID_HANDLE, 107017)              \
    X(ACL_ERROR_RT_WAIT_TIMEOUT, 107019)                \
    X(ACL_ERROR_RT_TASK_TIMEOUT, 107020)                \
    X(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, 207000)         \
    X(ACL_ERROR_RT_MEMORY_ALLOCATION, 207001)           \
    X(ACL_ERROR_RT_NO_DEVICE, 207004)                   \
    X(ACL_ERROR_RT_NO_PERMISSION, 207006)               \
    X(ACL_ERROR_RT_INTERNAL_ERROR, 507000)              \
    X(ACL_ERROR_RT_CONTEXT_RELEASE_ERROR, 507007)       \
    X(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, 507046)         \
    X(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT, 507047)          \
    X(ACL_ERROR_HOST_MEMORY_ALREADY_REGISTERED, 507910) \
    X(ACL_ERROR_HOST_MEMORY_NOT_REGISTERED, 507911)

#endif
