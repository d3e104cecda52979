import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createTestDatabase, type TestDatabase } from '../testing';
import { SCHEMA_DIR } from './dmmf';
import { schemaDrift } from '.';

/** A copy of the schema folder with each file's text passed through `edits[file]`, if any. */
function editedSchema(edits: Record<string, (schema: string) => string>): string {
  const dir = mkdtempSync(path.join(tmpdir(), 'teapot-drift-'));
  for (const file of readdirSync(SCHEMA_DIR)) {
    const schema = readFileSync(path.join(SCHEMA_DIR, file), 'utf8');
    writeFileSync(path.join(dir, file), edits[file]?.(schema) ?? schema);
  }
  return dir;
}

describe('schema drift', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    // migrated by migrate() itself, not copied from the template: this is the check of the migrations
    testDb = await createTestDatabase(undefined, { migrated: 'fresh' });
  });
  afterAll(() => testDb.drop());

  it('finds none between prisma/schema and the migrated database', async () => {
    expect(await schemaDrift(testDb.url)).toEqual([]);
  });

  it('notices a schema edit that no migration made', async () => {
    const edited = editedSchema({
      'endpoints.prisma': (schema) =>
        schema
          .replace(/\n( {2}note +String\?)/, '\n$1\n  rack String?')
          .replace('@@index([gpuModel])', '@@index([gpuModel], type: Hash)')
          .replace(/enum ApiKind \{\n {2}chat\n/, 'enum ApiKind {\n  chat\n  embeddings\n'),
      // the first SetNull relation there is runs.profile
      'runs.prisma': (schema) => schema.replace('onDelete: SetNull)', 'onDelete: Cascade)'),
    });
    expect((await schemaDrift(testDb.url, { schemaDir: edited })).sort()).toEqual(
      [
        '- columns: serving_configs.rack text',
        '- enums: ApiKind: chat, embeddings, completions',
        '+ enums: ApiKind: chat, completions',
        '- foreignKeys: runs.runs_profile_id_fkey (profile_id) -> profiles(id) ON DELETE CASCADE ON UPDATE CASCADE',
        '+ foreignKeys: runs.runs_profile_id_fkey (profile_id) -> profiles(id) ON DELETE SET NULL ON UPDATE CASCADE',
        '- indexes: serving_configs index serving_configs_gpu_model_idx USING hash (gpu_model)',
        '+ indexes: serving_configs index serving_configs_gpu_model_idx USING btree (gpu_model)',
      ].sort(),
    );
  });

  it('notices a database change that the schema does not declare', async () => {
    const altered = await createTestDatabase();
    const client = new Client({ connectionString: altered.url });
    await client.connect();
    try {
      await client.query('ALTER TABLE run_requests ALTER COLUMN output_tokens TYPE bigint');
      await client.query('ALTER TABLE runs ALTER COLUMN attempts DROP DEFAULT');
      await client.query('CREATE INDEX run_requests_outcome_idx ON run_requests (outcome)');
      await client.query('ALTER TABLE run_requests ADD CONSTRAINT positive_chunks CHECK (chunk_count >= 0)');
      expect((await schemaDrift(altered.url)).sort()).toEqual(
        [
          '+ columns: run_requests.output_tokens bigint NOT NULL',
          '- columns: run_requests.output_tokens integer NOT NULL',
          '+ columns: runs.attempts integer NOT NULL',
          '- columns: runs.attempts integer NOT NULL DEFAULT 0',
          '+ indexes: run_requests index run_requests_outcome_idx USING btree (outcome)',
          '+ constraints: run_requests.positive_chunks CHECK ((chunk_count >= 0))',
        ].sort(),
      );
    } finally {
      await client.end();
      await altered.drop();
    }
  });
});
