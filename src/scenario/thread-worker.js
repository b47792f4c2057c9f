// Piscina worker entry. Worker threads do not inherit `-r`, so load the device processes'
// TypeScript loader here (esbuild-register with cached transforms, see harness/ts-register.js)
// and hand over to the TypeScript implementation.
require('../../harness/ts-register.js');
module.exports = require('./thread-entry.ts').runScenarioThread;
