/**
 * The child-process host's state machine (src/orchestrator/process-host.ts), driven by a scripted
 * stand-in child so every event order is forced rather than hoped for.
 */
import { OutputCapture } from '../../src/orchestrator/output-capture';
import {
  CLOSE_AFTER_EXIT_BOUND_MS,
  IllegalHostTransition,
  ProcessHost,
  checkTransition,
  type HostState,
} from '../../src/orchestrator/process-host';
import { asChildProcess, says, scriptedChild } from '../support/scripted-child';

function hosted(child = scriptedChild()) {
  const seen: string[] = [];
  const stderr = new OutputCapture();
  const host = new ProcessHost({
    what: 'under test',
    spawn: () => asChildProcess(child),
    stdout: new OutputCapture(),
    stderr,
    onMessage: (m) => seen.push(`message ${JSON.stringify(m)} in ${host.state}`),
    onClosed: () => seen.push(`closed in ${host.state}`),
  });
  return { host, child, seen, stderr };
}

test('a normal life: created -> starting -> running -> exited -> closed, and a message after exit is still in before close', async () => {
  const { host, child, seen } = hosted();
  expect(host.state).toBe('created');
  host.start();
  expect(host.state).toBe('running');
  expect(host.alive).toBe(true);
  child.emit('exit', 0, null);
  expect(host.state).toBe('exited');
  expect(host.alive).toBe(false);
  says(child, { last: true });
  child.emit('close', 0, null);
  await host.closed;
  expect(seen).toEqual(['message {"last":true} in exited', 'closed in closed']);
  expect(host).toMatchObject({ state: 'closed', exitCode: 0, exitSignal: null });
});

test('stop: running -> stopping once; a second stop is refused; killNow after the exit is a no-op', async () => {
  const { host, child } = hosted();
  host.start();
  expect(host.stop(10_000)).toBe(true);
  expect(host.state).toBe('stopping');
  expect(host.stop(10_000)).toBe(false);
  host.killNow(); // still stopping: SIGKILL now, no transition
  expect(host.state).toBe('stopping');
  child.emit('exit', null, 'SIGKILL');
  host.killNow();
  expect(host.state).toBe('exited');
  child.emit('close', null, 'SIGKILL');
  await host.closed;
  expect(host.exitSignal).toBe('SIGKILL');
});

test('a spawn that failed (no pid, then an error event): starting -> exited -> closed with the error kept', async () => {
  const { host, child } = hosted(scriptedChild(null));
  host.start();
  expect(host.state).toBe('starting');
  child.emit('error', new Error('spawn EAGAIN'));
  await host.closed;
  expect(host.state).toBe('closed');
  expect(host.spawnError?.message).toBe('spawn EAGAIN');
});

test("'close' before 'exit' is not the end; 'close' that never comes is cut after the bound", async () => {
  jest.useFakeTimers();
  try {
    const { host, child, stderr } = hosted();
    host.start();
    child.emit('close', 0, null);
    expect(host.state).toBe('running');
    child.emit('exit', 0, null);
    expect(host.state).toBe('exited');
    jest.advanceTimersByTime(CLOSE_AFTER_EXIT_BOUND_MS);
    expect(host.state).toBe('closed');
    expect(stderr.text).toMatch(/output pipes were still open/);
    child.emit('close', 0, null); // late: ignored
    expect(host.state).toBe('closed');
  } finally {
    jest.useRealTimers();
  }
});

test('an illegal transition throws and names both states: starting a host twice', () => {
  const { host } = hosted();
  host.start();
  expect(() => host.start()).toThrow(IllegalHostTransition);
  expect(() => host.start()).toThrow('process host under test: illegal transition running -> starting (allowed from running: stopping, exited)');
});

test.each<[HostState, HostState]>([
  ['created', 'running'],
  ['running', 'closed'],
  ['stopping', 'running'],
  ['exited', 'running'],
  ['closed', 'exited'],
  ['closed', 'starting'],
])('illegal: %s -> %s', (from, to) => {
  expect(() => checkTransition(from, to, 'x')).toThrow(IllegalHostTransition);
});

test.each<[HostState, HostState]>([
  ['created', 'starting'],
  ['starting', 'running'],
  ['starting', 'exited'],
  ['running', 'stopping'],
  ['running', 'exited'],
  ['stopping', 'exited'],
  ['exited', 'closed'],
])('legal: %s -> %s', (from, to) => {
  expect(() => checkTransition(from, to, 'x')).not.toThrow();
});
