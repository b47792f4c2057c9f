/**
 * Messages between the orchestrator and a device process (or the precheck child): one JSON value
 * per line on the child's file descriptor MESSAGE_FD, a socket pair that the parent creates with
 * the child's stdout and stderr. The parent writes the job as the first line; the child reads it
 * synchronously at start-up and then writes its messages synchronously, so its last message (the
 * result) is in the pipe before it exits. Requests after the job (a hang report) go through files
 * in the scenario directory (hang-files.ts), which the child polls.
 */

import type { RoleEntry, RoleError } from './types';
import type { WaitingFor } from '../rendezvous';
import type { ResolvedMode, Mode } from '../env';
import { parseRoleError, type Parsed } from './wire-error';

/** The child's file descriptor of its message pipe. */
export const MESSAGE_FD = 3;

export interface Job {
  role: string;
  device: number;
  index: number;
  dir: string;
  mode: Mode;
  entry: RoleEntry;
}

export type ToChild = { type: 'job'; job: Job };

export type FromChild =
  /** tNs: when the wait started or ended, CLOCK_MONOTONIC ns by the device process's clock. */
  | { type: 'waiting'; waitingFor: WaitingFor | null; tNs?: string }
  | { type: 'mark'; name: string; tNs: string }
  | { type: 'diagnosed'; file: string | null }
  /** Soak rounds: rounds done so far, sent now and then by the first role (harness/scenario/rounds.ts). */
  | { type: 'rounds'; done: number; total: number }
  | ({ type: 'result'; ok: true; value?: unknown } & ResultExtras)
  | ({ type: 'result'; ok: false; error: RoleError } & ResultExtras);

/** Sent with the result, which is the device process's last message. */
export interface ResultExtras {
  /** Bytes of stdout / stderr it could not flush before exiting (absent when all were flushed). */
  unflushed?: { stdout: number; stderr: number };
}

const isDecimal = (v: unknown): boolean => typeof v === 'string' && /^\d+$/.test(v);
const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

/** What is wrong with a device process's message, or null: checked where it arrives, before anything uses it. */
function fromChildProblem(m: unknown): string | null {
  if (!isObject(m)) return `a message is ${JSON.stringify(m) ?? String(m)}, not an object`;
  switch (m.type) {
    case 'waiting': {
      const w = m.waitingFor;
      if (m.tNs !== undefined && !isDecimal(m.tNs)) return `"waiting".tNs is ${JSON.stringify(m.tNs)}, not a decimal string of nanoseconds`;
      if (w === null || (isObject(w) && typeof w.what === 'string' && (w.from === undefined || typeof w.from === 'string'))) return null;
      return `"waiting".waitingFor is ${JSON.stringify(w)}, not null or { what, from? }`;
    }
    case 'mark':
      if (typeof m.name !== 'string') return `"mark".name is ${JSON.stringify(m.name)}, not a string`;
      return isDecimal(m.tNs) ? null : `"mark".tNs is ${JSON.stringify(m.tNs)}, not a decimal string of nanoseconds`;
    case 'rounds':
      return Number.isInteger(m.done) && Number.isInteger(m.total) ? null : '"rounds".done and .total must be whole numbers';
    case 'diagnosed':
      return m.file === null || typeof m.file === 'string' ? null : '"diagnosed".file is neither a string nor null';
    case 'result': {
      if (typeof m.ok !== 'boolean') return `"result".ok is ${JSON.stringify(m.ok)}, not a boolean`;
      const u = m.unflushed;
      if (u !== undefined && !(isObject(u) && typeof u.stdout === 'number' && typeof u.stderr === 'number')) return '"result".unflushed is not { stdout, stderr } byte counts';
      if (m.ok) return null;
      const error = parseRoleError(m.error);
      return error.ok ? null : `"result": ${error.problem}`;
    }
    default:
      return `unknown message type ${JSON.stringify(m.type)}`;
  }
}

const FROM_CHILD_TYPES: readonly string[] = ['waiting', 'mark', 'diagnosed', 'rounds', 'result'] satisfies FromChild['type'][];

/** A message of this protocol at all (anything else on the pipe is ignored, as Node's IPC messages of a role's own were). */
export function isFromChild(m: unknown): boolean {
  return isObject(m) && FROM_CHILD_TYPES.includes(m.type as string);
}

export function parseFromChild(m: unknown): Parsed<FromChild> {
  const problem = fromChildProblem(m);
  return problem === null ? { ok: true, value: m as FromChild } : { ok: false, problem };
}

/** The precheck child's argument when precheck() started it (with a message pipe and a parent to watch); run by hand, it has neither. */
export const PRECHECK_PIPE_FLAG = '--message-pipe';

/** What the precheck child sends (and prints as its last stdout line). */
export interface PrecheckReport {
  ok: boolean;
  mode?: ResolvedMode;
  library?: string;
  reason?: string;
  deviceCount?: number;
  ipcSupported?: boolean;
  error?: string;
}
