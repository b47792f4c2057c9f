/*
 * shared.c - IPC memory and notify keys shared between C and TypeScript
 * roles (cannharness.h): one record format, the one
 * src/wire/shared-record.ts reads and writes, published with
 * cannharness_publish under the name the importer awaits:
 *
 *   cann-harness shared 1\n
 *   kind memory|notify\n
 *   key <the export key>\n
 *   bytes <decimal size>\n      (memory only)
 *   from <exporting role>\n
 *
 * Keys are what aclrtIpcMemGetExportKey / aclrtNotifyGetExportKey write: a
 * C string without control characters (checked).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"

#define RECORD_MAGIC "cann-harness shared 1"
/* A record's bytes at most: the header lines, a key and a role name. */
#define RECORD_MAX 2048
#define KEY_MAX 1024

static int valid_key(const char *key)
{
    size_t n = key ? strlen(key) : 0;
    if (n == 0 || n > KEY_MAX)
        return 0;
    for (size_t i = 0; i < n; i++)
        if ((unsigned char)key[i] < 0x20 || key[i] == 0x7f)
            return 0;
    return 1;
}

static int share(const char *call, const char *name, const char *kind, const char *key, size_t bytes, int with_bytes)
{
    char text[RECORD_MAX];
    const char *role = getenv("CANN_HARNESS_ROLE");
    if (!valid_key(key))
        return api_report(CANNHARNESS_EINVAL, call, name,
                          "the key is NULL, empty, longer than %d bytes or has control "
                          "characters (pass what the ACL export call wrote)",
                          KEY_MAX);
    if (!api_valid_name(role))
        return api_report(CANNHARNESS_ENOENV, call, name, "CANN_HARNESS_ROLE is %s: the record names its exporter",
                          role ? "not a valid role name" : "not set");
    int n = with_bytes ? snprintf(text, sizeof text, RECORD_MAGIC "\nkind %s\nkey %s\nbytes %zu\nfrom %s\n", kind, key,
                                  bytes, role)
                       : snprintf(text, sizeof text, RECORD_MAGIC "\nkind %s\nkey %s\nfrom %s\n", kind, key, role);
    if (n < 0 || (size_t)n >= sizeof text)
        return api_report(CANNHARNESS_EINVAL, call, name, "the record would be longer than %d bytes", RECORD_MAX);
    return cannharness_publish(name, text, (size_t)n);
}

/* The value of line "<field> <value>" in text (NUL-terminated, lines end in '\n'): its start and length. */
static const char *field(const char *text, const char *name, size_t *len)
{
    size_t k = strlen(name);
    for (const char *line = text; *line; line = strchr(line, '\n') + 1) {
        const char *end = strchr(line, '\n');
        if (!end)
            return NULL;
        if ((size_t)(end - line) > k && strncmp(line, name, k) == 0 && line[k] == ' ') {
            *len = (size_t)(end - line) - k - 1;
            return line + k + 1;
        }
    }
    return NULL;
}

static int await_shared(const char *call, const char *name, const char *kind, char *key, size_t key_cap, size_t *bytes)
{
    char text[RECORD_MAX + 1];
    size_t len = 0, n = 0;
    if (!key || key_cap == 0)
        return api_report(CANNHARNESS_EINVAL, call, name, "key is NULL or key_cap is 0");
    int rc = cannharness_await(name, text, RECORD_MAX, &len);
    if (rc == CANNHARNESS_E2BIG)
        return api_report(CANNHARNESS_EINVAL, call, name, "what was published is not a shared %s record (%zu bytes)",
                          kind, len);
    if (rc != CANNHARNESS_OK)
        return rc;
    text[len] = '\0';
    const char *k = NULL, *v;
    if (strncmp(text, RECORD_MAGIC "\n", sizeof RECORD_MAGIC) != 0 || strlen(text) != len ||
        !(v = field(text, "kind", &n)) || n != strlen(kind) || strncmp(v, kind, n) != 0 ||
        !(k = field(text, "key", &n)) || n == 0)
        return api_report(CANNHARNESS_EINVAL, call, name,
                          "what was published is not a shared %s record: publish it with cannharness_share_%s, or "
                          "ctx.share%s in TypeScript",
                          kind, kind, strcmp(kind, "memory") == 0 ? "Memory" : "Notify");
    const size_t key_len = n;
    if (key_len >= key_cap)
        return api_report(CANNHARNESS_E2BIG, call, name, "the key has %zu bytes, the buffer %zu", key_len + 1, key_cap);
    if (bytes) {
        char *end = NULL;
        const char *b = field(text, "bytes", &n);
        unsigned long long size = b ? strtoull(b, &end, 10) : 0;
        if (!b || n == 0 || end != b + n)
            return api_report(CANNHARNESS_EINVAL, call, name, "the shared memory record has no size");
        *bytes = (size_t)size;
    }
    memcpy(key, k, key_len);
    key[key_len] = '\0';
    return CANNHARNESS_OK;
}

API_EXPORT int cannharness_share_memory(const char *name, const char *key, size_t bytes)
{
    return share("cannharness_share_memory", name, "memory", key, bytes, 1);
}

API_EXPORT int cannharness_await_memory(const char *name, char *key, size_t key_cap, size_t *bytes)
{
    size_t ignored;
    return await_shared("cannharness_await_memory", name, "memory", key, key_cap, bytes ? bytes : &ignored);
}

API_EXPORT int cannharness_share_notify(const char *name, const char *key)
{
    return share("cannharness_share_notify", name, "notify", key, 0, 0);
}

API_EXPORT int cannharness_await_notify(const char *name, char *key, size_t key_cap)
{
    return await_shared("cannharness_await_notify", name, "notify", key, key_cap, NULL);
}

API_EXPORT int cannharness_publish_pid(int pid)
{
    char name[API_NAME_MAX + 1], text[32];
    const char *role = getenv("CANN_HARNESS_ROLE");
    if (pid <= 0)
        return api_report(CANNHARNESS_EINVAL, "cannharness_publish_pid", NULL, "pid %d is not a process id", pid);
    if (!api_valid_name(role) || snprintf(name, sizeof name, "@pid.%s", role) >= (int)sizeof name)
        return api_report(CANNHARNESS_ENOENV, "cannharness_publish_pid", NULL,
                          "CANN_HARNESS_ROLE is %s: the pid is published as @pid.<role>",
                          role ? "not a valid role name (or too long)" : "not set");
    int n = snprintf(text, sizeof text, "%d", pid);
    return cannharness_publish(name, text, (size_t)n);
}
