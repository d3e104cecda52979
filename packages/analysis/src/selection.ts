import { MEASURED_RUN_STATUSES } from '@teapot/contracts';
import { poolOf, type RunStore } from '@teapot/db';
import { AnalysisInputError } from './errors';

type FieldType = 'text' | 'int' | 'bool';

/** Every serving-configuration field a selection can filter or a trend can group by, with its column. */
export const SERVING_CONFIG_FIELDS = {
  engine: ['engine', 'text'],
  engineVersion: ['engine_version', 'text'],
  gpuModel: ['gpu_model', 'text'],
  gpuCount: ['gpu_count', 'int'],
  weightQuant: ['weight_quant', 'text'],
  activationQuant: ['activation_quant', 'text'],
  kvCacheQuant: ['kv_cache_quant', 'text'],
  tensorParallel: ['tensor_parallel', 'int'],
  pipelineParallel: ['pipeline_parallel', 'int'],
  maxBatchTokens: ['max_batch_tokens', 'int'],
  maxNumSeqs: ['max_num_seqs', 'int'],
  specDecodeMethod: ['spec_decode_method', 'text'],
  specDraftModel: ['spec_draft_model', 'text'],
  specNumTokens: ['spec_num_tokens', 'int'],
  chunkedPrefill: ['chunked_prefill', 'bool'],
  prefixCaching: ['prefix_caching', 'bool'],
} as const satisfies Record<string, readonly [string, FieldType]>;

export type ServingConfigField = keyof typeof SERVING_CONFIG_FIELDS;
export const SERVING_CONFIG_FIELD_NAMES = Object.keys(SERVING_CONFIG_FIELDS) as ServingConfigField[];
export type ConfigValue = string | number | boolean | null;

export const RUN_TRIGGERS = ['schedule', 'manual', 'deployment'] as const;
export type RunTriggerName = (typeof RUN_TRIGGERS)[number];

