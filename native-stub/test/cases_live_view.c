/*
 * cases_live_view.c - cannstub_live_view, the stub-only live view of a
 * process's streams (include/cannstub/live_view.h, contract S11): the
 * running task and the queue behind it, the recorder of an IPC wait's
 * record across processes, asked from another thread while the main thread
 * is blocked in a synchronize; and the buffer rules.
 */
#define _GNU_SOURCE
#define CT_FILE_STUB_ONLY "cannstub_live_view, a stub-only export (contract S11)"
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cannstub/live_view.h"
#include "support.h"

#define VIEW_CAP 16384

static void view_now(char *buf)
{
    int n = cannstub_live_view(buf, VIEW_CAP);
    if (n < 0 || n >= VIEW_CAP)
        CT_FAIL("cannstub_live_view returned %d (buffer %d)", n, VIEW_CAP);
    CT_EQ(n, (int)strlen(buf));
}

static void expect_contains(const char *view, const char *part)
{
    if (!strstr(view, part))
        CT_FAIL("the live view lacks %s:\n%s", part, view);
}

/* The stream entry of stream id `stream` in view (up to the next stream), copied into out. */
static void stream_entry(const char *view, unsigned long long stream, char *out, size_t cap)
{
    char key[64];
    snprintf(key, sizeof key, "{\"stream\":%llu,", stream);
    const char *at = strstr(view, key);
    if (!at)
        CT_FAIL("the live view has no stream %llu:\n%s", stream, view);
    const char *end = strstr(at + 1, "{\"stream\":");
    size_t n = end ? (size_t)(end - at) : strlen(at);
    if (n >= cap)
        n = cap - 1;
    memcpy(out, at, n);
    out[n] = '\0';
}

/* The stream id of the view's only stream whose entry contains part. */
static unsigned long long stream_with(const char *view, const char *part)
{
    const char *hit = strstr(view, part);
    if (!hit)
        CT_FAIL("no stream of the live view contains %s:\n%s", part, view);
    const char *at = NULL;
    for (const char *p = strstr(view, "{\"stream\":"); p && p < hit; p = strstr(p + 1, "{\"stream\":"))
        at = p;
    if (!at)
        CT_FAIL("%s is outside any stream entry:\n%s", part, view);
    return strtoull(at + strlen("{\"stream\":"), NULL, 10);
}

CT_CASE(live_view_shows_the_running_task_and_the_queue_behind_it)
{
    char view[VIEW_CAP], entry[VIEW_CAP];
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = local_event_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    aclrtEvent ipc = ipc_event_new();
    CT_OK(aclrtRecordEvent(ipc, s));
    gate_await_entered(g);
    view_now(view);
    char pid[32];
    snprintf(pid, sizeof pid, "{\"pid\":%d,", (int)getpid());
    expect_contains(view, pid);
    unsigned long long id = stream_with(view, "\"kind\":\"host_func\"");
    stream_entry(view, id, entry, sizeof entry);
    expect_contains(entry, "\"head\":{\"task\":1,\"kind\":\"host_func\",\"state\":\"running\",\"since_ns\":\"");
    expect_contains(entry, "\"queued\":[{\"task\":2,\"kind\":\"record\",\"event\":");
    expect_contains(entry, ",\"gen\":1},{\"task\":3,\"kind\":\"ipc_record\",");
    expect_contains(entry, "\"slot\":0,\"gen\":1}],\"queued_total\":2}");
    gate_release(g);
    EXPECT_STREAM_DRAINS(s);
    view_now(view);
    stream_entry(view, id, entry, sizeof entry);
    expect_contains(entry, "\"head\":null,\"queued\":[],\"queued_total\":0}");
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
}

CT_CASE(live_view_buffer_rules)
{
    char view[VIEW_CAP];
    CT_EQ(-1, cannstub_live_view(NULL, 10));
    CT_EQ(-1, cannstub_live_view(view, 0));
    acl_up(0);
    aclrtStream s = stream_new();
    view_now(view);
    int full = (int)strlen(view);
    char small[8];
    memset(small, 'x', sizeof small);
    CT_EQ(full, cannstub_live_view(small, sizeof small)); /* snprintf's rule: the length it needs */
    CT_EQ(0, memcmp(small, view, sizeof small - 1));
    CT_EQ('\0', small[sizeof small - 1]);
    CT_OK(aclrtDestroyStream(s));
}

