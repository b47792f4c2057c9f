/*
 * cases_lazy_shm.c - the /dev/shm pages of an IPC event are allocated as its
 * users and slots need them (contract rule S20): a fresh event costs a few
 * pages, its tables grow under the lock, every page below a watermark is
 * allocated (a store or load of a hole on a full tmpfs dies by SIGBUS), a
 * full /dev/shm fails the record that needs a new page with 207001, and a
 * process killed mid-growth leaves a consistent object.
 *
 * The checks read the object's header through pread (which never allocates a
 * hole's page), at the offsets of native-stub/src/shm.h and ipc_event.h.
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "the stub's /dev/shm objects and their allocation (contract S20)"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "support.h"

/* The layout of shm.h's shm_header and ipc_event.h's ipc_shared (x86-64 and aarch64). */
#define USERS_OFFSET (32 + sizeof(pthread_mutex_t) + 16 + 16)
#define USERS_USED_OFFSET (USERS_OFFSET - 12)
#define USERS_BACKED_OFFSET (USERS_OFFSET - 8)
#define USER_BYTES 16
#define HEADER_BYTES (USERS_OFFSET + 16384 * USER_BYTES)
#define SLOTS_BACKED_OFFSET (HEADER_BYTES + 4)
#define SLOTS_OFFSET (HEADER_BYTES + 8)
#define SLOT_BYTES 24
#define SLOTS 8192

static aclrtIpcEventHandle await_handle(const char *dir, const char *name)
{
    aclrtIpcEventHandle h;
    size_t n = await_file(dir, name, &h, sizeof h, PEER_TIMEOUT_MS);
    if (n != sizeof h)
        CT_FAIL("%s/%s holds %zu bytes, expected a 64-byte handle", dir, name, n);
    return h;
}

static int object_fd(aclrtIpcEventHandle h)
{
    uint64_t id;
    memcpy(&id, h.reserved, sizeof id);
    char name[64], path[128];
    stub_object_name(name, STUB_SHM_EVENT_PREFIX, id);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0)
        CT_FAIL("cannot open %s: %s", path, strerror(errno));
    return fd;
}

static uint32_t read_u32(int fd, size_t offset)
{
    uint32_t v = 0;
    if (pread(fd, &v, sizeof v, (off_t)offset) != (ssize_t)sizeof v)
        CT_FAIL("cannot read the object at %zu: %s", offset, strerror(errno));
    return v;
}

struct watermarks {
    uint32_t users_used, users_backed, slots_backed;
    uint64_t allocated; /* bytes of tmpfs pages */
};

/* Pages that overlap [from, to). */
static uint64_t pages_of(size_t from, size_t to, size_t page)
{
    return to > from ? (to + page - 1) / page - from / page : 0;
}

/* Reads the watermarks and checks that the object's allocated pages are
 * exactly the pages below them (with leftover_pages more at most: a process
 * killed in a growth leaves its pages): fewer means a page below a
 * watermark is a hole (a SIGBUS waiting for a full /dev/shm), more that
 * something touched a table past its watermark (a load of a hole allocates
 * its page too). tmpfs tells how many pages a file has (st_blocks), not
 * which: SEEK_HOLE and mincore call an allocated page never written a hole. */
static struct watermarks expect_watermarks(aclrtIpcEventHandle h, uint64_t leftover_pages)
{
    int fd = object_fd(h);
    struct watermarks w = {read_u32(fd, USERS_USED_OFFSET), read_u32(fd, USERS_BACKED_OFFSET),
                           read_u32(fd, SLOTS_BACKED_OFFSET), 0};
    struct stat st;
    CT_TRUE(fstat(fd, &st) == 0);
    close(fd);
    w.allocated = (uint64_t)st.st_blocks * 512;
    if (w.users_used > w.users_backed || w.users_backed > 16384 || w.slots_backed > SLOTS || w.slots_backed == 0)
        CT_FAIL("inconsistent watermarks: users used %u, users allocated %u, slots allocated %u", w.users_used,
                w.users_backed, w.slots_backed);
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    size_t users_end = USERS_OFFSET + (size_t)w.users_backed * USER_BYTES;
    size_t slots_end = SLOTS_OFFSET + (size_t)w.slots_backed * SLOT_BYTES;
    size_t payload_from = users_end > HEADER_BYTES ? users_end : HEADER_BYTES;
    int shared_page = (users_end - 1) / page == payload_from / page; /* the users' last page holds slots too */
    uint64_t below = pages_of(0, users_end, page) + pages_of(payload_from, slots_end, page) - (shared_page ? 1 : 0);
    uint64_t have = w.allocated / page;
    if (have < below || have > below + leftover_pages)
        CT_FAIL("%llu pages of the object are allocated, %llu lie below its watermarks (%u users entries, %u slots)%s: "
                "%s",
                (unsigned long long)have, (unsigned long long)below, w.users_backed, w.slots_backed,
                leftover_pages ? " (one growth's more allowed)" : "",
                have < below ? "a page below a watermark is a hole" : "something touched a table past its watermark");
    return w;
}

