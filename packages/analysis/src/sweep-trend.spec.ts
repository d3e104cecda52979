import type { SweepMetricName } from '@teapot/contracts';
import { analysisStores, type Database } from '@teapot/db';
import { openTestDatabase, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { AnalysisInputError } from './errors';
import { centreOf, sweepTrend } from './sweep-trend';
import { storeSweep, storeSweepPair, type StoredSweep } from './test-support/stored-sweeps';
import { DAY, HOUR, T0 } from './test-support/stretched-runs';
import type { TrendQuery } from './trend';

let db: Database;
let endpointId: string;
let profileId: string;
let configs: Record<string, string>;
const sweepIds: Record<string, string> = {};

interface NamedSweep extends Pick<
  StoredSweep,
  'capacity' | 'cost' | 'dimension' | 'kind' | 'status' | 'stopReason'
> {
  name: string;
  config: 'fp16' | 'fp8';
  day: number;
}

async function storeNamedSweep({ name, config, day, ...sweep }: NamedSweep): Promise<void> {
  sweepIds[name] = await storeSweep(db, {
    ...sweep,
    endpointId,
    profileId,
    configId: configs[config],
    startedAt: new Date(T0 + day * DAY + 3 * HOUR),
  });
}

beforeAll(async () => {
  db = await openTestDatabase();
  ({ endpointId, profileId, configs } = await storeSweepPair(db));
  // fp16 for three days (two sweeps on day 1), fp8 after; one day where the SLO failed at the lowest load.
  await storeNamedSweep({ name: 'a', config: 'fp16', day: 0, capacity: 30, cost: 0.2 });
  await storeNamedSweep({ name: 'b', config: 'fp16', day: 1, capacity: 28, cost: 0.22 });
  await storeNamedSweep({ name: 'c', config: 'fp16', day: 1, capacity: 33, cost: null });
  await storeNamedSweep({ name: 'd', config: 'fp16', day: 2, capacity: null, stopReason: 'below_lowest' });
  await storeNamedSweep({ name: 'e', config: 'fp8', day: 3, capacity: 61, cost: 0.1 });
  await storeNamedSweep({
    name: 'f',
    config: 'fp8',
    day: 4,
    capacity: 12,
    dimension: 'concurrency',
    cost: 0.3,
  });
  // Neither is a capacity found: a list of points, and a sweep whose endpoint failed.
  await storeNamedSweep({
    name: 'g',
    config: 'fp8',
    day: 3,
    capacity: 500,
    kind: 'points',
    stopReason: 'completed',
  });
  await storeNamedSweep({
    name: 'h',
    config: 'fp8',
    day: 4,
    capacity: 500,
    status: 'failed',
    stopReason: 'endpoint_failed',
  });
  const result = syntheticRunResult({ requests: 7, tokensPerRequest: 11, seed: 3 });
  await storeMeasuredRun(
    db,
    {
      endpointId,
      profileId,
      configId: configs.fp16,
      startedAt: new Date(T0 + 3 * HOUR),
      sweep: { id: sweepIds.a, index: 0 },
    },
    result,
  );
}, 60_000);

afterAll(() => db?.close());

type SweepTrendQuery = TrendQuery & { metric: SweepMetricName };

const query = (change: Partial<SweepTrendQuery> = {}): SweepTrendQuery => ({
  metric: 'capacity',
  statistic: 'p50',
  bucket: 'day',
  from: new Date(T0),
  to: new Date(T0 + 5 * DAY),
  groupBy: ['weightQuant'],
  ...change,
});

describe('sweepTrend', () => {
  it('gives each configuration its series of capacities, one sample per finished capacity search', async () => {
    const trend = await sweepTrend(analysisStores(db).sweeps, query());
    expect(trend.weighting).toBe('sweep');
    expect(trend.unit).toBe('req/s | streams');
    expect(trend.series.map((s) => s.key)).toEqual([
      { weightQuant: 'fp16', dimension: 'rate' },
      { weightQuant: 'fp8', dimension: 'concurrency' },
      { weightQuant: 'fp8', dimension: 'rate' },
    ]);
    const fp16 = trend.series[0].points;
    // Day 1 holds two sweeps: the median of 28 and 33. Day 2's sweep missed the SLO at its lowest load.
    expect(fp16.map((p) => [p.value, p.runs, p.samples, p.belowLowest])).toEqual([
      [30, 1, 1, 0],
      [30.5, 2, 2, 0],
      [null, 1, 0, 1],
    ]);
    expect(fp16[0].requests).toBe(7);
    expect(fp16[0].configVersions).toEqual([{ endpointId, version: 1 }]);
    expect(trend.series[2].points.map((p) => p.value)).toEqual([61]);
  });

  it('gives the mean when asked, and each sweep its own point with bucket=run', async () => {
    const mean = await sweepTrend(analysisStores(db).sweeps, query({ statistic: 'mean', bucket: 'week' }));
    expect(mean.series[0].points.map((p) => p.value)).toEqual([(30 + 28 + 33) / 3]);
    const each = await sweepTrend(analysisStores(db).sweeps, query({ bucket: 'run', groupBy: ['endpoint'] }));
    expect(each.series.flatMap((s) => s.points.map((p) => p.sweepId)).sort()).toEqual(
      ['a', 'b', 'c', 'd', 'e', 'f'].map((name) => sweepIds[name]).sort(),
    );
  });

  it('trends the cost per million tokens of the sweeps that have a price, across dimensions', async () => {
    const trend = await sweepTrend(analysisStores(db).sweeps, query({ metric: 'cost_per_mtok' }));
    expect(trend.unit).toBe('USD/Mtok');
    expect(trend.series.map((s) => s.points.map((p) => p.value))).toEqual([
      [0.2, 0.22, null],
      [0.1, 0.3],
    ]);
  });

  it('refuses what it cannot answer, naming the parameter', async () => {
    const refusal = (change: Partial<SweepTrendQuery>) =>
      sweepTrend(analysisStores(db).sweeps, query(change));
    await expect(refusal({ statistic: 'p99' })).rejects.toThrow(AnalysisInputError);
    await expect(refusal({ statistic: 'p99' })).rejects.toThrow(
      /statistic of capacity .* must be one of p50, mean/,
    );
    await expect(refusal({ runIds: [sweepIds.a] })).rejects.toThrow(/runId/);
    await expect(refusal({ to: new Date(T0 - DAY) })).rejects.toThrow(/to must be after from/);
  });

  it('says why it is empty', async () => {
    const empty = await sweepTrend(
      analysisStores(db).sweeps,
      query({ from: new Date(T0 + 9 * DAY), to: new Date(T0 + 10 * DAY) }),
    );
    expect(empty.series).toEqual([]);
    expect(empty.reason).toMatch(/no finished capacity search/);
  });
});

describe('centreOf', () => {
  it('takes the middle value, the mean of the middle two, or the mean', () => {
    expect(centreOf([3, 1, 2], 'p50')).toBe(2);
    expect(centreOf([4, 1, 3, 2], 'p50')).toBe(2.5);
    expect(centreOf([1, 2, 6], 'mean')).toBe(3);
    expect(centreOf([], 'p50')).toBeNull();
  });
});
