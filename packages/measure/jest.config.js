module.exports = { ...require('../../jest.preset.js'), globalSetup: '<rootDir>/jest.global-setup.js' };
