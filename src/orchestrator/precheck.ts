/**
 * precheck(): ask a throwaway child what the ACL library offers (device count, whether an IPC
 * event can be created on device 0), so callers can decide skips before spawning a scenario.
 * The parent never loads koffi or libascendcl itself.
 */
import { fork } from 'node:child_process';
import * as path from 'node:path';
import { HARNESS_DIR, OWN_EXTENSION, tsExecArgv } from './role-process';
import { registerLive, unregisterLive, type Teardown } from './live-runs';
import { signalGroup } from './process-group';
import { checkMode } from './validate';
import type { PrecheckReport } from './protocol';
import type { PrecheckOptions, PrecheckResult } from './types';

const PRECHECK_SCRIPT = path.join(HARNESS_DIR, `precheck${OWN_EXTENSION}`);
export const DEFAULT_PRECHECK_TIMEOUT_MS = 20_000;

export function precheck(opts: PrecheckOptions = {}): Promise<PrecheckResult> {
  const mode = checkMode(opts.mode, 'precheck');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PRECHECK_TIMEOUT_MS;
  const fallbackMode: 'stub' | 'real' = mode === 'real' ? 'real' : 'stub';
  const failed = (error: string): PrecheckResult => ({
    ok: false,
    mode: fallbackMode,
    library: '',
    reason: error,
    deviceCount: 0,
    ipcSupported: false,
    error,
  });

  return new Promise((resolve) => {
    const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env, CANN_HARNESS_MODE: mode };
    delete env.ACL_STUB_TRACE; // a precheck leaves no trace files behind
    // Not a role: if we are ourselves inside a device process, these describe *our* scenario.
    for (const k of ['ROLE', 'DEVICE', 'INDEX', 'DIR']) delete env[`CANN_HARNESS_${k}`];
    env.CANN_HARNESS_PARENT_PID = String(process.pid);
    const child = fork(PRECHECK_SCRIPT, [], {
      execArgv: tsExecArgv(),
      detached: true,
      stdio: ['ignore', 'pipe', 'pipe', 'ipc'],
      env,
    });
    const teardown: Teardown = { emergencyStop: () => child.pid && signalGroup(child.pid, 'SIGKILL') };
    registerLive(teardown);
    let report: PrecheckReport | undefined;
    let stderr = '';
    let timedOut = false;
    child.stdout!.resume(); // the same report also goes to stdout for humans; we use the IPC copy
    child.stderr!.on('data', (d) => (stderr += d));
    child.on('message', (m) => (report = m as PrecheckReport));
    const timer = setTimeout(() => {
      timedOut = true;
      if (child.pid) signalGroup(child.pid, 'SIGKILL');
    }, timeoutMs);
    let done = false;
    const finish = (code: number | null, signal: string | null, spawnError?: Error) => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      if (child.pid) {
        try { signalGroup(child.pid, 'SIGKILL'); } catch { /* already gone */ }
      }
      unregisterLive(teardown);
      if (spawnError) return resolve(failed(`precheck: could not start the child: ${spawnError.message}`));
      if (report) {
        return resolve({
          ok: report.ok,
          mode: report.mode ?? fallbackMode,
          library: report.library ?? '',
          reason: report.reason ?? report.error ?? '',
          deviceCount: report.deviceCount ?? 0,
          ipcSupported: report.ipcSupported ?? false,
          ...(report.error ? { error: report.error } : {}),
        });
      }
      const how = timedOut ? `timed out after ${timeoutMs} ms` : signal ? `died by ${signal}` : `exited with code ${code}`;
      const lastErr = stderr.trim().split('\n').slice(-5).join('\n');
      resolve(failed(`precheck child ${how} without a report${lastErr ? `; stderr:\n${lastErr}` : ''}`));
    };
    child.on('error', (e) => finish(null, null, e));
    child.on('close', (code, signal) => finish(code, signal));
  });
}
