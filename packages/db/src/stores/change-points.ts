import {
  MEASURED_RUN_STATUSES,
  METRICS,
  JUDGED_METRIC_NAMES,
  isSweepMetricName,
  statisticUnit,
  sweepMetricUnit,
  type MetricDefinition,
  type MetricName,
  type Statistic,
  type SweepMetricName,
} from '@teapot/contracts';
import type { PoolClient } from 'pg';
import { poolOf, type RunStore } from '../run-store';
import { ProfileStore, type StoredThresholds } from './profiles';
import { Parameters, type ConfigValue } from './serving-config';

export const CHANGE_POINT_MODES = ['otava', 'robust'] as const;
export type ChangePointMode = (typeof CHANGE_POINT_MODES)[number];
export const CHANGE_POINT_KINDS = ['step', 'drift'] as const;
export type ChangePointKind = (typeof CHANGE_POINT_KINDS)[number];

/** A series is one (endpoint, profile, metric, statistic); a recomputation covers all of a pair's. */
export interface SeriesKey {
  endpointId: string;
  profileId: string;
}

/**
 * What a series' values come from: its runs (the run metrics' catalogue), or its finished capacity
 * searches (capacity and cost per million tokens, one value per search). A recomputation covers one.
 */
export type SeriesFamily = 'runs' | 'sweeps';

export interface ChangePoint {
  id: string;
  endpointId: string;
  profileId: string;
  metric: MetricName | SweepMetricName;
  statistic: Statistic;
  unit: string;
  mode: ChangePointMode;
  kind: ChangePointKind;
  /** Step: start of the first run (or capacity search) after the change. Drift: start of its first. */
  at: Date;
  /** In a run metric's series: the first run after the change; null in a sweep metric's. */
  runId: string | null;
  /** The last run before the change (step) or before the drift; null at the series' start. */
  previousRunId: string | null;
  /** Drift: its last run and that run's start; null for a step. */
  endRunId: string | null;
  endAt: Date | null;
  /** In a sweep metric's series (capacity, cost_per_mtok), the capacity searches in place of the runs. */
  sweepId: string | null;
  previousSweepId: string | null;
  endSweepId: string | null;
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

/** A change point as a recomputation finds it, before it is stored. */
export type FoundChangePoint = Omit<ChangePoint, 'id' | 'unit' | 'detectedAt' | 'updatedAt'>;

/** A run of a series: its start and the raw value source of each metric (summary section or headline);
 *  or, in a sweep metric's series, a capacity search and its capacity and cost. */
export interface SeriesRun {
  id: string;
  startedAt: Date;
  values: Partial<Record<MetricName | SweepMetricName, unknown>>;
}

/** The runs, or capacity searches, a change point names: where it starts, ends and what precedes it. */
export type SeriesItems = Pick<
  ChangePoint,
  'runId' | 'previousRunId' | 'endRunId' | 'sweepId' | 'previousSweepId' | 'endSweepId'
>;

/** Where a change point starts, ends and what precedes it, whichever family its series is of. */
export function seriesItemsOf(c: SeriesItems) {
  return c.sweepId !== null
    ? { start: c.sweepId, previous: c.previousSweepId, end: c.endSweepId }
    : { start: c.runId as string, previous: c.previousRunId, end: c.endRunId };
}

/** A change point as stored: whether it is retracted, and the magnitude last announced (null: never). */
export type StoredChangePoint = ChangePoint & { retractedAt: Date | null; announcedMagnitude: number | null };

/**
 * How a recomputation turns a pair's stored change points into what it found: stored ones refined in
 * place (same id), new ones inserted, ones no longer found retracted (kept, hidden from lists).
 */
export interface ChangePointPlan {
  updates: Array<{ id: string; changePoint: FoundChangePoint }>;
  inserts: FoundChangePoint[];
  retractions: string[];
}

/** What a replacement stored, handed to its caller inside the transaction. */
export interface ChangePointReplacement {
  client: PoolClient;
  /** Each updated change point as it was before and as it is now. */
  updated: Array<{ previous: StoredChangePoint; current: StoredChangePoint }>;
  inserted: StoredChangePoint[];
  retracted: StoredChangePoint[];
}

export interface ChangePointFilter {
  endpointIds?: string[];
  profileIds?: string[];
  metric?: string;
  statistic?: string;
  mode?: string;
  kind?: string;
  from?: Date;
  to?: Date;
}

type ChangePointRow = {
  id: string;
  endpoint_id: string;
  profile_id: string;
  metric: string;
  statistic: string;
  mode: string;
  kind: string;
  at: Date;
  run_id: string | null;
  previous_run_id: string | null;
  end_run_id: string | null;
  end_at: Date | null;
  sweep_id: string | null;
  previous_sweep_id: string | null;
  end_sweep_id: string | null;
  dimension: 'rate' | 'concurrency' | null;
  runs_before: number;
  runs_after: number;
  mean_before: number;
  mean_after: number;
  magnitude: number;
  p_value: number;
  detected_at: Date;
  updated_at: Date;
  retracted_at: Date | null;
  announced_magnitude: number | null;
};

const COLUMNS = `id, endpoint_id, profile_id, metric, statistic, mode::text AS mode, kind::text AS kind, at, run_id,
  previous_run_id, end_run_id, end_at, runs_before, runs_after, mean_before, mean_after, magnitude, p_value,
  detected_at, updated_at, retracted_at, announced_magnitude, sweep_id, previous_sweep_id, end_sweep_id,
  (SELECT s.spec->>'dimension' FROM sweeps s WHERE s.id = sweep_id) AS dimension`;

/** Per metric, the SQL reading a run's value source: its exact summary section, or its headline column. */
const VALUE_COLUMNS = JUDGED_METRIC_NAMES.map((metric) => {
  const definition: MetricDefinition = METRICS[metric];
  if (definition.kind === 'distribution') return `r.summary->'${definition.summaryKey}' AS "${metric}"`;
  const column = definition.headline.find((h) => h.statistic === 'mean')?.column;
  return `r.${column} AS "${metric}"`;
}).join(', ');

/** Stored change points (change_points, recomputed per series) and the run series they are found in. */
export class ChangePointStore {
  constructor(private readonly db: RunStore) {}

