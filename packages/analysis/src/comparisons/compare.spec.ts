import { analysisStores, HISTOGRAM_RELATIVE_ERROR, LatencyHistogram, type Database } from '@teapot/db';
import { openTestDatabase, storeEndpoint, storeMeasuredRun, syntheticRunResult } from '@teapot/db/testing';
import { percentile, type RunSummary } from '@teapot/measure';
import { mannWhitneyU } from '@teapot/stats';
import { AnalysisInputError } from '../errors';
import type { Comparison, MetricComparison } from './compare';
import type { ComparisonQuery } from './comparison-query';
import { compareRuns } from './load-comparison';
import { DAY, T0 } from '../test-support/stretched-runs';

let db: Database;
let endpointId: string;
let fp16: string;
let fp8: string;
const WORKLOAD = {
  workload: { kind: 'synthetic', inputTokens: 512, outputTokens: 64 },
  load: { kind: 'closed', concurrency: 4 },
  requestCount: 20,
};

async function storeRun(
  startedAt: number,
  configId: string,
  seed: number,
  scale: number,
  snapshot: object = WORKLOAD,
): Promise<string> {
  return storeMeasuredRun(
    db,
    { endpointId, configId, profileSnapshot: snapshot, startedAt: new Date(startedAt) },
    syntheticRunResult({ requests: 20, tokensPerRequest: 64, seed, gapScale: scale }),
  );
}

/** Per request, straight from the stored chunk arrays: its TTFT and its ITL samples (us). */
async function exactRequests(runIds: string[]): Promise<Array<{ ttft: number; itl: number[] }>> {
  const { rows } = await db.pool.query<{ offsets: Buffer; tokens: Buffer }>(
    `SELECT chunk_offsets_us AS offsets, chunk_tokens AS tokens FROM run_requests
      WHERE run_id = ANY($1::uuid[]) AND outcome = 'ok' AND NOT warmup`,
    [runIds],
  );
  return rows.map(({ offsets, tokens }) => {
    let previous: number | null = null;
    let ttft = NaN;
    const itl: number[] = [];
    for (let k = 0; k < offsets.length / 4; k++) {
      const m = tokens.readUInt16LE(2 * k);
      if (m === 0) continue;
      const at = offsets.readUInt32LE(4 * k);
      if (previous === null) ttft = at;
      else for (let j = 0; j < m; j++) itl.push((at - previous) / m);
      previous = at;
    }
    return { ttft, itl };
  });
}

const sorted = (values: number[]) => Float64Array.from(values).sort();
const row = (comparison: Comparison, metric: string, statistic: string): MetricComparison => {
  const found = comparison.metrics.find((m) => m.metric === metric && m.statistic === statistic);
  if (!found) throw new Error(`no row ${metric} ${statistic}`);
  return found;
};

const ids = { baseline: [] as string[], slower: [] as string[], same: [] as string[], other: '' };
const window = { fp16: [] as string[], fp8: [] as string[] };

beforeAll(async () => {
  db = await openTestDatabase();
  endpointId = await storeEndpoint(db);
  const h100 = { gpuModel: 'H100 SXM', gpuCount: 1, tensorParallel: 1 };
  fp16 = (
    await db.prisma.servingConfig.create({ data: { endpointId, version: 1, weightQuant: 'fp16', ...h100 } })
  ).id;
  fp8 = (
    await db.prisma.servingConfig.create({ data: { endpointId, version: 2, weightQuant: 'fp8', ...h100 } })
  ).id;
  for (let i = 0; i < 3; i++) {
    ids.baseline.push(await storeRun(T0 + i * 60_000, fp16, 1 + i, 1));
    ids.slower.push(await storeRun(T0 + 3_600_000 + i * 60_000, fp16, 11 + i, 1.5));
    ids.same.push(await storeRun(T0 + 7_200_000 + i * 60_000, fp16, 21 + i, 1));
  }
  ids.other = await storeRun(T0 + 10_800_000, fp16, 31, 1, {
    ...WORKLOAD,
    workload: { kind: 'synthetic', inputTokens: 2048, outputTokens: 64 },
  });
  // Day 2: 12 fp16 runs; day 3: 12 fp8 runs, 30% faster (a window/config comparison resamples runs).
  for (let i = 0; i < 12; i++) {
    window.fp16.push(await storeRun(T0 + 2 * DAY + i * 3_600_000, fp16, 100 + i, 1));
    window.fp8.push(await storeRun(T0 + 3 * DAY + i * 3_600_000, fp8, 200 + i, 0.7));
  }
}, 120_000);

