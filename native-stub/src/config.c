/*
 * config.c - aclInit's configuration file.
 *
 * CANN's aclInit (src/acl/aclrt_impl/acl.cpp:382-470) resolves the path
 * (acl_rt_impl_base.cpp:154-166, 100003), then every subsystem parses the
 * file as JSON through acl::JsonParser (src/acl/common/json_parser.cpp):
 * a path that is not a regular file, or over 10 MiB, is 100003 (:67-113);
 * more than 10 nested '{' or '[' (counted as characters, :24-60, 198-218) or
 * text that is not JSON is 100006 ACL_ERROR_PARSE_FILE (:160-176). An empty
 * file (up to its first NUL byte) is no configuration. The stub applies one
 * setting, the default device (acl.cpp:334-350, json_parser.cpp:298-340):
 * {"defaultDevice": {"default_device": "<decimal id>"}}.
 */
#include "config.h"

#include "device_ids.h"
#include "errors.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define CONFIG_MAX_BYTES (10 * 1024 * 1024) /* MAX_CONFIG_FILE_BYTE, json_parser.cpp:61 */
#define CONFIG_MAX_DEPTH 10                 /* MAX_CONFIG_OBJ_DEPTH / _ARRAY_DEPTH, :63-65 */
#define JSON_MAX_NESTING 64                 /* never reached: the depth check comes first */

/* ------------------------------------------------------------------ JSON */

/* A strict RFC 8259 reader (what nlohmann::json::parse accepts: one value,
 * whitespace around it, UTF-8 strings, no comments). It records where the
 * members it is asked for start. */
struct json {
    const char *p, *end;
    int depth;
};

static void skip_ws(struct json *j)
{
    while (j->p < j->end && (*j->p == ' ' || *j->p == '\t' || *j->p == '\n' || *j->p == '\r'))
        j->p++;
}

static int take(struct json *j, char c)
{
    if (j->p < j->end && *j->p == c) {
        j->p++;
        return 1;
    }
    return 0;
}

static int hex4(struct json *j, unsigned *out)
{
    unsigned v = 0;
    for (int i = 0; i < 4; i++, j->p++) {
        if (j->p >= j->end)
            return -1;
        char c = *j->p;
        unsigned d = c >= '0' && c <= '9'   ? (unsigned)(c - '0')
                     : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                     : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10)
                                            : 16u;
        if (d > 15)
            return -1;
        v = v * 16 + d;
    }
    *out = v;
    return 0;
}

/* Length of the well-formed UTF-8 sequence at p (RFC 3629), or 0. */
static int utf8_len(const unsigned char *p, const unsigned char *end)
{
    unsigned c = p[0];
    int n = c >= 0xF0 && c <= 0xF4 ? 4 : c >= 0xE0 ? 3 : c >= 0xC2 && c <= 0xDF ? 2 : 0;
    if (n == 0 || end - p < n)
        return 0;
    for (int i = 1; i < n; i++)
        if ((p[i] & 0xC0) != 0x80)
            return 0;
    if ((c == 0xE0 && p[1] < 0xA0) || (c == 0xED && p[1] > 0x9F) || (c == 0xF0 && p[1] < 0x90) ||
        (c == 0xF4 && p[1] > 0x8F))
        return 0; /* overlong, surrogate, above U+10FFFF */
    return n;
}

/* A string; its ASCII decoding (other characters as 0x7F) goes to out, cut
 * at out_len - 1 (the names and values the stub compares are ASCII). */
static int parse_string(struct json *j, char *out, size_t out_len)
{
    size_t n = 0;
    if (!take(j, '"'))
        return -1;
    for (;;) {
        if (j->p >= j->end)
            return -1;
        unsigned char c = (unsigned char)*j->p;
        unsigned cp;
        if (c == '"') {
            j->p++;
            break;
        }
        if (c < 0x20)
            return -1;
        if (c == '\\') {
            j->p++;
            if (j->p >= j->end)
                return -1;
            char e = *j->p++;
            switch (e) {
            case '"': cp = '"'; break;
            case '\\': cp = '\\'; break;
            case '/': cp = '/'; break;
            case 'b': cp = '\b'; break;
            case 'f': cp = '\f'; break;
            case 'n': cp = '\n'; break;
            case 'r': cp = '\r'; break;
            case 't': cp = '\t'; break;
            case 'u':
                if (hex4(j, &cp) != 0 || (cp >= 0xDC00 && cp <= 0xDFFF))
                    return -1;
                if (cp >= 0xD800 && cp <= 0xDBFF) { /* a high surrogate needs its low half */
                    unsigned low;
                    if (!take(j, '\\') || !take(j, 'u') || hex4(j, &low) != 0 || low < 0xDC00 || low > 0xDFFF)
                        return -1;
                    cp = 0x10000;
                }
                break;
            default: return -1;
            }
        } else if (c < 0x80) {
            cp = c;
            j->p++;
        } else {
            int len = utf8_len((const unsigned char *)j->p, (const unsigned char *)j->end);
            if (len == 0)
                return -1;
            cp = 0x80;
            j->p += len;
        }
        if (out && n + 1 < out_len)
            out[n++] = cp > 0 && cp < 0x80 ? (char)cp : 0x7F;
    }
    if (out)
        out[n] = '\0';
    return 0;
}

