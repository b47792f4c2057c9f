/*
 * sync.h - checked wrappers for the process-local pthread calls.
 *
 * A failing lock, unlock or condition-variable call means a broken
 * invariant (an unlocked unlock, a destroyed object, memory corruption):
 * going on would corrupt state silently, so these abort with a message
 * naming the call and where it failed, as libuv's uv_mutex_lock does.
 * The shared (cross-process) lock lives behind platform.h instead.
 */
#ifndef CANNSTUB_SYNC_H
#define CANNSTUB_SYNC_H

#include <pthread.h>

/* Process-local locks are error-checking: an unlock by a thread that does not
 * hold the lock, or a second lock by its holder, fails (and so aborts through
 * the wrappers below) instead of corrupting the lock or deadlocking. */
#define SYNC_MUTEX_INITIALIZER PTHREAD_ERRORCHECK_MUTEX_INITIALIZER_NP

/* Prints "cannstub: <what> failed at <file>:<line>: <strerror(rc)>" and aborts. */
__attribute__((noreturn, cold)) void sync_fatal(const char *what, int rc, const char *file, int line);

#define SYNC_CHECKED(what, expr)                            \
    do {                                                    \
        int sync_rc_ = (expr);                              \
        if (sync_rc_ != 0)                                  \
            sync_fatal(what, sync_rc_, __FILE__, __LINE__); \
    } while (0)

#define sync_lock(m) SYNC_CHECKED("pthread_mutex_lock", pthread_mutex_lock(m))
#define sync_unlock(m) SYNC_CHECKED("pthread_mutex_unlock", pthread_mutex_unlock(m))
#define sync_cond_wait(cv, m) SYNC_CHECKED("pthread_cond_wait", pthread_cond_wait(cv, m))
#define sync_cond_signal(cv) SYNC_CHECKED("pthread_cond_signal", pthread_cond_signal(cv))
#define sync_cond_broadcast(cv) SYNC_CHECKED("pthread_cond_broadcast", pthread_cond_broadcast(cv))
#define sync_cond_destroy(cv) SYNC_CHECKED("pthread_cond_destroy", pthread_cond_destroy(cv))

#endif
