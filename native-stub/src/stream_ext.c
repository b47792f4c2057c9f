/*
 * stream_ext.c - aclrtCreateStreamWithConfig, aclrtStreamGetId,
 * aclrtStreamQuery, aclrtStreamAbort, aclrtSetStreamFailureMode,
 * aclrtSynchronizeDevice(WithTimeout), aclrtGetResInCurrentThread,
 * aclrtValueWrite / aclrtValueWait (stream tasks on a 64-bit word of device
 * memory, across streams and processes) and aclrtMemcpyBatch. Checks and codes cite hicann/runtime; the stub's own
 * choices are listed in docs/acl-contract.md 11.6.
 */
#include "stream_ext.h"

#include "context.h"
#include "device_ids.h"
#include "explore.h"
#include "host_memory.h"
#include "memory.h"
#include "platform.h"
#include "runtime.h"
#include "stream.h"
#include "sync.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

/* ---- per-stream settings CANN keeps on the Stream object ---- */

struct stream_setting {
    struct stream_setting *next;
    uint64_t stream_id;
    uint32_t flags;        /* the ACL_STREAM_* flags of aclrtCreateStreamWithConfig */
    uint64_t failure_mode; /* aclrtSetStreamFailureMode: mode & 1 (api_impl.cc:2010) */
};

static struct stream_setting *settings; /* rt.lock */

static struct stream_setting *setting_of(uint64_t stream_id)
{
    for (struct stream_setting *x = settings; x; x = x->next)
        if (x->stream_id == stream_id)
            return x;
    return NULL;
}

static uint32_t flags_of(const struct stream *s)
{
    const struct stream_setting *x = setting_of(s->id);
    return x ? x->flags : 0;
}

/* Frees the settings of streams that are no longer live (destroyed). */
static void prune_settings(void)
{
    for (struct stream_setting **pp = &settings; *pp;) {
        struct stream_setting *x = *pp;
        void *handle = (void *)(uintptr_t)(STUB_STREAM_HANDLE_BASE | (x->stream_id & STUB_HANDLE_ID_MASK));
        if (rt_find_stream(handle))
            pp = &x->next;
        else {
            *pp = x->next;
            free(x);
        }
    }
}

/* A setting for s, created on first use; NULL when out of memory. */
static struct stream_setting *setting_for(const struct stream *s)
{
    struct stream_setting *x = setting_of(s->id);
    if (!x)
        prune_settings();
    if (!x && (x = calloc(1, sizeof *x))) {
        x->stream_id = s->id;
        x->next = settings;
        settings = x;
    }
    return x;
}

void stream_ext_shutdown(void)
{
    while (settings) {
        struct stream_setting *x = settings;
        settings = x->next;
        free(x);
    }
}

/* ---- streams ---- */

