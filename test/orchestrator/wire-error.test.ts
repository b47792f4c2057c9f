/**
 * The one wire format of errors crossing processes and threads (src/wire/wire-error.ts):
 * what the serializer writes the parser accepts, a revived error serializes to the same thing, and
 * a malformed message becomes a protocol error naming its sender instead of a crash.
 */
import { AclError } from '../../src/acl/errors';
import { RoleProcess } from '../../src/orchestrator/role-process';
import { parseFromChild } from '../../src/wire/protocol';
import { parseRoleError, reviveError, toRoleError } from '../../src/wire/wire-error';
import { rebuildError } from '../../harness/scenario/threads/pool';
import { asChildProcess, says, scriptedChild } from '../support/scripted-child';

const aclError = () => new AclError({ code: 107017, call: 'aclrtDestroyStream', args: 'stream=0x1', detail: 'stream was destroyed' });

test('an AclError: serialized with its ACL part (as AclError.toJSON()), accepted by the parser', () => {
  const wire = toRoleError(aclError(), 'thread body');
  expect(wire).toMatchObject({ name: 'AclError', message: expect.stringMatching(/^thread body: aclrtDestroyStream\(stream=0x1\) failed/), acl: aclError().toJSON() });
  expect(parseRoleError(JSON.parse(JSON.stringify(wire)))).toEqual({ ok: true, value: wire });
});

test('revived on the other side and serialized again: prefix added, class name and ACL part kept', () => {
  const wire = toRoleError(aclError());
  const again = toRoleError(reviveError(wire, 'thread 2'));
  expect(again).toMatchObject({ name: 'AclError', message: `thread 2: ${wire.message}`, acl: wire.acl });
  expect(again.stack).toMatch(/^AclError: thread 2: /);
  expect(toRoleError(reviveError(toRoleError(new TypeError('x')), 't'))).toMatchObject({ name: 'TypeError', message: 't: x' });
  expect(toRoleError(new Error('plain')).name).toBeUndefined();
});

test.each([
  [null, 'the error is null, not an object'],
  [{ stack: 's' }, 'error.message is missing, not a string'],
  [{ message: 'm', tNs: 'soon' }, 'error.tNs is "soon", not a decimal string of nanoseconds'],
  [{ message: 'm', acl: { code: 1, name: 'N', args: '', recentErrMsg: null } }, 'error.acl.call is undefined, not a string'],
  [{ message: 'm', acl: { code: 1.5, name: 'N', call: 'c', args: '', recentErrMsg: null } }, 'error.acl.code is 1.5, not an integer'],
])('malformed error %j: %s', (raw, problem) => {
  expect(parseRoleError(raw)).toEqual({ ok: false, problem });
});

test('a thrown value that is not an Error keeps its whole content (`throw { ... }`)', () => {
  expect(toRoleError({ message: 'not found', status: 404, body: { id: 7 } }).message).toBe(
    "not found (a non-Error object was thrown: { message: 'not found', status: 404, body: { id: 7 } })",
  );
  expect(toRoleError({ code: 3, big: 2n ** 70n }).message).toBe('non-Error value thrown: { code: 3, big: 1180591620717411303424n }');
  expect(toRoleError('plain text').message).toBe('non-Error value thrown: plain text');
  expect(toRoleError(new Error('an Error')).message).toBe('an Error');
});

test('device-process messages are checked by type', () => {
  expect(parseFromChild({ type: 'mark', name: 'm', tNs: '12' }).ok).toBe(true);
  expect(parseFromChild({ type: 'mark', name: 'm', tNs: 12 })).toEqual({ ok: false, problem: '"mark".tNs is 12, not a decimal string of nanoseconds' });
  expect(parseFromChild({ type: 'result', ok: 'yes' })).toEqual({ ok: false, problem: '"result".ok is "yes", not a boolean' });
  expect(parseFromChild({ type: 'result', ok: false })).toEqual({ ok: false, problem: '"result": the error is undefined, not an object' });
  expect(parseFromChild({ type: 'waiting', waitingFor: { what: 'x' } }).ok).toBe(true);
});

