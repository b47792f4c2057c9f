/*
 * cannstub/explore.h - a stub-only extension: NOT part of CANN's API, and
 * not declared by any acl/ header (docs/acl-contract.md section 7, S19).
 *
 * The schedule explorer (docs/dev/schedule-explorer.md): under
 * ACL_STUB_EXPLORE every party (a thread that reaches explored points: a
 * role's main thread, a worker thread, a stream's executor) stops at each
 * point until the scheduler grants it, one party at a time, in an order
 * chosen by PCT from a seed, or replayed from a recorded schedule. The
 * scheduler lives in a file the orchestrator creates (exactly
 * CANNSTUB_EXPLORE_BYTES bytes, zero-filled, mode 0600), shared by every
 * process of a scenario run. Identities: "<CANN_HARNESS_ROLE or proc>/<name>".
 */
#ifndef CANNSTUB_EXPLORE_H_PUBLIC
#define CANNSTUB_EXPLORE_H_PUBLIC

#ifdef __cplusplus
extern "C" {
#endif

/* The size of the explore file (the TypeScript side's constant must equal it). */
#define CANNSTUB_EXPLORE_BYTES (1024 * 1024)

/* 1 when ACL_STUB_EXPLORE was set at aclInit, else 0. */
int cannstub_explore_enabled(void);
/* Names the calling thread's party "<role>/<name>" (name: 1..62 characters of [A-Za-z0-9._-]);
 * 0, or -1 when off or the name is bad. */
int cannstub_explore_name_thread(const char *name);
/* The calling thread is at a point (what: a short description): returns 0 once granted, -1 at once
 * when off. */
int cannstub_explore_point(const char *what);
/* The calling thread waits outside the points (BLOCKED) until its next point; never waits. */
int cannstub_explore_block(const char *what);
/* Every party BLOCKED with exactly this `what` (the text it gave cannstub_explore_block, cut to 47
 * characters) is RUNNING again: it is about to wake and reach a point, so no decision is taken
 * without it. Called by the waker right after the effect. How many it woke, or -1 when off. */
int cannstub_explore_wake(const char *what);
/* The calling thread leaves for good (it ends). */
int cannstub_explore_leave(void);
/* Starts round `round`'s schedule: called by one party while every other party is blocked (the
 * round barrier's holder). In replay mode the recorded schedule starts again, whatever `round`. */
int cannstub_explore_round(unsigned long long round);
/* How many rounds so far (the current one included) had a party leave the explored points or
 * another "degraded" note: their order was not fully controlled. The first such round and its note
 * (NUL-terminated, cut to len) go to *first_round and first (either may be NULL); -1 when off. */
long cannstub_explore_degraded(unsigned long long *first_round, char *first, unsigned long len);
/* Writes the current round's schedule text into buf (NUL-terminated when len > 0); returns the
 * length it needs (call again with a bigger buffer when >= len), or -1 when off. */
long cannstub_explore_schedule(char *buf, unsigned long len);

#ifdef __cplusplus
}
#endif

#endif
