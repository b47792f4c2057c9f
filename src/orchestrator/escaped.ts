/**
 * Processes a role started that left its process group (setsid(), setpgid(), a double fork into a
 * daemon): the group stop at a role's end does not reach them, so they outlived the run with their
 * stub objects, and the run passed without a word. Every process of a run inherits the scenario
 * directory in CANN_HARNESS_DIR (and its role in CANN_HARNESS_ROLE), and a process's initial
 * environment (/proc/<pid>/environ) stays what it was started with whatever group, session or
 * parent it moves to: at the end of the run, a live process with our directory that is not in a
 * role's group escaped. They are SIGKILLed (with their own group) and the role is failed, named.
 *
 * What this cannot see: a descendant started with a cleared or rewritten environment (`env -i`,
 * execve with its own envp). A cgroup per role would see those too (docs/guide/processes-and-leftovers.md).
 */
import { readdirSync, readFileSync } from 'node:fs';
import { ENV } from '../env';

export interface EscapedProcess {
  pid: number;
  pgid: number;
  role: string | null;
  /** Its command line, for the report (at most 200 characters). */
  command: string;
}

/** Live processes started with CANN_HARNESS_DIR=`dir` whose group is none of `groups`. */
export function escapedProcesses(dir: string, groups: ReadonlySet<number>): EscapedProcess[] {
  const wanted = `${ENV.dir}=${dir}`;
  const out: EscapedProcess[] = [];
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return out;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e) || Number(e) === process.pid) continue;
    try {
      const vars = readFileSync(`/proc/${e}/environ`, 'latin1').split('\0');
      if (!vars.includes(wanted)) continue;
      const stat = readFileSync(`/proc/${e}/stat`, 'latin1');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      const pgid = Number(rest[2]);
      if (rest[0] === 'Z' || rest[0] === 'X' || groups.has(pgid)) continue;
      const role = vars.find((v) => v.startsWith(`${ENV.role}=`))?.slice(ENV.role.length + 1) ?? null;
      const command = readFileSync(`/proc/${e}/cmdline`, 'latin1').split('\0').filter(Boolean).join(' ').slice(0, 200);
      out.push({ pid: Number(e), pgid, role, command });
    } catch {
      /* gone meanwhile, or not ours to read */
    }
  }
  return out;
}

/** SIGKILLs each escaped process and, when it leads one, its group. Never throws. */
export function stopEscaped(list: readonly EscapedProcess[]): void {
  for (const p of list) {
    for (const target of p.pgid === p.pid ? [-p.pid, p.pid] : [p.pid]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
  }
}

/** The report's sentence for one escaped process. */
export function describeEscaped(p: EscapedProcess): string {
  return (
    `left process ${p.pid} running outside its process group (it called setsid() or setpgid(); \`${p.command}\`): ` +
    'the harness stopped it at the end of the run; a role must stop what it starts before it ends'
  );
}
