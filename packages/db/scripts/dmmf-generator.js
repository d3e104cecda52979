#!/usr/bin/env node
// A Prisma generator that writes the schema's DMMF (Prisma's own parse of the schema) as JSON to
// its `output`, so the drift test compares the database with what Prisma itself understood.
// Speaks the generator protocol: JSON-RPC requests on stdin, responses on stderr, one per line.
const fs = require('node:fs');
const readline = require('node:readline');

function respond(message) {
  process.stderr.write(JSON.stringify({ jsonrpc: '2.0', ...message }) + '\n');
}

readline.createInterface({ input: process.stdin }).on('line', (line) => {
  const request = JSON.parse(line);
  if (request.method === 'getManifest') {
    respond({ id: request.id, result: { manifest: { prettyName: 'DMMF JSON', requiresGenerators: [] } } });
  } else if (request.method === 'generate') {
    try {
      const { generator, dmmf } = request.params;
      fs.writeFileSync(generator.output.value, JSON.stringify(dmmf.datamodel, null, 1));
      respond({ id: request.id, result: null });
    } catch (err) {
      respond({
        id: request.id,
        error: { code: -32000, message: String(err && err.message), data: { stack: err && err.stack } },
      });
    }
  }
});
