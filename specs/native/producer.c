/*
 * producer <consumers> - creates an IPC event on its device and shares it, with its record still
 * pending: the record is queued behind a host function that returns only once every consumer
 * says its stream is blocked on the event. A consumer whose wait were a no-op would not be
 * blocked, and would say so (see consumer.c); this is what the CANN samples never test.
 */
#include "exchange.h"

struct gate {
    int consumers;
};

/* Runs on the producer's stream before the record: holds it until every consumer is blocked. */
static void until_consumers_blocked(void *arg)
{
    const struct gate *g = arg;
    for (int i = 0; i < g->consumers; i++) {
        char name[64];
        snprintf(name, sizeof name, "blocked.%d", i);
        if (await_file("signals", name, NULL, 0) < 0)
            return; /* the deadline: let the record go, the consumer reports the failure */
    }
    printf("every consumer is blocked: releasing the record\n");
    fflush(stdout);
}

int main(int argc, char **argv)
{
    struct gate gate = {argc > 1 ? atoi(argv[1]) : 1};
    int device = getenv("CANN_HARNESS_DEVICE") ? atoi(getenv("CANN_HARNESS_DEVICE")) : 0;
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(device));
    aclrtStream stream;
    aclrtEvent event;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtCreateEventExWithFlag(&event, ACL_EVENT_IPC));
    ACL_OK(aclrtLaunchHostFunc(stream, until_consumers_blocked, &gate));
    ACL_OK(aclrtRecordEvent(event, stream)); /* pending until the host function returns */
    aclrtIpcEventHandle handle;
    ACL_OK(aclrtIpcGetEventHandle(event, &handle));
    if (publish("handles", "event", &handle, sizeof handle) != 0)
        return 1;
    printf("producer on device %d: event shared with %d consumer(s), record pending\n", device, gate.consumers);
    fflush(stdout);
    ACL_OK(aclrtSynchronizeStream(stream));
    for (int i = 0; i < gate.consumers; i++) {
        char name[64];
        snprintf(name, sizeof name, "done.%d", i);
        if (await_file("signals", name, NULL, 0) < 0)
            return 1;
    }
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(device));
    ACL_OK(aclFinalize());
    printf("producer finished successfully\n");
    return 0;
}
