/**
 * The text a failed scenario shows in Jest: which role failed and how (exit code or signal, ACL
 * error name and call), the last lines of its log, what every other role was doing, and where
 * the kept directory is. Plain text: Jest, JUnit XML and CI logs all show it as is.
 */
import type { RoleResult, RunResult } from '../orchestrator';
import { formatHappensBefore } from '../trace/happens-before';

export const LOG_TAIL_LINES = 12;

type AnyRole = Pick<RoleResult, 'name' | 'device' | 'pid' | 'status' | 'exitCode' | 'signal' | 'durationMs' | 'error' | 'stdout' | 'stderr' | 'waitingFor'>;
type AnyRun = Pick<RunResult, 'ok' | 'dir' | 'kept' | 'timedOut' | 'durationMs' | 'happensBefore'> & { roles: AnyRole[] };

/** Roles that caused the failure: failed, crashed or timed out (not those stopped because of them). */
export function culprits(run: AnyRun): AnyRole[] {
  return run.roles.filter((r) => r.status === 'failed' || r.status === 'crashed' || r.status === 'timeout');
}

export function formatScenarioFailure(name: string, run: AnyRun): string {
  const guilty = culprits(run);
  const lines: string[] = [];
  const what = run.timedOut ? 'timed out' : 'failed';
  lines.push(`scenario "${name}" ${what} after ${run.durationMs} ms`);
  for (const r of guilty) {
    lines.push('');
    lines.push(`role ${r.name} (device ${r.device}, pid ${r.pid ?? '-'}) ${r.status}: ${howItEnded(r)}`);
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
      lines.push(`  ${r.name.padEnd(14)} device ${r.device}  ${r.status} (${howItEnded(r)}, ${r.durationMs} ms)${wait}`);
    }
  }
  lines.push('');
  lines.push(
    run.kept
      ? `kept directory: ${run.dir} (logs/, result.json, trace/, rendezvous files)`
      : `scenario directory ${run.dir} was removed (set CANN_HARNESS_KEEP=1 to keep it)`,
  );
  return lines.join('\n');
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
  return s.split('\n')[0];
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
    for (const l of shown) out.push(`    | ${l}`);
  }
  if (out.length === 0) out.push('  (no output)');
  return out;
}
