/**
 * The data-carrying part of the role context: device buffers, IPC memory, IPC notify and VMM
 * physical memory shared between roles through the rendezvous. The harness does the pid exchange for whitelists itself:
 * an importer publishes its pid (aclrtDeviceGetBareTgid) under `@pid.<role>` when it first opens
 * something shared, and an exporter with the whitelist on awaits the pids of the roles it shares
 * with before it publishes the key.
 */
import type { Acl, DeviceBuffer, MappedBuffer, Notify } from '../../../src/acl';
import type { RoleBasics } from './role-basics';
import { quietly } from './quietly';
import type { AwaitOptions, DataContext, PlannedRole, ScenarioPlan, ShareOptions } from '../../../src/scenario/types';
import { formatSharedRecord, parseSharedRecord, type SharedRecord } from '../../../src/wire/shared-record';

const pidName = (role: string) => `@pid.${role}`;
const shareCall: Record<SharedRecord['kind'], string> = { memory: 'shareMemory', notify: 'shareNotify', physical: 'sharePhysical' };

/** The DataContext members of one body's ctx, with the clean-up of the buffers and notifies they made. */
export interface DataContextWithCleanup {
  members: DataContext;
  /** Closes imports and destroys notifies, then frees own buffers. Never throws. */
  cleanup(): void;
}

