import * as model from './latency-model';

const h100Fp16 = model.resolveDeployment({ gpu: 'h100-sxm', model: 'llama-8b', quant: 'fp16' });
const h100Fp8 = model.resolveDeployment({ gpu: 'h100-sxm', model: 'llama-8b', quant: 'fp8' });

describe('latency model', () => {
  it('computes weight and KV bytes from the model shape and dtypes', () => {
    expect(model.weightBytesPerGpu(h100Fp16)).toBe(16.06e9);
    expect(model.weightBytesPerGpu(h100Fp8)).toBe(8.03e9);
    expect(model.weightBytesPerGpu(model.resolveDeployment({ quant: 'int4' }))).toBe(4.015e9);
    // 2 (K,V) x 32 layers x 8 KV heads x 128 dims x 2 bytes
    expect(model.kvBytesPerTokenPerGpu(h100Fp16)).toBe(131072);
    expect(model.kvBytesPerTokenPerGpu(model.resolveDeployment({ kvCacheDtype: 'fp8' }))).toBe(65536);
  });

  it('gives the hand-computed step for llama-8b fp16 on one H100 at batch 1', () => {
    // 0.3 ms + 16.06e9 B / (3.35e12 B/s x 0.8) = 0.3 ms + 5.99254 ms
    expect(model.stepTimeS(h100Fp16, { decodeTokens: 1, prefillTokens: 0, kvTokensRead: 0 })).toBeCloseTo(
      6.29254e-3,
      8,
    );
    // 1000 context tokens add 131072e3 B / 2.68e12 B/s = 48.9 us
    expect(model.decodeStepTimeS(h100Fp16, 1, 1000)).toBeCloseTo(6.29254e-3 + 48.908e-6, 8);
  });

  it('streams 8B fp16 at 5-7 ms per token and fp8 visibly faster at 3-4 ms', () => {
    const fp16 = model.decodeStepTimeS(h100Fp16, 1, 500);
    const fp8 = model.decodeStepTimeS(h100Fp8, 1, 500);
    expect(fp16).toBeGreaterThan(5e-3);
    expect(fp16).toBeLessThan(7e-3);
    expect(fp8).toBeGreaterThan(3e-3);
    expect(fp8).toBeLessThan(4e-3);
  });

  it('grows with batch: memory-bound at first, compute-bound at large batch', () => {
    const steps = [1, 8, 64, 256, 1024].map((batch) => model.decodeStepTimeS(h100Fp16, batch, 1000));
    for (let i = 1; i < steps.length; i++) expect(steps[i]).toBeGreaterThan(steps[i - 1]);
    const small = model.stepTimeBreakdown(h100Fp16, {
      decodeTokens: 1,
      prefillTokens: 0,
      kvTokensRead: 1000,
    });
    expect(small.gemmS).toBe(small.weightReadS);
    const large = model.stepTimeBreakdown(h100Fp16, {
      decodeTokens: 1024,
      prefillTokens: 0,
      kvTokensRead: 1024,
    });
    // 2 x 8.03e9 x 1024 / (989e12 x 0.5) = 33.25 ms of GEMM compute
    expect(large.gemmS).toBe(large.computeS);
    expect(large.computeS).toBeCloseTo((2 * 8.03e9 * 1024) / (989e12 * 0.5), 10);
  });

  it('prefills from compute throughput: 2 x params x prompt tokens / (FLOPs x MFU)', () => {
    // 4096 tokens: 2 x 8.03e9 x 4096 / 494.5e12 = 133.03 ms, plus the 0.3 ms overhead
    expect(model.prefillTimeS(h100Fp16, 4096)).toBeCloseTo(0.3e-3 + (2 * 8.03e9 * 4096) / 494.5e12, 9);
    expect(model.prefillTimeS(h100Fp8, 4096)).toBeLessThan(model.prefillTimeS(h100Fp16, 4096) * 0.55);
  });

  it('orders the GPUs by bandwidth at batch 1', () => {
    const at = (gpu: 'h200' | 'h100-sxm' | 'a100-80gb' | 'l4') =>
      model.decodeStepTimeS(model.resolveDeployment({ gpu }), 1, 100);
    expect(at('h200')).toBeLessThan(at('h100-sxm'));
    expect(at('h100-sxm')).toBeLessThan(at('a100-80gb'));
    expect(at('a100-80gb')).toBeLessThan(at('l4'));
    // L4: 16.06 GB / (0.3 TB/s x 0.8) = 66.9 ms
    expect(at('l4')).toBeCloseTo(0.3e-3 + 16.06e9 / 0.24e12, 3);
  });

  it('divides weights by tensor parallelism and adds the all-reduce cost', () => {
    const tp4 = model.resolveDeployment({ model: 'llama-70b', quant: 'fp16', tp: 4 });
    expect(model.weightBytesPerGpu(tp4)).toBeCloseTo((70.6e9 * 2) / 4, 0);
    // 8 KV heads over 4 GPUs: 2 heads each
    expect(model.kvBytesPerTokenPerGpu(tp4)).toBe(2 * 80 * 2 * 128 * 2);
    // 2 all-reduces x 80 layers x (8 us + 8192 x 2 B x 1.5 / 450 GB/s)
    expect(model.allReduceTimeS(tp4, 1)).toBeCloseTo(160 * (8e-6 + (8192 * 2 * 1.5) / 450e9), 12);
    expect(model.allReduceTimeS(model.resolveDeployment(), 1)).toBe(0);
    const step = model.decodeStepTimeS(tp4, 1, 0);
    expect(step).toBeCloseTo(0.3e-3 + 35.3e9 / 2.68e12 + model.allReduceTimeS(tp4, 1), 9);
  });

  it('refuses deployments that do not fit and unknown presets, naming the fix', () => {
    expect(() => model.resolveDeployment({ model: 'llama-70b' })).toThrow(/141\.2 GB .* raise tp/);
    expect(() => model.resolveDeployment({ gpu: 'tpu' as never })).toThrow(
      /unknown GPU "tpu"; use one of h100-sxm/,
    );
    expect(() => model.resolveDeployment({ tp: 0 })).toThrow(/tensor parallelism/);
  });
});
