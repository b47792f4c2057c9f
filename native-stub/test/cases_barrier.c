/*
 * cases_barrier.c - the round barrier of soak rounds (harness/hold/barrier.h, in
 * libcannharness_hold.so; not part of the ACL API): parties meet round
 * after round without losing or doubling a wake-up (threads of one process
 * and a forked process on one file), a break wakes every waiter with
 * -EPIPE for good, a wait alone times out, a held crossing keeps every other
 * party asleep until its holder releases it, and attach refuses links, other
 * modes and bad headers.
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "the harness's round barrier (libcannharness_hold.so), not libascendcl"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "barrier.h"
#include "support.h"

#define ROUNDS 20000
#define THREADS 4
/* The round cases: every round wakes every party, so their pace is the scheduler's, and under
 * CI's load (the other flavour's cases, the audit's device processes) 20000 rounds of a sanitizer
 * build outlast the 20 s watchdog. They run ROUNDS rounds, or stop once MIN_ROUNDS are done and
 * BUDGET_MS has passed. Party 0 decides before the others can see the round end (between two
 * crossings, while it holds one, or before it arrives), so all stop after the same round. */
#define MIN_ROUNDS 2000
#define BUDGET_MS 4000

/* Whether rounds done from start_ns on are enough (see MIN_ROUNDS). Asked by party 0 once a
 * round, which also counts every 500th round as progress for the watchdog (ct_progress): in CI's
 * last phase 2000 rounds of the ASan build took 8 s. */
static int enough_rounds(int rounds_done, uint64_t start_ns)
{
    if (rounds_done % 500 == 0)
        ct_progress();
    return rounds_done >= ROUNDS ||
           (rounds_done >= MIN_ROUNDS && now_ns() - start_ns >= (uint64_t)BUDGET_MS * 1000000u);
}

/* Writes a barrier file as the orchestrator does (src/wire/round-barrier-file.ts). */
static void make_barrier_file(const char *path, uint32_t parties, mode_t mode, uint32_t magic)
{
    uint32_t words[CANNHARNESS_BARRIER_BYTES / 4] = {0};
    words[0] = magic;
    words[1] = parties;
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, mode);
    if (fd < 0)
        CT_FAIL("create %s: %s", path, strerror(errno));
    if (fchmod(fd, mode) != 0 || write(fd, words, sizeof words) != (ssize_t)sizeof words)
        CT_FAIL("write %s: %s", path, strerror(errno));
    close(fd);
}

/* A new barrier of `parties` in the case's directory under `name`, attached (NULL if refused). */
static void *fresh_barrier(const char *name, uint32_t parties)
{
    char path[PATH_CAP];
    path_join(path, case_dir(), name);
    make_barrier_file(path, parties, 0600, CANNHARNESS_BARRIER_MAGIC);
    return cannharness_barrier_attach(path);
}

/* Whether a party stops after round r: the last round, or a failure, which breaks the barrier so
 * that the other parties wake at once (-EPIPE) instead of each waiting out its time limit. */
static int stop_after(void *b, int failures, const int *last_round, int r)
{
    if (failures) {
        cannharness_barrier_break(b, 1);
        return 1;
    }
    return __atomic_load_n(last_round, __ATOMIC_SEQ_CST) == r;
}

struct party {
    void *b;
    int id;
    int *shared_round; /* each round, party 0 bumps it between two barriers */
    int *last_round;   /* set by party 0 between the two barriers of the last round */
    uint64_t start_ns;
    int failures;
};

static void *run_party(void *arg)
{
    struct party *p = arg;
    for (int r = 1;; r++) {
        if (cannharness_barrier_wait(p->b, 10000) != 0)
            p->failures++;
        if (p->id == 0) {
            __atomic_store_n(p->shared_round, r, __ATOMIC_RELAXED);
            if (enough_rounds(r, p->start_ns))
                __atomic_store_n(p->last_round, r, __ATOMIC_SEQ_CST);
        }
        if (cannharness_barrier_wait(p->b, 10000) != 0)
            p->failures++;
        /* Everyone sees this round's value: nobody ran ahead of the barrier. */
        if (__atomic_load_n(p->shared_round, __ATOMIC_RELAXED) != r)
            p->failures++;
        if (stop_after(p->b, p->failures, p->last_round, r))
            break;
    }
    return NULL;
}

