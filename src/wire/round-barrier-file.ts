/**
 * The file behind the round barrier of `rounds` scenarios (native-stub/harness/hold/barrier.h): created
 * exclusively (O_EXCL, 0600, never through a link) by the orchestrator in the scenario directory
 * before any device process starts, so no stranger's file is ever mapped, and it goes away with
 * the directory however the run ends (nothing in /dev/shm). Written with plain fs: the
 * orchestrator never loads koffi; the device processes map it (src/acl/round-barrier.ts).
 */
import { closeSync, constants, openSync, writeSync } from 'node:fs';
import * as path from 'node:path';

export const ROUND_BARRIER_FILE = 'round-barrier';
/** barrier.h's CANNHARNESS_BARRIER_MAGIC and _BYTES, barrier.c's 4096 parties (test/architecture/c-ts-shared.test.ts). */
export const ROUND_BARRIER_MAGIC = 0x52424843;
export const ROUND_BARRIER_BYTES = 64;
export const MAX_ROUND_PARTIES = 4096;

export function roundBarrierPath(dir: string): string {
  return path.join(dir, ROUND_BARRIER_FILE);
}

export function createRoundBarrierFile(dir: string, parties: number): string {
  if (!Number.isInteger(parties) || parties < 1 || parties > MAX_ROUND_PARTIES) {
    throw new RangeError(`round barrier: parties must be a whole number from 1 to ${MAX_ROUND_PARTIES}, got ${parties}`);
  }
  const file = roundBarrierPath(dir);
  const header = Buffer.alloc(ROUND_BARRIER_BYTES);
  header.writeUInt32LE(ROUND_BARRIER_MAGIC, 0);
  header.writeUInt32LE(parties, 4);
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | constants.O_NOFOLLOW, 0o600);
  try {
    writeSync(fd, header, 0, ROUND_BARRIER_BYTES, 0);
  } finally {
    closeSync(fd);
  }
  return file;
}