  /** The latest `limit` measured, unsaturated runs of a pair (oldest first), as trends count them. */
  async seriesRuns(key: SeriesKey, limit: number): Promise<SeriesRun[]> {
    const { rows } = await poolOf(this.db).query<{ id: string; started_at: Date } & Record<string, unknown>>(
      `SELECT r.id, r.started_at, ${VALUE_COLUMNS}
         FROM runs r
        WHERE r.endpoint_id = $1 AND r.profile_id = $2 AND r.status::text = ANY($3) AND r.sweep_id IS NULL
          AND r.started_at IS NOT NULL AND NOT COALESCE(r.client_saturated, false)
        ORDER BY r.started_at DESC, r.id DESC
        LIMIT $4`,
      [key.endpointId, key.profileId, MEASURED_RUN_STATUSES, limit],
    );
    return rows.reverse().map((row) => ({
      id: row.id,
      startedAt: row.started_at,
      values: Object.fromEntries(JUDGED_METRIC_NAMES.map((m) => [m, row[m] === null ? null : row[m]])),
    }));
  }

  /**
   * The latest `limit` finished capacity searches of a pair (oldest first) that found a capacity, in the
   * dimension (req/s or streams) of the latest one: a search whose SLO failed at its lowest load has no
   * value (the capacity trend counts those apart), and the two dimensions are different scales.
   */
  async sweepSeries(key: SeriesKey, limit: number): Promise<SeriesRun[]> {
    const { rows } = await poolOf(this.db).query<{
      id: string;
      started_at: Date;
      capacity: number;
      cost_per_mtok: number | null;
    }>(
      `WITH searches AS (
         SELECT s.id, s.started_at, s.capacity, s.cost_per_mtok_at_capacity AS cost_per_mtok,
                s.spec->>'dimension' AS dimension
           FROM sweeps s
          WHERE s.endpoint_id = $1 AND s.profile_id = $2 AND s.status = 'succeeded'
            AND s.spec->>'kind' = 'capacity' AND s.capacity IS NOT NULL AND s.started_at IS NOT NULL)
       SELECT id, started_at, capacity, cost_per_mtok FROM searches
        WHERE dimension = (SELECT dimension FROM searches ORDER BY started_at DESC, id DESC LIMIT 1)
        ORDER BY started_at DESC, id DESC
        LIMIT $3`,
      [key.endpointId, key.profileId, limit],
    );
    return rows.reverse().map((row) => ({
      id: row.id,
      startedAt: row.started_at,
      values: { capacity: row.capacity, cost_per_mtok: row.cost_per_mtok },
    }));
  }