CT_CASE(barrier_threads_meet_every_round)
{
    void *b = fresh_barrier("round-barrier", THREADS);
    CT_TRUE(b != NULL);
    CT_EQ(THREADS, cannharness_barrier_parties(b));
    int shared_round = 0, last_round = 0;
    uint64_t start_ns = now_ns();
    struct party parties[THREADS];
    pthread_t tids[THREADS];
    for (int i = 0; i < THREADS; i++) {
        parties[i] = (struct party){
            .b = b, .id = i, .shared_round = &shared_round, .last_round = &last_round, .start_ns = start_ns};
        CT_EQ(0, pthread_create(&tids[i], NULL, run_party, &parties[i]));
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tids[i], NULL);
        CT_EQ(0, parties[i].failures);
    }
    ct_note("%d rounds in %llu ms", last_round, (unsigned long long)((now_ns() - start_ns) / 1000000u));
    CT_TRUE(last_round >= MIN_ROUNDS);
    CT_EQ(0, cannharness_barrier_broken(b));
    cannharness_barrier_detach(b);
}

/* What the two processes of barrier_two_processes_meet_every_round share besides the barrier. */
struct two_rounds {
    int last_round; /* set by the parent before it arrives at the last round */
    int arrived[2]; /* per process: the last round it arrived for */
};

/* One process's rounds: it marks its arrival, crosses, and checks that the other process arrived
 * for the same round (nobody crossed alone) and that it did not go past the last round.
 * 0, or the first failure's code. */
static int cross_rounds(void *b, struct two_rounds *shared, int self, uint64_t start_ns)
{
    for (int r = 1;; r++) {
        if (self == 0 && enough_rounds(r, start_ns))
            __atomic_store_n(&shared->last_round, r, __ATOMIC_SEQ_CST);
        __atomic_store_n(&shared->arrived[self], r, __ATOMIC_SEQ_CST);
        int rc = cannharness_barrier_wait(b, 10000);
        if (rc != 0)
            return rc;
        if (__atomic_load_n(&shared->arrived[1 - self], __ATOMIC_SEQ_CST) < r)
            return -EPROTO; /* crossed before the other arrived */
        int last = __atomic_load_n(&shared->last_round, __ATOMIC_SEQ_CST);
        if (last == r)
            return 0;
        if (last != 0 && last < r)
            return -ERANGE; /* went past the last round */
    }
}

