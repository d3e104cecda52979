// Types for the dashboard come from the API's own OpenAPI document (built by @teapot/api), never hand copies.
const fs = require('node:fs');
const path = require('node:path');

async function main() {
  const { default: openapiTS, astToString } = await import('openapi-typescript');
  const documentPath = require.resolve('@teapot/api/openapi.json');
  const document = JSON.parse(fs.readFileSync(documentPath, 'utf8'));
  const out = path.join(__dirname, '..', 'src', 'generated', 'api.ts');
  fs.mkdirSync(path.dirname(out), { recursive: true });
  const source = astToString(await openapiTS(document, { rootTypes: false }));
  fs.writeFileSync(out, `// Generated from @teapot/api/openapi.json by scripts/api-types.js.\n${source}`);
}

main().catch((error) => {
  process.stderr.write(`${error.stack ?? error}\n`);
  process.exit(1);
});
