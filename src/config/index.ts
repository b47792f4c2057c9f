/**
 * The project's config file, `cann-harness.config.ts` (or `.js`) in the directory Jest or the CLI
 * runs from. Both read it: the CLI (`cann-harness run`) and the Jest preset. Its settings reach
 * every process of a run as the harness's environment variables, so device processes and Jest
 * workers see the same values. Precedence: a command-line option, then an environment variable
 * already set, then the config file, then the default.
 */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { closest } from '../suggest';
import { roundsProblem } from '../env/rounds';
import { ENV, MODES, type Mode } from '../env';
import { timeoutProblem } from '../env/timeout';
import { exploreDepthProblem, exploreSeedProblem } from '../env/explore';

export interface HarnessConfig {
  /** Folder of the *.spec.ts files, relative to the config file (default `specs`). */
  specs?: string;
  /** Default deadline of a scenario in ms (a scenario's own `timeoutMs` wins; default 30000). */
  timeoutMs?: number;
  /** Soak rounds for every scenario (like `run --rounds N`; docs/guide/soak-rounds.md). */
  rounds?: number;
  /**
   * The schedule explorer for every scenario (like `run --explore [seed]`; docs/guide/soak-rounds.md):
   * a seed, or 'fresh' (or true) for a new seed per scenario. Stub mode only.
   */
  explore?: number | 'fresh' | true;
  /** The explorer's PCT depth, 1..8 (like `run --explore-depth d`; default 2). */
  exploreDepth?: number;
  /** Devices this machine must have: scenarios needing up to this many fail instead of being skipped. */
  devices?: number;
  /** Which libascendcl to load: auto (real CANN if found, else the stub), stub or real. */
  mode?: Mode;
  /** Where scenario directories are made (absolute, or relative to the config file). */
  tmpDir?: string;
  /** Where kept scenario directories go (relative to the config file; default test-results/cann-harness). */
  resultsDir?: string;
  /** Keep scenario directories: 'on-failure' (default), 'always' or 'never'. */
  keep?: 'on-failure' | 'always' | 'never';
  /**
   * The timeline trace.json: 'on-failure' (default: in every kept directory), 'always' (every
   * run's directory is kept with its trace.json, like `run --trace`) or 'never' (kept directories
   * get none; `cann-harness trace <dir>` builds it later).
   */
  trace?: 'on-failure' | 'always' | 'never';
  /** Reporters: where `cann-harness run` and the preset write JUnit XML (relative to the config file), or false for none. */
  reporters?: { junit?: string | false };
}

/** Types a config file: `export default defineConfig({ ... })`. */
export function defineConfig(config: HarnessConfig): HarnessConfig {
  return config;
}

export const CONFIG_FILES = ['cann-harness.config.ts', 'cann-harness.config.js'] as const;
const KEYS = ['specs', 'timeoutMs', 'rounds', 'explore', 'exploreDepth', 'devices', 'mode', 'tmpDir', 'resultsDir', 'keep', 'trace', 'reporters'] as const;
const REPORTER_KEYS = ['junit'] as const;
const POLICY = ['on-failure', 'always', 'never'] as const;
const CHOICES = [['mode', MODES], ['keep', POLICY], ['trace', POLICY]] as const;

export class ConfigError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'ConfigError';
  }
}

/** A config with every path made absolute, and where it came from. */
export interface LoadedConfig extends HarnessConfig {
  file: string | null;
}

function unknownKeys(obj: object, known: readonly string[], where: string, problems: string[]): void {
  for (const key of Object.keys(obj)) {
    if (known.includes(key)) continue;
    const guess = closest(key, known);
    problems.push(`${where}: unknown key ${JSON.stringify(key)}${guess ? ` (did you mean ${JSON.stringify(guess)}?)` : ''}; known keys: ${known.join(', ')}`);
  }
}

