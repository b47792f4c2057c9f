/*
 * bench_util.h - what the stub's C benchmarks share: a CLOCK_MONOTONIC clock
 * in ns and CHECK(), which ends the benchmark (exit 2) on any ACL error with
 * the runtime's own message.
 */
#ifndef CANNSTUB_BENCH_UTIL_H
#define CANNSTUB_BENCH_UTIL_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "acl/acl.h"

static inline uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

#define CHECK(expr)                                                                                                \
    do {                                                                                                           \
        aclError rc_ = (expr);                                                                                     \
        if (rc_ != ACL_SUCCESS) {                                                                                  \
            fprintf(stderr, "%s failed: %d (%s)\n", #expr, rc_, aclGetRecentErrMsg() ? aclGetRecentErrMsg() : ""); \
            exit(2);                                                                                               \
        }                                                                                                          \
    } while (0)

#endif
