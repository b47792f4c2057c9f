/**
 * Is a soak-rounds device process's memory flat (issue #35)? For the rounds benches
 * (rounds.bench.ts, rounds-sharing.bench.ts) and their specs (rounds-specs/, round-sharing-specs/):
 * each device process logs its memory at an early round and at its last; the bench judges the
 * difference.
 *
 * Judged: what the process holds live, V8's heapUsed plus the bytes malloc has handed out and not
 * had back (glibc's mallinfo2 uordblks + hblkhd: the stub's tasks, events and records, Node's and
 * V8's C++ objects, ArrayBuffer contents), after two full collections, and the count of its
 * /dev/shm mappings (the stub's IPC objects). RSS is logged and shown, not judged. The benches
 * judged RSS after one full collection until the template's read +1 % to +31 % with nothing
 * growing (100,000 rounds, every 10,000 a snapshot, bench/README.md `rounds-sharing` row):
 *  - right after gc(), RSS still holds the V8 pages the collection freed until V8's background
 *    threads unmap them (each 256 KiB page its own mapping): one producer read 122.6 MiB, and
 *    98.4 MiB a few milliseconds later; between two snapshots 52 more such mappings were 12.9 MiB
 *    more RSS;
 *  - one collection also leaves dead ArrayBuffers' contents to a background thread: a consumer's
 *    malloc'd bytes read 5.9 MiB (2.5 MiB of ArrayBuffers) at one snapshot, 3.3 MiB at the next;
 *  - meanwhile heapUsed stayed at 5.3-6.3 MiB and malloc'd bytes, those pending frees aside, at
 *    3.3-3.7 MiB, with the same /dev/shm mappings and threads, in every process, and so they did
 *    over 250,000 rounds.
 * After a second collection both settle (RSS within 5 MiB of its value half a second later,
 * malloc'd bytes 3.3-3.4 MiB at every snapshot). RSS still moves with V8's sizing of its young
 * generation (8 to 32 MiB of pages, grown as it sees fit) and of its old space (13.5 to 19.7 MiB of
 * pages holding 4.4-5.0 MiB, with one collection per snapshot), and with glibc keeping freed memory
 * for reuse (its arenas 1-2 MiB over what is in use): growth policies, not growth, and none of it
 * a measure of a leak. Live memory is: a leak of about 10 bytes a round is 10 % of these
 * ~9 MiB processes over 90,000 rounds.
 */
import { readFileSync } from 'node:fs';

/** One device process's memory at one round, after two full collections. */
export interface RoundMemory {
  rss: number;
  heapUsed: number;
  /** Bytes in use from malloc (mallinfo2 uordblks + hblkhd); undefined where libc has no mallinfo2. */
  malloc?: number;
  /** Mappings of /dev/shm objects (the stub's IPC events, memory, notifies). */
  shmMaps: number;
}

/** Growth of the live figure (heapUsed + malloc) above which a process is not flat. */
export const FLAT_WITHIN_PERCENT = 10;

type Mallinfo2 = () => { uordblks: number | bigint; hblkhd: number | bigint };
let mallinfo2: Mallinfo2 | null | undefined;

/** glibc's mallinfo2 (2.33 and later) through koffi, which every device process has loaded; null elsewhere. */
function loadMallinfo2(): Mallinfo2 | null {
  try {
    // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in the device process, only when measuring
    const koffi = require('koffi') as typeof import('koffi');
    const libc = koffi.load('libc.so.6');
    const fields = ['arena', 'ordblks', 'smblks', 'hblks', 'hblkhd', 'usmblks', 'fsmblks', 'uordblks', 'fordblks', 'keepcost'];
    koffi.struct('cann_bench_mallinfo2', Object.fromEntries(fields.map((f) => [f, 'size_t'])));
    return libc.func('cann_bench_mallinfo2 mallinfo2(void)') as Mallinfo2;
  } catch {
    return null;
  }
}

