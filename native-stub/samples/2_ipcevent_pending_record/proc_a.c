/*
 * 2_ipcevent_pending_record / proc_a <consumers> - producer on device 0 whose
 * record is still pending while the consumers wait on it.
 *
 * The producer holds its stream with a host function, then records the IPC
 * event behind it and only then exports the handle: every consumer's wait
 * binds to that pending record. The host function returns once every consumer
 * has reported ./consumer_<i>.waiting (it proved it is blocked) plus 200 ms;
 * it writes the release time to ./released_at just before returning, and the
 * record executes right after. Consumers must resume only after that time.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "../common/sample_util.h"

struct hold {
    int consumers;
    int failed;
};

/* Runs on the runtime's stream thread: the stream stays held until it returns. */
static void hold_until_consumers_wait(void *arg)
{
    struct hold *h = (struct hold *)arg;
    for (int i = 1; i <= h->consumers; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "./consumer_%d.waiting", i);
        if (sample_wait_file(flag, 20000, 1) != 0) {
            fprintf(stderr, "[ERROR] consumer %d never reported waiting\n", i);
            h->failed = 1;
        }
    }
    sample_sleep_ms(200); /* a wait that does not block would be caught resuming now */
    uint64_t t = sample_now_ns();
    char text[32];
    int n = snprintf(text, sizeof text, "%" PRIu64 "\n", t);
    if (sample_publish("./released_at", text, (size_t)n) != 0)
        h->failed = 1;
    printf("[producer] t=%" PRIu64 " releasing the stream: the record executes now\n", t);
    fflush(stdout);
}

int main(int argc, char **argv)
{
    int consumers = argc == 2 ? atoi(argv[1]) : 0;
    if (consumers < 1 || consumers > 8) {
        fprintf(stderr, "usage: proc_a <consumers 1..8>\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    unlink("./event_handle.bin");
    unlink("./released_at");

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(0));
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtCreateEventExWithFlag(&event, ACL_EVENT_IPC));

    struct hold hold = {consumers, 0};
    CHECK_ACL(aclrtLaunchHostFunc(stream, hold_until_consumers_wait, &hold));
    CHECK_ACL(aclrtRecordEvent(event, stream)); /* pending behind the host function */
    aclrtEventRecordedStatus status = ACL_EVENT_RECORDED_STATUS_COMPLETE;
    CHECK_ACL(aclrtQueryEventStatus(event, &status));
    printf("[producer] t=%" PRIu64 " record submitted, status %d (expect 0: not ready)\n", sample_now_ns(),
           (int)status);
    if (status != ACL_EVENT_RECORDED_STATUS_NOT_READY)
        return 1;

    aclrtIpcEventHandle handle;
    CHECK_ACL(aclrtIpcGetEventHandle(event, &handle));
    if (sample_publish("./event_handle.bin", &handle, sizeof handle) != 0)
        return 1;

    CHECK_ACL(aclrtSynchronizeEvent(event));
    printf("[producer] t=%" PRIu64 " record executed\n", sample_now_ns());

    int missing = 0;
    for (int i = 1; i <= consumers; i++) {
        char flag[64];
        snprintf(flag, sizeof flag, "./consumer_%d.done", i);
        if (sample_wait_file(flag, 20000, 5) != 0) {
            fprintf(stderr, "[ERROR] consumer %d never wrote %s\n", i, flag);
            missing++;
        }
    }
    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(0));
    CHECK_ACL(aclFinalize());
    unlink("./event_handle.bin");
    if (missing || hold.failed)
        return 1;
    printf("[producer] finished successfully\n");
    return 0;
}
