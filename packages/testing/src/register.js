// `node -r @teapot/testing/register main.ts`: runs a process from TypeScript sources as jest does
// (swc compiles on load, every @teapot/* package resolves to its src/), so no build is needed.
const { createHash } = require('node:crypto');
const fs = require('node:fs');
const Module = require('node:module');
const path = require('node:path');
const { transformSync, version } = require('@swc/core');
const { workspaceSources, swcOptions } = require('./workspace');

const sources = workspaceSources();
const swc = swcOptions();
// Every child process compiled every file it loads (a worker: 229 files, a quarter of its start):
// compiled files are kept by a hash of what decides the output, so a changed file is compiled again.
const cacheDir = path.resolve(__dirname, '../../../node_modules/.cache/teapot-register');
const optionsKey = `${version} ${JSON.stringify(swc)}`;

function compile(source, filename) {
  const key = createHash('sha256').update(optionsKey).update(filename).update(source).digest('hex');
  const cached = path.join(cacheDir, `${key}.js`);
  try {
    return fs.readFileSync(cached, 'utf8');
  } catch {
    const { code } = transformSync(source, { ...swc, filename });
    try {
      fs.mkdirSync(cacheDir, { recursive: true });
      // Written aside, then renamed: a process reading the entry never sees half of it.
      const partial = `${cached}.${process.pid}`;
      fs.writeFileSync(partial, code);
      fs.renameSync(partial, cached);
    } catch {
      // a read-only tree compiles every time, as before
    }
    return code;
  }
}

const resolve = Module._resolveFilename;
Module._resolveFilename = function (request, ...rest) {
  const match = /^(@teapot\/[^/]+)(?:\/(.+))?$/.exec(request);
  if (match && sources[match[1]]) request = path.join(sources[match[1]], match[2] ?? 'index');
  return resolve.call(this, request, ...rest);
};

require.extensions['.ts'] = function (module, filename) {
  module._compile(compile(fs.readFileSync(filename, 'utf8'), filename), filename);
};
