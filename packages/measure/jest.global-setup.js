// runBenchmarkInThread starts dist/measuring-thread.js (a Worker cannot load .ts): build it first,
// unless the build step before the tests already did. The thread requires @teapot/tokenizer from its
// dist/ too.
const path = require('node:path');
const { buildIfStale } = require('@teapot/testing-base/build-if-stale');

module.exports = () => {
  buildIfStale(path.join(__dirname, '..', 'tokenizer'));
  buildIfStale(__dirname);
};
