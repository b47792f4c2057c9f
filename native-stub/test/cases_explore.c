/*
 * cases_explore.c - the schedule explorer (ACL_STUB_EXPLORE, cannstub/explore.h;
 * docs/dev/schedule-explorer.md): parties of threads and of processes step
 * thousands of points with every grant recorded and no lost wake-up, a party
 * that leaves the points (runs on, blocks outside, dies at a point or holding
 * the file's lock) never hangs the others, a recorded schedule replays to the
 * same decisions, a replay that cannot be followed says where it diverged,
 * PCT's first choice depends on the seed, and bad settings fail aclInit.
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "ACL_STUB_EXPLORE, a stub setting (the schedule explorer)"
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <dlfcn.h>

#include "cannstub/explore.h"
#include "support.h"

#pragma weak cannstub_explore_enabled
#pragma weak cannstub_explore_name_thread
#pragma weak cannstub_explore_point
#pragma weak cannstub_explore_block
#pragma weak cannstub_explore_wake
#pragma weak cannstub_explore_leave
#pragma weak cannstub_explore_round
#pragma weak cannstub_explore_schedule

#define MAX_PARTIES 8
#define SCHEDULE_CAP (1024 * 1024)
#define VALUE_CAP (PATH_CAP * 2 + 64)

/* A zero-filled explore file as the orchestrator makes it (O_EXCL, 0600, exactly the size). */
static void make_explore_file(char path[PATH_CAP], const char *name)
{
    path_join(path, case_dir(), name);
    int fd = open(path, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0 || ftruncate(fd, CANNSTUB_EXPLORE_BYTES) != 0)
        CT_FAIL("create %s: %s", path, strerror(errno));
    close(fd);
}

/* aclInit with ACL_STUB_EXPLORE=value (and the stall rule's milliseconds, 0: unset). */
static void explore_init(const char *value, unsigned stall_ms)
{
    setenv("ACL_STUB_EXPLORE", value, 1);
    char ms[16];
    snprintf(ms, sizeof ms, "%u", stall_ms);
    if (stall_ms)
        setenv("ACL_STUB_EXPLORE_STALL_MS", ms, 1);
    else
        unsetenv("ACL_STUB_EXPLORE_STALL_MS");
    unsetenv("CANN_HARNESS_ROLE");
    unsetenv("ACL_STUB_JITTER");
    acl_init_only();
    CT_EQ(1, cannstub_explore_enabled());
}

/* The current round's schedule text (malloc'ed). */
static char *schedule_text(void)
{
    char *buf = malloc(SCHEDULE_CAP);
    CT_TRUE(buf != NULL);
    long n = cannstub_explore_schedule(buf, SCHEDULE_CAP);
    if (n < 0 || n >= SCHEDULE_CAP)
        CT_FAIL("cannstub_explore_schedule returned %ld", n);
    return buf;
}

/* The text of line `key` ("decisions", "steps" ...) of a schedule, or NULL. */
static const char *line_of(const char *text, const char *key)
{
    size_t k = strlen(key);
    for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
        if (strncmp(l, key, k) == 0 && (l[k] == ' ' || l[k] == '\n'))
            return l;
    return NULL;
}

/* The party index of identity `id` in a schedule, or -1. */
static int party_index(const char *text, const char *id)
{
    char want[128];
    for (int i = 0; i < 256; i++) {
        snprintf(want, sizeof want, "party %d %s\n", i, id);
        if (strstr(text, want))
            return i;
    }
    return -1;
}

/* How many decisions name party index `p`, and all decisions (*total). */
static int decisions_of(const char *text, int p, int *total)
{
    const char *l = line_of(text, "decisions");
    CT_TRUE(l != NULL);
    int count = 0, n = 0;
    for (const char *c = l + 9; *c && *c != '\n';) {
        char *end;
        long v = strtol(c, &end, 10);
        if (end == c)
            break;
        n++;
        count += v == p;
        c = end;
    }
    *total = n;
    return count;
}

static void expect_no_note(const char *text, const char *kind)
{
    const char *l = line_of(text, kind);
    if (l)
        CT_FAIL("unexpected %s note: %.200s", kind, l);
}

/* ---- parties of threads ---- */

struct stepper {
    char name[32];
    int points;
    int failures;
    pthread_barrier_t *start;
};

static void *run_stepper(void *arg)
{
    struct stepper *st = arg;
    if (cannstub_explore_name_thread(st->name) != 0)
        st->failures++;
    pthread_barrier_wait(st->start); /* every party is named (RUNNING) before the first point */
    for (int i = 0; i < st->points; i++) {
        if (cannstub_explore_point("step") != 0)
            st->failures++;
        if (i % 1000 == 0)
            ct_progress();
    }
    cannstub_explore_leave();
    return NULL;
}

static void run_steppers(int parties, int points)
{
    struct stepper st[MAX_PARTIES];
    pthread_t tids[MAX_PARTIES];
    pthread_barrier_t start;
    pthread_barrier_init(&start, NULL, (unsigned)parties);
    for (int i = 0; i < parties; i++) {
        st[i] = (struct stepper){.points = points, .start = &start};
        snprintf(st[i].name, sizeof st[i].name, "thread%d", i);
        CT_EQ(0, pthread_create(&tids[i], NULL, run_stepper, &st[i]));
    }
    for (int i = 0; i < parties; i++) {
        pthread_join(tids[i], NULL);
        CT_EQ(0, st[i].failures);
    }
    pthread_barrier_destroy(&start);
}

/* Every party's points were granted once each, all recorded, nothing degraded. */
static void expect_all_recorded(const char *text, const char *role, int parties, int points)
{
    int total = 0;
    for (int i = 0; i < parties; i++) {
        char id[64];
        snprintf(id, sizeof id, "%s/%s%d", role, strcmp(role, "proc") == 0 ? "thread" : "main", i);
        if (strcmp(role, "proc") != 0)
            snprintf(id, sizeof id, "p%d/main", i);
        int p = party_index(text, id);
        if (p < 0)
            CT_FAIL("no party %s in the schedule:\n%.400s", id, text);
        CT_EQ(points, decisions_of(text, p, &total));
    }
    CT_EQ(parties * points, total);
    expect_no_note(text, "degraded");
    expect_no_note(text, "diverged");
}

