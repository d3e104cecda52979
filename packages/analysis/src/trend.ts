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
  checkSelection,
  configConditions,
  selectRuns,
  SERVING_CONFIG_FIELDS,
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
 * A trend: per series and bucket, the statistic over every sample of the bucket's runs, from merged
 * histograms (ITL over all tokens, TTFT/TPOT/E2E over all requests; never an average of per-run
 * percentiles), or a pooled rate (sum of numerators / sum of denominators).
 *
 * Whole hours and days are read from the rollups (one row per hour or day, metric and rollup key,
 * however many runs they hold); bucket=run, run-id filters and the partial hours at the ends of the
 * range are read run by run from the per-run histograms. Both merge into the same points.
 */
export async function trend(db: RunStore, query: TrendQuery, options: TrendOptions = {}): Promise<Trend> {
  const { metric, statistic } = checkMetric(query.metric, query.statistic);
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
  const definition: MetricDefinition = METRICS[metric];
  const plan = planReads(query, options.source ?? 'auto');
  const points = new PointSet(groupBy, query.bucket, definition);
  let excludedSaturatedRuns = 0;
  const read = { rollupRows: 0, runs: 0 };

  for (const [from, to] of plan.runs) {
    const selected = await selectRuns(db, { ...query, from, to });
    excludedSaturatedRuns += selected.excludedSaturated;
    if (query.bucket === 'run' && selected.runs.length > MAX_TREND_POINTS) {
      throw new AnalysisInputError(
        'bucket',
        `run over this range exceeds ${MAX_TREND_POINTS} points: narrow the range`,
      );
    }
    read.runs += selected.runs.length;
    const samplesOf = await loadSamples(db, selected.runs, metric, definition);
    for (const run of selected.runs) points.addRun(run, samplesOf.get(run.id) ?? { kind: 'none' });
  }
  const endpointIds = plan.rollups.length ? (query.endpointIds ?? (await allEndpointIds(db))) : [];
  for (const range of plan.rollups) {
    const rows = await readRollups(
      db,
      query,
      metric,
      groupBy,
      range,
      endpointIds,
      MAX_ROLLUP_ROWS - read.rollupRows,
    );
    read.rollupRows += rows.length;
    for (const row of rows) {
      if (row.client_saturated && !query.includeSaturated) excludedSaturatedRuns += row.runs;
      else points.addRollup(row);
    }
  }

  const base: Omit<Trend, 'series'> = {
    metric,
    statistic,
    unit: statistic === 'p99/p50' ? 'ratio' : definition.unit,
    weighting: definition.weighting,
    bucket: query.bucket,
    from: query.from,
    to: query.to,
    groupBy,
    excludedSaturatedRuns,
    read,
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

async function allEndpointIds(db: RunStore): Promise<string[]> {
  // Naming every endpoint lets the rollup index (metric, grain, endpoint, start) serve fleet-wide trends.
  const { rows } = await poolOf(db).query<{ id: string }>('SELECT id FROM endpoints');
  return rows.map((row) => row.id);
}

type RollupRow = {
  bucket_start: Date;
  endpoint_id: string;
  profile_id: string | null;
  config_version: number | null;
  client_saturated: boolean;
  runs: number;
  requests: string;
  tokens: string;
  samples: string;
  encoded: Buffer | null;
  numerator: number | null;
  denominator: number | null;
} & Partial<Record<ServingConfigField, ConfigValue>>;

async function readRollups(
  db: RunStore,
  query: TrendQuery,
  metric: MetricName,
  groupBy: TrendGroupField[],
  range: ReadPlan['rollups'][number],
  endpointIds: string[],
  limit: number,
): Promise<RollupRow[]> {
  const params: unknown[] = [metric, range.grain, endpointIds, range.from, range.to];
  const bind = (value: unknown) => {
    params.push(value);
    return `$${params.length}`;
  };
  const where = [
    'ro.metric = $1',
    'ro.grain = $2::"RollupGrain"',
    'ro.endpoint_id = ANY($3::uuid[])',
    'ro.bucket_start >= $4',
    'ro.bucket_start < $5',
  ];
  if (query.profileIds) where.push(`ro.profile_id = ANY(${bind(query.profileIds)}::uuid[])`);
  if (query.triggers) where.push(`ro.trigger::text = ANY(${bind(query.triggers)})`);
  where.push(...configConditions(query.config, 'c', bind));
  const configColumns = groupBy
    .filter((field): field is ServingConfigField => field !== 'endpoint' && field !== 'profile')
    .map((field) => `, c.${SERVING_CONFIG_FIELDS[field][0]} AS "${field}"`)
    .join('');
  const { rows } = await poolOf(db).query<RollupRow>(
    `SELECT ro.bucket_start, ro.endpoint_id, ro.profile_id, c.version AS config_version, ro.client_saturated,
            ro.runs, ro.requests, ro.tokens, ro.samples, ro.encoded, ro.numerator, ro.denominator${configColumns}
       FROM run_rollups ro LEFT JOIN serving_configs c ON c.id = ro.config_id
      WHERE ${where.join(' AND ')}
      ORDER BY ro.bucket_start
      LIMIT ${bind(limit + 1)}`,
    params,
  );
  if (rows.length > limit) {
    throw new AnalysisInputError(
      'from',
      `reads more than ${MAX_ROLLUP_ROWS} rollup rows: narrow the time range or the filters, or use a coarser bucket`,
    );
  }
  return rows;
}

type RunSamples =
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

  addRollup(row: RollupRow): void {
    const values = this.groupBy.map((field) =>
      field === 'endpoint' ? row.endpoint_id : field === 'profile' ? row.profile_id : (row[field] ?? null),
    );
    const start = bucketStart(row.bucket_start, this.bucket as Exclude<TrendBucket, 'run'>);
    const point = this.point(values, start, start);
    this.count(
      point,
      row.endpoint_id,
      row.config_version,
      row.runs,
      Number(row.requests),
      Number(row.tokens),
    );
    if (row.encoded) this.histogramOf(point).mergeEncoded(row.encoded);
    if (row.numerator !== null && row.denominator !== null)
      this.addTotals(point, row.numerator, row.denominator, Number(row.samples));
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

const ID_BATCH = 2_000;

/** Per run: its stored histogram of the metric (encoded), or its share of a pooled rate from its summary. */
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
      for (const row of rows) samples.set(row.run_id, { kind: 'histogram', encoded: row.encoded });
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
