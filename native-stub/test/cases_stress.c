/*
 * cases_stress.c - concurrent misuse (docs/acl-contract.md section 6,
 * "Lifetimes"): threads record, wait, query, synchronize and destroy the same
 * event handles while another resets the device they belong to. Errors are
 * the expected answer (107017 for a handle destroyed under us, 107003 for an
 * event of another device, ...); a crash, a hang or a sanitizer report is a
 * failure. It runs under ASan/UBSan and TSan with `npm run test:sanitizers`.
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "support.h"

#define STRESS_SLOTS 8
#define STRESS_MS 1500
#define STRESS_USERS 3
#define STRESS_IPC_EVENTS 32

struct stress {
    aclrtEvent slots[STRESS_SLOTS]; /* accessed atomically */
    aclrtEvent ipc_reserve[STRESS_IPC_EVENTS]; /* IPC events of device 1, made before the threads */
    int stop;
    int unexpected_code;
    const char *unexpected_call;
    uint64_t calls;
};

static aclrtEvent pick(struct stress *st, unsigned *seed)
{
    return __atomic_load_n(&st->slots[rand_r(seed) % STRESS_SLOTS], __ATOMIC_ACQUIRE);
}

/* Codes concurrent misuse may legitimately produce. */
static void expect_misuse_code(struct stress *st, const char *call, int code)
{
    __atomic_add_fetch(&st->calls, 1, __ATOMIC_RELAXED);
    /* ACL codes are static const int (acl_base.h): no case labels at -O0 */
    if (code == ACL_SUCCESS || code == ACL_ERROR_INVALID_PARAM) /* slot still empty (NULL) */
        return;
    switch (code) {
    case ACL_ERROR_RT_CONTEXT_NULL:        /* device reset under us */
    case ACL_ERROR_RT_STREAM_CONTEXT:      /* event of another device */
    case ACL_ERROR_RT_INVALID_HANDLE:      /* destroyed under us */
    case ACL_ERROR_RT_EVENT_SYNC_TIMEOUT:  /* pending record */
    case ACL_ERROR_RT_STREAM_SYNC_TIMEOUT: return;
    default:
        if (!__atomic_load_n(&st->unexpected_code, __ATOMIC_RELAXED)) {
            st->unexpected_call = call;
            __atomic_store_n(&st->unexpected_code, code, __ATOMIC_RELAXED);
        }
    }
}

#define MISUSE(st, call) expect_misuse_code((st), #call, (call))

/* Device 1: creates events into the slots (replacing and destroying the
 * previous occupant), and sets the device again after a forced reset. */
static void *creator_main(void *arg)
{
    struct stress *st = arg;
    unsigned seed = 1;
    MISUSE(st, aclrtSetDevice(1));
    for (unsigned round = 0; !__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE); round++) {
        aclrtEvent e = NULL;
        int rc = ACL_SUCCESS;
        /* now and then one of the IPC events made before the threads started,
         * so that slots are taken and released under the same races */
        if (round % 16 == 0 && round / 16 < STRESS_IPC_EVENTS)
            e = st->ipc_reserve[round / 16];
        else
            rc = aclrtCreateEventWithFlag(&e, ACL_EVENT_SYNC);
        expect_misuse_code(st, "aclrtCreateEventWithFlag", rc);
        if (rc == ACL_ERROR_RT_CONTEXT_NULL) {
            MISUSE(st, aclrtSetDevice(1));
            continue;
        }
        if (rc != ACL_SUCCESS)
            continue;
        aclrtEvent old = __atomic_exchange_n(&st->slots[rand_r(&seed) % STRESS_SLOTS], e, __ATOMIC_ACQ_REL);
        if (old)
            MISUSE(st, aclrtDestroyEvent(old));
    }
    return NULL;
}

/* Device 0: records events of device 1 on its own stream (refused with
 * 107003 while the event lives), waits on them, queries and synchronizes. */
