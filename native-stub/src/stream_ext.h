/*
 * stream_ext.h - stream and device calls of issue 31 (stream_ext.c): stream
 * creation with a config, ids, query, abort, failure mode, device
 * synchronize, value write/wait tasks, batch copies. See
 * docs/acl-contract.md section 11.
 */
#ifndef CANNSTUB_STREAM_EXT_H
#define CANNSTUB_STREAM_EXT_H

struct stream;
struct task;

/* Runs a TASK_VALUE_WRITE or TASK_VALUE_WAIT on s's executor (rt.lock NOT
 * held). Returns the note of its trace "end" line: NULL, or "abandoned" when
 * a wait ended because the stream was cancelled. */
const char *value_task_run(struct stream *s, struct task *t);

/* aclFinalize: forgets the per-stream settings (rt.lock held). */
void stream_ext_shutdown(void);

#endif
