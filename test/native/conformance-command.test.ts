/**
 * `cann-harness conformance`: the C conformance cases against a chosen libascendcl.so. No NPU here,
 * so the libraries other than the stub are the stub's own objects linked again: "foreign" exports
 * only the acl* calls (no cannstub_live_view: the runner must take it for another library and
 * leave the stub-only cases out, whatever its path), and "altered" is foreign with two answers
 * changed by a wrapper (aclrtSetDevice accepts a bad id; aclrtMallocHost without a context answers
 * 107000): each FAIL must name the call, expected and actual with their ACL names, and the CANN
 * source line. A few cases only (FILTER): test/native/conformance.test.ts runs every case already.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseRunnerOutput } from '../../src/cli/conformance';
import { cliInProcess } from '../support/cli-in-process';
import { runCommand } from '../support/run-child';

const repoRoot = path.resolve(__dirname, '..', '..');
const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
const objDir = path.join(repoRoot, 'native-stub', 'build', 'obj', 'src');
const stubLibrary = path.join(repoRoot, 'native-stub', 'build', 'lib64', 'libascendcl.so');
// A CANN case with a CT_SOURCE, one whose citation is a comment above its assertion, one whose
// failing assertion's nearest comment cites nothing, and stub-only ones.
const FILTER =
  'device_bad_ids_return_107001,context_none_current_returns_107002_on_every_checked_call,context_memcpy_checks,headers_,errmsg_filled';
const version = (JSON.parse(readFileSync(path.join(repoRoot, 'package.json'), 'utf8')) as { version: string }).version;
const STUB_ONLY = ['errmsg_filled_after_each_failure', 'headers_error_codes_match_the_contract', 'headers_runtime_codes_are_macros'];

jest.setTimeout(60_000);

let dir = '';
let foreign = '';
let altered = '';

function sh(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(' ')} failed (${r.status ?? r.error?.message}): ${r.stderr}`);
}

/** The stub's objects linked as a library that exports the acl* calls only, each object first passed through `objcopyArgs`. */
function linkLibrary(name: string, objcopyArgs: string[], extra: string[] = []): string {
  const out = path.join(dir, name);
  const objs = path.join(out, 'obj');
  mkdirSync(objs, { recursive: true });
  const inputs = readdirSync(objDir).filter((f) => f.endsWith('.o'));
  if (inputs.length === 0) throw new Error(`no objects in ${objDir}: run npm run build:stub`);
  for (const o of inputs) sh('objcopy', [...objcopyArgs, path.join(objDir, o), path.join(objs, o)]);
  const lib = path.join(out, 'libascendcl.so');
  sh('gcc', [
    '-shared',
    '-fPIC',
    '-Wl,-soname,libascendcl.so',
    `-Wl,--version-script=${path.join(dir, 'acl-only.map')}`,
    '-o',
    lib,
    ...extra,
    ...inputs.map((o) => path.join(objs, o)),
    '-pthread',
    '-lrt',
  ]);
  return lib;
}

beforeAll(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'conformance-command-'));
  writeFileSync(path.join(dir, 'acl-only.map'), '{ global: acl*; local: *; };\n');
  foreign = linkLibrary('foreign', []);
  const shim = path.join(dir, 'shim.c');
  writeFileSync(
    shim,
    [
      '#include <stddef.h>',
      '#include <stdint.h>',
      'int altered_aclrtSetDevice(int32_t id);',
      'int altered_aclrtMallocHost(void **p, size_t size);',
      'int altered_aclrtMemcpy(void *dst, size_t max, const void *src, size_t count, int kind);',
      'int aclrtSetDevice(int32_t id) { int r = altered_aclrtSetDevice(id); return r == 107001 ? 0 : r; }',
      'int aclrtMallocHost(void **p, size_t size) { int r = altered_aclrtMallocHost(p, size); return r == 107002 ? 107000 : r; }',
      'int aclrtMemcpy(void *dst, size_t max, const void *src, size_t count, int kind) ' +
        '{ int r = altered_aclrtMemcpy(dst, max, src, count, kind); return r == 100000 ? 107000 : r; }',
      '',
    ].join('\n'),
  );
  const rename = ['aclrtSetDevice', 'aclrtMallocHost', 'aclrtMemcpy'].flatMap((f) => ['--redefine-sym', `${f}=altered_${f}`]);
  altered = linkLibrary('altered', rename, [shim]);
  writeFileSync(path.join(dir, 'altered', 'version.info'), 'Version=8.0.RC9.test\n'); // as a CANN install states its version
});

afterAll(() => {
  if (dir) rmSync(dir, { recursive: true, force: true });
});