/* A schedule that grants parties 0..n-1 in turn, `points` times each (every grant a hand-off). */
static void write_round_robin(const char *path, const char *const *ids, int parties, int points)
{
    FILE *f = fopen(path, "wx");
    if (!f)
        CT_FAIL("create %s: %s", path, strerror(errno));
    fprintf(f, "cann-explore 1\nseed 1 depth 1 round 0 steps %d\n", parties * points);
    for (int i = 0; i < parties; i++)
        fprintf(f, "party %d %s\n", i, ids[i]);
    fprintf(f, "decisions");
    for (int k = 0; k < points; k++)
        for (int i = 0; i < parties; i++)
            fprintf(f, " %d", i);
    fprintf(f, "\n");
    fclose(f);
}

static char *decisions_by_identity(const char *text);

static void threads_step(int parties, int points)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore-pct");
    snprintf(value, sizeof value, "%s:%d:3", file, 7 + parties);
    explore_init(value, 10000);
    run_steppers(parties, points);
    char *text = schedule_text();
    expect_all_recorded(text, "proc", parties, points);
    free(text);
    acl_down();

    /* the same parties replaying a round-robin schedule: every grant wakes another thread */
    char sched[PATH_CAP], ids[MAX_PARTIES][32];
    const char *idp[MAX_PARTIES];
    for (int i = 0; i < parties; i++) {
        snprintf(ids[i], sizeof ids[i], "proc/thread%d", i);
        idp[i] = ids[i];
    }
    path_join(sched, case_dir(), "round-robin");
    write_round_robin(sched, idp, parties, points);
    make_explore_file(file, "explore-rr");
    snprintf(value, sizeof value, "%s:replay:%s", file, sched);
    explore_init(value, 10000);
    run_steppers(parties, points);
    text = schedule_text();
    expect_all_recorded(text, "proc", parties, points);
    char *order = decisions_by_identity(text), want[64 * 16] = "";
    for (int k = 0; k < 64; k++) /* in turn, whatever the table's order */
        snprintf(want + strlen(want), sizeof want - strlen(want), "%s ", idp[k % parties]);
    if (strncmp(order, want, strlen(want)) != 0)
        CT_FAIL("the replay did not grant in turn: %.200s", order);
    free(order);
    free(text);
    acl_down();
}

CT_LONG_CASE(explore_two_threads_step_10000_points_each)
{
    threads_step(2, 10000);
}

CT_LONG_CASE(explore_eight_threads_step_10000_points_each)
{
    threads_step(8, 10000);
}

/* ---- parties of processes ---- */

/* explore_stepper POINTS: aclInit (ACL_STUB_EXPLORE from the case), "<role>/main" steps POINTS points. */
CT_ROLE(explore_stepper)
{
    int points = atoi(argv[0]);
    CT_OK(aclInit(NULL));
    CT_EQ(0, cannstub_explore_name_thread("main"));
    for (int i = 0; i < points; i++)
        CT_EQ(0, cannstub_explore_point("step"));
    CT_EQ(0, cannstub_explore_leave());
    CT_OK(aclFinalize());
    return 0;
}

/* Runs `parties` stepper processes p0..p<n-1> under ACL_STUB_EXPLORE=value and waits for them. */
static void run_process_steppers(const char *value, int parties, int points, unsigned stall_ms)
{
    char env_explore[VALUE_CAP + 32], env_stall[48], env_role[MAX_PARTIES][32], count[16];
    snprintf(env_explore, sizeof env_explore, "ACL_STUB_EXPLORE=%s", value);
    snprintf(env_stall, sizeof env_stall, "ACL_STUB_EXPLORE_STALL_MS=%u", stall_ms);
    snprintf(count, sizeof count, "%d", points);
    pid_t pids[MAX_PARTIES];
    for (int i = 0; i < parties; i++) {
        snprintf(env_role[i], sizeof env_role[i], "CANN_HARNESS_ROLE=p%d", i);
        const char *env[] = {env_explore, env_stall, env_role[i], "ACL_STUB_JITTER", NULL};
        const char *args[] = {count, NULL};
        pids[i] = spawn_role("explore_stepper", args, env);
    }
    for (int i = 0; i < parties; i++)
        expect_exit(pids[i], 0, 120000);
}

static void processes_step(int parties, int points)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore-pct");
    snprintf(value, sizeof value, "%s:%d:2", file, 11 + parties);
    run_process_steppers(value, parties, points, 10000);
    explore_init(value, 10000); /* the case only reads the schedule: it is no party */
    char *pct = schedule_text();
    expect_all_recorded(pct, "p", parties, points);
    acl_down();

    char sched[PATH_CAP], ids[MAX_PARTIES][32];
    const char *idp[MAX_PARTIES];
    for (int i = 0; i < parties; i++) {
        snprintf(ids[i], sizeof ids[i], "p%d/main", i);
        idp[i] = ids[i];
    }
    path_join(sched, case_dir(), "round-robin");
    write_round_robin(sched, idp, parties, points);
    make_explore_file(file, "explore-rr");
    snprintf(value, sizeof value, "%s:replay:%s", file, sched);
    run_process_steppers(value, parties, points, 10000);
    explore_init(value, 10000);
    char *rr = schedule_text();
    expect_all_recorded(rr, "p", parties, points);
    free(rr);
    acl_down();
    free(pct);
}

CT_LONG_CASE(explore_two_processes_step_10000_points_each)
{
    processes_step(2, 10000);
}

CT_LONG_CASE(explore_eight_processes_step_10000_points_each)
{
    processes_step(8, 10000);
}

/* ---- replay ---- */

/* The decisions line of a schedule, with party indices replaced by identities (comparable across
 * tables of different order). */
