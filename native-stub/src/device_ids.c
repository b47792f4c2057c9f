/*
 * device_ids.c - aclrtGetLogicDevIdByUserDevId, aclrtGetUserDevIdByLogicDevId,
 * aclrtGetPhyDevIdByLogicDevId, aclrtGetLogicDevIdByPhyDevId (the ids of
 * ASCEND_RT_VISIBLE_DEVICES), and aclrtGetSocName.
 *
 * CANN has three ids. The user id is what aclrtSetDevice takes; the logic id
 * is the driver's index of the device; the physical id is the chip's. With
 * ASCEND_RT_VISIBLE_DEVICES unset, user id == logic id. Set, its i-th listed
 * logic id is user id i (src/runtime/core/src/runtime.cc:4951-5070
 * Runtime::GetVisibleDevices). The stub's devices (ACL_STUB_DEVICE_COUNT) are
 * the logic ids; a logic id's physical id is itself (stub rule: the driver's
 * table, drvDeviceGetPhyIdByIndex, is the identity on a single board).
 */
#include "device_ids.h"

#include "runtime.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define NO_ID UINT32_MAX
/* RT_SET_DEVICE_STR_MAX_LEN (runtime.hpp): the part of the variable CANN reads */
#define VISIBLE_MAX_LEN 1024

static struct {
    int set;                               /* ASCEND_RT_VISIBLE_DEVICES was set */
    uint32_t physical;                     /* ACL_STUB_DEVICE_COUNT */
    uint32_t users;                        /* user ids 0 .. users - 1 */
    uint32_t logic_of[STUB_MAX_DEVICES];   /* user id -> logic id */
    uint32_t user_of[STUB_MAX_DEVICES];    /* logic id -> user id, NO_ID when not visible */
    char error[160];                       /* why the variable is unusable ("" if usable) */
    char soc[64];                          /* ACL_STUB_SOC_NAME */
} ids;

/* runtime.cc:4725-4768 SplitString: digit runs separated by single commas; a
 * character other than a digit or a comma, or two commas in a row, ends the
 * list; a value that does not start with a digit has none. Returns the count. */
static size_t split(const char *s, unsigned long long *out, size_t cap)
{
    size_t n = 0;
    if (!isdigit((unsigned char)s[0]))
        return 0;
    for (const char *p = s; *p && n < cap;) {
        char *end;
        errno = 0;
        unsigned long long v = strtoull(p, &end, 10);
        out[n++] = errno ? ULLONG_MAX : v; /* runtime.cc:5012-5015: stoi overflow -> MAX_UINT32_NUM */
        if (*end != ',' || !isdigit((unsigned char)end[1]))
            break;
        p = end + 1;
    }
    return n;
}

/* runtime.cc:4951-5070, with the failures of ApiImpl::GetDeviceCount (api_impl.cc:3410-3440). */
static void parse_visible(const char *v)
{
    char text[VISIBLE_MAX_LEN + 1];
    snprintf(text, sizeof text, "%s", v);
    unsigned long long tok[STUB_MAX_DEVICES + 1];
    size_t n = split(text, tok, STUB_MAX_DEVICES + 1);
    uint32_t count = 0;
    for (size_t i = 0; i < n; i++) {
        if (tok[i] > ids.physical - 1) /* :5016-5019: the list ends at the first id out of range */
            break;
        uint32_t logic = (uint32_t)tok[i];
        if (count > 0 && logic < ids.logic_of[count - 1]) { /* :5025-5030 */
            snprintf(ids.error, sizeof ids.error,
                     "ASCEND_RT_VISIBLE_DEVICES=%s is not in ascending order: list the devices in ascending order", v);
            return;
        }
        if (count > 0 && ids.user_of[logic] != NO_ID) { /* :5031-5036 */
            snprintf(ids.error, sizeof ids.error,
                     "ASCEND_RT_VISIBLE_DEVICES=%s lists device %u twice: list each device once", v, logic);
            return;
        }
        ids.logic_of[count] = logic;
        ids.user_of[logic] = count;
        if (++count >= ids.physical) /* :5049-5052 */
            break;
    }
    if (count == 0) /* :5055-5060 */
        snprintf(ids.error, sizeof ids.error,
                 "ASCEND_RT_VISIBLE_DEVICES=%s names no device: use ascending ids in [0, %u) separated by commas", v,
                 ids.physical);
    else
        ids.users = count;
}

