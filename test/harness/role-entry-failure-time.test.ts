/**
 * A failed role's time of failure is taken where the failure is caught, before the clean-up that
 * destroys its IPC event: otherwise the roles that then fail to open that event (107017) look
 * earlier than their cause and are blamed for it (issue #20, item 1). Deterministic: the fake ACL
 * below stamps the moment the event is destroyed, and the failure must come before it.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Rendezvous } from '../../src/rendezvous';
import { roleFailureTime } from '../../harness/failure-time';
import { runScenarioRole } from '../../harness/scenario/role-entry';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(path.join(os.tmpdir(), 'role-entry-test-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

test('a role that throws right after sharing its IPC event is stamped failed before the event is destroyed', async () => {
  let destroyedAtNs: bigint | undefined;
  const event = {
    destroyed: false,
    ipcHandle: () => ({ toBuffer: () => Buffer.alloc(64, 7) }),
    destroy() {
      this.destroyed = true;
      destroyedAtNs = process.hrtime.bigint();
    },
  };
  const base = {
    acl: { createIpcEvent: () => event } as never,
    device: 0,
    role: 'producer',
    index: 0,
    dir,
    rendezvous: new Rendezvous(dir, 'producer'),
    log: () => {},
    mark: () => {},
  };
  const specFile = path.join(__dirname, 'fixtures', 'throw-after-share.fixture.ts');
  await expect(runScenarioRole(base, { specFile, scenario: 'producer throws right after sharing', role: 'producer' })).rejects.toThrow('producer broke after sharing');
  expect(destroyedAtNs).toBeDefined(); // the clean-up ran
  const failedAt = roleFailureTime();
  expect(failedAt).toBeDefined();
  expect(BigInt(failedAt!)).toBeLessThan(destroyedAtNs!);
});
