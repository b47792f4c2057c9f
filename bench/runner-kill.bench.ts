/**
 * SIGKILL of the runner (issue #20 item 2): what does a killed run leave, and for how long?
 * For each runner (`jest`, the node process `npx jest` starts; `cann-harness run`) and each kill
 * (the runner alone; its whole process group), KILL_TRIALS times (30):
 *  1. start a run of bench/kill-specs (one IPC event shared by a producer, opened by a consumer,
 *     both then holding) in its own process group, with a private CANN_HARNESS_TMPDIR;
 *  2. once both device processes have the event's /dev/shm object mapped, SIGKILL the runner
 *     (or the group);
 *  3. "by the device processes": within 2 s of the kill, are the device processes gone and
 *     have they left no scenario directory and no /dev/shm object of the run?
 *  4. "after the next start": run the start step every run makes (removeDeadRunLeftovers, as the
 *     Jest global setup and `cann-harness run` do) and count what of the run is still there
 *     (objects, and any directory, the runner's progress directory included).
 * Prints, per runner and kill, in how many trials each check found nothing left.
 * Liveness reads /proc/<pid>/stat (a zombie has exited: pid 1 of a container may never reap it).
 * Run: npm run bench -- runner-kill   (KILL_TRIALS=5 for a quick look)
 */
import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeDeadRunLeftovers } from '../src/orchestrator/dead-runs';

const repoRoot = path.resolve(__dirname, '..');
const TRIALS = Number(process.env.KILL_TRIALS ?? 30);
const DEVICE_GRACE_MS = 2_000;
const START_TIMEOUT_MS = 90_000;

type Runner = 'jest' | 'run';
type Kill = 'alone' | 'group';

function command(runner: Runner): string[] {
  return runner === 'jest'
    ? [path.join(repoRoot, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', path.join(repoRoot, 'bench', 'kill-specs', 'jest.config.js')]
    : [path.join(repoRoot, 'bin', 'cann-harness.js'), 'run', '--mode', 'stub', '--specs', path.join(repoRoot, 'bench', 'kill-specs')];
}

function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'latin1');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Device processes of this trial (their CANN_HARNESS_DIR is under base) and the stub objects they map. */
function deviceProcesses(base: string): { pids: number[]; objects: Set<string> } {
  const pids: number[] = [];
  const objects = new Set<string>();
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const environ = readFileSync(`/proc/${entry}/environ`, 'latin1');
      if (!environ.includes(`CANN_HARNESS_DIR=${base}/`)) continue;
      pids.push(Number(entry));
      for (const m of readFileSync(`/proc/${entry}/maps`, 'latin1').matchAll(/\/dev\/shm\/(cannstub-[\w-]+)/g)) objects.add(m[1]);
    } catch {
      /* gone meanwhile */
    }
  }
  return { pids, objects };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
const present = (objects: Set<string>) => [...objects].filter((o) => existsSync(`/dev/shm/${o}`));
const dirsIn = (base: string) => readdirSync(base);

interface Trial {
  byDevices: { objects: number; dirs: number; live: number; ms: number };
  afterStart: { objects: number; dirs: number };
  /** What the start step removed (what was still there after the runner died). */
  removedByStart: number;
}

