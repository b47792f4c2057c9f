/*
 * cases_streams.c - streams as in-order queues: host functions hold the stream,
 * synchronize timeouts, the default (NULL) stream, destroy with pending work.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <pthread.h>
#include <string.h>

#include "cannstub/live_view.h"
#include "support.h"

/* ------------------------------------------------------- streams, host funcs */

struct order_log {
    int next;
    int seen[8];
};
struct order_entry {
    struct order_log *log;
    int value;
};

static void log_order(void *arg)
{
    struct order_entry *e = arg;
    int i = __atomic_fetch_add(&e->log->next, 1, __ATOMIC_SEQ_CST);
    if (i < 8)
        __atomic_store_n(&e->log->seen[i], e->value, __ATOMIC_SEQ_CST);
}

CT_CASE(stream_host_funcs_hold_the_stream_in_order)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    struct order_log log = {0, {0}};
    struct order_entry entries[4] = {{&log, 1}, {&log, 2}, {&log, 3}, {&log, 4}};
    struct stamp after;
    for (int i = 0; i < 3; i++)
        CT_OK(aclrtLaunchHostFunc(s, log_order, &entries[i]));
    aclrtEvent marker = local_event_new();
    CT_OK(aclrtRecordEvent(marker, s));
    stamp_launch(s, &after);
    CT_OK(aclrtLaunchHostFunc(s, log_order, &entries[3]));
    gate_await_entered(g);
    EXPECT_STREAM_BLOCKED(s);
    aclrtEventRecordedStatus status = 99;
    CT_OK(aclrtQueryEventStatus(marker, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_NOT_READY, status);
    CT_EQ(0, __atomic_load_n(&log.next, __ATOMIC_SEQ_CST));
    uint64_t released = gate_release(g);
    CT_OK(aclrtSynchronizeStream(s));
    EXPECT_AFTER(stamp_read(&after), released);
    CT_EQ(4, __atomic_load_n(&log.next, __ATOMIC_SEQ_CST));
    for (int i = 0; i < 4; i++)
        CT_EQ(i + 1, log.seen[i]);
    CT_OK(aclrtQueryEventStatus(marker, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    CT_OK(aclrtDestroyEvent(marker));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(stream_synchronize_timeouts_507046_and_validation)
{
    acl_up(0);
    aclrtStream s = stream_new();
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, 0));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, -2));
    CT_CODE(ACL_ERROR_RT_PARAM_INVALID, aclrtSynchronizeStreamWithTimeout(s, INT32_MIN));
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, -1)); /* empty stream */
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, 1));
    struct gate *g = gate_hold(s);
    gate_await_entered(g);
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 1));
    CT_CODE(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, aclrtSynchronizeStreamWithTimeout(s, 50));
    /* the expired synchronize did not disturb the stream */
    uint64_t released = gate_release(g);
    struct stamp after;
    stamp_launch(s, &after);
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    EXPECT_AFTER(stamp_read(&after), released);
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

struct delayed_release {
    struct gate *gate;
    unsigned delay_ms;
    uint64_t released;
};

static void *release_later(void *p)
{
    struct delayed_release *d = p;
    sleep_ms(d->delay_ms);
    __atomic_store_n(&d->released, gate_release(d->gate), __ATOMIC_SEQ_CST);
    return NULL;
}

CT_CASE(stream_synchronize_minus_one_waits_for_the_work)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    struct stamp done;
    stamp_launch(s, &done);
    struct delayed_release d = {g, 100, 0};
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, release_later, &d) == 0);
    CT_OK(aclrtSynchronizeStreamWithTimeout(s, -1));
    uint64_t returned = now_ns();
    pthread_join(t, NULL);
    EXPECT_AFTER(stamp_read(&done), __atomic_load_n(&d.released, __ATOMIC_SEQ_CST));
    EXPECT_AFTER(returned, stamp_read(&done));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

struct early_sync {
    aclrtContext ctx;
    aclrtStream s;
    int rc;
    int done;
};

static void *synchronize_in_thread(void *p)
{
    struct early_sync *e = p;
    e->rc = aclrtSetCurrentContext(e->ctx);
    if (e->rc == ACL_SUCCESS)
        e->rc = aclrtSynchronizeStreamWithTimeout(e->s, 5000);
    __atomic_store_n(&e->done, 1, __ATOMIC_SEQ_CST);
    return NULL;
}

/* A synchronize waits for the tasks submitted before it, not for one queued
 * behind them later: it returns while that one is still held (the executor
 * wakes it at its target, even with more work queued). */
