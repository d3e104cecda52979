import { BYTES_PER_PARAM, GPU_PRESETS, MODEL_PRESETS, WEIGHT_QUANTS } from './catalogue';
import { bytesPerWeight, decodeFloorS, findGpu, findModel } from './lookup';

describe('hardware lookup', () => {
  it('finds GPUs by the names configurations and nvidia-smi use, and never guesses a bare H100', () => {
    expect(findGpu('H100 SXM')).toBe(GPU_PRESETS['h100-sxm']);
    expect(findGpu('h100-sxm')).toBe(GPU_PRESETS['h100-sxm']);
    expect(findGpu('NVIDIA H100 80GB HBM3')).toBe(GPU_PRESETS['h100-sxm']);
    expect(findGpu('NVIDIA L4')).toBe(GPU_PRESETS.l4);
    expect(findGpu('A100-SXM4-80GB')).toBe(GPU_PRESETS['a100-80gb']);
    for (const name of Object.keys(GPU_PRESETS)) expect(findGpu(name)?.name).toBe(name);
    expect(findGpu('H100')).toBeNull();
    expect(findGpu('MI300X')).toBeNull();
    expect(findGpu(null)).toBeNull();
  });

  it('finds models by served names, including quantized repackagings', () => {
    expect(findModel('llama-8b')).toBe(MODEL_PRESETS['llama-8b']);
    expect(findModel('meta-llama/Llama-3.1-8B-Instruct')).toBe(MODEL_PRESETS['llama-8b']);
    expect(findModel('neuralmagic/Meta-Llama-3.1-8B-Instruct-FP8')).toBe(MODEL_PRESETS['llama-8b']);
    expect(findModel('meta-llama/Llama-3.3-70B-Instruct')).toBe(MODEL_PRESETS['llama-70b']);
    expect(findModel('meta-llama/Llama-3.2-1B-Instruct')).toBe(MODEL_PRESETS['llama-1b']);
    expect(findModel('mistralai/Mistral-7B-Instruct-v0.3')).toBeNull();
    expect(findModel('llama-80b')).toBeNull();
  });

  it('reads bytes per weight from the precision names in use, agreeing with the simulator table', () => {
    for (const quant of WEIGHT_QUANTS) expect(bytesPerWeight(quant)).toBe(BYTES_PER_PARAM[quant]);
    expect(bytesPerWeight('int4-awq')).toBe(0.5);
    expect(bytesPerWeight('w8a8')).toBe(1);
    expect(bytesPerWeight('fp8_e4m3')).toBe(1);
    expect(bytesPerWeight('float32')).toBe(4);
    expect(bytesPerWeight('gptq')).toBeNull();
    expect(bytesPerWeight(undefined)).toBeNull();
  });

  it('puts the decode floor at weight bytes over bandwidth, split by tensor parallelism', () => {
    // llama-8b fp16 on one H100 SXM: 16.06 GB / 3.35 TB/s = 4.79 ms per token.
    const floor = decodeFloorS({
      params: 8.03e9,
      bytesPerWeight: 2,
      memoryBandwidthBytesPerS: 3.35e12,
      tensorParallel: 1,
    });
    expect(floor).toBeCloseTo(16.06e9 / 3.35e12, 15);
    expect(floor * 1000).toBeCloseTo(4.794, 3);
    expect(
      decodeFloorS({
        params: 70.6e9,
        bytesPerWeight: 1,
        memoryBandwidthBytesPerS: 3.35e12,
        tensorParallel: 4,
      }),
    ).toBeCloseTo(70.6e9 / 4 / 3.35e12, 15);
  });
});
