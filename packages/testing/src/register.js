// `node -r @teapot/testing/register main.ts`: runs a process from TypeScript sources as jest does
// (swc compiles on load, every @teapot/* package resolves to its src/), so no build is needed.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');
const { workspaceSources, swcOptions } = require('./workspace');

const sources = workspaceSources();
const swc = swcOptions();

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = /^(@teapot\/[^/]+)(?:\/(.+))?$/.exec(request);
  if (match && sources[match[1]]) request = path.join(sources[match[1]], match[2] ?? 'index');
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...swc, filename });
  module._compile(code, filename);
};
