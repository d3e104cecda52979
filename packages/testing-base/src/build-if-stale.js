// jest global setups that spawn a package's dist/ (a CLI binary, a worker thread) build it first; this
// skips tsc when dist/ is already newer than everything it is built from, as after `npm test`'s (or
// turbo's) build. A second tsc of the same sources cost 10-20 s per package on the 2-core CI machine.
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

/** Newest (or oldest) mtime in ms of the files under `dir` that `keep` accepts; undefined when none. */
function mtimeOf(dir, keep, pick) {
  let found;
  const visit = (at) => {
    for (const entry of fs.readdirSync(at, { withFileTypes: true })) {
      const file = path.join(at, entry.name);
      if (entry.isDirectory()) visit(file);
      else if (keep(entry.name)) {
        const mtime = fs.statSync(file).mtimeMs;
        found = found === undefined ? mtime : pick(found, mtime);
      }
    }
  };
  if (fs.existsSync(dir)) visit(dir);
  return found;
}

/**
 * True when every .js under `packageDir`/dist is newer than every source under src/ and the tsconfig
 * files it is compiled with (tsc rewrites every output on each build, so a leftover output of a deleted
 * source makes it stale too: a rebuild, never a stale binary).
 */
function isBuilt(packageDir, tsconfig = 'tsconfig.build.json') {
  const oldestOutput = mtimeOf(path.join(packageDir, 'dist'), (name) => name.endsWith('.js'), Math.min);
  if (oldestOutput === undefined) return false;
  const configs = [path.join(packageDir, tsconfig), path.join(packageDir, '../../tsconfig.base.json')];
  const newestInput = Math.max(
    mtimeOf(path.join(packageDir, 'src'), (name) => /\.(ts|js|json)$/.test(name), Math.max) ?? 0,
    ...configs.filter((file) => fs.existsSync(file)).map((file) => fs.statSync(file).mtimeMs),
  );
  return oldestOutput >= newestInput;
}

/** Builds `packageDir` with `tsc -p tsconfig.build.json` unless its dist/ is up to date; says which. */
function buildIfStale(packageDir) {
  if (isBuilt(packageDir)) return false;
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: packageDir,
    stdio: 'inherit',
  });
  return true;
}

module.exports = { buildIfStale, isBuilt };
