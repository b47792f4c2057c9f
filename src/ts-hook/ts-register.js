/**
 * `node -r src/ts-hook/ts-register.js`: lets `require` load TypeScript (.ts, .tsx) through the harness's
 * one transform (src/ts-hook/typescript-transform.js, esbuild's transformSync with a disk cache).
 * Preloaded by every device process and precheck child. With the compiled package only the user's
 * spec files (and what they import) go through it; in a source checkout the harness's own files too.
 * A plain require hook (what `pirates` does), with Node's own source-map support for stack traces.
 */
'use strict';
const fs = require('node:fs');
const { transformTypeScript } = require('./typescript-transform');

process.setSourceMapsEnabled(true);
for (const ext of ['.ts', '.tsx']) {
  if (require.extensions[ext]) continue; // registered already (loaded twice)
  require.extensions[ext] = function compileTypeScript(module, filename) {
    module._compile(transformTypeScript(fs.readFileSync(filename, 'utf8'), filename), filename);
  };
}
