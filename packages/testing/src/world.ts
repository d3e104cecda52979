import { randomBytes } from 'node:crypto';
import type { Database } from '@teapot/db';
import { createTestDatabase, openTestDatabase, type TestDatabase } from '@teapot/db/testing';
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
  /** The URL of a new empty database (never migrated) beside the world's, dropped by close(). */
  unmigratedDatabase(): Promise<string>;
  /** Closes the pool, drops the databases and deletes the prefix's keys. */
  close(): Promise<void>;
}

export interface TestWorldOptions {
  /** Pool size of `db` (default 4). */
  poolMax?: number;
  redisUrl?: string;
}

export async function createTestWorld(options: TestWorldOptions = {}): Promise<TestWorld> {
  const db = await openTestDatabase({ max: options.poolMax ?? 4 });
  const redisUrl = options.redisUrl ?? REDIS_URL;
  const prefix = `teapot-test-${randomBytes(8).toString('hex')}`;
  const secretKey = randomBytes(32);
  const unmigrated: TestDatabase[] = [];
  let closed: Promise<void> | undefined;
  return {
    databaseUrl: db.url,
    redisUrl,
    prefix,
    secretKey,
    db,
    env: (overrides = {}) => ({
      DATABASE_URL: db.url,
      REDIS_URL: redisUrl,
      TEAPOT_REDIS_PREFIX: prefix,
      TEAPOT_SECRET_KEY: secretKey.toString('hex'),
      // Simulators listen on loopback, which endpoints may use only when allowed.
      TEAPOT_ENDPOINT_URL_ALLOW: 'public,private,loopback',
      ...overrides,
    }),
    async unmigratedDatabase() {
      const empty = await createTestDatabase(undefined, { migrated: false });
      unmigrated.push(empty);
      return empty.url;
    },
    close() {
      closed ??= (async () => {
        await db.close();
        for (const empty of unmigrated) await empty.drop();
        await deleteRedisPrefix(redisUrl, prefix);
      })();
      return closed;
    },
  };
}
