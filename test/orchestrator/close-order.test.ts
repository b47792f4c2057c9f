/**
 * The status of a role is decided once everything it sent is in ('close'), never at 'exit'.
 * Node can deliver a child's 'exit' before its last message has been read (many children exiting together,
 * a large result): these tests script exactly that order with a stand-in child process, so the
 * order is forced rather than hoped for.
 */
import { RoleProcess } from '../../src/orchestrator/role-process';
import type { RunEvent } from '../../src/orchestrator';
import { asChildProcess, says, scriptedChild } from '../support/scripted-child';

function launch(child: ReturnType<typeof scriptedChild>) {
  const events: RunEvent[] = [];
  const role = new RoleProcess({
    spec: { name: 'consumer-19', device: 3, entry: { module: '/dev/null', export: 'x' } },
    index: 19,
    dir: '/nonexistent',
    mode: 'stub',
    echo: false,
    emit: (e) => events.push(e),
    startDevice: () => asChildProcess(child),
  });
  const ended: string[] = [];
  role.start((r) => ended.push(r.finalStatus!));
  return { role, events, ended };
}

const bigValue = { payload: 'x'.repeat(256 * 1024) };

test("'exit' before the result message: the role still passes with its value", async () => {
  const child = scriptedChild();
  const { role, ended } = launch(child);
  child.stdout.write('last words\n');
  child.emit('exit', 0, null); // the process is gone...
  expect(role.finalStatus).toBeUndefined(); // ...but nothing is decided until everything is read
  expect(ended).toEqual([]);
  says(child, { type: 'result', ok: true, value: bigValue }); // ...then its result arrives
  child.stdout.end();
  child.emit('close', 0, null);
  await role.finished;
  const r = role.result();
  expect(ended).toEqual(['passed']);
  expect(r).toMatchObject({ status: 'passed', exitCode: 0, value: bigValue, stdout: 'last words\n' });
  expect(r.error).toBeUndefined();
});

test("'exit' before an error result: the role's own error (and its time) is reported, not 'exited before reporting'", async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  child.emit('exit', 1, null);
  says(child, { type: 'result', ok: false, error: { message: 'open failed', tNs: '123' } });
  child.emit('close', 1, null);
  await role.finished;
  expect(role.result()).toMatchObject({ status: 'failed', error: { message: 'open failed' }, failedAtNs: '123' });
});

test('a process that really ended without a result is still a failure at close', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  child.emit('exit', 0, null);
  child.emit('close', 0, null);
  await role.finished;
  expect(role.result()).toMatchObject({ status: 'failed', error: { message: 'exited with code 0 before reporting a result' } });
});

test('an error the role caught before it was stopped is its own failure, even if it arrives after the stop', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  const before = process.hrtime.bigint().toString();
  role.stop('stopped', 'stopped because role "consumer-3" failed', 60_000);
  says(child, { type: 'result', ok: false, error: { message: 'producer threw after sharing', tNs: before } });
  child.emit('exit', null, 'SIGTERM');
  child.emit('close', null, 'SIGTERM');
  await role.finished;
  expect(role.result()).toMatchObject({ status: 'failed', error: { message: 'producer threw after sharing' }, failedAtNs: before });
});

test('what a role says after it was stopped is kept as errorWhileStopping, and it stays stopped', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  role.stop('stopped', 'stopped because role "producer" failed', 60_000);
  const after = process.hrtime.bigint().toString();
  says(child, { type: 'result', ok: false, error: { message: 'The service was stopped', tNs: after } });
  child.emit('exit', null, 'SIGTERM');
  child.emit('close', null, 'SIGTERM');
  await role.finished;
  const r = role.result();
  expect(r).toMatchObject({ status: 'stopped', errorWhileStopping: { message: 'The service was stopped' } });
  expect(r.error!.message).toBe('stopped because role "producer" failed');
});

// One shape for one failure, whatever the timing (issue #20, item 1): a consumer that opened the
// handle and got an ACL error is a failed role (a consequence), whether its message came before or
// after our stop, and it is never shown "waiting for" the handle it had already received.
test('an ACL error a role reports after a fail-fast stop is its own failure, with its own time', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  role.stop('stopped', 'stopped because role "producer" failed', 60_000);
  const after = process.hrtime.bigint().toString();
  const acl = { code: 107017, name: 'ACL_ERROR_RT_INVALID_HANDLE', call: 'aclrtIpcOpenEventHandle', args: 'handle=…', recentErrMsg: null };
  says(child, { type: 'result', ok: false, error: { message: 'open failed', tNs: after, acl } });
  child.emit('exit', null, 'SIGTERM');
  child.emit('close', null, 'SIGTERM');
  await role.finished;
  const r = role.result();
  expect(r).toMatchObject({ status: 'failed', error: { message: 'open failed', acl }, failedAtNs: after });
  expect(r.errorWhileStopping).toBeUndefined();
});

test('a wait that ended before the stop (its message arriving after it) is not shown as what the stopped role waited for', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  says(child, { type: 'waiting', waitingFor: { what: 'handle "ev"', from: 'producer' }, tNs: process.hrtime.bigint().toString() });
  const ended = process.hrtime.bigint().toString(); // the wait ends here, in the child...
  role.stop('stopped', 'stopped because role "producer" failed', 60_000);
  says(child, { type: 'waiting', waitingFor: null, tNs: ended }); // ...and we hear of it after the stop
  says(child, { type: 'waiting', waitingFor: { what: 'signal "x"' }, tNs: process.hrtime.bigint().toString() }); // a wait begun while dying
  child.emit('exit', null, 'SIGTERM');
  child.emit('close', null, 'SIGTERM');
  await role.finished;
  expect(role.result()).toMatchObject({ status: 'stopped' });
  expect(role.result().waitingFor).toBeUndefined();
});

test('a wait still in progress at the stop stays what the stopped role waited for', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  says(child, { type: 'waiting', waitingFor: { what: 'handle "ev"', from: 'producer' }, tNs: process.hrtime.bigint().toString() });
  role.stop('stopped', 'stopped because role "producer" failed', 60_000);
  says(child, { type: 'waiting', waitingFor: null, tNs: process.hrtime.bigint().toString() }); // ended while dying
  child.emit('exit', null, 'SIGTERM');
  child.emit('close', null, 'SIGTERM');
  await role.finished;
  expect(role.result().waitingFor).toEqual({ what: 'handle "ev"', from: 'producer' });
});

test('a role whose body finished with success while it was being stopped at the deadline says so, not just "timeout: exit code 0"', async () => {
  const child = scriptedChild();
  const { role } = launch(child);
  role.stop('timeout', 'still running when the 100 ms deadline of scenario "x" expired', 60_000);
  says(child, { type: 'result', ok: true, value: 'done' });
  child.emit('exit', 0, null);
  child.emit('close', 0, null);
  await role.finished;
  const r = role.result();
  expect(r).toMatchObject({ status: 'timeout', exitCode: 0 });
  expect(r.error!.message).toBe(
    'still running when the 100 ms deadline of scenario "x" expired; its body then finished with success while it was being stopped (exit code 0), too late to count',
  );
});
