/**
 * Worker threads of a role in soak rounds (README "Soak rounds"), main-thread side. The piscina
 * pool and its k threads start once per run, and each thread runs one task for the whole run
 * (round-loop.ts): ACL, device, spec, its stream and its threadSetup once, then every round
 * the main thread opens through the gate (gate.ts). A round of the role ends when its run
 * body (../rounds.ts) and all k thread bodies ended.
 * A thread that fails writes its error into the gate and breaks the round barrier itself, so the
 * other roles stop at once; the main thread reads the error from the gate (never waiting for a
 * message) and fails the role with it, blamed at the time the thread failed.
 */
import type { PlannedRole, ScenarioMark } from '../../../src/scenario/types';
import { reviveError } from '../../../src/wire/wire-error';
import { assertSendable } from '../../../src/wire/json-value';
import { noteRoleFailure } from '../../failure-time';
import { MAIN_THREAD, ThreadGate, type GateFailure } from './gate';
import { firstThreadFailure, rebuildError, startThreadPool, threadTask, type ThreadOutcome, type ThreadTask } from './pool';

/** How long a stopping run waits for its threads to leave, then for the pool to end them. */
const LEAVE_BOUND_MS = 2000;

const WHAT = Symbol('thread round failure: what failed');

/** "thread 1's body" for a worker thread's failure thrown again in the main thread (../rounds.ts names it in the report). */
export function threadFailureWhat(e: unknown): string | undefined {
  return typeof e === 'object' && e !== null ? (e as { [WHAT]?: string })[WHAT] : undefined;
}

export type RoundThreadsOptions = Omit<ThreadTask, 'thread' | 'callRecords' | 'gate'>;

export class RoundThreads {
  readonly #gate: ThreadGate;
  readonly #role: PlannedRole<any>;
  readonly #pool: import('piscina').Piscina;
  readonly #tasks: Promise<ThreadOutcome>[];
  /** Rejects when a thread's task ends before stop(): its worker died, or it failed. */
  readonly #endedEarly: Promise<never>;
  #stopping = false;
  #closed = false;
  #failure: Error | undefined;

