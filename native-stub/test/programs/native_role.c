/*
 * native_role.c - a small native role for the tests of the C API and of the
 * preload (test/cases_api.c, test/cases_preload.c, and the TypeScript interop
 * tests): built like a user's program, with -lascendcl -lcannharness only.
 * Runs its arguments as steps, in order:
 *
 *   publish NAME TEXT   cannharness_publish(NAME, TEXT bytes)
 *   await NAME          cannharness_await, prints "value NAME TEXT"
 *   signal NAME         cannharness_signal
 *   await-signal NAME   cannharness_await_signal, prints "signal NAME"
 *   mark NAME           cannharness_mark
 *   share-memory NAME KEY BYTES   cannharness_share_memory
 *   await-memory NAME   cannharness_await_memory, prints "memory NAME KEY BYTES"
 *   share-notify NAME KEY         cannharness_share_notify
 *   await-notify NAME   cannharness_await_notify, prints "notify NAME KEY"
 *   publish-pid PID     cannharness_publish_pid
 *   block-in-sync       aclInit, a stream held forever by a host function,
 *                       prints "blocking", then aclrtSynchronizeStream (never returns)
 *
 * A failing step prints "native_role: STEP NAME: CODE_NAME" and exits with
 * the code negated (1..8), so a test can tell a timeout from a bad name.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "acl/acl.h"
#include "cannharness.h"

static int pipe_fds[2];

/* Holds its stream forever: reads a pipe nobody writes. */
static void hold_forever(void *arg)
{
    char c;
    (void)arg;
    while (read(pipe_fds[0], &c, 1) != 0) {
    }
}

static int block_in_sync(void)
{
    aclrtStream stream = NULL;
    const char *device = getenv("CANN_HARNESS_DEVICE");
    if (pipe(pipe_fds) != 0 || aclInit(NULL) != ACL_SUCCESS ||
        aclrtSetDevice(device ? atoi(device) : 0) != ACL_SUCCESS || aclrtCreateStream(&stream) != ACL_SUCCESS ||
        aclrtLaunchHostFunc(stream, hold_forever, NULL) != ACL_SUCCESS) {
        printf("native_role: block-in-sync: set-up failed: %s\n", aclGetRecentErrMsg());
        return 9;
    }
    printf("blocking\n");
    aclrtSynchronizeStream(stream);
    return 9; /* never */
}

int main(int argc, char **argv)
{
    char value[4096];
    setvbuf(stdout, NULL, _IOLBF, 0);
    for (int i = 1; i < argc; i++) {
        const char *step = argv[i];
        const char *name = i + 1 < argc ? argv[i + 1] : "";
        int rc;
        size_t len = 0;
        if (strcmp(step, "block-in-sync") == 0)
            return block_in_sync();
        if (i + 1 >= argc) {
            printf("native_role: %s needs a name\n", step);
            return 10;
        }
        i++;
        if (strcmp(step, "publish") == 0 && i + 1 < argc) {
            const char *text = argv[++i];
            rc = cannharness_publish(name, text, strlen(text));
        } else if (strcmp(step, "await") == 0) {
            rc = cannharness_await(name, value, sizeof value - 1, &len);
            if (rc == CANNHARNESS_OK)
                printf("value %s %.*s\n", name, (int)len, value);
        } else if (strcmp(step, "signal") == 0) {
            rc = cannharness_signal(name);
        } else if (strcmp(step, "await-signal") == 0) {
            rc = cannharness_await_signal(name);
            if (rc == CANNHARNESS_OK)
                printf("signal %s\n", name);
        } else if (strcmp(step, "mark") == 0) {
            rc = cannharness_mark(name);
        } else if (strcmp(step, "share-memory") == 0 && i + 2 < argc) {
            const char *key = argv[++i];
            rc = cannharness_share_memory(name, key, (size_t)strtoull(argv[++i], NULL, 10));
        } else if (strcmp(step, "await-memory") == 0) {
            rc = cannharness_await_memory(name, value, sizeof value, &len);
            if (rc == CANNHARNESS_OK)
                printf("memory %s %s %zu\n", name, value, len);
        } else if (strcmp(step, "share-notify") == 0 && i + 1 < argc) {
            rc = cannharness_share_notify(name, argv[++i]);
        } else if (strcmp(step, "await-notify") == 0) {
            rc = cannharness_await_notify(name, value, sizeof value);
            if (rc == CANNHARNESS_OK)
                printf("notify %s %s\n", name, value);
        } else if (strcmp(step, "publish-pid") == 0) {
            rc = cannharness_publish_pid(atoi(name));
        } else {
            printf("native_role: unknown step %s\n", step);
            return 10;
        }
        if (rc != CANNHARNESS_OK) {
            printf("native_role: %s %s: %s\n", step, name, cannharness_err_name(rc));
            return -rc;
        }
    }
    return 0;
}
