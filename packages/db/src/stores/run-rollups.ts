import type { MetricName } from '@teapot/contracts';
import { queriesOf, type ReadStore } from '../run-store';
import type { RunTriggerName } from './run-selection';
import {
  configColumns,
  configConditions,
  Parameters,
  type ConfigFilter,
  type ConfigValue,
  type ServingConfigField,
} from './serving-config';

/** Which rollup rows to read: one metric and grain, buckets starting at or after `from` and before `to`. */
export interface RollupFilter {
  metric: MetricName;
  grain: 'hour' | 'day';
  endpointIds: readonly string[];
  from: Date;
  to: Date;
  profileIds?: string[];
  triggers?: RunTriggerName[];
  config?: ConfigFilter;
  /** Serving-configuration fields each row carries (the ones a trend groups by). */
  fields: readonly ServingConfigField[];
}

/** An hourly or daily merge of one rollup key's runs: their merged histogram or pooled rate totals. */
export interface RollupBucket {
  bucketStart: Date;
  endpointId: string;
  profileId: string | null;
  configVersion: number | null;
  clientSaturated: boolean;
  runs: number;
  requests: number;
  tokens: number;
  /** Runs the rate totals are over. */
  samples: number;
  encoded: Buffer | null;
  numerator: number | null;
  denominator: number | null;
  config: Partial<Record<ServingConfigField, ConfigValue>>;
}

type RollupRow = {
  bucket_start: Date;
  endpoint_id: string;
  profile_id: string | null;
  config_version: number | null;
  client_saturated: boolean;
  runs: number;
  requests: string;
  tokens: string;
  samples: string;
  encoded: Buffer | null;
  numerator: number | null;
  denominator: number | null;
} & Partial<Record<ServingConfigField, ConfigValue>>;

/** The hourly and daily rollups the run writer keeps (run_rollups), as trends read them. */
export class RunRollupStore {
  constructor(private readonly db: ReadStore) {}

  /** The rows a filter names, oldest bucket first, at most `limit`. */
  async buckets(filter: RollupFilter, limit: number): Promise<RollupBucket[]> {
    const params = new Parameters();
    const { bind } = params;
    const where = [
      `ro.metric = ${bind(filter.metric)}`,
      `ro.grain = ${bind(filter.grain)}::"RollupGrain"`,
      `ro.endpoint_id = ANY(${bind(filter.endpointIds)}::uuid[])`,
      `ro.bucket_start >= ${bind(filter.from)}`,
      `ro.bucket_start < ${bind(filter.to)}`,
    ];
    if (filter.profileIds) where.push(`ro.profile_id = ANY(${bind(filter.profileIds)}::uuid[])`);
    if (filter.triggers) where.push(`ro.trigger::text = ANY(${bind(filter.triggers)})`);
    where.push(...configConditions(filter.config, 'c', bind));
    const fields = filter.fields.length ? `, ${configColumns(filter.fields, 'c')}` : '';
    const { rows } = await queriesOf(this.db).query<RollupRow>(
      `SELECT ro.bucket_start, ro.endpoint_id, ro.profile_id, c.version AS config_version, ro.client_saturated,
              ro.runs, ro.requests, ro.tokens, ro.samples, ro.encoded, ro.numerator, ro.denominator${fields}
         FROM run_rollups ro LEFT JOIN serving_configs c ON c.id = ro.config_id
        WHERE ${where.join(' AND ')}
        ORDER BY ro.bucket_start
        LIMIT ${bind(limit)}`,
      params.values,
    );
    return rows.map((row) => ({
      bucketStart: row.bucket_start,
      endpointId: row.endpoint_id,
      profileId: row.profile_id,
      configVersion: row.config_version,
      clientSaturated: row.client_saturated,
      runs: row.runs,
      requests: Number(row.requests),
      tokens: Number(row.tokens),
      samples: Number(row.samples),
      encoded: row.encoded,
      numerator: row.numerator,
      denominator: row.denominator,
      config: Object.fromEntries(filter.fields.map((field) => [field, row[field] ?? null])),
    }));
  }
}
