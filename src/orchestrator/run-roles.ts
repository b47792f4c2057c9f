/**
 * runRoles: one scenario run. Scenario dir -> one process (group) per role -> watch exits, the
 * deadline and failures -> collect results -> remove (or keep) the directory. Never leaves a
 * process or a directory behind, even when the parent itself is interrupted (see live-runs.ts).
 */
import { ensureRunStubScope, reclaimStubLeftovers } from '../acl';
import { assignBlame } from './blame';
import { checkHappensBefore, formatHappensBefore } from '../trace/happens-before';
import { formatTextTimeline } from '../trace/text-timeline';
import { runCut, type RunCut } from './run-cut';
import { RoleProcess } from './role-process';
import { checkDeviceProcessScript } from './typescript-role';
import { groupsEmptied } from './process-group';
import { describeEscaped, escapedProcesses, stopEscaped } from './escaped';
import { collectWaitGraph, HANG_REPORT_MAX_MS, sharedEventNames } from './hang-report';
import { progressFile } from './progress-file';
import { createRoundBarrierFile } from '../wire/round-barrier-file';
import { createExploreFiles, readFailedSchedule } from '../wire/explore-file';
import { cApiWait, type WaitGraph } from './wait-graph';
import { registerLive, unregisterLive, type Teardown } from './live-runs';
import { createScenarioDir, keepRequested, openRoleLogs, readCancelledTasks, readTraces, removeScenarioDir, writePostMortem, type RoleLogs } from './scenario-dir';
import { moveToResults } from './results-dir';
import { summarize } from './summary';
import { msSince } from '../wire/mark-time';
import { checkMode, validateRunOptions } from './validate';
import type { RunEvent, RunOptions, RunResult } from './types';
import { ENV, envOff } from '../env';

export const DEFAULT_GRACE_MS = 2000;
/** Room for a late deadline timer on a loaded machine (see nativeDeadlineNs). */
const LATE_TIMER_MS = 2000;

/**
 * The deadline a native role is given (CANN_HARNESS_DEADLINE_NS: where the C API's awaits give up):
 * after the harness's own deadline, its hang report and the roles' grace period. The harness owns
 * the deadline: a role still waiting is stopped (and the wait-for graph says what it waited for)
 * before its own wait could give up and turn a hang into a role's failure, whichever came first.
 * What a native role's wait still sees is only a backstop, e.g. for a harness that stopped answering.
 */
export function nativeDeadlineNs(startNs: bigint, timeoutMs: number, graceMs: number): bigint {
  return startNs + BigInt(Math.round((timeoutMs + HANG_REPORT_MAX_MS + graceMs + LATE_TIMER_MS) * 1e6));
}

/** The full logs each run streamed into its directory (closed by then), for a post-mortem settleDeferredRun writes later. */
const fullLogs = new WeakMap<RunResult, RoleLogs>();

/**
 * For a run made with `deferRemoval` that passed: keep its directory (with logs, result.json and
 * trace.json) when a later check failed (a scenario's verify), else remove it as usual.
 */
export function settleDeferredRun(result: RunResult, laterCheckFailed: boolean, label = 'run'): void {
  if (!result.removalDeferred) return;
  result.removalDeferred = false;
  if (laterCheckFailed && !envOff(ENV.keep)) {
    result.kept = true;
    keepInResults(result, label);
    keepPostMortem(result, label, undefined, fullLogs.get(result));
    process.stderr.write(`[cann-harness] ${label}: scenario directory kept at ${result.dir}\n`);
  } else {
    removeScenarioDir(result.dir);
  }
  fullLogs.delete(result);
}

/**
 * Moves a kept directory out of the temp dir into the results folder (results-dir.ts), and points
 * the result and its report there. A directory that cannot be moved stays, and stderr says why.
 */
function keepInResults(result: RunResult, label: string): void {
  const moved = moveToResults(result.dir);
  if (typeof moved !== 'string') {
    process.stderr.write(`[cann-harness] ${label}: scenario directory left at ${result.dir}, not moved to the results folder: ${moved.error}\n`);
    return;
  }
  result.summary = result.summary.split(result.dir).join(moved);
  result.dir = moved;
}

/** Writes a kept directory's post-mortem; what could not be written goes into the result and to stderr. */
function keepPostMortem(result: RunResult, label: string, cut?: RunCut, logs?: RoleLogs): void {
  const problems = writePostMortem(result.dir, result.roles, result, cut, logs);
  if (problems.length === 0) return;
  result.postMortemProblems = problems;
  process.stderr.write(`[cann-harness] ${label}: post-mortem in ${result.dir} incomplete, not written: ${problems.join(', ')}\n`);
}

