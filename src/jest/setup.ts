/**
 * Jest setupFilesAfterEnv: registers the scenario matchers, and installs the sink through which
 * `scenario()` in a spec file becomes a Jest test (src/scenario/sink.ts).
 */
import { installScenarioSink } from '../scenario/sink';
import { scenarioMatchers } from './matchers';

expect.extend(scenarioMatchers);

installScenarioSink({
  declare(plan, focus) {
    // Loaded on the first scenario(): plain unit test files never pay for the orchestrator.
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    (require('./register') as typeof import('./register')).registerScenarioTest(plan, focus);
  },
});
