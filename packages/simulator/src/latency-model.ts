/**
 * The latency model: pure functions from a deployment (GPU, model, quantization, tensor parallelism)
 * and the work of one engine step to that step's duration. Units: bytes, FLOP, seconds.
 *
 * Per GPU (tensor parallelism tp splits weights, KV heads and FLOPs evenly):
 *   W   = params x bytesPerParam(quant) / tp                         weight bytes read once per step
 *   kv  = 2 x layers x ceil(kvHeads / tp) x headDim x bytes(kvDtype)  KV bytes per context token
 *   BW  = memoryBandwidth x memoryEfficiency                          achievable HBM bandwidth
 *   F   = tensorFlops(matmul precision) x mfu                         achievable FLOP/s
 *   T   = decode tokens + prefill tokens in the step
 *
 *   gemm      = max(W / BW, 2 x params / tp x T / F)       weights stream while tensor cores multiply
 *   attention = kvTokensRead x kv / BW                     decode attention is memory-bound
 *   allReduce = tp > 1 ? 2 x layers x (latency + T x hidden x 2 B x 2(tp-1)/tp / link) : 0
 *   step      = overhead + gemm + attention + allReduce
 *
 * Why max inside gemm and a sum outside: within one GEMM the weight reads overlap the multiplies, so
 * the kernel takes the longer of the two (the roofline); attention, all-reduce and the host overhead
 * (scheduling, sampling, launch gaps) are separate kernels or host work that run one after another.
 * At batch 1 this is exactly overhead + (W + KV read) / BW; at large batch the 2 x params x T FLOPs
 * overtake the weight read and the step becomes compute-bound.
 * Prefill of N prompt tokens is the same formula with T = N (compute-bound for any real prompt); the
 * attention FLOPs quadratic in N are left out (under 5% for 8B at 1k tokens).
 * Calibration (defaults): llama-8b fp16 on one H100 SXM at batch 1 = 0.3 ms + 16.06 GB / 2.68 TB/s
 * = 6.29 ms per token; fp8 = 3.30 ms.
 *
 * Speculative decoding adds k draft passes of the draft model (the same formula for its weights and KV,
 * batch = the drafting sequences, without the host overhead: the draft passes are launched with the
 * step), and the target's pass verifies k + 1 positions per sequence (decodeTokens counts them all):
 * free while the weight read dominates, k + 1 times the FLOPs once the step is compute-bound.
 */
import {
  BYTES_PER_PARAM,
  GPU_PRESETS,
  KV_BYTES_PER_ELEMENT,
  KV_CACHE_DTYPES,
  MODEL_PRESETS,
  WEIGHT_QUANTS,
  type GpuName,
  type GpuSpec,
  type KvCacheDtype,
  type ModelName,
  type ModelSpec,
  type WeightQuant,
} from '@teapot/hardware';

export interface LatencyParams {
  /** Fraction of peak HBM bandwidth a decode step achieves. */
  memoryEfficiency: number;
  /** Model FLOPs utilisation of the tensor cores in GEMMs. */
  mfu: number;
  /** Host and launch overhead per step, seconds (scheduler, sampling, detokenisation). */
  stepOverheadS: number;
  /** Fixed latency of one all-reduce between tensor-parallel GPUs, seconds. */
  allReduceLatencyS: number;
}

export const DEFAULT_LATENCY_PARAMS: Readonly<LatencyParams> = {
  memoryEfficiency: 0.8,
  mfu: 0.5,
  stepOverheadS: 0.3e-3,
  allReduceLatencyS: 8e-6,
};

export interface Deployment {
  gpu: GpuSpec;
  model: ModelSpec;
  /** The model that drafts tokens when speculative decoding is on (same GPU, precision and tp). */
  draftModel: ModelSpec;
  quant: WeightQuant;
  kvCacheDtype: KvCacheDtype;
  tp: number;
  latency: LatencyParams;
}

