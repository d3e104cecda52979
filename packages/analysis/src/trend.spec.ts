import { analysisStores, HISTOGRAM_RELATIVE_ERROR, RunSelectionStore, type Database } from '@teapot/db';
import { openTestDatabase, storedItlUs, storeEndpoint, storeMeasuredRun } from '@teapot/db/testing';
import { percentile } from '@teapot/measure';
import { DAY, dailyItlP99, stretchedRunResult, T0 } from './test-support/stretched-runs';
import { AnalysisInputError } from './errors';
import { selectRuns } from './selection';
import { trend, type TrendQuery } from './trend';

let db: Database;
let endpointId: string;
let fp16: string;
let fp8: string;

async function storeRun(
  startedAt: number,
  configId: string,
  seed: number,
  scale: number,
  saturated = false,
): Promise<string> {
  const result = stretchedRunResult({ seed, scale, requests: 20, tokensPerRequest: 64 });
  return storeMeasuredRun(
    db,
    { endpointId, configId, startedAt: new Date(startedAt) },
    { ...result, client: { ...result.client, saturated } },
  );
}

/** ITL samples straight from the stored chunk arrays (uint32 LE offsets, uint16 LE tokens). */
async function exactItlUs(runIds: string[]): Promise<number[]> {
  const { rows } = await db.pool.query<{ offsets: Buffer; tokens: Buffer }>(
    `SELECT chunk_offsets_us AS offsets, chunk_tokens AS tokens FROM run_requests
      WHERE run_id = ANY($1::uuid[]) AND outcome = 'ok' AND NOT warmup`,
    [runIds],
  );
  const samples = rows.flatMap(({ offsets, tokens }) => storedItlUs(offsets, tokens));
  return samples.sort((a, b) => a - b);
}

const ids: Record<string, string> = {};

beforeAll(async () => {
  db = await openTestDatabase();
  endpointId = await storeEndpoint(db);
  fp16 = (await db.prisma.servingConfig.create({ data: { endpointId, version: 1, weightQuant: 'fp16' } })).id;
  fp8 = (await db.prisma.servingConfig.create({ data: { endpointId, version: 2, weightQuant: 'fp8' } })).id;
  // Day 0: a fast and a 3x slower run; day 1: two fp8 runs; day 2: a client-saturated run.
  ids.fast = await storeRun(T0 + 3_600_000, fp16, 1, 1);
  ids.slow = await storeRun(T0 + 7_200_000, fp16, 2, 3);
  ids.a = await storeRun(T0 + DAY + 60_000, fp8, 3, 0.8);
  ids.b = await storeRun(T0 + DAY + 120_000, fp8, 4, 0.8);
  ids.saturated = await storeRun(T0 + 2 * DAY, fp8, 5, 5, true);
}, 60_000);

afterAll(() => db?.close());

const base = dailyItlP99(3);

