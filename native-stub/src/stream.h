/*
 * stream.h - streams: in-order task queues, each drained by its own
 * executor thread (the emulated device engine).
 */
#ifndef CANNSTUB_STREAM_H
#define CANNSTUB_STREAM_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

struct event;

enum task_kind {
    TASK_RECORD,     /* local event record */
    TASK_WAIT,       /* local event wait */
    TASK_RESET,      /* local event reset */
    TASK_IPC_RECORD, /* IPC event record: sets the captured slot's done word */
    TASK_IPC_WAIT,   /* IPC event wait: blocks until the captured slot is done */
    TASK_HOST_FUNC,  /* aclrtLaunchHostFunc */
    TASK_MEMCPY,        /* aclrtMemcpyAsync (memory.c) */
    TASK_MEMSET,        /* aclrtMemsetAsync (memory.c) */
    TASK_NOTIFY_RECORD, /* aclrtRecordNotify (notify.c) */
    TASK_NOTIFY_WAIT,   /* aclrtWaitAndResetNotify (notify.c) */
    TASK_VALUE_WRITE,   /* aclrtValueWrite (stream_ext.c) */
    TASK_VALUE_WAIT,    /* aclrtValueWait (stream_ext.c) */
};

struct mem_region;
struct notify;

struct task {
    struct task *next;
    enum task_kind kind;
    struct event *event; /* holds a reference */
    uint64_t generation; /* local record/wait/reset: which record (reset: the latest at submit) */
    uint32_t slot;       /* IPC: captured slot (holds a slot reference) */
    uint32_t ipc_gen;    /* IPC: which use of that slot (the record's, for the trace) */
    uint64_t seq;        /* task number on its stream, 1, 2, ... (the trace's "task") */
    int64_t timeout_ms;  /* local wait: 0 = none */
    aclrtHostFunc fn;
    void *args;
    /* memory.c / notify.c tasks: each holds a reference on its regions / notify */
    void *dst;
    const void *src;
    size_t count;
    int value;
    struct mem_region *regions[2];
    struct notify *notify;
    uint32_t timeout_s; /* notify wait: 0 = forever */
    uint64_t word;      /* value write / wait: the value (dst is the word, regions[0] its range) */
    uint32_t flag;      /* value wait: ACL_STREAM_WAIT_VALUE_* */
};

struct stream {
    struct stream *next;     /* rt.streams list while live */
    struct stream *all_next; /* rt.all_streams list until the executor exits */
    uint64_t id;
    int device;
    struct context *ctx; /* the context current at creation (context.h); NULL once destroyed */
    int is_default;
    struct task *head, *tail;
    uint64_t submitted, completed;
    uint64_t task_seq; /* last task number given out (see struct task) */
    int destroyed;   /* handle invalid; freed once the queue drains */
    uint32_t cancelled; /* aclFinalize/exit: drop queued tasks, abort waits (a futex word) */
    int waiters;     /* host threads inside synchronize (keep it allocated) */
    /* The fewest completed tasks a synchronize waits for (UINT64_MAX: none
     * registered since the executor last woke them): until then the executor
     * runs queued tasks back to back without waking every waiter after each. */
    uint64_t drain_wake_at;
    struct task *running; /* popped and executing (freed only under rt.lock after it ends) */
    uint64_t running_since_ns;
    /* 1 once the running task is a wait that found what it waits for still pending and sleeps on
     * it (stream_note_blocked); 0 again when the task ends. Atomic: cannstub_stream_blocked. */
    uint32_t blocked;
    aclError sticky_error; /* reported by the next synchronize */
    pthread_cond_t wake;
    int explore_party; /* the executor's party under ACL_STUB_EXPLORE (explore.h), or -1 */
    int explore_idle;  /* the executor sleeps on `wake` as a BLOCKED party */
};

struct context;

/* All with rt.lock held. */
aclError stream_create(struct context *ctx, int is_default, struct stream **out);
void stream_destroy(struct stream *s);   /* non-blocking */
void stream_cancel(struct stream *s);    /* destroy + drop queued work + abort waits */
void stream_abort_queued(struct stream *s); /* aclrtStreamAbort: drop queued work, the stream lives on */
aclError stream_submit(struct stream *s, struct task *t); /* takes ownership of t */
const char *task_kind_name(enum task_kind kind);

/* The stream must belong to the calling thread's current context: 107002
 * without one, 107003 for a stream of another context (CANN's
 * COND_RETURN_AND_MSG_INVALID_CONTEXT_STREAM, error_message_manage.hpp:337-343,
 * compares the stream's context with the current one). */
aclError stream_check_context(const char *call, struct stream *s);

/* 107017 if handle is neither NULL nor a live stream (CANN checks handles
 * before argument values and the current device). */
aclError stream_check_handle(const char *call, void *handle);

/* Waits until every task submitted to s so far has run (rt.lock held, released
 * while waiting): the stream synchronize of a pageable copy (memory.c). 507000
 * if they were dropped (aclFinalize, aclrtDestroyStreamForce); else the sticky
 * 107019 of a timed-out wait, as a synchronize reports it. */
aclError stream_drain(const char *call, struct stream *s);

/* 1 when the calling thread is s's executor, inside one of its host functions. */
int stream_is_running_this_thread(const struct stream *s);
/* The executor's running wait is about to sleep on a pending record (see struct stream, blocked). */
void stream_note_blocked(struct stream *s);

/* Resolves a stream argument (NULL = current device's default stream). */
aclError stream_resolve(const char *call, void *handle, struct stream **out);

#endif
