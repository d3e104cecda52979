import type {
  FinalSweepStatus,
  RunErrorClass,
  RunStatusName,
  SweepStatusName,
  SweepStopReason,
} from '@teapot/contracts';
import type { Load } from '@teapot/measure';
import type { PoolClient } from 'pg';
import type { RunTrigger } from '../generated/prisma/enums';
import { poolOf, type RunStore } from '../run-store';

/** A sweep row as stored. `spec` and `profileSnapshot` are the JSON as queued, not yet checked. */
export interface StoredSweep {
  id: string;
  endpointId: string;
  profileId: string | null;
  configId: string | null;
  deploymentId: string | null;
  trigger: RunTrigger;
  slotKey: string | null;
  spec: unknown;
  profileSnapshot: unknown;
  status: SweepStatusName;
  stopReason: SweepStopReason | null;
  capacity: number | null;
  bracketPassed: number | null;
  bracketFailed: number | null;
  costPerMtokAtCapacity: number | null;
  error: string | null;
  errorClass: RunErrorClass | null;
  queuedAt: Date;
  startedAt: Date | null;
  finishedAt: Date | null;
}

/** One point of a sweep: its run, the load the run was asked for, and the figures stored when it ended. */
export interface SweepPointRun {
  runId: string;
  index: number;
  status: RunStatusName;
  /** The point run's own load (its snapshot's `load`). */
  load: Load;
  /** runs.sweep_point: null until the run is stored, and for a run that ended without measuring. */
  point: Record<string, unknown> | null;
  error: string | null;
  errorClass: RunErrorClass | null;
  finishedAt: Date | null;
}

export interface SweepWithPoints extends StoredSweep {
  /** In sweep_index order (the order they were measured in). */
  points: SweepPointRun[];
}

/** A sweep to queue: a profile's spec and snapshot, with the endpoint's live configuration. */
export interface NewSweep {
  endpointId: string;
  profileId: string | null;
  configId: string | null;
  deploymentId?: string | null;
  trigger: RunTrigger;
  slotKey?: string | null;
  spec: unknown;
  profileSnapshot: unknown;
}

/** A due slot's sweep to queue (as ScheduledRunToQueue is for runs). */
export interface ScheduledSweepToQueue {
  profileId: string;
  slotKey: string;
  configId: string | null;
  spec: unknown;
  snapshot: unknown;
}

export interface QueuedSweepSlot {
  sweepId: string;
  slotKey: string;
}

/** The run of point `index`: the sweep's endpoint, profile, configuration and trigger, and the point's snapshot. */
export interface NewPointRun {
  sweepId: string;
  index: number;
  snapshot: unknown;
}

/** How a sweep ended. */
export interface SweepFinish {
  status: FinalSweepStatus;
  /** Null only for a sweep that could not be run at all (its stored spec or snapshot is invalid). */
  stopReason: SweepStopReason | null;
  capacity?: number | null;
  bracketPassed?: number | null;
  bracketFailed?: number | null;
  costPerMtokAtCapacity?: number | null;
  error?: string | null;
  errorClass?: RunErrorClass | null;
}

/** An unfinished sweep with nothing running: its next step is due (see SweepStore.idle). */
export interface IdleSweep {
  id: string;
  /** Points whose run has ended (the `measured` of its next advance job). */
  measured: number;
}

export interface SweepListFilter {
  profileId?: string;
  endpointId?: string;
}

/** Rows strictly after this (queued_at desc, id desc) position. */
export interface SweepPageAfter {
  queuedAt: Date;
  id: string;
}

/* Aliased to StoredSweep's own names, so a row is a StoredSweep as it comes. */
const SWEEP_COLUMNS = `s.id, s.endpoint_id AS "endpointId", s.profile_id AS "profileId", s.config_id AS "configId",
  s.deployment_id AS "deploymentId", s.trigger::text AS trigger, s.slot_key AS "slotKey", s.spec,
  s.profile_snapshot AS "profileSnapshot", s.status::text AS status, s.stop_reason::text AS "stopReason",
  s.capacity, s.bracket_passed AS "bracketPassed", s.bracket_failed AS "bracketFailed",
  s.cost_per_mtok_at_capacity AS "costPerMtokAtCapacity", s.error, s.error_class::text AS "errorClass",
  s.queued_at AS "queuedAt", s.started_at AS "startedAt", s.finished_at AS "finishedAt"`;

/*
 * Like scheduled runs: one statement per tick, the profile re-checked (enabled, endpoint live), and a
 * slot another scheduler already inserted comes back only while the sweep is still queued, so its
 * first advance can be queued again (BullMQ ignores a job id it holds).
 */
const INSERT_DUE_SWEEPS = `
  INSERT INTO sweeps (id, endpoint_id, config_id, profile_id, trigger, slot_key, spec, profile_snapshot, status, queued_at)
  SELECT gen_random_uuid(), p.endpoint_id, due.config_id, p.id, 'schedule', due.slot_key, due.spec, due.snapshot, 'queued', now()
  FROM unnest($1::uuid[], $2::text[], $3::uuid[], $4::jsonb[], $5::jsonb[]) AS due(profile_id, slot_key, config_id, spec, snapshot)
  JOIN profiles p ON p.id = due.profile_id AND p.enabled
  JOIN endpoints e ON e.id = p.endpoint_id AND e.archived_at IS NULL
  ON CONFLICT (slot_key) DO UPDATE SET slot_key = EXCLUDED.slot_key WHERE sweeps.status = 'queued'
  RETURNING id, slot_key`;

