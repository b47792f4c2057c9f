/**
 * Repetitions and seeded jitter of scenario tests (`cann-harness run --repeat-each N --jitter [max_us]`),
 * handed to Jest workers through the environment, and the replay command printed with a failure.
 */
import { createHash, randomInt } from 'node:crypto';
import * as path from 'node:path';
import { ENV } from '../env';

export const REPEAT_EACH_ENV = ENV.repeatEach;
export const JITTER_US_ENV = ENV.jitterUs;
/** Set by `cann-harness audit`: each registered scenario appends its audit declaration here. */
export const AUDIT_LOG_ENV = ENV.auditLog;
export const MAX_JITTER_US = 1_000_000; // the stub's own limit
/** `cann-harness run --retries N`: a failed scenario runs again up to N times (Jest's retryTimes). */
export const RETRIES_ENV = ENV.retries;
export const MAX_RETRIES = 10;

export interface Repetition {
  /** 1-based */
  index: number;
  total: number;
  /** 0: no jitter */
  jitterMaxUs: number;
}

export function parseRepeatEach(text: string, what = '--repeat-each'): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > 100_000) {
    throw new Error(`${what} ${JSON.stringify(text)} is invalid: give how many times to run each scenario, a whole number from 1 (e.g. ${what} 20)`);
  }
  return Number(text);
}

export function parseRetries(text: string, what = '--retries'): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) > MAX_RETRIES) {
    throw new Error(`${what} ${JSON.stringify(text)} is invalid: give how many times a failed scenario may run again, a whole number from 0 to ${MAX_RETRIES} (e.g. ${what} 2)`);
  }
  return Number(text);
}

export function retriesFromEnv(env: NodeJS.ProcessEnv = process.env): number {
  return env[RETRIES_ENV] ? parseRetries(env[RETRIES_ENV]!, RETRIES_ENV) : 0;
}

/** `cann-harness run --shard i/n`: this run takes the scenarios of shard i of n. */
export const SHARD_ENV = ENV.shard;

export interface Shard {
  index: number;
  total: number;
}

export function parseShard(text: string, what = '--shard'): Shard {
  const m = /^(\d+)\/(\d+)$/.exec(text.trim());
  const [index, total] = m ? [Number(m[1]), Number(m[2])] : [0, 0];
  if (!m || total < 1 || index < 1 || index > total) {
    throw new Error(`${what} ${JSON.stringify(text)} is invalid: give this run's shard and the number of shards, i/n with 1 <= i <= n (e.g. ${what} 1/4)`);
  }
  return { index, total };
}

export function shardFromEnv(env: NodeJS.ProcessEnv = process.env): Shard | null {
  return env[SHARD_ENV] ? parseShard(env[SHARD_ENV]!, SHARD_ENV) : null;
}

/**
 * Which shard a scenario belongs to: a hash of its spec file (relative to the working directory)
 * and its name. Every machine of a sharded CI job computes the same split, whatever the order in
 * which Jest collects files; each scenario is in exactly one shard.
 */
export function shardOfScenario(specFile: string, scenario: string, total: number, cwd = process.cwd()): number {
  const key = `${path.relative(cwd, specFile).split(path.sep).join('/')}\0${scenario}`;
  return (createHash('sha256').update(key).digest().readUInt32BE(0) % total) + 1;
}

export function parseJitterUs(text: string, what = '--jitter'): number {
  if (!/^\d+$/.test(text.trim()) || Number(text) < 1 || Number(text) > MAX_JITTER_US) {
    const pattern = /^\d+$/.test(text.trim()) ? '' : ` (a spec pattern right after ${what} is taken as its value: put patterns first, or write ${what} 200)`;
    throw new Error(`${what} ${JSON.stringify(text)} is invalid: give the largest delay in microseconds, a whole number from 1 to ${MAX_JITTER_US} (e.g. ${what} 200)${pattern}`);
  }
  return Number(text);
}

export function repetitionsFromEnv(env: NodeJS.ProcessEnv = process.env): Repetition[] {
  const total = env[REPEAT_EACH_ENV] ? parseRepeatEach(env[REPEAT_EACH_ENV]!, REPEAT_EACH_ENV) : 1;
  const jitterMaxUs = env[JITTER_US_ENV] ? parseJitterUs(env[JITTER_US_ENV]!, JITTER_US_ENV) : 0;
  return Array.from({ length: total }, (_, i) => ({ index: i + 1, total, jitterMaxUs }));
}

/** A fresh seed for each repetition (printed in the test title and with any failure). */
export function freshJitterSeed(): number {
  return randomInt(1, 2 ** 31);
}

/** The one command that runs this scenario again with exactly this jitter. */
export function replayCommand(specFile: string, scenario: string, jitter: string | null, cwd = process.cwd()): string {
  const specsDir = path.relative(cwd, path.dirname(specFile)) || '.';
  const file = `${escapeRegex(path.basename(specFile))}$`;
  return `${jitter !== null ? `ACL_STUB_JITTER=${jitter} ` : ''}npx cann-harness run --specs ${shellQuote(specsDir)} ${shellQuote(file)} -t ${shellQuote(`^${escapeRegex(scenario)}$`)}`;
}

export function escapeRegex(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

function shellQuote(s: string): string {
  return /^[\w@%+=:,./-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
