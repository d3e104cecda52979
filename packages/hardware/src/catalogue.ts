/**
 * The hardware catalogue: GPUs (peak HBM bandwidth, memory, tensor-core FLOP/s, interconnect) and
 * model shapes, declared once for the simulator's latency model and the analysis's roofline floor.
 */

/** Weight precision of the served model. int4 is weight-only (W4A16: compute runs in 16 bit). */
export type WeightQuant = 'fp16' | 'bf16' | 'fp8' | 'int8' | 'int4';
/** KV-cache dtype, as vLLM's `--kv-cache-dtype` (auto = the 16-bit activation dtype). */
export type KvCacheDtype = 'fp16' | 'bf16' | 'fp8';

export const WEIGHT_QUANTS: readonly WeightQuant[] = ['fp16', 'bf16', 'fp8', 'int8', 'int4'];
export const KV_CACHE_DTYPES: readonly KvCacheDtype[] = ['fp16', 'bf16', 'fp8'];

export const BYTES_PER_PARAM: Readonly<Record<WeightQuant, number>> = {
  fp16: 2,
  bf16: 2,
  fp8: 1,
  int8: 1,
  int4: 0.5,
};

export const KV_BYTES_PER_ELEMENT: Readonly<Record<KvCacheDtype, number>> = { fp16: 2, bf16: 2, fp8: 1 };

export interface GpuSpec {
  name: string;
  /** Peak HBM bandwidth, bytes/s. */
  memoryBandwidthBytesPerS: number;
  memoryBytes: number;
  /** Dense (no sparsity) tensor-core throughput, FLOP/s; absent where the GPU has no such units. */
  flopsPerS: { bf16: number; fp8?: number; int8?: number };
  /** GPU-to-GPU bandwidth per direction (NVLink, or PCIe where there is none), bytes/s. */
  interconnectBytesPerS: number;
}

export interface ModelSpec {
  name: string;
  params: number;
  layers: number;
  kvHeads: number;
  headDim: number;
  hiddenSize: number;
  contextLength: number;
}

export const GPU_PRESETS = {
  'h100-sxm': {
    name: 'h100-sxm',
    memoryBandwidthBytesPerS: 3.35e12,
    memoryBytes: 80e9,
    flopsPerS: { bf16: 989e12, fp8: 1979e12, int8: 1979e12 },
    interconnectBytesPerS: 450e9,
  },
  h200: {
    name: 'h200',
    memoryBandwidthBytesPerS: 4.8e12,
    memoryBytes: 141e9,
    flopsPerS: { bf16: 989e12, fp8: 1979e12, int8: 1979e12 },
    interconnectBytesPerS: 450e9,
  },
  'a100-80gb': {
    name: 'a100-80gb',
    memoryBandwidthBytesPerS: 2.0e12,
    memoryBytes: 80e9,
    flopsPerS: { bf16: 312e12, int8: 624e12 },
    interconnectBytesPerS: 300e9,
  },
  l4: {
    name: 'l4',
    memoryBandwidthBytesPerS: 0.3e12,
    memoryBytes: 24e9,
    flopsPerS: { bf16: 121e12, fp8: 242.5e12, int8: 242.5e12 },
    interconnectBytesPerS: 32e9,
  },
} as const satisfies Record<string, GpuSpec>;

export const MODEL_PRESETS = {
  'llama-8b': {
    name: 'llama-8b',
    params: 8.03e9,
    layers: 32,
    kvHeads: 8,
    headDim: 128,
    hiddenSize: 4096,
    contextLength: 131072,
  },
  'llama-70b': {
    name: 'llama-70b',
    params: 70.6e9,
    layers: 80,
    kvHeads: 8,
    headDim: 128,
    hiddenSize: 8192,
    contextLength: 131072,
  },
  /** Llama 3.2 1B: also the simulator's default draft model for speculative decoding of the larger two. */
  'llama-1b': {
    name: 'llama-1b',
    params: 1.24e9,
    layers: 16,
    kvHeads: 8,
    headDim: 64,
    hiddenSize: 2048,
    contextLength: 131072,
  },
} as const satisfies Record<string, ModelSpec>;

export type GpuName = keyof typeof GPU_PRESETS;
export type ModelName = keyof typeof MODEL_PRESETS;
