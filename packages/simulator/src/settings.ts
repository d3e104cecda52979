import type { FaultOptions } from './faults';
import type { GroundTruthLimits } from './ground-truth';
import {
  DeploymentError,
  kvBytesPerTokenPerGpu,
  weightBytesPerGpu,
  type Deployment,
  type DeploymentInput,
} from './latency-model';
import { KV_BLOCK_TOKENS, type SchedulerOptions } from './scheduler';
import { tokenizerVocabulary, WORD_VOCABULARY, type OutputVocabulary } from './vocabulary';

/** Deployment fields (gpu, model, quant, kvCacheDtype, tp, latency) default to llama-8b fp16 on one H100 SXM. */
export interface SimulatorOptions extends DeploymentInput {
  /** 0 (default) picks a free port. */
  port?: number;
  /** Default 127.0.0.1. */
  host?: string;
  /** Running sequences per step (default 256). */
  maxBatch?: number;
  /** Default false: a new prompt's prefill stalls every running stream for one step. */
  chunkedPrefill?: boolean;
  /**
   * Tokens per step with chunked prefill (vLLM's max_num_batched_tokens, default 512): running decodes
   * count first (1 + draft tokens each), prompt chunks take the rest.
   */
  chunkSize?: number;
  /** vLLM's automatic prefix caching of full prompt blocks (default false; vLLM's default is on). */
  prefixCaching?: boolean;
  /** Speculative decoding: draft tokens per step and sequence (default 0: off). */
  speculativeTokens?: number;
  /** Mean probability that a draft token is accepted; each request's own is drawn around it from its prompt (default 0.7). */
  draftAcceptance?: number;
  /** Prompt tokens per prefill step without chunked prefill (default 8192, at least one whole prompt). */
  maxPrefillTokens?: number;
  /** KV-cache slots in tokens, whole blocks of 16 (default: what gpuMemoryUtilization leaves after the weights). */
  kvCacheTokens?: number;
  /** Share of each GPU's memory for weights and KV cache when kvCacheTokens is not given (default 0.9). */
  gpuMemoryUtilization?: number;
  /** Tokens bundled per SSE chunk (default 1). */
  tokensPerChunk?: number;
  /** Sigma of the lognormal step-time jitter (default 0.03). */
  jitter?: number;
  /** Seed of every random choice (default 1). */
  seed?: number;
  /** Mean output length when a request stops at its seeded EOS (default 256). */
  meanOutputTokens?: number;
  /** Context window (default: the model's, or the KV cache's size if that is smaller). */
  maxModelLen?: number;
  /**
   * A model's tokenizer.json: prompts are counted in its tokens and every streamed token is one of its
   * tokens (default: whitespace words in, a fixed word list out).
   */
  tokenizer?: string;
  /** The name served in /v1/models and expected in `model` (default the model preset's name). */
  servedModelName?: string;
  fault?: FaultOptions;
  groundTruthLimits?: Partial<GroundTruthLimits>;
  /** The engine loop spins for the last spinUs before each step (default 1000; 0 = timers only). */
  spinUs?: number;
  /** When the loop falls this far behind its schedule (a GC pause, a suspended machine) it restarts the schedule from now instead of catching up in a burst (default 50). */
  maxLagMs?: number;
}

/** The options a running simulator uses, with defaults filled in and checked. */
export interface Settings {
  maxBatch: number;
  chunkSize: number;
  prefixCaching: boolean;
  speculativeTokens: number;
  draftAcceptance: number;
  maxPrefillTokens: number;
  tokensPerChunk: number;
  jitter: number;
  meanOutputTokens: number;
  maxModelLen: number;
  kvCacheTokens: number;
  vocabulary: OutputVocabulary;
}