/* CANN: src/acl/aclrt_impl/stream.cpp:53 */
STUB_EXPORT aclError aclrtCreateStreamWithConfig(aclrtStream *stream, uint32_t priority, uint32_t flag)
{
    static const char *call = "aclrtCreateStreamWithConfig";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    struct stream *s = NULL;
    struct stream_setting *x = NULL;
    const uint32_t known = ACL_STREAM_FAST_LAUNCH | ACL_STREAM_FAST_SYNC | ACL_STREAM_PERSISTENT | ACL_STREAM_HUGE |
                           ACL_STREAM_CPU_SCHEDULE | ACL_STREAM_DEVICE_USE_ONLY;
    /* stream.cpp:53-92: NULL (100000); only the known flags are passed on (others are
     * ignored); api_error.cc:1371-1378 CheckStreamFlags: DEVICE_USE_ONLY
     * (RT_STREAM_CP_PROCESS_USE) with any other flag (107000); the priority is clamped
     * (:1336-1350, no effect on the stub); ApiImpl::StreamCreate: the context (107002) */
    if (!stream)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "stream is NULL");
    else if ((flag & ACL_STREAM_DEVICE_USE_ONLY) && (flag & known & ~ACL_STREAM_DEVICE_USE_ONLY))
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flag 0x%x combines ACL_STREAM_DEVICE_USE_ONLY with other flags: it must stand alone",
                       (unsigned)flag);
    else if ((rc = ctx_require(call, &c)))
        ;
    else if ((rc = stream_create(c, 0, &s)))
        stub_fail(rc, call, "cannot start the stream's executor thread");
    else if (!(x = setting_for(s))) {
        stream_destroy(s);
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    } else {
        x->flags = flag & known;
        (void)priority;
        *stream = rt_stream_handle(s);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/stream.cpp:295 */
STUB_EXPORT aclError aclrtStreamGetId(aclrtStream stream, int32_t *streamId)
{
    static const char *call = "aclrtStreamGetId";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    /* stream.cpp:295-301: NULL (100000); the handle (107017); ApiImpl::GetStreamId
     * (api_impl.cc:1786-1797): NULL is the current context's default stream (107002) */
    if (!streamId)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "streamId is NULL");
    else if ((rc = stream_check_handle(call, stream)) == ACL_SUCCESS &&
             (rc = stream_resolve(call, stream, &s)) == ACL_SUCCESS)
        *streamId = (int32_t)(s->id & INT32_MAX);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/stream.cpp:167 */
STUB_EXPORT aclError aclrtStreamQuery(aclrtStream stream, aclrtStreamStatus *status)
{
    static const char *call = "aclrtStreamQuery";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    /* stream.cpp:167-181: NULL (100000); the handle (107017); api_error.cc:1488-1495:
     * PERSISTENT and DEVICE_USE_ONLY streams answer complete at once; ApiImpl::StreamQuery
     * (api_impl.cc:1767-1783): the context (107002), NULL is the default stream; no
     * check of the stream's context */
    if (!status)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "status is NULL");
    else if ((rc = stream_check_handle(call, stream)))
        ;
    else if (stream && (flags_of(rt_find_stream(stream)) & (ACL_STREAM_PERSISTENT | ACL_STREAM_DEVICE_USE_ONLY)))
        *status = ACL_STREAM_STATUS_COMPLETE;
    else if ((rc = stream_resolve(call, stream, &s)) == ACL_SUCCESS)
        *status = s->completed >= s->submitted ? ACL_STREAM_STATUS_COMPLETE : ACL_STREAM_STATUS_NOT_READY;
    rt_leave();
    return rc;
}

/* Set in a running value wait's flag by aclrtStreamAbort: the wait ends at once. */
#define VALUE_WAIT_ABORTED 0x80000000u

/* Drops s's queued tasks and ends a running value wait (rt.lock held). Other running
 * tasks (a host function, an event or notify wait) finish: stub rule, contract 11.7. */
static void abort_stream(struct stream *s)
{
    stream_abort_queued(s);
    struct task *t = s->running;
    if (t && t->kind == TASK_VALUE_WAIT) {
        __atomic_fetch_or(&t->flag, VALUE_WAIT_ABORTED, __ATOMIC_SEQ_CST);
        plat_wake_word((uint32_t *)t->dst);
    }
}

/* CANN: src/acl/aclrt_impl/stream.cpp:285 */
STUB_EXPORT aclError aclrtStreamAbort(aclrtStream stream)
{
    static const char *call = "aclrtStreamAbort";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    /* stream.cpp:285-293: no acl checks; the handle (107017); api_error.cc:6602-6604: NULL
     * without a current context has no stream (107000); ApiImpl::StreamAbort
     * (api_impl.cc:7605-7608): the context (107002), the stream's context (107003) */
    if ((rc = stream_check_handle(call, stream)))
        ;
    else if (!stream && !ctx_current())
        rc =
            stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "stream is NULL and no context is current: no stream to abort");
    else if ((rc = stream_resolve(call, stream, &s)) == ACL_SUCCESS &&
             (rc = stream_check_context(call, s)) == ACL_SUCCESS)
        abort_stream(s);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/stream.cpp:258 */
STUB_EXPORT aclError aclrtSetStreamFailureMode(aclrtStream stream, uint64_t mode)
{
    static const char *call = "aclrtSetStreamFailureMode";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    struct stream_setting *x = NULL;
    /* stream.cpp:258-265: no acl checks; the handle (107017); api_error.cc:1600-1607: NULL
     * without a current context (107000), a DEVICE_USE_ONLY stream (207000);
     * ApiImpl::StreamSetMode (api_impl.cc:1994-1995): the context (107002); the mode is
     * kept as mode & 1 (:2010). The stub's tasks never fail, so it changes nothing. */
    if ((rc = stream_check_handle(call, stream)))
        ;
    else if (!stream && !ctx_current())
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "stream is NULL and no context is current");
    else if ((rc = stream_resolve(call, stream, &s)))
        ;
    else if (flags_of(s) & ACL_STREAM_DEVICE_USE_ONLY)
        rc = stub_fail(ACL_ERROR_RT_FEATURE_NOT_SUPPORT, call,
                       "the stream was created with ACL_STREAM_DEVICE_USE_ONLY: its failure mode cannot be set");
    else if (!(x = setting_for(s)))
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    else
        x->failure_mode = mode & ACL_STOP_ON_FAILURE;
    rt_leave();
    return rc;
}

