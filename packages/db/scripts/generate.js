#!/usr/bin/env node
// `prisma generate` never needs the native schema engine, but the CLI tries to download it unless
// PRISMA_SCHEMA_ENGINE_BINARY names an existing file. Point it at node itself so generation runs
// offline (air-gapped clusters, this project's CI) and no engine is ever fetched.
const { spawnSync } = require('node:child_process');
const path = require('node:path');

const env = { ...process.env, PRISMA_HIDE_UPDATE_MESSAGE: '1', CHECKPOINT_DISABLE: '1' };
env.PRISMA_SCHEMA_ENGINE_BINARY ??= process.execPath;
const schema = path.resolve(__dirname, '../../../prisma/schema');
const prismaCli = require.resolve('prisma/build/index.js');
const res = spawnSync(process.execPath, [prismaCli, 'generate', '--schema', schema], {
  stdio: 'inherit',
  env,
});
process.exit(res.status ?? 1);