int device_ids_configure(uint32_t physical_count, uint32_t *visible, char *err, size_t len)
{
    memset(&ids, 0, sizeof ids);
    ids.physical = physical_count;
    ids.users = physical_count;
    for (uint32_t i = 0; i < STUB_MAX_DEVICES; i++) {
        ids.logic_of[i] = i < physical_count ? i : NO_ID;
        ids.user_of[i] = i < physical_count ? i : NO_ID;
    }
    const char *v = getenv("ASCEND_RT_VISIBLE_DEVICES");
    if (v) { /* runtime.cc:4959-4963: unset means every device, as it is */
        ids.set = 1;
        ids.users = 0;
        for (uint32_t i = 0; i < STUB_MAX_DEVICES; i++)
            ids.logic_of[i] = ids.user_of[i] = NO_ID;
        parse_visible(v);
    }
    const char *soc = getenv("ACL_STUB_SOC_NAME");
    if (!soc || !*soc)
        soc = "Ascend910B1"; /* an Atlas A2 SoC (stub rule: the default) */
    size_t n = strlen(soc);
    int printable = n < sizeof ids.soc;
    for (size_t i = 0; printable && i < n; i++)
        printable = isgraph((unsigned char)soc[i]);
    if (!printable) {
        snprintf(err, len, "ACL_STUB_SOC_NAME=%s is invalid: use 1 to %zu printable characters, no spaces", soc,
                 sizeof ids.soc - 1);
        return -1;
    }
    memcpy(ids.soc, soc, n + 1);
    *visible = ids.error[0] ? 0 : ids.users;
    return 0;
}

const char *device_ids_error(void)
{
    return ids.error[0] ? ids.error : NULL;
}

/* The acl layer's NULL check (device.cpp:519/530/541/552, 100000), then the rts
 * layer's sign check (api_c_device.cc:287-322, 107000). rt.lock held. */
static aclError check_args(const char *call, int32_t id, const char *id_name, const void *out, const char *out_name)
{
    if (!out)
        return stub_fail(ACL_ERROR_INVALID_PARAM, call, "%s is NULL", out_name);
    if (id < 0)
        return stub_fail(ACL_ERROR_RT_PARAM_INVALID, call, "%s %d is negative", id_name, (int)id);
    return ACL_SUCCESS;
}

/* user id -> logic id, Runtime::ChgUserDevIdToDeviceId (runtime.cc:4799-4820): 107001 */
static aclError user_to_logic(const char *call, int32_t user, uint32_t *logic)
{
    if (!ids.set) {
        *logic = (uint32_t)user;
        return ACL_SUCCESS;
    }
    if ((uint32_t)user >= ids.users || ids.logic_of[user] == NO_ID)
        return stub_fail(ACL_ERROR_RT_INVALID_DEVICEID, call,
                         "user device id %d is not visible: ASCEND_RT_VISIBLE_DEVICES makes ids 0..%d", (int)user,
                         (int)ids.users - 1);
    *logic = ids.logic_of[user];
    return ACL_SUCCESS;
}

/* logic id -> user id, Runtime::GetUserDevIdByDeviceId (runtime.cc:4822-4850): 107001 */
static aclError logic_to_user(const char *call, uint32_t logic, int32_t *user)
{
    if (!ids.set) {
        *user = (int32_t)logic;
        return ACL_SUCCESS;
    }
    if (logic >= ids.physical || ids.user_of[logic] == NO_ID)
        return stub_fail(ACL_ERROR_RT_INVALID_DEVICEID, call,
                         "logic device id %u is not visible in this process (ASCEND_RT_VISIBLE_DEVICES)", logic);
    *user = (int32_t)ids.user_of[logic];
    return ACL_SUCCESS;
}

