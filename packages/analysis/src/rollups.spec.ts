import {
  analysisStores,
  backfillRollups,
  dropRawTimings,
  HISTOGRAM_RELATIVE_ERROR,
  migrate,
  persistRunResult,
} from '@teapot/db';
import {
  openTestDatabase,
  type OpenTestDatabase,
  storedItlUs,
  storeEndpoint,
  storeMeasuredRun,
} from '@teapot/db/testing';
import { percentile, type RunResult } from '@teapot/measure';
import { DAY, dailyItlP99, HOUR, stretchedRunResult, T0 } from './test-support/stretched-runs';
import { trend, type Trend, type TrendQuery } from './trend';

let db: OpenTestDatabase;
const endpoints: string[] = [];
const configs: Record<string, string> = {};
let profileId: string;

/** A run of 12 requests of 40 tokens whose gaps are stretched by `scale`; `failed` of them failed. */
const runResult = (seed: number, scale: number, failed = 0, saturated = false): RunResult =>
  stretchedRunResult({ seed, scale, requests: 12, tokensPerRequest: 40, failed, saturated });

async function createRun(endpointId: string, configId: string, startedAt: number, trigger = 'schedule') {
  return db.prisma.run.create({
    data: {
      endpointId,
      configId,
      profileId: endpointId === endpoints[0] ? profileId : null,
      profileSnapshot: {},
      trigger: trigger as 'schedule',
      status: 'running',
      startedAt: new Date(startedAt),
    },
  });
}

async function storeRun(
  endpointId: string,
  configId: string,
  startedAt: number,
  result: RunResult,
  trigger = 'schedule',
): Promise<string> {
  return storeMeasuredRun(
    db,
    {
      endpointId,
      configId,
      profileId: endpointId === endpoints[0] ? profileId : undefined,
      trigger: trigger as 'schedule',
      startedAt: new Date(startedAt),
    },
    result,
  );
}

/** ITL samples straight from the stored chunk arrays (uint32 LE offsets, uint16 LE tokens). */
async function exactItlUs(from: number, to: number, endpointId: string): Promise<number[]> {
  const { rows } = await db.pool.query<{ offsets: Buffer; tokens: Buffer }>(
    `SELECT chunk_offsets_us AS offsets, chunk_tokens AS tokens FROM run_requests rr JOIN runs r ON r.id = rr.run_id
      WHERE r.endpoint_id = $1 AND r.started_at >= $2 AND r.started_at < $3
        AND NOT COALESCE(r.client_saturated, false) AND rr.outcome = 'ok' AND NOT rr.warmup`,
    [endpointId, new Date(from), new Date(to)],
  );
  const samples = rows.flatMap(({ offsets, tokens }) => storedItlUs(offsets, tokens));
  return samples.sort((a, b) => a - b);
}

/** A trend's series, with values to 12 digits (pooled rates may differ in the last bits by summing order). */
function comparable(result: Trend) {
  return result.series.map((series) => ({
    key: series.key,
    points: series.points.map((p) => ({
      ...p,
      value: p.value === null ? null : Number(p.value.toPrecision(12)),
    })),
  }));
}

async function expectSameAsPerRun(query: TrendQuery): Promise<Trend> {
  const rolled = await trend(analysisStores(db), query);
  const perRun = await trend(analysisStores(db), query, { source: 'runs' });
  expect(comparable(rolled)).toEqual(comparable(perRun));
  expect(rolled.excludedSaturatedRuns).toBe(perRun.excludedSaturatedRuns);
  return rolled;
}

async function rollupRowCount(): Promise<number> {
  const { rows } = await db.pool.query<{ n: string }>('SELECT count(*) AS n FROM run_rollups');
  return Number(rows[0].n);
}

const base = dailyItlP99(9);

