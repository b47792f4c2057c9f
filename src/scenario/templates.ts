/**
 * Ready-made scenarios for the common IPC event shapes. Each returns a declaration to pass to
 * scenario(), with real blocking built in: a record is still pending (its stream held by a latch)
 * when the other side waits, the waiter proves its stream is blocked, and the built-in verify
 * checks with marks that it resumed only after the release.
 *
 *   scenario('fan-out to 3 devices', oneToMany({ consumers: 3 }));
 *   scenario('custom', { ...pipeline({ stages: 4 }), timeoutMs: 60_000 });
 */
import { handoffRounds } from './handoff-rounds';
import { EventRecordedStatus } from '../acl/enums';
import type { Event, Latch } from '../acl';
import { replicate } from './plan';
import type { ScenarioContext, ScenarioDeclaration, ScenarioResult } from './types';

interface TemplateOptions {
  timeoutMs?: number;
  /** Soak rounds (README "Soak rounds"): the scenario's `rounds` (pingPong's own `rounds` counts its exchanges instead). */
  rounds?: number;
  /** Extra checks, run after the template's own. */
  verify?: (result: ScenarioResult) => void | Promise<void>;
}

const range = (n: number) => Array.from({ length: n }, (_, i) => i);

function expectPending(ctx: ScenarioContext<any>, ev: { queryStatus(): EventRecordedStatus }, what: string): void {
  const status = ev.queryStatus();
  if (status !== EventRecordedStatus.NOT_READY) {
    throw new Error(`${ctx.role}: ${what} should still be pending behind the latch, but aclrtQueryEventStatus says ${EventRecordedStatus[status]}`);
  }
}

/** Jest's expect; templates' verify functions only ever run inside Jest. */
function jestExpect(): jest.Expect {
  return (globalThis as unknown as { expect: jest.Expect }).expect;
}

function withExtraVerify(own: (r: ScenarioResult) => void, extra?: TemplateOptions['verify']) {
  return async (result: ScenarioResult) => {
    own(result);
    await extra?.(result);
  };
}

function checkCount(what: string, n: number, min: number, max: number): number {
  if (!Number.isInteger(n) || n < min || n > max) {
    throw new Error(`${what} must be a whole number from ${min} to ${max} (got ${String(n)})`);
  }
  return n;
}

/** A template's device list: non-empty, whole numbers from 0 (a device may appear twice: roles can share one). */
function checkDeviceList(what: string, devices: unknown): number[] {
  if (!Array.isArray(devices) || devices.length === 0 || !devices.every((d) => Number.isInteger(d) && d >= 0)) {
    throw new Error(`${what} must be a non-empty list of device ids (whole numbers from 0), e.g. [1, 3, 6] (got ${JSON.stringify(devices)})`);
  }
  return devices as number[];
}

function checkDevice(what: string, device: number): number {
  if (!Number.isInteger(device) || device < 0) throw new Error(`${what} must be a device id, a whole number from 0 (got ${String(device)})`);
  return device;
}

/** Create an IPC event, record it behind a latch (so the record stays pending) and share it as `name`. */
async function sharePendingRecord(ctx: ScenarioContext<any>, name: string): Promise<{ ev: Event; latch: Latch }> {
  const ev = ctx.createIpcEvent();
  const latch = ctx.latch();
  ev.record(ctx.stream);
  await ctx.shareEvent(name, ev);
  return { ev, latch };
}

/**
 * The recording side of every shape, once every waiter has said it is blocked: check the record
 * is still pending, release the latch and let the record execute. The marks (`<prefix>release`,
 * `<prefix>record-done`) bracket the release, so verify() can check the waiters resumed after it.
 */
function releasePendingRecord(ctx: ScenarioContext<any>, ev: Event, latch: Latch, markPrefix = ''): void {
  expectPending(ctx, ev, `the ${markPrefix}record`);
  ctx.mark(`${markPrefix}release`);
  latch.release();
  ctx.stream.synchronize();
  ctx.mark(`${markPrefix}record-done`);
}

