/*
 * barrier.c - the round barrier (barrier.h): a generation counter and a
 * futex on a shared file mapping. The last party to arrive resets the count
 * and bumps the generation; the others sleep in FUTEX_WAIT on the generation
 * word (not FUTEX_PRIVATE: the waiters are other processes).
 *
 * A crossing can be held (cannharness_barrier_hold): the holder announces
 * itself in `held` before it arrives, so whoever makes the count reach
 * `parties` sees it (the count's read-modify-writes order the store), and
 * wakes the holder (FUTEX_WAIT on `arrived`) instead of releasing. The holder
 * then runs alone while every other party sleeps in the crossing, and
 * releases it as the last arriver would have.
 */
#include "barrier.h"

#include <errno.h>
#include <fcntl.h>
#include <linux/futex.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#define HOLD_EXPORT __attribute__((visibility("default")))
#define MAX_PARTIES 4096u

struct barrier {
    uint32_t magic;
    uint32_t parties;
    uint32_t arrived;
    uint32_t generation;
    uint32_t broken;
    uint32_t held; /* 1 while a holder waits for the others at this crossing */
    /* The crossing's tag as its first arriver gave it (low 32 bits) and that party (high); 0: none yet. */
    uint64_t crossing;
    /* Set once, by the party that found a tag unlike the crossing's: {first's tag, first's party, its tag, its party}. */
    uint32_t mismatch[4];
};
_Static_assert(sizeof(struct barrier) <= CANNHARNESS_BARRIER_BYTES, "layout fits the file");

static long futex(uint32_t *word, int op, uint32_t value, const struct timespec *timeout)
{
    return syscall(SYS_futex, word, op, value, timeout, NULL, 0);
}

/* Closes fd and fails with err (errno kept for the caller). */
static void *fail_closing(int fd, int err)
{
    close(fd);
    errno = err;
    return NULL;
}

HOLD_EXPORT void *cannharness_barrier_attach(const char *path)
{
    if (!path) {
        errno = EINVAL;
        return NULL;
    }
    int fd = open(path, O_RDWR | O_NOFOLLOW | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat st;
    if (fstat(fd, &st) != 0)
        return fail_closing(fd, errno);
    if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0)
        return fail_closing(fd, EPERM);
    if (st.st_size != CANNHARNESS_BARRIER_BYTES)
        return fail_closing(fd, EINVAL);
    void *map = mmap(NULL, CANNHARNESS_BARRIER_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    int saved = errno;
    close(fd); /* the mapping keeps the file */
    if (map == MAP_FAILED) {
        errno = saved;
        return NULL;
    }
    struct barrier *b = map;
    uint32_t parties = __atomic_load_n(&b->parties, __ATOMIC_ACQUIRE);
    if (__atomic_load_n(&b->magic, __ATOMIC_ACQUIRE) != CANNHARNESS_BARRIER_MAGIC || parties < 1 ||
        parties > MAX_PARTIES) {
        munmap(map, CANNHARNESS_BARRIER_BYTES);
        errno = EINVAL;
        return NULL;
    }
    return map;
}

HOLD_EXPORT int cannharness_barrier_parties(void *barrier)
{
    struct barrier *b = barrier;
    return b ? (int)__atomic_load_n(&b->parties, __ATOMIC_ACQUIRE) : 0;
}

HOLD_EXPORT int cannharness_barrier_broken(void *barrier)
{
    struct barrier *b = barrier;
    return b ? (int)__atomic_load_n(&b->broken, __ATOMIC_ACQUIRE) : 0;
}

static uint64_t now_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* 0: no limit (timeout_ms < 0). */
static uint64_t deadline_after(int timeout_ms)
{
    return timeout_ms < 0 ? 0 : now_ns() + (uint64_t)timeout_ms * 1000000ull;
}

/* The time left until deadline (0: none) in *rel; -1 once it passed. */
static int time_left(uint64_t deadline, struct timespec *rel)
{
    if (!deadline)
        return 0;
    uint64_t now = now_ns();
    if (now >= deadline)
        return -1;
    uint64_t left = deadline - now;
    rel->tv_sec = (time_t)(left / 1000000000ull);
    rel->tv_nsec = (long)(left % 1000000000ull);
    return 0;
}

/* What a party sleeps for: a waiter for the crossing to open (the generation
 * moves), the holder for every other party to arrive. */
enum wait_until { UNTIL_GENERATION_MOVES, UNTIL_ALL_ARRIVED };

/* Sleeps on the word of `until` (0, -EPIPE once broken, -ETIMEDOUT). */
static int sleep_until(struct barrier *b, enum wait_until until, uint32_t gen, uint32_t parties, int timeout_ms)
{
    uint32_t *word = until == UNTIL_GENERATION_MOVES ? &b->generation : &b->arrived;
    uint64_t deadline = deadline_after(timeout_ms);
    for (;;) {
        /* Broken first: a break bumps the generation too, and wakes a holder. */
        if (__atomic_load_n(&b->broken, __ATOMIC_ACQUIRE))
            return -EPIPE;
        uint32_t seen = __atomic_load_n(word, __ATOMIC_SEQ_CST);
        if (until == UNTIL_GENERATION_MOVES ? seen != gen : seen == parties)
            return 0;
        struct timespec rel;
        if (time_left(deadline, &rel) != 0)
            return -ETIMEDOUT;
        /* EAGAIN (the word moved), EINTR and ETIMEDOUT all loop back to the checks. */
        futex(word, FUTEX_WAIT, seen, deadline ? &rel : NULL);
    }
}

/* Lets every party of this crossing go. The count is reset before the
 * generation moves, so that a party that leaves at once and arrives at the
 * next barrier counts there. */
static void release(struct barrier *b, uint32_t gen)
{
    __atomic_store_n(&b->crossing, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->arrived, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&b->generation, gen + 1, __ATOMIC_RELEASE);
    futex(&b->generation, FUTEX_WAKE, INT32_MAX, NULL);
}

/* -EINVAL without a barrier, -EPIPE once broken, else 0. */
static int usable(struct barrier *b)
{
    if (!b)
        return -EINVAL;
    return __atomic_load_n(&b->broken, __ATOMIC_ACQUIRE) ? -EPIPE : 0;
}

/*
 * A tagged arrival: the first party of a crossing sets its tag, every later
 * one must bring the same (0: untagged, not checked). Checked before the
 * arrival counts: a party with another tag records both, breaks the barrier
 * and gets -EPROTO; the others wake with -EPIPE and read the mismatch.
 */
static int check_tag(struct barrier *b, uint32_t tag, int party)
{
    if (!tag)
        return 0;
    uint64_t mine = (uint64_t)(uint32_t)party << 32 | tag;
    uint64_t seen = 0;
    if (__atomic_compare_exchange_n(&b->crossing, &seen, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE) ||
        (uint32_t)seen == tag)
        return 0;
    uint32_t none = 0;
    if (__atomic_compare_exchange_n(&b->mismatch[3], &none, (uint32_t)party, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        __atomic_store_n(&b->mismatch[0], (uint32_t)seen, __ATOMIC_RELAXED);
        __atomic_store_n(&b->mismatch[1], (uint32_t)(seen >> 32), __ATOMIC_RELAXED);
        __atomic_store_n(&b->mismatch[2], tag, __ATOMIC_RELEASE);
    }
    cannharness_barrier_break(b, party);
    return -EPROTO;
}

/* The checks before a wait or a hold counts its arrival: usable(), then check_tag(). */
static int check_arrival(struct barrier *b, uint32_t tag, int party)
{
    int rc = usable(b);
    if (rc == 0)
        rc = check_tag(b, tag, party);
    return rc;
}

HOLD_EXPORT int cannharness_barrier_mismatch(void *barrier, unsigned int out[4])
{
    struct barrier *b = barrier;
    if (!b || !out || !__atomic_load_n(&b->mismatch[3], __ATOMIC_ACQUIRE))
        return 0;
    /* The recorder stores [0..2] before its break (release), which every reader saw first. */
    for (int i = 0; i < 4; i++)
        out[i] = __atomic_load_n(&b->mismatch[i], __ATOMIC_ACQUIRE);
    return out[2] != 0;
}

HOLD_EXPORT int cannharness_barrier_wait(void *barrier, int timeout_ms)
{
    return cannharness_barrier_wait_tagged(barrier, 0, 0, timeout_ms);
}

HOLD_EXPORT int cannharness_barrier_wait_tagged(void *barrier, unsigned int tag, int party, int timeout_ms)
{
    struct barrier *b = barrier;
    int rc = check_arrival(b, tag, party);
    if (rc != 0)
        return rc;
    uint32_t parties = __atomic_load_n(&b->parties, __ATOMIC_ACQUIRE);
    uint32_t gen = __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE);
    if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_SEQ_CST) == parties) {
        if (!__atomic_load_n(&b->held, __ATOMIC_SEQ_CST)) {
            release(b, gen);
            return 0;
        }
        /* The holder releases this crossing: wake it and wait like the others. */
        futex(&b->arrived, FUTEX_WAKE, INT32_MAX, NULL);
    }
    return sleep_until(b, UNTIL_GENERATION_MOVES, gen, parties, timeout_ms);
}

