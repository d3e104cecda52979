export { LatencyHistogram, SparseHistogram, HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_MAX_US } from './histogram';
export { mannWhitneyU, type MannWhitneyResult } from './mann-whitney';
export {
  bootstrapDelta,
  bootstrapDeltas,
  bootstrapRatioDelta,
  NAMED_QUANTILES,
  POOLINGS,
  type Pooling,
  type BootstrapDeltaInput,
  type BootstrapDeltasInput,
  type BootstrapRatioInput,
  type RateTotals,
  type BootstrapDeltaResult,
  type NamedStatistic,
  type PooledSample,
  type ResampleUnit,
  type RunSamples,
  type Statistic,
} from './bootstrap';
export * from './change-points';
