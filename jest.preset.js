// Shared jest setup: swc compiles TypeScript (type checking is the `typecheck` task's job), and
// workspace packages resolve to their sources so a test never needs a stale build.
const path = require('node:path');
const fs = require('node:fs');

const root = __dirname;
const moduleNameMapper = {};
for (const dir of ['packages', 'apps']) {
  for (const name of fs.readdirSync(path.join(root, dir))) {
    const pkgFile = path.join(root, dir, name, 'package.json');
    if (!fs.existsSync(pkgFile)) continue;
    const pkg = JSON.parse(fs.readFileSync(pkgFile, 'utf8'));
    const src = path.join(root, dir, name, 'src');
    moduleNameMapper[`^${pkg.name}$`] = path.join(src, 'index.ts');
    moduleNameMapper[`^${pkg.name}/(.*)$`] = path.join(src, '$1');
  }
}

const swcConfig = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcConfig.$schema;

module.exports = {
  testEnvironment: 'node',
  transform: { '^.+\\.ts$': ['@swc/jest', { ...swcConfig, swcrc: false }] },
  moduleNameMapper,
  testMatch: ['<rootDir>/src/**/*.spec.ts', '<rootDir>/test/**/*.spec.ts'],
  moduleFileExtensions: ['ts', 'js', 'json'],
  // Tests talk to real Postgres, Redis and HTTP streams on a 2-core machine: 5 s is too tight under load.
  testTimeout: 30_000,
};
