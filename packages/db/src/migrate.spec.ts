import { createHash } from 'node:crypto';
import { mkdtempSync, mkdirSync, writeFileSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Client } from 'pg';
import { createDatabase } from './client';
import { assertMigrated, DatabaseNotMigratedError, migrate, MIGRATIONS_DIR, readMigrations } from './migrate';
import { createTestDatabase, type TestDatabase } from './testing';

async function query<T extends object>(url: string, sql: string): Promise<T[]> {
  const client = new Client({ connectionString: url });
  await client.connect();
  try {
    return (await client.query<T>(sql)).rows;
  } finally {
    await client.end();
  }
}

describe('migrate', () => {
  let testDb: TestDatabase;
  beforeAll(async () => {
    testDb = await createTestDatabase(undefined, { migrated: 'fresh' });
  });
  afterAll(() => testDb.drop());

  it('records every migration the way Prisma does', async () => {
    const rows = await query<Record<string, unknown>>(
      testDb.url,
      'SELECT * FROM "_prisma_migrations" ORDER BY migration_name',
    );
    const files = readMigrations();
    expect(rows.map((r) => r.migration_name)).toEqual(files.map((f) => f.name));
    for (const [i, row] of rows.entries()) {
      const sha = createHash('sha256')
        .update(readFileSync(path.join(MIGRATIONS_DIR, files[i].name, 'migration.sql')))
        .digest('hex');
      expect(row.checksum).toBe(sha);
      expect(row.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
      expect(row.finished_at).toBeInstanceOf(Date);
      expect((row.finished_at as Date).getTime()).toBeGreaterThanOrEqual((row.started_at as Date).getTime());
      expect(row.applied_steps_count).toBe(1);
      expect(row.logs).toBeNull();
      expect(row.rolled_back_at).toBeNull();
    }
    const columns = await query<{
      column_name: string;
      data_type: string;
      max: number | null;
      is_nullable: string;
      column_default: string | null;
    }>(
      testDb.url,
      `SELECT column_name, data_type, character_maximum_length AS max, is_nullable, column_default
         FROM information_schema.columns WHERE table_name = '_prisma_migrations' ORDER BY ordinal_position`,
    );
    expect(columns).toEqual([
      { column_name: 'id', data_type: 'character varying', max: 36, is_nullable: 'NO', column_default: null },
      {
        column_name: 'checksum',
        data_type: 'character varying',
        max: 64,
        is_nullable: 'NO',
        column_default: null,
      },
      {
        column_name: 'finished_at',
        data_type: 'timestamp with time zone',
        max: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'migration_name',
        data_type: 'character varying',
        max: 255,
        is_nullable: 'NO',
        column_default: null,
      },
      { column_name: 'logs', data_type: 'text', max: null, is_nullable: 'YES', column_default: null },
      {
        column_name: 'rolled_back_at',
        data_type: 'timestamp with time zone',
        max: null,
        is_nullable: 'YES',
        column_default: null,
      },
      {
        column_name: 'started_at',
        data_type: 'timestamp with time zone',
        max: null,
        is_nullable: 'NO',
        column_default: 'now()',
      },
      {
        column_name: 'applied_steps_count',
        data_type: 'integer',
        max: null,
        is_nullable: 'NO',
        column_default: '0',
      },
    ]);
  });

  it('is a no-op the second time', async () => {
    const before = await query(testDb.url, 'SELECT * FROM "_prisma_migrations" ORDER BY migration_name');
    const result = await migrate(testDb.url);
    expect(result.applied).toEqual([]);
    expect(result.alreadyApplied).toEqual(readMigrations().map((f) => f.name));
    expect(await query(testDb.url, 'SELECT * FROM "_prisma_migrations" ORDER BY migration_name')).toEqual(
      before,
    );
  });

  it('gives a working Prisma client', async () => {
    const db = createDatabase(testDb.url);
    try {
      const endpoint = await db.prisma.endpoint.create({
        data: { name: 'e1', baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'm' },
      });
      expect(endpoint.tags).toEqual([]);
      expect(endpoint.updatedAt).toBeInstanceOf(Date);
      expect(await db.prisma.endpoint.count()).toBe(1);
    } finally {
      await db.close();
    }
  });

  describe('with its own migrations folder', () => {
    let dir: string;
    let scratch: TestDatabase;
    beforeEach(async () => {
      dir = mkdtempSync(path.join(tmpdir(), 'teapot-migrations-'));
      scratch = await createTestDatabase();
    });
    afterEach(() => scratch.drop());

    function addMigration(name: string, sql: string): void {
      mkdirSync(path.join(dir, name));
      writeFileSync(path.join(dir, name, 'migration.sql'), sql);
    }

    it('refuses an applied migration whose file changed', async () => {
      addMigration('20990101000000_a', 'CREATE TABLE drift_a (id int);');
      await migrate(scratch.url, { migrationsDir: dir });
      writeFileSync(path.join(dir, '20990101000000_a', 'migration.sql'), 'CREATE TABLE drift_a (id bigint);');
      await expect(migrate(scratch.url, { migrationsDir: dir })).rejects.toThrow(
        /20990101000000_a was modified after it was applied/,
      );
    });

    it('rolls a failing migration back whole and records nothing for it', async () => {
      addMigration('20990101000000_a', 'CREATE TABLE ok_a (id int);');
      addMigration('20990102000000_b', 'CREATE TABLE half_b (id int);\nSELECT no_such_column FROM ok_a;');
      await expect(migrate(scratch.url, { migrationsDir: dir })).rejects.toThrow(
        /20990102000000_b failed and was rolled back/,
      );
      const tables = await query<{ table_name: string }>(
        scratch.url,
        `SELECT table_name FROM information_schema.tables WHERE table_name IN ('ok_a', 'half_b')`,
      );
      expect(tables.map((t) => t.table_name)).toEqual(['ok_a']);
      const names = await query<{ migration_name: string }>(
        scratch.url,
        `SELECT migration_name FROM "_prisma_migrations" WHERE migration_name LIKE '2099%'`,
      );
      expect(names.map((n) => n.migration_name)).toEqual(['20990101000000_a']);
    });

    it('lets two processes migrate at once without applying anything twice', async () => {
      addMigration('20990101000000_a', 'CREATE TABLE race_a (id int); SELECT pg_sleep(0.2);');
      const [one, two] = await Promise.all([
        migrate(scratch.url, { migrationsDir: dir }),
        migrate(scratch.url, { migrationsDir: dir }),
      ]);
      expect([...one.applied, ...two.applied]).toEqual(['20990101000000_a']);
      const rows = await query(
        scratch.url,
        `SELECT 1 FROM "_prisma_migrations" WHERE migration_name = '20990101000000_a'`,
      );
      expect(rows).toHaveLength(1);
    });
  });

  it('says how to start Postgres when it is unreachable', async () => {
    await expect(migrate('postgresql://postgres@127.0.0.1:1/nowhere')).rejects.toThrow(
      /unreachable \(ECONNREFUSED\): start it, e.g. docker compose up -d postgres/,
    );
  });
});

describe('assertMigrated', () => {
  it('says how to migrate an empty database, then one missing a migration, and passes a migrated one', async () => {
    const empty = await createTestDatabase(undefined, { migrated: false });
    const client = new Client({ connectionString: empty.url });
    await client.connect();
    try {
      const refusal = await assertMigrated(client, empty.url).catch((error: unknown) => error);
      expect(refusal).toBeInstanceOf(DatabaseNotMigratedError);
      expect((refusal as Error).message).toContain('it has no teapot tables');
      expect((refusal as Error).message).toContain('npm run db:migrate');

      const dir = mkdtempSync(path.join(tmpdir(), 'teapot-migrations-'));
      for (const file of readMigrations()) {
        mkdirSync(path.join(dir, file.name));
        writeFileSync(path.join(dir, file.name, 'migration.sql'), file.sql);
      }
      await migrate(empty.url, { migrationsDir: dir });
      await expect(assertMigrated(client, empty.url, dir)).resolves.toBeUndefined();
      mkdirSync(path.join(dir, '20991231000000_later'));
      writeFileSync(path.join(dir, '20991231000000_later', 'migration.sql'), 'SELECT 1;');
      await expect(assertMigrated(client, empty.url, dir)).rejects.toThrow(
        /1 migration\(s\) are not applied \(20991231000000_later\)/,
      );
    } finally {
      await client.end();
      await empty.drop();
    }
  });
});