static char *decisions_by_identity(const char *text)
{
    char ids[256][64];
    int n = 0;
    for (; n < 256; n++) {
        char want[32];
        snprintf(want, sizeof want, "party %d ", n);
        const char *l = strstr(text, want);
        if (!l)
            break;
        sscanf(l + strlen(want), "%63s", ids[n]);
    }
    const char *d = line_of(text, "decisions");
    CT_TRUE(d != NULL);
    char *out = malloc(SCHEDULE_CAP);
    CT_TRUE(out != NULL);
    size_t used = 0;
    out[0] = '\0';
    for (const char *c = d + 9; *c && *c != '\n';) {
        char *end;
        long v = strtol(c, &end, 10);
        if (end == c)
            break;
        CT_TRUE(v >= 0 && v < n);
        used += (size_t)snprintf(out + used, SCHEDULE_CAP - used, "%s ", ids[v]);
        c = end;
    }
    return out;
}

CT_LONG_CASE(explore_replaying_a_recorded_schedule_gives_the_same_decisions)
{
    char file[PATH_CAP], value[VALUE_CAP], sched[PATH_CAP];
    make_explore_file(file, "explore-pct");
    snprintf(value, sizeof value, "%s:99:3", file);
    run_process_steppers(value, 4, 500, 10000);
    explore_init(value, 10000);
    char *recorded = schedule_text();
    acl_down();
    path_join(sched, case_dir(), "schedule");
    publish_bytes(case_dir(), "schedule", recorded, strlen(recorded));

    make_explore_file(file, "explore-replay");
    snprintf(value, sizeof value, "%s:replay:%s", file, sched);
    run_process_steppers(value, 4, 500, 10000);
    explore_init(value, 10000);
    char *replayed = schedule_text();
    acl_down();
    expect_no_note(replayed, "diverged");
    char *a = decisions_by_identity(recorded), *b = decisions_by_identity(replayed);
    if (strcmp(a, b) != 0)
        CT_FAIL("the replay took other decisions:\nrecorded %.300s\nreplayed %.300s", a, b);
    free(a), free(b), free(recorded), free(replayed);
}

CT_CASE(explore_a_diverging_replay_reports_its_step)
{
    char file[PATH_CAP], value[VALUE_CAP], sched[PATH_CAP];
    const char *ids[] = {"proc/a", "proc/ghost"};
    path_join(sched, case_dir(), "schedule");
    FILE *f = fopen(sched, "wx");
    CT_TRUE(f != NULL);
    fprintf(f,
            "cann-explore 1\nseed 5 depth 2 round 3 steps 6\nparty 0 %s\nparty 1 %s\ndecisions 0 0 0 1 0 0\n"
            "degraded recorded notes are not replayed\n",
            ids[0], ids[1]);
    fclose(f);
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:replay:%s", file, sched);
    explore_init(value, 20);
    CT_EQ(0, cannstub_explore_name_thread("a"));
    /* before the recorded round (setup, round 2) nothing is controlled or recorded */
    CT_EQ(0, cannstub_explore_point("setup"));
    CT_EQ(0, cannstub_explore_round(2));
    CT_EQ(0, cannstub_explore_point("round 2"));
    char *text = schedule_text();
    if (!strstr(text, "\nseed 5 depth 2 round 2 steps 0\n") || line_of(text, "diverged"))
        CT_FAIL("round 2 was controlled:\n%s", text);
    free(text);
    CT_EQ(0, cannstub_explore_round(3));
    for (int i = 0; i < 6; i++)
        CT_EQ(0, cannstub_explore_point("step")); /* step 3 waits 10 x 20 ms for the ghost, then goes on */
    text = schedule_text();
    const char *d = line_of(text, "diverged");
    if (!d || strncmp(d, "diverged 3 expected proc/ghost at a point, got proc/a", 53) != 0)
        CT_FAIL("no \"diverged 3 ...\" line:\n%s", text);
    CT_TRUE(strstr(text, "\nseed 5 depth 2 round 3 steps ") != NULL); /* the recorded parameters */
    int total = 0;
    CT_EQ(3, decisions_of(text, party_index(text, "proc/a"), &total)); /* steps 0..2, then unexplored */
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

/* ---- leaving the points never hangs the others ---- */

struct sleeper {
    int woke;
    int granted;
};

static void *run_sleeper(void *arg)
{
    struct sleeper *s = arg;
    if (cannstub_explore_name_thread("b") != 0 || cannstub_explore_point("before the sleep") != 0)
        return NULL;
    __atomic_store_n(&s->granted, 1, __ATOMIC_SEQ_CST);
    sleep_ms(2000); /* RUNNING outside the points */
    __atomic_store_n(&s->woke, 1, __ATOMIC_SEQ_CST);
    cannstub_explore_point("after the sleep"); /* GONE for the round: not waited for */
    cannstub_explore_leave();
    return NULL;
}

CT_CASE(explore_a_party_running_past_stall_ms_is_marked_gone)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:3:2", file);
    explore_init(value, 100);
    struct sleeper s = {0};
    pthread_t tid;
    CT_EQ(0, pthread_create(&tid, NULL, run_sleeper, &s));
    while (!__atomic_load_n(&s.granted, __ATOMIC_SEQ_CST))
        sleep_ms(1);
    CT_EQ(0, cannstub_explore_name_thread("a"));
    for (int i = 0; i < 50; i++)
        CT_EQ(0, cannstub_explore_point("step")); /* b is RUNNING: marked GONE after 100 ms */
    CT_EQ(0, __atomic_load_n(&s.woke, __ATOMIC_SEQ_CST)); /* a did not wait for b's sleep */
    char *text = schedule_text();
    const char *d = line_of(text, "degraded");
    if (!d || !strstr(d, "proc/b left the explored points after step 1 (running"))
        CT_FAIL("no degraded note for proc/b:\n%s", text);
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    pthread_join(tid, NULL);
    acl_down();
}

/* A passing run says how many rounds were not fully ordered (cannstub_explore_degraded): the
 * rounds with a "degraded" note, counted when the next starts, the current one included. */