/*
 * A point's run inherits the sweep's endpoint, profile, configuration, deployment and trigger. The
 * unique (sweep_id, sweep_index) makes a second insert of the same point a no-op: `created` is false
 * and the first insert's run is returned.
 */
const INSERT_POINT_RUN = `
  WITH inserted AS (
    INSERT INTO runs (id, endpoint_id, config_id, profile_id, deployment_id, profile_snapshot, status, trigger,
                      sweep_id, sweep_index, queued_at)
    SELECT gen_random_uuid(), s.endpoint_id, s.config_id, s.profile_id, s.deployment_id, $3::jsonb, 'queued', s.trigger,
           s.id, $2, now()
    FROM sweeps s WHERE s.id = $1
    ON CONFLICT (sweep_id, sweep_index) DO NOTHING
    RETURNING id)
  SELECT id, true AS created FROM inserted
  UNION ALL
  SELECT id, false AS created FROM runs WHERE sweep_id = $1 AND sweep_index = $2 AND NOT EXISTS (SELECT 1 FROM inserted)`;

const POINT_RUN_ID = `SELECT id FROM runs WHERE sweep_id = $1 AND sweep_index = $2`;

const POINT_RUNS = `
  SELECT r.id, r.sweep_index, r.status::text AS status, r.profile_snapshot -> 'load' AS load, r.sweep_point,
         r.error, r.error_class::text AS error_class, r.finished_at
  FROM runs r WHERE r.sweep_id = $1 ORDER BY r.sweep_index`;

/*
 * Unfinished sweeps whose last point run is final (or that have none yet) and have been idle for
 * longer than the grace: their advance job was lost (a worker killed between a point's end and the
 * advance, Redis refusing the enqueue).
 */
const IDLE_SWEEPS = `
  SELECT s.id, coalesce(last.sweep_index + 1, 0) AS measured
  FROM sweeps s
  LEFT JOIN LATERAL (
    SELECT r.sweep_index, r.status, r.finished_at FROM runs r
    WHERE r.sweep_id = s.id ORDER BY r.sweep_index DESC LIMIT 1) last ON true
  WHERE s.status IN ('queued', 'running')
    AND CASE WHEN last.sweep_index IS NULL THEN s.queued_at < $1
             ELSE last.status NOT IN ('queued', 'running') AND coalesce(last.finished_at, s.queued_at) < $1 END
  ORDER BY s.queued_at
  LIMIT $2`;

/** Every query on `sweeps` (and on the runs that are their points), typed once. */
export class SweepStore {
  constructor(private readonly db: RunStore) {}

  /** Inserts a queued sweep and returns its id; the caller queues its first advance. */
  async create(sweep: NewSweep, client?: PoolClient): Promise<string> {
    const { rows } = await (client ?? poolOf(this.db)).query<{ id: string }>(
      `INSERT INTO sweeps (id, endpoint_id, profile_id, config_id, deployment_id, trigger, slot_key, spec, profile_snapshot)
       VALUES (gen_random_uuid(), $1, $2, $3, $4, $5::"RunTrigger", $6, $7::jsonb, $8::jsonb) RETURNING id`,
      [
        sweep.endpointId,
        sweep.profileId,
        sweep.configId,
        sweep.deploymentId ?? null,
        sweep.trigger,
        sweep.slotKey ?? null,
        JSON.stringify(sweep.spec),
        JSON.stringify(sweep.profileSnapshot),
      ],
    );
    return rows[0].id;
  }

  /** One sweep per due slot in one statement; slots already queued come back, started ones do not. */
  async queueScheduled(sweeps: readonly ScheduledSweepToQueue[]): Promise<QueuedSweepSlot[]> {
    if (sweeps.length === 0) return [];
    const { rows } = await poolOf(this.db).query<{ id: string; slot_key: string }>(INSERT_DUE_SWEEPS, [
      sweeps.map((sweep) => sweep.profileId),
      sweeps.map((sweep) => sweep.slotKey),
      sweeps.map((sweep) => sweep.configId),
      sweeps.map((sweep) => JSON.stringify(sweep.spec)),
      sweeps.map((sweep) => JSON.stringify(sweep.snapshot)),
    ]);
    return rows.map((row) => ({ sweepId: row.id, slotKey: row.slot_key }));
  }

  /** queued -> running (started_at set once). False when the sweep is not queued. */
  async start(sweepId: string): Promise<boolean> {
    const { rowCount } = await poolOf(this.db).query(
      `UPDATE sweeps SET status = 'running', started_at = coalesce(started_at, now())
        WHERE id = $1 AND status = 'queued'`,
      [sweepId],
    );
    return rowCount === 1;
  }

