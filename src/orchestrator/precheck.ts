/**
 * precheck(): ask a throwaway child what the ACL library offers (device count, whether an IPC
 * event can be created on device 0), so callers can decide skips before spawning a scenario.
 * The parent never loads koffi or libascendcl itself.
 */
import { OutputCapture } from './output-capture';
import { ProcessHost, startInOwnGroup } from './process-host';
import { harnessScript } from '../paths';
import { registerLive, unregisterLive, type Teardown } from './live-runs';
import { checkMode } from './validate';
import { PRECHECK_PIPE_FLAG, type PrecheckReport } from '../wire/protocol';
import type { PrecheckOptions, PrecheckResult } from './types';
import { ENV, type ResolvedMode } from '../env';

const PRECHECK_SCRIPT = harnessScript('precheck');
export const DEFAULT_PRECHECK_TIMEOUT_MS = 20_000;

export function precheck(opts: PrecheckOptions = {}): Promise<PrecheckResult> {
  const mode = checkMode(opts.mode, 'precheck');
  const timeoutMs = opts.timeoutMs ?? DEFAULT_PRECHECK_TIMEOUT_MS;
  const fallbackMode: ResolvedMode = mode === 'real' ? 'real' : 'stub';
  const failed = (error: string): PrecheckResult => ({
    ok: false,
    mode: fallbackMode,
    library: '',
    reason: error,
    deviceCount: 0,
    ipcSupported: false,
    error,
  });

  const env: NodeJS.ProcessEnv = { ...process.env, ...opts.env, [ENV.mode]: mode };
  delete env[ENV.stubTrace]; // a precheck leaves no trace files behind
  // Not a role: if we are ourselves inside a device process, these describe *our* scenario.
  for (const k of [ENV.role, ENV.device, ENV.index, ENV.dir]) delete env[k];
  env[ENV.parentPid] = String(process.pid);

  let report: PrecheckReport | undefined;
  const stderr = new OutputCapture();
  const host = new ProcessHost({
    what: 'precheck',
    spawn: () => startInOwnGroup(PRECHECK_SCRIPT, env, [PRECHECK_PIPE_FLAG]),
    stdout: new OutputCapture(), // the same report also goes to stdout for humans; we use the message pipe's copy
    stderr,
    onMessage: (m) => (report = m as PrecheckReport),
  });
  const teardown: Teardown = { emergencyStop: () => host.killNow() };
  registerLive(teardown);
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    host.killNow();
  }, timeoutMs);
  try {
    host.start();
  } catch (e) {
    clearTimeout(timer);
    unregisterLive(teardown);
    return Promise.resolve(failed(`precheck: could not start the child: ${(e as Error).message}`));
  }

  return host.closed.then(() => {
    clearTimeout(timer);
    unregisterLive(teardown);
    const { exitCode: code, exitSignal: signal, spawnError } = host;
    if (spawnError) return failed(`precheck: could not start the child: ${spawnError.message}`);
    if (report) {
      return {
        ok: report.ok,
        mode: report.mode ?? fallbackMode,
        library: report.library ?? '',
        reason: report.reason ?? report.error ?? '',
        deviceCount: report.deviceCount ?? 0,
        ipcSupported: report.ipcSupported ?? false,
        ...(report.error ? { error: report.error } : {}),
      };
    }
    const how = timedOut ? `timed out after ${timeoutMs} ms` : signal ? `died by ${signal}` : `exited with code ${code}`;
    const lastErr = stderr.text.trim().split('\n').slice(-5).join('\n');
    return failed(`precheck child ${how} without a report${lastErr ? `; stderr:\n${lastErr}` : ''}`);
  });
}
