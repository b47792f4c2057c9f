/*
 * mutant.c - ACL_STUB_MUTANT parsing (see mutant.h). The hooks live where
 * the behaviour changes: stream.c (waits, record-instant, stream sync),
 * event.c and ipc_event.c (event sync).
 */
#include "mutant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *const NAMES[] = {
    [MUTANT_WAIT_NOOP] = "wait-noop",
    [MUTANT_RECORD_INSTANT] = "record-instant",
    [MUTANT_WAIT_LATEST] = "wait-latest",
    [MUTANT_SYNC_NOOP] = "sync-noop",
};
#define MUTANT_COUNT ((int)(sizeof NAMES / sizeof NAMES[0]))

static int active = MUTANT_NONE;

int mutant_configure(char *err, unsigned long errlen)
{
    __atomic_store_n(&active, MUTANT_NONE, __ATOMIC_RELEASE);
    const char *v = getenv("ACL_STUB_MUTANT");
    if (!v || !*v || strcmp(v, "none") == 0)
        return 0;
    for (int m = 1; m < MUTANT_COUNT; m++) {
        if (strcmp(v, NAMES[m]) == 0) {
            __atomic_store_n(&active, m, __ATOMIC_RELEASE);
            return 0;
        }
    }
    snprintf(err, errlen,
             "ACL_STUB_MUTANT=%s is not a mutant: use wait-noop, record-instant, wait-latest or sync-noop "
             "(or unset it for the faithful stub)",
             v);
    return -1;
}

int mutant_is(enum mutant m)
{
    return __atomic_load_n(&active, __ATOMIC_ACQUIRE) == (int)m;
}
