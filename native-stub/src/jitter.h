/*
 * jitter.h - seeded timing noise, ACL_STUB_JITTER=<seed>:<max_us> (parsed
 * at aclInit). Each stream task's start is delayed by 0..max_us, and one
 * host-visible completion (a synchronize returning) in four by up to
 * max_us too. Every delay is a pure function of the seed, the process's
 * role (CANN_HARNESS_ROLE, when the harness runs it) and the task's
 * identity (device, stream, task number), never of the pid or the clock:
 * the same seed replays the same delays.
 */
#ifndef CANNSTUB_JITTER_H
#define CANNSTUB_JITTER_H

#include <stdint.h>

/* Parses ACL_STUB_JITTER. Returns 0, or -1 with a reason. */
int jitter_configure(char *err, unsigned long errlen);
int jitter_enabled(void);
/* Delay in microseconds before the start of task `task` of a stream; 0 when off. */
uint32_t jitter_task_us(int device, uint64_t stream, uint64_t task);
/* Delay before a synchronize returns (applied to one call in four); 0 when off. */
uint32_t jitter_completion_us(uint64_t object, uint64_t target);
/* Sleeps us microseconds (nothing for 0). */
void jitter_sleep_us(uint32_t us);

#endif
