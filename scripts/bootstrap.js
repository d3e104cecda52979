#!/usr/bin/env node
// Everything a fresh clone needs before it can build: the pinned pnpm, the workspace's packages
// (from the lockfile) and the generated Prisma client. Idempotent and quick when nothing changed.
const { runPnpm } = require('./pnpm');

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  console.error(`[teapot] Node ${process.versions.node} is too old: teapot needs Node >= 20.19.`);
  process.exit(1);
}

const frozen = process.env.CI ? ['--frozen-lockfile'] : [];
let status = runPnpm(['install', '--prefer-offline', ...frozen]);
if (status !== 0) process.exit(status);
status = runPnpm(['exec', 'turbo', 'run', 'generate', '--output-logs=errors-only']);
process.exit(status);
