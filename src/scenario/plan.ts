/**
 * Turns a declaration into a ScenarioPlan, or rejects it with every problem found at once.
 * Each problem names what is wrong and how to fix it, because the author sees it at collection
 * time, before any process runs.
 */
import { MUTANTS, isMutantName } from '../mutants';
import { closest } from '../suggest';
import { parseSelector } from './marks';
import { NATIVE_ROLE_KEYS, NATIVE_SCENARIO_KEYS, checkNativeRole, checkNativeScenario } from './native-plan';
import { REPLICATED } from './types';
import type { Params, PlannedRole, ReplicatedRole, RoleDeclaration, ScenarioDeclaration, ScenarioPlan } from './types';
import { defaultTimeoutMs, timeoutProblem } from '../env/timeout';
import { roundsProblems } from './rounds-plan';

export { DEFAULT_TIMEOUT_MS, defaultTimeoutMs } from '../env/timeout';
/** CANN's device limit (runtime src/runtime/core/inc/spec/base_info.hpp, RT_MAX_DEV_NUM; the stub's too): ids 0..63. */
export const MAX_DEVICES = 64;
const SCENARIO_KEYS = ['devices', 'timeoutMs', 'params', 'roles', 'verify', 'intervals', 'audit', 'rounds', ...NATIVE_SCENARIO_KEYS] as const;
const ROLE_KEYS = ['device', 'run', 'threads', 'thread', 'env', 'setup', 'threadSetup', ...NATIVE_ROLE_KEYS] as const;
/** Role names become file names in the scenario directory. */
const ROLE_NAME = /^[A-Za-z][A-Za-z0-9_.-]*$/;

