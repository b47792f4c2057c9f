/*
 * errors.c - error names, per-thread recent error message, stderr log.
 */
#include "errors.h"

#include "acl_error_list.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static _Thread_local char recent_message[512];
static _Thread_local int has_recent_message;

/* Atomic so that threads may log while another thread runs aclInit. */
static int log_level = LOG_OFF;

const char *stub_error_name(aclError code)
{
    switch (code) {
#define NAME_CASE(name, value) \
    case value: return #name;
        ACL_ERROR_LIST(NAME_CASE)
#undef NAME_CASE
    default: return "UNKNOWN_ERROR";
    }
}

void stub_record_failure(aclError code, const char *call, const char *fmt, va_list ap)
{
    char reason[400];
    vsnprintf(reason, sizeof reason, fmt, ap);
    snprintf(recent_message, sizeof recent_message, "%s: %s (%s %d)", call, reason, stub_error_name(code), code);
    has_recent_message = 1;
    stub_log(LOG_ERROR, "%s", recent_message);
}

/* CANN: src/acl/aclrt_impl/acl.cpp:1292 */
STUB_EXPORT const char *aclGetRecentErrMsg(void)
{
    return has_recent_message ? recent_message : NULL;
}

int stub_log_configure(const char **bad)
{
    const char *v = getenv("ACL_STUB_LOG");
    int level = LOG_OFF;
    if (v && *v) {
        if (!strcasecmp(v, "off") || !strcasecmp(v, "none"))
            level = LOG_OFF;
        else if (!strcasecmp(v, "error"))
            level = LOG_ERROR;
        else if (!strcasecmp(v, "warn") || !strcasecmp(v, "warning"))
            level = LOG_WARN;
        else if (!strcasecmp(v, "info"))
            level = LOG_INFO;
        else if (!strcasecmp(v, "debug"))
            level = LOG_DEBUG;
        else {
            /* show this configuration error even though logging is unset */
            __atomic_store_n(&log_level, LOG_ERROR, __ATOMIC_RELAXED);
            *bad = v;
            return -1;
        }
    }
    __atomic_store_n(&log_level, level, __ATOMIC_RELAXED);
    return 0;
}

int stub_log_enabled(enum stub_log_level level)
{
    return (int)level <= __atomic_load_n(&log_level, __ATOMIC_RELAXED);
}

void stub_log(enum stub_log_level level, const char *fmt, ...)
{
    if ((int)level > __atomic_load_n(&log_level, __ATOMIC_RELAXED))
        return;
    char line[600];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    /* one fprintf per line so concurrent threads do not interleave */
    fprintf(stderr, "[acl-stub] %s\n", line);
}
