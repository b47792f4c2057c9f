/**
 * Every run gets a stub scope of its own (issue 33 item 11): a run whose environment sets no
 * ACL_STUB_SCOPE runs its roles in `harness-<pid>`, so the stub names, reclaims and reports only
 * that run's objects (before, a run without a scope reclaimed every job's objects and printed
 * "left /dev/shm/cannstub-ev-....ct... alone" of another job's); and the next start reclaims only
 * default scopes whose run is dead, never a live run's or another scope's.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runRoles } from '../../src/orchestrator';
import { deadRunScopes } from '../../src/orchestrator/dead-runs';
import { ensureRunStubScope } from '../../src/acl';
import { fixtureBuild, STUB_LIB_DIR, type FixtureBuild } from '../support/native-fixture';

const haveStub = existsSync(path.join(STUB_LIB_DIR, 'libascendcl.so'));
let build: FixtureBuild;
let program: string;
const fileScope = process.env.ACL_STUB_SCOPE;
beforeAll(() => {
  if (!haveStub) return;
  build = fixtureBuild();
  program = build.compile(path.join(__dirname, 'fixtures', 'native', 'native_role.c'), 'native_role');
});
afterAll(() => build?.remove());
afterEach(() => {
  if (fileScope === undefined) delete process.env.ACL_STUB_SCOPE;
  else process.env.ACL_STUB_SCOPE = fileScope;
});

(haveStub ? test : test.skip)('a run that sets no stub scope runs its roles in harness-<pid>; a scope that is set is kept', async () => {
  delete process.env.ACL_STUB_SCOPE;
  const r = await runRoles({
    roles: [{ name: 'solo', device: 0, native: { program, args: ['env'] } }],
    timeoutMs: 20_000,
    mode: 'stub',
    keepDir: false,
  });
  expect(r.roles[0].status).toBe('passed');
  expect(r.roles[0].stdout).toContain(`ACL_STUB_SCOPE=harness-${process.pid}\n`);
  process.env.ACL_STUB_SCOPE = 'mine-1';
  expect(ensureRunStubScope()).toBe('mine-1');
  const own = await runRoles({
    roles: [{ name: 'solo', device: 0, native: { program, args: ['env'] } }],
    timeoutMs: 20_000,
    mode: 'stub',
    keepDir: false,
  });
  expect(own.roles[0].stdout).toContain('ACL_STUB_SCOPE=mine-1\n');
});

test('a start reclaims only the default scopes of dead runs: not a live run\'s, not another scope, not unscoped objects', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'default-scope-'));
  try {
    const id = '0123456789abcdef';
    for (const name of [
      `cannstub-ev-${id}.harness-111`, // dead run
      `cannstub-nt-${id}.harness-111`,
      `cannstub-ev-${id}.harness-222`, // live run
      `cannstub-ev-${id}.harness-${process.pid}`, // this run
      `cannstub-ev-${id}.ct123c0`, // another job's own scope
      `cannstub-ev-${id}`, // unscoped
      `cannstub-ev-${id}.harness-333x`, // not a default scope
      'other-file.harness-444',
    ]) writeFileSync(path.join(dir, name), '');
    expect(deadRunScopes(dir, (pid) => pid === 222)).toEqual(['harness-111']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
