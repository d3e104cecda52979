import {
  isMetricName,
  METRICS,
  STATISTIC_QUANTILES,
  type MetricDefinition,
  type MetricName,
  type Statistic,
} from '@teapot/contracts';
import { LatencyHistogram, poolOf, type RunStore } from '@teapot/db';
import type { RunSummary } from '@teapot/measure';
import { AnalysisInputError } from './errors';
import {
  selectRuns,
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigValue,
  type RunSelection,
  type SelectedRun,
  type ServingConfigField,
} from './selection';

export const TREND_BUCKETS = ['hour', 'day', 'week', 'run'] as const;
export type TrendBucket = (typeof TREND_BUCKETS)[number];
export type TrendGroupField = 'endpoint' | 'profile' | ServingConfigField;
export const TREND_GROUP_FIELDS: readonly TrendGroupField[] = [
  'endpoint',
  'profile',
  ...SERVING_CONFIG_FIELD_NAMES,
];

/** The most points one trend answers, over all its series. */
export const MAX_TREND_POINTS = 5_000;

export interface TrendQuery extends RunSelection {
  metric: string;
  statistic: string;
  bucket: TrendBucket;
  /** One series per distinct combination of these (default: one series per endpoint). */
  groupBy?: TrendGroupField[];
}

export interface TrendPoint {
  /** Bucket start (UTC; weeks start on Monday), or the run's start for bucket=run. */
  start: Date;
  /** Null when the bucket's runs hold no sample of the metric (e.g. every request failed). */
  value: number | null;
  runs: number;
  requests: number;
  tokens: number;
  /** Samples the value is over: tokens (ITL), requests (TTFT, TPOT, E2E), runs (rates). */
  samples: number;
  /** The serving-configuration versions the bucket's runs measured, by endpoint. */
  configVersions: Array<{ endpointId: string; version: number | null }>;
  /** For bucket=run: the run. */
  runId?: string;
}

export interface TrendSeries {
  key: Partial<Record<TrendGroupField, ConfigValue>>;
  points: TrendPoint[];
}

export interface Trend {
  metric: MetricName;
  statistic: Statistic;
  unit: string;
  weighting: MetricDefinition['weighting'];
  bucket: TrendBucket;
  from: Date;
  to: Date;
  groupBy: TrendGroupField[];
  series: TrendSeries[];
  /** Client-saturated runs in range that were left out (includeSaturated=false). */
  excludedSaturatedRuns: number;
  /** Why the series are empty, when they are. */
  reason?: string;
}

const BUCKET_MS = { hour: 3_600_000, day: 86_400_000, week: 7 * 86_400_000 } as const;
// 1970-01-01 was a Thursday: weeks start on Monday, 3 days later.
const WEEK_ORIGIN_MS = 3 * 86_400_000;

/** The checked metric and statistic of a query; throws AnalysisInputError naming the parameter. */
export function checkMetric(metric: string, statistic: string): { metric: MetricName; statistic: Statistic } {
  if (!isMetricName(metric))
    throw new AnalysisInputError('metric', `must be one of ${Object.keys(METRICS).join(', ')}`);
  const definition: MetricDefinition = METRICS[metric];
  if (!(definition.statistics as readonly string[]).includes(statistic)) {
    throw new AnalysisInputError(
      'statistic',
      `of ${metric} must be one of ${definition.statistics.join(', ')}`,
    );
  }
  if (definition.kind === 'distribution' && !definition.histogram) {
    throw new AnalysisInputError(
      'metric',
      `${metric} keeps no histogram, so it has no trend (see each run's summary)`,
    );
  }
  return { metric, statistic: statistic as Statistic };
}

/** The value of a statistic over a merged histogram (us), in ms or as a ratio. */
export function histogramStatistic(histogram: LatencyHistogram, statistic: Statistic): number | null {
  if (histogram.count === 0) return null;
  if (statistic === 'mean') return (histogram.mean as number) / 1000;
  if (statistic === 'p99/p50') {
    const p50 = histogram.percentile(0.5) as number;
    return p50 > 0 ? (histogram.percentile(0.99) as number) / p50 : null;
  }
  return (histogram.percentile(STATISTIC_QUANTILES[statistic] as number) as number) / 1000;
}

function bucketStart(at: Date, bucket: Exclude<TrendBucket, 'run'>): number {
  const size = BUCKET_MS[bucket];
  const origin = bucket === 'week' ? WEEK_ORIGIN_MS : 0;
  return Math.floor((at.getTime() - origin) / size) * size + origin;
}

/**
 * A trend: per series and bucket, the statistic over every sample of the bucket's runs, from their
 * merged histograms (ITL over all tokens, TTFT/TPOT/E2E over all requests; never an average of
 * per-run percentiles), or a pooled rate (sum of numerators / sum of denominators).
 */
