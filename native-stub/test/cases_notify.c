/*
 * cases_notify.c - IPC notify: one-shot semantics, blocking waits, timeout,
 * argument and whitelist rules, wake-up across processes.
 * Rules: docs/acl-contract.md section 8.
 */
#define _GNU_SOURCE
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* -------------------------------------------------------------------- notify */

static aclrtNotify notify_new(void)
{
    aclrtNotify n = NULL;
    CT_OK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    CT_TRUE(n != NULL);
    return n;
}

CT_CASE(notify_is_one_shot)
{
    acl_up(0);
    aclrtStream rec = stream_new(), wait = stream_new();
    aclrtNotify n = notify_new();
    /* a record before the wait is remembered */
    CT_OK(aclrtRecordNotify(n, rec));
    EXPECT_STREAM_DRAINS(rec);
    CT_OK(aclrtWaitAndResetNotify(n, wait, 0));
    EXPECT_STREAM_DRAINS(wait);
    /* ... and consumed: a second wait needs a second record */
    CT_OK(aclrtWaitAndResetNotify(n, wait, 0));
    EXPECT_STREAM_BLOCKED(wait);
    CT_OK(aclrtRecordNotify(n, rec));
    EXPECT_STREAM_DRAINS(wait);
    /* two records before two waits release one wait (a flag, not a counter) */
    CT_OK(aclrtRecordNotify(n, rec));
    CT_OK(aclrtRecordNotify(n, rec));
    EXPECT_STREAM_DRAINS(rec);
    CT_OK(aclrtWaitAndResetNotify(n, wait, 0));
    CT_OK(aclrtWaitAndResetNotify(n, wait, 0));
    EXPECT_STREAM_BLOCKED(wait);
    CT_OK(aclrtRecordNotify(n, rec));
    EXPECT_STREAM_DRAINS(wait);
    CT_OK(aclrtDestroyNotify(n));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify(n, rec));
    CT_OK(aclrtDestroyStream(rec));
    CT_OK(aclrtDestroyStream(wait));
    acl_down();
}

CT_CASE(notify_wait_blocks_until_the_record_executes)
{
    acl_up(0);
    aclrtStream rec = stream_new(), wait = stream_new();
    aclrtNotify n = notify_new();
    struct gate *g = gate_hold(rec);
    CT_OK(aclrtRecordNotify(n, rec));
    CT_OK(aclrtWaitAndResetNotify(n, wait, 0));
    struct stamp resumed;
    stamp_launch(wait, &resumed);
    EXPECT_STREAM_BLOCKED(wait);
    uint64_t released = gate_release(g);
    EXPECT_STREAM_DRAINS(wait);
    EXPECT_AFTER(stamp_read(&resumed), released);
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyStream(rec));
    CT_OK(aclrtDestroyStream(wait));
    acl_down();
}

/* Notify::CheckIpcNotifyDevId (src/runtime/core/src/notify/notify.cc:417-440),
 * called by ApiImpl::NotifyWait (api_impl.cc:4924), starts `if (isIpcNotify_)`:
 * a notify that was never exported (isIpcNotify_ is set by the export,
 * notify.cc:404, and by an import, :446) may be waited on from another device.
 * Once exported, a wait from another device is RT_ERROR_INVALID_VALUE (107000). */
