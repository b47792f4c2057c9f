/** A plain-text (no colour) summary of a run, readable in Jest failure messages and CI logs. */
import { MAX_MESSAGE_LINE_CHARS, clipLine } from './output-capture';
import type { FirstFailure, RoleResult } from './types';

const ICON: Record<RoleResult['status'], string> = {
  passed: 'ok  ',
  failed: 'FAIL',
  crashed: 'CRASH',
  timeout: 'TIME',
  stopped: 'STOP',
};

function tail(text: string, n: number): string[] {
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') lines.pop();
  return lines.slice(-n);
}

export function summarize(
  label: string,
  ok: boolean,
  durationMs: number,
  roles: RoleResult[],
  dir: string,
  kept: boolean,
  timedOut: boolean,
  firstFailure?: FirstFailure,
): string {
  const head = `${label}: ${ok ? 'passed' : timedOut ? 'TIMED OUT' : 'FAILED'} in ${durationMs} ms` + (kept ? ` (scenario dir kept: ${dir})` : '');
  const out = [head];
  if (firstFailure) out.push(`  first failure: role ${firstFailure.role} (${firstFailure.status})`);
  for (const r of roles) {
    const how = r.signal ? `signal ${r.signal}` : r.exitCode !== null ? `exit ${r.exitCode}` : 'not started';
    out.push(`  ${ICON[r.status].padEnd(5)} ${r.name}@dev${r.device} ${r.status} (${how}, ${r.durationMs} ms, pid ${r.pid ?? '-'})`);
    if (r.library !== undefined) out.push(`        library: ${r.library ?? 'no libascendcl.so seen in its memory map'}`);
    for (const t of r.cancelledTasks ?? []) out.push(`        cancelled when it ended: ${t.kind} on device ${t.device}, stream ${t.stream}${t.ipc ? `, IPC event ${t.ipc}` : ''}`);
    if (r.status === 'passed') continue;
    if (r.consequenceOf) out.push(`        after role ${r.consequenceOf} failed first`);
    if (r.error) {
      out.push(`        error: ${r.error.message.split('\n').map((l) => clipLine(l, MAX_MESSAGE_LINE_CHARS)).join('\n')}`);
      if (r.error.acl) {
        const a = r.error.acl;
        out.push(`        acl: ${a.call}(${a.args}) -> ${a.name} (${a.code})${a.recentErrMsg ? `: ${a.recentErrMsg}` : ''}`);
      }
    }
    if (r.errorWhileStopping) out.push(`        while being stopped it reported an error: ${clipLine(r.errorWhileStopping.message, MAX_MESSAGE_LINE_CHARS)}`);
    if (r.waitingFor) {
      out.push(`        waiting for: ${r.waitingFor.what}${r.waitingFor.from ? ` from role "${r.waitingFor.from}"` : ''}`);
    }
    for (const [stream, text] of [['stdout', r.stdout], ['stderr', r.stderr]] as const) {
      const lines = tail(text, 5);
      if (lines.length) {
        out.push(`        last ${stream}:`);
        for (const l of lines) out.push(`          | ${clipLine(l)}`);
      }
    }
    for (const loss of r.outputLoss ?? []) {
      const kept = `${loss.notKeptChars} characters not kept in memory (logs/${r.name}.${loss.stream}.log of a kept directory has them)`;
      out.push(`        ${loss.stream} incomplete: ${kept}, at most ${loss.unflushedBytes} bytes never flushed`);
    }
  }
  return out.join('\n');
}
