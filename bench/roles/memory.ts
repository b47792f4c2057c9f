/**
 * One process's memory, for the device-process bench. Peak RSS (what `time -v` and the issue
 * quote) counts the Node binary's file pages, which every device process shares with the others;
 * private memory (Private_Clean + Private_Dirty of /proc/self/smaps_rollup) is what each extra
 * process really adds.
 */
export interface ProcessMemory {
  maxRssKiB: number;
  privateKiB: number;
}

/** Self-contained (its source also runs in a bare `node -e`). */
export function processMemory(): ProcessMemory {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const rollup = (require('node:fs') as typeof import('node:fs')).readFileSync('/proc/self/smaps_rollup', 'utf8');
  const kib = (field: string): number => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(rollup)?.[1] ?? NaN);
  return { maxRssKiB: process.resourceUsage().maxRSS, privateKiB: kib('Private_Clean') + kib('Private_Dirty') };
}
