// runBenchmarkInThread starts dist/measuring-thread.js (a Worker cannot load .ts): build it first.
const { execFileSync } = require('node:child_process');
const { existsSync } = require('node:fs');
const path = require('node:path');

const build = (cwd) =>
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd,
    stdio: 'inherit',
  });

module.exports = () => {
  // the thread requires @teapot/tokenizer from its dist/ (turbo builds it first; a fresh tree may not have it)
  const tokenizer = path.join(__dirname, '..', 'tokenizer');
  if (!existsSync(path.join(tokenizer, 'dist', 'index.js'))) build(tokenizer);
  build(__dirname);
};
