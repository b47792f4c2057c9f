/**
 * The on-disk layout of a scenario directory. Plain files only, so that C programs and shell
 * scripts can take part (see README.md in this folder). Every name ends up as one path segment.
 */
import * as path from 'node:path';

export const LAYOUT = {
  handles: 'handles', // published payloads: handles/<name>
  signals: 'signals', // one-shot signals: signals/<name> (empty file)
  done: 'done', // done flags: done/<role> (empty file)
  barriers: 'barriers', // counted barriers: barriers/<name>/<ticket 0..N-1>
  trace: 'trace', // ACL_STUB_TRACE points here; the stub writes one file per process
  marks: 'marks', // marks of native roles: marks/<role>.<pid>.marks, lines "<tNs> <name>" (native-stub/harness/api/marks.c)
  logs: 'logs', // each role's full output, streamed by the orchestrator while it runs (removed with a passing run's directory)
  staging: '.staging', // hidden: temporary files of publishes, renamed from here into place
} as const;

/** Letters, digits, '_', '-', '.', '@'; not starting with '.'; at most 200 characters. */
const NAME_PATTERN = /^[A-Za-z0-9_@-][A-Za-z0-9_.@-]{0,199}$/;

export class RendezvousNameError extends Error {
  constructor(kind: string, name: unknown) {
    super(
      `invalid ${kind} name ${JSON.stringify(name)}: use 1-200 characters from letters, digits, ` +
        `'_', '-', '.', '@', not starting with '.' (the name becomes a single file name, so no '/' or '..')`,
    );
    this.name = 'RendezvousNameError';
  }
}

export function checkName(kind: string, name: unknown): string {
  if (typeof name !== 'string' || !NAME_PATTERN.test(name)) throw new RendezvousNameError(kind, name);
  return name;
}

export function isValidName(name: unknown): boolean {
  return typeof name === 'string' && NAME_PATTERN.test(name);
}

export const handlePath = (dir: string, name: string) => path.join(dir, LAYOUT.handles, name);
export const signalPath = (dir: string, name: string) => path.join(dir, LAYOUT.signals, name);
export const donePath = (dir: string, role: string) => path.join(dir, LAYOUT.done, role);
export const barrierDir = (dir: string, name: string) => path.join(dir, LAYOUT.barriers, name);
