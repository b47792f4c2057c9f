/**
 * `build:` once per run across Jest workers (src/jest/native-gate.ts buildOnce): the first worker
 * takes the lock and runs the command; a worker waiting for its outcome stops with a clear error
 * when the builder died, instead of waiting out the build timeout.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ENV } from '../../src/env';
import { buildOnce } from '../../src/jest/native-gate';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'native-gate-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const keyOf = (cwd: string, command: string) => createHash('sha256').update(`${cwd}\0${command}`).digest('hex').slice(0, 16);
const env = () => ({ ...process.env, [ENV.notesLog]: path.join(dir, 'notes.jsonl') });

test('the first worker builds and leaves its outcome for the others', () => {
  const command = 'echo built-once';
  const outcome = buildOnce(command, dir, env());
  expect(outcome).toMatchObject({ code: 0, stdout: 'built-once\n' });
  const key = keyOf(dir, command);
  expect(readFileSync(path.join(dir, `build-${key}.lock`), 'utf8')).toBe(String(process.pid));
  expect(JSON.parse(readFileSync(path.join(dir, `build-${key}.json`), 'utf8'))).toMatchObject({ code: 0 });
});

test('a waiting worker stops at once, naming the builder that died before its outcome', () => {
  const command = 'echo never-runs-here';
  const dead = spawnSync('true').pid!; // exited and reaped: no such process any more
  writeFileSync(path.join(dir, `build-${keyOf(dir, command)}.lock`), String(dead));
  expect(() => buildOnce(command, dir, env())).toThrow(`build "echo never-runs-here": the Jest worker that started it (pid ${dead}) died before it finished: run the tests again`);
  expect(existsSync(path.join(dir, `build-${keyOf(dir, command)}.json`))).toBe(false);
});
