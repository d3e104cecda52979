// runBenchmarkInThread starts dist/measuring-thread.js (a Worker cannot load .ts): build it first.
const { execFileSync } = require('node:child_process');

module.exports = () => {
  execFileSync(process.execPath, [require.resolve('typescript/bin/tsc'), '-p', 'tsconfig.build.json'], {
    cwd: __dirname,
    stdio: 'inherit',
  });
};