CT_CASE(explore_degraded_rounds_are_counted_over_the_run)
{
    char file[PATH_CAP], value[VALUE_CAP], note[256];
    unsigned long long first = 99;
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:3:2", file);
    explore_init(value, 100);
    CT_EQ(0, cannstub_explore_round(1));
    CT_EQ(0, cannstub_explore_degraded(&first, note, sizeof note));
    CT_EQ(0, (long)first);
    CT_EQ(0, (long)strlen(note));
    CT_EQ(0, cannstub_explore_round(2)); /* round 1 ended with nothing to say */
    struct sleeper s = {0};
    pthread_t tid;
    CT_EQ(0, pthread_create(&tid, NULL, run_sleeper, &s));
    while (!__atomic_load_n(&s.granted, __ATOMIC_SEQ_CST))
        sleep_ms(1);
    CT_EQ(0, cannstub_explore_name_thread("a"));
    for (int i = 0; i < 50; i++)
        CT_EQ(0, cannstub_explore_point("step")); /* b is RUNNING: GONE for round 2 after 100 ms */
    CT_EQ(1, cannstub_explore_degraded(&first, note, sizeof note)); /* the current round counts */
    CT_EQ(2, (long)first);
    if (!strstr(note, "proc/b left the explored points after step 1 (running") || strncmp(note, "degraded", 8) == 0)
        CT_FAIL("first note: \"%s\"", note);
    CT_EQ(0, cannstub_explore_round(3)); /* counts round 2 */
    CT_EQ(0, cannstub_explore_point("round 3"));
    CT_EQ(1, cannstub_explore_degraded(&first, NULL, 0));
    CT_EQ(2, (long)first);
    char tiny[8];
    CT_EQ(1, cannstub_explore_degraded(NULL, tiny, sizeof tiny)); /* cut to the buffer, NUL-terminated */
    CT_EQ(7, (long)strlen(tiny));
    CT_EQ(0, cannstub_explore_leave());
    pthread_join(tid, NULL);
    acl_down();
}

struct outside {
    char name[24];
    pthread_mutex_t *m;
    pthread_cond_t *cv;
    int *open;
    int *blocked;
};

static void *run_outside(void *arg)
{
    struct outside *o = arg;
    cannstub_explore_name_thread(o->name);
    cannstub_explore_block("waits outside");
    pthread_mutex_lock(o->m);
    ++*o->blocked;
    pthread_cond_broadcast(o->cv);
    while (!*o->open)
        pthread_cond_wait(o->cv, o->m);
    pthread_mutex_unlock(o->m);
    for (int i = 0; i < 100; i++)
        cannstub_explore_point("woke"); /* the wake-up is a point */
    cannstub_explore_leave();
    return NULL;
}

CT_CASE(explore_parties_blocked_outside_never_hang_the_others)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:4:2", file);
    explore_init(value, 10000); /* a BLOCKED party counted as RUNNING would stall c for 10 s */
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t cv = PTHREAD_COND_INITIALIZER;
    int open = 0, blocked = 0;
    struct outside o[2];
    pthread_t tids[2];
    for (int i = 0; i < 2; i++) {
        o[i] = (struct outside){.m = &m, .cv = &cv, .open = &open, .blocked = &blocked};
        snprintf(o[i].name, sizeof o[i].name, "blocked%u", (unsigned)i & 1u);
        CT_EQ(0, pthread_create(&tids[i], NULL, run_outside, &o[i]));
    }
    pthread_mutex_lock(&m);
    while (blocked < 2)
        pthread_cond_wait(&cv, &m);
    pthread_mutex_unlock(&m);
    /* every party but this one is BLOCKED: its points go on at once */
    CT_EQ(0, cannstub_explore_name_thread("c"));
    uint64_t t0 = now_ns();
    for (int i = 0; i < 100; i++)
        CT_EQ(0, cannstub_explore_point("alone"));
    CT_EQ(0, cannstub_explore_block("opens the gate"));
    pthread_mutex_lock(&m);
    open = 1;
    pthread_cond_broadcast(&cv);
    pthread_mutex_unlock(&m);
    for (int i = 0; i < 2; i++)
        pthread_join(tids[i], NULL);
    ct_note("c's 100 points took %llu ms", (unsigned long long)((now_ns() - t0) / 1000000));
    char *text = schedule_text();
    expect_no_note(text, "degraded");
    int total = 0;
    CT_EQ(100, decisions_of(text, party_index(text, "proc/blocked0"), &total));
    CT_EQ(300, total);
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

/* explore_dier: names "<role>/main" and reaches a point: killed there by the case, or (with
 * ACL_STUB_TEST_DIE_IN_LOCK=explore) by the stub while it holds the explore file's lock. */
CT_ROLE(explore_dier)
{
    (void)argv;
    CT_OK(aclInit(NULL));
    CT_EQ(0, cannstub_explore_name_thread("main"));
    for (;;)
        cannstub_explore_point("forever");
    return 0;
}

/* in_lock: 1 dies holding the lock, 0 dies at its point (waiting for its grant). */
/* in_lock: 1 dies holding the lock, 0 dies at its point (waiting for its grant). */
static pid_t spawn_dier(const char *value, int in_lock)
{
    char env_explore[VALUE_CAP + 32];
    snprintf(env_explore, sizeof env_explore, "ACL_STUB_EXPLORE=%s", value);
    const char *env[] = {env_explore,
                         "ACL_STUB_EXPLORE_STALL_MS=30000",
                         "CANN_HARNESS_ROLE=dier",
                         in_lock ? "ACL_STUB_TEST_DIE_IN_LOCK=explore" : "ACL_STUB_TEST_DIE_IN_LOCK=explore-point",
                         "ACL_STUB_JITTER",
                         NULL};
    const char *args[] = {NULL};
    return spawn_role("explore_dier", args, env);
}

CT_CASE(explore_a_party_killed_holding_the_lock_is_repaired)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:6:2", file);
    expect_exit(spawn_dier(value, 1), 128 + SIGKILL, PEER_TIMEOUT_MS);
    explore_init(value, 30000); /* a dead RUNNING party would hold the case for 30 s */
    CT_EQ(0, cannstub_explore_name_thread("main"));
    for (int i = 0; i < 20; i++)
        CT_EQ(0, cannstub_explore_point("after the death"));
    char *text = schedule_text();
    if (!strstr(text, "degraded the explore lock was repaired") || !strstr(text, "degraded dier/main died"))
        CT_FAIL("no repair noted:\n%s", text);
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

