import { deviceGate, parseProbe, requiredDevices } from '../../src/jest/probe';
import globalSetup from '../../src/jest/global-setup';
import { finishRunNotes } from '../../src/jest/run-notes';
import type { PrecheckResult } from '../../src/orchestrator';

const probe: PrecheckResult = { ok: true, mode: 'stub', library: '/x/libascendcl.so', reason: 'stub', deviceCount: 8, ipcSupported: true };

test('runs when enough devices, skips with the reason when not', () => {
  expect(deviceGate(8, probe, {})).toEqual({ run: true });
  expect(deviceGate(9, probe, {})).toEqual({ run: false, skip: true, reason: 'needs 9 devices, 8 available' });
  expect(deviceGate(16, probe, {}, 'role far is on device 15')).toMatchObject({ skip: true, reason: 'needs 16 devices (role far is on device 15), 8 available' });
  expect(deviceGate(1, { ...probe, ipcSupported: false }, {})).toMatchObject({ skip: true, reason: 'IPC events are not supported by /x/libascendcl.so' });
  expect(deviceGate(1, { ...probe, ok: false, deviceCount: 0, error: 'no usable libascendcl\nmore' }, {})).toMatchObject({
    skip: true,
    reason: 'no usable ACL runtime: no usable libascendcl',
  });
});

test('CANN_HARNESS_REQUIRE_DEVICES=N turns skips of scenarios needing <= N devices into failures', () => {
  const env = { CANN_HARNESS_REQUIRE_DEVICES: '12' };
  expect(deviceGate(12, probe, env)).toEqual({
    run: false,
    skip: false,
    reason: 'CANN_HARNESS_REQUIRE_DEVICES=12 says this runner must have 12 devices, but: needs 12 devices, 8 available (mode stub, library /x/libascendcl.so)',
  });
  expect(deviceGate(13, probe, env)).toMatchObject({ skip: true });
  expect(deviceGate(4, probe, env)).toEqual({ run: true });
});

test('malformed settings are rejected with the fix', () => {
  expect(requiredDevices({})).toBeNull();
  expect(requiredDevices({ CANN_HARNESS_REQUIRE_DEVICES: ' 4 ' })).toBe(4);
  expect(() => requiredDevices({ CANN_HARNESS_REQUIRE_DEVICES: 'all' })).toThrow('CANN_HARNESS_REQUIRE_DEVICES must be a whole number of devices (got "all"), e.g. CANN_HARNESS_REQUIRE_DEVICES=8');
  expect(() => parseProbe('{nope')).toThrow(/CANN_HARNESS_PROBE is not valid JSON/);
  expect(() => parseProbe('{"ok":true}')).toThrow(/must be a precheck result/);
});

test('global setup stops the run when no ACL runtime is usable at all (instead of skipping every scenario)', async () => {
  const saved = process.env.CANN_HARNESS_PROBE;
  const savedNotes = process.env.CANN_HARNESS_NOTES_LOG;
  try {
    process.env.CANN_HARNESS_PROBE = JSON.stringify({ ...probe, ok: false, deviceCount: 0, error: 'the stub library /x does not exist. Build it with `npm run build:stub`' });
    await expect(globalSetup()).rejects.toThrow(
      'no usable ACL runtime (stub mode): the stub library /x does not exist. Build it with `npm run build:stub`\nno scenario can run without an ACL runtime',
    );
    process.env.CANN_HARNESS_PROBE = JSON.stringify(probe);
    await expect(globalSetup()).resolves.toBeUndefined();
  } finally {
    if (saved === undefined) delete process.env.CANN_HARNESS_PROBE;
    else process.env.CANN_HARNESS_PROBE = saved;
    finishRunNotes(); // the passing setup made this run's notes file: the teardown's part
    if (savedNotes !== undefined) process.env.CANN_HARNESS_NOTES_LOG = savedNotes;
  }
});
