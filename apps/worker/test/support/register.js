// Lets a child worker process run the TypeScript sources as jest does (jest.preset.js): swc
// compiles on load and every @teapot/* package resolves to its src/, so no build is needed.
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync } = require('@swc/core');

const root = path.resolve(__dirname, '../../../..');
const swcConfig = JSON.parse(fs.readFileSync(path.join(root, '.swcrc'), 'utf8'));
delete swcConfig.$schema;

const sources = {};
for (const dir of ['packages', 'apps']) {
  for (const name of fs.readdirSync(path.join(root, dir))) {
    const pkgFile = path.join(root, dir, name, 'package.json');
    if (fs.existsSync(pkgFile))
      sources[JSON.parse(fs.readFileSync(pkgFile, 'utf8')).name] = path.join(root, dir, name, 'src');
  }
}

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = /^(@teapot\/[^/]+)(?:\/(.+))?$/.exec(request);
  if (match && sources[match[1]]) request = path.join(sources[match[1]], match[2] ?? 'index');
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  const { code } = transformSync(fs.readFileSync(filename, 'utf8'), { ...swcConfig, filename, swcrc: false });
  module._compile(code, filename);
};
