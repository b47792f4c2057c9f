/*
 * ipc_key.c - export keys and export state of IPC memory and IPC notify.
 */
#include "ipc_key.h"

#include "errors.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#define ID_DIGITS 16

void ipc_key_format(char out[IPC_KEY_LEN], const char *prefix, const struct shm_object *obj, int with_size)
{
    if (with_size)
        snprintf(out, IPC_KEY_LEN, "%s%016" PRIx64 "-%zx", prefix, obj->id, obj->size);
    else
        snprintf(out, IPC_KEY_LEN, "%s%016" PRIx64, prefix, obj->id);
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

int ipc_key_parse(const char *key, const char *prefix, uint64_t *id, size_t *size)
{
    size_t plen = strlen(prefix), len = strnlen(key, IPC_KEY_LEN);
    if (len >= IPC_KEY_LEN || len < plen + ID_DIGITS || strncmp(key, prefix, plen) != 0)
        return -1;
    const char *rest = key + plen + ID_DIGITS;
    unsigned long long i = 0, sz = 0;
    if (read_hex(key + plen, ID_DIGITS, &i) != 0 || i == 0)
        return -1;
    if (!size) {
        if (*rest != '\0')
            return -1;
    } else if (*rest != '-' || read_hex(rest + 1, strlen(rest + 1), &sz) != 0)
        return -1;
    *id = i;
    if (size)
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
                             const struct ipc_import_texts *texts)
{
    int32_t self = (int32_t)getpid();
    shm_lock(obj);
    uint32_t exported = *st.exported;
    int allowed = ipc_whitelist_allows(st.whitelist, self, obj->hdr->creator.pid);
    shm_unlock(obj);
    if (!exported)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "key \"%.64s\" %s", key, texts->not_exported);
    if (!allowed)
        return stub_fail(ACL_ERROR_RT_NO_PERMISSION, call,
                         "pid %d is not on the whitelist of %s \"%.64s\": the %s must call %s with this pid "
                         "(aclrtDeviceGetBareTgid), or export with %s",
                         (int)self, texts->what, key, texts->exporter, texts->set_pid_call, texts->no_check_flag);
    return ACL_SUCCESS;
}

aclError ipc_key_import(const char *call, const char *prefix, uint64_t id, size_t size, const char *key,
                        ipc_export_state_fn state_of, const struct ipc_import_texts *texts, struct shm_object **out)
{
    struct shm_object *obj = NULL;
    enum shm_open_result opened = shm_open_by_id(prefix, id, size, NULL, &obj);
    if (opened != SHM_OK) {
        char full[64];
        snprintf(full, sizeof full, "too many processes have this %s open", texts->object);
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "key \"%.64s\" names no live %s: %s", key, texts->live,
                         opened == SHM_FULL ? full : texts->gone);
    }
    aclError rc = check_import(call, obj, state_of(obj->hdr), key, texts);
    if (rc)
        shm_release(obj);
    else
        *out = obj;
    return rc;
}