CT_CASE(explore_a_party_killed_at_a_point_never_hangs_the_others)
{
    /* the schedule grants the dead party first: only the death check (not the 30 s stall rule) frees the case */
    char file[PATH_CAP], value[VALUE_CAP], sched[PATH_CAP];
    path_join(sched, case_dir(), "schedule");
    FILE *f = fopen(sched, "wx");
    CT_TRUE(f != NULL);
    fprintf(f, "cann-explore 1\nseed 8 depth 2 round 0 steps 21\nparty 0 dier/main\nparty 1 proc/main\ndecisions 0");
    for (int i = 0; i < 20; i++)
        fprintf(f, " 1");
    fprintf(f, "\n");
    fclose(f);
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:replay:%s", file, sched);
    explore_init(value, 30000);
    CT_EQ(0, cannstub_explore_name_thread("main")); /* RUNNING: the dier's first point waits */
    expect_exit(spawn_dier(value, 0), 128 + SIGKILL, PEER_TIMEOUT_MS); /* killed AT_POINT (test hook) */
    for (int i = 0; i < 20; i++)
        CT_EQ(0, cannstub_explore_point("after the kill"));
    char *text = schedule_text();
    if (!strstr(text, "degraded dier/main left the explored points after step 1 (its process died)"))
        CT_FAIL("the dead party was not granted first and found dead:\n%s", text);
    expect_no_note(text, "diverged");
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

/* ---- PCT ---- */

struct first {
    char name[8];
    pthread_barrier_t *named;
};

static void *run_first(void *arg)
{
    struct first *f = arg;
    cannstub_explore_name_thread(f->name);
    pthread_barrier_wait(f->named);
    cannstub_explore_point("first");
    cannstub_explore_leave();
    return NULL;
}

CT_CASE(explore_pct_priorities_depend_on_the_seed)
{
    int wins[2] = {0, 0};
    for (int seed = 1; seed <= 24; seed++) {
        char file[PATH_CAP], name[32], value[VALUE_CAP];
        snprintf(name, sizeof name, "explore-%d", seed);
        make_explore_file(file, name);
        snprintf(value, sizeof value, "%s:%d:1", file, seed);
        explore_init(value, 10000);
        pthread_barrier_t named;
        pthread_barrier_init(&named, NULL, 2);
        struct first f[2] = {{"x", &named}, {"y", &named}};
        pthread_t tids[2];
        for (int i = 0; i < 2; i++)
            CT_EQ(0, pthread_create(&tids[i], NULL, run_first, &f[i]));
        for (int i = 0; i < 2; i++)
            pthread_join(tids[i], NULL);
        pthread_barrier_destroy(&named);
        char *text = schedule_text();
        int total = 0, x = party_index(text, "proc/x");
        CT_EQ(1, decisions_of(text, x, &total));
        CT_EQ(2, total);
        const char *d = line_of(text, "decisions");
        wins[strtol(d + 9, NULL, 10) == x ? 0 : 1]++;
        free(text);
        acl_down();
    }
    ct_note("x first %d times, y first %d times", wins[0], wins[1]);
    CT_TRUE(wins[0] > 0 && wins[1] > 0);
}

/* ---- settings ---- */

static void expect_init_fails(const char *explore, const char *stall, const char *jitter, const char *hint)
{
    setenv("ACL_STUB_EXPLORE", explore, 1);
    if (stall)
        setenv("ACL_STUB_EXPLORE_STALL_MS", stall, 1);
    else
        unsetenv("ACL_STUB_EXPLORE_STALL_MS");
    if (jitter)
        setenv("ACL_STUB_JITTER", jitter, 1);
    else
        unsetenv("ACL_STUB_JITTER");
    CT_CODE(ACL_ERROR_INVALID_PARAM, aclInit(NULL));
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, hint))
        CT_FAIL("ACL_STUB_EXPLORE=%s STALL_MS=%s JITTER=%s: the message does not say '%s': %s", explore,
                stall ? stall : "-", jitter ? jitter : "-", hint, msg ? msg : "(null)");
}

CT_CASE(explore_env_is_checked_at_aclInit)
{
    char file[PATH_CAP], v[VALUE_CAP], sched[PATH_CAP];
    make_explore_file(file, "explore");
    const char *usage = "use <file>:<seed>:<depth>";
    const char *bad[] = {"", ":1:1", ":0", ":1:0", ":1:9", ":x:1", ":1:", ":-1:2", ":99999999999999999999:2"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        snprintf(v, sizeof v, "%s%s", i == 1 ? "" : file, bad[i]);
        expect_init_fails(v, NULL, NULL, usage);
    }
    snprintf(v, sizeof v, "%s:1:2", file);
    expect_init_fails(v, "0", NULL, "ACL_STUB_EXPLORE_STALL_MS=0 is invalid: use a whole number of milliseconds");
    expect_init_fails(v, "5ms", NULL, "ACL_STUB_EXPLORE_STALL_MS=5ms is invalid");
    expect_init_fails(v, NULL, "1:10", "ACL_STUB_EXPLORE and ACL_STUB_JITTER exclude each other");
    char missing[PATH_CAP];
    path_join(missing, case_dir(), "no-such-file");
    snprintf(v, sizeof v, "%s:1:2", missing);
    expect_init_fails(v, NULL, NULL, "cannot be used: cannot open");
    char loose[PATH_CAP];
    make_explore_file(loose, "loose");
    chmod(loose, 0644);
    snprintf(v, sizeof v, "%s:1:2", loose);
    expect_init_fails(v, NULL, NULL, "mode 0600");
    path_join(sched, case_dir(), "bad-schedule");
    publish_bytes(case_dir(), "bad-schedule", "cann-explore 1\nseed 1 depth 1 round 0 steps 1\ndecisions 3\n",
                  strlen("cann-explore 1\nseed 1 depth 1 round 0 steps 1\ndecisions 3\n"));
    snprintf(v, sizeof v, "%s:replay:%s", file, sched);
    expect_init_fails(v, NULL, NULL, "line 3: decision 0 is not a party index below 0");
    snprintf(v, sizeof v, "%s:replay:%s", file, missing);
    expect_init_fails(v, NULL, NULL, "the schedule to replay is malformed: cannot read");
    /* good: the file laid out by one setting refuses another */
    snprintf(v, sizeof v, "%s:1:2", file);
    explore_init(v, 0);
    acl_down();
    snprintf(v, sizeof v, "%s:2:2", file);
    expect_init_fails(v, NULL, NULL, "every process of a run must have the same ACL_STUB_EXPLORE");
    unsetenv("ACL_STUB_EXPLORE");
    acl_init_only();
    CT_EQ(0, cannstub_explore_enabled());
    CT_EQ(-1, cannstub_explore_point("off"));
    CT_EQ(-1, cannstub_explore_wake("off"));
    CT_EQ(-1, (int)cannstub_explore_schedule(NULL, 0));
    acl_down();
}