static void *user_main(void *arg)
{
    struct stress *st = arg;
    unsigned seed = (unsigned)(uintptr_t)&seed;
    MISUSE(st, aclrtSetDevice(0));
    aclrtStream s = NULL;
    MISUSE(st, aclrtCreateStream(&s));
    aclrtEventRecordedStatus status;
    while (!__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE)) {
        MISUSE(st, aclrtRecordEvent(pick(st, &seed), s));
        MISUSE(st, aclrtStreamWaitEvent(s, pick(st, &seed)));
        MISUSE(st, aclrtQueryEventStatus(pick(st, &seed), &status));
        MISUSE(st, aclrtSynchronizeEventWithTimeout(pick(st, &seed), 1));
        MISUSE(st, aclrtDestroyEvent(pick(st, &seed)));
    }
    /* a wait on an event destroyed before its next record never ends (as on the
     * device): the force destroy drops it, where aclrtDestroyStream would wait */
    MISUSE(st, aclrtSynchronizeStreamWithTimeout(s, BLOCK_PROBE_MS));
    MISUSE(st, aclrtDestroyStreamForce(s));
    return NULL;
}

/* Device 1 again: records its own events and resets the device (which
 * destroys every event of device 1) now and then. */
static void *resetter_main(void *arg)
{
    struct stress *st = arg;
    unsigned seed = 7;
    MISUSE(st, aclrtSetDevice(1));
    aclrtStream s = NULL;
    MISUSE(st, aclrtCreateStream(&s));
    for (unsigned round = 0; !__atomic_load_n(&st->stop, __ATOMIC_ACQUIRE); round++) {
        MISUSE(st, aclrtRecordEvent(pick(st, &seed), s));
        MISUSE(st, aclrtStreamWaitEvent(s, pick(st, &seed)));
        if (round % 64 == 63) {
            MISUSE(st, aclrtResetDeviceForce(1));
            MISUSE(st, aclrtSetDevice(1));
            MISUSE(st, aclrtCreateStream(&s));
        }
    }
    MISUSE(st, aclrtSynchronizeStreamWithTimeout(s, BLOCK_PROBE_MS));
    MISUSE(st, aclrtDestroyStreamForce(s));
    return NULL;
}

CT_STUB_CASE(stress_concurrent_misuse_is_errors_not_crashes,
             "the stub's robustness under misuse; states no CANN answer")
{
    static struct stress st;
    acl_up(1);
    for (int i = 0; i < STRESS_IPC_EVENTS; i++)
        st.ipc_reserve[i] = ipc_event_new(); /* declares its /dev/shm object, which must be gone at the end */
    pthread_t threads[2 + STRESS_USERS];
    CT_TRUE(pthread_create(&threads[0], NULL, creator_main, &st) == 0);
    CT_TRUE(pthread_create(&threads[1], NULL, resetter_main, &st) == 0);
    for (int i = 0; i < STRESS_USERS; i++)
        CT_TRUE(pthread_create(&threads[2 + i], NULL, user_main, &st) == 0);
    sleep_ms(STRESS_MS);
    __atomic_store_n(&st.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2 + STRESS_USERS; i++)
        pthread_join(threads[i], NULL);
    ct_note("%llu calls", (unsigned long long)st.calls);
    if (st.unexpected_code)
        CT_FAIL("%s returned %d (%s), which misuse must not produce", st.unexpected_call, st.unexpected_code,
                ct_code_name(st.unexpected_code));
    acl_down();
}

/* Calls from several threads while another thread initialises and finalizes
 * the runtime over and over: each answers 0 or 100001, nothing races. */
struct init_race {
    int stop;
    int unexpected_code;
};

static void *init_race_caller(void *arg)
{
    struct init_race *r = arg;
    while (!__atomic_load_n(&r->stop, __ATOMIC_ACQUIRE)) {
        uint32_t count = 0;
        int rc = aclrtGetDeviceCount(&count);
        if (rc != ACL_SUCCESS && rc != ACL_ERROR_UNINITIALIZE)
            __atomic_store_n(&r->unexpected_code, rc, __ATOMIC_RELAXED);
    }
    return NULL;
}

CT_STUB_CASE(stress_calls_racing_init_and_finalize, "the stub's robustness under misuse; states no CANN answer")
{
    static struct init_race r;
    pthread_t threads[2];
    for (int i = 0; i < 2; i++)
        CT_TRUE(pthread_create(&threads[i], NULL, init_race_caller, &r) == 0);
    for (int round = 0; round < 200; round++) {
        CT_OK(aclInit(NULL));
        CT_OK(aclFinalize());
    }
    __atomic_store_n(&r.stop, 1, __ATOMIC_RELEASE);
    for (int i = 0; i < 2; i++)
        pthread_join(threads[i], NULL);
    if (r.unexpected_code)
        CT_FAIL("aclrtGetDeviceCount returned %d (%s) while the runtime was initialised and finalized",
                r.unexpected_code, ct_code_name(r.unexpected_code));
}