/* ---- device ---- */

/* Waits until every stream of context c has run what was submitted to it when
 * the wait reaches it, or timeout_ms pass (-1: forever); rt.lock held. As
 * Context::Synchronize: the context's streams, default stream included, one
 * after another. rt.streams is newest first (ids decrease along it), so "the
 * next stream" is the largest id below the last one waited for: streams
 * created meanwhile are not waited for, and nothing is allocated. */
static aclError synchronize_context(const char *call, struct context *c, int32_t timeout_ms)
{
    uint64_t deadline = rt_deadline_after_ms(timeout_ms), below = UINT64_MAX;
    aclError rc = ACL_SUCCESS;
    for (;;) {
        struct stream *s = rt.streams;
        while (s && (s->ctx != c || s->id >= below))
            s = s->next;
        if (!s)
            break;
        below = s->id;
        uint64_t target = s->submitted;
        int timed_out = 0;
        s->waiters++; /* keeps it allocated while rt.lock is released */
        if (s->completed < target && !s->cancelled)
            EXPLORE_WAIT(call);
        while (s->completed < target && !s->cancelled && !timed_out) {
            if (target < s->drain_wake_at)
                s->drain_wake_at = target;
            timed_out = rt_wait_progress(deadline) && s->completed < target;
        }
        if (timed_out)
            rc = stub_fail(ACL_ERROR_RT_STREAM_SYNC_TIMEOUT, call,
                           "stream %llu of the device still has %llu unfinished task(s) after %d ms",
                           (unsigned long long)s->id, (unsigned long long)(target - s->completed), (int)timeout_ms);
        else if (s->cancelled && s->completed < target)
            rc = stub_fail(ACL_ERROR_RT_INTERNAL_ERROR, call, "a stream of the device was cancelled by aclFinalize");
        else if (s->sticky_error) {
            rc = stub_fail(s->sticky_error, call, "a wait on a stream of the device timed out");
            s->sticky_error = 0;
        }
        assert(s->waiters > 0);
        s->waiters--;
        rt_progress_broadcast(); /* an executor that waits for the waiters to leave */
        if (rc)
            break;
    }
    return rc;
}

static aclError synchronize_device(const char *call, int32_t timeout_ms)
{
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    /* api_error.cc:3477-3481: timeout 0 or < -1 (107000); ApiImpl::DeviceSynchronize
     * (api_impl.cc:3975-3980): the context (107002), then Context::Synchronize */
    if (!(rc = rt_check_sync_timeout_nonzero(call, timeout_ms)) && !(rc = ctx_require(call, &c)))
        rc = synchronize_context(call, c, timeout_ms);
    rt_leave();
    EXPLORE_RETURN(call);
    return rc;
}

/* CANN: src/acl/aclrt_impl/device.cpp:159 */
STUB_EXPORT aclError aclrtSynchronizeDevice(void)
{
    /* device.cpp:159-166: rtDeviceSynchronize, no timeout */
    return synchronize_device("aclrtSynchronizeDevice", -1);
}

/* CANN: src/acl/aclrt_impl/device.cpp:168 */
STUB_EXPORT aclError aclrtSynchronizeDeviceWithTimeout(int32_t timeout)
{
    static const char *call = "aclrtSynchronizeDeviceWithTimeout";
    /* device.cpp:168-184: timeout < -1 (107000) in the acl layer, before anything else */
    aclError rc = rt_check_sync_timeout_floor(call, timeout);
    return rc ? rc : synchronize_device(call, timeout);
}

/* The cores of an Atlas A2 (Ascend910B1) device (stub rule; CANN asks the device). */
#define STUB_CUBE_CORES 24u
#define STUB_VECTOR_CORES 48u