/**
 * The waiting side: wait on `ev` (whose record is pending), prove the stream is really blocked,
 * tell the recorder (signal `waiting`), then block until the record executes (`<prefix>after-wait`).
 */
async function waitOnPendingRecord(ctx: ScenarioContext<any>, ev: Event, waiting: string, markPrefix = ''): Promise<void> {
  ctx.stream.waitEvent(ev);
  ctx.assertBlocked();
  await ctx.signal(waiting);
  ctx.stream.synchronize();
  ctx.mark(`${markPrefix}after-wait`);
}

/**
 * CANN 0_ipcevent's shape, both ways: `ping` creates an IPC event and records it; `pong` opens
 * it, waits, then records the same event for `ping` to wait on. Every record is pending while
 * the other side waits.
 */
export function pingPong(opts: TemplateOptions & { rounds?: number; pongDevice?: number } = {}): ScenarioDeclaration<{ rounds: number }> {
  const rounds = checkCount('pingPong rounds', opts.rounds ?? 3, 1, 1000);
  const pongDevice = opts.pongDevice ?? 0;
  return {
    devices: pongDevice + 1,
    timeoutMs: opts.timeoutMs, // unset: the scenario default (the config file's timeoutMs, else 30 s)
    params: { rounds },
    roles: {
      ping: {
        device: 0,
        run: async (ctx) => {
          const ev = ctx.createIpcEvent();
          await ctx.shareEvent('event', ev);
          for (let r = 0; r < ctx.params.rounds; r++) {
            const latch = ctx.latch();
            ev.record(ctx.stream);
            await ctx.signal(`ping-${r}.recorded`);
            await ctx.awaitSignal(`ping-${r}.waiting`, { from: 'pong' });
            releasePendingRecord(ctx, ev, latch, `ping-${r}.`);

            await ctx.awaitSignal(`pong-${r}.recorded`, { from: 'pong' });
            await waitOnPendingRecord(ctx, ev, `pong-${r}.waiting`, `pong-${r}.`);
          }
        },
      },
      pong: {
        device: pongDevice,
        run: async (ctx) => {
          const ev = await ctx.openSharedEvent('event', { from: 'ping' });
          for (let r = 0; r < ctx.params.rounds; r++) {
            await ctx.awaitSignal(`ping-${r}.recorded`, { from: 'ping' });
            await waitOnPendingRecord(ctx, ev, `ping-${r}.waiting`, `ping-${r}.`);

            const latch = ctx.latch();
            ev.record(ctx.stream);
            await ctx.signal(`pong-${r}.recorded`);
            await ctx.awaitSignal(`pong-${r}.waiting`, { from: 'ping' });
            releasePendingRecord(ctx, ev, latch, `pong-${r}.`);
          }
        },
      },
    },
    verify: withExtraVerify((result) => {
      for (let r = 0; r < rounds; r++) {
        jestExpect()(result).toHaveMarkOrder(`ping:ping-${r}.release`, `pong:ping-${r}.after-wait`);
        jestExpect()(result).toHaveMarkOrder(`pong:pong-${r}.release`, `ping:pong-${r}.after-wait`);
      }
    }, opts.verify),
  };
}

/**
 * CANN 1_ipcevent_multi_device's shape: a producer on device 0, consumer i on device i + 1
 * (or all on device 0 with sameDevice), all waiting on the producer's one pending record.
 */
