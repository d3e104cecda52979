import {
  isMetricName,
  MEASURED_RUN_STATUSES,
  METRICS,
  METRIC_NAMES,
  STATISTICS,
  summaryValue,
  type MetricDefinition,
  type MetricName,
  type Statistic,
} from '@teapot/contracts';
import { poolOf, type PoolClient, type RunStore } from '@teapot/db';
import type { RunSummary } from '@teapot/measure';
import { otavaChangePoints, robustChangePoints, type OtavaOptions, type RobustOptions } from '@teapot/stats';
import { AnalysisInputError } from './errors';

export const CHANGE_POINT_MODES = ['otava', 'robust'] as const;
export type ChangePointMode = (typeof CHANGE_POINT_MODES)[number];
export const CHANGE_POINT_KINDS = ['step', 'drift'] as const;
export type ChangePointKind = (typeof CHANGE_POINT_KINDS)[number];

/** The most recent runs of a series that a recomputation reads (older change points are kept as stored). */
export const MAX_SERIES_RUNS = 2_000;
/** Fewer measured values than this and a series is not analysed yet. */
export const MIN_SERIES_RUNS = 10;
/** A stored change point within this many runs of a recomputed one is the same change, moved. */
const SAME_CHANGE_RUNS = 2;
export const MAX_CHANGE_POINTS_LIMIT = 1_000;

/** A series is one (endpoint, profile, metric, statistic); a recomputation covers all of a pair's. */
export interface SeriesKey {
  endpointId: string;
  profileId: string;
}

export interface ChangePoint {
  id: string;
  endpointId: string;
  profileId: string;
  metric: MetricName;
  statistic: Statistic;
  unit: string;
  mode: ChangePointMode;
  kind: ChangePointKind;
  /** Step: start of the first run after the change. Drift: start of its first run. */
  at: Date;
  runId: string;
  /** The last run before the change (step) or before the drift; null at the series' start. */
  previousRunId: string | null;
  /** Drift: its last run and that run's start; null for a step. */
  endRunId: string | null;
  endAt: Date | null;
  /** Runs in the stretch before (since the previous change), and after (until the next; a drift's own length). */
  runsBefore: number;
  runsAfter: number;
  /** Step: the level before and after (Otava: means of the stretches; robust: 10%-trimmed means).
   *  Drift: the fitted line at its first and last run. */
  meanBefore: number;
  meanAfter: number;
  /** meanAfter / meanBefore - 1 (0 when meanBefore is 0). */
  magnitude: number;
  pValue: number;
  detectedAt: Date;
  updatedAt: Date;
}

export interface ChangePointOptions {
  otava?: OtavaOptions;
  robust?: RobustOptions;
  /** Runs read per series; default MAX_SERIES_RUNS. */
  maxRuns?: number;
  /**
   * Called inside the storing transaction for each change point that is new: none of its series,
   * mode and kind was stored within 2 runs of it before. Whatever it writes commits with it.
   */
  onDetected?: (client: PoolClient, changePoint: ChangePoint) => Promise<unknown>;
}

export interface Recomputation {
  series: number;
  runs: number;
  stored: number;
  detected: ChangePoint[];
  removed: number;
}

interface SeriesRun {
  id: string;
  startedAt: Date;
  values: Partial<Record<MetricName, unknown>>;
}

/** Every (metric, statistic) with a per-run value, as the catalogue declares them. */
export const CHANGE_POINT_SERIES: ReadonlyArray<{ metric: MetricName; statistic: Statistic }> =
  METRIC_NAMES.flatMap((metric) =>
    (METRICS[metric] as MetricDefinition).statistics.map((statistic) => ({ metric, statistic })),
  );

/** Per metric, the SQL reading a run's value source: its exact summary section, or its headline column. */
function valueColumns(): string {
  return METRIC_NAMES.map((metric) => {
    const definition: MetricDefinition = METRICS[metric];
    if (definition.kind === 'distribution') return `r.summary->'${definition.summaryKey}' AS "${metric}"`;
    const column = definition.headline.find((h) => h.statistic === 'mean')?.column;
    return `r.${column} AS "${metric}"`;
  }).join(', ');
}

function valueOf(run: SeriesRun, metric: MetricName, statistic: Statistic): number | null {
  const definition: MetricDefinition = METRICS[metric];
  const raw = run.values[metric];
  if (raw === null || raw === undefined) return null;
  if (definition.kind === 'rate') return statistic === 'mean' && typeof raw === 'number' ? raw : null;
  const value = summaryValue({ [definition.summaryKey]: raw } as unknown as RunSummary, metric, statistic);
  return typeof value === 'number' && Number.isFinite(value) ? value : null;
}

