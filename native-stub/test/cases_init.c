/*
 * cases_init.c - aclInit/aclFinalize: every call before aclInit and after
 * aclFinalize returns 100001 (the event subset and the section 8 calls),
 * repeated init and finalize, init again.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* aclrtQueryEvent is deprecated in the headers, as in CANN; the cases still check it. */
#pragma GCC diagnostic ignored "-Wdeprecated-declarations"

/* Every aclrt* call of the subset with plausible arguments; each must return
 * `expected` (used for "before aclInit" and "after aclFinalize"). */
static void expect_every_call_returns(int expected, aclrtStream s, aclrtEvent e)
{
    int32_t dev = -5;
    uint32_t count = 0, id = 0;
    aclrtStream ns = NULL;
    aclrtEvent ne = NULL;
    aclrtEventStatus old_status;
    aclrtEventRecordedStatus status;
    aclrtEventWaitStatus wait_status;
    float ms;
    uint64_t ts;
    aclrtIpcEventHandle h;
    memset(&h, 0x5a, sizeof h);

    CT_CODE(expected, aclrtSetDevice(0));
    CT_CODE(expected, aclrtResetDevice(0));
    CT_CODE(expected, aclrtResetDeviceForce(0));
    CT_CODE(expected, aclrtGetDevice(&dev));
    CT_CODE(expected, aclrtGetDeviceCount(&count));
    aclrtContext ctx = NULL;
    CT_CODE(expected, aclrtCreateContext(&ctx, 0));
    CT_CODE(expected, aclrtGetCurrentContext(&ctx));
    CT_CODE(expected, aclrtSetCurrentContext((aclrtContext)0x1));
    CT_CODE(expected, aclrtDestroyContext((aclrtContext)0x1));
    CT_TRUE(ctx == NULL);
    CT_CODE(expected, aclrtCreateStream(&ns));
    CT_CODE(expected, aclrtSynchronizeStream(s));
    CT_CODE(expected, aclrtSynchronizeStreamWithTimeout(s, 10));
    CT_CODE(expected, aclrtStreamWaitEvent(s, e));
    CT_CODE(expected, aclrtStreamWaitEventWithTimeout(s, e, 10));
    CT_CODE(expected, aclrtCreateEvent(&ne));
    CT_CODE(expected, aclrtCreateEventWithFlag(&ne, ACL_EVENT_SYNC));
    CT_CODE(expected, aclrtCreateEventExWithFlag(&ne, ACL_EVENT_IPC));
    CT_CODE(expected, aclrtRecordEvent(e, s));
    CT_CODE(expected, aclrtResetEvent(e, s));
    CT_CODE(expected, aclrtQueryEvent(e, &old_status));
    CT_CODE(expected, aclrtQueryEventStatus(e, &status));
    CT_CODE(expected, aclrtQueryEventWaitStatus(e, &wait_status));
    CT_CODE(expected, aclrtSynchronizeEvent(e));
    CT_CODE(expected, aclrtSynchronizeEventWithTimeout(e, 10));
    CT_CODE(expected, aclrtEventElapsedTime(&ms, e, e));
    CT_CODE(expected, aclrtEventGetTimestamp(e, &ts));
    CT_CODE(expected, aclrtGetEventId(e, &id));
    CT_CODE(expected, aclrtSetOpWaitTimeout(10));
    CT_CODE(expected, aclrtIpcGetEventHandle(e, &h));
    CT_CODE(expected, aclrtIpcOpenEventHandle(h, &ne));
    CT_CODE(expected, aclrtLaunchHostFunc(s, noop_host_fn, NULL));
    CT_CODE(expected, aclrtDestroyEvent(e));
    CT_CODE(expected, aclrtDestroyStream(s));
    CT_TRUE(ns == NULL && ne == NULL);
    CT_EQ(-5, dev);
}

/* ------------------------------------------------------------ init/finalize */

CT_STUB_CASE(init_calls_before_aclInit_return_100001, "calls before aclInit (contract S1)")
{
    static char fake[256];
    memset(fake, 0xab, sizeof fake);
    expect_every_call_returns(ACL_ERROR_UNINITIALIZE, fake, fake + 128);
}

CT_STUB_CASE(init_calls_after_aclFinalize_return_100001, "calls after aclFinalize (contract S1)")
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = local_event_new();
    acl_down();
    expect_every_call_returns(ACL_ERROR_UNINITIALIZE, s, e);
}

