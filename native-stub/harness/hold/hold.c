/*
 * hold.c - libcannharness_hold.so: host functions (aclrtHostFunc-shaped)
 * that the TypeScript binding passes by pointer to aclrtLaunchHostFunc to
 * hold a stream. No libascendcl dependency: works with the stub and with
 * real CANN alike.
 *
 * A latch is made for exactly one cannharness_latch_wait launch: it starts
 * with two references (the creator's and the pending wait's), so
 * cannharness_latch_destroy is safe before the wait has run.
 *
 * Under the stub's schedule explorer (ACL_STUB_EXPLORE, docs/acl-contract.md
 * S19) a stream held by a latch is BLOCKED, not running: its executor blocks
 * on the latch's text and the release wakes it, as a rendezvous await and its
 * publisher do. Without that, a latch held longer than the stall bound marked
 * the stream as gone and the round as degraded.
 */
#include <dlfcn.h>
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define HOLD_EXPORT __attribute__((visibility("default")))

struct latch {
    pthread_mutex_t lock;
    pthread_cond_t released_cv;
    int released;
    int refs;
};

HOLD_EXPORT uint64_t cannharness_monotonic_ns(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* The milliseconds travel in the pointer value itself. */
HOLD_EXPORT void cannharness_sleep_ms(void *ms)
{
    uintptr_t v = (uintptr_t)ms;
    struct timespec ts = {(time_t)(v / 1000u), (long)(v % 1000u) * 1000000l};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}

/* The explorer's block and wake (cannstub/explore.h), NULL unless attached to a stub that has them. */
typedef int (*explore_fn)(const char *what);
static explore_fn explore_block, explore_wake;

/* Looks the explorer's calls up in the loaded ACL library `library` (never loads it), after its
 * aclInit: 1 when it explores (the latches then block and wake), 0 when it does not, has no
 * explorer (real CANN) or is not loaded; then a latch costs nothing more than before. */
HOLD_EXPORT int cannharness_explore_attach(const char *library)
{
    void *lib = library ? dlopen(library, RTLD_NOW | RTLD_NOLOAD) : NULL;
    if (!lib)
        return 0;
    int (*enabled)(void) = (int (*)(void))dlsym(lib, "cannstub_explore_enabled");
    explore_fn block = (explore_fn)dlsym(lib, "cannstub_explore_block");
    explore_fn wake = (explore_fn)dlsym(lib, "cannstub_explore_wake");
    int found = enabled && block && wake && enabled() == 1;
    if (found) {
        __atomic_store_n(&explore_wake, wake, __ATOMIC_RELEASE);
        __atomic_store_n(&explore_block, block, __ATOMIC_RELEASE);
    }
    dlclose(lib); /* drops the reference NOLOAD took: the library stays loaded by its loader */
    return found;
}

/* What a stream held by latch l blocks on, for the explorer. */
static void latch_what(const struct latch *l, char out[48])
{
    snprintf(out, 48, "latch %p", (const void *)l);
}

HOLD_EXPORT void *cannharness_latch_create(void)
{
    struct latch *l = calloc(1, sizeof *l);
    if (!l)
        return NULL;
    pthread_mutex_init(&l->lock, NULL);
    pthread_cond_init(&l->released_cv, NULL);
    l->refs = 2;
    return l;
}

static void latch_unref(struct latch *l)
{
    pthread_mutex_lock(&l->lock);
    int last = --l->refs == 0;
    pthread_mutex_unlock(&l->lock);
    if (last) {
        pthread_cond_destroy(&l->released_cv);
        pthread_mutex_destroy(&l->lock);
        free(l);
    }
}

/* The host function: blocks the stream until the latch is released. */
HOLD_EXPORT void cannharness_latch_wait(void *latch)
{
    struct latch *l = latch;
    if (!l)
        return;
    explore_fn block = __atomic_load_n(&explore_block, __ATOMIC_ACQUIRE);
    char what[48];
    if (block)
        latch_what(l, what);
    pthread_mutex_lock(&l->lock);
    while (!l->released) {
        /* Under the lock: a release cannot wake (below) before this party is BLOCKED. */
        if (block)
            block(what);
        pthread_cond_wait(&l->released_cv, &l->lock);
    }
    pthread_mutex_unlock(&l->lock);
    latch_unref(l);
}

HOLD_EXPORT void cannharness_latch_release(void *latch)
{
    struct latch *l = latch;
    if (!l)
        return;
    pthread_mutex_lock(&l->lock);
    int was = l->released;
    l->released = 1;
    pthread_cond_broadcast(&l->released_cv);
    pthread_mutex_unlock(&l->lock);
    explore_fn wake = __atomic_load_n(&explore_wake, __ATOMIC_ACQUIRE);
    if (wake && !was) {
        char what[48];
        latch_what(l, what);
        wake(what); /* after the effect, as every waker does */
    }
}

HOLD_EXPORT int cannharness_latch_is_released(void *latch)
{
    struct latch *l = latch;
    if (!l)
        return 0;
    pthread_mutex_lock(&l->lock);
    int r = l->released;
    pthread_mutex_unlock(&l->lock);
    return r;
}

/* Releases (so a pending wait can never hang) and drops the creator's
 * reference; the wait frees the latch if it still has to run. */
HOLD_EXPORT void cannharness_latch_destroy(void *latch)
{
    struct latch *l = latch;
    if (!l)
        return;
    cannharness_latch_release(l);
    latch_unref(l);
}
