/**
 * `cann-harness doctor`: what the harness would run against here, and why. The library is
 * resolved in this process (pure path logic); everything that loads it runs in the precheck child.
 */
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import chalk from 'chalk';
import type { PrecheckResult } from '../orchestrator';
import { stubTamperingNotice } from '../mutants';
import { probeDevices } from '../jest/probe';
import { stubBuildDir } from '../acl/stub-build';
import { IS_SOURCE_CHECKOUT, NATIVE_STUB_DIR, PACKAGE_ROOT } from '../paths';
import { ENV, type ResolvedMode, type Mode } from '../env';
import { nativeRoleEnv } from '../orchestrator/native-role';

export interface DoctorReport {
  requestedMode: Mode;
  mode: ResolvedMode | null;
  library: string | null;
  reason: string;
  tried: string[];
  deviceCount: number;
  ipcSupported: boolean;
  probe: PrecheckResult;
  versions: { node: string; koffi: string | null; stub: string | null; harness: string | null };
  /** Set when ACL_STUB_MUTANT or ACL_STUB_JITTER is in the environment. */
  stubTampering: string | null;
  /** Where the CPU stub is built (or would be), whether it is, and the command that (re)builds it. */
  stubBuild: { dir: string; built: boolean; rebuild: string };
  /** libcannharness_hold.so (device processes' watchdog thread, stream hold/latch): where, and null when usable, else why not. */
  helperLibrary: { file: string; problem: string | null };
  /** What a native role (exec) gets: LD_PRELOAD, in this order (null: no library to give it). */
  nativePreload: string[] | null;
}

export async function collectDoctorReport(mode: Mode): Promise<DoctorReport> {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const { resolveLibrary, resolveHoldLibrary, defaultHoldLibraryPath } = require('../acl') as typeof import('../acl');
  let library: string | null = null;
  let reason: string;
  let tried: string[] = [];
  let resolvedMode: ResolvedMode | null = null;
  try {
    const choice = resolveLibrary({ mode });
    [library, reason, tried, resolvedMode] = [choice.path, choice.reason, choice.tried, choice.mode];
  } catch (e) {
    reason = (e as Error).message;
    tried = ((e as { tried?: string[] }).tried ?? []) as string[];
  }
  const probe = await probeDevices(mode);
  let helperLibrary: DoctorReport['helperLibrary'];
  try {
    helperLibrary = { file: resolveHoldLibrary(), problem: null };
  } catch (e) {
    helperLibrary = { file: process.env[ENV.holdLibrary] || defaultHoldLibraryPath, problem: (e as Error).message };
  }
  return {
    requestedMode: mode,
    mode: probe.ok ? probe.mode : resolvedMode,
    library: probe.library || library,
    // The probe's reason wins: it says what was actually loaded (e.g. an auto-mode fallback).
    reason: probe.ok && probe.reason ? probe.reason : reason,
    tried,
    deviceCount: probe.deviceCount,
    ipcSupported: probe.ipcSupported,
    probe,
    versions: {
      node: process.version,
      koffi: packageVersion('koffi'),
      stub: stubVersion(),
      harness: packageVersion(PACKAGE_ROOT),
    },
    stubTampering: stubTamperingNotice(),
    stubBuild: {
      dir: stubBuildDir(),
      built: existsSync(path.join(stubBuildDir(), 'lib64', 'libascendcl.so')),
      rebuild: IS_SOURCE_CHECKOUT ? 'npm run build:stub' : 'npx cann-harness setup --force',
    },
    helperLibrary,
    nativePreload: library ? nativeRoleEnv({}, library, undefined).LD_PRELOAD!.split(':') : null,
  };
}

export function formatDoctorReport(r: DoctorReport): string {
  const row = (k: string, v: string) => `  ${chalk.dim(k.padEnd(12))} ${v}`;
  const lines = [chalk.bold('cann-harness doctor'), ''];
  lines.push(row('mode', r.mode ? `${chalk.bold(r.mode)} (requested ${r.requestedMode})` : chalk.red(`none (requested ${r.requestedMode})`)));
  lines.push(row('library', r.library ?? chalk.red('not found')));
  lines.push(row('why', r.reason));
  if (r.tried.length) lines.push(row('tried', r.tried.join('\n' + ' '.repeat(15))));
  lines.push(row('devices', r.probe.ok ? String(r.deviceCount) : chalk.red(`unknown: ${(r.probe.error ?? r.probe.reason).split('\n')[0]}`)));
  lines.push(row('IPC events', r.ipcSupported ? chalk.green('supported') : chalk.red('not supported')));
  lines.push(row('node', r.versions.node));
  lines.push(row('koffi', r.versions.koffi ?? 'not installed'));
  lines.push(row('stub', r.versions.stub ?? 'unknown'));
  lines.push(row('harness', r.versions.harness ?? 'unknown'));
  lines.push(row('stub build', `${r.stubBuild.dir} (${r.stubBuild.built ? 'built' : chalk.red('not built')}; rebuild: ${r.stubBuild.rebuild})`));
  const helper = r.helperLibrary;
  lines.push(row('helper lib', helper.problem ? chalk.red(helper.problem) : `${helper.file} (watchdog thread, stream hold/latch)`));
  lines.push(row('native roles', r.nativePreload ? `LD_PRELOAD=${r.nativePreload.join(':')} (whatever rpath the program has; each role's report says what it loaded)` : chalk.red('no library to preload')));
  lines.push(row('stub tamper', r.stubTampering ? chalk.bgYellow.black(r.stubTampering) : 'none (no ACL_STUB_MUTANT, no ACL_STUB_JITTER)'));
  lines.push('');
  lines.push(
    r.probe.ok && r.ipcSupported
      ? chalk.green(`ready: scenarios needing up to ${r.deviceCount} devices will run; larger ones are reported skipped`)
      : chalk.red('not ready: fix the problem above (stub mode: `${r.stubBuild.rebuild}`; real mode: `source <CANN>/set_env.sh`)'),
  );
  return lines.join('\n');
}

function packageVersion(nameOrDir: string): string | null {
  try {
    // Resolve the package's folder, not `<name>/package.json`: an "exports" map may hide it.
    let dir = path.isAbsolute(nameOrDir) ? nameOrDir : path.dirname(require.resolve(nameOrDir, { paths: [PACKAGE_ROOT] }));
    while (!existsSync(path.join(dir, 'package.json')) && path.dirname(dir) !== dir) dir = path.dirname(dir);
    const file = path.join(dir, 'package.json');
    return (JSON.parse(readFileSync(file, 'utf8')) as { version?: string }).version ?? null;
  } catch {
    return null;
  }
}

/** The stub has no version call; its header states the version it was built from. */
function stubVersion(): string | null {
  try {
    const header = readFileSync(path.join(NATIVE_STUB_DIR, 'include', 'acl', 'acl.h'), 'utf8');
    const part = (p: string) => /(\d+)/.exec(header.split(`ACL_STUB_${p}_VERSION`)[1] ?? '')?.[1];
    const [maj, min, pat] = [part('MAJOR'), part('MINOR'), part('PATCH')];
    return maj !== undefined ? `${maj}.${min ?? 0}.${pat ?? 0} (native-stub/include/acl/acl.h)` : null;
  } catch {
    return null;
  }
}