export interface DeploymentInput {
  gpu?: GpuName | GpuSpec;
  model?: ModelName | ModelSpec;
  /** Default llama-1b. */
  draftModel?: ModelName | ModelSpec;
  quant?: WeightQuant;
  kvCacheDtype?: KvCacheDtype;
  tp?: number;
  latency?: Partial<LatencyParams>;
}

/** The work one engine step does. */
export interface StepWork {
  /** Positions the target decodes: one per decoding sequence, k + 1 with speculative decoding's verify. */
  decodeTokens: number;
  /** Prompt tokens prefilled in this step. */
  prefillTokens: number;
  /** Context tokens whose KV cache attention reads in this step, summed over sequences. */
  kvTokensRead: number;
  /** Speculative decoding: draft passes (k) over draftSequences sequences whose contexts sum to draftKvTokensRead. */
  draftPasses?: number;
  draftSequences?: number;
  draftKvTokensRead?: number;
}

export interface StepTimeBreakdown {
  overheadS: number;
  weightReadS: number;
  computeS: number;
  /** max(weightReadS, computeS). */
  gemmS: number;
  kvReadS: number;
  allReduceS: number;
  /** The draft model's passes (speculative decoding), 0 without. */
  draftS: number;
  totalS: number;
}

const ACTIVATION_BYTES = 2;

export class DeploymentError extends Error {
  override name = 'DeploymentError';
}

export function resolveDeployment(input: DeploymentInput = {}): Deployment {
  const gpu = typeof input.gpu === 'object' ? input.gpu : lookup(GPU_PRESETS, input.gpu ?? 'h100-sxm', 'GPU');
  const model =
    typeof input.model === 'object' ? input.model : lookup(MODEL_PRESETS, input.model ?? 'llama-8b', 'model');
  const draftModel =
    typeof input.draftModel === 'object'
      ? input.draftModel
      : lookup(MODEL_PRESETS, input.draftModel ?? 'llama-1b', 'draft model');
  const quant = input.quant ?? 'fp16';
  if (!WEIGHT_QUANTS.includes(quant)) {
    throw new DeploymentError(`unknown quantization "${quant}"; use one of ${WEIGHT_QUANTS.join(', ')}`);
  }
  const kvCacheDtype = input.kvCacheDtype ?? 'bf16';
  if (!KV_CACHE_DTYPES.includes(kvCacheDtype)) {
    throw new DeploymentError(
      `unknown KV-cache dtype "${kvCacheDtype}"; use one of ${KV_CACHE_DTYPES.join(', ')}`,
    );
  }
  const tp = input.tp ?? 1;
  if (!Number.isInteger(tp) || tp < 1 || tp > 64) {
    throw new DeploymentError(`tensor parallelism must be an integer from 1 to 64, got ${tp}`);
  }
  const latency = { ...DEFAULT_LATENCY_PARAMS, ...input.latency };
  const deployment: Deployment = { gpu, model, draftModel, quant, kvCacheDtype, tp, latency };
  const weights = weightBytesPerGpu(deployment);
  if (weights > gpu.memoryBytes * 0.9) {
    throw new DeploymentError(
      `${model.name} at ${quant} needs ${(weights / 1e9).toFixed(1)} GB of weights per GPU at tp ${tp}, ` +
        `more than 90% of the ${gpu.name}'s ${(gpu.memoryBytes / 1e9).toFixed(0)} GB: raise tp or quantize further`,
    );
  }
  return deployment;
}

function lookup<T>(table: Record<string, T>, name: string, what: string): T {
  const found = Object.prototype.hasOwnProperty.call(table, name) ? table[name] : undefined;
  if (found === undefined) {
    throw new DeploymentError(`unknown ${what} "${name}"; use one of ${Object.keys(table).join(', ')}`);
  }
  return found;
}

export function weightBytesPerGpu(d: Deployment): number {
  return (d.model.params * BYTES_PER_PARAM[d.quant]) / d.tp;
}

