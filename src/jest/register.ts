/**
 * Maps one planned scenario to one Jest test: skipped (with the reason in its title) when the
 * machine has too few devices, otherwise run through the orchestrator, failing with a readable
 * report when a role fails, then checked by the scenario's verify().
 */
import { failureFrame, formatScenarioFailure } from '../report/failure';
import { duplicateScenario } from '../scenario/scenario';
import { runScenario } from '../scenario/run';
import type { ScenarioFocus } from '../scenario/sink';
import type { ScenarioPlan } from '../scenario/types';
import { currentProbe, deviceGate, requestedMode } from './probe';

/** Margin over the scenario's own timeout: the orchestrator's grace period plus reporting. */
const JEST_TIMEOUT_MARGIN_MS = 15_000;
const namesByFile = new Map<string, Set<string>>();

export class ScenarioFailure extends Error {
  /**
   * @param frame a stack frame in the spec ("fn (/path/x.spec.ts:12:5)"): where the role failed,
   * else where the scenario is declared. Jest shows the whole message, then that line's code frame.
   */
  constructor(message: string, frame: string | null) {
    super(message);
    this.name = 'ScenarioFailure';
    this.stack = `${this.name}: ${message}${frame ? `\n    at ${frame}` : ''}`;
  }
}

export function registerScenarioTest(plan: ScenarioPlan<any>, focus: ScenarioFocus = 'normal'): void {
  const specFile = currentTestPath();
  const names = namesByFile.get(specFile) ?? new Set<string>();
  namesByFile.set(specFile, names);
  if (names.has(plan.name)) throw duplicateScenario(plan.name, specFile);
  names.add(plan.name);

  const declaredAt = frameIn(new Error().stack, specFile);
  if (focus === 'skip') {
    test.skip(plan.name, () => {});
    return;
  }
  const jestTest = focus === 'only' ? test.only : test;
  const probe = currentProbe();
  const gate = deviceGate(plan.devices, probe);
  if (!gate.run && gate.skip) {
    test.skip(`${plan.name} [skip: ${gate.reason}]`, () => {});
    return;
  }
  if (!gate.run) {
    jestTest(plan.name, () => {
      throw new ScenarioFailure(gate.reason, declaredAt);
    });
    return;
  }
  jestTest(
    plan.name,
    async () => {
      const result = await runScenario(plan, {
        specFile,
        mode: probe.ok ? probe.mode : requestedMode(),
        echo: process.env.CANN_HARNESS_ECHO === '1',
      });
      if (!result.ok) throw new ScenarioFailure(formatScenarioFailure(plan.name, result), failureFrame(result) ?? declaredAt);
      await plan.verify?.(result);
    },
    plan.timeoutMs + JEST_TIMEOUT_MARGIN_MS,
  );
}

function currentTestPath(): string {
  const testPath = (expect as unknown as { getState(): { testPath?: string } }).getState().testPath;
  if (!testPath) {
    throw new Error('scenario(): cannot tell which spec file is being collected; call scenario() at the top level of a spec file');
  }
  return testPath;
}

function frameIn(stack: string | undefined, file: string): string | null {
  const line = stack?.split('\n').find((l) => l.includes(file));
  return line ? line.trim().replace(/^at\s+/, '') : null;
}
