export { scenario, collectScenarios } from './scenario';
export { replicate, planScenario, ScenarioDeclarationError, DEFAULT_TIMEOUT_MS } from './plan';
export { runScenario, toScenarioResult, ROLE_ENTRY_MODULE } from './run';
export { pingPong, oneToMany, pipeline, fanIn, multiThreadConsumer, handoff, HANDOFF_FRESH, HANDOFF_STALE } from './templates';
export type { HandoffRead } from './templates';
export type * from './types';