  /** The pair's profile's comparison thresholds as stored ({} when it sets none): the change that
   *  matters per metric, which change-point detection takes as its minimum too. */
  async profileThresholds(key: SeriesKey): Promise<StoredThresholds> {
    const [stored] = await new ProfileStore(this.db).comparisonThresholds([key.profileId]);
    return stored ?? { profileId: key.profileId, thresholds: {} };
  }

  /** Whether a measured run of the pair finished at or after `mark` (database time). */
  async finishedSince(key: SeriesKey, mark: Date): Promise<boolean> {
    const { rows } = await poolOf(this.db).query<{ found: boolean }>(
      `SELECT EXISTS (SELECT 1 FROM runs WHERE endpoint_id = $1 AND profile_id = $2 AND sweep_id IS NULL
                         AND status::text = ANY($3) AND finished_at >= $4) AS found`,
      [key.endpointId, key.profileId, MEASURED_RUN_STATUSES, mark],
    );
    return rows[0].found;
  }

  /** The database's clock, which finishedSince compares against. */
  async now(): Promise<Date> {
    const { rows } = await poolOf(this.db).query<{ now: Date }>('SELECT now()');
    return rows[0].now;
  }

  /**
   * Applies `plan` to a pair's change points of one series family at or after `from`, in one transaction
   * serialized per pair by an advisory lock: `plan` sees every stored one of the range (retracted ones
   * too) and says which to update, insert and retract. `within` runs in the transaction; what it writes
   * commits with them.
   */
  async replace<T>(
    key: SeriesKey,
    from: Date,
    plan: (stored: StoredChangePoint[]) => ChangePointPlan,
    within: (replacement: ChangePointReplacement) => Promise<T>,
    family: SeriesFamily = 'runs',
  ): Promise<T> {
    const client = await poolOf(this.db).connect();
    try {
      await client.query('BEGIN');
      await client.query('SELECT pg_advisory_xact_lock(hashtext($1))', [
        `change-points:${key.endpointId}:${key.profileId}`,
      ]);
      const { rows } = await client.query<ChangePointRow>(
        `SELECT ${COLUMNS} FROM change_points
          WHERE endpoint_id = $1 AND profile_id = $2 AND at >= $3
            AND sweep_id IS ${family === 'sweeps' ? 'NOT NULL' : 'NULL'}`,
        [key.endpointId, key.profileId, from],
      );
      const stored = new Map(rows.map((row) => [row.id, storedChangePointOf(row)]));
      const { updates, inserts, retractions } = plan([...stored.values()]);
      const retracted = retractions.length
        ? (
            await client.query<ChangePointRow>(
              `UPDATE change_points SET retracted_at = now() WHERE id = ANY($1::uuid[]) AND retracted_at IS NULL
               RETURNING ${COLUMNS}`,
              [retractions],
            )
          ).rows.map(storedChangePointOf)
        : [];
      const updated = (await write(client, updates)).map((current) => ({
        previous: stored.get(current.id) as StoredChangePoint,
        current,
      }));
      const inserted = await write(
        client,
        inserts.map((changePoint) => ({ id: null, changePoint })),
      );
      const result = await within({ client, updated, inserted, retracted });
      await client.query('COMMIT');
      return result;
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    } finally {
      client.release();
    }
  }

