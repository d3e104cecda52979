// The browser test boots the API, a simulator and chromium: more than the default 30 s.
module.exports = { ...require('../../jest.preset.js'), testTimeout: 120_000 };
