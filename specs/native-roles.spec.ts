/**
 * Native roles: C programs (specs/native/*.c, built by `build:`) run as roles, alone and next to
 * a TypeScript role. The producer's record stays pending until every consumer has proved its
 * wait blocks (consumer.c), so `cann-harness audit` kills these scenarios with wait-noop.
 */
import { EventRecordedStatus, replicate, scenario } from '../src';

const build = 'make -s -C native';

scenario('native producer, 2 native consumers on other devices', {
  build,
  roles: {
    producer: { device: 0, exec: ['native/build/producer', '2'], expectOutput: /^producer finished successfully$/ },
    consumer: replicate(2, (i) => ({ device: i + 1, exec: ['native/build/consumer', '{index}'], expectOutput: /finished successfully/ })),
  },
});

scenario('native producer, TypeScript consumer', {
  build,
  roles: {
    producer: { device: 0, exec: ['native/build/producer', '1'], expectOutput: /^producer finished successfully$/ },
    consumer: {
      device: 1,
      run: async (ctx) => {
        // The C producer published the handle as handles/event: the TypeScript API reads it as is.
        const event = await ctx.openSharedEvent('event', { from: 'producer' });
        ctx.stream.waitEvent(event);
        ctx.assertBlocked(ctx.stream, 100); // its record is still pending
        await ctx.signal('blocked.0');
        ctx.stream.synchronize();
        ctx.mark('released');
        await ctx.signal('done.0');
        return event.queryStatus();
      },
    },
  },
  verify: (result) => {
    expect(result.role('consumer').value).toBe(EventRecordedStatus.COMPLETE);
    expect(result.role('producer').stdout).toContain('every consumer is blocked: releasing the record');
  },
});