/** Checks a config object; every problem at once, each naming the fix. Paths resolve against `dir`. */
export function validateConfig(value: unknown, file: string): LoadedConfig {
  const where = path.basename(file);
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(`${file} must export a config object: export default defineConfig({ specs: 'specs' })`);
  }
  const c = value as Record<string, unknown>;
  const problems: string[] = [];
  unknownKeys(c, KEYS, where, problems);
  const dir = path.dirname(file);
  const out: LoadedConfig = { file };
  const str = (key: string): string | undefined => {
    if (c[key] === undefined) return undefined;
    if (typeof c[key] === 'string' && c[key] !== '') return c[key] as string;
    problems.push(`${where}: ${key} must be a non-empty string (got ${JSON.stringify(c[key])})`);
    return undefined;
  };
  const specs = str('specs');
  if (specs) out.specs = path.resolve(dir, specs);
  const tmpDir = str('tmpDir');
  if (tmpDir) out.tmpDir = path.resolve(dir, tmpDir);
  const resultsDir = str('resultsDir');
  if (resultsDir) out.resultsDir = path.resolve(dir, resultsDir);
  if (c.timeoutMs !== undefined) {
    const problem = timeoutProblem(c.timeoutMs, 'timeoutMs', 'e.g. timeoutMs: 20_000');
    if (problem) problems.push(`${where}: ${problem}`);
    else out.timeoutMs = c.timeoutMs as number;
  }
  if (c.rounds !== undefined) {
    const problem = roundsProblem(c.rounds, 'rounds', 'e.g. rounds: 1000');
    if (problem) problems.push(`${where}: ${problem}`);
    else out.rounds = c.rounds as number;
  }
  if (c.explore !== undefined) {
    const problem = exploreSeedProblem(c.explore, 'explore');
    if (problem) problems.push(`${where}: ${problem}`);
    else out.explore = c.explore as HarnessConfig['explore'];
  }
  if (c.exploreDepth !== undefined) {
    const problem = exploreDepthProblem(c.exploreDepth, 'exploreDepth');
    if (problem) problems.push(`${where}: ${problem}`);
    else out.exploreDepth = c.exploreDepth as number;
  }
  if (c.devices !== undefined) {
    if (Number.isInteger(c.devices) && (c.devices as number) >= 1) out.devices = c.devices as number;
    else problems.push(`${where}: devices must be a whole number of devices, at least 1 (got ${JSON.stringify(c.devices)}): e.g. devices: 8`);
  }
  for (const [key, allowed] of CHOICES) {
    if (c[key] === undefined) continue;
    if ((allowed as readonly unknown[]).includes(c[key])) {
      (out as unknown as Record<string, unknown>)[key] = c[key];
      continue;
    }
    const guess = typeof c[key] === 'string' ? closest(c[key] as string, allowed) : null;
    problems.push(`${where}: ${key} must be one of ${allowed.map((a) => `'${a}'`).join(', ')} (got ${JSON.stringify(c[key])})${guess ? `: did you mean '${guess}'?` : ''}`);
  }
  if (out.keep === 'never' && out.trace === 'always') {
    problems.push(`${where}: keep: 'never' and trace: 'always' contradict each other (trace: 'always' keeps every scenario directory for its trace.json): drop one of them`);
  }
  if (c.reporters !== undefined) {
    const r = c.reporters as Record<string, unknown>;
    if (typeof r !== 'object' || r === null || Array.isArray(r)) {
      problems.push(`${where}: reporters must be an object: reporters: { junit: 'reports/junit.xml' }`);
    } else {
      unknownKeys(r, REPORTER_KEYS, `${where}: reporters`, problems);
      if (r.junit === false) out.reporters = { junit: false };
      else if (typeof r.junit === 'string' && r.junit !== '') out.reporters = { junit: path.resolve(dir, r.junit) };
      else if (r.junit !== undefined) problems.push(`${where}: reporters.junit must be a file path or false (got ${JSON.stringify(r.junit)})`);
    }
  }
  if (problems.length) throw new ConfigError(problems.join('\n'));
  return out;
}

/** The config file in `dir` (none: an empty config), loaded through the harness's TypeScript hook. */
export function loadConfig(dir: string = process.cwd(), explicit?: string): LoadedConfig {
  const file = explicit ? path.resolve(explicit) : CONFIG_FILES.map((f) => path.join(dir, f)).find((f) => existsSync(f));
  if (!file) return { file: null };
  if (!existsSync(file)) throw new ConfigError(`config file ${file} does not exist: fix the path given to --config`);
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a side-effect hook, loaded only when needed
  require('../ts-hook/ts-register.js'); // a .ts config in a process without the hook (the CLI, Jest's main process)
  let loaded: unknown;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(file) as { default?: unknown };
    loaded = mod && typeof mod === 'object' && 'default' in mod ? mod.default : mod;
  } catch (e) {
    throw new ConfigError(`${file} could not be loaded: ${(e as Error).message}`);
  }
  return validateConfig(loaded, file);
}

/** keep and trace as CANN_HARNESS_KEEP / CANN_HARNESS_TRACE: 1 always, 0 never, unset on failure. */
const POLICY_ENV: Record<(typeof POLICY)[number], string | undefined> = { 'on-failure': undefined, always: '1', never: '0' };

/** The environment variables that carry the config to every process of a run (unset ones only). */
export function configEnv(config: HarnessConfig, env: NodeJS.ProcessEnv = process.env): Record<string, string> {
  const wanted: Record<string, string | undefined> = {
    [ENV.mode]: config.mode,
    [ENV.requireDevices]: config.devices?.toString(),
    [ENV.tmpDir]: config.tmpDir,
    [ENV.resultsDir]: config.resultsDir,
    [ENV.keep]: config.keep ? POLICY_ENV[config.keep] : undefined,
    [ENV.trace]: config.trace ? POLICY_ENV[config.trace] : undefined,
    [ENV.timeoutMs]: config.timeoutMs?.toString(),
    [ENV.rounds]: config.rounds?.toString(),
    [ENV.explore]: config.explore === true ? 'fresh' : config.explore?.toString(),
    [ENV.exploreDepth]: config.exploreDepth?.toString(),
  };
  return Object.fromEntries(Object.entries(wanted).filter((e): e is [string, string] => e[1] !== undefined && !env[e[0]]));
}

/** Loads the config and exports its settings into `env`; returns it. */
export function applyConfig(dir: string = process.cwd(), explicit?: string, env: NodeJS.ProcessEnv = process.env): LoadedConfig {
  const config = loadConfig(dir, explicit);
  Object.assign(env, configEnv(config, env));
  return config;
}
