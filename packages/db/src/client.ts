import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';
import { assertMigrated } from './migrate';

export interface CreatePrismaOptions {
  /** Share this pool with the bulk writer/reader instead of opening a second one. */
  pool?: Pool;
}

/** How long a query waits for a free connection of the pool before it fails (pool exhaustion). */
export const DEFAULT_CONNECTION_TIMEOUT_MS = 10_000;

/** A PrismaClient over the `pg` driver adapter (no native engine). */
export function createPrisma(databaseUrl: string, options: CreatePrismaOptions = {}): PrismaClient {
  const adapter = new PrismaPg(
    options.pool ?? { connectionString: databaseUrl, connectionTimeoutMillis: DEFAULT_CONNECTION_TIMEOUT_MS },
  );
  return new PrismaClient({ adapter });
}

/** Prisma for ordinary queries and the pool it runs on, for bulk run data (COPY, arrays). */
export interface Database {
  prisma: PrismaClient;
  pool: Pool;
  close(): Promise<void>;
}

export interface CreateDatabaseOptions {
  /** Pool size; pg's default is 10. */
  max?: number;
  /**
   * How long a query waits for a connection (a free one, or a new one to connect) before failing;
   * pg's own default is forever, which turns an exhausted pool into hung requests.
   */
  connectionTimeoutMs?: number;
  /**
   * How long a query may go unanswered before it fails and its connection is dropped (pg's
   * query_timeout; DATABASE_QUERY_TIMEOUT_MS); by default it may wait forever. Only a silent server
   * reaches it: a refused or reset connection fails at once.
   */
  queryTimeoutMs?: number;
}

/** A pg pool that waits a bounded time for a connection and survives its idle connections' errors. */
export function createPool(databaseUrl: string, options: CreateDatabaseOptions = {}): Pool {
  const pool = new Pool({
    connectionString: databaseUrl,
    max: options.max,
    connectionTimeoutMillis: options.connectionTimeoutMs ?? DEFAULT_CONNECTION_TIMEOUT_MS,
    query_timeout: options.queryTimeoutMs,
    // The kernel's probes also notice a peer that vanished while the connection sat idle.
    keepAlive: true,
  });
  // An idle client that loses its server (a restart, a terminated backend) is dropped by the pool
  // and the next query connects anew; without a listener its 'error' event would crash the process.
  pool.on('error', () => undefined);
  return pool;
}

/**
 * A PrismaClient that owns its pg pool and lends it to the bulk run writer and reader, so a
 * process holds one pool. Each app's PrismaService extends it (one per process, in one module).
 */
export class PooledPrismaClient extends PrismaClient {
  readonly pool: Pool;
  private closed: Promise<void> | undefined;

  constructor(
    private readonly databaseUrl: string,
    options: CreateDatabaseOptions = {},
  ) {
    const pool = createPool(databaseUrl, options);
    super({ adapter: new PrismaPg(pool) });
    this.pool = pool;
  }

  /** Throws DatabaseNotMigratedError (what to run, no stack) unless every migration is applied. */
  assertMigrated(): Promise<void> {
    return assertMigrated(this.pool, this.databaseUrl);
  }

  /** Disconnects Prisma, then ends the pool; later calls wait for the first. */
  close(): Promise<void> {
    this.closed ??= this.$disconnect().then(() => this.pool.end());
    return this.closed;
  }
}

export function createDatabase(databaseUrl: string, options: CreateDatabaseOptions = {}): Database {
  const prisma = new PooledPrismaClient(databaseUrl, options);
  return { prisma, pool: prisma.pool, close: () => prisma.close() };
}