export class ScenarioDeclarationError extends Error {
  constructor(
    readonly scenario: string,
    readonly problems: string[],
  ) {
    super(`invalid scenario ${JSON.stringify(scenario)}:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.name = 'ScenarioDeclarationError';
  }
}

/** `consumers: replicate(3, (i) => ({ device: i + 1, run }))` */
export function replicate<P = any>(count: number, make: (i: number) => RoleDeclaration<P>): ReplicatedRole<P> {
  // Checked in planScenario, where the role's key is known and can be named in the message.
  return { [REPLICATED]: true, count, make };
}

/** JSON of a scenario's params, compared across processes (undefined when JSON cannot carry them). */
export function paramsFingerprint(params: unknown): string | undefined {
  try {
    return JSON.stringify(params);
  } catch {
    return undefined;
  }
}

export function isReplicated(x: unknown): x is ReplicatedRole<any> {
  return typeof x === 'object' && x !== null && (x as any)[REPLICATED] === true;
}

export function planScenario<P = Params>(name: unknown, decl: ScenarioDeclaration<P>): ScenarioPlan<P> {
  const label = typeof name === 'string' ? name : String(name);
  const problems: string[] = [];
  if (typeof name !== 'string' || name.trim() === '') {
    problems.push(`the scenario name must be a non-empty string (got ${describe(name)}): scenario('my scenario', { ... })`);
  }
  if (typeof decl !== 'object' || decl === null || Array.isArray(decl)) {
    problems.push(`the declaration must be an object (got ${describe(decl)}): scenario(name, { roles: { ... } })`);
    throw new ScenarioDeclarationError(label, problems);
  }
  unknownKeys(decl, SCENARIO_KEYS, 'scenario', problems);

  const timeoutMs = decl.timeoutMs ?? defaultTimeoutMs();
  const badTimeout = timeoutProblem(timeoutMs, 'timeoutMs', 'e.g. timeoutMs: 20_000');
  if (badTimeout) problems.push(badTimeout);
  if (decl.verify !== undefined && typeof decl.verify !== 'function') {
    problems.push(`verify must be a function (got ${describe(decl.verify)}): verify: (result) => { expect(...) }`);
  }
  if (decl.params !== undefined && (typeof decl.params !== 'object' || decl.params === null)) {
    problems.push(`params must be an object (got ${describe(decl.params)}): params: { rounds: 10 }`);
  }

  checkAudit(decl.audit, problems);
  const native = checkNativeScenario(decl, problems);
  const roles = expandRoles(decl.roles, problems);
  problems.push(...roundsProblems(decl.rounds, roles));
  const intervals = checkIntervals(decl.intervals, roles, problems);

  let devices = decl.devices;
  const top = roles.reduce<PlannedRole<any> | undefined>((max, r) => (Number.isInteger(r.device) && (!max || r.device > max.device) ? r : max), undefined);
  const highest = top?.device ?? -1;
  let devicesSetBy: string | undefined;
  if (devices === undefined) {
    devices = Math.max(highest + 1, 1);
    if (top) devicesSetBy = `role ${top.name} is on device ${top.device}`;
  } else if (!Number.isInteger(devices) || devices < 1) {
    problems.push(`devices must be a whole number >= 1 (got ${describe(devices)}): a scenario needs at least one device`);
  } else if (devices > MAX_DEVICES) {
    problems.push(`devices: ${devices} is more than any CANN machine has (at most ${MAX_DEVICES} per process, RT_MAX_DEV_NUM): use at most ${MAX_DEVICES}`);
  }
  for (const r of roles) {
    if (!Number.isInteger(r.device) || r.device < 0) {
      problems.push(`role ${r.name}: device must be a whole number >= 0 (got ${describe(r.device)})`);
    } else if (r.device >= MAX_DEVICES) {
      // Not a skip: no machine will ever run it, so a typo (device: 99) would pass as skipped forever.
      problems.push(
        `role ${r.name}: device ${r.device} does not exist on any CANN machine (device ids are 0..${MAX_DEVICES - 1}, RT_MAX_DEV_NUM = ${MAX_DEVICES}): use a device from 0 to ${MAX_DEVICES - 1}`,
      );
    } else if (Number.isInteger(devices) && devices >= 1 && r.device >= devices) {
      problems.push(
        `role ${r.name}: device ${r.device} is out of range for devices: ${devices} (valid 0..${devices - 1}): raise devices to ${r.device + 1} or use a lower device`,
      );
    }
  }

  if (problems.length > 0) throw new ScenarioDeclarationError(label, problems);
  const plan: ScenarioPlan<P> = { name: label, devices, timeoutMs, params: (decl.params ?? {}) as P, roles, verify: decl.verify };
  if (devicesSetBy) plan.devicesSetBy = devicesSetBy;
  if (decl.audit) plan.audit = { expectSurvive: [...decl.audit.expectSurvive], reason: decl.audit.reason };
  if (intervals.length) plan.intervals = intervals;
  if (native.precheck) plan.precheck = native.precheck;
  if (native.build) plan.build = native.build;
  if (decl.rounds !== undefined) plan.rounds = decl.rounds;
  return plan;
}

/** `intervals: [['producer:release', 'consumer:after-wait']]`: selectors that name a role, a group or `*`. */
function checkIntervals(intervals: unknown, roles: PlannedRole<any>[], problems: string[]): [string, string][] {
  if (intervals === undefined) return [];
  const example = "intervals: [['producer:release', 'consumer:after-wait']]";
  if (!Array.isArray(intervals)) {
    problems.push(`intervals must be a list of [from, to] mark selectors (got ${describe(intervals)}): ${example}`);
    return [];
  }
  const names = [...new Set(roles.flatMap((r) => [r.group, r.name]))];
  const out: [string, string][] = [];
  intervals.forEach((pair: unknown, i) => {
    if (!Array.isArray(pair) || pair.length !== 2 || pair.some((x) => typeof x !== 'string')) {
      problems.push(`intervals[${i}] must be a [from, to] pair of mark selectors (got ${describe(pair)}): ${example}`);
      return;
    }
    let ok = true;
    for (const selector of pair as string[]) {
      let role: string;
      try {
        role = parseSelector(selector).role;
      } catch (e) {
        problems.push(`intervals[${i}]: ${(e as Error).message}`);
        ok = false;
        continue;
      }
      if (role === '*' || names.includes(role)) continue;
      const guess = closest(role, names);
      problems.push(`intervals[${i}]: ${JSON.stringify(selector)} names no role or group${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}; roles: ${names.join(', ')}`);
      ok = false;
    }
    if (ok) out.push([pair[0], pair[1]]);
  });
  return out;
}

function checkAudit(audit: unknown, problems: string[]): void {
  if (audit === undefined) return;
  const example = `audit: { expectSurvive: ['wait-noop'], reason: 'faithful copy of a CANN sample: its wait is a no-op' }`;
  if (typeof audit !== 'object' || audit === null || Array.isArray(audit)) {
    problems.push(`audit must be an object (got ${describe(audit)}): ${example}`);
    return;
  }
  unknownKeys(audit, ['expectSurvive', 'reason'], 'audit', problems);
  const { expectSurvive, reason } = audit as { expectSurvive?: unknown; reason?: unknown };
  if (!Array.isArray(expectSurvive) || expectSurvive.length === 0) {
    problems.push(`audit.expectSurvive must list at least one mutant (got ${describe(expectSurvive)}): ${example}`);
  } else {
    for (const m of expectSurvive.filter((x) => !isMutantName(x))) {
      problems.push(`audit.expectSurvive: ${describe(m)} is not a mutant; use ${MUTANTS.join(', ')}`);
    }
  }
  if (typeof reason !== 'string' || reason.trim() === '') {
    problems.push(`audit.reason must say why the scenario survives those mutants on purpose (got ${describe(reason)}): ${example}`);
  }
}

function expandRoles<P>(roles: ScenarioDeclaration<P>['roles'], problems: string[]): PlannedRole<P>[] {
  if (typeof roles !== 'object' || roles === null || Array.isArray(roles) || Object.keys(roles).length === 0) {
    problems.push(
      `roles must be an object with at least one role (got ${describe(roles)}): roles: { producer: { device: 0, run: async (ctx) => { ... } } }`,
    );
    return [];
  }
  const planned: PlannedRole<P>[] = [];
  for (const [key, value] of Object.entries(roles)) {
    if (!ROLE_NAME.test(key)) {
      problems.push(
        `role name ${JSON.stringify(key)} is not usable: start with a letter, then letters, digits, '_', '-' or '.' (it becomes a file name)`,
      );
      continue;
    }
    if (isReplicated(value)) {
      if (!Number.isInteger(value.count) || value.count < 1) {
        problems.push(
          `role ${key}: replicate(${describe(value.count)}, ...) must make at least one copy: zero ${key} roles would leave nothing to run; use replicate(1, ...) or more`,
        );
        continue;
      }
      if (typeof value.make !== 'function') {
        problems.push(`role ${key}: replicate(n, make) needs a function make(i) returning { device, run } (got ${describe(value.make)})`);
        continue;
      }
      for (let i = 0; i < value.count; i++) {
        let made: RoleDeclaration<P>;
        try {
          made = value.make(i);
        } catch (e) {
          problems.push(`role ${key}-${i}: replicate(${value.count}, make) threw for i = ${i}: ${(e as Error)?.message ?? String(e)}; make(i) must return { device, run } for every i from 0 to ${value.count - 1}`);
          continue;
        }
        const role = checkRole(`${key}-${i}`, key, i, made, problems);
        if (role) planned.push(role);
      }
    } else {
      const role = checkRole(key, key, 0, value as RoleDeclaration<P>, problems);
      if (role) planned.push(role);
    }
  }
  const seen = new Set<string>();
  for (const r of planned) {
    if (seen.has(r.name)) {
      problems.push(
        `duplicate role name ${r.name}: a replicated role's copies are named <key>-<i>; rename one of the roles`,
      );
    }
    seen.add(r.name);
  }
  return planned;
}

