/**
 * A shared/exclusive gate between the test files that Jest runs at the same time (jest.config.ts:
 * maxWorkers). Every stub process's aclInit reclaims the stub objects in /dev/shm whose users all
 * died, whoever made them, and every object any process makes is visible to all: a check of
 * "what is new in /dev/shm" (the C conformance suite) would count another file's objects, and
 * another file's device processes could reclaim a leak before the check sees it. So the files that
 * check /dev/shm as a whole hold the gate exclusively; every other file holds it shared.
 *
 * The gate is a directory made for one Jest run (test/support/global-setup.ts: under the
 * repository's node_modules/.cache, not the shared temp dir; in the environment as CANN_TEST_STUB_GATE): `reader-<pid>` files for shared holders, one `writer` file (holding its
 * pid) for the exclusive holder. A reader backs off while a writer file exists; a writer first
 * claims the writer file, then waits for the readers that came before it to leave. Files of dead
 * processes are ignored. Without the variable (a nested or single-file run) the gate does nothing.
 *
 * The files with leak checks of their own (leakedShmOf over the objects of their own runs) hold the
 * gate exclusively too: another file's aclInit could reclaim their leak before the check looks.
 * A per-run name prefix for the stub's objects (the stub reclaiming only its own) would let them
 * run beside the others.
 */
import { linkSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isRunning, waitUntil } from './leftovers';

export const STUB_GATE_ENV = 'CANN_TEST_STUB_GATE';

const gateDir = (): string | undefined => process.env[STUB_GATE_ENV] || undefined;
const readerFile = (dir: string): string => path.join(dir, `reader-${process.pid}`);

/** The pid of the live exclusive holder other than us, if any. */
function otherWriter(dir: string): number | null {
  try {
    const pid = Number(readFileSync(path.join(dir, 'writer'), 'utf8'));
    return pid !== process.pid && isRunning(pid) ? pid : null;
  } catch {
    return null; // no writer
  }
}

function otherLiveReaders(dir: string): number[] {
  return readdirSync(dir)
    .filter((n) => n.startsWith('reader-'))
    .map((n) => Number(n.slice('reader-'.length)))
    .filter((pid) => pid !== process.pid && isRunning(pid));
}

const FOREVER_MS = 2 ** 31 - 1; // Jest's hook timeout bounds the wait

/** Enters the gate shared (waits while a file holds it exclusively). */
export async function enterShared(): Promise<void> {
  const dir = gateDir();
  if (!dir) return;
  for (;;) {
    writeFileSync(readerFile(dir), '');
    if (otherWriter(dir) === null) return;
    rmSync(readerFile(dir), { force: true });
    await waitUntil(() => otherWriter(dir) === null, FOREVER_MS);
  }
}

export function leaveShared(): void {
  const dir = gateDir();
  if (dir) rmSync(readerFile(dir), { force: true });
}

/** Enters the gate exclusively: no other test file runs its tests until leaveExclusive(). */
export async function enterExclusive(): Promise<void> {
  const dir = gateDir();
  if (!dir) return;
  for (;;) {
    // written whole under a name of our own, then linked: the writer file never exists without its pid
    const mine = path.join(dir, `writer-${process.pid}`);
    writeFileSync(mine, String(process.pid));
    try {
      linkSync(mine, path.join(dir, 'writer'));
      rmSync(mine, { force: true });
      break;
    } catch (e) {
      rmSync(mine, { force: true });
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      if (otherWriter(dir) === null) rmSync(path.join(dir, 'writer'), { force: true }); // its holder died
      else await waitUntil(() => otherWriter(dir) === null, FOREVER_MS);
    }
  }
  await waitUntil(() => otherLiveReaders(dir).length === 0, FOREVER_MS);
}

export function leaveExclusive(): void {
  const dir = gateDir();
  if (dir && otherWriter(dir) === null) rmSync(path.join(dir, 'writer'), { force: true });
}
