/*
 * trace.c - JSON-lines trace. Each line is formatted in a buffer and written
 * with one write(2) on an O_APPEND descriptor: no stdio buffering, so a
 * process killed at any moment leaves only whole lines behind.
 */
#include "trace.h"

#include "platform.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static int trace_fd = -1;

/* The parent of path (path without its last component), in out. */
static void parent_of(const char *path, char *out, size_t cap)
{
    snprintf(out, cap, "%s", path);
    size_t len = strlen(out);
    while (len > 1 && out[len - 1] == '/')
        out[--len] = '\0';
    char *slash = strrchr(out, '/');
    if (!slash)
        snprintf(out, cap, ".");
    else if (slash == out)
        out[1] = '\0';
    else
        *slash = '\0';
}

/* Creates dir itself (0755, never group/world-writable) but never its
 * parents: ACL_STUB_TRACE usually points into a harness scenario directory,
 * and a device process starting while a killed runner removes that
 * directory must not bring it back (mkdir -p would). */
static int make_trace_dir(const char *dir, char *err, unsigned long errlen)
{
    if (mkdir(dir, 0755) == 0)
        return 0;
    int saved = errno;
    struct stat st;
    if (saved == EEXIST && stat(dir, &st) == 0 && S_ISDIR(st.st_mode))
        return 0;
    if (saved == ENOENT) {
        char parent[4096];
        parent_of(dir, parent, sizeof parent);
        snprintf(err, errlen,
                 "ACL_STUB_TRACE=%s: the parent directory %s does not exist (the stub creates only the last "
                 "path component): create it first, or unset ACL_STUB_TRACE",
                 dir, parent);
    } else {
        snprintf(err, errlen, "ACL_STUB_TRACE=%s: cannot create the directory (%s)", dir,
                 strerror(saved == EEXIST ? ENOTDIR : saved));
    }
    return -1;
}

/* lib-<pid> beside the trace: the file this stub's code runs from, so that the harness sees a role
 * whose ACL calls reach a copy linked into the program rather than the library it chose
 * (src/orchestrator/native-role.ts). Best effort: the trace goes on without it. */
static void write_library_file(const char *dir)
{
    char path[4200], self[4096], line[4100];
    snprintf(path, sizeof path, "%s/lib-%d", dir, (int)getpid());
    plat_self_object_path(self, sizeof self);
    int n = snprintf(line, sizeof line, "%s\n", self);
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    if (write(fd, line, (size_t)n) != n) {
        /* best effort */
    }
    close(fd);
}

int trace_open(char *err, unsigned long errlen)
{
    const char *dir = getenv("ACL_STUB_TRACE");
    if (!dir || !*dir || trace_fd >= 0)
        return 0;
    if (make_trace_dir(dir, err, errlen) != 0)
        return -1;
    char path[4200];
    snprintf(path, sizeof path, "%s/trace-%d.jsonl", dir, (int)getpid());
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        snprintf(err, errlen, "ACL_STUB_TRACE=%s: cannot open %s (%s)", dir, path, strerror(errno));
        return -1;
    }
    __atomic_store_n(&trace_fd, fd, __ATOMIC_RELEASE);
    write_library_file(dir);
    return 0;
}

void trace_close(void)
{
    int fd = __atomic_exchange_n(&trace_fd, -1, __ATOMIC_ACQ_REL);
    if (fd >= 0)
        close(fd);
}

int trace_enabled(void)
{
    return __atomic_load_n(&trace_fd, __ATOMIC_ACQUIRE) >= 0;
}

/* JSON integer, or null when absent. */
static void json_int_or_null(char out[24], int present, long long value)
{
    if (present)
        snprintf(out, 24, "%lld", value);
    else
        snprintf(out, 24, "null");
}

void trace_emit(const struct trace_record *r)
{
    int fd = __atomic_load_n(&trace_fd, __ATOMIC_ACQUIRE);
    if (fd < 0)
        return;
    char ipc[24] = "null";
    if (r->ipc)
        snprintf(ipc, sizeof ipc, "\"%016llx\"", (unsigned long long)r->ipc);
    char slot[24], task[24], gen[24];
    json_int_or_null(slot, r->slot >= 0, (long long)r->slot);
    json_int_or_null(task, r->task != 0, (long long)r->task);
    json_int_or_null(gen, r->gen >= 0, (long long)r->gen);
    char extra[64] = "";
    if (r->rc >= 0)
        snprintf(extra, sizeof extra, ",\"rc\":%lld", (long long)r->rc);
    else if (r->jitter_us >= 0)
        snprintf(extra, sizeof extra, ",\"jitter_us\":%lld", (long long)r->jitter_us);
    char line[600];
    int n = snprintf(line, sizeof line,
                     "{\"t\":%llu,\"pid\":%d,\"tid\":%llu,\"op\":\"%s\",\"kind\":\"%s\",\"device\":%d,"
                     "\"stream\":%llu,\"task\":%s,\"event\":%llu,\"slot\":%s,\"gen\":%s,\"ipc\":%s%s%s%s%s}\n",
                     (unsigned long long)(r->t ? r->t : plat_monotonic_ns()), plat_process_id(),
                     (unsigned long long)plat_thread_id(), r->op, r->kind, r->device, (unsigned long long)r->stream,
                     task, (unsigned long long)r->event, slot, gen, ipc, extra, r->note ? ",\"note\":\"" : "",
                     r->note ? r->note : "", r->note ? "\"" : "");
    if (n > 0 && (size_t)n < sizeof line) {
        ssize_t w = write(fd, line, (size_t)n);
        (void)w;
    }
}
