/**
 * `npm run check:boundaries`: the import rules of tools/boundaries/rules.ts, from the command
 * line (the same check runs in `npm test` as test/architecture/boundaries.test.ts).
 */
import * as path from 'node:path';
import { checkRepository } from './check';
import { KNOWN_VIOLATIONS, LOAD_RULES, PARTS, RESTRICTED_PACKAGES } from './rules';

const repo = path.resolve(__dirname, '..', '..');
const { problems, allowed } = checkRepository(repo, { parts: PARTS, restrictedPackages: RESTRICTED_PACKAGES, known: KNOWN_VIOLATIONS, loadRules: LOAD_RULES });
for (const p of problems) console.error(p.message);
console.log(`boundaries: ${problems.length} problem(s), ${allowed.length} known violation(s) allowed (tools/boundaries/rules.ts)`);
process.exitCode = problems.length ? 1 : 0;
