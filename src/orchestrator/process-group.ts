/**
 * Every child leads its own process group (spawned with detached: true, so pgid == pid); signalling
 * the negative pid reaches the child and everything it started.
 */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ESRCH') return false; // group already empty
    throw e;
  }
}
