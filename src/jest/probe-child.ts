/** `node -r src/ts-hook/ts-register.js probe-child.ts (or .js)`: prints the precheck result as one JSON line. */
import { probeDevices } from './probe';

probeDevices()
  .then((r) => process.stdout.write(`${JSON.stringify(r)}\n`))
  .catch((e: Error) => {
    process.stderr.write(`${e.stack ?? e.message}\n`);
    process.exit(1);
  });
