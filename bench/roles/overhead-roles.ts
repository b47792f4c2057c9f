/** Role bodies for bench/scenario-overhead.bench.ts: the cheapest possible work, so what is timed is the harness. */
import type { RoleContext } from '../../src/orchestrator';
import { processMemory, type ProcessMemory } from './memory';

/** Returns at once: measures fork + TypeScript loading + IPC round trip. */
export function idle(ctx: RoleContext): void {
  ctx.mark('body');
}

/** Touches ACL: adds koffi loading, aclInit, aclrtSetDevice and one IPC event create/destroy. */
export function withAcl(ctx: RoleContext): void {
  ctx.mark('body');
  const ev = ctx.acl.createIpcEvent();
  ev.destroy();
}

/** withAcl, then reports this process's memory so far (bench/roles/memory.ts): what one device process costs. */
export function footprint(ctx: RoleContext): ProcessMemory {
  withAcl(ctx);
  return processMemory();
}
