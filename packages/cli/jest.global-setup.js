// The binary tests spawn dist/main.js: build it (and, on a fresh tree, the packages it requires).
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const tsc = require.resolve('typescript/bin/tsc');
const build = (dir) =>
  execFileSync(process.execPath, [tsc, '-p', 'tsconfig.build.json'], { cwd: dir, stdio: 'inherit' });

module.exports = () => {
  // measure's measuring thread always runs from its dist/, even when the tests load measure's sources
  for (const [dependency, file] of [
    ['tokenizer', 'index.js'],
    ['measure', 'measuring-thread.js'],
    ['simulator', 'index.js'],
  ]) {
    const dir = path.join(__dirname, '..', dependency);
    if (!existsSync(path.join(dir, 'dist', file))) build(dir);
  }
  build(__dirname);
};
