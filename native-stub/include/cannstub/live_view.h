/*
 * cannstub/live_view.h - a stub-only extension: NOT part of CANN's API, and
 * not declared by any acl/ header (docs/acl-contract.md section 7, S11).
 *
 * The real runtime has no way to ask "what is each stream of this process
 * doing right now"; the harness's hang report (issue #11) asks the stub for
 * it and falls back to the stub's trace files, or to nothing, elsewhere.
 * A program that must also run with real CANN looks it up with dlsym.
 */
#ifndef CANNSTUB_LIVE_VIEW_H
#define CANNSTUB_LIVE_VIEW_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* How long cannstub_live_view waits for the runtime's lock before giving up. */
#define CANNSTUB_LIVE_VIEW_LOCK_MS 500

/*
 * Writes a JSON object describing every stream of the calling process into
 * buf (always NUL-terminated when len > 0):
 *
 *   {"pid":P,"now_ns":"N","streams":[{"stream":S,"device":D,"destroyed":B,
 *     "sync_waiters":W,"head":TASK|null,"queued":[TASK...],"queued_total":Q}]}
 *
 * "head" is the task the stream's executor runs ("state":"running", with
 * "since_ns") or, if it has not taken it yet, the first queued one
 * ("state":"queued"); "queued" lists up to 32 tasks behind it, in order.
 * A TASK is {"task":N,"kind":K,...}, K as in the trace (record, wait,
 * ipc_record, ipc_wait, host_func, ...), plus for events "event" and "gen",
 * and for IPC tasks "ipc" (the handle's id, as in the trace), "slot", and
 * for an IPC wait "recorder":{"pid":P,"stream":S} (the process and stream
 * whose record it waits for; null if unknown). Times are CLOCK_MONOTONIC ns.
 *
 * Safe from any thread, also while another thread is blocked in a
 * synchronize call of the same process. Returns the length of the JSON text
 * (snprintf's rule: a value >= len means it was cut; call again with a
 * larger buffer), -1 if buf is NULL or len is 0, -2 if the runtime's lock
 * stayed held for CANNSTUB_LIVE_VIEW_LOCK_MS.
 */
int cannstub_live_view(char *buf, size_t len);

/*
 * What one stream's executor is doing now, for a check that a wait really
 * blocks (the harness's assertBlocked), which a synchronize timeout alone
 * cannot tell from an executor that has not run yet:
 *   1  its running task is a wait (event, IPC event, notify or value wait)
 *      that found what it waits for still pending and sleeps on it;
 *   2  its running task is a host function (it may block as long as it
 *      likes: a latch);
 *   0  anything else: idle, its next task not taken yet, or a running task
 *      that ends by itself (a wait that did not block included).
 * stream NULL is the calling thread's current context's default stream.
 * -1: not a live stream of this process (or none yet for NULL); -2: the
 * runtime's lock stayed held for CANNSTUB_LIVE_VIEW_LOCK_MS. Safe from any
 * thread; it only reads.
 */
int cannstub_stream_blocked(void *stream);

#ifdef __cplusplus
}
#endif

#endif
