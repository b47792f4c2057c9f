/**
 * Native roles: a user's program (a CANN sample's proc_a, say) run as a role instead of a
 * device process. RoleProcess hosts it exactly like a device process (own process group, output
 * capture, deadline TERM -> KILL, blame); this module knows only what differs:
 *  - how it is started: the program itself, cwd = the scenario directory, placeholders replaced;
 *  - its environment: the device process's, plus the deadline and the library selection
 *    (LD_PRELOAD of the harness's libascendcl.so: glibc matches a DT_NEEDED entry by soname,
 *    so the preloaded copy wins over whatever rpath the program was linked with);
 *  - which libascendcl.so it really loaded (read from /proc/<pid>/maps while it runs);
 *  - how its end is judged: exit code (expectExit, default 0) and expectOutput, since it sends
 *    the harness no result.
 * NativeRole is that kind behind the RoleKind interface (role-kind.ts); the functions it uses are
 * exported for the Jest gate and `doctor`, which check a program's environment before any run.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { closeSync, existsSync, lstatSync, openSync, readFileSync, readSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import { resolveLibrary } from '../acl/resolve';
import { stubBuildDir } from '../acl/stub-build';
import { ENV, type Mode } from '../env';
import { LAYOUT } from '../rendezvous';
import { readNativeMarks } from './native-marks';
import type { EndedRole, RoleKind, StartedRole, Verdict } from './role-kind';
import type { NativeRoleSpec, RoleError, RoleResult, RoleSpec } from './types';

export type { NativeRoleSpec } from './types';

export function isNative(spec: RoleSpec): spec is RoleSpec & { native: NativeRoleSpec } {
  return spec.native !== undefined;
}

/** Where a native role runs: what RoleProcess knows of it besides its program. */
export interface NativeRolePlace {
  name: string;
  device: number;
  index: number;
  dir: string;
  mode: Mode;
  /** CLOCK_MONOTONIC ns it gets as CANN_HARNESS_DEADLINE_NS (run-roles.ts nativeDeadlineNs). */
  deadlineNs?: bigint;
}

/** The native kind of role (role-kind.ts): a user's program, judged by its end. */
export class NativeRole implements RoleKind {
  readonly eventLoop = false;
  readonly forksOutsideHarness = true;
  /** The library chosen for it (or why there is none), and what it really loaded. */
  private readonly library: { path: string } | { error: string };
  private libraryWatch?: LoadedLibraryWatch;
  /** Why its marks file could not be read: fails it (verdict). */
  private marksProblem?: string;

  constructor(
    private readonly native: NativeRoleSpec,
    private readonly place: NativeRolePlace,
  ) {
    this.library = nativeLibrary(place.mode);
  }

  private get chosenLibrary(): string | undefined {
    return 'path' in this.library ? this.library.path : undefined;
  }

  spawn(env: NodeJS.ProcessEnv): ChildProcess {
    const { device, index, dir } = this.place;
    return startNativeProcess(this.native, { device, index, dir }, env);
  }

  env(base: NodeJS.ProcessEnv): NodeJS.ProcessEnv {
    return nativeRoleEnv(base, this.chosenLibrary, this.place.deadlineNs);
  }

  afterStart(role: StartedRole): void {
    this.libraryWatch = new LoadedLibraryWatch(role.pid, this.chosenLibrary);
  }

  /** The C API's marks, as if it had sent them; a malformed marks file fails it. */
  marksAtEnd(): RoleResult['marks'] {
    try {
      return readNativeMarks(this.place.dir, this.place.name);
    } catch (e) {
      this.marksProblem = (e as Error).message;
      return [];
    }
  }

  /** It sends no result: its exit code, its output and the library it loaded decide. */
  verdict(end: EndedRole): Verdict {
    this.libraryWatch?.stop(this.native.program, end.env());
    const otherProblem =
      'error' in this.library
        ? this.library.error
        : (this.libraryWatch?.mismatch() ??
          (end.pid !== null ? callsMissedLibrary(this.place.dir, end.pid, this.chosenLibrary) : undefined) ??
          this.marksProblem);
    const { exitCode, spawnError, stdout, stderr } = end;
    const problem = judgeNativeExit(this.native, { exitCode, spawnError, stdout, stderr, otherProblem });
    return problem === null ? { ok: true } : { ok: false, error: nativeError(problem, end.endedAtNs) };
  }

