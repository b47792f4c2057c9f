/**
 * Jest globalTeardown: after the last spec, remove the stub's shared-memory objects left by device
 * processes that were killed (crash, deadline, fail-fast). The stub would reclaim them at the next
 * aclInit, but after the last scenario there is none, and a run must leave nothing in /dev/shm.
 */
import { reclaimStubLeftovers } from '../acl';
import { uninstallSessionGuard } from '../orchestrator/session-guard';
import { finishRunNotes } from './run-notes';
import { keptSummary } from '../orchestrator/results-dir';

export default function globalTeardown(): void {
  uninstallSessionGuard();
  process.stderr.write(finishRunNotes()); // after every reporter's summary: skips and no-op passes at the end
  const kept = keptSummary();
  if (kept) process.stderr.write(`[cann-harness] ${kept}\n`);
  const removed = reclaimStubLeftovers();
  if (removed.length > 0) {
    process.stderr.write(`[cann-harness] removed ${removed.length} shared-memory object(s) left by killed device processes\n`);
  }
}
