// Shared jest setup: swc compiles TypeScript (type checking is the `typecheck` task's job), with the
// intrinsics bound module-locally (packages/testing/src/jest-transform.js says why), and workspace
// packages resolve to their sources so a test never needs a stale build.
const { workspaceSources, swcOptions } = require('./packages/testing/src/workspace');

const moduleNameMapper = {};
for (const [name, src] of Object.entries(workspaceSources())) {
  moduleNameMapper[`^${name}$`] = `${src}/index.ts`;
  moduleNameMapper[`^${name}/(.*)$`] = `${src}/$1`;
}

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': [require.resolve('./packages/testing/src/jest-transform'), swcOptions()] },
  moduleNameMapper,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Tests talk to real Postgres, Redis and HTTP streams on a 2-core machine: 5 s is too tight under load.
  testTimeout: 30_000,
};
