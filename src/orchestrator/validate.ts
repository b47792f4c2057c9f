/** Checks RunOptions up front, so mistakes surface as one clear error instead of a failed child. */
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { isValidName } from '../rendezvous';
import type { RunOptions } from './types';
import { ENV, MODES, type Mode } from '../env';

/** Set by the orchestrator for every role; a role's env must not override them. */
const RESERVED_ENV: readonly string[] = [ENV.role, ENV.device, ENV.index, ENV.dir, ENV.mode, ENV.parentPid];

export class RunOptionsError extends Error {
  /** @param api the function whose options were wrong (named first in the message) */
  constructor(message: string, api = 'runRoles') {
    super(`${api}: ${message}`);
    this.name = 'RunOptionsError';
  }
}

/** `api` is the function being called (runRoles or precheck), named in the error. */
export function checkMode(mode: unknown, api: 'runRoles' | 'precheck'): Mode {
  if (mode === undefined) return 'auto';
  if (!(MODES as readonly unknown[]).includes(mode)) {
    throw new RunOptionsError(`options.mode must be one of ${MODES.join(', ')}, got ${JSON.stringify(mode)}`, api);
  }
  return mode as Mode;
}

export function validateRunOptions(opts: RunOptions): void {
  if (!opts || typeof opts !== 'object') throw new RunOptionsError('options object required');
  if (!Array.isArray(opts.roles) || opts.roles.length === 0) {
    throw new RunOptionsError('roles must be a non-empty array of { name, device, entry }');
  }
  if (typeof opts.timeoutMs !== 'number' || !Number.isFinite(opts.timeoutMs) || opts.timeoutMs <= 0) {
    throw new RunOptionsError(`timeoutMs must be a positive finite number of milliseconds, got ${JSON.stringify(opts.timeoutMs)}`);
  }
  if (opts.graceMs !== undefined && (typeof opts.graceMs !== 'number' || !(opts.graceMs >= 0))) {
    throw new RunOptionsError(`graceMs must be a number >= 0, got ${JSON.stringify(opts.graceMs)}`);
  }
  const e = opts.expireOn as Partial<AbortSignal> | undefined;
  if (e !== undefined && (typeof e !== 'object' || e === null || typeof e.aborted !== 'boolean' || typeof e.addEventListener !== 'function')) {
    throw new RunOptionsError('expireOn must be an AbortSignal (new AbortController().signal), or left out');
  }
  checkMode(opts.mode, 'runRoles');
  const seen = new Set<string>();
  opts.roles.forEach((r, i) => {
    const where = `roles[${i}]${r && typeof r.name === 'string' ? ` ("${r.name}")` : ''}`;
    if (!r || typeof r !== 'object') throw new RunOptionsError(`${where} must be an object`);
    if (!isValidName(r.name)) {
      throw new RunOptionsError(
        `${where}: name must be 1-200 characters from letters, digits, '_', '-', '.', '@' and not start with '.' (it names files in the scenario directory)`,
      );
    }
    if (seen.has(r.name)) throw new RunOptionsError(`${where}: duplicate role name; every role needs its own name`);
    seen.add(r.name);
    if (!Number.isInteger(r.device) || r.device < 0) {
      throw new RunOptionsError(`${where}: device must be an integer >= 0, got ${JSON.stringify(r.device)}`);
    }
    if (r.index !== undefined && (!Number.isInteger(r.index) || r.index < 0)) {
      throw new RunOptionsError(`${where}: index must be an integer >= 0, got ${JSON.stringify(r.index)}`);
    }
    if (r.native !== undefined) {
      checkNative(r.native, where);
    } else {
      checkEntry(r.entry, where);
    }
    for (const [k, v] of Object.entries(r.env ?? {})) {
      if (RESERVED_ENV.includes(k)) {
        throw new RunOptionsError(`${where}: env.${k} is set by the harness itself; remove it from env`);
      }
      if (typeof v !== 'string') throw new RunOptionsError(`${where}: env.${k} must be a string`);
    }
  });
}

function checkNative(n: NonNullable<RunOptions['roles'][number]['native']>, where: string): void {
  if (typeof n.program !== 'string' || !path.isAbsolute(n.program)) {
    throw new RunOptionsError(`${where}: native.program must be an absolute path, got ${JSON.stringify(n.program)}`);
  }
  if (!Array.isArray(n.args) || n.args.some((a) => typeof a !== 'string')) {
    throw new RunOptionsError(`${where}: native.args must be a list of strings`);
  }
}

function checkEntry(e: RunOptions['roles'][number]['entry'], where: string): void {
  if (!e || typeof e.module !== 'string' || !path.isAbsolute(e.module)) {
    throw new RunOptionsError(`${where}: entry.module must be an absolute path (use path.resolve(__dirname, ...)), got ${JSON.stringify(e?.module)}`);
  }
  if (!existsSync(e.module)) throw new RunOptionsError(`${where}: entry.module ${e.module} does not exist`);
  if (typeof e.export !== 'string' || e.export === '') {
    throw new RunOptionsError(`${where}: entry.export must name the exported role function`);
  }
  if (e.args !== undefined) {
    try {
      JSON.stringify(e.args);
    } catch (err) {
      throw new RunOptionsError(`${where}: entry.args must be JSON-serialisable (${(err as Error).message})`);
    }
  }
}
