/**
 * Role kinds behind one interface (issue 34): RoleProcess hosts every kind of role the same way and
 * asks its RoleKind what differs; the kind of a RoleSpec is chosen once, in role-kinds.ts. A branch
 * on the kind creeping back into the host (or into run-roles.ts) fails here, naming the line.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ORCHESTRATOR = path.resolve(__dirname, '..', '..', 'src', 'orchestrator');
const read = (file: string): string => readFileSync(path.join(ORCHESTRATOR, file), 'utf8');
/** The lines of `file` that match `re`, numbered (empty when none). */
const linesMatching = (file: string, re: RegExp): string[] =>
  read(file)
    .split('\n')
    .flatMap((line, i) => (re.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : []));

/** What a branch on the role kind looks like: the kind test, the spec's kind fields, a kind's own module. */
const KIND_BRANCH = /\bisNative\b|\.native\b|\bexec\b|\.entry\b|from '\.\/(native|typescript)-role'/;

test('role-process.ts has no branch on the role kind', () => {
  expect(linesMatching('role-process.ts', KIND_BRANCH)).toEqual([]);
});

test('run-roles.ts asks the roles, not their specs, what their kind implies', () => {
  // run-roles.ts may still check the device process's script (typescript-role.ts) before any role starts.
  expect(linesMatching('run-roles.ts', /\bisNative\b|\.native\b|\bexec\b|from '\.\/native-role'/)).toEqual([]);
});

test('the kind of a role is chosen once, by the factory in role-kinds.ts', () => {
  expect(read('role-kinds.ts')).toMatch(/export function roleKindFor\(/);
  expect(linesMatching('role-kinds.ts', /\bisNative\(/)).toHaveLength(1);
  expect(read('role-process.ts')).toMatch(/roleKindFor\(/);
});

test('each kind is a class implementing RoleKind', () => {
  expect(read('role-kind.ts')).toMatch(/^export interface RoleKind \{/m);
  expect(read('typescript-role.ts')).toMatch(/^export class TypeScriptRole implements RoleKind \{/m);
  expect(read('native-role.ts')).toMatch(/^export class NativeRole implements RoleKind \{/m);
});
