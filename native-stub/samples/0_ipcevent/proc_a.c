/*
 * 0_ipcevent / proc_a - the event creator of the single-device IPC event sample.
 *
 * Flow (after CANN's 0_ipcevent): create an IPC event on device 0, record and
 * synchronize it, check it is complete, export its 64-byte handle to
 * ./event_handle.bin, then wait (up to 30 s) for ./consumer_done.flag, which
 * proc_b writes after it has waited on and re-recorded the event.
 * Prints "cleanup completed" when everything was released.
 */
#include "../common/sample_util.h"

#define HANDLE_FILE "./event_handle.bin"
#define DONE_FLAG "./consumer_done.flag"

int main(void)
{
    /* stale files of an earlier run would let proc_b read an old handle */
    unlink(HANDLE_FILE);
    unlink(DONE_FLAG);

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtCreateEventExWithFlag(&event, ACL_EVENT_IPC));
    printf("[A] IPC event created on device 0\n");

    CHECK_ACL(aclrtRecordEvent(event, stream));
    CHECK_ACL(aclrtSynchronizeEvent(event));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    CHECK_ACL(aclrtQueryEventStatus(event, &status));
    printf("[A] event status after record+synchronize: %d (expect 1)\n", (int)status);
    if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE) {
        fprintf(stderr, "[ERROR] event not complete after synchronize\n");
        return 1;
    }

    aclrtIpcEventHandle handle;
    CHECK_ACL(aclrtIpcGetEventHandle(event, &handle));
    if (sample_publish(HANDLE_FILE, &handle, sizeof handle) != 0)
        return 1;
    printf("[A] handle written to %s, waiting for the consumer\n", HANDLE_FILE);

    if (sample_wait_file(DONE_FLAG, 30000, 100) != 0) {
        fprintf(stderr, "[ERROR] timed out waiting for %s\n", DONE_FLAG);
        return 1;
    }
    /* the consumer recorded and synchronized the shared event: it is complete here too */
    CHECK_ACL(aclrtQueryEventStatus(event, &status));
    printf("[A] consumer finished; event status: %d (expect 1)\n", (int)status);
    if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE)
        return 1;

    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    unlink(HANDLE_FILE);
    unlink(DONE_FLAG);
    printf("[A] cleanup completed\n");
    return 0;
}
