/**
 * A few lines redrawn in place at the bottom of a terminal (cann-harness run's progress on a TTY),
 * sharing the terminal with Jest's reporters. Everything else written to the hooked streams
 * (stdout and stderr: the same terminal) first erases the block, goes out unchanged, and the block
 * is drawn again on the next turn of the event loop, so reporter lines are never mixed with it or
 * overwritten. Jest's own DefaultReporter shares the terminal with its status line the same way.
 *
 * Plain ANSI: cursor up N lines (CSI N A) and erase to the end of the screen (CSI 0 J). Lines are
 * cut to the terminal's width, so each takes exactly one row and N is exact.
 */

export interface TtyLike {
  isTTY?: boolean;
  columns?: number;
  write(chunk: string | Uint8Array, ...rest: unknown[]): boolean;
}

export const ESC = '\x1b[';
export const eraseLines = (n: number): string => (n > 0 ? `${ESC}${n}A${ESC}0J` : '');

export class LiveBlock {
  readonly #out: TtyLike;
  readonly #write: (text: string) => boolean;
  readonly #unhook: (() => void)[] = [];
  #lines: string[] = [];
  #shown = 0;
  #redraw: NodeJS.Immediate | null = null;
  #closed = false;
  /** The last other write ended its line: drawing now would not glue the block to a partial line. */
  #atLineStart = true;

  /** hooked: the streams whose other writes must erase the block first (default: out only). */
  constructor(out: TtyLike, hooked: TtyLike[] = [out]) {
    this.#out = out;
    const original = out.write;
    this.#write = (text) => original.call(out, text);
    for (const s of new Set(hooked)) this.#hook(s);
  }

  /** Shows these lines instead of the current block (an empty list erases it). */
  render(lines: string[]): void {
    if (this.#closed) return;
    this.#lines = lines;
    if (this.#atLineStart) this.#draw(); // else the next write that ends its line draws it
  }

  /** Erases the block and gives the streams back their own write. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#redraw) clearImmediate(this.#redraw);
    this.#erase();
    for (const u of this.#unhook.splice(0)) u();
  }

  #draw(): void {
    // A pseudo-terminal without a window size reports 0 columns: assume 80 then.
    const width = Math.max(10, (this.#out.columns || 80) - 1);
    const fit = this.#lines.map((l) => (l.length > width ? `${l.slice(0, width - 1)}…` : l));
    this.#write(eraseLines(this.#shown) + fit.map((l) => `${l}\n`).join(''));
    this.#shown = fit.length;
  }

  #erase(): void {
    if (this.#shown === 0) return;
    this.#write(eraseLines(this.#shown));
    this.#shown = 0;
  }

  #hook(s: TtyLike): void {
    const original = s.write;
    const block = this;
    s.write = function writeBelowBlock(this: unknown, chunk: string | Uint8Array, ...rest: unknown[]): boolean {
      block.#erase();
      const ok = original.call(s, chunk, ...rest);
      if (chunk.length) block.#atLineStart = endsLine(chunk);
      block.#redrawSoon();
      return ok;
    };
    this.#unhook.push(() => {
      s.write = original;
    });
  }

  #redrawSoon(): void {
    if (this.#redraw || this.#closed || this.#lines.length === 0) return;
    this.#redraw = setImmediate(() => {
      this.#redraw = null;
      if (!this.#closed && this.#atLineStart) this.#draw();
    });
    this.#redraw.unref();
  }
}

function endsLine(chunk: string | Uint8Array): boolean {
  return typeof chunk === 'string' ? chunk.endsWith('\n') : chunk[chunk.length - 1] === 0x0a;
}