export function resolveSettings(options: SimulatorOptions, deployment: Deployment): Settings {
  const settings: Settings = {
    maxBatch: options.maxBatch ?? 256,
    chunkSize: options.chunkSize ?? 512,
    prefixCaching: options.prefixCaching ?? false,
    speculativeTokens: options.speculativeTokens ?? 0,
    draftAcceptance: options.draftAcceptance ?? 0.7,
    maxPrefillTokens: options.maxPrefillTokens ?? 8192,
    tokensPerChunk: options.tokensPerChunk ?? 1,
    jitter: options.jitter ?? 0.03,
    meanOutputTokens: options.meanOutputTokens ?? 256,
    maxModelLen: 0,
    kvCacheTokens: resolveKvCacheTokens(options, deployment),
    vocabulary: options.tokenizer === undefined ? WORD_VOCABULARY : tokenizerVocabulary(options.tokenizer),
  };
  settings.maxModelLen = maxModelLenOf(options, deployment, settings.kvCacheTokens);
  for (const key of ['maxBatch', 'chunkSize', 'maxPrefillTokens', 'tokensPerChunk', 'maxModelLen'] as const) {
    if (!Number.isInteger(settings[key]) || settings[key] < 1) {
      throw new DeploymentError(`${key} must be a positive integer, got ${settings[key]}`);
    }
  }
  checkSpeculation(settings);
  if (!(settings.jitter >= 0 && settings.jitter <= 1)) {
    throw new DeploymentError(`jitter must be between 0 and 1, got ${settings.jitter}`);
  }
  if (!(settings.meanOutputTokens >= 1)) {
    throw new DeploymentError(`meanOutputTokens must be at least 1, got ${settings.meanOutputTokens}`);
  }
  const rate = options.fault?.rate ?? 1;
  if (!(rate >= 0 && rate <= 1)) throw new DeploymentError(`fault rate must be between 0 and 1, got ${rate}`);
  return settings;
}

/**
 * The KV cache in tokens: kvCacheTokens as given, or as vLLM sizes it, the memory gpuMemoryUtilization
 * allows per GPU less the weights, over each token's keys and values per GPU, in whole blocks. Like
 * vLLM, refuses a cache that cannot hold one sequence of an explicit maxModelLen.
 */
export function resolveKvCacheTokens(
  options: Pick<SimulatorOptions, 'kvCacheTokens' | 'gpuMemoryUtilization' | 'maxModelLen'>,
  deployment: Deployment,
): number {
  const utilization = options.gpuMemoryUtilization ?? 0.9;
  if (!(utilization > 0 && utilization <= 1)) {
    throw new DeploymentError(`gpuMemoryUtilization must be in (0, 1], got ${utilization}`);
  }
  let tokens: number;
  if (options.kvCacheTokens !== undefined) {
    if (!Number.isInteger(options.kvCacheTokens) || options.kvCacheTokens < KV_BLOCK_TOKENS) {
      throw new DeploymentError(
        `kvCacheTokens must be an integer of at least ${KV_BLOCK_TOKENS} (one block), got ${options.kvCacheTokens}`,
      );
    }
    tokens = options.kvCacheTokens;
  } else {
    const free = deployment.gpu.memoryBytes * utilization - weightBytesPerGpu(deployment);
    tokens = Math.max(0, Math.floor(free / kvBytesPerTokenPerGpu(deployment)));
  }
  tokens -= tokens % KV_BLOCK_TOKENS;
  const needed = options.maxModelLen ?? KV_BLOCK_TOKENS;
  if (tokens < needed) {
    throw new DeploymentError(
      `a KV cache of ${tokens} tokens cannot hold one sequence of ${needed} tokens (maxModelLen); ` +
        'raise kvCacheTokens or gpuMemoryUtilization, or lower maxModelLen',
    );
  }
  return tokens;
}

/** The context window: as given, else the model's capped at the cache (a longer sequence could never run). */
export function maxModelLenOf(
  options: Pick<SimulatorOptions, 'maxModelLen'>,
  deployment: Deployment,
  kvCacheTokens: number,
): number {
  return options.maxModelLen ?? Math.min(deployment.model.contextLength, kvCacheTokens);
}

/** Speculative decoding's settings, checked at start and on a redeployment. */
export function checkSpeculation(settings: Pick<Settings, 'speculativeTokens' | 'draftAcceptance'>): void {
  if (
    !Number.isInteger(settings.speculativeTokens) ||
    settings.speculativeTokens < 0 ||
    settings.speculativeTokens > 16
  ) {
    throw new DeploymentError(
      `speculativeTokens must be an integer from 0 (off) to 16, got ${settings.speculativeTokens}`,
    );
  }
  if (!(settings.draftAcceptance >= 0 && settings.draftAcceptance <= 1)) {
    throw new DeploymentError(`draftAcceptance must be between 0 and 1, got ${settings.draftAcceptance}`);
  }
}

/** The scheduler's options from the settings served now. */
export function schedulerOptionsOf(settings: Settings, chunkedPrefill: boolean): SchedulerOptions {
  return {
    maxBatch: settings.maxBatch,
    chunkedPrefill,
    chunkSize: settings.chunkSize,
    maxPrefillTokens: settings.maxPrefillTokens,
    kvCacheTokens: settings.kvCacheTokens,
    prefixCaching: settings.prefixCaching,
    speculativeTokens: settings.speculativeTokens,
    draftAcceptance: settings.draftAcceptance,
  };
}
