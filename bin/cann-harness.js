#!/usr/bin/env node
// The `cann-harness` command. TypeScript runs without a build step: register esbuild-register,
// then hand over to src/cli/main.ts.
'use strict';
require('esbuild-register/dist/node').register({ target: `node${process.versions.node.split('.')[0]}` });
require('../src/cli/main.ts')
  .main(process.argv)
  .then((code) => {
    process.exitCode = code;
  });
