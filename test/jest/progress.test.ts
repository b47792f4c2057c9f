import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { PROGRESS_DIR_ENV, WAIT_WRITE_MS, progressFile } from '../../src/orchestrator/progress-file';
import { formatProgress, readProgress } from '../../src/report/progress';

describe('live progress', () => {
  let dir: string;
  beforeEach(() => (dir = mkdtempSync(path.join(os.tmpdir(), 'progress-test-'))));
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  test('a run keeps its roles\' states in a file while it runs, and removes it at the end', () => {
    const p = progressFile('scenario "x"', ['producer', 'consumer'], { [PROGRESS_DIR_ENV]: dir })!;
    p.onEvent({ type: 'started', role: 'producer', device: 0, pid: 1, dir: '/d' });
    p.onEvent({ type: 'waiting', role: 'producer', waitingFor: { what: 'signal "go"', from: 'consumer' } });
    p.onEvent({ type: 'exited', role: 'consumer', status: 'passed', exitCode: 0, signal: null });
    const [run] = readProgress(dir);
    expect(run.roles).toEqual({ producer: 'waiting for signal "go" from consumer', consumer: 'passed' });
    const lines = formatProgress([run], run.startedAt + 12_400, 5_000);
    expect(lines).toEqual(['[running 12 s] scenario "x" | producer: waiting for signal "go" from consumer; consumer: passed']);
    // Quiet while young: a healthy suite prints nothing extra.
    expect(formatProgress([run], run.startedAt + 4_000, 5_000)).toEqual([]);
    p.close();
    expect(readdirSync(dir)).toEqual([]);
  });

  test('waits are written at most every WAIT_WRITE_MS, the last one always; nothing after close', async () => {
    const p = progressFile('scenario "w"', ['producer'], { [PROGRESS_DIR_ENV]: dir })!;
    p.onEvent({ type: 'started', role: 'producer', device: 0, pid: 1, dir: '/d' });
    const file = path.join(dir, readdirSync(dir)[0]);
    const writes = () => statSync(file).mtimeMs;
    const before = writes();
    for (let i = 0; i < 1000; i++) {
      p.onEvent({ type: 'waiting', role: 'producer', waitingFor: { what: `signal "s${i}"` } });
      p.onEvent({ type: 'waiting', role: 'producer', waitingFor: null });
    }
    p.onEvent({ type: 'waiting', role: 'producer', waitingFor: { what: 'signal "last"' } });
    expect(readProgress(dir)[0].roles.producer).toBe('running'); // not yet: at most one write per WAIT_WRITE_MS
    expect(writes()).toBe(before);
    await new Promise((r) => setTimeout(r, WAIT_WRITE_MS * 3));
    expect(readProgress(dir)[0].roles.producer).toBe('waiting for signal "last"');
    p.onEvent({ type: 'waiting', role: 'producer', waitingFor: { what: 'signal "after"' } });
    p.close();
    await new Promise((r) => setTimeout(r, WAIT_WRITE_MS * 3));
    expect(readdirSync(dir)).toEqual([]); // the pending write died with the run
  });

  test('nobody watching (no CANN_HARNESS_PROGRESS_DIR): nothing is written', () => {
    expect(progressFile('x', ['a'], {})).toBeNull();
    expect(existsSync(dir) && readdirSync(dir)).toEqual([]);
  });
});
