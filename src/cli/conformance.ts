/**
 * `cann-harness conformance [--library PATH] [--jobs N] [--json FILE] [FILTER]`: the C conformance
 * suite (native-stub/test) against a libascendcl.so, the stub's or real CANN's. Each case states
 * CANN behaviour and cites its source line, or checks a stub-only rule (then it is left out against
 * any library that is not the stub: the runner tells the stub by its stub-only export, not by the
 * path). The runner (`conformance --all`) prints a PASS or FAIL line per case, under a FAIL the
 * call, what was expected, what came back and the CANN source line; this command picks the library,
 * builds the runner on first use, checks the runner loaded that very library, and sums up.
 * Exit 0: every case holds; 1: a difference; 2: bad usage.
 */
import { spawn, spawnSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LIBRARY_FILE, resolveLibrary } from '../acl/resolve';
import type { Mode } from '../env';
import { buildStubIfNeeded } from '../acl/stub-setup';
import { StubBuildError, buildConformanceRunner, conformanceRunnerPath, isSourceCheckout, packageVersion } from '../acl/stub-build';
import { UsageError } from './run';

export interface ConformanceOptions {
  mode: Mode;
  /** A libascendcl.so to check instead of the active mode's. */
  library?: string;
  jobs?: number;
  /** Also write the results as JSON to this file. */
  json?: string;
  /** Only the cases whose name contains one of these comma-separated parts. */
  filter?: string;
  /** Whether --mode was given (it and --library exclude each other). */
  modeGiven?: boolean;
}

export interface CaseResult {
  name: string;
  verdict: 'PASS' | 'FAIL' | 'LEFT OUT';
  /** FAIL: the lines under the verdict (call, expected, actual, CANN source, suite line, failure). */
  call?: string;
  expected?: string;
  actual?: string;
  cannSource?: string;
  suiteLine?: string;
  failure?: string;
  /** LEFT OUT: why (the stub-only rule). */
  reason?: string;
}

export interface ConformanceReport {
  harnessVersion: string;
  library: string;
  stub: boolean;
  /** The CANN version file found near a library that is not the stub ("version=..." and where), else null. */
  cannVersion: string | null;
  filter: string | null;
  cases: CaseResult[];
  passed: number;
  failed: number;
  leftOut: number;
  exitCode: number;
}

type Say = (text: string) => void;

export function parseJobs(text: string): number {
  if (!/^\d+$/.test(text) || Number(text) < 1 || Number(text) > 256) throw new Error(`--jobs ${text}: give a whole number from 1 to 256`);
  return Number(text);
}

/** Before the run: a --json file goes into an existing, writable folder (not found out after every case ran). */
function checkJsonTarget(file: string): void {
  const dir = path.dirname(path.resolve(file));
  try {
    fs.accessSync(dir, fs.constants.W_OK);
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    throw new UsageError(`--json ${file}: its folder ${dir} ${code === 'ENOENT' ? 'does not exist' : 'is not writable'}; create it or give another path`);
  }
}

