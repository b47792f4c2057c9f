import { readdirSync, readFileSync } from 'node:fs';

/**
 * Every child leads its own process group (spawned with detached: true, so pgid == pid); signalling
 * the negative pid reaches the child and everything it started.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false; // group already empty
    throw e;
  }
}

/** Live (non-zombie) processes whose process group is one of `pgids`. */
function liveMembers(pgids: Set<number>): number {
  let n = 0;
  let entries: string[];
  try {
    entries = readdirSync('/proc');
  } catch {
    return 0;
  }
  for (const e of entries) {
    if (!/^\d+$/.test(e)) continue;
    try {
      const stat = readFileSync(`/proc/${e}/stat`, 'latin1');
      const rest = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (rest[0] !== 'Z' && rest[0] !== 'X' && pgids.has(Number(rest[2]))) n++;
    } catch {
      /* gone meanwhile */
    }
  }
  return n;
}

/**
 * Resolves once no live process is left in the roles' groups (bounded by `maxMs`): what a native
 * role forked was SIGKILLed with its group, but dies asynchronously, and the stub's objects of a
 * process still alive are (rightly) not reclaimed.
 */
export async function groupsEmptied(pgids: number[], maxMs = 2000): Promise<void> {
  const set = new Set(pgids);
  const end = Date.now() + maxMs;
  while (liveMembers(set) > 0 && Date.now() < end) await new Promise((r) => setTimeout(r, 10));
}
