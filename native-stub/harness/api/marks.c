/*
 * marks.c - cannharness_mark: CLOCK_MONOTONIC marks of a native role, one
 * line "<ns> <name>\n" per mark in marks/<role>.<pid>.marks, read by
 * src/orchestrator/native-marks.ts into the role's result.
 *
 * One file per process, created exclusively (never through a link) at its
 * first mark and kept open; each mark is a single write(2) to an O_APPEND
 * descriptor, so lines never interleave and a killed process leaves whole
 * lines. The descriptor is kept with the pid it belongs to in one atomic
 * word (no lock: a fork while another thread marks cannot leave one held),
 * so a forked child opens a file of its own.
 */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"

#define MARKS_DIR "marks"
#define MARK_NAME_MAX 200
/* Names tried after <role>.<pid>.marks is taken (a dead process with our pid, or a racing thread). */
#define MARK_FILE_TRIES 100

/* (pid << 32) | fd of this process's marks file; 0 until the first mark. */
static uint64_t marks_file;

/* 1-200 bytes, no control character: no C0, no DEL, and in UTF-8 no C1 control (C2 80..9F) and no
 * line or paragraph separator (E2 80 A8, E2 80 A9), which end a line for JavaScript as a newline does. */
static int valid_mark_name(const char *name)
{
    size_t n = 0;
    if (!name)
        return 0;
    for (; name[n]; n++) {
        const unsigned char c = (unsigned char)name[n];
        if (c < 0x20 || c == 0x7f || n >= MARK_NAME_MAX)
            return 0;
        if (c == 0xc2 && (unsigned char)name[n + 1] >= 0x80 && (unsigned char)name[n + 1] <= 0x9f)
            return 0;
        if (c == 0xe2 && (unsigned char)name[n + 1] == 0x80 &&
            ((unsigned char)name[n + 2] == 0xa8 || (unsigned char)name[n + 2] == 0xa9))
            return 0;
    }
    return n > 0;
}

/* This process's marks file, opened (created) on first use; *fd set. */
static int marks_fd(const char *name, int *fd)
{
    int rc, dirfd = -1, marksfd = -1, created = -1;
    char file[NAME_MAX + 1];
    const pid_t self = getpid();
    uint64_t seen = __atomic_load_n(&marks_file, __ATOMIC_ACQUIRE);
    if (seen != 0 && (pid_t)(seen >> 32) == self) {
        *fd = (int)(uint32_t)seen;
        return CANNHARNESS_OK;
    }
    const char *role = getenv("CANN_HARNESS_ROLE");
    if (!api_valid_name(role)) {
        rc = api_report(CANNHARNESS_ENOENV, "cannharness_mark", name,
                        "CANN_HARNESS_ROLE is %s: marks are filed by role (the harness sets it; for a run by hand, "
                        "set it to 1-200 characters from letters, digits, '_', '-', '.', '@')",
                        role ? "not a valid role name" : "not set");
        goto out;
    }
    rc = api_open_scenario_dir("cannharness_mark", name, &dirfd);
    if (rc != CANNHARNESS_OK)
        goto out;
    rc = api_open_subdir(dirfd, MARKS_DIR, "cannharness_mark", name, &marksfd);
    if (rc != CANNHARNESS_OK)
        goto out;
    for (int k = 0; created < 0; k++) {
        if (k == 0)
            snprintf(file, sizeof file, "%s.%d.marks", role, (int)self);
        else
            snprintf(file, sizeof file, "%s.%d-%d.marks", role, (int)self, k);
        if (api_fault(FAULT_MARKS_OPEN))
            errno = EACCES;
        else
            created = openat(marksfd, file, O_WRONLY | O_APPEND | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
        if (created < 0 && (errno != EEXIST || k + 1 >= MARK_FILE_TRIES)) {
            rc = api_report(CANNHARNESS_ESYS, "cannharness_mark", name, "cannot create %s/%s: %s", MARKS_DIR, file,
                            strerror(errno));
            goto out;
        }
    }
    uint64_t mine = ((uint64_t)(uint32_t)self << 32) | (uint32_t)created;
    if (__atomic_compare_exchange_n(&marks_file, &seen, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
        *fd = created;
        created = -1; /* kept for the life of the process */
    } else {
        /* Another thread of this process was first: use its file, drop ours. */
        unlinkat(marksfd, file, 0);
        *fd = (int)(uint32_t)seen;
    }
out:
    if (created >= 0)
        close(created);
    if (marksfd >= 0)
        close(marksfd);
    if (dirfd >= 0)
        close(dirfd);
    return rc;
}

API_EXPORT int cannharness_mark(const char *name)
{
    const uint64_t t = api_monotonic_ns(); /* first: the mark is when the call was made */
    int rc, fd = -1;
    char line[32 + MARK_NAME_MAX];
    if (!valid_mark_name(name))
        return api_report(CANNHARNESS_EINVAL, "cannharness_mark", name ? name : "(null)",
                          "invalid mark name: use 1-200 bytes without control characters (C0, DEL, C1) "
                          "or line separators (U+2028, U+2029)");
    rc = marks_fd(name, &fd);
    if (rc != CANNHARNESS_OK)
        return rc;
    int n = snprintf(line, sizeof line, "%llu %s\n", (unsigned long long)t, name);
    ssize_t w = api_fault(FAULT_MARKS_WRITE) ? (errno = ENOSPC, -1) : write(fd, line, (size_t)n);
    if (w != n)
        return api_report(CANNHARNESS_ESYS, "cannharness_mark", name, "cannot append to the marks file: %s",
                          w < 0 ? strerror(errno) : "short write");
    return CANNHARNESS_OK;
}
