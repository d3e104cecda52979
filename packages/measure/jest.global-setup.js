// runBenchmarkInThread starts dist/measuring-thread.js (a Worker cannot load .ts): build it first,
// unless the build step before the tests already did.
const { buildIfStale } = require('@teapot/testing-base/build-if-stale');

module.exports = () => {
  buildIfStale(__dirname);
};