/* CANN: src/acl/aclrt_impl/device.cpp:492 */
STUB_EXPORT aclError aclrtGetResInCurrentThread(aclrtDevResLimitType type, uint32_t *value)
{
    static const char *call = "aclrtGetResInCurrentThread";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int d;
    /* device.cpp:492-499: NULL (100000); api_error.cc:6829-6832: type >= 2 (107000);
     * ApiImpl::GetResInCurrentThread (api_impl.cc:8056-8063): the device's value, from
     * the current context (107002). The stub has no per-stream limits to apply. */
    if (!value)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "value is NULL");
    else if ((uint32_t)type > (uint32_t)ACL_RT_DEV_RES_VECTOR_CORE)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "type %u is invalid: use ACL_RT_DEV_RES_CUBE_CORE (0) or ACL_RT_DEV_RES_VECTOR_CORE (1)",
                       (unsigned)type);
    else if ((rc = rt_require_device(call, &d)) == ACL_SUCCESS)
        *value = type == ACL_RT_DEV_RES_CUBE_CORE ? STUB_CUBE_CORES : STUB_VECTOR_CORES;
    rt_leave();
    return rc;
}

/* ---- value write / wait ---- */

/* The word of a value task: the device memory at p, 8 bytes inside one range
 * (api_error.cc:7258-7265 / 7282-7289: not device memory -> 107000; the 8-byte
 * alignment of docs/zh/api_ref/11-09_stream_memory_operation.md:25: stub rule, 107000). */
static aclError check_word(const char *call, void *p, struct mem_region **out)
{
    struct mem_region *r = memory_region_touching(p);
    if (!r || (r->kind != MEM_DEVICE && r->kind != MEM_IMPORTED))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "devAddr %p is not device memory (aclrtMalloc or an IPC import)", p);
    if ((uintptr_t)p % 8 != 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "devAddr %p is not 8-byte aligned", p);
    if ((size_t)(r->base + r->bytes - (char *)p) < sizeof(uint64_t))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "devAddr %p: the 8-byte word runs past its allocation", p);
    *out = r;
    return ACL_SUCCESS;
}

