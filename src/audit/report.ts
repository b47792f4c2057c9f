/**
 * The audit's table: for each scenario, its outcome without a mutant and under each mutant,
 * judged against its declaration (`audit: { expectSurvive, reason }`). Pure: the CLI feeds it
 * Jest's results and the declarations the scenarios logged while being collected.
 */
import * as path from 'node:path';
import type { AuditDeclaration } from '../scenario/types';
import { MUTANTS, type MutantName } from '../mutants';

/** passed/failed as Jest saw them; skipped: not run here (too few devices). */
export type Outcome = 'passed' | 'failed' | 'skipped';
/** killed: failed under the mutant, as it should; survived: passed anyway. */
export type Verdict = 'killed' | 'survived' | 'skipped' | 'not-run';

export interface AuditCell {
  verdict: Verdict;
  /** For killed cells: whether the happens-before check (not the scenario's own checks) failed it. */
  byHappensBefore?: boolean;
  /** The survival was declared in audit.expectSurvive. */
  expected?: boolean;
}

export interface AuditRow {
  file: string;
  scenario: string;
  baseline: Outcome | 'not-run';
  mutants: Partial<Record<MutantName, AuditCell>>;
  declaration: AuditDeclaration | null;
  /** false when it survives wait-noop: it would pass if waits did nothing. null: not known (skipped). */
  testsItsWaits: boolean | null;
  /** What fails --strict (and, for a failing baseline, the audit itself). */
  problems: string[];
  /** Remarks that do not fail --strict. */
  notes: string[];
}

export interface TestOutcome {
  file: string;
  title: string;
  outcome: Outcome;
  failureText: string;
}

export interface AuditInput {
  mutants: MutantName[];
  baseline: TestOutcome[];
  perMutant: Partial<Record<MutantName, TestOutcome[]>>;
  declarations: { specFile: string; scenario: string; audit: AuditDeclaration | null }[];
}

const SKIP_SUFFIX = / \[skip: [^\]]*\]$/;

export function buildAuditRows(input: AuditInput): AuditRow[] {
  const rows = new Map<string, AuditRow>();
  const row = (file: string, title: string): AuditRow => {
    const scenario = title.replace(SKIP_SUFFIX, '');
    const key = `${file}\0${scenario}`;
    let r = rows.get(key);
    if (!r) {
      const decl = input.declarations.find((d) => d.specFile === file && d.scenario === scenario)?.audit ?? null;
      r = { file, scenario, baseline: 'not-run', mutants: {}, declaration: decl, testsItsWaits: null, problems: [], notes: [] };
      rows.set(key, r);
    }
    return r;
  };
  for (const t of input.baseline) row(t.file, t.title).baseline = t.outcome;
  for (const m of input.mutants) {
    for (const t of input.perMutant[m] ?? []) {
      const r = row(t.file, t.title);
      if (t.outcome === 'skipped') r.mutants[m] = { verdict: 'skipped' };
      else if (t.outcome === 'failed') r.mutants[m] = { verdict: 'killed', byHappensBefore: t.failureText.includes('happens-before violation') };
      else r.mutants[m] = { verdict: 'survived', expected: r.declaration?.expectSurvive.includes(m) ?? false };
    }
  }
  for (const r of rows.values()) judge(r, input.mutants);
  return [...rows.values()];
}

function judge(r: AuditRow, mutants: MutantName[]): void {
  const waitNoop = r.mutants['wait-noop'];
  if (waitNoop?.verdict === 'killed') r.testsItsWaits = true;
  if (waitNoop?.verdict === 'survived') r.testsItsWaits = false;
  if (r.baseline === 'failed') {
    r.problems.push('fails without any mutant: fix it first, its audit results mean nothing');
    return;
  }
  if (waitNoop?.verdict === 'survived' && !waitNoop.expected) {
    r.problems.push(
      'survives wait-noop: it would also pass if waits did nothing, so it does not test its waits. Make a wait really block ' +
        "(record behind ctx.latch() and release it after the other role waits), or declare audit: { expectSurvive: ['wait-noop'], reason: '...' }",
    );
  }
  for (const m of mutants) {
    const cell = r.mutants[m];
    if (cell?.verdict === 'killed' && r.declaration?.expectSurvive.includes(m)) {
      r.notes.push(`declares expectSurvive ${m} but was killed by it: remove ${m} from audit.expectSurvive`);
    }
  }
}

/** Whether the audit fails: a scenario failing without a mutant always; an undeclared wait-noop survivor with --strict. */
export function auditFails(rows: AuditRow[], strict: boolean): boolean {
  return rows.some((r) => r.baseline === 'failed' || (strict && r.problems.length > 0));
}

export function cellText(cell: AuditCell | undefined): string {
  if (!cell) return '-';
  if (cell.verdict === 'killed') return cell.byHappensBefore ? 'killed (hb)' : 'killed';
  if (cell.verdict === 'survived') return cell.expected ? 'survived (declared)' : 'SURVIVED';
  return cell.verdict;
}

export function formatAuditTable(rows: AuditRow[], mutants: readonly MutantName[] = MUTANTS, cwd = process.cwd()): string {
  const name = (r: AuditRow) => (r.scenario.length > 80 ? `${r.scenario.slice(0, 79)}…` : r.scenario);
  const where = (r: AuditRow) => `${path.relative(cwd, r.file)} › ${r.scenario}`;
  const header = ['scenario', 'no mutant', ...mutants];
  const body = rows.map((r) => [name(r), r.baseline, ...mutants.map((m) => cellText(r.mutants[m]))]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((b) => b[i].length)));
  const fmt = (cells: string[]) => cells.map((c, i) => c.padEnd(widths[i])).join('  ').trimEnd();
  const lines = [fmt(header), widths.map((w) => '-'.repeat(w)).join('  '), ...body.map(fmt)];
  lines.push('', 'killed: failed under the mutant, as it should (hb: the happens-before check flagged it); SURVIVED: passed anyway');
  const run = rows.filter((r) => r.testsItsWaits !== null);
  lines.push(`${run.filter((r) => r.testsItsWaits).length} of ${run.length} scenarios run are killed by wait-noop: they test their waits.`);
  const reasons = new Set<string>();
  for (const r of rows) {
    for (const p of r.problems) lines.push(`PROBLEM ${where(r)}: ${p}`);
    if (r.declaration && r.mutants['wait-noop']?.expected && !reasons.has(r.declaration.reason)) {
      reasons.add(r.declaration.reason);
      lines.push(`declared survivor ${where(r)}${rows.filter((x) => x.declaration?.reason === r.declaration!.reason).length > 1 ? ' (and others with the same reason)' : ''}: ${r.declaration.reason}`);
    }
    for (const n of r.notes) lines.push(`note ${where(r)}: ${n}`);
  }
  return lines.join('\n');
}