beforeAll(async () => {
  db = await openTestDatabase();
  for (const name of ['a', 'b']) {
    endpoints.push(await storeEndpoint(db, name));
    for (const [version, quant] of [
      [1, 'fp16'],
      [2, 'fp8'],
    ] as const) {
      const config = await db.prisma.servingConfig.create({
        data: { endpointId: endpoints[endpoints.length - 1], version, weightQuant: quant, gpuModel: 'H100' },
      });
      configs[`${name}${version}`] = config.id;
    }
  }
  profileId = (
    await db.prisma.profile.create({
      data: { name: 'p', endpointId: endpoints[0], workload: {}, load: {} },
    })
  ).id;
  // 9 days (two ISO weeks); endpoint a moves fp16 -> fp8 on day 4; some hours hold several runs,
  // some runs have failed requests, a manual run, and client-saturated runs that must stay out.
  let seed = 1;
  for (let day = 0; day < 9; day++) {
    for (const hour of [0, 5, 5, 13, 23]) {
      const at = T0 + day * DAY + hour * HOUR + seed * 7_000;
      const version = day < 4 ? 1 : 2;
      const slow = 1 + ((seed * 37) % 11) / 5;
      await storeRun(endpoints[0], configs[`a${version}`], at, runResult(seed, slow, seed % 4 === 0 ? 3 : 0));
      await storeRun(endpoints[1], configs.b1, at + 60_000, runResult(seed + 1000, 0.7 * slow));
      seed += 1;
    }
    await storeRun(endpoints[0], configs.a1, T0 + day * DAY + 7 * HOUR, runResult(seed + 2000, 6, 0, true));
  }
  await storeRun(endpoints[0], configs.a2, T0 + 6 * DAY + 9 * HOUR, runResult(9999, 2), 'manual');
}, 180_000);

afterAll(() => db?.close());

describe('trends from rollups', () => {
  it.each<[string, Partial<TrendQuery>]>([
    ['daily P99 ITL', {}],
    ['hourly P50 TTFT', { bucket: 'hour', metric: 'ttft', statistic: 'p50' }],
    ['weekly P99/P50 ITL', { bucket: 'week', statistic: 'p99/p50' }],
    ['daily mean E2E by weight quantization', { metric: 'e2e', statistic: 'mean', groupBy: ['weightQuant'] }],
    ['daily output tokens/s', { metric: 'output_tokens_per_s', statistic: 'mean' }],
    ['daily error rate', { metric: 'error_rate', statistic: 'mean' }],
    ['daily goodput (no run sets an SLO)', { metric: 'goodput', statistic: 'mean' }],
    ['fp8 only, by profile', { config: { weightQuant: ['fp8'] }, groupBy: ['profile'] }],
    ['manual runs only', { triggers: ['manual'] }],
    ['one profile', { profileIds: ['PROFILE'] }],
    ['saturated runs included', { includeSaturated: true, statistic: 'p99.9' }],
  ])('%s equals the trend merged from per-run histograms', async (_what, change) => {
    const query = { ...base, ...change };
    if (query.profileIds) query.profileIds = [profileId];
    const result = await expectSameAsPerRun(query);
    expect(result.read.runs).toBe(0);
    expect(result.read.rollupRows).toBeGreaterThan(0);
    expect(result.series.length).toBeGreaterThan(0);
  });

  it('reads whole days from daily rollups: rows per point do not grow with the runs in a day', async () => {
    const result = await trend(analysisStores(db), { ...base, endpointIds: [endpoints[0]] });
    const points = result.series[0].points;
    expect(points).toHaveLength(9);
    expect(points[6].runs).toBe(6);
    // One row per day and rollup key (metric fixed): each day's runs and its saturated run, plus the
    // manual run's key; as many rows however many runs each holds.
    expect(result.read.rollupRows).toBe(2 * 9 + 1);
    expect(points.map((p) => p.configVersions.map((v) => v.version))).toEqual([
      [1],
      [1],
      [1],
      [1],
      [2],
      [2],
      [2],
      [2],
      [2],
    ]);
  });

  it('matches the exact percentile over the raw stored arrays within the histogram error', async () => {
    const result = await trend(analysisStores(db), { ...base, endpointIds: [endpoints[0]] });
    for (const [day, point] of result.series[0].points.entries()) {
      const samples = await exactItlUs(T0 + day * DAY, T0 + (day + 1) * DAY, endpoints[0]);
      const exact = percentile(samples, 0.99) / 1000;
      expect(point.samples).toBe(samples.length);
      expect(Math.abs((point.value as number) - exact)).toBeLessThanOrEqual(
        exact * HISTOGRAM_RELATIVE_ERROR + 0.0005,
      );
    }
  });

  it('leaves client-saturated runs out and counts them', async () => {
    const result = await trend(analysisStores(db), base);
    expect(result.excludedSaturatedRuns).toBe(9);
    const included = await trend(analysisStores(db), { ...base, includeSaturated: true });
    const runs = (t: Trend) => t.series.flatMap((s) => s.points).reduce((n, p) => n + p.runs, 0);
    expect(runs(included) - runs(result)).toBe(9);
  });

  it('reads the partial hours at the ends of the range run by run, and gives the same trend', async () => {
    // Cuts through hour 5 of day 0 and hour 13 of day 4, between runs of those hours.
    const from = new Date(T0 + 5 * HOUR + 10_000);
    const to = new Date(T0 + 4 * DAY + 13 * HOUR + 200_000);
    for (const bucket of ['hour', 'day', 'week'] as const) {
      const result = await expectSameAsPerRun({ ...base, bucket, from, to });
      expect(result.read.runs).toBeGreaterThan(0);
      expect(result.read.rollupRows).toBeGreaterThan(0);
    }
    // bucket=run and run filters are always per run
    const perRun = await trend(analysisStores(db), { ...base, bucket: 'run', to: new Date(T0 + DAY) });
    expect(perRun.read.rollupRows).toBe(0);
  });
});