function launchScripted() {
  const child = scriptedChild();
  const role = new RoleProcess({
    spec: { name: 'consumer', device: 1, entry: { module: '/dev/null', export: 'x' } },
    index: 0,
    dir: '/nonexistent',
    mode: 'stub',
    echo: false,
    emit: () => undefined,
    startDevice: () => asChildProcess(child),
  });
  role.start(() => undefined);
  return { role, child };
}

test('a malformed result from a device process: the role fails with a protocol error naming it (no crash, a later result is not taken)', async () => {
  const { role, child } = launchScripted();
  says(child, { type: 'result', ok: false, error: { message: 42 } });
  says(child, { type: 'result', ok: true, value: 1 });
  child.emit('exit', 1, null);
  child.emit('close', 1, null);
  await role.finished;
  const r = role.result();
  expect(r.status).toBe('failed');
  expect(r.error!.message).toBe('protocol error: role "consumer" sent a malformed message ("result": error.message is 42, not a string); this is a harness bug, please report it');
  expect(r.stderr).toContain('[harness] protocol error: role "consumer"');
  expect(r.failedAtNs).toMatch(/^\d+$/);
});

test('the job is the first line the parent writes on the message pipe', () => {
  const { child } = launchScripted();
  expect(child.written).toHaveLength(1);
  expect(JSON.parse(child.written[0])).toEqual({
    type: 'job',
    job: { role: 'consumer', device: 1, index: 0, dir: '/nonexistent', mode: 'stub', entry: { module: '/dev/null', export: 'x' } },
  });
  expect(child.written[0].endsWith('\n')).toBe(true);
});

test("JSON on the message pipe that is not the harness's is ignored", async () => {
  const { role, child } = launchScripted();
  says(child, { hello: 'parent' });
  says(child, 'text');
  says(child, { type: 'result', ok: true, value: 7 });
  child.emit('exit', 0, null);
  child.emit('close', 0, null);
  await role.finished;
  expect(role.result()).toMatchObject({ status: 'passed', value: 7, stderr: '' });
});

test('a message cut off by a crash is not a result: the role crashed, and its log says what was cut off', async () => {
  const { role, child } = launchScripted();
  says(child, { type: 'mark', name: 'before', tNs: '1' });
  child.stdio[3]!.emit('data', Buffer.from('{"type":"result","ok":true,"value":"yyyy')); // dies mid-write
  child.stdio[3]!.emit('end');
  child.emit('exit', null, 'SIGSEGV');
  child.emit('close', null, 'SIGSEGV');
  await role.finished;
  const r = role.result();
  expect(r.status).toBe('crashed');
  expect(r.error!.message).toBe('killed by signal SIGSEGV before reporting a result');
  expect(r.stderr).toBe('[harness] it ended in the middle of a message (40 bytes, not used: its exit status says what happened)\n');
  expect(r.marks.map((m) => m.name)).toEqual(['before']);
});

test('a line on the message pipe that is not JSON fails the role with a protocol error quoting it', async () => {
  const { role, child } = launchScripted();
  says(child, 'Segmentation{ half a line', { raw: true });
  says(child, { type: 'result', ok: true, value: 1 });
  child.emit('exit', 0, null);
  child.emit('close', 0, null);
  await role.finished;
  const r = role.result();
  expect(r.status).toBe('failed');
  expect(r.error!.message).toBe('protocol error: role "consumer" sent a malformed message (a line that is not JSON: "Segmentation{ half a line"); this is a harness bug, please report it');
});

test('a malformed error from a worker thread becomes a protocol error naming the thread', () => {
  const e = rebuildError(3, { ok: false, error: { message: undefined } as never, marks: [] });
  expect(e.message).toBe('protocol error: worker thread 3 sent a malformed message (error.message is missing, not a string); this is a harness bug, please report it');
  const ok = rebuildError(1, { ok: false, error: toRoleError(aclError()), marks: [] });
  expect(ok).toMatchObject({ name: 'AclError', code: 107017, codeName: 'ACL_ERROR_RT_INVALID_HANDLE', call: 'aclrtDestroyStream', detail: 'stream was destroyed' });
});
