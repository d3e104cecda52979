import { LatencyHistogram } from '@teapot/stats';
import type { ClientBase } from 'pg';

/**
 * The data step of migration 20261203150000_run_rollups, frozen as rollups.ts computed it when the
 * migration was written: the measured statuses, the metrics and their rate totals are literals here,
 * so a later change to the catalogue or the live rollup code does not change what this migration
 * did. The one shared piece is LatencyHistogram's encoding, a stored format of its own.
 */

const MEASURED_STATUSES = ['succeeded', 'partial', 'failed'];
const HISTOGRAM_METRICS = ['ttft', 'tpot', 'itl', 'e2e'];
/** A rate's per-run numerator and denominator over `runs.summary`; a null one leaves the run out. */
const RATE_TOTALS: Record<string, { numerator: string; denominator: string }> = {
  output_tokens_per_s: {
    numerator: `(summary->>'outputTokens')::float8`,
    denominator: `(summary->>'durationS')::float8`,
  },
  requests_per_s: {
    numerator: `(summary->'requests'->>'succeeded')::float8`,
    denominator: `(summary->>'durationS')::float8`,
  },
  goodput: {
    numerator: `(summary->>'goodputRps')::float8 * (summary->>'durationS')::float8`,
    denominator: `(summary->>'durationS')::float8`,
  },
  error_rate: {
    numerator: `(summary->'requests'->>'failed')::float8`,
    denominator: `NULLIF((summary->'requests'->>'succeeded')::float8 + (summary->'requests'->>'failed')::float8, 0)`,
  },
};
const RATE_METRICS = Object.keys(RATE_TOTALS);
const ALL_METRICS = [...HISTOGRAM_METRICS, ...RATE_METRICS];
/** The metric whose rows carry a group's runs, requests and tokens (every metric's row does). */
const COUNTED = HISTOGRAM_METRICS[0];
/** The live run writer's endpoint-day advisory lock (class, then a hash), so the two serialise. */
const ROLLUP_LOCK_CLASS = 0x726f6c6c;
const HOUR = `date_trunc('hour', started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'`;
const GROUP_COLUMNS = 'profile_id, config_id, trigger::text AS trigger, client_saturated';

type Client = Pick<ClientBase, 'query'>;

interface Group {
  start: Date;
  profile_id: string | null;
  config_id: string | null;
  trigger: string;
  client_saturated: boolean;
  runs: number;
  requests: string;
  tokens: string;
}

/** One row of run_rollups, as json_to_recordset reads it (the histogram base64). */
interface RollupRow {
  start: Date;
  profile_id: string | null;
  config_id: string | null;
  trigger: string;
  client_saturated: boolean;
  metric: string;
  runs: number;
  requests: string;
  tokens: string;
  samples: number | string;
  encoded: string | null;
  numerator: number | null;
  denominator: number | null;
}

/** Per group: the rate sums and the encoded histograms to merge, each by metric. */
interface GroupParts extends Group {
  rates: Map<string, { numerator: number | null; denominator: number | null; samples: number | string }>;
  histograms: Map<string, Buffer[]>;
}

/**
 * Rolls up the measured runs of every endpoint-day whose hours have no rollup yet, one transaction
 * per endpoint-day (idempotent and resumable); returns how many endpoint-days it rolled up.
 * `client` must be one connection (its BEGIN and COMMIT are the transaction).
 */
