/**
 * Entry point of one device process (started by src/orchestrator). Reads its job from the message
 * pipe, loads the role module, runs the exported role body with a RoleContext, reports the result,
 * exits. Exit code 0 when the role passed, 1 when it failed (the reported error says why), 2 when
 * it got no job.
 *
 * Order at the end: clean up (aclFinalize), flush stdout/stderr (bounded), write the result, exit.
 * The parent decides the role's status only once all of that is in (its 'close' event), so neither
 * the result nor the last lines of output can be lost to process.exit().
 */
import { watchParent } from './parent-watch'; // first: guard against orphaning as early as possible
import { toRoleError } from '../src/wire/wire-error';
import { roleFailureError, roleFailureTime } from './failure-time';
import { assertSendable } from '../src/wire/json-value';
import type { FromChild, Job } from '../src/wire/protocol';
import type { RoleBody } from '../src/wire/types';
import { createRoleContext, type RoleContextHandle } from './role-context';
import { watchHangRequests } from './hang-watch';
import { readJob, sendToParent } from './parent-pipe';

type Outcome = Extract<FromChild, { type: 'result' }>;

/** How long a finishing role waits for its parent to read what it wrote to stdout/stderr. */
const FLUSH_BOUND_MS = 10_000;
/** Without a job, how long to leave the parent watch (50 ms and 200 ms polls) to find the orphan. */
const NO_JOB_EXIT_MS = 3_000;

let finished = false;
/** The result once decided, until it is sent: a stop (SIGTERM) must not swallow it. */
let unsent: Outcome | undefined;
let handle: RoleContextHandle | undefined;

function now(): string {
  return process.hrtime.bigint().toString(); // CLOCK_MONOTONIC, like marks: comparable across processes
}

/** Resolves with the bytes still unwritten once `stream` has flushed everything, or after boundMs. */
function flushed(stream: NodeJS.WriteStream, boundMs: number): Promise<number> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(stream.writableLength), boundMs);
    // Writes complete in order: the callback of an empty write runs once all earlier ones are out.
    stream.write('', () => {
      clearTimeout(timer);
      resolve(0);
    });
  });
}

function finish(outcome: Outcome): void {
  if (finished) return;
  finished = true;
  // The moment of failure, before clean-up: the parent blames the earliest failure of a run by it.
  // A scenario role noted it where it was caught, before its own clean-up (failure-time.ts).
  if (!outcome.ok) outcome.error.tNs ??= roleFailureTime() ?? now();
  handle?.flushWaiting(); // a wait report held back (soak rounds) goes before the result
  unsent = outcome;
  if (handle) {
    try {
      handle.cleanup();
    } catch (e) {
      if (outcome.ok) outcome = { type: 'result', ok: false, error: { ...toRoleError(e, 'cleanup after the role (aclFinalize)'), tNs: now() } };
      unsent = outcome;
    }
  }
  void Promise.all([flushed(process.stdout, FLUSH_BOUND_MS), flushed(process.stderr, FLUSH_BOUND_MS)]).then(([stdout, stderr]) => {
    if (stdout || stderr) outcome.unflushed = { stdout, stderr };
    sendToParent(outcome);
    unsent = undefined;
    process.exit(outcome.ok ? 0 : 1);
  });
}

function jsonSafe(value: unknown): unknown {
  assertSendable(value, 'the value');
  const text = JSON.stringify(value);
  return text === undefined ? undefined : JSON.parse(text);
}

function describeExports(mod: Record<string, unknown>): string {
  const fns = Object.keys(mod).filter((k) => typeof mod[k] === 'function');
  return fns.length ? `exported functions: ${fns.join(', ')}` : 'it exports no functions';
}

async function runJob(job: Job): Promise<void> {
  handle = createRoleContext(job, (m: FromChild) => sendToParent(m));
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
// same signal so the parent sees what happened. A result decided before the stop (e.g. the body
// threw and aclFinalize was still running when SIGTERM came) is sent first: the parent compares
// its time with the stop and keeps it as this role's own failure when it came first.
process.once('SIGTERM', () => {
  handle?.flushWaiting(); // what we were waiting for when stopped, with its time (soak rounds hold it back)
  // A failure whose clean-up was still running (e.g. rounds stopping worker threads) is the result.
  const failed = roleFailureError();
  if (!finished && !unsent && failed !== undefined) unsent = { type: 'result', ok: false, error: { ...toRoleError(failed), tNs: roleFailureTime() ?? now() } };
  handle?.cleanupQuietly();
  const die = () => process.kill(process.pid, 'SIGTERM');
  if (!unsent) return die();
  const [stdout, stderr] = [process.stdout.writableLength, process.stderr.writableLength];
  if (stdout || stderr) unsent.unflushed = { stdout, stderr }; // dying now: say what will be cut off
  sendToParent(unsent);
  die();
});

let job: Job | null;
try {
  job = readJob();
} catch (e) {
  process.stderr.write(`device-process: ${(e as Error).message}\n`);
  process.exit(2);
}
if (job === null) {
  // The pipe ended before a whole job: the parent died, perhaps while writing a large one. The
  // parent watch sees the orphan within its poll, removes the scenario directory (nobody else will)
  // and kills our group; exiting here at once would leave the directory behind. Exit 2 only if the
  // parent somehow lives on.
  setTimeout(() => process.exit(2), NO_JOB_EXIT_MS);
} else {
  // A hang report asks for a Node diagnostic report; only a free event loop gets to answer.
  watchHangRequests(job, (reply) => {
    handle?.flushWaiting(); // the wait graph is drawn from the waits the parent knows
    sendToParent(reply);
  });
  // Until finish() exits: a body that awaits something no handle backs (a promise that never
  // settles) must leave a running process, reported at the deadline as idle, not one that exits 0.
  setInterval(() => undefined, 2 ** 30);
  // Next turn of the loop, not now: the rest of the process's main module (in the compiled package,
  // the bundle seeding require.cache, see device-bundle.ts) must run before the role's spec loads.
  setImmediate(() => void runJob(job!));
}
