/*
 * context.c - aclrtCreateContext / DestroyContext / SetCurrentContext /
 * GetCurrentContext, and the per-thread current context every other call
 * checks.
 *
 * As in CANN (src/runtime/core/src/runtime.cc:5380-5395 Runtime::CurrentContext):
 * a thread's current context is either an explicit one (CurCtx, set by
 * aclrtCreateContext / aclrtSetCurrentContext) or the primary context of the
 * device it last set (CurRef, a per-device slot set by aclrtSetDevice,
 * api_impl.cc:3445-3470, which also clears CurCtx). An explicit context that
 * was destroyed is no context (runtime.cc:5383-5385); the device slot holds
 * whichever primary context the device has now (core/inc/reference.hpp: the
 * slot is re-filled when the device is set again), none after the last reset.
 */
#include "context.h"

#include "device_ids.h"
#include "event.h"
#include "runtime.h"
#include "stream.h"

#include <stdlib.h>

static _Thread_local int tls_primary_device = -1; /* CurRef: -1 none */
static _Thread_local uint64_t tls_context_id;     /* CurCtx: 0 none */

void *ctx_handle(const struct context *c)
{
    return (void *)(uintptr_t)(STUB_CONTEXT_HANDLE_BASE | (c->id & STUB_HANDLE_ID_MASK));
}

struct context *ctx_find(void *handle)
{
    uintptr_t h = (uintptr_t)handle;
    if ((h & ~(uintptr_t)STUB_HANDLE_ID_MASK) != STUB_CONTEXT_HANDLE_BASE)
        return NULL;
    for (struct context *c = rt.contexts; c; c = c->next)
        if (ctx_handle(c) == handle)
            return c;
    return NULL;
}

static struct context *find_by_id(uint64_t id)
{
    for (struct context *c = rt.contexts; c; c = c->next)
        if (c->id == id)
            return c;
    return NULL;
}

struct context *ctx_current(void)
{
    if (tls_context_id)
        return find_by_id(tls_context_id);
    int d = tls_primary_device;
    if (d < 0 || (uint32_t)d >= rt.device_count)
        return NULL;
    return rt.devices[d].primary;
}

/* CANN's ContextManage::CheckContextIsValid (context_manage.cc:71-99) detaches
 * a thread from a context that went away (DetachInvalidContextFromThread,
 * :34-46): its explicit context, or its device slot, is cleared, so it stays
 * without a context even once another thread sets the device again (the
 * device slot keeps the old context until then, runtime.cc:2899-2903 and
 * reference.hpp TrySetValAndResetRef). *was_bound: it had a binding. */
static struct context *current_detaching(int *was_bound)
{
    struct context *c = ctx_current();
    *was_bound = tls_context_id != 0 || tls_primary_device >= 0;
    if (!c) {
        tls_context_id = 0;
        tls_primary_device = -1;
    }
    return c;
}

struct context *ctx_current_checked(void)
{
    int was_bound;
    return current_detaching(&was_bound);
}

aclError ctx_require(const char *call, struct context **out)
{
    int was_bound;
    struct context *c = current_detaching(&was_bound);
    /* a thread with no binding at all gets the configured default device
     * (Runtime::CurrentContext, runtime.cc:5397-5430: ApiImpl SetDevice) */
    if (!c && !was_bound && rt.default_device >= 0 && !(c = ctx_set_device(rt.default_device)))
        return stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    if (!c)
        return stub_fail(ACL_ERROR_RT_CONTEXT_NULL, call,
                         was_bound ? "this thread's current context is gone (destroyed, or its device was reset): "
                                     "call aclrtSetDevice or aclrtSetCurrentContext on this thread again"
                                   : "no current context on this thread: call aclrtSetDevice (or "
                                     "aclrtSetCurrentContext) on this thread first");
    *out = c;
    return ACL_SUCCESS;
}

void ctx_make_primary_current(int device)
{
    tls_primary_device = device;
    tls_context_id = 0;
}

static void make_current(const struct context *c)
{
    /* api_impl.cc:4175-4191 ContextSetCurrent: CurCtx = c, CurRef = nullptr */
    tls_context_id = c->id;
    tls_primary_device = -1;
}

static struct context *ctx_new(int device, int is_primary)
{
    struct context *c = calloc(1, sizeof *c);
    if (!c)
        return NULL;
    c->id = ++rt.next_context_id;
    c->device = device;
    c->is_primary = is_primary;
    c->next = rt.contexts;
    rt.contexts = c;
    return c;
}

