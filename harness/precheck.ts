/**
 * Throwaway child for precheck(): load the ACL library, init, count devices, create one IPC event
 * on device 0, clean up. Reports on its message pipe (when started by precheck()) and as one JSON
 * line on stdout.
 */
import { watchParent } from './parent-watch';
import { sendToParent } from './parent-pipe';
import { PRECHECK_PIPE_FLAG, type PrecheckReport } from '../src/wire/protocol';
import { ENV, type Mode } from '../src/env';

function errorText(e: unknown): string {
  if (e && typeof e === 'object' && 'message' in e) {
    const x = e as { message: string; codeName?: string };
    return x.codeName && !x.message.includes(x.codeName) ? `${x.message} (${x.codeName})` : x.message;
  }
  return String(e);
}

function report(r: PrecheckReport): void {
  process.stdout.write(JSON.stringify(r) + '\n');
  if (startedByPrecheck) sendToParent(r);
  process.exit(r.ok ? 0 : 1);
}

/** Started by precheck() (which passes a message pipe and its pid), not by hand. */
const startedByPrecheck = process.argv.includes(PRECHECK_PIPE_FLAG);

function main(): void {
  if (startedByPrecheck) watchParent(); // never outlive the parent
  const mode = (process.env[ENV.mode] ?? 'auto') as Mode;
  let aclModule: typeof import('../src/acl');
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    aclModule = require('../src/acl');
  } catch (e) {
    return report({ ok: false, error: `the ACL binding (src/acl) could not be loaded: ${errorText(e)}` });
  }
  let acl: import('../src/acl').Acl;
  try {
    acl = aclModule.loadAcl({ mode });
  } catch (e) {
    return report({ ok: false, error: `no usable libascendcl (mode ${mode}): ${errorText(e)}` });
  }
  const lib = { mode: acl.library.mode, library: acl.library.path, reason: acl.library.reason };
  try {
    acl.init();
  } catch (e) {
    return report({ ok: false, ...lib, error: `aclInit failed: ${errorText(e)}` });
  }
  let deviceCount = 0;
  let ipcSupported = false;
  let ipcError: string | undefined;
  try {
    deviceCount = acl.getDeviceCount();
    if (deviceCount > 0) {
      acl.setDevice(0);
      try {
        const ev = acl.createIpcEvent();
        try {
          ev.ipcHandle();
          ipcSupported = true;
        } finally {
          ev.destroy();
        }
      } catch (e) {
        ipcError = `IPC event on device 0 not available: ${errorText(e)}`;
      } finally {
        acl.resetDevice(0);
      }
    } else {
      ipcError = 'no devices, so no IPC event could be tried';
    }
  } catch (e) {
    try { acl.finalize(); } catch { /* reporting the first error */ }
    return report({ ok: false, ...lib, deviceCount, error: `device query failed: ${errorText(e)}` });
  }
  try {
    acl.finalize();
  } catch (e) {
    return report({ ok: false, ...lib, deviceCount, ipcSupported, error: `aclFinalize failed: ${errorText(e)}` });
  }
  report({ ok: true, ...lib, deviceCount, ipcSupported, ...(ipcError ? { error: ipcError } : {}) });
}

main();
