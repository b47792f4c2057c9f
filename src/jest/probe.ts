/**
 * The device probe: run once per Jest run (global setup) and handed to every test worker through
 * the CANN_HARNESS_PROBE environment variable (JSON), so that collecting a spec file can decide
 * skips synchronously and without loading native code.
 */
import * as path from 'node:path';
import type { PrecheckResult } from '../orchestrator';
import { runScriptSync } from '../orchestrator/process-host';
import { srcModule } from '../paths';
import { ENV, modeFromEnv, requiredDevicesFromEnv, type Mode } from '../env';

export const PROBE_ENV = ENV.probe;
export const REQUIRE_DEVICES_ENV = ENV.requireDevices;
const PROBE_CHILD = srcModule('jest/probe-child');

export function requestedMode(env: NodeJS.ProcessEnv = process.env): Mode {
  return modeFromEnv(env);
}

/** Runs the orchestrator's precheck (itself a throwaway child: no koffi here). */
export async function probeDevices(mode: Mode = requestedMode()): Promise<PrecheckResult> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { precheck } = require('../orchestrator') as typeof import('../orchestrator');
  return precheck({ mode });
}

/** The probe result for this run: from the environment, or (outside global setup) probed now. */
export function currentProbe(env: NodeJS.ProcessEnv = process.env): PrecheckResult {
  const cached = env[PROBE_ENV];
  if (cached) return parseProbe(cached);
  const probe = probeSync();
  env[PROBE_ENV] = JSON.stringify(probe);
  return probe;
}

export function parseProbe(text: string): PrecheckResult {
  let p: Partial<PrecheckResult>;
  try {
    p = JSON.parse(text);
  } catch {
    throw new Error(`${PROBE_ENV} is not valid JSON (${text.slice(0, 80)}): unset it to let the harness probe the devices`);
  }
  if (typeof p !== 'object' || p === null || typeof p.deviceCount !== 'number' || typeof p.ok !== 'boolean') {
    throw new Error(`${PROBE_ENV} must be a precheck result { ok, mode, deviceCount, ipcSupported, ... }: unset it to probe again`);
  }
  return { mode: 'stub', library: '', reason: '', ipcSupported: true, ...p } as PrecheckResult;
}

/** Synchronous fallback for runs without our global setup (e.g. a custom Jest config). */
function probeSync(): PrecheckResult {
  const r = runScriptSync(PROBE_CHILD, process.env, 30_000);
  const last = (r.stdout ?? '').trim().split('\n').pop() ?? '';
  try {
    return parseProbe(last);
  } catch {
    const why = r.error?.message ?? `exit ${r.status ?? r.signal}: ${(r.stderr ?? '').trim().split('\n').slice(-3).join(' / ')}`;
    return { ok: false, mode: 'stub', library: '', reason: why, deviceCount: 0, ipcSupported: false, error: `device probe failed: ${why}` };
  }
}

export const NO_RUNTIME_HINT = 'no scenario can run without an ACL runtime: fix the problem above (`npx cann-harness doctor` shows what was tried)';

/** Why no scenario can run at all (the probe found no usable ACL runtime); the probe's error names the fix. */
export function unusableRuntimeMessage(probe: PrecheckResult): string {
  return `cann-harness: no usable ACL runtime (${probe.mode} mode): ${probe.error ?? probe.reason}\n${NO_RUNTIME_HINT}`;
}

export type DeviceGate = { run: true } | { run: false; skip: true; reason: string } | { run: false; skip: false; reason: string };

/**
 * May this scenario run here? Too few devices (or no runtime) -> skip with a reason, unless
 * CANN_HARNESS_REQUIRE_DEVICES=N promises N devices and the scenario needs no more than N: then
 * the missing devices are a failure of the runner, not a reason to skip.
 */
/** `setBy`: why the scenario needs that many ("role x is on device 15"), named in the reason. */
export function deviceGate(needed: number, probe: PrecheckResult, env: NodeJS.ProcessEnv = process.env, setBy?: string): DeviceGate {
  let reason: string | null = null;
  if (!probe.ok) reason = `no usable ACL runtime: ${(probe.error ?? probe.reason).split('\n')[0]}`;
  else if (!probe.ipcSupported) reason = `IPC events are not supported by ${probe.library || 'the runtime'}`;
  else if (needed > probe.deviceCount) reason = `needs ${needed} devices${setBy ? ` (${setBy})` : ''}, ${probe.deviceCount} available`;
  if (reason === null) return { run: true };

  const required = requiredDevices(env);
  if (required !== null && needed <= required) {
    return {
      run: false,
      skip: false,
      reason: `${REQUIRE_DEVICES_ENV}=${required} says this runner must have ${required} devices, but: ${reason} (mode ${probe.mode}, library ${probe.library || 'none'})`,
    };
  }
  return { run: false, skip: true, reason };
}

export function requiredDevices(env: NodeJS.ProcessEnv = process.env): number | null {
  return requiredDevicesFromEnv(env);
}
