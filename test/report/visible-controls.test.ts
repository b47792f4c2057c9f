/**
 * Bidirectional controls in names (U+202E reverses what follows it on screen) are shown as text in
 * the terminal's failure report and in the HTML report (src/report/visible-controls.ts).
 */
import type { RoleResult } from '../../src/orchestrator/types';
import { formatScenarioFailure } from '../../src/report/failure';
import { escapeHtml } from '../../src/report/html/write';

const RLO = '\u202E';
const ISOLATE = '\u2066';

const role = (name: string, status: RoleResult['status']): RoleResult => ({
  name,
  device: 0,
  index: 0,
  pid: 1234,
  status,
  exitCode: status === 'passed' ? 0 : 1,
  signal: null,
  durationMs: 5,
  stdout: `mark ${ISOLATE}x\n`,
  stderr: '',
  marks: [],
  ...(status === 'failed' ? { error: { message: `waited for "ev${RLO}tnuoc"`, tNs: '1' } } : {}),
});

test('the terminal report shows bidi controls in names and messages as <U+XXXX>', () => {
  const text = formatScenarioFailure(`handoff ${RLO}deliaf`, {
    ok: false,
    dir: '/tmp/x',
    kept: false,
    timedOut: false,
    durationMs: 10,
    roles: [role(`producer${RLO}`, 'failed'), role(`consumer${ISOLATE}`, 'passed')],
  });
  expect(text).not.toMatch(/[\u202A-\u202E\u2066-\u2069]/);
  expect(text).toContain('scenario "handoff <U+202E>deliaf" failed');
  expect(text).toContain('role producer<U+202E> (device 0');
  expect(text).toContain('consumer<U+2066>');
});

test('HTML text shows them as text too (after escaping markup)', () => {
  expect(escapeHtml(`a${RLO}b<c>\u200F\u061C`)).toBe('a&lt;U+202E&gt;b&lt;c&gt;&lt;U+200F&gt;&lt;U+061C&gt;');
});
