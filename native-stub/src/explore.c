/*
 * explore.c - the schedule explorer (explore.h, cannstub/explore.h).
 *
 * One file per scenario run, mapped MAP_SHARED by every process: a header,
 * a robust process-shared lock, the party table (a futex word each) and
 * the current round's decision list and notes. A decision is taken by
 * whichever party finds, under the lock, that no party is RUNNING and one
 * is AT_POINT: the highest PCT priority (or the recorded party in replay)
 * is granted. A waiter at a point wakes every tick to apply the stall rule,
 * so that no wait outlives a party that left the explored points.
 */
#include "explore.h"

#include "cannstub/explore.h"
#include "errors.h"
#include "jitter.h"
#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define XP_MAGIC 0x31505843u /* "CXP1" */
#define XP_BUSY 0x59535542u  /* "BUSY": the first process is laying the file out */
#define XP_VERSION 1u
#define XP_MAX_PARTIES 128
#define XP_ID_BYTES 64
#define XP_WHAT_BYTES 48
#define XP_MAX_DEPTH 8
#define XP_MAX_DECISIONS (256u * 1024u)
#define XP_NOTES_BYTES (16u * 1024u)
#define XP_DEGRADED_BYTES 256u
#define XP_FIRST_K 64u                     /* change points of the first round fall in 1..64 */
#define XP_DEFAULT_STALL_MS 50u
#define XP_MAX_STALL_MS 600000u
#define XP_REPLAY_PATIENCE 10u             /* a recorded party gets 10 x stall_ms to reach its point */
#define XP_SCHEDULE_MAX (8u * 1024u * 1024u) /* a replayed schedule file */
/* A party granted this many times in a row while another waits at a point (a polling loop: a query
 * until COMPLETE) lets the best other party go once: PCT alone would starve the party it waits for. */
#define XP_STARVE_STEPS 256u

enum xp_state { XP_UNUSED, XP_RUNNING, XP_AT_POINT, XP_BLOCKED, XP_GONE };
enum xp_mode { XP_MODE_PCT = 1, XP_MODE_REPLAY = 2 };
/* What a BLOCKED party sleeps on: what wakes it (makes it RUNNING again). */
enum xp_wait {
    XP_WAIT_TEXT, /* cannstub_explore_wake with its `what` */
    XP_WAIT_PROGRESS /* a broadcast of its process's rt.progress (or its `what`) */
};

struct xp_party {
    char id[XP_ID_BYTES];
    char what[XP_WHAT_BYTES]; /* the last point or wait */
    uint64_t priority;
    uint64_t since_ns; /* when it entered its state */
    uint64_t pid_start; /* with pid: tells a reused pid apart */
    int32_t pid;
    uint32_t state;
    uint32_t grant; /* futex word: bumped by every grant */
    uint32_t left;  /* GONE for good (left, or its process died), not just for the round */
    uint32_t wait;  /* enum xp_wait, while BLOCKED */
    uint32_t reserved;
};

struct xp_shared {
    uint32_t magic, version;
    uint32_t mode, depth;
    uint64_t seed, round, step, k;
    uint32_t stall_ms, nparties;
    uint64_t change[XP_MAX_DEPTH];
    uint32_t ndecisions, free_running; /* free_running: no control this round (a replay diverged, or a
                                          replay's round other than the recorded one) */
    uint64_t replay_wait_since_ns;
    uint32_t notes_len, full_noted;
    uint32_t last_granted, run_length; /* the party granted last, and how many times in a row */
    /* Over the run: the ended rounds with a "degraded" note, and the first such note with its round
     * (cannstub_explore_degraded: a passing run says how many rounds were not fully ordered). */
    uint64_t degraded_rounds, first_degraded_round;
    char first_degraded[XP_DEGRADED_BYTES];
    struct plat_shared_lock lock;
    struct xp_party parties[XP_MAX_PARTIES];
    char notes[XP_NOTES_BYTES];
    uint8_t decisions[XP_MAX_DECISIONS];
};
_Static_assert(sizeof(struct xp_shared) <= CANNSTUB_EXPLORE_BYTES, "the explore layout outgrew CANNSTUB_EXPLORE_BYTES");
_Static_assert(XP_MAX_PARTIES <= 256, "decisions are stored as bytes");

int explore_on;
static struct xp_shared *xp; /* set before explore_on; mappings are never unmapped */
static char xp_path[512];
static char role[XP_ID_BYTES];
static int die_in_lock;  /* test hook: ACL_STUB_TEST_DIE_IN_LOCK=explore (at a point, holding the lock) */
static int die_at_point; /* test hook: ACL_STUB_TEST_DIE_IN_LOCK=explore-point (at a point, waiting) */
static uint32_t epoch;  /* bumped by aclInit and aclFinalize: threads register again */
static uint32_t next_unnamed, next_stream, next_default;

/* The schedule being replayed (read at aclInit; every process reads the same file). */
static struct {
    uint64_t seed, round;
    uint32_t depth, nids, n;
    char ids[XP_MAX_PARTIES][XP_ID_BYTES];
    uint8_t decisions[XP_MAX_DECISIONS];
} replay;

static _Thread_local int tl_party = -1;
static _Thread_local uint32_t tl_epoch;
static _Thread_local int tl_pid;
static _Thread_local int tl_slept; /* EXPLORE_WAIT since the call's entry */
static _Thread_local int tl_executor; /* an executor: never registered again as t<k> */
static _Thread_local int tl_left;     /* cannstub_explore_leave: no point registers it again, until it is named */
static _Thread_local char tl_name[XP_ID_BYTES]; /* the name it gave itself: kept when it registers again */

