/**
 * Library resolution (auto | stub | real): pure file-system logic, runs inside Jest (no koffi).
 * Real CANN is faked with empty files named libascendcl.so in a temp dir; the system search is
 * turned off so the result does not depend on what this machine has installed.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { LibraryNotFoundError, defaultStubPath, repoRoot, resolveHoldLibrary, resolveLibrary } from '../../src/acl';
import { resolvePreloadLibrary } from '../../src/acl/resolve';

const arch = process.arch === 'arm64' ? 'aarch64' : 'x86_64';

describe('resolveLibrary', () => {
  let dir: string;
  let stub: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acl-resolve-'));
    stub = path.join(dir, 'stub', 'libascendcl.so');
    fs.mkdirSync(path.dirname(stub));
    fs.writeFileSync(stub, '');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  const fakeCann = (rel: string): string => {
    const file = path.join(dir, 'cann', rel, 'libascendcl.so');
    fs.mkdirSync(path.dirname(file), { recursive: true });
    fs.writeFileSync(file, '');
    return file;
  };
  const caught = (fn: () => unknown): LibraryNotFoundError => {
    try {
      fn();
    } catch (e) {
      expect(e).toBeInstanceOf(LibraryNotFoundError);
      return e as LibraryNotFoundError;
    }
    throw new Error('expected a LibraryNotFoundError');
  };

  test('the repo root is found from the module location, and the stub lives in its native-stub build', () => {
    expect(fs.existsSync(path.join(repoRoot, 'package.json'))).toBe(true);
    expect(defaultStubPath).toBe(path.join(repoRoot, 'native-stub', 'build', 'lib64', 'libascendcl.so'));
  });

  test('stub mode picks the stub', () => {
    const c = resolveLibrary({ mode: 'stub', env: {}, stubPath: stub });
    expect(c).toMatchObject({ mode: 'stub', requested: 'stub', path: stub, tried: [stub] });
  });

  test('the mode comes from CANN_HARNESS_MODE when no option is given, and bad values are rejected', () => {
    expect(resolveLibrary({ env: { CANN_HARNESS_MODE: 'stub' }, stubPath: stub }).requested).toBe('stub');
    expect(resolveLibrary({ env: {}, stubPath: stub, searchSystem: false }).requested).toBe('auto');
    expect(() => resolveLibrary({ env: { CANN_HARNESS_MODE: 'gpu' }, stubPath: stub })).toThrow(
      'CANN_HARNESS_MODE must be one of auto, stub, real; got "gpu"',
    );
  });

  test('auto falls back to the stub and says why in one line', () => {
    const env = { ASCEND_HOME_PATH: path.join(dir, 'cann') };
    const c = resolveLibrary({ mode: 'auto', env, stubPath: stub, searchSystem: false });
    expect(c.mode).toBe('stub');
    expect(c.path).toBe(stub);
    expect(c.reason).toMatch(/^auto: using the stub .* because no real libascendcl\.so was found/);
    expect(c.reason).toContain(`ASCEND_HOME_PATH=${path.join(dir, 'cann')}`);
    expect(c.reason).not.toContain('\n');
    expect(c.tried[c.tried.length - 1]).toBe(stub);
    expect(c.tried).toContain(path.join(dir, 'cann', 'lib64', 'libascendcl.so'));
  });

  test('auto picks a real library when one is found', () => {
    const real = fakeCann('lib64');
    const c = resolveLibrary({ mode: 'auto', env: { ASCEND_HOME_PATH: path.join(dir, 'cann') }, stubPath: stub, searchSystem: false });
    expect(c).toMatchObject({ mode: 'real', requested: 'auto', path: real });
    expect(c.reason).toBe(`auto: found real CANN runtime: ${real} (via ASCEND_HOME_PATH)`);
  });

  test.each([
    ['ASCEND_HOME_PATH', `${arch}-linux/lib64`],
    ['ASCEND_TOOLKIT_HOME', 'runtime/lib64'],
    ['ASCEND_INSTALL_PATH', 'ascend-toolkit/latest/lib64'],
  ])('real mode finds the library under %s/%s', (variable, rel) => {
    const real = fakeCann(rel);
    const c = resolveLibrary({ mode: 'real', env: { [variable]: path.join(dir, 'cann') }, stubPath: stub, searchSystem: false });
    expect(c).toMatchObject({ mode: 'real', requested: 'real', path: real });
    expect(c.reason).toContain(`via ${variable}`);
  });

  test('real mode searches LD_LIBRARY_PATH after the CANN variables', () => {
    const real = fakeCann('somewhere');
    const env = { ASCEND_HOME_PATH: path.join(dir, 'empty'), LD_LIBRARY_PATH: `/nonexistent-dir:${path.dirname(real)}` };
    const c = resolveLibrary({ mode: 'real', env, stubPath: stub, searchSystem: false });
    expect(c.path).toBe(real);
    expect(c.tried.indexOf(path.join(dir, 'empty', 'lib64', 'libascendcl.so'))).toBeLessThan(c.tried.indexOf(real));
  });

  test('real mode with nothing installed lists every path tried and suggests set_env.sh', () => {
    const home = path.join(dir, 'fake-ascend');
    fs.mkdirSync(home);
    const env = { ASCEND_HOME_PATH: home, LD_LIBRARY_PATH: path.join(dir, 'ld') };
    const e = caught(() => resolveLibrary({ mode: 'real', env, stubPath: stub, searchSystem: false }));
    const expected = [
      path.join(home, 'lib64', 'libascendcl.so'),
      path.join(home, 'runtime', 'lib64', 'libascendcl.so'),
      path.join(home, `${arch}-linux`, 'lib64', 'libascendcl.so'),
      path.join(home, 'lib', 'libascendcl.so'),
      path.join(dir, 'ld', 'libascendcl.so'),
    ];
    expect(e.tried).toEqual(expected);
    for (const p of expected) expect(e.message).toContain(`\n  ${p}`);
    expect(e.message).toContain('source <CANN install>/set_env.sh');
    expect(e.message).toContain('ASCEND_TOOLKIT_HOME=(unset)');
    expect(e.requested).toBe('real');
  });

  test('real mode also asks the system loader locations unless told not to', () => {
    const e = caught(() => resolveLibrary({ mode: 'real', env: { ASCEND_HOME_PATH: path.join(dir, 'none') }, stubPath: stub }));
    expect(e.tried).toContain('/usr/lib64/libascendcl.so');
    expect(e.tried).toContain('/usr/local/Ascend/ascend-toolkit/latest/lib64/libascendcl.so');
  });

  test('a missing stub says how to build it', () => {
    const missing = path.join(dir, 'no-build', 'libascendcl.so');
    const e = caught(() => resolveLibrary({ mode: 'stub', env: {}, stubPath: missing }));
    expect(e.message).toContain(missing);
    expect(e.message).toContain('npm run build:stub');
    // In auto mode the message also says no real runtime was found.
    const e2 = caught(() => resolveLibrary({ mode: 'auto', env: {}, stubPath: missing, searchSystem: false }));
    expect(e2.message).toContain('npm run build:stub');
    expect(e2.message).toContain('set_env.sh');
  });

  test('CANN_HARNESS_LIBRARY overrides the search; a wrong override is an error naming it', () => {
    const real = fakeCann('custom');
    expect(resolveLibrary({ mode: 'real', env: { CANN_HARNESS_LIBRARY: real }, stubPath: stub })).toMatchObject({
      mode: 'real',
      path: real,
      reason: `real: ${real} (from CANN_HARNESS_LIBRARY)`,
    });
    expect(resolveLibrary({ mode: 'auto', env: { CANN_HARNESS_LIBRARY: stub }, stubPath: stub }).mode).toBe('stub');
    const missing = path.join(dir, 'nope.so');
    const e = caught(() => resolveLibrary({ mode: 'stub', env: { CANN_HARNESS_LIBRARY: missing }, stubPath: stub }));
    expect(e.message).toContain(`CANN_HARNESS_LIBRARY=${missing} does not exist`);
    expect(e.tried).toEqual([missing]);
  });

  test('a missing native helper library (watchdog, hold, latch) says what needs it and how to build it', () => {
    const missing = path.join(dir, 'libcannharness_hold.so');
    expect(() => resolveHoldLibrary({ CANN_HARNESS_HOLD_LIBRARY: missing })).toThrow(/libcannharness_hold\.so does not exist; every device process's watchdog thread, stream\.hold\(\) and stream\.latch\(\) need it.*npm run build:stub/);
  });

  test('the preload of native roles is found next to the helper library, or its absence says why it is needed', () => {
    expect(resolvePreloadLibrary({})).toBe(path.join(path.dirname(resolveHoldLibrary({})), 'libcannharness_preload.so'));
    const hold = path.join(dir, 'libcannharness_hold.so');
    fs.writeFileSync(hold, '');
    expect(() => resolvePreloadLibrary({ CANN_HARNESS_HOLD_LIBRARY: hold })).toThrow(
      new RegExp(`${path.join(dir, 'libcannharness_preload.so').replace(/[.]/g, '\\.')} does not exist: native roles need it next to .*npm run build:stub`),
    );
  });
});