test('the stub: every selected case runs and passes (exit 0), and the run names the library as the stub', async () => {
  const r = await cliInProcess(['conformance', '--mode', 'stub', '--jobs', '2', FILTER]);
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(`conformance: library ${stubLibrary} (the stub: it exports cannstub_live_view; every case runs)`);
  for (const name of [
    'device_bad_ids_return_107001',
    'context_none_current_returns_107002_on_every_checked_call',
    'context_memcpy_checks_the_context_before_the_addresses',
    ...STUB_ONLY,
  ]) {
    expect(r.stdout).toMatch(new RegExp(`^PASS ${name} `, 'm'));
  }
  expect(r.stdout).toContain(`cann-harness ${version} conformance: ${stubLibrary} (the stub): 6 passed, 0 failed, 0 left out`);
});

test('another library (no stub-only export): the stub-only cases are left out, each with its reason; the rest pass', async () => {
  const r = await cliInProcess(['conformance', '--library', foreign, '--jobs', '2', FILTER]);
  expect(r.code).toBe(0);
  expect(r.stdout).toContain(
    `conformance: library ${foreign} (not the stub: it does not export cannstub_live_view; the cases of stub-only rules are left out)`,
  );
  expect(r.stdout).toContain(
    "LEFT OUT errmsg_filled_after_each_failure: stub-only: aclGetRecentErrMsg's text is the stub's (contract 1.4)",
  );
  expect(r.stdout).toContain(
    "LEFT OUT headers_runtime_codes_are_macros: stub-only: checks the stub's headers (compiled into the runner), not the library",
  );
  expect(r.stdout).toMatch(/^PASS device_bad_ids_return_107001 /m);
  expect(r.stdout).toContain(
    `${foreign} (not the stub; CANN version not found near it: add it to an issue by hand): 3 passed, 0 failed, 3 left out`,
  );
});

test(
  'an altered library: each FAIL names the call, expected and actual (ACL names), the CANN source and the suite line; exit 1; --json',
  async () => {
    const json = path.join(dir, 'report.json');
    const r = await runCommand(
      process.execPath,
      [bin, 'conformance', '--library', altered, '--jobs', '2', '--json', json, FILTER],
      { cwd: repoRoot },
    );
    expect(r.code).toBe(1);
    const block = (name: string) => r.stdout.slice(r.stdout.indexOf(`FAIL ${name} `)).split('\n').slice(0, 7).join('\n');
    expect(block('device_bad_ids_return_107001')).toMatch(
      new RegExp(
        [
          '\\(exit 1\\)',
          ' {5}call: {8}aclrtSetDevice\\(bad\\[i\\]\\)',
          ' {5}expected: {4}107001 \\(ACL_ERROR_RT_INVALID_DEVICEID\\)',
          ' {5}actual: {6}0 \\(ACL_SUCCESS\\)',
          ' {5}CANN source: api_error\\.cc:3272-3294 SetDevice, 3430-3437 DeviceReset: ' +
            'ids outside 0\\.\\.count-1 \\(hicann/runtime 681ef7610\\)',
          ' {5}suite line: {2}test/cases_devices\\.c:\\d+',
        ].join('\n'),
      ),
    );
    // No CT_SOURCE in this case: the citation comes from the comment above the assertion.
    expect(block('context_none_current_returns_107002_on_every_checked_call')).toMatch(
      // eslint-disable-next-line max-len -- one regex for a FAIL block's lines, kept unsplit
      /call: {8}aclrtMallocHost\(&p, 64\)\n {5}expected: {4}107002 \(ACL_ERROR_RT_CONTEXT_NULL\)\n {5}actual: {6}107000 \(ACL_ERROR_RT_PARAM_INVALID\)\n {5}CANN source: api_impl\.cc:2426-2430 HostMalloc \(hicann\/runtime 681ef7610; from the comment at test\/cases_contexts\.c:\d+\)/,
    );
    // The nearest comment above this assertion cites nothing (a citation further up is another check's).
    expect(block('context_memcpy_checks_the_context_before_the_addresses')).toMatch(
      // eslint-disable-next-line max-len -- one regex for a FAIL block's lines, kept unsplit
      /call: {8}aclrtMemcpy\(NULL, 16, o->host_b, 16, ACL_MEMCPY_HOST_TO_HOST\)\n {5}expected: {4}100000 \(ACL_ERROR_INVALID_PARAM\)\n {5}actual: {6}107000 \(ACL_ERROR_RT_PARAM_INVALID\)\n {5}CANN source: none cited \(no CT_SOURCE; the comment above the assertion cites no line\)\n {5}suite line: {2}test\/cases_contexts\.c:\d+/,
    );
    const versionFile = path.join(dir, 'altered', 'version.info');
    expect(r.stdout).toContain(
      `cann-harness ${version} conformance: ${altered} (not the stub; CANN 8.0.RC9.test (${versionFile})): 0 passed, 3 failed, 3 left out`,
    );
    expect(r.stdout).toContain('attach this whole output (or the --json file) to an issue');
    const report = JSON.parse(readFileSync(json, 'utf8'));
    expect(report).toMatchObject({
      harnessVersion: version,
      library: altered,
      stub: false,
      cannVersion: `8.0.RC9.test (${versionFile})`,
      filter: FILTER,
      passed: 0,
      failed: 3,
      leftOut: 3,
      exitCode: 1,
    });
    expect(report.cases).toContainEqual({
      name: 'context_none_current_returns_107002_on_every_checked_call',
      verdict: 'FAIL',
      call: 'aclrtMallocHost(&p, 64)',
      expected: '107002 (ACL_ERROR_RT_CONTEXT_NULL)',
      actual: '107000 (ACL_ERROR_RT_PARAM_INVALID)',
      cannSource: expect.stringMatching(/^api_impl\.cc:2426-2430 HostMalloc /),
      suiteLine: expect.stringMatching(/^test\/cases_contexts\.c:\d+$/),
    });
  },
);

