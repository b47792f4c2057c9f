/**
 * Soak rounds (docs/guide/soak-rounds.md): the pipeline of reused-event-pipeline.ts, fixed (each
 * consumer waits only once the producer recorded the step), for 300 steps in one set of
 * processes, every step's bytes and happens-before checked. Its buggy twin is
 * test/jest/fixtures/rounds/buggy-pipeline.spec.ts, which test/scenario/rounds.test.ts runs and
 * expects to be caught. The fixed one passed 100,000 steps under jitter (docs/guide/soak-rounds.md).
 */
import { scenario } from '../src';
import { reusedEventPipeline } from './reused-event-pipeline';

scenario('pipeline on a reused IPC event: every step waits for its own record', reusedEventPipeline({ consumers: 2, rounds: 300 }));
