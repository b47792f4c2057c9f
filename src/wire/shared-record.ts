/**
 * The record under which a role shares an IPC memory or notify key (ctx.shareMemory / shareNotify,
 * and the C API's cannharness_share_memory / share_notify: native-stub/harness/api/shared.c), read by the
 * importer (ctx.openSharedMemory / openSharedNotify, cannharness_await_memory / await_notify),
 * or VMM physical memory (ctx.sharePhysical / openSharedPhysical: kind physical, the key the
 * shareable handle of aclrtMemExportToShareableHandle in decimal, docs/guide/vmm.md).
 * One format for both languages, documented for C in native-stub/harness/include/cannharness.h:
 *
 *   cann-harness shared 1\n  kind memory|notify|physical\n  key <key>\n  [bytes <n>\n]  from <role>\n
 *
 * Line-based so that C reads it without a JSON parser; keys never hold control characters.
 */
export interface SharedRecord {
  kind: 'memory' | 'notify' | 'physical';
  key: string;
  /** Memory and physical: the exported buffer's size (the importer's buffer gets it). */
  bytes?: number;
  from: string;
}

/** The first line, as native-stub/harness/api/shared.c writes it (test/architecture/c-ts-shared.test.ts). */
export const SHARED_RECORD_MAGIC = 'cann-harness shared 1';
// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f]/;

export function formatSharedRecord(rec: SharedRecord): string {
  if (rec.key === '' || CONTROL.test(rec.key)) {
    throw new Error(`shared ${rec.kind} key ${JSON.stringify(rec.key)} is empty or has control characters`);
  }
  const bytes = rec.bytes !== undefined ? `bytes ${rec.bytes}\n` : '';
  return `${SHARED_RECORD_MAGIC}\nkind ${rec.kind}\nkey ${rec.key}\n${bytes}from ${rec.from}\n`;
}

/** The record in `bytes`, or null when it is not one (of `kind`). */
export function parseSharedRecord(bytes: Buffer, kind: SharedRecord['kind']): SharedRecord | null {
  const lines = bytes.toString('utf8').split('\n');
  if (lines[0] !== SHARED_RECORD_MAGIC || lines.pop() !== '') return null;
  const fields = new Map<string, string>();
  for (const l of lines.slice(1)) {
    const sp = l.indexOf(' ');
    if (sp <= 0) return null;
    fields.set(l.slice(0, sp), l.slice(sp + 1));
  }
  const key = fields.get('key');
  if (fields.get('kind') !== kind || !key) return null;
  const rec: SharedRecord = { kind, key, from: fields.get('from') ?? '' };
  const size = fields.get('bytes');
  if (size !== undefined) {
    if (!/^\d+$/.test(size)) return null;
    rec.bytes = Number(size);
  }
  if (kind !== 'notify' && rec.bytes === undefined) return null;
  return rec;
}
