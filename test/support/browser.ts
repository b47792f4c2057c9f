/**
 * Test helper: the system's Chromium (Debian's `chromium` package on CI; `.ci/run` installs it),
 * driven by playwright-core, which never downloads a browser of its own. Tests that need it are
 * reported skipped, with this reason, where none is found.
 */
import { accessSync, constants } from 'node:fs';
import * as path from 'node:path';

const NAMES = ['chromium', 'chromium-browser', 'google-chrome-stable', 'google-chrome'];

/** The first Chromium on PATH, or null. */
export function findChromium(env: NodeJS.ProcessEnv = process.env): string | null {
  for (const dir of (env.PATH ?? '').split(path.delimiter).filter(Boolean)) {
    for (const name of NAMES) {
      const file = path.join(dir, name);
      try {
        accessSync(file, constants.X_OK);
        return file;
      } catch {
        // not here
      }
    }
  }
  return null;
}

export const NO_BROWSER_REASON = `no Chromium on PATH (looked for ${NAMES.join(', ')}): install it (Debian: apt-get install chromium)`;
