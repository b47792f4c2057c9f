/**
 * scenario() hands its plan to whichever sink the loader installed (src/scenario/sink.ts), and
 * says what is missing when no loader installed one.
 */
import { scenario } from '../../src/scenario';
import { currentScenarioSink, installScenarioSink, type ScenarioFocus, type ScenarioSink } from '../../src/scenario/sink';

const declaration = { roles: { solo: { device: 0, run: () => undefined } } };

test('in Jest, src/jest/setup.ts has installed the sink', () => {
  expect(currentScenarioSink()).toBeDefined();
});

test('the current sink receives the validated plan and focus; uninstalling restores the previous one', () => {
  const before = currentScenarioSink();
  const got: { name: string; focus: ScenarioFocus; roles: string[] }[] = [];
  const uninstall = installScenarioSink({ declare: (plan, focus) => got.push({ name: plan.name, focus, roles: plan.roles.map((r) => r.name) }) });
  try {
    scenario('a', declaration);
    scenario.skip('b', declaration);
  } finally {
    uninstall();
  }
  expect(got).toEqual([
    { name: 'a', focus: 'normal', roles: ['solo'] },
    { name: 'b', focus: 'skip', roles: ['solo'] },
  ]);
  expect(currentScenarioSink()).toBe(before);
});

test('with no sink, scenario() names the missing Jest setup file', () => {
  const uninstall = installScenarioSink(undefined as unknown as ScenarioSink);
  try {
    expect(() => scenario('lost', declaration)).toThrow(/does not load the harness's setup file: add src\/jest\/setup.ts to setupFilesAfterEnv/);
  } finally {
    uninstall();
  }
});
