/** `audit --html`: the scenario × mutant matrix page, from the audit's own rows (no audit run here). */
import { buildAuditRows } from '../../src/audit/report';
import { auditMatrix } from '../../src/cli/audit';
import { renderMatrix } from '../../src/report/html/matrix';

const out = (file: string, title: string, outcome: 'passed' | 'failed' | 'skipped') => ({ file, title, outcome, failureText: outcome === 'failed' ? 'happens-before violation' : '' });

test('killed cells are good news, an undeclared wait-noop survivor is bad news with what it means, a declared one shows its reason', () => {
  const rows = buildAuditRows({
    mutants: ['wait-noop', 'record-instant'],
    baseline: [out('/p/a.spec.ts', 'blocks', 'passed'), out('/p/a.spec.ts', 'no-op wait', 'passed'), out('/p/a.spec.ts', 'control', 'passed')],
    perMutant: {
      'wait-noop': [out('/p/a.spec.ts', 'blocks', 'failed'), out('/p/a.spec.ts', 'no-op wait', 'passed'), out('/p/a.spec.ts', 'control', 'passed')],
      'record-instant': [out('/p/a.spec.ts', 'blocks', 'failed'), out('/p/a.spec.ts', 'no-op wait', 'failed'), out('/p/a.spec.ts', 'control', 'passed')],
    },
    declarations: [{ specFile: '/p/a.spec.ts', scenario: 'control', audit: { expectSurvive: ['wait-noop', 'record-instant'], reason: 'a control on purpose' } }],
  });
  const m = auditMatrix(rows, ['wait-noop', 'record-instant'], '/p');
  expect(m.rows.map((r) => [r.scenario, r.cells.map((c) => `${c.text}/${c.kind}`)])).toEqual([
    ['blocks', ['killed (hb)/good', 'killed (hb)/good']],
    ['no-op wait', ['SURVIVED/bad', 'killed (hb)/good']],
    ['control', ['survived (declared)/neutral', 'survived (declared)/neutral']],
  ]);
  expect(m.rows[1].remarks[0]).toEqual({ bad: true, text: expect.stringMatching(/^survives wait-noop: it would also pass if waits did nothing/) });
  expect(m.rows[2].remarks).toEqual([{ bad: false, text: 'declared survivor: a control on purpose' }]);
  expect(m.summary[1]).toBe('1 of 3 scenarios run are killed by wait-noop: they test their waits.');
  const html = renderMatrix(m);
  expect(html).toContain('<td class="m-bad">SURVIVED</td>');
  expect(html).toContain('<tr data-bad="1"><td>no-op wait');
  expect(html).not.toMatch(/<script/); // a static page
});
