/**
 * loadAcl() mode handling in child processes (auto fallback, real missing, stub missing, worker
 * threads), and the guard that keeps koffi out of Jest's own process.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadAcl, type ResolveOptions } from '../../src/acl';
import { runFixture, valueOf, type FixtureRun } from './helpers';

interface LoadReport {
  loaded: boolean;
  library?: { mode: string; requested: string; path: string; reason: string; tried: string[] };
  initialized?: boolean;
  error?: { name: string; message: string; tried?: string[] };
}

let dir: string;
let reports: Record<string, LoadReport>;
let workerThreads: Promise<FixtureRun<Record<string, unknown>>>;
let inheritsWorkerId: Promise<FixtureRun<Record<string, LoadReport>>>;

const inDir = (...p: string[]) => path.join(dir, ...p);
const notAcl = path.resolve(__dirname, '..', '..', 'native-stub', 'build', 'lib64', 'libcannharness_hold.so');

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acl-load-'));
  fs.mkdirSync(inDir('no-cann'));
  fs.mkdirSync(inDir('fake-ascend-home'));
  fs.mkdirSync(inDir('broken-cann', 'lib64'), { recursive: true });
  fs.writeFileSync(inDir('broken-cann', 'lib64', 'libascendcl.so'), 'not an ELF file');
  // Every scenario runs in one child, each with its own env (loadAcl reads only opts.env).
  const scenarios: Record<string, ResolveOptions> = {
    stub: { mode: 'stub', env: {} },
    autoNoCann: { searchSystem: false, env: { CANN_HARNESS_MODE: 'auto', ASCEND_HOME_PATH: inDir('no-cann') } },
    autoBroken: { mode: 'auto', searchSystem: false, env: { ASCEND_HOME_PATH: inDir('broken-cann') } },
    realMissing: { mode: 'real', searchSystem: false, env: { ASCEND_HOME_PATH: inDir('fake-ascend-home') } },
    stubMissing: { mode: 'stub', stubPath: inDir('nowhere', 'libascendcl.so'), env: {} },
    overrideMissing: { env: { CANN_HARNESS_MODE: 'stub', CANN_HARNESS_LIBRARY: inDir('nowhere', 'libascendcl.so') } },
    // A real shared library that is not libascendcl: the stub's hold helper.
    overrideNotAcl: { env: { CANN_HARNESS_LIBRARY: notAcl } },
  };
  // The other child processes of this file start now too: they are independent, and each test
  // checks its own (a child that failed fails its test, with its output).
  workerThreads = runFixture<Record<string, unknown>>('worker-threads');
  inheritsWorkerId = runFixture<Record<string, LoadReport>>('load-library', [JSON.stringify({ stub: { mode: 'stub' } })], { JEST_WORKER_ID: '7' });
  reports = valueOf(await runFixture<Record<string, LoadReport>>('load-library', [JSON.stringify(scenarios)]));
});
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

test('stub mode loads the built stub and does not call aclInit', () => {
  const r = reports.stub;
  expect(r.loaded).toBe(true);
  expect(r.library).toMatchObject({ mode: 'stub', requested: 'stub' });
  expect(r.library!.path).toMatch(/native-stub\/build\/lib64\/libascendcl\.so$/);
  expect(r.initialized).toBe(false);
});

test('auto with no real CANN falls back to the stub and says why in one line', () => {
  const r = reports.autoNoCann;
  expect(r.library!.mode).toBe('stub');
  expect(r.library!.requested).toBe('auto');
  expect(r.library!.reason).toMatch(/^auto: using the stub \S+ because no real libascendcl\.so was found in 4 places \(ASCEND_HOME_PATH=/);
  expect(r.library!.reason).not.toContain('\n');
});

test('auto with a real library that is found but cannot load falls back to the stub with the dlopen reason', () => {
  const r = reports.autoBroken;
  const broken = inDir('broken-cann', 'lib64', 'libascendcl.so');
  expect(r.library!.mode).toBe('stub');
  expect(r.library!.reason).toContain(`because the real ${broken} was found but failed to load`);
  expect(r.library!.tried[0]).toBe(broken);
});

test('real mode with nothing installed fails, listing every path tried and suggesting set_env.sh', () => {
  const r = reports.realMissing;
  const home = inDir('fake-ascend-home');
  expect(r.loaded).toBe(false);
  expect(r.error!.name).toBe('LibraryNotFoundError');
  expect(r.error!.message).toContain('mode "real" requested but libascendcl.so was not found');
  expect(r.error!.message).toContain('source <CANN install>/set_env.sh');
  // (the system loader's locations are left out here so a machine with CANN installed gives the same result)
  const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';
  const expected = ['lib64', 'runtime/lib64', `${arch}-linux/lib64`, 'lib'].map((p) => path.join(home, p, 'libascendcl.so'));
  expect(r.error!.tried).toEqual(expected);
  for (const p of expected) expect(r.error!.message).toContain(`\n  ${p}`);
});

test('a missing stub says to run npm run build:stub', () => {
  const missing = inDir('nowhere', 'libascendcl.so');
  expect(reports.stubMissing.error!.name).toBe('LibraryNotFoundError');
  expect(reports.stubMissing.error!.message).toContain(`the stub library ${missing} does not exist`);
  expect(reports.stubMissing.error!.message).toContain('npm run build:stub');
  expect(reports.overrideMissing.error!.message).toContain(`CANN_HARNESS_LIBRARY=${missing} does not exist`);
});

test('CANN_HARNESS_LIBRARY pointing at a library that is not ACL says so, not "source set_env.sh"', () => {
  const e = reports.overrideNotAcl.error!;
  expect(e.message).toContain(`CANN_HARNESS_LIBRARY=${notAcl} is not an ACL runtime: it loads but has no aclInit()`);
  expect(e.message).toMatch(/Point CANN_HARNESS_LIBRARY at a libascendcl\.so \(CANN's, or the stub's \S+native-stub\/build\/lib64\/libascendcl\.so\), or unset it/);
  expect(e.message).not.toContain('set_env.sh');
});

test('worker threads load their own binding, never aclInit again, and their waits block too', async () => {
  const r = valueOf(await workerThreads);
  expect(r).toMatchObject({ initializedBeforeInit: false, secondInitCode: 100002, device: 1, syncBeforeRelease: 507046 });
});

test('a child that inherits JEST_WORKER_ID (as the orchestrator\'s device processes do) still loads', async () => {
  expect(valueOf(await inheritsWorkerId).stub.loaded).toBe(true);
});

test('loadAcl refuses to run inside Jest (koffi is never loaded in a Jest worker)', () => {
  expect(() => loadAcl({ mode: 'stub' })).toThrow(/refuses to load koffi\/libascendcl inside a Jest worker/);
});