describe('rollups stay right', () => {
  const day = T0 + 20 * DAY;
  const range = { ...base, from: new Date(day), to: new Date(day + DAY), endpointIds: [] as string[] };

  it('when a run is written again (a retry) or rewritten with another result or key', async () => {
    range.endpointIds = [endpoints[1]];
    const first = await storeRun(endpoints[1], configs.b1, day + 3 * HOUR, runResult(501, 1));
    await storeRun(endpoints[1], configs.b1, day + 3 * HOUR + 60_000, runResult(502, 1.5));
    const before = await expectSameAsPerRun(range);
    const rows = await rollupRowCount();

    await persistRunResult(db, first, runResult(501, 1));
    expect(comparable(await expectSameAsPerRun(range))).toEqual(comparable(before));
    expect(await rollupRowCount()).toBe(rows);

    await persistRunResult(db, first, runResult(503, 4));
    const slower = await expectSameAsPerRun(range);
    expect(slower.series[0].points[0].value as number).toBeGreaterThan(
      before.series[0].points[0].value as number,
    );
    expect(slower.series[0].points[0].runs).toBe(2);

    // Rewritten as fp8 and client-saturated: it leaves the fp16, unsaturated rollup.
    await persistRunResult(db, first, runResult(503, 4, 0, true), { configId: configs.b2 });
    const moved = await expectSameAsPerRun({ ...range, groupBy: ['weightQuant'], includeSaturated: true });
    expect(moved.series.map((s) => [s.key.weightQuant, s.points[0].runs])).toEqual([
      ['fp16', 1],
      ['fp8', 1],
    ]);
    expect((await expectSameAsPerRun(range)).excludedSaturatedRuns).toBe(1);
  });

  it('when runs of the same hour are written at once', async () => {
    const at = day + 9 * HOUR;
    const runs = await Promise.all(
      Array.from({ length: 6 }, (_, i) => createRun(endpoints[1], configs.b1, at + i * 1_000)),
    );
    await Promise.all(runs.map((run, i) => persistRunResult(db, run.id, runResult(600 + i, 1 + i / 3))));
    const result = await expectSameAsPerRun({ ...range, bucket: 'hour' });
    expect(result.series[0].points.find((p) => p.start.getTime() === at)?.runs).toBe(6);
  });

  it('after retention drops the raw timings', async () => {
    const query = { ...base, to: new Date(T0 + 30 * DAY) };
    const before = await trend(analysisStores(db), query);
    const dropped = await dropRawTimings(db, { olderThan: new Date(Date.now() + DAY) });
    expect(dropped.requests).toBeGreaterThan(0);
    const after = await expectSameAsPerRun(query);
    expect(comparable(after)).toEqual(comparable(before));
  });

  it('when runs stored before rollups existed are backfilled, idempotently', async () => {
    const query = {
      ...base,
      bucket: 'hour' as const,
      to: new Date(T0 + 30 * DAY),
      groupBy: ['profile' as const],
    };
    const before = await trend(analysisStores(db), query);
    const rows = await rollupRowCount();
    await db.pool.query('DELETE FROM run_rollups');
    // The migration runner backfills after its migrations (none pending here), as on an upgrade.
    const log: string[] = [];
    const migrated = await migrate(db.url, { log: (line) => log.push(line) });
    expect(migrated).toMatchObject({ applied: [], rolledUpDays: 2 * 9 + 1 });
    expect(log.at(-1)).toMatch(/rolled up 19 endpoint-days/);
    const client = await db.pool.connect();
    try {
      expect((await backfillRollups(client)).days).toBe(0);
    } finally {
      client.release();
    }
    expect(await rollupRowCount()).toBe(rows);
    expect(comparable(await trend(analysisStores(db), query))).toEqual(comparable(before));
    expect(comparable(await trend(analysisStores(db), { ...query, bucket: 'week' }))).toEqual(
      comparable(await trend(analysisStores(db), { ...query, bucket: 'week' }, { source: 'runs' })),
    );
  });
});
