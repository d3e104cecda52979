#!/usr/bin/env node
// Runs the pinned pnpm (see package.json "packageManager") whether or not the machine has one:
// a fresh machine needs only Node and npm.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const pinned = require(path.join(root, 'package.json')).packageManager.split('@')[1];
const localBin = path.join(root, '.tools', 'node_modules', 'pnpm', 'bin', 'pnpm.cjs');

function globalPnpmMatches() {
  const probe = spawnSync('pnpm', ['--version'], { encoding: 'utf8', shell: process.platform === 'win32' });
  return probe.status === 0 && probe.stdout.trim() === pinned;
}

function ensurePnpm() {
  if (globalPnpmMatches()) return ['pnpm'];
  if (!fs.existsSync(localBin)) {
    console.error(`[teapot] installing pnpm ${pinned} into .tools/ (once)`);
    const res = spawnSync(
      'npm',
      [
        'install',
        '--no-save',
        '--no-audit',
        '--no-fund',
        '--prefix',
        path.join(root, '.tools'),
        `pnpm@${pinned}`,
      ],
      { stdio: 'inherit', shell: process.platform === 'win32' },
    );
    if (res.status !== 0) process.exit(res.status ?? 1);
  }
  return [process.execPath, localBin];
}

function runPnpm(args) {
  const [cmd, ...pre] = ensurePnpm();
  const env = { ...process.env, TURBO_TELEMETRY_DISABLED: '1', DO_NOT_TRACK: '1' };
  const res = spawnSync(cmd, [...pre, ...args], { stdio: 'inherit', cwd: root, env });
  return res.status ?? 1;
}

module.exports = { runPnpm };

if (require.main === module) process.exit(runPnpm(process.argv.slice(2)));