export async function rollUpRunsStoredBeforeRollups(
  client: Client,
  log: (line: string) => void = () => undefined,
): Promise<number> {
  const { rows } = await client.query<{ endpoint_id: string; day: Date; hours: Date[] }>(
    `SELECT endpoint_id, date_trunc('day', hour AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS day,
            array_agg(hour ORDER BY hour) AS hours
       FROM (SELECT DISTINCT r.endpoint_id, date_trunc('hour', r.started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' AS hour
               FROM runs r
              WHERE r.status::text = ANY($1) AND r.summary IS NOT NULL AND r.started_at IS NOT NULL
                AND NOT EXISTS (
                  SELECT 1 FROM run_rollups ro
                   WHERE ro.metric = $2 AND ro.grain = 'hour' AND ro.endpoint_id = r.endpoint_id
                     AND ro.bucket_start = date_trunc('hour', r.started_at AT TIME ZONE 'UTC') AT TIME ZONE 'UTC')) missing
      GROUP BY 1, 2
      ORDER BY 1, 2`,
    [MEASURED_STATUSES, COUNTED],
  );
  for (const [done, { endpoint_id: endpointId, day, hours }] of rows.entries()) {
    await client.query('BEGIN');
    try {
      await client.query('SELECT pg_advisory_xact_lock($1, hashtext($2))', [
        ROLLUP_LOCK_CLASS,
        `${endpointId}|${day.toISOString()}`,
      ]);
      const hourly = await hourGroups(client, endpointId, hours);
      await replace(client, { grain: 'hour', endpointId, starts: hours }, hourly);
      await replace(
        client,
        { grain: 'day', endpointId, starts: [day] },
        await dayGroups(client, endpointId, day),
      );
      await client.query('COMMIT');
    } catch (error) {
      await client.query('ROLLBACK').catch(() => undefined);
      throw error;
    }
    if ((done + 1) % 500 === 0) log(`rolled up ${done + 1}/${rows.length} endpoint-days`);
  }
  if (rows.length > 0) log(`rolled up ${rows.length} endpoint-days of runs stored before rollups`);
  return rows.length;
}

/** The hours' groups of runs, with each rate's sums and each run's stored histograms. */
async function hourGroups(client: Client, endpointId: string, hours: Date[]): Promise<GroupParts[]> {
  const rateSums = RATE_METRICS.flatMap((metric, i) => {
    const { numerator, denominator } = RATE_TOTALS[metric];
    const counted = `(${numerator}) IS NOT NULL AND (${denominator}) IS NOT NULL`;
    return [
      `sum(${numerator}) FILTER (WHERE ${counted}) AS n${i}`,
      `sum(${denominator}) FILTER (WHERE ${counted}) AS d${i}`,
      `count(*) FILTER (WHERE ${counted}) AS s${i}`,
    ];
  });
  const { rows } = await client.query<Group & { ids: string[] } & Record<string, number | string | null>>(
    `SELECT ${HOUR} AS start, profile_id, config_id, trigger::text AS trigger,
            COALESCE(client_saturated, false) AS client_saturated, count(*)::int AS runs,
            sum(COALESCE(requests_succeeded, 0) + COALESCE(requests_failed, 0)) AS requests,
            sum(COALESCE((summary->>'outputTokens')::bigint, 0)) AS tokens,
            array_agg(id) AS ids, ${rateSums.join(', ')}
       FROM runs
      WHERE endpoint_id = $1 AND ${HOUR} = ANY($2::timestamptz[])
        AND status::text = ANY($3) AND summary IS NOT NULL
      GROUP BY 1, 2, 3, 4, 5`,
    [endpointId, hours, MEASURED_STATUSES],
  );
  const groupOfRun = new Map<string, GroupParts>();
  const groups = rows.map((row) => {
    const group: GroupParts = {
      ...row,
      rates: new Map(
        RATE_METRICS.map((metric, i) => [
          metric,
          {
            numerator: row[`n${i}`] as number | null,
            denominator: row[`d${i}`] as number | null,
            samples: row[`s${i}`]!,
          },
        ]),
      ),
      histograms: new Map(HISTOGRAM_METRICS.map((metric) => [metric, []])),
    };
    for (const id of row.ids) groupOfRun.set(id, group);
    return group;
  });
  if (groupOfRun.size > 0) {
    const { rows: stored } = await client.query<{ run_id: string; metric: string; encoded: Buffer }>(
      'SELECT run_id, metric, encoded FROM run_histograms WHERE run_id = ANY($1::uuid[]) AND metric = ANY($2)',
      [[...groupOfRun.keys()], HISTOGRAM_METRICS],
    );
    for (const row of stored) groupOfRun.get(row.run_id)!.histograms.get(row.metric)!.push(row.encoded);
  }
  return groups;
}

