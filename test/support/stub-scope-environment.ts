/**
 * The repository's Jest test environment: Node's, plus a stub scope of its own for each test file
 * (ACL_STUB_SCOPE, native-stub/README.md). Every stub object that the file's processes make
 * carries the scope in its name, and their reclaim (aclInit, cannstub_reclaim) removes dead objects
 * of that scope only. So files that Jest runs at once never reclaim each other's leaks, and a
 * file's leak check (test/support/leftovers.ts) sees exactly its own objects: no file has to run
 * alone.
 *
 * The same for kept scenario directories: a results folder of the file's own (CANN_HARNESS_RESULTS_DIR).
 *
 * Set in the worker's real environment before Node's environment copies it into the test file's
 * `process.env`: children spawned without an explicit environment inherit it too.
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import NodeEnvironment from 'jest-environment-node';
import type { EnvironmentContext, JestEnvironmentConfig } from '@jest/environment';
import { ENV } from '../../src/env';

/** A scope no other file or run uses: 'j', the worker's pid and 6 random hex digits (at most 24 characters in all). */
export function newFileScope(): string {
  return `j${process.pid.toString(36)}${randomBytes(3).toString('hex')}`;
}

export default class StubScopeEnvironment extends NodeEnvironment {
  readonly #resultsDir: string;

  constructor(config: JestEnvironmentConfig, context: EnvironmentContext) {
    process.env[ENV.stubScope] = newFileScope();
    // Kept scenario directories go to a results folder of the file's own (a run's start empties
    // its results folder: one shared by files running at once would lose another file's), removed
    // with the file.
    const resultsDir = mkdtempSync(path.join(os.tmpdir(), 'cannh-test-results-'));
    process.env[ENV.resultsDir] = resultsDir;
    super(config, context);
    this.#resultsDir = resultsDir;
  }

  override async teardown(): Promise<void> {
    await super.teardown();
    rmSync(this.#resultsDir, { recursive: true, force: true });
  }
}
