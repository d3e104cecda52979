import {
  diagnosticValue,
  isMetricName,
  METRICS,
  type MetricDefinition,
  type MetricName,
  type Statistic,
  type SweepMetricName,
} from '@teapot/contracts';
import {
  SERVING_CONFIG_FIELD_NAMES,
  type AnalysisStores,
  type ConfigValue,
  type SelectedRun,
  type ServingConfigField,
} from '@teapot/db';
import { AnalysisInputError } from './errors';
import { checkSelection, selectRuns, type RunSelection } from './selection';
import { BUCKET_MS, trendOf, type LoadedTrend, type RunSamples } from './trend-points';

export type TrendStores = Pick<AnalysisStores, 'runs' | 'histograms' | 'rollups'>;

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
  /** Sweep metrics, bucket=run: the sweep. */
  sweepId?: string;
  /** Sweep metrics: the bucket's sweeps whose SLO failed even at the lowest load (they have no value). */
  belowLowest?: number;
}

export interface TrendSeries {
  /** The grouping's values; a capacity trend adds the sweeps' `dimension` (rate or concurrency). */
  key: Partial<Record<TrendGroupField | 'dimension', ConfigValue>>;
  points: TrendPoint[];
}

export interface Trend {
  metric: MetricName | SweepMetricName;
  statistic: Statistic;
  unit: string;
  /** What one sample is; `sweep` for the sweep metrics (capacity, cost per million tokens). */
  weighting: MetricDefinition['weighting'] | 'sweep';
  bucket: TrendBucket;
  from: Date;
  to: Date;
  groupBy: TrendGroupField[];
  series: TrendSeries[];
  /** Client-saturated runs in range that were left out (includeSaturated=false). */
  excludedSaturatedRuns: number;
  /** Why the series are empty, when they are. */
  reason?: string;
  /**
   * What the answer read: rows of hourly or daily rollups, and runs read one by one (bucket=run,
   * run-id filters, the partial hours at either end of the range). See the README's cost model.
   */
  read: { rollupRows: number; runs: number };
}

export interface TrendOptions {
  /**
   * `auto` (default): rollups wherever they answer the query, per-run histograms for the rest;
   * `runs`: per-run histograms only (the reference the rollups are tested against).
   */
  source?: 'auto' | 'runs';
}

/** The most rollup rows one trend reads; beyond it the caller must narrow the range or the filters. */
export const MAX_ROLLUP_ROWS = 200_000;

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

/**
 * A trend: per series and bucket, the statistic over every sample of the bucket's runs, from merged
 * histograms (ITL over all tokens, TTFT/TPOT/E2E over all requests; never an average of per-run
 * percentiles), a pooled rate (sum of numerators / sum of denominators), or for a diagnostic the
 * mean of the values of the runs that have one (always read run by run: rollups hold none).
 *
 * Whole hours and days are read from the rollups (one row per hour or day, metric and rollup key,
 * however many runs they hold); bucket=run, run-id filters and the partial hours at the ends of the
 * range are read run by run from the per-run histograms. Both merge into the same points.
 */
export async function trend(
  stores: TrendStores,
  query: TrendQuery,
  options: TrendOptions = {},
): Promise<Trend> {
  const { metric, statistic } = checkMetric(query.metric, query.statistic);
  const groupBy = checkTrendShape(query);
  // Rollups hold no diagnostics: their trends read runs one by one.
  const source = METRICS[metric].kind === 'diagnostic' ? 'runs' : (options.source ?? 'auto');
  const loaded = await loadTrend(stores, query, metric, groupBy, planReads(query, source));
  return trendOf({ ...query, metric, statistic, groupBy }, loaded);
}

/** Checks a trend's bucket, grouping and selection (not its metric); returns its grouping. */
export function checkTrendShape(query: TrendQuery): TrendGroupField[] {
  if (!(TREND_BUCKETS as readonly string[]).includes(query.bucket)) {
    throw new AnalysisInputError('bucket', `must be one of ${TREND_BUCKETS.join(', ')}`);
  }
  const groupBy = query.groupBy ?? ['endpoint'];
  for (const field of groupBy) {
    if (!TREND_GROUP_FIELDS.includes(field))
      throw new AnalysisInputError('groupBy', `names no field ${field}`);
  }
  checkSelection(query);
  if (query.bucket !== 'run') {
    const span = query.to.getTime() - query.from.getTime();
    if (span / BUCKET_MS[query.bucket] > MAX_TREND_POINTS) {
      throw new AnalysisInputError(
        'bucket',
        `${query.bucket} over this range exceeds ${MAX_TREND_POINTS} points: use a coarser bucket`,
      );
    }
  }
  return groupBy;
}