CT_CASE(barrier_two_processes_meet_every_round)
{
    char path[PATH_CAP];
    path_join(path, case_dir(), "round-barrier");
    make_barrier_file(path, 2, 0600, CANNHARNESS_BARRIER_MAGIC);
    struct two_rounds *shared = mmap(NULL, sizeof *shared, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    CT_TRUE(shared != MAP_FAILED);
    *shared = (struct two_rounds){0};
    uint64_t start_ns = now_ns();
    pid_t child = fork();
    if (child == 0) {
        /* No exec: the child only maps the file and waits (it never touches ACL). */
        void *cb = cannharness_barrier_attach(path);
        if (cb == NULL) {
            printf("child: cannot attach the barrier: %s\n", strerror(errno));
            fflush(stdout);
            _exit(1);
        }
        int child_rc = cross_rounds(cb, shared, 1, start_ns);
        if (child_rc != 0) {
            cannharness_barrier_break(cb, 2); /* the parent wakes (-EPIPE) at once */
            printf("child: rounds failed: %d (%s)\n", child_rc, strerror(-child_rc));
            fflush(stdout);
        }
        _exit(child_rc != 0);
    }
    void *b = cannharness_barrier_attach(path);
    CT_TRUE(b != NULL);
    int rc = cross_rounds(b, shared, 0, start_ns);
    if (rc != 0)
        cannharness_barrier_break(b, 1); /* the child wakes (-EPIPE) and exits at once */
    int status = 0;
    CT_EQ(child, waitpid(child, &status, 0));
    /* Both sides, so that the first failure shows (the other side then sees -EPIPE, a break). */
    if (rc != 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
        CT_FAIL("rounds failed: this process %d (%s), the child's wait status 0x%x (its line above)", rc,
                rc ? strerror(-rc) : "none", (unsigned)status);
    munmap(shared, sizeof *shared);
    cannharness_barrier_detach(b);
}

struct held_party {
    void *b;
    int id;
    int *arrived_round; /* per party: the last round it arrived for */
    int *last_round;    /* set by party 0 while it holds the last round's crossing */
    uint64_t start_ns;
    int failures;
};

/* Each party marks its arrival for round r before the crossing; party 0
 * holds every crossing and checks, while it holds, that every party arrived
 * for r and none went on to r + 1. It lingers now and then, so that a
 * crossing released before its holder ends shows. */
static void *run_held_party(void *arg)
{
    struct held_party *p = arg;
    struct held_party *all = p - p->id;
    for (int r = 1;; r++) {
        __atomic_store_n(&p->arrived_round[p->id], r, __ATOMIC_SEQ_CST);
        if (p->id != 0) {
            if (cannharness_barrier_wait(p->b, 10000) != 0)
                p->failures++;
        } else if (cannharness_barrier_hold(p->b, 10000) != 0) {
            p->failures++;
        } else {
            if (r % 1000 == 0)
                sleep_ms(2);
            for (int i = 0; i < THREADS; i++)
                if (__atomic_load_n(&all[i].arrived_round[i], __ATOMIC_SEQ_CST) != r)
                    p->failures++;
            if (enough_rounds(r, p->start_ns))
                __atomic_store_n(p->last_round, r, __ATOMIC_SEQ_CST);
            cannharness_barrier_release(p->b);
        }
        if (stop_after(p->b, p->failures, p->last_round, r))
            break;
    }
    return NULL;
}

CT_CASE(barrier_held_crossing_keeps_the_others_until_released)
{
    void *b = fresh_barrier("round-barrier", THREADS);
    CT_TRUE(b != NULL);
    int arrived_round[THREADS] = {0};
    int last_round = 0;
    uint64_t start_ns = now_ns();
    struct held_party parties[THREADS];
    pthread_t tids[THREADS];
    for (int i = 0; i < THREADS; i++) {
        parties[i] = (struct held_party){
            .b = b, .id = i, .arrived_round = arrived_round, .last_round = &last_round, .start_ns = start_ns};
        CT_EQ(0, pthread_create(&tids[i], NULL, run_held_party, &parties[i]));
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(tids[i], NULL);
        CT_EQ(0, parties[i].failures);
    }
    ct_note("%d held rounds in %llu ms", last_round, (unsigned long long)((now_ns() - start_ns) / 1000000u));
    CT_TRUE(last_round >= MIN_ROUNDS);
    CT_EQ(0, cannharness_barrier_broken(b));
    cannharness_barrier_detach(b);
}

/* No time limit: only the break's wake-up can end them (a missed wake-up hangs the case). */
static void *hold_once(void *arg)
{
    return (void *)(intptr_t)cannharness_barrier_hold(arg, -1);
}

static void *wait_once(void *arg)
{
    return (void *)(intptr_t)cannharness_barrier_wait(arg, -1);
}

/* A thread asleep in `sleeper` (hold or wait) on a barrier of `parties` is woken by a break from
 * party 2 with -EPIPE, and so is every later call of the same kind. */
static void expect_break_wakes(uint32_t parties, void *(*sleeper)(void *))
{
    void *b = fresh_barrier("round-barrier", parties);
    CT_TRUE(b != NULL);
    pthread_t t;
    CT_EQ(0, pthread_create(&t, NULL, sleeper, b));
    sleep_ms(50); /* let it sleep in the futex: the break must wake it, not a poll */
    cannharness_barrier_break(b, 2);
    void *rc = NULL;
    pthread_join(t, &rc);
    CT_EQ(-EPIPE, (int)(intptr_t)rc);
    CT_EQ(2, cannharness_barrier_broken(b));
    CT_EQ(-EPIPE, (int)(intptr_t)sleeper(b)); /* and every later call */
    cannharness_barrier_detach(b);
}

CT_CASE(barrier_break_wakes_a_holder)
{
    expect_break_wakes(2, hold_once);
}

CT_CASE(barrier_break_wakes_every_waiter_for_good)
{
    expect_break_wakes(3, wait_once);
}

CT_CASE(barrier_alone_times_out)
{
    void *b = fresh_barrier("round-barrier", 2);
    CT_TRUE(b != NULL);
    CT_EQ(-ETIMEDOUT, cannharness_barrier_wait(b, 30));
    cannharness_barrier_detach(b);
    b = fresh_barrier("held-barrier", 2);
    CT_TRUE(b != NULL);
    CT_EQ(-ETIMEDOUT, cannharness_barrier_hold(b, 30));
    cannharness_barrier_detach(b);
}

CT_CASE(barrier_attach_refuses_links_modes_and_headers)
{
    char path[PATH_CAP], link[PATH_CAP], open_mode[PATH_CAP], bad_magic[PATH_CAP];
    path_join(path, case_dir(), "round-barrier");
    path_join(link, case_dir(), "link");
    path_join(open_mode, case_dir(), "group-readable");
    path_join(bad_magic, case_dir(), "bad-magic");
    make_barrier_file(path, 2, 0600, CANNHARNESS_BARRIER_MAGIC);
    make_barrier_file(open_mode, 2, 0640, CANNHARNESS_BARRIER_MAGIC);
    make_barrier_file(bad_magic, 2, 0600, 0x12345678u);
    CT_EQ(0, symlink(path, link));
    errno = 0;
    CT_TRUE(cannharness_barrier_attach(link) == NULL);
    CT_EQ(ELOOP, errno);
    CT_TRUE(cannharness_barrier_attach(open_mode) == NULL);
    CT_EQ(EPERM, errno);
    CT_TRUE(cannharness_barrier_attach(bad_magic) == NULL);
    CT_EQ(EINVAL, errno);
    CT_TRUE(cannharness_barrier_attach(NULL) == NULL);
    CT_EQ(-EINVAL, cannharness_barrier_wait(NULL, 0));
    CT_EQ(-EINVAL, cannharness_barrier_hold(NULL, 0));
}

struct tagged_first {
    void *barrier;
    pid_t tid; /* set before it arrives */
};

/* Party 1 of a tagged crossing (tag 0x3001: round 3, the 1st ctx.barrier()), in a thread. */
static void *wait_tagged_first(void *arg)
{
    struct tagged_first *f = arg;
    __atomic_store_n(&f->tid, gettid(), __ATOMIC_SEQ_CST);
    return (void *)(intptr_t)cannharness_barrier_wait_tagged(f->barrier, 0x3001u, 1, 5000);
}

/* Unequal ctx.barrier() calls (issue 33 item 9): the party bringing another tag than the crossing's
 * first gets -EPROTO at once, the one asleep there -EPIPE, and both read who met what. */
CT_CASE(barrier_tag_mismatch_is_caught_and_named)
{
    unsigned int m[4] = {0};
    void *b = fresh_barrier("round-barrier", 2);
    CT_TRUE(b != NULL);
    CT_EQ(0, cannharness_barrier_mismatch(b, m)); /* none yet */
    pthread_t t;
    struct tagged_first first = {.barrier = b};
    CT_EQ(0, pthread_create(&t, NULL, wait_tagged_first, &first));
    /* It arrives first, so its tag is the crossing's: wait until it sleeps in the crossing (a fixed
     * pause let the main thread arrive first under load). */
    uint64_t deadline = now_ns() + 5000000000ull;
    for (pid_t tid = 0; !(tid = __atomic_load_n(&first.tid, __ATOMIC_SEQ_CST)) || !thread_sleeps_in_futex(tid);) {
        if (now_ns() > deadline)
            CT_FAIL("the first party never slept in the crossing");
        sleep_ms(1);
    }
    CT_EQ(-EPROTO, cannharness_barrier_wait_tagged(b, 0x3fffu, 2, 5000)); /* round 3's end */
    void *rc = NULL;
    pthread_join(t, &rc);
    CT_EQ(-EPIPE, (int)(intptr_t)rc);
    CT_EQ(1, cannharness_barrier_mismatch(b, m));
    CT_EQ(0x3001u, m[0]);
    CT_EQ(1u, m[1]);
    CT_EQ(0x3fffu, m[2]);
    CT_EQ(2u, m[3]);
    CT_EQ(2, cannharness_barrier_broken(b));
    CT_EQ(0, cannharness_barrier_mismatch(NULL, m));
    cannharness_barrier_detach(b);
    /* Equal tags meet as untagged parties do, crossing after crossing (the tag is reset each time). */
    b = fresh_barrier("round-barrier-2", 2);
    CT_TRUE(b != NULL);
    first = (struct tagged_first){.barrier = b};
    for (int k = 0; k < 3; k++) {
        CT_EQ(0, pthread_create(&t, NULL, wait_tagged_first, &first));
        CT_EQ(0, cannharness_barrier_hold_tagged(b, 0x3001u, 2, 5000));
        cannharness_barrier_release(b);
        pthread_join(t, &rc);
        CT_EQ(0, (int)(intptr_t)rc);
    }
    CT_EQ(0, cannharness_barrier_mismatch(b, m));
    cannharness_barrier_detach(b);
}
