/**
 * Test helpers that look for anything a run may have left behind: live processes (by pid and by
 * process group), scenario directories, and shared-memory objects of the stub in /dev/shm.
 * Zombies count as gone: in containers whose pid 1 does not reap, dead orphans stay as zombies.
 */
import { readdirSync, readFileSync, readlinkSync, existsSync } from 'node:fs';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import { scenarioBaseDir } from '../../src/orchestrator/scenario-dir';

interface ProcStat {
  pid: number;
  state: string;
  ppid: number;
  pgrp: number;
}

function readStat(pid: number | string): ProcStat | undefined {
  try {
    const text = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const rest = text.slice(text.lastIndexOf(')') + 2).split(' '); // comm may contain spaces
    return { pid: Number(pid), state: rest[0], ppid: Number(rest[1]), pgrp: Number(rest[2]) };
  } catch {
    return undefined;
  }
}

export function isRunning(pid: number): boolean {
  const st = readStat(pid);
  return st !== undefined && st.state !== 'Z' && st.state !== 'X';
}

/** True when no process at all (not even a zombie) is in the group: kill(-pgid, 0) fails with ESRCH. */
function groupIsEmpty(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return false;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'ESRCH';
  }
}

/**
 * Live (non-zombie) members of a process group. An empty group (the usual answer) is known from one
 * system call; only a group that still has a process is looked for in /proc (one read per process
 * of the machine: the conformance suite's 182 cases spent about 10 s of CPU on these scans).
 */
export function liveGroupMembers(pgid: number): number[] {
  if (groupIsEmpty(pgid)) return [];
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    const st = readStat(entry);
    if (st && st.pgrp === pgid && st.state !== 'Z' && st.state !== 'X') out.push(st.pid);
  }
  return out;
}

export async function waitUntil(cond: () => boolean, timeoutMs: number, stepMs = 50): Promise<boolean> {
  const end = Date.now() + timeoutMs;
  for (;;) {
    if (cond()) return true;
    if (Date.now() > end) return false;
    await new Promise((r) => setTimeout(r, stepMs));
  }
}

/** Pids (and, as group leaders, their groups) that still have a live process. */
export function survivors(pids: (number | null | undefined)[]): number[] {
  const alive: number[] = [];
  for (const pid of pids) {
    if (!pid) continue;
    if (isRunning(pid) || liveGroupMembers(pid).length > 0) alive.push(pid);
  }
  return alive;
}

/**
 * Live (non-zombie) processes started with `name=value` in their environment (/proc/<pid>/environ:
 * what they were started with, which their children inherit), e.g. everything a session under test
 * started with its own CANN_HARNESS_TMPDIR: once none is left, none can write there any more.
 */
export function processesWithEnv(name: string, value: string): number[] {
  const wanted = `${name}=${value}`;
  const out: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (!readFileSync(`/proc/${entry}/environ`, 'latin1').split('\0').includes(wanted)) continue;
    } catch {
      continue; // gone, or not ours to read
    }
    if (isRunning(Number(entry))) out.push(Number(entry));
  }
  return out;
}

/** Scenario directories created on behalf of the process `ownerPid`. */
export function scenarioDirsOf(ownerPid: number): string[] {
  const prefix = `cann-harness-${ownerPid}-`;
  const base = scenarioBaseDir();
  return readdirSync(base)
    .filter((n) => n.startsWith(prefix))
    .map((n) => path.join(base, n));
}

/** This process's stub scope (ACL_STUB_SCOPE: each test file has its own, test/support/stub-scope-environment.ts), '' for none. */
export function stubScope(env: NodeJS.ProcessEnv = process.env): string {
  return env[ENV.stubScope] ?? '';
}

/** The /dev/shm name of the stub's IPC event with this 16-hex-digit id, in `scope` (native-stub/README.md). */
export function ipcEventObject(id: string, scope: string = stubScope()): string {
  return `cannstub-ev-${id}${scope ? `.${scope}` : ''}`;
}

/** The stub's objects in /dev/shm: of `scope` only ('' : every stub object, scoped or not). */
export function shmEntries(scope: string = stubScope()): Set<string> {
  const own = (n: string): boolean => n.startsWith('cannstub') && (!scope || n.endsWith(`.${scope}`));
  try {
    return new Set(readdirSync('/dev/shm').filter(own));
  } catch {
    return new Set();
  }
}

/** True if some live process has /dev/shm/<name> mapped or open (then it is in use, not leaked). */
function shmInUse(name: string): boolean {
  const target = `/dev/shm/${name}`;
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/maps`, 'utf8').includes(target)) return true;
    } catch {
      /* process gone or not ours to read */
    }
    try {
      for (const fd of readdirSync(`/proc/${entry}/fd`)) {
        try {
          if (readlinkSync(`/proc/${entry}/fd/${fd}`).startsWith(target)) return true;
        } catch {
          /* fd closed meanwhile */
        }
      }
    } catch {
      /* not readable */
    }
  }
  return false;
}

/**
 * New stub objects of `scope` in /dev/shm (not in `before`) that no live process uses. Test files
 * running at the same time have scopes of their own: their objects are not counted against us.
 */
export function leakedShm(before: Set<string>, scope: string = stubScope()): string[] {
  return [...shmEntries(scope)].filter((n) => !before.has(n) && existsSync(`/dev/shm/${n}`) && !shmInUse(n));
}

/**
 * The stub's IPC-event objects that one run used, read from its traces (RunOptions.collectTraces):
 * each traced call names the event's 64-bit id, and the object is /dev/shm/cannstub-ev-<id>.<scope>.
 * Checking these instead of "every new cannstub object" keeps a run's check to its own objects
 * while other test files create and destroy theirs at the same time.
 */
export function shmObjectsOfRun(traces: { jsonl: string }[] | undefined): string[] {
  const names = new Set<string>();
  for (const t of traces ?? []) {
    for (const line of t.jsonl.split('\n')) {
      const m = /"ipc":"([0-9a-f]{16})"/.exec(line);
      if (m) names.add(ipcEventObject(m[1]));
    }
  }
  return [...names].sort();
}

/** Objects of `names` still in /dev/shm that no live process uses. */
export function leakedShmOf(names: string[]): string[] {
  return names.filter((n) => existsSync(`/dev/shm/${n}`) && !shmInUse(n));
}

/** SIGKILLs the process group of each pid (a test's own runs, after a failed test) and forgets them. */
export function killGroups(pids: Set<number>): void {
  for (const pid of pids) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      /* gone, as it should be */
    }
  }
  pids.clear();
}
