import { MEASURED_RUN_STATUSES } from '@teapot/contracts';
import type { RunSummary } from '@teapot/measure';
import { queriesOf, type ReadStore } from '../run-store';
import {
  configColumns,
  configOf,
  configConditions,
  Parameters,
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigFilter,
  type ConfigValue,
  type ServingConfigField,
} from './serving-config';

export const RUN_TRIGGERS = ['schedule', 'manual', 'deployment'] as const;
export type RunTriggerName = (typeof RUN_TRIGGERS)[number];

/** Which measured runs to read. Every field narrows; runs that started at or after `from` and before `to`. */
export interface RunFilter {
  endpointIds?: string[];
  profileIds?: string[];
  runIds?: string[];
  from: Date;
  to: Date;
  /** Any of these values, per serving-configuration field (of the version the run measured). */
  config?: ConfigFilter;
  triggers?: RunTriggerName[];
}

export interface SelectedRun {
  id: string;
  endpointId: string;
  profileId: string | null;
  configId: string | null;
  configVersion: number | null;
  trigger: RunTriggerName;
  clientSaturated: boolean;
  startedAt: Date;
  /** Measured requests that finished (succeeded + failed), and output tokens of the successful ones. */
  requests: number;
  tokens: number;
  config: Record<ServingConfigField, ConfigValue>;
}

/** What a comparison reads of a run besides its selection: workload, summary, and roofline inputs. */
export interface RunDetail {
  snapshot: unknown;
  summary: RunSummary | null;
  /** The endpoint's served model and the configuration's extra, for the roofline floor. */
  model: string;
  extra: unknown;
}

/** A run's stored diagnostics as JSON (ClientDiagnostics, ServerDiagnostics), null where it has none. */
export interface RunDiagnostics {
  client: unknown;
  server: unknown;
}

type SelectedRunRow = {
  id: string;
  endpoint_id: string;
  profile_id: string | null;
  config_id: string | null;
  config_version: number | null;
  trigger: string;
  client_saturated: boolean;
  started_at: Date;
  requests: string;
  tokens: string;
} & Partial<Record<ServingConfigField, ConfigValue>>;

type RunDetailRow = {
  id: string;
  profile_snapshot: unknown;
  summary: RunSummary | null;
  model: string;
  extra: unknown;
};

/**
 * What run and sweep selections share, on the table `alias` with its serving configuration joined as
 * `c`: the start window, endpoints, profiles, triggers and configuration values.
 */
export function selectionConditions(
  filter: Omit<RunFilter, 'runIds'>,
  alias: string,
  bind: (value: unknown) => string,
): string[] {
  const where = [`${alias}.started_at >= ${bind(filter.from)}`, `${alias}.started_at < ${bind(filter.to)}`];
  if (filter.endpointIds) where.push(`${alias}.endpoint_id = ANY(${bind(filter.endpointIds)}::uuid[])`);
  if (filter.profileIds) where.push(`${alias}.profile_id = ANY(${bind(filter.profileIds)}::uuid[])`);
  if (filter.triggers) where.push(`${alias}.trigger::text = ANY(${bind(filter.triggers)})`);
  where.push(...configConditions(filter.config, 'c', bind));
  return where;
}

/** Measured runs (status measured, with a summary) and what analyses read of them. */
export class RunSelectionStore {
  constructor(private readonly db: ReadStore) {}

  /** The measured runs a filter names, oldest first (client-saturated ones too), at most `limit`. */
  async measuredRuns(filter: RunFilter, limit: number): Promise<SelectedRun[]> {
    const params = new Parameters();
    const { bind } = params;
    // A run that ended without measuring (never started, endpoint gone) has no summary: nothing to count.
    const where = [
      `r.status::text = ANY(${bind(MEASURED_RUN_STATUSES)})`,
      'r.summary IS NOT NULL',
      ...selectionConditions(filter, 'r', bind),
    ];
    // A sweep's point measured the load the search chose, not its profile's: it belongs to the sweep's
    // figures (capacity, frontier), never to the profile's series, unless a caller names the run.
    if (filter.runIds) where.push(`r.id = ANY(${bind(filter.runIds)}::uuid[])`);
    else where.push('r.sweep_id IS NULL');
    const { rows } = await queriesOf(this.db).query<SelectedRunRow>(
      `SELECT r.id, r.endpoint_id, r.profile_id, r.config_id, c.version AS config_version, r.trigger::text AS trigger,
              COALESCE(r.client_saturated, false) AS client_saturated, r.started_at,
              COALESCE(r.requests_succeeded, 0) + COALESCE(r.requests_failed, 0) AS requests,
              COALESCE((r.summary->>'outputTokens')::bigint, 0) AS tokens, ${configColumns(SERVING_CONFIG_FIELD_NAMES, 'c')}
         FROM runs r LEFT JOIN serving_configs c ON c.id = r.config_id
        WHERE ${where.join(' AND ')}
        ORDER BY r.started_at, r.id
        LIMIT ${bind(limit)}`,
      params.values,
    );
    return rows.map((row) => ({
      id: row.id,
      endpointId: row.endpoint_id,
      profileId: row.profile_id,
      configId: row.config_id,
      configVersion: row.config_version,
      trigger: row.trigger as RunTriggerName,
      clientSaturated: row.client_saturated,
      startedAt: row.started_at,
      requests: Number(row.requests),
      tokens: Number(row.tokens),
      config: configOf(row),
    }));
  }

  /** Per run id: its profile snapshot, summary, endpoint model and configuration extra. */
  async details(runIds: readonly string[]): Promise<Map<string, RunDetail>> {
    const { rows } = await queriesOf(this.db).query<RunDetailRow>(
      `SELECT r.id, r.profile_snapshot, r.summary, e.model, c.extra
         FROM runs r JOIN endpoints e ON e.id = r.endpoint_id LEFT JOIN serving_configs c ON c.id = r.config_id
        WHERE r.id = ANY($1::uuid[])`,
      [runIds],
    );
    return new Map(
      rows.map((row) => [
        row.id,
        { snapshot: row.profile_snapshot, summary: row.summary, model: row.model, extra: row.extra },
      ]),
    );
  }

  /** Per run id: its summary (null for a run that has none). */
  async summaries(runIds: readonly string[]): Promise<Map<string, RunSummary | null>> {
    const { rows } = await queriesOf(this.db).query<{ id: string; summary: RunSummary | null }>(
      'SELECT id, summary FROM runs WHERE id = ANY($1::uuid[])',
      [runIds],
    );
    return new Map(rows.map((row) => [row.id, row.summary]));
  }

  /** Per run id: its stored client and server diagnostics (null where it has none). */
  async diagnostics(runIds: readonly string[]): Promise<Map<string, RunDiagnostics>> {
    const { rows } = await queriesOf(this.db).query<{ id: string; client: unknown; server: unknown }>(
      'SELECT id, client_diagnostics AS client, server_diagnostics AS server FROM runs WHERE id = ANY($1::uuid[])',
      [runIds],
    );
    return new Map(rows.map((row) => [row.id, { client: row.client, server: row.server }]));
  }

  async endpointIds(): Promise<string[]> {
    const { rows } = await queriesOf(this.db).query<{ id: string }>('SELECT id FROM endpoints');
    return rows.map((row) => row.id);
  }
}
