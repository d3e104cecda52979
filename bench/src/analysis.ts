/**
 * Analysis speed over a generated history: days x runs/day x endpoints runs of requests x tokens
 * (default 90 x 24 x 4 x 200 x 256, ~442M token timings), written with @teapot/db's bulk writer (which
 * also writes the rollups) into a database the benchmark creates. Then, for one endpoint, a daily P99
 * ITL trend through @teapot/analysis (the API route's code path, reading daily rollups), repeated,
 * against the baseline of the exact percentile computed in SQL over the raw stored chunk arrays, in
 * the same run; the same trend from per-run histograms and the rows and bytes each reads are printed.
 *
 *   npm run bench:analysis [-- --days 7 --requests 50] [-- --keep]
 *
 * --keep leaves the database for the next run with the same shape, which then skips generation.
 * Targets: trend median < 100 ms and >= 50x faster than the SQL baseline; a comparison of two 7-day
 * windows with bootstrap < 1 s.
 */
import { loadavg } from 'node:os';
import { performance } from 'node:perf_hooks';
import { compareRuns, trend } from '@teapot/analysis';
import {
  analysisStores,
  createDatabase,
  dropDatabase,
  ensureDatabase,
  migrate,
  persistRunResult,
  readMeasuredRequests,
  RunHistogramStore,
  type Database,
} from '@teapot/db';
import {
  exactDailyItlP99,
  storedItlSizes,
  syntheticRunResult,
  truncateRunHistory,
  type StoredSize,
} from '@teapot/db/testing';
import { percentile, requestMetrics } from '@teapot/measure';
import { bootstrapDeltas, type Pooling } from '@teapot/stats';
import { positiveIntOption as option } from './harness';

const DAY_MS = 86_400_000;
const TARGET_TREND_MS = 100;
const TARGET_RATIO = 50;
const TARGET_COMPARISON_MS = 1_000;
const REPEATS = 7;
const WRITERS = 2;

const shape = {
  days: option('days', 90),
  runsPerDay: option('runs-per-day', 24),
  endpoints: option('endpoints', 4),
  requests: option('requests', 200),
  tokens: option('tokens', 256),
};
const keep = process.argv.includes('--keep');

/** A figure the bench prints; comparisons and change points add theirs to ANALYSIS_FIGURES. */
interface AnalysisFigure {
  name: string;
  run(history: History): Promise<string>;
}

interface History {
  db: Database;
  endpointIds: string[];
  from: Date;
  to: Date;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)];
}

async function generate(db: Database, from: Date): Promise<string[]> {
  const endpointIds: string[] = [];
  for (let e = 0; e < shape.endpoints; e++) {
    const endpoint = await db.prisma.endpoint.create({
      data: { name: `bench-${e}`, baseUrl: 'http://127.0.0.1:1/v1', apiKind: 'chat', model: 'llama-8b' },
    });
    await db.prisma.servingConfig.create({
      data: { endpointId: endpoint.id, version: 1, weightQuant: e % 2 ? 'fp8' : 'fp16', gpuModel: 'H100' },
    });
    endpointIds.push(endpoint.id);
  }
  const configs = await db.prisma.servingConfig.findMany();
  const configOf = new Map(configs.map((c) => [c.endpointId, c.id]));
  const slots: Array<[string, number]> = [];
  const gapMs = DAY_MS / shape.runsPerDay;
  for (let i = 0; i < shape.days * shape.runsPerDay; i++) {
    for (const id of endpointIds) slots.push([id, from.getTime() + i * gapMs]);
  }
  const start = performance.now();
  let done = 0;
  let next = 0;
  const writer = async () => {
    while (next < slots.length) {
      const [endpointId, at] = slots[next++];
      const run = await db.prisma.run.create({
        data: {
          endpointId,
          configId: configOf.get(endpointId),
          profileSnapshot: {},
          trigger: 'schedule',
          status: 'running',
          startedAt: new Date(at),
        },
      });
      const result = syntheticRunResult({
        requests: shape.requests,
        tokensPerRequest: shape.tokens,
        seed: next,
      });
      await persistRunResult(db, run.id, result, { finishedAt: new Date(at + 60_000) });
      if (++done % 500 === 0) {
        const s = (performance.now() - start) / 1000;
        console.log(
          `  ${done}/${slots.length} runs written (${((done * shape.requests * shape.tokens) / s / 1e6).toFixed(2)}M tokens/s)`,
        );
      }
    }
  };
  await Promise.all(Array.from({ length: WRITERS }, writer));
  console.log(`generated ${slots.length} runs in ${((performance.now() - start) / 1000).toFixed(0)} s`);
  return endpointIds;
}

