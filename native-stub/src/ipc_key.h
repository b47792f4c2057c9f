/*
 * ipc_key.h - export keys of IPC memory and IPC notify, and the export state
 * both keep in their shared object: the "exported" flag and the pid
 * whitelist (ipc_whitelist.h). One home for the key format and for the
 * checks an import makes, so that both kinds of key behave alike.
 *
 * A key is "<prefix><16 hex object id>" (notify) or
 * "<prefix><16 hex object id>-<hex object size>" (memory, whose objects
 * differ in size), at most IPC_KEY_LEN - 1 characters.
 */
#ifndef CANNSTUB_IPC_KEY_H
#define CANNSTUB_IPC_KEY_H

#include <stddef.h>
#include <stdint.h>

#include "acl/acl.h"
#include "ipc_whitelist.h"
#include "shm.h"

/* docs/zh/api_ref/11-07_IPC_memory_sharing.md and 08_notify_management.md:
 * the key buffer holds 65 bytes. */
#define IPC_KEY_LEN 65

/* The two kinds of key (each with its prefix, shape and texts in ipc_key.c). */
enum ipc_key_kind {
    IPC_KEY_MEMORY, /* cannstub-mem-<id>-<size> */
    IPC_KEY_NOTIFY, /* cannstub-nt-<id> */
};

/* Writes the key of obj. */
void ipc_key_format(char out[IPC_KEY_LEN], enum ipc_key_kind kind, const struct shm_object *obj);

/* Reads a key of kind: 0 with *id and, for memory keys, *size; -1 for
 * anything else. */
int ipc_key_parse(const char *key, enum ipc_key_kind kind, uint64_t *id, size_t *size);

/* The export state inside one shared object (both fields under its lock). */
struct ipc_export_state {
    uint32_t *exported;
    struct ipc_whitelist *whitelist;
};

/* Marks obj exported, with the pid whitelist on (validate_pids) or off.
 * Returns the previous value of the flag; with once set, an object exported
 * already is left as it was. */
uint32_t ipc_export_begin(struct shm_object *obj, struct ipc_export_state st, int validate_pids, int once);

/* aclrt*SetImportPid: adds pids to the whitelist under obj's lock. */
aclError ipc_export_add_pids(struct shm_object *obj, struct ipc_export_state st, const char *call, const int32_t *pids,
                             size_t num);

/* Where an object keeps its export state, given its header. */
typedef struct ipc_export_state (*ipc_export_state_fn)(struct shm_header *hdr);

/* An import: opens the object of kind with id (size bytes), then checks
 * under its lock that it is still exported (107000) and that this process is
 * allowed by its whitelist (207006). On success *out holds the opened object
 * (the caller owns it); on failure call failed and nothing stays open. */
aclError ipc_key_import(const char *call, enum ipc_key_kind kind, uint64_t id, size_t size, const char *key,
                        ipc_export_state_fn state_of, struct shm_object **out);

#endif
