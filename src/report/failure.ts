/**
 * The text a failed scenario shows in Jest: which role failed first and how (exit code or signal,
 * ACL error name and call), every other failure (marked when it came after the first one), the
 * last lines of each failed role's log (and how much of it is missing), what every other role was
 * doing or said while being stopped, and where the kept directory is. Plain text: Jest, JUnit XML
 * and CI logs all show it as is.
 */
import { readdirSync } from 'node:fs';
import type { CancelledTask, RoleResult, RunResult } from '../orchestrator';
import { MAX_CAPTURE_CHARS, MAX_MESSAGE_LINE_CHARS, clipLine } from '../orchestrator/output-capture';
import { formatHappensBefore } from '../trace/happens-before';
import { showBidiControls } from './visible-controls';

const MAX_CAPTURE_MIB = MAX_CAPTURE_CHARS / (1024 * 1024);

export const LOG_TAIL_LINES = 12;

type AnyRole = Pick<RoleResult, 'name' | 'device' | 'pid' | 'status' | 'exitCode' | 'signal' | 'durationMs' | 'error' | 'stdout' | 'stderr' | 'waitingFor'> &
  Partial<Pick<RoleResult, 'failedAtNs' | 'errorWhileStopping' | 'consequenceOf' | 'outputLoss' | 'cancelledTasks'>>;
type AnyRun = Pick<RunResult, 'ok' | 'dir' | 'kept' | 'timedOut' | 'durationMs' | 'happensBefore'> & Partial<Pick<RunResult, 'firstFailure' | 'waitGraph' | 'timeline' | 'postMortemProblems'>> & { roles: AnyRole[] };

/**
 * Roles that failed, crashed or timed out (not those stopped because of them): the first failure
 * (RunResult.firstFailure) first, then the others in the order they failed.
 */
export function culprits(run: AnyRun): AnyRole[] {
  const guilty = run.roles.filter((r) => r.status === 'failed' || r.status === 'crashed' || r.status === 'timeout');
  const first = run.firstFailure?.role;
  const at = (r: AnyRole) => (r.failedAtNs === undefined ? null : BigInt(r.failedAtNs));
  return guilty
    .map((r, i) => ({ r, i }))
    .sort((a, b) => {
      if (a.r.name === first || b.r.name === first) return a.r.name === first ? -1 : 1;
      const ta = at(a.r);
      const tb = at(b.r);
      if (ta !== null && tb !== null && ta !== tb) return ta < tb ? -1 : 1;
      return a.i - b.i;
    })
    .map(({ r }) => r);
}

export function formatScenarioFailure(name: string, run: AnyRun): string {
  const guilty = culprits(run);
  const lines: string[] = [];
  const what = run.timedOut ? 'timed out' : 'failed';
  lines.push(`scenario "${name}" ${what} after ${run.durationMs} ms`);
  if (run.waitGraph) lines.push('', ...run.waitGraph.lines);
  if (run.firstFailure && guilty.length > 1) {
    lines.push(`first failure: role ${run.firstFailure.role} (${run.firstFailure.status}); the others came after it`);
  }
  for (const r of guilty) {
    lines.push('');
    const after = r.consequenceOf ? ` (after role ${r.consequenceOf} failed first: probably a consequence)` : '';
    lines.push(`role ${r.name} (device ${r.device}, pid ${r.pid ?? '-'}) ${r.status}: ${howItEnded(r)}${after}`);
    if (r.error) {
      lines.push(`  error: ${firstLine(r.error.message)}`);
      if (r.error.acl) {
        const a = r.error.acl;
        lines.push(`  ACL error: ${a.name} (${a.code}) from ${a.call}(${a.args})`);
        if (a.recentErrMsg) lines.push(`  runtime says: ${a.recentErrMsg}`);
      }
      const at = whereInSpec(r.error.stack);
      if (at) lines.push(`  where: ${at}`);
    }
    if (r.waitingFor && !r.error?.message.includes(r.waitingFor.what)) lines.push(`  was waiting for: ${describeWait(r.waitingFor)}`);
    lines.push(...logTail(r));
  }
  if (run.happensBefore && !run.happensBefore.ok) lines.push('', formatHappensBefore(run.happensBefore));
  const others = run.roles.filter((r) => !guilty.includes(r));
  if (others.length > 0) {
    lines.push('');
    lines.push('other roles:');
    for (const r of others) {
      const wait = r.waitingFor ? `, waiting for ${describeWait(r.waitingFor)}` : '';
      const because = r.status === 'stopped' && r.error ? `: ${firstLine(r.error.message)}` : '';
      lines.push(`  ${r.name.padEnd(14)} device ${r.device}  ${r.status} (${howItEnded(r)}, ${r.durationMs} ms)${wait}${because}`);
      if (r.errorWhileStopping) lines.push(`    while being stopped it reported an error: ${firstLine(r.errorWhileStopping.message)}`);
    }
  }
  const cancelled = run.roles.filter((r) => r.cancelledTasks?.length);
  if (cancelled.length > 0) {
    lines.push('');
    lines.push('device work cancelled when its role ended (queued, never run):');
    for (const r of cancelled) for (const t of r.cancelledTasks!) lines.push(`  ${r.name.padEnd(14)} ${describeTask(t)}`);
  }
  if (run.timeline?.length) lines.push('', ...run.timeline);
  lines.push('');
  lines.push(
    run.kept
      ? `kept directory: ${run.dir} (${keptContents(run.dir)})` +
          (run.postMortemProblems?.length ? `; not written: ${run.postMortemProblems.join(', ')}` : '')
      : `scenario directory ${run.dir} was removed (set CANN_HARNESS_KEEP=1 to keep it)`,
  );
  return showBidiControls(lines.join('\n'));
}

