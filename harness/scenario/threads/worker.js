// Piscina worker entry. Worker threads do not inherit `-r`, so load the device processes'
// TypeScript require hook here (src/ts-hook/ts-register.js), then the thread implementation:
// entry.ts in a source checkout, entry.js in the compiled package. A thread has a
// module cache of its own: in a source checkout it is seeded from the device processes' cached
// bundle, as device-launch.js does (measured: 0.3 s less CPU for a role of 4 threads than module
// by module); without a current bundle, and in the compiled package, modules load one by one.
require('../../../src/ts-hook/ts-register.js');
if (require('node:fs').existsSync(`${__dirname}/entry.ts`)) require('../../../src/ts-hook/device-bundle-cache').loadDeviceBundle();
module.exports = require('./entry').runScenarioThread;