/** Rows and bytes of stored histograms a daily ITL trend of one endpoint reads, per source. */
async function trendCost(history: History, endpointId: string): Promise<string[]> {
  const sizes = await storedItlSizes(history.db, { endpointId, from: history.from, to: history.to });
  const line = (what: string, size: StoredSize) => {
    const perPoint = size.rows / shape.days;
    return `${what}: ${size.rows} rows, ${(size.bytes / 1024).toFixed(0)} KiB (${perPoint.toFixed(1)} rows, ${(size.bytes / shape.days / 1024).toFixed(1)} KiB per daily point)`;
  };
  return [line('read from daily rollups', sizes.rollups), line('per-run histograms instead', sizes.perRun)];
}

async function medianTime(repeats: number, call: () => Promise<unknown>): Promise<number> {
  await call();
  const times: number[] = [];
  for (let i = 0; i < repeats; i++) {
    const start = performance.now();
    await call();
    times.push(performance.now() - start);
  }
  return median(times);
}

const dailyTrend: AnalysisFigure = {
  name: 'daily P99 ITL trend',
  async run(history) {
    const endpointId = history.endpointIds[0];
    const query = {
      metric: 'itl',
      statistic: 'p99',
      bucket: 'day' as const,
      from: history.from,
      to: history.to,
      endpointIds: [endpointId],
    };
    const result = await trend(analysisStores(history.db), query);
    const trendMs = await medianTime(REPEATS, () => trend(analysisStores(history.db), query));
    const perRunMs = await medianTime(REPEATS, () =>
      trend(analysisStores(history.db), query, { source: 'runs' }),
    );
    const points = result.series[0]?.points ?? [];
    const start = performance.now();
    const exact = await exactDailyItlP99(history.db, { endpointId, from: history.from, to: history.to });
    const baselineMs = performance.now() - start;
    let worst = 0;
    for (const p of points) {
      const e = exact.get(p.start.getTime());
      if (e !== undefined && p.value !== null) worst = Math.max(worst, Math.abs(p.value - e) / e);
    }
    const ratio = baselineMs / trendMs;
    return [
      `${points.length} daily points, ${points.reduce((n, p) => n + p.runs, 0)} runs, ${points.reduce((n, p) => n + p.samples, 0).toLocaleString('en-US')} token samples; read ${result.read.rollupRows} rollup rows and ${result.read.runs} runs`,
      ...(await trendCost(history, endpointId)),
      `trend median of ${REPEATS} (rollups): ${trendMs.toFixed(1)} ms (target < ${TARGET_TREND_MS} ms: ${trendMs < TARGET_TREND_MS ? 'met' : 'MISSED'}); load average ${loadavg()[0].toFixed(2)}`,
      `the same trend from per-run histograms: ${perRunMs.toFixed(1)} ms (${(perRunMs / trendMs).toFixed(1)}x the rollups)`,
      `exact SQL percentile over the raw tokens: ${baselineMs.toFixed(0)} ms -> ${ratio.toFixed(0)}x (target >= ${TARGET_RATIO}x: ${ratio >= TARGET_RATIO ? 'met' : 'MISSED'})`,
      `largest relative difference trend vs exact over ${exact.size} days: ${(100 * worst).toFixed(3)}%`,
    ].join('\n  ');
  },
};

