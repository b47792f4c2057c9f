/**
 * Builds the RoleContext handed to a role body inside its device process. The ACL library is only
 * loaded when the role first touches `ctx.acl`, so roles that never use it never load koffi.
 */
import { existsSync } from 'node:fs';
import { format } from 'node:util';
import type { Acl } from '../src/acl';
import { Rendezvous } from '../src/rendezvous';
import type { FromChild, Job } from '../src/wire/protocol';
import type { RoleContext } from '../src/wire/types';

export interface RoleContextHandle {
  ctx: RoleContext;
  /** Finalizes the ACL runtime if the role used it and did not finalize it itself. */
  cleanup(): void;
  /** Best effort, for signal handlers: like cleanup(), never throws. */
  cleanupQuietly(): void;
}

export function createRoleContext(job: Job, send: (m: FromChild) => void): RoleContextHandle {
  let acl: Acl | undefined;
  let aclLoadError: unknown;

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
      const { loadAcl } = require('../src/acl') as typeof import('../src/acl');
      const loaded = loadAcl({ mode: job.mode });
      loaded.init();
      acl = loaded;
      loaded.setDevice(job.device);
      return loaded;
    } catch (e) {
      aclLoadError = e;
      throw e;
    }
  };

  const rendezvous = new Rendezvous(job.dir, job.role, (waitingFor) =>
    send({ type: 'waiting', waitingFor, tNs: process.hrtime.bigint().toString() }),
  );

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
  };

  const cleanup = () => {
    if (acl?.initialized) acl.finalize();
  };
  return {
    ctx,
    cleanup,
    cleanupQuietly: () => {
      try {
        cleanup();
      } catch {
        /* we are being stopped anyway */
      }
    },
  };
}
