/*
 * 1_ipcevent_multi_device / proc_b <device> <id> - consumer <id> on <device>.
 *
 * Flow: wait for ./event_handle.bin, open it on <device> (a cross-device open),
 * make a stream wait on the event, synchronize, query, then write
 * ./consumer_<id>.done.
 */
#include <stdlib.h>

#include "../common/sample_util.h"

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: proc_b <device> <id>\n");
        return 1;
    }
    int32_t device = atoi(argv[1]);
    int id = atoi(argv[2]);
    if (sample_wait_file("./event_handle.bin", 30000, 50) != 0) {
        fprintf(stderr, "[ERROR] consumer %d: no ./event_handle.bin\n", id);
        return 1;
    }
    aclrtIpcEventHandle handle;
    if (sample_read_exact("./event_handle.bin", &handle, sizeof handle) != 0) {
        fprintf(stderr, "[ERROR] consumer %d: ./event_handle.bin is not a 64-byte handle\n", id);
        return 1;
    }

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(device));
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtIpcOpenEventHandle(handle, &event));
    CHECK_ACL(aclrtStreamWaitEvent(stream, event));
    CHECK_ACL(aclrtSynchronizeStream(stream));
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_NOT_READY;
    CHECK_ACL(aclrtQueryEventStatus(event, &status));
    printf("[consumer %d] device %d: wait passed, event status %d (expect 1)\n", id, device, (int)status);
    if (status != ACL_EVENT_RECORDED_STATUS_COMPLETE)
        return 1;

    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(device));
    CHECK_ACL(aclFinalize());
    char flag[64];
    snprintf(flag, sizeof flag, "./consumer_%d.done", id);
    return sample_publish(flag, "done\n", 5) == 0 ? 0 : 1;
}