  /** Starts the pool and its k threads; each loads ACL and the spec, then runs its threadSetup. */
  constructor(opts: RoundThreadsOptions, role: PlannedRole<any>) {
    this.#role = role;
    this.#gate = ThreadGate.create(role.name);
    // The setup phase: `setup` and every threadSetup meet at ctx.barrier().
    this.#gate.setParties((role.setup ? 1 : 0) + (role.threadSetup ? opts.threads : 0));
    this.#pool = startThreadPool(opts.threads);
    const task = (thread: number): ThreadTask => ({ ...threadTask(opts, thread), gate: this.#gate.buffer });
    this.#tasks = Array.from({ length: opts.threads }, (_, thread) => this.#pool.run(task(thread)) as Promise<ThreadOutcome>);
    this.#endedEarly = new Promise<never>((_, reject) => {
      this.#tasks.forEach((p, thread) =>
        p.then(
          (outcome) => {
            if (!this.#stopping) reject(outcome.ok ? new Error(`worker thread ${thread} of role ${role.name} ended before the run did`) : rebuildError(thread, outcome));
          },
          (e) => {
            if (!this.#stopping) reject(new Error(`worker thread ${thread} of role ${role.name} died: ${(e as Error)?.message ?? String(e)}`));
          },
        ),
      );
    });
    this.#endedEarly.catch(() => undefined); // observed by the waits below
  }

  /** Resolves when every thread finished its threadSetup (the role's `setup` runs meanwhile). */
  async setupsDone(timeoutMs: number): Promise<void> {
    await this.#completions(this.#threads, 'setup: the worker threads', timeoutMs);
    // The rounds: the run body (if any) and every thread body meet at ctx.barrier().
    this.#gate.setParties((this.#role.run ? 1 : 0) + this.#threads);
  }

  /** Opens `round` for the threads; resolves when all of them ended it. */
  async runRound(round: number, timeoutMs: number): Promise<void> {
    this.#gate.openRound(round);
    await this.#completions(this.#threads * (round + 1), `round ${round} end`, timeoutMs);
  }

  /** ctx.barrier() of the main thread's body: meets the threads, and with them the other roles (`others`). */
  meet(what: string, timeoutMs: number, others: () => void): void {
    try {
      this.#gate.meet(what, timeoutMs, others);
    } catch (e) {
      throw this.#blame(e);
    }
  }

  /** After the last round: the threads leave; their last round's values and marks. */
  async stop(timeoutMs: number): Promise<{ values: unknown[]; marks: ScenarioMark[] }> {
    this.#stopping = true;
    this.#gate.stop();
    const outcomes = await bounded(Promise.all(this.#tasks), timeoutMs, `the worker threads of role ${this.#role.name} did not end within ${timeoutMs} ms of the last round`);
    const failure = firstThreadFailure(outcomes);
    if (failure) throw failure;
    const values = outcomes.map((o) => (o.ok ? o.value : undefined));
    values.forEach((value, thread) => assertSendable(value, `the value returned by thread ${thread} of role ${this.#role.name} (last round)`));
    return { values, marks: outcomes.flatMap((o) => o.marks) };
  }

  /**
   * Always, at the end (../rounds.ts's finally): after a failure, breaks the gate so that every thread
   * stops; waits (bounded) for the threads to release what they made, then ends the pool.
   */
  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    const failed = !this.#stopping;
    if (failed) {
      this.#stopping = true;
      this.#gate.fail(MAIN_THREAD, 'round', { message: 'the main thread of the role stopped the run' });
    }
    // Their own clean-up (events, streams, the barrier mapping) runs in each thread as it leaves.
    const left = this.#tasks.map(() => false);
    this.#tasks.forEach((p, t) => p.finally(() => (left[t] = true)).catch(() => undefined));
    await bounded(Promise.allSettled(this.#tasks), LEAVE_BOUND_MS, '').catch(() => undefined);
    const stuck = left.flatMap((done, t) => (done ? [] : [t]));
    if (stuck.length > 0) {
      process.stderr.write(
        `[harness] role ${this.#role.name}: worker thread ${stuck.join(', ')} still running ${LEAVE_BOUND_MS} ms after the run stopped ` +
          '(in an await or a native call); ended with the process\n',
      );
    }
    // Ending the workers takes about 0.1 s: after a failure the role reports first (the process
    // exit ends them anyway); a thread still blocked in a native call ends only when it returns.
    const ended = this.#pool.destroy().catch(() => undefined);
    if (!failed) await bounded(ended, LEAVE_BOUND_MS, '').catch(() => undefined);
  }

  get #threads(): number {
    return this.#role.threads;
  }

  async #completions(count: number, what: string, timeoutMs: number): Promise<void> {
    try {
      await this.#gate.waitForCompletions(count, what, timeoutMs, this.#endedEarly);
    } catch (e) {
      const blamed = this.#blame(e);
      if (blamed === e && e instanceof Error) Object.assign(e, { [WHAT]: 'the worker threads' });
      throw blamed;
    }
  }

  /** A thread's failure recorded in the gate wins over how the main thread noticed it. */
  #blame(e: unknown): unknown {
    const failure = this.#gate.failure();
    if (!failure || failure.who === MAIN_THREAD) return e;
    this.#failure ??= this.#threadError(failure);
    return this.#failure;
  }

  #threadError(f: GateFailure): Error {
    noteRoleFailure(f.atNs); // when the thread failed (and broke the round barrier), not now
    const thread = f.who - 2;
    const where = f.failedIn === 'round' ? `thread ${thread}'s body` : f.failedIn === 'setup' ? `thread ${thread}'s threadSetup` : `thread ${thread} (loading ACL and the spec)`;
    const e = reviveError(f.error, where);
    if (f.failedIn === 'round') {
      // The round's report names the thread: "round 7 failed (thread 1's body): <its message>".
      e.message = f.error.message;
      if (f.error.stack) e.stack = f.error.stack;
      Object.assign(e, { [WHAT]: where });
    }
    return e;
  }
}

function bounded<T>(p: Promise<T>, ms: number, message: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => (timer = setTimeout(() => reject(new Error(message)), ms)));
  return Promise.race([p, timeout]).finally(() => clearTimeout(timer));
}