static uint32_t never_cancelled; /* the cancel word of plat_wait_on_word_or_cancel */

static uint64_t mix(uint64_t z)
{
    z += 0x9e3779b97f4a7c15ull; /* splitmix64 finaliser */
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

static struct xp_shared *shared(void)
{
    return __atomic_load_n(&xp, __ATOMIC_ACQUIRE);
}

/* ---- notes (lock held) ---- */

__attribute__((format(printf, 2, 3))) static void note(struct xp_shared *x, const char *fmt, ...)
{
    char line[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(line, sizeof line - 1, fmt, ap);
    va_end(ap);
    if (n < 0)
        return;
    if ((size_t)n > sizeof line - 2)
        n = (int)sizeof line - 2;
    line[n++] = '\n';
    if (x->notes_len + (uint32_t)n > XP_NOTES_BYTES)
        return; /* the first notes say what went wrong; later ones are dropped */
    memcpy(x->notes + x->notes_len, line, (size_t)n);
    x->notes_len += (uint32_t)n;
}

/* ---- the lock ---- */

static int party_alive(const struct xp_party *p)
{
    if (p->pid == plat_process_id())
        return 1;
    struct plat_process_id id = {.pid = p->pid, .start_time = p->pid_start};
    return plat_process_alive(&id);
}

/* The party is GONE for good (it left, or its process died). */
static void gone_for_good(struct xp_party *p)
{
    p->state = XP_GONE;
    p->left = 1;
}

/* A process died holding the lock: its parties are GONE, the rest is consistent enough (a grant
 * is one store of the state and one of the word, and a waiter re-checks its state every tick). */
static void repair(struct xp_shared *x)
{
    note(x, "degraded the explore lock was repaired: a process died holding it");
    for (uint32_t i = 0; i < x->nparties && i < XP_MAX_PARTIES; i++) {
        struct xp_party *p = &x->parties[i];
        if (p->state != XP_GONE && p->state != XP_UNUSED && !party_alive(p)) {
            gone_for_good(p);
            note(x, "degraded %s died (pid %d)", p->id, (int)p->pid);
        }
    }
    if (x->ndecisions > XP_MAX_DECISIONS)
        x->ndecisions = XP_MAX_DECISIONS;
}

/* 0 with the lock held, -1 when it is unrecoverable (the caller goes on unexplored). */
static int xp_lock(struct xp_shared *x)
{
    int rc = plat_shared_lock_lock(&x->lock);
    if (rc < 0)
        return -1;
    if (rc == 1) {
        repair(x);
        plat_shared_lock_mark_consistent(&x->lock);
    }
    return 0;
}

static void xp_unlock(struct xp_shared *x)
{
    plat_shared_lock_unlock(&x->lock);
}

/* ---- decisions (lock held) ---- */

static void set_priority(const struct xp_shared *x, struct xp_party *p)
{
    /* above every change point's value (1..depth-1); a function of the identity, not of arrival */
    p->priority = (mix(x->seed ^ mix(x->round ^ mix(hash_text(p->id)))) >> 8) | (1ull << 56);
}

static void set_change_points(struct xp_shared *x)
{
    for (uint32_t i = 0; i < XP_MAX_DEPTH; i++)
        x->change[i] = 0;
    for (uint32_t i = 0; i + 1 < x->depth; i++)
        x->change[i] = 1 + mix(x->seed ^ mix(x->round ^ mix(0x6368616e6765ull + i))) % x->k;
}

static void wake(struct xp_party *p)
{
    __atomic_add_fetch(&p->grant, 1, __ATOMIC_RELEASE);
    plat_wake_word(&p->grant);
}

static void grant(struct xp_shared *x, uint32_t i, uint64_t now)
{
    struct xp_party *p = &x->parties[i];
    p->state = XP_RUNNING;
    p->since_ns = now;
    if (x->ndecisions < XP_MAX_DECISIONS)
        x->decisions[x->ndecisions++] = (uint8_t)i;
    else if (!x->full_noted) {
        x->full_noted = 1;
        note(x, "degraded decision list full after %u decisions: later ones are not recorded", XP_MAX_DECISIONS);
    }
    x->step++;
    x->run_length = x->last_granted == i ? x->run_length + 1 : 1;
    x->last_granted = i;
    for (uint32_t c = 0; c + 1 < x->depth; c++)
        if (x->change[c] == x->step)
            p->priority = c + 1; /* PCT: below every party's base priority */
    x->replay_wait_since_ns = 0;
    wake(p);
}

static int find_party(const struct xp_shared *x, const char *id)
{
    for (uint32_t i = 0; i < x->nparties; i++)
        if (x->parties[i].state != XP_UNUSED && strcmp(x->parties[i].id, id) == 0)
            return (int)i;
    return -1;
}

/* Every party at a point goes on (the round is no longer controlled). */
static void release_waiters(struct xp_shared *x)
{
    for (uint32_t i = 0; i < x->nparties; i++)
        if (x->parties[i].state == XP_AT_POINT) {
            x->parties[i].state = XP_RUNNING;
            wake(&x->parties[i]);
        }
}

/* A replay's recorded party did not come: the round goes on unexplored. */
static void diverge(struct xp_shared *x, const char *want)
{
    char got[256] = "";
    size_t used = 0;
    for (uint32_t i = 0; i < x->nparties; i++)
        if (x->parties[i].state == XP_AT_POINT && used < sizeof got - 1)
            used += (size_t)snprintf(got + used, sizeof got - used, "%s%s", used ? " " : "", x->parties[i].id);
    note(x, "diverged %llu expected %s at a point, got %s", (unsigned long long)x->step, want, used ? got : "none");
    x->free_running = 1;
    release_waiters(x);
}

/* Marks the RUNNING parties that left the explored points GONE: a dead process at once, a live
 * one once it ran stall_ms since a party started waiting for it. */
static void apply_stall_rule(struct xp_shared *x, uint64_t now, uint64_t first_wait)
{
    uint64_t stall_ns = (uint64_t)x->stall_ms * 1000000ull;
    for (uint32_t i = 0; i < x->nparties; i++) {
        struct xp_party *p = &x->parties[i];
        if (p->state != XP_RUNNING)
            continue;
        if (!party_alive(p)) {
            gone_for_good(p);
            note(x, "degraded %s left the explored points after step %llu (its process died)", p->id,
                 (unsigned long long)x->step);
            continue;
        }
        uint64_t from = p->since_ns > first_wait ? p->since_ns : first_wait;
        if (now > from && now - from > stall_ns) {
            p->state = XP_GONE;
            note(x, "degraded %s left the explored points after step %llu (running %llu ms since %s)", p->id,
                 (unsigned long long)x->step, (unsigned long long)((now - p->since_ns) / 1000000ull),
                 p->what[0] ? p->what : "its start");
        }
    }
}

/* Takes a decision if one is due. slow: a waiter's tick, which also applies the stall rule. */
static void try_decide(struct xp_shared *x, uint64_t now, int slow)
{
    if (x->free_running)
        return;
    uint32_t waiting = 0, running = 0;
    uint64_t first_wait = UINT64_MAX;
    for (uint32_t i = 0; i < x->nparties; i++) {
        const struct xp_party *p = &x->parties[i];
        if (p->state == XP_AT_POINT) {
            waiting++;
            if (p->since_ns < first_wait)
                first_wait = p->since_ns;
        } else if (p->state == XP_RUNNING)
            running++;
    }
    if (!waiting)
        return;
    if (running && slow) {
        apply_stall_rule(x, now, first_wait);
        running = 0;
        for (uint32_t i = 0; i < x->nparties; i++)
            running += x->parties[i].state == XP_RUNNING;
    }
    if (running)
        return;
    int pick = -1;
    if (x->mode == XP_MODE_REPLAY && x->step < replay.n) {
        const char *want = replay.ids[replay.decisions[x->step]];
        int w = find_party(x, want);
        if (w < 0 || x->parties[w].state != XP_AT_POINT) {
            uint64_t patience = (uint64_t)x->stall_ms * 1000000ull * XP_REPLAY_PATIENCE;
            if (w >= 0 && x->parties[w].state == XP_GONE && x->parties[w].left)
                diverge(x, want); /* it left for good: waiting cannot help */
            else if (!x->replay_wait_since_ns)
                x->replay_wait_since_ns = now;
            else if (now - x->replay_wait_since_ns > patience)
                diverge(x, want);
            return;
        }
        pick = w;
    } else {
        /* PCT: the highest priority, unless it is polling and starving another (XP_STARVE_STEPS) */
        int starving = waiting > 1 && x->run_length >= XP_STARVE_STEPS;
        for (uint32_t i = 0; i < x->nparties; i++)
            if (x->parties[i].state == XP_AT_POINT && !(starving && i == x->last_granted) &&
                (pick < 0 || x->parties[i].priority > x->parties[pick].priority))
                pick = (int)i;
    }
    grant(x, (uint32_t)pick, now);
}

/* ---- parties ---- */

static void set_what(struct xp_party *p, const char *what)
{
    snprintf(p->what, sizeof p->what, "%s", what ? what : "");
}

static int own_party(void)
{
    if (tl_party >= 0 && tl_epoch == __atomic_load_n(&epoch, __ATOMIC_ACQUIRE) && tl_pid == plat_process_id())
        return tl_party;
    return -1;
}

static void adopt(int party)
{
    tl_party = party;
    tl_epoch = __atomic_load_n(&epoch, __ATOMIC_ACQUIRE);
    tl_pid = plat_process_id();
}

/* "<role>/<name>" (with "~<dup>" when dup > 0) into id; -1 when it does not fit. */
static int make_id(char id[XP_ID_BYTES], const char *name, int dup)
{
    char suffix[8] = "";
    if (dup > 0)
        snprintf(suffix, sizeof suffix, "~%d", dup % 100);
    size_t r = strlen(role), n = strlen(name), f = strlen(suffix);
    if (r + 1 + n + f >= XP_ID_BYTES)
        return -1;
    memcpy(id, role, r);
    id[r] = '/';
    memcpy(id + r + 1, name, n);
    memcpy(id + r + 1 + n, suffix, f + 1);
    return 0;
}

/* Registers "<role>/<name>" in state `state`; its index, or -1 (table full: noted). Takes the
 * slot of a GONE party of the same identity (a thread of an earlier runtime, a restarted role). */
static int register_party(struct xp_shared *x, const char *name, uint32_t state)
{
    char id[XP_ID_BYTES];
    if (make_id(id, name, 0) != 0 || xp_lock(x) != 0)
        return -1;
    int slot = find_party(x, id), dup = 2;
    /* a live party has that identity already: "~2", "~3", ... */
    while (slot >= 0 && x->parties[slot].state != XP_GONE && party_alive(&x->parties[slot])) {
        if (dup >= 100 || make_id(id, name, dup++) != 0) {
            note(x, "degraded %s/%s is taken: this thread is not explored", role, name);
            xp_unlock(x);
            return -1;
        }
        slot = find_party(x, id);
    }
    if (slot < 0) {
        if (x->nparties >= XP_MAX_PARTIES) {
            note(x, "degraded party table full: %s is not explored", id);
            xp_unlock(x);
            return -1;
        }
        slot = (int)x->nparties;
    }
    struct xp_party *p = &x->parties[slot];
    struct plat_process_id self;
    plat_self_process_id(&self);
    snprintf(p->id, sizeof p->id, "%s", id);
    p->what[0] = '\0';
    p->pid = self.pid;
    p->pid_start = self.start_time;
    p->left = 0;
    p->since_ns = plat_monotonic_ns();
    p->state = state;
    set_priority(x, p);
    if ((uint32_t)slot == x->nparties)
        x->nparties++;
    xp_unlock(x);
    return slot;
}

/* The calling thread's party, registered as "t<k>" if it has none. */
static int self_party(struct xp_shared *x)
{
    int me = own_party();
    if (me >= 0 || tl_executor || tl_left)
        return me; /* an executor of an earlier runtime (aclFinalize let its party go), or a thread that
                      left (its clean-up after, e.g. a worker thread idle in its pool), is not explored */
    char name[XP_ID_BYTES];
    if (tl_name[0]) /* named before an aclFinalize or aclInit let its party go */
        snprintf(name, sizeof name, "%s", tl_name);
    else
        snprintf(name, sizeof name, "t%u", __atomic_fetch_add(&next_unnamed, 1, __ATOMIC_RELAXED));
    me = register_party(x, name, XP_RUNNING);
    if (me >= 0)
        adopt(me);
    return me;
}

static int valid_name(const char *name)
{
    size_t n = name ? strlen(name) : 0;
    if (n == 0 || n > 62)
        return 0;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '.' || c == '_' ||
              c == '-'))
            return 0;
    }
    return 1;
}

