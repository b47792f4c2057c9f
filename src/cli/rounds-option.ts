/** `run --rounds N`: the round count, refused with the fix (the same words as a scenario's `rounds`). */
import { roundsProblem } from '../env/rounds';

export function parseRounds(text: string): number {
  const n = /^\d+$/.test(text.trim()) ? Number(text.trim()) : text;
  const problem = roundsProblem(n, '--rounds', 'e.g. --rounds 10000 (a spec pattern right after --rounds is taken as its value: put patterns first)');
  if (problem) throw new Error(problem);
  return n as number;
}
