/*
 * ipc_whitelist.c - pid whitelists of IPC memory and IPC notify exports.
 */
#include "ipc_whitelist.h"

#include "errors.h"
#include "platform.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Set by aclInit before any call can read it. */
static int in_container;

int ipc_pid_namespace_configure(char *err, size_t len)
{
    const char *v = getenv("ACL_STUB_PID_NAMESPACE");
    if (!v || !*v || strcmp(v, "host") == 0)
        in_container = 0;
    else if (strcmp(v, "container") == 0)
        in_container = 1;
    else {
        snprintf(err, len,
                 "ACL_STUB_PID_NAMESPACE=%.40s is invalid: use host (the default: bare tgid = getpid()) or container "
                 "(bare tgid = getpid() + %d, as on an NPU in a container)",
                 v, IPC_CONTAINER_TGID_OFFSET);
        return -1;
    }
    return 0;
}

int32_t ipc_bare_tgid(void)
{
    int32_t pid = (int32_t)plat_process_id();
    return in_container ? pid + IPC_CONTAINER_TGID_OFFSET : pid;
}

static int listed(const struct ipc_whitelist *wl, int32_t pid)
{
    for (uint32_t i = 0; i < wl->count; i++)
        if (wl->pids[i] == pid)
            return 1;
    return 0;
}

aclError ipc_whitelist_add(struct ipc_whitelist *wl, const char *call, const int32_t *pids, size_t num)
{
    for (size_t i = 0; i < num; i++) {
        if (pids[i] <= 0)
            return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                             "pid[%zu] = %d is not a pid: pass the importers' aclrtDeviceGetBareTgid values", i,
                             (int)pids[i]);
        if (listed(wl, pids[i]))
            continue;
        if (wl->count >= IPC_WHITELIST_MAX_PIDS)
            return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "the whitelist holds at most %d pids",
                             IPC_WHITELIST_MAX_PIDS);
        wl->pids[wl->count++] = pids[i];
    }
    return ACL_SUCCESS;
}

int ipc_whitelist_allows(const struct ipc_whitelist *wl, int32_t pid)
{
    return !wl->enabled || listed(wl, pid);
}
