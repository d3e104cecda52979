import type { Pool } from 'pg';
import type { Database } from './client';

/**
 * Where bulk run data is written and read: a `pg` Pool, or the Database from createDatabase(), whose
 * pool Prisma shares. Bulk paths use pg directly (COPY, arrays), never per-row Prisma calls.
 */
export type RunStore = Pool | Pick<Database, 'pool'>;

export function poolOf(store: RunStore): Pool {
  return 'pool' in store ? store.pool : store;
}
