import { GPU_PRESETS, MODEL_PRESETS, type GpuSpec, type ModelSpec } from './catalogue';

/** Lower case, letters and digits only, without a leading "nvidia": "NVIDIA H100 SXM" -> "h100sxm". */
function normalized(name: string): string {
  return name
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
    .replace(/^nvidia/, '');
}

/**
 * Other names the catalogue's GPUs go by (normalized), e.g. what nvidia-smi reports. A bare "H100"
 * is not one of them: the PCIe card has 2.0 TB/s, the SXM one 3.35, and a floor must not guess.
 */
const GPU_ALIASES: Record<string, keyof typeof GPU_PRESETS> = {
  h100sxm: 'h100-sxm',
  h100sxm5: 'h100-sxm',
  h100sxm580gb: 'h100-sxm',
  h10080gbhbm3: 'h100-sxm',
  h200: 'h200',
  h200sxm: 'h200',
  h200sxm141gb: 'h200',
  a10080gb: 'a100-80gb',
  a100sxm80gb: 'a100-80gb',
  a100sxm480gb: 'a100-80gb',
  l4: 'l4',
};

/** The catalogue's GPU a configuration's `gpuModel` names ("H100 SXM", "h100-sxm", "NVIDIA L4"), if any. */
export function findGpu(name: string | null | undefined): GpuSpec | null {
  if (!name) return null;
  const preset = GPU_ALIASES[normalized(name)];
  return preset ? GPU_PRESETS[preset] : null;
}

/** Normalized served-model names (the part after the last "/") of the catalogue's models. */
const MODEL_PATTERNS: Array<[RegExp, keyof typeof MODEL_PRESETS]> = [
  [/^(meta)?llama(3|31|32|33)?8b(instruct|hf)?$/, 'llama-8b'],
  [/^(meta)?llama(3|31|33)?70b(instruct|hf)?$/, 'llama-70b'],
  [/^(meta)?llama(32)?1b(instruct|hf)?$/, 'llama-1b'],
];

/**
 * The catalogue's model an endpoint's model name names: "llama-8b", "meta-llama/Llama-3.1-8B-Instruct",
 * "Meta-Llama-3-70B-Instruct". Quantized repackagings ("...-FP8", "...-AWQ") match too: the
 * parameter count is the same, the bytes per weight come from the configuration's weightQuant.
 */
export function findModel(name: string | null | undefined): ModelSpec | null {
  if (!name) return null;
  const base = normalized(name.slice(name.lastIndexOf('/') + 1)).replace(
    /(fp8|int8|int4|awq|gptq|w4a16|w8a8)+$/,
    '',
  );
  const found = MODEL_PATTERNS.find(([pattern]) => pattern.test(base));
  return found ? MODEL_PRESETS[found[1]] : null;
}

/**
 * Bytes each weight takes at a configuration's weight precision, or null when the name does not say
 * (e.g. "gptq" without its bit width). 4-bit schemes count 0.5 bytes; their scales are left out.
 */
export function bytesPerWeight(weightQuant: string | null | undefined): number | null {
  if (!weightQuant) return null;
  const q = weightQuant.toLowerCase();
  if (/(fp|float)32/.test(q)) return 4;
  if (/^(fp16|bf16|float16|bfloat16|half|f16)$/.test(q)) return 2;
  if (/(fp8|int8|w8a|8bit|8-bit|e4m3|e5m2)/.test(q)) return 1;
  if (/(int4|w4a|awq|4bit|4-bit|fp4|nf4)/.test(q)) return 0.5;
  return null;
}

export interface DecodeFloorInput {
  params: number;
  bytesPerWeight: number;
  memoryBandwidthBytesPerS: number;
  /** GPUs the weights are split over (tensor parallelism); pipeline stages run one after another. */
  tensorParallel: number;
}

/**
 * The memory-bound time per output token: a decode step reads every weight once whatever the batch,
 * so no sequence gets a token faster than weight bytes / HBM bandwidth (per GPU, with tensor
 * parallelism splitting the weights). KV-cache reads, overheads and communication only add to it.
 */
export function decodeFloorS(input: DecodeFloorInput): number {
  return (input.params * input.bytesPerWeight) / (input.tensorParallel * input.memoryBandwidthBytesPerS);
}
