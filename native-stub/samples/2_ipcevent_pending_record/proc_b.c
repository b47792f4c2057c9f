/*
 * 2_ipcevent_pending_record / proc_b <device> <id> - a consumer that waits on
 * the producer's pending record and shows, with timestamps, that its stream
 * resumes only after the record executed.
 */
#include <inttypes.h>
#include <stdlib.h>

#include "../common/sample_util.h"

static void stamp_resume(void *arg)
{
    __atomic_store_n((uint64_t *)arg, sample_now_ns(), __ATOMIC_SEQ_CST);
}

int main(int argc, char **argv)
{
    if (argc != 3) {
        fprintf(stderr, "usage: proc_b <device> <id>\n");
        return 1;
    }
    setvbuf(stdout, NULL, _IOLBF, 0);
    int32_t device = atoi(argv[1]);
    int id = atoi(argv[2]);
    aclrtIpcEventHandle handle;
    if (sample_wait_file("./event_handle.bin", 20000, 1) != 0 ||
        sample_read_exact("./event_handle.bin", &handle, sizeof handle) != 0) {
        fprintf(stderr, "[ERROR] consumer %d: no valid ./event_handle.bin\n", id);
        return 1;
    }

    CHECK_ACL(aclInit(NULL));
    CHECK_ACL(aclrtSetDevice(device));
    aclrtStream stream = NULL;
    aclrtEvent event = NULL;
    CHECK_ACL(aclrtCreateStream(&stream));
    CHECK_ACL(aclrtIpcOpenEventHandle(handle, &event));
    CHECK_ACL(aclrtStreamWaitEvent(stream, event));
    uint64_t resumed = 0;
    CHECK_ACL(aclrtLaunchHostFunc(stream, stamp_resume, &resumed));
    uint64_t waiting_since = sample_now_ns();

    /* The record is pending: the stream must still be blocked a while later. */
    aclError ret = aclrtSynchronizeStreamWithTimeout(stream, 100);
    if (ret != ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) {
        fprintf(stderr, "[ERROR] consumer %d: stream not blocked by the pending record (sync returned %d)\n", id, ret);
        return 1;
    }
    printf("[consumer %d] t=%" PRIu64 " device %d: waiting on the pending record (still blocked after 100 ms)\n", id,
           waiting_since, device);
    char flag[64];
    snprintf(flag, sizeof flag, "./consumer_%d.waiting", id);
    if (sample_publish(flag, "1\n", 2) != 0)
        return 1;

    CHECK_ACL(aclrtSynchronizeStream(stream));
    uint64_t resumed_at = __atomic_load_n(&resumed, __ATOMIC_SEQ_CST);
    /* the producer published it before its record could execute */
    FILE *f = fopen("./released_at", "r");
    uint64_t released_at = 0;
    if (!f || fscanf(f, "%" SCNu64, &released_at) != 1) {
        fprintf(stderr, "[ERROR] consumer %d resumed but ./released_at is missing: it resumed too early\n", id);
        return 1;
    }
    fclose(f);
    printf("[consumer %d] t=%" PRIu64 " resumed, %.3f ms after the producer released its stream\n", id, resumed_at,
           ((double)resumed_at - (double)released_at) / 1e6);
    if (resumed_at < released_at) {
        fprintf(stderr, "[ERROR] consumer %d resumed before the record executed\n", id);
        return 1;
    }

    CHECK_ACL(aclrtDestroyEvent(event));
    CHECK_ACL(aclrtDestroyStream(stream));
    CHECK_ACL(aclrtResetDevice(device));
    CHECK_ACL(aclFinalize());
    snprintf(flag, sizeof flag, "./consumer_%d.done", id);
    return sample_publish(flag, "done\n", 5) == 0 ? 0 : 1;
}
