/*
 * barrier.h - the round barrier of `rounds` scenarios (README "Soak
 * rounds"): every role's device process meets every other at the start and
 * the end of each round. A futex in a small file that the orchestrator
 * creates exclusively (0600) in the scenario directory, mapped MAP_SHARED by
 * each device process: a wake-up costs what the stub's own wake-ups cost,
 * and the file goes with the scenario directory (nothing in /dev/shm).
 *
 * File layout (little-endian uint32 words, CANNHARNESS_BARRIER_BYTES long;
 * the orchestrator writes magic and parties, the rest starts zeroed):
 *   0 magic, 1 parties, 2 arrived, 3 generation, 4 broken (0, or the
 *   1-based index of the party that broke it), 5 held (1 while a holder
 *   waits for the others), 6-7 the crossing's tag and first party (a
 *   uint64), 8-11 a tag mismatch (see cannharness_barrier_wait_tagged).
 */
#ifndef CANNHARNESS_BARRIER_H
#define CANNHARNESS_BARRIER_H

#ifdef __cplusplus
extern "C" {
#endif

#define CANNHARNESS_BARRIER_MAGIC 0x52424843u /* "CHBR" */
#define CANNHARNESS_BARRIER_BYTES 64

/*
 * Maps the barrier file at path (never through a symlink; it must be a
 * regular file of this user, mode 0600, with the magic and a party count
 * from 1 to 4096). Returns the mapping, or NULL with errno: ELOOP (a link),
 * EPERM (not ours, or group/other may access it), EINVAL (bad size, magic
 * or parties), or open/mmap's errno.
 */
void *cannharness_barrier_attach(const char *path);
/* The party count written by the orchestrator. */
int cannharness_barrier_parties(void *barrier);
/*
 * Arrives and waits for every party. 0 once all arrived; -ETIMEDOUT after
 * timeout_ms (< 0: no limit); -EPIPE when a party broke the barrier (before
 * or while waiting): the caller reads who with cannharness_barrier_broken.
 */
int cannharness_barrier_wait(void *barrier, int timeout_ms);
/*
 * Arrives and waits until every other party arrived, but does not let them
 * go: on 0 the caller runs alone while every other party sleeps in this
 * crossing (their waits return only after cannharness_barrier_release, which
 * the caller must call). One holder per crossing at most. Errors as for
 * cannharness_barrier_wait; after -ETIMEDOUT the caller breaks the barrier.
 */
int cannharness_barrier_hold(void *barrier, int timeout_ms);
/*
 * As wait and hold, with the crossing's tag (what the caller meets, e.g. the
 * round and the how-manieth ctx.barrier() of it; 0: not checked) and the
 * caller's party (1-based): every party of a crossing must bring the first
 * one's tag. One that brings another breaks the barrier and gets -EPROTO;
 * the others get -EPIPE; cannharness_barrier_mismatch says who met what.
 */
int cannharness_barrier_wait_tagged(void *barrier, unsigned int tag, int party, int timeout_ms);
int cannharness_barrier_hold_tagged(void *barrier, unsigned int tag, int party, int timeout_ms);
/* 1 and out = {first arriver's tag, its party, the other tag, its party} after a tag mismatch, else 0. */
int cannharness_barrier_mismatch(void *barrier, unsigned int out[4]);
/* Ends a crossing held by cannharness_barrier_hold: every party goes on. */
void cannharness_barrier_release(void *barrier);
/* Breaks the barrier for good (party: 1-based, who broke it) and wakes every waiter. */
void cannharness_barrier_break(void *barrier, int party);
/* 0, or the party that broke it. */
int cannharness_barrier_broken(void *barrier);
void cannharness_barrier_detach(void *barrier);

#ifdef __cplusplus
}
#endif

#endif
