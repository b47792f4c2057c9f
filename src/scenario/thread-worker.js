// Piscina worker entry. Worker threads do not inherit `-r esbuild-register`, so register it here
// and hand over to the TypeScript implementation.
require('esbuild-register/dist/node').register({ target: `node${process.versions.node.split('.')[0]}` });
module.exports = require('./thread-entry.ts').runScenarioThread;
