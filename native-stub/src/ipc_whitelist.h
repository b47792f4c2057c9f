/*
 * ipc_whitelist.h - the pid whitelist of an exported IPC memory allocation
 * or IPC notify (aclrtIpcMemSetImportPid / aclrtNotifySetImportPid). It
 * lives in the object's shared memory and is only touched under its lock.
 */
#ifndef CANNSTUB_IPC_WHITELIST_H
#define CANNSTUB_IPC_WHITELIST_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"

#define IPC_WHITELIST_MAX_PIDS 64

struct ipc_whitelist {
    uint32_t enabled; /* 1: only listed pids (and the exporter) may import */
    uint32_t count;
    int32_t pids[IPC_WHITELIST_MAX_PIDS];
};

/* Adds pids (duplicates ignored). Returns ACL_SUCCESS, or fails call with
 * 107000 for a pid <= 0 or 207001 when the list is full (nothing added past
 * the bad entry). */
aclError ipc_whitelist_add(struct ipc_whitelist *wl, const char *call, const int32_t *pids, size_t num);

/* Whether process pid may import an object exported by exporter_pid. */
int ipc_whitelist_allows(const struct ipc_whitelist *wl, int32_t pid, int32_t exporter_pid);

#endif