/** Measured runs count, as for trends; client-saturated runs are not results and stay out. */
async function loadRuns(db: RunStore, key: SeriesKey, limit: number): Promise<SeriesRun[]> {
  const { rows } = await poolOf(db).query<{ id: string; started_at: Date } & Record<string, unknown>>(
    `SELECT r.id, r.started_at, ${valueColumns()}
       FROM runs r
      WHERE r.endpoint_id = $1 AND r.profile_id = $2 AND r.status::text = ANY($3)
        AND r.started_at IS NOT NULL AND NOT COALESCE(r.client_saturated, false)
      ORDER BY r.started_at DESC, r.id DESC
      LIMIT $4`,
    [key.endpointId, key.profileId, MEASURED_RUN_STATUSES, limit],
  );
  return rows.reverse().map((row) => ({
    id: row.id,
    startedAt: row.started_at,
    values: Object.fromEntries(METRIC_NAMES.map((m) => [m, row[m] === null ? null : row[m]])),
  }));
}

type Detected = Omit<ChangePoint, 'id' | 'detectedAt' | 'updatedAt'> & { runIndex: number };

/** Both modes' change points of one series, over runs (oldest first) that have a value. */
function detect(
  key: SeriesKey,
  metric: MetricName,
  statistic: Statistic,
  runs: SeriesRun[],
  options: ChangePointOptions,
): Detected[] {
  const points: Array<{ run: SeriesRun; index: number; value: number }> = [];
  runs.forEach((run, index) => {
    const value = valueOf(run, metric, statistic);
    if (value !== null) points.push({ run, index, value });
  });
  if (points.length < MIN_SERIES_RUNS) return [];
  const values = points.map((p) => p.value);
  const definition: MetricDefinition = METRICS[metric];
  const base = {
    ...key,
    metric,
    statistic,
    unit: statistic === 'p99/p50' ? 'ratio' : definition.unit,
  };
  const step = (
    mode: ChangePointMode,
    index: number,
    previous: number,
    next: number,
    stats: Stats,
  ): Detected => ({
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
  const found: Detected[] = [];
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
  const robust = robustChangePoints(values, options.robust).findings;
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

type Stats = Pick<ChangePoint, 'meanBefore' | 'meanAfter' | 'magnitude' | 'pValue'>;

function relative(before: number, after: number): number {
  return before === 0 ? 0 : after / before - 1;
}

const identity = (c: { metric: string; statistic: string; mode: string; kind: string }) =>
  `${c.metric}|${c.statistic}|${c.mode}|${c.kind}`;

/**
 * Recomputes every change-point series of an (endpoint, profile) from its latest runs (both modes, every
 * metric and statistic of the catalogue) and stores the result in one transaction: change points of the
 * recomputed range that are no longer found are removed, the others inserted or updated. Serialized per
 * pair by an advisory lock, so overlapping jobs cannot interleave.
 */
export async function recomputeChangePoints(
  db: RunStore,
  key: SeriesKey,
  options: ChangePointOptions = {},
): Promise<Recomputation> {
  const runs = await loadRuns(db, key, options.maxRuns ?? MAX_SERIES_RUNS);
  const found = CHANGE_POINT_SERIES.flatMap(({ metric, statistic }) =>
    detect(key, metric, statistic, runs, options),
  );
  const indexOfRun = new Map(runs.map((run, i) => [run.id, i]));
  const client = await poolOf(db).connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
      `change-points:${key.endpointId}:${key.profileId}`,
    ]);
    const from = runs[0]?.startedAt ?? new Date(0);
    const { rows: existing } = await client.query<{
      id: string;
      metric: string;
      statistic: string;
      mode: string;
      kind: string;
      run_id: string;
    }>(
      `SELECT id, metric, statistic, mode::text, kind::text, run_id FROM change_points
        WHERE endpoint_id = $1 AND profile_id = $2 AND at >= $3`,
      [key.endpointId, key.profileId, from],
    );
    const keep = new Set(found.map((c) => `${identity(c)}|${c.runId}`));
    const stale = existing.filter((row) => !keep.has(`${identity(row)}|${row.run_id}`)).map((row) => row.id);
    if (stale.length) await client.query('DELETE FROM change_points WHERE id = ANY($1::uuid[])', [stale]);
    const before = new Map<string, number[]>();
    for (const row of existing) {
      const at = indexOfRun.get(row.run_id);
      if (at === undefined) continue;
      const list = before.get(identity(row)) ?? [];
      list.push(at);
      before.set(identity(row), list);
    }
    const stored = await upsert(client, found);
    const detected: ChangePoint[] = [];
    for (const change of found) {
      const row = stored.get(`${identity(change)}|${change.runId}`);
      if (!row?.inserted) continue;
      const near = (before.get(identity(change)) ?? []).some(
        (at) => Math.abs(at - change.runIndex) <= SAME_CHANGE_RUNS,
      );
      if (near) continue;
      detected.push(row.changePoint);
      if (options.onDetected) await options.onDetected(client, row.changePoint);
    }
    await client.query('COMMIT');
    return {
      series: CHANGE_POINT_SERIES.length,
      runs: runs.length,
      stored: found.length,
      detected,
      removed: stale.length,
    };
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}

const COLUMNS = `id, endpoint_id, profile_id, metric, statistic, mode::text AS mode, kind::text AS kind, at, run_id,
  previous_run_id, end_run_id, end_at, runs_before, runs_after, mean_before, mean_after, magnitude, p_value,
  detected_at, updated_at`;

/** Inserts or updates every change point in one statement; keyed by series, mode, kind and run. */
async function upsert(
  client: PoolClient,
  changes: Detected[],
): Promise<Map<string, { changePoint: ChangePoint; inserted: boolean }>> {
  const stored = new Map<string, { changePoint: ChangePoint; inserted: boolean }>();
  if (changes.length === 0) return stored;
  const column = <T>(pick: (c: Detected) => T) => changes.map(pick);
  const { rows } = await client.query<ChangePointRow & { inserted: boolean }>(
    `INSERT INTO change_points (id, endpoint_id, profile_id, metric, statistic, mode, kind, at, run_id, previous_run_id,
                                end_run_id, end_at, runs_before, runs_after, mean_before, mean_after, magnitude, p_value)
     SELECT gen_random_uuid(), * FROM unnest($1::uuid[], $2::uuid[], $3::text[], $4::text[], $5::"ChangePointMode"[],
       $6::"ChangePointKind"[], $7::timestamptz[], $8::uuid[], $9::uuid[], $10::uuid[], $11::timestamptz[], $12::int[],
       $13::int[], $14::float8[], $15::float8[], $16::float8[], $17::float8[])
     ON CONFLICT (endpoint_id, profile_id, metric, statistic, mode, kind, run_id) DO UPDATE SET
       at = EXCLUDED.at, previous_run_id = EXCLUDED.previous_run_id, end_run_id = EXCLUDED.end_run_id,
       end_at = EXCLUDED.end_at, runs_before = EXCLUDED.runs_before, runs_after = EXCLUDED.runs_after,
       mean_before = EXCLUDED.mean_before, mean_after = EXCLUDED.mean_after, magnitude = EXCLUDED.magnitude,
       p_value = EXCLUDED.p_value, updated_at = now()
     RETURNING ${COLUMNS}, (xmax = 0) AS inserted`,
    [
      column((c) => c.endpointId),
      column((c) => c.profileId),
      column((c) => c.metric),
      column((c) => c.statistic),
      column((c) => c.mode),
      column((c) => c.kind),
      column((c) => c.at),
      column((c) => c.runId),
      column((c) => c.previousRunId),
      column((c) => c.endRunId),
      column((c) => c.endAt),
      column((c) => c.runsBefore),
      column((c) => c.runsAfter),
      column((c) => c.meanBefore),
      column((c) => c.meanAfter),
      column((c) => c.magnitude),
      column((c) => c.pValue),
    ],
  );
  for (const row of rows) {
    stored.set(`${identity(row)}|${row.run_id}`, { changePoint: fromRow(row), inserted: row.inserted });
  }
  return stored;
}

interface ChangePointRow {
  id: string;
  endpoint_id: string;
  profile_id: string;
  metric: string;
  statistic: string;
  mode: string;
  kind: string;
  at: Date;
  run_id: string;
  previous_run_id: string | null;
  end_run_id: string | null;
  end_at: Date | null;
  runs_before: number;
  runs_after: number;
  mean_before: number;
  mean_after: number;
  magnitude: number;
  p_value: number;
  detected_at: Date;
  updated_at: Date;
}

function fromRow(row: ChangePointRow): ChangePoint {
  const metric = row.metric as MetricName;
  const statistic = row.statistic as Statistic;
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    profileId: row.profile_id,
    metric,
    statistic,
    unit: statistic === 'p99/p50' ? 'ratio' : ((METRICS[metric] as MetricDefinition | undefined)?.unit ?? ''),
    mode: row.mode as ChangePointMode,
    kind: row.kind as ChangePointKind,
    at: row.at,
    runId: row.run_id,
    previousRunId: row.previous_run_id,
    endRunId: row.end_run_id,
    endAt: row.end_at,
    runsBefore: row.runs_before,
    runsAfter: row.runs_after,
    meanBefore: row.mean_before,
    meanAfter: row.mean_after,
    magnitude: row.magnitude,
    pValue: row.p_value,
    detectedAt: row.detected_at,
    updatedAt: row.updated_at,
  };
}

