// Piscina worker entry. Worker threads do not inherit `-r`, so load the device processes'
// TypeScript require hook here (src/ts-hook/ts-register.js), then the thread implementation:
// thread-entry.ts in a source checkout, thread-entry.js in the compiled package.
require('../../src/ts-hook/ts-register.js');
module.exports = require('./thread-entry').runScenarioThread;
