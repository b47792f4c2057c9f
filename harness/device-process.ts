/**
 * Entry point of one device process (forked by src/orchestrator). Receives its job over IPC, loads
 * the role module, runs the exported role body with a RoleContext, reports the result, exits.
 * Exit code 0 when the role passed, 1 when it failed (the reported error says why).
 */
import { watchParent } from './parent-watch'; // first: guard against orphaning as early as possible
import { toRoleError } from '../src/orchestrator/role-error';
import type { FromChild, Job, ToChild } from '../src/orchestrator/protocol';
import type { RoleBody } from '../src/orchestrator/types';
import { createRoleContext, type RoleContextHandle } from './role-context';

type Outcome = Extract<FromChild, { type: 'result' }>;

function send(m: FromChild, then?: () => void): void {
  if (!process.connected) return then?.();
  process.send!(m, undefined, {}, () => then?.());
}

let finished = false;
let handle: RoleContextHandle | undefined;

function finish(outcome: Outcome): void {
  if (finished) return;
  finished = true;
  if (handle) {
    try {
      handle.cleanup();
    } catch (e) {
      if (outcome.ok) outcome = { type: 'result', ok: false, error: toRoleError(e, 'cleanup after the role (aclFinalize)') };
    }
  }
  send(outcome, () => process.exit(outcome.ok ? 0 : 1));
}

function jsonSafe(value: unknown): unknown {
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

function describeExports(mod: Record<string, unknown>): string {
  const fns = Object.keys(mod).filter((k) => typeof mod[k] === 'function');
  return fns.length ? `exported functions: ${fns.join(', ')}` : 'it exports no functions';
}

async function runJob(job: Job): Promise<void> {
  if (!process.connected) return; // the parent died before we started: 'disconnect' takes us down
  handle = createRoleContext(job, (m) => send(m));
  let body: RoleBody;
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    const mod = require(job.entry.module) as Record<string, unknown>;
    const fn = mod[job.entry.export];
    if (typeof fn !== 'function') {
      throw new Error(`role module ${job.entry.module} has no exported function "${job.entry.export}" (${describeExports(mod)})`);
    }
    body = fn as RoleBody;
  } catch (e) {
    return finish({ type: 'result', ok: false, error: toRoleError(e, `loading role "${job.role}"`) });
  }
  let value: unknown;
  try {
    value = await body(handle.ctx, job.entry.args);
  } catch (e) {
    return finish({ type: 'result', ok: false, error: toRoleError(e) });
  }
  try {
    value = jsonSafe(value);
  } catch (e) {
    return finish({
      type: 'result',
      ok: false,
      error: toRoleError(e, `role "${job.role}" returned a value that cannot be sent as JSON`),
    });
  }
  finish({ type: 'result', ok: true, value });
}

watchParent();

// A stray rejection or exception after the body started is the role's failure, not a silent crash.
process.on('uncaughtException', (e) => finish({ type: 'result', ok: false, error: toRoleError(e, 'uncaught exception') }));
process.on('unhandledRejection', (e) => finish({ type: 'result', ok: false, error: toRoleError(e, 'unhandled promise rejection') }));

// Being stopped (deadline, another role failed): release the runtime if we can, then die by the
// same signal so the parent sees what happened.
process.once('SIGTERM', () => {
  handle?.cleanupQuietly();
  process.kill(process.pid, 'SIGTERM');
});

process.once('message', (m: ToChild) => {
  if (!m || m.type !== 'job') {
    process.stderr.write(`device-process: expected a job message, got ${JSON.stringify(m)}\n`);
    process.exit(2);
  }
  void runJob(m.job);
});
