/**
 * `cann-harness run --list`: the scenarios the run would select, with what each needs (devices,
 * roles on which device, deadline), without running anything. Spec files are loaded in collect mode
 * (as device processes load them), so nothing starts, and no Jest is involved.
 */
import { readdirSync } from 'node:fs';
import * as path from 'node:path';
import chalk from 'chalk';
import { shardOfScenario, type Shard } from '../jest/repeat';
import { collectScenarios } from '../scenario/scenario';
import type { ScenarioPlan } from '../scenario/types';

export interface ListedScenario {
  file: string;
  scenario: string;
  devices: number;
  timeoutMs: number;
  roles: { name: string; device: number }[];
}

function specFilesUnder(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue;
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) out.push(...specFilesUnder(full));
    else if (entry.name.endsWith('.spec.ts')) out.push(full);
  }
  return out.sort();
}

/** The scenarios of the spec files under `specs` matching `patterns` (as Jest matches paths) and `namePattern`, in `shard`. */
export function listScenarios(specs: string, patterns: string[], namePattern?: string, shard?: Shard): ListedScenario[] {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- a side-effect hook, loaded only when needed
  require('../ts-hook/ts-register.js'); // spec files are TypeScript, also with the compiled CLI
  const files = specFilesUnder(specs).filter((f) => patterns.length === 0 || patterns.some((p) => new RegExp(p).test(f)));
  const byName = namePattern ? new RegExp(namePattern) : null;
  const listed: ListedScenario[] = [];
  for (const file of files) {
    let plans: Map<string, ScenarioPlan<unknown>>;
    try {
      plans = collectScenarios(file);
    } catch (e) {
      throw new Error(`${path.relative(process.cwd(), file)} could not be loaded: ${(e as Error).message}`);
    }
    for (const plan of plans.values()) {
      if (byName && !byName.test(plan.name)) continue;
      if (shard && shardOfScenario(file, plan.name, shard.total) !== shard.index) continue;
      listed.push({ file, scenario: plan.name, devices: plan.devices, timeoutMs: plan.timeoutMs, roles: plan.roles.map((r) => ({ name: r.name, device: r.device })) });
    }
  }
  return listed;
}

export function formatScenarioList(listed: ListedScenario[], availableDevices: number | null): string {
  const lines = listed.map((s) => {
    const needs = `needs ${s.devices} device${s.devices === 1 ? '' : 's'}`;
    const tooMany = availableDevices !== null && s.devices > availableDevices;
    const roles = s.roles.map((r) => `${r.name}@${r.device}`).join(', ');
    return `${path.relative(process.cwd(), s.file)} › ${s.scenario}  ${tooMany ? chalk.yellow(`${needs} (${availableDevices} available: skipped)`) : chalk.dim(needs)}  ${chalk.dim(`roles ${roles}; deadline ${s.timeoutMs / 1000} s`)}`;
  });
  const files = new Set(listed.map((s) => s.file)).size;
  lines.push(chalk.dim(`${listed.length} scenario${listed.length === 1 ? '' : 's'} in ${files} spec file${files === 1 ? '' : 's'}`));
  return lines.join('\n');
}
