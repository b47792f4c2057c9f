/*
 * api.h - internals of libcannharness.so (the public side is
 * include/cannharness.h): the scenario's environment, names, safe directory
 * access, error reports and the test-only fault hook.
 */
#ifndef CANNHARNESS_API_H
#define CANNHARNESS_API_H

#include <stdint.h>

#include "cannharness.h"

#define API_EXPORT __attribute__((visibility("default")))
/* Rendezvous names: 1-200 characters (src/rendezvous/layout.ts). */
#define API_NAME_MAX 200

/* ---- fault injection (tests only; native-stub/README.md) ----
 * CANNHARNESS_API_FAULT=<point>[:<nth>][,...]: the nth use of <point> (every
 * use without nth) fails as the system call would, so that each error path
 * runs on purpose. Read once, at the first use of any point. */
enum api_fault {
    FAULT_MKDIR,       /* mkdirat of a layout directory: EACCES */
    FAULT_TEMP_OPEN,   /* creating a publish's temporary file: ENOSPC */
    FAULT_WRITE,       /* writing it: ENOSPC */
    FAULT_SYNC,        /* fdatasync: EIO */
    FAULT_RENAME,      /* renaming it into place: EXDEV */
    FAULT_INOTIFY,     /* inotify_init1: EMFILE (the await falls back to a 25 ms re-check) */
    FAULT_READ,        /* reading a published value: EIO */
    FAULT_MARKS_OPEN,  /* creating the marks file: EACCES */
    FAULT_MARKS_WRITE, /* appending a mark: ENOSPC */
    API_FAULT_POINTS
};
/* 1 when this use of point must fail (errno is then set by the caller). */
int api_fault(enum api_fault point);

/* Prints "cannharness: <call>("<name>"): <why> (<code name>)" on stderr (nothing when call is
 * NULL: a quiet attempt), returns code. */
int api_report(int code, const char *call, const char *name, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* 1 if name is a valid rendezvous name (layout.ts's NAME_PATTERN). */
int api_valid_name(const char *name);

/* Opens CANN_HARNESS_DIR (O_DIRECTORY; pinned at the first call: common.c); sets *fd. CANNHARNESS_ENOENV
 * if unset, relative or missing, CANNHARNESS_EREMOVED once the pinned directory was removed,
 * CANNHARNESS_ESYS for another failure (errno in the message). */
int api_open_scenario_dir(const char *call, const char *name, int *fd);

/* 1 when the directory of fd was removed: our descriptor keeps its inode, with no links left (so
 * inotify sends no IN_DELETE_SELF; an IN_DELETE on the parent wakes a waiter to look). */
int api_dir_removed(int fd);

/* Opens (creating it if missing, mode 0755) the layout directory sub of dirfd,
 * never through a symbolic link: CANNHARNESS_EUNSAFE if it is one or is not a directory;
 * CANNHARNESS_EREMOVED if dirfd's directory was removed (the run is over). */
int api_open_subdir(int dirfd, const char *sub, const char *call, const char *name, int *fd);

/* The scenario deadline: *has = 0 when CANN_HARNESS_DEADLINE_NS is unset or empty. */
int api_deadline(const char *call, const char *name, int *has, uint64_t *deadline_ns);

uint64_t api_monotonic_ns(void);

#endif
