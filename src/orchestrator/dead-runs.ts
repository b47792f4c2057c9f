/**
 * What a dead run left, removed at the start of the next one. A runner killed with SIGKILL (a CI
 * job cancelled, `kill -9` of `npx jest` or of its process group) runs no handler: its device
 * processes notice the dead parent, remove their scenario directories and release their IPC
 * objects (harness/parent-watch.ts, native-stub/harness/hold/watch.c), but what the runner itself owned
 * stays: `cann-harness run`'s progress directory, the directory of a scenario whose device
 * processes were killed along with the group, stub objects of processes killed mid-update.
 *
 * Only what is provably a dead run's is removed: a directory of ours (not a link, owned by this
 * user) named `cann-harness-<pid>-...` whose <pid> is not a live process, and not kept on purpose
 * (a kept directory has result.json); and stub objects with no live user (src/acl/reclaim.ts).
 * Runs going on at the same time (live owners) are never touched. A pid reused since by another
 * live process keeps its old directory until a later start.
 */
import { lstatSync, readdirSync, readFileSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { reclaimStubLeftovers } from '../acl/reclaim';
import { defaultScopeOwner, ensureRunStubScope, scopeOfObject } from '../acl/stub-scope';
import { ENV } from '../env';
import { SCENARIO_DIR_PREFIX, removeScenarioDir, scenarioBaseDir } from './scenario-dir';
import { deadOwnedTempDirs } from './owned-temp';
import * as os from 'node:os';

export interface DeadRunLeftovers {
  /** Directories removed (absolute paths). */
  dirs: string[];
  /** Stub shared-memory objects removed (names as in /dev/shm). */
  objects: string[];
}

/** A running process (a zombie has exited: it owns nothing any more). */
export function processAlive(pid: number): boolean {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
  } catch {
    return false;
  }
  const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
  return state !== 'Z' && state !== 'X';
}

const OWNED_NAME = new RegExp(`^${SCENARIO_DIR_PREFIX}(\\d+)-`);

/** Directories of dead runs in `base` (see the module comment). */
export function deadRunDirs(base: string): string[] {
  const uid = typeof process.getuid === 'function' ? process.getuid() : undefined;
  const out: string[] = [];
  let names: string[];
  try {
    names = readdirSync(base);
  } catch {
    return out;
  }
  for (const name of names) {
    const m = OWNED_NAME.exec(name);
    if (!m || Number(m[1]) === process.pid || processAlive(Number(m[1]))) continue;
    const dir = path.join(base, name);
    try {
      const st = lstatSync(dir);
      if (!st.isDirectory() || (uid !== undefined && st.uid !== uid)) continue;
    } catch {
      continue; // removed meanwhile
    }
    if (existsSync(path.join(dir, 'result.json'))) continue; // kept on purpose
    out.push(dir);
  }
  return out;
}

/**
 * The default stub scopes (`harness-<pid>`, src/acl/stub-scope.ts) of dead runs that have objects
 * in `shmDir`: only those are reclaimed at a start, never another run's or another scope's.
 */
export function deadRunScopes(shmDir = '/dev/shm', alive: (pid: number) => boolean = processAlive): string[] {
  let names: string[];
  try {
    names = readdirSync(shmDir);
  } catch {
    return [];
  }
  const scopes = new Set<string>();
  for (const name of names) {
    const scope = scopeOfObject(name);
    const owner = scope === null ? null : defaultScopeOwner(scope);
    if (owner !== null && owner !== process.pid && !alive(owner)) scopes.add(scope!);
  }
  return [...scopes].sort();
}

/**
 * Removes what dead runs left; `say` gets one line when there was anything. Never throws.
 * `privateBase`: where the runs' private directories are (notes, HTML data, audit log: owned-temp.ts).
 */
export function removeDeadRunLeftovers(
  say: (line: string) => void,
  env: NodeJS.ProcessEnv = process.env,
  privateBase: string = os.tmpdir(),
): DeadRunLeftovers {
  ensureRunStubScope(env); // this run's objects carry its own scope from here on
  let dirs: string[] = [];
  try {
    dirs = deadRunDirs(scenarioBaseDir(env));
  } catch {
    /* a bad CANN_HARNESS_TMPDIR is reported where scenarios are created */
  }
  dirs.push(...deadOwnedTempDirs(privateBase).filter((d) => !dirs.includes(d)));
  for (const d of dirs) removeScenarioDir(d);
  dirs = dirs.filter((d) => !existsSync(d));
  let objects: string[] = [];
  try {
    // Our own scope (a user's ACL_STUB_SCOPE: its dead objects), then dead runs' default scopes.
    objects = reclaimStubLeftovers({ env });
    for (const scope of deadRunScopes()) objects.push(...reclaimStubLeftovers({ env: { ...env, [ENV.stubScope]: scope } }));
  } catch {
    /* best effort */
  }
  if (dirs.length > 0 || objects.length > 0) {
    const parts = [
      ...(dirs.length ? [`${dirs.length} director${dirs.length === 1 ? 'y' : 'ies'} (${dirs.join(', ')})`] : []),
      ...(objects.length ? [`${objects.length} shared-memory object(s) (${objects.join(', ')})`] : []),
    ];
    say(`removed what a dead run left: ${parts.join(' and ')}`);
  }
  return { dirs, objects };
}