aclError device_id_check(const char *call, const char *what, int64_t id, uint32_t count)
{
    if (id < 0 || id >= (int64_t)count)
        return stub_fail(ACL_ERROR_RT_INVALID_DEVICEID, call,
                         "%s %lld is out of range: this process has %u device(s), ids 0..%lld "
                         "(ACL_STUB_DEVICE_COUNT)",
                         what, (long long)id, count, (long long)count - 1);
    return ACL_SUCCESS;
}

/* The driver's bound on logic and physical ids (stub rule: ACL_STUB_DEVICE_COUNT). */
static aclError check_logic(const char *call, uint32_t logic, const char *what)
{
    return device_id_check(call, what, logic, ids.physical);
}

/* CANN: src/acl/aclrt_impl/device.cpp:515 */
STUB_EXPORT aclError aclrtGetLogicDevIdByUserDevId(const int32_t userDevid, int32_t *const logicDevId)
{
    static const char *call = "aclrtGetLogicDevIdByUserDevId";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint32_t logic = 0;
    /* api_impl.cc:8100-8109, then api_error.cc:6906 CheckDeviceIdIsValid */
    if (!(rc = check_args(call, userDevid, "userDevid", logicDevId, "logicDevId")) &&
        !(rc = user_to_logic(call, userDevid, &logic)) && !(rc = check_logic(call, logic, "logic device id")))
        *logicDevId = (int32_t)logic;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/device.cpp:526 */
STUB_EXPORT aclError aclrtGetUserDevIdByLogicDevId(const int32_t logicDevId, int32_t *const userDevid)
{
    static const char *call = "aclrtGetUserDevIdByLogicDevId";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int32_t user = 0;
    /* api_error.cc:6921 CheckDeviceIdIsValid, then api_impl.cc:8111-8121 */
    if (!(rc = check_args(call, logicDevId, "logicDevId", userDevid, "userDevid")) &&
        !(rc = check_logic(call, (uint32_t)logicDevId, "logic device id")) &&
        !(rc = logic_to_user(call, (uint32_t)logicDevId, &user)))
        *userDevid = user;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/device.cpp:548 */
STUB_EXPORT aclError aclrtGetPhyDevIdByLogicDevId(const int32_t logicDevId, int32_t *const phyDevId)
{
    static const char *call = "aclrtGetPhyDevIdByLogicDevId";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    uint32_t logic = 0;
    /* api_error.cc:3312-3324 GetDevicePhyIdByIndex: CANN converts the argument as a
     * user id first (ChgUserDevIdToDeviceId), then asks the driver */
    if (!(rc = check_args(call, logicDevId, "logicDevId", phyDevId, "phyDevId")) &&
        !(rc = user_to_logic(call, logicDevId, &logic)) && !(rc = check_logic(call, logic, "logic device id")))
        *phyDevId = (int32_t)logic;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/device.cpp:537 */
STUB_EXPORT aclError aclrtGetLogicDevIdByPhyDevId(const int32_t phyDevId, int32_t *const logicDevId)
{
    static const char *call = "aclrtGetLogicDevIdByPhyDevId";
    aclError rc = rt_enter(call);
    if (rc)
        return rc;
    int32_t user = 0;
    /* api_error.cc:3326-3340 GetDeviceIndexByPhyId: the driver's index, converted to a user id */
    if (!(rc = check_args(call, phyDevId, "phyDevId", logicDevId, "logicDevId")) &&
        !(rc = check_logic(call, (uint32_t)phyDevId, "physical device id")) &&
        !(rc = logic_to_user(call, (uint32_t)phyDevId, &user)))
        *logicDevId = user;
    rt_leave();
    return rc;
}

/* CANN: src/acl/aclrt_impl/acl_rt_impl_base.cpp:189 */
STUB_EXPORT const char *aclrtGetSocName(void)
{
    /* acl_rt_impl_base.cpp:189-199: NULL when the SoC is unknown; on the stub, before aclInit */
    const char *name = NULL;
    if (rt_enter("aclrtGetSocName") == ACL_SUCCESS) {
        name = ids.soc;
        rt_leave();
    }
    return name;
}
