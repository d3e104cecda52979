#!/usr/bin/env node
// Runs the pinned pnpm (see package.json "packageManager") whether or not the machine has one:
// a fresh machine needs only Node and npm.
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '..');
const pinned = require(path.join(root, 'package.json')).packageManager.split('@')[1];
// npm's bin link: pnpm 12 ships a native binary there, or a placeholder that runs it through Node
// when install scripts were blocked; either way it is executed directly, not through `node`.
const localBin = path.join(
  root,
  '.tools',
  'node_modules',
  '.bin',
  process.platform === 'win32' ? 'pnpm.cmd' : 'pnpm',
);

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
  return [localBin];
}

function runPnpm(args) {
  const [cmd, ...pre] = ensurePnpm();
  // turbo looks up the package manager on PATH, so the local pnpm goes first on it.
  const env = {
    ...process.env,
    PATH: [path.dirname(localBin), process.env.PATH].join(path.delimiter),
    TURBO_TELEMETRY_DISABLED: '1',
    DO_NOT_TRACK: '1',
  };
  const options = { stdio: 'inherit', cwd: root, env, shell: process.platform === 'win32' };
  // With install scripts blocked the bin is pnpm's shebang-less placeholder; execvp runs it with sh.
  const res = spawnSync(cmd, [...pre, ...args], options);
  if (res.error) console.error(`[teapot] could not run pnpm: ${res.error.message}`);
  return res.status ?? 1;
}

module.exports = { runPnpm };

if (require.main === module) process.exit(runPnpm(process.argv.slice(2)));