static struct watermarks expect_allocated_below_watermarks(aclrtIpcEventHandle h)
{
    return expect_watermarks(h, 0);
}

/* ------------------------------------------------------ a fresh event */

CT_CASE(shm_a_fresh_ipc_event_allocates_a_few_pages_of_dev_shm)
{
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    struct watermarks w = expect_allocated_below_watermarks(h);
    long page = sysconf(_SC_PAGESIZE);
    /* the header's page (with ~250 users entries) and the page of current and the first ~170 slots */
    if (w.allocated > (uint64_t)(4 * page))
        CT_FAIL("a fresh IPC event holds %llu bytes of /dev/shm, expected at most 4 pages (%ld bytes)",
                (unsigned long long)w.allocated, 4 * page);
    CT_TRUE(w.users_backed >= 1 && w.slots_backed >= 1);
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(e, s));
    EXPECT_STREAM_DRAINS(s);
    CT_TRUE(expect_allocated_below_watermarks(h).allocated == w.allocated);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------- slots past the first page, across processes */

/* slot_waiter DIR: opens the event, waits on its current record on device 1
 * (blocked: it says "blocked"), then records it once more itself. */
CT_ROLE(slot_waiter)
{
    (void)argc;
    const char *dir = argv[0];
    acl_up(1);
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    CT_OK(aclrtStreamWaitEvent(s, e));
    EXPECT_STREAM_BLOCKED(s);
    publish_flag(dir, "blocked");
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtRecordEvent(e, s));
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

/* Records pending behind a gate until slot `count - 1` is referenced. */
static struct gate *hold_records(aclrtEvent e, aclrtStream s, int count)
{
    struct gate *g = gate_hold(s);
    for (int i = 0; i < count; i++)
        CT_OK(aclrtRecordEvent(e, s));
    return g;
}

CT_CASE(shm_slots_past_the_first_page_work_across_processes)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    uint32_t first = expect_allocated_below_watermarks(h).slots_backed;
    /* 300 records pending: slots 0..299, past the first page's */
    struct gate *g = hold_records(e, s, 300);
    struct watermarks w = expect_allocated_below_watermarks(h);
    if (w.slots_backed < 300 || first >= 300)
        CT_FAIL("300 records pending: %u slots allocated (%u at create), expected growth to at least 300",
                w.slots_backed, first);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, NULL};
    pid_t pid = spawn_role("slot_waiter", args, NULL);
    await_flag(dir, "blocked", PEER_TIMEOUT_MS); /* waiting on slot 299 */
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    EXPECT_COMPLETE(e);
    expect_allocated_below_watermarks(h);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ------------------------------------------------- growth of the users table */

static const char *const exact_reserve_env[] = {"ACL_STUB_TEST_EXACT_RESERVE=1", NULL};

/* holding_opener DIR I: opens the event (ACL_STUB_TEST_EXACT_RESERVE=1: its
 * users entry needs a growth of one entry), records and waits on it, says
 * "opened<I>", and stays until the case says "leave<I>". */
CT_ROLE(holding_opener)
{
    (void)argc;
    const char *dir = argv[0];
    acl_up(1);
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(e, s));
    CT_OK(aclrtStreamWaitEvent(s, e));
    EXPECT_STREAM_DRAINS(s);
    char flag[32];
    snprintf(flag, sizeof flag, "opened%s", argv[1]);
    publish_flag(dir, flag);
    snprintf(flag, sizeof flag, "leave%s", argv[1]);
    await_flag(dir, flag, PEER_TIMEOUT_MS);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

