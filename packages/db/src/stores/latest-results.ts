import { MEASURED_RUN_STATUSES, SKIPPED_RUN_ERROR_PREFIX, type Headline } from '@teapot/contracts';
import { poolOf, type RunStore } from '../run-store';

/** The latest measured run of one (endpoint, profile, serving-configuration version). */
export interface LatestResult {
  endpointId: string;
  endpoint: string;
  profileId: string;
  profile: string;
  configVersion: number;
  startedAt: Date;
  clientSaturated: boolean | null;
  /** How many groups there are in all, however many were read. */
  groups: number;
  /** The run's headline figures, by headline field. */
  figures: Record<string, number | null>;
}

/** The latest deployment of one endpoint, as /metrics shows it (deployment annotations, the verdict). */
export interface LatestDeployment {
  id: string;
  endpointId: string;
  endpoint: string;
  label: string;
  version: string | null;
  /** The configuration version it brought, when it brought one. */
  configVersion: number | null;
  effectiveAt: Date;
  /** Null while its runs are measured. */
  verdict: string | null;
}

/** How many runs of one (endpoint, profile) were skipped (never measured: see SKIPPED_RUN_ERROR_PREFIX). */
export interface SkippedRuns {
  endpointId: string;
  endpoint: string;
  profileId: string;
  profile: string;
  count: number;
}

type LatestResultRow = {
  endpoint_id: string;
  endpoint: string;
  profile_id: string;
  profile: string;
  config_version: number;
  started_at: Date;
  client_saturated: boolean | null;
  groups: string;
} & Record<string, unknown>;

/** The latest measured run per endpoint, profile and configuration version, as /metrics shows them. */
export class LatestResultsStore {
  constructor(private readonly db: RunStore) {}

  /** At most `limit` groups, most recently run first, with these headline figures: one index probe per pair. */
  async latest(headlines: readonly Headline[], limit: number): Promise<LatestResult[]> {
    // Column names come from the metric catalogue, never from input.
    const columns = headlines.map((h) => h.column).join(', ');
    const figures = headlines.map((h) => `r.${h.column} AS "figure:${h.field}"`).join(', ');
    const { rows } = await poolOf(this.db).query<LatestResultRow>(
      `SELECT e.id AS endpoint_id, e.name AS endpoint, p.id AS profile_id, p.name AS profile,
              c.version AS config_version, r.started_at, r.client_saturated, count(*) OVER () AS groups, ${figures}
         FROM endpoints e
         JOIN profiles p ON p.endpoint_id = e.id
         JOIN serving_configs c ON c.endpoint_id = e.id
         CROSS JOIN LATERAL (
           SELECT r.started_at, r.client_saturated, ${columns} FROM runs r
            WHERE r.profile_id = p.id AND r.config_id = c.id AND r.started_at IS NOT NULL
              AND r.status::text = ANY($1::text[]) AND r.summary IS NOT NULL AND r.sweep_id IS NULL
            -- started_at alone, as the index orders it: a tie-break column would read every run of the pair.
            ORDER BY r.started_at DESC
            LIMIT 1
         ) r
        WHERE e.archived_at IS NULL
        ORDER BY r.started_at DESC, e.name, p.name, c.version
        LIMIT $2`,
      [MEASURED_RUN_STATUSES, limit],
    );
    return rows.map((row) => ({
      endpointId: row.endpoint_id,
      endpoint: row.endpoint,
      profileId: row.profile_id,
      profile: row.profile,
      configVersion: row.config_version,
      startedAt: row.started_at,
      clientSaturated: row.client_saturated,
      groups: Number(row.groups),
      figures: Object.fromEntries(
        headlines.map((h) => [h.field, (row[`figure:${h.field}`] as number | null) ?? null]),
      ),
    }));
  }

  /**
   * The latest deployment (by effective time, none in the future) of each live endpoint, at most
   * `limit` endpoints, most recent first: one index probe per endpoint.
   */
  async latestDeployments(limit: number): Promise<LatestDeployment[]> {
    const { rows } = await poolOf(this.db).query<{
      id: string;
      endpoint_id: string;
      endpoint: string;
      label: string;
      version: string | null;
      config_version: number | null;
      effective_at: Date;
      verdict: string | null;
    }>(
      `SELECT d.id, e.id AS endpoint_id, e.name AS endpoint, d.label, d.version, c.version AS config_version,
              d.effective_at, d.verdict::text AS verdict
         FROM endpoints e
         CROSS JOIN LATERAL (
           SELECT d.* FROM deployments d
            WHERE d.endpoint_id = e.id AND d.effective_at <= now()
            ORDER BY d.effective_at DESC
            LIMIT 1
         ) d
         LEFT JOIN serving_configs c ON c.id = d.config_id
        WHERE e.archived_at IS NULL
        ORDER BY d.effective_at DESC, e.name
        LIMIT $1`,
      [limit],
    );
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      endpoint: row.endpoint,
      label: row.label,
      version: row.version,
      configVersion: row.config_version,
      effectiveAt: row.effective_at,
      verdict: row.verdict,
    }));
  }

  /** Skipped runs queued since `since`, per (endpoint, profile) of a live endpoint, most first, at most `limit`. */
  async skippedSince(since: Date, limit: number): Promise<SkippedRuns[]> {
    const { rows } = await poolOf(this.db).query<{
      endpoint_id: string;
      endpoint: string;
      profile_id: string;
      profile: string;
      count: string;
    }>(
      `SELECT e.id AS endpoint_id, e.name AS endpoint, p.id AS profile_id, p.name AS profile, count(*) AS count
         FROM runs r
         JOIN endpoints e ON e.id = r.endpoint_id AND e.archived_at IS NULL
         JOIN profiles p ON p.id = r.profile_id
        WHERE r.status = 'aborted' AND r.queued_at >= $1 AND starts_with(r.error, $2)
        GROUP BY e.id, e.name, p.id, p.name
        ORDER BY count(*) DESC, e.name, p.name
        LIMIT $3`,
      [since, SKIPPED_RUN_ERROR_PREFIX, limit],
    );
    return rows.map((row) => ({
      endpointId: row.endpoint_id,
      endpoint: row.endpoint,
      profileId: row.profile_id,
      profile: row.profile,
      count: Number(row.count),
    }));
  }
}