test('bad usage exits 2 naming the problem and the fix', async () => {
  const missing = await cliInProcess(['conformance', '--library', path.join(dir, 'nowhere', 'libascendcl.so')]);
  expect(missing.code).toBe(2);
  expect(missing.stderr).toContain('no such file. Give the path of a libascendcl.so (real CANN: $ASCEND_HOME_PATH/lib64/libascendcl.so');

  const notElf = path.join(dir, 'not-a-library.so');
  writeFileSync(notElf, 'not ELF\n');
  const broken = await cliInProcess(['conformance', '--library', notElf]);
  expect(broken.code).toBe(2);
  expect(broken.stderr).toMatch(
    /the conformance runner cannot run with .*not-a-library\.so \(exit 127\): .*(invalid ELF header|file too short)/,
  );

  const none = await cliInProcess(['conformance', '--mode', 'stub', 'no_case_is_named_like_this']);
  expect(none.code).toBe(2);
  expect(none.stderr).toContain("no conformance case's name contains no_case_is_named_like_this");

  const both = await cliInProcess(['conformance', '--mode', 'stub', '--library', stubLibrary]);
  expect(both.code).toBe(2);
  expect(both.stderr).toContain('give --library or --mode, not both');

  const json = await cliInProcess([
    'conformance',
    '--mode',
    'stub',
    '--json',
    path.join(dir, 'no-such-folder', 'r.json'),
    'device_bad_ids',
  ]);
  expect(json.code).toBe(2);
  expect(json.stderr).toContain(`its folder ${path.join(dir, 'no-such-folder')} does not exist; create it or give another path`);
  expect(json.stdout).not.toContain('PASS'); // refused before any case ran

  const jobs = await cliInProcess(['conformance', '--jobs', '0']);
  expect(jobs.code).toBe(2);
  expect(jobs.stderr).toContain('--jobs 0: give a whole number from 1 to 256');
});

test("the runner's output read back: verdicts, a skip as a failure, the fields under a FAIL and not the case's own lines", () => {
  const text = [
    'conformance: library /x/libascendcl.so (the stub: it exports cannstub_live_view; every case runs)',
    'LEFT OUT a_stub_rule: stub-only: why (contract S7)',
    'PASS passes                                                 12 ms      1 ms CPU',
    'SKIP (counted as failure) skips                             3 ms      0 ms CPU  (exit 77)',
    '     failure:     skipped itself (a skip counts as a failure): needs 9 devices',
    '     --- the case\'s output ---',
    'FAIL fails                                                  5 ms      1 ms CPU  (exit 1)',
    '     call:        aclrtX(a)',
    '     expected:    0 (ACL_SUCCESS)',
    '     actual:      107000 (ACL_ERROR_RT_PARAM_INVALID)',
    '     CANN source: x.cc:1 (hicann/runtime 681ef7610)',
    '     suite line:  test/cases_x.c:9',
    '     --- the case\'s output ---',
    'FAIL [fails pid 7] test/cases_x.c:9: a check failed',
    '    call:        aclrtX(a)',
    '     call:        not a field of the runner',
    'PASS [a case printing like a verdict] 1 ms 1 ms CPU',
    'conformance: 1 passed, 2 failed',
  ].join('\n');
  expect(parseRunnerOutput(text)).toEqual([
    { name: 'a_stub_rule', verdict: 'LEFT OUT', reason: 'why (contract S7)' },
    { name: 'passes', verdict: 'PASS' },
    { name: 'skips', verdict: 'FAIL', failure: 'skipped itself (a skip counts as a failure): needs 9 devices' },
    {
      name: 'fails',
      verdict: 'FAIL',
      call: 'aclrtX(a)',
      expected: '0 (ACL_SUCCESS)',
      actual: '107000 (ACL_ERROR_RT_PARAM_INVALID)',
      cannSource: 'x.cc:1 (hicann/runtime 681ef7610)',
      suiteLine: 'test/cases_x.c:9',
    },
  ]);
});
