import {
  HISTOGRAM_METRICS,
  MEASURED_RUN_STATUSES,
  METRICS,
  RATE_METRICS,
  type MetricDefinition,
  type MetricName,
} from '@teapot/contracts';
import type { RunSummary } from '@teapot/measure';
import { LatencyHistogram } from '@teapot/stats';
import type { ClientBase } from 'pg';

/**
 * Rollups: per hour and per UTC day, per (endpoint, profile, serving-configuration version, trigger,
 * client-saturated), one row per metric holding the merge of every measured run's histogram (ITL,
 * TTFT, TPOT, E2E) or the sums of its rate totals, with the runs, requests and tokens behind it.
 *
 * A rollup is never updated by adding a run to it: the hour is recomputed from its runs and the day
 * from its hours, under a lock per endpoint-day, so writing a run twice (a retry) or rewriting it
 * with other keys leaves exactly what its runs say. Retention drops raw timings, never runs or their
 * histograms, so rollups stay as they are.
 */

export const ROLLUP_GRAINS = ['hour', 'day'] as const;
export type RollupGrain = (typeof ROLLUP_GRAINS)[number];
/** Every metric a rollup row can hold: the histogram metrics and the rates. */
export const ROLLUP_METRICS: readonly MetricName[] = [...HISTOGRAM_METRICS, ...RATE_METRICS];

const HOUR_MS = 3_600_000;
const DAY_MS = 86_400_000;
// Advisory locks (two-int4 form, apart from the migration lock's one-bigint form): class, then a
// hash of the endpoint-day. A hash collision only serialises two writers that need not wait.
const ROLLUP_LOCK_CLASS = 0x726f6c6c;

type Queryable = Pick<ClientBase, 'query'>;

/** The four fields a run is rolled up under, besides its endpoint and hour. */
interface RollupKey {
  profileId: string | null;
  configId: string | null;
  trigger: string;
  clientSaturated: boolean;
}

interface Totals {
  runs: number;
  requests: number;
  tokens: number;
}

interface Accumulator extends RollupKey, Totals {
  /** The hour or day the group's row is for. */
  start: Date;
  histograms: Map<MetricName, LatencyHistogram>;
  rates: Map<MetricName, { numerator: number; denominator: number; runs: number }>;
}

interface KeyColumns {
  profile_id: string | null;
  config_id: string | null;
  trigger: string;
  client_saturated: boolean;
}

/** The group of a run or an hourly row in the hour or day `start`, created on first sight. */
function groupOf(groups: Map<string, Accumulator>, start: Date, row: KeyColumns): Accumulator {
  const id = `${start.getTime()}|${row.profile_id}|${row.config_id}|${row.trigger}|${row.client_saturated}`;
  let group = groups.get(id);
  if (!group) {
    group = accumulator(start, {
      profileId: row.profile_id,
      configId: row.config_id,
      trigger: row.trigger,
      clientSaturated: row.client_saturated,
    });
    groups.set(id, group);
  }
  return group;
}

function accumulator(start: Date, key: RollupKey): Accumulator {
  return {
    ...key,
    start,
    runs: 0,
    requests: 0,
    tokens: 0,
    histograms: new Map(HISTOGRAM_METRICS.map((metric) => [metric, new LatencyHistogram()])),
    rates: new Map(RATE_METRICS.map((metric) => [metric, { numerator: 0, denominator: 0, runs: 0 }])),
  };
}

export function dayStartOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / DAY_MS) * DAY_MS);
}

function hourStartOf(at: Date): Date {
  return new Date(Math.floor(at.getTime() / HOUR_MS) * HOUR_MS);
}

async function lockEndpointDay(client: Queryable, endpointId: string, day: Date): Promise<void> {
  await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
    ROLLUP_LOCK_CLASS,
    `${endpointId}|${day.toISOString()}`,
  ]);
}

/**
 * Recomputes the rollups of the hours of one endpoint's UTC day that hold `hours` (any instants in
 * that day), then the day from its hours, in the caller's transaction. Takes the endpoint-day lock
 * first, so concurrent writers of the same day recompute one after the other and each sees the
 * runs the others committed.
 */
export async function refreshRollups(client: Queryable, endpointId: string, hours: Date[]): Promise<void> {
  if (hours.length === 0) return;
  const day = dayStartOf(hours[0]);
  for (const hour of hours) {
    if (dayStartOf(hour).getTime() !== day.getTime())
      throw new RangeError('refreshRollups: every hour must lie in the same UTC day');
  }
  await lockEndpointDay(client, endpointId, day);
  const starts = [...new Set(hours.map((hour) => hourStartOf(hour).getTime()))].map((ms) => new Date(ms));
  await refreshHours(client, endpointId, starts);
  await refreshDay(client, endpointId, day);
}