  /** Stored change points a filter names, newest first, at most `limit`. */
  async list(filter: ChangePointFilter, limit: number): Promise<ChangePoint[]> {
    const params = new Parameters();
    const { bind } = params;
    const where: string[] = ['retracted_at IS NULL'];
    if (filter.metric !== undefined) where.push(`metric = ${bind(filter.metric)}`);
    if (filter.statistic !== undefined) where.push(`statistic = ${bind(filter.statistic)}`);
    if (filter.mode !== undefined) where.push(`mode::text = ${bind(filter.mode)}`);
    if (filter.kind !== undefined) where.push(`kind::text = ${bind(filter.kind)}`);
    if (filter.from) where.push(`at >= ${bind(filter.from)}`);
    if (filter.to) where.push(`at < ${bind(filter.to)}`);
    if (filter.endpointIds) where.push(`endpoint_id = ANY(${bind(filter.endpointIds)}::uuid[])`);
    if (filter.profileIds) where.push(`profile_id = ANY(${bind(filter.profileIds)}::uuid[])`);
    const { rows } = await poolOf(this.db).query<ChangePointRow>(
      `SELECT ${COLUMNS} FROM change_points WHERE ${where.join(' AND ')}
        ORDER BY at DESC, id LIMIT ${bind(limit)}`,
      params.values,
    );
    return rows.map(changePointOf);
  }

