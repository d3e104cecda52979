import { bytesPerWeight, decodeFloorS, findGpu, findModel } from '@teapot/hardware';
import type { ConfigValue, ServingConfigField } from '@teapot/db';

/** What the floor of one run needs: its endpoint's model, its configuration and its `extra`. */
export interface RooflineRun {
  model: string;
  config: Record<ServingConfigField, ConfigValue>;
  extra: unknown;
}

export interface SideRoofline {
  /** The memory-bound TPOT floor (ms): weight bytes / (tensor parallelism x HBM bandwidth). */
  floorMs: number | null;
  /** The side's P50 TPOT over all its requests (ms). */
  tpotP50Ms: number | null;
  /** floorMs / tpotP50Ms: 1 is the floor itself; 0.5 takes twice as long as physics requires. */
  achievedFraction: number | null;
  gpu?: string;
  memoryBandwidthBytesPerS?: number;
  modelParams?: number;
  /** Where the parameter count came from: the catalogue (by model name) or the configuration's extra.modelParams. */
  paramsFrom?: 'catalogue' | 'config';
  bytesPerWeight?: number;
  tensorParallel?: number;
  /** Why there is no floor. */
  reason?: string;
}

interface Floor {
  floorMs: number;
  gpu: string;
  memoryBandwidthBytesPerS: number;
  modelParams: number;
  paramsFrom: 'catalogue' | 'config';
  bytesPerWeight: number;
  tensorParallel: number;
}

const MAX_PARAMS = 1e13;

/** The parameter count a configuration declares in `extra.modelParams` (a number of parameters, e.g. 8.03e9). */
function declaredParams(extra: unknown): number | null {
  if (!extra || typeof extra !== 'object') return null;
  const value = (extra as Record<string, unknown>).modelParams;
  return typeof value === 'number' && value > 0 && value <= MAX_PARAMS ? value : null;
}

function floorOf(run: RooflineRun): Floor | string {
  const gpuName = run.config.gpuModel;
  if (typeof gpuName !== 'string') return 'the serving configuration names no gpuModel';
  const gpu = findGpu(gpuName);
  if (!gpu) return `gpuModel "${gpuName}" is not in the hardware catalogue`;
  const quant = run.config.weightQuant;
  if (typeof quant !== 'string') return 'the serving configuration names no weightQuant';
  const bytes = bytesPerWeight(quant);
  if (bytes === null) return `weightQuant "${quant}" does not say its bytes per weight`;
  const declared = declaredParams(run.extra);
  const model = declared === null ? findModel(run.model) : null;
  if (declared === null && !model)
    return `model "${run.model}" is not in the catalogue and the configuration sets no extra.modelParams`;
  const params = declared ?? model!.params;
  const gpus = typeof run.config.gpuCount === 'number' ? run.config.gpuCount : 1;
  const stages = typeof run.config.pipelineParallel === 'number' ? run.config.pipelineParallel : 1;
  // Unset tensor parallelism: the GPUs not used as pipeline stages split the weights.
  const tp =
    typeof run.config.tensorParallel === 'number'
      ? run.config.tensorParallel
      : Math.max(1, Math.floor(gpus / stages));
  return {
    floorMs:
      decodeFloorS({
        params,
        bytesPerWeight: bytes,
        memoryBandwidthBytesPerS: gpu.memoryBandwidthBytesPerS,
        tensorParallel: tp,
      }) * 1000,
    gpu: gpu.name,
    memoryBandwidthBytesPerS: gpu.memoryBandwidthBytesPerS,
    modelParams: params,
    paramsFrom: declared === null ? 'catalogue' : 'config',
    bytesPerWeight: bytes,
    tensorParallel: tp,
  };
}

/**
 * The memory-bound TPOT floor of a side and the fraction of it the side achieves, when every run of
 * the side has the same floor (one GPU type, model, precision and tensor parallelism).
 */
export function sideRoofline(runs: RooflineRun[], tpotP50Ms: number | null): SideRoofline {
  const floors = runs.map(floorOf);
  const missing = floors.find((floor): floor is string => typeof floor === 'string');
  if (missing !== undefined) return { floorMs: null, tpotP50Ms, achievedFraction: null, reason: missing };
  const distinct = new Map((floors as Floor[]).map((floor) => [floor.floorMs, floor]));
  if (distinct.size !== 1)
    return {
      floorMs: null,
      tpotP50Ms,
      achievedFraction: null,
      reason: `the side's runs have ${distinct.size} different floors (GPU, model, precision or parallelism differ)`,
    };
  const [floor] = distinct.values();
  return {
    ...floor,
    tpotP50Ms,
    achievedFraction: tpotP50Ms && tpotP50Ms > 0 ? floor.floorMs / tpotP50Ms : null,
  };
}
