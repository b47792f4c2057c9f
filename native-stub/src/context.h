/*
 * context.h - contexts as CANN keeps them: each device's primary context
 * (aclrtSetDevice), explicit contexts (aclrtCreateContext), the calling
 * thread's current context, and which context a stream belongs to.
 *
 * Every call that CANN's ApiImpl makes check the current context goes
 * through ctx_require() (107002) and, for a stream argument,
 * stream_check_context() in stream.c (107003).
 */
#ifndef CANNSTUB_CONTEXT_H
#define CANNSTUB_CONTEXT_H

#include <stdint.h>

#include "acl/acl.h"

struct stream;

struct context {
    struct context *next; /* rt.contexts: live contexts */
    uint64_t id;
    int device;
    int is_primary;                 /* the device's primary context (aclrtSetDevice), never destroyed by the user */
    struct stream *default_stream; /* created on first use of the NULL stream */
};

#define STUB_CONTEXT_HANDLE_BASE 0x00005c1000000000ull

/* All with rt.lock held. */
void *ctx_handle(const struct context *c);
struct context *ctx_find(void *handle); /* NULL if not a live context */

/* The calling thread's current context, or NULL. */
struct context *ctx_current(void);
/* Same, as CANN checks it for a call: a thread whose context is gone is
 * detached from it (it stays without one until it sets a device or context). */
struct context *ctx_current_checked(void);
/* Same, failing with 107002 naming call when there is none; a thread that
 * never had one gets aclInit's default device (config defaultDevice). */
aclError ctx_require(const char *call, struct context **out);

/* aclrtSetDevice made device's primary context current on this thread. */
void ctx_make_primary_current(int device);

/* aclrtSetDevice's work: one more reference on device's primary context
 * (created at 0), current on this thread. NULL: out of memory. */
struct context *ctx_set_device(int device);

/* The last reset of a device clears the resetting thread's device slot,
 * whichever device it names (runtime.cc:2865-2868 SetCurRef(nullptr)). */
void ctx_unbind_device_slot(void);

/* Destroys c's streams (cancel: dropping their queued work) and events, and
 * c itself. A thread whose current context was c has none afterwards. */
void ctx_teardown(struct context *c, int cancel);

/* aclFinalize (queued work keeps running) / exit (cancel: dropped): tears
 * down every context. */
void ctx_shutdown(int cancel);

#endif
