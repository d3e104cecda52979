import {
  isMetricName,
  isSweepMetricName,
  METRICS,
  METRIC_NAMES,
  JUDGED_METRIC_NAMES,
  STATISTICS,
  statisticUnit,
  summaryValue,
  SWEEP_METRICS,
  SWEEP_METRIC_NAMES,
  type MetricDefinition,
  type MetricName,
  type Statistic,
  type SweepMetricName,
} from '@teapot/contracts';
import {
  CHANGE_POINT_KINDS,
  CHANGE_POINT_MODES,
  type ChangePoint,
  type ChangePointFilter,
  type ChangePointMode,
  type ChangePointStore,
  type FoundChangePoint,
  type PoolClient,
  type SeriesFamily,
  type SeriesKey,
  type SeriesRun,
  type StoredChangePoint,
  type StoredThresholds,
  seriesItemsOf,
} from '@teapot/db';
import type { RunSummary } from '@teapot/measure';
import {
  otavaChangePoints,
  robustChangePoints,
  stepStillHolds,
  type OtavaOptions,
  type RobustOptions,
} from '@teapot/stats';
import {
  changedMaterially,
  joinedChanges,
  newChanges,
  planChangePoints,
  sameChanges,
} from './change-point-identity';
import { thresholdOf, usableThresholds } from './comparisons/thresholds';
import { AnalysisInputError } from './errors';

/** The most recent runs of a series that a recomputation reads (older change points are kept as stored). */
export const MAX_SERIES_RUNS = 2_000;
/** Fewer measured values than this and a series is not analysed yet. */
export const MIN_SERIES_RUNS = 10;
export const MAX_CHANGE_POINTS_LIMIT = 1_000;

export interface ChangePointOptions {
  otava?: OtavaOptions;
  /** The robust mode's options; a series whose profile sets a comparison threshold for it (relative,
   *  by metric or metric.statistic) takes that as its `minChange`. */
  robust?: RobustOptions;
  /** The profile's comparison thresholds as stored (recomputeChangePoints reads them). */
  profileThresholds?: StoredThresholds;
  /** Runs read per series; default MAX_SERIES_RUNS. */
  maxRuns?: number;
  /**
   * Called inside the storing transaction with what is news (see ChangePointNews); whatever it writes
   * commits with the change points.
   */
  onNews?: (client: PoolClient, news: ChangePointNews) => Promise<unknown>;
}

/**
 * What a recomputation changed that a subscriber may hear of. A change keeps its stored row (and id)
 * as later runs refine it, so one change is `detected` once.
 */
export interface ChangePointNews {
  /** Change points stored for the first time, no other live one of their series next to them. */
  detected: StoredChangePoint[];
  /** `detected` grouped by change: one change seen in several series of the pair (see sameChanges). */
  detectedTogether: StoredChangePoint[][];
  /** Stored for the first time, but part of a change already announced in another series (joinedChanges):
   *  no new alert, and announced with it from now on. */
  joined: StoredChangePoint[];
  /** Announced change points that changed materially since (see changedMaterially). */
  updated: StoredChangePoint[];
  /** Change points no longer found (hidden from lists; found again, they come back with their id). */
  retracted: StoredChangePoint[];
}

export interface Recomputation extends ChangePointNews {
  series: number;
  runs: number;
  stored: number;
}

/** Every (metric, statistic) with a per-run value, as the catalogue declares them. */
export const CHANGE_POINT_SERIES: ReadonlyArray<{ metric: MetricName; statistic: Statistic }> =
  JUDGED_METRIC_NAMES.flatMap((metric) =>
    (METRICS[metric] as MetricDefinition).statistics.map((statistic) => ({ metric, statistic })),
  );

/**
 * The series of finished capacity searches: one value per search (its capacity, its cost at capacity),
 * so the only statistic is the value itself, named `mean` as a rate metric's per-run value is.
 */
export const SWEEP_CHANGE_POINT_SERIES: ReadonlyArray<{ metric: SweepMetricName; statistic: Statistic }> =
  SWEEP_METRIC_NAMES.map((metric) => ({ metric, statistic: 'mean' }));