  loadedLibrary(): string | null | undefined {
    return this.libraryWatch?.loaded;
  }
}

/** `{device}`, `{index}`, `{dir}` replaced in one argument. */
export function expandPlaceholders(arg: string, values: { device: number; index: number; dir: string }): string {
  return arg.replace(/\{(device|index|dir)\}/g, (_m, key: 'device' | 'index' | 'dir') => String(values[key]));
}

/**
 * The library a native role must load in `mode` (the one a TypeScript role would dlopen), or why
 * there is none. Resolved in the parent: the program itself runs no harness code.
 */
export function nativeLibrary(mode: Mode, env: NodeJS.ProcessEnv = process.env): { path: string } | { error: string } {
  try {
    return { path: resolveLibrary({ mode, env }).path };
  } catch (e) {
    return { error: (e as Error).message };
  }
}

/**
 * The harness's preload library for native roles (native-stub/harness/preload/preload.c): its constructor
 * starts the watchdog (parent gone -> kill the group; hang report answers) and it records the
 * blocking ACL call in progress. Must come first in LD_PRELOAD, before libascendcl.so.
 */
export const PRELOAD_LIBRARY = path.join(stubBuildDir(), 'lib64', 'libcannharness_preload.so');

/** The environment additions of a native role: deadline, watchdog and library selection (on top of the device process's environment). */
export function nativeRoleEnv(base: NodeJS.ProcessEnv, library: string | undefined, deadlineNs: bigint | undefined, preload = PRELOAD_LIBRARY): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...base };
  if (deadlineNs !== undefined) env[ENV.deadlineNs] = deadlineNs.toString();
  const watch = existsSync(preload);
  if (watch) env[ENV.nativeWatch] = '1'; // the preload's constructor starts the watchdog only then
  env.LD_PRELOAD = [watch ? preload : undefined, library, base.LD_PRELOAD].filter(Boolean).join(':');
  if (library) env.LD_LIBRARY_PATH = [path.dirname(library), base.LD_LIBRARY_PATH].filter(Boolean).join(':');
  if (!env.LD_PRELOAD) delete env.LD_PRELOAD;
  return env;
}

/** Starts the program as the leader of its own process group, in the scenario directory. */
export function startNativeProcess(native: NativeRoleSpec, values: { device: number; index: number; dir: string }, env: NodeJS.ProcessEnv): ChildProcess {
  return spawn(native.program, native.args.map((a) => expandPlaceholders(a, values)), {
    detached: true, // own process group: the deadline's TERM -> KILL reaches whatever it forked
    stdio: ['ignore', 'pipe', 'pipe'],
    cwd: values.dir,
    env,
  });
}

/**
 * Why `program` could not start, in words: execve answers ENOENT both for a missing program and
 * for a script whose `#!` interpreter is missing ("spawn ./run.sh ENOENT" for a file that is there).
 */
export function explainSpawnError(program: string, error: Error): string {
  if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return error.message;
  let head: Buffer;
  try {
    const fd = openSync(program, 'r');
    try {
      head = Buffer.alloc(256);
      head = head.subarray(0, readSync(fd, head, 0, head.length, 0));
    } finally {
      closeSync(fd);
    }
  } catch {
    return error.message; // the program itself is missing (or unreadable): the message says so
  }
  const m = /^#!\s*(\S+)/.exec(head.toString('latin1').split('\n')[0]);
  if (m && !existsSync(m[1])) return `its #! interpreter ${m[1]} is missing (first line of the script): install it or fix the line`;
  return error.message;
}

