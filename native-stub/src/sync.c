/*
 * sync.c - the abort path of sync.h's checked pthread wrappers.
 */
#include "sync.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void sync_fatal(const char *what, int rc, const char *file, int line)
{
    fprintf(stderr, "cannstub: %s failed at %s:%d: %s (a broken lock invariant; aborting)\n", what, file, line,
            strerror(rc));
    abort();
}
