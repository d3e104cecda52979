import { PrismaPg } from '@prisma/adapter-pg';
import { Pool } from 'pg';
import { PrismaClient } from './generated/prisma/client';

export interface CreatePrismaOptions {
  /** Share this pool with the bulk writer/reader instead of opening a second one. */
  pool?: Pool;
}

/** A PrismaClient over the `pg` driver adapter (no native engine). */
export function createPrisma(databaseUrl: string, options: CreatePrismaOptions = {}): PrismaClient {
  const adapter = new PrismaPg(options.pool ?? { connectionString: databaseUrl });
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
}

export function createDatabase(databaseUrl: string, options: CreateDatabaseOptions = {}): Database {
  const pool = new Pool({ connectionString: databaseUrl, max: options.max });
  const prisma = createPrisma(databaseUrl, { pool });
  let closed: Promise<void> | undefined;
  return {
    prisma,
    pool,
    close() {
      closed ??= prisma.$disconnect().then(() => pool.end());
      return closed;
    },
  };
}
