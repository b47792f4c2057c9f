/**
 * A device process gets its settings through one channel, its job: worker threads take the mode
 * from their main thread, never from the environment. Here the main thread (which loaded the
 * job's library) turns CANN_HARNESS_MODE to the other mode before its threads start, so a thread
 * that read the environment would load the other library (or, with no CANN installed, fail to).
 */
import { scenario } from '../src';

const MODE_VARIABLE = 'CANN_HARNESS_MODE';

scenario('worker threads load the library of their job, not of CANN_HARNESS_MODE', {
  audit: {
    expectSurvive: ['wait-noop', 'record-instant', 'wait-latest', 'sync-noop'],
    reason: 'tests which library a worker thread loads: it makes no stream call for a mutant to break',
  },
  roles: {
    solo: {
      device: 0,
      threads: 2,
      // Runs before the threads start (the role's threads are created after its body's first step).
      run: (ctx) => {
        const mode = ctx.acl.library.mode;
        process.env[MODE_VARIABLE] = mode === 'stub' ? 'real' : 'stub';
        return mode;
      },
      thread: (ctx) => ctx.acl.library.mode,
    },
  },
  verify: (result) => {
    expect(result).toHaveAllRolesSucceeded();
    const solo = result.role('solo');
    expect(solo.threadValues).toEqual([solo.value, solo.value]);
  },
});
