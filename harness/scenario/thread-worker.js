// Piscina worker entry. Worker threads do not inherit `-r`, so load the device processes'
// TypeScript require hook here (harness/ts-register.js), then the thread implementation:
// thread-entry.ts in a source checkout, thread-entry.js in the compiled package.
require('../ts-register.js');
module.exports = require('./thread-entry').runScenarioThread;
