/**
 * src/acl: typed bindings of the ACL subset that drive real libascendcl or the CPU stub through the
 * same code. Importing this module is cheap and safe anywhere: koffi (and the library) is loaded
 * only by loadAcl(), which must only run in device processes (see native.ts for why).
 *
 *   const acl = loadAcl();          // resolves and dlopens, does NOT call aclInit
 *   acl.init(); acl.setDevice(0);   // once per process; worker threads only setDevice
 *   using s = acl.createStream();
 *   const latch = s.latch(); ...; latch.release();
 */
import type { LoadedAcl } from './native';
import { LibraryNotFoundError, parseMode, resolveHoldLibrary, resolveLibrary } from './resolve';
import type { LibraryChoice, ResolveOptions } from './resolve';
import { AclRuntime } from './runtime';
import type { Acl } from './types';

export { AclError, AclErrorCode, aclErrorName, attempt } from './errors';
export type { AclErrorInit, AclErrorName, AttemptResult } from './errors';
export {
  EventFlag,
  EventRecordedStatus,
  EventStatus,
  EventWaitStatus,
  IPC_EVENT_HANDLE_SIZE,
  IPC_KEY_BUFFER_SIZE,
  IpcMemExportFlag,
  IpcMemImportFlag,
  MemcpyKind,
  MemMallocPolicy,
  NotifyExportFlag,
  NotifyFlag,
  NotifyImportFlag,
  StreamStatus,
  ValueWaitFlag,
  MEM_FABRIC_HANDLE_SIZE,
  MemAccessFlags,
  MemAttr,
  MemGranularity,
  MemLocationType,
  MemSharedHandleType,
  VmmExportFlag,
} from './enums';
export { IpcEventHandle, IpcHandleFileError, writeFileAtomic } from './ipc-handle';
export {
  LibraryNotFoundError,
  defaultHoldLibraryPath,
  defaultStubPath,
  parseMode,
  repoRoot,
  resolveHoldLibrary,
  resolveLibrary,
} from './resolve';
import { ENV, modeFromEnv, type Mode } from '../env';
export type { LibraryChoice, ResolveOptions } from './resolve';
export { reclaimStubLeftovers } from './reclaim';
export { ensureRunStubScope, defaultScopeOwner, scopeOfObject } from './stub-scope';
export { RoundBarrier, RoundBarrierBrokenError, RoundBarrierMismatchError, describeCrossing, type Crossing, reseedStubJitter } from './round-barrier';
export { explorer, installExplorePoints, type Explorer } from './explore';
export { parseLiveView } from './live-view';
export type { LiveStream, LiveTask, LiveView, LiveViewAnswer } from './live-view';
export type { Acl, AclContext, DeviceBuffer, Event, FabricHandle, Latch, MappedBuffer, Notify, PhysicalHandle, Stream, Vmm, VmmCalls } from './types';
export type { AclFunctions } from './native';

/** The library exists but dlopen refused it (wrong architecture, missing dependency, ...). */
export class LibraryLoadError extends Error {
  constructor(
    message: string,
    readonly library: LibraryChoice,
    options?: { cause?: unknown },
  ) {
    super(message, options);
    this.name = 'LibraryLoadError';
  }
}

/**
 * Resolve (see resolveLibrary) and load the library in this thread. Never calls aclInit: the
 * harness does that once per process; worker threads call loadAcl() again and only setDevice().
 * In auto mode a real library that is found but fails to load falls back to the stub, and
 * `library.reason` says so.
 */
export function loadAcl(opts: ResolveOptions = {}): Acl {
  const env = opts.env ?? process.env;
  const mode: Mode = opts.mode ?? modeFromEnv(env);
  let choice = resolveLibrary({ ...opts, mode, env });
  // Loaded lazily so that importing src/acl never loads koffi (Jest imports it for the pure parts).
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const native = require('./native') as typeof import('./native');

  let loaded: LoadedAcl;
  try {
    loaded = native.loadAclLibrary(choice.path);
  } catch (err) {
    const why = (err as Error).message;
    const canFallBack = choice.requested === 'auto' && choice.mode === 'real' && !env[ENV.library];
    const missing = /Cannot find function '(\w+)'/.exec(why);
    if (missing && env[ENV.library]) {
      // It loaded: its dependencies are fine, it simply is not libascendcl (set_env.sh would not help).
      throw new LibraryLoadError(
        `CANN_HARNESS_LIBRARY=${env[ENV.library]} is not an ACL runtime: it loads but has no ${missing[1]}(). ` +
          `Point CANN_HARNESS_LIBRARY at a libascendcl.so (CANN's, or the stub's ${resolveLibrary({ ...opts, mode: 'stub', env: { ...env, [ENV.library]: '' } }).path}), or unset it.`,
        choice,
        { cause: err },
      );
    }
    if (!canFallBack) {
      throw new LibraryLoadError(
        `cannot load ${choice.path} (${choice.reason}): ${why}` +
          (choice.mode === 'real'
            ? '. Is the CANN environment set up (`source <CANN install>/set_env.sh`) so its dependencies are on LD_LIBRARY_PATH?'
            : '. Rebuild the stub with `npm run build:stub`.'),
        choice,
        { cause: err },
      );
    }
    const stub = resolveLibrary({ ...opts, mode: 'stub', env });
    loaded = native.loadAclLibrary(stub.path);
    choice = {
      ...stub,
      requested: 'auto',
      tried: [...choice.tried, ...stub.tried],
      reason: `auto: using the stub ${stub.path} because the real ${choice.path} was found but failed to load (${why.split('\n')[0]})`,
    };
  }
  // For the hang report's live view; loaded here for the same reason as native.ts.
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  (require('./watchdog') as typeof import('./watchdog')).publishLoadedLibrary(choice.path);
  return new AclRuntime(choice, loaded.fns, () => native.loadHoldLibrary(resolveHoldLibrary(env), choice.path));
}
