/**
 * Collects one stream of one role, and optionally echoes it live, line by line, with a
 * `[role@devN]` prefix so interleaved output from several processes stays readable.
 */
import * as path from 'node:path';
import chalk from 'chalk';
import { LAYOUT } from '../rendezvous/layout';

export const MAX_CAPTURE_CHARS = 8 * 1024 * 1024;
const PREFIX_COLOURS = [chalk.cyan, chalk.magenta, chalk.yellow, chalk.blue, chalk.green, chalk.whiteBright];

export function rolePrefix(role: string, device: number, index: number): string {
  return PREFIX_COLOURS[index % PREFIX_COLOURS.length](`[${role}@dev${device}]`);
}

/** A role's stream in full, written while it runs (scenario-dir.ts openRoleLogs); or the post-mortem's copy of what was kept. */
export function roleLogFile(dir: string, role: string, stream: 'stdout' | 'stderr'): string {
  return path.join(dir, LAYOUT.logs, `${role}.${stream}.log`);
}

/**
 * Where the rest of a role's stream is, for a report that shows only part of it: the kept directory's
 * full log (streamed while the role ran), or what the post-mortem could leave there instead.
 */
export function restOfLog(
  run: { dir: string; kept: boolean; postMortemProblems?: string[] },
  role: string,
  stream: 'stdout' | 'stderr',
): string {
  if (!run.kept) return 'the scenario directory was removed (--keep keeps it, with the full log)';
  const file = roleLogFile(run.dir, role, stream);
  const name = `${LAYOUT.logs}/${role}.${stream}.log`;
  const problems = run.postMortemProblems ?? [];
  if (problems.some((p) => p.startsWith(`${LAYOUT.logs}/ (`) || p.startsWith(`${name} (`))) {
    return `the kept directory has no ${name} (see its post-mortem problems)`;
  }
  const partial = problems.some((p) => p.startsWith(`${name} in full`));
  return partial ? `the last ${MAX_CAPTURE_CHARS / (1024 * 1024)} MiB of it are in ${file}` : `the full log is in ${file}`;
}

/** The longest log line a report prints whole (terminal, JUnit XML): a longer one shows its start and end. */
export const MAX_LINE_CHARS = 400;
/** The same for a line of an error message: the harness's own, with their fix, run to several hundred characters. */
export const MAX_MESSAGE_LINE_CHARS = 4096;

/** `line`, or its start and end around the count of characters not shown when it is longer than `max`. */
export function clipLine(line: string, max = MAX_LINE_CHARS): string {
  if (line.length <= max) return line;
  const head = Math.ceil(max * 0.6);
  const tail = max - head;
  return (
    `${line.slice(0, head)} [... ${line.length - head - tail} characters of this line not shown ...] ` +
    `${line.slice(line.length - tail)}`
  );
}

/**
 * `text` when it has at most `head` + `tail` characters, else its first `head` and last `tail`
 * characters around a line that says how many are not shown and `where` they are.
 */
export function headAndTail(text: string, head: number, tail: number, where: string): string {
  if (text.length <= head + tail) return text;
  return (
    `${text.slice(0, head)}\n[... ${text.length - head - tail} characters not shown here: ${where} ...]\n` +
    `${text.slice(text.length - tail)}`
  );
}

/** Where every chunk of a stream also goes, whole and in order (scenario-dir.ts RoleLogFile: the full log). */
export interface OutputSink {
  write(chunk: Buffer | string): void;
}

export class OutputCapture {
  private chunks: string[] = [];
  private size = 0;
  private dropped = 0;
  private partialLine = '';

  /** `maxChars`: how much of the stream's end is kept in memory (a smaller value only in tests). */
  constructor(
    private readonly echoTo?: NodeJS.WritableStream,
    private readonly prefix = '',
    private readonly sink?: OutputSink,
    private readonly maxChars = MAX_CAPTURE_CHARS,
  ) {}

  push(chunk: Buffer | string): void {
    this.sink?.write(chunk); // the bytes as received: the full log is byte for byte what the role wrote
    const text = chunk.toString();
    this.chunks.push(text);
    this.size += text.length;
    // Bounded memory for chatty roles: keep the tail, which is what explains a failure.
    while (this.size > this.maxChars && this.chunks.length > 1) {
      const head = this.chunks.shift()!;
      this.size -= head.length;
      this.dropped += head.length;
    }
    if (this.echoTo) this.echoLines(text);
  }

  /** Echo whatever is left of an unterminated last line. */
  flush(): void {
    if (this.echoTo && this.partialLine) {
      this.echoTo.write(`${this.prefix} ${this.partialLine}\n`);
      this.partialLine = '';
    }
  }

  /** Characters received but not kept in memory (only the last MAX_CAPTURE_CHARS are; the sink has them all). */
  get droppedChars(): number {
    return this.dropped;
  }

  get text(): string {
    const body = this.chunks.join('');
    return this.dropped ? `[... ${this.dropped} characters dropped ...]\n${body}` : body;
  }

  private echoLines(text: string): void {
    const parts = (this.partialLine + text).split('\n');
    this.partialLine = parts.pop()!;
    for (const line of parts) this.echoTo!.write(`${this.prefix} ${line}\n`);
  }
}
