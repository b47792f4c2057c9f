// A user's spec as installed users write it (`cann-ipc-harness` resolves to dist/ by the package's
// own name): what a device process costs on the scenario path, for bench/device-process.bench.ts.
import type { ScenarioContext } from '../../src';
import { processMemory } from './memory';

// By the package name, as users import it (Node resolves it to dist/; the types are the same as src/'s).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { scenario } = require('cann-ipc-harness') as typeof import('../../src');

function footprint(ctx: ScenarioContext) {
  ctx.acl.createIpcEvent().destroy();
  return processMemory();
}

scenario('footprint', { roles: { r0: { device: 0, run: footprint }, r1: { device: 1, run: footprint } } });
