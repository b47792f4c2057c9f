/**
 * A native role blocked in an ACL call is named, with its call, in the timeout report's wait-for
 * graph. The C program runs as the harness runs a native role (contract: its own process group,
 * LD_PRELOAD=libcannharness_preload.so, CANN_HARNESS_NATIVE_WATCH=1, CANN_HARNESS_PARENT_PID = its
 * parent, ACL_STUB_TRACE in the scenario directory); the program itself knows nothing of the
 * harness: the preload records its ACL calls and starts the watchdog that answers the hang request.
 */
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runRoles, type RunEvent } from '../../src/orchestrator';
import { collectWaitGraph } from '../../src/orchestrator/hang-report';
import type { RoleProcess } from '../../src/orchestrator/role-process';
import { leakedShmOf, shmObjectsOfRun, waitUntil } from '../support/leftovers';
import { threadAsleep, whenAsleep } from '../support/stuck';
import { killNativeRole, nativeRoleProgram, preloadLibrary, requireBuilt, startNativeRole, type NativeRun } from './native-role-program';

// The cases run at the same time: each has its own directory and program.
const runs: { dir: string; run?: NativeRun }[] = [];
beforeAll(requireBuilt);
afterAll(async () => {
  for (const r of runs) {
    if (r.run) await killNativeRole(r.run);
    rmSync(r.dir, { recursive: true, force: true });
  }
});

function newDir(): string {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'native-hang-'));
  mkdirSync(path.join(dir, 'trace'));
  runs.push({ dir });
  return dir;
}

/** What collectWaitGraph reads of a role: a running native role has no event loop to answer. */
function runningRole(name: string, pid: number): RoleProcess {
  return { name, pid, alive: true, currentWait: null, diagnosticReport: null, finalStatus: undefined } as unknown as RoleProcess;
}

function startBlocked(dir: string, env: Record<string, string>): NativeRun {
  const run = startNativeRole(dir, ['block-in-sync'], {
    CANN_HARNESS_ROLE: 'consumer',
    CANN_HARNESS_DEVICE: '0',
    ACL_STUB_TRACE: path.join(dir, 'trace'),
    CANN_HARNESS_KEEP: '1',
    ...env,
  });
  runs.find((r) => r.dir === dir)!.run = run;
  return run;
}

test.concurrent('the wait-for graph names the native role and the ACL call it is blocked in, from the preloaded watchdog', async () => {
  const dir = newDir();
  const run = startBlocked(dir, { LD_PRELOAD: preloadLibrary, CANN_HARNESS_NATIVE_WATCH: '1', CANN_HARNESS_PARENT_PID: String(process.pid) });
  expect(await waitUntil(() => run.stdout().includes('blocking'), 10_000)).toBe(true);
  // "blocking" is printed just before the call: ask again until the answer was taken inside it.
  let graph = await collectWaitGraph([runningRole('consumer', run.pid)], dir);
  for (const giveUp = Date.now() + 10_000; !graph.calls.consumer && Date.now() < giveUp; ) {
    graph = await collectWaitGraph([runningRole('consumer', run.pid)], dir);
  }
  expect(graph.calls.consumer?.name).toBe('aclrtSynchronizeStream');
  expect(graph.calls.consumer?.args).toMatch(/^stream=0x5a1[0-9a-f]+$/);
  const text = graph.lines.join('\n');
  expect(text).toMatch(/consumer \(aclrtSynchronizeStream stream=0x5a1[0-9a-f]+, for \d/);
  // the stub's live view of the program's streams came through the watchdog too: the held stream's head
  expect(graph.sources.consumer).toBe('live');
  expect(text).toMatch(/host function/);
  expect(readdirSync(path.join(dir, 'hang'))).toContain(`consumer.${run.pid}.json`);
  expect(run.stderr()).toBe('');
});

test.concurrent('without the preload the same program gives no answer: the graph says so instead of naming a call', async () => {
  const dir = newDir();
  const run = startBlocked(dir, {});
  expect(await waitUntil(() => run.stdout().includes('blocking'), 10_000)).toBe(true);
  const graph = await collectWaitGraph([runningRole('consumer', run.pid)], dir);
  expect(graph.calls.consumer).toBeUndefined();
  expect(graph.lines.join('\n')).not.toContain('aclrtSynchronizeStream');
});

test.concurrent('end to end: a native role that hangs in an ACL call is named with that call in the timeout report of the run', async () => {
  // The deadline comes once the program's main thread sleeps after it queued its host function
  // (the stub traces it): then it is in its synchronize. A fixed deadline raced its start-up.
  const expire = new AbortController();
  let ended = false;
  const onEvent = (e: RunEvent) => {
    if (e.type !== 'started') return;
    const trace = path.join(e.dir, 'trace', `trace-${e.pid}.jsonl`);
    const queued = () => existsSync(trace) && readFileSync(trace, 'utf8').split('\n').some((l) => l.includes('"op":"submit"') && l.includes('"kind":"host_func"'));
    whenAsleep(() => queued() && threadAsleep(e.pid), () => ended, () => expire.abort());
  };
  const result = await runRoles({
    roles: [{ name: 'consumer', device: 0, native: { program: nativeRoleProgram, args: ['block-in-sync'] } }],
    timeoutMs: 60_000,
    expireOn: expire.signal,
    onEvent,
    mode: 'stub',
    collectTraces: true,
    keepDir: false,
  }).finally(() => (ended = true));
  try {
    expect(result.timedOut).toBe(true);
    expect(result.waitGraph?.calls.consumer?.name).toBe('aclrtSynchronizeStream');
    expect(result.summary).toMatch(/consumer \(aclrtSynchronizeStream stream=0x5a1[0-9a-f]+, for \d/);
    // the stub objects it made are reclaimed; a failed run keeps its directory for the post-mortem
    const shm = shmObjectsOfRun(result.traces);
    expect(await waitUntil(() => leakedShmOf(shm).length === 0, 10_000)).toBe(true);
    expect(result.kept).toBe(true);
  } finally {
    rmSync(result.dir, { recursive: true, force: true }); // also when an expectation failed
  }
}, 120_000);
