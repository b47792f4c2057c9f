/*
 * exchange.h - how the example programs of specs/native-roles.spec.ts meet: plain files in the
 * current directory (the scenario directory), in the harness's rendezvous layout
 * (src/rendezvous/README.md), so that TypeScript roles can take part:
 *   handles/<name>   a published payload (written under .staging/, then renamed: never half a file)
 *   signals/<name>   an empty file: "it happened"
 * Waiting polls every 2 ms until CANN_HARNESS_DEADLINE_NS (set by the harness), else 30 s.
 */
#ifndef EXCHANGE_H
#define EXCHANGE_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"

/* An ACL call that must succeed: on failure, name it and its error, and fail the program. */
#define ACL_OK(call)                                                                               \
    do {                                                                                           \
        aclError rc_ = (call);                                                                     \
        if (rc_ != ACL_SUCCESS) {                                                                  \
            fprintf(stderr, "%s failed with %d: %s\n", #call, (int)rc_, aclGetRecentErrMsg());     \
            exit(1);                                                                               \
        }                                                                                          \
    } while (0)

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline uint64_t deadline_ns(void)
{
    const char *d = getenv("CANN_HARNESS_DEADLINE_NS");
    return d ? strtoull(d, NULL, 10) : now_ns() + 30000000000ull;
}

/* Publishes data as <kind>/<name> atomically. Returns 0, or -1 with a message on stderr. */
static inline int publish(const char *kind, const char *name, const void *data, size_t len)
{
    char tmp[512], dst[512];
    (void)mkdir(".staging", 0700);
    (void)mkdir(kind, 0755);
    snprintf(tmp, sizeof tmp, ".staging/%s.%d", name, (int)getpid());
    snprintf(dst, sizeof dst, "%s/%s", kind, name);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0 || (len > 0 && write(fd, data, len) != (ssize_t)len) || close(fd) != 0 || rename(tmp, dst) != 0) {
        fprintf(stderr, "cannot publish %s: %s\n", dst, strerror(errno));
        return -1;
    }
    return 0;
}

/* Waits until <kind>/<name> exists, then reads up to len bytes of it. Returns bytes read, or -1 at the deadline. */
static inline long await_file(const char *kind, const char *name, void *data, size_t len)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", kind, name);
    uint64_t end = deadline_ns();
    for (;;) {
        int fd = open(path, O_RDONLY);
        if (fd >= 0) {
            ssize_t n = len ? read(fd, data, len) : 0;
            close(fd);
            return (long)n;
        }
        if (now_ns() >= end) {
            fprintf(stderr, "gave up waiting for %s at the scenario's deadline\n", path);
            return -1;
        }
        struct timespec pause = {0, 2000000};
        nanosleep(&pause, NULL);
    }
}

#endif