/* ---- the stub's own points ---- */

struct chain {
    int first, second, out_of_order;
};

static void bump_first(void *arg)
{
    struct chain *c = arg;
    __atomic_add_fetch(&c->first, 1, __ATOMIC_SEQ_CST);
}

static void bump_second(void *arg)
{
    struct chain *c = arg;
    int n = __atomic_add_fetch(&c->second, 1, __ATOMIC_SEQ_CST);
    if (__atomic_load_n(&c->first, __ATOMIC_SEQ_CST) < n)
        __atomic_add_fetch(&c->out_of_order, 1, __ATOMIC_SEQ_CST);
}

/* Two streams chained by an event, under the explorer: returns the schedule text. */
static char *run_chain(const char *value)
{
    explore_init(value, 5000);
    CT_OK(aclrtSetDevice(0));
    CT_EQ(0, cannstub_explore_name_thread("main"));
    aclrtStream s1 = stream_new(), s2 = stream_new();
    aclrtEvent e = local_event_new();
    struct chain c = {0};
    for (int i = 0; i < 50; i++) {
        CT_OK(aclrtLaunchHostFunc(s1, bump_first, &c));
        CT_OK(aclrtRecordEvent(e, s1));
        CT_OK(aclrtStreamWaitEvent(s2, e));
        CT_OK(aclrtLaunchHostFunc(s2, bump_second, &c));
    }
    CT_OK(aclrtSynchronizeStream(s2));
    CT_OK(aclrtSynchronizeStream(s1));
    CT_EQ(50, c.first);
    CT_EQ(50, c.second);
    CT_EQ(0, c.out_of_order);
    char *text = schedule_text();
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s1));
    CT_OK(aclrtDestroyStream(s2));
    acl_down();
    return text;
}

CT_CASE(explore_streams_and_synchronize_are_explored_and_replayed)
{
    char file[PATH_CAP], value[VALUE_CAP], sched[PATH_CAP];
    make_explore_file(file, "explore-pct");
    snprintf(value, sizeof value, "%s:21:3", file);
    char *recorded = run_chain(value);
    ct_note("recorded: %.700s", recorded);
    expect_no_note(recorded, "degraded");
    int total = 0;
    const char *ids[] = {"proc/main", "proc/stream1", "proc/stream2"};
    for (int i = 0; i < 3; i++) {
        int p = party_index(recorded, ids[i]);
        if (p < 0 || decisions_of(recorded, p, &total) < 50)
            CT_FAIL("%s was granted fewer than 50 times:\n%.600s", ids[i], recorded);
    }
    publish_bytes(case_dir(), "schedule", recorded, strlen(recorded));
    path_join(sched, case_dir(), "schedule");
    make_explore_file(file, "explore-replay");
    snprintf(value, sizeof value, "%s:replay:%s", file, sched);
    char *replayed = run_chain(value);
    expect_no_note(replayed, "diverged");
    char *a = decisions_by_identity(recorded), *b = decisions_by_identity(replayed);
    if (strcmp(a, b) != 0)
        CT_FAIL("the replay took other decisions:\nrecorded %.300s\nreplayed %.300s", a, b);
    free(a), free(b), free(recorded), free(replayed);
}

static void *points_for_a_while(void *arg)
{
    (void)arg;
    if (cannstub_explore_name_thread("b") == 0) {
        for (int i = 0; i < 20; i++) {
            cannstub_explore_point("b");
            sleep_ms(10);
        }
    }
    cannstub_explore_leave();
    return NULL;
}

/* A thread that left makes ACL calls after (a worker thread's clean-up, then idle in its pool): its
 * points are not explored, and it is not registered again as a party that runs (and stalls) forever. */
