/*
 * 1_ipcevent_multi_device / proc_a <consumers> - the producer on device 0.
 *
 * Flow (after CANN's 1_ipcevent_multi_device): create an IPC event, record and
 * synchronize it, export the handle to ./event_handle.bin, then wait for
 * ./consumer_<i>.done from every consumer i = 1..<consumers> (1..8).
 * Prints "finished successfully" at the end.
 *
 * As in CANN, the record completes before the handle is exported, so every
 * consumer's wait is a no-op; 2_ipcevent_pending_record shows real blocking.
 */
#include <stdlib.h>

#include "../common/sample_util.h"

int main(int argc, char **argv)
{
    int consumers = argc == 2 ? atoi(argv[1]) : 0;
    if (consumers < 1 || consumers > 8) {
        fprintf(stderr, "usage: proc_a <consumers 1..8>\n");
        return 1;
    }
    unlink("./event_handle.bin");
    for (int i = 1; i <= consumers; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "./consumer_%d.done", i);
        unlink(flag);
    }

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtCreateEventExWithFlag(&event, ACL_EVENT_IPC));
    CHECK_ACL(aclrtRecordEvent(event, stream));
    CHECK_ACL(aclrtSynchronizeEvent(event));
    aclrtIpcEventHandle handle;
    CHECK_ACL(aclrtIpcGetEventHandle(event, &handle));
    if (sample_publish("./event_handle.bin", &handle, sizeof handle) != 0)
        return 1;
    printf("[producer] device 0: event recorded, handle exported for %d consumer(s)\n", consumers);

    int missing = 0;
    for (int i = 1; i <= consumers; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "./consumer_%d.done", i);
        if (sample_wait_file(flag, 30000, 50) != 0) {
            fprintf(stderr, "[ERROR] consumer %d never wrote %s\n", i, flag);
            missing++;
        } else {
            printf("[producer] consumer %d done\n", i);
        }
    }

    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    unlink("./event_handle.bin");
    if (missing)
        return 1;
    printf("[producer] finished successfully\n");
    return 0;
}
