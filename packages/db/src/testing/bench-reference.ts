import { MEASURED_RUN_STATUSES } from '@teapot/contracts';
import { poolOf, type RunStore } from '../run-store';

/** One endpoint's runs started at or after `from` and before `to`. */
export interface EndpointWindow {
  endpointId: string;
  from: Date;
  to: Date;
}

/** Rows and bytes of stored encoded histograms. */
export interface StoredSize {
  rows: number;
  bytes: number;
}

/**
 * The exact daily P99 ITL (ms, by UTC day start in ms) in SQL over the raw chunk arrays, each token
 * chunk's gap split over its tokens: the slow reference the benches hold the rollups against.
 */
export async function exactDailyItlP99(db: RunStore, window: EndpointWindow): Promise<Map<number, number>> {
  const { rows } = await poolOf(db).query<{ day: Date; p99: number }>(
    `WITH req AS (
       SELECT date_trunc('day', r.started_at AT TIME ZONE 'UTC') AS day, rr.run_id, rr.index,
              rr.chunk_offsets_us AS o, rr.chunk_tokens AS t
         FROM runs r JOIN run_requests rr ON rr.run_id = r.id
        WHERE r.endpoint_id = $1 AND r.started_at >= $2 AND r.started_at < $3
          AND r.status::text = ANY($4) AND NOT COALESCE(r.client_saturated, false)
          AND rr.outcome = 'ok' AND NOT rr.warmup AND rr.chunk_offsets_us IS NOT NULL
     ), chunks AS (
       SELECT day, run_id, index, k,
              get_byte(o, 4 * k)::bigint + (get_byte(o, 4 * k + 1)::bigint << 8)
                + (get_byte(o, 4 * k + 2)::bigint << 16) + (get_byte(o, 4 * k + 3)::bigint << 24) AS at,
              get_byte(t, 2 * k) + (get_byte(t, 2 * k + 1) << 8) AS m
         FROM req, generate_series(0, length(o) / 4 - 1) AS k
     ), gaps AS (
       SELECT day, m, at - lag(at) OVER (PARTITION BY run_id, index ORDER BY k) AS gap
         FROM chunks WHERE m > 0
     )
     SELECT day, percentile_cont(0.99) WITHIN GROUP (ORDER BY gap::float8 / m) / 1000 AS p99
       FROM gaps, generate_series(1, m) WHERE gap IS NOT NULL
      GROUP BY day ORDER BY day`,
    [window.endpointId, window.from, window.to, MEASURED_RUN_STATUSES],
  );
  return new Map(
    rows.map((row) => [new Date(`${row.day.toISOString().slice(0, 10)}T00:00:00Z`).getTime(), row.p99]),
  );
}

/** What a daily ITL trend of one endpoint reads from the daily rollups, and from per-run histograms instead. */
export async function storedItlSizes(
  db: RunStore,
  window: EndpointWindow,
): Promise<{ rollups: StoredSize; perRun: StoredSize }> {
  const range = [window.endpointId, window.from, window.to];
  const pool = poolOf(db);
  const [rollups, perRun] = await Promise.all([
    pool.query<{ rows: string; bytes: string }>(
      `SELECT count(*) AS rows, COALESCE(sum(length(encoded)), 0) AS bytes FROM run_rollups
        WHERE metric = 'itl' AND grain = 'day' AND endpoint_id = $1 AND bucket_start >= $2 AND bucket_start < $3`,
      range,
    ),
    pool.query<{ rows: string; bytes: string }>(
      `SELECT count(*) AS rows, COALESCE(sum(length(h.encoded)), 0) AS bytes
         FROM runs r JOIN run_histograms h ON h.run_id = r.id AND h.metric = 'itl'
        WHERE r.endpoint_id = $1 AND r.started_at >= $2 AND r.started_at < $3`,
      range,
    ),
  ]);
  const size = (row: { rows: string; bytes: string }) => ({
    rows: Number(row.rows),
    bytes: Number(row.bytes),
  });
  return { rollups: size(rollups.rows[0]), perRun: size(perRun.rows[0]) };
}

/** Bytes of one run's live run_requests rows (dead versions not yet vacuumed are not counted). */
export async function runRequestBytes(db: RunStore, runId: string): Promise<number> {
  const { rows } = await poolOf(db).query<{ bytes: string | null }>(
    'SELECT sum(pg_column_size(r.*))::text AS bytes FROM run_requests r WHERE run_id = $1',
    [runId],
  );
  return Number(rows[0].bytes ?? 0);
}

/** Output tokens of the measured (ok, not warm-up) requests of these runs. */
export async function measuredOutputTokens(db: RunStore, runIds: readonly string[]): Promise<number> {
  const { rows } = await poolOf(db).query<{ tokens: string }>(
    `SELECT coalesce(sum(output_tokens), 0) AS tokens FROM run_requests
      WHERE run_id = ANY($1::uuid[]) AND NOT warmup AND outcome = 'ok'`,
    [runIds],
  );
  return Number(rows[0].tokens);
}

/** Empties every run, serving configuration and endpoint (and what hangs off them). */
export async function truncateRunHistory(db: RunStore): Promise<void> {
  await poolOf(db).query('TRUNCATE runs, serving_configs, endpoints CASCADE');
}

/** An enabled profile with a fixed interval, as the scheduler's first naive tick listed them. */
export interface IntervalProfile {
  id: string;
  intervalS: number;
}

/** The scheduler as first written, kept as the bench's baseline: one query for the interval profiles. */
export async function intervalProfiles(db: RunStore): Promise<IntervalProfile[]> {
  const { rows } = await poolOf(db).query<{ id: string; interval_s: number }>(
    'SELECT id, schedule_interval_s AS interval_s FROM profiles WHERE enabled AND schedule_interval_s IS NOT NULL',
  );
  return rows.map((row) => ({ id: row.id, intervalS: row.interval_s }));
}

/** The scheduler as first written: one INSERT per due slot, the profile's row as its snapshot. */
export async function insertQueuedRunNaively(
  db: RunStore,
  profileId: string,
  slotKey: string,
): Promise<string> {
  const { rows } = await poolOf(db).query<{ id: string }>(
    `INSERT INTO runs (id, endpoint_id, profile_id, profile_snapshot, status, trigger, slot_key)
     SELECT gen_random_uuid(), p.endpoint_id, p.id, to_jsonb(p), 'queued', 'schedule', $2
       FROM profiles p WHERE p.id = $1
     RETURNING id`,
    [profileId, slotKey],
  );
  return rows[0].id;
}
