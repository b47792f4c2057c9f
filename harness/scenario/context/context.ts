/**
 * Builds the ScenarioContext a role body (or worker thread body) receives, on top of the
 * orchestrator's RoleContext. Everything it creates is tracked and released when the body ends,
 * so specs carry no clean-up code.
 */
import type { AclContext, Event, IpcEventHandle as IpcEventHandleT, Latch, Stream } from '../../../src/acl';
import type { RoleBasics } from './role-basics';
import { createDataContext } from './data-context';
import { timeLeftMs as timeLeftOf, waitBoundMs } from './deadline';
import { quietly } from './quietly';
import type { AwaitOptions, PlannedRole, ScenarioContext, ScenarioPlan, ThreadContext } from '../../../src/scenario/types';

export type { RoleBasics } from './role-basics';

/** A context made for one body (`ctx`) with what ends it: drain its streams, then release what it created. */
export interface ContextWithCleanup<C> {
  ctx: C;
  /**
   * The end of a body that returned: releases its latches and lets each of its streams run what
   * is queued, up to boundMs in all. Returns the streams that did not drain in time (they are left
   * undestroyed: what they still hold is dropped when the device process exits, and the report
   * names it from the stub's trace).
   */
  drain?(boundMs: number): string[];
  /**
   * Releases latches, destroys events then the streams created through ctx that have run what was
   * queued (aclrtDestroyStream waits for queued work, as on CANN). Never throws.
   */
  cleanup(): void;
}

/** What a context in a soak round knows (harness/scenario/rounds.ts); without rounds: round 1 of 1. */
export interface RoundPart {
  round: number;
  rounds: number;
  setup: unknown;
  barrier(): void;
  /** The role's stream that lives for the whole run (ctx.stream in every round). */
  stream?: () => Stream;
}

const NO_ROUNDS: RoundPart = {
  round: 1,
  rounds: 1,
  setup: undefined,
  barrier() {
    throw new Error('ctx.barrier() needs a scenario run with rounds: declare rounds: N (or run with --rounds N)');
  },
};

type AclModule = typeof import('../../../src/acl');
let aclLoaded: AclModule | undefined;
/**
 * src/acl, loaded on first use so that importing this module never loads koffi; kept, because the
 * bundle's require() of an ES module copies every export into a new object at each call (a soak
 * round's consumer spent 9 % of its CPU there).
 */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const aclModule = (): AclModule => (aclLoaded ??= require('../../../src/acl') as AclModule);