  /** The sweep with its point runs in order; null when it does not exist. */
  async withPoints(sweepId: string): Promise<SweepWithPoints | null> {
    const pool = poolOf(this.db);
    const { rows } = await pool.query<StoredSweep>(`SELECT ${SWEEP_COLUMNS} FROM sweeps s WHERE s.id = $1`, [
      sweepId,
    ]);
    if (rows.length === 0) return null;
    const points = await pool.query<{
      id: string;
      sweep_index: number;
      status: RunStatusName;
      load: Load;
      sweep_point: Record<string, unknown> | null;
      error: string | null;
      error_class: RunErrorClass | null;
      finished_at: Date | null;
    }>(POINT_RUNS, [sweepId]);
    return {
      ...rows[0],
      points: points.rows.map((row) => ({
        runId: row.id,
        index: row.sweep_index,
        status: row.status,
        load: row.load,
        point: row.sweep_point,
        error: row.error,
        errorClass: row.error_class,
        finishedAt: row.finished_at,
      })),
    };
  }

  /**
   * Inserts point `index`'s queued run, once: a second call for the same point inserts nothing and
   * returns the existing run with `created` false. Throws when the sweep does not exist.
   */
  async insertPointRun(point: NewPointRun): Promise<{ runId: string; created: boolean }> {
    const { rows } = await poolOf(this.db).query<{ id: string; created: boolean }>(INSERT_POINT_RUN, [
      point.sweepId,
      point.index,
      JSON.stringify(point.snapshot),
    ]);
    if (rows.length > 0) return { runId: rows[0].id, created: rows[0].created };
    // A concurrent insert of the same point committed after this statement's snapshot: read it anew.
    const existing = await poolOf(this.db).query<{ id: string }>(POINT_RUN_ID, [point.sweepId, point.index]);
    if (existing.rows.length === 0) throw new Error(`sweep ${point.sweepId} does not exist`);
    return { runId: existing.rows[0].id, created: false };
  }

  /** Stores how the sweep ended, once: false when it had already ended. */
  async finish(sweepId: string, outcome: SweepFinish): Promise<boolean> {
    const { rowCount } = await poolOf(this.db).query(
      `UPDATE sweeps SET status = $2::"SweepStatus", stop_reason = $3::"SweepStopReason", capacity = $4,
              bracket_passed = $5, bracket_failed = $6, cost_per_mtok_at_capacity = $7, error = $8,
              error_class = $9::"RunErrorClass", started_at = coalesce(started_at, now()), finished_at = now()
        WHERE id = $1 AND status IN ('queued', 'running')`,
      [
        sweepId,
        outcome.status,
        outcome.stopReason,
        outcome.capacity ?? null,
        outcome.bracketPassed ?? null,
        outcome.bracketFailed ?? null,
        outcome.costPerMtokAtCapacity ?? null,
        outcome.error ?? null,
        outcome.errorClass ?? null,
      ],
    );
    return rowCount === 1;
  }

  /**
   * Ends the unfinished sweeps of the named endpoints as `aborted` (class `stopped`): what a launcher
   * stopping every worker does after cancelling their runs, so no sweep stays `running`. Returns how many.
   */
  async abortUnfinished(endpointNames: readonly string[], reason: string): Promise<number> {
    const { rowCount } = await poolOf(this.db).query(
      `UPDATE sweeps s SET status = 'aborted', stop_reason = 'aborted', error = $2, error_class = 'stopped',
              finished_at = now()
         FROM endpoints e
        WHERE e.id = s.endpoint_id AND e.name = ANY($1::text[]) AND s.status IN ('queued', 'running')`,
      [endpointNames, reason],
    );
    return rowCount ?? 0;
  }

  /** Unfinished sweeps idle since before `idleBefore` (nothing measuring, next step not taken), oldest first. */
  async idle(idleBefore: Date, limit: number): Promise<IdleSweep[]> {
    const { rows } = await poolOf(this.db).query<{ id: string; measured: number }>(IDLE_SWEEPS, [
      idleBefore,
      limit,
    ]);
    return rows.map((row) => ({ id: row.id, measured: Number(row.measured) }));
  }

  /** A profile's or endpoint's sweeps, newest first (queued_at desc, id desc), after `after`. */
  async list(
    filter: SweepListFilter,
    page: { limit: number; after?: SweepPageAfter },
  ): Promise<StoredSweep[]> {
    const { rows } = await poolOf(this.db).query<StoredSweep>(
      `SELECT ${SWEEP_COLUMNS} FROM sweeps s
        WHERE ($1::uuid IS NULL OR s.profile_id = $1) AND ($2::uuid IS NULL OR s.endpoint_id = $2)
          AND ($3::timestamptz IS NULL OR (s.queued_at, s.id) < ($3, $4::uuid))
        ORDER BY s.queued_at DESC, s.id DESC LIMIT $5`,
      [
        filter.profileId ?? null,
        filter.endpointId ?? null,
        page.after?.queuedAt ?? null,
        page.after?.id ?? null,
        page.limit,
      ],
    );
    return rows;
  }
}
