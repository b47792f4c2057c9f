/**
 * Writes the HTML report: <dir>/index.html and one page per scenario under <dir>/scenarios/.
 * Every page stands alone (its CSS, script and data inlined), so the folder opens from file://
 * with no network. Text is rendered in HTML (readable without script); the timeline and the
 * wait-for graph are drawn by the page's script from the JSON it carries.
 */
import * as path from 'node:path';
import { CSS, INDEX_JS, SCENARIO_JS } from './assets';
import { prepareReportFolder, replaceFile, replacePages, writePage } from './folder';
import type { IndexModel, RoleModel, ScenarioModel } from './model';
import { showBidiControls } from '../visible-controls';

export const INDEX_FILE = 'index.html';

/** Text for HTML: markup characters escaped, bidirectional controls shown as text (visible-controls.ts). */
export function escapeHtml(s: string): string {
  return showBidiControls(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** JSON inside <script>: nothing in it can close the element; bidirectional controls in its strings (names drawn by the page's script) shown as text. */
function scriptJson(value: unknown): string {
  return showBidiControls(JSON.stringify(value)).replace(/</g, '\\u003c').replace(/\u2028/g, '\\u2028').replace(/\u2029/g, '\\u2029');
}

export function page(title: string, body: string, script: string, data?: { id: string; value: unknown }): string {
  return [
    '<!doctype html>',
    '<html lang="en"><head><meta charset="utf-8">',
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    // Nothing may load from anywhere: the report works air-gapped, and shows so if it ever tried.
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
    `<title>${escapeHtml(title)}</title>`,
    `<style>${CSS}</style></head><body>`,
    body,
    data ? `<script type="application/json" id="${data.id}">${scriptJson(data.value)}</script>` : '',
    script ? `<script>${script}</script>` : '',
    '</body></html>',
  ].join('\n');
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const int = (n: number) => n.toLocaleString('en-US');
/** A pass that proves nothing: every wait of the run was a no-op (the terminal's run notes say it too). */
const noopBadge = (n: number) =>
  `<span class="noop-badge" title="every wait (${n}) was a no-op: nothing was waited for, so this pass proves nothing">${n === 1 ? 'its one wait a no-op' : `all ${int(n)} waits no-ops`}</span>`;
const pill = (status: string) => `<span class="pill s-${escapeHtml(status)}">${escapeHtml(status)}</span>`;

export function renderIndex(m: IndexModel): string {
  const t = m.totals;
  const run = m.run;
  const facts = [
    ['mode', run.mode],
    ['library', run.library],
    ['devices', run.devices === null ? '?' : String(run.devices)],
    ['duration', seconds(run.durationMs)],
    ['started', new Date(run.startedAt).toISOString()],
  ];
  const noop = m.rows.filter((r) => r.noopWaits).length;
  const rows = m.rows.map((r) => {
    const title = r.page ? `<a href="${escapeHtml(r.page)}">${escapeHtml(r.title)}</a>` : escapeHtml(r.title);
    const extra = [r.reason ? `skipped: ${r.reason}` : null, r.attempts > 1 ? `${r.attempts} attempts` : null, r.rounds].filter(Boolean).join('; ');
    return (
      `<tr data-status="${r.status}" data-text="${escapeHtml(`${r.file} ${r.title}`.toLowerCase())}"${r.noopWaits ? ' data-noop="1"' : ''}>` +
      `<td>${pill(r.status)}</td><td>${title}${extra ? ` <span class="muted">(${escapeHtml(extra)})</span>` : ''}${r.noopWaits ? ` ${noopBadge(r.noopWaits)}` : ''}</td>` +
      `<td class="mono">${escapeHtml(r.file)}</td><td>${r.repetition ?? ''}</td><td>${r.status === 'skipped' ? '' : seconds(r.durationMs)}</td></tr>`
    );
  });
  const loadErrors = run.loadErrors.map((e) => `<h3 class="t-failed">${escapeHtml(e.file)} could not be loaded</h3><pre>${escapeHtml(e.message)}</pre>`);
  const body = `
<h1>cann-ipc-harness report</h1>
<div class="totals"><span class="t-passed">${t.passed} passed</span><span class="t-failed">${t.failed} failed</span><span class="t-flaky">${t.flaky} flaky</span><span class="t-skipped">${t.skipped} skipped</span>${t.loadErrors ? `<span class="t-failed">${t.loadErrors} spec file(s) failed to load</span>` : ''}${noop ? `<span class="t-flaky">${noop} passed with every wait a no-op (proves nothing)</span>` : ''}</div>
<div class="facts">${facts.map(([k, v]) => `<span>${k}: <b>${escapeHtml(v)}</b></span>`).join('')}</div>
${m.seeds.length ? `<div class="facts"><span>jitter seeds (ACL_STUB_JITTER): <b class="mono">${escapeHtml(m.seeds.join(' '))}</b></span></div>` : ''}
<div>rerun: <code>${escapeHtml(run.rerun)}</code></div>
${loadErrors.join('\n')}
<h2>Scenarios</h2>
<div class="filters">
  ${(['failed', 'flaky', 'passed', 'skipped'] as const).map((s) => `<label><input type="checkbox" data-filter="${s}" checked> ${s}</label>`).join('\n  ')}
  <input type="search" id="q" placeholder="filter by file or name" aria-label="filter by file or name">
  <span id="shown" class="muted"></span>
</div>
<table id="scenarios"><thead><tr><th>status</th><th>scenario</th><th>spec file</th><th>repetition</th><th>duration</th></tr></thead>
<tbody>
${rows.join('\n')}
</tbody></table>`;
  return page('cann-ipc-harness report', body, INDEX_JS);
}

function renderRole(r: RoleModel): string {
  const lines = [
    `<h3>${escapeHtml(r.name)} ${pill(r.status)} <span class="muted">device ${r.device} · pid ${r.pid ?? '-'} · ${escapeHtml(r.how)} · ${r.durationMs} ms</span></h3>`,
  ];
  if (r.first) lines.push('<div class="t-failed"><b>failed first: the run blames this role</b></div>');
  if (r.consequenceOf) lines.push(`<div class="muted">a consequence: it ${r.status === 'stopped' ? 'was stopped' : 'failed'} after role <b>${escapeHtml(r.consequenceOf)}</b> failed first</div>`);
  if (r.error) lines.push(`<div>error: <span class="mono">${escapeHtml(r.error)}</span></div>`);
  if (r.acl) lines.push(`<div>ACL: <span class="mono">${escapeHtml(`${r.acl.call}(${r.acl.args})`)}</span> → <span class="acl">${escapeHtml(r.acl.name)}</span> (${r.acl.code})${r.acl.recentErrMsg ? `: ${escapeHtml(r.acl.recentErrMsg)}` : ''}</div>`);
  if (r.errorWhileStopping) lines.push(`<div class="muted">while being stopped it reported: ${escapeHtml(r.errorWhileStopping)}</div>`);
  if (r.waitingFor) lines.push(`<div>waiting for: ${escapeHtml(r.waitingFor)}</div>`);
  for (const c of r.cancelled) lines.push(`<div class="muted">cancelled when it ended: ${escapeHtml(c)}</div>`);
  for (const l of r.outputLoss) lines.push(`<div class="muted">${escapeHtml(l)}</div>`);
  for (const [name, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    lines.push(`<div class="muted">${name}${text ? '' : ' (empty)'}</div>`);
    if (text) lines.push(`<pre class="log ${name}" data-role="${escapeHtml(r.name)}">${escapeHtml(text)}</pre>`);
  }
  return `<div class="role${r.first ? ' first' : ''}" data-role="${escapeHtml(r.name)}">${lines.join('\n')}</div>`;
}

export function renderScenario(m: ScenarioModel): string {
  const parts: string[] = [];
  parts.push(`<div><a href="../${INDEX_FILE}">← all scenarios</a></div>`);
  parts.push(`<h1>${escapeHtml(m.row.title)} ${pill(m.row.status)}</h1>`);
  parts.push(
    `<div class="facts"><span>spec file: <b class="mono">${escapeHtml(m.row.file)}</b></span><span>duration: <b>${seconds(m.row.durationMs)}</b></span>` +
      `${m.mode ? `<span>mode: <b>${escapeHtml(m.mode)}</b></span>` : ''}${m.jitter ? `<span>jitter seed: <b class="mono">${escapeHtml(m.jitter)}</b></span>` : ''}` +
      `${m.row.attempts > 1 ? `<span>attempts: <b>${m.row.attempts}</b></span>` : ''}${m.timedOut ? '<span class="t-failed"><b>timed out</b></span>' : ''}</div>`,
  );
  if (m.explore) parts.push(`<div class="facts explore"><span>schedule explorer: <b class="mono">${escapeHtml(m.explore)}</b></span></div>`);
  if (m.replay) parts.push(`<div>replay: <code>${escapeHtml(m.replay)}</code></div>`);
  if (m.rounds) {
    const r = m.rounds;
    const verdict = r.failedRound !== null ? `<b class="t-failed">round ${int(r.failedRound)} failed</b> after ${int(r.done)} of ${int(r.total)} passed` : `<b>${int(r.done)} of ${int(r.total)}</b> passed`;
    parts.push(
      `<div class="facts rounds"><span>rounds: ${verdict}</span>${r.perSecond !== null ? `<span>rate: <b>${int(r.perSecond)} rounds/s</b> (whole run, start-up included)</span>` : ''}` +
        `${m.timeline ? `<span>the timeline shows round <b>${int(r.shown)}</b> (${r.failedRound !== null ? 'the failing one' : 'the last'}): the trace of every other round was checked and dropped</span>` : ''}</div>`,
    );
  }
  if (m.row.noopWaits) {
    parts.push(`<div class="noop-banner">${noopBadge(m.row.noopWaits)} every wait of this run was a no-op (nothing to wait for when it was queued): it passed, but it proves nothing about waits. Make the record pending when the wait is queued (e.g. behind a latch), or declare <code>audit: { expectSurvive: ['wait-noop'] }</code>.</div>`);
  }
  if (m.firstFailure) {
    const others = m.roles.filter((r) => r.consequenceOf === m.firstFailure!.role).map((r) => r.name);
    parts.push(
      `<h2>First failure</h2><div>role <b>${escapeHtml(m.firstFailure.role)}</b> (${escapeHtml(m.firstFailure.status)}) failed first.` +
        `${others.length ? ` ${escapeHtml(others.join(', '))} ${others.length > 1 ? 'are' : 'is'} its consequence${others.length > 1 ? 's' : ''}: ${others.length > 1 ? 'they' : 'it'} failed or ${others.length > 1 ? 'were' : 'was'} stopped after it.` : ''}</div>`,
    );
  }
  if (m.verifyError) parts.push(`<h2>verify() failed</h2><pre>${escapeHtml(m.verifyError)}</pre>`);
  if (m.waitGraph) {
    parts.push(`<h2>Wait-for graph at the deadline</h2><div class="muted">an arrow A → B: A waits for B${m.waitGraph.deadlock ? '; the deadlock is in red' : ''}</div><div id="wait-graph"></div><pre>${escapeHtml(m.waitGraph.lines.join('\n'))}</pre>`);
  }
  parts.push('<h2>Roles</h2>');
  if (m.roles.length) {
    parts.push(
      '<table><thead><tr><th>role</th><th>device</th><th>pid</th><th>status</th><th>exit</th><th>duration</th><th>ACL error</th></tr></thead><tbody>' +
        m.roles
          .map((r) => `<tr><td>${escapeHtml(r.name)}${r.first ? ' <b class="t-failed">(first)</b>' : ''}</td><td>${r.device}</td><td>${r.pid ?? '-'}</td><td>${pill(r.status)}</td><td>${escapeHtml(r.how)}</td><td>${r.durationMs} ms</td><td class="acl">${r.acl ? escapeHtml(r.acl.name) : ''}</td></tr>`)
          .join('') +
        '</tbody></table>',
    );
    parts.push(...m.roles.map(renderRole));
  } else {
    parts.push('<div class="muted">no role ran</div>');
  }
  if (m.failureMessages.length && m.row.status !== 'passed') parts.push(`<h2>Jest's message</h2><pre>${escapeHtml(m.failureMessages.join('\n\n'))}</pre>`);
  parts.push('<h2>Timeline</h2>');
  if (m.timeline) {
    parts.push(
      `<div id="timeline"><div class="tl-tools"><button class="zoom-out" type="button">−</button><button class="zoom-fit" type="button">fit</button><button class="zoom-in" type="button">+</button><span class="zoom-level muted"></span>` +
        '<span class="muted">Ctrl + wheel zooms; hover for details</span></div>' +
        '<div class="legend muted"><span><i class="sw" style="background:#1f6feb"></i>record</span><span><i class="sw" style="background:#8250df"></i>wait</span><span><i class="sw" style="background:#8250df;opacity:.25"></i>queued</span>' +
        '<span><i class="sw" style="background:#bf8700"></i>host function</span><span><i class="sw" style="background:#1a7f37"></i>memcpy / memset</span>' +
        '<span><i class="sw" style="border:1px dashed #cf222e"></i>unfinished at ' + escapeHtml(m.timeline.unfinishedUntil) + '</span>' +
        '<span><i class="sw" style="background:#cf222e;height:2px"></i>record → the wait it released</span><span><i class="sw" style="background:#0969da;width:2px"></i>mark</span></div>' +
        `<div class="tl-wrap"></div><div class="muted">${m.timeline.arrows.length} release arrow(s), ${m.timeline.bars.length} task(s)</div></div>`,
    );
  } else {
    parts.push(`<div class="muted">${escapeHtml(m.noTimeline ?? 'no timeline')}</div>`);
  }
  if (m.happensBefore) {
    const hb = m.happensBefore;
    const verdict = hb.skipped ? `skipped: ${hb.skipped}` : hb.ok ? 'no violation' : `${hb.violations.length} violation(s)`;
    parts.push(
      `<h2>Happens-before check${m.rounds ? ` <span class="muted">(${m.rounds.failedRound !== null ? `round ${int(m.rounds.failedRound)}, the failing one: the ${int(m.rounds.done)} before it passed their checks` : `over all ${int(m.rounds.total)} rounds`})</span>` : ''}</h2><div class="${hb.skipped ? 't-skipped' : hb.ok ? 't-passed' : 't-failed'}"><b>${escapeHtml(verdict)}</b></div>` +
        `<div class="muted">${Object.entries(hb.stats).map(([k, v]) => `${escapeHtml(k)}: ${v}`).join(' · ')}</div>` +
        (hb.violations.length ? `<pre>${escapeHtml(hb.violations.join('\n'))}</pre>` : ''),
    );
  }
  return page(`${m.row.title}: ${m.row.status}`, parts.join('\n'), SCENARIO_JS, { id: 'scenario-data', value: { timeline: m.timeline, waitGraph: m.waitGraph } });
}

/**
 * Replaces the report in `dir` (only the files a report consists of), a folder that is ours
 * (folder.ts: new, empty or marked; never through a link); returns index.html's path. The pages
 * are written one at a time, the index last: a writer that fails leaves the previous report whole.
 */
export function writeHtmlReport(dir: string, index: IndexModel, scenarios: Iterable<ScenarioModel>, option = `--html ${dir}`): string {
  const folder = prepareReportFolder(dir, option);
  replacePages(folder, (pages) => {
    for (const s of scenarios) writePage(pages, path.basename(s.row.page!), [renderScenario(s)]);
  });
  return replaceFile(folder, INDEX_FILE, [renderIndex(index)]);
}
