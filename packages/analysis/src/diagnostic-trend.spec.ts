import { analysisStores, type Database } from '@teapot/db';
import { openTestDatabase, storeEndpoint, storeMeasuredRun } from '@teapot/db/testing';
import { DAY, stretchedRunResult, T0 } from './test-support/stretched-runs';
import { trend } from './trend';

let db: Database;
let endpointId: string;

/** A run whose scraped server diagnostics say `preemptions` (no scrape at all when undefined). */
async function storeRun(startedAt: number, preemptions: number | undefined): Promise<string> {
  const result = stretchedRunResult({ seed: startedAt % 97, scale: 1, requests: 6, tokensPerRequest: 16 });
  const id = await storeMeasuredRun(db, { endpointId, startedAt: new Date(startedAt) }, result);
  if (preemptions !== undefined) {
    await db.pool.query('UPDATE runs SET server_diagnostics = $2 WHERE id = $1', [
      id,
      { scrapes: 10, failedScrapes: 0, preemptions, kvCacheUsageMax: 0.5 },
    ]);
  }
  return id;
}

beforeAll(async () => {
  db = await openTestDatabase();
  endpointId = await storeEndpoint(db);
  // Day 0: 0 and 10 preemptions, and a run whose server exposed nothing; day 1: only such a run.
  await storeRun(T0 + 3_600_000, 0);
  await storeRun(T0 + 7_200_000, 10);
  await storeRun(T0 + 10_800_000, undefined);
  await storeRun(T0 + DAY + 3_600_000, undefined);
}, 60_000);

afterAll(() => db?.close());

const range = { from: new Date(T0), to: new Date(T0 + 2 * DAY) };

function trendOf(metric: string, statistic: string, bucket: 'day' | 'run') {
  return trend(analysisStores(db), { ...range, metric, statistic, bucket });
}

describe('trend of a diagnostic metric', () => {
  it('is the mean of the runs that have the value, leaving out (not zeroing) those without', async () => {
    const daily = await trendOf('preemptions', 'mean', 'day');
    expect(daily.weighting).toBe('run');
    expect(daily.unit).toBe('preemptions');
    const [day0, day1] = daily.series[0].points;
    expect(day0).toMatchObject({ value: 5, runs: 3, samples: 2 });
    expect(day1).toMatchObject({ value: null, runs: 1, samples: 0 });
    // Whole days are read run by run: rollups hold no diagnostics.
    expect(daily.read).toEqual({ rollupRows: 0, runs: 4 });
  });

  it('reads client diagnostics the run writer stored, per run', async () => {
    const perRun = await trendOf('tokens_per_chunk', 'mean', 'run');
    // stretchedRunResult streams one token per chunk with per-chunk usage counts.
    expect(perRun.series[0].points.map((p) => p.value)).toEqual([1, 1, 1, 1]);
  });

  it('offers only the mean', async () => {
    await expect(trendOf('preemptions', 'p99', 'day')).rejects.toThrow(/statistic/);
  });
});
