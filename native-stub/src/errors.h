/*
 * errors.h - ACL error codes, the per-thread "recent error" message and the
 * stderr log (ACL_STUB_LOG).
 */
#ifndef CANNSTUB_ERRORS_H
#define CANNSTUB_ERRORS_H

#include "acl/acl.h"

#define STUB_EXPORT __attribute__((visibility("default")))

enum stub_log_level { LOG_OFF = 0, LOG_ERROR = 1, LOG_WARN = 2, LOG_INFO = 3, LOG_DEBUG = 4 };

/* Symbolic name of an ACL error code ("ACL_ERROR_RT_INVALID_HANDLE"). */
const char *stub_error_name(aclError code);

/* Records "call: reason" as this thread's recent error, logs it at error
 * level and returns code, so that API functions can `return stub_fail(...)`. */
aclError stub_fail(aclError code, const char *call, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));

/* Reads ACL_STUB_LOG; returns 0, or -1 with *bad pointing at the bad value. */
int stub_log_configure(const char **bad);
int stub_log_enabled(enum stub_log_level level);
void stub_log(enum stub_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
