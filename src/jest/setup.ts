/** Jest setupFilesAfterEnv: registers the scenario matchers, and retries (`cann-harness run --retries N`). */
import { scenarioMatchers } from './matchers';
import { retriesFromEnv } from './repeat';

expect.extend(scenarioMatchers);

const retries = retriesFromEnv(process.env);
if (retries > 0) jest.retryTimes(retries, { logErrorsBeforeRetry: true });
