import {
  METRICS,
  statisticUnit,
  type MetricDefinition,
  type MetricName,
  type Statistic,
} from '@teapot/contracts';
import type { ConfigValue, RollupBucket, SelectedRun } from '@teapot/db';
import { LatencyHistogram } from '@teapot/stats';
import { histogramStatistic } from './histogram-statistic';
import type { Trend, TrendBucket, TrendGroupField, TrendPoint, TrendQuery, TrendSeries } from './trend';

export const BUCKET_MS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
// 1970-01-01 was a Thursday: weeks start on Monday, 3 days later.
const WEEK_ORIGIN_MS = 3 * 86_400_000;

/** What a trend read: runs one by one with their samples, and rollup rows (saturated ones too). */
export interface LoadedTrend {
  runs: Array<{ run: SelectedRun; samples: RunSamples }>;
  rollups: RollupBucket[];
  /** Client-saturated runs the run-by-run reads left out. */
  excludedSaturatedRuns: number;
}

/**
 * The trend's series from what it read, with no I/O: runs and rollup rows merge into the same points;
 * saturated rollup rows are left out (and counted) unless the query keeps them.
 */
export function trendOf(
  query: TrendQuery & { metric: MetricName; statistic: Statistic; groupBy: TrendGroupField[] },
  loaded: LoadedTrend,
): Trend {
  const { metric, statistic, groupBy } = query;
  const definition: MetricDefinition = METRICS[metric];
  const points = new PointSet(groupBy, query.bucket, definition);
  let excludedSaturatedRuns = loaded.excludedSaturatedRuns;
  for (const { run, samples } of loaded.runs) points.addRun(run, samples);
  for (const row of loaded.rollups) {
    if (row.clientSaturated && !query.includeSaturated) excludedSaturatedRuns += row.runs;
    else points.addRollup(row);
  }
  const base: Omit<Trend, 'series'> = {
    metric,
    statistic,
    unit: statisticUnit(statistic, definition.unit),
    weighting: definition.weighting,
    bucket: query.bucket,
    from: query.from,
    to: query.to,
    groupBy,
    excludedSaturatedRuns,
    read: { rollupRows: loaded.rollups.length, runs: loaded.runs.length },
  };
  const series = points.series(statistic);
  if (series.length === 0) {
    const saturated = excludedSaturatedRuns
      ? ` (${excludedSaturatedRuns} client-saturated runs left out)`
      : '';
    return { ...base, series: [], reason: `no measured run matches the selection${saturated}` };
  }
  return { ...base, series };
}

export function bucketStart(at: Date, bucket: Exclude<TrendBucket, 'run'>): number {
  const size = BUCKET_MS[bucket];
  const origin = bucket === 'week' ? WEEK_ORIGIN_MS : 0;
  return Math.floor((at.getTime() - origin) / size) * size + origin;
}

export type RunSamples =
  | { kind: 'histogram'; encoded: Buffer }
  | { kind: 'totals'; numerator: number; denominator: number }
  | { kind: 'none' };

interface PointAccumulator {
  start: number;
  runId?: string;
  histogram: LatencyHistogram | null;
  numerator: number;
  denominator: number;
  rateRuns: number;
  runs: number;
  requests: number;
  tokens: number;
  versions: Map<string, { endpointId: string; version: number | null }>;
}

/** Points by series and bucket, merged from runs and rollup rows alike. */
class PointSet {
  private readonly bySeries = new Map<
    string,
    { key: TrendSeries['key']; buckets: Map<number | string, PointAccumulator> }
  >();

  constructor(
    private readonly groupBy: TrendGroupField[],
    private readonly bucket: TrendBucket,
    private readonly definition: MetricDefinition,
  ) {}

  addRun(run: SelectedRun, samples: RunSamples): void {
    const values = this.groupBy.map((field) =>
      field === 'endpoint' ? run.endpointId : field === 'profile' ? run.profileId : run.config[field],
    );
    const start = this.bucket === 'run' ? run.startedAt.getTime() : bucketStart(run.startedAt, this.bucket);
    const point = this.point(values, this.bucket === 'run' ? run.id : start, start);
    if (this.bucket === 'run') point.runId = run.id;
    this.count(point, run.endpointId, run.configVersion, 1, run.requests, run.tokens);
    if (samples.kind === 'histogram') this.histogramOf(point).mergeEncoded(samples.encoded);
    else if (samples.kind === 'totals') this.addTotals(point, samples.numerator, samples.denominator, 1);
  }

  addRollup(row: RollupBucket): void {
    const values = this.groupBy.map((field) =>
      field === 'endpoint'
        ? row.endpointId
        : field === 'profile'
          ? row.profileId
          : (row.config[field] ?? null),
    );
    const start = bucketStart(row.bucketStart, this.bucket as Exclude<TrendBucket, 'run'>);
    const point = this.point(values, start, start);
    this.count(point, row.endpointId, row.configVersion, row.runs, row.requests, row.tokens);
    if (row.encoded) this.histogramOf(point).mergeEncoded(row.encoded);
    if (row.numerator !== null && row.denominator !== null)
      this.addTotals(point, row.numerator, row.denominator, row.samples);
  }

  /** Series in the order of their keys (whatever order the runs and rows came in), points by time. */
  series(statistic: Statistic): TrendSeries[] {
    const ordered = [...this.bySeries.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return ordered.map(([, { key, buckets }]) => ({
      key,
      points: [...buckets.values()]
        .sort((a, b) => a.start - b.start)
        .map((point) => this.finish(point, statistic)),
    }));
  }

  private point(values: ConfigValue[], id: number | string, start: number): PointAccumulator {
    const seriesId = JSON.stringify(values);
    let series = this.bySeries.get(seriesId);
    if (!series) {
      const key = Object.fromEntries(this.groupBy.map((field, i) => [field, values[i]]));
      this.bySeries.set(seriesId, (series = { key, buckets: new Map() }));
    }
    let point = series.buckets.get(id);
    if (!point) {
      point = {
        start,
        histogram: null,
        numerator: 0,
        denominator: 0,
        rateRuns: 0,
        runs: 0,
        requests: 0,
        tokens: 0,
        versions: new Map(),
      };
      series.buckets.set(id, point);
    }
    return point;
  }

  private count(
    point: PointAccumulator,
    endpointId: string,
    version: number | null,
    runs: number,
    requests: number,
    tokens: number,
  ): void {
    point.runs += runs;
    point.requests += requests;
    point.tokens += tokens;
    point.versions.set(`${endpointId}:${version}`, { endpointId, version });
  }

  private histogramOf(point: PointAccumulator): LatencyHistogram {
    return (point.histogram ??= new LatencyHistogram());
  }

  private addTotals(point: PointAccumulator, numerator: number, denominator: number, runs: number): void {
    point.numerator += numerator;
    point.denominator += denominator;
    point.rateRuns += runs;
  }

  private finish(point: PointAccumulator, statistic: Statistic): TrendPoint {
    const distribution = this.definition.kind === 'distribution';
    const value = distribution
      ? point.histogram
        ? histogramStatistic(point.histogram, statistic)
        : null
      : point.denominator > 0
        ? point.numerator / point.denominator
        : null;
    return {
      start: new Date(point.start),
      value,
      runs: point.runs,
      requests: point.requests,
      tokens: point.tokens,
      samples: distribution ? (point.histogram?.count ?? 0) : point.rateRuns,
      configVersions: [...point.versions.values()].sort(
        (a, b) => a.endpointId.localeCompare(b.endpointId) || (a.version ?? -1) - (b.version ?? -1),
      ),
      ...(point.runId ? { runId: point.runId } : {}),
    };
  }
}
