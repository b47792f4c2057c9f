/*
 * memory.h - device memory (aclrtMalloc), host memory (aclrtMallocHost),
 * copies and memsets as stream tasks (memory.c), and IPC memory (export
 * key, pid whitelist, import at a new address, close: ipc_memory.c). See
 * docs/acl-contract.md section 8.
 *
 * Every device allocation is its own named shared-memory object
 * /cannstub-mem-<16 hex>: a shm_header (shm.c: users table, robust lock,
 * reclaim after death), the export state below, then the bytes, starting
 * on a page boundary. An import maps the same object again, so it gets a
 * new process-local address for the same memory.
 */
#ifndef CANNSTUB_MEMORY_H
#define CANNSTUB_MEMORY_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "ipc_whitelist.h"
#include "shm.h"

#define SHM_MEMORY_PREFIX "cannstub-mem-"

/* Shared state of one allocation (after the shm_header). */
struct mem_shared {
    struct shm_header hdr;
    uint32_t exported; /* an export key is live (aclrtIpcMemClose in the exporter clears it) */
    int32_t device;    /* the exporter's device */
    struct ipc_whitelist whitelist;
    uint64_t bytes; /* usable bytes (a whole number of pages) */
};

enum mem_kind {
    MEM_DEVICE,   /* aclrtMalloc in this process */
    MEM_IMPORTED, /* aclrtIpcMemImportByKey */
    MEM_HOST,     /* aclrtMallocHost */
    MEM_MAPPED,   /* aclrtMapMem: physical memory mapped into a reservation (vmm.c) */
};

/* A process-local address range (rt.lock guards the list and refs). */
struct mem_region {
    struct mem_region *next;
    enum mem_kind kind;
    char *base;
    size_t bytes;
    int device;              /* device of the memory (the exporter's, for imports) */
    int refs;                /* 1 while live + 1 per queued task */
    struct shm_object *shm;  /* device and imported memory */
    void *view;              /* imports: this import's own mapping of the object */
    size_t view_size;
    const void *group; /* MEM_MAPPED: its reservation; contiguous ranges of one group are one block for copies */
};

struct task;

/* The address ranges of this process, for ipc_memory.c (rt.lock held). */
size_t memory_page_size(void);
/* Bytes before the data in an allocation's object: header and export state. */
size_t memory_data_offset(void);
/* Lists a new range (refs 1); ACL_ERROR_RT_MEMORY_ALLOCATION when out of memory. */
aclError memory_region_new(enum mem_kind kind, char *base, size_t bytes, int device, struct shm_object *shm,
                           struct mem_region **out);
/* The live range starting exactly at p, or NULL. */
struct mem_region *memory_region_at(const void *p);
/* The oldest live range of kind whose object has id, or NULL. */
struct mem_region *memory_region_find(enum mem_kind kind, uint64_t id);
/* The live range holding p, or NULL. */
struct mem_region *memory_region_containing(const void *p);
/* Unlists r and drops its reference (queued copies keep it mapped until they ran). */
void memory_region_drop(struct mem_region *r);

/* Executor side (rt.lock NOT held). */
void memory_task_run(struct task *t);
/* Drops a finished or dropped task's region references (rt.lock held; any task kind). */
void memory_task_release(struct task *t);

/* aclInit: reads ACL_STUB_PAGEABLE; -1 with a message in err when it is invalid. */
int memory_configure(char *err, size_t len);

/* aclFinalize: frees every allocation and import of this process (rt.lock held). */
void memory_shutdown(void);
/* aclInit: unlinks allocations whose users all died. */
void memory_reclaim_stale(void);

#endif