const SERIES_OF_FAMILY = { runs: CHANGE_POINT_SERIES, sweeps: SWEEP_CHANGE_POINT_SERIES } as const;

function valueOf(run: SeriesRun, metric: MetricName | SweepMetricName, statistic: Statistic): number | null {
  if (isSweepMetricName(metric)) {
    const value = run.values[metric];
    return typeof value === 'number' && Number.isFinite(value) ? value : null;
  }
  const definition: MetricDefinition = METRICS[metric];
  const raw = run.values[metric];
  if (raw === null || raw === undefined) return null;
  if (definition.kind !== 'distribution') return statistic === 'mean' && typeof raw === 'number' ? raw : null;
  const value = summaryValue({ [definition.summaryKey]: raw } as unknown as RunSummary, metric, statistic);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** The runs of a series that have a value, with their place among all the pair's runs. */
function seriesPoints(
  runs: readonly SeriesRun[],
  metric: MetricName | SweepMetricName,
  statistic: Statistic,
): Array<{ run: SeriesRun; index: number; value: number }> {
  const points: Array<{ run: SeriesRun; index: number; value: number }> = [];
  runs.forEach((run, index) => {
    const value = valueOf(run, metric, statistic);
    if (value !== null) points.push({ run, index, value });
  });
  return points;
}

/**
 * Whether a stored robust step the recomputation did not find again still holds where it is, between
 * the steps found in its series (stepStillHolds: a weaker bar than a new step's), so that a step found
 * on marginal evidence is not withdrawn and found again as the next runs arrive.
 */
function stillHolds(
  row: StoredChangePoint,
  runs: readonly SeriesRun[],
  found: readonly DetectedChangePoint[],
  options: ChangePointOptions,
): boolean {
  if (row.mode !== 'robust' || row.kind !== 'step') return false;
  const points = seriesPoints(runs, row.metric, row.statistic);
  const start = seriesItemsOf(row).start;
  const at = points.findIndex((p) => p.run.id === start);
  if (at < 0) return false;
  const steps = found
    .filter((c) => c.mode === 'robust' && c.metric === row.metric && c.statistic === row.statistic)
    .map((c) => points.findIndex((p) => p.run.id === c.runId));
  const bounds = {
    from: Math.max(0, ...steps.filter((i) => i < at)),
    to: Math.min(points.length, ...steps.filter((i) => i > at)),
  };
  const values = points.map((p) => p.value);
  return stepStillHolds(values, at, bounds, robustOptionsOf(row.metric, row.statistic, options));
}

export type DetectedChangePoint = FoundChangePoint & { unit: string; runIndex: number };

/** Both modes' change points of one series, over runs (oldest first) that have a value. */
function detect(
  key: SeriesKey,
  metric: MetricName | SweepMetricName,
  statistic: Statistic,
  runs: readonly SeriesRun[],
  options: ChangePointOptions,
): DetectedChangePoint[] {
  const points = seriesPoints(runs, metric, statistic);
  if (points.length < MIN_SERIES_RUNS) return [];
  const values = points.map((p) => p.value);
  const base = {
    ...key,
    metric,
    statistic,
    unit: isSweepMetricName(metric)
      ? SWEEP_METRICS[metric].unit
      : statisticUnit(statistic, (METRICS[metric] as MetricDefinition).unit),
    sweepId: null,
    previousSweepId: null,
    endSweepId: null,
  };
  const step = (
    mode: ChangePointMode,
    index: number,
    previous: number,
    next: number,
    stats: Stats,
  ): DetectedChangePoint => ({
    ...base,
    mode,
    kind: 'step',
    at: points[index].run.startedAt,
    runId: points[index].run.id,
    runIndex: points[index].index,
    previousRunId: points[index - 1]?.run.id ?? null,
    endRunId: null,
    endAt: null,
    runsBefore: index - previous,
    runsAfter: next - index,
    ...stats,
  });
  const found: DetectedChangePoint[] = [];
  const otava = otavaChangePoints(values, options.otava);
  otava.forEach((cp, i) =>
    found.push(
      step('otava', cp.index, otava[i - 1]?.index ?? 0, otava[i + 1]?.index ?? values.length, {
        meanBefore: cp.meanBefore,
        meanAfter: cp.meanAfter,
        magnitude: relative(cp.meanBefore, cp.meanAfter),
        pValue: cp.pValue,
      }),
    ),
  );
  const robust = robustChangePoints(values, robustOptionsOf(metric, statistic, options)).findings;
  const steps = robust.filter((f) => f.kind === 'step');
  for (const finding of robust) {
    const stats = {
      meanBefore: finding.before,
      meanAfter: finding.after,
      magnitude: finding.magnitude,
      pValue: finding.pValue,
    };
    if (finding.kind === 'step') {
      const i = steps.indexOf(finding);
      found.push(
        step('robust', finding.index, steps[i - 1]?.index ?? 0, steps[i + 1]?.index ?? values.length, stats),
      );
      continue;
    }
    const last = points[finding.end - 1];
    found.push({
      ...step('robust', finding.index, finding.index, finding.end, stats),
      kind: 'drift',
      runsBefore:
        finding.index - Math.max(0, ...steps.filter((s) => s.index <= finding.index).map((s) => s.index)),
      endRunId: last.run.id,
      endAt: last.run.startedAt,
    });
  }
  return found;
}

/**
 * The robust options of one series: the change that matters for it is its profile's comparison
 * threshold when the profile sets one (the same "change that matters" as comparisons), else the
 * detector's minimum (2%). Thresholds of fractions (absolute, e.g. the error rate) are not relative
 * changes and are left to the default.
 */
function robustOptionsOf(
  metric: MetricName | SweepMetricName,
  statistic: Statistic,
  options: ChangePointOptions,
): RobustOptions {
  // Comparison thresholds are per run metric; a sweep metric's change that matters is the default.
  if (!options.profileThresholds || isSweepMetricName(metric)) return options.robust ?? {};
  const { threshold } = thresholdOf(metric, statistic, {}, usableThresholds([options.profileThresholds]));
  if (threshold.source !== 'profile' || threshold.kind !== 'relative') return options.robust ?? {};
  return { ...options.robust, minChange: threshold.value };
}

type Stats = Pick<ChangePoint, 'meanBefore' | 'meanAfter' | 'magnitude' | 'pValue'>;

function relative(before: number, after: number): number {
  return before === 0 ? 0 : after / before - 1;
}

/**
 * Both modes' change points of every series of a pair's family, over its runs or capacity searches
 * (oldest first); no I/O. A sweep family's change points name sweeps where a run family's name runs.
 */
export function detectChangePoints(
  key: SeriesKey,
  runs: readonly SeriesRun[],
  options: Pick<ChangePointOptions, 'otava' | 'robust' | 'profileThresholds'> = {},
  family: SeriesFamily = 'runs',
): DetectedChangePoint[] {
  const found = SERIES_OF_FAMILY[family].flatMap(({ metric, statistic }) =>
    detect(key, metric, statistic, runs, options),
  );
  if (family === 'runs') return found;
  return found.map(({ runId, previousRunId, endRunId, ...change }) => ({
    ...change,
    runId: null,
    previousRunId: null,
    endRunId: null,
    sweepId: runId,
    previousSweepId: previousRunId,
    endSweepId: endRunId,
  }));
}

/**
 * Recomputes every change-point series of an (endpoint, profile) from its latest runs (both modes, every
 * metric and statistic of the catalogue) and stores the result in one transaction: a stored change point
 * found again (near where it was, see planChangePoints) is updated in place, a new one inserted, one no
 * longer found retracted. Serialized per pair by the store, so overlapping jobs cannot interleave.
 */
export async function recomputeChangePoints(
  store: ChangePointStore,
  key: SeriesKey,
  options: ChangePointOptions = {},
  family: SeriesFamily = 'runs',
): Promise<Recomputation> {
  const limit = options.maxRuns ?? MAX_SERIES_RUNS;
  const runs = family === 'runs' ? await store.seriesRuns(key, limit) : await store.sweepSeries(key, limit);
  // Most profiles run no capacity search: their search series is empty, and a search's change points
  // go with it (ON DELETE CASCADE), so there is nothing to store or retract and no transaction to open.
  if (family === 'sweeps' && runs.length === 0) {
    const none = { detected: [], detectedTogether: [], joined: [], updated: [], retracted: [] };
    return { series: SERIES_OF_FAMILY[family].length, runs: 0, stored: 0, ...none };
  }
  const profileThresholds = options.profileThresholds ?? (await store.profileThresholds(key));
  const found = detectChangePoints(key, runs, { ...options, profileThresholds }, family);
  const from = runs[0]?.startedAt ?? new Date(0);
  const news = await store.replace(
    key,
    from,
    (stored) =>
      planChangePoints(stored, found, runs, (row) =>
        stillHolds(row, runs, found, { ...options, profileThresholds }),
      ),
    async ({ client, updated, inserted, retracted }) => {
      const live = updated.map((u) => u.current);
      const { news: detected, joined } = joinedChanges(newChanges(inserted, live, runs), live, runs);
      const news: ChangePointNews = {
        detected,
        joined,
        detectedTogether: sameChanges(detected, runs),
        updated: updated.filter((u) => changedMaterially(u.previous, u.current)).map((u) => u.current),
        retracted,
      };
      if (options.onNews) await options.onNews(client, news);
      return news;
    },
    family,
  );
  return { series: SERIES_OF_FAMILY[family].length, runs: runs.length, stored: found.length, ...news };
}

/** Change points at or after `from` and before `to`, of these series; `limit` default 100, at most MAX_CHANGE_POINTS_LIMIT. */
export type ChangePointQuery = ChangePointFilter & { limit?: number };

export interface ChangePointList {
  changePoints: ChangePoint[];
  /** True when more matched than `limit`: narrow the filters or the range. */
  truncated: boolean;
}

/** Stored change points, newest first; throws AnalysisInputError naming the parameter at fault. */
export async function listChangePoints(
  store: ChangePointStore,
  query: ChangePointQuery,
): Promise<ChangePointList> {
  if (query.metric !== undefined && !isMetricName(query.metric) && !isSweepMetricName(query.metric))
    throw new AnalysisInputError(
      'metric',
      `must be one of ${[...METRIC_NAMES, ...SWEEP_METRIC_NAMES].join(', ')}`,
    );
  if (query.statistic !== undefined) {
    const allowed: readonly string[] = !query.metric
      ? STATISTICS
      : isSweepMetricName(query.metric)
        ? ['mean']
        : (METRICS[query.metric as MetricName] as MetricDefinition).statistics;
    if (!allowed.includes(query.statistic)) {
      const of = query.metric ? ` of ${query.metric}` : '';
      throw new AnalysisInputError(
        'statistic',
        `${of ? `${of.trim()} ` : ''}must be one of ${allowed.join(', ')}`,
      );
    }
  }
  if (query.mode !== undefined && !(CHANGE_POINT_MODES as readonly string[]).includes(query.mode))
    throw new AnalysisInputError('mode', `must be one of ${CHANGE_POINT_MODES.join(', ')}`);
  if (query.kind !== undefined && !(CHANGE_POINT_KINDS as readonly string[]).includes(query.kind))
    throw new AnalysisInputError('kind', `must be one of ${CHANGE_POINT_KINDS.join(', ')}`);
  for (const name of ['from', 'to'] as const) {
    const value = query[name];
    if (value !== undefined && (!(value instanceof Date) || Number.isNaN(value.getTime())))
      throw new AnalysisInputError(name, 'must be a date');
  }
  if (query.from && query.to && query.from.getTime() >= query.to.getTime())
    throw new AnalysisInputError('to', 'must be after from');
  const limit = query.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGE_POINTS_LIMIT)
    throw new AnalysisInputError('limit', `must be an integer from 1 to ${MAX_CHANGE_POINTS_LIMIT}`);
  const rows = await store.list(query, limit + 1);
  return { changePoints: rows.slice(0, limit), truncated: rows.length > limit };
}