/* Waits for a grant at a point (lock not held); g: the grant word before the wait. */
static void wait_grant(struct xp_shared *x, int me, uint32_t g)
{
    struct xp_party *p = &x->parties[me];
    uint64_t tick_ns = (uint64_t)x->stall_ms * 1000000ull / 4;
    if (tick_ns > 20000000ull)
        tick_ns = 20000000ull; /* a dead party is noticed within 20 ms whatever stall_ms */
    if (tick_ns < 1000000ull)
        tick_ns = 1000000ull;
    for (;;) {
        if (__atomic_load_n(&p->grant, __ATOMIC_ACQUIRE) != g)
            return;
        plat_wait_on_word_or_cancel(&p->grant, g, &never_cancelled, 0, plat_monotonic_ns() + tick_ns);
        if (__atomic_load_n(&p->grant, __ATOMIC_ACQUIRE) != g)
            return;
        if (xp_lock(x) != 0)
            return;
        int done = p->state != XP_AT_POINT || x->free_running;
        if (!done)
            try_decide(x, plat_monotonic_ns(), 1);
        xp_unlock(x);
        if (done)
            return;
    }
}

/* ---- the exported functions (cannstub/explore.h) ---- */

STUB_EXPORT int cannstub_explore_enabled(void)
{
    return __atomic_load_n(&explore_on, __ATOMIC_ACQUIRE) != 0;
}

