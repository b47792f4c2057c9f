/**
 * Runs one planned scenario through the orchestrator (one device process per role) and turns the
 * RunResult into a ScenarioResult: role values unwrapped, worker-thread marks merged in.
 * Never loads koffi: safe inside Jest workers.
 */
import type { RoleResult, RunEvent, RunResult } from '../orchestrator';
import type { NativeRoleSpec } from '../orchestrator/native-role';
import { msSince } from '../wire/mark-time';
import { marksBetween, type MarkInterval } from './marks';
import { paramsFingerprint } from './plan';
import { roundsUnsupported } from './rounds-plan';
import { ROLE_ENTRY_EXPORT, type PlannedRole, type RoleEntryArgs, type RoundsArgs, type RoundsSummary, type RoleEnvelope, type ScenarioMark, type ScenarioPlan, type ScenarioResult, type ScenarioRoleResult } from './types';
import { ENV, envOff, type Mode } from '../env';
import { harnessScript } from '../paths';
import * as path from 'node:path';
import { resolveProgram } from './native-exec';
import { parseSchedule, type ExploreArgs } from '../wire/explore-file';

/** An interval asked for with result.between(): the Jest integration reports them (percentiles across runs). */
export interface MeasuredInterval {
  from: string;
  to: string;
  intervals: MarkInterval[];
}
const measuredByResult = new WeakMap<ScenarioResult, MeasuredInterval[]>();

/** Every result.between(from, to) asked of this result so far, in order. */
export function measuredIntervals(result: ScenarioResult): MeasuredInterval[] {
  return measuredByResult.get(result) ?? [];
}

export const ROLE_ENTRY_MODULE = harnessScript('scenario/role-entry');

export interface RunScenarioOptions {
  specFile: string;
  mode?: Mode;
  keepDir?: boolean;
  echo?: boolean;
  onEvent?: (e: RunEvent) => void;
  /** Extra environment for every role (a role's own env wins), e.g. ACL_STUB_JITTER. */
  env?: Record<string, string>;
  /** See RunOptions.deferRemoval (the Jest integration keeps the directory when verify fails). */
  deferRemoval?: boolean;
  /** Keep the stub's trace files in the result (RunResult.traces), e.g. for the HTML report. */
  collectTraces?: boolean;
  /** Soak rounds: every role's process runs its body this many times (harness/scenario/rounds.ts). */
  rounds?: RoundsArgs;
  /** See RunOptions.expireOn: brings the scenario's deadline forward. */
  expireOn?: AbortSignal;
  /**
   * The schedule explorer (stub mode; see RunOptions.explore). It orders rounds, so a scenario
   * without rounds runs as one round; a replay runs the rounds up to the recorded one.
   */
  explore?: ExploreArgs;
}

export async function runScenario(plan: ScenarioPlan<any>, opts: RunScenarioOptions): Promise<ScenarioResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { runRoles } = require('../orchestrator') as typeof import('../orchestrator');
  // `setup` and `threadSetup` run in the rounds runner: without rounds, a scenario that declares
  // one runs as one round (setup once, then the body once), never with its setup silently skipped.
  const declaresSetup = plan.roles.some((r) => r.setup !== undefined || r.threadSetup !== undefined);
  opts = opts.rounds || !(declaresSetup || opts.explore) ? opts : { ...opts, rounds: { total: 1 } };
  // A replay runs the rounds up to the recorded one: the state it starts from is built as it was
  // (streams created in round 1, data of the rounds before), and the stub forces the recorded order.
  if (opts.explore && 'replay' in opts.explore) opts = { ...opts, rounds: { total: parseSchedule(opts.explore.replay).round } };
  if (opts.rounds) {
    // run --rounds / CANN_HARNESS_ROUNDS reach every scenario: say which role cannot repeat
    const native = plan.roles.find((r) => r.exec);
    if (native) throw new Error(`scenario "${plan.name}": ${roundsUnsupported(native)}`);
  }
  const run = await runRoles({
    label: `scenario "${plan.name}"`,
    timeoutMs: plan.timeoutMs,
    mode: opts.mode,
    keepDir: opts.keepDir,
    echo: opts.echo,
    onEvent: opts.onEvent,
    deferRemoval: opts.deferRemoval,
    collectTraces: opts.collectTraces,
    expireOn: opts.expireOn,
    checkHappensBefore: happensBeforeWanted(opts.mode),
    ...(opts.rounds ? { roundBarrierParties: plan.roles.length } : {}),
    ...(opts.explore ? { explore: opts.explore } : {}),
    roles: plan.roles.map((role) => ({
      name: role.name,
      device: role.device,
      index: role.index,
      env: opts.env || role.env ? { ...opts.env, ...role.env } : undefined,
      ...(role.exec ? { native: nativeSpec(role, opts.specFile) } : { entry: {
        module: ROLE_ENTRY_MODULE,
        export: ROLE_ENTRY_EXPORT,
        args: { specFile: opts.specFile, scenario: plan.name, role: role.name, paramsJson: paramsFingerprint(plan.params), ...(opts.rounds ? { rounds: opts.rounds } : {}) } satisfies RoleEntryArgs,
      } }),
    })),
  });
  return toScenarioResult(plan, run, opts.rounds);
}

