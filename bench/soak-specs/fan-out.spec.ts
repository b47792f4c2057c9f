// Soak (bench/soak.bench.ts): the 64-process fan-out, SOAK_ROUNDS times in one Jest run.
// The round count comes from the environment, so every process declares the same scenarios.
import { oneToMany, scenario } from '../../src';

const rounds = Number(process.env.SOAK_ROUNDS ?? 1);
for (let round = 1; round <= rounds; round++) {
  scenario(`fan-out: 1 producer wakes 63 consumers on 64 devices (round ${round})`, oneToMany({ consumers: 63, timeoutMs: 240_000 }));
}