STUB_EXPORT int cannstub_explore_name_thread(const char *name)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x || !valid_name(name))
        return -1;
    tl_left = 0;
    int me = own_party();
    if (me < 0) {
        me = register_party(x, name, XP_RUNNING);
        if (me < 0)
            return -1;
        adopt(me);
        snprintf(tl_name, sizeof tl_name, "%s", name);
        return 0;
    }
    char id[XP_ID_BYTES];
    if (make_id(id, name, 0) != 0 || xp_lock(x) != 0)
        return -1;
    int other = find_party(x, id), rc = 0;
    if (other >= 0 && other != me && x->parties[other].state != XP_GONE)
        rc = -1; /* a live party has that identity */
    else {
        if (other >= 0 && other != me)
            x->parties[other].state = XP_UNUSED; /* a GONE namesake: its slot is dropped */
        snprintf(x->parties[me].id, sizeof x->parties[me].id, "%s", id);
        set_priority(x, &x->parties[me]);
        snprintf(tl_name, sizeof tl_name, "%s", name);
    }
    xp_unlock(x);
    return rc;
}

STUB_EXPORT int cannstub_explore_point(const char *what)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x)
        return -1;
    int me = self_party(x);
    if (me < 0 || xp_lock(x) != 0)
        return 0; /* not explored (table full, lock unrecoverable): go on */
    if (die_in_lock)
        raise(SIGKILL); /* test hook: a process killed holding the lock */
    struct xp_party *p = &x->parties[me];
    set_what(p, what);
    if (x->free_running || p->state == XP_GONE) {
        if (p->state != XP_GONE)
            p->state = XP_RUNNING; /* uncontrolled, but its state stays true for the next round */
        xp_unlock(x);
        return 0;
    }
    uint64_t now = plat_monotonic_ns();
    p->state = XP_AT_POINT;
    p->since_ns = now;
    uint32_t g = __atomic_load_n(&p->grant, __ATOMIC_RELAXED);
    try_decide(x, now, 0);
    xp_unlock(x);
    if (die_at_point)
        raise(SIGKILL); /* test hook: a process killed while its party is AT_POINT */
    wait_grant(x, me, g);
    return 0;
}

/* The party `me` is BLOCKED on `wait` (what: NULL keeps its text). */
static void block_party(struct xp_shared *x, int me, const char *what, uint32_t wait)
{
    if (xp_lock(x) != 0)
        return;
    struct xp_party *p = &x->parties[me];
    if (what)
        set_what(p, what);
    if (p->state != XP_GONE) {
        p->state = XP_BLOCKED;
        p->wait = wait;
        p->since_ns = plat_monotonic_ns();
        try_decide(x, p->since_ns, 0);
    }
    xp_unlock(x);
}

