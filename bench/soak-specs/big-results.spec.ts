// Soak (bench/soak.bench.ts): 16 roles that each return 64 KiB and exit together, SOAK_ROUNDS times.
// A lost last IPC message used to turn one of them into "exited with code 0 before reporting".
import { replicate, scenario } from '../../src';

const rounds = Number(process.env.SOAK_ROUNDS ?? 1);
for (let round = 1; round <= rounds; round++) {
  scenario(`16 roles return 64 KiB each (round ${round})`, {
    timeoutMs: 120_000,
    roles: { r: replicate(16, (i) => ({ device: i % 8, run: () => ({ i, blob: 'x'.repeat(64 * 1024) }) })) },
    verify: (result) => {
      for (const r of result.roles) expect((r.value as { blob: string }).blob).toHaveLength(64 * 1024);
    },
  });
}
