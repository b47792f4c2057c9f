/**
 * No orphans: a parent that runs roles is killed (SIGKILL, SIGTERM, SIGINT); its role processes,
 * their descendants and its scenario directory must all disappear.
 */
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import { repoRoot } from '../support/run-child';
import { scenarioDirsOf, survivors, waitUntil } from './leftovers';

const PARENT = path.join(__dirname, 'fixtures', 'parent-script.ts');

interface Started {
  parent: number;
  pids: number[];
  grandchild: number;
  dir: string;
}

/** Start the parent script and resolve once all its roles (and the grandchild) are up. */
function startParent(roleB: string, early: boolean) {
  const child = spawn(process.execPath, ['-r', 'esbuild-register', PARENT, roleB, ...(early ? ['early'] : [])], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  let err = '';
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.on('exit', (code, signal) => resolve({ code, signal })),
  );
  const started = new Promise<Started>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`parent script did not start its roles in time; stderr:\n${err}`));
    }, 30_000);
    child.stdout.on('data', (d) => {
      out += d;
      const line = out.split('\n').find((l) => l.startsWith('{"parent"'));
      if (line) {
        clearTimeout(timer);
        resolve(JSON.parse(line));
      }
    });
    child.stderr.on('data', (d) => (err += d));
    child.on('exit', () => reject(new Error(`parent script exited early; stderr:\n${err}`)));
  });
  return { child, started, exited };
}

test.each<[NodeJS.Signals, string, boolean]>([
  ['SIGKILL', 'hangsOnHandle', false],
  ['SIGKILL', 'blocksMainThread', false], // the role's main thread cannot see the IPC disconnect
  ['SIGKILL', 'blocksMainThread', true], // the parent dies while its roles are still starting
  ['SIGTERM', 'hangsOnHandle', false],
  ['SIGINT', 'hangsOnHandle', false],
])('parent killed by %s (role b: %s, early: %s): children and grandchildren gone, directory removed', async (signal, roleB, early) => {
  const { child, started, exited } = startParent(roleB, early);
  const s = await started;
  if (!early) expect(survivors([...s.pids, s.grandchild])).toHaveLength(3);
  expect(existsSync(s.dir)).toBe(true);
  child.kill(signal);
  // The parent dies by the same signal (handlers re-raise it after cleaning up).
  expect(await exited).toEqual({ code: null, signal });
  // Early: the children may still be starting; they must notice on their own and clean up.
  await waitUntil(() => survivors([...s.pids, s.grandchild]).length === 0 && !existsSync(s.dir), early ? 15_000 : 5000);
  expect(survivors([...s.pids, s.grandchild])).toEqual([]);
  expect(existsSync(s.dir)).toBe(false);
  expect(scenarioDirsOf(s.parent)).toEqual([]);
}, 45_000);
