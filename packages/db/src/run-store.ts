import type { Pool, QueryResult, QueryResultRow } from 'pg';
import type { Database } from './client';

/**
 * Where bulk run data is written and read: a `pg` Pool, or the Database from createDatabase(), whose
 * pool Prisma shares. Bulk paths use pg directly (COPY, arrays), never per-row Prisma calls.
 */
export type RunStore = Pool | Pick<Database, 'pool'>;

/** What a read needs: one statement at a time, each on any connection. A Pool is one. */
export interface Queryable {
  query<Row extends QueryResultRow = QueryResultRow>(
    text: string,
    values?: unknown[],
  ): Promise<QueryResult<Row>>;
}

/**
 * What the stores that only read take: a RunStore, or statements on behalf of one caller (e.g.
 * `cancellableQueries`, cancelled when the API's client hangs up).
 */
export type ReadStore = RunStore | Queryable;

export function poolOf(store: RunStore): Pool {
  return 'pool' in store ? store.pool : store;
}

export function queriesOf(store: ReadStore): Queryable {
  return 'pool' in store ? store.pool : store;
}