/** The exact P99 ITL (ms) over every raw token of these runs, read and sorted in this process. */
async function exactItlP99(db: Database, runIds: string[]): Promise<number> {
  const values: number[] = [];
  for (const id of runIds) {
    const { byRun } = await readMeasuredRequests(db, [id]);
    for (const record of byRun.get(id) ?? []) for (const v of requestMetrics(record).itlUs) values.push(v);
  }
  return percentile(Float64Array.from(values).sort(), 0.99) / 1000;
}

/** The distribution metrics a default comparison bootstraps, and its statistics. */
const BOOTSTRAPPED = ['itl', 'tpot', 'ttft', 'e2e'] as const;

/**
 * The bootstrap of every distribution row of a default comparison (each metric's p50, p90, p99 from
 * the same resamples of whole runs, 2,000 iterations, as compare() runs it) over the stored per-run
 * histograms, pooled as `pooling` says: `counts` is the previous implementation, `auto` the current.
 */
async function bootstrapPhase(db: Database, runIds: [string[], string[]], pooling: Pooling) {
  const sides = await Promise.all(
    runIds.map(async (ids) => {
      const stored = await new RunHistogramStore(db).nonEmpty(ids, BOOTSTRAPPED);
      return (metric: string) => stored.filter((row) => row.metric === metric).map((row) => row.histogram);
    }),
  );
  const start = performance.now();
  const results = BOOTSTRAPPED.map((metric) =>
    bootstrapDeltas({
      baseline: sides[0](metric),
      candidate: sides[1](metric),
      statistics: ['p50', 'p90', 'p99'],
      resample: 'runs',
      iterations: 2_000,
      seed: 1,
      pooling,
    }),
  );
  return { ms: performance.now() - start, results };
}

/**
 * Two adjacent windows of one endpoint (7 days each when the history has 14) compared with the
 * default metrics and a 2,000-iteration bootstrap, against the baseline of reading both windows' raw
 * tokens once for one exact P99 (what any comparison over raw timings must at least do). The
 * bootstrap alone is also timed pooled both ways (see @teapot/stats' Pooling): previous vs current.
 */
const windowComparison: AnalysisFigure = {
  name: 'comparison of two windows with bootstrap',
  async run(history) {
    const days = Math.min(7, Math.floor(shape.days / 2));
    if (days < 1) return 'skipped: needs a history of at least 2 days';
    const endpointIds = [history.endpointIds[0]];
    const split = new Date(history.to.getTime() - days * DAY_MS);
    const query = {
      baseline: { from: new Date(split.getTime() - days * DAY_MS), to: split, endpointIds },
      candidate: { from: split, to: history.to, endpointIds },
    };
    let result = await compareRuns(analysisStores(history.db), query);
    const times: number[] = [];
    // This process's CPU per comparison (Postgres's is not in it): what the wall time is on an idle core.
    const cpu: number[] = [];
    for (let i = 0; i < REPEATS; i++) {
      const start = performance.now();
      const used = process.cpuUsage();
      result = await compareRuns(analysisStores(history.db), query);
      times.push(performance.now() - start);
      const { user, system } = process.cpuUsage(used);
      cpu.push((user + system) / 1000);
    }
    const start = performance.now();
    const exact = [
      await exactItlP99(history.db, result.baseline.runIds),
      await exactItlP99(history.db, result.candidate.runIds),
    ];
    const baselineMs = performance.now() - start;
    const comparisonMs = median(times);
    const runIds: [string[], string[]] = [result.baseline.runIds, result.candidate.runIds];
    const phases = { counts: [] as number[], auto: [] as number[] };
    let same = true;
    for (let i = 0; i < 3; i++) {
      const previous = await bootstrapPhase(history.db, runIds, 'counts');
      const current = await bootstrapPhase(history.db, runIds, 'auto');
      phases.counts.push(previous.ms);
      phases.auto.push(current.ms);
      same &&= JSON.stringify(previous.results) === JSON.stringify(current.results);
    }
    const [previousMs, currentMs] = [median(phases.counts), median(phases.auto)];
    const itl = result.metrics.find((m) => m.metric === 'itl' && m.statistic === 'p99');
    const verdicts = result.metrics.map((m) => m.verdict);
    return [
      `${days}-day windows, ${result.baseline.runs} vs ${result.candidate.runs} runs, ${result.metrics.length} rows, ${result.iterations} iterations, resampled ${result.resampling.unit}`,
      `comparison median of ${REPEATS}: ${comparisonMs.toFixed(0)} ms (target < ${TARGET_COMPARISON_MS} ms: ${comparisonMs < TARGET_COMPARISON_MS ? 'met' : 'MISSED'}), ${median(cpu).toFixed(0)} ms of this process's CPU; load average ${loadavg()[0].toFixed(2)}`,
      `its bootstrap of ${BOOTSTRAPPED.length} metrics x 3 statistics, median of 3: ${currentMs.toFixed(0)} ms pooled by prefix vs ${previousMs.toFixed(0)} ms by counts (the previous implementation) -> ${(previousMs / currentMs).toFixed(1)}x; intervals identical: ${same ? 'yes' : 'NO'}`,
      `exact P99 ITL of both windows from the raw tokens: ${baselineMs.toFixed(0)} ms -> ${(baselineMs / comparisonMs).toFixed(1)}x`,
      `P99 ITL ${itl?.baseline?.toFixed(3)} vs ${itl?.candidate?.toFixed(3)} ms (exact ${exact[0].toFixed(3)} vs ${exact[1].toFixed(3)}); verdicts: ${verdicts.filter((v) => v === 'unchanged').length} unchanged of ${verdicts.length}, overall ${result.verdict}`,
    ].join('\n  ');
  },
};