afterAll(() => db?.close());

/** The pool's statements and their parameters, recorded as the stores send them. */
function countingPool(): { pool: Database['pool']; queries: Array<{ text: string; values: unknown[] }> } {
  const queries: Array<{ text: string; values: unknown[] }> = [];
  const pool = new Proxy(db.pool, {
    get(target, property) {
      if (property !== 'query') return Reflect.get(target, property, target);
      return (text: string, values: unknown[]) => {
        queries.push({ text, values });
        return target.query(text, values);
      };
    },
  });
  return { pool, queries };
}

describe('what a comparison reads', () => {
  it.each(['runs', 'requests'] as const)(
    "reads each side's stored histograms once when it resamples %s",
    async (resample) => {
      const { pool, queries } = countingPool();
      const sides = resample === 'runs' ? window : { fp16: ids.baseline, fp8: ids.slower };
      const comparison = await compareRuns(analysisStores(pool), {
        baseline: { runIds: sides.fp16 },
        candidate: { runIds: sides.fp8 },
        resample,
        iterations: 200,
      });
      expect(comparison.resampling.unit).toBe(resample);
      expect(comparison.distributions?.baseline.samples).toBeGreaterThan(0);
      expect(comparison.roofline?.candidate.tpotP50Ms).not.toBeNull();
      const histogramReads = queries.filter((query) => query.text.includes('FROM run_histograms'));
      for (const side of [sides.fp16, sides.fp8]) {
        const reads = histogramReads.filter((query) =>
          (query.values[0] as string[]).some((id) => side.includes(id)),
        );
        expect(reads).toHaveLength(1);
      }
    },
  );
});

