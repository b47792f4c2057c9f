/*
 * data_bench - the stub's data paths, each against a baseline measured in
 * the same run (ratios, not absolute speeds):
 *
 *   data_bench memcpy [--mib N]   aclrtMemcpy device->device throughput vs
 *                                 plain memcpy of the same size
 *   data_bench wake [--rounds N]  notify record -> wait wake-up latency vs
 *                                 the IPC event record -> wait latency
 *
 * wake: per round, stream R is held by a gate host function, then stamps
 * t_exec and records (pending); stream W waits (capturing the pending
 * record) and stamps t_resume. Releasing the gate lets the record execute;
 * latency = t_resume - t_exec. Both streams are on device 0 of one process:
 * the wake-up goes through the same shared-memory futex as across processes.
 */
#include <acl/acl.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_util.h"

/* ---- memcpy throughput ---- */

static double gib_per_s(size_t bytes, int reps, uint64_t ns)
{
    return (double)bytes * reps / (double)ns * 1e9 / (1024.0 * 1024.0 * 1024.0);
}

static void bench_memcpy(size_t mib)
{
    size_t sizes[] = {64u << 10, 1u << 20, mib << 20};
    printf("memcpy device->device: aclrtMemcpy vs memcpy of the same size (GiB/s, best of 5)\n");
    for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        size_t n = sizes[i];
        int reps = (int)((512u << 20) / n);
        if (reps < 4)
            reps = 4;
        void *a = NULL, *b = NULL;
        CHECK(aclrtMalloc(&a, n, ACL_MEM_MALLOC_HUGE_FIRST));
        CHECK(aclrtMalloc(&b, n, ACL_MEM_MALLOC_HUGE_FIRST));
        char *ha = malloc(n), *hb = malloc(n);
        if (!ha || !hb) {
            fprintf(stderr, "out of memory\n");
            exit(2);
        }
        memset(ha, 1, n);
        memset(hb, 2, n);
        CHECK(aclrtMemcpy(a, n, ha, n, ACL_MEMCPY_HOST_TO_DEVICE)); /* touch every page */
        CHECK(aclrtMemcpy(b, n, hb, n, ACL_MEMCPY_HOST_TO_DEVICE));
        uint64_t best_stub = UINT64_MAX, best_plain = UINT64_MAX;
        for (int round = 0; round < 5; round++) { /* interleaved: both see the same machine load */
            uint64_t t0 = now_ns();
            for (int r = 0; r < reps; r++)
                CHECK(aclrtMemcpy((r & 1) ? a : b, n, (r & 1) ? b : a, n, ACL_MEMCPY_DEVICE_TO_DEVICE));
            uint64_t t1 = now_ns();
            for (int r = 0; r < reps; r++) {
                memcpy((r & 1) ? ha : hb, (r & 1) ? hb : ha, n);
                __asm__ __volatile__("" ::"r"(ha), "r"(hb) : "memory"); /* keep every copy */
            }
            uint64_t t2 = now_ns();
            if (t1 - t0 < best_stub)
                best_stub = t1 - t0;
            if (t2 - t1 < best_plain)
                best_plain = t2 - t1;
        }
        double stub = gib_per_s(n, reps, best_stub), plain = gib_per_s(n, reps, best_plain);
        printf("data-bench memcpy bytes=%zu stub_gibs=%.2f memcpy_gibs=%.2f ratio=%.2f\n", n, stub, plain,
               stub / plain);
        free(ha);
        free(hb);
        CHECK(aclrtFree(a));
        CHECK(aclrtFree(b));
    }
}

/* ---- wake-up latency ---- */

struct gate {
    pthread_mutex_t m;
    pthread_cond_t c;
    int open;
};

static void gate_wait(void *arg)
{
    struct gate *g = arg;
    pthread_mutex_lock(&g->m);
    while (!g->open)
        pthread_cond_wait(&g->c, &g->m);
    pthread_mutex_unlock(&g->m);
}

static void stamp(void *arg)
{
    __atomic_store_n((uint64_t *)arg, now_ns(), __ATOMIC_RELEASE);
}

