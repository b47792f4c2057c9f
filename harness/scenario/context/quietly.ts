/** Runs a clean-up step whose failure must not hide the failure (or result) that led to it. */
export function quietly(fn: () => unknown): void {
  try {
    fn();
  } catch {
    /* clean-up after a failure: the failure is what matters */
  }
}
