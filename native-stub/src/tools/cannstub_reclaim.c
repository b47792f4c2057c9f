/*
 * cannstub_reclaim - removes the stub's shared-memory objects whose users
 * have all died (SIGKILL, crash). aclInit does this in every process; this
 * tool is the same step on its own, for a test run's global teardown:
 *
 *   native-stub/build/bin/cannstub_reclaim     (prints what it removed)
 *
 * Objects with a live user are left alone. Exit status 0 unless aclInit fails.
 */
#include <acl/acl.h>

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    if (!getenv("ACL_STUB_LOG"))
        setenv("ACL_STUB_LOG", "info", 1); /* "reclaimed <name>" lines */
    aclError rc = aclInit(NULL);
    if (rc != ACL_SUCCESS) {
        fprintf(stderr, "cannstub_reclaim: aclInit failed: %d (%s)\n", rc,
                aclGetRecentErrMsg() ? aclGetRecentErrMsg() : "no message");
        return 1;
    }
    aclFinalize();
    return 0;
}
