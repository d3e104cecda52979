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
export type ConfigFilter = Partial<Record<ServingConfigField, ConfigValue[]>>;

/**
 * SQL conditions for serving-configuration filters on the serving_configs row `alias` (the version a
 * run, or a rollup, measured); `bind` adds a parameter and returns its placeholder.
 */
export function configConditions(
  config: ConfigFilter | undefined,
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

/** `alias`'s serving-configuration columns, each named by its field. */
export function configColumns(fields: readonly ServingConfigField[], alias: string): string {
  return fields.map((field) => `${alias}.${SERVING_CONFIG_FIELDS[field][0]} AS "${field}"`).join(', ');
}

/** Parameters of one statement: `bind` appends a value and returns its placeholder. */
export class Parameters {
  readonly values: unknown[] = [];

  bind = (value: unknown): string => {
    this.values.push(value);
    return `$${this.values.length}`;
  };
}

/** A row's serving-configuration values as configColumns selected them (unset: null). */
export function configOf(
  row: Partial<Record<ServingConfigField, ConfigValue>>,
): Record<ServingConfigField, ConfigValue> {
  return Object.fromEntries(SERVING_CONFIG_FIELD_NAMES.map((f) => [f, row[f] ?? null])) as Record<
    ServingConfigField,
    ConfigValue
  >;
}