static int cmp_u64(const void *x, const void *y)
{
    uint64_t a = *(const uint64_t *)x, b = *(const uint64_t *)y;
    return a < b ? -1 : a > b;
}

enum sync_kind { SYNC_EVENT, SYNC_NOTIFY };

/* Median and p99 in microseconds of `rounds` record -> resume latencies. */
static void measure_wake(enum sync_kind kind, int rounds, double *median_us, double *p99_us)
{
    aclrtStream rec, wait;
    CHECK(aclrtCreateStream(&rec));
    CHECK(aclrtCreateStream(&wait));
    aclrtEvent ev = NULL;
    aclrtNotify n = NULL;
    if (kind == SYNC_EVENT)
        CHECK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    else
        CHECK(aclrtCreateNotify(&n, ACL_NOTIFY_DEFAULT));
    uint64_t *lat = calloc((size_t)rounds, sizeof *lat);
    if (!lat) {
        fprintf(stderr, "out of memory for %d latency samples\n", rounds);
        exit(2);
    }
    for (int r = 0; r < rounds; r++) {
        struct gate g = {PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0};
        uint64_t t_exec = 0, t_resume = 0;
        CHECK(aclrtLaunchHostFunc(rec, gate_wait, &g));
        CHECK(aclrtLaunchHostFunc(rec, stamp, &t_exec));
        if (kind == SYNC_EVENT) {
            CHECK(aclrtRecordEvent(ev, rec));
            CHECK(aclrtStreamWaitEvent(wait, ev));
        } else {
            CHECK(aclrtRecordNotify(n, rec));
            CHECK(aclrtWaitAndResetNotify(n, wait, 0));
        }
        CHECK(aclrtLaunchHostFunc(wait, stamp, &t_resume));
        struct timespec pause = {0, 200000}; /* let the waiter park */
        nanosleep(&pause, NULL);
        pthread_mutex_lock(&g.m);
        g.open = 1;
        pthread_cond_signal(&g.c);
        pthread_mutex_unlock(&g.m);
        CHECK(aclrtSynchronizeStream(wait));
        CHECK(aclrtSynchronizeStream(rec));
        lat[r] = t_resume - t_exec;
    }
    qsort(lat, (size_t)rounds, sizeof *lat, cmp_u64);
    *median_us = (double)lat[rounds / 2] / 1e3;
    *p99_us = (double)lat[(rounds * 99) / 100] / 1e3;
    free(lat);
    if (ev)
        CHECK(aclrtDestroyEvent(ev));
    if (n)
        CHECK(aclrtDestroyNotify(n));
    CHECK(aclrtDestroyStream(rec));
    CHECK(aclrtDestroyStream(wait));
}

static void bench_wake(int rounds)
{
    double ev_med, ev_p99, nt_med, nt_p99;
    measure_wake(SYNC_EVENT, rounds, &ev_med, &ev_p99);
    measure_wake(SYNC_NOTIFY, rounds, &nt_med, &nt_p99);
    printf("data-bench wake rounds=%d event_median_us=%.1f event_p99_us=%.1f notify_median_us=%.1f "
           "notify_p99_us=%.1f median_ratio=%.2f\n",
           rounds, ev_med, ev_p99, nt_med, nt_p99, nt_med / ev_med);
}

int main(int argc, char **argv)
{
    if (argc < 2 || (strcmp(argv[1], "memcpy") && strcmp(argv[1], "wake"))) {
        fprintf(stderr, "usage: data_bench memcpy [--mib N] | wake [--rounds N]\n");
        return 2;
    }
    long value = strcmp(argv[1], "memcpy") == 0 ? 64 : 2000;
    if (argc == 4 && (!strcmp(argv[2], "--mib") || !strcmp(argv[2], "--rounds")))
        value = strtol(argv[3], NULL, 10);
    if (value < 1) {
        fprintf(stderr, "%s must be a positive integer\n", argv[2]);
        return 2;
    }
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    if (strcmp(argv[1], "memcpy") == 0)
        bench_memcpy((size_t)value);
    else
        bench_wake((int)value);
    CHECK(aclFinalize());
    return 0;
}
