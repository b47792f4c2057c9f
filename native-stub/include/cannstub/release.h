/*
 * cannstub/release.h - a stub-only extension: NOT part of CANN's API, and
 * not declared by any acl/ header (docs/acl-contract.md section 7).
 *
 * A process about to be killed (the harness's watchdog, harness/hold/watch.c, when
 * the orchestrator died) cannot run aclFinalize: its shared-memory objects
 * (/dev/shm/cannstub-*) would stay until some later aclInit reclaims them.
 * This call leaves them first, as aclFinalize would, so that the last user
 * out unlinks each one. Real CANN has no such call; callers look it up with
 * dlsym and do without it.
 */
#ifndef CANNSTUB_RELEASE_H
#define CANNSTUB_RELEASE_H

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Leaves every shared object this process uses (it stays mapped: other
 * threads may still touch it) and unlinks those it was the last user of.
 * Waits at most timeout_ms for each lock and skips an object whose lock
 * stays held. Returns how many objects it skipped, or -1 when the
 * process's own list stayed locked for timeout_ms (nothing released).
 * Later releases of the same objects do nothing.
 */
int cannstub_release_shared(int timeout_ms);

#ifdef __cplusplus
}
#endif

#endif
