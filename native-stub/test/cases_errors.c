/*
 * cases_errors.c - docs/acl-contract.md section 3: the headers' error codes (values
 * and #define form) and aclGetRecentErrMsg() after each kind of failure.
 */
#define _GNU_SOURCE
#include <string.h>

#include "support.h"
#include "../src/acl_error_list.h"

/* ------------------------------------------------------------------ headers */

/* Every error constant of the headers has the value of the contract's table
 * (section 3), which src/acl_error_list.h copies. */
CT_STUB_CASE(headers_error_codes_match_the_contract,
             "checks the stub's headers (compiled into the runner), not the library")
{
#define EXPECT_HEADER_VALUE(name, value) CT_EQ(value, name);
    ACL_ERROR_LIST(EXPECT_HEADER_VALUE)
#undef EXPECT_HEADER_VALUE
}

/* rt_error_codes.h defines its codes with #define, as CANN's does: C code may
 * test them with #ifdef and use them as case labels (docs/acl-contract.md
 * section 1). This case does not compile against `static const` codes. */
#if !defined(ACL_ERROR_RT_PARAM_INVALID) || !defined(ACL_ERROR_RT_FEATURE_NOT_SUPPORT) || \
    !defined(ACL_ERROR_RT_EVENT_SYNC_TIMEOUT) || !defined(ACL_RT_SUCCESS)
#error "rt_error_codes.h must #define its codes"
#endif

static const char *runtime_code_kind(int code)
{
    switch (code) {
    case ACL_RT_SUCCESS: return "success";
    case ACL_ERROR_RT_PARAM_INVALID:
    case ACL_ERROR_RT_INVALID_HANDLE: return "argument";
    case ACL_ERROR_RT_FEATURE_NOT_SUPPORT: return "unsupported";
    case ACL_ERROR_RT_EVENT_SYNC_TIMEOUT:
    case ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: return "timeout";
    default: return "other";
    }
}

CT_STUB_CASE(headers_runtime_codes_are_macros, "checks the stub's headers (compiled into the runner), not the library")
{
    CT_TRUE(strcmp(runtime_code_kind(107000), "argument") == 0);
    CT_TRUE(strcmp(runtime_code_kind(207000), "unsupported") == 0);
    CT_TRUE(strcmp(runtime_code_kind(507047), "timeout") == 0);
    CT_TRUE(strcmp(runtime_code_kind(0), "success") == 0);
}

/* ------------------------------------------------------------ error messages */

static void errmsg_on_fresh_thread(void *arg)
{
    *(const char **)arg = aclGetRecentErrMsg();
}

#define EXPECT_MESSAGE_NAMES(call_name, call)                                                                     \
    do {                                                                                                          \
        int code_ = (call);                                                                                       \
        if (code_ == 0)                                                                                           \
            CT_FAIL("%s unexpectedly succeeded", #call);                                                          \
        const char *msg_ = aclGetRecentErrMsg();                                                                  \
        if (!msg_ || !*msg_)                                                                                      \
            CT_FAIL("aclGetRecentErrMsg() is %s after %s failed with %d", msg_ ? "empty" : "NULL", #call, code_); \
        if (!strstr(msg_, call_name))                                                                             \
            CT_FAIL("aclGetRecentErrMsg() after %s does not name the call '%s': %s", #call, call_name, msg_);     \
    } while (0)

CT_STUB_CASE(errmsg_filled_after_each_failure, "aclGetRecentErrMsg's text is the stub's (contract 1.4)")
{
    const char *fresh = (const char *)1;
    run_in_thread(errmsg_on_fresh_thread, &fresh);
    if (fresh != NULL)
        CT_FAIL("aclGetRecentErrMsg() on a thread with no failure returned '%s', expected NULL", fresh);
    aclrtStream s0 = NULL;
    EXPECT_MESSAGE_NAMES("aclrtCreateStream", aclrtCreateStream(&s0)); /* before init */
    acl_up(0);
    EXPECT_MESSAGE_NAMES("aclInit", aclInit(NULL));
    aclrtStream s = stream_new();
    aclrtEvent e = NULL, local = local_event_new();
    aclrtIpcEventHandle h;
    memset(&h, 0, sizeof h);
    uint32_t id;
    EXPECT_MESSAGE_NAMES("aclrtSetDevice", aclrtSetDevice(-1));
    EXPECT_MESSAGE_NAMES("aclrtCreateEventExWithFlag", aclrtCreateEventExWithFlag(&e, 0));
    EXPECT_MESSAGE_NAMES("aclrtCreateEventWithFlag", aclrtCreateEventWithFlag(&e, ACL_EVENT_IPC));
    EXPECT_MESSAGE_NAMES("aclrtGetDevice", aclrtGetDevice(NULL));
    EXPECT_MESSAGE_NAMES("aclrtIpcGetEventHandle", aclrtIpcGetEventHandle(local, &h));
    EXPECT_MESSAGE_NAMES("aclrtIpcOpenEventHandle", aclrtIpcOpenEventHandle(h, &e));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(s, 0));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeEventWithTimeout", aclrtSynchronizeEventWithTimeout(local, -5));
    aclrtEvent ipc = ipc_event_new();
    EXPECT_MESSAGE_NAMES("aclrtGetEventId", aclrtGetEventId(ipc, &id));
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(ipc, s));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeEventWithTimeout", aclrtSynchronizeEventWithTimeout(ipc, 5));
    EXPECT_MESSAGE_NAMES("aclrtSynchronizeStreamWithTimeout", aclrtSynchronizeStreamWithTimeout(s, 5));
    gate_release(g);
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(local));
    EXPECT_MESSAGE_NAMES("aclrtDestroyEvent", aclrtDestroyEvent(local));
    CT_OK(aclrtDestroyStream(s));
    EXPECT_MESSAGE_NAMES("aclrtRecordEvent", aclrtRecordEvent(NULL, NULL));
    /* the message is per thread: a thread that has not failed sees none */
    fresh = (const char *)1;
    run_in_thread(errmsg_on_fresh_thread, &fresh);
    if (fresh != NULL)
        CT_FAIL("a fresh thread sees another thread's failure message: '%s'", fresh);
    acl_down();
    EXPECT_MESSAGE_NAMES("aclFinalize", aclFinalize());
}
