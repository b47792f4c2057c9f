/**
 * The stub's device count in tests. A test of what a run reports expects the count this run
 * actually has; a test of device skips gives its child a stub with fewer devices than its fixtures
 * need, since at 64 (the most a scenario may declare, MAX_DEVICES) no scenario is ever skipped.
 */

/** The stub's device count that children of this test run inherit (the stub's default is 8). */
export const STUB_DEVICES = Number(process.env.ACL_STUB_DEVICE_COUNT || 8);

/** A child environment whose stub has 8 devices: fewer than the skip fixtures need (9, 12, 64). */
export const EIGHT_DEVICES: Record<string, string> = { ACL_STUB_DEVICE_COUNT: '8' };
