/*
 * trace.h - optional per-process JSON-lines trace (ACL_STUB_TRACE=<dir>).
 */
#ifndef CANNSTUB_TRACE_H
#define CANNSTUB_TRACE_H

#include <stdint.h>

/* One line of the trace. Ids that do not apply are -1 (slot) or 0. */
struct trace_record {
    const char *op;   /* "submit", "start", "end", "cancel", "sync" */
    const char *kind; /* "record", "wait", "reset", "ipc_record", "ipc_wait", "host_func", ... */
    int device;
    uint64_t stream;
    uint64_t event;
    int64_t slot;
    uint64_t ipc; /* shm id (handle bytes 0..7), 0 when not IPC */
    const char *note; /* optional extra word, e.g. "noop" */
    uint64_t task;    /* per-stream task number (1, 2, ...); 0: not a queued task */
    int64_t gen;      /* which record: local event generation, or IPC slot use; -1: none */
    uint64_t t;       /* timestamp to write; 0: now */
    int64_t rc;       /* "sync" lines: the return code; -1: none */
    int64_t jitter_us; /* "start" lines under ACL_STUB_JITTER: the delay applied; -1: none */
};

/* Opens <dir>/trace-<pid>.jsonl when ACL_STUB_TRACE is set. Returns 0, or
 * -1 with a reason in err. */
int trace_open(char *err, unsigned long errlen);
void trace_close(void);
int trace_enabled(void);
void trace_emit(const struct trace_record *r);

#endif