export async function trend(db: RunStore, query: TrendQuery): Promise<Trend> {
  const { metric, statistic } = checkMetric(query.metric, query.statistic);
  if (!(TREND_BUCKETS as readonly string[]).includes(query.bucket)) {
    throw new AnalysisInputError('bucket', `must be one of ${TREND_BUCKETS.join(', ')}`);
  }
  const groupBy = query.groupBy ?? ['endpoint'];
  for (const field of groupBy) {
    if (!TREND_GROUP_FIELDS.includes(field))
      throw new AnalysisInputError('groupBy', `names no field ${field}`);
  }
  if (query.bucket !== 'run') {
    const span = query.to.getTime() - query.from.getTime();
    if (span / BUCKET_MS[query.bucket] > MAX_TREND_POINTS) {
      throw new AnalysisInputError(
        'bucket',
        `${query.bucket} over this range exceeds ${MAX_TREND_POINTS} points: use a coarser bucket`,
      );
    }
  }
  const definition: MetricDefinition = METRICS[metric];
  const selected = await selectRuns(db, query);
  const base: Omit<Trend, 'series'> = {
    metric,
    statistic,
    unit: statistic === 'p99/p50' ? 'ratio' : definition.unit,
    weighting: definition.weighting,
    bucket: query.bucket,
    from: query.from,
    to: query.to,
    groupBy,
    excludedSaturatedRuns: selected.excludedSaturated,
  };
  if (selected.runs.length === 0) {
    const saturated = selected.excludedSaturated
      ? ` (${selected.excludedSaturated} client-saturated runs left out)`
      : '';
    return { ...base, series: [], reason: `no measured run matches the selection${saturated}` };
  }
  if (query.bucket === 'run' && selected.runs.length > MAX_TREND_POINTS) {
    throw new AnalysisInputError(
      'bucket',
      `run over this range exceeds ${MAX_TREND_POINTS} points: narrow the range`,
    );
  }
  const samplesOf = await loadSamples(db, selected.runs, metric, definition);
  const series = new Map<string, { key: TrendSeries['key']; buckets: Map<number, SelectedRun[]> }>();
  for (const run of selected.runs) {
    const key = Object.fromEntries(groupBy.map((field) => [field, groupValue(run, field)]));
    const id = JSON.stringify(groupBy.map((field) => key[field]));
    let entry = series.get(id);
    if (!entry) series.set(id, (entry = { key, buckets: new Map() }));
    const start = query.bucket === 'run' ? entry.buckets.size : bucketStart(run.startedAt, query.bucket);
    const runs = entry.buckets.get(start);
    if (runs) runs.push(run);
    else entry.buckets.set(start, [run]);
  }
  return {
    ...base,
    series: [...series.values()].map(({ key, buckets }) => ({
      key,
      points: [...buckets.entries()].map(([start, runs]) =>
        point(
          query.bucket === 'run' ? runs[0].startedAt : new Date(start),
          runs,
          samplesOf,
          statistic,
          query.bucket,
        ),
      ),
    })),
  };
}

function groupValue(run: SelectedRun, field: TrendGroupField): ConfigValue {
  if (field === 'endpoint') return run.endpointId;
  if (field === 'profile') return run.profileId;
  return run.config[field];
}

type RunSamples =
  | { kind: 'histogram'; histogram: LatencyHistogram }
  | { kind: 'totals'; numerator: number; denominator: number }
  | { kind: 'none' };

function point(
  start: Date,
  runs: SelectedRun[],
  samplesOf: Map<string, RunSamples>,
  statistic: Statistic,
  bucket: TrendBucket,
): TrendPoint {
  let merged: LatencyHistogram | null = null;
  let numerator = 0;
  let denominator = 0;
  let rateRuns = 0;
  for (const run of runs) {
    const samples = samplesOf.get(run.id) ?? { kind: 'none' };
    if (samples.kind === 'histogram') merged = (merged ?? new LatencyHistogram()).merge(samples.histogram);
    else if (samples.kind === 'totals') {
      numerator += samples.numerator;
      denominator += samples.denominator;
      rateRuns += 1;
    }
  }
  const value = merged
    ? histogramStatistic(merged, statistic)
    : denominator > 0
      ? numerator / denominator
      : null;
  const versions = new Map<string, { endpointId: string; version: number | null }>();
  for (const run of runs)
    versions.set(`${run.endpointId}:${run.configVersion}`, {
      endpointId: run.endpointId,
      version: run.configVersion,
    });
  return {
    start,
    value,
    runs: runs.length,
    requests: runs.reduce((sum, run) => sum + run.requests, 0),
    tokens: runs.reduce((sum, run) => sum + run.tokens, 0),
    samples: merged ? merged.count : rateRuns,
    configVersions: [...versions.values()],
    ...(bucket === 'run' ? { runId: runs[0].id } : {}),
  };
}

const ID_BATCH = 2_000;

/** Per run: its stored histogram of the metric, or its share of a pooled rate from its summary. */
async function loadSamples(
  db: RunStore,
  runs: SelectedRun[],
  metric: MetricName,
  definition: MetricDefinition,
): Promise<Map<string, RunSamples>> {
  const pool = poolOf(db);
  const samples = new Map<string, RunSamples>();
  for (let i = 0; i < runs.length; i += ID_BATCH) {
    const ids = runs.slice(i, i + ID_BATCH).map((run) => run.id);
    if (definition.kind === 'distribution') {
      const { rows } = await pool.query<{ run_id: string; encoded: Buffer }>(
        'SELECT run_id, encoded FROM run_histograms WHERE run_id = ANY($1::uuid[]) AND metric = $2',
        [ids, metric],
      );
      for (const row of rows)
        samples.set(row.run_id, { kind: 'histogram', histogram: LatencyHistogram.decode(row.encoded) });
    } else {
      const { rows } = await pool.query<{ id: string; summary: RunSummary | null }>(
        'SELECT id, summary FROM runs WHERE id = ANY($1::uuid[])',
        [ids],
      );
      for (const row of rows) {
        const totals = row.summary ? definition.totals(row.summary) : null;
        samples.set(row.id, totals ? { kind: 'totals', ...totals } : { kind: 'none' });
      }
    }
  }
  return samples;
}