CT_CASE(shm_users_table_grows_past_its_first_chunk)
{
    const char *dir = case_dir();
    setenv("ACL_STUB_TEST_EXACT_RESERVE", "1", 1); /* a chunk of one entry: 3 openers grow it 3 times */
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    CT_EQ(1, expect_allocated_below_watermarks(h).users_backed);
    publish_bytes(dir, "handle", &h, sizeof h);
    pid_t pids[3];
    char ids[3][12];
    for (int i = 0; i < 3; i++) {
        snprintf(ids[i], sizeof ids[i], "%d", i);
        const char *args[] = {dir, ids[i], NULL};
        pids[i] = spawn_role("holding_opener", args, exact_reserve_env);
        char flag[32];
        snprintf(flag, sizeof flag, "opened%d", i);
        await_flag(dir, flag, PEER_TIMEOUT_MS);
    }
    struct watermarks w = expect_allocated_below_watermarks(h);
    if (w.users_backed != 4 || w.users_used != 4)
        CT_FAIL("4 users: %u entries used, %u allocated; expected 4 and 4 (a growth of one entry per opener)",
                w.users_used, w.users_backed);
    for (int i = 0; i < 3; i++) {
        char flag[32];
        snprintf(flag, sizeof flag, "leave%d", i);
        publish_flag(dir, flag);
        expect_exit(pids[i], 0, PEER_TIMEOUT_MS);
    }
    /* a new user reuses a free entry: no growth */
    const char *args[] = {dir, "3", NULL};
    pid_t again = spawn_role("holding_opener", args, exact_reserve_env);
    await_flag(dir, "opened3", PEER_TIMEOUT_MS);
    CT_EQ(4, expect_allocated_below_watermarks(h).users_backed);
    publish_flag(dir, "leave3");
    expect_exit(again, 0, PEER_TIMEOUT_MS);
    aclrtStream s = stream_new();
    CT_OK(aclrtRecordEvent(e, s));
    EXPECT_STREAM_DRAINS(s);
    EXPECT_COMPLETE(e);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

/* ---------------------------------------------------- a full /dev/shm */

/* role growth_on_full_tmpfs: in a /dev/shm of its own, creates an event, then
 * fills /dev/shm: records pending behind a gate take the allocated slots,
 * and the one that needs a new page fails with 207001 naming /dev/shm (not
 * SIGBUS); the allocated slots still work, now and after. A second process
 * cannot open the event once its users entries are all taken (the role
 * fills them with dead users' entries), and is told /dev/shm is full.
 * Exit 3: no namespace here (skip). */
/* full_opener DIR: opening the event fails: its users entries are all taken and /dev/shm is full. */
CT_ROLE(full_opener)
{
    (void)argc;
    const char *dir = argv[0];
    acl_up(0);
    aclrtEvent e = NULL;
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtIpcOpenEventHandle(await_handle(dir, "handle"), &e));
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, "/dev/shm is full"))
        CT_FAIL("the error does not say /dev/shm is full: %s", msg ? msg : "(null)");
    acl_down();
    return 0;
}

/* Takes every allocated users entry but the creator's with a dead user's
 * (this pid with another start time: reclaimed as dead, never as ours). */
static void take_every_users_entry(aclrtIpcEventHandle h)
{
    int fd = object_fd(h);
    uint32_t backed = read_u32(fd, USERS_BACKED_OFFSET);
    close(fd);
    uint64_t id;
    memcpy(&id, h.reserved, sizeof id);
    char name[64], path[128];
    stub_object_name(name, STUB_SHM_EVENT_PREFIX, id);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    fd = open(path, O_WRONLY | O_CLOEXEC | O_NOFOLLOW);
    CT_TRUE(fd >= 0);
    struct {
        int32_t pid;
        uint32_t reserved;
        uint64_t start_time;
    } dead = {(int32_t)getpid(), 0, 1};
    for (uint32_t i = 1; i < backed; i++)
        CT_TRUE(pwrite(fd, &dead, sizeof dead, (off_t)(USERS_OFFSET + i * USER_BYTES)) == (ssize_t)sizeof dead);
    CT_TRUE(pwrite(fd, &backed, 4, (off_t)USERS_USED_OFFSET) == 4);
    close(fd);
}

