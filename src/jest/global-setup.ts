/**
 * Jest globalSetup: probe the devices once, before any spec file is collected, and pass the result
 * to the test workers in CANN_HARNESS_PROBE (workers inherit this process's environment).
 * A probe already in the environment (set by `cann-harness run`, or by a test) is reused.
 *
 * A probe that found no usable runtime at all stops the run here. Too few devices is a reason to
 * skip a scenario; a stub that was never built (or real mode without CANN) is a broken set-up, and
 * skipping every scenario would let `npm test` pass having run none of them.
 */
import { installSessionGuard } from '../orchestrator/session-guard';
import { markRunner } from '../orchestrator/runner-watch';
import { removeDeadRunLeftovers } from '../orchestrator/dead-runs';
import { emptyResultsDir, resultsDir } from '../orchestrator/results-dir';
import { ENV } from '../env';
import { inlineReplayFile } from '../scenario/explore';
import { stubTamperingNotice } from '../mutants';
import { buildStubIfNeeded } from '../acl/stub-setup';
import { startRunNotes } from './run-notes';
import { PROBE_ENV, parseProbe, probeDevices, requestedMode, requiredDevices, unusableRuntimeMessage } from './probe';

export default async function globalSetup(): Promise<void> {
  // Before any worker starts: workers and their device processes inherit the session id, so an
  // interrupt of this (Jest's main) process can find and stop them all (see session-guard.ts).
  installSessionGuard();
  markRunner(); // workers stop their scenarios when this process dies, even by SIGKILL (runner-watch.ts)
  requiredDevices(); // a malformed CANN_HARNESS_REQUIRE_DEVICES fails the run up front
  const existing = process.env[PROBE_ENV];
  // `cann-harness run` (which set the probe) did this already, before creating its own directories.
  if (!existing) removeDeadRunLeftovers((line) => process.stderr.write(`\n[cann-harness] ${line}\n`));
  if (!existing) {
    // A replay token in a file of a kept directory: read before that directory goes (src/scenario/explore.ts).
    inlineReplayFile(process.env);
    // Kept scenario directories go under the project; the last runs' go now (results-dir.ts).
    process.env[ENV.resultsDir] = resultsDir();
    emptyResultsDir();
  }
  if (!existing) buildStubIfNeeded(requestedMode(), (line) => process.stderr.write(`\n[cann-harness] ${line}\n`));
  const probe = existing ? parseProbe(existing) : await probeDevices();
  if (!existing) process.env[PROBE_ENV] = JSON.stringify(probe);
  if (!probe.ok) throw new Error(unusableRuntimeMessage(probe));
  startRunNotes(); // only once the run will go ahead: a failed setup has no teardown to remove it
  const notice = stubTamperingNotice();
  if (existing) return; // the CLI probed, and printed these lines itself
  if (notice) process.stderr.write(`\n[cann-harness] NOTE: ${notice}\n`);
  if (probe.mode === 'real') process.stderr.write('\n[cann-harness] happens-before check skipped: real mode (only the stub writes traces)\n');
}
