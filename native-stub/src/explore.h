/*
 * explore.h - the schedule explorer (ACL_STUB_EXPLORE, parsed at aclInit;
 * cannstub/explore.h is its public half, docs/dev/schedule-explorer.md the
 * design). Parties stop at points until the scheduler grants them, one at a
 * time; the scheduler's state lives in a file shared by every process of a
 * run. When off, every hook below costs one relaxed load of explore_on.
 *
 * Lock order: rt.lock, then the explore file's lock. Nothing here ever
 * waits while the caller holds rt.lock: only the point functions wait, and
 * they are called without it (block, unblock and register never wait).
 */
#ifndef CANNSTUB_EXPLORE_H
#define CANNSTUB_EXPLORE_H

#include <stdint.h>

#include "cannstub/explore.h"

extern int explore_on; /* 1 while ACL_STUB_EXPLORE is in effect */

#define EXPLORE_ON() __builtin_expect(__atomic_load_n(&explore_on, __ATOMIC_RELAXED), 0)
/* A point at the entry of an ACL call (never with rt.lock held). */
#define EXPLORE_API(call)            \
    do {                             \
        if (EXPLORE_ON())            \
            explore_api_entry(call); \
    } while (0)
/* The calling thread is about to sleep in a wait the stub knows (rt.lock may be held). */
#define EXPLORE_WAIT(what)             \
    do {                               \
        if (EXPLORE_ON())              \
            explore_wait_begins(what); \
    } while (0)
/* The calling thread (a party already) sleeps on rt.progress (rt_wait_progress, rt.lock held):
 * BLOCKED until a broadcast of rt.progress makes it RUNNING again (EXPLORE_PROGRESS). */
#define EXPLORE_PROGRESS_SLEEP()      \
    do {                              \
        if (EXPLORE_ON())             \
            explore_progress_sleep(); \
    } while (0)
/* rt.progress is broadcast (rt.lock held): this process's parties asleep on it are RUNNING. */
#define EXPLORE_PROGRESS()            \
    do {                              \
        if (EXPLORE_ON())             \
            explore_progress_woken(); \
    } while (0)
/* A point where a call returns, if it slept since its entry (never with rt.lock held). */
#define EXPLORE_RETURN(call)          \
    do {                              \
        if (EXPLORE_ON())             \
            explore_api_return(call); \
    } while (0)

/* Parses ACL_STUB_EXPLORE and ACL_STUB_EXPLORE_STALL_MS, attaches the file
 * (rt.lock held, at aclInit, after jitter_configure). 0, or -1 with a reason. */
int explore_configure(char *err, unsigned long errlen);

void explore_api_entry(const char *call);
void explore_wait_begins(const char *what);
void explore_api_return(const char *call);
void explore_progress_sleep(void);
void explore_progress_woken(void);
/* The calling thread (a party already) sleeps on a word another process wakes: BLOCKED as `key`,
 * which the waker passes to cannstub_explore_wake. */
void explore_keyed_sleep(const char *key);
/* The key of an IPC event slot's waiters: "ipc <16 hex id>:<slot>", the same in every process. */
#define EXPLORE_KEY_BYTES 48
void explore_ipc_key(char key[EXPLORE_KEY_BYTES], uint64_t shm_id, uint32_t slot);

/* A new stream's executor (rt.lock held, in stream_create): registers its
 * party "stream<i>" (BLOCKED until its first point); its index, or -1. */
int explore_executor_register(int is_default);
/* The executor thread takes the party registered for it. */
void explore_executor_adopt(int party);
/* An idle executor (BLOCKED) was given a task: it is RUNNING again, so no
 * decision is taken before it reaches the task's start (rt.lock held). */
void explore_executor_unblock(int party);
/* aclFinalize: every party of this process leaves. */
void explore_leave_process(void);

#endif
