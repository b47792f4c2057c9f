/*
 * ipc_wake_latency - how fast does a stream waiting on an IPC event in one
 * process resume after the record executes in another?
 *
 *   ipc_wake_latency [--rounds N] [--cross-device] [--idle-ms M]
 *
 * --idle-ms M lets both processes sit idle for M ms before each record
 * executes (cold wake-ups: sleeping CPUs, idle executor threads).
 *
 * The parent (which never initialises ACL) starts a recorder and a waiter
 * with fork+exec and connects them with two pipes. Each round:
 *   recorder: hold its stream with a latch host func, then a host func that
 *             stamps t_exec, then aclrtRecordEvent (pending); tell the waiter;
 *   waiter:   aclrtStreamWaitEvent (captures the pending record), then a host
 *             func that stamps t_resume; check the event is NOT_READY; reply;
 *   recorder: release the latch; the record executes right after t_exec.
 * Latency = t_resume - t_exec (CLOCK_MONOTONIC, same machine): it includes
 * the record task itself, the futex wake and the waiter stream's dispatch.
 * Prints median, p99 and max in microseconds; exits 1 if a round did not
 * really block or if median/p99 reach 1 ms.
 */
#include <acl/acl.h>

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bench_util.h"

static void read_all(int fd, void *buf, size_t n)
{
    char *p = buf;
    while (n > 0) {
        ssize_t r = read(fd, p, n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0) {
            fprintf(stderr, "pipe closed early\n");
            exit(2);
        }
        p += r;
        n -= (size_t)r;
    }
}

static void write_all(int fd, const void *buf, size_t n)
{
    const char *p = buf;
    while (n > 0) {
        ssize_t w = write(fd, p, n);
        if (w < 0 && errno == EINTR)
            continue;
        if (w <= 0) {
            fprintf(stderr, "pipe write failed\n");
            exit(2);
        }
        p += w;
        n -= (size_t)w;
    }
}

/* A one-shot latch host function. */
static pthread_mutex_t latch_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t latch_cv = PTHREAD_COND_INITIALIZER;
static int latch_open;

static void latch_wait(void *arg)
{
    (void)arg;
    pthread_mutex_lock(&latch_lock);
    while (!latch_open)
        pthread_cond_wait(&latch_cv, &latch_lock);
    latch_open = 0; /* re-arm for the next round */
    pthread_mutex_unlock(&latch_lock);
}

static void latch_release(void)
{
    pthread_mutex_lock(&latch_lock);
    latch_open = 1;
    pthread_cond_broadcast(&latch_cv);
    pthread_mutex_unlock(&latch_lock);
}

static void stamp(void *slot)
{
    __atomic_store_n((uint64_t *)slot, now_ns(), __ATOMIC_RELEASE);
}

static int cmp_u64(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

static int idle_ms;

static int run_recorder(int rounds, int in_fd, int out_fd)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(0));
    aclrtEvent ev;
    aclrtStream stream;
    CHECK(aclrtCreateEventExWithFlag(&ev, ACL_EVENT_IPC));
    CHECK(aclrtCreateStream(&stream));
    aclrtIpcEventHandle handle;
    CHECK(aclrtIpcGetEventHandle(ev, &handle));
    write_all(out_fd, &handle, sizeof handle);

    uint64_t *lat = calloc((size_t)rounds, sizeof *lat);
    if (!lat) {
        fprintf(stderr, "out of memory for %d latency samples\n", rounds);
        exit(2);
    }
    uint64_t t_exec = 0;
    int not_blocked = 0;
    for (int i = 0; i < rounds; i++) {
        CHECK(aclrtLaunchHostFunc(stream, latch_wait, NULL));
        CHECK(aclrtLaunchHostFunc(stream, stamp, &t_exec));
        CHECK(aclrtRecordEvent(ev, stream));
        char go = 'r';
        write_all(out_fd, &go, 1);
        char armed;
        read_all(in_fd, &armed, 1);
        if (armed != 'a')
            not_blocked++; /* the waiter saw the event already complete */
        if (idle_ms > 0)
            usleep((useconds_t)idle_ms * 1000u);
        latch_release();
        CHECK(aclrtSynchronizeStream(stream));
        uint64_t t_resume;
        read_all(in_fd, &t_resume, sizeof t_resume);
        uint64_t te = __atomic_load_n(&t_exec, __ATOMIC_ACQUIRE);
        if (t_resume < te)
            not_blocked++;
        lat[i] = t_resume > te ? t_resume - te : 0;
    }
    qsort(lat, (size_t)rounds, sizeof *lat, cmp_u64);
    double median = (double)lat[rounds / 2] / 1000.0;
    double p99 =
        (double)lat[(int)((double)rounds * 0.99) < rounds ? (int)((double)rounds * 0.99) : rounds - 1] / 1000.0;
    double max = (double)lat[rounds - 1] / 1000.0;
    printf("ipc-wake-latency rounds=%d idle_ms=%d median_us=%.1f p99_us=%.1f max_us=%.1f not_blocked=%d\n", rounds,
           idle_ms, median, p99, max, not_blocked);
    fflush(stdout);
    free(lat);
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtDestroyEvent(ev));
    CHECK(aclrtResetDevice(0));
    CHECK(aclFinalize());
    return not_blocked == 0 && median < 1000.0 && p99 < 1000.0 ? 0 : 1;
}

