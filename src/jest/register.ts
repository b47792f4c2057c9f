/**
 * Maps one planned scenario to one Jest test: skipped (with the reason in its title) when the
 * machine has too few devices, otherwise run through the orchestrator, failing with a readable
 * report when a role fails, then checked by the scenario's verify().
 */
import * as path from 'node:path';
import { failureFrame, formatScenarioFailure } from '../report/failure';
import { logIntervalSamples } from '../report/intervals';
import { htmlWantsTraces, recordScenarioRun } from '../report/html/record';
import { addRunNote } from '../report/run-notes';
import { duplicateScenario } from '../scenario/scenario';
import { measuredIntervals, runScenario } from '../scenario/run';
import type { ScenarioFocus } from '../scenario/sink';
import type { ScenarioPlan, ScenarioResult } from '../scenario/types';
import { appendAuditDeclaration } from './audit-log';
import { nativeGate } from './native-gate';
import { currentProbe, deviceGate, requestedMode } from './probe';
import { failedRound, roundsOf, roundsReplay } from './rounds';
import { AUDIT_LOG_ENV, freshJitterSeed, repetitionsFromEnv, replayCommand, shardFromEnv, shardOfScenario } from './repeat';
import { ENV, envOn } from '../env';
import { exploreChoice, exploreDegradedText, exploreFailureText, exploreOptions } from '../scenario/explore';
import { jestTimeoutMs } from '../env/timeout';

const namesByFile = new Map<string, Set<string>>();

export class ScenarioFailure extends Error {
  /**
   * @param frame a stack frame in the spec ("fn (/path/x.spec.ts:12:5)"): where the role failed,
   * else where the scenario is declared. Jest shows the whole message, then that line's code frame.
   */
  constructor(message: string, frame: string | null) {
    super(message);
    this.name = 'ScenarioFailure';
    this.stack = `${this.name}: ${message}${frame ? `\n    at ${frame}` : ''}`;
  }
}

