import type { Engine } from './engine';
import { ApiError } from './openai-request';
import { parseJson } from './completions';
import {
  decodeStepTimeS,
  describeDeployment,
  resolveDeployment,
  type Deployment,
  type DeploymentInput,
} from './latency-model';
import {
  GPU_PRESETS,
  KV_CACHE_DTYPES,
  MODEL_PRESETS,
  WEIGHT_QUANTS,
  type GpuName,
  type KvCacheDtype,
  type ModelName,
  type WeightQuant,
} from '@teapot/hardware';
import { KV_BLOCK_TOKENS } from './block-pool';
import {
  checkSpeculation,
  maxModelLenOf,
  resolveKvCacheTokens,
  schedulerOptionsOf,
  type Settings,
  type SimulatorOptions,
} from './settings';

/** What a redeployment may change on a running simulator (the model and its served name stay). */
export interface SimulatorReconfiguration {
  gpu?: GpuName;
  quant?: WeightQuant;
  kvCacheDtype?: KvCacheDtype;
  tp?: number;
  chunkedPrefill?: boolean;
  /** Running sequences per step (max_num_seqs); a smaller one lets running sequences finish, admitting none until under it. */
  maxBatch?: number;
  /** Tokens per step with chunked prefill (max_num_batched_tokens). */
  chunkSize?: number;
  /** KV-cache slots in tokens: a smaller cache preempts running sequences when it overflows. */
  kvCacheTokens?: number;
  prefixCaching?: boolean;
  /** Draft tokens per step (0 turns speculative decoding off). */
  speculativeTokens?: number;
  /** Mean draft-token acceptance of requests that arrive from now on. */
  draftAcceptance?: number;
  draftModel?: ModelName;
}

const RECONFIGURABLE = [
  'gpu',
  'quant',
  'kvCacheDtype',
  'tp',
  'chunkedPrefill',
  'maxBatch',
  'chunkSize',
  'kvCacheTokens',
  'prefixCaching',
  'speculativeTokens',
  'draftAcceptance',
  'draftModel',
] as const;

/** The deployment served now; a redeployment switches the engine from its next step on. */
export class LiveDeployment {
  private input: DeploymentInput &
    Pick<SimulatorOptions, 'kvCacheTokens' | 'gpuMemoryUtilization' | 'maxModelLen'>;

  constructor(
    public deployment: Deployment,
    input: DeploymentInput & Pick<SimulatorOptions, 'kvCacheTokens' | 'gpuMemoryUtilization' | 'maxModelLen'>,
    private readonly settings: Settings,
    public chunkedPrefill: boolean,
    private readonly engine: Engine,
  ) {
    this.input = input;
  }

  /** Throws DeploymentError when the new configuration cannot be served (nothing changes then). */
  reconfigure(change: SimulatorReconfiguration): void {
    const {
      chunkedPrefill,
      maxBatch,
      chunkSize,
      prefixCaching,
      speculativeTokens,
      draftAcceptance,
      ...fields
    } = change;
    const input = { ...this.input, ...fields };
    const deployment = resolveDeployment(input);
    // Other weights leave another cache (unless its size was given): refused, like vLLM, if one sequence no longer fits.
    const kvCacheTokens = resolveKvCacheTokens(input, deployment);
    const speculation = {
      speculativeTokens: speculativeTokens ?? this.settings.speculativeTokens,
      draftAcceptance: draftAcceptance ?? this.settings.draftAcceptance,
    };
    checkSpeculation(speculation);
    this.deployment = deployment;
    this.input = input;
    Object.assign(this.settings, speculation, {
      kvCacheTokens,
      maxModelLen: maxModelLenOf(input, deployment, kvCacheTokens),
      maxBatch: maxBatch ?? this.settings.maxBatch,
      chunkSize: chunkSize ?? this.settings.chunkSize,
      prefixCaching: prefixCaching ?? this.settings.prefixCaching,
    });
    this.chunkedPrefill = chunkedPrefill ?? this.chunkedPrefill;
    this.engine.reconfigure({ deployment, ...schedulerOptionsOf(this.settings, this.chunkedPrefill) });
  }

  /** GET/POST /v1/_teapot/deployment's answer. */
  view(): object {
    const deployment = this.deployment;
    return {
      gpu: deployment.gpu.name,
      model: deployment.model.name,
      quant: deployment.quant,
      kvCacheDtype: deployment.kvCacheDtype,
      tp: deployment.tp,
      chunkedPrefill: this.chunkedPrefill,
      chunkSize: this.settings.chunkSize,
      maxBatch: this.settings.maxBatch,
      kvCacheTokens: this.settings.kvCacheTokens,
      prefixCaching: this.settings.prefixCaching,
      speculativeTokens: this.settings.speculativeTokens,
      draftAcceptance: this.settings.draftAcceptance,
      draftModel: deployment.draftModel.name,
      description: describeDeployment(deployment),
      singleStreamMsPerToken: decodeStepTimeS(deployment, 1, 1) * 1e3,
    };
  }
}

/** The body of POST /v1/_teapot/deployment; a 400 for anything it cannot serve. */
export function parseReconfiguration(rawBody: Buffer): SimulatorReconfiguration {
  const body = parseJson(rawBody);
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new ApiError(400, `The body must be an object with any of ${RECONFIGURABLE.join(', ')}.`);
  }
  const change = body as Record<string, unknown>;
  for (const key of Object.keys(change)) {
    if (!(RECONFIGURABLE as readonly string[]).includes(key))
      throw new ApiError(400, `${key} cannot be changed; use any of ${RECONFIGURABLE.join(', ')}.`, key);
  }
  const text = (key: string, allowed: readonly string[]): void => {
    if (change[key] !== undefined && !allowed.includes(change[key] as string))
      throw new ApiError(400, `${key} must be one of ${allowed.join(', ')}.`, key);
  };
  text('gpu', Object.keys(GPU_PRESETS));
  text('quant', WEIGHT_QUANTS);
  text('kvCacheDtype', KV_CACHE_DTYPES);
  text('draftModel', Object.keys(MODEL_PRESETS));
  const integer = (key: string, min: number, max = Number.MAX_SAFE_INTEGER): void => {
    const value = change[key];
    if (
      value !== undefined &&
      !(Number.isInteger(value) && (value as number) >= min && (value as number) <= max)
    )
      throw new ApiError(400, `${key} must be an integer from ${min} to ${max}.`, key);
  };
  integer('tp', 1);
  integer('maxBatch', 1);
  integer('chunkSize', 1);
  integer('kvCacheTokens', KV_BLOCK_TOKENS);
  integer('speculativeTokens', 0, 16);
  if (
    change.draftAcceptance !== undefined &&
    !(
      typeof change.draftAcceptance === 'number' &&
      change.draftAcceptance >= 0 &&
      change.draftAcceptance <= 1
    )
  )
    throw new ApiError(400, 'draftAcceptance must be a number from 0 to 1.', 'draftAcceptance');
  for (const key of ['chunkedPrefill', 'prefixCaching']) {
    if (change[key] !== undefined && typeof change[key] !== 'boolean')
      throw new ApiError(400, `${key} must be true or false.`, key);
  }
  return change as SimulatorReconfiguration;
}
