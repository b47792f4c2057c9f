/**
 * Collects one stream of one role, and optionally echoes it live, line by line, with a
 * `[role@devN]` prefix so interleaved output from several processes stays readable.
 */
import chalk from 'chalk';

export const MAX_CAPTURE_CHARS = 8 * 1024 * 1024;
const PREFIX_COLOURS = [chalk.cyan, chalk.magenta, chalk.yellow, chalk.blue, chalk.green, chalk.whiteBright];

export function rolePrefix(role: string, device: number, index: number): string {
  return PREFIX_COLOURS[index % PREFIX_COLOURS.length](`[${role}@dev${device}]`);
}

export class OutputCapture {
  private chunks: string[] = [];
  private size = 0;
  private dropped = 0;
  private partialLine = '';

  constructor(private readonly echoTo?: NodeJS.WritableStream, private readonly prefix = '') {}

  push(chunk: Buffer | string): void {
    const text = chunk.toString();
    this.chunks.push(text);
    this.size += text.length;
    // Bounded memory for chatty roles: keep the tail, which is what explains a failure.
    while (this.size > MAX_CAPTURE_CHARS && this.chunks.length > 1) {
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

  /** Characters received but not kept (only the last MAX_CAPTURE_CHARS are). */
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
