import type { GpuSpec } from '@teapot/hardware';

/** A GPU with unlimited bandwidth and FLOPs: every step takes just the step overhead (`--step-ms`). */
export const FIXED_STEP_GPU: Readonly<GpuSpec> = {
  name: 'fixed-step',
  memoryBandwidthBytesPerS: 1e18,
  memoryBytes: 1e15,
  flopsPerS: { bf16: 1e21 },
  interconnectBytesPerS: 1e18,
};