describe('trend', () => {
  it('a daily P99 ITL is the percentile over every token of the day, within the histogram error', async () => {
    const result = await trend(analysisStores(db), base);
    expect(result.excludedSaturatedRuns).toBe(1);
    expect(result.series).toHaveLength(1);
    const [day0, day1] = result.series[0].points;
    expect(result.series[0].points).toHaveLength(2);

    const exact0 = percentile(await exactItlUs([ids.fast, ids.slow]), 0.99) / 1000;
    const exact1 = percentile(await exactItlUs([ids.a, ids.b]), 0.99) / 1000;
    expect(Math.abs((day0.value as number) - exact0)).toBeLessThanOrEqual(
      exact0 * HISTOGRAM_RELATIVE_ERROR + 0.0005,
    );
    expect(Math.abs((day1.value as number) - exact1)).toBeLessThanOrEqual(
      exact1 * HISTOGRAM_RELATIVE_ERROR + 0.0005,
    );

    // Not the average of the two runs' own P99s: the slow run owns the tail.
    const runs = await db.prisma.run.findMany({ where: { id: { in: [ids.fast, ids.slow] } } });
    const averaged = runs.reduce((sum, run) => sum + (run.itlP99Ms as number), 0) / 2;
    expect(Math.abs((day0.value as number) - averaged) / exact0).toBeGreaterThan(0.2);

    expect(day0).toMatchObject({ start: new Date(T0), runs: 2, requests: 40, tokens: 40 * 64 });
    expect(day0.samples).toBe(40 * 63);
    expect(day0.configVersions).toEqual([{ endpointId, version: 1 }]);
    expect(day1.configVersions).toEqual([{ endpointId, version: 2 }]);
  });

  it('includes client-saturated runs on request, and groups by a serving-configuration field', async () => {
    const result = await trend(analysisStores(db), {
      ...base,
      includeSaturated: true,
      groupBy: ['weightQuant'],
    });
    expect(result.excludedSaturatedRuns).toBe(0);
    const byQuant = Object.fromEntries(
      result.series.map((s) => [s.key.weightQuant, s.points.map((p) => p.runs)]),
    );
    expect(byQuant).toEqual({ fp16: [2], fp8: [2, 1] });
  });

  it('filters by configuration and gives one point per run for bucket=run', async () => {
    const result = await trend(analysisStores(db), {
      ...base,
      bucket: 'run',
      config: { weightQuant: ['fp8'] },
    });
    const points = result.series[0].points;
    expect(points.map((p) => p.runId)).toEqual([ids.a, ids.b]);
    const runA = await db.prisma.run.findUniqueOrThrow({ where: { id: ids.a } });
    const exact = percentile(await exactItlUs([ids.a]), 0.99) / 1000;
    expect(Math.abs((points[0].value as number) - exact)).toBeLessThanOrEqual(
      exact * HISTOGRAM_RELATIVE_ERROR + 0.0005,
    );
    expect(Math.abs((points[0].value as number) - (runA.itlP99Ms as number))).toBeLessThanOrEqual(
      exact * HISTOGRAM_RELATIVE_ERROR + 0.0005,
    );
  });

  it('pools rates: total output tokens over total measured time', async () => {
    const result = await trend(analysisStores(db), {
      ...base,
      metric: 'output_tokens_per_s',
      statistic: 'mean',
    });
    const runs = await db.prisma.run.findMany({ where: { id: { in: [ids.fast, ids.slow] } } });
    const seconds = runs.reduce((sum, run) => sum + Number(run.durationUs) / 1e6, 0);
    expect(result.series[0].points[0].value).toBeCloseTo((2 * 20 * 64) / seconds, 6);
  });

  it('the tail ratio P99/P50 and the mean come from the same merged histogram', async () => {
    const tail = await trend(analysisStores(db), { ...base, statistic: 'p99/p50' });
    const samples = await exactItlUs([ids.fast, ids.slow]);
    const exact = percentile(samples, 0.99) / percentile(samples, 0.5);
    expect(tail.unit).toBe('ratio');
    expect(Math.abs((tail.series[0].points[0].value as number) - exact) / exact).toBeLessThan(
      2 * HISTOGRAM_RELATIVE_ERROR + 0.001,
    );
  });

  it('answers an empty selection with an empty series and the reason', async () => {
    const result = await trend(analysisStores(db), { ...base, config: { weightQuant: ['int4'] } });
    expect(result.series).toEqual([]);
    expect(result.reason).toMatch(/no measured run/);
  });

  it.each<[string, Partial<TrendQuery>, string]>([
    ['an unknown metric', { metric: 'latency' }, 'metric'],
    ['a statistic the metric has not', { metric: 'output_tokens_per_s', statistic: 'p99' }, 'statistic'],
    ['the tail ratio of TTFT', { metric: 'ttft', statistic: 'p99/p50' }, 'statistic'],
    ['a metric without histograms', { metric: 'inter_chunk', statistic: 'p99' }, 'metric'],
    ['a reversed range', { from: new Date(T0 + DAY), to: new Date(T0) }, 'to'],
    ['an invalid date', { from: new Date(NaN) }, 'from'],
    ['too many buckets', { bucket: 'hour', from: new Date(0) }, 'bucket'],
    ['an unknown bucket', { bucket: 'month' as never }, 'bucket'],
    ['an unknown group field', { groupBy: ['colour' as never] }, 'groupBy'],
    ['an unknown config field', { config: { colour: ['red'] } as never }, 'colour'],
    ['a mistyped config value', { config: { gpuCount: ['eight'] } }, 'gpuCount'],
  ])('refuses %s, naming the parameter', async (_what, change, parameter) => {
    const error = await trend(analysisStores(db), { ...base, ...change }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(AnalysisInputError);
    expect((error as AnalysisInputError).parameter).toBe(parameter);
  });
});

describe('selectRuns', () => {
  it('selects by endpoint, trigger and time, oldest first, and counts saturated runs it leaves out', async () => {
    const selected = await selectRuns(new RunSelectionStore(db), {
      ...base,
      endpointIds: [endpointId],
      triggers: ['schedule'],
    });
    expect(selected.runs.map((r) => r.id)).toEqual([ids.fast, ids.slow, ids.a, ids.b]);
    expect(selected.excludedSaturated).toBe(1);
    expect(selected.runs[2]).toMatchObject({ configVersion: 2, config: { weightQuant: 'fp8' } });
    expect((await selectRuns(new RunSelectionStore(db), { ...base, triggers: ['manual'] })).runs).toEqual([]);
  });
});
