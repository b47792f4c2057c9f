/** Declaration checks of native roles, `precheck: { exec }` and `build:` (src/scenario/native-plan.ts). */
import { planScenario, ScenarioDeclarationError } from '../../src/scenario/plan';
import { resolveProgram, NativeProgramError } from '../../src/scenario/native-exec';
import { runScenario } from '../../src/scenario/run';
import type { ScenarioDeclaration } from '../../src/scenario/types';

function problems(decl: ScenarioDeclaration<any>): string[] {
  try {
    planScenario('s', decl);
  } catch (e) {
    if (e instanceof ScenarioDeclarationError) return e.problems;
    throw e;
  }
  return [];
}

test('a native role plans with its program, checks and placeholders kept for the run', () => {
  const plan = planScenario('s', {
    build: 'make -C native',
    precheck: { exec: ['native/precheck', '2'] },
    roles: { a: { device: 1, exec: ['native/proc_b', '{device}', '{index}', '{dir}'], expectOutput: /ok/, expectExit: 3 }, b: { device: 0, run: () => 1 } },
  });
  expect(plan.roles[0]).toMatchObject({ name: 'a', device: 1, exec: ['native/proc_b', '{device}', '{index}', '{dir}'], expectOutput: /ok/, expectExit: 3 });
  expect(plan.roles[1].exec).toBeUndefined();
  expect(plan.precheck).toEqual({ exec: ['native/precheck', '2'], timeoutMs: 30_000 });
  expect(plan.build).toBe('make -C native');
  expect(plan.devices).toBe(2);
});

test('bad native declarations: every problem named with its fix', () => {
  expect(
    problems({
      build: '  ',
      precheck: { exec: [], timeoutMs: -1, extra: 1 } as never,
      roles: {
        both: { device: 0, exec: ['x'], run: () => 1 },
        empty: { device: 0, exec: [] },
        typo: { device: 0, exec: ['x', '{devcie}'] },
        checks: { device: 0, run: () => 1, expectExit: 1 },
        badExit: { device: 0, exec: ['x'], expectExit: 300 },
        badOut: { device: 0, exec: ['x'], expectOutput: 'ok' as never },
      },
    }),
  ).toEqual([
    'precheck: unknown key "extra"; known keys: exec, timeoutMs',
    "precheck.exec must be a non-empty list of strings, the program first (got an array): exec: ['build/proc_b', '{device}', '1']",
    'precheck.timeoutMs must be a positive number of milliseconds (got -1)',
    "build must be a shell command (got \"  \"): build: 'make -C native'",
    'role both: give it either a program (exec) or a body (run / thread), not both',
    "role empty: exec must be a non-empty list of strings, the program first (got an array): exec: ['build/proc_b', '{device}', '1']",
    'role typo: exec: unknown placeholder {devcie}; the known ones are {device}, {index}, {dir}',
    'role checks: expectOutput and expectExit apply to native roles only: add exec: [...] or remove them (a body checks its own results)',
    'role badExit: expectExit must be an exit code from 0 to 255 (got 300)',
    'role badOut: expectOutput must be a regular expression (got "ok"): expectOutput: /finished successfully/',
  ]);
});

test('a role with neither body nor program says how to give either', () => {
  expect(problems({ roles: { a: { device: 0 } } })).toEqual([
    "role a: missing body: give it run: async (ctx) => { ... } (or threads: k with thread: async (ctx, t) => { ... }, or a program: exec: ['build/proc_b', '{device}'])",
  ]);
});

test('programs: relative to the spec folder with a slash, else on PATH; missing ones name the path and the fix', () => {
  expect(resolveProgram('sh', '/nowhere', 'role a', { PATH: '/usr/bin:/bin' })).toMatch(/\/bin\/sh$/);
  expect(resolveProgram('./sh', '/bin', 'role a')).toBe('/bin/sh');
  expect(() => resolveProgram('build/nope', '/tmp', 'role a')).toThrow(
    new NativeProgramError(
      "role a: program \"build/nope\" does not exist: looked for /tmp/build/nope (paths are relative to the spec file's folder /tmp); build it first (e.g. build: 'make -C native' on the scenario) or fix the path",
    ),
  );
  expect(() => resolveProgram('no-such-tool-here', '/tmp', 'precheck', { PATH: '/usr/bin' })).toThrow(
    "precheck: program \"no-such-tool-here\" is not on PATH (1 folders searched); a program next to the spec needs a path with a slash: exec: ['./no-such-tool-here']",
  );
  expect(() => resolveProgram('./passwd', '/etc', 'role a')).toThrow('is not executable (chmod +x it)');
});

test('rounds: a native role runs once, so a scenario with one cannot declare rounds, nor be run in rounds', async () => {
  const decl: ScenarioDeclaration<any> = { rounds: 10, roles: { c: { device: 0, exec: ['native/proc_b'] }, t: { device: 0, run: () => 1 } } };
  expect(problems(decl)).toEqual([expect.stringMatching(/^role c runs a program \(exec: native\/proc_b\), which runs once from start to exit and cannot run in rounds: run this scenario without rounds/)]);
  // --rounds / CANN_HARNESS_ROUNDS reach the run, not the declaration: refused before any process starts
  const plan = planScenario('s', { roles: decl.roles });
  await expect(runScenario(plan, { specFile: __filename, mode: 'stub', rounds: { total: 10 } })).rejects.toThrow(/^scenario "s": role c runs a program .* cannot run in rounds/);
});
