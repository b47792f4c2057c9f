/*
 * platform.h - the only OS-specific seam of the stub.
 *
 * Everything that differs between Linux and a future macOS port (futexes,
 * robust process-shared mutexes, shared-memory naming and enumeration,
 * process identity) sits behind these few functions; platform_linux.c
 * implements them for Linux, and platform_linux.h sizes the opaque shared
 * lock. (Process-local pthread objects are POSIX, shared by both OSes, and
 * are called through sync.h's checked wrappers.)
 */
#ifndef CANNSTUB_PLATFORM_H
#define CANNSTUB_PLATFORM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* The OS's header defines PLAT_SHARED_LOCK_BYTES (and nothing else). */
#if defined(__linux__)
#include "platform_linux.h"
#else
#error "no platform_<os>.h for this OS: a port adds one, plus platform_<os>.c and its Makefile source list"
#endif

/* CLOCK_MONOTONIC in nanoseconds (the clock of the trace and the harness). */
uint64_t plat_monotonic_ns(void);

/* Kernel thread id of the caller (for traces). */
uint64_t plat_thread_id(void);

/* getpid(), without a system call after the first (a forked child asks again). */
int plat_process_id(void);

/* Blocks while *word == expected and *cancel == cancel_expected, until
 * deadline_ns (CLOCK_MONOTONIC; 0: none). word lives in a shared mapping and
 * is woken by plat_wake_word from any process; cancel is a process-local word
 * woken by plat_wake_local_word. Returns on wake-up, value change, deadline
 * or signal: callers always re-check their condition. Where the OS cannot
 * sleep on two words at once, the sleep is cut every PLAT_CANCEL_RECHECK_NS,
 * which bounds how late a cancel is seen (the shared word still wakes at once). */
#define PLAT_CANCEL_RECHECK_NS (100ull * 1000000ull)
void plat_wait_on_word_or_cancel(uint32_t *word, uint32_t expected, const uint32_t *cancel, uint32_t cancel_expected,
                                 uint64_t deadline_ns);

/* Wakes every waiter (in any process) blocked on word. */
void plat_wake_word(uint32_t *word);
/* Wakes every thread of this process blocked on a cancel word. */
void plat_wake_local_word(uint32_t *word);

/* A lock that lives in shared memory, used by several processes. Opaque:
 * its size is fixed per OS and architecture by the OS's header (it is part
 * of the shared layout of shm.h, so it must not change silently), and only
 * platform_<os>.c looks inside. */
struct plat_shared_lock {
    _Alignas(8) unsigned char opaque[PLAT_SHARED_LOCK_BYTES];
};

/* Initialises a shared lock in shared memory: process-shared and robust. */
int plat_shared_lock_init(struct plat_shared_lock *lock);

/* Locks a shared lock. Returns 0, or 1 when the previous owner died while
 * holding it: the caller must repair the protected state and then call
 * plat_shared_lock_mark_consistent(). Returns -1 when the lock is
 * unrecoverable. Any other failure aborts. */
int plat_shared_lock_lock(struct plat_shared_lock *lock);
void plat_shared_lock_mark_consistent(struct plat_shared_lock *lock);
/* Locks a shared lock that this process cannot vouch for (an object found
 * in /dev/shm), waiting at most timeout_ms. Returns 0 or 1 as
 * plat_shared_lock_lock; otherwise never aborts and returns -1 with *why
 * set: bytes that are not a lock made by plat_shared_lock_init (garbled),
 * held for longer than timeout_ms, or unrecoverable. */
int plat_shared_lock_lock_foreign(struct plat_shared_lock *lock, int timeout_ms, const char **why);
/* Aborts on failure (unlocking a lock the caller does not hold). */
void plat_shared_lock_unlock(struct plat_shared_lock *lock);

/* Initialises a process-local condition variable whose timed waits run on
 * CLOCK_MONOTONIC, so that a step of the wall clock cannot stretch them
 * (macOS: pthread_cond_timedwait_relative_np instead). */
int plat_cond_init_monotonic(pthread_cond_t *cv);
/* Waits on cv (from plat_cond_init_monotonic) until deadline_ns, CLOCK_MONOTONIC. */
void plat_cond_wait_until(pthread_cond_t *cv, pthread_mutex_t *m, uint64_t deadline_ns);

/* Locks a process-local mutex, giving up after timeout_ms. Returns 0 when
 * locked. (macOS has no pthread_mutex_timedlock: a port tries in a loop.) */
int plat_mutex_lock_timeout(pthread_mutex_t *m, int timeout_ms);