static int run_waiter(int rounds, int device, int in_fd, int out_fd)
{
    CHECK(aclInit(NULL));
    CHECK(aclrtSetDevice(device));
    aclrtIpcEventHandle handle;
    read_all(in_fd, &handle, sizeof handle);
    aclrtEvent ev;
    aclrtStream stream;
    CHECK(aclrtIpcOpenEventHandle(handle, &ev));
    CHECK(aclrtCreateStream(&stream));
    uint64_t t_resume = 0;
    for (int i = 0; i < rounds; i++) {
        char go;
        read_all(in_fd, &go, 1);
        CHECK(aclrtStreamWaitEvent(stream, ev));
        CHECK(aclrtLaunchHostFunc(stream, stamp, &t_resume));
        aclrtEventRecordedStatus status;
        CHECK(aclrtQueryEventStatus(ev, &status));
        char armed = status == ACL_EVENT_RECORDED_STATUS_NOT_READY ? 'a' : 'x';
        write_all(out_fd, &armed, 1);
        CHECK(aclrtSynchronizeStream(stream));
        uint64_t t = __atomic_load_n(&t_resume, __ATOMIC_ACQUIRE);
        write_all(out_fd, &t, sizeof t);
    }
    CHECK(aclrtDestroyStream(stream));
    CHECK(aclrtDestroyEvent(ev));
    CHECK(aclrtResetDevice(device));
    CHECK(aclFinalize());
    return 0;
}

int main(int argc, char **argv)
{
    int rounds = 2000, cross = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--rounds") && i + 1 < argc)
            rounds = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--idle-ms") && i + 1 < argc)
            idle_ms = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--cross-device"))
            cross = 1;
        else if (!strcmp(argv[i], "--recorder") && i + 2 < argc)
            return run_recorder(rounds, atoi(argv[i + 1]), atoi(argv[i + 2]));
        else if (!strcmp(argv[i], "--waiter") && i + 3 < argc)
            return run_waiter(rounds, atoi(argv[i + 1]), atoi(argv[i + 2]), atoi(argv[i + 3]));
        else {
            fprintf(stderr, "usage: %s [--rounds N] [--cross-device] [--idle-ms M]\n", argv[0]);
            return 2;
        }
    }
    if (rounds < 1) {
        fprintf(stderr, "--rounds must be at least 1\n");
        return 2;
    }
    int to_waiter[2], to_recorder[2];
    if (pipe(to_waiter) != 0 || pipe(to_recorder) != 0) {
        perror("pipe");
        return 2;
    }
    char rounds_s[16], a[16], b[16], dev[16];
    char idle_s[16];
    snprintf(rounds_s, sizeof rounds_s, "%d", rounds);
    snprintf(idle_s, sizeof idle_s, "%d", idle_ms);
    pid_t pids[2];
    for (int role = 0; role < 2; role++) {
        pids[role] = fork();
        if (pids[role] < 0) {
            perror("fork");
            return 2;
        }
        if (pids[role] == 0) {
            if (role == 0) {
                snprintf(a, sizeof a, "%d", to_recorder[0]);
                snprintf(b, sizeof b, "%d", to_waiter[1]);
                execl("/proc/self/exe", argv[0], "--rounds", rounds_s, "--idle-ms", idle_s, "--recorder", a, b,
                      (char *)NULL);
            } else {
                snprintf(dev, sizeof dev, "%d", cross ? 1 : 0);
                snprintf(a, sizeof a, "%d", to_waiter[0]);
                snprintf(b, sizeof b, "%d", to_recorder[1]);
                execl("/proc/self/exe", argv[0], "--rounds", rounds_s, "--idle-ms", idle_s, "--waiter", dev, a, b,
                      (char *)NULL);
            }
            perror("exec");
            _exit(2);
        }
    }
    close(to_waiter[0]);
    close(to_waiter[1]);
    close(to_recorder[0]);
    close(to_recorder[1]);
    int failed = 0;
    for (int role = 0; role < 2; role++) {
        int status;
        waitpid(pids[role], &status, 0);
        if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
            fprintf(stderr, "%s exited with %s %d\n", role == 0 ? "recorder" : "waiter",
                    WIFEXITED(status) ? "status" : "signal",
                    WIFEXITED(status) ? WEXITSTATUS(status) : WTERMSIG(status));
            failed = 1;
        }
    }
    return failed;
}