/* ---------------------------------------------- an IPC wait across processes */

struct blocked_sync {
    aclrtStream stream;
    int rc;
};

static void *synchronize_thread(void *arg)
{
    struct blocked_sync *b = arg;
    /* a thread synchronizes only with a current context (api_impl.cc:1704-1707) */
    CT_OK(aclrtSetDevice(0));
    b->rc = aclrtSynchronizeStream(b->stream);
    return NULL;
}

/* live_waiter DIR: opens "handle", queues a wait on it, blocks a thread in
 * aclrtSynchronizeStream, publishes its live view as "view", then waits for
 * the case's release. */
CT_ROLE(live_waiter)
{
    const char *dir = argv[0];
    acl_up(0);
    aclrtIpcEventHandle h;
    if (await_file(dir, "handle", &h, sizeof h, PEER_TIMEOUT_MS) != sizeof h)
        CT_FAIL("no 64-byte handle in %s/handle", dir);
    aclrtEvent e = ipc_open(h);
    aclrtStream s = stream_new();
    CT_OK(aclrtStreamWaitEvent(s, e));
    struct blocked_sync b = {s, -1};
    pthread_t t;
    if (pthread_create(&t, NULL, synchronize_thread, &b) != 0)
        CT_FAIL("pthread_create failed");
    char view[VIEW_CAP];
    /* the view is asked while the other thread sits in the synchronize */
    for (int i = 0; i < 1000; i++) {
        view_now(view);
        if (strstr(view, "\"sync_waiters\":1,") && strstr(view, "\"state\":\"running\""))
            break;
        sleep_ms(2);
    }
    publish_bytes(dir, "view", view, strlen(view) + 1);
    if (pthread_join(t, NULL) != 0)
        CT_FAIL("pthread_join failed");
    CT_OK(b.rc);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
    return 0;
}

CT_CASE(live_view_names_the_recorder_of_an_ipc_wait_across_processes)
{
    const char *dir = case_dir();
    char view[VIEW_CAP], theirs[VIEW_CAP], entry[VIEW_CAP];
    acl_up(0);
    aclrtStream s = stream_new();
    aclrtEvent e = ipc_event_new();
    struct gate *g = gate_hold(s);
    CT_OK(aclrtRecordEvent(e, s));
    aclrtIpcEventHandle h = handle_of(e);
    publish_bytes(dir, "handle", &h, sizeof h);
    const char *args[] = {dir, NULL};
    pid_t waiter = spawn_role("live_waiter", args, NULL);
    size_t n = await_file(dir, "view", theirs, sizeof theirs - 1, PEER_TIMEOUT_MS);
    theirs[n] = '\0';
    view_now(view);
    unsigned long long recorder = stream_with(view, "\"kind\":\"ipc_record\"");
    char ipc[64];
    const char *ipc_at = strstr(view, "\"ipc\":\"");
    CT_TRUE(ipc_at != NULL);
    snprintf(ipc, sizeof ipc, "%.26s", ipc_at); /* "ipc":"<16 hex>" */
    unsigned long long waiting = stream_with(theirs, "\"kind\":\"ipc_wait\"");
    stream_entry(theirs, waiting, entry, sizeof entry);
    expect_contains(entry, "\"sync_waiters\":1,");
    expect_contains(entry, "\"head\":{\"task\":1,\"kind\":\"ipc_wait\",\"event\":");
    expect_contains(entry, ipc);
    char who[96];
    snprintf(who, sizeof who, "\"slot\":0,\"gen\":1,\"recorder\":{\"pid\":%d,\"stream\":%llu},\"state\":\"running\"",
             (int)getpid(), recorder);
    expect_contains(entry, who);
    gate_release(g);
    expect_exit(waiter, 0, PEER_TIMEOUT_MS);
    EXPECT_STREAM_DRAINS(s);
    CT_OK(aclrtDestroyEvent(e));
    CT_OK(aclrtDestroyStream(s));
}