/** Why a native role that ended by itself (no signal, not stopped) failed, or null when it passed. */
export function judgeNativeExit(
  native: NativeRoleSpec,
  end: { exitCode: number | null; spawnError?: Error; stdout: string; stderr: string; otherProblem?: string },
): string | null {
  if (end.spawnError) return `could not start ${native.program}: ${explainSpawnError(native.program, end.spawnError)}`;
  const expected = native.expectExit ?? 0;
  if (end.exitCode !== expected) return `${path.basename(native.program)} exited with code ${end.exitCode} (expected ${expected})`;
  if (end.otherProblem) return end.otherProblem;
  if (native.expectOutput) {
    const re = native.expectOutput;
    const lines = `${end.stdout}\n${end.stderr}`.split('\n');
    if (!lines.some((l) => new RegExp(re.source, re.flags.replace(/[gy]/g, '')).test(l))) {
      return `${path.basename(native.program)} exited with code ${expected} but no line of its output matches expectOutput ${re}`;
    }
  }
  return null;
}

/** A failure of a native role as a RoleError, timed when the parent saw it end. */
export function nativeError(message: string, endedAtNs: bigint | null): RoleError {
  return { message, tNs: (endedAtNs ?? process.hrtime.bigint()).toString() };
}

/** The libascendcl.so files mapped into `pid` (empty when none yet, or the process is gone). */
export function mappedAclLibraries(pid: number): string[] {
  let maps: string;
  try {
    maps = readFileSync(`/proc/${pid}/maps`, 'latin1');
  } catch {
    return [];
  }
  const found = new Set<string>();
  for (const m of maps.matchAll(/ (\/\S*\/libascendcl\.so[^\s/]*)$/gm)) found.add(m[1]);
  return [...found];
}

/** The ELF interpreter (dynamic loader) a program names, or null (static, not ELF, unreadable). */
export function elfInterpreter(program: string): string | null {
  let elf: Buffer;
  try {
    elf = readFileSync(program);
  } catch {
    return null;
  }
  // ELF64 little-endian only (x86_64, aarch64): e_phoff at 0x20, e_phentsize at 0x36, e_phnum at 0x38.
  if (elf.length < 64 || elf.readUInt32BE(0) !== 0x7f454c46 || elf[4] !== 2 || elf[5] !== 1) return null;
  const phoff = Number(elf.readBigUInt64LE(0x20));
  const size = elf.readUInt16LE(0x36);
  for (let i = 0; i < elf.readUInt16LE(0x38); i++) {
    const ph = phoff + i * size;
    if (ph + 40 > elf.length || elf.readUInt32LE(ph) !== 3) continue; // PT_INTERP
    const off = Number(elf.readBigUInt64LE(ph + 8));
    const len = Number(elf.readBigUInt64LE(ph + 32));
    return elf.subarray(off, off + len).toString('latin1').replace(/\0+$/, '');
  }
  return null;
}

/**
 * Which libascendcl.so the dynamic loader resolves for `program` in `env` (`ld.so --list`, which
 * never runs the program), or why it cannot tell. For programs that end before their memory map
 * could be read.
 */
