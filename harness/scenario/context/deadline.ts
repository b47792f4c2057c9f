/**
 * The time arithmetic of a role's deadline, in one place: how long a wait may last, and how long
 * the device work a body queued may take to drain.
 */

/** How long past the deadline a ctx wait without its own timeout lasts (see waitBoundMs). */
export const DEFAULT_WAIT_MARGIN_MS = 3_000;

/** How long the end of a body (once, or a round) may take to run the device work it queued. */
export const DRAIN_BOUND_MS = 2000;

/** Time left until `deadline`, at least `floor` ms. */
export function timeLeftMs(deadline: number, floor = 1): number {
  return Math.max(floor, deadline - Date.now());
}

/**
 * A wait without its own timeout outlasts the deadline by a margin: the orchestrator stops the run
 * at the deadline after asking every role where it is stuck (the wait-for graph), and a wait that
 * gave up first would have cleaned up (released its latches) before anyone could look.
 */
export function waitBoundMs(deadline: number): number {
  return timeLeftMs(deadline) + DEFAULT_WAIT_MARGIN_MS;
}

/** How long draining may take: DRAIN_BOUND_MS, never past the deadline (`floor`: at least this). */
export function drainBoundMs(deadline: number, floor = 0): number {
  return Math.min(DRAIN_BOUND_MS, timeLeftMs(deadline, floor));
}
