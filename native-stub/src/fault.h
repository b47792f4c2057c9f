/*
 * fault.h - fault injection: ACL_STUB_FAULT=<call>:<code>[:<nth>][,...]
 * makes <call> fail with <code> (on its nth call only, or on every call),
 * before it has any effect.
 */
#ifndef CANNSTUB_FAULT_H
#define CANNSTUB_FAULT_H

#include "acl/acl.h"

/* Parses ACL_STUB_FAULT (at aclInit). Returns 0, or -1 with a reason. */
int fault_configure(char *err, unsigned long errlen);
/* Counts a call; returns the injected code, or ACL_SUCCESS. Thread-safe. */
aclError fault_check(const char *call);

#endif