static int digits(struct json *j)
{
    const char *start = j->p;
    while (j->p < j->end && *j->p >= '0' && *j->p <= '9')
        j->p++;
    return j->p > start ? 0 : -1;
}

static int parse_number(struct json *j)
{
    take(j, '-');
    if (take(j, '0'))
        ;
    else if (j->p < j->end && *j->p >= '1' && *j->p <= '9')
        digits(j);
    else
        return -1;
    if (take(j, '.') && digits(j) != 0)
        return -1;
    if (take(j, 'e') || take(j, 'E')) {
        if (!take(j, '+'))
            take(j, '-');
        if (digits(j) != 0)
            return -1;
    }
    return 0;
}

static int parse_literal(struct json *j, const char *word)
{
    size_t n = strlen(word);
    if ((size_t)(j->end - j->p) < n || memcmp(j->p, word, n) != 0)
        return -1;
    j->p += n;
    return 0;
}

/* What a caller wants from an object: the value of the member named key
 * (the last one, as nlohmann keeps), NULL when absent. */
struct member_query {
    const char *key;
    const char *value;
};

static int parse_value(struct json *j, struct member_query *q);

static int parse_object(struct json *j, struct member_query *q)
{
    if (!take(j, '{'))
        return -1;
    skip_ws(j);
    if (take(j, '}'))
        return 0;
    for (;;) {
        char key[32];
        skip_ws(j);
        if (parse_string(j, key, sizeof key) != 0)
            return -1;
        skip_ws(j);
        if (!take(j, ':'))
            return -1;
        skip_ws(j);
        if (q && strcmp(key, q->key) == 0)
            q->value = j->p;
        if (parse_value(j, NULL) != 0)
            return -1;
        skip_ws(j);
        if (take(j, '}'))
            return 0;
        if (!take(j, ','))
            return -1;
    }
}

static int parse_array(struct json *j)
{
    if (!take(j, '['))
        return -1;
    skip_ws(j);
    if (take(j, ']'))
        return 0;
    for (;;) {
        skip_ws(j);
        if (parse_value(j, NULL) != 0)
            return -1;
        skip_ws(j);
        if (take(j, ']'))
            return 0;
        if (!take(j, ','))
            return -1;
    }
}

/* One value at j->p; for an object, q (if any) learns where its member starts. */
static int parse_value(struct json *j, struct member_query *q)
{
    int rc;
    if (j->p >= j->end || ++j->depth > JSON_MAX_NESTING)
        return -1;
    switch (*j->p) {
    case '{': rc = parse_object(j, q); break;
    case '[': rc = parse_array(j); break;
    case '"': rc = parse_string(j, NULL, 0); break;
    case 't': rc = parse_literal(j, "true"); break;
    case 'f': rc = parse_literal(j, "false"); break;
    case 'n': rc = parse_literal(j, "null"); break;
    default: rc = parse_number(j); break;
    }
    j->depth--;
    return rc;
}

/* Parses the whole of [text, end) as one JSON value; q as parse_value. */
static int parse_document(const char *text, const char *end, struct member_query *q)
{
    struct json j = {.p = text, .end = end};
    skip_ws(&j);
    if (parse_value(&j, q) != 0)
        return -1;
    skip_ws(&j);
    return j.p == j.end ? 0 : -1;
}

/* The member key of the object that starts at value (NULL: not an object, or
 * no such member); the text was parsed whole already. */
static const char *member_of(const char *value, const char *end, const char *key)
{
    struct member_query q = {.key = key};
    if (!value || *value != '{')
        return NULL;
    struct json j = {.p = value, .end = end};
    parse_value(&j, &q);
    return q.value;
}

/* ------------------------------------------------------------------ file */

/* GetMaxNestedLayers / CountDepth (json_parser.cpp:24-60, 116-150): braces
 * and brackets counted as characters, strings included. */