static aclError submit_value_task(const char *call, void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream,
                                  enum task_kind kind)
{
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct stream *s = NULL;
    struct mem_region *r = NULL;
    int is_wait = kind == TASK_VALUE_WAIT;
    /* memory.cpp:1441-1459: NULL (100000); api_c_memory.cc:571/590: the stream handle
     * (107017); api_error.cc:7253-7254 (write: flag != 0) / 7276-7280 (wait: flag >= 4):
     * 107000; then the memory (check_word); ApiImpl::MemWriteValue / MemWaitValue
     * (api_impl.cc:8984-9018): the context (107002), NULL is the default stream, a
     * stream of another context (107003) */
    if (!devAddr)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "devAddr is NULL");
    else if ((rc = stream_check_handle(call, stream)))
        ;
    else if (!is_wait && flag != 0)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "flag %u is reserved: pass 0", (unsigned)flag);
    else if (is_wait && flag > ACL_STREAM_WAIT_VALUE_NOR)
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "flag %u is invalid: use ACL_STREAM_WAIT_VALUE_GEQ, _EQ, _AND or _NOR (0..3)", (unsigned)flag);
    else if ((rc = check_word(call, devAddr, &r)))
        ;
    else if ((rc = stream_resolve(call, stream, &s)) || (rc = stream_check_context(call, s)))
        ;
    else {
        struct task *t = calloc(1, sizeof *t);
        if (!t)
            rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
        else {
            t->kind = kind;
            t->dst = devAddr;
            t->word = value;
            t->flag = flag;
            t->regions[0] = r; /* keeps the memory mapped until the task ran */
            r->refs++;
            stream_submit(s, t);
        }
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1441 */
STUB_EXPORT aclError aclrtValueWrite(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    return submit_value_task("aclrtValueWrite", devAddr, value, flag, stream, TASK_VALUE_WRITE);
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1451 */
STUB_EXPORT aclError aclrtValueWait(void *devAddr, uint64_t value, uint32_t flag, aclrtStream stream)
{
    return submit_value_task("aclrtValueWait", devAddr, value, flag, stream, TASK_VALUE_WAIT);
}

/* docs/zh/api_ref/11-09_stream_memory_operation.md:104 (the flag's table). */
static int value_reached(uint64_t v, uint64_t value, uint32_t flag)
{
    switch (flag) {
    case ACL_STREAM_WAIT_VALUE_GEQ: return (int64_t)(v - value) >= 0;
    case ACL_STREAM_WAIT_VALUE_EQ: return v == value;
    case ACL_STREAM_WAIT_VALUE_AND: return (v & value) != 0;
    default: return ~(v | value) != 0; /* ACL_STREAM_WAIT_VALUE_NOR */
    }
}

/* How long a value wait sleeps before it looks again (a copy or a store by
 * another process changes the word without a wake-up). */
#define VALUE_WAIT_RECHECK_NS (2ull * 1000000ull)

const char *value_task_run(struct stream *s, struct task *t)
{
    uint64_t *w = t->dst;
    /* the futex is the word's low half, on a little-endian host (stub rule: x86-64, aarch64) */
    uint32_t *low = (uint32_t *)(void *)w;
    if (t->kind == TASK_VALUE_WRITE) {
        __atomic_store_n(w, t->word, __ATOMIC_RELEASE);
        plat_wake_word(low);
        return NULL;
    }
    for (;;) {
        uint64_t v = __atomic_load_n(w, __ATOMIC_ACQUIRE);
        if (value_reached(v, t->word, __atomic_load_n(&t->flag, __ATOMIC_SEQ_CST) & ~VALUE_WAIT_ABORTED))
            return NULL;
        if (__atomic_load_n(&s->cancelled, __ATOMIC_SEQ_CST))
            return "abandoned";
        if (__atomic_load_n(&t->flag, __ATOMIC_SEQ_CST) & VALUE_WAIT_ABORTED)
            return "aborted";
        stream_note_blocked(s);
        plat_wait_on_word_or_cancel(low, (uint32_t)v, &s->cancelled, 0, plat_monotonic_ns() + VALUE_WAIT_RECHECK_NS);
    }
}

/* ---- batch copies ---- */

#define MEMCPY_BATCH_MAX 4096 /* DEVMM_MEMCPY_BATCH_MAX_COUNT, pkg_inc/driver/ascend_hal_define.h:810 */

static int all_zero(const size_t *sizes, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (sizes[i])
            return 0;
    return 1;
}

/* The acl layer, memory.cpp:1692-1733 ValidateMemcpyBatchParams (100000 each). */
static aclError check_batch_acl(const char *call, void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t n,
                                aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs)
{
    const char *null = !dsts           ? "dsts"
                       : !destMaxs     ? "destMaxs"
                       : !srcs         ? "srcs"
                       : !attrs        ? "attrs"
                       : !attrsIndexes ? "attrsIndexes"
                                       : NULL;
    if (null)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", null);
    for (size_t i = 0; i < n; i++)
        if (destMaxs[i] < sizes[i])
            return stub_fail(ACL_ERROR_INVALID_PARAM, call, "sizes[%zu] %zu is larger than destMaxs[%zu] %zu", i,
                             sizes[i], i, destMaxs[i]);
    for (size_t k = 0; k < numAttrs; k++)
        for (size_t b = 0; b < sizeof attrs[k].rsv; b++)
            if (attrs[k].rsv[b])
                return stub_fail(ACL_ERROR_INVALID_PARAM, call, "attrs[%zu].rsv is not all 0", k);
    return ACL_SUCCESS;
}

/* The rt layer, api_error.cc:7307-7333 (107000 each). */
static aclError check_batch_rt(const char *call, size_t n, const size_t *attrsIndexes, size_t numAttrs)
{
    if (numAttrs == 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "numAttrs is 0");
    if (numAttrs > n)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "numAttrs %zu is larger than numBatches %zu", numAttrs, n);
    if (n > MEMCPY_BATCH_MAX)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "numBatches %zu is larger than %d", n, MEMCPY_BATCH_MAX);
    if (attrsIndexes[0] != 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "attrsIndexes[0] is %zu: it must be 0", attrsIndexes[0]);
    for (size_t k = 1; k < numAttrs; k++)
        if (attrsIndexes[k] <= attrsIndexes[k - 1] || attrsIndexes[k] >= n)
            return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                             "attrsIndexes[%zu] %zu must be larger than the one before and less than numBatches %zu", k,
                             attrsIndexes[k], n);
    return ACL_SUCCESS;
}

/* UNREGISTERED counts as HOST (api_impl.cc:8801-8803). */
static aclrtMemLocationType real_type(aclrtMemLocationType t)
{
    return t == ACL_MEM_LOCATION_TYPE_UNREGISTERED || t == ACL_MEM_LOCATION_TYPE_HOST_NUMA ? ACL_MEM_LOCATION_TYPE_HOST
                                                                                           : t;
}

