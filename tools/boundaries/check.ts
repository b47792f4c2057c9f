/**
 * Checks the import graph (./imports.ts) against the rules (./rules.ts): forbidden imports
 * between parts, restricted packages, import cycles between files (type imports included),
 * and that the rules themselves are sound. Returns every problem, each naming the rule it
 * breaks and how to fix it.
 */
import { builtinModules } from 'node:module';
import { type ImportEdge, importsOf, listSourceFiles } from './imports';
import type { KnownViolation, LoadRule, PartRule } from './rules';

export interface Rules {
  parts: Readonly<Record<string, PartRule>>;
  restrictedPackages: Readonly<Record<string, readonly string[]>>;
  known: readonly KnownViolation[];
  /** What the entry files of each process kind must never load at startup. */
  loadRules?: readonly LoadRule[];
}

export interface Finding {
  kind: 'import' | 'cycle' | 'package' | 'unowned' | 'unresolved' | 'rules' | 'stale' | 'load';
  /** The allow-list key of an import or cycle finding. */
  what: string;
  message: string;
}

const BUILTINS = new Set(builtinModules);

/** The part a file belongs to: the longest part name equal to it or containing it. */
export function partOf(parts: Readonly<Record<string, PartRule>>, file: string): string | null {
  let best: string | null = null;
  for (const name of Object.keys(parts)) {
    if ((file === name || file.startsWith(name + '/')) && (!best || name.length > best.length)) best = name;
  }
  return best;
}

function checkRulesThemselves(parts: Readonly<Record<string, PartRule>>): Finding[] {
  const out: Finding[] = [];
  for (const [name, rule] of Object.entries(parts)) {
    if (rule.foundation && rule.mayImport.length > 0) {
      out.push({ kind: 'rules', what: name, message: `rules: ${name} is a foundation (every part may import it), so it may import no part, not ${rule.mayImport.join(', ')}` });
    }
    for (const dep of rule.mayImport) {
      if (!(dep in parts)) out.push({ kind: 'rules', what: name, message: `rules: ${name} may import "${dep}", which is no part` });
    }
  }
  for (const cycle of stronglyConnected(Object.keys(parts), (p) => parts[p].mayImport.filter((d) => d in parts))) {
    out.push({ kind: 'rules', what: cycle.join(' | '), message: `rules: the parts ${cycle.join(', ')} may import each other in a cycle: layers must form a DAG` });
  }
  return out;
}

/** Strongly connected components with more than one node, or a node with an edge to itself. */
export function stronglyConnected(nodes: readonly string[], next: (n: string) => readonly string[]): string[][] {
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const out: string[][] = [];
  const visit = (v: string): void => {
    index.set(v, counter);
    low.set(v, counter);
    counter++;
    stack.push(v);
    onStack.add(v);
    for (const w of next(v)) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) {
        low.set(v, Math.min(low.get(v)!, index.get(w)!));
      }
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || next(v).includes(v)) out.push(component.sort());
    }
  };
  for (const n of nodes) if (!index.has(n)) visit(n);
  return out;
}

function describeEdge(e: ImportEdge): string {
  return `${e.from}:${e.line} ${e.typeOnly ? 'imports types from' : 'imports'} ${JSON.stringify(e.specifier)}`;
}

/** Checks the given files (repo-relative) of `repo`. */
export function checkFiles(repo: string, files: readonly string[], rules: Rules): Finding[] {
  const { parts, restrictedPackages } = rules;
  const findings: Finding[] = checkRulesThemselves(parts);
  const graph = new Map<string, ImportEdge[]>();
  const allEdges = new Map<string, ImportEdge[]>();
  for (const file of files) {
    const from = partOf(parts, file);
    if (!from) {
      findings.push({ kind: 'unowned', what: file, message: `${file} belongs to no part: add its folder to PARTS in tools/boundaries/rules.ts, with what it may import` });
      continue;
    }
    const { edges, unresolved } = importsOf(repo, file);
    for (const e of unresolved) {
      findings.push({ kind: 'unresolved', what: `${e.from} -> ${e.specifier}`, message: `${describeEdge(e)}, which resolves to no file` });
    }
    graph.set(file, edges.filter((e) => e.kind === 'file'));
    allEdges.set(file, edges);
    for (const e of edges) {
      if (e.kind === 'package') {
        if (e.to === 'node:' || BUILTINS.has(e.to)) continue;
        const allowed = restrictedPackages[e.to];
        if (allowed && !allowed.includes(from)) {
          findings.push({ kind: 'package', what: `${e.from} -> ${e.to}`, message: `${describeEdge(e)}: package ${e.to} is for ${allowed.join(', ')} only (RESTRICTED_PACKAGES in tools/boundaries/rules.ts)` });
        }
        continue;
      }
      const to = partOf(parts, e.to);
      if (!to || to === from || parts[to].foundation || parts[from].mayImport.includes(to)) continue;
      findings.push({
        kind: 'import',
        what: `${e.from} -> ${e.to}`,
        message:
          `${describeEdge(e)}: ${from} (${parts[from].role}) may import only ` +
          `${parts[from].mayImport.length ? parts[from].mayImport.join(', ') : 'node built-ins and packages'}, not ${to} (${parts[to].role}). ` +
          `Move the shared code down a layer, or pass it in from above (tools/boundaries/rules.ts)`,
      });
    }
  }
  const fileEdges = (f: string): string[] => [...new Set((graph.get(f) ?? []).map((e) => e.to))];
  for (const cycle of stronglyConnected([...graph.keys()], fileEdges)) {
    const inCycle = new Set(cycle);
    const links = cycle.flatMap((f) => (graph.get(f) ?? []).filter((e) => inCycle.has(e.to)).map((e) => `  ${describeEdge(e)}`));
    findings.push({ kind: 'cycle', what: cycle.join(' | '), message: `import cycle between ${cycle.join(', ')} (type imports count):\n${[...new Set(links)].join('\n')}` });
  }
  findings.push(...checkLoadRules(allEdges, rules.loadRules ?? []));
  return dedupe(findings);
}

