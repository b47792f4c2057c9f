/*
 * cannharness.h - the C API for native roles of cann-ipc-harness
 * (libcannharness.so: link with `-lcannharness`, see README "The C API for
 * native roles"). No libascendcl dependency: it works with the stub and with
 * real CANN alike, and a TypeScript role of the same scenario sees what a C
 * role publishes, and the other way round (the file layout of
 * src/rendezvous/README.md).
 *
 * Every call reads its settings from the environment the harness gives a
 * role: CANN_HARNESS_DIR (the scenario directory; required),
 * CANN_HARNESS_ROLE (required by cannharness_mark) and
 * CANN_HARNESS_DEADLINE_NS (absolute CLOCK_MONOTONIC ns where awaits give
 * up; unset = no deadline, e.g. a manual run). The harness sets it after its
 * own deadline, hang report and grace period: it owns the deadline, so a role
 * still waiting at the scenario's deadline is stopped and reported as a
 * timeout, its wait named in the wait-for graph. While an await blocks under
 * the harness (LD_PRELOAD of libcannharness_preload.so), the hang report sees
 * it: "awaits signal "<name>"" and, when the run tells, from which role.
 *
 * Names (values, signals, marks' roles) follow the rendezvous rules: 1-200
 * characters from A-Z a-z 0-9 _ - . @, not starting with '.'. Mark names are
 * 1-200 bytes without control characters.
 *
 * Every call returns CANNHARNESS_OK (0) or a negative cannharness_error, and
 * on failure prints one line on stderr naming the call, the name, the file
 * and the fix: "cannharness: <call>("<name>"): <why> (CANNHARNESS_E...)".
 * All calls are thread-safe.
 */
#ifndef CANNHARNESS_H
#define CANNHARNESS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* XX(name, value, description): the error codes, in one table. */
#define CANNHARNESS_ERROR_MAP(XX)                                                            \
    XX(EINVAL, -1, "invalid argument (a NULL pointer, or a name outside the rules)")         \
    XX(ENOENV, -2, "CANN_HARNESS_DIR or CANN_HARNESS_ROLE is unset or invalid")              \
    XX(EDEADLINE, -3, "CANN_HARNESS_DEADLINE_NS is not a decimal number of nanoseconds")     \
    XX(ETIMEDOUT, -4, "the scenario deadline passed before the awaited file appeared")       \
    XX(E2BIG, -5, "the published value is larger than the buffer")                           \
    XX(EUNSAFE, -6, "refused a symbolic link, a non-regular file or a file of another user") \
    XX(EREMOVED, -7, "the directory being watched was removed (the scenario is over)")       \
    XX(ESYS, -8, "a system call failed (its errno is in the message)")

typedef enum {
    CANNHARNESS_OK = 0,
#define CANNHARNESS_ERROR_ENUM(name, value, text) CANNHARNESS_##name = (value),
    CANNHARNESS_ERROR_MAP(CANNHARNESS_ERROR_ENUM)
#undef CANNHARNESS_ERROR_ENUM
} cannharness_error;

/* What a code means ("unknown error code" for others); never NULL. */
const char *cannharness_strerror(int code);
/* The code's name, e.g. "CANNHARNESS_ETIMEDOUT" ("CANNHARNESS_OK" for 0, "?" for others). */
const char *cannharness_err_name(int code);

/*
 * Publishes len bytes (e.g. a 64-byte aclrtIpcEventHandle) as
 * handles/<name>: written to a new temporary file (created exclusively,
 * never through a link), flushed, then renamed into place, so a reader sees
 * no file or the whole value. Publishing again replaces it atomically.
 * data may be NULL when len is 0. A TypeScript role reads it with
 * ctx.rendezvous.await(name), or ctx.openSharedEvent(name) for a handle.
 */
int cannharness_publish(const char *name, const void *data, size_t len);

/*
 * Waits until handles/<name> exists, then copies it into buf (cap bytes) and
 * sets *len to its size. Blocks in the library (inotify; a 25 ms re-check
 * only where inotify is unavailable) until the value appears or the scenario
 * deadline passes (CANNHARNESS_ETIMEDOUT). A value larger than cap:
 * CANNHARNESS_E2BIG, *len set to its size, buf untouched. buf may be NULL
 * when cap is 0.
 */
int cannharness_await(const char *name, void *buf, size_t cap, size_t *len);

/* Sends the one-shot signal <name> (an empty signals/<name>), as ctx.signal does. */
int cannharness_signal(const char *name);

/* Waits for signal <name> (from any role, C or TypeScript) like cannharness_await. */
int cannharness_await_signal(const char *name);

/*
 * Records mark <name> now (CLOCK_MONOTONIC ns, the clock of the stub's trace
 * and of TypeScript marks): one line "<ns> <name>\n" appended to
 * marks/<role>.<pid>.marks. The harness adds the marks to the role's result,
 * for the happens-before check and toHaveMarkOrder.
 */
int cannharness_mark(const char *name);

/*
 * IPC memory and notify keys, shared with TypeScript roles both ways (a
 * TypeScript role's ctx.openSharedMemory / openSharedNotify reads what these
 * publish, and these read what ctx.shareMemory / shareNotify publish). The
 * record under <name> is one format, defined once (src/wire/shared-record.ts):
 *
 *   cann-harness shared 1\n
 *   kind memory\n            (or: kind notify)
 *   key <export key>\n       (as aclrtIpcMemGetExportKey / aclrtNotifyGetExportKey wrote it)
 *   bytes <size>\n           (memory only: the importer's buffer size)
 *   from <role>\n            (CANN_HARNESS_ROLE of the exporter)
 *
 * Share: the key is 1-1024 bytes without control characters (EINVAL).
 * Await: blocks like cannharness_await; copies the key (NUL-terminated) into
 * key (key_cap bytes: CANNHARNESS_E2BIG if it does not fit) and the size
 * into *bytes (may be NULL); EINVAL when <name> holds something else.
 *
 * VMM physical memory (ctx.sharePhysical / openSharedPhysical) uses the same
 * record with "kind physical", the key the uint64_t shareable handle of
 * aclrtMemExportToShareableHandle in decimal, and "bytes" the mapped size; the
 * C API has no share/await call for it yet: publish and read the record with
 * cannharness_publish / cannharness_await (docs/guide/vmm.md, "In a scenario").
 *
 * Whitelists: a TypeScript exporter (pid validation on, the default) awaits
 * the pid of each importer under "@pid.<role>": a C importer publishes it
 * with cannharness_publish_pid(<aclrtDeviceGetBareTgid's pid>) before it
 * awaits the key. A C exporter reads a TypeScript importer's pid with
 * cannharness_await("@pid.<role>", ...) (decimal text).
 */
int cannharness_share_memory(const char *name, const char *key, size_t bytes);
int cannharness_await_memory(const char *name, char *key, size_t key_cap, size_t *bytes);
int cannharness_share_notify(const char *name, const char *key);
int cannharness_await_notify(const char *name, char *key, size_t key_cap);
/* Publishes pid (decimal) as "@pid.<CANN_HARNESS_ROLE>" (ENOENV without a role). */
int cannharness_publish_pid(int pid);

#ifdef __cplusplus
}
#endif

#endif
