/*
 * vmm_importer - imports the VMM physical memory a TypeScript role shared with ctx.sharePhysical
 * under "buffer", maps it and checks it holds the pattern of specs/vmm-sharing.spec.ts (byte i =
 * i * 131 + 7). For the whitelist it first publishes its bare tgid (aclrtDeviceGetBareTgid) as
 * handles/@pid.<its role>, which the exporter awaits. The record is the harness's shared record
 * (docs/guide/vmm.md, "In a scenario"). Signals <its role>.done once it unmapped and freed.
 */
#include <inttypes.h>

#include "exchange.h"

/* The value of line "<field> " in record, or NULL. */
static const char *field(const char *record, const char *name)
{
    size_t n = strlen(name);
    for (const char *line = record; line && *line; line = strchr(line, '\n') ? strchr(line, '\n') + 1 : NULL) {
        if (strncmp(line, name, n) == 0 && line[n] == ' ')
            return line + n + 1;
    }
    return NULL;
}

int main(void)
{
    const char *role = getenv("CANN_HARNESS_ROLE") ? getenv("CANN_HARNESS_ROLE") : "consumer";
    int device = getenv("CANN_HARNESS_DEVICE") ? atoi(getenv("CANN_HARNESS_DEVICE")) : 0;
    ACL_OK(aclInit(NULL));
    ACL_OK(aclrtSetDevice(device));

    int32_t pid = 0;
    ACL_OK(aclrtDeviceGetBareTgid(&pid));
    char name[256], text[32];
    snprintf(name, sizeof name, "@pid.%s", role);
    int len = snprintf(text, sizeof text, "%d", (int)pid);
    if (publish("handles", name, text, (size_t)len) != 0)
        return 1;

    char record[1024] = {0};
    if (await_file("handles", "buffer", record, sizeof record - 1) <= 0)
        return 1;
    const char *kind = field(record, "kind"), *key = field(record, "key"), *size = field(record, "bytes");
    if (strncmp(record, "cann-harness shared 1\n", 22) != 0 || !kind || strncmp(kind, "physical\n", 9) != 0 || !key ||
        !size) {
        fprintf(stderr, "handles/buffer is not a shared physical record:\n%s", record);
        return 1;
    }
    uint64_t shareable = strtoull(key, NULL, 10);
    size_t bytes = strtoull(size, NULL, 10);

    aclrtPhysicalMemProp prop = {0};
    prop.handleType = ACL_MEM_HANDLE_TYPE_NONE;
    prop.allocationType = ACL_MEM_ALLOCATION_TYPE_PINNED;
    prop.memAttr = ACL_HBM_MEM_NORMAL;
    prop.location.id = (uint32_t)device;
    prop.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    size_t granularity = 0;
    ACL_OK(aclrtMemGetAllocationGranularity(&prop, ACL_RT_MEM_ALLOC_GRANULARITY_MINIMUM, &granularity));
    size_t mapped = (bytes + granularity - 1) / granularity * granularity;
    aclrtDrvMemHandle handle;
    void *va;
    ACL_OK(aclrtMemImportFromShareableHandle(shareable, device, &handle));
    ACL_OK(aclrtReserveMemAddress(&va, mapped, 0, NULL, 0));
    ACL_OK(aclrtMapMem(va, mapped, 0, handle, 0));
    aclrtMemAccessDesc access = {0};
    access.flags = ACL_RT_MEM_ACCESS_FLAGS_READWRITE;
    access.location.id = (uint32_t)device;
    access.location.type = ACL_MEM_LOCATION_TYPE_DEVICE;
    ACL_OK(aclrtMemSetAccess(va, mapped, &access, 1));

    unsigned char *host = malloc(bytes);
    if (host == NULL)
        return 1;
    ACL_OK(aclrtMemcpy(host, bytes, va, bytes, ACL_MEMCPY_DEVICE_TO_HOST));
    size_t bad = bytes;
    for (size_t i = 0; i < bytes && bad == bytes; i++)
        if (host[i] != (unsigned char)(i * 131u + 7u))
            bad = i;
    free(host);
    ACL_OK(aclrtUnmapMem(va));
    ACL_OK(aclrtReleaseMemAddress(va));
    ACL_OK(aclrtFreePhysical(handle));
    snprintf(name, sizeof name, "%s.done", role);
    if (publish("signals", name, NULL, 0) != 0)
        return 1;
    ACL_OK(aclrtResetDevice(device));
    ACL_OK(aclFinalize());
    if (bad != bytes) {
        fprintf(stderr, "byte %zu of %zu differs from the pattern\n", bad, bytes);
        return 1;
    }
    printf("read %zu bytes of shareable handle %" PRIu64 " (bare tgid %d): all match\n", bytes, shareable, (int)pid);
    printf("vmm_importer finished successfully\n");
    return 0;
}
