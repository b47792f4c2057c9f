/*
 * mutant.h - deliberately broken behaviours, selected by
 * ACL_STUB_MUTANT=<name> (parsed once, at aclInit). They exist to prove
 * that a scenario (and the happens-before check) notices when the
 * synchronization it relies on does not happen. The names are public
 * interface: users' CI scripts name them.
 */
#ifndef CANNSTUB_MUTANT_H
#define CANNSTUB_MUTANT_H

enum mutant {
    MUTANT_NONE = 0,
    MUTANT_WAIT_NOOP,      /* "wait-noop": IPC event, local event and notify waits never block */
    MUTANT_RECORD_INSTANT, /* "record-instant": event and notify records complete at submission, ignoring stream order */
    MUTANT_WAIT_LATEST, /* "wait-latest": a wait binds, when it runs, to the latest record */
    MUTANT_SYNC_NOOP, /* "sync-noop": synchronize calls return at once */
};

/* Parses ACL_STUB_MUTANT. Returns 0, or -1 with a reason naming the valid names. */
int mutant_configure(char *err, unsigned long errlen);
/* 1 when mutant m is the active one. */
int mutant_is(enum mutant m);

#endif
