/**
 * When this device process's role failed, on CLOCK_MONOTONIC (the clock of marks and of every
 * other process). Noted where the failure is caught, before any clean-up: the clean-up of a failed
 * role destroys what other roles may still be opening (its IPC event), and their failures from
 * that must never carry an earlier time than the failure that caused them (src/orchestrator/blame.ts
 * blames the earliest). The first note wins.
 */
let failedAtNs: string | undefined;

export function noteRoleFailure(): void {
  failedAtNs ??= process.hrtime.bigint().toString();
}

/** The noted time, if the role's failure was noted where it was caught. */
export function roleFailureTime(): string | undefined {
  return failedAtNs;
}