/** This process's memory now, after two full collections (the process must run with --expose-gc). */
export function measureRoundMemory(): RoundMemory {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error('measuring round memory needs a full collection: run the device processes with NODE_OPTIONS=--expose-gc');
  gc();
  gc(); // waits for the first one's background freeing (see the header)
  const { rss, heapUsed } = process.memoryUsage();
  if (mallinfo2 === undefined) mallinfo2 = loadMallinfo2();
  const mi = mallinfo2?.();
  const shmMaps = readFileSync('/proc/self/maps', 'utf8')
    .split('\n')
    .filter((l) => l.includes(' /dev/shm/')).length;
  return { rss, heapUsed, malloc: mi ? Number(mi.uordblks) + Number(mi.hblkhd) : undefined, shmMaps };
}

const LINE = /\bmem (\S+) round (\d+) (\{[^\n]*\})/g;

/** For a role body: logs the process's memory at round `at` and at the last round (a run of more than one round). */
export function logRoundMemory(ctx: { role: string; round: number; rounds: number; log(s: string): void }, at: number | undefined): void {
  if (at === undefined) return; // not measuring: the run is not a rounds bench's (no --expose-gc)
  if (ctx.rounds > 1 && (ctx.round === at || ctx.round === ctx.rounds)) {
    ctx.log(`mem ${ctx.role} round ${ctx.round} ${JSON.stringify(measureRoundMemory())}`);
  }
}

/** The bench's side: every role's logged memory by round, from a run's output (CANN_HARNESS_ECHO=1). */
export function parseRoundMemory(out: string): Map<string, Map<number, RoundMemory>> {
  const byRole = new Map<string, Map<number, RoundMemory>>();
  for (const m of out.matchAll(LINE)) {
    const rounds = byRole.get(m[1]) ?? new Map<number, RoundMemory>();
    byRole.set(m[1], rounds.set(Number(m[2]), JSON.parse(m[3]) as RoundMemory));
  }
  return byRole;
}

export interface MemoryVerdict {
  role: string;
  /** Growth of heapUsed + malloc, in percent and in bytes per round. */
  livePercent: number;
  liveBytesPerRound: number;
  rssPercent: number;
  shmMapsAdded: number;
  flat: boolean;
  text: string;
}

const mib = (b: number) => `${(b / 2 ** 20).toFixed(2)} MiB`;
const pct = (p: number) => `${p >= 0 ? '+' : ''}${p.toFixed(1)} %`;

/** Judges each role from its first logged round to its last: live memory within FLAT_WITHIN_PERCENT, no /dev/shm mapping added. */
export function judgeRoundMemory(byRole: Map<string, Map<number, RoundMemory>>): MemoryVerdict[] {
  const verdicts: MemoryVerdict[] = [];
  for (const [role, rounds] of [...byRole].sort((a, b) => a[0].localeCompare(b[0]))) {
    const sorted = [...rounds].sort((a, b) => a[0] - b[0]);
    if (sorted.length < 2) continue;
    const [[r0, early], [r1, late]] = [sorted[0], sorted[sorted.length - 1]];
    const live = (m: RoundMemory) => m.heapUsed + (m.malloc ?? 0);
    const livePercent = ((live(late) - live(early)) / live(early)) * 100;
    const liveBytesPerRound = (live(late) - live(early)) / (r1 - r0);
    const rssPercent = ((late.rss - early.rss) / early.rss) * 100;
    const shmMapsAdded = late.shmMaps - early.shmMaps;
    const flat = livePercent <= FLAT_WITHIN_PERCENT && shmMapsAdded <= 0;
    const parts =
      early.malloc === undefined || late.malloc === undefined
        ? `heapUsed ${mib(early.heapUsed)} -> ${mib(late.heapUsed)} (no mallinfo2 here)`
        : `heapUsed ${mib(early.heapUsed)} -> ${mib(late.heapUsed)} + malloc ${mib(early.malloc)} -> ${mib(late.malloc)}`;
    const text =
      `${role}: ${parts} = ${mib(live(early))} -> ${mib(live(late))} (${pct(livePercent)}, ${liveBytesPerRound.toFixed(1)} B/round), ` +
      `/dev/shm mappings ${early.shmMaps} -> ${late.shmMaps}; RSS ${mib(early.rss)} -> ${mib(late.rss)} (${pct(rssPercent)}, not judged)`;
    verdicts.push({ role, livePercent, liveBytesPerRound, rssPercent, shmMapsAdded, flat, text });
  }
  return verdicts;
}
