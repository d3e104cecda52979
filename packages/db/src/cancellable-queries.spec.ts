import { Pool } from 'pg';
import { cancellableQueries, QueryCancelledError } from './cancellable-queries';
import { createTestDatabase, type TestDatabase } from './testing';

/** Active statements on the test's database whose text holds `marker` (as another session sees them). */
async function activeStatements(observer: Pool, marker: string): Promise<number> {
  const { rows } = await observer.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM pg_stat_activity
      WHERE datname = current_database() AND state = 'active' AND query LIKE '%' || $1 || '%' AND pid <> pg_backend_pid()`,
    [marker],
  );
  return rows[0].n;
}

async function until(what: string, check: () => Promise<boolean>): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check()) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`${what} did not happen within 5 s`);
}

let testDb: TestDatabase;
// The pool under test, and a second session that watches pg_stat_activity.
const pools = {} as { tested: Pool; observer: Pool };

beforeAll(async () => {
  testDb = await createTestDatabase();
  pools.tested = new Pool({ connectionString: testDb.url, max: 2 });
  pools.observer = new Pool({ connectionString: testDb.url, max: 1 });
});

afterAll(async () => {
  await Promise.all([pools.tested.end(), pools.observer.end()]);
  await testDb.drop();
});

describe('cancellableQueries', () => {
  it('answers like the pool while the signal has not aborted', async () => {
    const queries = cancellableQueries(pools.tested, new AbortController().signal);
    const { rows } = await queries.query<{ sum: number }>('SELECT $1::int + $2::int AS sum', [2, 3]);
    expect(rows).toEqual([{ sum: 5 }]);
  });

  it('cancels the running statement on the server when the signal aborts', async () => {
    const marker = 'cancel_me_while_running';
    const aborter = new AbortController();
    const running = cancellableQueries(pools.tested, aborter.signal)
      .query(`SELECT pg_sleep(60), '${marker}'`)
      .catch((error: unknown) => error);
    await until(
      'the statement shows in pg_stat_activity',
      async () => (await activeStatements(pools.observer, marker)) === 1,
    );
    aborter.abort();
    const error = await running;
    expect(error).toBeInstanceOf(QueryCancelledError);
    // Postgres' own words: the server stopped the statement (57014), not just the client's wait.
    expect(((error as QueryCancelledError).cause as { code?: string }).code).toBe('57014');
    await until('the statement is gone', async () => (await activeStatements(pools.observer, marker)) === 0);
    // The pool still serves: the cancelled connection was discarded, not handed on half-cancelled.
    expect((await pools.tested.query<{ one: number }>('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  });

  it('starts nothing once the signal has aborted', async () => {
    const marker = 'never_started';
    const aborter = new AbortController();
    aborter.abort();
    await expect(
      cancellableQueries(pools.tested, aborter.signal).query(`SELECT pg_sleep(60), '${marker}'`),
    ).rejects.toBeInstanceOf(QueryCancelledError);
    expect(await activeStatements(pools.observer, marker)).toBe(0);
  });
});
