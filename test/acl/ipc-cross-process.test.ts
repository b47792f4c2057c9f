/**
 * An IPC event handle exported by one process and opened by others (real child processes that
 * coordinate through files in a temp dir). The producer's record is still pending (held by a
 * latch) when the consumers wait, so their waits must really block until it releases.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { runFixture, valueOf } from './helpers';

interface Producer {
  handle: string;
  pendingBeforePublish: boolean;
  releasedAt: string;
}
interface Consumer {
  handle: string;
  device: number;
  statusBeforeRelease: string;
  statusAfterRelease: string;
  syncBeforeRelease: number;
  eventSyncBeforeRelease: number;
  doneAt: string;
}

let dir: string;
let producer: Producer;
let consumers: Consumer[];

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acl-ipc-'));
  const devices = [0, 1]; // same device as the producer, and another one
  const producerRun = runFixture<Producer>('ipc-producer', [dir, String(devices.length)]);
  const consumerRuns = devices.map((device, i) => runFixture<Consumer>('ipc-consumer', [dir, String(i), String(device)]));
  producer = valueOf(await producerRun);
  consumers = (await Promise.all(consumerRuns)).map((r) => valueOf(r));
});

afterAll(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

test('the producer published the handle while its record was still pending', () => {
  expect(producer.pendingBeforePublish).toBe(true);
  expect(producer.handle).toMatch(/^[0-9a-f]{128}$/);
});

test('every consumer opened the exact bytes the producer exported', () => {
  for (const c of consumers) expect(c.handle).toBe(producer.handle);
  expect(consumers.map((c) => c.device)).toEqual([0, 1]);
});

test('before the release, consumers saw NOT_READY and their synchronize timed out (the wait blocked)', () => {
  for (const c of consumers) {
    expect(c.statusBeforeRelease).toBe('NOT_READY');
    expect(c.syncBeforeRelease).toBe(507046); // ACL_ERROR_RT_STREAM_SYNC_TIMEOUT
    expect(c.eventSyncBeforeRelease).toBe(507047); // ACL_ERROR_RT_EVENT_SYNC_TIMEOUT
  }
});

test('consumer streams finished only after the producer released (CLOCK_MONOTONIC, comparable across processes)', () => {
  for (const c of consumers) {
    expect(BigInt(c.doneAt)).toBeGreaterThanOrEqual(BigInt(producer.releasedAt));
    expect(c.statusAfterRelease).toBe('COMPLETE');
  }
});

test('once the creator destroyed the event and exited, opening its handle is 107017', async () => {
  const stale = await runFixture<{ code: number; name: string; message: string }>('ipc-open-stale', [path.join(dir, 'handle.bin')]);
  const v = valueOf(stale);
  expect(v.code).toBe(107017);
  expect(v.message).toMatch(/^aclrtIpcOpenEventHandle\(handle=([0-9a-f]{16}), event=&out\) failed: ACL_ERROR_RT_INVALID_HANDLE \(107017\): .*cannot open IPC event \1:/);
});