/** The day's groups, from its hours' rows. */
async function dayGroups(client: Client, endpointId: string, day: Date): Promise<GroupParts[]> {
  const { rows } = await client.query<
    Omit<Group, 'start'> & {
      metric: string;
      encoded: Buffer[] | null;
      numerator: number | null;
      denominator: number | null;
      samples: string | null;
    }
  >(
    `SELECT ${GROUP_COLUMNS}, metric, sum(runs)::int AS runs, sum(requests) AS requests, sum(tokens) AS tokens,
            array_agg(encoded) FILTER (WHERE encoded IS NOT NULL) AS encoded,
            sum(numerator) FILTER (WHERE numerator IS NOT NULL AND denominator IS NOT NULL) AS numerator,
            sum(denominator) FILTER (WHERE numerator IS NOT NULL AND denominator IS NOT NULL) AS denominator,
            sum(samples) FILTER (WHERE numerator IS NOT NULL AND denominator IS NOT NULL) AS samples
       FROM run_rollups
      WHERE metric = ANY($1) AND grain = 'hour' AND endpoint_id = $2
        AND bucket_start >= $3 AND bucket_start < $3::timestamptz + interval '1 day'
      GROUP BY 1, 2, 3, 4, 5`,
    [ALL_METRICS, endpointId, day],
  );
  const groups = new Map<string, GroupParts>();
  for (const row of rows) {
    const id = `${row.profile_id}|${row.config_id}|${row.trigger}|${row.client_saturated}`;
    let group = groups.get(id);
    if (!group) {
      const { profile_id, config_id, trigger, client_saturated } = row;
      const key = { start: day, profile_id, config_id, trigger, client_saturated };
      group = { ...key, runs: 0, requests: '0', tokens: '0', rates: new Map(), histograms: new Map() };
      groups.set(id, group);
    }
    if (row.metric === COUNTED)
      Object.assign(group, { runs: row.runs, requests: row.requests, tokens: row.tokens });
    if (HISTOGRAM_METRICS.includes(row.metric)) group.histograms.set(row.metric, row.encoded ?? []);
    else {
      const { numerator, denominator } = row;
      group.rates.set(row.metric, { numerator, denominator, samples: row.samples ?? 0 });
    }
  }
  return [...groups.values()];
}

/** Replaces one endpoint's rows of these hours or this day with a row per metric of every group. */
async function replace(
  client: Client,
  bucket: { grain: 'hour' | 'day'; endpointId: string; starts: Date[] },
  groups: GroupParts[],
): Promise<void> {
  const { grain, endpointId, starts } = bucket;
  await client.query(
    `DELETE FROM run_rollups WHERE endpoint_id = $1 AND grain = $2::"RollupGrain"
        AND bucket_start = ANY($3::timestamptz[]) AND metric = ANY($4)`,
    [endpointId, grain, starts, ALL_METRICS],
  );
  const rows: RollupRow[] = groups.flatMap((group) => {
    const { start, profile_id, config_id, trigger, client_saturated, runs, requests, tokens } = group;
    const key = { start, profile_id, config_id, trigger, client_saturated, runs, requests, tokens };
    return ALL_METRICS.map((metric): RollupRow => {
      const parts = group.histograms.get(metric);
      if (parts) {
        const merged = new LatencyHistogram();
        for (const part of parts) merged.mergeEncoded(part);
        const encoded = Buffer.from(merged.encode()).toString('base64');
        return { ...key, metric, samples: merged.count, encoded, numerator: null, denominator: null };
      }
      const rate = group.rates.get(metric);
      const counted = rate !== undefined && Number(rate.samples) > 0;
      return {
        ...key,
        metric,
        samples: rate?.samples ?? 0,
        encoded: null,
        numerator: counted ? rate.numerator : null,
        denominator: counted ? rate.denominator : null,
      };
    });
  });
  if (rows.length === 0) return;
  await client.query(
    `INSERT INTO run_rollups (id, grain, bucket_start, endpoint_id, profile_id, config_id, trigger, client_saturated,
                              metric, runs, requests, tokens, samples, encoded, numerator, denominator)
     SELECT gen_random_uuid(), $1::"RollupGrain", r.start, $2::uuid, r.profile_id, r.config_id, r.trigger::"RunTrigger",
            r.client_saturated, r.metric, r.runs, r.requests, r.tokens, r.samples, decode(r.encoded, 'base64'),
            r.numerator, r.denominator
       FROM json_to_recordset($3::json) AS r(start timestamptz, profile_id uuid, config_id uuid, trigger text,
            client_saturated boolean, metric text, runs int, requests int8, tokens int8, samples int8,
            encoded text, numerator float8, denominator float8)`,
    [grain, endpointId, JSON.stringify(rows)],
  );
}
