export {
  BYTES_PER_PARAM,
  GPU_PRESETS,
  KV_BYTES_PER_ELEMENT,
  KV_CACHE_DTYPES,
  MODEL_PRESETS,
  WEIGHT_QUANTS,
} from './catalogue';
export type { GpuName, GpuSpec, KvCacheDtype, ModelName, ModelSpec, WeightQuant } from './catalogue';
export { bytesPerWeight, decodeFloorS, findGpu, findModel } from './lookup';
export type { DecodeFloorInput } from './lookup';
