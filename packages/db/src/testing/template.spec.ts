import { Client } from 'pg';
import { readMigrations } from '../migrate';
import { createTestDatabase, type TestDatabase } from '.';

async function migrationRows(url: string): Promise<Array<{ id: string; migration_name: string }>> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    const { rows } = await client.query<{ id: string; migration_name: string }>(
      'SELECT id, migration_name FROM "_prisma_migrations" ORDER BY migration_name',
    );
    return rows;
  } finally {
    await client.end();
  }
}

// The suite makes a database per test file: copying one migrated template instead of migrating each
// is what keeps that cheap. If this fails, every test file pays for the migrations again.
describe('test databases', () => {
  const made: TestDatabase[] = [];
  afterAll(async () => {
    for (const db of made) await db.drop();
  });

  it('are copies of one migrated template, not migrated one by one', async () => {
    const [one, two] = await Promise.all([createTestDatabase(), createTestDatabase()]);
    made.push(one, two);
    const [rowsOne, rowsTwo] = await Promise.all([migrationRows(one.url), migrationRows(two.url)]);
    expect(rowsOne.map((row) => row.migration_name)).toEqual(readMigrations().map((file) => file.name));
    // migrate() gives every row a new random id: equal ids mean both were copied from one database.
    expect(rowsTwo).toEqual(rowsOne);
  });

  it("with migrated: 'fresh', are migrated by migrate() itself", async () => {
    const [copied, fresh] = await Promise.all([
      createTestDatabase(),
      createTestDatabase(undefined, { migrated: 'fresh' }),
    ]);
    made.push(copied, fresh);
    const [copiedRows, freshRows] = await Promise.all([migrationRows(copied.url), migrationRows(fresh.url)]);
    expect(freshRows.map((row) => row.migration_name)).toEqual(copiedRows.map((row) => row.migration_name));
    expect(freshRows.map((row) => row.id)).not.toContain(copiedRows[0].id);
  });
});
