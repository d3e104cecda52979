// @swc/jest, plus one line per module that binds the intrinsics it uses (Math, Number, typed arrays...)
// to module-local variables. Jest runs every module in a vm context, where each read of a global goes
// through the context's interceptor and is never optimized: in a loop, `Math.imul` alone made
// mulberry32 45x slower under jest than under node (17 s against 0.37 s for 3M draws), and the
// bootstrap tests spent 150 s of CPU on it. The bindings hold the same objects, so spies and
// `jest.spyOn(Math, ...)` still see every call; timers, Date and performance are left alone, since
// fake timers replace them after modules load.
const { createTransformer: createSwcTransformer } = require('@swc/jest');

const INTRINSICS = [
  'Math',
  'Number',
  'Array',
  'Object',
  'String',
  'BigInt',
  'Symbol',
  'Map',
  'Set',
  'JSON',
  'Reflect',
  'Error',
  'RangeError',
  'TypeError',
  'Float64Array',
  'Float32Array',
  'Int32Array',
  'Uint32Array',
  'Int16Array',
  'Uint16Array',
  'Int8Array',
  'Uint8Array',
  'BigInt64Array',
  'BigUint64Array',
];

/** Bumped when localIntrinsics changes, so jest's transform cache does not serve older output. */
const VERSION = 'local-intrinsics-1';

/** True when the module declares `name` itself (a local binding would clash with it). */
function declares(code, name) {
  return (
    new RegExp(`\\b(?:var|let|const|function|class)\\s+${name}\\b`).test(code) ||
    new RegExp(`\\b(?:var|let|const)\\s*[{[][^=;]*\\b${name}\\b`).test(code)
  );
}

/** `code` with the intrinsics it reads bound locally, on its first line (no line moves). */
function localIntrinsics(code) {
  const used = INTRINSICS.filter((name) => code.includes(name) && !declares(code, name));
  if (used.length === 0) return code;
  const binding = `var ${used.map((name) => `${name} = globalThis.${name}`).join(', ')};`;
  // After a shebang line and the "use strict" directive, both of which must stay first.
  const head = /^(#![^\n]*\n)?(\s*(["'])use strict\3;)?/.exec(code)[0];
  return `${head}${head.endsWith(';') ? ' ' : ''}${binding}${head.endsWith('\n') || !head ? ' ' : ''}${code.slice(head.length)}`;
}

function createTransformer(options) {
  const swc = createSwcTransformer(options);
  return {
    ...swc,
    process(src, filename, jestOptions) {
      const out = swc.process(src, filename, jestOptions);
      return { ...out, code: localIntrinsics(out.code) };
    },
    async processAsync(src, filename, jestOptions) {
      const out = await swc.processAsync(src, filename, jestOptions);
      return { ...out, code: localIntrinsics(out.code) };
    },
    getCacheKey(...args) {
      return `${swc.getCacheKey(...args)}-${VERSION}`;
    },
  };
}

module.exports = { createTransformer, localIntrinsics };