STUB_EXPORT int cannstub_explore_block(const char *what)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x)
        return -1;
    int me = self_party(x);
    if (me >= 0)
        block_party(x, me, what ? what : "", XP_WAIT_TEXT);
    return 0;
}

STUB_EXPORT int cannstub_explore_wake(const char *what)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x || !what)
        return -1;
    char key[XP_WHAT_BYTES];
    snprintf(key, sizeof key, "%s", what); /* cut as set_what cuts */
    if (xp_lock(x) != 0)
        return 0;
    int woke = 0;
    uint64_t now = plat_monotonic_ns();
    for (uint32_t i = 0; i < x->nparties; i++) {
        struct xp_party *p = &x->parties[i];
        if (p->state == XP_BLOCKED && strcmp(p->what, key) == 0) {
            p->state = XP_RUNNING;
            p->since_ns = now;
            woke++;
        }
    }
    xp_unlock(x);
    return woke;
}

STUB_EXPORT int cannstub_explore_leave(void)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x)
        return -1;
    tl_left = 1;
    int me = own_party();
    if (me < 0)
        return 0;
    tl_party = -1;
    if (xp_lock(x) != 0)
        return 0;
    gone_for_good(&x->parties[me]);
    try_decide(x, plat_monotonic_ns(), 0);
    xp_unlock(x);
    return 0;
}

/* The first "degraded" line of the current round's notes (its text after "degraded "), or NULL; *len its length. */
static const char *degraded_note(const struct xp_shared *x, size_t *len)
{
    for (uint32_t at = 0; at < x->notes_len;) {
        const char *line = x->notes + at;
        const char *nl = memchr(line, '\n', x->notes_len - at);
        size_t n = nl ? (size_t)(nl - line) : x->notes_len - at;
        if (n > 9 && memcmp(line, "degraded ", 9) == 0) {
            *len = n - 9;
            return line + 9;
        }
        at += (uint32_t)n + 1;
    }
    return NULL;
}

/* Counts the round that ends (lock held) if its notes say it was degraded. */
static void count_degraded_round(struct xp_shared *x)
{
    size_t len;
    const char *note = x->round ? degraded_note(x, &len) : NULL;
    if (!note)
        return;
    if (x->degraded_rounds++ == 0) {
        x->first_degraded_round = x->round;
        snprintf(x->first_degraded, sizeof x->first_degraded, "%.*s", (int)len, note);
    }
}

STUB_EXPORT long cannstub_explore_degraded(unsigned long long *first_round, char *first, unsigned long len)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x || xp_lock(x) != 0)
        return -1;
    size_t n = 0;
    const char *now = degraded_note(x, &n);
    uint64_t rounds = x->degraded_rounds + (now ? 1 : 0);
    uint64_t round = x->degraded_rounds ? x->first_degraded_round : now ? x->round : 0;
    if (first_round)
        *first_round = round;
    if (first && len > 0) {
        if (x->degraded_rounds)
            snprintf(first, len, "%s", x->first_degraded);
        else
            snprintf(first, len, "%.*s", now ? (int)n : 0, now ? now : "");
    }
    xp_unlock(x);
    return (long)rounds;
}

STUB_EXPORT int cannstub_explore_round(unsigned long long round)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x || xp_lock(x) != 0)
        return -1;
    count_degraded_round(x);
    x->k = x->step ? x->step : XP_FIRST_K; /* the steps of the round that ends */
    x->round = round;
    x->step = 0;
    x->ndecisions = 0;
    x->notes_len = 0;
    x->full_noted = 0;
    x->replay_wait_since_ns = 0;
    x->run_length = 0;
    /* a replay controls the recorded round only: the rounds before it run as they run */
    x->free_running = x->mode == XP_MODE_REPLAY && round != replay.round;
    if (x->free_running)
        release_waiters(x);
    set_change_points(x);
    for (uint32_t i = 0; i < x->nparties; i++) {
        struct xp_party *p = &x->parties[i];
        if (p->state == XP_UNUSED)
            continue;
        set_priority(x, p);
        if (p->state == XP_GONE && !p->left)
            p->state = XP_BLOCKED; /* stalled last round: explored again once it reaches a point */
    }
    xp_unlock(x);
    return 0;
}

/* Appends to a text of known capacity (the caller sized it). */
__attribute__((format(printf, 3, 4))) static void put(char *out, size_t *used, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsprintf(out + *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used += (size_t)n;
}

STUB_EXPORT long cannstub_explore_schedule(char *buf, unsigned long len)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x)
        return -1;
    if (xp_lock(x) != 0)
        return -1;
    size_t cap = 256 + (size_t)x->nparties * (XP_ID_BYTES + 24) + (size_t)x->ndecisions * 4 + x->notes_len + 1;
    char *text = malloc(cap);
    long rc = -1;
    if (text) {
        size_t used = 0;
        put(text, &used, "cann-explore 1\nseed %llu depth %u round %llu steps %llu\n", (unsigned long long)x->seed,
            x->depth, (unsigned long long)x->round, (unsigned long long)x->step);
        for (uint32_t i = 0; i < x->nparties; i++)
            put(text, &used, "party %u %s\n", i, x->parties[i].state == XP_UNUSED ? "-" : x->parties[i].id);
        put(text, &used, "decisions");
        for (uint32_t i = 0; i < x->ndecisions; i++)
            put(text, &used, " %u", (unsigned)x->decisions[i]);
        put(text, &used, "\n");
        memcpy(text + used, x->notes, x->notes_len);
        used += x->notes_len;
        text[used] = '\0';
        rc = (long)used;
    }
    xp_unlock(x);
    if (text && buf && len > 0)
        snprintf(buf, len, "%s", text);
    free(text);
    return rc;
}

