/**
 * When this device process's role failed, on CLOCK_MONOTONIC (the clock of marks and of every
 * other process). Noted where the failure is caught, before any clean-up: the clean-up of a failed
 * role destroys what other roles may still be opening (its IPC event), and their failures from
 * that must never carry an earlier time than the failure that caused them (src/orchestrator/blame.ts
 * blames the earliest). The first note wins.
 */
let failedAtNs: string | undefined;

/** `atNs`: when it happened, if earlier than now (a worker thread's failure, read later by the main thread). */
export function noteRoleFailure(atNs?: string): void {
  failedAtNs ??= atNs ?? process.hrtime.bigint().toString();
}

/** The noted time, if the role's failure was noted where it was caught. */
export function roleFailureTime(): string | undefined {
  return failedAtNs;
}

let failedWith: unknown;

/**
 * The error the failed role will report, once its text is final. Its clean-up may still take a
 * while (a soak round stopping its worker threads) and await meanwhile: a stop (SIGTERM, sent
 * when another role reported first) then still reports this failure, with its earlier time.
 */
export function noteRoleFailureError(error: unknown): void {
  failedWith ??= error;
}

export function roleFailureError(): unknown {
  return failedWith;
}