export function createDataContext(
  base: RoleBasics,
  plan: ScenarioPlan<any>,
  role: PlannedRole<any>,
  timeoutOf: (opts?: { timeoutMs?: number }) => number,
): DataContextWithCleanup {
  const buffers: (DeviceBuffer | MappedBuffer)[] = [];
  const notifies: Notify[] = [];
  let pidPublished = false;
  const acl = (): Acl => base.acl;

  /** Role names for `importers` entries (role or group names); default: every other role. */
  const importersOf = (call: string, names: readonly string[] | undefined): string[] => {
    const others = plan.roles.filter((r) => r.name !== role.name);
    if (names === undefined) return others.map((r) => r.name);
    const out = new Set<string>();
    for (const n of names) {
      const matched = plan.roles.filter((r) => r.name === n || r.group === n).map((r) => r.name);
      if (matched.length === 0) {
        throw new Error(`${base.role}: ${call}: importer "${n}" is neither a role nor a group of this scenario (roles: ${plan.roles.map((r) => r.name).join(', ')})`);
      }
      for (const m of matched) if (m !== role.name) out.add(m);
    }
    return [...out];
  };

  const awaitPids = async (call: string, roles: string[], opts?: ShareOptions): Promise<number[]> =>
    Promise.all(
      roles.map(async (r) => {
        try {
          const bytes = await base.rendezvous.await(pidName(r), { timeoutMs: timeoutOf(opts), from: r });
          return Number(bytes.toString());
        } catch (e) {
          throw new Error(
            `${base.role}: ${call} waits for role ${r}'s pid for the whitelist; a role publishes it when it calls ` +
              `openSharedMemory/openSharedNotify/openSharedPhysical. Pass { importers: [...] } with only the roles that open it, or ` +
              `{ pidValidation: false }. (${(e as Error).message})`,
            { cause: e },
          );
        }
      }),
    );

  const publishOwnPid = async () => {
    if (pidPublished) return;
    await base.rendezvous.publish(pidName(role.name), String(acl().bareTgid()));
    pidPublished = true;
  };

  const awaitShared = async (call: string, name: string, kind: SharedRecord['kind'], opts?: AwaitOptions): Promise<SharedRecord> => {
    await publishOwnPid();
    const bytes = await base.rendezvous.await(name, { timeoutMs: timeoutOf(opts), from: opts?.from });
    const rec = parseSharedRecord(bytes, kind);
    if (!rec) {
      throw new Error(
        `${base.role}: ${call}("${name}"): what was published under "${name}" is not shared ${kind}; ` +
          `publish it with ctx.${shareCall[kind]}(name, ...) or, from C, ${kind === 'physical' ? 'the record of docs/guide/vmm.md' : `cannharness_share_${kind}`}`,
      );
    }
    return rec;
  };

  const members: DataContext = {
    alloc(bytes) {
      const b = acl().malloc(bytes);
      buffers.push(b);
      return b;
    },
    async shareMemory(name, buf, opts) {
      const validate = opts?.pidValidation ?? true;
      const key = buf.exportedKey ?? buf.exportKey({ pidValidation: validate });
      if (validate) {
        const pids = await awaitPids(`shareMemory("${name}")`, importersOf('shareMemory', opts?.importers), opts);
        if (pids.length > 0) buf.allowImporters(pids);
      }
      const rec: SharedRecord = { kind: 'memory', key, bytes: buf.bytes, from: role.name };
      await base.rendezvous.publish(name, formatSharedRecord(rec));
      return key;
    },
    async openSharedMemory(name, opts) {
      const rec = await awaitShared('openSharedMemory', name, 'memory', opts);
      const b = acl().importMemory(rec.key, rec.bytes ?? 0, { peerAccess: opts?.peerAccess });
      buffers.push(b);
      return b;
    },
    createNotify() {
      const n = acl().createNotify();
      notifies.push(n);
      return n;
    },
    async shareNotify(name, n, opts) {
      const validate = opts?.pidValidation ?? true;
      const key = n.exportKey({ pidValidation: validate });
      if (validate) {
        const pids = await awaitPids(`shareNotify("${name}")`, importersOf('shareNotify', opts?.importers), opts);
        if (pids.length > 0) n.allowImporters(pids);
      }
      await base.rendezvous.publish(name, formatSharedRecord({ kind: 'notify', key, from: role.name } satisfies SharedRecord));
      return key;
    },
    async openSharedNotify(name, opts) {
      const rec = await awaitShared('openSharedNotify', name, 'notify', opts);
      const n = acl().importNotify(rec.key, { peerAccess: opts?.peerAccess });
      notifies.push(n);
      return n;
    },
    allocPhysical(bytes) {
      const b = acl().vmm.allocMapped(bytes);
      buffers.push(b);
      return b;
    },
    async sharePhysical(name, buf, opts) {
      if (buf.imported) throw new Error(`${base.role}: sharePhysical("${name}"): the buffer is an import; only the role that allocated it (ctx.allocPhysical) exports it`);
      const validate = opts?.pidValidation ?? true;
      const shareable = buf.shareableHandle ?? buf.exportHandle({ pidValidation: validate });
      if (validate) {
        const pids = await awaitPids(`sharePhysical("${name}")`, importersOf('sharePhysical', opts?.importers), opts);
        if (pids.length > 0) buf.allowImporters(pids);
      }
      await base.rendezvous.publish(name, formatSharedRecord({ kind: 'physical', key: shareable.toString(), bytes: buf.bytes, from: role.name }));
      return shareable;
    },
    async openSharedPhysical(name, opts) {
      const rec = await awaitShared('openSharedPhysical', name, 'physical', opts);
      if (!/^\d{1,20}$/.test(rec.key) || BigInt(rec.key) >= 1n << 64n) {
        throw new Error(`${base.role}: openSharedPhysical("${name}"): key ${JSON.stringify(rec.key)} is not a shareable handle (a uint64 in decimal, docs/guide/vmm.md)`);
      }
      const b = acl().vmm.importMapped(BigInt(rec.key), rec.bytes ?? 0);
      buffers.push(b);
      return b;
    },
  };

  const cleanup = () => {
    for (const n of notifies.reverse()) quietly(() => n.destroyed || n.destroy());
    // Imports first: CANN wants every importer closed before the exporter closes or frees.
    for (const b of buffers.filter((x) => x.imported).reverse()) quietly(() => b.destroyed || b.free());
    for (const b of buffers.filter((x) => !x.imported).reverse()) quietly(() => b.destroyed || b.free());
  };
  return { members, cleanup };
}