/* ---- the stub's own hooks (explore.h) ---- */

void explore_api_entry(const char *call)
{
    tl_slept = 0;
    cannstub_explore_point(call);
}

void explore_wait_begins(const char *what)
{
    struct xp_shared *x = shared();
    int me = x ? self_party(x) : -1;
    tl_slept = 1;
    if (me >= 0)
        block_party(x, me, what, XP_WAIT_PROGRESS);
}

void explore_progress_sleep(void)
{
    struct xp_shared *x = shared();
    int me = own_party();
    if (!x || me < 0)
        return; /* not a party: nothing waits for it */
    tl_slept = 1;
    block_party(x, me, NULL, XP_WAIT_PROGRESS);
}

void explore_progress_woken(void)
{
    struct xp_shared *x = shared();
    if (!x || xp_lock(x) != 0)
        return;
    int pid = plat_process_id();
    uint64_t now = plat_monotonic_ns();
    for (uint32_t i = 0; i < x->nparties; i++) {
        struct xp_party *p = &x->parties[i];
        if (p->state == XP_BLOCKED && p->wait == XP_WAIT_PROGRESS && p->pid == pid) {
            p->state = XP_RUNNING;
            p->since_ns = now;
        }
    }
    xp_unlock(x);
}

void explore_ipc_key(char key[EXPLORE_KEY_BYTES], uint64_t shm_id, uint32_t slot)
{
    snprintf(key, EXPLORE_KEY_BYTES, "ipc %016llx:%u", (unsigned long long)shm_id, slot);
}

void explore_keyed_sleep(const char *key)
{
    struct xp_shared *x = shared();
    int me = own_party();
    if (!x || me < 0)
        return;
    tl_slept = 1;
    block_party(x, me, key, XP_WAIT_TEXT);
}

void explore_api_return(const char *call)
{
    if (!tl_slept)
        return;
    tl_slept = 0;
    char what[XP_WHAT_BYTES];
    snprintf(what, sizeof what, "%s returned", call);
    cannstub_explore_point(what);
}

int explore_executor_register(int is_default)
{
    struct xp_shared *x = shared();
    if (!cannstub_explore_enabled() || !x)
        return -1;
    char name[32];
    if (!is_default)
        snprintf(name, sizeof name, "stream%u", __atomic_add_fetch(&next_stream, 1, __ATOMIC_RELAXED));
    else {
        uint32_t k = __atomic_fetch_add(&next_default, 1, __ATOMIC_RELAXED);
        if (k == 0)
            snprintf(name, sizeof name, "stream0");
        else
            snprintf(name, sizeof name, "stream0-%u", k);
    }
    return register_party(x, name, XP_BLOCKED);
}

void explore_executor_adopt(int party)
{
    tl_executor = 1;
    if (party >= 0)
        adopt(party);
}

void explore_executor_unblock(int party)
{
    struct xp_shared *x = shared();
    if (party < 0 || !x || xp_lock(x) != 0)
        return;
    struct xp_party *p = &x->parties[party];
    if (p->state == XP_BLOCKED && p->pid == plat_process_id()) {
        p->state = XP_RUNNING;
        p->since_ns = plat_monotonic_ns();
    }
    xp_unlock(x);
}

void explore_leave_process(void)
{
    struct xp_shared *x = shared();
    if (!x || xp_lock(x) != 0)
        return;
    int pid = plat_process_id();
    for (uint32_t i = 0; i < x->nparties; i++)
        if (x->parties[i].pid == pid && x->parties[i].state != XP_UNUSED)
            gone_for_good(&x->parties[i]);
    try_decide(x, plat_monotonic_ns(), 0);
    xp_unlock(x);
    __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
}

/* ---- configuration (aclInit) ---- */

static int parse_u64(const char *s, const char *end, uint64_t *out)
{
    if (s == end)
        return -1;
    uint64_t v = 0;
    for (const char *c = s; c < end; c++) {
        if (*c < '0' || *c > '9')
            return -1;
        unsigned d = (unsigned)(*c - '0');
        if (v > (UINT64_MAX - d) / 10)
            return -1;
        v = v * 10 + d;
    }
    *out = v;
    return 0;
}

static int valid_id(const char *s)
{
    size_t n = strlen(s);
    if (n == 0 || n >= XP_ID_BYTES)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)s[i] <= ' ' || (unsigned char)s[i] > '~')
            return 0;
    return 1;
}

