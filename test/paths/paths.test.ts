/** src/paths is the one home of the harness's own file locations: each one exists, and no other product module computes them. */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { HARNESS_DIR, NATIVE_STUB_DIR, PACKAGE_ROOT, SRC_DIR, TS_REGISTER, TYPESCRIPT_TRANSFORM, harnessScript, srcModule } from '../../src/paths';

const REPO = path.resolve(__dirname, '..', '..');

test('every path it gives exists (here: a source checkout, .ts)', () => {
  expect(PACKAGE_ROOT).toBe(REPO);
  for (const file of [
    HARNESS_DIR,
    SRC_DIR,
    TS_REGISTER,
    TYPESCRIPT_TRANSFORM,
    harnessScript('device-process'),
    harnessScript('precheck'),
    srcModule('jest/setup'),
    srcModule('jest/probe-child'),
    harnessScript('scenario/role-entry'),
    path.join(NATIVE_STUB_DIR, 'Makefile'),
  ]) {
    expect([file, fs.existsSync(file)]).toEqual([file, true]);
  }
});

test('no other TypeScript module of src/ or harness/ computes a path from __dirname', () => {
  const offenders: string[] = [];
  for (const dir of ['src', 'harness']) {
    for (const f of fs.readdirSync(path.join(REPO, dir), { recursive: true, encoding: 'utf8' })) {
      const file = path.join(dir, f);
      if (!file.endsWith('.ts') || file.startsWith(path.join('src', 'paths'))) continue;
      fs.readFileSync(path.join(REPO, file), 'utf8').split('\n').forEach((line, i) => {
        if (/\b__(dirname|filename)\b/.test(line) && !/^\s*(\*|\/\/)/.test(line) && !/`[^`]*__dirname[^`]*`/.test(line)) offenders.push(`${file}:${i + 1}: ${line.trim()}`);
      });
    }
  }
  expect(offenders).toEqual([]);
});
