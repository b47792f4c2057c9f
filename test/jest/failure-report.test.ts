import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { formatScenarioFailure } from '../../src/report/failure';
import type { RoleResult, RunResult } from '../../src/orchestrator';

const base = { index: 0, signal: null, durationMs: 1200, marks: [], stderr: '' };

const run: RunResult = {
  ok: false,
  dir: '/tmp/cann-harness-abc',
  kept: true,
  timedOut: false,
  durationMs: 1500,
  summary: '',
  roles: [
    {
      ...base,
      name: 'consumer-1',
      device: 2,
      pid: 4242,
      status: 'failed',
      exitCode: 1,
      stdout: Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join('\n') + '\n',
      stderr: 'warning: something\n',
      error: {
        message: 'aclrtIpcOpenEventHandle(handle=00…) failed: ACL_ERROR_RT_INVALID_HANDLE (107017): no such event',
        stack: 'AclError: ...\n    at EventImpl.open (/x/src/acl/runtime.ts:1:1)\n    at run (/x/specs/demo.spec.ts:42:7)',
        acl: { code: 107017, name: 'ACL_ERROR_RT_INVALID_HANDLE', call: 'aclrtIpcOpenEventHandle', args: 'handle=00…', recentErrMsg: 'no such event' },
      },
    },
    { ...base, name: 'producer', device: 0, pid: 4241, status: 'stopped', exitCode: null, signal: 'SIGTERM', stdout: '', waitingFor: { what: 'signal "consumer-1.done"', from: 'consumer-1' } },
    { ...base, name: 'consumer-0', device: 1, pid: 4243, status: 'passed', exitCode: 0, stdout: '' },
  ],
};

test('names the failed role, its exit code, the ACL error and call, its log tail, the others and the kept dir', () => {
  const text = formatScenarioFailure('demo', run);
  expect(text).toContain('scenario "demo" failed after 1500 ms');
  expect(text).toContain('role consumer-1 (device 2, pid 4242) failed: exit code 1');
  expect(text).toContain('ACL error: ACL_ERROR_RT_INVALID_HANDLE (107017) from aclrtIpcOpenEventHandle(handle=00…)');
  expect(text).toContain('runtime says: no such event');
  expect(text).toContain('where: run (/x/specs/demo.spec.ts:42:7)');
  expect(text).toContain('last 12 of 20 stdout lines:');
  expect(text).toContain('    | line 20');
  expect(text).not.toContain('| line 8\n');
  expect(text).toContain('    | warning: something');
  expect(text).toMatch(/producer\s+device 0 {2}stopped \(killed by SIGTERM, 1200 ms\), waiting for signal "consumer-1.done" from role consumer-1/);
  expect(text).toMatch(/consumer-0\s+device 1 {2}passed \(exit code 0/);
  expect(text).toContain('kept directory: /tmp/cann-harness-abc');
});

test('a timeout lists every role that was still running, and a removed dir says how to keep it', () => {
  const timedOut: RunResult = {
    ...run,
    timedOut: true,
    kept: false,
    roles: [{ ...run.roles[1], status: 'timeout' }, { ...run.roles[1], name: 'other', status: 'timeout', waitingFor: undefined }],
  };
  const text = formatScenarioFailure('slow', timedOut);
  expect(text).toContain('scenario "slow" timed out after 1500 ms');
  expect(text).toContain('role producer (device 0, pid 4241) timeout: killed by SIGTERM');
  expect(text).toContain('was waiting for: signal "consumer-1.done" from role consumer-1');
  expect(text).toContain('role other (device 0, pid 4241) timeout');
  expect(text).toContain('set CANN_HARNESS_KEEP=1 to keep it');
});

test('the first failure leads, later failures are marked as consequences, and stopped roles show what they said', () => {
  const blamed: RunResult = {
    ...run,
    firstFailure: { role: 'producer', status: 'failed', atNs: '100' },
    roles: [
      { ...run.roles[0], failedAtNs: '200', consequenceOf: 'producer' },
      {
        ...run.roles[1],
        status: 'failed',
        exitCode: 1,
        signal: null,
        failedAtNs: '100',
        error: { message: 'producer threw after sharing' },
        outputLoss: [{ stream: 'stdout', notKeptChars: 0, unflushedBytes: 5000 }],
      },
      {
        ...run.roles[2],
        status: 'stopped',
        exitCode: null,
        signal: 'SIGTERM',
        consequenceOf: 'producer',
        error: { message: 'stopped because role "producer" failed first' },
        errorWhileStopping: { message: 'The service was stopped' },
      },
    ],
  };
  const text = formatScenarioFailure('blame', blamed);
  expect(text).toContain('first failure: role producer (failed); the others came after it');
  // The first failure's block comes before the consequence's, whatever the order of roles.
  expect(text.indexOf('role producer (device 0')).toBeLessThan(text.indexOf('role consumer-1 (device 2'));
  expect(text).toContain('role consumer-1 (device 2, pid 4242) failed: exit code 1 (after role producer failed first: probably a consequence)');
  expect(text).toContain('stdout is incomplete: the last 5000 bytes (at most: a write still in progress counts whole) were never flushed (the process exited first)');
  expect(text).toMatch(/consumer-0\s+device 1 {2}stopped \(killed by SIGTERM, 1200 ms\): stopped because role "producer" failed first/);
  expect(text).toContain('while being stopped it reported an error: The service was stopped');
});

test('the kept-directory line lists what the directory holds (no trace.json with trace: never)', () => {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'failure-report-'));
  try {
    mkdirSync(path.join(dir, 'logs'));
    writeFileSync(path.join(dir, 'result.json'), '{}');
    writeFileSync(path.join(dir, 'signal.go'), '');
    expect(formatScenarioFailure('demo', { ...run, dir })).toContain(`kept directory: ${dir} (logs/, result.json, rendezvous files)`);
    mkdirSync(path.join(dir, 'trace'));
    writeFileSync(path.join(dir, 'trace.json'), '{}');
    expect(formatScenarioFailure('demo', { ...run, dir })).toContain(`kept directory: ${dir} (logs/, result.json, trace/, trace.json, rendezvous files)`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