export async function runRoles(opts: RunOptions): Promise<RunResult> {
  validateRunOptions(opts);
  ensureRunStubScope(); // a run that sets no stub scope gets one of its own (src/acl/stub-scope.ts)
  const deviceBundle = checkDeviceProcessScript();
  const mode = checkMode(opts.mode, 'runRoles'); // validated above; this only narrows the type
  const failFast = opts.failFast ?? true;
  const graceMs = opts.graceMs ?? DEFAULT_GRACE_MS;
  const label = opts.label ?? 'run';
  const progress = progressFile(label, opts.roles.map((r) => r.name));
  const emit = (e: RunEvent) => {
    progress?.onEvent(e);
    try {
      opts.onEvent?.(e);
    } catch (err) {
      process.stderr.write(`[cann-harness] onEvent callback threw (ignored): ${(err as Error).message}\n`);
    }
  };

  const startedAt = Date.now();
  const startNs = process.hrtime.bigint();
  const dir = createScenarioDir();
  let exploreEnv: string | undefined;
  try {
    if (opts.roundBarrierParties) createRoundBarrierFile(dir, opts.roundBarrierParties);
    if (opts.explore) exploreEnv = createExploreFiles(dir, opts.explore);
  } catch (e) {
    removeScenarioDir(dir);
    throw e;
  }
  // Each role's whole output, streamed into logs/ (a kept directory's full log; the capture keeps only the last 8 MiB).
  const logs = openRoleLogs(dir, opts.roles.map((r) => r.name));
  const roles = opts.roles.map(
    (spec, i) =>
      new RoleProcess({
        spec: exploreEnv === undefined ? spec : { ...spec, env: { ...spec.env, [ENV.stubExplore]: exploreEnv } },
        index: spec.index ?? i,
        dir,
        mode,
        echo: opts.echo ?? false,
        emit,
        deadlineNs: nativeDeadlineNs(startNs, opts.timeoutMs, graceMs),
        deviceBundle,
        logs: { stdout: logs.get(spec.name, 'stdout'), stderr: logs.get(spec.name, 'stderr') },
      }),
  );
  let dirRemoved = false;
  const teardown: Teardown = {
    emergencyStop() {
      for (const r of roles) r.killNow();
      logs.close();
      if (!dirRemoved) removeScenarioDir(dir);
      dirRemoved = true;
    },
  };
  registerLive(teardown);

  let timedOut = false;
  let waitGraph: WaitGraph | undefined;
  let deadlineNs: bigint | undefined;
  let graphCollected: Promise<void> = Promise.resolve();
  let deadline: NodeJS.Timeout | undefined;
  let onExpire: (() => void) | undefined;
  const stoppedByFailFast = new Set<string>();
  try {
    const stopOthers = (culprit: RoleProcess) => {
      for (const r of roles) {
        if (r === culprit || !r.alive) continue;
        stoppedByFailFast.add(r.name);
        r.stop('stopped', `stopped because role "${culprit.name}" ${culprit.finalStatus}`, graceMs);
      }
    };
    const onEnd = (r: RoleProcess) => {
      const s = r.finalStatus;
      if (failFast && (s === 'failed' || s === 'crashed')) stopOthers(r);
    };
    for (const r of roles) r.start(onEnd);

    // The deadline: the timer, or the caller's expireOn, whichever comes first (once).
    const expire = async (why: string) => {
      if (timedOut || !roles.some((r) => r.alive)) return;
      clearTimeout(deadline);
      timedOut = true;
      deadlineNs = process.hrtime.bigint();
      emit({ type: 'timeout', roles: roles.filter((r) => r.alive).map((r) => r.name) });
      // Before any signal: ask every role where it is stuck (bounded by 2 s, see hang-report.ts). The run's
      // result waits for it even if every role ends meanwhile (e.g. one fails and fail-fast stops the rest).
      let collected!: () => void;
      graphCollected = new Promise((r) => (collected = r));
      try {
        waitGraph = await collectWaitGraph(roles, dir);
      } catch (e) {
        process.stderr.write(`[cann-harness] ${label}: could not build the wait-for graph: ${(e as Error).message}\n`);
      } finally {
        collected();
      }
      for (const r of roles.filter((x) => x.alive)) {
        const call = waitGraph?.calls[r.name];
        const w = r.currentWait ?? cApiWait(call); // a C role blocked in cannharness_await*: the name it awaits
        const waiting = w ? `; it was waiting for ${w.what}${w.from ? ` from role "${w.from}"` : ''}` : call ? `; it was in ${call.name}(${call.args})` : '';
        r.stop('timeout', `still running when ${why}${waiting}`, graceMs);
      }
    };
    deadline = setTimeout(() => void expire(`the ${opts.timeoutMs} ms deadline of ${label} expired`), opts.timeoutMs);
    onExpire = () => void expire(`the deadline of ${label} was brought forward (RunOptions.expireOn)`);
    if (opts.expireOn?.aborted) onExpire();
    else opts.expireOn?.addEventListener('abort', onExpire, { once: true });

    await Promise.all(roles.map((r) => r.finished));
    await graphCollected;
  } catch (e) {
    // Unexpected (e.g. fork threw): take everything down before reporting.
    teardown.emergencyStop();
    unregisterLive(teardown);
    throw e;
  } finally {
    progress?.close();
    if (deadline) clearTimeout(deadline);
    if (onExpire) opts.expireOn?.removeEventListener('abort', onExpire);
    for (const r of roles) r.killNow(); // no-op for exited groups
    logs.close(); // every pipe is drained: the full logs are complete before any post-mortem
  }

  const results = roles.map((r) => r.result());
  // What a role started that left its group outlived the group stop: stop it, fail the role.
  const escaped = escapedProcesses(dir, new Set(results.flatMap((r) => (r.pid !== null ? [r.pid] : []))));
  stopEscaped(escaped);
  for (const p of escaped) {
    const r = results.find((x) => x.name === p.role);
    if (!r) continue;
    const message = describeEscaped(p);
    if (r.status === 'passed') {
      r.status = 'failed';
      r.error = { message, tNs: process.hrtime.bigint().toString() };
      r.failedAtNs = r.error.tNs;
    } else if (r.error) {
      r.error.message += `; it also ${message}`;
    }
  }
  for (const r of results) for (const m of r.marks) m.tMs = msSince(startNs, m.tNs);
  const roleByPid = new Map(results.filter((r) => r.pid !== null).map((r) => [r.pid!, r.name]));
  const cancelled = readCancelledTasks(dir, roleByPid);
  for (const r of results) if (cancelled.has(r.name)) r.cancelledTasks = cancelled.get(r.name);
  const first = assignBlame(results, stoppedByFailFast);
  // A role killed by a signal could not detach from its IPC events' shared memory; nor could what a
  // native role forked (SIGKILLed with its group when the role ended, whatever its own exit).
  const foreign = roles.some((r) => r.kind.forksOutsideHarness);
  if (foreign || escaped.length) {
    await groupsEmptied([...results.flatMap((r) => (r.pid !== null ? [r.pid] : [])), ...escaped.map((p) => p.pgid)]);
  }
  if (results.some((r) => r.signal !== null) || foreign || escaped.length) reclaimStubLeftovers({ mode });
  const traces = opts.collectTraces || opts.checkHappensBefore
    ? readTraces(dir, roleByPid)
    : undefined;
  const happensBefore = opts.checkHappensBefore ? checkHappensBefore(traces!) : undefined;
  const ok = !timedOut && results.every((r) => r.status === 'passed') && happensBefore?.ok !== false;
  // CANN_HARNESS_KEEP=0: not even failed runs (the audit fails scenarios on purpose).
  const kept = (!ok && !envOff(ENV.keep)) || keepRequested(opts.keepDir);
  const durationMs = Date.now() - startedAt;
  let summary = summarize(label, ok, durationMs, results, dir, kept, timedOut, first);
  if (waitGraph) summary = `${waitGraph.lines.join('\n')}\n${summary}`;
  if (happensBefore && !happensBefore.ok) summary += `\n${formatHappensBefore(happensBefore)}`;
  // For CI logs: what ran on which stream, when (only failures pay for reading the traces).
  const cut = ok ? undefined : runCut({ deadlineNs: deadlineNs?.toString(), firstFailure: first, roles: results, startNs: startNs.toString(), durationMs });
  const timeline = ok
    ? []
    : formatTextTimeline(traces ?? readTraces(dir, roleByPid), cut && { endNs: BigInt(cut.endNs), endLabel: cut.label, stoppedAt: cut.stoppedAt });
  if (timeline.length) summary += `\n${timeline.join('\n')}`;
  const result: RunResult = { ok, dir, kept, timedOut, durationMs, startNs: startNs.toString(), roles: results, summary };
  if (first) result.firstFailure = first;
  if (opts.collectTraces) {
    result.traces = traces;
    const names = sharedEventNames(dir);
    if (names.size) result.ipcNames = Object.fromEntries(names);
  }
  if (happensBefore) result.happensBefore = happensBefore;
  if (waitGraph) result.waitGraph = waitGraph;
  if (deadlineNs !== undefined) result.deadlineNs = deadlineNs.toString();
  if (opts.explore && !ok) {
    // The first failure's role left its round's schedule (harness/scenario/rounds.ts), else another failed role did.
    const order = [...(first ? [first.role] : []), ...results.filter((r) => r.status !== 'passed').map((r) => r.name)];
    for (const role of order) {
      const schedule = readFailedSchedule(dir, role);
      if (schedule !== null) {
        result.explore = { schedule, role };
        break;
      }
    }
  }
  if (timeline.length) result.timeline = timeline;
  if (kept) {
    keepInResults(result, label);
    keepPostMortem(result, label, cut, logs);
    // A failure's report names its kept directory (result.summary, the Jest message); only a
    // passing run kept on request has nowhere else to say where it is.
    if (ok) process.stderr.write(`[cann-harness] ${label}: scenario directory kept at ${result.dir}\n`);
  } else if (opts.deferRemoval && ok) {
    result.removalDeferred = true; // settleDeferredRun() keeps or removes it once verify() has run
    fullLogs.set(result, logs);
  } else {
    removeScenarioDir(dir);
  }
  dirRemoved = true;
  unregisterLive(teardown);
  return result;
}
