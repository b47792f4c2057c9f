/** cann-harness.config.ts: validation (unknown keys with "did you mean"), each key's mapping, loading a .ts file. */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ConfigError, configEnv, loadConfig, validateConfig } from '../../src/config';
import { defaultTimeoutMs } from '../../src/env/timeout';
import { oneToMany, pipeline } from '../../src/scenario/templates';
import { planScenario } from '../../src/scenario/plan';
import { basePreset, harnessPreset } from '../../src/jest/preset';

const FILE = '/project/cann-harness.config.ts';

function problemsOf(value: unknown): string {
  try {
    validateConfig(value, FILE);
  } catch (e) {
    expect(e).toBeInstanceOf(ConfigError);
    return (e as Error).message;
  }
  throw new Error('expected a ConfigError');
}

test('an unknown key is an error with "did you mean" and the known keys', () => {
  expect(problemsOf({ timeout: 5000 })).toBe(
    'cann-harness.config.ts: unknown key "timeout" (did you mean "timeoutMs"?); known keys: specs, timeoutMs, rounds, explore, exploreDepth, devices, mode, tmpDir, resultsDir, keep, trace, reporters',
  );
  expect(problemsOf({ reporters: { junitt: 'x.xml' } })).toContain('reporters: unknown key "junitt" (did you mean "junit"?)');
  expect(problemsOf({ zzzzzz: 1 })).not.toContain('did you mean');
});

test('each key rejects a wrong value, naming the key and the fix; all problems at once', () => {
  const message = problemsOf({ specs: 3, timeoutMs: -1, devices: 0, mode: 'fast', tmpDir: '', keep: 'yes', trace: 'on', reporters: { junit: 7 } });
  for (const expected of [
    'specs must be a non-empty string (got 3)',
    'timeoutMs must be a whole number of milliseconds between 1 and 600000 (got -1)',
    'devices must be a whole number of devices, at least 1 (got 0)',
    "mode must be one of 'auto', 'stub', 'real' (got \"fast\")",
    'tmpDir must be a non-empty string (got "")',
    "keep must be one of 'on-failure', 'always', 'never' (got \"yes\")",
    "trace must be one of 'on-failure', 'always', 'never' (got \"on\")",
    'reporters.junit must be a file path or false (got 7)',
  ]) {
    expect(message).toContain(expected);
  }
  expect(problemsOf([])).toContain('must export a config object');
});

test('a misspelt keep, trace or mode value gets "did you mean"; keep: never with trace: always is a contradiction', () => {
  expect(problemsOf({ keep: 'on_failure' })).toBe("cann-harness.config.ts: keep must be one of 'on-failure', 'always', 'never' (got \"on_failure\"): did you mean 'on-failure'?");
  expect(problemsOf({ trace: 'nevre' })).toContain("(got \"nevre\"): did you mean 'never'?");
  expect(problemsOf({ mode: 'stbu' })).toContain("did you mean 'stub'?");
  expect(problemsOf({ trace: 'yes please' })).not.toContain('did you mean');
  expect(problemsOf({ keep: 'never', trace: 'always' })).toContain("keep: 'never' and trace: 'always' contradict each other");
});

test('paths resolve against the config file; each key becomes its environment variable', () => {
  const c = validateConfig({ specs: 'it/specs', tmpDir: 'tmp', reporters: { junit: 'out/j.xml' }, mode: 'stub', devices: 4, timeoutMs: 1234, keep: 'always' }, FILE);
  expect(c).toMatchObject({ specs: '/project/it/specs', tmpDir: '/project/tmp', reporters: { junit: '/project/out/j.xml' } });
  expect(configEnv(c, {})).toEqual({
    CANN_HARNESS_MODE: 'stub',
    CANN_HARNESS_REQUIRE_DEVICES: '4',
    CANN_HARNESS_TMPDIR: '/project/tmp',
    CANN_HARNESS_KEEP: '1',
    CANN_HARNESS_TIMEOUT_MS: '1234',
  });
  expect(configEnv({ keep: 'never' }, {})).toEqual({ CANN_HARNESS_KEEP: '0' });
  expect(configEnv({ trace: 'always' }, {})).toEqual({ CANN_HARNESS_TRACE: '1' });
  expect(configEnv({ trace: 'never' }, {})).toEqual({ CANN_HARNESS_TRACE: '0' });
  expect(configEnv({ trace: 'on-failure' }, {})).toEqual({});
  expect(configEnv({ trace: 'never' }, { CANN_HARNESS_TRACE: '1' })).toEqual({});
  expect(configEnv({ keep: 'on-failure' }, {})).toEqual({});
  // An environment variable already set wins over the file.
  expect(configEnv({ mode: 'stub', devices: 4 }, { CANN_HARNESS_MODE: 'real' })).toEqual({ CANN_HARNESS_REQUIRE_DEVICES: '4' });
});

