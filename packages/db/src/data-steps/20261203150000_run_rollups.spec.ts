import type { RunResult } from '@teapot/measure';
import { summarize } from '@teapot/measure';
import {
  openTestDatabase,
  storeEndpoint,
  storeMeasuredRun,
  syntheticRunResult,
  type OpenTestDatabase,
} from '../testing';
import { rollUpRunsStoredBeforeRollups } from './20261203150000_run_rollups';

const HOUR = 3_600_000;
const T0 = Date.UTC(2026, 10, 2, 9);

let db: OpenTestDatabase;
let endpointA: string;

type RollupRow = Record<string, unknown> & { grain: string; endpoint_id: string; bucket_start: Date };

/** A run of `seed`, with its first `failed` requests failed and its client saturated if asked. */
function result(seed: number, failed = 0, saturated = false): RunResult {
  const run = syntheticRunResult({ requests: 6, tokensPerRequest: 20 + seed, seed });
  for (const r of run.requests.slice(0, failed)) {
    r.outcome = 'error';
    r.error = { kind: 'http_status', message: 'upstream failed', status: 503 };
  }
  const summary = summarize(run.requests, { durationUs: run.durationUs });
  return { ...run, summary, client: { ...run.client, saturated } };
}

/** Every rollup row but its random id, in one order; floats to 12 digits (sums may differ in order). */
async function rollupRows(): Promise<RollupRow[]> {
  const { rows } = await db.pool.query<RollupRow>(
    `SELECT grain::text, bucket_start, endpoint_id, profile_id, config_id, trigger::text, client_saturated,
            metric, runs, requests, tokens, samples, encoded, numerator, denominator
       FROM run_rollups
      ORDER BY grain, bucket_start, endpoint_id, trigger, client_saturated, metric`,
  );
  const rounded = (value: unknown) => (typeof value === 'number' ? Number(value.toPrecision(12)) : value);
  return rows.map((row) => ({
    ...row,
    numerator: rounded(row.numerator),
    denominator: rounded(row.denominator),
  }));
}

async function rollUp(): Promise<number> {
  const client = await db.pool.connect();
  try {
    return await rollUpRunsStoredBeforeRollups(client);
  } finally {
    client.release();
  }
}

beforeAll(async () => {
  db = await openTestDatabase();
  const [a, b] = [await storeEndpoint(db, 'a'), await storeEndpoint(db, 'b')];
  endpointA = a;
  const runs: Array<[string, number, RunResult, 'schedule' | 'manual']> = [
    [a, T0, result(1), 'schedule'],
    [a, T0 + 20 * 60_000, result(2, 2), 'schedule'],
    [a, T0 + 40 * 60_000, result(3, 0, true), 'manual'],
    [a, T0 + 3 * HOUR, result(4), 'schedule'],
    // Every request failed: a measured `failed` run, counted in error rates.
    [a, T0 + 3 * HOUR + 60_000, result(5, 6), 'schedule'],
    [a, T0 + 26 * HOUR, result(6), 'schedule'],
    [b, T0 + 10 * 60_000, result(7, 1), 'manual'],
    [b, T0 + 50 * HOUR, result(8), 'schedule'],
  ];
  for (const [endpointId, startedAt, run, trigger] of runs)
    await storeMeasuredRun(db, { endpointId, startedAt: new Date(startedAt), trigger }, run);
  // Aborted: never rolled up, by either.
  await storeMeasuredRun(
    db,
    { endpointId: a, startedAt: new Date(T0 + 5 * 60_000) },
    { ...result(9), aborted: true },
  );
});

afterAll(() => db?.close());

describe('data step 20261203150000_run_rollups', () => {
  it("rolls up runs stored before rollups exactly as today's run writer does", async () => {
    const live = await rollupRows();
    expect(live.length).toBeGreaterThan(0);
    await db.pool.query('DELETE FROM run_rollups');
    // Endpoint a on two days, b on two: four endpoint-days.
    expect(await rollUp()).toBe(4);
    expect(await rollupRows()).toEqual(live);
    expect(await rollUp()).toBe(0);
    expect(await rollupRows()).toEqual(live);
  });

  it('rolls up only the hours without rollups, and their day again from all its hours', async () => {
    const live = await rollupRows();
    await db.pool.query(
      `DELETE FROM run_rollups WHERE (grain = 'hour' AND bucket_start = $1) OR grain = 'day'`,
      [new Date(T0 + 3 * HOUR)],
    );
    expect(await rollUp()).toBe(1);
    // Only the endpoint-day with a missing hour is rolled up: the other days stay gone.
    const recomputed = (row: RollupRow) =>
      row.grain === 'hour' ||
      (row.endpoint_id === endpointA && row.bucket_start.getTime() === Date.UTC(2026, 10, 2));
    expect(await rollupRows()).toEqual(live.filter(recomputed));
  });
});
