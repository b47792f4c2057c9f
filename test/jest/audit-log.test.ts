/**
 * `cann-harness audit`'s declaration log (src/jest/audit-log.ts): private and exclusive, never reached
 * through a symlink, and a malformed line is an error naming the file and the line.
 */
import { mkdtempSync, readFileSync, readdirSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { appendAuditDeclaration, createAuditLog, readAuditDeclarations, type LoggedDeclaration } from '../../src/jest/audit-log';

let base: string;
beforeEach(() => {
  base = mkdtempSync(path.join(os.tmpdir(), 'audit-log-test-'));
});
afterEach(() => rmSync(base, { recursive: true, force: true }));

const declared: LoggedDeclaration = { specFile: '/x/a.spec.ts', scenario: 'declared', audit: { expectSurvive: ['wait-noop'], reason: 'a copy of a sample' } };
const plain: LoggedDeclaration = { specFile: '/x/a.spec.ts', scenario: 'plain', audit: null };

test('the log is created empty in a private directory, and reads back what was appended', () => {
  const log = createAuditLog(base);
  const dir = path.dirname(log.file);
  expect(path.dirname(dir)).toBe(base);
  expect(statSync(dir).mode & 0o777).toBe(0o700);
  expect(statSync(log.file).mode & 0o777).toBe(0o600);
  expect(readFileSync(log.file, 'utf8')).toBe('');
  appendAuditDeclaration(log.file, declared);
  appendAuditDeclaration(log.file, plain);
  expect(readAuditDeclarations(log.file)).toEqual([declared, plain]);
  log.remove();
  expect(readdirSync(base)).toEqual([]);
});

test('a symlink in place of the log is never followed: appending fails and its target is untouched', () => {
  const log = createAuditLog(base);
  const victim = path.join(base, 'victim.txt');
  writeFileSync(victim, 'precious\n');
  unlinkSync(log.file);
  symlinkSync(victim, log.file);
  expect(() => appendAuditDeclaration(log.file, plain)).toThrow(`cannot append to the audit's declaration log ${log.file} (ELOOP: it is a symbolic link)`);
  expect(readFileSync(victim, 'utf8')).toBe('precious\n');
  expect(() => readAuditDeclarations(log.file)).toThrow(/ELOOP/);
  log.remove();
});

test('appending never creates the log (outside an audit there is nothing to append to)', () => {
  const missing = path.join(base, 'missing.jsonl');
  expect(() => appendAuditDeclaration(missing, plain)).toThrow(/ENOENT.*unset that variable outside an audit/);
  expect(readdirSync(base)).toEqual([]);
});

test.each([
  ['{"specFile":"/x/a.spec.ts","scenario":"torn', /not JSON \(/],
  ['{"specFile":"/x/a.spec.ts","scenario":"s","audit":{"expectSurvive":"wait-noop","reason":"r"}}', /not a declaration \(\{specFile, scenario, audit\}\)/],
  ['[1,2]', /not a declaration/],
])('a malformed line is an error naming the file and line: %s', (bad, why) => {
  const log = createAuditLog(base);
  appendAuditDeclaration(log.file, plain);
  writeFileSync(log.file, `${bad}\n`, { flag: 'a' });
  let message = '';
  try {
    readAuditDeclarations(log.file);
  } catch (e) {
    message = (e as Error).message;
  }
  expect(message).toContain(`${log.file}:2: malformed audit declaration, `);
  expect(message).toMatch(why);
  expect(message).not.toMatch(/^SyntaxError/);
  log.remove();
});