/** What a trend reads: its runs one by one with their samples, and rollup rows. */
async function loadTrend(
  stores: TrendStores,
  query: TrendQuery,
  metric: MetricName,
  groupBy: TrendGroupField[],
  plan: ReadPlan,
): Promise<LoadedTrend> {
  const definition: MetricDefinition = METRICS[metric];
  const loaded: LoadedTrend = { runs: [], rollups: [], excludedSaturatedRuns: 0 };
  for (const [from, to] of plan.runs) {
    const selected = await selectRuns(stores.runs, { ...query, from, to });
    loaded.excludedSaturatedRuns += selected.excludedSaturated;
    if (query.bucket === 'run' && selected.runs.length > MAX_TREND_POINTS) {
      throw new AnalysisInputError(
        'bucket',
        `run over this range exceeds ${MAX_TREND_POINTS} points: narrow the range`,
      );
    }
    const samplesOf = await loadSamples(stores, selected.runs, metric, definition);
    for (const run of selected.runs)
      loaded.runs.push({ run, samples: samplesOf.get(run.id) ?? { kind: 'none' } });
  }
  // Naming every endpoint lets the rollup index (metric, grain, endpoint, start) serve fleet-wide trends.
  const endpointIds = plan.rollups.length ? (query.endpointIds ?? (await stores.runs.endpointIds())) : [];
  const fields = groupBy.filter(
    (field): field is ServingConfigField => field !== 'endpoint' && field !== 'profile',
  );
  for (const range of plan.rollups) {
    const limit = MAX_ROLLUP_ROWS - loaded.rollups.length;
    const rows = await stores.rollups.buckets(
      {
        ...range,
        metric,
        endpointIds,
        profileIds: query.profileIds,
        triggers: query.triggers,
        config: query.config,
        fields,
      },
      limit + 1,
    );
    if (rows.length > limit) {
      throw new AnalysisInputError(
        'from',
        `reads more than ${MAX_ROLLUP_ROWS} rollup rows: narrow the time range or the filters, or use a coarser bucket`,
      );
    }
    loaded.rollups.push(...rows);
  }
  return loaded;
}

interface ReadPlan {
  /** Ranges read run by run. */
  runs: Array<[Date, Date]>;
  /** Ranges read from rollups of a grain, on whole hours or days. */
  rollups: Array<{ grain: 'hour' | 'day'; from: Date; to: Date }>;
}

const HOUR_MS = BUCKET_MS.hour;
const DAY_MS = BUCKET_MS.day;

function floorTo(ms: number, size: number): number {
  return Math.floor(ms / size) * size;
}

function ceilTo(ms: number, size: number): number {
  return Math.ceil(ms / size) * size;
}

/**
 * Splits [from, to) into what rollups answer and what runs must: hour and day rollups cover whole
 * hours and UTC days, and a day or week bucket is a union of UTC days, so only the partial hours at
 * either end need runs. bucket=run and run-id filters are per run throughout.
 */
function planReads(query: TrendQuery, source: 'auto' | 'runs'): ReadPlan {
  const from = query.from.getTime();
  const to = query.to.getTime();
  if (source === 'runs' || query.bucket === 'run' || query.runIds) {
    return { runs: [[query.from, query.to]], rollups: [] };
  }
  const fromHour = ceilTo(from, HOUR_MS);
  const toHour = floorTo(to, HOUR_MS);
  if (fromHour >= toHour) return { runs: [[query.from, query.to]], rollups: [] };
  const plan: ReadPlan = { runs: [], rollups: [] };
  if (from < fromHour) plan.runs.push([query.from, new Date(fromHour)]);
  if (toHour < to) plan.runs.push([new Date(toHour), query.to]);
  const hours = (a: number, b: number) => {
    if (a < b) plan.rollups.push({ grain: 'hour', from: new Date(a), to: new Date(b) });
  };
  const fromDay = ceilTo(fromHour, DAY_MS);
  const toDay = floorTo(toHour, DAY_MS);
  if (query.bucket === 'hour' || fromDay >= toDay) {
    hours(fromHour, toHour);
  } else {
    hours(fromHour, fromDay);
    plan.rollups.push({ grain: 'day', from: new Date(fromDay), to: new Date(toDay) });
    hours(toDay, toHour);
  }
  return plan;
}

const ID_BATCH = 2_000;

/**
 * Per run: its stored histogram of the metric (encoded), its share of a pooled rate from its summary,
 * or its diagnostic value as a share of 1 (so a point is the mean of its runs' values).
 */
async function loadSamples(
  stores: TrendStores,
  runs: SelectedRun[],
  metric: MetricName,
  definition: MetricDefinition,
): Promise<Map<string, RunSamples>> {
  const samples = new Map<string, RunSamples>();
  for (let i = 0; i < runs.length; i += ID_BATCH) {
    const ids = runs.slice(i, i + ID_BATCH).map((run) => run.id);
    if (definition.kind === 'distribution') {
      for (const { runId, encoded } of await stores.histograms.encoded(ids, metric))
        samples.set(runId, { kind: 'histogram', encoded });
    } else if (definition.kind === 'diagnostic') {
      // A run without the value is left out of the mean, never counted as zero.
      for (const [id, diagnostics] of await stores.runs.diagnostics(ids)) {
        const value = diagnosticValue(definition.diagnostic, diagnostics);
        samples.set(
          id,
          value === null ? { kind: 'none' } : { kind: 'totals', numerator: value, denominator: 1 },
        );
      }
    } else {
      for (const [id, summary] of await stores.runs.summaries(ids)) {
        const totals = summary ? definition.totals(summary) : null;
        samples.set(id, totals ? { kind: 'totals', ...totals } : { kind: 'none' });
      }
    }
  }
  return samples;
}
