/*
 * watch.h - the device process's native watchdog in libcannharness_hold.so
 * (harness/parent-watch.ts starts it in device processes, harness/preload/preload.c in native
 * roles; native-stub/README.md lists the exports).
 *
 * One detached thread per process that, every CANNHARNESS_WATCH_POLL_MS:
 *  - stops an orphan: when getppid() is no longer the orchestrator's pid, it
 *    removes the scenario directory (unless keep; never following symlinks)
 *    and SIGKILLs its process group, then itself;
 *  - answers hang reports: when <dir>/hang/request holds a new id, it writes
 *    <dir>/hang/<role>.<pid>.json (the format src/wire/hang-files.ts
 *    decodes): the call records below, /proc/self/task, and the stub's live
 *    view of this process's streams.
 * It runs no JavaScript, so it works while the main thread is blocked in a
 * native call or spins in a loop.
 */
#ifndef CANNHARNESS_WATCH_H
#define CANNHARNESS_WATCH_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CANNHARNESS_WATCH_POLL_MS 50
/* One call record (src/acl/call-record.ts): int32 seq, active, text length,
 * open latches; int64 since (ns); 1024 bytes of UTF-8 "name\nargs". */
#define CANNHARNESS_CALL_RECORD_BYTES 1048
/* Worker threads of a role (src/scenario/plan.ts caps `threads` at 64). */
#define CANNHARNESS_THREAD_RECORDS 64

/*
 * The process's call records, owned by the library (static, never freed):
 * slot 0 is the main thread's, slot 1 + t worker thread t's, each
 * CANNHARNESS_CALL_RECORD_BYTES long and 8-byte aligned. Written by the
 * binding with a seqlock (word 0 odd while writing), read by the watchdog.
 */
void *cannharness_call_records(void);
/* Total bytes behind cannharness_call_records() (a layout check for callers). */
size_t cannharness_call_records_bytes(void);

/*
 * The path of the ACL library this process loaded: the watchdog looks up the
 * stub's cannstub_live_view in it (dlopen RTLD_NOLOAD, so it never loads a
 * library itself). 0, or -EINVAL (NULL), -ENAMETOOLONG (PATH_MAX or longer).
 * May be called before or after cannharness_watch_start, and again.
 */
int cannharness_watch_set_library(const char *path);

/*
 * Starts the watchdog thread, once per process. expected_ppid is the
 * orchestrator's pid (never getppid() at start-up: the parent may already
 * be dead). dir is the scenario directory (NULL: nothing to remove, no hang
 * reports), keep != 0 leaves it in place, role names the answers (NULL: no
 * hang reports). Checks the parent once before it returns: an orphan never
 * returns from this call. Returns 0; -EALREADY if a watchdog already runs
 * (it keeps its arguments); -EINVAL (expected_ppid <= 0, empty dir or role,
 * or a CANNHARNESS_WATCH_FAULT it does not understand: a test hook);
 * -ENAMETOOLONG (dir or role too long); or pthread_create's error, negated.
 */
int cannharness_watch_start(int expected_ppid, const char *dir, int keep, const char *role);

#ifdef __cplusplus
}
#endif

#endif