export function createScenarioContext(
  base: RoleBasics,
  plan: ScenarioPlan<any>,
  role: PlannedRole<any>,
  deadlineMs: number,
  rounds: RoundPart = NO_ROUNDS,
): ContextWithCleanup<ScenarioContext<any>> {
  const latches: Latch[] = [];
  const events: Event[] = [];
  const streams: Stream[] = [];
  let ownStream: Stream | undefined;
  // The context ctx.stream was made in. As on CANN, a stream is destroyed (and takes host functions)
  // only in its own context: a body that switched devices or contexts gets 107003 for that, and the
  // clean-up makes this context current again before it destroys what ctx made.
  let home: AclContext | undefined;
  const goHome = () => {
    if (home && !home.destroyed) quietly(() => base.acl.setCurrentContext(home!));
  };

  const timeLeftMs = () => timeLeftOf(deadlineMs);
  // A wait without its own timeout outlasts the deadline by a margin (deadline.ts).
  const timeoutOf = (opts?: { timeoutMs?: number }) => opts?.timeoutMs ?? waitBoundMs(deadlineMs);
  const data = createDataContext(base, plan, role, timeoutOf);

  const ctx: ScenarioContext<any> = {
    get acl() {
      return base.acl;
    },
    device: base.device,
    role: base.role,
    group: role.group,
    index: base.index,
    dir: base.dir,
    scenario: plan.name,
    params: plan.params,
    roles: plan.roles.map(({ name, group, device, index, threads }) => ({ name, group, device, index, threads })),
    rendezvous: base.rendezvous,
    log: (...args) => base.log(...args),
    mark: (name) => base.mark(name),

    get stream() {
      if (rounds.stream) return rounds.stream();
      if (!ownStream || ownStream.destroyed) {
        home ??= base.acl.currentContext();
        ownStream = base.acl.createStream();
        streams.push(ownStream);
      }
      return ownStream;
    },
    timeLeftMs,
    rolesIn: (group) => ctx.roles.filter((r) => r.group === group),
    createIpcEvent() {
      const ev = base.acl.createIpcEvent();
      events.push(ev);
      return ev;
    },
    async shareEvent(name, event) {
      const handle = event.ipcHandle();
      await base.rendezvous.publish(name, handle.toBuffer());
      return handle;
    },
    async openSharedEvent(name, opts?: AwaitOptions) {
      const bytes = await base.rendezvous.await(name, { timeoutMs: timeoutOf(opts), from: opts?.from });
      let handle: IpcEventHandleT;
      try {
        handle = aclModule().IpcEventHandle.fromBuffer(bytes);
      } catch (e) {
        throw new Error(
          `${base.role}: "${name}"${opts?.from ? ` from role ${opts.from}` : ''} is not an IPC event handle (${(e as Error).message}); ` +
            'publish handles with ctx.shareEvent(name, event), and plain data under another name',
          { cause: e },
        );
      }
      const ev = base.acl.openIpcEvent(handle);
      events.push(ev);
      return ev;
    },
    latch(stream) {
      const latch = (stream ?? ctx.stream).latch();
      latches.push(latch);
      return latch;
    },
    assertBlocked(stream, ms = 100) {
      const s = stream ?? ctx.stream;
      const { attempt, AclErrorCode } = aclModule();
      // A synchronize that times out is no proof by itself: on a loaded machine the stream's
      // executor may not have run yet, and a wait that would be a no-op (the wait-noop mutant) is
      // then still queued. Where the library can tell (the stub), the stream is blocked only once
      // its executor sleeps in a wait (or runs a host function: a latch); until then, look again.
      for (let waitedMs = ms; ; waitedMs += ms) {
        const r = attempt(() => s.synchronize(ms));
        if (r.ok) {
          throw new Error(
            `${base.role}: expected the stream to still be blocked, but it drained within ${waitedMs} ms: ` +
              'the wait did not capture a pending record (it behaved as a no-op)',
          );
        }
        if (r.code !== AclErrorCode.ACL_ERROR_RT_STREAM_SYNC_TIMEOUT) throw r.error;
        if (s.executorState() !== 'other') return;
      }
    },
    signal: (name) => base.rendezvous.signal(name),
    awaitSignal: (name, opts) => base.rendezvous.awaitSignal(name, { timeoutMs: timeoutOf(opts), from: opts?.from }),
    async awaitSignals(names, opts) {
      await Promise.all(names.map((n) => base.rendezvous.awaitSignal(n, { timeoutMs: timeoutOf(opts) })));
    },
    sleep: (ms) => new Promise((resolve) => setTimeout(resolve, ms)),
    round: rounds.round,
    rounds: rounds.rounds,
    setup: rounds.setup,
    barrier: () => rounds.barrier(),
    ...data.members,
  };

  const cleanup = () => {
    // Latches first: a destroyed stream or event must not leave a runtime thread blocked.
    for (const l of latches) quietly(() => l.released || l.release());
    goHome();
    data.cleanup();
    for (const e of events.reverse()) quietly(() => e.destroyed || e.destroy());
    // aclrtDestroyStream waits for the stream's queued tasks (CANN stream.cc:1475): a stream still
    // holding work (a wait whose record never comes) would never return. Those stay undestroyed;
    // the process's exit drops their work.
    for (const s of streams.reverse()) quietly(() => s.destroyed || !isIdle(s) || s.destroy());
  };
  const drained = new Set<Stream>();
  const isIdle = (s: Stream) => drained.has(s) || aclModule().attempt(() => s.synchronize(1)).ok;
  const drain = (boundMs: number): string[] => {
    for (const l of latches) quietly(() => l.released || l.release());
    goHome(); // synchronize needs a current context (any one): the body may have destroyed its own
    const end = Date.now() + boundMs;
    const undrained: string[] = [];
    for (const s of streams) {
      if (s.destroyed) continue;
      const r = aclModule().attempt(() => s.synchronize(Math.max(1, end - Date.now())));
      if (!r.ok) undrained.push(`a stream on device ${s.device} (${r.name})`);
      else drained.add(s);
    }
    return undrained;
  };
  return { ctx, drain, cleanup };
}

export function createThreadContext(
  base: RoleBasics,
  plan: ScenarioPlan<any>,
  role: PlannedRole<any>,
  deadlineMs: number,
  thread: number,
  rounds?: RoundPart,
): ContextWithCleanup<ThreadContext<any>> {
  const owned = createScenarioContext(base, plan, role, deadlineMs, rounds);
  // Keep the getters (acl, stream): copy property descriptors rather than values.
  const ctx = Object.defineProperties(
    { thread, threads: role.threads },
    Object.getOwnPropertyDescriptors(owned.ctx),
  ) as ThreadContext<any>;
  return { ctx, drain: owned.drain, cleanup: owned.cleanup };
}
