/** scenario.each titles and rows, and templates placed on device lists. */
import { handoff, oneToMany, pipeline } from '../../src';
import { planScenario } from '../../src/scenario/plan';
import { scenarioTitle } from '../../src/scenario/scenario';
import type { ScenarioDeclaration } from '../../src/scenario/types';

const devicesOf = (decl: ScenarioDeclaration) => {
  const plan = planScenario('x', decl);
  return { devices: plan.devices, roles: Object.fromEntries(plan.roles.map((r) => [r.name, r.device])) };
};

test('scenario.each titles: $key of object rows, %# the index, %s/%d/%j the items of array rows', () => {
  expect(scenarioTitle('fan-out to $consumers consumers', { consumers: 3 }, 0)).toBe('fan-out to 3 consumers');
  expect(scenarioTitle('row %#: $missing stays', { a: 1 }, 4)).toBe('row 4: $missing stays');
  expect(scenarioTitle('%s on device %d with %j', ['pipeline', 3, [1, 2]], 0)).toBe('pipeline on device 3 with [1,2]');
  expect(scenarioTitle('plain %s', 'value', 0)).toBe('plain value');
});

test('oneToMany({ producer, consumers: [...] }) places the roles on those devices', () => {
  expect(devicesOf(oneToMany({ producer: 0, consumers: [2, 5] }))).toEqual({ devices: 6, roles: { producer: 0, 'consumer-0': 2, 'consumer-1': 5 } });
  expect(devicesOf(oneToMany({ producer: 3, consumers: 2 }))).toEqual({ devices: 4, roles: { producer: 3, 'consumer-0': 1, 'consumer-1': 2 } });
  expect(devicesOf(oneToMany({ consumers: 2 }))).toEqual({ devices: 3, roles: { producer: 0, 'consumer-0': 1, 'consumer-1': 2 } });
  expect(devicesOf(oneToMany({ consumers: [2, 2] }))).toEqual({ devices: 3, roles: { producer: 0, 'consumer-0': 2, 'consumer-1': 2 } });
  expect(() => oneToMany({ consumers: [2, -1] })).toThrow('oneToMany consumers must be a non-empty list of device ids');
  expect(() => oneToMany({ consumers: [] })).toThrow('e.g. [1, 3, 6] (got [])');
  expect(() => oneToMany({ producer: -1 })).toThrow('oneToMany producer must be a device id');
});

test('pipeline({ devices: [...] }) chains the stages on those devices, in that order', () => {
  expect(devicesOf(pipeline({ devices: [1, 3, 6] }))).toEqual({ devices: 7, roles: { 'stage-0': 1, 'stage-1': 3, 'stage-2': 6 } });
  expect(devicesOf(pipeline({ stages: 2 }))).toEqual({ devices: 2, roles: { 'stage-0': 0, 'stage-1': 1 } });
  expect(() => pipeline({ stages: 2, devices: [1, 3, 6] })).toThrow('pipeline: stages (2) and devices (3 of them) disagree');
  expect(() => pipeline({ devices: [4] })).toThrow('pipeline stages must be a whole number from 2');
});

test("handoff({ memory }) takes 'ipc' or 'vmm'; soak rounds keep IPC memory with the whitelist", () => {
  expect(devicesOf(handoff({ consumers: 2, memory: 'vmm' }))).toEqual({ devices: 3, roles: { producer: 0, 'consumer-0': 1, 'consumer-1': 2 } });
  expect(() => handoff({ memory: 'shm' as 'vmm' })).toThrow(`handoff memory must be 'ipc' or 'vmm' (got "shm")`);
  expect(() => handoff({ memory: 'vmm', rounds: 3 })).toThrow('handoff with rounds shares IPC memory with the whitelist only: drop memory / pidValidation, or rounds');
  expect(() => handoff({ pidValidation: false, rounds: 3 })).toThrow('handoff with rounds shares IPC memory with the whitelist only');
});
