/*
 * support.h - helpers shared by the conformance cases: clocks, the per-case
 * temp directory, atomically published files, helper processes, ACL set-up,
 * and "gates" (host functions that hold a stream until the test releases them).
 */
#ifndef CONFORMANCE_SUPPORT_H
#define CONFORMANCE_SUPPORT_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "acl/acl.h"
#include "ctest.h"
#include "cannstub/live_view.h"

/* Stub-only exports are weak references: the runner also runs against a libascendcl.so without
 * them (not the stub), where the cases that call them are left out (CT_STUB_CASE). */
#pragma weak cannstub_live_view

#define PATH_CAP 512

/* How long a helper waits for a file / a peer before failing (ms). */
#define PEER_TIMEOUT_MS 10000
/* How long we watch a blocked stream or event to see that it stays blocked (ms). */
#define BLOCK_PROBE_MS 150

/* ---- a /dev/shm of our own ---- */
/* Enters a user and mount namespace of its own where /dev/shm is a new tmpfs of size (e.g. "256k"): 0, or -1 when
 * this machine allows no such namespace (the caller skips). Children inherit it. */
int enter_own_dev_shm(const char *size);
/* Fills /dev/shm (one of our own) with /dev/shm/filler until it is full. */
void fill_dev_shm(void);

/* ---- time ---- */
uint64_t now_ns(void);
void sleep_ms(unsigned ms);
/* 1 while thread tid of this process sleeps in a futex syscall (/proc/self/task/<tid>/syscall). */
int thread_sleeps_in_futex(pid_t tid);

/* ---- per-case temp directory (removed when the process that made it ends) ---- */
const char *case_dir(void);
void path_join(char out[PATH_CAP], const char *dir, const char *name);

/* ---- files published atomically (write temp, fsync, rename) ---- */
void publish_bytes(const char *dir, const char *name, const void *data, size_t len);
void publish_u64(const char *dir, const char *name, uint64_t value);
void publish_flag(const char *dir, const char *name);
/* Waits (1 ms polls, test side only) until dir/name exists and returns its
 * size after reading at most cap bytes into buf; fails after timeout_ms. */
size_t await_file(const char *dir, const char *name, void *buf, size_t cap, int timeout_ms);
uint64_t await_u64(const char *dir, const char *name, int timeout_ms);
void await_flag(const char *dir, const char *name, int timeout_ms);
int file_exists(const char *dir, const char *name);

/* ---- helper processes (fork + immediate exec; tracked and killed on failure) ---- */
/* env: NULL-terminated "NAME=VALUE" entries to set, or "NAME" to unset. */
pid_t spawn_role(const char *role, const char *const *args, const char *const *env);
pid_t spawn_program(const char *path, const char *const *argv, const char *const *env, const char *cwd,
                    const char *log_path);
/* Exit code of pid (128 + signal when killed); fails the case on timeout. */
int wait_exit(pid_t pid, int timeout_ms);
void expect_exit(pid_t pid, int expected_code, int timeout_ms);
/* Directory holding the conformance binary (build/bin). */
const char *self_dir(void);
const char *self_exe(void);

/* ---- ACL set-up ---- */
void acl_up(int32_t device);   /* aclInit(NULL) + aclrtSetDevice(device); finalized at teardown */
void acl_init_only(void);     /* aclInit(NULL) only; finalized at teardown */
void acl_down(void);           /* aclFinalize now (expects success) */
void acl_forget(void);         /* the case finalized on its own */
aclrtStream stream_new(void);
aclrtEvent ipc_event_new(void);
aclrtEvent local_event_new(void);
aclrtIpcEventHandle handle_of(aclrtEvent event);
aclrtEvent ipc_open(aclrtIpcEventHandle handle);
/* Declares the stub's shared-memory object of this handle as ours: a line
 * "ct-owned-path: /dev/shm/<prefix><id>" that the runners check is gone once
 * the case ended (ipc_event_new and ipc_open do this on their own). */
void declare_owned(const aclrtIpcEventHandle *h);
/* The stub names an IPC event's object after handle bytes 0..7 (native-stub/README.md). */
#define STUB_SHM_EVENT_PREFIX "cannstub-ev-"
/* The POSIX name the stub gives the object of prefix and id in this
 * process's ACL_STUB_SCOPE: "/<prefix><16 hex>[.<scope>]" (native-stub/README.md). */
void stub_object_name(char out[64], const char *prefix, uint64_t id);
/* 1 while the stub's shared-memory object of this handle exists in /dev/shm. */
int stub_object_exists(const aclrtIpcEventHandle *h);
int handles_equal(const aclrtIpcEventHandle *a, const aclrtIpcEventHandle *b);
/* Export keys of IPC memory and notifies: 64 characters and a NUL. */
#define EXPORT_KEY_LEN 65
/* Declares the stub's shared-memory object named by an export key as ours
 * (a "ct-owned-path:" line, as declare_owned does for an IPC event). */
void declare_key_owned(const char *key);
/* 1 while the stub's shared-memory object named by an export key exists. */
int key_object_exists(const char *key);
/* Runs fn(arg) on a new thread (which has no current device) and joins it. */
void run_in_thread(void (*fn)(void *), void *arg);

/* ---- gates and stamps ---- */
/* A host function that does nothing (for aclrtLaunchHostFunc). */
void noop_host_fn(void *arg);

struct gate;
/* Launches a host function on stream that blocks it until gate_release(). */
struct gate *gate_hold(aclrtStream stream);
/* Unblocks the host function; returns the release time (taken just before). */
uint64_t gate_release(struct gate *g);
/* 1 once the host function started running on the stream. */
int gate_entered(struct gate *g);
void gate_await_entered(struct gate *g);

struct stamp {
    uint64_t ns; /* written by the host function (atomically), 0 until it ran */
};
/* Launches a host function that stores CLOCK_MONOTONIC into st when it runs. */
void stamp_launch(aclrtStream stream, struct stamp *st);
uint64_t stamp_read(struct stamp *st);

/* Expects stream to stay blocked: synchronize with a short timeout -> 507046. */
#define EXPECT_STREAM_BLOCKED(stream) \
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout((stream), BLOCK_PROBE_MS))
#define EXPECT_STREAM_DRAINS(stream) CT_OK(aclrtSynchronizeStreamWithTimeout((stream), PEER_TIMEOUT_MS))

/* aclrtQueryEventStatus(e), expected to succeed. */
aclrtEventRecordedStatus query_status(aclrtEvent e);
#define EXPECT_COMPLETE(e) CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, query_status(e))
#define EXPECT_NOT_READY(e) CT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, query_status(e))

/* Expects `later` to be at or after `earlier` (two CLOCK_MONOTONIC stamps). */
#define EXPECT_AFTER(later, earlier)                                                                                \
    do {                                                                                                            \
        uint64_t l_ = (later), e_ = (earlier);                                                                      \
        if (l_ == 0 || l_ < e_)                                                                                     \
            CT_FAIL("%s (%llu ns) is not after %s (%llu ns): it ran %.3f ms too early", #later,                     \
                    (unsigned long long)l_, #earlier, (unsigned long long)e_, l_ ? (double)(e_ - l_) / 1e6 : -1.0); \
    } while (0)

#endif
