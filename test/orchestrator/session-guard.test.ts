/** The session guard ends its process by the signal even when other listeners would swallow it. */
import { spawn } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot, TS_HOOK } from '../support/run-child';

const FIXTURE = path.join(__dirname, 'fixtures', 'guarded-session.ts');

// Each case has its own process: they run at the same time.
test.concurrent.each(['SIGTERM', 'SIGINT'] as const)('%s ends a guarded process that has another (non-exiting) listener', async (signal) => {
  const child = spawn(process.execPath, ['-r', TS_HOOK, FIXTURE], { cwd: repoRoot, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (d) => (stderr += d));
  const end = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) => child.on('close', (code, sig) => resolve({ code, signal: sig })));
  await new Promise<void>((resolve) => child.stdout.on('data', (d) => String(d).includes('ready') && resolve()));
  const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
  child.kill(signal);
  const ended = await end;
  clearTimeout(timer);
  expect(stderr).toContain(`[cann-harness] ${signal}: stopping device processes`);
  // Died by the signal, or (if the other listener also caught the re-raised one) exited 128+n.
  expect(ended.signal === signal || ended.code === 128 + (signal === 'SIGTERM' ? 15 : 2)).toBe(true);
}, 30_000);