CT_CASE(init_second_aclInit_returns_100002)
{
    acl_up(0);
    CT_CODE(ACL_ERROR_REPEAT_INITIALIZE, aclInit(NULL));
    /* still usable after the refused second init */
    aclrtStream s = stream_new();
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(init_second_aclFinalize_returns_100037)
{
    acl_up(0);
    acl_down();
    CT_CODE(ACL_ERROR_REPEAT_FINALIZE, aclFinalize());
}

CT_CASE(init_again_after_finalize_works)
{
    acl_up(0);
    acl_down();
    acl_up(1);
    aclrtStream s = stream_new();
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------- init check of the section 8 calls */

/* Every call of docs/acl-contract.md section 8 (memory, IPC memory, notify, peer access)
 * returns 100001 before aclInit and after aclFinalize, whatever its arguments. */
static void expect_new_calls_return(int expected)
{
    static char fake[4096];
    void *p = NULL;
    aclrtNotify n = NULL;
    int32_t v = 0;
    char key[EXPORT_KEY_LEN] = "cannstub-mem-00000000000000ff-3000";
    CT_CODE(expected, aclrtMalloc(&p, 64, ACL_MEM_MALLOC_HUGE_FIRST));
    CT_CODE(expected, aclrtFree(fake));
    CT_CODE(expected, aclrtMallocHost(&p, 64));
    CT_CODE(expected, aclrtFreeHost(fake));
    CT_CODE(expected, aclrtMemcpy(fake, 8, fake + 8, 8, ACL_MEMCPY_HOST_TO_HOST));
    CT_CODE(expected, aclrtMemcpyAsync(fake, 8, fake + 8, 8, ACL_MEMCPY_HOST_TO_HOST, NULL));
    CT_CODE(expected, aclrtMemsetAsync(fake, 8, 0, 8, NULL));
    CT_CODE(expected, aclrtDestroyStreamForce(fake));
    CT_CODE(expected, aclrtDeviceCanAccessPeer(&v, 0, 1));
    CT_CODE(expected, aclrtDeviceEnablePeerAccess(1, 0));
    CT_CODE(expected, aclrtDeviceGetBareTgid(&v));
    CT_CODE(expected, aclrtIpcMemGetExportKey(fake, 4096, key, EXPORT_KEY_LEN, 0));
    CT_CODE(expected, aclrtIpcMemClose(key));
    CT_CODE(expected, aclrtIpcMemImportByKey(&p, key, 0));
    CT_CODE(expected, aclrtIpcMemSetImportPid(key, &v, 1));
    CT_CODE(expected, aclrtCreateNotify(&n, 0));
    CT_CODE(expected, aclrtDestroyNotify(fake));
    CT_CODE(expected, aclrtRecordNotify(fake, NULL));
    CT_CODE(expected, aclrtWaitAndResetNotify(fake, NULL, 0));
    CT_CODE(expected, aclrtNotifyGetExportKey(fake, key, EXPORT_KEY_LEN, 0));
    CT_CODE(expected, aclrtNotifyImportByKey(&n, key, 0));
    CT_CODE(expected, aclrtNotifySetImportPid(fake, &v, 1));
    CT_TRUE(p == NULL && n == NULL);
}

CT_STUB_CASE(memory_notify_calls_before_aclInit_and_after_aclFinalize_return_100001,
             "calls before aclInit, after aclFinalize (contract S1)")
{
    expect_new_calls_return(ACL_ERROR_UNINITIALIZE);
    acl_up(0);
    acl_down();
    expect_new_calls_return(ACL_ERROR_UNINITIALIZE);
}

/* ---------------------------------------------------- aclInit's config path */

/* GetStrFromConfigPath (src/acl/aclrt_impl/acl_rt_impl_base.cpp:154-166): a path
 * that mmRealPath cannot resolve, or a file that cannot be opened, is
 * ACL_ERROR_INVALID_FILE (100003); aclInit checks it after the repeat check
 * (acl.cpp:382-399). The contents: init_config_file_is_json_and_sets_the_default_device. */
CT_CASE(init_config_path_missing_or_unreadable_is_100003)
{
    char missing[PATH_CAP], under_file[PATH_CAP], unreadable[PATH_CAP], config[PATH_CAP];
    path_join(missing, case_dir(), "missing.json");
    CT_CODE(ACL_ERROR_INVALID_FILE, aclInit(missing));
    publish_bytes(case_dir(), "config.json", "{}", 2);
    path_join(config, case_dir(), "config.json");
    path_join(under_file, config, "x.json");
    CT_CODE(ACL_ERROR_INVALID_FILE, aclInit(under_file));
    publish_bytes(case_dir(), "unreadable.json", "{}", 2);
    path_join(unreadable, case_dir(), "unreadable.json");
    CT_TRUE(chmod(unreadable, 0) == 0);
    if (geteuid() != 0) /* root opens it anyway */
        CT_CODE(ACL_ERROR_INVALID_FILE, aclInit(unreadable));
    CT_CODE(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0));
    CT_OK(aclInit(config));
    CT_CODE(ACL_ERROR_REPEAT_INITIALIZE, aclInit(missing));
    CT_OK(aclFinalize());
}

static void expect_device(void *arg)
{
    int32_t dev = -1;
    CT_OK(aclrtGetDevice(&dev));
    CT_EQ(*(int32_t *)arg, dev);
}

static void expect_stream_on_default_device(void *arg)
{
    (void)arg;
    aclrtStream s = NULL;
    CT_OK(aclrtCreateStream(&s)); /* implicitly on the default device */
    CT_OK(aclrtDestroyStream(s));
    aclrtContext c = NULL;
    CT_OK(aclrtGetCurrentContext(&c));
}

static void write_config(const char *name, const char *text, char path[PATH_CAP])
{
    publish_bytes(case_dir(), name, text, strlen(text));
    path_join(path, case_dir(), name);
}

/* aclInit parses its config file as JSON (src/acl/common/json_parser.cpp):
 * text that is not JSON is ACL_ERROR_PARSE_FILE 100006 (:160-176, :229-243,
 * first read by HandleErrorManagerConfig, acl.cpp:418-423); a path that is not
 * a regular file is 100003 (:67-113). {"defaultDevice":{"default_device":"N"}}
 * (documented in docs/zh/api_ref/02_initialization_and_deinitialization.md:422-436)
 * sets the default device (acl.cpp:334-350, json_parser.cpp:298-340): a thread
 * with no context answers aclrtGetDevice with it (api_impl.cc:3473-3490), and
 * any call that needs a context sets it (runtime.cc:5397-5430). A value that
 * is not a decimal string: 100000 (:330-339); not a string: 500000 (:320-328,
 * nlohmann's type error); out of range: 107001 (api_error.cc:6653-6672).
 * aclFinalize disables it (acl.cpp:607-611). */
CT_CASE(init_config_file_is_json_and_sets_the_default_device)
{
    char path[PATH_CAP];
    write_config("bad.json", "{\"defaultDevice\": ", path);
    CT_CODE(ACL_ERROR_PARSE_FILE, aclInit(path));
    write_config("trailing.json", "{} x", path);
    CT_CODE(ACL_ERROR_PARSE_FILE, aclInit(path));
    write_config("deep.json", "{\"a\":[[[[[[[[[[[1]]]]]]]]]]]}", path);
    CT_CODE(ACL_ERROR_PARSE_FILE, aclInit(path));
    write_config("word.json", "{\"defaultDevice\":{\"default_device\":\"zero\"}}", path);
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclInit(path));
    write_config("number.json", "{\"defaultDevice\":{\"default_device\":0}}", path);
    CT_CODE(ACL_ERROR_INTERNAL_ERROR, aclInit(path));
    write_config("range.json", "{\"defaultDevice\":{\"default_device\":\"8\"}}", path);
    CT_CODE(ACL_ERROR_RT_INVALID_DEVICEID, aclInit(path)); /* 8 devices by default: 0..7 */
    CT_CODE(ACL_ERROR_INVALID_FILE, aclInit(case_dir()));  /* a directory */
    if (ct_library_is_stub(NULL)) /* stub rule (contract S1): calls before aclInit */
        CT_CODE(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0));

    /* no defaultDevice, or an empty file: no default device */
    int32_t dev = -1;
    if (ct_library_is_stub(NULL)) { /* stub rule (contract S12): a second file (acl.cpp:405-416), dump keys */
        write_config("other.json", "{\"dump\": {\"dump_list\": []}, \"defaultDevice\": {}}", path);
        CT_OK(aclInit(path));
        CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
        CT_OK(aclFinalize());
    }

    write_config("default.json", " {\"defaultDevice\": {\"default_device\": \"3\"}}\n", path);
    CT_OK(aclInit(path));
    int32_t three = 3;
    run_in_thread(expect_device, &three);
    run_in_thread(expect_stream_on_default_device, NULL);
    CT_OK(aclrtSetDevice(1)); /* an explicit device wins */
    int32_t one = 1;
    expect_device(&one);
    CT_OK(aclFinalize());
    if (ct_library_is_stub(NULL)) { /* stub rule (contract S12): another file after the first, as above */
        CT_OK(aclInit(NULL));
        CT_CODE(ACL_ERROR_RT_CONTEXT_NULL, aclrtGetDevice(&dev));
        CT_OK(aclFinalize());
    }
}
