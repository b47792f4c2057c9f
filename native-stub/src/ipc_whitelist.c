/*
 * ipc_whitelist.c - pid whitelists of IPC memory and IPC notify exports.
 */
#include "ipc_whitelist.h"

#include "errors.h"

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

int ipc_whitelist_allows(const struct ipc_whitelist *wl, int32_t pid, int32_t exporter_pid)
{
    return !wl->enabled || pid == exporter_pid || listed(wl, pid);
}