CT_CASE(explore_a_thread_that_left_is_not_explored_again)
{
    char file[PATH_CAP], value[VALUE_CAP], note[256] = "";
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:4:2", file);
    explore_init(value, 50);
    CT_EQ(0, cannstub_explore_name_thread("a"));
    CT_EQ(0, cannstub_explore_point("before leaving"));
    CT_EQ(0, cannstub_explore_leave());
    CT_EQ(0, cannstub_explore_point("after leaving")); /* at once: not a party any more */
    pthread_t tid;
    CT_EQ(0, pthread_create(&tid, NULL, points_for_a_while, NULL));
    pthread_join(tid, NULL); /* a re-registered RUNNING "a" would have stalled b's decisions */
    if (cannstub_explore_degraded(NULL, note, sizeof note) != 0)
        CT_FAIL("a left, yet was waited for: %s", note);
    char *text = schedule_text();
    if (strstr(text, "proc/t0") || !strstr(text, "proc/a\n"))
        CT_FAIL("parties after a left and pointed again:\n%s", text);
    free(text);
    CT_EQ(0, cannstub_explore_name_thread("a2")); /* named again: explored again */
    CT_EQ(0, cannstub_explore_point("named again"));
    text = schedule_text();
    if (!strstr(text, "proc/a2\n"))
        CT_FAIL("a2 is not a party:\n%s", text);
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

/* libcannharness_hold.so's latch (native-stub/harness/hold/hold.c; the binding's ctx.latch()). */
void *cannharness_latch_create(void);
void cannharness_latch_wait(void *latch);
void cannharness_latch_release(void *latch);
void cannharness_latch_destroy(void *latch);
int cannharness_explore_attach(const char *library);

/* A stream held by a latch waits, it does not run: its executor is BLOCKED until the release wakes
 * it, so the others go on without waiting out the stall bound for it (as the harness's ctx.latch()
 * holds a stream for a whole round: it marked the round degraded before). */
CT_CASE(explore_a_stream_held_by_a_latch_is_blocked_not_running)
{
    char file[PATH_CAP], value[VALUE_CAP], note[256] = "";
    Dl_info info;
    CT_TRUE(dladdr((void *)aclInit, &info) != 0 && info.dli_fname != NULL);
    CT_EQ(0, cannharness_explore_attach(info.dli_fname)); /* not exploring (no aclInit yet): latches as before */
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:8:2", file);
    explore_init(value, 50);
    CT_EQ(0, cannharness_explore_attach(NULL));
    CT_EQ(0, cannharness_explore_attach("/nonexistent/libascendcl.so")); /* not loaded: never loaded by attach */
    CT_EQ(1, cannharness_explore_attach(info.dli_fname));
    CT_OK(aclrtSetDevice(0));
    CT_EQ(0, cannstub_explore_name_thread("main"));
    aclrtStream st = stream_new();
    void *latch = cannharness_latch_create();
    CT_TRUE(latch != NULL);
    CT_OK(aclrtLaunchHostFunc(st, cannharness_latch_wait, latch));
    for (int i = 0; i < 30; i++) { /* 300 ms of decisions while the latch holds the stream */
        CT_EQ(0, cannstub_explore_point("step"));
        sleep_ms(10);
    }
    if (cannstub_explore_degraded(NULL, note, sizeof note) != 0)
        CT_FAIL("the held stream was taken for running: %s", note);
    cannharness_latch_release(latch);
    CT_OK(aclrtSynchronizeStream(st)); /* the release woke it: it runs on */
    cannharness_latch_destroy(latch);
    CT_OK(aclrtDestroyStream(st));
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

static void *name_dup_and_point(void *arg)
{
    int *rc = arg;
    *rc = cannstub_explore_name_thread("dup");
    if (*rc == 0)
        *rc = cannstub_explore_point("second");
    cannstub_explore_leave();
    return NULL;
}

CT_CASE(explore_identities_survive_aclFinalize_and_stay_unique)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:9:2", file);
    explore_init(value, 10000);
    CT_EQ(-1, cannstub_explore_name_thread("bad/name"));
    CT_EQ(-1, cannstub_explore_name_thread(""));
    CT_EQ(0, cannstub_explore_name_thread("dup"));
    CT_EQ(0, cannstub_explore_block("joins a thread")); /* not RUNNING: the thread's point is not held */
    pthread_t tid;
    int rc = -2;
    CT_EQ(0, pthread_create(&tid, NULL, name_dup_and_point, &rc)); /* a live party has "dup": "dup~2" */
    pthread_join(tid, NULL);
    CT_EQ(0, rc);
    CT_EQ(0, cannstub_explore_name_thread("main")); /* a rename */
    acl_down(); /* every party of the process leaves */
    explore_init(value, 10000);
    CT_EQ(0, cannstub_explore_point("after aclInit again")); /* still proc/main, not t0 */
    char *text = schedule_text();
    expect_no_note(text, "degraded");
    if (party_index(text, "proc/dup~2") < 0 || party_index(text, "proc/t0") >= 0)
        CT_FAIL("identities are not as expected:\n%s", text);
    int total = 0;
    CT_EQ(1, decisions_of(text, party_index(text, "proc/main"), &total));
    free(text);
    CT_EQ(0, cannstub_explore_leave());
    acl_down();
}

static void set_flag(void *arg)
{
    __atomic_store_n((int *)arg, 1, __ATOMIC_SEQ_CST);
}

/* The order PCT gives parties proc/<names[i]> under `seed` at step 0 of round 0 (depth 1: no change
 * points), seen by letting threads of those names meet at one point each: order[k] = index of the
 * k-th granted. */
static void pct_order(int seed, const char *const *names, int n, int *order)
{
    char file[PATH_CAP], fname[32], value[VALUE_CAP];
    snprintf(fname, sizeof fname, "order-%d", seed);
    make_explore_file(file, fname);
    snprintf(value, sizeof value, "%s:%d:1", file, seed);
    explore_init(value, 5000);
    pthread_barrier_t named;
    pthread_barrier_init(&named, NULL, (unsigned)n);
    struct first f[3];
    pthread_t tids[3];
    for (int i = 0; i < n; i++) {
        f[i].named = &named;
        snprintf(f[i].name, sizeof f[i].name, "%s", names[i]);
        CT_EQ(0, pthread_create(&tids[i], NULL, run_first, &f[i]));
    }
    for (int i = 0; i < n; i++)
        pthread_join(tids[i], NULL);
    pthread_barrier_destroy(&named);
    char *text = schedule_text();
    const char *d = line_of(text, "decisions") + 9;
    for (int k = 0; k < n; k++) {
        char *end;
        long idx = strtol(d, &end, 10);
        d = end;
        order[k] = -1;
        for (int i = 0; i < n; i++) {
            char id[32];
            snprintf(id, sizeof id, "proc/%s", names[i]);
            if (party_index(text, id) == idx)
                order[k] = i;
        }
    }
    free(text);
    acl_down();
}

/* Main queues stream1's task, then a task (ipc: an IPC event record) on stream2, and synchronizes
 * stream2 (ipc: the event): whether stream1's task ran before the synchronize returned. */
static int fill_before_return(const char *value, int ipc)
{
    explore_init(value, 5000);
    CT_OK(aclrtSetDevice(0));
    CT_EQ(0, cannstub_explore_name_thread("main"));
    aclrtStream s1 = stream_new(), s2 = stream_new();
    aclrtEvent ev = ipc ? ipc_event_new() : NULL;
    int fill_ran = 0;
    CT_OK(aclrtLaunchHostFunc(s1, set_flag, &fill_ran));
    if (ipc) {
        CT_OK(aclrtRecordEvent(ev, s2));
        CT_OK(aclrtSynchronizeEvent(ev));
    } else {
        CT_OK(aclrtLaunchHostFunc(s2, noop_host_fn, NULL));
        CT_OK(aclrtSynchronizeStream(s2));
    }
    int seen = __atomic_load_n(&fill_ran, __ATOMIC_SEQ_CST);
    CT_OK(aclrtSynchronizeStream(s1));
    char *text = schedule_text();
    ct_note("%s: stream1's task ran before the synchronize returned: %d; %s", ipc ? "IPC event" : "stream", seen,
            strstr(text, "decisions"));
    expect_no_note(text, "degraded");
    free(text);
    if (ev)
        CT_OK(aclrtDestroyEvent(ev));
    CT_OK(aclrtDestroyStream(s1));
    CT_OK(aclrtDestroyStream(s2));
    acl_down();
    return seen;
}

/* A synchronize that the stub wakes is RUNNING from its wake-up on (a stream's task completing:
 * rt.progress; an IPC record: its slot's key, in any process): the decision after stream2's task
 * waits for main's return point. With priorities main > stream2 > stream1, main blocks in the
 * synchronize, stream2 runs its task and wakes it, and main is granted next, not stream1's queued
 * task (the only party at a point while main was still BLOCKED). */
CT_CASE(explore_a_woken_synchronize_takes_part_in_the_next_decision)
{
    const char *names[] = {"main", "stream1", "stream2"};
    int checked = 0;
    for (int seed = 1; seed <= 60 && checked < 2; seed++) {
        int order[3];
        pct_order(seed, names, 3, order);
        if (!(order[0] == 0 && order[1] == 2 && order[2] == 1))
            continue;
        for (int ipc = 0; ipc < 2; ipc++) {
            char file[PATH_CAP], name[32], value[VALUE_CAP];
            snprintf(name, sizeof name, "explore-%d-%d", seed, ipc);
            make_explore_file(file, name);
            snprintf(value, sizeof value, "%s:%d:1", file, seed);
            ct_note("seed %d: main > stream2 > stream1", seed);
            CT_EQ(0, fill_before_return(value, ipc));
        }
        checked++;
    }
    CT_EQ(2, checked);
}

struct awaiter {
    pthread_mutex_t m;
    pthread_cond_t cv;
    int blocked, signalled, at_point;
};

static void *run_awaiter(void *arg)
{
    struct awaiter *a = arg;
    cannstub_explore_name_thread("awaiter");
    cannstub_explore_block("await signal ready");
    pthread_mutex_lock(&a->m);
    a->blocked = 1;
    pthread_cond_broadcast(&a->cv);
    while (!a->signalled)
        pthread_cond_wait(&a->cv, &a->m);
    pthread_mutex_unlock(&a->m);
    sleep_ms(50); /* woken, not yet at its point: RUNNING (cannstub_explore_wake), so nothing is decided */
    __atomic_store_n(&a->at_point, 1, __ATOMIC_SEQ_CST);
    cannstub_explore_point("signal ready seen");
    cannstub_explore_leave();
    return NULL;
}

CT_CASE(explore_wake_makes_a_blocked_party_take_part_in_the_next_decision)
{
    char file[PATH_CAP], value[VALUE_CAP];
    make_explore_file(file, "explore");
    snprintf(value, sizeof value, "%s:12:1", file);
    explore_init(value, 5000);
    struct awaiter a = {.m = PTHREAD_MUTEX_INITIALIZER, .cv = PTHREAD_COND_INITIALIZER};
    pthread_t tid;
    CT_EQ(0, pthread_create(&tid, NULL, run_awaiter, &a));
    pthread_mutex_lock(&a.m);
    while (!a.blocked)
        pthread_cond_wait(&a.cv, &a.m);
    pthread_mutex_unlock(&a.m);
    CT_EQ(0, cannstub_explore_name_thread("signaller"));
    CT_EQ(0, cannstub_explore_wake("await signal other"));
    pthread_mutex_lock(&a.m);
    a.signalled = 1;
    pthread_cond_broadcast(&a.cv);
    pthread_mutex_unlock(&a.m);
    CT_EQ(1, cannstub_explore_wake("await signal ready"));
    CT_EQ(0, cannstub_explore_point("after the signal")); /* waits for the awaiter's point */
    CT_EQ(1, __atomic_load_n(&a.at_point, __ATOMIC_SEQ_CST));
    CT_EQ(0, cannstub_explore_leave());
    pthread_join(tid, NULL);
    char *text = schedule_text();
    expect_no_note(text, "degraded");
    free(text);
    acl_down();
}

struct poll_pair {
    pthread_barrier_t *named;
    int *flag;
    int polls;
};

static void *run_poller(void *arg)
{
    struct poll_pair *p = arg;
    cannstub_explore_name_thread("poller");
    pthread_barrier_wait(p->named);
    do { /* a query in a loop until the other party's effect shows */
        cannstub_explore_point("query");
        p->polls++;
    } while (!__atomic_load_n(p->flag, __ATOMIC_SEQ_CST));
    cannstub_explore_leave();
    return NULL;
}

static void *run_setter(void *arg)
{
    struct poll_pair *p = arg;
    cannstub_explore_name_thread("setter");
    pthread_barrier_wait(p->named);
    cannstub_explore_point("record");
    __atomic_store_n(p->flag, 1, __ATOMIC_SEQ_CST);
    cannstub_explore_leave();
    return NULL;
}

/* A party that polls at points with the highest priority would starve the party it waits for:
 * after a run of grants it lets the best other party go once. */
CT_CASE(explore_a_polling_party_never_starves_the_others)
{
    int starved = 0;
    for (int seed = 1; seed <= 8; seed++) {
        char file[PATH_CAP], name[32], value[VALUE_CAP];
        snprintf(name, sizeof name, "explore-%d", seed);
        make_explore_file(file, name);
        snprintf(value, sizeof value, "%s:%d:1", file, seed);
        explore_init(value, 5000);
        pthread_barrier_t named;
        pthread_barrier_init(&named, NULL, 2);
        int flag = 0;
        struct poll_pair pp = {.named = &named, .flag = &flag};
        pthread_t tids[2];
        CT_EQ(0, pthread_create(&tids[0], NULL, run_poller, &pp));
        CT_EQ(0, pthread_create(&tids[1], NULL, run_setter, &pp));
        for (int i = 0; i < 2; i++)
            pthread_join(tids[i], NULL);
        pthread_barrier_destroy(&named);
        starved += pp.polls > 1;
        char *text = schedule_text();
        expect_no_note(text, "degraded"); /* no stall rule needed: grants flowed */
        free(text);
        acl_down();
    }
    ct_note("the poller went first in %d of 8 seeds", starved);
    CT_TRUE(starved > 0); /* the rule was needed at least once */
}