/** The library to check: --library, else the active mode's (an installed package builds the stub first). */
function chosenLibrary(opts: ConformanceOptions, say: Say): string {
  if (opts.library !== undefined) {
    const file = path.resolve(opts.library);
    let stat: fs.Stats | undefined;
    try {
      stat = fs.statSync(file);
    } catch {
      /* reported below */
    }
    if (!stat?.isFile()) {
      throw new UsageError(
        `--library ${opts.library}: ${stat ? 'not a file' : 'no such file'}. Give the path of a ${LIBRARY_FILE} ` +
          '(real CANN: $ASCEND_HOME_PATH/lib64/libascendcl.so after `source <CANN install>/set_env.sh`), or leave --library out to check the active mode\'s library.',
      );
    }
    return file;
  }
  try {
    buildStubIfNeeded(opts.mode, (l) => say(`cann-harness conformance: ${l}\n`));
    const choice = resolveLibrary({ mode: opts.mode });
    say(`cann-harness conformance: ${choice.reason}\n`);
    return choice.path;
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
}

function runner(say: Say): string {
  const file = conformanceRunnerPath();
  if (isSourceCheckout) {
    if (!fs.existsSync(file)) throw new UsageError(`${file} is missing: build it with \`npm run build:stub\` (runs make -C native-stub)`);
    return file;
  }
  if (!fs.existsSync(file)) say(`cann-harness conformance: building the conformance runner once for this version (${file}) ...\n`);
  try {
    return buildConformanceRunner();
  } catch (e) {
    if (e instanceof StubBuildError) throw new UsageError(e.message);
    throw e;
  }
}

/** What `conformance --library` says the runner loads with `env`: its path and whether it is the stub. */
function loadedLibrary(file: string, env: NodeJS.ProcessEnv, wanted: string): { path: string; stub: boolean } {
  const r = spawnSync(file, ['--library'], { env, encoding: 'utf8', timeout: 30_000 });
  const loaded = /^library: (.*)$/m.exec(r.stdout ?? '')?.[1];
  const stub = /^stub: (yes|no)$/m.exec(r.stdout ?? '')?.[1];
  if (r.status !== 0 || !loaded || !stub) {
    throw new UsageError(
      `the conformance runner cannot run with ${wanted} (exit ${r.status ?? r.signal ?? r.error?.message}): ${`${r.stderr ?? ''}`.trim() || 'no message'}\n` +
        'Is it a libascendcl.so for this machine, and are the libraries it needs on LD_LIBRARY_PATH (real CANN: `source <CANN install>/set_env.sh`)?',
    );
  }
  if (fs.realpathSync(loaded) !== fs.realpathSync(wanted)) {
    throw new UsageError(`the conformance runner loaded ${loaded}, not ${wanted}: another ${LIBRARY_FILE} comes first (LD_PRELOAD?); remove it from the environment`);
  }
  return { path: wanted, stub: stub === 'yes' };
}

const FIELDS: Record<string, keyof CaseResult> = {
  call: 'call',
  expected: 'expected',
  actual: 'actual',
  'CANN source': 'cannSource',
  'suite line': 'suiteLine',
  failure: 'failure',
};

/** The cases of the runner's output: verdict lines, and the fields under a FAIL. */
export function parseRunnerOutput(text: string): CaseResult[] {
  const cases: CaseResult[] = [];
  let open: CaseResult | undefined;
  for (const line of text.split('\n')) {
    // The runner's verdict line (a skip counts as a failure), not a case's own "FAIL [...]" line.
    const verdict = /^(PASS|FAIL|SKIP \(counted as failure\)) +([^\s[]\S*) +\d+ ms +\d+ ms CPU/.exec(line);
    const left = /^LEFT OUT (\S+): stub-only: (.*)$/.exec(line);
    const field = /^ {5}(call|expected|actual|CANN source|suite line|failure): +(.*)$/.exec(line);
    if (verdict) {
      open = { name: verdict[2], verdict: verdict[1] === 'PASS' ? 'PASS' : 'FAIL' };
      cases.push(open);
    } else if (left) {
      cases.push({ name: left[1], verdict: 'LEFT OUT', reason: left[2] });
      open = undefined;
    } else if (field && open?.verdict === 'FAIL' && open[FIELDS[field[1]]] === undefined) {
      (open as unknown as Record<string, string>)[FIELDS[field[1]]] = field[2];
    } else if (/^ {5}--- /.test(line)) {
      open = undefined; // the case's own output follows: its lines are not the runner's fields
    }
  }
  return cases;
}

/** Runs the runner, its output passed through as it comes; resolves with its exit code (or 128 + signal). */
function runAll(file: string, args: string[], env: NodeJS.ProcessEnv, say: Say): Promise<{ code: number; stdout: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(file, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    child.stdout.on('data', (d: Buffer) => {
      stdout += d.toString();
      say(d.toString());
    });
    child.stderr.on('data', (d: Buffer) => process.stderr.write(d));
    // A stop signal to this process goes on to the runner, which reclaims what its cases made and then dies of it.
    const forward = (sig: NodeJS.Signals) => child.kill(sig);
    process.on('SIGINT', forward);
    process.on('SIGTERM', forward);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      process.off('SIGINT', forward);
      process.off('SIGTERM', forward);
      resolve({ code: code ?? 128 + (signal ? os.constants.signals[signal] : 0), stdout });
    });
  });
}