/** KV-cache bytes one context token occupies on one GPU (K and V, every layer). */
export function kvBytesPerTokenPerGpu(d: Deployment): number {
  const { layers, kvHeads, headDim } = d.model;
  return 2 * layers * Math.ceil(kvHeads / d.tp) * headDim * KV_BYTES_PER_ELEMENT[d.kvCacheDtype];
}

/** Tensor-core FLOP/s for the GEMMs: fp8/int8 weights use their own units where the GPU has them. */
export function matmulFlopsPerS(gpu: GpuSpec, quant: WeightQuant): number {
  if (quant === 'fp8') return gpu.flopsPerS.fp8 ?? gpu.flopsPerS.bf16;
  if (quant === 'int8') return gpu.flopsPerS.int8 ?? gpu.flopsPerS.bf16;
  return gpu.flopsPerS.bf16;
}

export function stepTimeBreakdown(d: Deployment, work: StepWork): StepTimeBreakdown {
  const pass = forwardPass(d, work.decodeTokens + work.prefillTokens, work.kvTokensRead);
  const draftPasses = work.draftPasses ?? 0;
  const draftS =
    draftPasses > 0
      ? draftPasses *
        forwardPass({ ...d, model: d.draftModel }, work.draftSequences ?? 0, work.draftKvTokensRead ?? 0)
          .totalS
      : 0;
  const overheadS = d.latency.stepOverheadS;
  return { overheadS, ...pass, draftS, totalS: overheadS + pass.totalS + draftS };
}

/** One forward pass of d.model over `tokens` positions, without the host overhead. */
function forwardPass(
  d: Deployment,
  tokens: number,
  kvTokensRead: number,
): Omit<StepTimeBreakdown, 'overheadS' | 'draftS'> {
  const bandwidth = d.gpu.memoryBandwidthBytesPerS * d.latency.memoryEfficiency;
  const flops = matmulFlopsPerS(d.gpu, d.quant) * d.latency.mfu;
  const weightReadS = weightBytesPerGpu(d) / bandwidth;
  const computeS = (2 * (d.model.params / d.tp) * tokens) / flops;
  const gemmS = Math.max(weightReadS, computeS);
  const kvReadS = (kvTokensRead * kvBytesPerTokenPerGpu(d)) / bandwidth;
  const allReduceS = allReduceTimeS(d, tokens);
  return { weightReadS, computeS, gemmS, kvReadS, allReduceS, totalS: gemmS + kvReadS + allReduceS };
}

export function stepTimeS(d: Deployment, work: StepWork): number {
  return stepTimeBreakdown(d, work).totalS;
}

/** Two ring all-reduces per layer (after attention and after the MLP) of T x hidden activations. */
export function allReduceTimeS(d: Deployment, tokens: number): number {
  if (d.tp === 1) return 0;
  const bytes = tokens * d.model.hiddenSize * ACTIVATION_BYTES * ((2 * (d.tp - 1)) / d.tp);
  return 2 * d.model.layers * (d.latency.allReduceLatencyS + bytes / d.gpu.interconnectBytesPerS);
}

/** One decode step of `batch` sequences whose contexts average `contextTokens`. */
export function decodeStepTimeS(d: Deployment, batch: number, contextTokens: number): number {
  return stepTimeS(d, { decodeTokens: batch, prefillTokens: 0, kvTokensRead: batch * contextTokens });
}

/** A prefill-only step of `promptTokens` tokens (without chunked prefill: the stall of running streams). */
export function prefillTimeS(d: Deployment, promptTokens: number): number {
  return stepTimeS(d, { decodeTokens: 0, prefillTokens: promptTokens, kvTokensRead: 0 });
}

export function describeDeployment(d: Deployment): string {
  const tp = d.tp > 1 ? `${d.tp}x ` : '';
  return `${d.model.name} ${d.quant} (KV ${d.kvCacheDtype}) on ${tp}${d.gpu.name}`;
}
