// The binary tests spawn dist/main.js: build it (and the packages it requires whose dist/ is older
// than their sources), unless the build step before the tests already did.
const path = require('node:path');
const { buildIfStale } = require('@teapot/testing-base/build-if-stale');

module.exports = () => {
  // measure's measuring thread always runs from its dist/, even when the tests load measure's sources
  for (const dependency of ['tokenizer', 'measure', 'simulator'])
    buildIfStale(path.join(__dirname, '..', dependency));
  buildIfStale(__dirname);
};
