/*
 * vmm_exporter <importer role> <bytes> pid|nopid - allocates VMM physical memory on its device,
 * maps it, fills it with the pattern of specs/vmm-sharing.spec.ts (byte i = i * 131 + 7), exports
 * it and shares it with a TypeScript role, which imports it with ctx.openSharedPhysical:
 *   - "pid": exported with the whitelist on; the importer's bare tgid is read from
 *     handles/@pid.<role> (what its ctx.openSharedPhysical publishes) and listed with
 *     aclrtMemSetPidToShareableHandle before the record is published;
 *   - "nopid": exported with ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION.
 * The record under handles/buffer is the harness's shared record (docs/guide/vmm.md, "In a
 * scenario"). It frees its memory once the importer signals <role>.done.
 */
#include <inttypes.h>

#include "exchange.h"

static unsigned char pattern(size_t i)
{
    return (unsigned char)(i * 131u + 7u);
}

int main(int argc, char **argv)
{
    if (argc != 4 || (strcmp(argv[3], "pid") != 0 && strcmp(argv[3], "nopid") != 0)) {
        fprintf(stderr, "usage: vmm_exporter <importer role> <bytes> pid|nopid\n");
        return 2;
    }
    const char *importer = argv[1];
    size_t bytes = strtoull(argv[2], NULL, 10);
    int whitelist = strcmp(argv[3], "pid") == 0;
    int device = getenv("CANN_HARNESS_DEVICE") ? atoi(getenv("CANN_HARNESS_DEVICE")) : 0;
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(device));

    aclrtPhysicalMemProp prop = {0};
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    prop.location.id = (uint32_t)device;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t granularity = 0;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity));
    size_t size = (bytes + granularity - 1) / granularity * granularity;
    aclrtDrvMemHandle handle;
    void *va;
    ACL_OK(aclrtMallocPhysical(&handle, size, &prop, 0));
    ACL_OK(aclrtReserveMemAddress(&va, size, 0, NULL, 0));
    ACL_OK(aclrtMapMem(va, size, 0, handle, 0));
    aclrtMemAccessDesc access = {0};
    access.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    access.location.id = (uint32_t)device;
    access.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    ACL_OK(aclrtMemSetAccess(va, size, &access, 1));

    unsigned char *host = malloc(bytes);
    if (host == NULL)
        return 1;
    for (size_t i = 0; i < bytes; i++)
        host[i] = pattern(i);
    ACL_OK(aclrtMemcpy(va, size, host, bytes, ACL_MEMCPY_HOST_TO_DEVICE));
    free(host);

    uint64_t shareable = 0;
    uint64_t flags = whitelist ? ACL_RT_VMM_EXPORT_FLAG_DEFAULT : ACL_RT_VMM_EXPORT_FLAG_DISABLE_PID_VALIDATION;
    ACL_OK(aclrtMemExportToShareableHandle(handle, ACL_MEM_HANDLE_TYPE_NONE, flags, &shareable));
    if (whitelist) {
        char name[256], text[32] = {0};
        snprintf(name, sizeof name, "@pid.%s", importer);
        if (await_file("handles", name, text, sizeof text - 1) <= 0)
            return 1;
        int32_t pid = (int32_t)atoi(text);
        ACL_OK(aclrtMemSetPidToShareableHandle(shareable, &pid, 1));
        printf("whitelisted %s (bare tgid %d)\n", importer, (int)pid);
    }
    char record[512];
    const char *role = getenv("CANN_HARNESS_ROLE") ? getenv("CANN_HARNESS_ROLE") : "producer";
    int n =
        snprintf(record, sizeof record, "cann-harness shared 1\nkind physical\nkey %" PRIu64 "\nbytes %zu\nfrom %s\n",
                 shareable, bytes, role);
    if (publish("handles", "buffer", record, (size_t)n) != 0)
        return 1;
    printf("exported %zu bytes (%zu mapped) as shareable handle %" PRIu64 "\n", bytes, size, shareable);
    fflush(stdout);

    char done[256];
    snprintf(done, sizeof done, "%s.done", importer);
    if (await_file("signals", done, NULL, 0) < 0)
        return 1;
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtFreePhysical(handle));
    ACL_OK(aclrtResetDevice(device));
    ACL_OK(aclFinalize());
    printf("vmm_exporter finished successfully\n");
    return 0;
}