test('explore and exploreDepth reach every process as CANN_HARNESS_EXPLORE[_DEPTH]; bad values name the fix', () => {
  expect(configEnv(validateConfig({ explore: 42, exploreDepth: 3 }, FILE), {})).toEqual({ CANN_HARNESS_EXPLORE: '42', CANN_HARNESS_EXPLORE_DEPTH: '3' });
  expect(configEnv(validateConfig({ explore: true }, FILE), {})).toEqual({ CANN_HARNESS_EXPLORE: 'fresh' });
  expect(configEnv({ explore: 'fresh' }, { CANN_HARNESS_EXPLORE: '7' })).toEqual({}); // run --explore wins
  expect(problemsOf({ explore: 'often' })).toContain('explore "often" is invalid: give a seed, a whole number from 1 to 2147483647, or "fresh"');
  expect(problemsOf({ exploreDepth: 9 })).toContain('exploreDepth 9 is invalid: give the PCT depth, a whole number from 1 to 8');
});

test('rounds reaches every process as CANN_HARNESS_ROUNDS; a bad count names the fix', () => {
  expect(configEnv(validateConfig({ rounds: 5000 }, FILE), {})).toEqual({ CANN_HARNESS_ROUNDS: '5000' });
  expect(configEnv({ rounds: 5000 }, { CANN_HARNESS_ROUNDS: '7' })).toEqual({}); // run --rounds wins
  expect(problemsOf({ rounds: 0 })).toBe('cann-harness.config.ts: rounds must be a whole number of rounds from 1 to 10000000 (got 0): e.g. rounds: 1000');
});

test('timeoutMs becomes the default scenario deadline, and the preset gives Jest more time than that', () => {
  expect(defaultTimeoutMs({})).toBe(30_000);
  expect(defaultTimeoutMs({ CANN_HARNESS_TIMEOUT_MS: '90000' })).toBe(90_000);
  expect(() => defaultTimeoutMs({ CANN_HARNESS_TIMEOUT_MS: 'soon' })).toThrow('CANN_HARNESS_TIMEOUT_MS must be a whole number');
  expect(basePreset(90_000).testTimeout).toBe(120_000);
  expect(basePreset().testTimeout).toBe(60_000);
});

test("the config file's timeoutMs (CANN_HARNESS_TIMEOUT_MS) reaches template scenarios; a template's own timeoutMs still wins", () => {
  const env = { ...process.env };
  try {
    process.env.CANN_HARNESS_TIMEOUT_MS = '45000';
    expect(planScenario('fan-out', oneToMany({ consumers: 2 })).timeoutMs).toBe(45_000);
    expect(planScenario('chain', pipeline({ stages: 3 })).timeoutMs).toBe(45_000);
    expect(planScenario('chain', pipeline({ stages: 3, timeoutMs: 5000 })).timeoutMs).toBe(5000);
  } finally {
    process.env = env;
  }
});

test('one text for a bad deadline, wherever it is set', () => {
  const fromPlan = () => planScenario('x', { timeoutMs: 600_001, roles: { a: { device: 0, run: () => {} } } });
  expect(fromPlan).toThrow('timeoutMs must be a whole number of milliseconds between 1 and 600000 (got 600001): e.g. timeoutMs: 20_000');
  expect(problemsOf({ timeoutMs: 600_001 })).toBe(
    'cann-harness.config.ts: timeoutMs must be a whole number of milliseconds between 1 and 600000 (got 600001): e.g. timeoutMs: 20_000',
  );
});

describe('loading', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'cann-config-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a TypeScript config with defineConfig is loaded and checked; none is an empty config', () => {
    expect(loadConfig(dir)).toEqual({ file: null });
    const src = path.resolve(__dirname, '..', '..', 'src', 'config');
    writeFileSync(
      path.join(dir, 'cann-harness.config.ts'),
      `import { defineConfig } from ${JSON.stringify(src)};\nconst specs: string = 'scenarios';\nexport default defineConfig({ specs, reporters: { junit: false } });\n`,
    );
    expect(loadConfig(dir)).toEqual({ file: path.join(dir, 'cann-harness.config.ts'), specs: path.join(dir, 'scenarios'), reporters: { junit: false } });
  });

  test('the preset reads the config of the directory Jest runs in', () => {
    writeFileSync(path.join(dir, 'cann-harness.config.js'), "module.exports = { specs: 'e2e', reporters: { junit: 'out/junit.xml' }, timeoutMs: 45000 };\n");
    const env = { ...process.env };
    try {
      delete process.env.CANN_HARNESS_TIMEOUT_MS;
      const preset = harnessPreset(dir);
      expect(preset.roots).toEqual([path.join(dir, 'e2e')]);
      expect(preset.testTimeout).toBe(75_000);
      expect(JSON.stringify(preset.reporters)).toContain(path.join(dir, 'out'));
      expect(process.env.CANN_HARNESS_TIMEOUT_MS).toBe('45000');
    } finally {
      process.env = env;
    }
  });

  test('a config that throws, or a missing --config file, is an error naming the file', () => {
    writeFileSync(path.join(dir, 'cann-harness.config.ts'), "throw new Error('boom');\n");
    expect(() => loadConfig(dir)).toThrow(`${path.join(dir, 'cann-harness.config.ts')} could not be loaded: boom`);
    expect(() => loadConfig(dir, path.join(dir, 'nope.ts'))).toThrow('does not exist: fix the path given to --config');
  });
});
