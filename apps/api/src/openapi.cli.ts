import { writeFileSync } from 'node:fs';
import { offlineOpenApiDocument } from './openapi';

/** Writes the OpenAPI document to the path given; the dashboard's types are generated from it. */
async function main(): Promise<void> {
  const out = process.argv[2];
  if (!out) throw new Error('usage: node dist/openapi.cli.js <out.json>');
  writeFileSync(out, `${JSON.stringify(await offlineOpenApiDocument(), null, 2)}\n`);
}

main().catch((error: unknown) => {
  process.stderr.write(`${error instanceof Error ? error.stack : String(error)}\n`);
  process.exit(1);
});
