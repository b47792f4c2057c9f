/*
 * 0_ipcevent / proc_b - the event user of the single-device IPC event sample.
 *
 * Flow: wait for ./event_handle.bin, open the handle on device 0, make a
 * stream wait on the event and synchronize it, sleep 2 s, record the event
 * itself (any opener may record) and synchronize it, query it, then write
 * ./consumer_done.flag for proc_a.
 */
#include "../common/sample_util.h"

#define HANDLE_FILE "./event_handle.bin"
#define DONE_FLAG "./consumer_done.flag"

int main(void)
{
    if (sample_wait_file(HANDLE_FILE, 30000, 100) != 0) {
        fprintf(stderr, "[ERROR] timed out waiting for %s\n", HANDLE_FILE);
        return 1;
    }
    aclrtIpcEventHandle handle;
    if (sample_read_exact(HANDLE_FILE, &handle, sizeof handle) != 0) {
        fprintf(stderr, "[ERROR] %s does not hold a 64-byte handle\n", HANDLE_FILE);
        return 1;
    }

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtIpcOpenEventHandle(handle, &event));
    printf("[B] opened the IPC event\n");

    CHECK_ACL(aclrtStreamWaitEvent(stream, event));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    printf("[B] wait on the event passed\n");

    sample_sleep_ms(2000);
    CHECK_ACL(aclrtRecordEvent(event, stream));
    CHECK_ACL(aclrtSynchronizeEvent(event));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    CHECK_ACL(aclrtQueryEventStatus(event, &status));
    printf("[B] recorded the event; status: %d (expect 1)\n", (int)status);
    if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE)
        return 1;

    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    if (sample_publish(DONE_FLAG, "done\n", 5) != 0)
        return 1;
    printf("[B] done\n");
    return 0;
}
