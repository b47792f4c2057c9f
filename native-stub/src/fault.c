/*
 * fault.c - ACL_STUB_FAULT parsing and per-call countdowns.
 */
#include "fault.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define FAULT_MAX 16

struct fault {
    char call[64];
    aclError code;
    long nth;   /* 0: every call */
    long calls; /* calls seen so far */
};

static struct fault faults[FAULT_MAX];
static int fault_count;

int fault_configure(char *err, unsigned long errlen)
{
    __atomic_store_n(&fault_count, 0, __ATOMIC_RELEASE);
    const char *v = getenv("ACL_STUB_FAULT");
    if (!v || !*v)
        return 0;
    char buf[1024];
    if (strlen(v) >= sizeof buf) {
        snprintf(err, errlen, "ACL_STUB_FAULT is too long");
        return -1;
    }
    strcpy(buf, v);
    int n = 0;
    char *save = NULL;
    for (char *item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
        char original[sizeof buf];
        strcpy(original, item);
        char *call = item, *code_s = strchr(item, ':');
        char *nth_s = code_s ? strchr(code_s + 1, ':') : NULL;
        if (code_s)
            *code_s++ = '\0';
        if (nth_s)
            *nth_s++ = '\0';
        char *end = NULL;
        errno = 0;
        long code = code_s ? strtol(code_s, &end, 10) : 0;
        int ok = code_s && *code_s && !*end && errno == 0 && code > 0 && strncmp(call, "acl", 3) == 0 &&
                 strlen(call) < sizeof faults[0].call && n < FAULT_MAX;
        long nth = 0;
        if (ok && nth_s) {
            nth = strtol(nth_s, &end, 10);
            ok = *nth_s && !*end && nth >= 1;
        }
        if (!ok) {
            snprintf(err, errlen,
                     "ACL_STUB_FAULT entry '%s' is invalid: use <aclCall>:<code>[:<nth>], e.g. "
                     "aclrtRecordEvent:507000:2 (at most %d entries, comma-separated)",
                     original, FAULT_MAX);
            return -1;
        }
        strcpy(faults[n].call, call);
        faults[n].code = (aclError)code;
        faults[n].nth = nth;
        faults[n].calls = 0;
        n++;
    }
    __atomic_store_n(&fault_count, n, __ATOMIC_RELEASE);
    return 0;
}

aclError fault_check(const char *call)
{
    int n = __atomic_load_n(&fault_count, __ATOMIC_ACQUIRE);
    for (int i = 0; i < n; i++) {
        if (strcmp(faults[i].call, call) != 0)
            continue;
        long seen = __atomic_add_fetch(&faults[i].calls, 1, __ATOMIC_RELAXED);
        if (faults[i].nth == 0 || seen == faults[i].nth)
            return faults[i].code;
    }
    return ACL_SUCCESS;
}
