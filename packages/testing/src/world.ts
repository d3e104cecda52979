import { randomBytes } from 'node:crypto';
import { createDatabase, type Database } from '@teapot/db';
import { createTestDatabase } from '@teapot/db/testing';
import { deleteRedisPrefix, REDIS_URL } from './redis';

/** One test file's (or benchmark's) isolated world: its own migrated database and Redis key prefix. */
export interface TestWorld {
  databaseUrl: string;
  redisUrl: string;
  /** TEAPOT_REDIS_PREFIX of every process in this world. */
  prefix: string;
  /** TEAPOT_SECRET_KEY of every process in this world (hex in `env`). */
  secretKey: Buffer;
  /** A small pool onto the world's database, for seeding and reading back. */
  db: Database;
  /** The settings every teapot process shares, for this world; `overrides` win. */
  env(overrides?: Record<string, string>): Record<string, string>;
  /** Closes the pool, drops the database and deletes the prefix's keys. */
  close(): Promise<void>;
}

export interface TestWorldOptions {
  /** Pool size of `db` (default 4). */
  poolMax?: number;
  redisUrl?: string;
}

export async function createTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const testDb = await createTestDatabase();
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const prefix = `teapot-test-${randomBytes(8).toString('hex')}`;
  const secretKey = randomBytes(32);
  const db = createDatabase(testDb.url, { max: options.poolMax ?? 4 });
  let closed: Promise<void> | undefined;
  return {
    databaseUrl: testDb.url,
    redisUrl,
    prefix,
    secretKey,
    db,
    env: (overrides = {}) => ({
      DATABASE_URL: testDb.url,
      REDIS_URL: redisUrl,
      TEAPOT_REDIS_PREFIX: prefix,
      TEAPOT_SECRET_KEY: secretKey.toString('hex'),
      // Simulators listen on loopback, which endpoints may use only when allowed.
      TEAPOT_ENDPOINT_URL_ALLOW: 'public,private,loopback',
      ...overrides,
    }),
    close() {
      closed ??= (async () => {
        await db.close();
        await testDb.drop();
        await deleteRedisPrefix(redisUrl, prefix);
      })();
      return closed;
    },
  };
}