/** What a kept directory holds, of the files a reader looks for first (trace.json is absent with trace: 'never'). */
function keptContents(dir: string): string {
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    return 'removed since';
  }
  const known = ['logs', 'result.json', 'trace', 'trace.json', 'hang'];
  const shown = known.filter((n) => names.includes(n)).map((n) => (n.includes('.') ? n : `${n}/`));
  if (names.some((n) => !known.includes(n))) shown.push('rendezvous files');
  return shown.join(', ');
}

export function describeTask(t: CancelledTask): string {
  const what = t.ipc ? `${t.kind} of IPC event ${t.ipc} (slot ${t.slot})` : t.event ? `${t.kind} of event ${t.event}` : t.kind;
  return `${what} on device ${t.device}, stream ${t.stream}`;
}

function howItEnded(r: AnyRole): string {
  if (r.signal) return `killed by ${r.signal}`;
  if (r.exitCode !== null) return `exit code ${r.exitCode}`;
  return 'never started';
}

function describeWait(w: { what: string; from?: string }): string {
  return `${w.what}${w.from ? ` from role ${w.from}` : ''}`;
}

function firstLine(s: string): string {
  return clipLine(s.split('\n', 1)[0], MAX_MESSAGE_LINE_CHARS);
}

/** Where in the spec the first failing role failed (a stack frame, without "at "), if known. */
export function failureFrame(run: AnyRun): string | null {
  for (const r of culprits(run)) {
    const frame = whereInSpec(r.error?.stack);
    if (frame) return frame;
  }
  return null;
}

/** The first stack frame in a spec file: where in the scenario the role failed. */
function whereInSpec(stack: string | undefined): string | null {
  const frame = stack?.split('\n').find((l) => /\.(spec|test)\.[cm]?[jt]s:\d+/.test(l));
  return frame ? frame.trim().replace(/^at\s+/, '') : null;
}

function logTail(r: AnyRole): string[] {
  const out: string[] = [];
  for (const [label, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
    const all = text.split('\n');
    if (all[all.length - 1] === '') all.pop();
    if (all.length === 0) continue;
    const shown = all.slice(-LOG_TAIL_LINES);
    out.push(`  last ${shown.length} of ${all.length} ${label} lines:`);
    for (const l of shown) out.push(`    | ${clipLine(l)}`);
  }
  for (const loss of r.outputLoss ?? []) out.push(`  ${describeLoss(loss, r.name)}`);
  if (out.length === 0) out.push('  (no output)');
  return out;
}

/** Says plainly which part of a stream is missing, so the tail above is never mistaken for all of it. */
export function describeLoss(loss: NonNullable<RoleResult['outputLoss']>[number], role: string): string {
  const parts: string[] = [];
  if (loss.notKeptChars > 0) {
    const file = `logs/${role}.${loss.stream}.log`;
    const memory = `the harness keeps the last ${MAX_CAPTURE_MIB} MiB in memory, and a kept directory's ${file} has the full log`;
    parts.push(`the first ${loss.notKeptChars} characters were not kept here (${memory})`);
  }
  if (loss.unflushedBytes > 0) parts.push(`the last ${loss.unflushedBytes} bytes (at most: a write still in progress counts whole) were never flushed (the process exited first)`);
  return `${loss.stream} is incomplete: ${parts.join('; ')}`;
}
