/*
 * platform.h - the only OS-specific seam of the stub.
 *
 * Everything that differs between Linux and a future macOS port (futexes,
 * robust process-shared mutexes, shared-memory naming and enumeration,
 * process identity) sits behind these few functions; platform_linux.c
 * implements them for Linux.
 */
#ifndef CANNSTUB_PLATFORM_H
#define CANNSTUB_PLATFORM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

/* CLOCK_MONOTONIC in nanoseconds (the clock of the trace and the harness). */
uint64_t plat_monotonic_ns(void);

/* Kernel thread id of the caller (for traces). */
uint64_t plat_thread_id(void);

/* Blocks while *word == expected, across processes (word lives in a shared
 * mapping), for at most timeout_ns (< 0: no limit). Returns on wake-up,
 * value change, timeout or signal: callers always re-check their condition. */
void plat_wait_on_word(uint32_t *word, uint32_t expected, int64_t timeout_ns);

/* Wakes every waiter (in any process) blocked on word. */
void plat_wake_word(uint32_t *word);

/* Initialises a mutex in shared memory: process-shared and robust. */
int plat_shared_mutex_init(pthread_mutex_t *m);

/* Locks a shared mutex. Returns 0, or 1 when the previous owner died while
 * holding it: the caller must repair the protected state and then call
 * plat_shared_mutex_mark_consistent(). Returns -1 on failure. */
int plat_shared_mutex_lock(pthread_mutex_t *m);
void plat_shared_mutex_mark_consistent(pthread_mutex_t *m);
void plat_shared_mutex_unlock(pthread_mutex_t *m);

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

/* Named shared memory. Names are built by plat_shm_name from a prefix and a
 * 64-bit id and are at most PLAT_SHM_NAME_MAX bytes including the NUL. */
#define PLAT_SHM_NAME_MAX 64
void plat_shm_name(char out[PLAT_SHM_NAME_MAX], const char *prefix, uint64_t id);
/* Creates (exclusively) and maps an object of size bytes, zero-filled.
 * Returns the mapping or NULL (errno set; EEXIST when the name is taken). */
void *plat_shm_create(const char *name, size_t size);
/* Opens and maps an existing object; fails (NULL, errno) if absent or
 * smaller than min_size. *age_ns receives the time since its last status
 * change (creation), for reclaiming objects whose creator died mid-create. */
void *plat_shm_open(const char *name, size_t min_size, size_t *size_out, uint64_t *age_ns);
void plat_shm_unmap(void *addr, size_t size);
int plat_shm_unlink(const char *name);
/* Calls fn(name, ctx) for every existing object whose name starts with
 * prefix (names passed with their leading '/'). */
void plat_shm_for_each(const char *prefix, void (*fn)(const char *name, void *ctx), void *ctx);

/* 64 random bits (for object ids). */
uint64_t plat_random_u64(void);

#endif