/** The rollups of the hour(s) a run lies in, before and after it was (re)written; see refreshRollups. */
export async function refreshRunRollups(
  client: Queryable,
  places: Array<{ endpointId: string; startedAt: Date | null }>,
): Promise<void> {
  const byDay = new Map<string, { endpointId: string; day: Date; hours: Date[] }>();
  for (const { endpointId, startedAt } of places) {
    if (!startedAt) continue;
    const day = dayStartOf(startedAt);
    const id = `${endpointId}|${day.toISOString()}`;
    const entry = byDay.get(id) ?? { endpointId, day, hours: [] };
    entry.hours.push(startedAt);
    byDay.set(id, entry);
  }
  // One order for every writer, so two transactions never wait on each other's locks in a cycle.
  for (const id of [...byDay.keys()].sort()) {
    const { endpointId, hours } = byDay.get(id)!;
    await refreshRollups(client, endpointId, hours);
  }
}

interface RunRow extends KeyColumns {
  id: string;
  started_at: Date;
  requests: string;
  tokens: string;
  summary: RunSummary;
}

/** Recomputes the given hours (of one day) of an endpoint from their runs, in one pass. */
async function refreshHours(client: Queryable, endpointId: string, starts: Date[]): Promise<void> {
  const wanted = new Set(starts.map((start) => start.getTime()));
  const first = Math.min(...wanted);
  const end = new Date(Math.max(...wanted) + HOUR_MS);
  const { rows: inRange } = await client.query<RunRow>(
    `SELECT id, started_at, profile_id, config_id, trigger::text AS trigger,
            COALESCE(client_saturated, false) AS client_saturated,
            COALESCE(requests_succeeded, 0) + COALESCE(requests_failed, 0) AS requests,
            COALESCE((summary->>'outputTokens')::bigint, 0) AS tokens, summary
       FROM runs
      WHERE endpoint_id = $1 AND started_at >= $2 AND started_at < $3
        AND status::text = ANY($4) AND summary IS NOT NULL AND sweep_id IS NULL`,
    [endpointId, new Date(first), end, MEASURED_RUN_STATUSES],
  );
  const runs = inRange.filter((run) => wanted.has(hourStartOf(run.started_at).getTime()));
  const groups = new Map<string, Accumulator>();
  const groupOfRun = new Map<string, Accumulator>();
  for (const run of runs) {
    const group = groupOf(groups, hourStartOf(run.started_at), run);
    group.runs += 1;
    group.requests += Number(run.requests);
    group.tokens += Number(run.tokens);
    for (const metric of RATE_METRICS) {
      const definition: MetricDefinition = METRICS[metric];
      const totals = definition.kind === 'rate' ? definition.totals(run.summary) : null;
      if (!totals) continue;
      const rate = group.rates.get(metric)!;
      rate.numerator += totals.numerator;
      rate.denominator += totals.denominator;
      rate.runs += 1;
    }
    groupOfRun.set(run.id, group);
  }
  if (runs.length > 0) {
    const { rows: histograms } = await client.query<{ run_id: string; metric: MetricName; encoded: Buffer }>(
      'SELECT run_id, metric, encoded FROM run_histograms WHERE run_id = ANY($1::uuid[]) AND metric = ANY($2)',
      [runs.map((run) => run.id), HISTOGRAM_METRICS],
    );
    for (const row of histograms)
      groupOfRun.get(row.run_id)!.histograms.get(row.metric)!.mergeEncoded(row.encoded);
  }
  await replaceRows(client, 'hour', endpointId, starts, [...groups.values()]);
}

interface RollupRow extends KeyColumns {
  metric: MetricName;
  runs: number;
  requests: string;
  tokens: string;
  encoded: Buffer | null;
  numerator: number | null;
  denominator: number | null;
  samples: string;
}

async function refreshDay(client: Queryable, endpointId: string, day: Date): Promise<void> {
  const { rows } = await client.query<RollupRow>(
    `SELECT profile_id, config_id, trigger::text AS trigger, client_saturated, metric, runs, requests, tokens,
            encoded, numerator, denominator, samples
       FROM run_rollups
      WHERE metric = ANY($1) AND grain = 'hour' AND endpoint_id = $2 AND bucket_start >= $3 AND bucket_start < $4`,
    [ROLLUP_METRICS, endpointId, day, new Date(day.getTime() + DAY_MS)],
  );
  const groups = new Map<string, Accumulator>();
  // Every metric's row carries the runs, requests and tokens of its hour: count them once, from one metric.
  const counted = ROLLUP_METRICS[0];
  for (const row of rows) {
    const group = groupOf(groups, day, row);
    if (row.metric === counted) {
      group.runs += row.runs;
      group.requests += Number(row.requests);
      group.tokens += Number(row.tokens);
    }
    if (row.encoded) group.histograms.get(row.metric)?.mergeEncoded(row.encoded);
    const rate = group.rates.get(row.metric);
    if (rate && row.numerator !== null && row.denominator !== null) {
      rate.numerator += row.numerator;
      rate.denominator += row.denominator;
      rate.runs += Number(row.samples);
    }
  }
  await replaceRows(client, 'day', endpointId, [day], [...groups.values()]);
}

