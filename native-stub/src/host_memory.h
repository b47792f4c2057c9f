/*
 * host_memory.h - registered host memory (aclrtHostRegister, ...V2,
 * aclrtHostUnregister, aclrtHostGetDevicePointer) and pointer attributes:
 * host_memory.c. See docs/acl-contract.md section 10.
 */
#ifndef CANNSTUB_HOST_MEMORY_H
#define CANNSTUB_HOST_MEMORY_H

#include <stddef.h>

#include "acl/acl.h"

/* 1 when [p, p + n) lies inside one registered range (rt.lock held): such
 * memory is page-locked (async copies need no stream synchronize first) and
 * device-accessible (either side of a copy). */
int host_memory_is_registered(const void *p, size_t n);

/* What aclrtPointerGetAttributes answers for ptr (rt.lock held; contract 10.3):
 * device memory (aclrtMalloc, IPC imports) DEVICE with its device, aclrtMallocHost
 * and registered memory HOST, anything else UNREGISTERED; pageSize the page size. */
void host_memory_attributes(const void *ptr, aclrtPtrAttributes *out);

/* aclFinalize: forgets every registration (rt.lock held). */
void host_memory_shutdown(void);

#endif