/** True if `target` (a package name, a file, or a folder of files) covers the module `to`. */
function covers(target: string, to: string): boolean {
  return to === target || to.startsWith(target + '/');
}

/**
 * Load-time rules: follows the imports that run at load (ImportEdge.atLoad) from each entry file
 * and reports every forbidden module reached, with the chain of imports that loads it.
 */
export function checkLoadRules(edges: ReadonlyMap<string, readonly ImportEdge[]>, loadRules: readonly LoadRule[]): Finding[] {
  const out: Finding[] = [];
  for (const rule of loadRules) {
    for (const entry of rule.entries) {
      if (!edges.has(entry)) {
        out.push({ kind: 'rules', what: entry, message: `rules: the load rule "${rule.name}" starts from ${entry}, which is no source file: fix LOAD_RULES in tools/boundaries/rules.ts` });
        continue;
      }
      // Breadth first: the chain reported is a shortest one.
      const via = new Map<string, ImportEdge | null>([[entry, null]]);
      const queue = [entry];
      const reported = new Set<string>();
      while (queue.length) {
        const file = queue.shift()!;
        for (const e of edges.get(file) ?? []) {
          if (!e.atLoad) continue;
          const target = rule.never.find((t) => covers(t, e.to));
          if (target && !reported.has(e.to)) {
            reported.add(e.to);
            const chain: ImportEdge[] = [e];
            for (let p = via.get(e.from); p; p = via.get(p.from)) chain.unshift(p);
            out.push({
              kind: 'load',
              what: `${entry} -> ${e.to}`,
              message:
                `${entry} loads ${e.to} as soon as it is loaded, which the load rule "${rule.name}" forbids (${rule.why}):\n` +
                chain.map((c) => `  ${c.from}:${c.line} ${c.kind === 'package' ? 'imports package' : 'imports'} ${JSON.stringify(c.specifier)}`).join('\n') +
                `\nLoad it inside the function that needs it, or move that code to the entry of the process kind that needs it (LOAD_RULES in tools/boundaries/rules.ts)`,
            });
          }
          if (e.kind === 'file' && !target && !via.has(e.to)) {
            via.set(e.to, e);
            queue.push(e.to);
          }
        }
      }
    }
  }
  return out;
}

/** One finding per file pair (a file may reach another by a require and a type import). */
function dedupe(findings: Finding[]): Finding[] {
  const seen = new Set<string>();
  return findings.filter((f) => {
    const key = `${f.kind}\u0000${f.what}`;
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

export interface CheckResult {
  /** Problems that fail the check: new violations, stale allow-list entries, unsound rules. */
  problems: Finding[];
  /** Violations that the allow-list accepts. */
  allowed: Finding[];
}

/** Separates the findings the allow-list accepts; its entries that match nothing are problems. */
export function applyKnownViolations(findings: readonly Finding[], known: readonly KnownViolation[]): CheckResult {
  const key = (kind: string, what: string): string => `${kind}\u0000${what}`;
  const knownKeys = new Map(known.map((k) => [key(k.kind, k.what), k]));
  const problems: Finding[] = [];
  const allowed: Finding[] = [];
  const used = new Set<string>();
  for (const f of findings) {
    const k = key(f.kind, f.what);
    if (knownKeys.has(k)) {
      allowed.push(f);
      used.add(k);
    } else {
      problems.push(f);
    }
  }
  for (const [k, entry] of knownKeys) {
    if (!used.has(k)) {
      problems.push({ kind: 'stale', what: entry.what, message: `KNOWN_VIOLATIONS lists ${entry.kind} "${entry.what}" (${entry.issue}), which no longer occurs: delete the entry` });
    }
  }
  return { problems, allowed };
}

/** The whole check over the repository's source folders. */
export function checkRepository(repo: string, rules: Rules): CheckResult {
  const files = listSourceFiles(repo, Object.keys(rules.parts));
  return applyKnownViolations(checkFiles(repo, files, rules), rules.known);
}