export function registerScenarioTest(plan: ScenarioPlan<any>, focus: ScenarioFocus = 'normal'): void {
  const specFile = currentTestPath();
  const names = namesByFile.get(specFile) ?? new Set<string>();
  namesByFile.set(specFile, names);
  if (names.has(plan.name)) throw duplicateScenario(plan.name, specFile);
  names.add(plan.name);

  const declaredAt = frameIn(new Error().stack, specFile);
  const shard = shardFromEnv();
  if (shard) {
    const own = shardOfScenario(specFile, plan.name, shard.total);
    // A skip rather than nothing: a spec file whose scenarios all run elsewhere must not be empty.
    if (own !== shard.index) {
      test.skip(`${plan.name} [skip: in shard ${own}/${shard.total}]`, () => {});
      return;
    }
  }
  if (focus === 'skip') {
    test.skip(plan.name, () => {});
    return;
  }
  const jestTest = focus === 'only' ? test.only : test;
  const probe = currentProbe();
  // Before the device count: a precheck's own reason (e.g. the CANN samples' "[SKIP] Need at least 4 devices") is the one to show.
  const native = plan.build || plan.precheck ? nativeGate(plan, specFile, probe.ok ? probe.mode : requestedMode()) : { run: true as const };
  const gate = native.run ? deviceGate(plan.devices, probe, process.env, plan.devicesSetBy) : native;
  if (!gate.run && gate.skip) {
    test.skip(`${plan.name} [skip: ${gate.reason}]`, () => {});
    addRunNote({ kind: 'skip', file: path.relative(process.cwd(), specFile), scenario: plan.name, reason: gate.reason });
    return;
  }
  if (!gate.run) {
    jestTest(plan.name, () => {
      throw new ScenarioFailure(gate.reason, declaredAt);
    });
    return;
  }
  const auditLog = process.env[AUDIT_LOG_ENV];
  if (auditLog) appendAuditDeclaration(auditLog, { specFile, scenario: plan.name, audit: plan.audit ?? null });
  for (const rep of repetitionsFromEnv()) {
    const seed = rep.jitterMaxUs ? freshJitterSeed() : null;
    const jitter = seed !== null ? `${seed}:${rep.jitterMaxUs}` : null;
    const rounds = roundsOf(plan, jitter);
    const mode = probe.ok ? probe.mode : requestedMode();
    // The schedule explorer (run --explore, CANN_HARNESS_EXPLORE[_REPLAY]); a replay has no label, so its -t '^name$' matches.
    const explore = exploreChoice(plan, { mode, jitter: jitter !== null || !!process.env[ENV.stubJitter], repetition: rep.index, freshSeed: freshJitterSeed });
    const exploreLabel = explore.on === true ? explore.label : explore.on === false ? (explore.note ?? null) : null;
    // No rounds label: the replay command's -t '^name$' must still match the title.
    const labels = [rep.total > 1 ? `repeat ${rep.index}/${rep.total}` : null, jitter ? `jitter seed ${seed}` : null, exploreLabel].filter(Boolean);
    const title = labels.length ? `${plan.name} [${labels.join(', ')}]` : plan.name;
    jestTest(
      title,
      async () => {
        if (explore.on === 'refused') throw new ScenarioFailure(explore.reason, declaredAt);
        const result = await runScenario(plan, {
          specFile,
          mode,
          echo: envOn(ENV.echo),
          env: jitter ? { [ENV.stubJitter]: jitter } : undefined,
          deferRemoval: plan.verify !== undefined, // a failed verify keeps the directory like any failure
          collectTraces: htmlWantsTraces() || undefined,
          rounds,
          ...(explore.on === true ? { explore: explore.args } : {}),
        });
        const explored = explore.on === true && result.explore ? exploreFailureText(result.explore.schedule, replayCommand(specFile, plan.name, null), result.kept ? result.dir : null) : null;
        const replay = explored ? explored.text : rounds && !result.ok ? roundsReplay(specFile, plan.name, rounds, failedRound(result)) : jitter ? `\n\njitter seed ${seed} (ACL_STUB_JITTER=${jitter}); replay with:\n  ${replayCommand(specFile, plan.name, jitter)}` : '';
        // For the HTML report (a no-op without it): what the roles did, whatever verify() says next.
        // A rounds run replays with its rounds: up to the failed one, else all of them.
        // A passing explored run replays with its seed (its schedules are those of the seed).
        const exploreAgain = explore.on === true && 'seed' in explore.args ? exploreOptions(explore.args) : '';
        const pageReplay = explored ? explored.replay : `${replayCommand(specFile, plan.name, jitter)}${rounds ? ` --rounds ${result.rounds?.failedRound ?? rounds.total}` : ''}${exploreAgain}`;
        const degraded = result.exploreDegraded ? exploreDegradedText(result.exploreDegraded, rounds?.total ?? 1) : null;
        const exploreFact = explored
          ? explored.text.trim().split('\n').filter((l) => !l.startsWith('  npx ')).join(' ').replace(/: replay with:$/, '')
          : explore.on === true
            ? [explore.label ?? 'explore replay', degraded].filter(Boolean).join(': ')
            : null;
        const record = (verifyError?: string, noopWaits?: number) =>
          recordScenarioRun({ specFile, title, scenario: plan.name, mode, jitter, explore: exploreFact, replay: pageReplay, verifyError, run: result, ...(result.rounds ? { rounds: result.rounds } : {}), ...(noopWaits ? { noopWaits } : {}) });
        if (!result.ok) {
          record();
          throw new ScenarioFailure(formatScenarioFailure(plan.name, result) + replay, failureFrame(result) ?? declaredAt);
        }
        // Lazily, like runScenario: spec files are loaded again in device processes.
        // eslint-disable-next-line @typescript-eslint/no-require-imports
        const { settleDeferredRun } = require('../orchestrator') as typeof import('../orchestrator');
        try {
          for (const [from, to] of plan.intervals ?? []) measureDeclared(result, from, to);
          await plan.verify?.(result);
          settleDeferredRun(result, false);
        } catch (e) {
          record(e instanceof Error ? e.message : String(e));
          settleDeferredRun(result, true, `scenario "${plan.name}" (verify failed)`);
          if (e instanceof Error) e.message += `${result.kept ? `\n\nscenario directory kept at ${result.dir}` : ''}${replay}`;
          throw e;
        }
        const noop = onlyNoopWaits(plan, result);
        record(undefined, noop ? result.happensBefore!.stats.noopWaits : undefined);
        const file = path.relative(process.cwd(), specFile);
        if (noop) addRunNote({ kind: 'noop-waits', file, scenario: plan.name, noopWaits: result.happensBefore!.stats.noopWaits });
        if (degraded) addRunNote({ kind: 'explore-degraded', file, scenario: plan.name, text: degraded });
        // Only passing runs count for the interval percentiles of `cann-harness run`.
        logIntervalSamples(measuredIntervals(result).flatMap(({ from, to, intervals }) => intervals.map(({ role, ms }) => ({ file, scenario: plan.name, from, to, role, ms }))));
      },
      jestTimeoutMs(plan.timeoutMs),
    );
  }
}

/** Waits there were, and every one a no-op (the happens-before stats), in a scenario that did not declare it (audit.expectSurvive). */
function onlyNoopWaits(plan: ScenarioPlan<any>, result: ScenarioResult): boolean {
  const stats = result.happensBefore?.stats;
  if (!stats || stats.waits > 0 || stats.noopWaits === 0) return false;
  return !plan.audit?.expectSurvive.includes('wait-noop');
}

/** A declared interval (`intervals: [[from, to]]`): measured like result.between(), its failure named. */
function measureDeclared(result: ScenarioResult, from: string, to: string): void {
  try {
    result.between(from, to);
  } catch (e) {
    throw new Error(`declared interval [${JSON.stringify(from)}, ${JSON.stringify(to)}] could not be measured: ${(e as Error).message}`);
  }
}

function currentTestPath(): string {
  const testPath = (expect as unknown as { getState(): { testPath?: string } }).getState().testPath;
  if (!testPath) {
    throw new Error('scenario(): cannot tell which spec file is being collected; call scenario() at the top level of a spec file');
  }
  return testPath;
}

function frameIn(stack: string | undefined, file: string): string | null {
  const line = stack?.split('\n').find((l) => l.includes(file));
  return line ? line.trim().replace(/^at\s+/, '') : null;
}