/* ApiImpl::CheckMemCpyAttr (api_impl.cc:8794-8830) of one side: the declared location
 * must be the memory's, and for device memory its device. */
static aclError check_side(const char *call, size_t i, const char *side, const void *p, aclrtMemLocation loc)
{
    aclrtPtrAttributes a;
    host_memory_attributes(p, &a);
    aclrtMemLocationType actual = real_type(a.location.type);
    if (actual != real_type(loc.type) || (actual == ACL_MEM_LOCATION_TYPE_DEVICE && a.location.id != loc.id))
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                         "copy %zu: %s %p is %s memory%s but its attribute says type %d, id %u", i, side, p,
                         actual == ACL_MEM_LOCATION_TYPE_DEVICE ? "device" : "host",
                         actual == ACL_MEM_LOCATION_TYPE_DEVICE ? " of the device in location.id" : "", (int)loc.type,
                         (unsigned)loc.id);
    return ACL_SUCCESS;
}

/* CANN: src/acl/aclrt_impl/memory.cpp:1814 */
STUB_EXPORT aclError aclrtMemcpyBatch(void **dsts, size_t *destMaxs, void **srcs, size_t *sizes, size_t numBatches,
                                      aclrtMemcpyBatchAttr *attrs, size_t *attrsIndexes, size_t numAttrs,
                                      size_t *failIndex)
{
    static const char *call = "aclrtMemcpyBatch";
    EXPLORE_API(call);
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    /* memory.cpp:1814-1823, 1735-1752: failIndex, sizes NULL and numBatches 0 (100000);
     * all sizes 0: success, *failIndex = SIZE_MAX; then the checks above */
    if (!failIndex)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "failIndex is NULL");
    else if (!sizes)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "sizes is NULL");
    else if (numBatches == 0)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "numBatches is 0");
    else if (all_zero(sizes, numBatches))
        *failIndex = SIZE_MAX;
    else if (!(rc = check_batch_acl(call, dsts, destMaxs, srcs, sizes, numBatches, attrs, attrsIndexes, numAttrs))) {
        *failIndex = SIZE_MAX; /* api_error.cc:7302 SetFailIndex */
        rc = check_batch_rt(call, numBatches, attrsIndexes, numAttrs);
    }
    if (rc || sizes == NULL || all_zero(sizes, numBatches))
        goto out;
    /* ApiImpl::MemcpyBatch (api_impl.cc:8760-8791): every pair is checked first (the
     * failing index in *failIndex), host<->device only; then the driver copies them all.
     * Stub rule: a range that starts in an allocation must fit in it (as aclrtMemcpy). */
    size_t k = 0;
    for (size_t i = 0; i < numBatches && !rc; i++) {
        if (k + 1 < numAttrs && i >= attrsIndexes[k + 1])
            k++;
        aclrtPtrAttributes da, sa;
        host_memory_attributes(dsts[i], &da);
        host_memory_attributes(srcs[i], &sa);
        const struct mem_region *dr = memory_region_touching(dsts[i]), *sr = memory_region_touching(srcs[i]);
        if ((rc = check_side(call, i, "dst", dsts[i], attrs[k].dstLoc)) ||
            (rc = check_side(call, i, "src", srcs[i], attrs[k].srcLoc)))
            ;
        else if (real_type(da.location.type) == real_type(sa.location.type))
            rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                           "copy %zu is %s to %s: only host-to-device and device-to-host copies are supported", i,
                           sa.location.type == ACL_MEM_LOCATION_TYPE_DEVICE ? "device" : "host",
                           da.location.type == ACL_MEM_LOCATION_TYPE_DEVICE ? "device" : "host");
        else if ((dr && (size_t)(dr->base + dr->bytes - (char *)dsts[i]) < sizes[i]) ||
                 (sr && (size_t)(sr->base + sr->bytes - (char *)srcs[i]) < sizes[i]))
            rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "copy %zu of %zu bytes runs past the end of an allocation",
                           i, sizes[i]);
        if (rc)
            *failIndex = i;
    }
    if (rc)
        goto out;
    for (size_t i = 0; i < numBatches; i++)
        if (sizes[i])
            memmove(dsts[i], srcs[i], sizes[i]);
out:
    rt_leave();
    return rc;
}
