/*
 * errors.h - ACL error codes, the per-thread "recent error" message and the
 * stderr log (ACL_STUB_LOG).
 */
#ifndef CANNSTUB_ERRORS_H
#define CANNSTUB_ERRORS_H

#include <assert.h>
#include <stdarg.h>

#include "acl/acl.h"

#define STUB_EXPORT __attribute__((visibility("default")))

enum stub_log_level { LOG_OFF = 0, LOG_ERROR = 1, LOG_WARN = 2, LOG_INFO = 3, LOG_DEBUG = 4 };

/* Symbolic name of an ACL error code ("ACL_ERROR_RT_INVALID_HANDLE"). */
const char *stub_error_name(aclError code);

/* Records "call: reason" as this thread's recent error and logs it at error
 * level. */
void stub_record_failure(aclError code, const char *call, const char *fmt, va_list ap)
    __attribute__((format(printf, 3, 0)));

/* stub_record_failure, then returns code (never ACL_SUCCESS), so that API
 * functions can `return stub_fail(...)`. Inline so that callers (and the
 * static analyzer) see that a failure never yields ACL_SUCCESS. */
static inline __attribute__((format(printf, 3, 4))) aclError stub_fail(aclError code, const char *call, const char *fmt,
                                                                       ...)
{
    assert(code != ACL_SUCCESS);
    va_list ap;
    va_start(ap, fmt);
    stub_record_failure(code, call, fmt, ap);
    va_end(ap);
    return code;
}

/* Reads ACL_STUB_LOG; returns 0, or -1 with *bad pointing at the bad value. */
int stub_log_configure(const char **bad);
int stub_log_enabled(enum stub_log_level level);
void stub_log(enum stub_log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

#endif