describe('compare', () => {
  it("gives each side's ITL distribution as CDF points within the histogram error of the exact one", async () => {
    const comparison = await compareRuns(analysisStores(db), {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: ids.slower },
      metrics: ['ttft'],
    });
    const distributions = comparison.distributions!;
    expect(distributions).toMatchObject({ metric: 'itl', unit: 'ms' });
    for (const [side, runIds] of [
      ['baseline', ids.baseline],
      ['candidate', ids.slower],
    ] as const) {
      const exact = sorted((await exactRequests(runIds)).flatMap((r) => r.itl));
      const { samples, points } = distributions[side];
      expect(samples).toBe(exact.length);
      expect(points.length).toBeGreaterThan(20);
      expect(points.length).toBeLessThanOrEqual(200);
      expect(points[points.length - 1].fraction).toBe(1);
      for (const [i, point] of points.entries()) {
        // The value at each fraction is that quantile of every token of the side's runs.
        const want = percentile(exact, point.fraction) / 1000;
        expect(Math.abs(point.value - want)).toBeLessThanOrEqual(want * HISTOGRAM_RELATIVE_ERROR + 0.0005);
        if (i > 0) {
          expect(point.value).toBeGreaterThan(points[i - 1].value);
          expect(point.fraction).toBeGreaterThan(points[i - 1].fraction);
        }
      }
    }
    // The 50% slower side's curve lies to the right: its median is about 1.5 times the baseline's.
    const median = (side: 'baseline' | 'candidate') =>
      distributions[side].points.find((p) => p.fraction >= 0.5)!.value;
    expect(median('candidate') / median('baseline')).toBeGreaterThan(1.4);
  });

  it('has no distributions when a side has no run', async () => {
    const comparison = await compareRuns(analysisStores(db), {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: ['00000000-0000-4000-8000-000000000000'] },
    });
    expect(comparison.reason).toMatch(/candidate: no measured run/);
    expect(comparison.distributions).toBeNull();
  });

  it('finds a 50% slower candidate of a few runs by resampling requests, against exact values', async () => {
    const comparison = await compareRuns(analysisStores(db), {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: ids.slower },
    });
    expect(comparison.resampling.unit).toBe('requests');
    expect(comparison.baseline.runs).toBe(3);
    expect(comparison.baseline.unmatchedRunIds).toEqual([]);
    expect(comparison.workload.same).toBe(true);

    const baselineExact = await exactRequests(ids.baseline);
    const candidateExact = await exactRequests(ids.slower);
    const itl = row(comparison, 'itl', 'p50');
    const exactB = percentile(sorted(baselineExact.flatMap((r) => r.itl)), 0.5) / 1000;
    const exactC = percentile(sorted(candidateExact.flatMap((r) => r.itl)), 0.5) / 1000;
    expect(Math.abs(itl.baseline! - exactB) / exactB).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    expect(Math.abs(itl.candidate! - exactC) / exactC).toBeLessThanOrEqual(HISTOGRAM_RELATIVE_ERROR);
    expect(itl.samples).toEqual({ baseline: 3 * 20 * 63, candidate: 3 * 20 * 63 });
    expect(itl.delta).toBeCloseTo(itl.candidate! - itl.baseline!, 12);
    expect(itl.relativeDelta).toBeGreaterThan(0.45);
    expect(itl.ci![0]).toBeLessThan(itl.delta!);
    expect(itl.ci![1]).toBeGreaterThan(itl.delta!);
    expect(itl.ci![0]).toBeGreaterThan(0);
    expect(itl.verdict).toBe('regressed');
    // The rank test's samples for ITL: each request's own p50 over its tokens.
    const perRequestP50 = (requests: typeof baselineExact) =>
      requests.map((r) => percentile(sorted(r.itl), 0.5));
    expect(itl.pValueOver).toBe('requests');
    expect(itl.pValue).toBe(mannWhitneyU(perRequestP50(baselineExact), perRequestP50(candidateExact)).pValue);

    // TTFT's rank test is over each request's TTFT (its first token gap was stretched too).
    const ttft = row(comparison, 'ttft', 'p50');
    expect(ttft.pValue).toBe(
      mannWhitneyU(
        baselineExact.map((r) => r.ttft),
        candidateExact.map((r) => r.ttft),
      ).pValue,
    );
    expect(ttft.relativeDelta).toBeGreaterThan(0);
    // 60 requests a side cannot carry a P99 TTFT: said, and left out of the overall verdict.
    const ttftP99 = row(comparison, 'ttft', 'p99');
    expect(ttftP99.insufficient).toMatch(/baseline has 60 requests: p99 needs at least 1000/);
    expect(ttftP99.ci).toBeNull();
    expect(ttftP99.verdict).toBe('inconclusive');

    const tokensPerS = row(comparison, 'output_tokens_per_s', 'mean');
    const summaries = await db.prisma.run.findMany({ where: { id: { in: ids.baseline } } });
    const pooled =
      summaries.reduce((n, r) => n + (r.summary as unknown as RunSummary).outputTokens, 0) /
      summaries.reduce((n, r) => n + (r.summary as unknown as RunSummary).durationS, 0);
    expect(tokensPerS.baseline).toBeCloseTo(pooled, 9);
    expect(tokensPerS.verdict).toBe('regressed');
    expect(tokensPerS.pValueOver).toBe('runs');
    const errors = row(comparison, 'error_rate', 'mean');
    expect(errors.threshold).toEqual({ value: 0.01, kind: 'absolute', source: 'default' });
    expect(errors.verdict).toBe('unchanged');
    expect(comparison.verdict).toBe('regressed');
  });

  it('calls runs of the same server unchanged, and is reproducible from its seed', async () => {
    const query: ComparisonQuery = {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: ids.same },
      metrics: ['itl', 'tpot'],
      statistics: ['p50', 'mean'],
      thresholds: { itl: 0.1, tpot: 0.1, 'tpot.mean': 0.2 },
    };
    const comparison = await compareRuns(analysisStores(db), query);
    for (const m of comparison.metrics) {
      const value = m.metric === 'tpot' && m.statistic === 'mean' ? 0.2 : 0.1;
      expect(m.threshold).toEqual({ value, kind: 'relative', source: 'request' });
      expect(m.verdict).toBe('unchanged');
    }
    expect(comparison.verdict).toBe('unchanged');
    expect(await compareRuns(analysisStores(db), query)).toEqual(comparison);
    const reseeded = await compareRuns(analysisStores(db), { ...query, seed: 2 });
    // Another seed draws other resamples (one row's ends may still land on the same histogram buckets).
    expect(reseeded.metrics.map((m) => m.ci)).not.toEqual(comparison.metrics.map((m) => m.ci));
    expect(reseeded.metrics[0].baseline).toBe(comparison.metrics[0].baseline);
  });

  it('resamples runs when both sides have enough, over a window and a configuration filter', async () => {
    const window3 = { from: new Date(T0 + 2 * DAY), to: new Date(T0 + 4 * DAY) };
    const comparison = await compareRuns(analysisStores(db), {
      baseline: { ...window3, endpointIds: [endpointId], config: { weightQuant: ['fp16'] } },
      candidate: { ...window3, endpointIds: [endpointId], config: { weightQuant: ['fp8'] } },
      metrics: ['itl', 'output_tokens_per_s'],
      statistics: ['p99'],
    });
    expect(comparison.resampling.unit).toBe('runs');
    expect(comparison.baseline.runIds).toEqual(window.fp16);
    expect(comparison.configDifferences).toEqual([
      { field: 'weightQuant', baseline: ['fp16'], candidate: ['fp8'] },
    ]);
    const itl = row(comparison, 'itl', 'p99');
    expect(itl.verdict).toBe('improved');
    expect(itl.relativeDelta).toBeLessThan(-0.25);
    expect(itl.relativeCi![1]).toBeLessThan(0);
    // The rank test's samples are the runs: each run's P99 ITL from its stored histogram.
    const perRunP99 = async (runIds: string[]) =>
      (await db.prisma.runHistogram.findMany({ where: { runId: { in: runIds }, metric: 'itl' } })).map(
        (h) => LatencyHistogram.decode(h.encoded).percentile(0.99)! / 1000,
      );
    expect(itl.pValueOver).toBe('runs');
    expect(itl.pValue).toBe(mannWhitneyU(await perRunP99(window.fp16), await perRunP99(window.fp8)).pValue);
    expect(row(comparison, 'output_tokens_per_s', 'mean').verdict).toBe('improved');
    expect(comparison.verdict).toBe('improved');

    // llama-8b on one H100 SXM (3.35 TB/s): 16.06 GB of fp16 weights take 4.79 ms a step, fp8 half that.
    const { baseline, candidate } = comparison.roofline!;
    expect(baseline.floorMs).toBeCloseTo(((8.03e9 * 2) / 3.35e12) * 1000, 9);
    expect(candidate.floorMs).toBeCloseTo(((8.03e9 * 1) / 3.35e12) * 1000, 9);
    expect(baseline).toMatchObject({
      gpu: 'h100-sxm',
      paramsFrom: 'catalogue',
      bytesPerWeight: 2,
      tensorParallel: 1,
    });
    const tpotP50 = async (runIds: string[]) => {
      const histograms = await db.prisma.runHistogram.findMany({
        where: { runId: { in: runIds }, metric: 'tpot' },
      });
      return (
        histograms
          .map((h) => LatencyHistogram.decode(h.encoded))
          .reduce((a, b) => a.merge(b))
          .percentile(0.5)! / 1000
      );
    };
    expect(baseline.tpotP50Ms).toBe(await tpotP50(window.fp16));
    expect(baseline.achievedFraction).toBeCloseTo(baseline.floorMs! / baseline.tpotP50Ms!, 12);
    expect(candidate.achievedFraction).toBeCloseTo(candidate.floorMs! / (await tpotP50(window.fp8)), 12);
  });

  it('says when the sides ran different workloads, share runs, or one side is empty', async () => {
    const differing = await compareRuns(analysisStores(db), {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: [ids.other, ids.same[0]] },
      metrics: ['itl'],
    });
    expect(differing.workload.same).toBe(false);
    expect(differing.workload.differences.map((d) => d.field)).toEqual(['workload']);
    expect(differing.notes.join('\n')).toMatch(/workloads differ \(workload\): not like with like/);

    const shared = await compareRuns(analysisStores(db), {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: [ids.baseline[0], ...ids.same] },
      metrics: ['itl'],
    });
    expect(shared.notes.join('\n')).toMatch(/1 runs are on both sides/);

    const missing = '00000000-0000-4000-8000-000000000000';
    const empty = await compareRuns(analysisStores(db), {
      baseline: { runIds: ids.baseline },
      candidate: { runIds: [missing] },
    });
    expect(empty.metrics).toEqual([]);
    expect(empty.reason).toBe('candidate: no measured run matches');
    expect(empty.candidate.unmatchedRunIds).toEqual([missing]);
    expect(empty.verdict).toBe('inconclusive');
  });

  it('refuses bad input naming the parameter', async () => {
    const good: ComparisonQuery = { baseline: { runIds: ids.baseline }, candidate: { runIds: ids.same } };
    const cases: Array<[Partial<ComparisonQuery> | Record<string, unknown>, string]> = [
      [{ metrics: ['itl', 'vibes'] }, 'metrics'],
      [{ metrics: [] }, 'metrics'],
      [{ metrics: ['inter_chunk'] }, 'metrics'],
      [{ statistics: ['p42'] }, 'statistics'],
      [{ metrics: ['tpot'], statistics: ['p99/p50'] }, 'statistics'],
      [{ thresholds: { itl: -1 } }, 'thresholds.itl'],
      [{ thresholds: { 'itl.p42': 0.1 } }, 'thresholds.itl.p42'],
      [{ iterations: 50 }, 'iterations'],
      [{ iterations: 1e9 }, 'iterations'],
      [{ seed: -1 }, 'seed'],
      [{ candidate: { from: new Date(T0), config: { weightQuant: 'fp8' } } }, 'candidate.config.weightQuant'],
      [{ candidate: { from: new Date(T0), config: { vibes: ['x'] } } }, 'candidate.config.vibes'],
      [{ resample: 'tokens' }, 'resample'],
      [{ baseline: {} }, 'baseline.from'],
      [{ candidate: { runIds: ['not-a-uuid'] } }, 'candidate.runIds'],
      [{ candidate: { runIds: [] } }, 'candidate.runIds'],
      [{ candidate: { from: new Date(T0), to: new Date(T0 - 1) } }, 'candidate.to'],
      [{ candidate: { from: new Date(T0), config: { gpuCount: ['two'] } } }, 'candidate.config.gpuCount'],
    ];
    for (const [change, parameter] of cases) {
      const error = await compareRuns(analysisStores(db), { ...good, ...change } as ComparisonQuery).catch(
        (e: unknown) => e,
      );
      expect(error).toBeInstanceOf(AnalysisInputError);
      expect([change, (error as AnalysisInputError).parameter]).toEqual([change, parameter]);
    }
  });
});
