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
  WEIGHT_QUANTS,
  type GpuName,
  type KvCacheDtype,
  type WeightQuant,
} from '@teapot/hardware';
import { maxModelLenOf, resolveKvCacheTokens, type Settings, type SimulatorOptions } from './settings';

/** What a redeployment may change on a running simulator (the model and its served name stay). */
export interface SimulatorReconfiguration {
  gpu?: GpuName;
  quant?: WeightQuant;
  kvCacheDtype?: KvCacheDtype;
  tp?: number;
  chunkedPrefill?: boolean;
  /** Running sequences per step (max_num_seqs); a smaller one lets running sequences finish, admitting none until under it. */
  maxBatch?: number;
}

const RECONFIGURABLE = ['gpu', 'quant', 'kvCacheDtype', 'tp', 'chunkedPrefill', 'maxBatch'] as const;

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
    const { chunkedPrefill, maxBatch, ...fields } = change;
    const input = { ...this.input, ...fields };
    const deployment = resolveDeployment(input);
    // Other weights leave another cache (unless its size was given): refused, like vLLM, if one sequence no longer fits.
    const kvCacheTokens = resolveKvCacheTokens(input, deployment);
    this.deployment = deployment;
    this.input = input;
    this.settings.kvCacheTokens = kvCacheTokens;
    this.settings.maxModelLen = maxModelLenOf(input, deployment, kvCacheTokens);
    this.settings.maxBatch = maxBatch ?? this.settings.maxBatch;
    this.chunkedPrefill = chunkedPrefill ?? this.chunkedPrefill;
    this.engine.reconfigure({
      deployment,
      chunkedPrefill: this.chunkedPrefill,
      kvCacheTokens,
      maxBatch: this.settings.maxBatch,
    });
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
      maxBatch: this.settings.maxBatch,
      kvCacheTokens: this.settings.kvCacheTokens,
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
  if (change.tp !== undefined && !(Number.isInteger(change.tp) && (change.tp as number) >= 1))
    throw new ApiError(400, 'tp must be a positive integer.', 'tp');
  if (
    change.maxBatch !== undefined &&
    !(Number.isInteger(change.maxBatch) && (change.maxBatch as number) >= 1)
  )
    throw new ApiError(400, 'maxBatch must be a positive integer.', 'maxBatch');
  if (change.chunkedPrefill !== undefined && typeof change.chunkedPrefill !== 'boolean')
    throw new ApiError(400, 'chunkedPrefill must be true or false.', 'chunkedPrefill');
  return change as SimulatorReconfiguration;
}
