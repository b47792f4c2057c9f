/*
 * acl/acl.h - entry header of the cann-ipc-harness ACL stub.
 *
 * Declares the subset of the CANN ACL runtime API that the stub implements
 * (see docs/acl-contract.md in this repository). Names, types and
 * values match CANN, so CANN sample programs compile unchanged with
 * -I native-stub/include -L native-stub/build/lib64 -lascendcl.
 */
#ifndef INC_EXTERNAL_ACL_ACL_H_
#define INC_EXTERNAL_ACL_ACL_H_

#include "acl_rt.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Stub library version (the stub does not claim a CANN version). */
#define ACL_STUB_MAJOR_VERSION 0
#define ACL_STUB_MINOR_VERSION 1
#define ACL_STUB_PATCH_VERSION 0

ACL_FUNC_VISIBILITY aclError aclInit(const char *configPath);
ACL_FUNC_VISIBILITY aclError aclFinalize(void);
ACL_FUNC_VISIBILITY const char *aclGetRecentErrMsg(void);

#ifdef __cplusplus
}
#endif

#endif /* INC_EXTERNAL_ACL_ACL_H_ */
