/**
 * The import graph of the repository's TypeScript/JavaScript, read with the
 * TypeScript compiler's parser (syntax only: no type check, so it is fast).
 *
 * Every way one module reaches another counts, type-only ones included:
 * `import` / `import type` / `export ... from`, `import x = require()`,
 * `require('...')`, `require.resolve('...')`, `import('...')` and
 * `jest.mock('...')`-style calls with a literal specifier.
 *
 * Each edge also says whether it runs when the importing file is loaded (`atLoad`): a value import
 * or export, or a `require()`/`import()` outside any function body. A `require()` inside a function
 * runs only when called (the lazy loads that keep koffi and the orchestrator out of processes that
 * never need them: tools/boundaries/rules.ts, LOAD_RULES).
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';

export interface ImportEdge {
  from: string; // repo-relative path of the importing file (posix separators)
  to: string; // repo-relative path of the imported file, or the package name
  kind: 'file' | 'package';
  typeOnly: boolean;
  line: number; // 1-based, in `from`
  specifier: string;
  /** Runs as soon as `from` is loaded (not a type import, not inside a function, not require.resolve). */
  atLoad: boolean;
}

const SOURCE_EXTENSIONS = ['.ts', '.tsx', '.js', '.cjs', '.mjs'];
const SKIPPED_DIRS = new Set(['node_modules', '.git', 'native-stub', 'reports', 'coverage']);

/** Source files under `roots` (repo-relative folders or files), sorted. */
export function listSourceFiles(repo: string, roots: readonly string[]): string[] {
  const out: string[] = [];
  const visit = (abs: string): void => {
    const st = fs.statSync(abs, { throwIfNoEntry: false });
    if (!st) return;
    if (st.isDirectory()) {
      if (SKIPPED_DIRS.has(path.basename(abs))) return;
      for (const name of fs.readdirSync(abs)) visit(path.join(abs, name));
    } else if (SOURCE_EXTENSIONS.some((ext) => abs.endsWith(ext)) && !abs.endsWith('.d.ts')) {
      out.push(toRepoPath(repo, abs));
    }
  };
  for (const root of roots) visit(path.join(repo, root));
  return out.sort();
}

export function toRepoPath(repo: string, abs: string): string {
  return path.relative(repo, abs).split(path.sep).join('/');
}

/** Resolves a relative specifier the way Node + esbuild-register do; null if no file matches. */
function resolveRelative(repo: string, fromFile: string, specifier: string): string | null {
  const base = path.resolve(repo, path.dirname(fromFile), specifier);
  const candidates = [base, ...SOURCE_EXTENSIONS.map((e) => base + e), ...SOURCE_EXTENSIONS.map((e) => path.join(base, 'index' + e))];
  for (const c of candidates) {
    if (fs.statSync(c, { throwIfNoEntry: false })?.isFile()) return toRepoPath(repo, c);
  }
  return null;
}

function packageName(specifier: string): string {
  if (specifier.startsWith('node:')) return 'node:';
  const parts = specifier.split('/');
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : parts[0];
}

const MODULE_CALLS = new Set(['require', 'require.resolve', 'jest.mock', 'jest.requireActual', 'jest.doMock']);

function callName(expr: ts.Expression): string | null {
  if (ts.isIdentifier(expr)) return expr.text;
  if (ts.isPropertyAccessExpression(expr) && ts.isIdentifier(expr.expression)) return `${expr.expression.text}.${expr.name.text}`;
  return null;
}

/** The import edges of one file (repo-relative). Unresolvable relative specifiers are reported as errors. */
export function importsOf(repo: string, file: string): { edges: ImportEdge[]; unresolved: ImportEdge[] } {
  const text = fs.readFileSync(path.join(repo, file), 'utf8');
  const sf = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true, file.endsWith('x') ? ts.ScriptKind.TSX : undefined);
  const edges: ImportEdge[] = [];
  const unresolved: ImportEdge[] = [];
  const add = (specifier: string, node: ts.Node, typeOnly: boolean, atLoad = !typeOnly): void => {
    const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
    if (specifier.startsWith('.')) {
      const to = resolveRelative(repo, file, specifier);
      const edge: ImportEdge = { from: file, to: to ?? specifier, kind: 'file', typeOnly, line, specifier, atLoad };
      (to ? edges : unresolved).push(edge);
    } else {
      edges.push({ from: file, to: packageName(specifier), kind: 'package', typeOnly, line, specifier, atLoad });
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isImportDeclaration(node) && ts.isStringLiteral(node.moduleSpecifier)) {
      const clause = node.importClause;
      const typeOnly = !!clause && (clause.isTypeOnly || isAllTypeNamedImports(clause));
      add(node.moduleSpecifier.text, node, typeOnly);
    } else if (ts.isExportDeclaration(node) && node.moduleSpecifier && ts.isStringLiteral(node.moduleSpecifier)) {
      add(node.moduleSpecifier.text, node, node.isTypeOnly);
    } else if (ts.isImportEqualsDeclaration(node) && ts.isExternalModuleReference(node.moduleReference)) {
      const e = node.moduleReference.expression;
      if (ts.isStringLiteral(e)) add(e.text, node, node.isTypeOnly);
    } else if (ts.isCallExpression(node) && node.arguments.length >= 1 && ts.isStringLiteralLike(node.arguments[0])) {
      const name = node.expression.kind === ts.SyntaxKind.ImportKeyword ? 'import' : callName(node.expression);
      if (name === 'import' || (name && MODULE_CALLS.has(name))) {
        const loads = name === 'import' || name === 'require';
        add((node.arguments[0] as ts.StringLiteralLike).text, node, false, loads && !insideFunction(node));
      }
    } else if (ts.isImportTypeNode(node) && ts.isLiteralTypeNode(node.argument) && ts.isStringLiteral(node.argument.literal)) {
      add(node.argument.literal.text, node, true); // `typeof import('./x')` in a type position
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return { edges, unresolved };
}

/** True if `node` is inside a function body (it runs when the function is called, not at load). */
function insideFunction(node: ts.Node): boolean {
  for (let n = node.parent; n; n = n.parent) if (ts.isFunctionLike(n)) return true;
  return false;
}

function isAllTypeNamedImports(clause: ts.ImportClause): boolean {
  if (clause.name) return false;
  const nb = clause.namedBindings;
  return !!nb && ts.isNamedImports(nb) && nb.elements.length > 0 && nb.elements.every((e) => e.isTypeOnly);
}