/* Identity of a process that survives pid reuse: pid plus its start time. */
struct plat_process_id {
    int32_t pid;
    uint32_t reserved;
    uint64_t start_time;
};
void plat_self_process_id(struct plat_process_id *out);
/* 1 when the process described by id is still running, else 0. */
int plat_process_alive(const struct plat_process_id *id);
/* Closes the descriptors plat_process_alive keeps for the processes it checked (aclFinalize). */
void plat_forget_peers(void);

/* The file this library's code was loaded from (dladdr): the stub's libascendcl.so, or the program
 * itself when the stub was linked into it statically. "" when it cannot tell. */
void plat_self_object_path(char *out, size_t cap);

/* Named shared memory. Names are built by plat_shm_name from a prefix, a
 * 64-bit id and a scope ("" for none; at most SHM_SCOPE_MAX characters, see
 * shm.h) and are at most PLAT_SHM_NAME_MAX bytes including the NUL. */
#define PLAT_SHM_NAME_MAX 64
void plat_shm_name(char out[PLAT_SHM_NAME_MAX], const char *prefix, uint64_t id, const char *scope);
/* Which file a name stood for when it was created or opened: a later
 * plat_shm_reserve by name checks that it still stands for the same one. */
struct plat_shm_file {
    uint64_t dev;
    uint64_t ino;
};
/* Bytes [offset, offset + len) of an object. */
struct plat_range {
    size_t offset;
    size_t len;
};
/* Creates (exclusively) and maps an object of size bytes, zero-filled, with
 * tmpfs pages allocated now for the nreserve ranges only (the rest is a hole:
 * a load or store there allocates a page, or dies by SIGBUS on a full tmpfs).
 * Returns the mapping or NULL (errno set; EEXIST when the name is taken,
 * ENOSPC when the reserve does not fit). *file may be NULL. */
void *plat_shm_create(const char *name, size_t size, const struct plat_range *reserve, int nreserve,
                      struct plat_shm_file *file);
/* Opens and maps an existing object; fails (NULL, errno) if absent or
 * smaller than min_size. *age_ns receives the time since its last status
 * change (creation), for reclaiming objects whose creator died mid-create.
 * age_ns and file may be NULL. */
void *plat_shm_open(const char *name, size_t min_size, size_t *size_out, uint64_t *age_ns, struct plat_shm_file *file);
/* Allocates the tmpfs pages of bytes [offset, offset + len) of the object
 * that name stood for (file): 0, or -1 with errno (ENOSPC: the tmpfs is
 * full; ENOENT or ESTALE: the name is gone or stands for another file now).
 * Never follows a link. */
int plat_shm_reserve(const char *name, const struct plat_shm_file *file, size_t offset, size_t len);
/* The size of a page of shared memory (a multiple of which reserves waste nothing). */
size_t plat_page_size(void);
/* Whether an object may be reclaimed by this process: its owner is this
 * process's user and nobody else can write it (mode 0600, as created).
 * Returns 1, 0 with *why set (another owner and others may open it, a
 * wider mode, not a regular file), or -1 with errno: EACCES for another
 * user's private object (nothing to say), ENOENT when it is gone. */
int plat_shm_is_own(const char *name, char *why, size_t why_len);
void plat_shm_unmap(void *addr, size_t size);
int plat_shm_unlink(const char *name);
/* Calls fn(name, ctx) for every existing object whose name starts with
 * prefix (names passed with their leading '/'). */
void plat_shm_for_each(const char *prefix, void (*fn)(const char *name, void *ctx), void *ctx);

/* Address-space reservations (VMM, vmm.c). plat_vm_reserve reserves size
 * bytes (a multiple of the page) of inaccessible address space: anywhere,
 * aligned to align (a power of two), when at is NULL; exactly at at
 * otherwise, failing (NULL, errno EEXIST) when something is mapped there.
 * plat_vm_map_shm maps bytes [offset, offset + size) of the named object (a
 * regular file of this user, else EINVAL) read-write and shared over
 * [addr, addr + size) of a reservation;
 * plat_vm_unmap_shm puts the reservation back there. 0 or -1 (errno). */
void *plat_vm_reserve(void *at, size_t size, size_t align);
int plat_vm_release(void *addr, size_t size);
int plat_vm_map_shm(void *addr, size_t size, const char *name, size_t offset);
int plat_vm_unmap_shm(void *addr, size_t size);

/* 64 random bits (for object ids). */
uint64_t plat_random_u64(void);

#endif
