/** The scenario context's own checks, without native code (nothing here touches ctx.acl). */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rendezvous } from '../../src/rendezvous';
import { createScenarioContext } from '../../harness/scenario/context/context';
import { planScenario } from '../../src/scenario';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'context-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('openSharedEvent on bytes that are not a 64-byte handle names the handle, its sender and the fix', async () => {
  const plan = planScenario('demo', { roles: { producer: { device: 0, run: () => {} }, consumer: { device: 0, run: () => {} } } });
  const base = {
    get acl(): never {
      throw new Error('the test must not reach native code');
    },
    device: 0,
    role: 'consumer',
    index: 0,
    dir,
    rendezvous: new Rendezvous(dir, 'consumer'),
    log: () => {},
    mark: () => {},
  };
  const { ctx, cleanup } = createScenarioContext(base, plan, plan.roles[1], Date.now() + 10_000);
  try {
    await new Rendezvous(dir, 'producer').publish('event', Buffer.alloc(10));
    await expect(ctx.openSharedEvent('event', { from: 'producer' })).rejects.toThrow(
      'consumer: "event" from role producer is not an IPC event handle (an aclrtIpcEventHandle is exactly 64 bytes, got 10 bytes); ' +
        'publish handles with ctx.shareEvent(name, event), and plain data under another name',
    );
  } finally {
    cleanup();
  }
});