export interface ChangePointQuery {
  endpointIds?: string[];
  profileIds?: string[];
  metric?: string;
  statistic?: string;
  mode?: string;
  kind?: string;
  /** Change points at or after `from` and before `to`. */
  from?: Date;
  to?: Date;
  /** Default 100, at most MAX_CHANGE_POINTS_LIMIT. */
  limit?: number;
}

export interface ChangePointList {
  changePoints: ChangePoint[];
  /** True when more matched than `limit`: narrow the filters or the range. */
  truncated: boolean;
}

/** Stored change points, newest first; throws AnalysisInputError naming the parameter at fault. */
export async function listChangePoints(db: RunStore, query: ChangePointQuery): Promise<ChangePointList> {
  const params: unknown[] = [];
  const where: string[] = [];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (query.metric !== undefined) {
    if (!isMetricName(query.metric))
      throw new AnalysisInputError('metric', `must be one of ${METRIC_NAMES.join(', ')}`);
    add((p) => `metric = ${p}`, query.metric);
  }
  if (query.statistic !== undefined) {
    const allowed: readonly string[] = query.metric
      ? (METRICS[query.metric as MetricName] as MetricDefinition).statistics
      : STATISTICS;
    if (!allowed.includes(query.statistic)) {
      const of = query.metric ? ` of ${query.metric}` : '';
      throw new AnalysisInputError(
        'statistic',
        `${of ? `${of.trim()} ` : ''}must be one of ${allowed.join(', ')}`,
      );
    }
    add((p) => `statistic = ${p}`, query.statistic);
  }
  if (query.mode !== undefined) {
    if (!(CHANGE_POINT_MODES as readonly string[]).includes(query.mode))
      throw new AnalysisInputError('mode', `must be one of ${CHANGE_POINT_MODES.join(', ')}`);
    add((p) => `mode::text = ${p}`, query.mode);
  }
  if (query.kind !== undefined) {
    if (!(CHANGE_POINT_KINDS as readonly string[]).includes(query.kind))
      throw new AnalysisInputError('kind', `must be one of ${CHANGE_POINT_KINDS.join(', ')}`);
    add((p) => `kind::text = ${p}`, query.kind);
  }
  for (const name of ['from', 'to'] as const) {
    const value = query[name];
    if (value !== undefined && (!(value instanceof Date) || Number.isNaN(value.getTime())))
      throw new AnalysisInputError(name, 'must be a date');
  }
  if (query.from && query.to && query.from.getTime() >= query.to.getTime())
    throw new AnalysisInputError('to', 'must be after from');
  if (query.from) add((p) => `at >= ${p}`, query.from);
  if (query.to) add((p) => `at < ${p}`, query.to);
  if (query.endpointIds) add((p) => `endpoint_id = ANY(${p}::uuid[])`, query.endpointIds);
  if (query.profileIds) add((p) => `profile_id = ANY(${p}::uuid[])`, query.profileIds);
  const limit = query.limit ?? 100;
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_CHANGE_POINTS_LIMIT)
    throw new AnalysisInputError('limit', `must be an integer from 1 to ${MAX_CHANGE_POINTS_LIMIT}`);
  params.push(limit + 1);
  const { rows } = await poolOf(db).query<ChangePointRow>(
    `SELECT ${COLUMNS} FROM change_points ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
      ORDER BY at DESC, id LIMIT $${params.length}`,
    params,
  );
  return { changePoints: rows.slice(0, limit).map(fromRow), truncated: rows.length > limit };
}