/** Every figure of this bench, in order. */
const ANALYSIS_FIGURES: AnalysisFigure[] = [dailyTrend, windowComparison];

async function main(): Promise<void> {
  const name = `teapot_bench_analysis_${shape.days}d_${shape.runsPerDay}r_${shape.endpoints}e_${shape.requests}x${shape.tokens}`;
  const server = new URL(process.env.DATABASE_URL ?? 'postgresql://postgres@127.0.0.1:5432/postgres');
  server.pathname = `/${name}`;
  const url = server.toString();
  const from = new Date(Date.UTC(2026, 0, 1));
  const to = new Date(from.getTime() + shape.days * DAY_MS);
  const tokens = shape.days * shape.runsPerDay * shape.endpoints * shape.requests * shape.tokens;
  console.log(
    `history: ${shape.days} days x ${shape.runsPerDay} runs/day x ${shape.endpoints} endpoints x ${shape.requests} requests x ${shape.tokens} tokens = ${(tokens / 1e6).toFixed(1)}M token timings`,
  );
  await ensureDatabase(url);
  const migrateStart = performance.now();
  const migrated = await migrate(url);
  if (migrated.rolledUpDays > 0) {
    // A history kept from before rollups existed: the migration runner's backfill rolled it up.
    console.log(
      `backfilled rollups of ${migrated.rolledUpDays} endpoint-days in ${((performance.now() - migrateStart) / 1000).toFixed(1)} s`,
    );
  }
  const db = createDatabase(url, { max: WRITERS + 2 });
  try {
    const expected = shape.days * shape.runsPerDay * shape.endpoints;
    const have = await db.prisma.run.count({ where: { status: 'succeeded' } });
    let endpointIds: string[];
    if (have === expected) {
      console.log(`reusing the ${have} runs kept in ${name}`);
      endpointIds = (await db.prisma.endpoint.findMany({ orderBy: { name: 'asc' } })).map((e) => e.id);
    } else {
      await truncateRunHistory(db);
      endpointIds = await generate(db, from);
    }
    await db.pool.query('ANALYZE');
    for (const figure of ANALYSIS_FIGURES) {
      console.log(`${figure.name}:\n  ${await figure.run({ db, endpointIds, from, to })}`);
    }
  } finally {
    await db.close();
    if (!keep) await dropDatabase(url);
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