  /** One stored change point by id, retracted or not; null when there is none. */
  async byId(id: string): Promise<StoredChangePoint | null> {
    const { rows } = await poolOf(this.db).query<ChangePointRow>(
      `SELECT ${COLUMNS} FROM change_points WHERE id = $1`,
      [id],
    );
    return rows[0] ? storedChangePointOf(rows[0]) : null;
  }
}

/** Records that change points were announced with these magnitudes (a later update is judged against them). */
export async function markChangePointsAnnounced(
  client: PoolClient,
  announced: ReadonlyArray<{ id: string; magnitude: number }>,
): Promise<void> {
  if (announced.length === 0) return;
  await client.query(
    `UPDATE change_points c SET announced_magnitude = a.magnitude
       FROM unnest($1::uuid[], $2::float8[]) AS a(id, magnitude) WHERE c.id = a.id`,
    [announced.map((a) => a.id), announced.map((a) => a.magnitude)],
  );
}

/**
 * Whether the run a change point starts at was scheduled, and whether a deployment-triggered run of its
 * endpoint started in the `windowMs` up to it; read in the transaction that stores the change point.
 */
export async function changePointSurroundings(
  client: PoolClient,
  changePoint: Pick<ChangePoint, 'runId' | 'sweepId' | 'endpointId' | 'at'>,
  windowMs: number,
): Promise<{ scheduled: boolean; deployedBefore: boolean }> {
  // A capacity search's change starts at a sweep; a deployment verifies with runs or sweeps.
  const { rows } = await client.query<{ scheduled: boolean | null; deployed: boolean }>(
    `SELECT (SELECT trigger::text = 'schedule' FROM runs WHERE id = $1
             UNION ALL SELECT trigger::text = 'schedule' FROM sweeps WHERE id = $5) AS scheduled,
            EXISTS (SELECT 1 FROM runs WHERE endpoint_id = $2 AND trigger::text = 'deployment'
                       AND started_at > $3::timestamptz - make_interval(secs => $4) AND started_at <= $3
                    UNION ALL
                    SELECT 1 FROM sweeps WHERE endpoint_id = $2 AND trigger::text = 'deployment'
                       AND started_at > $3::timestamptz - make_interval(secs => $4) AND started_at <= $3) AS deployed`,
    [changePoint.runId, changePoint.endpointId, changePoint.at, windowMs / 1000, changePoint.sweepId],
  );
  return { scheduled: rows[0]?.scheduled === true, deployedBefore: rows[0]?.deployed === true };
}

/** What changed around a change point: its series' serving configuration and the endpoint's deployments. */
export interface ChangePointAttribution {
  /** The serving-configuration version of the run before the change and of its first run (null: none recorded). */
  configBefore: number | null;
  configAfter: number | null;
  /** The configuration fields that differ between those two versions. */
  configChanges: Array<{ field: string; before: ConfigValue; after: ConfigValue }>;
  /** Deployments of the endpoint that took effect after the run before the change, up to its first run. */
  deployments: Array<{ id: string; label: string; version: string | null; effectiveAt: Date }>;
  /** False when neither the configuration nor a deployment changed there: an unexplained change. */
  explained: boolean;
}

/**
 * Inserts (id null) or updates (by id, clearing a retraction) change points in one statement; returns
 * them as stored, in no particular order.
 */
async function write(
  client: PoolClient,
  changes: ReadonlyArray<{ id: string | null; changePoint: FoundChangePoint }>,
): Promise<StoredChangePoint[]> {
  if (changes.length === 0) return [];
  const column = <T>(pick: (c: FoundChangePoint) => T) => changes.map((c) => pick(c.changePoint));
  const { rows } = await client.query<ChangePointRow>(
    `INSERT INTO change_points (id, endpoint_id, profile_id, metric, statistic, mode, kind, at, run_id,
                                previous_run_id, end_run_id, end_at, runs_before, runs_after, mean_before,
                                mean_after, magnitude, p_value, sweep_id, previous_sweep_id, end_sweep_id)
     SELECT COALESCE(id, gen_random_uuid()), endpoint_id, profile_id, metric, statistic, mode, kind, at, run_id,
            previous_run_id, end_run_id, end_at, runs_before, runs_after, mean_before, mean_after, magnitude, p_value,
            sweep_id, previous_sweep_id, end_sweep_id
       FROM unnest($1::uuid[], $2::uuid[], $3::uuid[], $4::text[], $5::text[], $6::"ChangePointMode"[],
         $7::"ChangePointKind"[], $8::timestamptz[], $9::uuid[], $10::uuid[], $11::uuid[], $12::timestamptz[],
         $13::int[], $14::int[], $15::float8[], $16::float8[], $17::float8[], $18::float8[], $19::uuid[],
         $20::uuid[], $21::uuid[])
         AS f(id, endpoint_id, profile_id, metric, statistic, mode, kind, at, run_id, previous_run_id, end_run_id,
              end_at, runs_before, runs_after, mean_before, mean_after, magnitude, p_value, sweep_id,
              previous_sweep_id, end_sweep_id)
     ON CONFLICT (id) DO UPDATE SET
       kind = EXCLUDED.kind, at = EXCLUDED.at, run_id = EXCLUDED.run_id, previous_run_id = EXCLUDED.previous_run_id,
       end_run_id = EXCLUDED.end_run_id, sweep_id = EXCLUDED.sweep_id,
       previous_sweep_id = EXCLUDED.previous_sweep_id, end_sweep_id = EXCLUDED.end_sweep_id,
       end_at = EXCLUDED.end_at, runs_before = EXCLUDED.runs_before,
       runs_after = EXCLUDED.runs_after, mean_before = EXCLUDED.mean_before, mean_after = EXCLUDED.mean_after,
       magnitude = EXCLUDED.magnitude, p_value = EXCLUDED.p_value, retracted_at = NULL, updated_at = now()
     RETURNING ${COLUMNS}`,
    [
      changes.map((c) => c.id),
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
      column((c) => c.sweepId),
      column((c) => c.previousSweepId),
      column((c) => c.endSweepId),
    ],
  );
  return rows.map(storedChangePointOf);
}

function storedChangePointOf(row: ChangePointRow): StoredChangePoint {
  return {
    ...changePointOf(row),
    retractedAt: row.retracted_at,
    announcedMagnitude: row.announced_magnitude,
  };
}

function changePointOf(row: ChangePointRow): ChangePoint {
  const metric = row.metric as MetricName | SweepMetricName;
  const statistic = row.statistic as Statistic;
  const unit = isSweepMetricName(metric)
    ? sweepMetricUnit(metric, row.dimension ?? 'rate')
    : statisticUnit(statistic, (METRICS[metric] as MetricDefinition | undefined)?.unit ?? '');
  return {
    id: row.id,
    endpointId: row.endpoint_id,
    profileId: row.profile_id,
    metric,
    statistic,
    unit,
    mode: row.mode as ChangePointMode,
    kind: row.kind as ChangePointKind,
    at: row.at,
    runId: row.run_id,
    previousRunId: row.previous_run_id,
    endRunId: row.end_run_id,
    endAt: row.end_at,
    sweepId: row.sweep_id,
    previousSweepId: row.previous_sweep_id,
    endSweepId: row.end_sweep_id,
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
