export { LatencyHistogram, SparseHistogram, HISTOGRAM_RELATIVE_ERROR, HISTOGRAM_MAX_US } from './histogram';
export { mannWhitneyU } from './mann-whitney';
export {
  bootstrapDeltas,
  bootstrapRatioDelta,
  type BootstrapDeltaResult,
  type PooledSample,
  type PooledStatistic,
  type Pooling,
  type RateTotals,
} from './bootstrap';
export {
  otavaChangePoints,
  robustChangePoints,
  stepStillHolds,
  labelledSeries,
  familySeries,
  scoreDetections,
  SERIES_FAMILIES,
  SERIES_KINDS,
  type SeriesFamily,
  type OtavaOptions,
  type RobustOptions,
  type Detection,
  type LabelledSeries,
} from './change-points';
export { tQuantile, welchOnLogs } from './welch';
