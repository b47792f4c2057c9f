/**
 * A TypeScript role: the device process (harness/device-process.ts) runs the role's body. It is
 * sent its job on the message pipe and reports its result itself: no verdict of its own here.
 */
import type { ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { DEVICE_PROCESS_SCRIPT, OWN_EXTENSION } from '../paths';
import type { Mode } from '../env';
import type { Job, ToChild } from '../wire/protocol';
import { startInOwnGroup } from './process-host';
import type { RoleKind, StartedRole, Verdict } from './role-kind';
import type { RoleSpec } from './types';

export class TypeScriptRole implements RoleKind {
  readonly eventLoop = true;
  readonly forksOutsideHarness = false;

  constructor(
    private readonly spec: RoleSpec,
    private readonly where: { index: number; dir: string; mode: Mode },
  ) {}

  spawn(env: NodeJS.ProcessEnv): ChildProcess {
    return startInOwnGroup(DEVICE_PROCESS_SCRIPT, env);
  }

  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return base;
  }

  afterStart(role: StartedRole): void {
    const { spec } = this;
    const { index, dir, mode } = this.where;
    const job: Job = { role: spec.name, device: spec.device, index, dir, mode, entry: spec.entry! };
    role.send({ type: 'job', job } satisfies ToChild, (err) => {
      if (role.alive) role.note(`[harness] could not send the job to the child: ${err.message}\n`);
    });
  }

  marksAtEnd(): [] {
    return []; // its marks come as messages
  }

  verdict(): Verdict | null {
    return null; // it reports its result itself; without one it failed
  }

  loadedLibrary(): undefined {
    return undefined; // it loads the library the binding chose; nothing to watch
  }
}

/**
 * Throws a clear error when the device process's script is missing: a compiled package built by tsc
 * alone, without its bundle. In a source checkout, makes sure the cached bundle of the device
 * process's modules is current (built here, once per change of the sources, rather than inside a
 * role's time), so that device processes need not load them one by one, and returns which entry
 * that is (RoleLaunch.deviceBundle: they need not compare it with the sources again).
 */
export function checkDeviceProcessScript(): string | undefined {
  if (!existsSync(DEVICE_PROCESS_SCRIPT)) {
    throw new Error(
      `${DEVICE_PROCESS_SCRIPT} is missing, so no device process can start: ` +
        'rebuild the package with `npm run build:js` (tsc, then the device-process bundle)',
    );
  }
  if (OWN_EXTENSION === '.ts') {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    return (require('../ts-hook/device-bundle-cache') as { ensureDeviceBundle(): string | undefined }).ensureDeviceBundle();
  }
  return undefined;
}