export function loaderChoice(program: string, env: NodeJS.ProcessEnv): { path: string } | { problem: string } {
  const interp = elfInterpreter(program);
  if (!interp) return { problem: `${program} has no dynamic loader (statically linked, or not an ELF program): it cannot load the harness's libascendcl.so` };
  const r = spawnSync(interp, ['--list', program], { env, encoding: 'utf8', timeout: 10_000 });
  const m = /^\s*(?:libascendcl\.so\S* => )?(\/\S*\/libascendcl\.so\S*) \(/m.exec(r.stdout ?? '');
  return m ? { path: m[1] } : { problem: `${interp} --list ${program} names no libascendcl.so${r.stderr ? `: ${r.stderr.trim()}` : ''}` };
}

/**
 * Watches which libascendcl.so copies a native role maps: reads /proc/<pid>/maps soon after the
 * start (most programs load it before main), then every 50 ms for as long as the process runs, so
 * that a copy dlopen()ed later by full path is seen too (the watch used to stop at the first copy:
 * a program that dlopen()ed a second one after a while passed). Every copy other than the chosen
 * one fails the role: its ACL calls do not reach the harness's library.
 *
 * What it cannot see: a copy linked statically into the program (nothing is mapped from a file
 * named libascendcl.so; the preloaded chosen library is mapped but unused), and a second copy
 * mapped and unmapped between two reads (docs/guide/processes-and-leftovers.md).
 */
export class LoadedLibraryWatch {
  /** The first copy seen (the one the role's report names). */
  loaded: string | null = null;
  /** How `loaded` was learnt: its memory map, or the dynamic loader's answer after it ended. */
  seenIn: 'memory map' | 'ld.so --list' | null = null;
  /** Every copy seen, in the order they were first seen. */
  readonly all: string[] = [];
  private timer?: NodeJS.Timeout;
  private delayMs = 1;

  constructor(private readonly pid: number, private readonly expected: string | undefined) {
    this.poll();
  }

  private poll(): void {
    for (const lib of mappedAclLibraries(this.pid)) {
      if (this.all.some((seen) => samePath(seen, lib))) continue;
      this.all.push(lib);
      if (this.loaded === null) {
        this.loaded = lib;
        this.seenIn = 'memory map';
      }
    }
    this.timer = setTimeout(() => this.poll(), this.delayMs);
    this.timer.unref();
    this.delayMs = Math.min(this.delayMs * 2, 50);
  }

  /** Stops watching; a process that ended before its map was read is asked of the dynamic loader. */
  stop(program: string, env: NodeJS.ProcessEnv): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.loaded !== null) return;
    const choice = loaderChoice(program, env);
    if ('path' in choice) {
      this.loaded = choice.path;
      this.seenIn = 'ld.so --list';
      this.all.push(choice.path);
    }
  }

  /** A line for the role's report: which library it loaded. */
  describe(): string {
    if (this.loaded === null) return 'no libascendcl.so seen in its memory map (it ended before it loaded one, or never loads one)';
    const others = this.all.slice(1);
    return `loaded ${this.loaded} (seen in its ${this.seenIn})${others.length ? `, and also ${others.join(', ')}` : ''}`;
  }

  /** A copy other than the one the harness chose was mapped (found by rpath, or dlopen()ed by full path). */
  mismatch(): string | undefined {
    if (!this.expected || this.all.length === 0) return undefined;
    const fix = 'build it with `npx cann-harness flags --cflags --libs` and load libascendcl.so by name (dlopen("libascendcl.so"), never by a full path)';
    if (!samePath(this.all[0], this.expected)) {
      return `it loaded ${this.all[0]}, not the harness's ${this.expected}: it was probably dlopen()ed by full path or linked statically; ${fix}`;
    }
    const others = this.all.filter((lib) => !samePath(lib, this.expected!));
    if (others.length === 0) return undefined;
    return `it also loaded ${others.join(', ')} besides the harness's ${this.expected} (dlopen() by full path?): its ACL calls there do not reach the harness's library; ${fix}`;
  }
}

/**
 * Where the role's ACL calls went, by the stub's own word, when it is not the chosen library: the
 * stub writes trace/lib-<pid> at aclInit, naming the file its code runs from (dladdr): the program
 * itself when a copy was linked into it statically. A program whose map shows only the harness's
 * (preloaded) library passed the map check while its calls went to its own copy. Stub mode only
 * (real CANN writes no such file); only the role's own process, not what it forked.
 */
export function callsMissedLibrary(dir: string, pid: number, expected: string | undefined): string | undefined {
  if (!expected) return undefined;
  const file = path.join(dir, LAYOUT.trace, `lib-${pid}`);
  let text: string;
  try {
    if (!lstatSync(file).isFile()) return undefined; // not what the stub writes: no verdict from it
    text = readFileSync(file, 'utf8').trim();
  } catch {
    return undefined; // it never called aclInit in a stub (or ran without a trace)
  }
  if (text && samePath(text, expected)) return undefined;
  return (
    `its ACL calls reached ${text ? `a copy in ${text}` : 'a copy of the stub that is not a library file'}, not the harness's ${expected}: ` +
    'libascendcl was probably linked into the program statically; link it dynamically (`npx cann-harness flags --cflags --libs`)'
  );
}

function samePath(a: string, b: string): boolean {
  try {
    return realpathSync(a) === realpathSync(b);
  } catch {
    return path.resolve(a) === path.resolve(b);
  }
}