/* Reads the schedule text of `path` into `replay`. 0, or -1 with *why. */
static int parse_schedule(const char *path, char *why, size_t whylen)
{
    int rc = -1;
    char *text = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0) {
        snprintf(why, whylen, "cannot read %s (%s)", path, strerror(errno));
        goto out;
    }
    if (!S_ISREG(st.st_mode) || st.st_size <= 0 || st.st_size > (off_t)XP_SCHEDULE_MAX) {
        snprintf(why, whylen, "%s is not a regular file of 1 to %u bytes", path, XP_SCHEDULE_MAX);
        goto out;
    }
    text = malloc((size_t)st.st_size + 1);
    ssize_t got = text ? read(fd, text, (size_t)st.st_size) : -1;
    if (got != (ssize_t)st.st_size) {
        snprintf(why, whylen, "cannot read %s (%s)", path, got < 0 ? strerror(errno) : "short read");
        goto out;
    }
    text[got] = '\0';
    memset(&replay, 0, sizeof replay);
    int line_no = 0, have_header = 0, have_params = 0, have_decisions = 0;
    char *save = NULL;
    for (char *line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
        line_no++;
        size_t n = strlen(line);
        if (n && line[n - 1] == '\r')
            line[--n] = '\0';
        unsigned long long seed, round, steps;
        unsigned depth, index;
        char id[XP_ID_BYTES + 1];
        int used = 0;
        if (!have_header) {
            if (strcmp(line, "cann-explore 1") != 0) {
                snprintf(why, whylen, "%s line %d: expected \"cann-explore 1\"", path, line_no);
                goto out;
            }
            have_header = 1;
        } else if (!have_params) {
            if (sscanf(line, "seed %llu depth %u round %llu steps %llu%n", &seed, &depth, &round, &steps, &used) != 4 ||
                line[used] || depth < 1 || depth > XP_MAX_DEPTH) {
                snprintf(why, whylen, "%s line %d: expected \"seed <n> depth <1..8> round <n> steps <n>\"", path,
                         line_no);
                goto out;
            }
            replay.seed = seed, replay.depth = depth, replay.round = round;
            have_params = 1;
        } else if (strncmp(line, "party ", 6) == 0 && !have_decisions) {
            if (sscanf(line, "party %u %64s%n", &index, id, &used) != 2 || line[used] || index != replay.nids ||
                index >= XP_MAX_PARTIES || !valid_id(id)) {
                snprintf(why, whylen, "%s line %d: expected \"party %u <identity>\" (at most %d parties)", path,
                         line_no, replay.nids, XP_MAX_PARTIES);
                goto out;
            }
            memcpy(replay.ids[replay.nids++], id, strlen(id) + 1); /* valid_id: shorter than XP_ID_BYTES */
        } else if ((strncmp(line, "decisions", 9) == 0 && (line[9] == ' ' || !line[9])) && !have_decisions) {
            have_decisions = 1;
            for (char *c = line + 9; *c;) {
                char *end;
                if (*c == ' ') {
                    c++;
                    continue;
                }
                unsigned long v = strtoul(c, &end, 10);
                if (end == c || (*end && *end != ' ') || v >= replay.nids || replay.n >= XP_MAX_DECISIONS) {
                    snprintf(why, whylen,
                             "%s line %d: decision %u is not a party index below %u (or more than %u decisions)", path,
                             line_no, replay.n, replay.nids, XP_MAX_DECISIONS);
                    goto out;
                }
                replay.decisions[replay.n++] = (uint8_t)v;
                c = end;
            }
        } else if (strncmp(line, "degraded", 8) == 0 || strncmp(line, "diverged", 8) == 0 || !line[0]) {
            /* what happened when it was recorded: not replayed */
        } else {
            snprintf(why, whylen, "%s line %d: unexpected \"%.40s\"", path, line_no, line);
            goto out;
        }
    }
    if (!have_decisions) {
        snprintf(why, whylen, "%s has no \"decisions\" line", path);
        goto out;
    }
    rc = 0;
out:
    if (fd >= 0)
        close(fd);
    free(text);
    return rc;
}

/* Maps the explore file: a regular file of ours, mode 0600 or stricter, CANNSTUB_EXPLORE_BYTES. */
static struct xp_shared *map_file(const char *path, char *why, size_t whylen)
{
    struct xp_shared *map = NULL;
    int fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW | O_NOCTTY | O_NONBLOCK);
    struct stat st;
    if (fd < 0 || fstat(fd, &st) != 0)
        snprintf(why, whylen, "cannot open %.200s (%s)", path, strerror(errno));
    else if (!S_ISREG(st.st_mode) || st.st_uid != geteuid() || (st.st_mode & 077) != 0 ||
             st.st_size != CANNSTUB_EXPLORE_BYTES)
        snprintf(why, whylen, "%.200s must be a regular file of this user, mode 0600, of exactly %d bytes", path,
                 CANNSTUB_EXPLORE_BYTES);
    else {
        void *m = mmap(NULL, CANNSTUB_EXPLORE_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
        if (m == MAP_FAILED)
            snprintf(why, whylen, "cannot map %.200s (%s)", path, strerror(errno));
        else
            map = m;
    }
    if (fd >= 0)
        close(fd);
    return map;
}