CT_ROLE(growth_on_full_tmpfs)
{
    (void)argc;
    const char *dir = argv[0];
    if (enter_own_dev_shm("256k") != 0)
        return 3;
    acl_up(0);
    aclrtEvent e = ipc_event_new();
    aclrtStream s = stream_new();
    aclrtIpcEventHandle h = handle_of(e);
    uint32_t backed = expect_allocated_below_watermarks(h).slots_backed;
    fill_dev_shm();
    for (int round = 0; round < 2; round++) {
        struct gate *g = hold_records(e, s, (int)backed);
        CT_CODE(ACL_ERROR_RT_MEMORY_ALLOCATION, aclrtRecordEvent(e, s));
        const char *msg = aclGetRecentErrMsg();
        if (!msg || !strstr(msg, "/dev/shm is full"))
            CT_FAIL("the error does not say /dev/shm is full: %s", msg ? msg : "(null)");
        CT_EQ(backed, expect_allocated_below_watermarks(h).slots_backed);
        gate_release(g);
        EXPECT_STREAM_DRAINS(s);
        EXPECT_COMPLETE(e);
    }
    CT_OK(aclrtRecordEvent(e, s));
    CT_OK(aclrtSynchronizeEvent(e));
    EXPECT_COMPLETE(e);
    take_every_users_entry(h);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, NULL};
    expect_exit(spawn_role("full_opener", args, NULL), 0, PEER_TIMEOUT_MS);
    expect_allocated_below_watermarks(h);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

CT_CASE(shm_a_record_that_needs_a_page_of_a_full_dev_shm_returns_207001)
{
    const char *args[] = {case_dir(), NULL};
    int code = wait_exit(spawn_role("growth_on_full_tmpfs", args, NULL), PEER_TIMEOUT_MS);
    if (code == 3)
        ct_skip("no user and mount namespace here (unshare): cannot make a full /dev/shm of our own");
    if (code != 0)
        CT_FAIL("the role %s %d (SIGBUS is %d)", code > 128 ? "died by signal" : "exited with",
                code > 128 ? code - 128 : code, SIGBUS);
}

/* ------------------------------------------------- killed mid-growth */

/* killed_in_growth DIR: run with ACL_STUB_TEST_DIE_IN_LOCK=grow: opens the
 * event (a users entry of the first page, no growth) and records it while
 * every allocated slot is referenced: SIGKILLed in the slot table's growth,
 * its pages allocated and its watermark not raised. */
CT_ROLE(killed_in_growth)
{
    (void)argc;
    const char *dir = argv[0];
    acl_up(1);
    aclrtEvent e = ipc_open(await_handle(dir, "handle"));
    aclrtStream s = stream_new();
    aclrtRecordEvent(e, s);
    CT_FAIL("still alive: ACL_STUB_TEST_DIE_IN_LOCK=grow did not make the stub die in the slot table's growth "
            "(see native-stub/README.md for the hook)");
}

CT_CASE(shm_a_process_killed_mid_growth_leaves_a_consistent_event)
{
    const char *dir = case_dir();
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    aclrtIpcEventHandle h = handle_of(e);
    uint32_t backed = expect_allocated_below_watermarks(h).slots_backed;
    struct gate *g = hold_records(e, s, (int)backed);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, NULL};
    const char *env[] = {"ACL_STUB_TEST_DIE_IN_LOCK=grow", NULL};
    expect_exit(spawn_role("killed_in_growth", args, env), 128 + SIGKILL, PEER_TIMEOUT_MS);
    CT_EQ(backed, expect_watermarks(h, 1).slots_backed); /* its page allocated, the watermark not raised */
    /* the next lock repairs (owner died), and the growth is made again */
    CT_OK(aclrtRecordEvent(e, s));
    struct watermarks w = expect_allocated_below_watermarks(h);
    if (w.slots_backed <= backed)
        CT_FAIL("%u slots referenced, %u allocated", backed + 1, w.slots_backed);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    EXPECT_COMPLETE(e);
    /* and another process still shares it */
    g = hold_records(e, s, 1);
    pid_t pid = spawn_role("slot_waiter", args, NULL);
    await_flag(dir, "blocked", PEER_TIMEOUT_MS);
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    expect_exit(pid, 0, PEER_TIMEOUT_MS);
    expect_allocated_below_watermarks(h);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}