export function oneToMany(
  opts: TemplateOptions & {
    /** How many consumers (on devices 1..n), or the consumers' devices, e.g. [2, 5]. */
    consumers?: number | number[];
    /** The producer's device (default 0). */
    producer?: number;
    sameDevice?: boolean;
  } = {},
): ScenarioDeclaration {
  const listed = Array.isArray(opts.consumers) ? checkDeviceList('oneToMany consumers', opts.consumers) : null;
  const consumers = listed ? listed.length : checkCount('oneToMany consumers', (opts.consumers as number | undefined) ?? 3, 1, 1024);
  const producerDevice = checkDevice('oneToMany producer', opts.producer ?? 0);
  const consumerDevice = (i: number): number => (opts.sameDevice ? producerDevice : listed ? listed[i] : i + 1);
  const consumerNames = range(consumers).map((i) => `consumer-${i}`);
  return {
    devices: Math.max(producerDevice, ...range(consumers).map(consumerDevice)) + 1,
    timeoutMs: opts.timeoutMs, // unset: the scenario default (the config file's timeoutMs, else 30 s)
    ...(opts.rounds !== undefined ? { rounds: opts.rounds } : {}), // soak rounds: the same body every round
    roles: {
      producer: {
        device: producerDevice,
        run: async (ctx) => {
          const { ev, latch } = await sharePendingRecord(ctx, 'event');
          await ctx.awaitSignals(consumerNames.map((c) => `${c}.waiting`));
          releasePendingRecord(ctx, ev, latch);
          await ctx.awaitSignals(consumerNames.map((c) => `${c}.done`));
        },
      },
      consumer: replicate(consumers, (i) => ({
        device: consumerDevice(i),
        run: async (ctx) => {
          const ev = await ctx.openSharedEvent('event', { from: 'producer' });
          await waitOnPendingRecord(ctx, ev, `${ctx.role}.waiting`);
          await ctx.signal(`${ctx.role}.done`);
        },
      })),
    },
    verify: withExtraVerify((result) => {
      jestExpect()(result).toHaveMarkOrder('producer:release', 'consumer:after-wait');
    }, opts.verify),
  };
}

/**
 * A chain across devices 0 -> 1 -> ... : stage i waits on stage i-1's IPC event, then records its
 * own on the same stream. Only stage 0 holds a latch, so every later stage is blocked through the
 * chain until it is released.
 */
export function pipeline(
  opts: TemplateOptions & {
    /** How many stages (on devices 0..n-1). */
    stages?: number;
    /** The stages' devices in chain order, e.g. [1, 3, 6]: as many stages as devices. */
    devices?: number[];
  } = {},
): ScenarioDeclaration {
  const listed = opts.devices !== undefined ? checkDeviceList('pipeline devices', opts.devices) : null;
  if (listed && opts.stages !== undefined && opts.stages !== listed.length) {
    throw new Error(`pipeline: stages (${opts.stages}) and devices (${listed.length} of them) disagree: give one of the two`);
  }
  const stages = checkCount('pipeline stages', listed ? listed.length : (opts.stages ?? 3), 2, 1024);
  const stageDevice = (i: number): number => (listed ? listed[i] : i);
  return {
    devices: Math.max(...range(stages).map(stageDevice)) + 1,
    timeoutMs: opts.timeoutMs, // unset: the scenario default (the config file's timeoutMs, else 30 s)
    ...(opts.rounds !== undefined ? { rounds: opts.rounds } : {}), // soak rounds: the same body every round
    roles: {
      stage: replicate(stages, (i) => ({
        device: stageDevice(i),
        run: async (ctx) => {
          const isFirst = i === 0;
          const isLast = i === stages - 1;
          const latch = isFirst ? ctx.latch() : null;
          if (!isFirst) {
            const previous = await ctx.openSharedEvent(`stage-${i - 1}`, { from: `stage-${i - 1}` });
            ctx.stream.waitEvent(previous);
          }
          if (!isLast) {
            const mine = ctx.createIpcEvent();
            mine.record(ctx.stream);
            await ctx.shareEvent(`stage-${i}`, mine);
          }
          if (isFirst) {
            await ctx.awaitSignals(range(stages - 1).map((k) => `stage-${k + 1}.waiting`));
            ctx.mark('release');
            latch!.release();
          } else {
            ctx.assertBlocked();
            await ctx.signal(`stage-${i}.waiting`);
          }
          ctx.stream.synchronize();
          ctx.mark('after-wait');
          await ctx.signal(`stage-${i}.done`);
          // Keep this stage's event alive until the next stage has finished with it.
          if (!isLast) await ctx.awaitSignal(`stage-${i + 1}.done`, { from: `stage-${i + 1}` });
        },
      })),
    },
    verify: withExtraVerify((result) => {
      jestExpect()(result).toHaveMarkOrder('stage-0:release', 'stage:after-wait');
    }, opts.verify),
  };
}

