/**
 * The run's notes file (src/report/run-notes.ts), in Jest's main process: made by the global
 * setup, read, printed and removed by the global teardown, and removed as well if the run is
 * interrupted or exits first (live-runs.ts).
 */
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import { ENV } from '../env';
import { makeOwnedTempDir } from '../orchestrator/owned-temp';
import { registerLive, unregisterLive, type Teardown } from '../orchestrator/live-runs';
import { formatRunNotes, type RunNote } from '../report/run-notes';

let notesDir: Teardown | undefined;

/** Global setup: a private file for this run's notes, named to the workers through the environment. */
export function startRunNotes(env: NodeJS.ProcessEnv = process.env): void {
  // Always a fresh one: a value inherited from an outer run (a Jest run started by a test) is not ours.
  const dir = makeOwnedTempDir('notes'); // named after this process: a SIGKILLed run's is removed by the next start
  env[ENV.notesLog] = path.join(dir, 'notes.jsonl');
  // A run interrupted before its teardown (Ctrl-C, SIGTERM, an exit) still leaves nothing.
  notesDir = { emergencyStop: () => rmSync(dir, { recursive: true, force: true }) };
  registerLive(notesDir);
}

/** Global teardown: the notes as text (empty when there are none), and the file removed. */
export function finishRunNotes(env: NodeJS.ProcessEnv = process.env): string {
  const log = env[ENV.notesLog];
  if (!log) return '';
  delete env[ENV.notesLog];
  if (notesDir) unregisterLive(notesDir);
  notesDir = undefined;
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    /* no note was written */
  } finally {
    rmSync(path.dirname(log), { recursive: true, force: true });
  }
  return formatRunNotes(text.split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as RunNote));
}
