/**
 * Builds the RoleContext handed to a role body inside its device process. The ACL library is only
 * loaded when the role first touches `ctx.acl`, so roles that never use it never load koffi.
 */
import { existsSync } from 'node:fs';
import { format } from 'node:util';
import type { Acl, Explorer } from '../src/acl';
import { Rendezvous, type WaitingFor } from '../src/rendezvous';
import type { FromChild, Job } from '../src/wire/protocol';
import type { RoleContext } from '../src/wire/types';

export interface RoleContextHandle {
  ctx: RoleContext;
  /** Finalizes the ACL runtime if the role used it and did not finalize it itself. */
  cleanup(): void;
  /** Best effort, for signal handlers: like cleanup(), never throws. */
  cleanupQuietly(): void;
  /** Sends the role's pending wait report now (before it answers a stop or a hang request, or ends). */
  flushWaiting(): void;
}

export function createRoleContext(job: Job, send: (m: FromChild) => void): RoleContextHandle {
  let acl: Acl | undefined;
  let aclLoadError: unknown;

  let explorer: Explorer | null = null;
  const loadOnce = (): Acl => {
    if (acl) return acl;
    if (aclLoadError) throw aclLoadError; // a failed init is not retried (it would fail differently)
    try {
      // The stub creates ACL_STUB_TRACE (<dir>/trace) with mkdir -p on aclInit: a role that gets
      // here after its scenario directory was removed (the run is being torn down) would bring
      // the directory back, and nobody would remove it again.
      if (!existsSync(job.dir)) {
        throw new Error(`the scenario directory ${job.dir} was removed (the run is over); not starting the ACL runtime`);
      }
      // The one place a device process loads the binding (and with it koffi).
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { loadAcl, installExplorePoints } = require('../src/acl') as typeof import('../src/acl');
      const loaded = loadAcl({ mode: job.mode });
      loaded.init();
      acl = loaded;
      // The schedule explorer (ACL_STUB_EXPLORE, parsed by aclInit): this thread is the role's party "main".
      if (loaded.library.mode === 'stub') explorer = installExplorePoints(loaded.library.path, 'main');
      loaded.setDevice(job.device);
      return loaded;
    } catch (e) {
      aclLoadError = e;
      throw e;
    }
  };

  const reporter = waitReporter(send);
  const rendezvous = new Rendezvous(job.dir, job.role, reporter);

  const ctx: RoleContext = {
    get acl() {
      return loadOnce();
    },
    device: job.device,
    role: job.role,
    index: job.index,
    dir: job.dir,
    rendezvous,
    log: (...args: unknown[]) => {
      process.stdout.write(format(...args) + '\n');
    },
    mark: (name: string) => {
      if (typeof name !== 'string' || name === '') throw new TypeError('mark(name): name must be a non-empty string');
      send({ type: 'mark', name, tNs: process.hrtime.bigint().toString() });
    },
    roundsDone: (done: number, total: number) => send({ type: 'rounds', done, total }),
    reportWaitsAfter: (ms: number) => reporter.deferTo(ms),
    exploreDegraded: () => explorer?.degraded() ?? null,
  };

  const cleanup = () => {
    if (acl?.initialized) acl.finalize();
  };
  return {
    ctx,
    cleanup,
    flushWaiting: reporter.flush,
    cleanupQuietly: () => {
      try {
        cleanup();
      } catch {
        /* we are being stopped anyway */
      }
    },
  };
}

/**
 * What the role waits for, sent to the parent (hang and failure reports, live progress): only
 * changes, and the reports of one synchronous stretch of code as one, the last. The send runs in
 * a microtask, so before the role's code goes on after the call that made the report (and long
 * before it could block): `awaitSignals` of three names starts three waits and sends one message,
 * and a wait that ends with another still pending, the newest, sends none. A soak round made 13
 * such messages a round, 2 of the producer's CPU-ms, issue #35.
 *
 * With a delay (`deferTo`, soak rounds: RoleContext.reportWaitsAfter), a change is sent only once
 * it has stood that long: a wait that ends sooner sends nothing (the parent already knows the state
 * it returns to), which takes the 8 messages of a per-round-sharing round, and the orchestrator's
 * 8 wake-ups, to none. `flush()` sends what is pending at once, with the time it happened: before
 * the role answers a stop, a hang request or ends, so what the parent blames stays exact.
 */
export interface WaitReporterHandle {
  (waitingFor: WaitingFor | null): void;
  /** Sends the pending change now (no-op when there is none). */
  flush(): void;
  /** Sends later changes only once they have stood `ms` (0: in a microtask, the default). */
  deferTo(ms: number): void;
}

export function waitReporter(send: (m: FromChild) => void): WaitReporterHandle {
  let sent: WaitingFor | null = null;
  let latest: { waitingFor: WaitingFor | null; tNs: string } | undefined;
  let deferMs = 0;
  let timer: NodeJS.Timeout | undefined;
  let queued = false;
  const flush = () => {
    queued = false;
    if (timer !== undefined) clearTimeout(timer);
    timer = undefined;
    flushNow();
  };
  /** The timer's end: the latest change goes only once it has stood deferMs (a wait that began since waits on). */
  const ripe = () => {
    timer = undefined;
    const leftMs = latest === undefined ? 0 : deferMs - Number((process.hrtime.bigint() - BigInt(latest.tNs)) / 1_000_000n);
    if (leftMs > 0) timer = setTimeout(ripe, leftMs).unref();
    else flushNow();
  };
  const flushNow = () => {
    const now = latest;
    latest = undefined;
    if (now === undefined || now.waitingFor === sent) return;
    sent = now.waitingFor;
    send({ type: 'waiting', waitingFor: now.waitingFor, tNs: now.tNs });
  };
  const report = ((waitingFor) => {
    latest = { waitingFor, tNs: process.hrtime.bigint().toString() };
    if (deferMs === 0) {
      if (!queued) queueMicrotask(flush);
      queued = true;
    } else if (waitingFor === sent) {
      // Back to what the parent knows before the delay ran out: nothing to say.
      latest = undefined;
      if (timer !== undefined) clearTimeout(timer);
      timer = undefined;
    } else if (timer === undefined) {
      timer = setTimeout(ripe, deferMs).unref(); // a pending wait keeps the process alive, not this
    }
  }) as WaitReporterHandle;
  report.flush = flush;
  report.deferTo = (ms) => {
    flush();
    deferMs = ms;
  };
  return report;
}
