// Where every workspace package's TypeScript sources are, and how swc compiles them: what lets jest
// (jest.preset.js) and child processes (register.js) run the sources with no build in between.
const fs = require('node:fs');
const path = require('node:path');

const root = path.resolve(__dirname, '../../..');

/** package name -> its src/ directory, for every package under apps/, packages/ and bench/. */
function workspaceSources() {
  const sources = {};
  for (const dir of ['packages', 'apps', 'bench']) {
    const parent = path.join(root, dir);
    const candidates = fs.existsSync(path.join(parent, 'package.json'))
      ? [parent]
      : fs.readdirSync(parent).map((name) => path.join(parent, name));
    for (const pkgDir of candidates) {
      const pkgFile = path.join(pkgDir, 'package.json');
      if (fs.existsSync(pkgFile))
        sources[JSON.parse(fs.readFileSync(pkgFile, 'utf8')).name] = path.join(pkgDir, 'src');
    }
  }
  return sources;
}

/** The repository's .swcrc as options for swc's transform. */
function swcOptions() {
  const options = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
  delete options.$schema;
  return { ...options, swcrc: false };
}

module.exports = { root, workspaceSources, swcOptions };
