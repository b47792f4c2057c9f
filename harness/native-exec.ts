/**
 * Runs one program to completion for Jest's collection, where nothing can be awaited (a native
 * scenario's `build:` command and its `precheck: { exec }`): started by src/jest/native-gate.ts with
 * spawnSync, it starts the program as the leader of its own process group, keeps its output,
 * enforces the deadline (SIGTERM to the group, SIGKILL after a grace), SIGKILLs the group when the
 * program ends (whatever it forked goes too), and prints one JSON line: NativeExecOutcome.
 *
 * argv[2]: JSON { program, args, cwd, timeoutMs }. The environment is the program's.
 */
import { spawn } from 'node:child_process';

interface Job {
  program: string;
  args: string[];
  cwd: string;
  timeoutMs: number;
}

const GRACE_MS = 2000;

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    /* the group is empty */
  }
}

function main(): void {
  const job = JSON.parse(process.argv[2] ?? '{}') as Job;
  const child = spawn(job.program, job.args, { cwd: job.cwd, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  const out: string[] = [];
  const err: string[] = [];
  child.stdout.on('data', (d: Buffer) => out.push(d.toString()));
  child.stderr.on('data', (d: Buffer) => err.push(d.toString()));
  let timedOut = false;
  let spawnError: string | undefined;
  const timer = setTimeout(() => {
    timedOut = true;
    if (child.pid) killGroup(child.pid, 'SIGTERM');
    setTimeout(() => child.pid && killGroup(child.pid, 'SIGKILL'), GRACE_MS).unref();
  }, job.timeoutMs);
  child.on('error', (e) => {
    spawnError = e.message;
  });
  child.on('close', (code, signal) => {
    clearTimeout(timer);
    if (child.pid) killGroup(child.pid, 'SIGKILL');
    process.stdout.write(`${JSON.stringify({ code, signal, timedOut, spawnError, stdout: out.join(''), stderr: err.join('') })}\n`);
  });
  // Our parent (a Jest worker) may be interrupted: take the program's group with us.
  for (const sig of ['SIGTERM', 'SIGINT', 'SIGHUP'] as const) {
    process.on(sig, () => {
      if (child.pid) killGroup(child.pid, 'SIGKILL');
      process.exit(1);
    });
  }
}

main();
