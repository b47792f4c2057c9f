/*
 * sample_util.h - small helpers shared by the IPC event samples (header only,
 * plain C and POSIX; nothing here depends on the conformance suite).
 *
 * The files the processes exchange live in the current directory, as in the
 * CANN samples. Unlike those, every file is published atomically (written to a
 * temporary name, fsync'ed, renamed), so a reader never sees half a handle.
 */
#ifndef SAMPLE_UTIL_H
#define SAMPLE_UTIL_H

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "acl/acl.h"

#define CHECK_ACL(call)                                                                                       \
    do {                                                                                                      \
        aclError ret_ = (call);                                                                               \
        if (ret_ != ACL_SUCCESS) {                                                                            \
            const char *msg_ = aclGetRecentErrMsg();                                                          \
            fprintf(stderr, "[ERROR] %s failed: %d (%s) at %s:%d\n", #call, ret_, msg_ ? msg_ : "no message", \
                    __FILE__, __LINE__);                                                                      \
            return 1;                                                                                         \
        }                                                                                                     \
    } while (0)

static inline uint64_t sample_now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

static inline void sample_sleep_ms(unsigned ms)
{
    struct timespec ts = {ms / 1000, (long)(ms % 1000) * 1000000L};
    while (nanosleep(&ts, &ts) < 0 && errno == EINTR) {
    }
}

/* Writes path atomically: temp file, fsync, rename. Returns 0 or -1. */
static inline int sample_publish(const char *path, const void *data, size_t len)
{
    char tmp[512];
    snprintf(tmp, sizeof tmp, "%s.tmp.%d", path, (int)getpid());
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    if (fd < 0) {
        fprintf(stderr, "[ERROR] cannot create %s: %s\n", tmp, strerror(errno));
        return -1;
    }
    const char *p = (const char *)data;
    size_t left = len;
    while (left > 0) {
        ssize_t n = write(fd, p, left);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0) {
            fprintf(stderr, "[ERROR] cannot write %s: %s\n", tmp, strerror(errno));
            close(fd);
            unlink(tmp);
            return -1;
        }
        p += n;
        left -= (size_t)n;
    }
    if (fsync(fd) != 0 || close(fd) != 0 || rename(tmp, path) != 0) {
        fprintf(stderr, "[ERROR] cannot publish %s: %s\n", path, strerror(errno));
        unlink(tmp);
        return -1;
    }
    return 0;
}

/* Waits up to timeout_ms for path to exist, polling every poll_ms. The last
 * check happens after the deadline, so a file that appears during the final
 * sleep is not reported as a timeout. Returns 0 when it exists. */
static inline int sample_wait_file(const char *path, unsigned timeout_ms, unsigned poll_ms)
{
    uint64_t deadline = sample_now_ns() + (uint64_t)timeout_ms * 1000000ull;
    for (;;) {
        if (access(path, F_OK) == 0)
            return 0;
        if (sample_now_ns() >= deadline)
            return access(path, F_OK) == 0 ? 0 : -1;
        sample_sleep_ms(poll_ms);
    }
}

/* Reads exactly len bytes of path. Returns 0 or -1. */
static inline int sample_read_exact(const char *path, void *buf, size_t len)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return -1;
    size_t got = 0;
    while (got < len) {
        ssize_t n = read(fd, (char *)buf + got, len - got);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            break;
        got += (size_t)n;
    }
    close(fd);
    return got == len ? 0 : -1;
}

#endif