/** A native role's program, resolved against the spec's folder or PATH (throws a clear error when it is missing). */
function nativeSpec(role: PlannedRole<any>, specFile: string): NativeRoleSpec {
  const [program, ...args] = role.exec!;
  const spec: NativeRoleSpec = { program: resolveProgram(program, path.dirname(specFile), `role ${role.name}`), args };
  if (role.expectExit !== undefined) spec.expectExit = role.expectExit;
  if (role.expectOutput) spec.expectOutput = role.expectOutput;
  return spec;
}

/** On by default except in real mode (no stub traces); CANN_HARNESS_HB_CHECK=0 turns it off. */
export function happensBeforeWanted(mode: Mode | undefined, env: NodeJS.ProcessEnv = process.env): boolean {
  return mode !== 'real' && !envOff(ENV.hbCheck, env);
}

export function toScenarioResult(plan: Pick<ScenarioPlan<any>, 'name' | 'roles'>, run: RunResult, rounds?: RoundsArgs): ScenarioResult {
  const groupOf = new Map(plan.roles.map((r) => [r.name, r.group]));
  const envelopes = run.roles.map((r) => (isEnvelope(r.value) ? r.value : undefined));
  const roles = run.roles.map((r) => unwrapRole(r, groupOf.get(r.name) ?? r.name));
  timeMarks(roles, run.startNs);
  const measured: MeasuredInterval[] = [];
  const result: ScenarioResult = {
    ...run,
    scenario: plan.name,
    roles,
    role(name) {
      const found = roles.find((r) => r.name === name);
      if (!found) throw new Error(`scenario "${plan.name}" has no role ${JSON.stringify(name)} (roles: ${roles.map((r) => r.name).join(', ')})`);
      return found;
    },
    group(name) {
      return roles.filter((r) => r.group === name);
    },
    between(from, to) {
      const intervals = marksBetween({ roles }, from, to);
      measured.push({ from, to, intervals: intervals.map((i) => ({ ...i })) });
      return intervals;
    },
  };
  if (rounds) {
    result.rounds = roundsSummary(rounds, [...roles].sort((a, b) => Number(b.name === run.firstFailure?.role) - Number(a.name === run.firstFailure?.role)), envelopes);
    const checked = envelopes.find((e) => e?.rounds?.checked)?.rounds?.checked;
    // The rounds checked as the run went (their traces are gone) plus the run's own check of the last one.
    if (checked && result.happensBefore) {
      const stats = { ...result.happensBefore.stats };
      for (const k of ['tasks', 'waits', 'blockedWaits', 'noopWaits', 'syncs'] as const) stats[k] += checked[k];
      result.happensBefore = { ...result.happensBefore, stats };
    }
  }
  const degraded = envelopes.find((e) => e?.exploreDegraded)?.exploreDegraded;
  if (degraded) result.exploreDegraded = degraded;
  measuredByResult.set(result, measured);
  // Helpers stay out of JSON dumps and Jest's diffs.
  Object.defineProperties(result, { role: { enumerable: false }, group: { enumerable: false }, between: { enumerable: false } });
  return result;
}

/** tMs of every mark (thread marks too): ms since the run's start; a hand-made RunResult without startNs counts from its first mark. */
function timeMarks(roles: ScenarioRoleResult[], startNs: string | undefined): void {
  const all = roles.flatMap((r) => r.marks);
  if (all.length === 0) return;
  const zero = startNs !== undefined ? BigInt(startNs) : all.map((m) => BigInt(m.tNs)).reduce((a, b) => (b < a ? b : a));
  for (const m of all) m.tMs = msSince(zero, m.tNs);
}

function unwrapRole(r: RoleResult, group: string): ScenarioRoleResult {
  const { value, marks, ...rest } = r;
  // tMs is set by timeMarks() once every mark (thread marks too) is in.
  const out: ScenarioRoleResult = { ...rest, group, marks: marks.map((m) => ({ ...m, tMs: 0 })) };
  if (isEnvelope(value)) {
    if (value.value !== undefined) out.value = value.value;
    if (value.threadValues) out.threadValues = value.threadValues;
    out.marks.push(...value.threadMarks.map((m) => ({ ...m, tMs: 0 })));
  } else if (value !== undefined) {
    out.value = value;
  }
  out.marks.sort(byTime);
  return out;
}

/** Rounds done: every role's count when all finished, else the rounds before the failing one (the first failure's error names it; `roles` has it first). */
function roundsSummary(rounds: RoundsArgs, roles: ScenarioRoleResult[], envelopes: (RoleEnvelope | undefined)[]): RoundsSummary {
  const done = envelopes.every((e) => e?.rounds) ? Math.min(...envelopes.map((e) => e!.rounds!.done)) : null;
  if (done !== null) return { total: rounds.total, done, failedRound: null };
  for (const r of roles) {
    const m = /([\d,]+) of [\d,]+ rounds passed, round ([\d,]+) failed/.exec(r.error?.message ?? '');
    if (m) return { total: rounds.total, done: Number(m[1].replace(/,/g, '')), failedRound: Number(m[2].replace(/,/g, '')) };
  }
  return { total: rounds.total, done: 0, failedRound: null };
}

function isEnvelope(v: unknown): v is RoleEnvelope {
  return typeof v === 'object' && v !== null && (v as RoleEnvelope).__scenarioEnvelope === 1;
}

function byTime(a: ScenarioMark, b: ScenarioMark): number {
  const d = BigInt(a.tNs) - BigInt(b.tNs);
  return d < 0n ? -1 : d > 0n ? 1 : 0;
}