function checkRole<P>(name: string, group: string, index: number, decl: RoleDeclaration<P>, problems: string[]): PlannedRole<P> | null {
  if (typeof decl !== 'object' || decl === null || Array.isArray(decl)) {
    problems.push(`role ${name}: must be an object { device, run } (got ${describe(decl)})`);
    return null;
  }
  unknownKeys(decl, ROLE_KEYS, `role ${name}`, problems);
  const before = problems.length;
  const native = checkNativeRole(name, decl, problems);
  if (!native && decl.run === undefined && decl.thread === undefined) {
    problems.push(
      `role ${name}: missing body: give it run: async (ctx) => { ... } (or threads: k with thread: async (ctx, t) => { ... }, or a program: exec: ['build/proc_b', '{device}'])`,
    );
  }
  if (decl.run !== undefined && typeof decl.run !== 'function') {
    problems.push(`role ${name}: run must be a function (got ${describe(decl.run)}): run: async (ctx) => { ... }`);
  }
  if (decl.thread !== undefined && typeof decl.thread !== 'function') {
    problems.push(`role ${name}: thread must be a function (got ${describe(decl.thread)}): thread: async (ctx, t) => { ... }`);
  }
  if (decl.threads !== undefined && (!Number.isInteger(decl.threads) || decl.threads < 1 || decl.threads > 64)) {
    problems.push(`role ${name}: threads must be a whole number from 1 to 64 (got ${describe(decl.threads)})`);
  }
  if (!native && decl.threads !== undefined && decl.thread === undefined) {
    problems.push(`role ${name}: threads: ${decl.threads} needs a thread body: thread: async (ctx, t) => { ... }`);
  }
  if (decl.thread !== undefined && decl.threads === undefined) {
    problems.push(`role ${name}: a thread body needs a thread count: threads: 4`);
  }
  if (decl.env !== undefined && (typeof decl.env !== 'object' || decl.env === null || Array.isArray(decl.env))) {
    problems.push(`role ${name}: env must map names to strings (got ${describe(decl.env)}): env: { MY_VAR: '1' }`);
  } else if (decl.env !== undefined) {
    for (const [k, v] of Object.entries(decl.env)) {
      if (typeof v !== 'string') problems.push(`role ${name}: env.${k} must be a string (got ${describe(v)}): env: { ${k}: '${String(v)}' }`);
    }
  }
  if (problems.length > before) return null;
  return {
    name,
    group,
    index,
    device: decl.device,
    threads: decl.thread ? (decl.threads ?? 0) : 0,
    run: decl.run,
    thread: decl.thread,
    env: decl.env,
    ...(native ? { exec: [...decl.exec!], expectOutput: decl.expectOutput, expectExit: decl.expectExit } : {}),
    ...(decl.setup !== undefined ? { setup: decl.setup } : {}),
    ...(decl.threadSetup !== undefined ? { threadSetup: decl.threadSetup } : {}),
  };
}

function unknownKeys(obj: object, known: readonly string[], where: string, problems: string[]): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const guess = closest(key, known);
    problems.push(
      `${where}: unknown key ${JSON.stringify(key)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}; known keys: ${known.join(', ')}`,
    );
  }
}

function describe(v: unknown): string {
  if (typeof v === 'function') return 'a function';
  if (typeof v === 'string') return JSON.stringify(v);
  if (v === undefined || v === null || typeof v !== 'object') return String(v);
  return Array.isArray(v) ? 'an array' : 'an object';
}
