/*
 * cannstub/jitter.h - a stub-only extension: NOT part of CANN's API, and
 * not declared by any acl/ header (docs/acl-contract.md section 7).
 *
 * `rounds` scenarios give each round its own jitter seed (README "Soak
 * rounds"): the device process reseeds the stub's ACL_STUB_JITTER at the
 * start of every round, without a new process.
 */
#ifndef CANNSTUB_JITTER_H_PUBLIC
#define CANNSTUB_JITTER_H_PUBLIC

#ifdef __cplusplus
extern "C" {
#endif

/*
 * Replaces the seed of ACL_STUB_JITTER (max_us stays): later delays are a
 * function of this seed, the role and the task, as with the variable.
 * Returns 0, or -1 when jitter is off (no ACL_STUB_JITTER at aclInit).
 */
int cannstub_jitter_reseed(unsigned long long seed);

#ifdef __cplusplus
}
#endif

#endif
