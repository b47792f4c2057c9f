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

/* Writes obj's key; with_size appends the object's size. */
void ipc_key_format(char out[IPC_KEY_LEN], const char *prefix, const struct shm_object *obj, int with_size);

/* Reads a key of prefix: 0 with *id (and *size when size is not NULL: the key
 * must then carry one), -1 for anything else. */
int ipc_key_parse(const char *key, const char *prefix, uint64_t *id, size_t *size);

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

/* What an importer says in its refusals. */
struct ipc_import_texts {
    const char *live;          /* what a key names, e.g. "notify" in "names no live notify" */
    const char *object;        /* e.g. "memory" in "too many processes have this memory open" */
    const char *gone;          /* why the object is gone, e.g. "its creator destroyed it or exited" */
    const char *not_exported;  /* why the flag is clear, e.g. "was closed by its exporter ..." */
    const char *what;          /* the kind of key in the whitelist refusal, e.g. "notify key" */
    const char *exporter;      /* who sets the whitelist, e.g. "creator" */
    const char *set_pid_call;  /* e.g. "aclrtNotifySetImportPid" */
    const char *no_check_flag; /* e.g. "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION" */
};

/* Where an object keeps its export state, given its header. */
typedef struct ipc_export_state (*ipc_export_state_fn)(struct shm_header *hdr);

/* An import: opens the object of prefix + id (size bytes), then checks under
 * its lock that it is still exported (107000) and that this process is
 * allowed by its whitelist (207006). On success *out holds the opened object
 * (the caller owns it); on failure call failed with the texts' messages and
 * nothing stays open. */
aclError ipc_key_import(const char *call, const char *prefix, uint64_t id, size_t size, const char *key,
                        ipc_export_state_fn state_of, const struct ipc_import_texts *texts, struct shm_object **out);

#endif