CT_STUB_CASE(stream_synchronize_returns_at_its_target_while_later_work_waits,
             "sees the blocked synchronize through cannstub_live_view (contract S11)")
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct early_sync e = {.s = s};
    CT_OK(aclrtGetCurrentContext(&e.ctx));
    struct gate *first = gate_hold(s);
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, synchronize_in_thread, &e) == 0);
    /* Until it waits in the synchronize (for `first` only): the live view counts it. */
    static char view[1 << 14];
    for (int i = 0; i < 2500 && !(cannstub_live_view(view, sizeof view) >= 0 && strstr(view, "\"sync_waiters\":1,"));
         i++)
        sleep_ms(2);
    CT_TRUE(strstr(view, "\"sync_waiters\":1,") != NULL);
    struct gate *later = gate_hold(s);
    gate_release(first);
    uint64_t limit = now_ns() + 2000ull * 1000000ull;
    while (!__atomic_load_n(&e.done, __ATOMIC_SEQ_CST) && now_ns() < limit)
        sleep_ms(1);
    int in_time = __atomic_load_n(&e.done, __ATOMIC_SEQ_CST);
    gate_release(later);
    pthread_join(t, NULL);
    CT_TRUE(in_time);
    CT_OK(e.rc);
    CT_OK(aclrtSynchronizeStream(s));
    CT_OK(aclrtDestroyStream(s));
    acl_down();
}

CT_CASE(stream_null_means_default_stream)
{
    acl_up(0);
    aclrtEvent e = local_event_new();
    aclrtEvent ipc = ipc_event_new();
    CT_OK(aclrtRecordEvent(e, NULL));
    CT_OK(aclrtRecordEvent(ipc, NULL));
    CT_OK(aclrtStreamWaitEvent(NULL, e));
    CT_OK(aclrtStreamWaitEvent(NULL, ipc));
    CT_OK(aclrtSynchronizeStream(NULL));
    CT_OK(aclrtSynchronizeStreamWithTimeout(NULL, 1000));
    aclrtEventRecordedStatus status = 99;
    CT_OK(aclrtQueryEventStatus(e, &status));
    CT_EQ(ACL_EVENT_RECORDED_STATUS_COMPLETE, status);
    CT_OK(aclrtDestroyEvent(ipc));
    CT_OK(aclrtDestroyEvent(e));
    acl_down();
}

struct destroy_call {
    aclrtStream stream;
    int rc;
    uint64_t returned_ns; /* atomic; 0 until the destroy returned */
};

static void *destroy_on_thread(void *arg)
{
    struct destroy_call *c = arg;
    CT_OK(aclrtSetDevice(0));
    c->rc = aclrtDestroyStream(c->stream);
    __atomic_store_n(&c->returned_ns, now_ns(), __ATOMIC_SEQ_CST);
    CT_OK(aclrtResetDevice(0));
    return NULL;
}

/* Stream::TearDown waits while the stream has pending tasks
 * (src/runtime/core/src/stream/stream.cc:1475; docs/zh/api_ref/06_stream_management.md:248:
 * the destroy waits for the tasks to finish): the destroy returns after the
 * queued work ran, and the handle is invalid from the call on. */
CT_CASE(stream_destroy_waits_for_queued_tasks)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    struct stamp last;
    stamp_launch(s, &last);
    gate_await_entered(g);
    struct destroy_call c = {.stream = s};
    pthread_t t;
    CT_TRUE(pthread_create(&t, NULL, destroy_on_thread, &c) == 0);
    uint64_t until = now_ns() + BLOCK_PROBE_MS * 1000000ull;
    while (now_ns() < until && !__atomic_load_n(&c.returned_ns, __ATOMIC_SEQ_CST))
        sleep_ms(1);
    int returned_early = __atomic_load_n(&c.returned_ns, __ATOMIC_SEQ_CST) != 0;
    uint64_t released = gate_release(g);
    pthread_join(t, NULL);
    CT_TRUE(!returned_early);
    CT_OK(c.rc);
    EXPECT_AFTER(c.returned_ns, stamp_read(&last));
    EXPECT_AFTER(stamp_read(&last), released);
    CT_CODE(ACL_ERROR_RT_INVALID_HANDLE, aclrtSynchronizeStream(s));
    acl_down();
}

/* aclFinalize (src/acl/aclrt_impl/acl.cpp:547-627) resets no device and
 * tears down no stream: work queued before it still runs. */
CT_CASE(stream_finalize_lets_queued_work_run)
{
    acl_up(0);
    aclrtStream s = stream_new();
    struct gate *g = gate_hold(s);
    struct stamp after;
    stamp_launch(s, &after);
    gate_await_entered(g);
    acl_down(); /* returns while the gate still holds the stream */
    CT_EQ(0, stamp_read(&after));
    uint64_t released = gate_release(g);
    uint64_t limit = now_ns() + (uint64_t)PEER_TIMEOUT_MS * 1000000ull;
    while (!stamp_read(&after) && now_ns() < limit)
        sleep_ms(1);
    EXPECT_AFTER(stamp_read(&after), released);
}
