/**
 * Jest setupFilesAfterEnv: registers the scenario matchers, retries (`cann-harness run --retries N`),
 * and installs the sink through which `scenario()` in a spec file becomes a Jest test
 * (src/scenario/sink.ts).
 */
import { installScenarioSink } from '../scenario/sink';
import { scenarioMatchers } from './matchers';
import { retriesFromEnv } from './repeat';
import { prepareNativeSteps } from './native-prepare';

expect.extend(scenarioMatchers);

installScenarioSink({
  declare(plan, focus) {
    // Loaded on the first scenario(): plain unit test files never pay for the orchestrator.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('./register') as typeof import('./register')).registerScenarioTest(plan, focus);
  },
});

const retries = retriesFromEnv(process.env);
if (retries > 0) jest.retryTimes(retries, { logErrorsBeforeRetry: true });

// Jest awaits this before it loads the spec file: its `build:` steps and prechecks, with the event loop free.
export = prepareNativeSteps;
