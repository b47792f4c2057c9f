/**
 * Notes a run prints once, after its last spec (Jest's globalTeardown): which scenarios were
 * skipped and why (the default Jest output shows a skip's title only with --verbose), and which
 * passed with every wait a no-op (they prove no synchronization). Test workers append one JSON
 * line per note to a file in a private directory the global setup made (mkdtemp: mode 0700,
 * a fresh name), named to them by CANN_HARNESS_NOTES_LOG; the teardown reads it and removes it
 * (src/jest/run-notes.ts: this file is loaded in the workers, that one only in Jest's main process).
 */
import { appendFileSync } from 'node:fs';
import { ENV } from '../env';

export type RunNote =
  | { kind: 'skip'; file: string; scenario: string; reason: string }
  | { kind: 'noop-waits'; file: string; scenario: string; noopWaits: number }
  | { kind: 'explore-degraded'; file: string; scenario: string; text: string };

/** In a test worker: one note (no-op outside a run that started the notes). */
export function addRunNote(note: RunNote, env: NodeJS.ProcessEnv = process.env): void {
  const log = env[ENV.notesLog];
  if (log) appendFileSync(log, `${JSON.stringify(note)}\n`); // one write with O_APPEND: workers' lines do not interleave
}

export function formatRunNotes(notes: readonly RunNote[]): string {
  const seen = new Set<string>();
  const unique = notes.filter((n) => {
    const key = `${n.kind}\0${n.file}\0${n.scenario}`; // repetitions of one scenario: one note
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  const lines: string[] = [];
  const skips = unique.filter((n) => n.kind === 'skip');
  if (skips.length > 0) {
    lines.push(`[cann-harness] ${skips.length} scenario${skips.length === 1 ? '' : 's'} skipped:`);
    for (const s of skips) lines.push(`  ${s.file} › ${s.scenario}: ${s.reason}`);
  }
  for (const n of unique) {
    if (n.kind === 'explore-degraded') lines.push(`[cann-harness] warning: ${n.file} › ${n.scenario} passed, but ${n.text}`);
    if (n.kind !== 'noop-waits') continue;
    lines.push(
      `[cann-harness] warning: ${n.file} › ${n.scenario} passed, but all its waits (${n.noopWaits}) were no-ops, nothing pending when queued: ` +
        'it proves no synchronization; check it with `npx cann-harness audit`',
    );
  }
  return lines.length ? `${lines.join('\n')}\n` : '';
}
