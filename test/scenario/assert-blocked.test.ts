/**
 * ctx.assertBlocked() tells a blocked wait from an executor that has not run yet. With stream
 * tasks delayed (seeded jitter, as a loaded machine delays them), a synchronize that times out
 * used to pass for a blocked wait: under wait-noop the wait of CANN's 0_ipc_notify_withpid was
 * still queued, A's read ran after B's write, and the scenario survived the mutant audit.
 */
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import { collectScenarios, runScenario } from '../../src/scenario';
import { repoRoot } from '../support/run-child';
import { testWithStub as withStub } from '../support/with-stub';

const SPEC = path.join(repoRoot, 'specs', 'cann-ipc-notify.spec.ts');
const NAME = 'CANN 0_ipc_notify_withpid';
/** Up to 300 ms before each stream task: most of the wait-noop runs of these seeds survived before the fix. */
const SEEDS = ['1', '2', '3'];

// A spec file is collected once per process.
const plan = [...collectScenarios(SPEC).values()].find((p) => p.name.startsWith(NAME))!;

async function run(env: Record<string, string>) {
  const dirs: string[] = [];
  const r = await runScenario(plan, { specFile: SPEC, mode: 'stub', env, onEvent: (e) => e.type === 'started' && dirs.push(e.dir) });
  for (const d of dirs) rmSync(d, { recursive: true, force: true });
  return r;
}

withStub.each(SEEDS)('jitter seed %s: a wait that does not block fails assertBlocked, however late its executor runs', async (seed) => {
  const r = await run({ ACL_STUB_MUTANT: 'wait-noop', ACL_STUB_JITTER: `${seed}:300000` });
  expect(r.ok).toBe(false);
  expect(r.role('A').error?.message).toMatch(/A: expected the stream to still be blocked, but it drained within \d+ ms/);
}, 60_000);

withStub.each(SEEDS)('jitter seed %s: the real wait passes assertBlocked, its executor delayed as well', async (seed) => {
  const r = await run({ ACL_STUB_JITTER: `${seed}:300000` });
  expect(r.summary).toContain('passed');
  expect(r.ok).toBe(true);
}, 60_000);
