/**
 * Jest globalSetup: probe the devices once, before any spec file is collected, and pass the result
 * to the test workers in CANN_HARNESS_PROBE (workers inherit this process's environment).
 * A probe already in the environment (set by `cann-harness run`, or by a test) is reused.
 */
import { PROBE_ENV, parseProbe, probeDevices, requiredDevices } from './probe';

export default async function globalSetup(): Promise<void> {
  requiredDevices(); // a malformed CANN_HARNESS_REQUIRE_DEVICES fails the run up front
  const existing = process.env[PROBE_ENV];
  if (existing) {
    parseProbe(existing);
    return;
  }
  process.env[PROBE_ENV] = JSON.stringify(await probeDevices());
}
