/**
 * The README's native-roles build line (issue 33 item 4): a Makefile's
 * `FLAGS = $(shell npx cann-harness flags --cflags --libs)` must build a role that uses the C API
 * (cannharness.h) as well as ACL, as printed. Before, the C API needed `--harness` (only in
 * `--help`) and the documented line failed with undefined references to cannharness_*.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot } from './native-role-program';

const bin = path.join(repoRoot, 'bin', 'cann-harness.js');
let dir: string;
beforeAll(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'flags-one-liner-'))));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const flags = (...args: string[]) => execFileSync(process.execPath, [bin, 'flags', '--mode', 'stub', ...args], { encoding: 'utf8' }).trim();

test('the documented Makefile line builds a role that uses cannharness.h and ACL, and the program runs', () => {
  const source = path.join(dir, 'role.c');
  writeFileSync(
    source,
    [
      '#include <stdio.h>',
      '#include "acl/acl.h"',
      '#include "cannharness.h"',
      'int main(void) {',
      '    printf("%s %s\\n", cannharness_err_name(CANNHARNESS_ETIMEDOUT), aclInit(NULL) == ACL_SUCCESS ? "acl" : "no acl");',
      '    return 0;',
      '}',
      '',
    ].join('\n'),
  );
  writeFileSync(
    path.join(dir, 'Makefile'),
    'FLAGS = $(shell node ' + bin + ' flags --mode stub --cflags --libs)\nrole: role.c\n\t$(CC) -std=c11 -Wall -Werror $< $(FLAGS) -o $@\n',
  );
  const make = spawnSync('make', ['-s', '-C', dir], { encoding: 'utf8' });
  expect(make.stderr).toBe('');
  expect(make.status).toBe(0);
  const run = spawnSync(path.join(dir, 'role'), { encoding: 'utf8', env: { ...process.env, ACL_STUB_DEVICE_COUNT: '1' } });
  expect(run.stdout).toBe('CANNHARNESS_ETIMEDOUT acl\n');
});

test('--no-harness leaves the C API out; --harness (older Makefiles) is still accepted', () => {
  expect(flags('--cflags', '--libs')).toMatch(/ -lcannharness( |$)/);
  expect(flags('--cflags', '--libs', '--no-harness')).not.toContain('cannharness');
  expect(flags('--libs', '--harness')).toBe(flags('--libs'));
});

test("--cflags: the stub's headers and the harness's are two folders, and --no-harness leaves cannharness.h off the path", () => {
  const stubHeaders = `-I${path.join(repoRoot, 'native-stub', 'include')}`;
  expect(flags('--cflags').split(' ')).toEqual([stubHeaders, `-I${path.join(repoRoot, 'native-stub', 'harness', 'include')}`]);
  expect(flags('--cflags', '--no-harness')).toBe(stubHeaders);
});
