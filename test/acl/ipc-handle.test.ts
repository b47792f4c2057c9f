/** IpcEventHandle value semantics and handle files: pure TypeScript, runs inside Jest (no koffi). */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { IpcEventHandle, IpcHandleFileError } from '../../src/acl';

const bytes = (seed: number) => Buffer.from(Array.from({ length: 64 }, (_, i) => (i * 7 + seed) & 0xff));

describe('IpcEventHandle', () => {
  let dir: string;
  beforeEach(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'acl-handle-'));
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('fromBuffer checks the length', () => {
    expect(() => IpcEventHandle.fromBuffer(Buffer.alloc(63))).toThrow('exactly 64 bytes, got 63 bytes');
    expect(() => IpcEventHandle.fromBuffer(Buffer.alloc(65))).toThrow('exactly 64 bytes, got 65 bytes');
    expect(() => IpcEventHandle.fromBuffer('x'.repeat(64) as unknown as Buffer)).toThrow(TypeError);
    expect(IpcEventHandle.fromBuffer(bytes(1)).toBuffer()).toEqual(bytes(1));
  });

  test('is immutable: buffers are copied in and out', () => {
    const src = bytes(3);
    const h = IpcEventHandle.fromBuffer(src);
    src[0] ^= 0xff;
    expect(h.toBuffer()).toEqual(bytes(3));
    const outBuf = h.toBuffer();
    outBuf[1] ^= 0xff;
    expect(h.toBuffer()).toEqual(bytes(3));
    expect(Object.isFrozen(h)).toBe(true);
  });

  test('hex round trip, short form and equality', () => {
    const h = IpcEventHandle.fromBuffer(bytes(5));
    expect(h.toHex()).toHaveLength(128);
    expect(IpcEventHandle.fromHex(h.toHex()).equals(h)).toBe(true);
    expect(h.toShortHex()).toBe(Buffer.from(bytes(5).subarray(0, 8)).reverse().toString('hex')); // bytes 0..7, little-endian
    expect(h.equals(IpcEventHandle.fromBuffer(bytes(6)))).toBe(false);
    expect(() => IpcEventHandle.fromHex('abc')).toThrow('expected 128 hex digits');
  });

  test('writeFileAtomic then readFile returns the same handle and leaves no temp file', () => {
    const file = path.join(dir, 'event_handle.bin');
    const h = IpcEventHandle.fromBuffer(bytes(9));
    h.writeFileAtomic(file);
    expect(IpcEventHandle.readFile(file).equals(h)).toBe(true);
    expect(fs.readdirSync(dir)).toEqual(['event_handle.bin']);
    // Overwriting an existing handle file is atomic too.
    IpcEventHandle.fromBuffer(bytes(10)).writeFileAtomic(file);
    expect(IpcEventHandle.readFile(file).toBuffer()).toEqual(bytes(10));
    expect(fs.readdirSync(dir)).toEqual(['event_handle.bin']);
  });

  test('readFile of a missing file names the path and says the producer may not have published yet', () => {
    const file = path.join(dir, 'nope.bin');
    let err: unknown;
    try {
      IpcEventHandle.readFile(file);
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(IpcHandleFileError);
    expect((err as IpcHandleFileError).reason).toBe('missing');
    expect((err as Error).message).toContain(file);
    expect((err as Error).message).toContain('may not have published it yet');
  });

  test('readFile of a wrong-size file says expected 64 bytes, got N', () => {
    const file = path.join(dir, 'short.bin');
    fs.writeFileSync(file, Buffer.alloc(10));
    expect(() => IpcEventHandle.readFile(file)).toThrow(`${file} has the wrong size: expected 64 bytes, got 10`);
  });

  test('writeFileAtomic into a missing directory fails clearly and leaves nothing', () => {
    const file = path.join(dir, 'missing-sub', 'h.bin');
    expect(() => IpcEventHandle.fromBuffer(bytes(1)).writeFileAtomic(file)).toThrow(`cannot publish ${file} atomically`);
    expect(fs.readdirSync(dir)).toEqual([]);
  });
});