async function trial(runner: Runner, kill: Kill): Promise<Trial> {
  const base = mkdtempSync(path.join(os.tmpdir(), 'runner-kill-'));
  const child = spawn(process.execPath, command(runner), {
    cwd: repoRoot,
    detached: true, // its own process group, as a CI job's
    stdio: 'ignore',
    env: { ...process.env, CANN_HARNESS_TMPDIR: base, CANN_HARNESS_KEEP: '0' },
  });
  const runnerPid = child.pid!;
  child.on('error', () => undefined);
  try {
    // Both device processes up, each with the event's object mapped.
    const t0 = Date.now();
    let seen = deviceProcesses(base);
    while (!(seen.pids.length >= 2 && seen.objects.size > 0 && seen.pids.every((p) => deviceProcesses(base).pids.includes(p)) && mapsEveryone(seen.pids))) {
      if (Date.now() - t0 > START_TIMEOUT_MS || !alive(runnerPid)) throw new Error(`${runner}: the device processes never came up (or the runner ended)`);
      await sleep(50);
      seen = deviceProcesses(base);
    }
    const objects = seen.objects;
    const killedAt = Date.now();
    process.kill(kill === 'group' ? -runnerPid : runnerPid, 'SIGKILL');
    let clean = false;
    while (Date.now() - killedAt < DEVICE_GRACE_MS) {
      clean = seen.pids.every((p) => !alive(p)) && present(objects).length === 0 && scenarioDirs(base).length === 0;
      if (clean) break;
      await sleep(20);
    }
    const ms = Date.now() - killedAt;
    const byDevices = { objects: present(objects).length, dirs: scenarioDirs(base).length, live: seen.pids.filter(alive).length, ms };
    // The runner's own pid must be gone (or a zombie) before a start can judge its directories.
    while (alive(runnerPid)) await sleep(10);
    const removed = removeDeadRunLeftovers(() => undefined, { ...process.env, CANN_HARNESS_TMPDIR: base });
    const afterStart = { objects: present(objects).length, dirs: dirsIn(base).length };
    return { byDevices, afterStart, removedByStart: removed.dirs.length + removed.objects.filter((o) => objects.has(o)).length };
  } finally {
    try {
      process.kill(-runnerPid, 'SIGKILL');
    } catch {
      /* gone */
    }
    for (const p of deviceProcesses(base).pids) {
      try {
        process.kill(-p, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    rmSync(base, { recursive: true, force: true });
  }
}

/** Every one of pids maps a stub object (the consumer has opened the event too). */
function mapsEveryone(pids: number[]): boolean {
  return pids.every((p) => {
    try {
      return /\/dev\/shm\/cannstub-ev-/.test(readFileSync(`/proc/${p}/maps`, 'latin1'));
    } catch {
      return false;
    }
  });
}

/** Scenario directories (not the runner's progress directory, which only a start can remove). */
function scenarioDirs(base: string): string[] {
  return dirsIn(base).filter((n) => !/-progress-/.test(n));
}

async function main(): Promise<void> {
  console.log(`runner-kill: ${TRIALS} trial(s) per runner and kill; "clean" = 0 objects and 0 directories of the run left`);
  let bad = 0;
  for (const runner of ['jest', 'run'] as const) {
    for (const kill of ['alone', 'group'] as const) {
      let byDevices = 0;
      let afterStart = 0;
      let worstMs = 0;
      let removedByStart = 0;
      for (let i = 0; i < TRIALS; i++) {
        const t = await trial(runner, kill);
        if (t.byDevices.objects === 0 && t.byDevices.dirs === 0 && t.byDevices.live === 0) byDevices++;
        else console.log(`  ${runner}/${kill} trial ${i + 1}: after 2 s ${t.byDevices.objects} object(s), ${t.byDevices.dirs} scenario dir(s), ${t.byDevices.live} live device process(es)`);
        if (t.afterStart.objects === 0 && t.afterStart.dirs === 0) afterStart++;
        else console.log(`  ${runner}/${kill} trial ${i + 1}: after the next start ${t.afterStart.objects} object(s), ${t.afterStart.dirs} dir(s)`);
        worstMs = Math.max(worstMs, t.byDevices.ms);
        removedByStart += t.removedByStart;
      }
      bad += TRIALS - byDevices + (TRIALS - afterStart);
      console.log(
        `${(runner === 'jest' ? 'jest' : 'cann-harness run').padEnd(16)} kill ${kill.padEnd(5)}  clean within 2 s by the device processes: ${byDevices}/${TRIALS} (slowest ${worstMs} ms)  clean after the next start: ${afterStart}/${TRIALS} (it removed ${removedByStart} left item(s) in all)`,
      );
    }
  }
  process.exit(bad === 0 ? 0 : 1);
}

void main();
