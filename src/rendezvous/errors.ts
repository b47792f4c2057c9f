export class RendezvousTimeoutError extends Error {
  /** What was awaited, e.g. `handle "ev0"`. */
  readonly what: string;
  /** The role that was expected to write it, when the caller said. */
  readonly from?: string;
  readonly waitedMs: number;
  /** The file whose appearance was awaited. */
  readonly path: string;

  constructor(what: string, path: string, waitedMs: number, from?: string, detail?: string) {
    const writer = from ? `, to be written by role "${from}"` : '';
    super(
      `timed out after ${waitedMs} ms waiting for ${what}${writer} (file ${path})` + (detail ? `: ${detail}` : ''),
    );
    this.name = 'RendezvousTimeoutError';
    this.what = what;
    this.from = from;
    this.waitedMs = waitedMs;
    this.path = path;
  }
}
