/**
 * `npm run build:js` (after tsc): bundles the device process of the compiled package into one file,
 * dist/harness/device-process.bundle.js (entry harness/device-bundle.ts). A device process then
 * compiles one file instead of ~60 modules of dist/ (see docs/architecture.md, "What a device process loads").
 * Only our own code is bundled: npm packages stay ordinary requires from node_modules (koffi is
 * native, piscina finds its worker script by __dirname, and most are loaded on first use only).
 * DEVICE_PROCESS_BUNDLE tells src/paths that its __dirname is the bundle's folder (dist/harness).
 * Plain JavaScript on esbuild's JS API: runs in `prepare`/`prepack` without a TypeScript hook.
 */
'use strict';
const path = require('node:path');
const esbuild = require('esbuild');

const root = path.resolve(__dirname, '..', '..');
const outfile = path.join(root, 'dist', 'harness', 'device-process.bundle.js');

const result = esbuild.buildSync({
  entryPoints: [path.join(root, 'harness', 'device-bundle.ts')],
  outfile,
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: `node${process.versions.node.split('.')[0]}`,
  packages: 'external',
  define: { DEVICE_PROCESS_BUNDLE: 'true' },
  metafile: process.argv.includes('--metafile'),
  logLevel: 'warning',
});
if (result.errors.length || result.warnings.length) process.exit(1);
if (result.metafile) process.stdout.write(esbuild.analyzeMetafileSync(result.metafile, { verbose: false }));
