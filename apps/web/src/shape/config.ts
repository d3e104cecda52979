import type { GetOptions, Schemas } from '../api/client';

type ServingConfig = Schemas['ServingConfigDto'];

/** A serving configuration as the few facts an inference engineer reads first; unknown fields are left out. */
export function configFacts(config: ServingConfig): string[] {
  const facts: string[] = [`v${config.version}`];
  const engine = [config.engine, config.engineVersion].filter(Boolean).join(' ');
  if (engine) facts.push(engine);
  if (config.gpuModel) facts.push(`${config.gpuCount ?? 1}× ${config.gpuModel}`);
  const quant = [
    config.weightQuant && `W:${config.weightQuant}`,
    config.activationQuant && `A:${config.activationQuant}`,
    config.kvCacheQuant && `KV:${config.kvCacheQuant}`,
  ].filter(Boolean);
  if (quant.length > 0) facts.push(quant.join(' '));
  if (config.tensorParallel) facts.push(`TP${config.tensorParallel}`);
  if (config.pipelineParallel && config.pipelineParallel > 1) facts.push(`PP${config.pipelineParallel}`);
  if (config.maxNumSeqs) facts.push(`max ${config.maxNumSeqs} seqs`);
  if (config.chunkedPrefill !== null)
    facts.push(config.chunkedPrefill ? 'chunked prefill' : 'no chunked prefill');
  if (config.specDecodeMethod)
    facts.push(`spec: ${config.specDecodeMethod}${config.specNumTokens ? ` ×${config.specNumTokens}` : ''}`);
  return facts;
}

type ConfigFieldName = Exclude<
  NonNullable<NonNullable<GetOptions<'/trends'>['query']>['groupBy']>[number],
  'endpoint' | 'profile'
>;

/** The serving-configuration fields a page filters or groups by, with how a typed value is read. */
export const CONFIG_FIELDS: ReadonlyArray<{
  name: ConfigFieldName;
  label: string;
  type: 'text' | 'int' | 'bool';
}> = [
  { name: 'weightQuant', label: 'weight quantisation', type: 'text' },
  { name: 'activationQuant', label: 'activation quantisation', type: 'text' },
  { name: 'kvCacheQuant', label: 'KV-cache quantisation', type: 'text' },
  { name: 'engineVersion', label: 'engine version', type: 'text' },
  { name: 'gpuModel', label: 'GPU model', type: 'text' },
  { name: 'gpuCount', label: 'GPU count', type: 'int' },
  { name: 'tensorParallel', label: 'tensor parallel', type: 'int' },
  { name: 'maxNumSeqs', label: 'max sequences', type: 'int' },
  { name: 'maxBatchTokens', label: 'max batch tokens', type: 'int' },
  { name: 'chunkedPrefill', label: 'chunked prefill', type: 'bool' },
  { name: 'prefixCaching', label: 'prefix caching', type: 'bool' },
  { name: 'specDecodeMethod', label: 'speculative decoding', type: 'text' },
];
