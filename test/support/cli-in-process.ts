/**
 * Test helper: the `cann-harness` command through its main() in this process, for cases that stop
 * before anything is started (usage and config errors, `run --list`): a child process would add only
 * a Node start-up and the compilation of the CLI. Each call loads the CLI in a module registry of
 * its own. Output is captured (colour codes removed); the working directory (`cwd`) and every
 * environment variable (`env` set and `dropEnv` removed meanwhile; a config file exports its
 * settings there) are restored afterwards.
 */
import * as path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

const bin = path.resolve(__dirname, '..', '..', 'bin', 'cann-harness.js');

export async function cliInProcess(args: string[], opts: { cwd?: string; env?: Record<string, string>; dropEnv?: string[] } = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  const savedEnv = { ...process.env };
  const savedCwd = process.cwd();
  const out = { stdout: '', stderr: '' };
  const capture = (stream: 'stdout' | 'stderr') =>
    jest.spyOn(process[stream], 'write').mockImplementation((chunk: string | Uint8Array) => {
      out[stream] += String(chunk);
      return true;
    });
  const spies = [capture('stdout'), capture('stderr')];
  const exitHooks = process.listeners('exit');
  // As runCommand() does for a child: the outer run's probe and settings are not the command's.
  for (const k of ['CANN_HARNESS_PROBE', 'CANN_HARNESS_REQUIRE_DEVICES', 'JEST_WORKER_ID', ...(opts.dropEnv ?? [])]) delete process.env[k];
  Object.assign(process.env, opts.env);
  try {
    if (opts.cwd) process.chdir(opts.cwd);
    let code = -1;
    // A module registry of its own, as a new process would have: spec files and config files load
    // afresh (a spec already in the registry would declare nothing when `run --list` collects it again).
    await jest.isolateModulesAsync(async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const { main } = require('../../src/cli/main') as typeof import('../../src/cli/main');
      code = await main([process.execPath, bin, ...args]);
    });
    return { code, stdout: stripVTControlCharacters(out.stdout), stderr: stripVTControlCharacters(out.stderr) };
  } finally {
    process.chdir(savedCwd);
    // Exit hooks of the call's module copies (the tmp package adds one as it loads): that registry is
    // gone, and a command that stops before starting anything has nothing to clean up at exit.
    for (const hook of process.listeners('exit')) if (!exitHooks.includes(hook)) process.off('exit', hook);
    for (const s of spies) s.mockRestore();
    for (const k of Object.keys(process.env)) if (!(k in savedEnv)) delete process.env[k];
    Object.assign(process.env, savedEnv);
  }
}
