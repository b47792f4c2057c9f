/**
 * src/ts-hook/device-bundle-cache.js: a source checkout's device process runs the harness from one
 * cached bundle when it is current, a role module's deep import (`../../src/acl`) still gets the one
 * instance the harness uses, and an entry whose stored source differs from the file is never used,
 * unless it is the very entry file the parent verified (CANN_HARNESS_DEVICE_BUNDLE).
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runRoles } from '../../src/orchestrator';
import { ENV } from '../../src/env';

const repoRoot = path.resolve(__dirname, '..', '..');
const cacheModule = path.join(repoRoot, 'src', 'ts-hook', 'device-bundle-cache.js');
const PROBE = path.join(__dirname, 'fixtures', 'bundle-probe.ts');

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'device-bundle-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

async function probe(env?: Record<string, string>) {
  const r = await runRoles({ label: 'bundle probe', timeoutMs: 60_000, roles: [{ name: 'probe', device: 0, env, entry: { module: PROBE, export: 'probe' } }] });
  expect(r.roles[0].error).toBeUndefined();
  return r.roles[0].value as { fromBundle: boolean; aclSeeded: boolean; thrownName?: string; thrownAt: string[]; sameAclError: boolean; koffiEntryLoaded: boolean };
}

/** The stack frames of the binding's throw (the source map at work): TypeScript lines of the harness's files. */
const tsFrames = expect.arrayContaining([expect.stringMatching(/^at \S+ \(\/src\/acl\/runtime\.ts:\d+:\d+\)$/), expect.stringMatching(/\/harness\/device-process\.ts:\d+:\d+\)$/)]);

test('a device process runs from the bundle runRoles made current, and a deep import gets its one instance', async () => {
  // (koffiEntryLoaded: on glibc Linux, where CI runs, src/acl loads koffi's binary without koffi's entry)
  expect(await probe()).toEqual({ fromBundle: true, aclSeeded: true, thrownName: 'AclError', thrownAt: tsFrames, sameAclError: true, koffiEntryLoaded: false });
}, 120_000);

test('without a current bundle (an empty cache) it loads module by module, with the same result and the same stack trace', async () => {
  const moduleByModule = await probe({ CANN_HARNESS_TS_CACHE: dir });
  expect(moduleByModule).toEqual({ fromBundle: false, aclSeeded: false, thrownName: 'AclError', thrownAt: tsFrames, sameAclError: true, koffiEntryLoaded: false });
  expect((await probe()).thrownAt).toEqual(moduleByModule.thrownAt);
}, 120_000);

/** Runs `code` in a fresh node with the cache module as `c` and CANN_HARNESS_TS_CACHE=dir; returns its stdout. */
function inNode(code: string, env: Record<string, string> = {}): string {
  const r = spawnSync(process.execPath, ['-e', `const c = require(${JSON.stringify(cacheModule)}); ${code}`], {
    encoding: 'utf8',
    timeout: 120_000,
    env: { ...process.env, CANN_HARNESS_TS_CACHE: dir, ...env },
  });
  if (r.status !== 0) throw new Error(`node exited ${r.status}: ${r.stderr}`);
  return r.stdout.trim();
}

test('an entry is used only while every source it holds equals its file; ensureDeviceBundle then builds it again', () => {
  expect(inNode('console.log(c.loadDeviceBundle())')).toBe('false'); // nothing built yet
  expect(inNode('console.log(!!c.ensureDeviceBundle())')).toBe('true');
  const [entry] = readdirSync(dir).filter((n) => n.endsWith('.entry'));
  const file = path.join(dir, entry);
  expect(inNode('console.log(c.loadDeviceBundle())')).toBe('true');
  // Its source map is a file of its own: without it the entry is not current (no TypeScript lines).
  const [map] = readdirSync(dir).filter((n) => n.endsWith('.map'));
  rmSync(path.join(dir, map));
  expect(inNode('console.log(c.loadDeviceBundle(), !!c.ensureDeviceBundle(), c.loadDeviceBundle())')).toBe('false true true');
  expect(readdirSync(dir).filter((n) => n.endsWith('.map'))).toEqual([map]);

  // As if a source had been edited since: one byte of the stored copy of a source differs.
  const bytes = readFileSync(file);
  const eol = bytes.indexOf(0x0a);
  const header = JSON.parse(bytes.subarray(0, eol).toString()) as { inputs: [string, number][] };
  const inputs = header.inputs.map(([f]) => path.relative(repoRoot, f));
  expect(inputs).toEqual(expect.arrayContaining(['harness/device-process.ts', 'src/acl/index.ts', 'src/index.ts']));
  // What a device process never runs stays out: the orchestrator, the failure report, the hook.
  expect(inputs.filter((f) => /^src\/(orchestrator\/(run-roles|role-process)|report\/failure|ts-hook\/)/.test(f))).toEqual([]);
  expect(inNode('console.log(c.VERIFIED_ENV)')).toBe(ENV.deviceBundle); // the variable runRoles sets
  const verified = inNode('console.log(c.ensureDeviceBundle())'); // the current entry's identity, for runRoles's device processes
  expect(verified).toMatch(/^\d+:\d+:\d+:\d+:\d+$/);
  expect(inNode('console.log(c.loadDeviceBundle())', { CANN_HARNESS_DEVICE_BUNDLE: verified })).toBe('true');
  const doctored = Buffer.from(bytes);
  doctored[eol + 1 + header.inputs[0][1] - 1] ^= 0x20;
  writeFileSync(file, doctored); // in place: the same inode and size, but no longer the file the parent verified
  const verifiedBy = (identity: string) => ({ CANN_HARNESS_DEVICE_BUNDLE: identity });
  expect(inNode('console.log(c.loadDeviceBundle())')).toBe('false');
  expect(inNode('console.log(c.loadDeviceBundle())', verifiedBy(verified))).toBe('false');
  // The very file a parent verified is not compared with the sources again (here: it would differ).
  const st = statSync(file, { bigint: true });
  expect(inNode('console.log(c.loadDeviceBundle())', verifiedBy(`${st.dev}:${st.ino}:${st.size}:${st.mtimeNs}:${st.ctimeNs}`))).toBe('true');
  expect(inNode('console.log(!!c.ensureDeviceBundle(), c.loadDeviceBundle())')).toBe('true true');
  expect(readFileSync(file).equals(bytes)).toBe(true); // rebuilt from the unchanged sources
}, 120_000);
