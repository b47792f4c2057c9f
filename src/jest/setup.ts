/** Jest setupFilesAfterEnv: registers the scenario matchers. */
import { scenarioMatchers } from './matchers';

expect.extend(scenarioMatchers);