CT_CASE(notify_never_exported_may_be_waited_on_from_another_device)
{
    acl_up(0);
    aclrtNotify n = notify_new();
    aclrtStream s0 = stream_new();
    CT_OK(aclrtSetDevice(1));
    aclrtStream s1 = stream_new();
    CT_OK(aclrtWaitAndResetNotify(n, s1, 0));
    struct stamp resumed;
    stamp_launch(s1, &resumed);
    EXPECT_STREAM_BLOCKED(s1);
    CT_OK(aclrtSetDevice(0));
    uint64_t before = now_ns();
    CT_OK(aclrtRecordNotify(n, s0));
    EXPECT_STREAM_DRAINS(s1);
    EXPECT_AFTER(stamp_read(&resumed), before);
    char key[EXPORT_KEY_LEN];
    CT_OK(aclrtNotifyGetExportKey(n, key, EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    declare_key_owned(key);
    CT_OK(aclrtSetDevice(1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtWaitAndResetNotify(n, s1, 0));
    CT_OK(aclrtDestroyStream(s1));
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyStream(s0));
    acl_down();
}

CT_STUB_CASE(notify_wait_timeout_is_reported_by_the_next_synchronize, "notify wait timeouts (contract 8.7)")
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtNotify n = notify_new();
    uint64_t t0 = now_ns();
    CT_OK(aclrtWaitAndResetNotify(n, s, 1)); /* seconds */
    CT_CODE(ACL_ERROR_RT_WAIT_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, PEER_TIMEOUT_MS));
    if (now_ns() - t0 < 900000000ull)
        CT_FAIL("the 1 s notify wait gave up after %.3f s", (double)(now_ns() - t0) / 1e9);
    CT_OK(aclrtSynchronizeStream(s)); /* reported once */
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_STUB_CASE(notify_argument_rules, "key buffers under 65 bytes (contract 8.7)")
{
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtNotify n = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtCreateNotify(NULL, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtCreateNotify(&n, 2));
    CT_TRUE(n == NULL);
    n = notify_new();
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtRecordNotify(NULL, s));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtWaitAndResetNotify(NULL, s, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtDestroyNotify(NULL));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtRecordNotify((aclrtNotify)s, s));
    char key[EXPORT_KEY_LEN];
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtNotifyGetExportKey(n, NULL, EXPORT_KEY_LEN, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, 0, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, EXPORT_KEY_LEN, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyGetExportKey(n, key, 16, 0));
    int32_t pid = getpid();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, &pid, 1)); /* before the export */
    CT_OK(aclrtNotifyGetExportKey(n, key, EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    declare_key_owned(key);
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtNotifyGetExportKey(n, key, EXPORT_KEY_LEN, 0)); /* second export */
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtNotifySetImportPid(n, NULL, 1));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifySetImportPid(n, &pid, 0));
    CT_OK(aclrtNotifySetImportPid(n, &pid, 1));
    aclrtNotify imported = NULL;
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(NULL, key, 0));
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclrtNotifyImportByKey(&imported, NULL, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, key, 4));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, "cannstub-nt-garbage", 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, "cannstub-nt-00000000000000ff", 0));
    CT_OK(aclrtNotifyImportByKey(&imported, key, ACL_RT_NOTIFY_IMPORT_FLAG_ENABLE_PEER_ACCESS));
    CT_CODE(ACL_ERROR_RT_INTERNAL_ERROR, aclrtNotifyGetExportKey(imported, key, EXPORT_KEY_LEN, 0));
    /* waits run only on the creator's device; records may come from any device */
    CT_OK(aclrtSetDevice(1));
    aclrtStream s1 = stream_new();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtWaitAndResetNotify(imported, s1, 0));
    CT_CODE(ACL_ERROR_RT_STREAM_CONTEXT, aclrtWaitAndResetNotify(n, s, 0)); /* stream of device 0 */
    CT_OK(aclrtRecordNotify(imported, s1));
    EXPECT_STREAM_DRAINS(s1);
    CT_OK(aclrtSetDevice(0));
    CT_OK(aclrtWaitAndResetNotify(n, s, 0));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyNotify(imported));
    CT_OK(aclrtDestroyNotify(n));
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtDestroyNotify(n));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtNotifyImportByKey(&imported, key, 0)); /* destroyed */
    CT_TRUE(!key_object_exists(key));
    CT_OK(aclrtDestroyStream(s));
    CT_OK(aclrtSetDevice(1)); /* a stream is destroyed in its own context (api_impl.cc:1579-1585) */
    CT_OK(aclrtDestroyStream(s1));
    acl_down();
}

/* notify_recorder DIR DEVICE: imports the creator's notify (refused until
 * whitelisted) and records it behind a gate the creator releases via "go". */
CT_ROLE(notify_recorder)
{
    const char *dir = argv[0];
    acl_up(atoi(argv[1]));
    int32_t pid = 0;
    CT_OK(aclrtDeviceGetBareTgid(&pid));
    publish_u64(dir, "recorder_pid", (uint64_t)pid);
    char key[EXPORT_KEY_LEN] = {0};
    await_file(dir, "key", key, EXPORT_KEY_LEN - 1, PEER_TIMEOUT_MS);
    aclrtNotify n = NULL;
    CT_CODE(ACL_ERROR_RT_NO_PERMISSION, aclrtNotifyImportByKey(&n, key, 0));
    publish_flag(dir, "refused");
    await_flag(dir, "listed", PEER_TIMEOUT_MS);
    CT_OK(aclrtNotifyImportByKey(&n, key, 0));
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordNotify(n, s)); /* the only thing that can release the creator's wait */
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

CT_CASE(notify_wakes_a_waiter_in_another_process)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtNotify n = notify_new();
    char key[EXPORT_KEY_LEN] = {0};
    CT_OK(aclrtNotifyGetExportKey(n, key, EXPORT_KEY_LEN, ACL_RT_NOTIFY_EXPORT_FLAG_DEFAULT));
    declare_key_owned(key);
    const char *args[] = {dir, "1", NULL};
    pid_t child = spawn_role("notify_recorder", args, NULL);
    int32_t recorder = (int32_t)await_u64(dir, "recorder_pid", PEER_TIMEOUT_MS);
    publish_bytes(dir, "key", key, strlen(key));
    await_flag(dir, "refused", PEER_TIMEOUT_MS);
    CT_OK(aclrtNotifySetImportPid(n, &recorder, 1));
    CT_OK(aclrtWaitAndResetNotify(n, s, 0));
    struct stamp resumed;
    stamp_launch(s, &resumed);
    EXPECT_STREAM_BLOCKED(s);
    uint64_t listed = now_ns();
    publish_flag(dir, "listed"); /* the recorder imports and records only after this */
    EXPECT_STREAM_DRAINS(s);
    EXPECT_AFTER(stamp_read(&resumed), listed);
    expect_exit(child, 0, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyNotify(n));
    CT_OK(aclrtDestroyStream(s));
    CT_TRUE(!key_object_exists(key));
    acl_down();
}