/**
 * N producers (devices 0..N-1), one consumer (device N) whose stream waits on all their events.
 * Producers are released one at a time; the consumer proves it is still blocked until the last.
 */
export function fanIn(opts: TemplateOptions & { producers?: number } = {}): ScenarioDeclaration {
  const producers = checkCount('fanIn producers', opts.producers ?? 3, 1, 1024);
  return {
    devices: producers + 1,
    timeoutMs: opts.timeoutMs, // unset: the scenario default (the config file's timeoutMs, else 30 s)
    ...(opts.rounds !== undefined ? { rounds: opts.rounds } : {}), // soak rounds: the same body every round
    roles: {
      producer: replicate(producers, (i) => ({
        device: i,
        run: async (ctx) => {
          const { ev, latch } = await sharePendingRecord(ctx, ctx.role);
          await ctx.awaitSignal(`release-${i}`, { from: 'consumer' });
          releasePendingRecord(ctx, ev, latch);
          await ctx.signal(`released-${i}`);
          await ctx.awaitSignal('consumer.done', { from: 'consumer' });
        },
      })),
      consumer: {
        device: producers,
        run: async (ctx) => {
          const sources = ctx.rolesIn('producer');
          const events = await Promise.all(sources.map((p) => ctx.openSharedEvent(p.name, { from: p.name })));
          for (const ev of events) ctx.stream.waitEvent(ev);
          for (const p of sources) {
            ctx.assertBlocked(); // producers p.index.. are still pending
            await ctx.signal(`release-${p.index}`);
            await ctx.awaitSignal(`released-${p.index}`, { from: p.name });
          }
          ctx.stream.synchronize();
          ctx.mark('after-wait');
          await ctx.signal('consumer.done');
        },
      },
    },
    verify: withExtraVerify((result) => {
      jestExpect()(result).toHaveMarkOrder('producer:release', 'consumer:after-wait');
    }, opts.verify),
  };
}

/**
 * One consumer process with k worker threads on one device, each opening the producer's event
 * on its own stream and waiting on the same pending record.
 */
export function multiThreadConsumer(opts: TemplateOptions & { threads?: number; consumerDevice?: number } = {}): ScenarioDeclaration {
  const threads = checkCount('multiThreadConsumer threads', opts.threads ?? 4, 1, 64);
  const consumerDevice = opts.consumerDevice ?? 0;
  const threadSignals = (what: string) => range(threads).map((t) => `consumer.t${t}.${what}`);
  return {
    devices: consumerDevice + 1,
    timeoutMs: opts.timeoutMs, // unset: the scenario default (the config file's timeoutMs, else 30 s)
    ...(opts.rounds !== undefined ? { rounds: opts.rounds } : {}), // soak rounds: the threads start once, their body runs every round
    roles: {
      producer: {
        device: 0,
        run: async (ctx) => {
          const { ev, latch } = await sharePendingRecord(ctx, 'event');
          await ctx.awaitSignals(threadSignals('waiting'));
          releasePendingRecord(ctx, ev, latch);
          await ctx.awaitSignals(threadSignals('done'));
        },
      },
      consumer: {
        device: consumerDevice,
        threads,
        thread: async (ctx, t) => {
          const ev = await ctx.openSharedEvent('event', { from: 'producer' });
          await waitOnPendingRecord(ctx, ev, `consumer.t${t}.waiting`);
          await ctx.signal(`consumer.t${t}.done`);
          return { thread: t, device: ctx.acl.getDevice() };
        },
      },
    },
    verify: withExtraVerify((result) => {
      jestExpect()(result).toHaveMarkOrder('producer:release', 'consumer:after-wait');
      const resumed = result.role('consumer').marks.filter((m) => m.name === 'after-wait');
      jestExpect()(new Set(resumed.map((m) => m.thread)).size).toBe(threads);
    }, opts.verify),
  };
}

