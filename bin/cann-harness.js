#!/usr/bin/env node
// The `cann-harness` command. The installed package runs its compiled JavaScript (dist/); a source
// checkout (src/ present) runs the TypeScript sources through the harness's require hook.
'use strict';
const fs = require('node:fs');
const path = require('node:path');

const fromSource = fs.existsSync(path.join(__dirname, '..', 'src', 'cli', 'main.ts'));
if (fromSource) require('../src/ts-hook/ts-register.js');
require(fromSource ? '../src/cli/main.ts' : '../dist/src/cli/main.js')
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
