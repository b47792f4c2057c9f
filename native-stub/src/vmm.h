/*
 * vmm.h - virtual memory management (vmm.c): physical memory handles
 * (aclrtMallocPhysical), address reservations (aclrtReserveMemAddress),
 * mappings (aclrtMapMem) and shareable handles across processes
 * (aclrtMemExportToShareableHandle / ImportFromShareableHandle, pid
 * whitelist). See docs/acl-contract.md section 12.
 *
 * Each physical allocation is its own shared-memory object
 * /cannstub-vmm-<16 hex>[.<scope>]: a shm_header (shm.c: users table, robust
 * lock, reclaim after death), the export state, then the bytes on a page
 * boundary. Its shareable handle is the object id. A mapping maps the bytes
 * MAP_SHARED|MAP_FIXED over the reserved (PROT_NONE) addresses, and lists
 * them as a MEM_MAPPED range of memory.c, so copies and memsets treat them
 * as device memory.
 */
#ifndef CANNSTUB_VMM_H
#define CANNSTUB_VMM_H

#define SHM_VMM_PREFIX "cannstub-vmm-"

/* aclFinalize: unmaps, releases and frees everything of this process (rt.lock held). */
void vmm_shutdown(void);
/* aclInit: unlinks physical memory objects whose users all died. */
void vmm_reclaim_stale(void);

#endif
