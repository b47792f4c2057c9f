// `preset: 'cann-ipc-harness'` in a user's Jest config (see README, "Use it in your repository").
'use strict';
module.exports = require('./dist/src/jest/preset.js').harnessPreset();
