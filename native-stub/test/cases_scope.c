/*
 * cases_scope.c - ACL_STUB_SCOPE (native-stub/README.md): the scope is in the name
 * of every shared-memory object the stub makes, a process's reclaim (aclInit,
 * cannstub_reclaim) looks only at its own scope, and a bad value makes
 * aclInit fail naming the variable and the fix.
 *
 * No case here runs a stub process without a scope: its reclaim would look at
 * every scope on the machine, the leftovers of test runs going on beside us
 * included (their leak checks' evidence).
 */
#define CT_FILE_STUB_ONLY "ACL_STUB_SCOPE, a stub setting (contract S15)"
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "support.h"

/* role scope_init <expected aclInit code>: aclInit under this process's scope. */
CT_ROLE(scope_init)
{
    if (argc != 1)
        CT_FAIL("usage: scope_init <init code>");
    const char *value = getenv("ACL_STUB_SCOPE");
    ct_note("ACL_STUB_SCOPE=%s", value ? value : "(unset)");
    CT_CODE(atoi(argv[0]), aclInit(NULL));
    if (atoi(argv[0]) == 0) {
        CT_OK(aclFinalize());
        return 0;
    }
    const char *msg = aclGetRecentErrMsg();
    if (!msg || !strstr(msg, "ACL_STUB_SCOPE") || !strstr(msg, "A-Z, a-z, 0-9, _ and -"))
        CT_FAIL("aclInit refused the scope, but its message names neither the variable nor the fix: %s",
                msg ? msg : "(null)");
    CT_CODE(ACL_ERROR_UNINITIALIZE, aclrtSetDevice(0)); /* the failed init left the runtime down */
    return 0;
}

static void expect_scope_init(const char *env_entry, const char *init_code)
{
    const char *env[] = {env_entry, NULL};
    const char *args[] = {init_code, NULL};
    expect_exit(spawn_role("scope_init", args, env), 0, PEER_TIMEOUT_MS);
}

CT_LONG_CASE(scope_env_bad_values_fail_aclInit_100000)
{
    const char *bad[] = {"ACL_STUB_SCOPE=", /* set but empty: not "no scope" */
                         "ACL_STUB_SCOPE=a/b",
                         "ACL_STUB_SCOPE=a.b",
                         "ACL_STUB_SCOPE=../x",
                         "ACL_STUB_SCOPE=a b",
                         "ACL_STUB_SCOPE=\xc3\xa9t\xc3\xa9",
                         "ACL_STUB_SCOPE=abcdefghijklmnopqrstuvwxy" /* 25 */};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        expect_scope_init(bad[i], "100000");
    expect_scope_init("ACL_STUB_SCOPE=Az09_-abcdefghijklmnopqr", "0"); /* 24, every kind of character */
}

/* A scope of this case's own (the pid keeps runs of it on one machine apart). */
static void make_scope(char out[32], const char *which)
{
    snprintf(out, 32, "ct%d%s", (int)getpid(), which);
}

/* Runs cannstub_reclaim in scope and returns 1 if it says it reclaimed name. */
static int reclaim_in_scope(const char *scope, const char *name)
{
    char tool[PATH_CAP], log[PATH_CAP], env_scope[64];
    path_join(tool, self_dir(), "cannstub_reclaim");
    path_join(log, case_dir(), "reclaim.log");
    snprintf(env_scope, sizeof env_scope, "ACL_STUB_SCOPE=%s", scope);
    const char *argv[] = {tool, NULL};
    const char *env[] = {env_scope, "ACL_STUB_LOG=info", NULL};
    expect_exit(spawn_program(tool, argv, env, NULL, log), 0, PEER_TIMEOUT_MS);
    FILE *f = fopen(log, "r");
    if (!f)
        CT_FAIL("cannot read %s", log);
    char line[512], wanted[128];
    snprintf(wanted, sizeof wanted, "reclaimed %s:", name);
    int said = 0;
    while (fgets(line, sizeof line, f))
        said |= strstr(line, wanted) != NULL;
    fclose(f);
    return said;
}

/* A creator in scope A is killed with its IPC event: the object is named
 * "...<id>.A", reclaim in scope B leaves it, reclaim in scope A removes it. */
CT_CASE(scope_names_objects_and_limits_reclaim)
{
    char a[32], b[32], env_a[64];
    make_scope(a, "a");
    make_scope(b, "b");
    snprintf(env_a, sizeof env_a, "ACL_STUB_SCOPE=%s", a);
    const char *dir = case_dir();
    const char *args[] = {dir, "crash", NULL};
    const char *env[] = {env_a, NULL};
    expect_exit(spawn_role("short_lived_creator", args, env), 128 + SIGKILL, PEER_TIMEOUT_MS);
    aclrtIpcEventHandle h;
    if (await_file(dir, "handle", &h, sizeof h, PEER_TIMEOUT_MS) != sizeof h)
        CT_FAIL("the creator published no 64-byte handle");
    uint64_t id;
    memcpy(&id, h.reserved, sizeof id);
    char name[64], path[96], unscoped[64], unscoped_path[96];
    snprintf(name, sizeof name, "/cannstub-ev-%016llx.%s", (unsigned long long)id, a);
    snprintf(path, sizeof path, "/dev/shm%s", name);
    printf("ct-owned-path: %s\n", path); /* the runner checks it is gone at the end */
    fflush(stdout);
    snprintf(unscoped, sizeof unscoped, "/cannstub-ev-%016llx", (unsigned long long)id);
    snprintf(unscoped_path, sizeof unscoped_path, "/dev/shm%s", unscoped);
    if (access(unscoped_path, F_OK) == 0)
        CT_FAIL("the creator in scope %s made %s, a name without its scope", a, unscoped_path);
    /* (A stub process without a scope elsewhere on the machine may reclaim the
     * object at any time: what the reclaims below say is checked, not only
     * whether the name is there.) */
    if (access(path, F_OK) != 0)
        ct_note("%s is already gone: a process without a scope reclaimed it", path);
    if (reclaim_in_scope(b, name))
        CT_FAIL("a reclaim in scope %s removed %s, an object of scope %s", b, name, a);
    int reclaimed = reclaim_in_scope(a, name);
    if (access(path, F_OK) == 0)
        CT_FAIL("a reclaim in scope %s left %s, a dead object of its own scope", a, path);
    if (!reclaimed)
        ct_note("%s was gone before the reclaim in scope %s looked", path, a);
}
