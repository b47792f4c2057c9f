/** The audit's verdicts and table, from hand-made outcomes (the CLI test runs a real audit). */
import { auditFails, buildAuditRows, formatAuditTable, type AuditInput, type TestOutcome } from '../../src/audit/report';
import { MUTANTS, type MutantName } from '../../src/mutants';

const out = (title: string, outcome: TestOutcome['outcome'], failureText = ''): TestOutcome => ({ file: '/r/specs/a.spec.ts', title, outcome, failureText });

function input(): AuditInput {
  return {
    mutants: ['wait-noop', 'sync-noop'],
    baseline: [out('proves', 'passed'), out('declared', 'passed'), out('vacuous', 'passed'), out('big [skip: needs 9 devices, 8 available]', 'skipped')],
    perMutant: {
      'wait-noop': [out('proves', 'failed', 'happens-before violation (ipc-wait): ...'), out('declared', 'passed'), out('vacuous', 'passed'), out('big [skip: needs 9 devices, 8 available]', 'skipped')],
      'sync-noop': [out('proves', 'failed', 'role x failed'), out('declared', 'failed'), out('vacuous', 'failed'), out('big [skip: needs 9 devices, 8 available]', 'skipped')],
    },
    declarations: [{ specFile: '/r/specs/a.spec.ts', scenario: 'declared', audit: { expectSurvive: ['wait-noop', 'sync-noop'], reason: 'a faithful copy' } }],
  };
}

test('killed, survived, declared and skipped cells, and whether each scenario tests its waits', () => {
  const rows = buildAuditRows(input());
  const byName = Object.fromEntries(rows.map((r) => [r.scenario, r]));
  expect(Object.keys(byName)).toEqual(['proves', 'declared', 'vacuous', 'big']);
  expect(byName.proves.mutants).toEqual({ 'wait-noop': { verdict: 'killed', byHappensBefore: true }, 'sync-noop': { verdict: 'killed', byHappensBefore: false } });
  expect(byName.proves.testsItsWaits).toBe(true);
  expect(byName.declared.mutants['wait-noop']).toEqual({ verdict: 'survived', expected: true });
  expect(byName.declared.problems).toEqual([]);
  expect(byName.declared.notes).toEqual(['declares expectSurvive sync-noop but was killed by it: remove sync-noop from audit.expectSurvive']);
  expect(byName.vacuous.testsItsWaits).toBe(false);
  expect(byName.vacuous.problems).toEqual([expect.stringContaining('survives wait-noop: it would also pass if waits did nothing')]);
  expect(byName.big).toMatchObject({ baseline: 'skipped', testsItsWaits: null, mutants: { 'wait-noop': { verdict: 'skipped' } } });
});

test('an undeclared wait-noop survivor fails only --strict; a scenario failing without a mutant always fails the audit', () => {
  const rows = buildAuditRows(input());
  expect(auditFails(rows, false)).toBe(false);
  expect(auditFails(rows, true)).toBe(true);
  const fixed = input();
  fixed.declarations.push({ specFile: '/r/specs/a.spec.ts', scenario: 'vacuous', audit: { expectSurvive: ['wait-noop'], reason: 'r' } });
  expect(auditFails(buildAuditRows(fixed), true)).toBe(false);
  const broken = input();
  broken.baseline[0] = out('proves', 'failed');
  const rowsBroken = buildAuditRows(broken);
  expect(auditFails(rowsBroken, false)).toBe(true);
  expect(rowsBroken[0].problems).toEqual(['fails without any mutant: fix it first, its audit results mean nothing']);
});

test('the table: one row per scenario, one column per mutant, then the verdicts in words', () => {
  const text = formatAuditTable(buildAuditRows(input()), ['wait-noop', 'sync-noop'], '/r');
  const lines = text.split('\n');
  expect(lines[0]).toMatch(/^scenario +no mutant +wait-noop +sync-noop$/);
  expect(lines[2]).toMatch(/^proves +passed +killed \(hb\) +killed$/);
  expect(lines[3]).toMatch(/^declared +passed +survived \(declared\) +killed$/);
  expect(lines[4]).toMatch(/^vacuous +passed +SURVIVED +killed$/);
  expect(lines[5]).toMatch(/^big +skipped +skipped +skipped$/);
  expect(text).toContain('1 of 3 scenarios run are killed by wait-noop: they test their waits.');
  expect(text).toContain('PROBLEM specs/a.spec.ts › vacuous: survives wait-noop');
  expect(text).toContain('declared survivor specs/a.spec.ts › declared: a faithful copy');
});

// .ci/run's audit runs only the passes this verdict depends on (`--mutants wait-noop`): if another
// mutant's column ever fails the audit, this fails, and .ci/run must run that pass too.
test('the strict verdict depends only on the run without a mutant and on wait-noop (all the passes CI runs)', () => {
  const others = MUTANTS.filter((m) => m !== 'wait-noop');
  const declarations: (MutantName[] | null)[] = [null, ['wait-noop'], [others[0]], [...MUTANTS]];
  let cases = 0;
  for (const baseline of ['passed', 'failed'] as const) {
    for (const waitNoop of ['passed', 'failed'] as const) {
      for (const expectSurvive of declarations) {
        for (let bits = 0; bits < 2 ** others.length; bits++) {
          const all: AuditInput = {
            mutants: [...MUTANTS],
            baseline: [out('s', baseline)],
            perMutant: { 'wait-noop': [out('s', waitNoop)] },
            declarations: expectSurvive ? [{ specFile: '/r/specs/a.spec.ts', scenario: 's', audit: { expectSurvive, reason: 'r' } }] : [],
          };
          others.forEach((m, i) => (all.perMutant[m] = [out('s', bits & (1 << i) ? 'failed' : 'passed')]));
          const ciPasses: AuditInput = { ...all, mutants: ['wait-noop'] };
          for (const strict of [true, false]) expect([baseline, waitNoop, expectSurvive, bits, strict, auditFails(buildAuditRows(all), strict)]).toEqual([baseline, waitNoop, expectSurvive, bits, strict, auditFails(buildAuditRows(ciPasses), strict)]);
          cases++;
        }
      }
    }
  }
  expect(cases).toBe(2 * 2 * declarations.length * 2 ** others.length);
});
