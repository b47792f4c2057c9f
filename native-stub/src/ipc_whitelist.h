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

/* ACL_STUB_PID_NAMESPACE (read at aclInit): "host" (unset, the default) or
 * "container". A process in a container has a pid namespace of its own: its
 * bare tgid (aclrtDeviceGetBareTgid, the host's pid of it) is not getpid().
 * "container" models that with a fixed offset. Returns 0, or -1 with err set. */
#define IPC_CONTAINER_TGID_OFFSET 1000000000
int ipc_pid_namespace_configure(char *err, size_t len);
/* This process's bare tgid: getpid(), plus IPC_CONTAINER_TGID_OFFSET in
 * "container" mode. Whitelists hold and are checked against these. */
int32_t ipc_bare_tgid(void);

/* Whether the process of bare tgid pid passes the whitelist (off, or pid listed). */
int ipc_whitelist_allows(const struct ipc_whitelist *wl, int32_t pid);

#endif