HOLD_EXPORT int cannharness_barrier_hold(void *barrier, int timeout_ms)
{
    return cannharness_barrier_hold_tagged(barrier, 0, 0, timeout_ms);
}

HOLD_EXPORT int cannharness_barrier_hold_tagged(void *barrier, unsigned int tag, int party, int timeout_ms)
{
    struct barrier *b = barrier;
    int rc = check_arrival(b, tag, party);
    if (rc != 0)
        return rc;
    uint32_t parties = __atomic_load_n(&b->parties, __ATOMIC_ACQUIRE);
    /* Announced before the arrival: the party that completes the count sees it. */
    __atomic_store_n(&b->held, 1, __ATOMIC_SEQ_CST);
    if (__atomic_add_fetch(&b->arrived, 1, __ATOMIC_SEQ_CST) == parties)
        return 0;
    return sleep_until(b, UNTIL_ALL_ARRIVED, 0, parties, timeout_ms);
}

HOLD_EXPORT void cannharness_barrier_release(void *barrier)
{
    struct barrier *b = barrier;
    if (!b)
        return;
    __atomic_store_n(&b->held, 0, __ATOMIC_SEQ_CST);
    release(b, __atomic_load_n(&b->generation, __ATOMIC_ACQUIRE));
}

HOLD_EXPORT void cannharness_barrier_break(void *barrier, int party)
{
    struct barrier *b = barrier;
    if (!b)
        return;
    uint32_t none = 0;
    __atomic_compare_exchange_n(&b->broken, &none, party > 0 ? (uint32_t)party : 1u, 0, __ATOMIC_ACQ_REL,
                                __ATOMIC_ACQUIRE);
    /* Waiters sleep on the generation word: bump it so none can miss the wake-up. */
    __atomic_add_fetch(&b->generation, 1, __ATOMIC_ACQ_REL);
    futex(&b->generation, FUTEX_WAKE, INT32_MAX, NULL);
    futex(&b->arrived, FUTEX_WAKE, INT32_MAX, NULL); /* a holder */
}

HOLD_EXPORT void cannharness_barrier_detach(void *barrier)
{
    if (barrier)
        munmap(barrier, CANNHARNESS_BARRIER_BYTES);
}
