import { randomBytes } from 'node:crypto';
import { createDatabase, type CreateDatabaseOptions, type Database } from '../client';
import { connect, dropDatabase, ensureDatabase, quoteIdent, splitDatabaseUrl } from '../connection';
import { migrate } from '../migrate';
import { migratedTemplate } from './template';

export interface TestDatabase {
  /** Connection string of the new, migrated database. */
  url: string;
  /** Terminates its connections and drops it. */
  drop(): Promise<void>;
}

const DEFAULT_SERVER_URL = 'postgresql://postgres@127.0.0.1:5432/postgres';

export interface TestDatabaseOptions {
  /**
   * `true` (default): a copy of the server's migrated template (see `migratedTemplate`), the same
   * database `migrate()` makes in a fifth of the time; `'fresh'`: migrated by `migrate()` itself
   * (the tests of the migrations); `false`: empty, as before `npm run db:migrate`.
   */
  migrated?: boolean | 'fresh';
}

/**
 * Creates `teapot_test_<random>` on the server of `serverUrl` (default: TEAPOT_TEST_DATABASE_URL,
 * then DATABASE_URL, then the local Postgres), migrated as `options.migrated` says.
 */
export async function createTestDatabase(
  serverUrl?: string,
  { migrated = true }: TestDatabaseOptions = {},
): Promise<TestDatabase> {
  const url = new URL(
    serverUrl ?? process.env.TEAPOT_TEST_DATABASE_URL ?? process.env.DATABASE_URL ?? DEFAULT_SERVER_URL,
  );
  url.pathname = `/teapot_test_${randomBytes(6).toString('hex')}`;
  const databaseUrl = url.toString();
  if (migrated === true) {
    await copyTemplate(databaseUrl);
    return { url: databaseUrl, drop: () => dropDatabase(databaseUrl) };
  }
  await ensureDatabase(databaseUrl);
  try {
    if (migrated === 'fresh') await migrate(databaseUrl);
  } catch (err) {
    await dropDatabase(databaseUrl);
    throw err;
  }
  return { url: databaseUrl, drop: () => dropDatabase(databaseUrl) };
}

async function copyTemplate(databaseUrl: string): Promise<void> {
  const { database, adminUrl } = splitDatabaseUrl(databaseUrl);
  const template = await migratedTemplate(adminUrl);
  const admin = await connect(adminUrl);
  try {
    await admin.query(`CREATE DATABASE ${quoteIdent(database)} TEMPLATE ${quoteIdent(template)}`);
  } finally {
    await admin.end();
  }
}

/** A `Database` on a new migrated test database: close() closes the pool, then drops the database. */
export interface OpenTestDatabase extends Database {
  url: string;
}

export async function openTestDatabase(options: CreateDatabaseOptions = {}): Promise<OpenTestDatabase> {
  const testDb = await createTestDatabase();
  const db = createDatabase(testDb.url, options);
  return {
    ...db,
    url: testDb.url,
    close: async () => {
      await db.close();
      await testDb.drop();
    },
  };
}

export { schemaDrift, RAW_SQL_OBJECTS } from '../drift';
export type { SchemaDriftOptions, SchemaShape } from '../drift';

export { storedItlUs, syntheticRunResult } from './synthetic-run';
export type { SyntheticRunOptions } from './synthetic-run';

export { storeEndpoint, storeMeasuredRun } from './seed-runs';
export type { MeasuredRunSeed, SeedStore } from './seed-runs';

export {
  exactDailyItlP99,
  insertQueuedRunNaively,
  intervalProfiles,
  measuredOutputTokens,
  runRequestBytes,
  storedItlSizes,
  truncateRunHistory,
} from './bench-reference';
export type { EndpointWindow, IntervalProfile, StoredSize } from './bench-reference';
