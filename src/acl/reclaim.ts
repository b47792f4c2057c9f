/**
 * Removes the stub's shared-memory objects whose users have all died. A process killed by SIGKILL
 * (a crash, a deadline, Ctrl-C) cannot leave its IPC events, and the stub only reclaims such
 * objects at the next aclInit; whoever kills device processes calls this afterwards so that a run
 * leaves nothing in /dev/shm even when it was the last one. Objects with a live user are never
 * touched, so it is safe while other runs are going on.
 *
 * It runs native-stub's `cannstub_reclaim` tool in a child process (koffi is never loaded here).
 * Real CANN cleans up after its own processes, so in real mode this does nothing.
 */
import type * as ChildProcess from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { resolveLibrary } from './resolve';
import { stubBuildDir } from './stub-build';
import { ENV, type Mode } from '../env';

/** node:child_process on first use: every device process imports src/acl but never spawns from it (~4 ms at load). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const childProcess = (): typeof ChildProcess => require('node:child_process');

export const reclaimToolPath = path.join(stubBuildDir(), 'bin', 'cannstub_reclaim');

/** Returns the names of the objects it removed (empty when nothing was left or not in stub mode). */
export function reclaimStubLeftovers(opts: { mode?: Mode; env?: NodeJS.ProcessEnv } = {}): string[] {
  const env = opts.env ?? process.env;
  try {
    if (resolveLibrary({ mode: opts.mode, env }).mode !== 'stub') return [];
  } catch {
    return []; // no usable library: nothing of ours can have been created
  }
  if (!existsSync(reclaimToolPath)) return [];
  // The tool is itself a stub process: keep the run's ACL_STUB_* settings (trace dir, faults) away from it,
  // except its scope: the run's leftovers are in it, and a run in a scope reclaims only that scope.
  const toolEnv = Object.fromEntries(Object.entries(env).filter(([k]) => !k.startsWith('ACL_STUB_') || k === ENV.stubScope));
  const r = childProcess().spawnSync(reclaimToolPath, [], {
    env: { ...toolEnv, [ENV.stubLog]: 'info' },
    encoding: 'utf8',
    timeout: 10_000,
  });
  return [...(r.stderr ?? '').matchAll(/reclaimed (\S+):/g)].map((m) => m[1]);
}
