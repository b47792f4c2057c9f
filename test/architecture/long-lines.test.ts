/**
 * The line-length rule of TypeScript (eslint.config.mjs: max-len 140) holds for every file but
 * those listed in tools/lint/long-lines.json, which had longer lines when the rule came. ESLint
 * (test/architecture/lint.test.ts) applies the rule; this keeps the list honest: every listed file
 * exists and still has a line the rule would refuse, so a wrapped file leaves the list (and the
 * rule then holds for it).
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const REPO = path.resolve(__dirname, '..', '..');
const LIMIT = 140;
const listed = JSON.parse(readFileSync(path.join(REPO, 'tools', 'lint', 'long-lines.json'), 'utf8')) as string[];

/** Lines max-len refuses: longer than the limit, in characters (code points). */
function longLines(text: string): number {
  return text.split('\n').filter((l) => [...l].length > LIMIT).length;
}

test('eslint.config.mjs applies max-len 140 to TypeScript outside the list', () => {
  const config = readFileSync(path.join(REPO, 'eslint.config.mjs'), 'utf8');
  expect(config).toMatch(/ignores: LONG_LINES_BEFORE_THE_RULE,\s*rules: \{ 'max-len': \['(warn|error)', \{ code: 140 \}\] \}/);
});

test('every file of tools/lint/long-lines.json still has a line over 140 characters (wrap it, then take it off the list)', () => {
  const stale = listed.filter((f) => longLines(readFileSync(path.join(REPO, f), 'utf8')) === 0);
  expect(stale).toEqual([]);
  expect([...listed].sort()).toEqual(listed);
});

test('the line counter sees a line of 141 characters and lets one of 140 pass', () => {
  expect(longLines(`short\n${'a'.repeat(LIMIT + 1)}\n`)).toBe(1);
  expect(longLines(`${'µ'.repeat(LIMIT)}\n`)).toBe(0);
});
