/**
 * docs/reference/stub-calls.md is made from the built stub (tools/stub-calls): it must be what the
 * command makes now, and the command must refuse an export it cannot describe.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { TABLE_FILE, problemsOf, readStubCalls, renderTable, type StubCalls } from '../../tools/stub-calls/table';

const REPO = path.resolve(__dirname, '..', '..');

test(`${TABLE_FILE} is what \`npm run docs:stub-calls\` makes from the built stub`, () => {
  const calls = readStubCalls(REPO);
  expect(problemsOf(calls)).toEqual([]);
  // A stale table names the command that fixes it.
  const current = fs.readFileSync(path.join(REPO, TABLE_FILE), 'utf8');
  if (current !== renderTable(calls)) throw new Error(`${TABLE_FILE} is stale: run \`npm run docs:stub-calls\` and commit it`);
  expect(calls.acl.map((r) => r.name)).toContain('aclrtIpcOpenEventHandle');
});

test('an export without a header, a definition or a CANN citation is a problem; a moved definition changes the table', () => {
  const row = {
    name: 'aclrtX',
    declared: 'native-stub/include/acl/acl_rt.h:1',
    implemented: 'native-stub/src/x.c:2',
    cann: 'src/acl/aclrt_impl/x.cpp:3',
  };
  const good: StubCalls = { acl: [row], extras: [], declaredOnly: [] };
  expect(problemsOf(good)).toEqual([]);
  expect(problemsOf({ ...good, acl: [{ ...row, declared: null }] })[0]).toMatch(/aclrtX is exported but declared in no header/);
  expect(problemsOf({ ...good, acl: [{ ...row, implemented: null }] })[0]).toMatch(/no STUB_EXPORT definition/);
  expect(problemsOf({ ...good, acl: [{ ...row, cann: null }] })[0]).toMatch(/no `CANN: <path>:<line>` comment/);
  expect(renderTable({ ...good, acl: [{ ...row, implemented: 'native-stub/src/x.c:3' }] })).not.toEqual(renderTable(good));
  expect(renderTable({ ...good, declaredOnly: ['aclrtY'] })).toContain('not exported (a program that calls them does not link): `aclrtY`');
});