/** CANN's version as its install states it near the library: the first "version=" line of a version file. */
export function cannVersionNear(library: string): string | null {
  let dir = path.dirname(library);
  // The library's folder and the one above it: <root>/lib64, <root>/runtime/lib64, <root>/<arch>-linux/lib64.
  for (let i = 0; i < 2; i++, dir = path.dirname(dir)) {
    let names: string[] = [];
    try {
      names = fs.readdirSync(dir).filter((n) => n === 'version.info' || n === 'version.cfg' || n.endsWith('_install.info')).sort();
    } catch {
      continue;
    }
    for (const name of names) {
      try {
        const version = /^\s*version\s*=\s*(\S.*)$/im.exec(fs.readFileSync(path.join(dir, name), 'utf8'))?.[1];
        if (version) return `${version.trim()} (${path.join(dir, name)})`;
      } catch {
        /* unreadable: the next one */
      }
    }
  }
  return null;
}

function summary(report: ConformanceReport): string {
  const what = report.stub ? 'the stub' : `not the stub; CANN ${report.cannVersion ?? 'version not found near it: add it to an issue by hand'}`;
  const counts = `${report.passed} passed, ${report.failed} failed, ${report.leftOut} left out`;
  const lines = [`cann-harness ${report.harnessVersion} conformance: ${report.library} (${what}): ${counts}`];
  if (report.leftOut > 0) lines.push('  left out: cases of stub-only rules (docs/acl-contract.md sections 7 and 8.7, stub settings, the harness\'s own libraries); see the LEFT OUT lines');
  if (report.failed > 0) {
    lines.push(
      `  ${report.failed} case(s) did not hold: attach this whole output (or the --json file) to an issue of cann-ipc-harness,`,
      '  with the CANN version and the chip; each FAIL names the call, what was expected, what came back and the CANN source line.',
    );
  }
  return `${lines.join('\n')}\n`;
}

export async function conformanceCommand(opts: ConformanceOptions, say: Say = (t) => process.stdout.write(t)): Promise<ConformanceReport> {
  if (opts.library !== undefined && opts.modeGiven) throw new UsageError('give --library or --mode, not both: --library names the library to check, --mode picks one by its search');
  if (opts.json !== undefined) checkJsonTarget(opts.json);
  const library = chosenLibrary(opts, say);
  const file = runner(say);
  // The runner links libascendcl.so by name (RUNPATH: its own stub): a folder of ours with a link of
  // that name, first on LD_LIBRARY_PATH, makes it load the chosen library; CANN's own libraries stay
  // found through the rest of LD_LIBRARY_PATH.
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'cann-harness-conformance-'));
  try {
    fs.symlinkSync(fs.realpathSync(library), path.join(dir, LIBRARY_FILE));
    const env = { ...process.env, LD_LIBRARY_PATH: [dir, process.env.LD_LIBRARY_PATH].filter(Boolean).join(':') };
    const loaded = loadedLibrary(file, env, library);
    const args = ['--all', '--jobs', String(opts.jobs ?? os.availableParallelism()), ...(opts.filter ? [opts.filter] : [])];
    const run = await runAll(file, args, env, say);
    const cases = parseRunnerOutput(run.stdout);
    const count = (v: CaseResult['verdict']) => cases.filter((c) => c.verdict === v).length;
    if (run.code >= 128) {
      say(`cann-harness conformance: stopped by signal ${run.code - 128}: the runner killed its cases and removed what they made\n`);
      return { harnessVersion: packageVersion(), library: loaded.path, stub: loaded.stub, cannVersion: null, filter: opts.filter ?? null, cases, passed: 0, failed: 0, leftOut: 0, exitCode: run.code };
    }
    const report: ConformanceReport = {
      harnessVersion: packageVersion(),
      library: loaded.path,
      stub: loaded.stub,
      cannVersion: loaded.stub ? null : cannVersionNear(loaded.path),
      filter: opts.filter ?? null,
      cases,
      passed: count('PASS'),
      failed: count('FAIL'),
      leftOut: count('LEFT OUT'),
      exitCode: run.code === 0 ? 0 : run.code === 2 && cases.length === 0 ? 2 : 1,
    };
    if (report.exitCode === 2) throw new UsageError(`no conformance case's name contains ${opts.filter ?? '(no filter)'}: see \`${file} --list\``);
    say(summary(report));
    if (opts.json) fs.writeFileSync(opts.json, `${JSON.stringify(report, null, 2)}\n`);
    return report;
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}
