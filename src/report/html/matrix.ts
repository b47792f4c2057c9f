/**
 * `cann-harness audit --html`: the scenario × mutant matrix as one self-contained page. The audit
 * (src/audit) judges; this only draws what the CLI hands it, so the report layer needs no audit
 * types: each cell is a text and whether it is good news, bad news or neither.
 */
import * as path from 'node:path';
import { prepareReportFolder, replaceFile } from './folder';
import { INDEX_FILE, escapeHtml, page } from './write';

export interface MatrixCell {
  text: string;
  /** good: the mutant was killed; bad: it survived undeclared (or the scenario fails without one); neutral: declared, skipped, not run. */
  kind: 'good' | 'bad' | 'neutral';
}

export interface MatrixRow {
  file: string;
  scenario: string;
  baseline: MatrixCell;
  cells: MatrixCell[];
  /** What its survivals mean: problems first, then declared reasons and notes. */
  remarks: { bad: boolean; text: string }[];
}

export interface MatrixPage {
  columns: string[];
  rows: MatrixRow[];
  /** Lines under the table: the legend and the totals. */
  summary: string[];
}

export function renderMatrix(m: MatrixPage): string {
  const cell = (c: MatrixCell) => `<td class="m-${c.kind}">${escapeHtml(c.text)}</td>`;
  const rows = m.rows.map((r) => {
    const remarks = r.remarks.map((x) => `<div class="${x.bad ? 't-failed' : 'muted'}">${escapeHtml(x.text)}</div>`).join('');
    return `<tr data-bad="${r.remarks.some((x) => x.bad) ? 1 : 0}"><td>${escapeHtml(r.scenario)}<div class="mono muted">${escapeHtml(r.file)}</div>${remarks}</td>${cell(r.baseline)}${r.cells.map(cell).join('')}</tr>`;
  });
  const body = `
<h1>cann-harness audit: scenario × mutant</h1>
<div class="muted">each column runs the suite under one deliberately broken stub (ACL_STUB_MUTANT); a scenario should fail under it (killed)</div>
<table id="matrix"><thead><tr><th>scenario</th><th>no mutant</th>${m.columns.map((c) => `<th class="mono">${escapeHtml(c)}</th>`).join('')}</tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>
${m.summary.map((l) => `<p>${escapeHtml(l)}</p>`).join('\n')}`;
  return page('cann-harness audit', body, '');
}

/** Writes the page as index.html of `dir`, a report folder that is ours (folder.ts); returns its path. */
export function writeMatrixReport(dir: string, m: MatrixPage, option = `--html ${dir}`): string {
  return replaceFile(prepareReportFolder(dir, option), INDEX_FILE, [renderMatrix(m)]);
}
