/*
 * jitter.c - ACL_STUB_JITTER=<seed>:<max_us> (see jitter.h). Delays come
 * from a stateless hash of (seed, role, what is delayed), so they do not
 * depend on which thread asks first.
 */
#include "jitter.h"

#include "cannstub/jitter.h"
#include "errors.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define JITTER_MAX_US 1000000u /* 1 s: more would only make timeouts fire */

static uint64_t base_key; /* seed mixed with the role name; atomic: a round reseeds it while streams run */
static uint32_t max_us;   /* 0: off */

static uint64_t mix(uint64_t z)
{
    /* splitmix64 finaliser */
    z += 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static uint64_t hash_text(const char *s)
{
    uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
    for (; s && *s; s++)
        h = (h ^ (unsigned char)*s) * 0x100000001b3ull;
    return h;
}

int jitter_configure(char *err, unsigned long errlen)
{
    __atomic_store_n(&max_us, 0, __ATOMIC_RELEASE);
    const char *v = getenv("ACL_STUB_JITTER");
    if (!v || !*v)
        return 0;
    char *end = NULL;
    errno = 0;
    unsigned long long seed = strtoull(v, &end, 10);
    int ok = *v >= '0' && *v <= '9' && errno == 0 && *end == ':';
    unsigned long long us = 0;
    if (ok) {
        const char *u = end + 1;
        us = strtoull(u, &end, 10);
        ok = *u >= '0' && *u <= '9' && errno == 0 && *end == '\0' && us >= 1 && us <= JITTER_MAX_US;
    }
    if (!ok) {
        snprintf(err, errlen,
                 "ACL_STUB_JITTER=%s is invalid: use <seed>:<max_us>, two whole numbers with max_us from 1 to %u, "
                 "e.g. ACL_STUB_JITTER=42:200 (or unset it)",
                 v, JITTER_MAX_US);
        return -1;
    }
    __atomic_store_n(&base_key, mix(seed ^ mix(hash_text(getenv("CANN_HARNESS_ROLE")))), __ATOMIC_RELEASE);
    __atomic_store_n(&max_us, (uint32_t)us, __ATOMIC_RELEASE);
    return 0;
}

STUB_EXPORT int cannstub_jitter_reseed(unsigned long long seed)
{
    if (!jitter_enabled())
        return -1;
    __atomic_store_n(&base_key, mix(seed ^ mix(hash_text(getenv("CANN_HARNESS_ROLE")))), __ATOMIC_RELEASE);
    return 0;
}

int jitter_enabled(void)
{
    return __atomic_load_n(&max_us, __ATOMIC_ACQUIRE) != 0;
}

uint32_t jitter_task_us(int device, uint64_t stream, uint64_t task)
{
    uint32_t m = __atomic_load_n(&max_us, __ATOMIC_ACQUIRE);
    if (!m)
        return 0;
    uint64_t h = mix(__atomic_load_n(&base_key, __ATOMIC_ACQUIRE) ^
                     mix(((uint64_t)(uint32_t)device << 48) ^ (stream << 32) ^ task));
    return (uint32_t)(h % ((uint64_t)m + 1));
}

uint32_t jitter_completion_us(uint64_t object, uint64_t target)
{
    uint32_t m = __atomic_load_n(&max_us, __ATOMIC_ACQUIRE);
    if (!m)
        return 0;
    uint64_t h = mix(__atomic_load_n(&base_key, __ATOMIC_ACQUIRE) ^ 0x686f7374ull ^ mix((object << 32) ^ target));
    if ((h & 3) != 0)
        return 0; /* a lower rate than task starts */
    return (uint32_t)((h >> 2) % ((uint64_t)m + 1));
}

void jitter_sleep_us(uint32_t us)
{
    if (!us)
        return;
    struct timespec ts = {.tv_sec = us / 1000000u, .tv_nsec = (long)(us % 1000000u) * 1000};
    while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
    }
}
