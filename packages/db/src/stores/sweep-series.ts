import type { SweepStopReason } from '@teapot/contracts';
import { queriesOf, type ReadStore } from '../run-store';
import { selectionConditions, type RunFilter, type SelectedRun } from './run-selection';
import {
  configColumns,
  configOf,
  Parameters,
  SERVING_CONFIG_FIELD_NAMES,
  type ConfigValue,
  type ServingConfigField,
} from './serving-config';

/** Which finished capacity searches to read: as a run filter, with sweep ids in place of run ids. */
export type SweepFilter = Omit<RunFilter, 'runIds'> & { sweepIds?: string[] };

/**
 * A capacity search that finished, with what a trend or comparison groups and weighs it by (as a
 * selected run: its requests and tokens are those of all its points).
 */
export interface SeriesSweep extends Pick<
  SelectedRun,
  | 'id'
  | 'endpointId'
  | 'profileId'
  | 'configId'
  | 'configVersion'
  | 'trigger'
  | 'startedAt'
  | 'requests'
  | 'tokens'
  | 'config'
> {
  dimension: 'rate' | 'concurrency';
  /** Null when the SLO failed even at the lowest load (stopReason `below_lowest`). */
  capacity: number | null;
  costPerMtok: number | null;
  stopReason: SweepStopReason;
}

type SeriesSweepRow = Omit<SeriesSweep, 'requests' | 'tokens' | 'config'> & {
  requests: string;
  tokens: string;
} & Partial<Record<ServingConfigField, ConfigValue>>;

/** Finished capacity searches as a series: the history of capacity and cost per profile and configuration. */
export class SweepSeriesStore {
  constructor(private readonly db: ReadStore) {}

  /**
   * Capacity searches that succeeded (a capacity found, or the SLO missed at the lowest load), started
   * in [from, to), oldest first, at most `limit`. A sweep of explicit points has no capacity: left out.
   */
  async capacitySearches(filter: SweepFilter, limit: number): Promise<SeriesSweep[]> {
    const params = new Parameters();
    const where = [
      `s.status = 'succeeded'`,
      `s.spec->>'kind' = 'capacity'`,
      ...selectionConditions(filter, 's', params.bind),
    ];
    if (filter.sweepIds) where.push(`s.id = ANY(${params.bind(filter.sweepIds)}::uuid[])`);
    const { rows } = await queriesOf(this.db).query<SeriesSweepRow>(
      `SELECT s.id, s.endpoint_id AS "endpointId", s.profile_id AS "profileId", s.config_id AS "configId",
              c.version AS "configVersion", s.trigger::text AS trigger, s.started_at AS "startedAt",
              s.spec->>'dimension' AS dimension, s.capacity, s.cost_per_mtok_at_capacity AS "costPerMtok",
              s.stop_reason::text AS "stopReason", COALESCE(p.requests, 0) AS requests,
              COALESCE(p.tokens, 0) AS tokens, ${configColumns(SERVING_CONFIG_FIELD_NAMES, 'c')}
         FROM sweeps s
         LEFT JOIN serving_configs c ON c.id = s.config_id
         LEFT JOIN LATERAL (
           SELECT sum(COALESCE(r.requests_succeeded, 0) + COALESCE(r.requests_failed, 0)) AS requests,
                  sum(COALESCE((r.summary->>'outputTokens')::bigint, 0)) AS tokens
             FROM runs r WHERE r.sweep_id = s.id) p ON true
        WHERE ${where.join(' AND ')}
        ORDER BY s.started_at, s.id
        LIMIT ${params.bind(limit)}`,
      params.values,
    );
    return rows.map(({ requests, tokens, ...row }) => ({
      ...row,
      requests: Number(requests),
      tokens: Number(tokens),
      config: configOf(row),
    }));
  }
}
