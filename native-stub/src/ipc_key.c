/*
 * ipc_key.c - export keys and export state of IPC memory and IPC notify.
 */
#include "ipc_key.h"

#include "errors.h"
#include "memory.h"
#include "notify.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ID_DIGITS 16

/* Each kind's key and what its import says when it refuses. */
static const struct key_kind {
    const char *prefix;
    int with_size;             /* the key ends in -<hex object size> */
    const char *noun;          /* what a key names */
    const char *gone;          /* why a key names no live object */
    const char *not_exported;  /* why an object is not exported (any more) */
    const char *set_pid_call;  /* how its exporter lets a pid in */
    const char *no_check_flag; /* or lets every pid in */
} kinds[] = {
    [IPC_KEY_MEMORY] = {SHM_MEMORY_PREFIX, 1, "memory", "the exporter freed the memory, exited, or never exported it",
                        "was closed by its exporter (aclrtIpcMemClose): import before the exporter closes",
                        "aclrtIpcMemSetImportPid", "ACL_RT_IPC_MEM_EXPORT_FLAG_DISABLE_PID_VALIDATION"},
    [IPC_KEY_NOTIFY] = {SHM_NOTIFY_PREFIX, 0, "notify", "its creator destroyed it or exited", "was never exported",
                        "aclrtNotifySetImportPid", "ACL_RT_NOTIFY_EXPORT_FLAG_DISABLE_PID_VALIDATION"},
};

void ipc_key_format(char out[IPC_KEY_LEN], enum ipc_key_kind kind, const struct shm_object *obj)
{
    const struct key_kind *k = &kinds[kind];
    if (k->with_size)
        snprintf(out, IPC_KEY_LEN, "%s%016" PRIx64 "-%zx", k->prefix, obj->id, obj->size);
    else
        snprintf(out, IPC_KEY_LEN, "%s%016" PRIx64, k->prefix, obj->id);
}

/* Exactly digits hex digits at s (strtoull alone would take spaces, signs
 * and the digits after them). */
static int read_hex(const char *s, size_t digits, unsigned long long *out)
{
    unsigned long long v = 0;
    if (digits == 0 || digits > 16)
        return -1;
    for (size_t i = 0; i < digits; i++) {
        unsigned char c = (unsigned char)s[i];
        if (!isxdigit(c))
            return -1;
        v = v << 4 | (unsigned long long)(isdigit(c) ? c - '0' : tolower(c) - 'a' + 10);
    }
    *out = v;
    return 0;
}

int ipc_key_parse(const char *key, enum ipc_key_kind kind, uint64_t *id, size_t *size)
{
    const char *prefix = kinds[kind].prefix;
    size_t plen = strlen(prefix), len = strnlen(key, IPC_KEY_LEN);
    if (len >= IPC_KEY_LEN || len < plen + ID_DIGITS || strncmp(key, prefix, plen) != 0)
        return -1;
    const char *rest = key + plen + ID_DIGITS;
    unsigned long long i = 0, sz = 0;
    if (read_hex(key + plen, ID_DIGITS, &i) != 0 || i == 0)
        return -1;
    if (!kinds[kind].with_size) {
        if (*rest != '\0')
            return -1;
    } else if (*rest != '-' || read_hex(rest + 1, strlen(rest + 1), &sz) != 0)
        return -1;
    *id = i;
    if (kinds[kind].with_size)
        *size = (size_t)sz;
    return 0;
}

uint32_t ipc_export_begin(struct shm_object *obj, struct ipc_export_state st, int validate_pids, int once)
{
    shm_lock(obj);
    uint32_t was = *st.exported;
    if (!was || !once) {
        *st.exported = 1;
        st.whitelist->enabled = validate_pids ? 1 : 0;
    }
    shm_unlock(obj);
    return was;
}

aclError ipc_export_add_pids(struct shm_object *obj, struct ipc_export_state st, const char *call, const int32_t *pids,
                             size_t num)
{
    shm_lock(obj);
    aclError rc = ipc_whitelist_add(st.whitelist, call, pids, num);
    shm_unlock(obj);
    return rc;
}

/* The checks on an opened object (rt.lock held). */
static aclError check_import(const char *call, struct shm_object *obj, struct ipc_export_state st, const char *key,
                             const struct key_kind *k)
{
    /* the whitelist holds bare tgids (aclrtDeviceGetBareTgid); the creator is known by its own pid */
    int32_t self = ipc_bare_tgid();
    shm_lock(obj);
    uint32_t exported = *st.exported;
    int allowed = ipc_whitelist_allows(st.whitelist, self) || obj->hdr->creator.pid == (int32_t)getpid();
    shm_unlock(obj);
    if (!exported)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "key \"%.64s\" %s", key, k->not_exported);
    if (!allowed)
        return stub_fail(ACL_ERROR_RT_NO_PERMISSION, call,
                         "bare tgid %d is not on the whitelist of %s key \"%.64s\": its exporter must call %s with "
                         "this process's aclrtDeviceGetBareTgid (not its getpid()), or export with %s",
                         (int)self, k->noun, key, k->set_pid_call, k->no_check_flag);
    return ACL_SUCCESS;
}

aclError ipc_key_import(const char *call, enum ipc_key_kind kind, uint64_t id, size_t size, const char *key,
                        ipc_export_state_fn state_of, struct shm_object **out)
{
    const struct key_kind *k = &kinds[kind];
    struct shm_object *obj = NULL;
    enum shm_open_result opened = shm_open_by_id(k->prefix, id, size, NULL, &obj);
    if (opened == SHM_FULL)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "key \"%.64s\": too many processes have this %s open", key,
                         k->noun);
    if (opened == SHM_NO_SPACE) /* as any failure to open it (contract S20) */
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "key \"%.64s\": cannot open the %s: %s", key, k->noun,
                         shm_open_result_text(opened));
    if (opened != SHM_OK)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "key \"%.64s\" names no live %s: %s", key, k->noun, k->gone);
    aclError rc = check_import(call, obj, state_of(obj->hdr), key, k);
    if (rc)
        shm_release(obj);
    else
        *out = obj;
    return rc;
}