/** The bytes a handoff buffer holds before (STALE) and after (FRESH) the producer's fill. */
export const HANDOFF_STALE = 0x11;
export const HANDOFF_FRESH = 0xab;

/** What each handoff consumer returns: which bytes it read from the shared buffer. */
export interface HandoffRead {
  fresh: boolean;
  stale: boolean;
  firstByte: number;
}

/**
 * Data handoff through IPC memory: the producer's buffer holds HANDOFF_STALE bytes; it queues a
 * fill with HANDOFF_FRESH behind a latch, then a record (an IPC event, or one notify per consumer
 * with `sync: 'notify'`), and shares the buffer. Each consumer imports it, waits, and reads it only
 * after the wait: it must see the fresh bytes. With `wait: false` (the control) consumers read at
 * once while the producer is still held, and must see the stale bytes: proof that the check
 * notices a missing wait. `memory: 'vmm'` shares VMM physical memory instead (ctx.allocPhysical,
 * sharePhysical, openSharedPhysical); `pidValidation: false` shares either without the whitelist.
 */
export function handoff(
  opts: TemplateOptions & {
    consumers?: number;
    bytes?: number;
    sync?: 'event' | 'notify';
    wait?: boolean;
    sameDevice?: boolean;
    rounds?: number;
    memory?: 'ipc' | 'vmm';
    pidValidation?: boolean;
  } = {},
): ScenarioDeclaration {
  const consumers = checkCount('handoff consumers', opts.consumers ?? 2, 1, 64);
  const bytes = checkCount('handoff bytes', opts.bytes ?? 4096, 1, 1 << 30);
  const sync = opts.sync ?? 'event';
  if (sync !== 'event' && sync !== 'notify') throw new Error(`handoff sync must be 'event' or 'notify' (got ${JSON.stringify(sync)})`);
  const wait = opts.wait ?? true;
  const memory = opts.memory ?? 'ipc';
  if (memory !== 'ipc' && memory !== 'vmm') throw new Error(`handoff memory must be 'ipc' or 'vmm' (got ${JSON.stringify(memory)})`);
  const share = { importers: ['consumer'], pidValidation: opts.pidValidation ?? true };
  if (opts.rounds !== undefined) {
    if (memory !== 'ipc' || opts.pidValidation !== undefined) throw new Error("handoff with rounds shares IPC memory with the whitelist only: drop memory / pidValidation, or rounds");
    // Soak rounds: the event and the buffer made once, a fast checked handoff per round (handoff-rounds.ts).
    if (sync !== 'event' || !wait) throw new Error("handoff with rounds runs the IPC-event handoff only: drop sync: 'notify' / wait: false, or rounds");
    return { ...handoffRounds({ consumers, bytes, rounds: opts.rounds, sameDevice: opts.sameDevice, timeoutMs: opts.timeoutMs }), ...(opts.verify ? { verify: opts.verify } : {}) };
  }
  const consumerNames = range(consumers).map((i) => `consumer-${i}`);
  return {
    devices: opts.sameDevice ? 1 : consumers + 1,
    timeoutMs: opts.timeoutMs, // unset: the scenario default (the config file's timeoutMs, else 30 s)
    roles: {
      producer: {
        device: 0,
        run: async (ctx) => {
          const physical = memory === 'vmm' ? ctx.allocPhysical(bytes) : undefined;
          const buf = physical ?? ctx.alloc(bytes);
          buf.write(new Uint8Array(bytes).fill(HANDOFF_STALE));
          const latch = ctx.latch();
          buf.fill(HANDOFF_FRESH, ctx.stream); // queued behind the latch
          let ev: Event | undefined;
          if (sync === 'event') {
            ev = ctx.createIpcEvent();
            ev.record(ctx.stream);
            await ctx.shareEvent('ready', ev);
          } else {
            for (const c of consumerNames) (await ctx.openSharedNotify(`ready.${c}`, { from: c })).record(ctx.stream);
          }
          if (physical) await ctx.sharePhysical('buffer', physical, share);
          else await ctx.shareMemory('buffer', buf, share);
          await ctx.awaitSignals(consumerNames.map((c) => `${c}.waiting`));
          if (ev) expectPending(ctx, ev, 'the record after the fill');
          ctx.mark('release');
          latch.release();
          ctx.stream.synchronize();
          ctx.mark('record-done');
          // Importers close before the exporter frees (CANN's order).
          await ctx.awaitSignals(consumerNames.map((c) => `${c}.done`));
        },
      },
      consumer: replicate(consumers, (i) => ({
        device: opts.sameDevice ? 0 : i + 1,
        run: async (ctx): Promise<HandoffRead> => {
          const notify = sync === 'notify' ? ctx.createNotify() : undefined;
          if (notify) await ctx.shareNotify(`ready.${ctx.role}`, notify, { importers: ['producer'] });
          const mem = memory === 'vmm' ? await ctx.openSharedPhysical('buffer', { from: 'producer' }) : await ctx.openSharedMemory('buffer', { from: 'producer' });
          // Memory imported from another device allows only async device-to-device copies: the
          // consumer reads it by a copy into its own buffer on its stream (CANN's ReadDo).
          const local = ctx.alloc(bytes);
          if (wait) {
            if (notify) notify.waitAndReset(ctx.stream);
            else ctx.stream.waitEvent(await ctx.openSharedEvent('ready', { from: 'producer' }));
            local.copyFrom(mem, ctx.stream); // queued behind the wait
            ctx.assertBlocked();
            await ctx.signal(`${ctx.role}.waiting`);
            ctx.stream.synchronize();
            ctx.mark('after-wait');
          } else {
            local.copyFrom(mem, ctx.stream); // the control: no wait, the producer is still held
            ctx.stream.synchronize();
            ctx.mark('read-without-wait');
            await ctx.signal(`${ctx.role}.waiting`);
          }
          const data = local.read();
          const read: HandoffRead = {
            fresh: data.every((b) => b === HANDOFF_FRESH),
            stale: data.every((b) => b === HANDOFF_STALE),
            firstByte: data[0],
          };
          if (wait && !read.fresh) {
            const bad = data.findIndex((b) => b !== HANDOFF_FRESH);
            throw new Error(
              `${ctx.role} read byte ${bad} = 0x${data[bad].toString(16)} after its wait, expected 0x${HANDOFF_FRESH.toString(16)}: ` +
                "the wait did not order this read after the producer's fill",
            );
          }
          mem.free();
          await ctx.signal(`${ctx.role}.done`);
          return read;
        },
      })),
    },
    verify: withExtraVerify((result) => {
      const reads = result.group('consumer').map((r) => r.value as HandoffRead);
      if (wait) {
        jestExpect()(reads.every((r) => r.fresh)).toBe(true);
        jestExpect()(result).toHaveMarkOrder('producer:release', 'consumer:after-wait');
      } else {
        // Without the wait the check would have failed: every consumer saw the stale bytes.
        jestExpect()(reads.map((r) => r.stale)).toEqual(consumerNames.map(() => true));
        jestExpect()(result).toHaveMarkOrder('consumer:read-without-wait', 'producer:release');
      }
    }, opts.verify),
  };
}