/** Which runs an analysis is over. Every field narrows; the time range is required and bounded. */
export interface RunSelection {
  endpointIds?: string[];
  profileIds?: string[];
  runIds?: string[];
  /** Runs that started at or after `from` and before `to`. */
  from: Date;
  to: Date;
  /** Any of these values, per serving-configuration field (of the version the run measured). */
  config?: Partial<Record<ServingConfigField, ConfigValue[]>>;
  triggers?: RunTriggerName[];
  /** Runs whose client was saturated are left out (and counted) unless this is true. */
  includeSaturated?: boolean;
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

export interface SelectedRuns {
  runs: SelectedRun[];
  /** Client-saturated runs the selection matched but left out. */
  excludedSaturated: number;
}

/** The most runs one selection reads; beyond it the caller must narrow the range or the filters. */
export const MAX_SELECTED_RUNS = 20_000;

/** Checks a selection's shape; throws AnalysisInputError naming the parameter at fault. */
export function checkSelection(selection: RunSelection): void {
  const { from, to } = selection;
  if (!(from instanceof Date) || Number.isNaN(from.getTime()))
    throw new AnalysisInputError('from', 'must be a date');
  if (!(to instanceof Date) || Number.isNaN(to.getTime()))
    throw new AnalysisInputError('to', 'must be a date');
  if (from.getTime() >= to.getTime()) throw new AnalysisInputError('to', 'must be after from');
  for (const [field, values] of Object.entries(selection.config ?? {})) {
    const declared = (SERVING_CONFIG_FIELDS as Record<string, readonly [string, FieldType]>)[field];
    if (!declared) throw new AnalysisInputError(field, 'is not a serving-configuration field');
    for (const value of values ?? []) {
      if (value === null) continue;
      const ok =
        declared[1] === 'text'
          ? typeof value === 'string'
          : declared[1] === 'int'
            ? Number.isSafeInteger(value)
            : typeof value === 'boolean';
      if (!ok)
        throw new AnalysisInputError(
          field,
          `must be ${declared[1] === 'bool' ? 'true or false' : `a ${declared[1]}`}`,
        );
    }
  }
}

/**
 * SQL conditions for a selection's serving-configuration filters on the serving_configs row `alias`
 * (the version a run, or a rollup, measured); `bind` adds a parameter and returns its placeholder.
 */
export function configConditions(
  config: RunSelection['config'],
  alias: string,
  bind: (value: unknown) => string,
): string[] {
  const conditions: string[] = [];
  for (const [field, values] of Object.entries(config ?? {})) {
    if (!values) continue;
    const [column, type] = SERVING_CONFIG_FIELDS[field as ServingConfigField];
    const cast = type === 'text' ? 'text' : type === 'int' ? 'int' : 'boolean';
    const present = values.filter((v) => v !== null);
    const orNull = values.length > present.length ? ` OR ${alias}.${column} IS NULL` : '';
    conditions.push(`(${alias}.${column} = ANY(${bind(present)}::${cast}[])${orNull})`);
  }
  return conditions;
}

/**
 * The measured runs a selection names, oldest first, with their configuration. Bounded: more than
 * MAX_SELECTED_RUNS matching runs is an AnalysisInputError on `from` (narrow the range).
 */
export async function selectRuns(db: RunStore, selection: RunSelection): Promise<SelectedRuns> {
  checkSelection(selection);
  const params: unknown[] = [MEASURED_RUN_STATUSES, selection.from, selection.to];
  // A run that ended without measuring (never started, endpoint gone) has no summary: nothing to count.
  const where = [
    'r.status::text = ANY($1)',
    'r.summary IS NOT NULL',
    'r.started_at >= $2',
    'r.started_at < $3',
  ];
  const add = (sql: (p: string) => string, value: unknown) => {
    params.push(value);
    where.push(sql(`$${params.length}`));
  };
  if (selection.endpointIds) add((p) => `r.endpoint_id = ANY(${p}::uuid[])`, selection.endpointIds);
  if (selection.profileIds) add((p) => `r.profile_id = ANY(${p}::uuid[])`, selection.profileIds);
  if (selection.runIds) add((p) => `r.id = ANY(${p}::uuid[])`, selection.runIds);
  if (selection.triggers) add((p) => `r.trigger::text = ANY(${p})`, selection.triggers);
  where.push(
    ...configConditions(selection.config, 'c', (value) => {
      params.push(value);
      return `$${params.length}`;
    }),
  );
  const columns = SERVING_CONFIG_FIELD_NAMES.map((f) => `c.${SERVING_CONFIG_FIELDS[f][0]} AS "${f}"`).join(
    ', ',
  );
  params.push(MAX_SELECTED_RUNS + 1);
  const { rows } = await poolOf(db).query<RunRow>(
    `SELECT r.id, r.endpoint_id, r.profile_id, r.config_id, c.version AS config_version, r.trigger::text AS trigger,
            COALESCE(r.client_saturated, false) AS client_saturated, r.started_at,
            COALESCE(r.requests_succeeded, 0) + COALESCE(r.requests_failed, 0) AS requests,
            COALESCE((r.summary->>'outputTokens')::bigint, 0) AS tokens, ${columns}
       FROM runs r LEFT JOIN serving_configs c ON c.id = r.config_id
      WHERE ${where.join(' AND ')}
      ORDER BY r.started_at, r.id
      LIMIT $${params.length}`,
    params,
  );
  if (rows.length > MAX_SELECTED_RUNS) {
    throw new AnalysisInputError(
      'from',
      `selects more than ${MAX_SELECTED_RUNS} runs: narrow the time range or the filters`,
    );
  }
  const runs: SelectedRun[] = [];
  let excludedSaturated = 0;
  for (const row of rows) {
    if (row.client_saturated && !selection.includeSaturated) {
      excludedSaturated += 1;
      continue;
    }
    runs.push({
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
      config: Object.fromEntries(SERVING_CONFIG_FIELD_NAMES.map((f) => [f, row[f] ?? null])) as Record<
        ServingConfigField,
        ConfigValue
      >,
    });
  }
  return { runs, excludedSaturated };
}

type RunRow = {
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