struct context *ctx_set_device(int device)
{
    struct device *dev = &rt.devices[device];
    if (!dev->primary && !(dev->primary = ctx_new(device, 1)))
        return NULL;
    dev->refcount++;
    ctx_make_primary_current(device); /* api_impl.cc:3445-3470 SetDevice */
    return dev->primary;
}

void ctx_unbind_device_slot(void)
{
    tls_primary_device = -1;
}

void ctx_teardown(struct context *c, int cancel)
{
    for (struct stream *s = rt.streams, *next; s; s = next) {
        next = s->next;
        if (s->ctx == c) {
            if (cancel)
                stream_cancel(s);
            else
                stream_destroy(s);
        }
    }
    for (struct event *e = rt.events, *next; e; e = next) {
        next = e->next;
        if (e->ctx_id == c->id)
            event_destroy(e);
    }
    for (struct context **pp = &rt.contexts; *pp; pp = &(*pp)->next) {
        if (*pp == c) {
            *pp = c->next;
            break;
        }
    }
    if (c->is_primary && rt.devices[c->device].primary == c)
        rt.devices[c->device].primary = NULL;
    free(c);
}

void ctx_shutdown(int cancel)
{
    for (int d = 0; d < (int)rt.device_count; d++)
        rt.devices[d].refcount = 0;
    while (rt.contexts)
        ctx_teardown(rt.contexts, cancel);
}

/* CANN: src/acl/aclrt_impl/context.cpp:29 */
STUB_EXPORT aclError aclrtCreateContext(aclrtContext *context, int32_t deviceId)
{
    static const char *call = "aclrtCreateContext";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    /* acl layer NULL check (aclrt_impl/context.cpp:34), then the device id
     * (api_error.cc:3619-3632 ContextCreate, RT_ERROR_DEVICE_ID); the new
     * context becomes current (api_impl.cc:4106-4129). */
    if (!context)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "context is NULL");
    else if ((rc = device_id_check(call, "device id", deviceId, rt.device_count)))
        ;
    else if (!(c = ctx_new(deviceId, 0)))
        rc = stub_fail(ACL_ERROR_RT_MEMORY_ALLOCATION, call, "out of memory");
    else {
        make_current(c);
        *context = ctx_handle(c);
    }
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/context.cpp:50 */
STUB_EXPORT aclError aclrtDestroyContext(aclrtContext context)
{
    static const char *call = "aclrtDestroyContext";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    /* api_impl.cc:4131-4147 ContextDestroy: an unknown or destroyed context is
     * RT_ERROR_CONTEXT_NULL (context_manage.cc:182-191), so is a primary one */
    if (!context)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "context is NULL");
    else if (!(c = ctx_find(context)))
        rc = stub_fail(ACL_ERROR_RT_CONTEXT_NULL, call,
                       "context %p is not a live context (destroyed, or never created)", context);
    else if (c->is_primary)
        rc = stub_fail(ACL_ERROR_RT_CONTEXT_NULL, call,
                       "context %p is device %d's primary context (aclrtSetDevice): release it with "
                       "aclrtResetDevice, not aclrtDestroyContext",
                       context, c->device);
    else
        ctx_teardown(c, 0); /* a thread whose current context it was has none (api_impl.cc:4150-4155) */
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/context.cpp:63 */
STUB_EXPORT aclError aclrtSetCurrentContext(aclrtContext context)
{
    static const char *call = "aclrtSetCurrentContext";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    /* acl layer NULL (aclrt_impl/context.cpp:67); a destroyed context is
     * RT_ERROR_INVALID_VALUE in the decorator (api_error.cc:3643-3650) */
    if (!context)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "context is NULL");
    else if (!(c = ctx_find(context)))
        rc = stub_fail(ACL_ERROR_RT_PARAM_INVALID, call,
                       "context %p is not a live context (destroyed, or its device was reset)", context);
    else
        make_current(c);
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/context.cpp:74 */
STUB_EXPORT aclError aclrtGetCurrentContext(aclrtContext *context)
{
    static const char *call = "aclrtGetCurrentContext";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    struct context *c = NULL;
    /* acl layer NULL (aclrt_impl/context.cpp:77); none is 107002
     * (api_c.cc:1352-1360, api_impl.cc:4193-4203) */
    if (!context)
        rc = stub_fail(ACL_ERROR_INVALID_PARAM, call, "context is NULL");
    else if ((rc = ctx_require(call, &c)) == ACL_SUCCESS)
        *context = ctx_handle(c);
    rt_leave();
    return rc;
}
