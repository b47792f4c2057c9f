/*
 * consumer <id> - opens the producer's IPC event on its own device, makes its stream wait on it,
 * and checks that the wait really blocks while the producer's record is pending (a synchronize
 * with a 100 ms timeout must time out) before it says so and waits for the release.
 */
#include "exchange.h"

int main(int argc, char **argv)
{
    int id = argc > 1 ? atoi(argv[1]) : 0;
    int device = getenv("CANN_HARNESS_DEVICE") ? atoi(getenv("CANN_HARNESS_DEVICE")) : 0;
    aclrtIpcEventHandle handle;
    if (await_file("handles", "event", &handle, sizeof handle) != (long)sizeof handle)
        return 1;
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(device));
    aclrtStream stream;
    aclrtEvent event;
    ACL_OK(aclrtCreateStream(&stream));
    ACL_OK(aclrtIpcOpenEventHandle(handle, &event));
    ACL_OK(aclrtStreamWaitEvent(stream, event));
    aclError early = aclrtSynchronizeStreamWithTimeout(stream, 100);
    if (early != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) {
        fprintf(stderr, "consumer %d: the wait did not block while the record was pending (synchronize returned %d)\n", id, (int)early);
        return 1;
    }
    char name[64];
    snprintf(name, sizeof name, "blocked.%d", id);
    if (publish("signals", name, NULL, 0) != 0)
        return 1;
    ACL_OK(aclrtSynchronizeStream(stream)); /* returns once the producer's record has completed */
    printf("consumer %d on device %d: released by the producer's record\n", id, device);
    snprintf(name, sizeof name, "done.%d", id);
    if (publish("signals", name, NULL, 0) != 0)
        return 1;
    ACL_OK(aclrtDestroyEvent(event));
    ACL_OK(aclrtDestroyStream(stream));
    ACL_OK(aclrtResetDevice(device));
    ACL_OK(aclFinalize());
    printf("consumer %d finished successfully\n", id);
    return 0;
}