/** Deletes the rows of one endpoint's hours or day and writes the groups' rows, one per metric. */
async function replaceRows(
  client: Queryable,
  grain: RollupGrain,
  endpointId: string,
  starts: Date[],
  groups: Accumulator[],
): Promise<void> {
  await client.query(
    `DELETE FROM run_rollups
      WHERE metric = ANY($1) AND grain = $2::"RollupGrain" AND endpoint_id = $3 AND bucket_start = ANY($4::timestamptz[])`,
    [ROLLUP_METRICS, grain, endpointId, starts],
  );
  if (groups.length === 0) return;
  const columns = {
    start: [] as Date[],
    profile: [] as Array<string | null>,
    config: [] as Array<string | null>,
    trigger: [] as string[],
    saturated: [] as boolean[],
    metric: [] as string[],
    runs: [] as number[],
    requests: [] as number[],
    tokens: [] as number[],
    samples: [] as number[],
    encoded: [] as Array<Buffer | null>,
    numerator: [] as Array<number | null>,
    denominator: [] as Array<number | null>,
  };
  for (const group of groups) {
    for (const metric of ROLLUP_METRICS) {
      const histogram = group.histograms.get(metric);
      const rate = group.rates.get(metric);
      columns.start.push(group.start);
      columns.profile.push(group.profileId);
      columns.config.push(group.configId);
      columns.trigger.push(group.trigger);
      columns.saturated.push(group.clientSaturated);
      columns.metric.push(metric);
      columns.runs.push(group.runs);
      columns.requests.push(group.requests);
      columns.tokens.push(group.tokens);
      columns.samples.push(histogram ? histogram.count : (rate?.runs ?? 0));
      columns.encoded.push(histogram ? histogram.encode() : null);
      // A rate none of the runs has (e.g. goodput without an SLO) stays null, as it is per run.
      const hasRate = rate !== undefined && rate.runs > 0;
      columns.numerator.push(hasRate ? rate.numerator : null);
      columns.denominator.push(hasRate ? rate.denominator : null);
    }
  }
  await client.query(
    `INSERT INTO run_rollups (id, grain, bucket_start, endpoint_id, profile_id, config_id, trigger, client_saturated,
                              metric, runs, requests, tokens, samples, encoded, numerator, denominator)
     SELECT gen_random_uuid(), $1::"RollupGrain", u.start, $2::uuid, u.profile, u.config, u.trigger, u.saturated,
            u.metric, u.runs, u.requests, u.tokens, u.samples, u.encoded, u.numerator, u.denominator
       FROM unnest($3::timestamptz[], $4::uuid[], $5::uuid[], $6::"RunTrigger"[], $7::boolean[], $8::text[],
                   $9::int[], $10::int8[], $11::int8[], $12::int8[], $13::bytea[], $14::float8[], $15::float8[])
            AS u(start, profile, config, trigger, saturated, metric, runs, requests, tokens, samples, encoded,
                 numerator, denominator)`,
    [
      grain,
      endpointId,
      columns.start,
      columns.profile,
      columns.config,
      columns.trigger,
      columns.saturated,
      columns.metric,
      columns.runs,
      columns.requests,
      columns.tokens,
      columns.samples,
      columns.encoded,
      columns.numerator,
      columns.denominator,
    ],
  );
}

export interface BackfillRollupsResult {
  /** Endpoint-days recomputed. */
  days: number;
}

/**
 * Rolls up the measured runs of every endpoint-day that has none yet (runs stored before rollups
 * existed, or written by a process that did not roll up): one transaction per endpoint-day, so it
 * is idempotent and resumable. `client` must be a single connection, not a pool. The migration
 * that added rollups runs a frozen copy of it (data-steps/20261203150000_run_rollups.ts), not this.
 */
export async function backfillRollups(
  client: Queryable,
  options: { log?: (line: string) => void } = {},
): Promise<BackfillRollupsResult> {
  const { rows } = await client.query<{ endpoint_id: string; hour: Date }>(
    `SELECT DISTINCT r.endpoint_id, date_trunc('hour', r.started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour
       FROM runs r
      WHERE r.status::text = ANY($1) AND r.summary IS NOT NULL AND r.started_at IS NOT NULL
        AND NOT EXISTS (
          SELECT 1 FROM run_rollups ro
           WHERE ro.metric = $2 AND ro.grain = 'hour' AND ro.endpoint_id = r.endpoint_id
             AND ro.bucket_start = date_trunc('hour', r.started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')
      ORDER BY 1, 2`,
    [MEASURED_RUN_STATUSES, ROLLUP_METRICS[0]],
  );
  const days = new Map<string, { endpointId: string; hours: Date[] }>();
  for (const row of rows) {
    const id = `${row.endpoint_id}|${dayStartOf(row.hour).toISOString()}`;
    const entry = days.get(id) ?? { endpointId: row.endpoint_id, hours: [] };
    entry.hours.push(row.hour);
    days.set(id, entry);
  }
  let done = 0;
  for (const { endpointId, hours } of days.values()) {
    await client.query('BEGIN');
    try {
      await refreshRollups(client, endpointId, hours);
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    done += 1;
    if (done % 500 === 0) options.log?.(`rolled up ${done}/${days.size} endpoint-days`);
  }
  if (days.size > 0) options.log?.(`rolled up ${days.size} endpoint-days of runs stored before rollups`);
  return { days: days.size };
}