/* Lays the file out (the first process) or checks that it was laid out for the same settings. */
static int lay_out(struct xp_shared *x, uint32_t mode, uint64_t seed, uint32_t depth, uint32_t stall_ms, char *why,
                   size_t whylen)
{
    uint32_t zero = 0;
    if (__atomic_compare_exchange_n(&x->magic, &zero, XP_BUSY, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        x->version = XP_VERSION;
        x->mode = mode;
        x->seed = seed;
        x->depth = depth;
        x->stall_ms = stall_ms;
        x->k = XP_FIRST_K;
        x->round = mode == XP_MODE_REPLAY ? replay.round : 0;
        /* a replay of a later round: what runs before its cannstub_explore_round (setup) is free */
        x->free_running = mode == XP_MODE_REPLAY && replay.round != 0;
        set_change_points(x);
        if (plat_shared_lock_init(&x->lock) != 0) {
            snprintf(why, whylen, "cannot create the explore file's lock");
            return -1;
        }
        __atomic_store_n(&x->magic, XP_MAGIC, __ATOMIC_RELEASE);
        return 0;
    }
    for (int i = 0; i < 2000 && __atomic_load_n(&x->magic, __ATOMIC_ACQUIRE) == XP_BUSY; i++)
        usleep(1000);
    uint32_t magic = __atomic_load_n(&x->magic, __ATOMIC_ACQUIRE);
    if (magic != XP_MAGIC || x->version != XP_VERSION) {
        snprintf(why, whylen, "it is not an explore file (magic %#x): pass a new zero-filled file", magic);
        return -1;
    }
    if (x->mode != mode || x->stall_ms != stall_ms || (mode == XP_MODE_PCT && (x->seed != seed || x->depth != depth))) {
        snprintf(why, whylen,
                 "it was set up by a process with other settings (%s, seed %llu, depth %u, stall %u ms): every "
                 "process of a run must have the same ACL_STUB_EXPLORE and ACL_STUB_EXPLORE_STALL_MS",
                 x->mode == XP_MODE_REPLAY ? "replay" : "explore", (unsigned long long)x->seed, x->depth, x->stall_ms);
        return -1;
    }
    return 0;
}

static int parse_stall(uint32_t *out, char *err, unsigned long errlen)
{
    const char *v = getenv("ACL_STUB_EXPLORE_STALL_MS");
    uint64_t ms = XP_DEFAULT_STALL_MS;
    if (v && *v && (parse_u64(v, v + strlen(v), &ms) != 0 || ms < 1 || ms > XP_MAX_STALL_MS)) {
        snprintf(err, errlen,
                 "ACL_STUB_EXPLORE_STALL_MS=%s is invalid: use a whole number of milliseconds from 1 to %u "
                 "(default %u), or unset it",
                 v, XP_MAX_STALL_MS, XP_DEFAULT_STALL_MS);
        return -1;
    }
    *out = (uint32_t)ms;
    return 0;
}

static void set_role(void)
{
    const char *r = getenv("CANN_HARNESS_ROLE");
    snprintf(role, 40, "%s", r && *r ? r : "proc"); /* leaves room for "/<name>" */
    for (char *c = role; *c; c++)
        if ((unsigned char)*c <= ' ' || (unsigned char)*c > '~' || *c == '/')
            *c = '_';
}

int explore_configure(char *err, unsigned long errlen)
{
    __atomic_store_n(&explore_on, 0, __ATOMIC_RELEASE);
    const char *v = getenv("ACL_STUB_EXPLORE");
    uint32_t stall_ms;
    if (parse_stall(&stall_ms, err, errlen) != 0)
        return -1;
    if (!v || !*v)
        return 0;
    const char *usage = "use <file>:<seed>:<depth> (seed a whole number, depth 1 to 8) or <file>:replay:<schedule "
                        "file>, e.g. ACL_STUB_EXPLORE=/tmp/run/explore:42:2 (or unset it)";
    if (jitter_enabled()) {
        snprintf(err, errlen,
                 "ACL_STUB_EXPLORE and ACL_STUB_JITTER exclude each other (jitter delays, explore chooses the order): "
                 "unset one of them");
        return -1;
    }
    char path[sizeof xp_path], why[400] = "";
    uint32_t mode = XP_MODE_PCT, depth = 0;
    uint64_t seed = 0;
    const char *rep = strstr(v, ":replay:");
    if (rep) {
        mode = XP_MODE_REPLAY;
        if (rep == v || (size_t)(rep - v) >= sizeof path || !rep[8]) {
            snprintf(err, errlen, "ACL_STUB_EXPLORE=%s is invalid: %s", v, usage);
            return -1;
        }
        snprintf(path, sizeof path, "%.*s", (int)(rep - v), v);
        if (parse_schedule(rep + 8, why, sizeof why) != 0) {
            snprintf(err, errlen,
                     "ACL_STUB_EXPLORE: the schedule to replay is malformed: %s: pass the text "
                     "cannstub_explore_schedule wrote (starting \"cann-explore 1\")",
                     why);
            return -1;
        }
        seed = replay.seed;
        depth = replay.depth;
    } else {
        const char *d = strrchr(v, ':');
        const char *s = d && d > v ? memrchr(v, ':', (size_t)(d - v)) : NULL;
        uint64_t dv = 0;
        if (!s || s == v || (size_t)(s - v) >= sizeof path || parse_u64(s + 1, d, &seed) != 0 ||
            parse_u64(d + 1, d + strlen(d), &dv) != 0 || dv < 1 || dv > XP_MAX_DEPTH) {
            snprintf(err, errlen, "ACL_STUB_EXPLORE=%s is invalid: %s", v, usage);
            return -1;
        }
        depth = (uint32_t)dv;
        snprintf(path, sizeof path, "%.*s", (int)(s - v), v);
    }
    struct xp_shared *x = shared();
    if (!x || strcmp(path, xp_path) != 0)
        x = map_file(path, why, sizeof why); /* an earlier mapping stays: a late thread may still use it */
    if (!x || lay_out(x, mode, seed, depth, stall_ms, why, sizeof why) != 0) {
        snprintf(err, errlen, "ACL_STUB_EXPLORE: the explore file %s cannot be used: %s", path, why);
        return -1;
    }
    snprintf(xp_path, sizeof xp_path, "%s", path);
    set_role();
    const char *die = getenv("ACL_STUB_TEST_DIE_IN_LOCK");
    die_in_lock = die && strcmp(die, "explore") == 0;
    die_at_point = die && strcmp(die, "explore-point") == 0;
    __atomic_store_n(&next_unnamed, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&next_stream, 0, __ATOMIC_RELAXED);
    __atomic_store_n(&next_default, 0, __ATOMIC_RELAXED);
    __atomic_add_fetch(&epoch, 1, __ATOMIC_RELEASE);
    __atomic_store_n(&xp, x, __ATOMIC_RELEASE);
    __atomic_store_n(&explore_on, 1, __ATOMIC_RELEASE);
    return 0;
}
