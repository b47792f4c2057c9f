/**
 * Entry of a device process in a source checkout (src/paths, DEVICE_PROCESS_SCRIPT): seeds
 * require.cache with the cached bundle of the harness's modules (src/ts-hook/device-bundle-cache.js),
 * then runs harness/device-process.ts, from the bundle or, without one, module by module through the
 * TypeScript hook. The compiled package runs its own bundle instead (dist/harness/device-process.bundle.js).
 */
'use strict';
require('../src/ts-hook/device-bundle-cache').loadDeviceBundle();
require('./device-process.ts');
