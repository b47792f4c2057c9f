/**
 * Mark times as numbers: marks carry CLOCK_MONOTONIC ns as exact decimal strings (tNs, beyond
 * 2^53); results also give tMs, milliseconds since the run started. No dependencies: the scenario
 * layer uses it without loading the orchestrator.
 */

/** Milliseconds from `startNs` to `tNs` (decimal CLOCK_MONOTONIC ns), a number exact to the ns. */
export function msSince(startNs: bigint, tNs: string): number {
  return Number(BigInt(tNs) - startNs) / 1e6;
}