static int too_deep(const char *text, size_t len)
{
    size_t obj = 0, arr = 0, max_obj = 0, max_arr = 0;
    for (size_t i = 0; i < len; i++) {
        switch (text[i]) {
        case '{': max_obj = ++obj > max_obj ? obj : max_obj; break;
        case '}': obj -= obj > 0; break;
        case '[': max_arr = ++arr > max_arr ? arr : max_arr; break;
        case ']': arr -= arr > 0; break;
        default: break;
        }
    }
    return max_obj > CONFIG_MAX_DEPTH || max_arr > CONFIG_MAX_DEPTH;
}

/* Reads the regular file at path into a NUL-terminated buffer, cut at its first NUL. */
static aclError read_config_file(const char *call, const char *path, char **out, size_t *len)
{
    aclError rc = ACL_SUCCESS;
    struct stat st;
    char *buf = NULL;
    size_t n = 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK | O_NOCTTY); /* never blocks on a FIFO */
    if (fd < 0) {
        rc = stub_fail(ACL_ERROR_INVALID_FILE, call, "cannot read config file %s (%s): pass NULL or a readable file",
                       path, strerror(errno));
        goto out;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = stub_fail(ACL_ERROR_INVALID_FILE, call, "config file %s is not a regular file: pass NULL or a JSON file",
                       path);
        goto out;
    }
    if (st.st_size > CONFIG_MAX_BYTES) {
        rc = stub_fail(ACL_ERROR_INVALID_FILE, call, "config file %s has %lld bytes: the limit is %d", path,
                       (long long)st.st_size, CONFIG_MAX_BYTES);
        goto out;
    }
    if (!(buf = malloc((size_t)st.st_size + 1))) {
        rc = stub_fail(ACL_ERROR_INTERNAL_ERROR, call, "out of memory reading config file %s", path);
        goto out;
    }
    while (n < (size_t)st.st_size) {
        ssize_t got = read(fd, buf + n, (size_t)st.st_size - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got <= 0)
            break; /* shrank meanwhile: parse what was there */
        n += (size_t)got;
    }
    buf[n] = '\0';
    *len = strlen(buf); /* a C string from here on, as CANN's ParseJson takes it */
    *out = buf;
    buf = NULL;
out:
    free(buf);
    if (fd >= 0)
        close(fd);
    return rc;
}

/* "0|[1-9]\d*" (json_parser.cpp:330-339) that fits an int32 */
static int parse_device_id(const char *s, int *out)
{
    if (!*s || (s[0] == '0' && s[1]))
        return -1;
    long v = 0;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        v = v * 10 + (*s - '0');
        if (v > INT32_MAX)
            v = INT32_MAX; /* out of range either way */
    }
    *out = (int)v;
    return 0;
}

aclError config_read(const char *call, const char *configPath, uint32_t device_count, int *default_device)
{
    aclError rc = ACL_SUCCESS;
    char *text = NULL, value[32];
    size_t len = 0;
    *default_device = -1;
    if (!configPath || !*configPath)
        return ACL_SUCCESS;
    if ((rc = read_config_file(call, configPath, &text, &len)) || len == 0)
        goto out;
    const char *end = text + len;
    if (too_deep(text, len)) {
        rc = stub_fail(ACL_ERROR_PARSE_FILE, call,
                       "config file %s nests '{' or '[' more than %d deep (counted as characters)", configPath,
                       CONFIG_MAX_DEPTH);
        goto out;
    }
    struct member_query top = {.key = "defaultDevice"};
    if (parse_document(text, end, &top) != 0) {
        rc = stub_fail(ACL_ERROR_PARSE_FILE, call, "config file %s is not valid JSON", configPath);
        goto out;
    }
    const char *id = member_of(top.value, end, "default_device");
    if (!id)
        goto out; /* no defaultDevice item, or no default_device in it: no default (json_parser.cpp:310-318) */
    struct json j = {.p = id, .end = end};
    if (*id != '"' || parse_string(&j, value, sizeof value) != 0) {
        rc = stub_fail(ACL_ERROR_INTERNAL_ERROR, call,
                       "config file %s: defaultDevice.default_device must be a string, e.g. \"0\"", configPath);
        goto out;
    }
    int d;
    if (parse_device_id(value, &d) != 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call,
                       "config file %s: defaultDevice.default_device \"%s\" is not 0 or a positive integer", configPath,
                       value);
    else {
        /* api_error.cc:6653-6672 SetDefaultDeviceId */
        char what[PATH_MAX + 64];
        snprintf(what, sizeof what, "config file %s: defaultDevice.default_device", configPath);
        if (!(rc = device_id_check(call, what, d, device_count)))
            *default_device = d;
    }
out:
    free(text);
    return rc;
}
